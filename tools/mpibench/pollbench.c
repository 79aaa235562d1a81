/*
 * pollbench.c - mpimatch-pollbench, the MPI program of `mpimatch bench --suite
 * polling` and `mpimatch tune` (docs/bench.md#the-polling-suite): the four
 * benchmarks of the MVAPICH channel polling and thresholds study, on 3 ranks
 * laid out like a cluster node with a remote partner. Run it under the
 * mpimatch provider with FI_MPIMATCH_FORCE_TCP=1: rank 1 then behaves as if on
 * another host (TCP with everyone), ranks 0 and 2 share memory. Rank 0 is the
 * measured process; it talks to both, so it polls both channels.
 *
 *   mpimatch-pollbench SPEC [SPEC ...], each SPEC one of
 *     latency:peer=shm|net,size=B,iters=I,reps=R
 *         ping-pong between rank 0 and its shared-memory (rank 2) or network
 *         (rank 1) partner; a sample is half a round trip, averaged over I.
 *     bandwidth:peer=shm|net,size=B,window=W,reps=R
 *         W nonblocking B-byte messages from the partner to rank 0, then a
 *         zero-byte acknowledgement; a sample is ns per message.
 *     discovery:burst=B,rounds=N,reps=R
 *         the message discovery benchmark: in each round one partner (the
 *         network one and the shared-memory one in turn) sends B 4-byte
 *         messages to rank 0, each after rank 0's acknowledgement of the one
 *         before; rank 0 receives from MPI_ANY_SOURCE and acknowledges each to
 *         its sender. The partner whose turn it is not waits asleep. A sample
 *         is the senders' time over their bursts (first send to last
 *         acknowledgement), summed over the N rounds, per message.
 *     idle:iters=I,reps=R
 *         the cost of looking at the channels: rank 0 calls MPI_Iprobe I
 *         times with nothing to find; a sample is ns per call.
 *     overlap:peer=shm|net,size=B,compute_us=C,reps=R
 *         rank 0 and the partner each post MPI_Irecv and MPI_Isend of B bytes,
 *         compute for C microseconds calling MPI_Iprobe every 100 us, then
 *         MPI_Waitall; a sample is rank 0's computation time / total time
 *         (1: the communication hid behind the computation entirely).
 *
 * Before the first SPEC every pair of ranks exchanges a message, so every
 * connection (and rank 0's TCP socket) exists before anything is timed. For
 * each SPEC rank 0 prints one JSON line {"mode", "params", "samples_ns"} (for
 * overlap "samples" holds the ratios). Every received byte that carries a
 * pattern is checked; a wrong one fails the run (exit 1, message on stderr).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP 1
#define MAX_SAMPLES 4096
#define SHM_PEER 2
#define NET_PEER 1
#define BENCH_NAME "mpimatch-pollbench"

#include "benchspec.h"

static int arg_peer(void)
{
    const char *v = arg_str("peer", "shm");
    if (!strcmp(v, "shm"))
        return SHM_PEER;
    if (!strcmp(v, "net"))
        return NET_PEER;
    die("peer: expected shm or net");
    return -1;
}

/* The measured pair: rank 0 and the partner SPEC's peer names. */
typedef struct pair {
    int peer;  /* the partner's rank */
    int me;    /* this rank takes part */
    int other; /* the rank this one talks to */
} pair;

static pair arg_pair(void)
{
    int peer = arg_peer();
    return (pair){peer, rank == 0 || rank == peer, rank == 0 ? peer : 0};
}

/* The barrier before each repetition. A rank that takes no part in the
 * measurement (me = 0) waits in it asleep between tests, so that the two that
 * do have the processors (3 ranks on a 2-core machine). */
