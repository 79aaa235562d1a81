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

#include "coll_auto.h"
#include "coll_base.h"

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
int  mm_coll_expand(const mm_coll_desc *d, mm_coll_emit_fn fn, void *ctx,
                    char *err, size_t errlen);
/* MPICH's compositions: add the release_gather calls the call d makes to
 * the counters shm_calls[0] (the node communicators') and [1] (the
 * communicator's own: allreduce on one node), as MPICH 4.0.2 counts them,
 * so that the communicator's next call gets them in its
 * mm_coll_desc.shm_calls. Calls of other algorithms add nothing. */
void mm_coll_mpich_shm_count(const mm_coll_desc *d, uint32_t shm_calls[2]);
/* mm_coll_expand with the shared-memory phases of MPICH's compositions as
 * pseudo transfers (tag_op MM_COLL_NONE; the data-flow tests). */
int  mm_coll_expand_shm(const mm_coll_desc *d, mm_coll_emit_fn fn, void *ctx, char *err,
                        size_t errlen);
/* The same into a malloc'd array (free it); MMS_ENOMEM possible. */
int  mm_coll_expand_array(const mm_coll_desc *d, mm_coll_xfer **out, size_t *count,
                          char *err, size_t errlen);
/* The same, refusing a call of more than max transfers (0: no limit) before
 * it takes their memory: MMS_EFORMAT with *over set (over may be NULL), err
 * "one call of OP on N ranks models more than MAX transfers" (a generator's
 * size limit over its calls). */
int  mm_coll_expand_array_max(const mm_coll_desc *d, size_t max, mm_coll_xfer **out,
                              size_t *count, int *over, char *err, size_t errlen);
/* mm_coll_expand_array_max storing at most `keep` transfers before it knows
 * the plan's size (then counting, and expanding again into an exact array
 * when within max); mm_coll_expand_array_max keeps 2^24 (512 MiB). For the
 * tests, which take small keeps to check that the two ways agree. */
int  mm_coll_expand_array_keep(const mm_coll_desc *d, size_t max, size_t keep,
                               mm_coll_xfer **out, size_t *count, int *over, char *err,
                               size_t errlen);

#endif /* MM_TOOLS_COLL_ALGO_H */
