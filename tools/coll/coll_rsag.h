/*
 * coll_rsag.h - Open MPI 4.1 coll/base barriers, reduce_scatter(_block)
 * and allgatherv algorithms (coll_rsag.c), and the expansion of one phase
 * of a composite algorithm (a collective made of two blocking collectives).
 * Internal to tools/gen; coll_algo.c registers them.
 */
#ifndef MM_TOOLS_COLL_RSAG_H
#define MM_TOOLS_COLL_RSAG_H

#include "coll_emit.h"

/* Expand the collective sub as one phase of e's call: its transfers go to
 * e's caller with steps shifted by step0 and tag_op as given. sub must
 * pass mm_coll_check and cut its data into 1 block (it then carries all of
 * e's blocks: a reduce or bcast of the whole vector) or into as many blocks
 * as e's call (a gather or scatter of the same blocks): see
 * mm_coll_phase_check. Returns the number of steps sub took (0 on error,
 * e->rc then set). */
uint32_t mm_coll_phase(mm_coll_emitter *e, const mm_coll_desc *sub, int tag_op,
                       uint32_t step0);
/* MMS_OK if sub can be a phase of d (see mm_coll_phase), else MMS_EFORMAT
 * with the reason in err. */
int mm_coll_phase_check(const mm_coll_model *m, const mm_coll_desc *d,
                        const mm_coll_desc *sub, char *err, size_t errlen);

/* Algorithms that exist for some operations of a family only: 0 if alg is
 * not one of op's (gather_bcast is allgather's), else 1. */
int  mm_coll_rsag_op_valid(int op, int alg);
/* The limits of the algorithms below and their phases (mm_coll_check). */
int  mm_coll_rsag_check(const mm_coll_model *m, const mm_coll_desc *d, char *err, size_t errlen);

void mm_coll_barrier_linear(mm_coll_emitter *e);
void mm_coll_barrier_tree(mm_coll_emitter *e);
void mm_coll_barrier_rd_ompi(mm_coll_emitter *e);
void mm_coll_rs_butterfly(mm_coll_emitter *e);
/* 1 for Open MPI's power-of-two butterfly reduce_scatter_block, whose
 * messages carry the blocks at positions blk .. blk+nblk-1 of a buffer in
 * mirror (bit-reversed) order; block k of transfer x is then
 * mm_coll_rsb_block(d, x, k). */
int  mm_coll_rsb_mirrored(const mm_coll_desc *d);
uint32_t mm_coll_rsb_block(const mm_coll_desc *d, const mm_coll_xfer *x, uint32_t k);
void mm_coll_rsb_recursive_doubling(mm_coll_emitter *e);
/* reduce_scatter(_block) "nonoverlapping" / basic_linear: a reduce of the
 * whole vector to rank 0 (d->sub[0], default binomial), then a scatterv or
 * scatter from rank 0 (d->sub[1], default linear). */
void mm_coll_reduce_then_scatter(mm_coll_emitter *e);
/* allgatherv "default" and allgather basic_linear: a gatherv (allgather:
 * gather) to rank 0 (d->sub[0], default linear), then a bcast of the whole
 * vector from rank 0 (d->sub[1], default binomial). */
void mm_coll_gather_then_bcast(mm_coll_emitter *e);

#endif /* MM_TOOLS_COLL_RSAG_H */
