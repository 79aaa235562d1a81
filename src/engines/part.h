/* part.h - what the paper-000 parts (pnp_part, col_part) share.
 *
 * A part is the structure of one queue side (the PRQ or the UMQ) for one
 * kind of traffic; split.c composes two parts per side into an engine. Every
 * part answers the same four questions, in both directions, which keeps the
 * expected and the unexpected paths symmetric:
 *   find:   the earliest element with seq < bound that pairs with key k
 *           (k is a receive key searching messages when recv_key, else a
 *           message key searching receives), counting compares in *depth;
 *   add:    queue x (never fails: a structure that cannot grow keeps using
 *           its shared queues);
 *   remove: unlink x, which this part holds.
 * Parts keep elements in FIFOs in sequence order, so a part that holds a key's
 * elements in several queues merges them by sequence number (mm_queue_find's
 * bound), and split.c merges two parts the same way. */
#ifndef MM_ENGINES_PART_H
#define MM_ENGINES_PART_H

#include "engine.h"

/* The side of an engine a part belongs to: where its queue allocations are
 * counted (bytes and mm_qstats.queues). */
typedef struct part_ctx {
    mm_engine *e;
    mm_mem    *mem;   /* &e->prq_mem or &e->umq_mem */
    mm_qstats *st;    /* &e->st.prq or &e->st.umq   */
} part_ctx;

/* floor(k * sqrt(n)), the papers' memory cap on dedicated queues, in integer
 * arithmetic (floor(sqrt(k*k*n)), exact; the library links libc only). */
static inline uint64_t part_cap(uint64_t k, uint64_t n)
{
    uint64_t v = k * k * n, r = 0;
    for (uint64_t bit = (uint64_t)1 << 62; bit; bit >>= 2) {
        if (v >= r + bit) {
            v -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
    }
    return r;
}

/* x mod d for a 32-bit x and a divisor d fixed when a structure is built,
 * without a division (Lemire, Kaser, Kurz: "Faster remainder by direct
 * computation", Software: Practice and Experience 49(6), 2019): m is
 * part_mod_magic(d), computed once; exact for every x and every d >= 1. */
static inline uint64_t part_mod_magic(uint32_t d)
{
    return UINT64_MAX / d + 1;
}

static inline uint32_t part_mod(uint32_t x, uint64_t m, uint32_t d)
{
    __extension__ unsigned __int128 r = (unsigned __int128)(m * x) * d;
    return (uint32_t)(r >> 64);
}

/* The levels of a structure, in creation order, each with the sequence
 * number from which it takes elements: an element's level is found from its
 * own sequence number (binary search), so elements need no level field.
 * Level objects are never moved (queues hold pointers into them). */
typedef struct part_levels {
    void    **at;     /* level objects, owned by the part */
    uint64_t *first;  /* first[i]: elements with seq >= first[i] went to level i or later */
    uint32_t  n, cap_at, cap_first;
} part_levels;

/* Room for `need` entries of `size` bytes in arr, which has *cap entries of
 * which `used` are in use (capacity doubles as often as needed): the array
 * to use from now on, or NULL (arr and *cap unchanged) when out of memory. */
void *part_grow(mm_mem *mem, void *arr, uint32_t *cap, uint32_t used, uint32_t need,
                size_t size);

/* Append a level; 0, or -1 (unchanged) when out of memory. */
int  part_levels_push(part_levels *l, mm_mem *mem, void *level, uint64_t first_seq);
/* Free the arrays (not the levels). */
void part_levels_free(part_levels *l, mm_mem *mem);

/* The level holding an element of sequence number seq (n > 0). */
static inline uint32_t part_level_of(const part_levels *l, uint64_t seq)
{
    uint32_t lo = 0, hi = l->n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->first[mid] <= seq)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

#endif
