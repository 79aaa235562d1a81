/*
 * coll_mv2.h - MVAPICH2's point-to-point allreduce "reduce_p2p"
 * (MPIR_Allreduce_reduce_p2p_MV2 in allreduce_osu.c, MVAPICH2 2.2: an
 * MPI_Reduce to rank 0, then an MPI_Bcast from rank 0) on MVAPICH2's
 * k-nomial trees, written from the description of MPIR_Reduce_knomial_MV2
 * and MPIR_Reduce_knomial_trace (reduce_osu.c); no code taken from them.
 * docs/collectives.md ("MVAPICH2's k-nomial reduce_p2p") says what it is
 * used for and what it is not.
 *
 * The k-nomial tree of radix k rooted at 0: rank r's parent is
 * r / (k m) * (k m) for the smallest m = 1, k, k^2, ... with r mod (k m)
 * != 0; its children are r + m j (j = 1 .. k-1, below n) for every m below
 * that one. MVAPICH2's reduce posts the receives from ALL its children at
 * once (MPI_Irecv each, then MPI_Waitany until all are in), on one tag,
 * in the reverse of its list of children (the list runs from the largest m
 * down, j ascending within an m: it posts the m = 1 children first,
 * j descending), and sends its sum to its parent when all are in. So a
 * rank with c children holds c posted receives at once, matched in the
 * order its children's subtrees finish, not in the order posted.
 *
 * Steps (coll_algo.h): the transfers into rank r are step h(r), its
 * height (1 + the largest height of its children, 0 for a leaf), so a
 * rank posts all of them on entering the reduce and its children send
 * when their own receives are in. Then the bcast down the same tree
 * (MVAPICH2's k-nomial bcast): parent -> child in step H + 1 + depth(parent),
 * H the root's height. Reduce transfers carry the reduce's tag, bcast
 * transfers the bcast's (two collectives, as MVAPICH2 calls them).
 */
#ifndef MM_TOOLS_COLL_MV2_H
#define MM_TOOLS_COLL_MV2_H

#include <stddef.h>
#include <stdint.h>

#include "coll_base.h"

/* Radix range accepted (MVAPICH2 takes its k-nomial factors,
 * mv2_reduce_inter_knomial_factor and mv2_reduce_intra_knomial_factor, from
 * the reduce tuning table's inter_k_degree and intra_k_degree unless set:
 * 4 in the tables read, reduce_tuning.c). */
#define MM_COLL_MV2_RADIX_MIN 2
#define MM_COLL_MV2_RADIX_MAX 65536

/* The transfers of one allreduce of `bytes` on n ranks (1 <= n <=
 * MM_COLL_MAX_N) in nondecreasing step order, into a malloc'd array (free
 * it). MMS_OK, MMS_EFORMAT (n or radix out of range, err says which) or
 * MMS_ENOMEM. */
int mm_coll_mv2_reduce_p2p(int32_t n, uint32_t radix, uint64_t bytes, mm_coll_xfer **out,
                           size_t *count, char *err, size_t errlen);

#endif /* MM_TOOLS_COLL_MV2_H */
