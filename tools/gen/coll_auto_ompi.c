/*
 * coll_auto_ompi.c - which algorithm Open MPI would run for a collective
 * call: coll/tuned's fixed decision functions, coll/basic where tuned has
 * none, libnbc for the nonblocking operations. Thresholds cited per rule and
 * listed with their sources in docs/collectives.md; none of their code is
 * copied.
 */
#include "coll_auto_internal.h"

/* Open MPI 4.0's reduce_scatter_block (coll/tuned always calls
 * ompi_coll_base_reduce_scatter_block_basic_linear): a reduce of the n
 * blocks to rank 0 and a scatter from it, each chosen by its own tuned
 * decision. coll_algo's nonoverlapping schedule is a binomial reduce and a
 * linear scatter: exact when tuned picks those (n < 8 and 512 <= n*block <
 * 20480 B; the scatter rule needs n > 10 for binomial). */
static mm_coll_choice ompi_reduce_scatter_block(int32_t n, uint64_t bytes)
{
    uint64_t total = mm_coll_times_n(bytes, n);
    if (n < 8 && total < 512)
        return mm_coll_subst(MM_ALG_NONOVERLAPPING, "tuned: reduce_scatter_block: basic linear, reduce "
                     "to rank 0 (n < 8, < 512 B: linear) + scatter (as nonoverlapping)");
    if (n < 8 && total < 20480)
        return mm_coll_pick(MM_ALG_NONOVERLAPPING, "tuned: reduce_scatter_block: basic linear, reduce "
                    "to rank 0 (n < 8, < 20480 B: binomial) + scatter (linear)");
    return mm_coll_subst(MM_ALG_NONOVERLAPPING, "tuned: reduce_scatter_block: basic linear, reduce to "
                 "rank 0 (binary tree / pipeline) + scatter (as nonoverlapping)");
}

/* Open MPI 4.0 tuned reduce_scatter for a commutative operation:
 * recursive halving if n*block <= 12 KiB, or <= 256 KiB with n a power of
 * two, or n >= 0.0012 * n*block + 8; else ring. */
static mm_coll_choice ompi_reduce_scatter(int32_t n, uint64_t bytes)
{
    uint64_t total = mm_coll_times_n(bytes, n);
    if (total <= 12 * 1024 || (total <= 256 * 1024 && mm_is_pof2(n)) ||
        (double)n >= 0.0012 * (double)total + 8.0)
        return mm_coll_pick(MM_ALG_RECURSIVE_HALVING, "tuned: n*block <= 12 KiB, or <= 256 KiB and n "
                    "a power of 2, or n >= 0.0012*n*block + 8: recursive halving");
    return mm_coll_pick(MM_ALG_RING, "tuned: larger: ring");
}

/* Open MPI coll/tuned ompi_coll_tuned_*_intra_dec_fixed (releases 2.x-4.0),
 * coll/basic where tuned 4.0 has no decision (scatterv, scan, exscan), and
 * libnbc for the nonblocking operations. Bytes per element are taken as 8
 * where a rule needs an element count. */
