/*
 * coll_algo.h - MPI collective algorithms as the point-to-point transfers a
 * real MPI library sends (docs/collectives.md).
 *
 * A collective call is described by (operation, algorithm, communicator size
 * n, root, bytes). mm_coll_expand() enumerates every transfer of the whole
 * call, for every rank, as {step, src, dst, bytes, data carried}; a caller
 * keeps the transfers whose dst is the rank it observes (workload
 * generators), or all of them (trace conversion, tests).
 *
 * Steps. A rank works through steps 0, 1, 2, ... in order: in step s it
 * posts its receives of step s and sends its messages of step s, then waits
 * for the receives of step s before it starts step s+1. A rank with nothing
 * to do in a step passes through it at once. What a rank sends in step s
 * depends only on what it held at the start of step s. "Blocking" loops of
 * a real implementation (Open MPI's linear gather receives from one peer
 * after the other) are written as one step per receive.
 *
 * Data carried. The data of the collective is cut into nblocks blocks
 * (mm_coll_nblocks): one per rank for gather, allgather, scatter and
 * reduce_scatter (block b is rank b's: its contribution, or what it is to
 * receive), n*n for alltoall (block s*n+d goes from s to d), n segments of
 * the vector for the ring allreduce, two for scan and exscan (block 0: the
 * rank's result, block 1: the partial sum it passes on), one block for
 * bcast, reduce, allreduce (recursive doubling) and barrier. A transfer
 * carries blocks blk, blk+1, ..., blk+nblk-1 (modulo nblocks) and its bytes
 * are the sum of their sizes; mode says what the receiver does with them
 * (store, combine with its own, for scans also fold into its result, or, for
 * barriers, only learn who has arrived). tests/gen/test_coll_algo.c replays
 * these transfers and checks that every rank ends with exactly what the
 * collective promises.
 *
 * Tags: mm_coll_xfer_tag() gives the negative tag Open MPI uses for a
 * transfer (blocking: a fixed tag per operation; nonblocking: a new tag per
 * call taken from a per-communicator counter).
 */
#ifndef MM_TOOLS_COLL_ALGO_H
#define MM_TOOLS_COLL_ALGO_H

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
/* 1 if the algorithm exists for the operation's family (any n). */
int         mm_coll_alg_valid(int op, int alg);

/* Check a description: known family, valid algorithm, n in range, root in
 * 0..n-1 (rooted operations), and the algorithm's own limits (recursive-doubling allgather
 * needs a power of two, neighbor exchange an even n). MMS_OK or
 * MMS_EFORMAT with the reason in err. */
int  mm_coll_check(const mm_coll_desc *d, char *err, size_t errlen);

/* Blocks of the call's data and the size of block b (see above). */
uint32_t mm_coll_nblocks(const mm_coll_desc *d);
uint64_t mm_coll_block_bytes(const mm_coll_desc *d, uint32_t b);

/* Block k (k < x->nblk) of the blocks transfer x of call d carries:
 * (x->blk + k) mod nblocks, except in the modified Bruck alltoall, whose
 * messages pack blocks that are not consecutive (coll_a2a.c), and in the
 * butterfly reduce_scatter_block on a power of two n, whose are in
 * bit-reversed order (coll_rsag.c). */
uint32_t mm_coll_xfer_block(const mm_coll_desc *d, const mm_coll_xfer *x, uint32_t k);

/* Call fn for every transfer of the call, in nondecreasing step order. A
 * nonzero return from fn stops the expansion and is returned. The
 * description must pass mm_coll_check (else MMS_EFORMAT). */
typedef int (*mm_coll_emit_fn)(void *ctx, const mm_coll_xfer *x);
int  mm_coll_expand(const mm_coll_desc *d, mm_coll_emit_fn fn, void *ctx,
                    char *err, size_t errlen);
/* MPICH's compositions: add the release_gather calls the call d makes to
 * the counters shm_calls[0] (the node communicators') and [1] (the
 * communicator's own: allreduce on one node), as MPICH 4.0.2 counts them,
 * so that the communicator's next call gets them in its
 * mm_coll_desc.shm_calls. Calls of other algorithms add nothing. */
void mm_coll_mpich_shm_count(const mm_coll_desc *d, uint32_t shm_calls[2]);
/* The same into a malloc'd array (free it); MMS_ENOMEM possible. */
int  mm_coll_expand_array(const mm_coll_desc *d, mm_coll_xfer **out, size_t *count,
                          char *err, size_t errlen);

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

/* What the library would run for the call. The thresholds and their
 * sources: docs/collectives.md. Written in coll_auto*.c. */
mm_coll_choice mm_coll_select(const mm_coll_query *q);
/* The same for a commutative reduction of unknown element size, node
 * layout unknown. */
mm_coll_choice mm_coll_auto(int op, int32_t n, uint64_t bytes, int lib);

#endif /* MM_TOOLS_COLL_ALGO_H */
