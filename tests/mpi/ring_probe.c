/*
 * ring_probe.c - an MPI program of the project's own that does known
 * things, so that a trace of it can be checked exactly
 * (tests/python/test_trace.py keeps the expected records in step with
 * this file). Run with 4 processes. Checks its own results; prints
 * "ring_probe: ok" on rank 0 and exits 0, or names what went wrong.
 *
 * Phases, separated by barriers on MPI_COMM_WORLD:
 *  1 ring: Irecv from the left (tag 10), Isend 8 ints right, Waitall
 *  2 wildcards: ranks 1..3 send r ints to 0 with tag 100+r; 0 receives
 *    three times with MPI_ANY_SOURCE, MPI_ANY_TAG
 *  3 probes: 1 -> 2 tag 20, 3 -> 2 tag 21; rank 2 Probes (any, 20), Recvs
 *    it, Iprobes (3, 21) until found, Irecvs (any, 21), Waits
 *  4 matched probes: 0 -> 3 tag 30, 1 -> 3 tag 31; rank 3 Mprobes
 *    (any, 30), Mrecvs, Improbes (any, any) until found, Imrecvs, Waits
 *  5 cancel: every rank Irecvs (any, 999), cancels it, Waits
 *  6 Sendrecv right->left (tag 40, receive from any), Sendrecv_replace
 *    left->right (tag 41)
 *  7 split by rank % 2; in each half sub-rank 0 Isends 3 ints (tag 50) to
 *    sub-rank 1, which Irecvs (any, any); Waitall with MPI_STATUSES_IGNORE;
 *    a barrier on the half; Comm_dup of the world, Allreduce on it, free
 *    both
 *  8 Bcast 16 ints from 0, Allreduce 1 double, Gather 2 ints to 2,
 *    Iallgather 1 int and Wait
 */
#include <stdlib.h>

#include "mpi_check.h"

static void ring(void)
{
    int out[8], in[8];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 8; i++)
        out[i] = rank * 100 + i;
    MPI_Request req[2];
    MPI_Status st[2];
    MPI_Irecv(in, 8, MPI_INT, left, 10, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out, 8, MPI_INT, right, 10, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, st);
    EXPECT(in[7] == left * 100 + 7 && st[0].MPI_SOURCE == left);
}

static void wildcards(void)
{
    int buf[4] = { 0, 0, 0, 0 };
    if (rank == 0) {
        int seen = 0;
        for (int i = 1; i < size; i++) {
            MPI_Status st;
            MPI_Recv(buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int n;
            MPI_Get_count(&st, MPI_INT, &n);
            EXPECT(st.MPI_TAG == 100 + st.MPI_SOURCE && n == st.MPI_SOURCE);
            seen |= 1 << st.MPI_SOURCE;
        }
        EXPECT(seen == (1 << size) - 2);
    } else {
        MPI_Send(buf, rank, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    }
}

static void probes(void)
{
    int v = rank;
    MPI_Status st;
    if (rank == 1)
        MPI_Send(&v, 1, MPI_INT, 2, 20, MPI_COMM_WORLD);
    if (rank == 3)
        MPI_Send(&v, 1, MPI_INT, 2, 21, MPI_COMM_WORLD);
    if (rank != 2)
        return;
    MPI_Probe(MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &st);
    EXPECT(st.MPI_SOURCE == 1);
    MPI_Recv(&v, 1, MPI_INT, 1, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(v == 1);
    int flag = 0;
    while (!flag)
        MPI_Iprobe(3, 21, MPI_COMM_WORLD, &flag, &st);
    MPI_Request req;
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    EXPECT(v == 3 && st.MPI_SOURCE == 3);
}

static void matched_probes(void)
{
    int v = rank;
    MPI_Status st;
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 3, 30, MPI_COMM_WORLD);
    if (rank == 1)
        MPI_Send(&v, 1, MPI_INT, 3, 31, MPI_COMM_WORLD);
    if (rank != 3)
        return;
    MPI_Message msg;
    MPI_Mprobe(MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &msg, &st);
    EXPECT(st.MPI_SOURCE == 0);
    MPI_Mrecv(&v, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
    EXPECT(v == 0);
    int flag = 0;
    while (!flag)
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    EXPECT(st.MPI_SOURCE == 1 && st.MPI_TAG == 31);
    MPI_Request req;
    MPI_Imrecv(&v, 1, MPI_INT, &msg, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(v == 1);
}

static void cancel(void)
{
    int v;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT(cancelled);
}

static void sendrecv(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1;
    MPI_Status st;
    MPI_Sendrecv(&out, 1, MPI_INT, right, 40, &in, 1, MPI_INT, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &st);
    EXPECT(in == left && st.MPI_SOURCE == left);
    int v = rank;
    MPI_Sendrecv_replace(&v, 1, MPI_INT, left, 41, right, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(v == right);
}

static void communicators(void)
{
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hr;
    MPI_Comm_rank(half, &hr);
    int buf[3] = { 7, 8, 9 };
    MPI_Request req;
    if (hr == 0)
        MPI_Isend(buf, 3, MPI_INT, 1, 50, half, &req);
    else
        MPI_Irecv(buf, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, half, &req);
    MPI_Waitall(1, &req, MPI_STATUSES_IGNORE);
    EXPECT(buf[2] == 9);
    MPI_Barrier(half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int one = 1, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, dup);
    EXPECT(total == size);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
}

/* A noncommutative reduction (the tracer records MPI_Op_commutative):
 * keeps the left operand's first element, adds the rest. */
static void first_then_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    short *a = in, *b = inout;
    for (int i = 1; i < *len; i++)
        b[i] = (short)(a[i] + b[i]);
    b[0] = a[0];
}

static void collectives(void)
{
    int b[16];
    for (int i = 0; i < 16; i++)
        b[i] = rank == 0 ? i : -1;
    MPI_Bcast(b, 16, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT(b[15] == 15);
    double x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(sum == size * (size - 1) / 2.0);
    int two[2] = { rank, rank }, *all = malloc(2 * (size_t)size * sizeof *all);
    MPI_Gather(two, 2, MPI_INT, all, 2, MPI_INT, 2, MPI_COMM_WORLD);
    if (rank == 2)
        EXPECT(all[2 * size - 1] == size - 1);
    MPI_Request req;
    MPI_Iallgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(all[size - 1] == size - 1);
    free(all);
    MPI_Op first;
    MPI_Op_create(first_then_sum, 0, &first);
    short v[3] = { (short)rank, 1, 2 }, r[3] = { -1, -1, -1 };
    MPI_Reduce(v, r, 3, MPI_SHORT, first, 1, MPI_COMM_WORLD);
    if (rank == 1)
        EXPECT(r[0] == 0 && r[1] == size && r[2] == 2 * size);
    MPI_Op_free(&first);
}

int main(int argc, char **argv)
{
    int rc = check_start("ring_probe", &argc, &argv);
    if (rc)
        return rc;
    void (*const phase[])(void) = { ring, wildcards, probes, matched_probes, cancel, sendrecv };
    check_phases(phase, sizeof phase / sizeof phase[0]);
    communicators();
    collectives();
    return check_finish();
}
