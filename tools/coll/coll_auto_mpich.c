/*
 * coll_auto_mpich.c - which algorithm MPICH 4.0.2 (Debian's, ch4:ucx, all
 * CVARs at their defaults) runs for a collective call. Sources (read, not
 * copied): the selection trees MPICH compiles in, maint/tuning/coll/ch4/
 * generic.json (ch4 compositions), maint/tuning/coll/ch4/posix_generic.json
 * (shared-memory algorithms) and maint/tuning/coll/mpir/generic.json (the
 * MPIR algorithms the netmod runs); the compositions in
 * src/mpid/ch4/src/ch4_coll_impl.h; MPIR_Comm_create_subcomms and
 * MPII_Comm_is_node_consecutive in src/mpi/comm/commutil.c. Every rule is
 * listed with its source in docs/collectives.md, "MPICH 4.0.2".
 *
 * Node layout. A communicator is "parent" (comm_hierarchy=parent: it has a
 * node communicator and a node-roots communicator) when some node holds two
 * or more of its ranks. Then the ch4 compositions split most collectives
 * into an intra-node phase (shared memory: release_gather, no
 * point-to-point messages, from the 5th Bcast/Reduce/Barrier/Allreduce on
 * the node communicator on) and an inter-node phase among the node roots.
 * Those compositions, and the sched_smp algorithms mpir/generic.json picks
 * for ibcast and ireduce there, are in coll_mpich_comp.c, whose hook runs
 * first; this file's rules are MPIR's on a communicator that is not
 * parent. With
 * q->node NULL the layout is unknown and one rank per node is assumed
 * (no node communicator: the flat MPIR rules below are then exact).
 */
#include "coll_rules.h"
#include "coll_mpich_comp.h"

/* Elements of the call (MPICH's "count"): 8-byte elements when unknown. */
static uint64_t count_of(const mm_coll_query *q)
{
    return q->bytes / (q->elem ? q->elem : 8);
}

/* mpir/generic.json, allreduce (the netmod's MPIR_Allreduce_impl). A
 * commutative op is taken as built in (is_op_built_in): the trace does not
 * say whether a commutative op is user-defined. */
static mm_coll_choice mpir_allreduce(const mm_coll_query *q, uint64_t short_max)
{
    uint64_t pof2 = (uint64_t)mm_pof2_floor(q->n);
    if (q->bytes <= short_max)
        return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, short_max == 8
                            ? "mpich 4.0.2 mpir/generic.json: avg_msg_size <= 8: recursive doubling"
                            : "mpich 4.0.2 mpir/generic.json: iallreduce avg_msg_size <= 2048: "
                              "recursive doubling");
    if (q->noncommutative)
        return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "mpich 4.0.2 mpir/generic.json: "
                            "is_op_built_in=no (a noncommutative op): recursive doubling");
    if (count_of(q) < pof2)
        return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "mpich 4.0.2 mpir/generic.json: "
                            "count < pof2(n): recursive doubling");
    return mm_coll_pick(MM_ALG_RABENSEIFNER_MPICH, "mpich 4.0.2 mpir/generic.json: built-in op, "
                        "count >= pof2(n): reduce_scatter_allgather (Rabenseifner)");
}

/* mpir/generic.json, reduce (comm_hierarchy=any, or parent with size > 0:
 * the same branches). */
static mm_coll_choice mpir_reduce(const mm_coll_query *q)
{
    if (q->bytes <= 2048) /* a noncommutative op: reduce_intra_binomial.c's lroot = 0 */
        return q->noncommutative
            ? mm_coll_pick(MM_ALG_BINOMIAL_ROOT0, "mpich 4.0.2 mpir/generic.json: avg_msg_size <= 2048: "
                           "binomial (a noncommutative op: rooted at 0, then 0 to the root)")
            : mm_coll_pick(MM_ALG_BINOMIAL, "mpich 4.0.2 mpir/generic.json: avg_msg_size <= 2048: binomial");
    if (q->noncommutative) /* reduce_intra_binomial.c: lroot = 0 */
        return mm_coll_pick(MM_ALG_BINOMIAL_ROOT0, "mpich 4.0.2 mpir/generic.json: is_op_built_in=no "
                            "(a noncommutative op): binomial (rooted at 0, then 0 to the root)");
    if (count_of(q) < (uint64_t)mm_pof2_floor(q->n))
        return mm_coll_pick(MM_ALG_BINOMIAL, "mpich 4.0.2 mpir/generic.json: count < pof2(n): binomial");
    return mm_coll_pick(MM_ALG_RABENSEIFNER_MPICH, "mpich 4.0.2 mpir/generic.json: built-in op, "
                        "count >= pof2(n): reduce_scatter_gather (Rabenseifner)");
}

