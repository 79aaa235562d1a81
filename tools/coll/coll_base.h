/*
 * coll_base.h - the bottom of the collective model (tools/coll): what a
 * collective call, an algorithm and a transfer are, the names and tags of
 * operations and algorithms, and the selection rules' query and answer.
 * Every other file of the model builds on it; coll_algo.h is the whole
 * model's interface for its users.
 */
#ifndef MM_TOOLS_COLL_BASE_H
#define MM_TOOLS_COLL_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "mpimatch.h"

/* Algorithms. Which ones an operation takes: mm_coll_alg_valid(). */
enum mm_coll_alg {
    MM_ALG_AUTO = 0,          /* pick by size as a library would (mm_coll_auto) */
    MM_ALG_LINEAR,            /* gather/reduce: root receives from one peer after the
                                 other; bcast, scatter: root sends to all; allgather,
                                 alltoall: every rank posts all receives in one step;
                                 scan, exscan: a chain, r receives from r-1, sends to r+1 */
    MM_ALG_DIRECT,            /* gather: root posts all n-1 receives at once */
    MM_ALG_BINOMIAL,          /* gather, bcast, reduce, scatter: binomial tree */
    MM_ALG_RECURSIVE_DOUBLING, /* allreduce, barrier, scan, exscan (any n); allgather
                                  (n a power of two); reduce_scatter(_block) (any n,
                                  forwards: coll_rsag.c) */
    MM_ALG_RING,              /* allreduce (reduce-scatter + allgather rings), allgather,
                                 reduce_scatter */
    MM_ALG_BRUCK,             /* allgather: ceil(log2 n) steps, any n */
    MM_ALG_NEIGHBOR_EXCHANGE, /* allgather: n/2 steps, n even */
    MM_ALG_DISSEMINATION,     /* barrier */
    MM_ALG_PAIRWISE,          /* alltoall, reduce_scatter: n-1 steps */
    MM_ALG_RECURSIVE_HALVING, /* reduce_scatter: log2 pof2 steps (+2), any n */
    MM_ALG_NONOVERLAPPING,    /* reduce_scatter: binomial reduce of the whole vector to
                                 rank 0, then rank 0 sends every rank its block */
    /* Open MPI 4.1 coll/base and MPICH 4.0 algorithms (docs/collectives.md).
     * mm_coll_alg_valid() says which operations each one serves; every
     * name here is expanded by coll_algo.c or a coll_*.c beside it. */
    MM_ALG_CHAIN,             /* bcast, reduce: Open MPI chain tree            */
    MM_ALG_PIPELINE,          /* bcast, reduce: a chain of one (Open MPI)      */
    MM_ALG_SPLIT_BINARY,      /* bcast: Open MPI split binary tree             */
    MM_ALG_BINARY,            /* bcast, reduce: Open MPI binary tree           */
    MM_ALG_IN_ORDER_BINARY,   /* reduce: Open MPI in-order binary tree         */
    MM_ALG_KNOMIAL,           /* bcast: Open MPI k-nomial tree                 */
    MM_ALG_SCATTER_ALLGATHER, /* bcast: binomial scatter + allgather           */
    MM_ALG_SCATTER_RING_ALLGATHER, /* bcast: binomial scatter + ring allgather */
    MM_ALG_RABENSEIFNER,      /* reduce, allreduce: reduce-scatter + gather /
                                 allgather (Rabenseifner)                      */
    MM_ALG_SEGMENTED_RING,    /* allreduce: Open MPI segmented ring            */
    MM_ALG_MODIFIED_BRUCK,    /* alltoall: Open MPI modified Bruck             */
    MM_ALG_LINEAR_SYNC,       /* alltoall, gather: Open MPI linear_sync        */
    MM_ALG_LINEAR_NB,         /* scatter: Open MPI linear_nb                   */
    MM_ALG_TREE,              /* barrier: Open MPI tree                        */
    MM_ALG_BUTTERFLY,         /* reduce_scatter(_block): Open MPI butterfly    */
    MM_ALG_GATHER_BCAST,      /* allgatherv: Open MPI "default", gatherv + bcast */
    MM_ALG_RABENSEIFNER_MPICH, /* reduce, allreduce: MPICH's Rabenseifner (whole-vector
                                  fold, equal pieces)                          */
    MM_ALG_BMTREE,            /* bcast: Open MPI's binomial tree (topo_build_bmtree,
                                 libnbc's binomial): a rank's parent clears its
                                 highest bit; MM_ALG_BINOMIAL's clears the lowest */
    /* Open MPI 4.1 libnbc schedules (coll_nbc.c) */
    MM_ALG_NBC_BINOMIAL,      /* bcast, reduce, allreduce: libnbc binomial trees */
    MM_ALG_NBC_BINOMIAL_ROOT0, /* reduce: libnbc binomial to rank 0, then to root
                                  (non-commutative operations)                 */
    MM_ALG_NBC_CHAIN,         /* reduce, bcast: libnbc chains of 8192-B / 16384-B fragments */
    MM_ALG_NBC_REDSCAT,       /* reduce, allreduce: libnbc reduce-scatter +
                                 gather / allgather (Rabenseifner)             */
    MM_ALG_NBC_RING,          /* allreduce: libnbc ring                        */
    MM_ALG_NBC_LINEAR,        /* alltoall: libnbc linear, peers 0, 1, ..., n-1 */
    MM_ALG_NBC_KNOMIAL,       /* bcast: libnbc k-nomial tree, radix 4          */
    MM_ALG_MPICH_SCATTER_RD_ALLGATHER, /* bcast: MPICH's binomial scatter of
                                 ceil(nbytes/n)-byte pieces + recursive doubling */
    MM_ALG_MPICH_SCATTER_RING_ALLGATHER, /* bcast: the same scatter + ring       */
    MM_ALG_SCATTERED,         /* alltoall: MPICH scattered, batches of 32 peers */
    MM_ALG_MPICH_PAIRWISE,    /* alltoall: MPICH pairwise (XOR peers for pof2 n) */
    MM_ALG_NONCOMMUTATIVE,    /* reduce_scatter: MPICH noncommutative (pof2 n,
                                 recursive halving on bit-reversed blocks)    */
    MM_ALG_BINOMIAL_ROOT0,    /* reduce: MPICH's binomial for a noncommutative op:
                                 the tree rooted at rank 0, then 0 sends the
                                 result to the root                           */
    MM_ALG_MPICH_COMPOSITION, /* bcast, reduce, allreduce, barrier, scan: MPICH 4.0.2 ch4's
                                 compositions, i{bcast,reduce,scan} sched_smp (coll_mpich_comp.c; needs
                                 mm_coll_desc.node)                            */
    MM_ALG_COUNT
};

