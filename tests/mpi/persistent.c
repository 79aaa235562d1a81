/*
 * persistent.c - persistent point-to-point requests doing known things,
 * so that a trace of them can be checked exactly (tests/python/
 * test_trace.py and test_convert.py keep the expected records in step
 * with this file). Run with 4 processes. Checks its own results; prints
 * "persistent: ok" on rank 0 and exits 0, or names what went wrong.
 *
 * Phases, each ended by a barrier on MPI_COMM_WORLD:
 *  1 halo, ITERS iterations of one Startall and one Waitall over
 *    requests made once: Recv_init from the left (8 ints, tag 60),
 *    Send_init to the right (8 ints, tag 60); on rank 0 also a
 *    Recv_init(MPI_ANY_SOURCE, tag 61, 4 ints), on ranks 1..3 an
 *    Ssend_init of r ints to 0 (tag 61) that only rank 1 + it % 3 starts
 *    in iteration it (a barrier closes each iteration, so the wildcard
 *    receive of iteration it can only match that sender). Then a Wait on
 *    the inactive receive (returns at once) and Request_free of all three
 *  2 ready and buffered modes: Recv_init from the left (tag 62) and
 *    Start; barrier; Rsend_init to the right (tag 62), Start; Waitall;
 *    free both. Then Bsend_init 1 int to the left (tag 63) with an
 *    attached buffer, Start, Request_free while active, Recv from the
 *    right (tag 63), detach the buffer
 *  3 cancel: Recv_init(MPI_ANY_SOURCE, tag 999), twice Start, Cancel,
 *    Wait (cancelled), then Request_free
 */
#include <stdlib.h>

#include "mpi_check.h"

#define ITERS 4

static void halo(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[8], in[8], wild[4];
    MPI_Request req[3];
    MPI_Status st[3];
    MPI_Recv_init(in, 8, MPI_INT, left, 60, MPI_COMM_WORLD, &req[0]);
    MPI_Send_init(out, 8, MPI_INT, right, 60, MPI_COMM_WORLD, &req[1]);
    if (rank == 0)
        MPI_Recv_init(wild, 4, MPI_INT, MPI_ANY_SOURCE, 61, MPI_COMM_WORLD, &req[2]);
    else
        MPI_Ssend_init(wild, rank, MPI_INT, 0, 61, MPI_COMM_WORLD, &req[2]);
    for (int it = 0; it < ITERS; it++) {
        int sender = 1 + it % 3;
        for (int i = 0; i < 8; i++)
            out[i] = 1000 * it + 10 * rank + i;
        for (int i = 0; i < 4; i++)
            wild[i] = rank == 0 ? -1 : 100 * it + rank;
        int n = rank == 0 || rank == sender ? 3 : 2;
        MPI_Startall(n, req);
        MPI_Waitall(n, req, st);
        EXPECT(in[7] == 1000 * it + 10 * left + 7 && st[0].MPI_SOURCE == left);
        if (rank == 0) {
            int got = 0;
            MPI_Get_count(&st[2], MPI_INT, &got);
            EXPECT(st[2].MPI_SOURCE == sender && st[2].MPI_TAG == 61 && got == sender);
            EXPECT(wild[0] == 100 * it + sender && wild[sender - 1] == 100 * it + sender);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Status st0;
    MPI_Wait(&req[0], &st0); /* inactive: returns at once, empty status */
    EXPECT(st0.MPI_SOURCE == MPI_ANY_SOURCE && st0.MPI_TAG == MPI_ANY_TAG);
    for (int i = 0; i < 3; i++) {
        MPI_Request_free(&req[i]);
        EXPECT(req[i] == MPI_REQUEST_NULL);
    }
}

static void modes(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1;
    MPI_Request req[2];
    MPI_Recv_init(&in, 1, MPI_INT, left, 62, MPI_COMM_WORLD, &req[0]);
    MPI_Start(&req[0]);
    MPI_Barrier(MPI_COMM_WORLD); /* every ready send finds its receive posted */
    MPI_Rsend_init(&out, 1, MPI_INT, right, 62, MPI_COMM_WORLD, &req[1]);
    MPI_Start(&req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    EXPECT(in == left);
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);

    int bsize = 1024;
    char *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Request b;
    MPI_Bsend_init(&out, 1, MPI_INT, left, 63, MPI_COMM_WORLD, &b);
    MPI_Start(&b);
    MPI_Request_free(&b); /* active: the buffered send still goes out */
    MPI_Recv(&in, 1, MPI_INT, right, 63, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(in == right);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
}

static void cancel(void)
{
    int v;
    MPI_Request req;
    MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &req);
    for (int i = 0; i < 2; i++) {
        MPI_Status st;
        MPI_Start(&req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        int cancelled = 0;
        MPI_Test_cancelled(&st, &cancelled);
        EXPECT(cancelled);
    }
    MPI_Request_free(&req);
}

int main(int argc, char **argv)
{
    int rc = check_start("persistent", &argc, &argv);
    if (rc)
        return rc;
    void (*const phase[])(void) = { halo, modes, cancel };
    check_phases(phase, sizeof phase / sizeof phase[0]);
    return check_finish();
}