/* mpir/generic.json, bcast on a communicator that is not parent. The
 * scatter + allgather broadcasts are MPICH's own (coll_mpich.c: pieces cut
 * in bytes). Ibcast's thresholds are strict (< 12288, < 524288) and its
 * MPIR_Ibcast_intra_sched_scatter_* versions (ibcast_utils.c
 * MPII_Iscatter_for_bcast_sched) schedule the same messages for a
 * nonempty vector; an empty one (which they would run with empty
 * messages) is under 12288 B and goes binomial. */
static mm_coll_choice mpir_bcast(const mm_coll_query *q)
{
    int nb = mm_coll_nonblocking(q->op);
    if (q->n < 8)
        return mm_coll_pick(MM_ALG_BINOMIAL, "mpich 4.0.2 mpir/generic.json: comm_size < 8: binomial");
    if (nb ? q->bytes < 12288 : q->bytes <= 12288)
        return mm_coll_pick(MM_ALG_BINOMIAL, nb
            ? "mpich 4.0.2 mpir/generic.json: ibcast, avg_msg_size < 12288: sched_binomial"
            : "mpich 4.0.2 mpir/generic.json: avg_msg_size <= 12288: binomial");
    if (mm_is_pof2(q->n) && (nb ? q->bytes < 524288 : q->bytes <= 524288))
        return mm_coll_pick(MM_ALG_MPICH_SCATTER_RD_ALLGATHER, nb
            ? "mpich 4.0.2 mpir/generic.json: ibcast, comm_size pow2, avg_msg_size < 524288: "
              "sched_scatter_recursive_doubling_allgather"
            : "mpich 4.0.2 mpir/generic.json: comm_size pow2, avg_msg_size <= 524288: "
              "scatter_recursive_doubling_allgather");
    return mm_coll_pick(MM_ALG_MPICH_SCATTER_RING_ALLGATHER, nb
        ? "mpich 4.0.2 mpir/generic.json: ibcast: sched_scatter_ring_allgather"
        : "mpich 4.0.2 mpir/generic.json: scatter_ring_allgather");
}

