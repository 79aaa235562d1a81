/* khash.h - the seeded hash of a key, and where seeds come from.
 *
 * Peers choose the tags (and, within a communicator, the sources) of the
 * messages a process matches. With a fixed hash a sender can pick keys that
 * all land in one bin or one probe run and make every search O(queue
 * length). So every engine that hashes keys draws a secret seed when it is
 * created (mm_seed_pick: the OS random source, unless the caller fixes one
 * with the engine parameter seed=N, as a lab tool does to reproduce a run)
 * and hashes with mm_khash, which mixes all 96 key bits with the seed, or,
 * for the slot tables (core/ftable.h), with mm_mshash below: keys that
 * collide under one seed are spread by another.
 *
 * mm_khash is not a cryptographic MAC; it is a keyed multiply-fold mix whose
 * output a peer cannot predict without the seed, in a handful of cycles. */
#ifndef MM_CORE_KHASH_H
#define MM_CORE_KHASH_H

#include <stdint.h>
#include "core/elem.h"

/* 64 bits from the OS random source (getrandom(2), else /dev/urandom, else
 * clock and address bits: never fails). */
uint64_t mm_seed_random(void);

/* The seed an engine hashes with: param >= 1 fixes it (the same param gives
 * the same seed, and so the same layout, depths and probe counts), 0 draws
 * a random one. */
uint64_t mm_seed_pick(int64_t param);

/* The i-th seed derived from seed (independent-looking: splitmix64). */
static inline uint64_t mm_seed_derive(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Both halves of the 128-bit product, folded. */
static inline uint64_t mm_mulfold(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __extension__ unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t ah = a >> 32, al = (uint32_t)a, bh = b >> 32, bl = (uint32_t)b;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    uint64_t lo = (mid << 32) | (uint32_t)ll;
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
}

/* Seeded hash of all 96 bits of k. Every output bit depends on every key
 * bit and on the seed, so low bits (table slots) and high bits (bins) are
 * equally good. */
static inline uint32_t mm_khash(const mm_key *k, uint64_t seed)
{
    uint64_t a = ((uint64_t)(uint32_t)k->comm << 32 | (uint32_t)k->src) ^ seed;
    uint64_t b = (uint64_t)(uint32_t)k->tag ^ (seed >> 32 | seed << 32) ^ 0xE7037ED1A0B428DBull;
    uint64_t x = mm_mulfold(a ^ 0xA0761D6478BD642Full, b);
    x = mm_mulfold(x ^ seed, 0x8EBC6AF09C88C6E3ull);
    return (uint32_t)(x ^ (x >> 32));
}

/* The table hash (core/ftable.h): the vector multiply-shift sum
 * x = a0 comm + a1 src + a2 tag + b (mod 2^64), with four secret 64-bit
 * words drawn from the seed, then a fixed xor-shift-multiply of x. For keys
 * fixed before the seed is drawn, two distinct keys give the same sum with
 * probability at most 2^-32 (the vector multiply-shift scheme is universal:
 * Dietzfelbinger, STACS 1996; Thorup, "High speed hashing for integers and
 * strings", 2015). The final mix is needed for linear probing: the sum is
 * linear in the key, so under some seeds an arithmetic progression of keys
 * (tags 0..n-1, the common case) lands in a few tight clusters of slots
 * (measured: 5 seeds in 32 gave 5 to 84 slots per insertion where random
 * keys take 2.3, tests/c/test_collide.c); the mix spreads them (at most 2.4
 * over 1024 tables). Three independent multiplies, then one more, and a
 * few adds and shifts, where mm_khash chains two 128-bit products. */
typedef struct mm_mshash {
    uint64_t a[3], b;
} mm_mshash;

/* The multiply-shift words of seed (the same seed, the same words). */
static inline mm_mshash mm_mshash_of(uint64_t seed)
{
    mm_mshash m;
    for (int i = 0; i < 3; i++)
        m.a[i] = mm_seed_derive(seed, 0x100 + (uint64_t)i);
    m.b = mm_seed_derive(seed, 0x103);
    return m;
}

static inline uint32_t mm_mshash_key(const mm_mshash *m, const mm_key *k)
{
    uint64_t x = m->a[0] * (uint32_t)k->comm + m->a[1] * (uint32_t)k->src +
                 m->a[2] * (uint32_t)k->tag + m->b;
    x ^= x >> 32;
    return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 32);
}

#endif
