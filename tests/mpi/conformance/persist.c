/*
 * persist.c - persistent requests, np 2..8.
 *  1 ring: Recv_init from the left, Send_init to the right (64 ints),
 *    Startall + Waitall 10 times with new contents each time
 *  2 every rank but 0 has a Ssend_init to 0, started ITERS times; 0 has one
 *    Recv_init(any, 70) started ITERS*(size-1) times: per source, in order
 *  3 Rsend_init (the receive is posted first, then a barrier)
 *    (Bsend_init: persist_bsend.c)
 *  4 Wait and Test on an inactive request return at once with an empty
 *    status; Request_free of inactive requests
 */
#include "conformance.h"

enum { ITERS = 10 };

static void ring(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[64], in[64];
    MPI_Request r[2];
    MPI_Recv_init(in, 64, MPI_INT, left, 60, MPI_COMM_WORLD, &r[0]);
    MPI_Send_init(out, 64, MPI_INT, right, 60, MPI_COMM_WORLD, &r[1]);
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < 64; i++)
            out[i] = rank * 1000 + it * 64 + i;
        MPI_Startall(2, r);
        MPI_Status st[2];
        MPI_Waitall(2, r, st);
        EXPECT(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 60);
        for (int i = 0; i < 64; i++)
            EXPECT(in[i] == left * 1000 + it * 64 + i);
        record("ring it=%d src=%d data=%016llx", it, st[0].MPI_SOURCE,
               (unsigned long long)data_hash(in, sizeof in));
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}

static void sync_wildcard(void)
{
    int v[2] = { 0, 0 };
    MPI_Request r;
    if (rank == 0) {
        MPI_Recv_init(v, 2, MPI_INT, MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &r);
        int next[64] = { 0 };
        for (int k = 0; k < ITERS * (size - 1); k++) {
            MPI_Status st;
            MPI_Start(&r);
            MPI_Wait(&r, &st);
            int s = st.MPI_SOURCE;
            EXPECT(s > 0 && s < size && v[0] == s);
            if (s > 0 && s < size) {
                EXPECT(v[1] == next[s]); /* one sender's messages do not overtake */
                next[s]++;
            }
        }
        for (int s = 1; s < size; s++) {
            EXPECT(next[s] == ITERS);
            record("sync_wildcard src=%d n=%d", s, next[s]);
        }
    } else {
        MPI_Ssend_init(v, 2, MPI_INT, 0, 70, MPI_COMM_WORLD, &r);
        for (int it = 0; it < ITERS; it++) {
            v[0] = rank;
            v[1] = it;
            MPI_Start(&r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    }
    MPI_Request_free(&r);
}

static void ready(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int a = rank, b = -1;
    MPI_Request rs, rr;
    MPI_Recv_init(&b, 1, MPI_INT, left, 80, MPI_COMM_WORLD, &rr);
    MPI_Rsend_init(&a, 1, MPI_INT, right, 80, MPI_COMM_WORLD, &rs);
    for (int it = 0; it < 3; it++) {
        MPI_Start(&rr);
        MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: ready mode is legal */
        a = rank + it;
        MPI_Start(&rs);
        MPI_Wait(&rs, MPI_STATUS_IGNORE);
        MPI_Wait(&rr, MPI_STATUS_IGNORE);
        EXPECT(b == left + it);
        record("rsend it=%d b=%d", it, b);
    }
    MPI_Request_free(&rs);
    MPI_Request_free(&rr);
}

static void inactive(void)
{
    int x = 0, flag = 0, c = -1;
    MPI_Request r;
    MPI_Status st;
    MPI_Recv_init(&x, 1, MPI_INT, MPI_ANY_SOURCE, 90, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    EXPECT(r != MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_ANY_SOURCE &&
           st.MPI_TAG == MPI_ANY_TAG && c == 0);
    MPI_Test(&r, &flag, &st);
    EXPECT(flag == 1);
    MPI_Request_free(&r);
    EXPECT(r == MPI_REQUEST_NULL);
    record("inactive count=%d", c);
}

int main(int argc, char **argv)
{
    int rc = conf_start("persist", &argc, &argv, 2, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { ring, sync_wildcard, ready, inactive };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
