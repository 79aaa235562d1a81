/*
 * mprobe.c - matched probes, MPI_Mprobe / MPI_Improbe with MPI_Mrecv /
 * MPI_Imrecv, np 2..8 (rank 0 probes). Every status field is checked: the
 * probe's and the receive's source, tag and count.
 *  1 Mprobe(any, any) + Mrecv: each sender sends sizes 0, 1, 1000 ints and
 *    256 Ki ints (rendezvous), tags 10..13
 *  2 Improbe(any, any) polled + Imrecv + Wait: the same messages again
 *  3 a matched message is out of reach: 1 sends tag 21 then tag 22; 0
 *    Mprobes (1, any) and gets 21, Recv(1, any) then gets 22, Mrecv gets 21
 *  4 Mprobe(1, 30) skips an earlier tag-31 message, which Recv then gets
 *  5 MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, Mrecv gives source PROC_NULL, count 0
 */
#include "conformance.h"

static const int sizes[] = { 0, 1, 1000, 1 << 18 };

static void send_set(int base)
{
    for (int k = 0; k < 4; k++) {
        int *buf = xmalloc(sizeof(int) * (size_t)sizes[k]);
        fill(buf, sizeof(int) * (size_t)sizes[k], (uint64_t)(rank * 10 + k));
        MPI_Send(buf, sizes[k], MPI_INT, 0, base + k, MPI_COMM_WORLD);
        free(buf);
    }
}

static void recv_set(int immediate)
{
    int *got = calloc((size_t)size * 4, sizeof(int));
    for (int i = 0; i < 4 * (size - 1); i++) {
        MPI_Message m;
        MPI_Status st, st2;
        if (immediate) {
            int flag = 0;
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
        } else {
            MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
        }
        int s = st.MPI_SOURCE, k = st.MPI_TAG - 10, c, c2;
        MPI_Get_count(&st, MPI_INT, &c);
        EXPECT(s > 0 && s < size && k >= 0 && k < 4);
        if (s <= 0 || s >= size || k < 0 || k >= 4) {
            MPI_Mrecv(NULL, 0, MPI_INT, &m, MPI_STATUS_IGNORE);
            continue;
        }
        EXPECT(c == sizes[k]);
        int *buf = xmalloc(sizeof(int) * (size_t)c);
        if (immediate) {
            MPI_Request r;
            MPI_Imrecv(buf, c, MPI_INT, &m, &r);
            MPI_Wait(&r, &st2);
        } else {
            MPI_Mrecv(buf, c, MPI_INT, &m, &st2);
        }
        EXPECT(m == MPI_MESSAGE_NULL);
        MPI_Get_count(&st2, MPI_INT, &c2);
        EXPECT(st2.MPI_SOURCE == s && st2.MPI_TAG == 10 + k && c2 == c);
        EXPECT(first_bad(buf, sizeof(int) * (size_t)c, (uint64_t)(s * 10 + k)) ==
               sizeof(int) * (size_t)c);
        got[s * 4 + k]++;
        free(buf);
    }
    for (int s = 1; s < size; s++)
        for (int k = 0; k < 4; k++) {
            EXPECT(got[s * 4 + k] == 1);
            record("mprobe immediate=%d src=%d tag=%d count=%d n=%d", immediate, s, 10 + k,
                   sizes[k], got[s * 4 + k]);
        }
    free(got);
}

static void blocking(void)
{
    if (rank == 0)
        recv_set(0);
    else
        send_set(10);
}

static void immediate(void)
{
    if (rank == 0)
        recv_set(1);
    else
        send_set(10);
}

static void out_of_reach(void)
{
    if (rank == 0) {
        MPI_Message m;
        MPI_Status st, st2, st3;
        int a = 0, b = 0;
        MPI_Mprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
        EXPECT(st.MPI_TAG == 21 && st.MPI_SOURCE == 1);
        MPI_Recv(&b, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st2);
        MPI_Mrecv(&a, 1, MPI_INT, &m, &st3);
        EXPECT(a == 21 && st3.MPI_TAG == 21 && b == 22 && st2.MPI_TAG == 22);
        record("out_of_reach %d %d", a, b);
    } else if (rank == 1) {
        int x = 21, y = 22;
        MPI_Send(&x, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
        MPI_Send(&y, 1, MPI_INT, 0, 22, MPI_COMM_WORLD);
    }
}

static void by_tag(void)
{
    if (rank == 0) {
        MPI_Message m;
        MPI_Status st;
        int a = 0, b = 0, c;
        MPI_Mprobe(1, 30, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_INT, &c);
        EXPECT(st.MPI_TAG == 30 && c == 1);
        MPI_Mrecv(&a, 1, MPI_INT, &m, &st);
        MPI_Recv(&b, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        EXPECT(a == 30 && b == 31 && st.MPI_TAG == 31);
        record("by_tag %d %d", a, b);
    } else if (rank == 1) {
        int x = 31, y = 30;
        MPI_Request r[2];
        MPI_Isend(&x, 1, MPI_INT, 0, 31, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&y, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

static void proc_null(void)
{
    MPI_Message m;
    MPI_Status st;
    int x = 7, c = -1, flag = 0;
    MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &m, &st);
    EXPECT(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
    MPI_Mrecv(&x, 1, MPI_INT, &m, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && c == 0 && x == 7);
    MPI_Improbe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &m, &st);
    EXPECT(flag && m == MPI_MESSAGE_NO_PROC);
    MPI_Mrecv(&x, 1, MPI_INT, &m, &st);
    record("proc_null count=%d", c);
}

int main(int argc, char **argv)
{
    int rc = conf_start("mprobe", &argc, &argv, 2, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { blocking, immediate, out_of_reach, by_tag, proc_null };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
