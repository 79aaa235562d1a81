/*
 * p2p.c - blocking and nonblocking point-to-point, np 2..8.
 *  1 pairs (r, r^1): blocking Send/Recv, even rank first; status fields
 *  2 all to all: Irecv from every peer (tag 100+src), Isend to every peer,
 *    completed with Waitany, then Testsome, then Waitall; data checked
 *  3 Sendrecv around the ring, Sendrecv_replace the other way
 *  4 MPI_PROC_NULL: send and receive complete at once, status of PROC_NULL
 *  5 counts: 3 ints received as a 2-int type (Get_count UNDEFINED,
 *    Get_elements 3) (a too-long message: truncate.c)
 *  6 self: Isend to self and Recv from self
 */
#include "conformance.h"

static void pairs(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    for (int k = 0; k < 3; k++) {
        int n = 1 + k * 1000, seed = rank * 10 + k;
        int *out = xmalloc(sizeof(int) * (size_t)n), *in = xmalloc(sizeof(int) * (size_t)n);
        fill(out, sizeof(int) * (size_t)n, (uint64_t)seed);
        MPI_Status st;
        if (rank % 2 == 0) {
            MPI_Send(out, n, MPI_INT, peer, 7 + k, MPI_COMM_WORLD);
            MPI_Recv(in, n, MPI_INT, peer, 7 + k, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(in, n, MPI_INT, peer, 7 + k, MPI_COMM_WORLD, &st);
            MPI_Send(out, n, MPI_INT, peer, 7 + k, MPI_COMM_WORLD);
        }
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        EXPECT(st.MPI_SOURCE == peer && st.MPI_TAG == 7 + k && count == n);
        EXPECT(first_bad(in, sizeof(int) * (size_t)n, (uint64_t)(peer * 10 + k)) ==
               sizeof(int) * (size_t)n);
        record("pair src=%d tag=%d count=%d data=%016llx", st.MPI_SOURCE, st.MPI_TAG, count,
               (unsigned long long)data_hash(in, sizeof(int) * (size_t)count));
        free(out);
        free(in);
    }
}

static void all_to_all(void)
{
    int n = size - 1;
    if (n == 0)
        return;
    int (*in)[16] = xmalloc(sizeof *in * (size_t)size);
    int (*out)[16] = xmalloc(sizeof *out * (size_t)size);
    MPI_Request *rr = xmalloc(sizeof(MPI_Request) * (size_t)size);
    MPI_Request *sr = xmalloc(sizeof(MPI_Request) * (size_t)size);
    int *peers = xmalloc(sizeof(int) * (size_t)size);
    for (int round = 0; round < 3; round++) {
        int k = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            peers[k] = p;
            for (int i = 0; i < 16; i++)
                out[p][i] = rank * 10000 + p * 100 + i + round;
            MPI_Irecv(in[p], 16, MPI_INT, p, 100 + p, MPI_COMM_WORLD, &rr[k]);
            k++;
        }
        for (int i = 0; i < n; i++)
            MPI_Isend(out[peers[i]], 16, MPI_INT, peers[i], 100 + rank, MPI_COMM_WORLD, &sr[i]);
        int done = 0;
        MPI_Status st;
        if (round == 0) {
            for (; done < n; done++) {
                int idx;
                MPI_Waitany(n, rr, &idx, &st);
                EXPECT(idx >= 0 && idx < n && st.MPI_SOURCE == peers[idx] &&
                       st.MPI_TAG == 100 + peers[idx]);
            }
        } else if (round == 1) {
            int *idx = xmalloc(sizeof(int) * (size_t)n);
            MPI_Status *sts = xmalloc(sizeof(MPI_Status) * (size_t)n);
            while (done < n) {
                int outcount;
                MPI_Testsome(n, rr, &outcount, idx, sts);
                EXPECT(outcount != MPI_UNDEFINED);
                if (outcount == MPI_UNDEFINED)
                    break;
                for (int i = 0; i < outcount; i++)
                    EXPECT(sts[i].MPI_SOURCE == peers[idx[i]]);
                done += outcount;
            }
            free(idx);
            free(sts);
        } else {
            MPI_Status *sts = xmalloc(sizeof(MPI_Status) * (size_t)n);
            MPI_Waitall(n, rr, sts);
            for (int i = 0; i < n; i++) {
                int c;
                MPI_Get_count(&sts[i], MPI_INT, &c);
                EXPECT(sts[i].MPI_SOURCE == peers[i] && sts[i].MPI_TAG == 100 + peers[i] && c == 16);
            }
            free(sts);
        }
        MPI_Waitall(n, sr, MPI_STATUSES_IGNORE);
        for (int i = 0; i < n; i++) {
            int p = peers[i];
            for (int j = 0; j < 16; j++)
                EXPECT(in[p][j] == p * 10000 + rank * 100 + j + round);
            record("a2a round=%d src=%d data=%016llx", round, p,
                   (unsigned long long)data_hash(in[p], sizeof in[p]));
        }
    }
    free(in);
    free(out);
    free(rr);
    free(sr);
    free(peers);
}