/* What the receiver of a transfer does with the blocks. */
enum mm_xfer_mode {
    MM_XFER_COPY   = 0, /* store them (they replace a partial result)      */
    MM_XFER_REDUCE = 1, /* combine them with its own (the reduction)        */
    MM_XFER_SYNC   = 2, /* barrier: zero bytes, it learns who has arrived    */
    MM_XFER_PREFIX = 3, /* scan: combine the sender's partial sum (block 1)
                           with its own and, when the sender is a lower
                           rank, with its result (block 0) too             */
    MM_XFER_FORWARD = 4 /* the receiver combines them with its own, as
                           REDUCE; but the sender passes on, for each block,
                           exactly what it last received of it, not what it
                           holds (Open MPI's recursive-doubling
                           reduce_scatter_block on n not a power of two)   */
};

typedef struct mm_coll_xfer {
    uint64_t bytes;     /* message size                                      */
    uint32_t step;      /* round, see above                                  */
    int32_t  src, dst;  /* ranks in the communicator, src != dst             */
    uint32_t blk, nblk; /* blocks carried: blk .. blk+nblk-1 modulo nblocks
                           (modified Bruck alltoall: mm_coll_xfer_block);
                           nblk 0: an empty message (MM_XFER_SYNC)        */
    uint8_t  mode;      /* enum mm_xfer_mode                                 */
    uint8_t  tag_op;    /* the operation whose tag it carries: the call's own,
                           except in an algorithm that is two blocking
                           collectives (Open MPI's nonoverlapping
                           reduce_scatter: a reduce, then a scatter(v))     */
} mm_coll_xfer;

typedef struct mm_coll_desc {
    int      op;    /* enum mm_coll_op (blocking or nonblocking)                */
    int      alg;   /* enum mm_coll_alg, not MM_ALG_AUTO                        */
    int32_t  n;     /* communicator size, 1..MM_COLL_MAX_N                      */
    int32_t  root;  /* rooted operations (gather, bcast, reduce, scatter); else
                       ignored                                                 */
    uint64_t bytes; /* gather, allgather, scatter, reduce_scatter: each rank's
                       block; alltoall: each (src, dst) block; bcast, reduce,
                       allreduce, scan, exscan: the vector; barrier: ignored
                       (its messages are empty)                               */
    uint32_t elem;  /* bytes per element (the datatype's size); algorithms
                       that cut a vector into pieces cut it between elements.
                       0: 1 byte                                              */
    int      sub[2]; /* algorithms made of two collectives (allreduce
                       nonoverlapping: a reduce, then a bcast; ...): the
                       algorithm of each; MM_ALG_AUTO: the one documented for
                       the algorithm                                          */
    const int32_t *node; /* node index of each of the n ranks (as
                       mm_coll_query.node); NULL: unknown. Read by
                       MM_ALG_MPICH_COMPOSITION only                           */
    uint32_t shm_calls[2]; /* MM_ALG_MPICH_COMPOSITION: MPICH's release_gather
                       calls made before this call on the communicator's node
                       communicators [0] and on the communicator itself [1]
                       (mm_coll_mpich_shm_count, coll_mpich_comp.h): the
                       first 4 run MPIR's point-to-point algorithms instead */
} mm_coll_desc;

