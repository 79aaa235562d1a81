/*
 * coll_mpich.h - MPICH 4.0.2 MPIR algorithms that send other messages than
 * the Open MPI ones of the same idea (coll_mpich.c): the scatter +
 * allgather bcasts (pieces cut in bytes), the scattered and pairwise
 * alltoalls, the noncommutative reduce_scatter, the binomial reduce of a
 * noncommutative op. Internal to tools/gen; the
 * public side is coll_algo.h.
 */
#ifndef MM_TOOLS_COLL_MPICH_H
#define MM_TOOLS_COLL_MPICH_H

#include "coll_emit.h"

/* The algorithms of this file for a family, one bit per enum mm_coll_alg. */
uint64_t mm_coll_mpich_algs(int family);
/* Pieces the vector is cut into (0: none), and the bytes of piece b. */
uint32_t mm_coll_mpich_pieces(const mm_coll_desc *d);
uint64_t mm_coll_mpich_piece_bytes(const mm_coll_desc *d, uint32_t b);
/* Limits (noncommutative: a power of two); MMS_OK or MMS_EFORMAT. */
int      mm_coll_mpich_check(const mm_coll_desc *d, char *err, size_t errlen);
/* Block k of transfer x (noncommutative: bit-reversed positions); returns
 * 0 and leaves *blk alone for the other algorithms. */
int      mm_coll_mpich_xfer_block(const mm_coll_desc *d, const mm_coll_xfer *x, uint32_t k,
                                  uint32_t *blk);
/* Expand d if it is one of this file's algorithms; 0 if it is not. */
int      mm_coll_mpich_expand(mm_coll_emitter *e);

#endif /* MM_TOOLS_COLL_MPICH_H */