static void ring(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out[5], in[5];
    for (int i = 0; i < 5; i++)
        out[i] = rank + i / 8.0;
    MPI_Status st;
    MPI_Sendrecv(out, 5, MPI_DOUBLE, right, 40, in, 5, MPI_DOUBLE, MPI_ANY_SOURCE, 40,
                 MPI_COMM_WORLD, &st);
    EXPECT(st.MPI_SOURCE == left && in[4] == left + 0.5);
    record("sendrecv src=%d tag=%d first=%g", st.MPI_SOURCE, st.MPI_TAG, in[0]);
    MPI_Sendrecv_replace(out, 5, MPI_DOUBLE, left, 41, right, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    EXPECT(st.MPI_SOURCE == right && st.MPI_TAG == 41 && out[2] == right + 0.25);
    record("replace src=%d tag=%d first=%g", st.MPI_SOURCE, st.MPI_TAG, out[0]);
}

static void proc_null(void)
{
    int x = 5;
    MPI_Status st;
    MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
    int c = -1;
    MPI_Get_count(&st, MPI_INT, &c);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && c == 0 && x == 5);
    MPI_Request r;
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && x == 5);
    record("proc_null count=%d", c);
}

static void counts(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int peer = rank ^ 1;
    if (peer < size) {
        int out[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, in[8] = { 0 };
        MPI_Datatype two;
        MPI_Type_contiguous(2, MPI_INT, &two);
        MPI_Type_commit(&two);
        MPI_Status st;
        MPI_Request r;
        MPI_Irecv(in, 4, two, peer, 1, comm, &r);
        MPI_Send(out, 3, MPI_INT, peer, 1, comm);
        MPI_Wait(&r, &st);
        int c, e;
        MPI_Get_count(&st, two, &c);
        MPI_Get_elements(&st, two, &e);
        EXPECT(c == MPI_UNDEFINED && e == 3 && in[2] == 3 && in[3] == 0);
        record("partial count=%d elements=%d", c, e);
        MPI_Type_free(&two);
    }
    MPI_Comm_free(&comm);
}

static void self(void)
{
    char out[100], in[100];
    fill(out, sizeof out, (uint64_t)rank);
    MPI_Request r;
    MPI_Status st;
    MPI_Isend(out, 100, MPI_CHAR, rank, 9, MPI_COMM_WORLD, &r);
    MPI_Recv(in, 100, MPI_CHAR, rank, 9, MPI_COMM_WORLD, &st);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(st.MPI_SOURCE == rank && memcmp(in, out, sizeof in) == 0);
    record("self tag=%d", st.MPI_TAG);
}

int main(int argc, char **argv)
{
    int rc = conf_start("p2p", &argc, &argv, 1, 64, -1, NULL);
    if (rc)
        return rc;
    void (*phase[])(void) = { pairs, all_to_all, ring, proc_null, counts, self };
    conf_phases(phase, sizeof phase / sizeof phase[0]);
    return conf_finish();
}
