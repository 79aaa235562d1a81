/*
 * coll_raben.h - Open MPI 4.1 coll/base allreduce (basic_linear,
 * nonoverlapping, segmented ring, Rabenseifner), Rabenseifner reduce and the
 * scatter + allgather bcasts (coll_raben.c). Internal to tools/gen; the
 * public side is coll_algo.h.
 */
#ifndef MM_TOOLS_COLL_RABEN_H
#define MM_TOOLS_COLL_RABEN_H

#include "coll_emit.h"

/* The algorithms of this file for a family, one bit per enum mm_coll_alg. */
uint64_t mm_coll_raben_algs(int family);
/* Pieces the vector is cut into by an algorithm of this file (0: none, the
 * call's blocks are whole), and the size of piece b in bytes. */
uint32_t mm_coll_raben_pieces(const mm_coll_model *m, const mm_coll_desc *d);
uint64_t mm_coll_raben_piece_bytes(const mm_coll_model *m, const mm_coll_desc *d, uint32_t b);
/* Limits (the phases of nonoverlapping); MMS_OK or MMS_EFORMAT. */
int      mm_coll_raben_check(const mm_coll_model *m, const mm_coll_desc *d, char *err,
                             size_t errlen);
/* The binomial scatter of a scatter + allgather bcast's pieces (those of
 * mm_coll_block_bytes); returns its steps. */
uint32_t mm_coll_scatter_pieces(mm_coll_emitter *e);
/* Its allgathers from step on: recursive doubling (any n), ring. */
void     mm_coll_allgather_doubling_pieces(mm_coll_emitter *e, uint32_t step);
void     mm_coll_allgather_ring_pieces(mm_coll_emitter *e, uint32_t step);
/* Expand d if it is one of this file's algorithms; 0 if it is not. */
int      mm_coll_raben_expand(mm_coll_emitter *e);

#endif /* MM_TOOLS_COLL_RABEN_H */
