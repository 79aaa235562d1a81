/*
 * mpibench.c - mpimatch-mpibench, the MPI program of `mpimatch bench --suite mpi`
 * (docs/bench.md): one measurement per run, at np 2, on whatever MPI stack
 * mpirun gives it (ob1, pml ucx, the mpimatch provider with any engine).
 *
 *   mpimatch-mpibench SPEC [SPEC ...], each SPEC one of
 *     match:kind=shuffle|burst|tags|any,n=N,reps=R[,seed=S]
 *     pingpong:dead=D,size=B,iters=I,reps=R
 *     bandwidth:size=B,window=W,reps=R
 *     unexpected:n=N,size=B
 * run in the order given, in one process pair.
 *
 * match: the MadMPI request benchmarks as the generators define them
 * (docs/workloads.md, tools/gen/gen_madmpi.c): in each round the server posts
 * N one-byte receives from its peer (tags 0..N-1; burst: all tag 0; any: first
 * an ANY_SOURCE receive with tag N+1), then tells the peer, which sends the N
 * messages (tags in order; shuffle and any: the same seeded permutation as
 * the generator's; any: then a zero-byte message with tag N+1); rounds swap
 * the roles. A sample is the server's time from its first post to its last
 * completion, divided by N.
 * pingpong: D receives that never match (same peer, tags 1..D) are posted
 * first on both ranks, then a ping-pong of B-byte messages with tag 0, each
 * receive posted before the send; a sample is half a round trip, averaged
 * over I iterations. With D = 0 it is the latency benchmark.
 * bandwidth: W nonblocking B-byte messages from rank 0 to rank 1 (all in
 * flight at once), then a zero-byte acknowledgement; a sample is ns per
 * message.
 * unexpected: rank 0 sends N B-byte messages (tag 0) and then one on tag 1;
 * rank 1 probes for tag 1 only, so when it sees it all N are queued as
 * unexpected; its resident set grew by rss_after - rss_before meanwhile.
 *
 * For each SPEC rank 0 prints one JSON line: {"mode", "params", "samples_ns", and per mode
 * "rss_before", "rss_after", "bytes_per_message"}. Every received byte is
 * checked; a wrong one fails the run (exit 1) with a message on stderr.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rng.h"

#define WARMUP 1
#define MAX_SAMPLES 4096
#define BENCH_NAME "mpimatch-mpibench"

#include "benchspec.h"

/* Rank 1's samples appended to rank 0's (rank 0 ends with both). */
static int gather_samples(MPI_Comm ctl, double *samples, int n)
{
    int theirs = 0;
    if (rank == 1) {
        MPI_Send(&n, 1, MPI_INT, 0, 97, ctl);
        MPI_Send(samples, n, MPI_DOUBLE, 0, 99, ctl);
        return n;
    }
    MPI_Recv(&theirs, 1, MPI_INT, 1, 97, ctl, MPI_STATUS_IGNORE);
    if (theirs < 0 || n + theirs > MAX_SAMPLES)
        die("too many samples");
    MPI_Recv(samples + n, theirs, MPI_DOUBLE, 1, 99, ctl, MPI_STATUS_IGNORE);
    return n + theirs;
}

/* Rank 0 prints the result line. */
static void print_line(const char *mode, const char *params, const double *samples, int n,
                       const char *extra)
{
    if (rank)
        return;
    printf("{\"mode\": \"%s\", \"params\": {%s}, \"samples_ns\": [", mode, params);
    for (int i = 0; i < n; i++)
        printf("%s%.3f", i ? ", " : "", samples[i]);
    printf("]%s%s}\n", extra && *extra ? ", " : "", extra ? extra : "");
    fflush(stdout);
}

/* ---- match: shuffle, burst, tags, any ---- */
enum { SHUFFLE, BURST, TAGS, ANY };

