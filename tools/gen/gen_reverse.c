/*
 * gen_reverse.c - the reverse-search microbenchmarks of Ghazimirsaeed and Afsahi, HPCS 2017
 * (section 3, figures 2 and 3, table 1), seen from process 0.
 *
 * Processes 1..n-1 each send m messages to process 0 before it posts any
 * receive, so all of them queue as unexpected; then process 0 receives them
 * from the bottom of the queue up: its receives name each message's source
 * and tag in the exact reverse of the arrival order, so a single list walks
 * the whole remaining queue on every receive. Message k of a sender has tag
 * k. How the senders' messages interleave on arrival is the `arrival`
 * scheduler (docs/workloads.md); each sender's own messages arrive in order
 * (MPI's non-overtaking rule).
 *
 * reverse_groups is the clustering variant: four groups of processes that
 * send a small, medium, large and very large number of messages (2, 10, 50
 * and 100 in the paper); ranks 1..g form the small group, g+1..2g the
 * medium one, and so on.
 */
#include <stdlib.h>

#include "gen_emit.h"

#define BYTES 1

/* senders[0..nsend) send cnt[i] messages each, from rank 1 + i. */
static int reverse_emit(mm_gen_out *o, mm_rng *rng, const uint32_t *cnt, size_t nsend,
                        int arrival, uint32_t rounds)
{
    uint64_t total = 0;
    for (size_t i = 0; i < nsend; i++)
        total += cnt[i];
    int rc = mm_gen_reserve(o, 2 * total * rounds, "the number of processes, messages or rounds");
    if (rc)
        return rc;
    uint32_t *order = malloc((total + 1) * sizeof *order);
    uint32_t *src = malloc((total + 1) * sizeof *src);
    uint32_t *tag = malloc((total + 1) * sizeof *tag);
    uint32_t *sent = malloc((nsend + 1) * sizeof *sent);
    if (!order || !src || !tag || !sent)
        rc = mm_gen_nomem(o);
    for (uint32_t r = 0; r < rounds && rc == MMS_OK; r++) {
        rc = mm_gen_interleave(o, rng, arrival, cnt, nsend, order);
        for (size_t i = 0; i < nsend; i++)
            sent[i] = 0;
        for (uint64_t k = 0; k < total && rc == MMS_OK; k++) {
            uint32_t p = order[k];
            src[k] = p + 1;
            tag[k] = sent[p]++;
            rc = mm_gen_msg(o, (int32_t)src[k], (int32_t)tag[k], BYTES);
        }
        for (uint64_t k = total; k > 0 && rc == MMS_OK; k--)
            rc = mm_gen_recv(o, (int32_t)src[k - 1], (int32_t)tag[k - 1], BYTES);
    }
    free(order);
    free(src);
    free(tag);
    free(sent);
    return rc;
}

/* ngroups groups of `per` senders, ranks 1.. in group order; a sender of
 * group k sends msgs[k] messages. np is 1 + the number of senders. */
static int run_groups(mm_stream *s, uint64_t seed, char *err, size_t errlen, size_t per,
                      const int64_t *msgs, size_t ngroups, int arrival, uint32_t rounds)
{
    mm_gen_out o;
    mm_rng rng;
    mm_gen_out_init(&o, s, err, errlen);
    mm_rng_seed(&rng, seed);
    size_t nsend = ngroups * per;
    uint32_t *cnt = malloc(nsend * sizeof *cnt);
    if (!cnt)
        return mm_gen_nomem(&o);
    for (size_t i = 0; i < nsend; i++)
        cnt[i] = (uint32_t)msgs[i / per];
    s->np_decl = (int32_t)nsend + 1;
    int rc = reverse_emit(&o, &rng, cnt, nsend, arrival, rounds);
    free(cnt);
    return rc;
}

enum { R_N, R_M, R_ARRIVAL, R_ROUNDS };

static int reverse_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    return run_groups(s, seed, err, errlen, (size_t)v[R_N] - 1, &v[R_M], 1, (int)v[R_ARRIVAL],
                      (uint32_t)v[R_ROUNDS]);
}

enum { G_PER, G_SMALL, G_MEDIUM, G_LARGE, G_VLARGE, G_ARRIVAL, G_ROUNDS };

static int groups_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    return run_groups(s, seed, err, errlen, (size_t)v[G_PER], &v[G_SMALL], 4, (int)v[G_ARRIVAL],
                      (uint32_t)v[G_ROUNDS]);
}

#define ARRIVAL_PARAM                                                          \
    { "arrival", "how the senders' messages interleave on arrival", MM_SCHED_RANDOM, 0, 0, \
      mm_gen_sched_names }
#define ROUNDS_PARAM(def) { "rounds", "repetitions (each empties the queue)", def, 1, 1 << 16, NULL }

static const mm_gen_param reverse_params[] = {
    { "n", "processes; 1..n-1 send to 0", 64, 2, 1 << 16, NULL },
    { "m", "messages each sender sends (figure 2: 10 and 50)", 10, 1, 1 << 20, NULL },
    ARRIVAL_PARAM,
    ROUNDS_PARAM(8),
};

const mm_gen mm_gen_reverse = {
    "reverse",
    "processes 1..n-1 send m messages each to process 0, which then receives them in the "
    "reverse order of arrival (every search walks the whole unexpected queue)",
    "Ghazimirsaeed and Afsahi, HPCS 2017, section 3 and figure 2 (reverse search)",
    0, reverse_params, sizeof reverse_params / sizeof reverse_params[0], reverse_run,
};

static const mm_gen_param groups_params[] = {
    { "per_group", "processes in each of the four groups", 8, 1, 1 << 14, NULL },
    { "small", "messages per process of group Ps", 2, 1, 1 << 16, NULL },
    { "medium", "messages per process of group Pm", 10, 1, 1 << 16, NULL },
    { "large", "messages per process of group Pl", 50, 1, 1 << 16, NULL },
    { "vlarge", "messages per process of group Pvl", 100, 1, 1 << 16, NULL },
    ARRIVAL_PARAM,
    ROUNDS_PARAM(4),
};

const mm_gen mm_gen_reverse_groups = {
    "reverse_groups",
    "reverse search with four groups of senders (Ps, Pm, Pl, Pvl: 2, 10, 50, 100 messages "
    "per process), ranks 1..g, g+1..2g, 2g+1..3g, 3g+1..4g",
    "Ghazimirsaeed and Afsahi, HPCS 2017, section 3, table 1 and figure 3 "
    "(reverse search and clustering)",
    0, groups_params, sizeof groups_params / sizeof groups_params[0], groups_run,
};
