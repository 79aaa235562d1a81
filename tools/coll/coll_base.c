/*
 * coll_base.c - operations, algorithm names and tags of the collective model
 * (coll_base.h).
 */
#include "coll_base.h"

#include <string.h>

/* ---- operations and algorithms ---- */

int mm_coll_family(int op)
{
    switch (op) {
    case MM_COLL_GATHER: case MM_COLL_GATHERV: case MM_COLL_IGATHER:
        return MM_COLL_GATHER;
    case MM_COLL_ALLGATHER: case MM_COLL_ALLGATHERV: case MM_COLL_IALLGATHER:
        return MM_COLL_ALLGATHER;
    case MM_COLL_BCAST: case MM_COLL_IBCAST:
        return MM_COLL_BCAST;
    case MM_COLL_REDUCE: case MM_COLL_IREDUCE:
        return MM_COLL_REDUCE;
    case MM_COLL_ALLREDUCE: case MM_COLL_IALLREDUCE:
        return MM_COLL_ALLREDUCE;
    case MM_COLL_BARRIER: case MM_COLL_IBARRIER:
        return MM_COLL_BARRIER;
    case MM_COLL_ALLTOALL: case MM_COLL_ALLTOALLV: case MM_COLL_IALLTOALL:
        return MM_COLL_ALLTOALL;
    case MM_COLL_SCATTER: case MM_COLL_SCATTERV: case MM_COLL_ISCATTER:
    case MM_COLL_ISCATTERV:
        return MM_COLL_SCATTER;
    case MM_COLL_REDUCE_SCATTER: case MM_COLL_REDUCE_SCATTER_BLOCK:
    case MM_COLL_IREDUCE_SCATTER: case MM_COLL_IREDUCE_SCATTER_BLOCK:
        return MM_COLL_REDUCE_SCATTER;
    case MM_COLL_SCAN: case MM_COLL_ISCAN:
        return MM_COLL_SCAN;
    case MM_COLL_EXSCAN: case MM_COLL_IEXSCAN:
        return MM_COLL_EXSCAN;
    default:
        return -1;
    }
}

int mm_coll_nonblocking(int op)
{
    switch (op) {
    case MM_COLL_IBARRIER: case MM_COLL_IBCAST: case MM_COLL_IREDUCE:
    case MM_COLL_IALLREDUCE: case MM_COLL_IGATHER: case MM_COLL_IALLGATHER:
    case MM_COLL_IALLTOALL: case MM_COLL_ISCATTER: case MM_COLL_ISCATTERV:
    case MM_COLL_IREDUCE_SCATTER: case MM_COLL_IREDUCE_SCATTER_BLOCK:
    case MM_COLL_ISCAN: case MM_COLL_IEXSCAN:
        return 1;
    default:
        return 0;
    }
}

int mm_coll_nonblocking_of(int op)
{
    switch (op) {
    case MM_COLL_BARRIER:   return MM_COLL_IBARRIER;
    case MM_COLL_BCAST:     return MM_COLL_IBCAST;
    case MM_COLL_REDUCE:    return MM_COLL_IREDUCE;
    case MM_COLL_ALLREDUCE: return MM_COLL_IALLREDUCE;
    case MM_COLL_GATHER:    return MM_COLL_IGATHER;
    case MM_COLL_ALLGATHER: return MM_COLL_IALLGATHER;
    case MM_COLL_ALLTOALL:  return MM_COLL_IALLTOALL;
    case MM_COLL_SCATTER:   return MM_COLL_ISCATTER;
    case MM_COLL_SCATTERV:  return MM_COLL_ISCATTERV;
    case MM_COLL_REDUCE_SCATTER:       return MM_COLL_IREDUCE_SCATTER;
    case MM_COLL_REDUCE_SCATTER_BLOCK: return MM_COLL_IREDUCE_SCATTER_BLOCK;
    case MM_COLL_SCAN:      return MM_COLL_ISCAN;
    case MM_COLL_EXSCAN:    return MM_COLL_IEXSCAN;
    default:                return op;
    }
}

static const char *const alg_names[MM_ALG_COUNT] = {
    "auto", "linear", "direct", "binomial", "recursive_doubling", "ring",
    "bruck", "neighbor_exchange", "dissemination", "pairwise", "recursive_halving",
    "nonoverlapping", "chain", "pipeline", "split_binary", "binary", "in_order_binary",
    "knomial", "scatter_allgather", "scatter_ring_allgather", "rabenseifner",
    "segmented_ring", "modified_bruck", "linear_sync", "linear_nb", "tree", "butterfly",
    "gather_bcast", "rabenseifner_mpich", "bmtree",
    "nbc_binomial", "nbc_binomial_root0", "nbc_chain", "nbc_redscat", "nbc_ring",
    "nbc_linear", "nbc_knomial",
    "mpich_scatter_rd_allgather", "mpich_scatter_ring_allgather", "scattered",
    "mpich_pairwise", "noncommutative", "binomial_root0",
    "mpich_composition",
};
_Static_assert(sizeof alg_names / sizeof alg_names[0] == MM_ALG_COUNT && MM_ALG_COUNT <= 64,
               "one name per algorithm; valid_algs() keeps one bit each");

const char *mm_coll_alg_name(int alg)
{
    return alg >= 0 && alg < MM_ALG_COUNT ? alg_names[alg] : NULL;
}

int mm_coll_alg_from_name(const char *name)
{
    for (int i = 0; name && i < MM_ALG_COUNT; i++)
        if (strcmp(alg_names[i], name) == 0)
            return i;
    return -1;
}

/* ---- tags ---- */

int32_t mm_coll_tag(int op, uint32_t nbc_index)
{
    /* Open MPI's MCA_COLL_BASE_TAG_* values (releases 2.x-4.x). */
    switch (op) {
    case MM_COLL_ALLGATHER:      return -10;
    case MM_COLL_ALLGATHERV:     return -11;
    case MM_COLL_ALLREDUCE:      return -12;
    case MM_COLL_ALLTOALL:       return -13;
    case MM_COLL_ALLTOALLV:      return -14;
    case MM_COLL_BARRIER:        return -16;
    case MM_COLL_BCAST:          return -17;
    case MM_COLL_EXSCAN:         return -18;
    case MM_COLL_GATHER:         return -19;
    case MM_COLL_GATHERV:        return -20;
    case MM_COLL_REDUCE:         return -21;
    case MM_COLL_REDUCE_SCATTER: return -22;
    case MM_COLL_REDUCE_SCATTER_BLOCK: return -23;
    case MM_COLL_SCAN:           return -24;
    case MM_COLL_SCATTER:        return -25;
    case MM_COLL_SCATTERV:       return -26;
    default:
        /* nonblocking: libnbc counts down from -27 and wraps at
         * -INT_MAX/2 + 1 back to -27 */
        return MM_COLL_TAG_NONBLOCKING_BASE - (int32_t)(nbc_index % (INT32_MAX / 2 - 27));
    }
}

int32_t mm_coll_xfer_tag(const mm_coll_xfer *x, uint32_t nbc_index)
{
    return mm_coll_tag(x->tag_op, nbc_index);
}
