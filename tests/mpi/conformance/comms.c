/*
 * comms.c - communicators keep messages apart, np 2..8 (cids vary).
 *  1 32 duplicates of the world: 1 sends tag 5 on each in order 0..31, then
 *    on the world; 0 receives on the world first, then on the duplicates in
 *    reverse order, with (any, any): each gets its own message
 *  2 split by rank % 2, keys reversing the order: ranks and sizes checked;
 *    in each half a ring with (any, any) receives
 *  3 Comm_create of the even ranks' group; Comm_idup; messages on both
 *  4 an intercommunicator between the halves: sub-rank i of one half sends
 *    to remote rank i of the other, which receives from MPI_ANY_SOURCE
 *  5 free and duplicate again 50 times (ids are reused): a message sent on
 *    one generation's communicator is received on that one only
 */
#include "conformance.h"

enum { NDUP = 32 };

static void dups(void)
{
    MPI_Comm d[NDUP];
    for (int i = 0; i < NDUP; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &d[i]);
    if (rank == 1) {
        for (int i = 0; i < NDUP; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 5, d[i]);
        int w = -1;
        MPI_Send(&w, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int v, bad = 0;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        EXPECT(v == -1 && st.MPI_SOURCE == 1 && st.MPI_TAG == 5);
        for (int i = NDUP - 1; i >= 0; i--) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, d[i], &st);
            bad += v != i || st.MPI_SOURCE != 1;
        }
        EXPECT(bad == 0);
        record("dups n=%d ok=%d", NDUP, bad == 0);
    }
    for (int i = 0; i < NDUP; i++)
        MPI_Comm_free(&d[i]);
}

static void split(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    int expect_size = size / 2 + (rank % 2 == 0 ? size % 2 : 0);
    EXPECT(hs == expect_size);
    /* keys reverse the order: the highest world rank of the half is sub-rank 0 */
    int above = 0;
    for (int r = rank + 2; r < size; r += 2)
        above++;
    EXPECT(hr == above);
    int right = (hr + 1) % hs, v = rank, got = -1;
    MPI_Status st;
    MPI_Sendrecv(&v, 1, MPI_INT, right, 9, &got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, half,
                 &st);
    EXPECT(st.MPI_SOURCE == (hr + hs - 1) % hs && got % 2 == rank % 2);
    record("split color=%d rank=%d size=%d got=%d", rank % 2, hr, hs, got);
    MPI_Comm_free(&half);
}

static void create_idup(void)
{
    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n = (size + 1) / 2, *ranks = xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        ranks[i] = 2 * i;
    MPI_Group_incl(world, n, ranks, &evens);
    MPI_Comm ec, id;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &ec);
    MPI_Request r;
    MPI_Comm_idup(MPI_COMM_WORLD, &id, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT((ec == MPI_COMM_NULL) == (rank % 2 == 1));
    if (ec != MPI_COMM_NULL) {
        int er, sum = 0;
        MPI_Comm_rank(ec, &er);
        EXPECT(er == rank / 2);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ec);
        EXPECT(sum == n * (n - 1));
        record("create rank=%d sum=%d", er, sum);
        MPI_Comm_free(&ec);
    }
    int x = rank * 3, y = -1;
    MPI_Status st;
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, &y, 1, MPI_INT, MPI_ANY_SOURCE,
                 MPI_ANY_TAG, id, &st);
    EXPECT(y == st.MPI_SOURCE * 3 && st.MPI_SOURCE == (rank + size - 1) % size);
    record("idup y=%d", y);
    MPI_Comm_free(&id);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    free(ranks);
}

static void inter(void)
{
    if (size < 2)
        return;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    /* leaders: world rank 0 for the evens, world rank 1 for the odds */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 77, &ic);
    int lr, rs, flag;
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_remote_size(ic, &rs);
    MPI_Comm_test_inter(ic, &flag);
    EXPECT(flag);
    if (lr < rs) {
        int v = rank, got = -1;
        MPI_Status st;
        MPI_Sendrecv(&v, 1, MPI_INT, lr, 3, &got, 1, MPI_INT, MPI_ANY_SOURCE, 3, ic, &st);
        EXPECT(st.MPI_SOURCE == lr && got == 2 * lr + (rank % 2 == 0 ? 1 : 0));
        record("inter rank=%d got=%d", lr, got);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
}

static void generations(void)
{
    int bad = 0;
    for (int g = 0; g < 50; g++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (rank == 1) {
            MPI_Send(&g, 1, MPI_INT, 0, g % 3, c);
        } else if (rank == 0) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st);
            bad += v != g || st.MPI_TAG != g % 3;
        }
        MPI_Comm_free(&c);
    }
    if (rank == 0) {
        EXPECT(bad == 0);
        record("generations ok=%d", bad == 0);
    }
}

int main(int argc, char **argv)
{
    int rc = conf_start("comms", &argc, &argv, 2, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { dups, split, create_idup, inter, generations };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