static void bench_match(MPI_Comm comm, MPI_Comm ctl)
{
    const char *kinds[] = {"shuffle", "burst", "tags", "any"};
    char ks[16];
    snprintf(ks, sizeof ks, "%s", arg_str("kind", "shuffle"));
    int kind = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(ks, kinds[i]))
            kind = i;
    if (kind < 0)
        die("kind: expected shuffle, burst, tags or any");
    int n = (int)arg_int("n", 1024, 1, 1 << 20);
    int reps = (int)arg_int("reps", 9, 1, MAX_SAMPLES / 2);
    uint64_t seed = (uint64_t)arg_int("seed", 1, 0, INT64_MAX);

    uint32_t *order = xmalloc((size_t)n * sizeof *order);
    for (int i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    mm_rng rng;
    mm_rng_seed(&rng, seed);
    if (kind == SHUFFLE || kind == ANY)
        mm_rng_shuffle_u32(&rng, order, (size_t)n);
    unsigned char *rbuf = xmalloc((size_t)n), *sbuf = xmalloc((size_t)n);
    MPI_Request *req = xmalloc(((size_t)n + 1) * sizeof *req);
    MPI_Status *st = xmalloc(((size_t)n + 1) * sizeof *st);
    double mine[MAX_SAMPLES];
    int nmine = 0, peer = 1 - rank;
    /* Rounds in pairs, so both ranks serve reps times; the first pair warms up. */
    for (int round = 0; round < 2 * (reps + WARMUP); round++) {
        int server = round & 1, counted = round >= 2 * WARMUP;
        unsigned char stamp = (unsigned char)(round * 7 + 1);
        MPI_Barrier(ctl);
        if (rank == server) {
            double t0 = MPI_Wtime();
            int k = 0;
            if (kind == ANY)
                MPI_Irecv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, n + 1, comm, &req[k++]);
            for (int i = 0; i < n; i++)
                MPI_Irecv(&rbuf[i], 1, MPI_BYTE, peer, kind == BURST ? 0 : i, comm, &req[k++]);
            MPI_Send(NULL, 0, MPI_BYTE, peer, 0, ctl);
            MPI_Waitall(k, req, st);
            double t1 = MPI_Wtime();
            for (int i = 0; i < n; i++) {
                /* burst: the i-th receive takes the i-th message, whose byte is stamp + i */
                unsigned char want = (unsigned char)(stamp + (kind == BURST ? (uint32_t)i : (uint32_t)i * 3u));
                if (rbuf[i] != want)
                    die("match: a receive got the wrong message");
            }
            if (counted)
                mine[nmine++] = (t1 - t0) * 1e9 / n;
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 0, ctl, MPI_STATUS_IGNORE);
            int k = 0;
            for (int i = 0; i < n; i++) {
                uint32_t t = order[i];
                sbuf[i] = (unsigned char)(stamp + (kind == BURST ? (uint32_t)i : t * 3u));
                MPI_Isend(&sbuf[i], 1, MPI_BYTE, peer, kind == BURST ? 0 : (int)t, comm, &req[k++]);
            }
            if (kind == ANY)
                MPI_Isend(NULL, 0, MPI_BYTE, peer, n + 1, comm, &req[k++]);
            MPI_Waitall(k, req, st);
        }
    }
    /* Both ranks served: rank 0 prints its samples and rank 1's. */
    nmine = gather_samples(ctl, mine, nmine);
    char params[160];
    snprintf(params, sizeof params, "\"kind\": \"%s\", \"n\": %d, \"reps\": %d, \"seed\": %llu",
             ks, n, reps, (unsigned long long)seed);
    print_line("match", params, mine, nmine, NULL);
    free(order), free(rbuf), free(sbuf), free(req), free(st);
}

