/*
 * coll_emit.c - the emitter the algorithm files write transfers through
 * (coll_emit.h).
 */
#include "coll_emit.h"

#include <string.h>

/* A vector of bytes / elem elements cut into k pieces between elements:
 * the first (count mod k) pieces one element longer (Open MPI's and MPICH's
 * split; with elem 1, pieces differ by at most one byte). */
uint64_t mm_coll_piece_bytes(const mm_coll_desc *d, uint32_t k, uint32_t b)
{
    uint64_t elem = d->elem ? d->elem : 1, count = d->bytes / elem;
    return (count / k + (b < count % k ? 1 : 0)) * elem;
}

/* Emit one transfer; its bytes are the sizes of the blocks it carries. */
void mm_coll_put(mm_coll_emitter *e, uint32_t step, int32_t src, int32_t dst,
                 uint32_t blk, uint32_t nblk, int mode)
{
    if (e->rc)
        return;
    mm_coll_xfer x;
    memset(&x, 0, sizeof x); /* padding too: arrays of transfers compare bytewise */
    x.step = step;
    x.src = src;
    x.dst = dst;
    x.blk = blk % e->nb;
    x.nblk = nblk;
    x.mode = (uint8_t)mode;
    x.tag_op = (uint8_t)e->tag_op;
    if (e->m->pieces(e->d)) {
        x.bytes = 0;
        for (uint32_t i = 0; i < nblk; i++)
            x.bytes += e->m->block_bytes(e->d, (blk + i) % e->nb);
    } else {
        x.bytes = (uint64_t)nblk * e->m->block_bytes(e->d, 0);
    }
    e->rc = e->fn(e->ctx, &x);
}