static void rep_barrier(MPI_Comm ctl, int me)
{
    MPI_Request r;
    int done = 0;
    MPI_Ibarrier(ctl, &r);
    while (!done) {
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (!done && !me) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
}

static void print_line(const char *mode, const char *params, const double *samples, int n)
{
    if (rank)
        return;
    printf("{\"mode\": \"%s\", \"params\": {%s}, \"samples%s\": [", mode, params,
           strcmp(mode, "overlap") ? "_ns" : "");
    for (int i = 0; i < n; i++)
        printf("%s%.4f", i ? ", " : "", samples[i]);
    printf("]}\n");
    fflush(stdout);
}

/* The line of a measurement with one partner: peer, size, one more parameter, reps. */
static void print_peer_line(const char *mode, int peer, long long size, const char *key, long long val,
                            int reps, const double *samples, int n)
{
    char params[200];
    snprintf(params, sizeof params, "\"peer\": \"%s\", \"size\": %lld, \"%s\": %lld, \"reps\": %d",
             peer == SHM_PEER ? "shm" : "net", size, key, val, reps);
    print_line(mode, params, samples, n);
}

static void bench_latency(MPI_Comm comm, MPI_Comm ctl)
{
    pair pr = arg_pair();
    int peer = pr.peer, me = pr.me, other = pr.other;
    long long size = arg_int("size", 4, 0, 1LL << 30);
    int iters = (int)arg_int("iters", 1000, 1, 1 << 24);
    int reps = (int)arg_int("reps", 5, 1, MAX_SAMPLES);
    unsigned char *sb = xmalloc((size_t)size), *rb = xmalloc((size_t)size);
    double samples[MAX_SAMPLES];
    int ns = 0;
    for (int rep = 0; rep < reps + WARMUP; rep++) {
        rep_barrier(ctl, me);
        double t0 = MPI_Wtime();
        for (int i = 0; me && i < iters; i++) {
            unsigned char b = (unsigned char)(i + rep);
            if (size)
                sb[0] = sb[size - 1] = b;
            if (rank == 0) {
                MPI_Send(sb, (int)size, MPI_BYTE, other, 0, comm);
                MPI_Recv(rb, (int)size, MPI_BYTE, other, 0, comm, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rb, (int)size, MPI_BYTE, other, 0, comm, MPI_STATUS_IGNORE);
                MPI_Send(sb, (int)size, MPI_BYTE, other, 0, comm);
            }
            if (size && (rb[0] != b || rb[size - 1] != b))
                die("wrong payload");
        }
        double t1 = MPI_Wtime();
        if (rep >= WARMUP)
            samples[ns++] = (t1 - t0) * 1e9 / (2.0 * iters);
    }
    print_peer_line("latency", peer, size, "iters", iters, reps, samples, ns);
    free(sb), free(rb);
}

/* The cost of one look at the channels: rank 0 calls MPI_Iprobe I times with
 * nothing to find (the others wait asleep); a sample is ns per call. */
static void bench_idle(MPI_Comm comm, MPI_Comm ctl)
{
    int iters = (int)arg_int("iters", 100000, 1, 1 << 28);
    int reps = (int)arg_int("reps", 5, 1, MAX_SAMPLES);
    double samples[MAX_SAMPLES];
    int ns = 0;
    for (int rep = 0; rep < reps + WARMUP; rep++) {
        rep_barrier(ctl, rank == 0);
        double t0 = MPI_Wtime();
        for (int i = 0; rank == 0 && i < iters; i++) {
            int flag = 0;
            MPI_Iprobe(MPI_ANY_SOURCE, 77, comm, &flag, MPI_STATUS_IGNORE);
            if (flag)
                die("a message on tag 77");
        }
        double t1 = MPI_Wtime();
        if (rep >= WARMUP)
            samples[ns++] = (t1 - t0) * 1e9 / iters;
    }
    char params[80];
    snprintf(params, sizeof params, "\"iters\": %d, \"reps\": %d", iters, reps);
    print_line("idle", params, samples, ns);
}

static void bench_bandwidth(MPI_Comm comm, MPI_Comm ctl)
{
    pair pr = arg_pair();
    int peer = pr.peer, me = pr.me;
    long long size = arg_int("size", 1 << 20, 1, 1LL << 30);
    int window = (int)arg_int("window", 32, 1, 4096);
    int reps = (int)arg_int("reps", 5, 1, MAX_SAMPLES);
    unsigned char *buf = xmalloc((size_t)size * (size_t)(rank == 0 ? window : 1));
    MPI_Request *req = xmalloc((size_t)window * sizeof *req);
    double samples[MAX_SAMPLES];
    int ns = 0;
    for (int rep = 0; rep < reps + WARMUP; rep++) {
        rep_barrier(ctl, me);
        double t0 = MPI_Wtime();
        unsigned char b = (unsigned char)(rep + 5);
        for (int w = 0; me && w < window; w++) {
            if (rank != 0) {
                buf[0] = buf[size - 1] = b;
                MPI_Isend(buf, (int)size, MPI_BYTE, 0, 0, comm, &req[w]);
            } else
                MPI_Irecv(buf + (size_t)w * (size_t)size, (int)size, MPI_BYTE, peer, 0, comm, &req[w]);
        }
        if (me)
            MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        if (rank == 0) {
            for (int w = 0; w < window; w++) {
                unsigned char *m = buf + (size_t)w * (size_t)size;
                if (m[0] != b || m[size - 1] != b)
                    die("wrong payload");
            }
            MPI_Send(NULL, 0, MPI_BYTE, peer, 1, comm);
        } else if (me)
            MPI_Recv(NULL, 0, MPI_BYTE, 0, 1, comm, MPI_STATUS_IGNORE);
        double t1 = MPI_Wtime();
        if (rep >= WARMUP)
            samples[ns++] = (t1 - t0) * 1e9 / window;
    }
    print_peer_line("bandwidth", peer, size, "window", window, reps, samples, ns);
    free(buf), free(req);
}

static void bench_discovery(MPI_Comm comm, MPI_Comm ctl)
{
    int burst = (int)arg_int("burst", 100, 1, 1 << 20);
    int rounds = (int)arg_int("rounds", 4, 1, 1 << 20);
    int reps = (int)arg_int("reps", 5, 1, MAX_SAMPLES);
    double samples[MAX_SAMPLES];
    int ns = 0;
    for (int rep = 0; rep < reps + WARMUP; rep++) {
        rep_barrier(ctl, 1);
        double mine = 0, all = 0; /* a sender's time over its bursts */
        for (int r = 0; r < rounds; r++) {
            int sender = r % 2 ? SHM_PEER : NET_PEER; /* the network peer first */
            int go = r;
            if (rank == 0) /* the round starts: its sender may go */
                MPI_Send(&go, 1, MPI_INT, sender, 3, comm);
            else if (rank == sender) { /* waited for asleep: the other two run */
                MPI_Request q;
                int done = 0;
                MPI_Irecv(&go, 1, MPI_INT, 0, 3, comm, &q);
                while (!done) {
                    MPI_Test(&q, &done, MPI_STATUS_IGNORE);
                    if (!done) {
                        struct timespec ts = {0, 50000};
                        nanosleep(&ts, NULL);
                    }
                }
            }
            double t0 = MPI_Wtime();
            for (int i = 0; i < burst; i++) {
                int v = r * burst + i, got = -1, ack = 0;
                if (rank == 0) {
                    MPI_Status st;
                    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, &st);
                    if (got != v || st.MPI_SOURCE != sender)
                        die("a message from the wrong sender or out of order");
                    MPI_Send(&got, 1, MPI_INT, st.MPI_SOURCE, 1, comm);
                } else if (rank == sender) {
                    MPI_Send(&v, 1, MPI_INT, 0, 0, comm);
                    MPI_Recv(&ack, 1, MPI_INT, 0, 1, comm, MPI_STATUS_IGNORE);
                    if (ack != v)
                        die("wrong acknowledgement");
                }
            }
            if (rank == sender)
                mine += MPI_Wtime() - t0;
        }
        MPI_Reduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, 0, ctl);
        if (rep >= WARMUP)
            samples[ns++] = all * 1e9 / ((double)burst * rounds);
    }
    char params[160];
    snprintf(params, sizeof params, "\"burst\": %d, \"rounds\": %d, \"reps\": %d", burst, rounds,
             reps);
    print_line("discovery", params, samples, ns);
}

