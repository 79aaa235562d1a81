/*
 * coll_emit.h - what the files that write collective schedules share
 * (coll_algo.c and the coll_*.c files beside it): the emitter that hands
 * each transfer to the caller of mm_coll_expand, rank arithmetic, and the
 * model as an algorithm file sees it. Internal to tools/coll; the public
 * side is coll_algo.h.
 */
#ifndef MM_TOOLS_COLL_EMIT_H
#define MM_TOOLS_COLL_EMIT_H

#include "coll_base.h"

/* The whole model, for the algorithms made of other collectives (two
 * phases, Rabenseifner's halves, MPICH's compositions): they check, cut
 * and expand their parts and pick their parts' algorithms through it. The
 * dispatcher (coll_algo.c) hands it down, so that no algorithm file depends
 * on the dispatcher or on the selection rules that call back into it. */
typedef struct mm_coll_model {
    int      (*check)(const mm_coll_desc *d, char *err, size_t errlen); /* mm_coll_check   */
    uint32_t (*nblocks)(const mm_coll_desc *d);                         /* mm_coll_nblocks */
    uint64_t (*block_bytes)(const mm_coll_desc *d, uint32_t b);         /* mm_coll_block_bytes */
    uint32_t (*pieces)(const mm_coll_desc *d); /* pieces the vector is cut into, 0: whole blocks */
    int      (*expand)(const mm_coll_desc *d, mm_coll_emit_fn fn, void *ctx,
                       char *err, size_t errlen);                       /* mm_coll_expand  */
    mm_coll_choice (*select)(const mm_coll_query *q);                   /* mm_coll_select  */
} mm_coll_model;

typedef struct mm_coll_emitter {
    const mm_coll_desc *d;
    const mm_coll_model *m;
    mm_coll_emit_fn     fn;
    void               *ctx;
    uint32_t            nb;     /* mm_coll_nblocks(d)                     */
    int                 tag_op; /* what mm_coll_put writes into tag_op   */
    int                 rc;     /* first nonzero return of fn; stops all */
} mm_coll_emitter;

/* Emit the transfer of blocks blk .. blk+nblk-1 (mod nblocks) from src to
 * dst in step; bytes are the sizes of those blocks. Does nothing once an
 * earlier call failed. */
void mm_coll_put(mm_coll_emitter *e, uint32_t step, int32_t src, int32_t dst,
                 uint32_t blk, uint32_t nblk, int mode);

/* Piece b of the vector (d->bytes, elements of d->elem bytes) cut into k
 * pieces, the first count mod k one element longer. */
uint64_t mm_coll_piece_bytes(const mm_coll_desc *d, uint32_t k, uint32_t b);

static inline int32_t mm_coll_mod(int64_t a, int32_t n) { return (int32_t)(((a % n) + n) % n); }

/* Rooted trees work on ranks relative to the root: vr = (r - root) mod n. */
static inline int32_t mm_coll_absr(const mm_coll_desc *d, int64_t vr)
{
    return mm_coll_mod(vr + d->root, d->n);
}

/* Recursive doubling on any n folds the first 2*rem ranks (rem = n - pof2)
 * in pairs: new rank nr is real rank 2*nr+1 below rem, nr+rem above. */
static inline int32_t mm_coll_rd_real(int32_t nr, int32_t rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

#endif /* MM_TOOLS_COLL_EMIT_H */