/* ---- ping-pong with dead receives; latency ---- */
static void bench_pingpong(MPI_Comm comm, MPI_Comm ctl)
{
    int dead = (int)arg_int("dead", 0, 0, 1 << 20);
    long long size = arg_int("size", 8, 0, 1LL << 30);
    int iters = (int)arg_int("iters", 1000, 1, 1 << 24);
    int reps = (int)arg_int("reps", 9, 1, MAX_SAMPLES);
    int peer = 1 - rank;
    MPI_Request *dreq = xmalloc(((size_t)dead + 1) * sizeof *dreq);
    char *dbuf = xmalloc(8);
    for (int i = 0; i < dead; i++)
        MPI_Irecv(dbuf, 1, MPI_BYTE, peer, i + 1, comm, &dreq[i]);
    unsigned char *sb = xmalloc((size_t)size), *rb = xmalloc((size_t)size);
    double samples[MAX_SAMPLES];
    int ns = 0;
    for (int rep = 0; rep < reps + WARMUP; rep++) {
        MPI_Barrier(ctl);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            MPI_Request r;
            unsigned char b = (unsigned char)(i + rep);
            if (size)
                sb[0] = sb[size - 1] = b;
            if (rank == 0) {
                MPI_Irecv(rb, (int)size, MPI_BYTE, peer, 0, comm, &r);
                MPI_Send(sb, (int)size, MPI_BYTE, peer, 0, comm);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            } else {
                MPI_Irecv(rb, (int)size, MPI_BYTE, peer, 0, comm, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
                MPI_Send(sb, (int)size, MPI_BYTE, peer, 0, comm);
            }
            if (size && (rb[0] != b || rb[size - 1] != b))
                die("pingpong: wrong payload");
        }
        double t1 = MPI_Wtime();
        if (rep >= WARMUP)
            samples[ns++] = (t1 - t0) * 1e9 / (2.0 * iters);
    }
    for (int i = 0; i < dead; i++) {
        int flag = 0;
        MPI_Status s;
        MPI_Cancel(&dreq[i]);
        MPI_Wait(&dreq[i], &s);
        MPI_Test_cancelled(&s, &flag);
        if (!flag)
            die("pingpong: a dead receive matched a message");
    }
    char params[160];
    snprintf(params, sizeof params, "\"dead\": %d, \"size\": %lld, \"iters\": %d, \"reps\": %d",
             dead, size, iters, reps);
    print_line("pingpong", params, samples, ns, NULL);
    free(dreq), free(dbuf), free(sb), free(rb);
}

/* ---- bandwidth ---- */
static void bench_bandwidth(MPI_Comm comm, MPI_Comm ctl)
{
    long long size = arg_int("size", 1 << 20, 1, 1LL << 30);
    int window = (int)arg_int("window", 64, 1, 4096);
    int reps = (int)arg_int("reps", 9, 1, MAX_SAMPLES);
    int peer = 1 - rank;
    /* The sender sends one buffer W times at once (MPI 3 allows concurrent sends
     * of one buffer); the receiver gets W buffers. */
    unsigned char *buf = xmalloc((size_t)size * (size_t)(rank ? window : 1));
    MPI_Request *req = xmalloc((size_t)window * sizeof *req);
    double samples[MAX_SAMPLES];
    int ns = 0;
    for (int rep = 0; rep < reps + WARMUP; rep++) {
        MPI_Barrier(ctl);
        double t0 = MPI_Wtime();
        unsigned char b = (unsigned char)(rep + 5);
        for (int w = 0; w < window; w++) {
            if (rank == 0) {
                buf[0] = buf[size - 1] = b;
                MPI_Isend(buf, (int)size, MPI_BYTE, peer, 0, comm, &req[w]);
            } else
                MPI_Irecv(buf + (size_t)w * (size_t)size, (int)size, MPI_BYTE, peer, 0, comm, &req[w]);
        }
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        if (rank == 1) {
            for (int w = 0; w < window; w++) {
                unsigned char *m = buf + (size_t)w * (size_t)size;
                if (m[0] != b || m[size - 1] != b)
                    die("bandwidth: wrong payload");
            }
            MPI_Send(NULL, 0, MPI_BYTE, peer, 1, comm);
        } else
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE);
        double t1 = MPI_Wtime();
        if (rep >= WARMUP)
            samples[ns++] = (t1 - t0) * 1e9 / window;
    }
    char params[160];
    snprintf(params, sizeof params, "\"size\": %lld, \"window\": %d, \"reps\": %d", size, window, reps);
    print_line("bandwidth", params, samples, ns, NULL);
    free(buf), free(req);
}

/* ---- unexpected flood: resident bytes per queued message ---- */
static long long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long long pages = 0, resident = 0;
    if (!f || fscanf(f, "%lld %lld", &pages, &resident) != 2)
        die("cannot read /proc/self/statm");
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

