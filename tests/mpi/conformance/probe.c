/*
 * probe.c - MPI_Probe and MPI_Iprobe, np 2..8 (rank 0 probes).
 *  1 each sender s sends s*100 ints (tag 50+s) and an empty message (tag 60);
 *    0 Probes (any, any), sizes a buffer from Get_count, receives exactly
 *    that message by source and tag; the empty ones have count 0
 *  2 a probe does not consume: two Probes of (1, any) see the same message,
 *    which is the earlier of the two sent (tag 71, then 72)
 *  3 Iprobe polls until a 1 MiB message (rendezvous size) is there; its count
 *  4 nothing left: Iprobe(any, any) is false once every message is received
 */
#include "conformance.h"

static void probe_sizes(void)
{
    if (rank == 0) {
        int n = 2 * (size - 1), sum = 0, empties = 0;
        for (int i = 0; i < n; i++) {
            MPI_Status st, st2;
            int c;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &c);
            int s = st.MPI_SOURCE;
            EXPECT(s > 0 && s < size);
            EXPECT(st.MPI_TAG == 60 ? c == 0 : (st.MPI_TAG == 50 + s && c == s * 100));
            int *buf = xmalloc(sizeof(int) * (size_t)c);
            MPI_Recv(buf, c, MPI_INT, s, st.MPI_TAG, MPI_COMM_WORLD, &st2);
            int c2;
            MPI_Get_count(&st2, MPI_INT, &c2);
            EXPECT(c2 == c && st2.MPI_SOURCE == s && st2.MPI_TAG == st.MPI_TAG);
            if (c)
                EXPECT(first_bad(buf, sizeof(int) * (size_t)c, (uint64_t)s) ==
                       sizeof(int) * (size_t)c);
            sum += c;
            empties += c == 0;
            free(buf);
        }
        record("probe_sizes sum=%d empties=%d", sum, empties);
    } else {
        int c = rank * 100;
        int *buf = xmalloc(sizeof(int) * (size_t)c);
        fill(buf, sizeof(int) * (size_t)c, (uint64_t)rank);
        MPI_Send(buf, c, MPI_INT, 0, 50 + rank, MPI_COMM_WORLD);
        MPI_Send(NULL, 0, MPI_INT, 0, 60, MPI_COMM_WORLD);
        free(buf);
    }
}

static void probe_twice(void)
{
    if (rank == 0) {
        MPI_Status a, b;
        MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &a);
        MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &b);
        EXPECT(a.MPI_TAG == 71 && b.MPI_TAG == 71 && a.MPI_SOURCE == 1);
        int v[2];
        MPI_Recv(&v[0], 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &a);
        MPI_Recv(&v[1], 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &b);
        EXPECT(v[0] == 1 && v[1] == 2 && a.MPI_TAG == 71 && b.MPI_TAG == 72);
        record("probe_twice %d %d", v[0], v[1]);
    } else if (rank == 1) {
        int x = 1, y = 2;
        MPI_Send(&x, 1, MPI_INT, 0, 71, MPI_COMM_WORLD);
        MPI_Send(&y, 1, MPI_INT, 0, 72, MPI_COMM_WORLD);
    }
}

static void iprobe_large(void)
{
    const int n = 1 << 18; /* 1 MiB of ints */
    if (rank == 0) {
        int flag = 0;
        MPI_Status st;
        long polls = 0;
        while (!flag) {
            MPI_Iprobe(MPI_ANY_SOURCE, 80, MPI_COMM_WORLD, &flag, &st);
            polls++;
        }
        int c;
        MPI_Get_count(&st, MPI_INT, &c);
        EXPECT(c == n && st.MPI_SOURCE == size - 1 && st.MPI_TAG == 80);
        int *buf = xmalloc(sizeof(int) * (size_t)n);
        MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, 80, MPI_COMM_WORLD, &st);
        EXPECT(first_bad(buf, sizeof(int) * (size_t)n, 80) == sizeof(int) * (size_t)n);
        record("iprobe_large count=%d src=%d", c, st.MPI_SOURCE);
        free(buf);
    } else if (rank == size - 1) {
        int *buf = xmalloc(sizeof(int) * (size_t)n);
        fill(buf, sizeof(int) * (size_t)n, 80);
        MPI_Send(buf, n, MPI_INT, 0, 80, MPI_COMM_WORLD);
        free(buf);
    }
}

static void nothing_left(void)
{
    int flag = 1;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    EXPECT(flag == 0);
    MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    EXPECT(flag == 1 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    record("nothing_left");
}

int main(int argc, char **argv)
{
    int rc = conf_start("probe", &argc, &argv, 2, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { probe_sizes, probe_twice, iprobe_large, nothing_left };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
