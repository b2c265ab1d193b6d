/* 64-bit lists (bit sets of value indices) for futocp's C extensions:
 * _filter_core.c and backends/_listcolor_core.c. */
#ifndef FUTOCP_BITS_H
#define FUTOCP_BITS_H

#include <stdint.h>

typedef uint64_t bits;

static inline int popc(bits x) {
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
static inline int ctz(bits x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
static inline int hib(bits x) { unsigned long i; _BitScanReverse64(&i, x); return (int)i; }
#else
static inline int ctz(bits x) { return __builtin_ctzll(x); }
static inline int hib(bits x) { return 63 - __builtin_clzll(x); }
#endif

#endif
