/* fixed_hash.h - the key hash libmpimatch used before it seeded its hashes
 * (version 0.1): fixed and unseeded, so a sender could compute it and pick
 * keys that crowd one probe run or one bin. The library no longer has it;
 * the collide workload (gen_collide.c) and its tests (tests/c/test_collide.c,
 * tests/python/test_gen.py) keep it as the target of that attack. */
#ifndef MM_TOOLS_GEN_FIXED_HASH_H
#define MM_TOOLS_GEN_FIXED_HASH_H

#include <stdint.h>
#include "core/elem.h"

/* Mix of all 96 key bits (what bins and hash tables of 0.1 used). */
static inline uint32_t mm_fixed_key_hash(const mm_key *k)
{
    uint64_t h = ((uint64_t)(uint32_t)k->comm << 32 | (uint32_t)k->src) * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)(uint32_t)k->tag * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return (uint32_t)h;
}

#endif
