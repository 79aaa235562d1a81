/*
 * race.c - a wildcard receive that two senders race for, and its cancel,
 * np 3..8 (rank 0 receives; ranks 1 and 2 race; the others idle). Which
 * sender wins is legal either way, so the digest records only what must
 * hold: every message received exactly once, with its sender's data.
 *  1 ROUNDS rounds: 0 posts Irecv(any, tag r) and tells 1 and 2 to go (a
 *    barrier); both send; the wildcard gets one of them, a Recv from the
 *    other source gets the other
 *  2 the same, but 0 cancels the wildcard receive as soon as the senders
 *    go: either it was cancelled (both messages still arrive, to two
 *    directed receives) or it completed (with one of them): never both,
 *    never neither, never a lost message
 */
#include "conformance.h"

enum { ROUNDS = 50 };

static void senders(int tag, int round)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 || rank == 2) {
        int v[2] = { rank, round };
        MPI_Send(v, 2, MPI_INT, 0, tag, MPI_COMM_WORLD);
    }
}

static void check_msg(const int *v, const MPI_Status *st, int round)
{
    EXPECT((st->MPI_SOURCE == 1 || st->MPI_SOURCE == 2) && v[0] == st->MPI_SOURCE &&
           v[1] == round);
}

static void race(void)
{
    int wins[3] = { 0, 0, 0 };
    for (int r = 0; r < ROUNDS; r++) {
        if (rank != 0) {
            senders(100 + r, r);
            continue;
        }
        int v[2] = { -1, -1 }, w[2] = { -1, -1 };
        MPI_Request q;
        MPI_Status st, st2;
        MPI_Irecv(v, 2, MPI_INT, MPI_ANY_SOURCE, 100 + r, MPI_COMM_WORLD, &q);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&q, &st);
        check_msg(v, &st, r);
        int other = st.MPI_SOURCE == 1 ? 2 : 1;
        MPI_Recv(w, 2, MPI_INT, MPI_ANY_SOURCE, 100 + r, MPI_COMM_WORLD, &st2);
        check_msg(w, &st2, r);
        EXPECT(st2.MPI_SOURCE == other);
        if (st.MPI_SOURCE == 1 || st.MPI_SOURCE == 2)
            wins[st.MPI_SOURCE]++;
    }
    if (rank == 0) {
        EXPECT(wins[1] + wins[2] == ROUNDS);
        record("race rounds=%d", wins[1] + wins[2]);
    }
}

static void race_cancel(void)
{
    int n_cancelled = 0, received = 0;
    for (int r = 0; r < ROUNDS; r++) {
        if (rank != 0) {
            senders(200 + r, r);
            continue;
        }
        int v[2] = { -1, -1 }, cancelled = 0, seen = 0;
        MPI_Request q;
        MPI_Status st;
        MPI_Irecv(v, 2, MPI_INT, MPI_ANY_SOURCE, 200 + r, MPI_COMM_WORLD, &q);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Cancel(&q);
        MPI_Wait(&q, &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (cancelled) {
            EXPECT(v[0] == -1 && v[1] == -1);
            n_cancelled++;
        } else {
            check_msg(v, &st, r);
            seen |= 1 << st.MPI_SOURCE;
            received++;
        }
        for (int s = 1; s <= 2; s++) {
            if (seen & (1 << s))
                continue;
            MPI_Recv(v, 2, MPI_INT, s, 200 + r, MPI_COMM_WORLD, &st);
            check_msg(v, &st, r);
            EXPECT(st.MPI_SOURCE == s);
            seen |= 1 << s;
            received++;
        }
        int flag = 1;
        MPI_Iprobe(MPI_ANY_SOURCE, 200 + r, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        EXPECT(!flag && seen == 6);
    }
    if (rank == 0) {
        EXPECT(received == 2 * ROUNDS);
        record("race_cancel received=%d", received);
        if (conf_verbose)
            fprintf(stderr, "race_cancel: %d of %d wildcard receives cancelled\n", n_cancelled,
                    ROUNDS);
    }
}

int main(int argc, char **argv)
{
    int rc = conf_start("race", &argc, &argv, 3, 64, -1, NULL);
    if (rc)
        return rc;
    race();
    MPI_Barrier(MPI_COMM_WORLD);
    race_cancel();
    return conf_finish();
}
