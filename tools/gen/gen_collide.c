/*
 * gen_collide.c - keys chosen to collide under the library's old fixed,
 * unseeded key hash (mm_fixed_key_hash, fixed_hash.h): what a sender that picks
 * its tags or a job's ranks could do to a receiver's hash table or bins (hash
 * flooding) when the hash is known.
 *
 * Shaped like shuffle (one round: n receives posted, then n messages in a
 * seeded random order, the same order every round), but the n keys are not
 * 0..n-1: they are the first n values, counting up from 0, whose hash shares
 *   kind=tags     the low `bits` bits (tags from source 1): one probe run in
 *                 an open-addressing table of up to 2^bits slots;
 *   kind=sources  the low `bits` bits (sources with tag 0): the same, through
 *                 the ranks; np is the largest source + 1;
 *   kind=bins     the top `bits` bits (tags from source 1): one bin of
 *                 up to 2^bits bins (bins picks (hash * nbins) >> 32).
 * The shared value is drawn from the seed. An engine whose hash is seeded
 * differently sees keys as random as any others; the bench compares
 * collide n=4096 with shuffle n=4096 (docs/workloads.md, docs/bench.md).
 */
#include <stdlib.h>

#include "fixed_hash.h"
#include "gen_emit.h"

enum { P_N, P_ROUNDS, P_KIND, P_BITS };
enum { KIND_TAGS, KIND_SOURCES, KIND_BINS };
static const char *const kind_names[] = { "tags", "sources", "bins", NULL };

#define PEER 1
#define BYTES 1

/* The first n values v >= 0 (tags or sources, as kind says) whose key's
 * hash has `want` in the bits `mask` selects, into vals[]. Returns 0, or -1
 * when the values run out (past INT32_MAX). */
static int find_keys(int kind, uint32_t mask, uint32_t want, uint32_t n, int32_t *vals)
{
    uint32_t k = 0;
    for (int64_t v = 0; v <= INT32_MAX && k < n; v++) {
        mm_key key = { 0, kind == KIND_SOURCES ? (int32_t)v : PEER,
                       kind == KIND_SOURCES ? 0 : (int32_t)v };
        if ((mm_fixed_key_hash(&key) & mask) == want)
            vals[k++] = (int32_t)v;
    }
    return k == n ? 0 : -1;
}

static int collide_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    mm_gen_out o;
    mm_rng rng;
    mm_gen_out_init(&o, s, err, errlen);
    mm_rng_seed(&rng, seed);
    uint32_t n = (uint32_t)v[P_N], rounds = (uint32_t)v[P_ROUNDS];
    int kind = (int)v[P_KIND], bits = (int)v[P_BITS];
    /* the search inspects about n * 2^bits keys: keep it to seconds */
    if ((uint64_t)n << bits > ((uint64_t)1 << 31)) {
        snprintf(err, errlen, "collide: n * 2^bits = %llu keys to search, more than 2^31; "
                 "lower n or bits", (unsigned long long)((uint64_t)n << bits));
        return MMS_EFORMAT;
    }
    int rc = mm_gen_reserve(&o, 2 * (uint64_t)n * rounds, "n or rounds");
    if (rc)
        return rc;
    uint32_t low = (uint32_t)(((uint64_t)1 << bits) - 1);
    uint32_t mask = kind == KIND_BINS ? low << (32 - bits) : low;
    uint32_t want = (uint32_t)mm_rng_next(&rng) & mask;
    int32_t *vals = malloc(((size_t)n + 1) * sizeof *vals);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    if (!vals || !order) {
        free(vals);
        free(order);
        return mm_gen_nomem(&o);
    }
    if (find_keys(kind, mask, want, n, vals)) {
        snprintf(err, errlen, "collide: fewer than %u values share those hash bits; lower n or bits", n);
        rc = MMS_EFORMAT;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    mm_rng_shuffle_u32(&rng, order, n);
    for (uint32_t r = 0; r < rounds && rc == MMS_OK; r++) {
        for (uint32_t i = 0; i < n && rc == MMS_OK; i++)
            rc = kind == KIND_SOURCES ? mm_gen_recv(&o, vals[i], 0, BYTES)
                                      : mm_gen_recv(&o, PEER, vals[i], BYTES);
        for (uint32_t i = 0; i < n && rc == MMS_OK; i++)
            rc = kind == KIND_SOURCES ? mm_gen_msg(&o, vals[order[i]], 0, BYTES)
                                      : mm_gen_msg(&o, PEER, vals[order[i]], BYTES);
    }
    free(vals);
    free(order);
    return rc;
}

static const mm_gen_param collide_params[] = {
    { "n", "requests per round (receives posted, then messages)", 1024, 1, 1 << 20, NULL },
    { "rounds", "rounds (each reuses the same keys)", 2, 1, 1 << 16, NULL },
    { "kind", "which key field collides and where: low hash bits of tags or sources, or "
              "the top bits (bins) of tags", KIND_TAGS, 0, 2, kind_names },
    { "bits", "hash bits every key shares", 16, 1, 24, NULL },
};

const mm_gen mm_gen_collide = {
    "collide",
    "shuffle with keys whose old fixed, unseeded hash (0.1's) shares `bits` bits: one probe "
    "run or one bin for every key of a seedless table",
    "hash flooding: a sender choosing tags, or a job its ranks, that collide in a seedless table",
    0, collide_params, sizeof collide_params / sizeof collide_params[0], collide_run,
};
