/*
 * test_coll_auto.c - Open MPI 4.1.4's automatic selection (coll_auto_ompi.c)
 * against cells of coll/tuned's fixed decisions
 * (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, v4.1.4), read there by
 * hand: both sides of thresholds, the non-commutative branch, coll/base's
 * hand-overs (ring with count < n, ...), the phases of composite algorithms,
 * coll/basic's operations, and the nonblocking operations (libnbc) left as
 * they were.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "coll_algo.h"

enum { NC = 1 }; /* non-commutative */

typedef struct want {
    int      op;
    int32_t  n;
    uint64_t bytes;
    uint32_t elem;
    int      noncomm;
    int      alg, sub0, sub1;
} want;

#define A(x) MM_ALG_##x
static const want cells[] = {
    /* allreduce, commutative: n < 4 */
    {MM_COLL_ALLREDUCE, 3, 7, 1, 0, A(RING), 0, 0},
    {MM_COLL_ALLREDUCE, 3, 8, 1, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_ALLREDUCE, 3, 4095, 1, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_ALLREDUCE, 3, 4096, 1, 0, A(RING), 0, 0},
    {MM_COLL_ALLREDUCE, 3, 8192, 1, 0, A(RECURSIVE_DOUBLING), 0, 0},
    /* algorithm 5, segmented ring, segment size 0: the ring */
    {MM_COLL_ALLREDUCE, 3, 262143, 1, 0, A(RING), 0, 0},
    {MM_COLL_ALLREDUCE, 3, 262144, 1, 0, A(RABENSEIFNER), 0, 0},
    /* ring with count 0 < n: recursive doubling */
    {MM_COLL_ALLREDUCE, 3, 7, 8, 0, A(RECURSIVE_DOUBLING), 0, 0},
    /* n < 512: nonoverlapping = tuned reduce + tuned bcast of the vector */
    {MM_COLL_ALLREDUCE, 300, 4095, 8, 0, A(NONOVERLAPPING), A(BINOMIAL), A(KNOMIAL)},
    {MM_COLL_ALLREDUCE, 300, 4096, 8, 0, A(RABENSEIFNER), 0, 0},
    /* Rabenseifner with count < pof2(n): basic linear (linear reduce + bcast) */
    {MM_COLL_ALLREDUCE, 300, 4096, 4096, 0, A(LINEAR), A(LINEAR), A(LINEAR)},
    /* allreduce, non-commutative */
    {MM_COLL_ALLREDUCE, 3, 131071, 8, NC, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_ALLREDUCE, 3, 131072, 8, NC, A(LINEAR), A(LINEAR), A(LINEAR)},
    {MM_COLL_ALLREDUCE, 10, 1048575, 8, NC, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_ALLREDUCE, 10, 1048576, 8, NC, A(NONOVERLAPPING), A(IN_ORDER_BINARY), A(LINEAR)},
    /* bcast; 4096 B on 8 ranks: binary tree, as the installed library does */
    {MM_COLL_BCAST, 8, 4095, 1, 0, A(KNOMIAL), 0, 0},
    {MM_COLL_BCAST, 8, 4096, 1, 0, A(BINARY), 0, 0},
    {MM_COLL_BCAST, 8, 16384, 1, 0, A(BMTREE), 0, 0},
    {MM_COLL_BCAST, 8, 32768, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_BCAST, 7, 63, 1, 0, A(BINARY), 0, 0},
    {MM_COLL_BCAST, 7, 64, 1, 0, A(BMTREE), 0, 0},
    {MM_COLL_BCAST, 7, 1048576, 1, 0, A(CHAIN), 0, 0},
    {MM_COLL_BCAST, 20, 1048576, 8, 0, A(SCATTER_ALLGATHER), 0, 0},
    {MM_COLL_BCAST, 20, 1048576, 1048576, 0, A(LINEAR), 0, 0},  /* count < n */
    {MM_COLL_BCAST, 300, 16383, 1, 0, A(KNOMIAL), 0, 0},
    {MM_COLL_BCAST, 300, 16384, 1, 0, A(SPLIT_BINARY), 0, 0},
    {MM_COLL_BCAST, 300, 16384, 16384, 0, A(PIPELINE), 0, 0},  /* count < 2 */
    /* reduce, commutative */
    {MM_COLL_REDUCE, 3, 7, 1, 0, A(RABENSEIFNER), 0, 0},
    {MM_COLL_REDUCE, 3, 7, 8, 0, A(LINEAR), 0, 0},              /* count < pof2 */
    {MM_COLL_REDUCE, 3, 8, 1, 0, A(BINARY), 0, 0},
    {MM_COLL_REDUCE, 3, 16, 1, 0, A(PIPELINE), 0, 0},
    {MM_COLL_REDUCE, 3, 32, 1, 0, A(LINEAR), 0, 0},
    /* reduce, non-commutative */
    {MM_COLL_REDUCE, 10, 1023, 8, NC, A(IN_ORDER_BINARY), 0, 0},
    {MM_COLL_REDUCE, 10, 1024, 8, NC, A(LINEAR), 0, 0},
    /* alltoall (one pair's block) */
    {MM_COLL_ALLTOALL, 2, 1, 1, 0, A(PAIRWISE), 0, 0},
    {MM_COLL_ALLTOALL, 2, 2, 1, 0, A(PAIRWISE), 0, 0},          /* two_proc */
    {MM_COLL_ALLTOALL, 2, 262143, 1, 0, A(LINEAR_SYNC), 0, 0},
    {MM_COLL_ALLTOALL, 20, 3, 1, 0, A(LINEAR_SYNC), 0, 0},
    {MM_COLL_ALLTOALL, 20, 4, 1, 0, A(MODIFIED_BRUCK), 0, 0},
    {MM_COLL_ALLTOALL, 20, 511, 1, 0, A(MODIFIED_BRUCK), 0, 0},
    {MM_COLL_ALLTOALL, 20, 512, 1, 0, A(LINEAR_SYNC), 0, 0},
    {MM_COLL_ALLTOALL, 20, 8192, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_ALLTOALLV, 3, 8, 1, 0, A(PAIRWISE), 0, 0},
    {MM_COLL_ALLTOALLV, 4, 8, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_ALLTOALLV, 64, 8, 1, 0, A(PAIRWISE), 0, 0},
    {MM_COLL_ALLTOALLV, 128, 8, 1, 0, A(LINEAR), 0, 0},
    /* barrier */
    {MM_COLL_BARRIER, 3, 0, 0, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_BARRIER, 4, 0, 0, 0, A(LINEAR), 0, 0},
    {MM_COLL_BARRIER, 8, 0, 0, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_BARRIER, 63, 0, 0, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_BARRIER, 64, 0, 0, 0, A(DISSEMINATION), 0, 0},
    {MM_COLL_BARRIER, 256, 0, 0, 0, A(TREE), 0, 0},
    /* reduce_scatter: total = n * block; nonoverlapping = tuned reduce of
     * the whole vector + basic scatterv */
    {MM_COLL_REDUCE_SCATTER, 5, 1, 1, 0, A(NONOVERLAPPING), A(BINARY), A(LINEAR)},
    {MM_COLL_REDUCE_SCATTER, 5, 2, 1, 0, A(RECURSIVE_HALVING), 0, 0},
    {MM_COLL_REDUCE_SCATTER, 5, 52428, 1, 0, A(RECURSIVE_HALVING), 0, 0},
    {MM_COLL_REDUCE_SCATTER, 5, 52429, 1, 0, A(RING), 0, 0},
    {MM_COLL_REDUCE_SCATTER, 5, 1000, 8, NC, A(NONOVERLAPPING), A(LINEAR), A(LINEAR)},
    {MM_COLL_REDUCE_SCATTER, 40, 1, 1, 0, A(NONOVERLAPPING), A(BINOMIAL), A(LINEAR)},
    {MM_COLL_REDUCE_SCATTER, 40, 2, 1, 0, A(RECURSIVE_HALVING), 0, 0},
    {MM_COLL_REDUCE_SCATTER, 40, 13107, 1, 0, A(BUTTERFLY), 0, 0},
    {MM_COLL_REDUCE_SCATTER, 40, 13108, 1, 0, A(RING), 0, 0},
    /* reduce_scatter_block: total = one block; basic linear = tuned reduce
     * of n blocks + tuned scatter of one */
    {MM_COLL_REDUCE_SCATTER_BLOCK, 3, 3, 1, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_REDUCE_SCATTER_BLOCK, 3, 4, 1, 0, A(BUTTERFLY), 0, 0},
    {MM_COLL_REDUCE_SCATTER_BLOCK, 3, 8, 1, 0, A(RECURSIVE_HALVING), 0, 0},
    {MM_COLL_REDUCE_SCATTER_BLOCK, 3, 131072, 8, 0, A(NONOVERLAPPING), A(PIPELINE),
     A(LINEAR_NB)},
    {MM_COLL_REDUCE_SCATTER_BLOCK, 3, 16, 8, NC, A(NONOVERLAPPING), A(LINEAR), A(LINEAR)},
    /* allgather (one rank's block); recursive doubling needs a power of
     * two (else bruck), neighbor exchange an even n (else ring) */
    {MM_COLL_ALLGATHER, 2, 1 << 20, 1, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_ALLGATHER, 16, 1 << 20, 1, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_ALLGATHER, 31, 8, 1, 0, A(BRUCK), 0, 0},
    {MM_COLL_ALLGATHER, 40, 1023, 1, 0, A(BRUCK), 0, 0},
    {MM_COLL_ALLGATHER, 40, 1024, 1, 0, A(NEIGHBOR_EXCHANGE), 0, 0},
    {MM_COLL_ALLGATHER, 41, 1024, 1, 0, A(RING), 0, 0},
    {MM_COLL_ALLGATHER, 40, 65536, 1, 0, A(RING), 0, 0},
    /* allgatherv; default = basic gatherv + tuned bcast of one element
     * holding all n blocks */
    {MM_COLL_ALLGATHERV, 2, 2047, 1, 0, A(RING), 0, 0},
    {MM_COLL_ALLGATHERV, 2, 2048, 1, 0, A(RECURSIVE_DOUBLING), 0, 0},
    {MM_COLL_ALLGATHERV, 5, 255, 1, 0, A(GATHER_BCAST), A(LINEAR), A(BINARY)},
    {MM_COLL_ALLGATHERV, 5, 256, 1, 0, A(RING), 0, 0},
    {MM_COLL_ALLGATHERV, 6, 256, 1, 0, A(NEIGHBOR_EXCHANGE), 0, 0},
    /* gather, scatter (one rank's block) */
    {MM_COLL_GATHER, 3, 1, 1, 0, A(LINEAR_SYNC), 0, 0},
    {MM_COLL_GATHER, 3, 2, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_GATHER, 3, 4, 1, 0, A(BINOMIAL), 0, 0},
    {MM_COLL_GATHER, 3, 32768, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_GATHER, 3, 131072, 1, 0, A(LINEAR_SYNC), 0, 0},
    {MM_COLL_GATHER, 100, 1 << 20, 1, 0, A(BINOMIAL), 0, 0},
    {MM_COLL_SCATTER, 3, 1, 1, 0, A(LINEAR_NB), 0, 0},
    {MM_COLL_SCATTER, 3, 2, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_SCATTER, 5, 2047, 1, 0, A(BINOMIAL), 0, 0},
    {MM_COLL_SCATTER, 5, 2048, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_SCATTER, 100, 511, 1, 0, A(BINOMIAL), 0, 0},
    {MM_COLL_SCATTER, 100, 512, 1, 0, A(LINEAR_NB), 0, 0},
    /* coll/basic */
    {MM_COLL_GATHERV, 64, 8, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_SCATTERV, 64, 8, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_SCAN, 64, 8, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_EXSCAN, 64, 8, 1, 0, A(LINEAR), 0, 0},
    /* nonblocking: libnbc 4.1.4's own schedules */
    {MM_COLL_IALLGATHER, 40, 1024, 1, 0, A(LINEAR), 0, 0},
    {MM_COLL_IBARRIER, 4, 0, 0, 0, A(DISSEMINATION), 0, 0},
    {MM_COLL_IBCAST, 8, 64, 0, 0, A(NBC_BINOMIAL), 0, 0},
    {MM_COLL_IBCAST, 4, 64, 0, 0, A(LINEAR), 0, 0},
    {MM_COLL_IREDUCE, 4, 100, 0, 0, A(NBC_REDSCAT), 0, 0},
    {MM_COLL_IALLREDUCE, 300, 4095, 0, 0, A(NBC_BINOMIAL), 0, 0},
};
#undef A

