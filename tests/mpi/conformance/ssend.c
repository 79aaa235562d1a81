/*
 * ssend.c - synchronous sends, np 2..8 (pairs r, r^1; the even rank sends).
 *  1 Ssend / Recv of 0 B, 4 B, 64 KiB and 4 MiB; data checked
 *  2 an Issend does not complete before its receive is posted: the sender
 *    Tests it 20 times over about 20 ms (false every time) before telling the
 *    receiver, by a standard send on another tag, to post it
 *  3 Issends matched by wildcard receives, (any, any) then (any, tag)
 *  (an Issend matched by Mprobe + Mrecv: ssend_mprobe.c)
 *  4 Issend to self, received with Recv, then Wait
 */
#include <time.h>

#include "conformance.h"

static void pause_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static void sizes(void)
{
    static const int n[] = { 0, 4, 65536, 4 << 20 };
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    for (int k = 0; k < 4; k++) {
        char *buf = xmalloc((size_t)n[k]);
        if (rank % 2 == 0) {
            fill(buf, (size_t)n[k], (uint64_t)k);
            MPI_Ssend(buf, n[k], MPI_CHAR, peer, k, MPI_COMM_WORLD);
        } else {
            MPI_Status st;
            int c;
            MPI_Recv(buf, n[k], MPI_CHAR, peer, k, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &c);
            EXPECT(c == n[k] && st.MPI_TAG == k && first_bad(buf, (size_t)c, (uint64_t)k) == (size_t)c);
            record("ssend size=%d data=%016llx", c, (unsigned long long)data_hash(buf, (size_t)c));
        }
        free(buf);
    }
}

static void not_before_receive(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    int x = 42, go = 1;
    if (rank % 2 == 0) {
        MPI_Request r;
        int early = 0;
        MPI_Issend(&x, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, &r);
        for (int i = 0; i < 20; i++) {
            int flag = 0;
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            early += flag;
            if (flag)
                break;
            pause_ms(1);
        }
        EXPECT(early == 0);
        MPI_Send(&go, 1, MPI_INT, peer, 11, MPI_COMM_WORLD);
        if (!early)
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        record("issend early=%d", early);
    } else {
        int y = 0;
        MPI_Recv(&go, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT(y == 42);
        record("issend got=%d", y);
    }
}

static void matched_by_wildcard(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    if (rank % 2 == 0) {
        int a = 1, b = 2;
        MPI_Request r[2];
        MPI_Issend(&a, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &r[0]);
        MPI_Issend(&b, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else {
        int a = 0, b = 0;
        MPI_Status st;
        MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        EXPECT(a == 1 && st.MPI_TAG == 20 && st.MPI_SOURCE == peer);
        MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &st);
        EXPECT(b == 2 && st.MPI_TAG == 21 && st.MPI_SOURCE == peer);
        record("issend wildcard=%d %d", a, b);
    }
}

static void to_self(void)
{
    int x = rank + 1000, y = 0;
    MPI_Request r;
    MPI_Issend(&x, 1, MPI_INT, rank, 30, MPI_COMM_WORLD, &r);
    MPI_Recv(&y, 1, MPI_INT, rank, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(y == rank + 1000);
    record("self y=%d", y);
}

int main(int argc, char **argv)
{
    int rc = conf_start("ssend", &argc, &argv, 1, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { sizes, not_before_receive, matched_by_wildcard, to_self };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