static void bench_overlap(MPI_Comm comm, MPI_Comm ctl)
{
    pair pr = arg_pair();
    int peer = pr.peer, me = pr.me, other = pr.other;
    long long size = arg_int("size", 4, 1, 1LL << 30);
    long long compute_us = arg_int("compute_us", 100, 0, 10000000);
    int reps = (int)arg_int("reps", 5, 1, MAX_SAMPLES);
    unsigned char *sb = xmalloc((size_t)size), *rb = xmalloc((size_t)size);
    double samples[MAX_SAMPLES];
    int ns = 0;
    volatile double sink = 0;
    for (int rep = 0; rep < reps + WARMUP; rep++) {
        rep_barrier(ctl, me);
        if (!me)
            continue;
        unsigned char b = (unsigned char)(rep + 9);
        sb[0] = sb[size - 1] = b;
        double t0 = MPI_Wtime();
        MPI_Request req[2];
        MPI_Irecv(rb, (int)size, MPI_BYTE, other, 2, comm, &req[0]);
        MPI_Isend(sb, (int)size, MPI_BYTE, other, 2, comm, &req[1]);
        double end = t0 + (double)compute_us * 1e-6, next = t0 + 100e-6;
        for (double now = t0; now < end; now = MPI_Wtime()) {
            for (int k = 0; k < 200; k++)
                sink += (double)k * 1e-9;
            if (now >= next) { /* progress every 100 us, as the study's loop */
                int flag;
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
                next = now + 100e-6;
            }
        }
        double t1 = MPI_Wtime();
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        double t2 = MPI_Wtime();
        if (rb[0] != b || rb[size - 1] != b)
            die("wrong payload");
        if (rep >= WARMUP)
            samples[ns++] = t2 > t0 ? (t1 - t0) / (t2 - t0) : 1.0;
    }
    print_peer_line("overlap", peer, size, "compute_us", compute_us, reps, samples, ns);
    free(sb), free(rb);
}

