/*
 * coll_auto.c - which algorithm Open MPI or MPICH would run for a
 * collective call (mm_coll_auto, coll_algo.h). The rules and thresholds are
 * the libraries' published decision functions and defaults, cited per rule
 * and listed with their sources in docs/collectives.md, "Automatic
 * selection"; none of their code is copied.
 */
#include "coll_algo.h"
#include "coll_pof2.h"

/* n * bytes without wrapping (the whole vector of a reduce_scatter). */
static uint64_t times_n(uint64_t bytes, int32_t n)
{
    uint64_t nn = n > 0 ? (uint64_t)n : 0;
    return nn && bytes > UINT64_MAX / nn ? UINT64_MAX : bytes * nn;
}

static mm_coll_choice pick(int alg, const char *rule)
{
    mm_coll_choice c = {alg, rule, 0};
    return c;
}

/* The library's choice is not implemented here: alg stands in for it. */
static mm_coll_choice subst(int alg, const char *rule)
{
    mm_coll_choice c = {alg, rule, 1};
    return c;
}

/* Open MPI 4.0's reduce_scatter_block (coll/tuned always calls
 * ompi_coll_base_reduce_scatter_block_basic_linear): a reduce of the n
 * blocks to rank 0 and a scatter from it, each chosen by its own tuned
 * decision. coll_algo's nonoverlapping schedule is a binomial reduce and a
 * linear scatter: exact when tuned picks those (n < 8 and 512 <= n*block <
 * 20480 B; the scatter rule needs n > 10 for binomial). */
static mm_coll_choice ompi_reduce_scatter_block(int32_t n, uint64_t bytes)
{
    uint64_t total = times_n(bytes, n);
    if (n < 8 && total < 512)
        return subst(MM_ALG_NONOVERLAPPING, "tuned: reduce_scatter_block: basic linear, reduce "
                     "to rank 0 (n < 8, < 512 B: linear) + scatter (as nonoverlapping)");
    if (n < 8 && total < 20480)
        return pick(MM_ALG_NONOVERLAPPING, "tuned: reduce_scatter_block: basic linear, reduce "
                    "to rank 0 (n < 8, < 20480 B: binomial) + scatter (linear)");
    return subst(MM_ALG_NONOVERLAPPING, "tuned: reduce_scatter_block: basic linear, reduce to "
                 "rank 0 (binary tree / pipeline) + scatter (as nonoverlapping)");
}

/* Open MPI 4.0 tuned reduce_scatter for a commutative operation:
 * recursive halving if n*block <= 12 KiB, or <= 256 KiB with n a power of
 * two, or n >= 0.0012 * n*block + 8; else ring. */
static mm_coll_choice ompi_reduce_scatter(int32_t n, uint64_t bytes)
{
    uint64_t total = times_n(bytes, n);
    if (total <= 12 * 1024 || (total <= 256 * 1024 && mm_is_pof2(n)) ||
        (double)n >= 0.0012 * (double)total + 8.0)
        return pick(MM_ALG_RECURSIVE_HALVING, "tuned: n*block <= 12 KiB, or <= 256 KiB and n "
                    "a power of 2, or n >= 0.0012*n*block + 8: recursive halving");
    return pick(MM_ALG_RING, "tuned: larger: ring");
}