mm_coll_choice mm_coll_auto_mpich(const mm_coll_query *q)
{
    /* ch4's node-aware compositions and MPIR's sched_smp algorithms on
     * parent communicators (coll_mpich_comp.c); the flat choice is MPIR's
     * on the communicator */
    if (q->node) {
        mm_coll_query flatq = *q;
        flatq.node = NULL;
        mm_coll_choice c;
        if (mm_coll_mpich_comp_select(q, mm_coll_auto_mpich(&flatq), &c))
            return c;
    }
    int op = q->op;
    int32_t n = q->n;
    uint64_t bytes = q->bytes;
    int nb = mm_coll_nonblocking(op);
    switch (mm_coll_family(op)) {
    case MM_COLL_ALLREDUCE:
        /* parent communicators (one node included): coll_mpich_comp.c */
        return mpir_allreduce(q, nb ? 2048 : 8);
    case MM_COLL_REDUCE: /* parent: coll_mpich_comp.c */
        return mpir_reduce(q);
    case MM_COLL_BCAST: /* parent: coll_mpich_comp.c */
        return mpir_bcast(q);
    case MM_COLL_ALLGATHER: {
        uint64_t total = mm_coll_times_n(bytes, n);
        if (mm_is_pof2(n) && total < 524288)
            return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "mpich 4.0.2 mpir/generic.json: comm_size pow2, "
                                "total_msg_size < 524288: recursive doubling");
        if (total < 81920)
            return mm_coll_pick(MM_ALG_BRUCK, "mpich 4.0.2 mpir/generic.json: total_msg_size < 81920: brucks");
        return mm_coll_pick(MM_ALG_RING, "mpich 4.0.2 mpir/generic.json: ring");
    }
    case MM_COLL_GATHER:
        /* Gatherv's counts are known at the root only, so no tree:
         * MPIR_Gatherv_allcomm_linear posts all n-1 receives, then waits. */
        if (op == MM_COLL_GATHERV)
            return mm_coll_pick(MM_ALG_DIRECT, "mpich 4.0.2 mpir/generic.json: gatherv: allcomm_linear");
        return mm_coll_pick(MM_ALG_BINOMIAL, "mpich 4.0.2 mpir/generic.json: binomial");
    case MM_COLL_BARRIER: /* blocking on a parent communicator: coll_mpich_comp.c */
        return mm_coll_pick(MM_ALG_DISSEMINATION, nb
            ? "mpich 4.0.2 mpir/generic.json: ibarrier: sched_recursive_doubling (to rank+2^k, "
              "from rank-2^k: dissemination)"
            : "mpich 4.0.2 mpir/generic.json: dissemination");
    case MM_COLL_ALLTOALL:
        /* brucks: the messages of Open MPI's modified Bruck (coll_mpich.c
         * header); ialltoall's sched_brucks, sched_permuted_sendrecv and
         * sched_pairwise post the same messages in the same rounds as
         * brucks, scattered and pairwise */
        if (n >= 8 && bytes <= (nb ? 2048u : 256u))
            return mm_coll_pick(MM_ALG_MODIFIED_BRUCK, "mpich 4.0.2 mpir/generic.json: comm_size >= 8, "
                                "avg_msg_size <= 256 (ialltoall: 2048): brucks");
        if (bytes <= 32768)
            return mm_coll_pick(MM_ALG_SCATTERED, nb
                ? "mpich 4.0.2 mpir/generic.json: avg_msg_size <= 32768: ialltoall "
                  "permuted_sendrecv (scattered's batches of 32)"
                : "mpich 4.0.2 mpir/generic.json: avg_msg_size <= 32768: scattered");
        return mm_coll_pick(MM_ALG_MPICH_PAIRWISE, "mpich 4.0.2 mpir/generic.json: pairwise");
    case MM_COLL_SCATTER:
        if (op == MM_COLL_SCATTERV || op == MM_COLL_ISCATTERV)
            return mm_coll_pick(MM_ALG_LINEAR, "mpich 4.0.2 mpir/generic.json: scatterv: allcomm_linear");
        return mm_coll_pick(MM_ALG_BINOMIAL, "mpich 4.0.2 mpir/generic.json: binomial");
    case MM_COLL_REDUCE_SCATTER:
        if (q->noncommutative && mm_is_pof2(n)) /* ireduce_scatter: the same exchanges */
            return mm_coll_pick(MM_ALG_NONCOMMUTATIVE, "mpich 4.0.2 mpir/generic.json: "
                                "noncommutative, comm_size pow2 (blocks regular): noncommutative "
                                "(recursive halving in bit-reversed order)");
        /* MPIR_Reduce_scatter(_block)_intra_recursive_doubling and the
         * sched_ ones: the messages of Open MPI's recursive-doubling
         * reduce_scatter_block (coll_rsag.c), forwards included; MPICH
         * keeps the operands in rank order */
        if (q->noncommutative)
            return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, nb
                ? "mpich 4.0.2 mpir/generic.json: noncommutative, comm_size not pow2: "
                  "sched_recursive_doubling"
                : "mpich 4.0.2 mpir/generic.json: noncommutative, comm_size not pow2: "
                  "recursive_doubling");
        if (mm_coll_times_n(bytes, n) < 524288)
            return mm_coll_pick(MM_ALG_RECURSIVE_HALVING, "mpich 4.0.2 mpir/generic.json: commutative, "
                                "total_msg_size < 524288: recursive halving");
        return mm_coll_pick(MM_ALG_PAIRWISE, "mpich 4.0.2 mpir/generic.json: commutative: pairwise");
    case MM_COLL_SCAN: /* parent and node-consecutive: coll_mpich_comp.c */
        return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, nb
            ? "mpich 4.0.2 mpir/generic.json: iscan: sched_recursive_doubling"
            : "mpich 4.0.2 mpir/generic.json: not node-consecutive: recursive doubling");
    case MM_COLL_EXSCAN:
        return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "mpich 4.0.2 mpir/generic.json: recursive doubling");
    default:
        return mm_coll_pick(MM_ALG_AUTO, "no expansion for this operation");
    }
}