static void bench_unexpected(MPI_Comm comm, MPI_Comm ctl)
{
    int n = (int)arg_int("n", 100000, 1, 1 << 24);
    int size = (int)arg_int("size", 1, 1, 1 << 20);
    unsigned char *buf = xmalloc((size_t)n * (size_t)size);
    MPI_Request *req = xmalloc(((size_t)n + 1) * sizeof *req);
    long long before = 0, after = 0;
    MPI_Barrier(ctl);
    if (rank == 0) {
        for (int i = 0; i < n; i++) {
            buf[(size_t)i * size] = (unsigned char)i;
            MPI_Isend(buf + (size_t)i * size, size, MPI_BYTE, 1, 0, comm, &req[i]);
        }
        MPI_Isend(NULL, 0, MPI_BYTE, 1, 1, comm, &req[n]);
        MPI_Waitall(n + 1, req, MPI_STATUSES_IGNORE);
    } else {
        before = rss_bytes();
        int flag = 0;
        while (!flag)
            MPI_Iprobe(0, 1, comm, &flag, MPI_STATUS_IGNORE);
        after = rss_bytes();
        for (int i = 0; i < n; i++)
            MPI_Irecv(buf + (size_t)i * size, size, MPI_BYTE, 0, 0, comm, &req[i]);
        MPI_Irecv(NULL, 0, MPI_BYTE, 0, 1, comm, &req[n]);
        MPI_Waitall(n + 1, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < n; i++)
            if (buf[(size_t)i * size] != (unsigned char)i)
                die("unexpected: messages out of order");
    }
    long long rss[2] = {before, after};
    if (rank == 1)
        MPI_Send(rss, 2, MPI_LONG_LONG, 0, 98, ctl);
    else
        MPI_Recv(rss, 2, MPI_LONG_LONG, 1, 98, ctl, MPI_STATUS_IGNORE);
    char params[96], extra[200];
    snprintf(params, sizeof params, "\"n\": %d, \"size\": %d", n, size);
    snprintf(extra, sizeof extra, "\"rss_before\": %lld, \"rss_after\": %lld, "
             "\"bytes_per_message\": %.3f", rss[0], rss[1], (double)(rss[1] - rss[0]) / n);
    print_line("unexpected", params, NULL, 0, extra);
    free(buf), free(req);
}

static const char help[] =
    "usage: mpirun -np 2 mpimatch-mpibench SPEC [SPEC ...]\n"
    "\n"
    "The MPI program of `mpimatch bench --suite mpi` (docs/bench.md): each SPEC is one\n"
    "measurement, run in the order given in one process pair; rank 0 prints one JSON\n"
    "line per SPEC ({\"mode\", \"params\", \"samples_ns\", ...}). SPEC is MODE:key=value,...\n"
    "\n"
    "  match:kind=shuffle|burst|tags|any,n=N,reps=R,seed=S\n"
    "        the MadMPI request benchmarks: N receives posted, then their messages;\n"
    "        ns per request (defaults kind=shuffle, n=1024, reps=9, seed=1)\n"
    "  pingpong:dead=D,size=B,iters=I,reps=R\n"
    "        D receives that never match, then a ping-pong of B bytes; half a round\n"
    "        trip (defaults dead=0, size=8, iters=1000, reps=9)\n"
    "  bandwidth:size=B,window=W,reps=R\n"
    "        W nonblocking B-byte messages in flight; ns per message\n"
    "        (defaults size=1048576, window=64, reps=9)\n"
    "  unexpected:n=N,size=B\n"
    "        N unexpected B-byte messages; resident bytes per queued message\n"
    "        (defaults n=100000, size=1)\n"
    "\n"
    "Exit status: 0 ok, 1 a wrong message, a bad SPEC, not 2 processes or an MPI failure.\n";

int main(int argc, char **argv)
{
    bench_help(argc, argv, help);
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2)
        die("run it on 2 ranks (mpirun -np 2)");
    if (argc < 2)
        die("usage: mpimatch-mpibench MODE:key=value,... [MODE:...]  (MODE: match, pingpong, "
            "bandwidth, unexpected)");
    MPI_Comm comm, ctl;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm); /* the measured traffic */
    MPI_Comm_dup(MPI_COMM_WORLD, &ctl);  /* barriers, go signals, results */
    static const bench_mode modes[] = {
        {"match", bench_match}, {"pingpong", bench_pingpong},
        {"bandwidth", bench_bandwidth}, {"unexpected", bench_unexpected}};
    bench_dispatch(argc, argv, comm, ctl, modes, sizeof modes / sizeof modes[0],
                   "match, pingpong, bandwidth or unexpected");
    MPI_Comm_free(&comm);
    MPI_Comm_free(&ctl);
    MPI_Finalize();
    return 0;
}