static const char help[] =
    "usage: mpirun -np 3 -x FI_MPIMATCH_FORCE_TCP=1 ... mpimatch-pollbench SPEC [SPEC ...]\n"
    "\n"
    "The MPI program of `mpimatch bench --suite polling` and `mpimatch tune`\n"
    "(docs/bench.md), on the mpimatch provider: rank 1 behaves as if on another host,\n"
    "ranks 0 and 2 share memory; rank 0 is measured and prints one JSON line per SPEC.\n"
    "SPEC is MODE:key=value,...\n"
    "\n"
    "  latency:peer=shm|net,size=B,iters=I,reps=R\n"
    "        ping-pong with one partner (defaults peer=shm, size=4, iters=1000, reps=5)\n"
    "  bandwidth:peer=shm|net,size=B,window=W,reps=R\n"
    "        W messages from the partner in flight (defaults peer=shm, size=1048576,\n"
    "        window=32, reps=5)\n"
    "  discovery:burst=B,rounds=N,reps=R\n"
    "        ANY_SOURCE receives of bursts from each partner in turn\n"
    "        (defaults burst=100, rounds=4, reps=5)\n"
    "  idle:iters=I,reps=R\n"
    "        MPI_Iprobe with nothing to find (defaults iters=100000, reps=5)\n"
    "  overlap:peer=shm|net,size=B,compute_us=C,reps=R\n"
    "        computation time / total time around a nonblocking exchange\n"
    "        (defaults peer=shm, size=4, compute_us=100, reps=5)\n"
    "\n"
    "Exit status: 0 ok, 1 a wrong message, a bad SPEC, not 3 processes or an MPI failure.\n";

int main(int argc, char **argv)
{
    bench_help(argc, argv, help);
    MPI_Init(&argc, &argv);
    int np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 3)
        die("run it on 3 ranks (mpirun -np 3, FI_MPIMATCH_FORCE_TCP=1: rank 1 remote)");
    if (argc < 2)
        die("usage: mpimatch-pollbench MODE:key=value,... [MODE:...]  (MODE: latency, "
            "bandwidth, discovery, idle, overlap)");
    MPI_Comm comm, ctl;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &ctl);
    /* every connection up before anything is timed */
    int x = rank, y[3];
    MPI_Allgather(&x, 1, MPI_INT, y, 1, MPI_INT, comm);
    for (int peer = 0; peer < 3; peer++)
        if (peer != rank)
            MPI_Sendrecv(&x, 1, MPI_INT, peer, 5, &y[peer], 1, MPI_INT, peer, 5, comm,
                         MPI_STATUS_IGNORE);
    static const bench_mode modes[] = {
        {"latency", bench_latency}, {"bandwidth", bench_bandwidth},
        {"discovery", bench_discovery}, {"overlap", bench_overlap}, {"idle", bench_idle}};
    bench_dispatch(argc, argv, comm, ctl, modes, sizeof modes / sizeof modes[0],
                   "latency, bandwidth, discovery, overlap or idle");
    MPI_Comm_free(&comm);
    MPI_Comm_free(&ctl);
    MPI_Finalize();
    return 0;
}
