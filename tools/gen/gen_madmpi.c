/*
 * gen_madmpi.c - the MadMPI request benchmarks (burst, tags, shuffle, any)
 * used in the MPI 4.0 hints paper (figures 3 and 5a), seen from the server process.
 *
 * In each round the server posts N one-byte receives from its single peer
 * (rank 1), both sides wait for all of them, and then the roles swap (the
 * "pong", whose matching happens at the peer and is not in this stream).
 * So one round here is N receives followed by N arriving messages.
 */
#include <stdlib.h>

#include "gen_emit.h"

enum { BURST, TAGS, SHUFFLE, ANY };
enum { P_N, P_ROUNDS };

#define PEER 1
#define BYTES 1

static int madmpi_run(int kind, mm_stream *s, const int64_t *v, uint64_t seed, char *err,
                      size_t errlen)
{
    mm_gen_out o;
    mm_rng rng;
    mm_gen_out_init(&o, s, err, errlen);
    mm_rng_seed(&rng, seed);
    uint32_t n = (uint32_t)v[P_N], rounds = (uint32_t)v[P_ROUNDS];
    uint64_t per_round = 2 * (uint64_t)n + (kind == ANY ? 2 : 0);
    int rc = mm_gen_reserve(&o, per_round * rounds, "n or rounds");
    if (rc)
        return rc;

    /* The peer's send order. MadMPI draws its shuffle table once, when the
     * benchmark starts, and reuses it in every round; so do we. */
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    if (!order)
        return mm_gen_nomem(&o);
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    if (kind == SHUFFLE || kind == ANY)
        mm_rng_shuffle_u32(&rng, order, n);

    /* The any benchmark's ANY_SOURCE receive uses tag N+1, which no other
     * message has, so it stays posted (first in the queue) until the zero-
     * byte message that ends the round. */
    const int32_t any_tag = (int32_t)n + 1;
    for (uint32_t r = 0; r < rounds && rc == MMS_OK; r++) {
        if (kind == ANY)
            rc = mm_gen_recv(&o, MM_ANY_SOURCE, any_tag, 0);
        for (uint32_t i = 0; i < n && rc == MMS_OK; i++)
            rc = mm_gen_recv(&o, PEER, kind == BURST ? 0 : (int32_t)i, BYTES);
        for (uint32_t i = 0; i < n && rc == MMS_OK; i++)
            rc = mm_gen_msg(&o, PEER, kind == BURST ? 0 : (int32_t)order[i], BYTES);
        if (kind == ANY && rc == MMS_OK)
            rc = mm_gen_msg(&o, PEER, any_tag, 0);
    }
    free(order);
    return rc;
}

static int burst_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    return madmpi_run(BURST, s, v, seed, err, errlen);
}

static int tags_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    return madmpi_run(TAGS, s, v, seed, err, errlen);
}

static int shuffle_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    return madmpi_run(SHUFFLE, s, v, seed, err, errlen);
}

static int any_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    return madmpi_run(ANY, s, v, seed, err, errlen);
}

static const mm_gen_param madmpi_params[] = {
    { "n", "requests per round (receives posted, then messages)", 1024, 1, 1 << 20, NULL },
    { "rounds", "ping rounds (each reuses the same tags)", 8, 1, 1 << 16, NULL },
};
#define NPARAMS (sizeof madmpi_params / sizeof madmpi_params[0])

const mm_gen mm_gen_burst = {
    "burst",
    "N receives from one peer all with tag 0, then N messages with tag 0: every match is at "
    "the head of the queue",
    "MadMPI benchmark reqs_burst; the MPI 4.0 hints paper, figure 5a "
    "(the hash table's overhead case)",
    0, madmpi_params, NPARAMS, burst_run,
};

const mm_gen mm_gen_tags = {
    "tags",
    "N receives with tags 0..N-1, then N messages with tags 0..N-1 in the same order",
    "MadMPI benchmark reqs_tags (MPI 4.0 hints paper, MadMPI suite)",
    0, madmpi_params, NPARAMS, tags_run,
};

const mm_gen mm_gen_shuffle = {
    "shuffle",
    "N receives with tags 0..N-1 in order, then N messages whose tags are a seeded random "
    "permutation of 0..N-1",
    "MadMPI benchmark reqs_shuffle; the MPI 4.0 hints paper, figure 3",
    0, madmpi_params, NPARAMS, shuffle_run,
};

const mm_gen mm_gen_any = {
    "any",
    "shuffle, plus one ANY_SOURCE receive (tag N+1) posted first that stays posted until a "
    "last zero-byte message ends the round",
    "MadMPI benchmark reqs_any (MPI 4.0 hints paper, MadMPI suite)",
    0, madmpi_params, NPARAMS, any_run,
};