static void test_cells(void)
{
    for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
        const want *w = &cells[i];
        mm_coll_query q = {w->op, w->n, w->bytes, w->elem, w->noncomm, MM_COLL_LIB_OMPI, NULL};
        mm_coll_choice c = mm_coll_select(&q);
        int ok = c.alg == w->alg && c.sub[0] == w->sub0 && c.sub[1] == w->sub1;
        if (!ok)
            fprintf(stderr, "%s n=%d bytes=%llu elem=%u%s: %s (%s, %s), want %s (%s, %s); %s\n",
                    mm_coll_name(w->op), w->n, (unsigned long long)w->bytes, w->elem,
                    w->noncomm ? " non-commutative" : "", mm_coll_alg_name(c.alg),
                    mm_coll_alg_name(c.sub[0]), mm_coll_alg_name(c.sub[1]),
                    mm_coll_alg_name(w->alg), mm_coll_alg_name(w->sub0),
                    mm_coll_alg_name(w->sub1), c.rule);
        CHECK(ok);
        CHECK(c.rule && c.rule[0]);
        if (!mm_coll_nonblocking(w->op))
            CHECK(!c.substitute && (strstr(c.rule, "4.1.4") != NULL));
    }
    /* the rule quotes the cell */
    mm_coll_query q = {MM_COLL_BCAST, 8, 4096, 1, 0, MM_COLL_LIB_OMPI, NULL};
    mm_coll_choice c = mm_coll_select(&q);
    CHECK(strcmp(c.rule, "tuned 4.1.4 bcast: n < 16, total < 16384 B: algorithm 5") == 0);
}

