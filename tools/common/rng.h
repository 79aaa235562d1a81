/*
 * rng.h - the seeded random generator every workload and the collective
 * simulator draw from (splitmix64): the same seed gives the same stream.
 */
#ifndef MM_TOOLS_RNG_H
#define MM_TOOLS_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct mm_rng { uint64_t s; } mm_rng;

static inline void mm_rng_seed(mm_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x6A09E667F3BCC909ull;
}

static inline uint64_t mm_rng_next(mm_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias < n / 2^64). */
static inline uint64_t mm_rng_below(mm_rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)mm_rng_next(r) * n) >> 64);
}

/* Fisher-Yates shuffle of n 32-bit values. */
static inline void mm_rng_shuffle_u32(mm_rng *r, uint32_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)mm_rng_below(r, i);
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

#endif /* MM_TOOLS_RNG_H */