/* Open MPI's nonblocking collectives (libnbc, releases 2.x-4.0). */
static int ompi_nonblocking(int fam, mm_coll_choice *c)
{
    switch (fam) {
    case MM_COLL_ALLGATHER:
        *c = pick(MM_ALG_LINEAR, "libnbc iallgather: one round, n-1 receives");
        return 1;
    case MM_COLL_GATHER:
        *c = pick(MM_ALG_DIRECT, "libnbc igather: root posts all receives in one round");
        return 1;
    case MM_COLL_BARRIER:
        *c = pick(MM_ALG_DISSEMINATION, "libnbc ibarrier: dissemination");
        return 1;
    case MM_COLL_SCATTER:
        *c = pick(MM_ALG_LINEAR, "libnbc iscatter(v): the root sends every block in one round");
        return 1;
    case MM_COLL_REDUCE_SCATTER:
        *c = pick(MM_ALG_NONOVERLAPPING, "libnbc ireduce_scatter(_block): binomial reduce to "
                  "rank 0, then rank 0 sends every block in one round");
        return 1;
    case MM_COLL_SCAN:
    case MM_COLL_EXSCAN:
        *c = pick(MM_ALG_LINEAR, "libnbc iscan/iexscan: linear chain, r receives from r-1 "
                  "and sends to r+1");
        return 1;
    default:
        return 0;
    }
}

/* Open MPI coll/tuned ompi_coll_tuned_*_intra_dec_fixed (releases 2.x-4.0),
 * coll/basic where tuned 4.0 has no decision (scatterv, scan, exscan), and
 * libnbc for the nonblocking operations. Bytes per element are taken as 8
 * where a rule needs an element count. */
static mm_coll_choice auto_ompi(int op, int32_t n, uint64_t bytes)
{
    int fam = mm_coll_family(op);
    mm_coll_choice nbc;
    if (mm_coll_nonblocking(op) && ompi_nonblocking(fam, &nbc))
        return nbc;
    switch (fam) {
    case MM_COLL_ALLREDUCE:
        if (bytes < 10000)
            return pick(MM_ALG_RECURSIVE_DOUBLING, "tuned: block < 10000 B: recursive doubling");
        if (bytes / 8 > (uint64_t)n)
            return (uint64_t)n * (1u << 20) >= bytes
                ? pick(MM_ALG_RING, "tuned: count > n: ring")
                : subst(MM_ALG_RING, "tuned: count > n, block > n MiB: segmented ring (as ring)");
        return subst(MM_ALG_RECURSIVE_DOUBLING,
                     "tuned: count <= n: nonoverlapping reduce+bcast (as recursive doubling)");
    case MM_COLL_ALLGATHER: {
        uint64_t total = bytes * (uint64_t)n;
        if (n == 2)
            return pick(MM_ALG_RECURSIVE_DOUBLING, "tuned: n = 2: two_procs (one exchange)");
        if (total < 50000)
            return mm_is_pof2(n)
                   ? pick(MM_ALG_RECURSIVE_DOUBLING, "tuned: total < 50000 B, n power of 2: recursive doubling")
                   : pick(MM_ALG_BRUCK, "tuned: total < 50000 B: bruck");
        return n % 2 ? pick(MM_ALG_RING, "tuned: total >= 50000 B, n odd: ring")
                     : pick(MM_ALG_NEIGHBOR_EXCHANGE, "tuned: total >= 50000 B, n even: neighbor exchange");
    }
    case MM_COLL_BCAST:
        if (bytes < 2048)
            return pick(MM_ALG_BINOMIAL, "tuned: message < 2048 B: binomial");
        return subst(MM_ALG_BINOMIAL, "tuned: message >= 2048 B: segmented split-binary/pipeline (as binomial)");
    case MM_COLL_REDUCE:
        if (n < 8 && bytes < 512)
            return pick(MM_ALG_LINEAR, "tuned: n < 8, message < 512 B: linear");
        if ((n < 8 && bytes < 20480) || bytes < 2048)
            return pick(MM_ALG_BINOMIAL, "tuned: n < 8 and message < 20480 B, or message < 2048 B: "
                        "binomial, unsegmented");
        return subst(MM_ALG_BINOMIAL, "tuned: message >= 2048 B: segmented binomial / pipeline / "
                     "binary tree (as binomial)");
    case MM_COLL_GATHER:
        /* tuned has no gatherv (its module leaves it to coll/basic), and
         * basic gatherv in 2.x-4.x receives from rank 0, 1, ... in turn with
         * blocking receives (5.x posts them all at once). */
        if (op == MM_COLL_GATHERV)
            return pick(MM_ALG_LINEAR, "basic gatherv: root receives from each rank in turn");
        if (bytes > 6000)
            return subst(MM_ALG_LINEAR, "tuned: block > 6000 B: linear_sync (as linear)");
        if (n > 60 || (n > 10 && bytes < 1024))
            return pick(MM_ALG_BINOMIAL, "tuned: n > 60, or n > 10 and block < 1024 B: binomial");
        return pick(MM_ALG_LINEAR, "tuned: small n: basic linear");
    case MM_COLL_BARRIER:
        if (n == 2 || mm_is_pof2(n))
            return pick(MM_ALG_RECURSIVE_DOUBLING, "tuned: n power of 2: recursive doubling");
        return pick(MM_ALG_DISSEMINATION, "tuned: n not a power of 2: bruck (dissemination)");
    case MM_COLL_ALLTOALL:
        if (n == 2)
            return pick(MM_ALG_PAIRWISE, "tuned: n = 2: two_procs (one exchange)");
        if (bytes < 200 && n > 12)
            return subst(MM_ALG_LINEAR, "tuned: block < 200 B, n > 12: bruck (as linear)");
        if (bytes < 3000)
            return pick(MM_ALG_LINEAR, "tuned: block < 3000 B: basic linear");
        return pick(MM_ALG_PAIRWISE, "tuned: block >= 3000 B: pairwise");
    case MM_COLL_SCATTER:
        if (op == MM_COLL_SCATTERV)
            return pick(MM_ALG_LINEAR, "basic scatterv: linear (tuned has no scatterv rule)");
        if (n > 10 && bytes < 300)
            return pick(MM_ALG_BINOMIAL, "tuned: n > 10 and block < 300 B: binomial");
        return pick(MM_ALG_LINEAR, "tuned: basic linear");
    case MM_COLL_REDUCE_SCATTER:
        return op == MM_COLL_REDUCE_SCATTER_BLOCK ? ompi_reduce_scatter_block(n, bytes)
                                                  : ompi_reduce_scatter(n, bytes);
    case MM_COLL_SCAN:
        return pick(MM_ALG_LINEAR, "basic scan: linear chain (tuned has no scan rule)");
    case MM_COLL_EXSCAN:
        return pick(MM_ALG_LINEAR, "basic exscan: linear chain (tuned has no exscan rule)");
    default:
        return pick(MM_ALG_AUTO, "no expansion for this operation");
    }
}

