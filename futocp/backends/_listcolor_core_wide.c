/* The compiled core of the listcolor backend with 128-bit lists:
 * futocp.backends._listcolor_core_wide, the same source as _listcolor_core.c
 * (read it) built with NW=2 (bits = two 64-bit words, _bits.h). listcolor.py
 * runs it on programs of 65 to 128 values or cells in an all-different group.
 * A file of its own (not define_macros on the same source) so that the two
 * builds never share an object file. */
#define NW 2
#include "_listcolor_core.c"
