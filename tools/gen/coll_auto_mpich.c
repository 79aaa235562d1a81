/*
 * coll_auto_mpich.c - which algorithm MPICH would run for a collective
 * call. Thresholds cited per rule and listed with their sources in
 * docs/collectives.md; none of MPICH's code is copied.
 */
#include "coll_auto_internal.h"

/* MPICH 3.x defaults (MPIR_CVAR_*), the rules of Thakur, Rabenseifner and
 * Gropp 2005; nonblocking schedules choose like the blocking ones (the
 * MPIR_I*_sched_intra_auto functions of MPICH 3.3 do for scatter(v),
 * reduce_scatter(_block), scan and exscan). */
mm_coll_choice mm_coll_auto_mpich(const mm_coll_query *q)
{
    int op = q->op;
    int32_t n = q->n;
    uint64_t bytes = q->bytes;
    uint64_t pof2 = (uint64_t)mm_pof2_floor(n);
    switch (mm_coll_family(op)) {
    case MM_COLL_ALLREDUCE:
        if (bytes <= 2048 || bytes / 8 < pof2)
            return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "mpich: <= ALLREDUCE_SHORT_MSG_SIZE (2048 B): recursive doubling");
        return mm_coll_subst(MM_ALG_RING, "mpich: long: Rabenseifner reduce-scatter+allgather (as ring)");
    case MM_COLL_ALLGATHER: {
        uint64_t total = bytes * (uint64_t)n;
        if (mm_is_pof2(n) && total < 524288)
            return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "mpich: n power of 2, total < ALLGATHER_LONG_MSG_SIZE (524288 B): recursive doubling");
        if (total < 81920)
            return mm_coll_pick(MM_ALG_BRUCK, "mpich: total < ALLGATHER_SHORT_MSG_SIZE (81920 B): bruck");
        return mm_coll_pick(MM_ALG_RING, "mpich: long: ring");
    }
    case MM_COLL_BCAST:
        if (bytes < 12288 || n < 8)
            return mm_coll_pick(MM_ALG_BINOMIAL, "mpich: < BCAST_SHORT_MSG_SIZE (12288 B) or n < BCAST_MIN_PROCS (8): binomial");
        return mm_coll_subst(MM_ALG_BINOMIAL, "mpich: scatter + allgather (as binomial)");
    case MM_COLL_REDUCE:
        if (bytes <= 2048 || bytes / 8 < pof2)
            return mm_coll_pick(MM_ALG_BINOMIAL, "mpich: <= REDUCE_SHORT_MSG_SIZE (2048 B): binomial");
        return mm_coll_subst(MM_ALG_BINOMIAL, "mpich: long: Rabenseifner reduce-scatter+gather (as binomial)");
    case MM_COLL_GATHER:
        /* Gatherv's counts are known at the root only, so no tree:
         * MPIR_Gatherv_allcomm_linear posts all n-1 receives, then waits. */
        if (op == MM_COLL_GATHERV)
            return mm_coll_pick(MM_ALG_DIRECT, "mpich: gatherv: linear (root posts all receives)");
        return mm_coll_pick(MM_ALG_BINOMIAL, "mpich: binomial");
    case MM_COLL_BARRIER:
        return mm_coll_pick(MM_ALG_DISSEMINATION, "mpich: dissemination");
    case MM_COLL_ALLTOALL:
        if (bytes <= 256 && n >= 8)
            return mm_coll_subst(MM_ALG_LINEAR, "mpich: <= ALLTOALL_SHORT_MSG_SIZE (256 B), n >= 8: bruck (as linear)");
        if (bytes <= 32768)
            return mm_coll_pick(MM_ALG_LINEAR, "mpich: <= ALLTOALL_MEDIUM_MSG_SIZE (32768 B): isend/irecv");
        return mm_coll_pick(MM_ALG_PAIRWISE, "mpich: long: pairwise");
    case MM_COLL_SCATTER:
        if (op == MM_COLL_SCATTERV || op == MM_COLL_ISCATTERV)
            return mm_coll_pick(MM_ALG_LINEAR, "mpich: scatterv: linear");
        return mm_coll_pick(MM_ALG_BINOMIAL, "mpich: binomial");
    case MM_COLL_REDUCE_SCATTER:
        if (mm_coll_times_n(bytes, n) < 524288)
            return mm_coll_pick(MM_ALG_RECURSIVE_HALVING, "mpich: commutative, n*block < "
                        "REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE (524288 B): recursive halving");
        return mm_coll_pick(MM_ALG_PAIRWISE, "mpich: commutative, long: pairwise");
    case MM_COLL_SCAN:
        /* MPICH 3.x runs its SMP scan (a scan inside each node, one among
         * the nodes' first ranks, a bcast inside each node, partly on the
         * node sub-communicators' context ids) whenever the communicator
         * is node-aware, i.e. some node holds two or more of its ranks, and
         * the nodes hold consecutive ranks. Which ranks share a node is not
         * known here. */
        if (n < 2)
            return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "mpich: one rank: recursive doubling");
        return mm_coll_subst(MM_ALG_RECURSIVE_DOUBLING, "mpich: recursive doubling with one rank per "
                     "node; ranks sharing nodes: SMP scan (as recursive doubling)");
    case MM_COLL_EXSCAN:
        return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "mpich: recursive doubling");
    default:
        return mm_coll_pick(MM_ALG_AUTO, "no expansion for this operation");
    }
}