mm_coll_choice mm_coll_auto_ompi(const mm_coll_query *q)
{
    int op = q->op;
    int32_t n = q->n;
    uint64_t bytes = q->bytes;
    int fam = mm_coll_family(op);
    mm_coll_choice nbc;
    if (mm_coll_nonblocking(op) && mm_coll_auto_libnbc(q, &nbc))
        return nbc;
    switch (fam) {
    case MM_COLL_ALLREDUCE:
        if (bytes < 10000)
            return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "tuned: block < 10000 B: recursive doubling");
        if (bytes / 8 > (uint64_t)n)
            return (uint64_t)n * (1u << 20) >= bytes
                ? mm_coll_pick(MM_ALG_RING, "tuned: count > n: ring")
                : mm_coll_subst(MM_ALG_RING, "tuned: count > n, block > n MiB: segmented ring (as ring)");
        return mm_coll_subst(MM_ALG_RECURSIVE_DOUBLING,
                     "tuned: count <= n: nonoverlapping reduce+bcast (as recursive doubling)");
    case MM_COLL_ALLGATHER: {
        uint64_t total = bytes * (uint64_t)n;
        if (n == 2)
            return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "tuned: n = 2: two_procs (one exchange)");
        if (total < 50000)
            return mm_is_pof2(n)
                   ? mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "tuned: total < 50000 B, n power of 2: recursive doubling")
                   : mm_coll_pick(MM_ALG_BRUCK, "tuned: total < 50000 B: bruck");
        return n % 2 ? mm_coll_pick(MM_ALG_RING, "tuned: total >= 50000 B, n odd: ring")
                     : mm_coll_pick(MM_ALG_NEIGHBOR_EXCHANGE, "tuned: total >= 50000 B, n even: neighbor exchange");
    }
    case MM_COLL_BCAST:
        if (bytes < 2048)
            return mm_coll_pick(MM_ALG_BINOMIAL, "tuned: message < 2048 B: binomial");
        return mm_coll_subst(MM_ALG_BINOMIAL, "tuned: message >= 2048 B: segmented split-binary/pipeline (as binomial)");
    case MM_COLL_REDUCE:
        if (n < 8 && bytes < 512)
            return mm_coll_pick(MM_ALG_LINEAR, "tuned: n < 8, message < 512 B: linear");
        if ((n < 8 && bytes < 20480) || bytes < 2048)
            return mm_coll_pick(MM_ALG_BINOMIAL, "tuned: n < 8 and message < 20480 B, or message < 2048 B: "
                        "binomial, unsegmented");
        return mm_coll_subst(MM_ALG_BINOMIAL, "tuned: message >= 2048 B: segmented binomial / pipeline / "
                     "binary tree (as binomial)");
    case MM_COLL_GATHER:
        /* tuned has no gatherv (its module leaves it to coll/basic), and
         * basic gatherv in 2.x-4.x receives from rank 0, 1, ... in turn with
         * blocking receives (5.x posts them all at once). */
        if (op == MM_COLL_GATHERV)
            return mm_coll_pick(MM_ALG_LINEAR, "basic gatherv: root receives from each rank in turn");
        if (bytes > 6000)
            return mm_coll_subst(MM_ALG_LINEAR, "tuned: block > 6000 B: linear_sync (as linear)");
        if (n > 60 || (n > 10 && bytes < 1024))
            return mm_coll_pick(MM_ALG_BINOMIAL, "tuned: n > 60, or n > 10 and block < 1024 B: binomial");
        return mm_coll_pick(MM_ALG_LINEAR, "tuned: small n: basic linear");
    case MM_COLL_BARRIER:
        if (n == 2 || mm_is_pof2(n))
            return mm_coll_pick(MM_ALG_RECURSIVE_DOUBLING, "tuned: n power of 2: recursive doubling");
        return mm_coll_pick(MM_ALG_DISSEMINATION, "tuned: n not a power of 2: bruck (dissemination)");
    case MM_COLL_ALLTOALL:
        if (n == 2)
            return mm_coll_pick(MM_ALG_PAIRWISE, "tuned: n = 2: two_procs (one exchange)");
        if (bytes < 200 && n > 12)
            return mm_coll_subst(MM_ALG_LINEAR, "tuned: block < 200 B, n > 12: bruck (as linear)");
        if (bytes < 3000)
            return mm_coll_pick(MM_ALG_LINEAR, "tuned: block < 3000 B: basic linear");
        return mm_coll_pick(MM_ALG_PAIRWISE, "tuned: block >= 3000 B: pairwise");
    case MM_COLL_SCATTER:
        if (op == MM_COLL_SCATTERV)
            return mm_coll_pick(MM_ALG_LINEAR, "basic scatterv: linear (tuned has no scatterv rule)");
        if (n > 10 && bytes < 300)
            return mm_coll_pick(MM_ALG_BINOMIAL, "tuned: n > 10 and block < 300 B: binomial");
        return mm_coll_pick(MM_ALG_LINEAR, "tuned: basic linear");
    case MM_COLL_REDUCE_SCATTER:
        return op == MM_COLL_REDUCE_SCATTER_BLOCK ? ompi_reduce_scatter_block(n, bytes)
                                                  : ompi_reduce_scatter(n, bytes);
    case MM_COLL_SCAN:
        return mm_coll_pick(MM_ALG_LINEAR, "basic scan: linear chain (tuned has no scan rule)");
    case MM_COLL_EXSCAN:
        return mm_coll_pick(MM_ALG_LINEAR, "basic exscan: linear chain (tuned has no exscan rule)");
    default:
        return mm_coll_pick(MM_ALG_AUTO, "no expansion for this operation");
    }
}