/* Every blocking operation, every size: an algorithm of the operation's
 * family, never a stand-in, phases only for composite algorithms. */
static void test_all(void)
{
    static const int32_t ns[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 31, 64, 100, 255, 256, 511,
                                 1000, 2047, 4095, 4096, 10000};
    for (int op = MM_COLL_NONE + 1; op < MM_COLL_OP_COUNT; op++) {
        if (mm_coll_nonblocking(op) || mm_coll_family(op) < 0)
            continue;
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (int sh = 0; sh < 40; sh++)
                for (int nc = 0; nc < 2; nc++) {
                    mm_coll_query q = {op, ns[i], (uint64_t)1 << sh >> 1, 8, nc,
                                       MM_COLL_LIB_OMPI, NULL};
                    mm_coll_choice c = mm_coll_select(&q);
                    CHECK(c.alg > MM_ALG_AUTO && c.alg < MM_ALG_COUNT && !c.substitute);
                    int composite = c.alg == MM_ALG_NONOVERLAPPING || c.alg == MM_ALG_GATHER_BCAST ||
                                    (op == MM_COLL_ALLREDUCE && c.alg == MM_ALG_LINEAR);
                    CHECK(composite ? c.sub[0] > 0 && c.sub[1] > 0 : !c.sub[0] && !c.sub[1]);
                }
    }
}

int main(void)
{
    test_cells();
    test_all();
    return check_report("test_coll_auto");
}
