/*
 * coll_pof2.h - powers of two, which many collective schedules and the
 * selection rules fold communicator sizes onto (coll_algo.c, coll_auto.c).
 */
#ifndef MM_TOOLS_COLL_POF2_H
#define MM_TOOLS_COLL_POF2_H

#include <stdint.h>

static inline int mm_is_pof2(int32_t n) { return n > 0 && (n & (n - 1)) == 0; }

/* The largest power of two <= n (1 for n < 2). */
static inline int32_t mm_pof2_floor(int32_t n)
{
    int32_t p = 1;
    while (p <= n / 2)
        p <<= 1;
    return p;
}

#endif /* MM_TOOLS_COLL_POF2_H */
