/*
 * coll.c - every collective of Open MPI 4.1, blocking and nonblocking, np 1..8.
 * Each result is checked against what the operation must give and recorded.
 * Blocking: barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v,w),
 * reduce, allreduce, reduce_scatter, reduce_scatter_block, scan, exscan,
 * reduce_local, a non-commutative user op; neighbor_allgather(v) and
 * neighbor_alltoall(v,w) on a periodic ring. Nonblocking: the i- form of each,
 * started and waited for. Roots vary; the message sizes cross the eager
 * limits (1, 3 and 20000 ints per rank).
 */
#include "conformance.h"

#define REC(what, buf, n) \
    record("%s root=%d n=%d data=%016llx", what, root, (int)(n), \
           (unsigned long long)data_hash(buf, sizeof(int) * (size_t)(n)))

static int val(int r, int i)
{
    return r * 7919 + i * 31 + 1;
}

/* The non-commutative op: 2x2 integer matrix product (mod 2^31 - 1). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    long long *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        long long c[4] = { (a[0] * b[0] + a[1] * b[2]) % 2147483647,
                           (a[0] * b[1] + a[1] * b[3]) % 2147483647,
                           (a[2] * b[0] + a[3] * b[2]) % 2147483647,
                           (a[2] * b[1] + a[3] * b[3]) % 2147483647 };
        memcpy(b, c, sizeof c);
    }
}

static void blocking(int n, int root, int nonblocking)
{
    MPI_Comm w = MPI_COMM_WORLD;
    size_t nn = (size_t)n, ss = (size_t)size;
    int *a = xmalloc(sizeof(int) * nn * ss), *b = xmalloc(sizeof(int) * nn * ss);
    int *c = xmalloc(sizeof(int) * nn * ss);
    int *cnt = xmalloc(sizeof(int) * ss), *dsp = xmalloc(sizeof(int) * ss);
    MPI_Datatype *types = xmalloc(sizeof(MPI_Datatype) * ss);
    int *bdsp = xmalloc(sizeof(int) * ss);
    MPI_Request rq[1];
    const int q = 0;
#define RUN(call, icall) do { if (nonblocking) { icall; MPI_Wait(&rq[q], MPI_STATUS_IGNORE); } else { call; } } while (0)

    for (int i = 0; i < n; i++)
        a[i] = rank == root ? val(root, i) : -1;
    RUN(MPI_Bcast(a, n, MPI_INT, root, w), MPI_Ibcast(a, n, MPI_INT, root, w, &rq[q]));
    for (int i = 0; i < n; i++)
        EXPECT(a[i] == val(root, i));
    REC("bcast", a, n);

    for (int i = 0; i < n; i++)
        a[i] = val(rank, i);
    RUN(MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, root, w),
        MPI_Igather(a, n, MPI_INT, b, n, MPI_INT, root, w, &rq[q]));
    if (rank == root) {
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                EXPECT(b[r * n + i] == val(r, i));
        REC("gather", b, nn * ss);
    }
    /* v-forms: rank r contributes n - r % 2 elements (at least 0) */
    for (int r = 0, off = 0; r < size; r++) {
        cnt[r] = n - r % 2;
        dsp[r] = off;
        off += cnt[r];
    }
    int mine = cnt[rank], total = dsp[size - 1] + cnt[size - 1];
    RUN(MPI_Gatherv(a, mine, MPI_INT, b, cnt, dsp, MPI_INT, root, w),
        MPI_Igatherv(a, mine, MPI_INT, b, cnt, dsp, MPI_INT, root, w, &rq[q]));
    if (rank == root) {
        for (int r = 0; r < size; r++)
            for (int i = 0; i < cnt[r]; i++)
                EXPECT(b[dsp[r] + i] == val(r, i));
        REC("gatherv", b, total);
    }
    for (int i = 0; i < n * size; i++)
        b[i] = val(i / n, i % n + 1000);
    RUN(MPI_Scatter(b, n, MPI_INT, c, n, MPI_INT, root, w),
        MPI_Iscatter(b, n, MPI_INT, c, n, MPI_INT, root, w, &rq[q]));
    for (int i = 0; i < n; i++)
        EXPECT(c[i] == val(rank, i + 1000));
    REC("scatter", c, n);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < cnt[r]; i++)
            b[dsp[r] + i] = val(r, i + 2000);
    RUN(MPI_Scatterv(b, cnt, dsp, MPI_INT, c, mine, MPI_INT, root, w),
        MPI_Iscatterv(b, cnt, dsp, MPI_INT, c, mine, MPI_INT, root, w, &rq[q]));
    for (int i = 0; i < mine; i++)
        EXPECT(c[i] == val(rank, i + 2000));
    REC("scatterv", c, mine);

    RUN(MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, w),
        MPI_Iallgather(a, n, MPI_INT, b, n, MPI_INT, w, &rq[q]));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            EXPECT(b[r * n + i] == val(r, i));
    REC("allgather", b, nn * ss);
    RUN(MPI_Allgatherv(a, mine, MPI_INT, b, cnt, dsp, MPI_INT, w),
        MPI_Iallgatherv(a, mine, MPI_INT, b, cnt, dsp, MPI_INT, w, &rq[q]));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < cnt[r]; i++)
            EXPECT(b[dsp[r] + i] == val(r, i));
    REC("allgatherv", b, total);

    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            a[r * n + i] = val(rank, r * n + i);
    RUN(MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, w),
        MPI_Ialltoall(a, n, MPI_INT, b, n, MPI_INT, w, &rq[q]));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            EXPECT(b[r * n + i] == val(r, rank * n + i));
    REC("alltoall", b, nn * ss);
    /* alltoallv: to rank r send n - (rank + r) % 2 elements from r * n */
    int *scnt = xmalloc(sizeof(int) * ss), *sdsp = xmalloc(sizeof(int) * ss);
    int *rcnt = xmalloc(sizeof(int) * ss), *rdsp = xmalloc(sizeof(int) * ss);
    for (int r = 0; r < size; r++) {
        scnt[r] = n - (rank + r) % 2;
        sdsp[r] = r * n;
        rcnt[r] = n - (rank + r) % 2;
        rdsp[r] = r * n;
        types[r] = MPI_INT;
        bdsp[r] = r * n * (int)sizeof(int);
    }
    for (int i = 0; i < n * size; i++)
        b[i] = -1;
    RUN(MPI_Alltoallv(a, scnt, sdsp, MPI_INT, b, rcnt, rdsp, MPI_INT, w),
        MPI_Ialltoallv(a, scnt, sdsp, MPI_INT, b, rcnt, rdsp, MPI_INT, w, &rq[q]));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < rcnt[r]; i++)
            EXPECT(b[r * n + i] == val(r, rank * n + i));
    REC("alltoallv", b, nn * ss);
    for (int i = 0; i < n * size; i++)
        b[i] = -1;
    RUN(MPI_Alltoallw(a, scnt, bdsp, types, b, rcnt, bdsp, types, w),
        MPI_Ialltoallw(a, scnt, bdsp, types, b, rcnt, bdsp, types, w, &rq[q]));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < rcnt[r]; i++)
            EXPECT(b[r * n + i] == val(r, rank * n + i));
    REC("alltoallw", b, nn * ss);

    /* reductions: sum of val(r, i) over r (small enough not to overflow) */
    for (int i = 0; i < n * size; i++)
        a[i] = val(rank, i);
    RUN(MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, w),
        MPI_Ireduce(a, b, n, MPI_INT, MPI_SUM, root, w, &rq[q]));
    if (rank == root) {
        for (int i = 0; i < n; i++) {
            int e = 0;
            for (int r = 0; r < size; r++)
                e += val(r, i);
            EXPECT(b[i] == e);
        }
        REC("reduce", b, n);
    }
    RUN(MPI_Allreduce(a, b, n, MPI_INT, MPI_MAX, w),
        MPI_Iallreduce(a, b, n, MPI_INT, MPI_MAX, w, &rq[q]));
    for (int i = 0; i < n; i++)
        EXPECT(b[i] == val(size - 1, i));
    REC("allreduce", b, n);
    for (int r = 0; r < size; r++)
        cnt[r] = n - r % 2;
    RUN(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, w),
        MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, w, &rq[q]));
    for (int i = 0, off = dsp[rank]; i < cnt[rank]; i++) {
        int e = 0;
        for (int r = 0; r < size; r++)
            e += val(r, off + i);
        EXPECT(b[i] == e);
    }
    REC("reduce_scatter", b, cnt[rank]);
    RUN(MPI_Reduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, w),
        MPI_Ireduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, w, &rq[q]));
    for (int i = 0; i < n; i++) {
        int e = 0;
        for (int r = 0; r < size; r++)
            e += val(r, rank * n + i);
        EXPECT(b[i] == e);
    }
    REC("reduce_scatter_block", b, n);
    RUN(MPI_Scan(a, b, n, MPI_INT, MPI_SUM, w), MPI_Iscan(a, b, n, MPI_INT, MPI_SUM, w, &rq[q]));
    for (int i = 0; i < n; i++) {
        int e = 0;
        for (int r = 0; r <= rank; r++)
            e += val(r, i);
        EXPECT(b[i] == e);
    }
    REC("scan", b, n);
    for (int i = 0; i < n; i++)
        b[i] = -7;
    RUN(MPI_Exscan(a, b, n, MPI_INT, MPI_SUM, w),
        MPI_Iexscan(a, b, n, MPI_INT, MPI_SUM, w, &rq[q]));
    if (rank > 0) {
        for (int i = 0; i < n; i++) {
            int e = 0;
            for (int r = 0; r < rank; r++)
                e += val(r, i);
            EXPECT(b[i] == e);
        }
        REC("exscan", b, n);
    }
    RUN(MPI_Barrier(w), MPI_Ibarrier(w, &rq[q]));
    free(scnt);
    free(sdsp);
    free(rcnt);
    free(rdsp);
    free(a);
    free(b);
    free(c);
    free(cnt);
    free(dsp);
    free(types);
    free(bdsp);
