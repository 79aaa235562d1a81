/*
 * threads.c - MPI_THREAD_MULTIPLE with 4 threads per process, np 2..8
 * (pairs r, r^1). Requires MPI_THREAD_MULTIPLE (a check fails otherwise).
 *  1 each thread t has its own duplicate of the world and does ITERS
 *    exchanges of sizes cycling 1 B .. 64 KiB with the peer (Isend + Irecv
 *    with MPI_ANY_TAG on its communicator), data checked
 *  2 the threads share the world, each with its own tag 100+t: blocking
 *    Send/Recv by tag, then Probe(peer, 100+t) + Recv of the probed size
 *  3 thread 0 receives (any, 200) on the world for all four threads'
 *    messages of the peer while threads 1..3 send theirs concurrently
 */
#include <pthread.h>

#include "conformance.h"

enum { NT = 4, ITERS = 100 };

static MPI_Comm comms[NT];
static int peer, tfail[NT];
static uint64_t thash[NT];

#define TEXPECT(t, cond)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "threads: rank %d thread %d: line %d: %s\n", rank, t, __LINE__, \
                    #cond);                                                                 \
            tfail[t]++;                                                                     \
        }                                                                                   \
    } while (0)

static void *own_comm(void *arg)
{
    int t = (int)(intptr_t)arg;
    char *out = xmalloc(65536), *in = xmalloc(65536);
    for (int i = 0; i < ITERS; i++) {
        int len = 1 << (i % 17);
        fill(out, (size_t)len, (uint64_t)(rank * 1000000 + t * 10000 + i));
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_Irecv(in, 65536, MPI_BYTE, peer, MPI_ANY_TAG, comms[t], &r[0]);
        MPI_Isend(out, len, MPI_BYTE, peer, i, comms[t], &r[1]);
        MPI_Waitall(2, r, st);
        int c;
        MPI_Get_count(&st[0], MPI_BYTE, &c);
        TEXPECT(t, c == len && st[0].MPI_TAG == i &&
                       first_bad(in, (size_t)c, (uint64_t)(peer * 1000000 + t * 10000 + i)) ==
                           (size_t)c);
        thash[t] = fnv(thash[t], in, (size_t)c);
    }
    free(out);
    free(in);
    return NULL;
}

static void *shared_comm(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < ITERS / 4; i++) {
        int out[4] = { rank, t, i, 0 }, in[4] = { -1, -1, -1, -1 }, c;
        MPI_Status st;
        if (rank % 2 == 0) {
            MPI_Send(out, 1 + i % 4, MPI_INT, peer, 100 + t, MPI_COMM_WORLD);
            MPI_Recv(in, 4, MPI_INT, peer, 100 + t, MPI_COMM_WORLD, &st);
        } else {
            MPI_Probe(peer, 100 + t, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &c);
            TEXPECT(t, c == 1 + i % 4);
            MPI_Recv(in, c, MPI_INT, peer, 100 + t, MPI_COMM_WORLD, &st);
            MPI_Send(out, 1 + i % 4, MPI_INT, peer, 100 + t, MPI_COMM_WORLD);
        }
        MPI_Get_count(&st, MPI_INT, &c);
        TEXPECT(t, c == 1 + i % 4 && in[0] == peer && (c < 2 || in[1] == t) && (c < 3 || in[2] == i));
        thash[t] = fnv(thash[t], in, sizeof(int) * (size_t)c);
    }
    return NULL;
}

static void *gather_one(void *arg)
{
    int t = (int)(intptr_t)arg;
    int v = rank * 10 + t;
    if (t != 0) {
        MPI_Send(&v, 1, MPI_INT, peer, 200, MPI_COMM_WORLD);
        return NULL;
    }
    MPI_Send(&v, 1, MPI_INT, peer, 200, MPI_COMM_WORLD);
    int seen = 0;
    for (int k = 0; k < NT; k++) {
        int x;
        MPI_Status st;
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &st);
        TEXPECT(t, st.MPI_SOURCE == peer && x / 10 == peer && !(seen & (1 << (x % 10))));
        seen |= 1 << (x % 10);
    }
    TEXPECT(t, seen == (1 << NT) - 1);
    thash[t] = fnv(thash[t], &seen, sizeof seen);
    return NULL;
}

static void run_threads(void *(*fn)(void *), const char *what)
{
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) {
        thash[t] = 14695981039346656037ULL;
        if (pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) != 0) {
            fprintf(stderr, "threads: rank %d: pthread_create failed\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) {
        failures += tfail[t];
        tfail[t] = 0;
        record("%s thread=%d data=%016llx", what, t, (unsigned long long)thash[t]);
    }
}

int main(int argc, char **argv)
{
    int provided = -1;
    int rc = conf_start("threads", &argc, &argv, 2, 64, MPI_THREAD_MULTIPLE, &provided);
    if (rc)
        return rc;
    EXPECT(provided == MPI_THREAD_MULTIPLE);
    peer = rank ^ 1;
    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    if (provided == MPI_THREAD_MULTIPLE && peer < size) {
        run_threads(own_comm, "own_comm");
        run_threads(shared_comm, "shared_comm");
        run_threads(gather_one, "gather_one");
    }
    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&comms[t]);
    return conf_finish();
}
