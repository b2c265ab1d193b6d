/* Lists (bit sets of value indices) for futocp's C extensions:
 * _filter_core.c and backends/_listcolor_core.c.
 *
 * ``bits`` is NW 64-bit words wide (BITS_WIDTH bits), NW a compile-time
 * constant (1 unless the includer defines it): NW=1 is a uint64_t, NW=2 an
 * unsigned __int128 (GCC and Clang; the compiler does the two-word
 * arithmetic). Both are plain integers, so one source serves both widths:
 * &, |, ^, ~, x - 1, 0 - x, ==, shifts by less than BITS_WIDTH, and
 * popc/ctz/hib below (ctz and hib of a non-zero x). */
#ifndef FUTOCP_BITS_H
#define FUTOCP_BITS_H

#include <stdint.h>

#ifndef NW
#define NW 1
#endif

static inline int popc64(uint64_t x) {
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

#if defined(_MSC_VER)
#include <intrin.h>
static inline int ctz64(uint64_t x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
static inline int hib64(uint64_t x) { unsigned long i; _BitScanReverse64(&i, x); return (int)i; }
#else
static inline int ctz64(uint64_t x) { return __builtin_ctzll(x); }
static inline int hib64(uint64_t x) { return 63 - __builtin_clzll(x); }
#endif

#if NW == 1
#define BITS_WIDTH 64
typedef uint64_t bits;
static inline int popc(bits x) { return popc64(x); }
static inline int ctz(bits x) { return ctz64(x); }
static inline int hib(bits x) { return hib64(x); }
#elif NW == 2
#if !defined(__SIZEOF_INT128__)
#error "NW=2 needs unsigned __int128 (GCC or Clang on a 64-bit target)"
#endif
#define BITS_WIDTH 128
typedef unsigned __int128 bits;
static inline int popc(bits x) { return popc64((uint64_t)x) + popc64((uint64_t)(x >> 64)); }
static inline int ctz(bits x) {
    uint64_t lo = (uint64_t)x;
    return lo ? ctz64(lo) : 64 + ctz64((uint64_t)(x >> 64));
}
static inline int hib(bits x) {
    uint64_t hi = (uint64_t)(x >> 64);
    return hi ? 64 + hib64(hi) : hib64((uint64_t)x);
}
#else
#error "NW must be 1 or 2"
#endif

#endif
