/*
 * ssend_mprobe.c - synchronous sends matched by matched probes, np 2..8
 * (pairs r, r^1; the even rank sends). The sender's Issend must complete
 * once the receiver has matched it with Mprobe + Mrecv (and with Improbe +
 * Imrecv): a synchronous send completes when its receive has started, however
 * the receive was matched (MPI 4.0 section 3.4). mpi4py's comm.ssend /
 * comm.recv of Python objects is this pattern.
 *  1 Issend tag 21, received with Mprobe(any, any) + Mrecv
 *  2 Issend tag 22 of 1 MiB, received with Improbe(any, 22) + Imrecv
 */
#include "conformance.h"

int main(int argc, char **argv)
{
    int rc = conf_start("ssend_mprobe", &argc, &argv, 1, 64, -1, NULL);
    if (rc)
        return rc;
    int peer = rank ^ 1, n = 1 << 18;
    if (peer < size && rank % 2 == 0) {
        int a = 2, *big = xmalloc(sizeof(int) * (size_t)n);
        fill(big, sizeof(int) * (size_t)n, 22);
        MPI_Request r[2];
        MPI_Issend(&a, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &r[0]);
        MPI_Issend(big, n, MPI_INT, peer, 22, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        record("ssend_mprobe sender done");
        free(big);
    } else if (peer < size) {
        int b = 0, c, flag = 0, *big = xmalloc(sizeof(int) * (size_t)n);
        MPI_Status st;
        MPI_Message m;
        MPI_Request r;
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
        EXPECT(st.MPI_TAG == 21 && st.MPI_SOURCE == peer);
        MPI_Mrecv(&b, 1, MPI_INT, &m, &st);
        EXPECT(b == 2 && st.MPI_TAG == 21 && st.MPI_SOURCE == peer);
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &flag, &m, &st);
        MPI_Get_count(&st, MPI_INT, &c);
        EXPECT(c == n && st.MPI_SOURCE == peer);
        MPI_Imrecv(big, n, MPI_INT, &m, &r);
        MPI_Wait(&r, &st);
        EXPECT(first_bad(big, sizeof(int) * (size_t)n, 22) == sizeof(int) * (size_t)n);
        record("ssend_mprobe got=%d count=%d", b, c);
        free(big);
    }
    return conf_finish();
}