/* Communicator sizes the expansion accepts (alltoall: n*n blocks fit 32 bits). */
#define MM_COLL_MAX_N     (1 << 20)
#define MM_COLL_MAX_N_A2A 65535

/* The algorithm family of an operation: MM_COLL_GATHER for gather, gatherv
 * and igather; MM_COLL_ALLGATHER for allgather(v) and iallgather;
 * MM_COLL_SCATTER for scatter(v) and iscatter(v); MM_COLL_REDUCE_SCATTER for
 * reduce_scatter(_block) and their nonblocking forms; and so on for BCAST,
 * REDUCE, ALLREDUCE, BARRIER, ALLTOALL(V), SCAN, EXSCAN. -1 for anything
 * else (MM_COLL_NONE, out of range). */
int  mm_coll_family(int op);
/* 1 for the nonblocking operations (ibarrier, ibcast, ...). */
int  mm_coll_nonblocking(int op);
/* The nonblocking operation of a blocking one (scatterv: iscatterv), or the
 * op itself when it has none of its own (gatherv: use the family's). */
int  mm_coll_nonblocking_of(int op);

const char *mm_coll_alg_name(int alg);      /* "binomial"; NULL out of range */
int         mm_coll_alg_from_name(const char *name); /* -1 if unknown        */

/* What fn (mm_coll_expand) is called with for every transfer; a nonzero
 * return stops the expansion. */
typedef int (*mm_coll_emit_fn)(void *ctx, const mm_coll_xfer *x);

/* ---- tags (Open MPI ompi/mca/coll/base/coll_tags.h, releases 2.x-4.x) ---- */
#define MM_COLL_TAG_NONBLOCKING_BASE (-27)
/* The tag of op. Blocking operations have one fixed negative tag each
 * (allgather -10 ... scatterv -26). A nonblocking operation takes a new tag
 * per call from a per-communicator counter that starts at -27 and counts
 * down (libnbc): nbc_index is how many nonblocking collectives the
 * communicator started before this one. */
int32_t mm_coll_tag(int op, uint32_t nbc_index);
/* The tag of one transfer of a call: mm_coll_tag(x->tag_op, nbc_index). */
int32_t mm_coll_xfer_tag(const mm_coll_xfer *x, uint32_t nbc_index);
/* ---- automatic selection ---- */
enum mm_coll_lib {
    MM_COLL_LIB_OMPI  = 0, /* Open MPI 4.1.4: coll/tuned fixed rules, libnbc */
    MM_COLL_LIB_MPICH = 1  /* MPICH 4.0.2 (ch4 + MPIR json trees)               */
};

typedef struct mm_coll_choice {
    int         alg;  /* an algorithm implemented here, valid for (op, n) */
    int         sub[2]; /* for two-collective algorithms: mm_coll_desc.sub */
    const char *rule; /* the rule that fired, in the library's own terms  */
    int substitute;   /* 1: the library would run something this model
                         cannot expand for the call, and alg is the nearest
                         one (rule ends "(as ALG)"); callers say so. No call
                         a real program can make gets it today (the one case
                         left: libnbc's ireduce chain for a count beyond an
                         int).                                             */
} mm_coll_choice;

/* A collective call as the selection rules see it. */
typedef struct mm_coll_query {
    int            op;    /* enum mm_coll_op                                   */
    int32_t        n;     /* communicator size                                 */
    uint64_t       bytes; /* as mm_coll_desc.bytes                             */
    uint32_t       elem;  /* datatype size; 0: unknown (8 assumed where a rule
                             counts elements)                                  */
    int            noncommutative; /* reductions: the MPI_Op is not commutative
                             (0 also when unknown)                             */
    int            lib;   /* enum mm_coll_lib                                  */
    const int32_t *node;  /* node index of each of the n ranks; NULL: unknown  */
} mm_coll_query;

#endif /* MM_TOOLS_COLL_BASE_H */