#undef RUN
}

static void noncommutative(int root)
{
    MPI_Op op;
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_LONG_LONG, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &op);
    long long m[4] = { rank + 1, 1, rank, 1 }, out[4] = { 0, 0, 0, 0 }, e[4] = { 1, 0, 0, 1 };
    for (int r = 0; r < size; r++) { /* e = M0 * M1 * ... */
        long long x[4] = { r + 1, 1, r, 1 };
        int one = 1;
        matmul(e, x, &one, NULL);
        memcpy(e, x, sizeof e);
    }
    MPI_Reduce(m, out, 1, mat, op, root, MPI_COMM_WORLD);
    if (rank == root) {
        EXPECT(memcmp(out, e, sizeof e) == 0);
        record("noncommutative root=%d %lld %lld %lld %lld", root, out[0], out[1], out[2], out[3]);
    }
    MPI_Request r;
    MPI_Iallreduce(m, out, 1, mat, op, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(memcmp(out, e, sizeof e) == 0);
    long long loc[4] = { 2, 0, 0, 2 };
    MPI_Reduce_local(m, loc, 1, mat, op);
    EXPECT(loc[0] == 2 * (rank + 1) && loc[1] == 2 && loc[2] == 2 * rank && loc[3] == 2);
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
}

static void neighbors(int nonblocking)
{
    MPI_Comm ring;
    int dims[1] = { size }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int left, right, me;
    MPI_Comm_rank(ring, &me);
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    int a[2] = { val(me, 0), val(me, 1) }, b[4] = { -1, -1, -1, -1 };
    int cnt[2] = { 2, 2 }, dsp[2] = { 0, 2 };
    MPI_Aint bd[2] = { 0, 2 * (MPI_Aint)sizeof(int) };
    MPI_Datatype t[2] = { MPI_INT, MPI_INT };
    MPI_Request r;
#define NRUN(call, icall) do { if (nonblocking) { icall; MPI_Wait(&r, MPI_STATUS_IGNORE); } else { call; } } while (0)
    NRUN(MPI_Neighbor_allgather(a, 2, MPI_INT, b, 2, MPI_INT, ring),
         MPI_Ineighbor_allgather(a, 2, MPI_INT, b, 2, MPI_INT, ring, &r));
    EXPECT(b[0] == val(left, 0) && b[3] == val(right, 1));
    record("neighbor_allgather %d %d %d %d", b[0], b[1], b[2], b[3]);
    NRUN(MPI_Neighbor_allgatherv(a, 2, MPI_INT, b, cnt, dsp, MPI_INT, ring),
         MPI_Ineighbor_allgatherv(a, 2, MPI_INT, b, cnt, dsp, MPI_INT, ring, &r));
    EXPECT(b[0] == val(left, 0) && b[3] == val(right, 1));
    /* with 1 or 2 processes the left and right neighbour are one process, and
     * which of its two messages lands where is not defined (MPI 3.1): skip */
    if (size < 3) {
        MPI_Comm_free(&ring);
        return;
    }
    int s[2] = { val(me, 10), val(me, 20) }; /* 10 to the left, 20 to the right */
    cnt[0] = cnt[1] = 1;
    dsp[1] = 1;
    bd[1] = (MPI_Aint)sizeof(int);
    NRUN(MPI_Neighbor_alltoall(s, 1, MPI_INT, b, 1, MPI_INT, ring),
         MPI_Ineighbor_alltoall(s, 1, MPI_INT, b, 1, MPI_INT, ring, &r));
    EXPECT(b[0] == val(left, 20) && b[1] == val(right, 10));
    record("neighbor_alltoall %d %d", b[0], b[1]);
    NRUN(MPI_Neighbor_alltoallv(s, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, ring),
         MPI_Ineighbor_alltoallv(s, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, ring, &r));
    EXPECT(b[0] == val(left, 20) && b[1] == val(right, 10));
    NRUN(MPI_Neighbor_alltoallw(s, cnt, bd, t, b, cnt, bd, t, ring),
         MPI_Ineighbor_alltoallw(s, cnt, bd, t, b, cnt, bd, t, ring, &r));
    EXPECT(b[0] == val(left, 20) && b[1] == val(right, 10));
#undef NRUN
    MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
    int rc = conf_start("coll", &argc, &argv, 1, 64, -1, NULL);
    if (rc)
        return rc;
    for (int nb = 0; nb < 2; nb++) {
        blocking(1, 0, nb);
        blocking(20000, size - 1, nb);
        blocking(3, size / 2, nb);
        neighbors(nb);
    }
    noncommutative(0);
    noncommutative(size - 1);
    return conf_finish();
}
