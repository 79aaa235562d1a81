/*
 * cancel.c - cancelled receives and their status, np 2..8.
 *  1 Irecv(any, 999) cancelled: Wait completes, Test_cancelled is true;
 *    Request_get_status on it before the Wait, Test_cancelled after the Wait
 *  2 a cancelled receive does not swallow a message: 0 posts (1, 5), cancels
 *    it; then 1 sends tag 5 and a fresh Recv(1, 5) gets it
 *  3 100 wildcard receives cancelled in reverse order; the messages sent
 *    afterwards go to the receives posted after the cancels, in order
 *  4 cancel after completion: 1's message has matched (seen with
 *    Request_get_status); Cancel, Wait: not cancelled, data intact
 *  5 a persistent receive cancelled, then started again and completed
 */
#include "conformance.h"

static void cancel_any(void)
{
    int x = -1, flag = 0, cancelled = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    /* completion of a cancelled request is guaranteed; poll it without freeing */
    while (!flag)
        MPI_Request_get_status(r, &flag, &st);
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT(cancelled);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT(cancelled && r == MPI_REQUEST_NULL && x == -1);
    record("cancel_any cancelled=%d", cancelled);
}

static void not_swallowed(void)
{
    if (size < 2)
        return;
    if (rank == 0) {
        int x = -1, cancelled = 0;
        MPI_Request r;
        MPI_Status st;
        MPI_Irecv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        EXPECT(cancelled && x == -1);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &st);
        EXPECT(x == 55 && st.MPI_SOURCE == 1 && st.MPI_TAG == 5);
        record("not_swallowed x=%d", x);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            int v = 55;
            MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        }
    }
}

enum { N = 100 };

static void many(void)
{
    if (size < 2)
        return;
    if (rank == 0) {
        static int buf[N], got[N];
        MPI_Request r[N];
        MPI_Status st;
        for (int i = 0; i < N; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[i]);
        int n_cancelled = 0;
        for (int i = N - 1; i >= 0; i--) {
            int c = 0;
            MPI_Cancel(&r[i]);
            MPI_Wait(&r[i], &st);
            MPI_Test_cancelled(&st, &c);
            n_cancelled += c;
        }
        EXPECT(n_cancelled == N);
        for (int i = 0; i < N; i++)
            MPI_Irecv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(N, r, MPI_STATUSES_IGNORE);
        for (int i = 0; i < N; i++)
            EXPECT(got[i] == i);
        record("many cancelled=%d received=%016llx", n_cancelled,
               (unsigned long long)data_hash(got, sizeof got));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            for (int i = 0; i < N; i++)
                MPI_Send(&i, 1, MPI_INT, 0, i % 3, MPI_COMM_WORLD);
    }
}

static void after_completion(void)
{
    if (size < 2)
        return;
    if (rank == 0) {
        int x = -1, flag = 0, cancelled = 1;
        MPI_Request r;
        MPI_Status st;
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &r);
        MPI_Barrier(MPI_COMM_WORLD);
        while (!flag)
            MPI_Request_get_status(r, &flag, &st);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        EXPECT(!cancelled && x == 66 && st.MPI_SOURCE == 1 && st.MPI_TAG == 6);
        record("after_completion cancelled=%d x=%d", cancelled, x);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            int v = 66;
            MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
        }
    }
}

static void persistent(void)
{
    if (size < 2)
        return;
    if (rank == 0) {
        int x = -1, cancelled = 1;
        MPI_Request r;
        MPI_Status st;
        MPI_Recv_init(&x, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        EXPECT(cancelled && r != MPI_REQUEST_NULL);
        MPI_Start(&r);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        EXPECT(!cancelled && x == 88 && st.MPI_SOURCE == 1);
        MPI_Request_free(&r);
        record("persistent x=%d", x);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            int v = 88;
            MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    int rc = conf_start("cancel", &argc, &argv, 1, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { cancel_any, not_swallowed, many, after_completion, persistent };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
