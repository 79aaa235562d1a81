/*
 * gen_pingpong.c - the preposted ping-pong of the MPI 4.0 hints paper (section V-B,
 * figure 6): N receives that never match are posted first, then a
 * ping-pong runs, so that with one list every search for a ping-pong
 * message walks exactly N+1 elements.
 *
 * Seen from one of the two processes: each iteration posts the receive for
 * the peer's reply and the reply arrives. The N dead receives name the same
 * peer (rank 1) with tags 1..N, and the ping-pong uses tag 0, so an engine
 * that splits its queues by source walks them too while one keyed by
 * (source, tag) does not.
 */
#include "gen_emit.h"

enum { P_N, P_ITERS, P_BYTES };

#define PEER 1

static int pingpong_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err,
                        size_t errlen)
{
    (void)seed; /* nothing is random here */
    mm_gen_out o;
    mm_gen_out_init(&o, s, err, errlen);
    uint32_t n = (uint32_t)v[P_N], iters = (uint32_t)v[P_ITERS];
    uint64_t bytes = (uint64_t)v[P_BYTES];
    int rc = mm_gen_reserve(&o, (uint64_t)n + 2 * (uint64_t)iters, "n or iters");
    for (uint32_t i = 0; i < n && rc == MMS_OK; i++)
        rc = mm_gen_recv(&o, PEER, (int32_t)i + 1, bytes);
    for (uint32_t i = 0; i < iters && rc == MMS_OK; i++) {
        rc = mm_gen_recv(&o, PEER, 0, bytes);
        if (rc == MMS_OK)
            rc = mm_gen_msg(&o, PEER, 0, bytes);
    }
    return rc;
}

static const mm_gen_param pingpong_params[] = {
    { "n", "receives preposted that never match (each search walks n+1)", 128, 0, 1 << 20, NULL },
    { "iters", "ping-pong iterations (one receive and one message each)", 4096, 1, 1 << 22, NULL },
    { "bytes", "message size (figure 6 spans 1 B to 8 KiB; matching ignores it)", 1, 0,
      (int64_t)1 << 30, NULL },
};

const mm_gen mm_gen_pingpong = {
    "pingpong",
    "n receives preposted that never match, then a ping-pong: every matching search walks "
    "n+1 elements of one list",
    "the MPI 4.0 hints paper, section V-B and figure 6 (preposted ping-pong)",
    0, pingpong_params, sizeof pingpong_params / sizeof pingpong_params[0], pingpong_run,
};
