/*
 * coll_auto_nbc.c - which schedule Open MPI 4.1.4's libnbc builds for a
 * nonblocking collective (ompi/mca/coll/libnbc/nbc_i*.c, with the MCA
 * defaults of coll_libnbc_component.c: every libnbc_*_algorithm 0,
 * ibcast_skip_dt_decision true). Sources in docs/collectives.md; none of
 * its code is copied. The schedules that are not coll_algo.c's own are in
 * coll_nbc.c (MM_ALG_NBC_*).
 */
#include "coll_rules.h"

/* libnbc's element count: bytes / datatype size (8 when unknown). */
static uint64_t nbc_count(const mm_coll_query *q)
{
    return q->bytes / (q->elem ? q->elem : 8);
}

/* nbc_ireduce.c nbc_reduce_init, libnbc_ireduce_algorithm 0. */
static mm_coll_choice nbc_ireduce(const mm_coll_query *q)
{
    int32_t n = q->n, pof2 = mm_pof2_floor(n);
    uint64_t count = nbc_count(q);
    if (!q->noncommutative && n > 2 && count >= (uint64_t)pof2)
        return mm_coll_pick(MM_ALG_NBC_REDSCAT, "libnbc 4.1 nbc_ireduce.c: commutative op, p > 2, "
                    "count >= pof2: redscat_gather (reduce-scatter by halving, binomial gather)");
    if (q->noncommutative)
        return mm_coll_pick(MM_ALG_NBC_BINOMIAL_ROOT0, "libnbc 4.1 nbc_ireduce.c: non-commutative op: "
                    "binomial to rank 0, then rank 0 sends to the root");
    if (n > 4 || q->bytes < 65536)
        return mm_coll_pick(MM_ALG_NBC_BINOMIAL, "libnbc 4.1 nbc_ireduce.c: p > 4 or size*count < "
                    "65536: binomial (root swapped with rank 0)");
    if (count > INT32_MAX) /* an MPI count is an int: no real call is this long */
        return mm_coll_subst(MM_ALG_NBC_BINOMIAL, "libnbc 4.1 nbc_ireduce.c: p <= 4, size*count >= "
                     "65536: chain of 8192-B fragments, count beyond an int (as nbc_binomial)");
    return mm_coll_pick(MM_ALG_NBC_CHAIN, "libnbc 4.1 nbc_ireduce.c: p <= 4, size*count >= 65536 "
                "(and p <= 2 or count < pof2): chain of 8192-B fragments");
}

/* nbc_iallreduce.c nbc_allreduce_init, libnbc_iallreduce_algorithm 0
 * (MPI_IN_PLACE, unknown here, also takes the binomial schedule). */
static mm_coll_choice nbc_iallreduce(const mm_coll_query *q)
{
    if (q->n < 4 || q->bytes < 65536 || q->noncommutative)
        return mm_coll_pick(MM_ALG_NBC_BINOMIAL, "libnbc 4.1 nbc_iallreduce.c: p < 4, size*count < "
                    "65536 or non-commutative op: binomial reduce to rank 0 + binomial bcast");
    if (nbc_count(q) >= (uint64_t)mm_pof2_floor(q->n))
        return mm_coll_pick(MM_ALG_NBC_REDSCAT, "libnbc 4.1 nbc_iallreduce.c: count >= pof2: "
                    "redscat_allgather (reduce-scatter by halving, allgather by doubling)");
    return mm_coll_pick(MM_ALG_NBC_RING, "libnbc 4.1 nbc_iallreduce.c: count < pof2: ring");
}

/* Open MPI 4.1.4's nonblocking collectives (coll/libnbc). */
int mm_coll_auto_libnbc(const mm_coll_query *q, mm_coll_choice *c)
{
    switch (mm_coll_family(q->op)) {
    case MM_COLL_BCAST:
        *c = q->n <= 4
             ? mm_coll_pick(MM_ALG_LINEAR, "libnbc 4.1 nbc_ibcast.c: p <= 4: linear, the root "
                    "sends to all in one round")
             : mm_coll_pick(MM_ALG_NBC_BINOMIAL, "libnbc 4.1 nbc_ibcast.c: p > 4 "
                    "(ibcast_skip_dt_decision true): binomial (root swapped with rank 0)");
        return 1;
    case MM_COLL_REDUCE:
        *c = nbc_ireduce(q);
        return 1;
    case MM_COLL_ALLREDUCE:
        *c = nbc_iallreduce(q);
        return 1;
    case MM_COLL_ALLGATHER:
        *c = mm_coll_pick(MM_ALG_LINEAR, "libnbc 4.1 nbc_iallgather.c: linear, one round, n-1 "
                  "receives and sends");
        return 1;
    case MM_COLL_ALLTOALL:
        *c = mm_coll_pick(MM_ALG_NBC_LINEAR, "libnbc 4.1 nbc_ialltoall.c: linear, one round, peers "
                  "0..n-1 (every size: pairwise and dissemination are commented out)");
        return 1;
    case MM_COLL_GATHER:
        *c = mm_coll_pick(MM_ALG_DIRECT, "libnbc 4.1 nbc_igather.c: root posts all receives in one round");
        return 1;
    case MM_COLL_BARRIER:
        *c = mm_coll_pick(MM_ALG_DISSEMINATION, "libnbc 4.1 nbc_ibarrier.c: dissemination, "
                  "round r: send to rank+2^r, receive from rank-2^r");
        return 1;
    case MM_COLL_SCATTER:
        *c = mm_coll_pick(MM_ALG_LINEAR, "libnbc 4.1 nbc_iscatter(v).c: the root sends every "
                  "block in one round");
        return 1;
    case MM_COLL_REDUCE_SCATTER:
        *c = mm_coll_pick(MM_ALG_NONOVERLAPPING, "libnbc 4.1 nbc_ireduce_scatter(_block).c: binomial "
                  "reduce to rank 0, then rank 0 sends every block in one round");
        return 1;
    case MM_COLL_SCAN:
    case MM_COLL_EXSCAN:
        *c = mm_coll_pick(MM_ALG_LINEAR, "libnbc 4.1 nbc_iscan.c/nbc_iexscan.c: linear chain, r "
                  "receives from r-1 and sends to r+1");
        return 1;
    default:
        return 0;
    }
}
