/*
 * wildcards.c - MPI_ANY_SOURCE, MPI_ANY_TAG and both, and MPI's ordering
 * rules, np 2..8 (rank 0 receives, the others send).
 *  1 ANY_SOURCE, fixed tag: one message from each sender; the set of sources
 *  2 ANY_TAG from one source: tags 5, 3, 9, 3 arrive in send order
 *  3 both wildcards: K messages from each sender, increasing sequence
 *    numbers; per source they arrive in order (no overtaking)
 *  4 earliest posted receive wins: 0 posts (any, any), (1, 7), (any, 7), then
 *    1 sends three tag-7 messages: they complete the receives in post order
 *  5 a specific receive posted before a wildcard one: (1, 7) then (any, any);
 *    1 sends tag 8 then tag 7: the wildcard gets 8, the specific one 7
 *  6 unexpected side: each sender's tag 11 then tag 12 messages before 0
 *    posts; (any source, tag 12) takes only tag 12; (s, any) then gets 11
 */
#include "conformance.h"

enum { K = 20 };

static void any_source(void)
{
    if (rank == 0) {
        int *seen = xmalloc(sizeof(int) * (size_t)size);
        for (int i = 1; i < size; i++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &st);
            EXPECT(st.MPI_TAG == 21 && v == st.MPI_SOURCE * 3);
            seen[i - 1] = st.MPI_SOURCE;
        }
        qsort(seen, (size_t)size - 1, sizeof(int), int_cmp);
        for (int i = 1; i < size; i++) {
            EXPECT(seen[i - 1] == i);
            record("any_source got %d", seen[i - 1]);
        }
        free(seen);
    } else {
        int v = rank * 3;
        MPI_Send(&v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
    }
}

static void any_tag(void)
{
    static const int tags[] = { 5, 3, 9, 3 };
    if (rank == 0 && size > 1) {
        for (int i = 0; i < 4; i++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            EXPECT(st.MPI_SOURCE == 1 && st.MPI_TAG == tags[i] && v == i);
            record("any_tag %d tag=%d v=%d", i, st.MPI_TAG, v);
        }
    } else if (rank == 1) {
        for (int i = 0; i < 4; i++)
            MPI_Send(&i, 1, MPI_INT, 0, tags[i], MPI_COMM_WORLD);
    }
}

static void both(void)
{
    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof(int));
        for (int i = 0; i < K * (size - 1); i++) {
            int v[2];
            MPI_Status st;
            MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int s = st.MPI_SOURCE;
            EXPECT(s > 0 && s < size && v[0] == s);
            if (s <= 0 || s >= size)
                continue;
            EXPECT(v[1] == next[s] && st.MPI_TAG == 30 + next[s] % 4);
            next[s]++;
        }
        for (int s = 1; s < size; s++)
            record("both src=%d n=%d", s, next[s]);
        free(next);
    } else {
        for (int i = 0; i < K; i++) {
            int v[2] = { rank, i };
            MPI_Send(v, 2, MPI_INT, 0, 30 + i % 4, MPI_COMM_WORLD);
        }
    }
}

static void earliest_posted(void)
{
    if (size < 2)
        return;
    if (rank == 0) {
        int v[3] = { -1, -1, -1 };
        MPI_Request r[3];
        MPI_Status st[3];
        MPI_Irecv(&v[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&v[1], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[1]);
        MPI_Irecv(&v[2], 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r[2]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(3, r, st);
        for (int i = 0; i < 3; i++) {
            EXPECT(v[i] == 100 + i && st[i].MPI_SOURCE == 1 && st[i].MPI_TAG == 7);
            record("earliest %d v=%d", i, v[i]);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            for (int i = 0; i < 3; i++) {
                int x = 100 + i;
                MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
            }
    }
}

static void specific_first(void)
{
    if (size < 2)
        return;
    if (rank == 0) {
        int a = -1, b = -1;
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_Irecv(&a, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(2, r, st);
        EXPECT(a == 70 && st[0].MPI_TAG == 7 && b == 80 && st[1].MPI_TAG == 8 &&
               st[1].MPI_SOURCE == 1);
        record("specific_first a=%d b=%d", a, b);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            int x = 80, y = 70;
            MPI_Send(&x, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
            MPI_Send(&y, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        }
    }
}

static void unexpected_side(void)
{
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 1; i < size; i++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &st);
            EXPECT(st.MPI_TAG == 12 && v == st.MPI_SOURCE * 1000 + 12);
            MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            EXPECT(st.MPI_TAG == 11 && v == st.MPI_SOURCE * 1000 + 11);
        }
        record("unexpected_side n=%d", size - 1);
    } else {
        int a = rank * 1000 + 11, b = rank * 1000 + 12;
        MPI_Request r[2];
        MPI_Isend(&a, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &r[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rc = conf_start("wildcards", &argc, &argv, 2, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { any_source, any_tag, both, earliest_posted, specific_first,
                              unexpected_side };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
