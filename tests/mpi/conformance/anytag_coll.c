/*
 * anytag_coll.c - MPI_ANY_TAG never picks up the traffic of collectives
 * (which MPI libraries send on the same communicator with negative tags,
 * unreachable for user tags), np 2..8.
 *  1 every rank posts Irecv(any, any) on the world, then the world runs
 *    bcast, allreduce, alltoall, gather, barrier (small and 1 MiB); the
 *    receive stays pending (Test is false); then each rank gets one
 *    point-to-point message from its left neighbour and the receive has it
 *  2 while a 4 MiB Ibcast is in progress every rank polls
 *    Iprobe(any, any): it never finds anything
 *  3 point-to-point sent before and after a collective on the same
 *    communicator, received with ANY_TAG after it: in order, tags intact
 */
#include "conformance.h"

static void collectives(int n)
{
    int *a = xmalloc(sizeof(int) * (size_t)n * (size_t)size);
    int *b = xmalloc(sizeof(int) * (size_t)n * (size_t)size);
    for (int i = 0; i < n * size; i++)
        a[i] = rank + i;
    MPI_Bcast(a, n, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(b);
}

static void pending_during(void)
{
    int v = -1, flag = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    collectives(1);
    MPI_Test(&r, &flag, &st);
    EXPECT(!flag);
    collectives(1 << 18);
    MPI_Test(&r, &flag, &st);
    EXPECT(!flag);
    MPI_Barrier(MPI_COMM_WORLD);
    int x = 1000 + rank;
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 12, MPI_COMM_WORLD);
    if (!flag)
        MPI_Wait(&r, &st);
    int left = (rank + size - 1) % size;
    EXPECT(v == 1000 + left && st.MPI_SOURCE == left && st.MPI_TAG == 12);
    record("pending_during v=%d tag=%d", v, st.MPI_TAG);
}

static void iprobe_during(void)
{
    const int n = 1 << 20; /* 4 MiB */
    int *a = xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        a[i] = rank == 0 ? i : -1;
    MPI_Request r;
    MPI_Ibcast(a, n, MPI_INT, 0, MPI_COMM_WORLD, &r);
    int done = 0, found = 0;
    long polls = 0;
    while (!done) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        found += flag;
        polls++;
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    }
    EXPECT(found == 0 && a[n - 1] == n - 1);
    record("iprobe_during found=%d", found);
    free(a);
}

static void around(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int x = 1, y = 2, got[2];
    MPI_Request r[2];
    MPI_Isend(&x, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &r[0]);
    collectives(3);
    MPI_Isend(&y, 1, MPI_INT, right, 32767, MPI_COMM_WORLD, &r[1]);
    MPI_Status st[2];
    MPI_Recv(&got[0], 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st[0]);
    MPI_Recv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    EXPECT(got[0] == 1 && st[0].MPI_TAG == 0 && got[1] == 2 && st[1].MPI_TAG == 32767 &&
           st[1].MPI_SOURCE == left);
    record("around tags=%d,%d", st[0].MPI_TAG, st[1].MPI_TAG);
}

int main(int argc, char **argv)
{
    int rc = conf_start("anytag_coll", &argc, &argv, 2, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { pending_during, iprobe_during, around };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
