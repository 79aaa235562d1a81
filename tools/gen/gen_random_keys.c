/*
 * gen_random_keys.c - the setting of Table I of the MPI 4.0 hints paper: random, fully
 * specified requests, 0 <= communicator <= 100, 0 <= tag <= 100,
 * 0 <= source <= 500 (section III).
 *
 * Each round draws n distinct keys (comm, source, tag). "Receives first":
 * the n receives are posted in the order drawn (each fails to find an
 * unexpected message and is queued), then the n messages arrive in another
 * random order (each finds its receive): fail from recv, then success from
 * send. "Messages first" is the mirror: n messages queue as unexpected,
 * then n receives find them: fail from send, then success from recv. So a
 * round holds two segments of one path each, which mpimatch-replay
 * --paths times separately. Keys are distinct within a round, so every
 * search is for a key that is present exactly once (or absent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_emit.h"

enum { K_N, K_ROUNDS, K_ORDER, K_COMM_MAX, K_TAG_MAX, K_SRC_MAX };
enum { ORDER_ALTERNATE, ORDER_RECV_FIRST, ORDER_MSG_FIRST };
static const char *const order_names[] = { "alternate", "recv_first", "msg_first", NULL };

#define BYTES 1

/* A set of key codes (open addressing, code + 1 stored, 0 empty) that keeps
 * a round's keys distinct. */
typedef struct keyset {
    uint64_t *slot;
    size_t    mask;
} keyset;

/* Insert code; 1 if it was new, 0 if already there. */
static int keyset_add(keyset *k, uint64_t code)
{
    size_t i = (size_t)((code * 0x9E3779B97F4A7C15ull) >> 20) & k->mask;
    while (k->slot[i]) {
        if (k->slot[i] == code + 1)
            return 0;
        i = (i + 1) & k->mask;
    }
    k->slot[i] = code + 1;
    return 1;
}

typedef struct keyspace {
    uint64_t comms, tags, srcs; /* values per field: max + 1 */
} keyspace;

static int emit(mm_gen_out *o, int type, const keyspace *ks, uint64_t code)
{
    int32_t src = (int32_t)(code % ks->srcs);
    uint64_t rest = code / ks->srcs;
    int32_t tag = (int32_t)(rest % ks->tags);
    return mm_gen_event(o, type, (int32_t)(rest / ks->tags), src, tag, BYTES);
}

static int keys_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    mm_gen_out o;
    mm_rng rng;
    mm_gen_out_init(&o, s, err, errlen);
    mm_rng_seed(&rng, seed);
    uint32_t n = (uint32_t)v[K_N], rounds = (uint32_t)v[K_ROUNDS];
    keyspace ks = { (uint64_t)v[K_COMM_MAX] + 1, (uint64_t)v[K_TAG_MAX] + 1,
                    (uint64_t)v[K_SRC_MAX] + 1 };
    uint64_t space = ks.comms * ks.tags * ks.srcs;
    /* Drawing until n distinct keys stays fast while at most half the
     * space is taken. */
    if (2 * (uint64_t)n > space) {
        snprintf(err, errlen,
                 "n=%u distinct keys need a key space of at least 2n; comm_max, tag_max and "
                 "src_max give %llu keys",
                 n, (unsigned long long)space);
        return MMS_EFORMAT;
    }
    int rc = mm_gen_reserve(&o, 2 * (uint64_t)n * rounds, "n or rounds");
    if (rc)
        return rc;
    s->np_decl = (int32_t)ks.srcs;

    size_t cap = 4;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    keyset set = { calloc(cap, sizeof *set.slot), cap - 1 };
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    uint32_t *perm = malloc((size_t)n * sizeof *perm);
    if (!set.slot || !keys || !perm)
        rc = mm_gen_nomem(&o);
    for (uint32_t r = 0; r < rounds && rc == MMS_OK; r++) {
        int order = (int)v[K_ORDER];
        int recv_first = order == ORDER_RECV_FIRST || (order == ORDER_ALTERNATE && r % 2 == 0);
        memset(set.slot, 0, cap * sizeof *set.slot);
        for (uint32_t k = 0; k < n;) {
            uint64_t code = mm_rng_below(&rng, space);
            if (keyset_add(&set, code))
                keys[k++] = code;
        }
        for (uint32_t k = 0; k < n; k++)
            perm[k] = k;
        mm_rng_shuffle_u32(&rng, perm, n);
        /* The first phase in drawing order, the second in another one. */
        int first = recv_first ? MM_EV_RECV : MM_EV_MSG;
        int second = recv_first ? MM_EV_MSG : MM_EV_RECV;
        for (uint32_t k = 0; k < n && rc == MMS_OK; k++)
            rc = emit(&o, first, &ks, keys[k]);
        for (uint32_t k = 0; k < n && rc == MMS_OK; k++)
            rc = emit(&o, second, &ks, keys[perm[k]]);
    }
    free(set.slot);
    free(keys);
    free(perm);
    return rc;
}

static const mm_gen_param keys_params[] = {
    { "n", "distinct keys per round (requests of each phase)", 1024, 1, 1 << 20, NULL },
    { "rounds", "rounds, each with fresh keys", 4, 1, 1 << 16, NULL },
    { "order", "alternate: receives first in even rounds, messages first in odd ones; "
               "recv_first: fail from recv + success from send; msg_first: fail from send + "
               "success from recv", ORDER_ALTERNATE, 0, 0, order_names },
    { "comm_max", "communicators 0..comm_max (paper: 100)", 100, 0, 1 << 20, NULL },
    { "tag_max", "tags 0..tag_max (paper: 100)", 100, 0, 1 << 24, NULL },
    { "src_max", "sources 0..src_max, np = src_max + 1 (paper: 500)", 500, 0, (1 << 16) - 1, NULL },
};

const mm_gen mm_gen_random_keys = {
    "random_keys",
    "n random distinct fully specified keys (comm, source, tag) per round: receives first "
    "(fail from recv, success from send) or messages first (fail from send, success from recv)",
    "the MPI 4.0 hints paper, section III and Table I (the four matching paths)",
    0, keys_params, sizeof keys_params / sizeof keys_params[0], keys_run,
};