/* MPICH 3.x defaults (MPIR_CVAR_*), the rules of Thakur, Rabenseifner and
 * Gropp 2005; nonblocking schedules choose like the blocking ones (the
 * MPIR_I*_sched_intra_auto functions of MPICH 3.3 do for scatter(v),
 * reduce_scatter(_block), scan and exscan). */
static mm_coll_choice auto_mpich(int op, int32_t n, uint64_t bytes)
{
    uint64_t pof2 = (uint64_t)mm_pof2_floor(n);
    switch (mm_coll_family(op)) {
    case MM_COLL_ALLREDUCE:
        if (bytes <= 2048 || bytes / 8 < pof2)
            return pick(MM_ALG_RECURSIVE_DOUBLING, "mpich: <= ALLREDUCE_SHORT_MSG_SIZE (2048 B): recursive doubling");
        return subst(MM_ALG_RING, "mpich: long: Rabenseifner reduce-scatter+allgather (as ring)");
    case MM_COLL_ALLGATHER: {
        uint64_t total = bytes * (uint64_t)n;
        if (mm_is_pof2(n) && total < 524288)
            return pick(MM_ALG_RECURSIVE_DOUBLING, "mpich: n power of 2, total < ALLGATHER_LONG_MSG_SIZE (524288 B): recursive doubling");
        if (total < 81920)
            return pick(MM_ALG_BRUCK, "mpich: total < ALLGATHER_SHORT_MSG_SIZE (81920 B): bruck");
        return pick(MM_ALG_RING, "mpich: long: ring");
    }
    case MM_COLL_BCAST:
        if (bytes < 12288 || n < 8)
            return pick(MM_ALG_BINOMIAL, "mpich: < BCAST_SHORT_MSG_SIZE (12288 B) or n < BCAST_MIN_PROCS (8): binomial");
        return subst(MM_ALG_BINOMIAL, "mpich: scatter + allgather (as binomial)");
    case MM_COLL_REDUCE:
        if (bytes <= 2048 || bytes / 8 < pof2)
            return pick(MM_ALG_BINOMIAL, "mpich: <= REDUCE_SHORT_MSG_SIZE (2048 B): binomial");
        return subst(MM_ALG_BINOMIAL, "mpich: long: Rabenseifner reduce-scatter+gather (as binomial)");
    case MM_COLL_GATHER:
        /* Gatherv's counts are known at the root only, so no tree:
         * MPIR_Gatherv_allcomm_linear posts all n-1 receives, then waits. */
        if (op == MM_COLL_GATHERV)
            return pick(MM_ALG_DIRECT, "mpich: gatherv: linear (root posts all receives)");
        return pick(MM_ALG_BINOMIAL, "mpich: binomial");
    case MM_COLL_BARRIER:
        return pick(MM_ALG_DISSEMINATION, "mpich: dissemination");
    case MM_COLL_ALLTOALL:
        if (bytes <= 256 && n >= 8)
            return subst(MM_ALG_LINEAR, "mpich: <= ALLTOALL_SHORT_MSG_SIZE (256 B), n >= 8: bruck (as linear)");
        if (bytes <= 32768)
            return pick(MM_ALG_LINEAR, "mpich: <= ALLTOALL_MEDIUM_MSG_SIZE (32768 B): isend/irecv");
        return pick(MM_ALG_PAIRWISE, "mpich: long: pairwise");
    case MM_COLL_SCATTER:
        if (op == MM_COLL_SCATTERV || op == MM_COLL_ISCATTERV)
            return pick(MM_ALG_LINEAR, "mpich: scatterv: linear");
        return pick(MM_ALG_BINOMIAL, "mpich: binomial");
    case MM_COLL_REDUCE_SCATTER:
        if (times_n(bytes, n) < 524288)
            return pick(MM_ALG_RECURSIVE_HALVING, "mpich: commutative, n*block < "
                        "REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE (524288 B): recursive halving");
        return pick(MM_ALG_PAIRWISE, "mpich: commutative, long: pairwise");
    case MM_COLL_SCAN:
        /* MPICH 3.x runs its SMP scan (a scan inside each node, one among
         * the nodes' first ranks, a bcast inside each node, partly on the
         * node sub-communicators' context ids) whenever the communicator
         * is node-aware, i.e. some node holds two or more of its ranks, and
         * the nodes hold consecutive ranks. Which ranks share a node is not
         * known here. */
        if (n < 2)
            return pick(MM_ALG_RECURSIVE_DOUBLING, "mpich: one rank: recursive doubling");
        return subst(MM_ALG_RECURSIVE_DOUBLING, "mpich: recursive doubling with one rank per "
                     "node; ranks sharing nodes: SMP scan (as recursive doubling)");
    case MM_COLL_EXSCAN:
        return pick(MM_ALG_RECURSIVE_DOUBLING, "mpich: recursive doubling");
    default:
        return pick(MM_ALG_AUTO, "no expansion for this operation");
    }
}

mm_coll_choice mm_coll_auto(int op, int32_t n, uint64_t bytes, int lib)
{
    return lib == MM_COLL_LIB_MPICH ? auto_mpich(op, n, bytes) : auto_ompi(op, n, bytes);
}
