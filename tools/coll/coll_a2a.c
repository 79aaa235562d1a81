/*
 * coll_a2a.c - Open MPI 4.1 coll/base alltoall and gather algorithms that
 * the older schedules in coll_algo.c do not cover (docs/collectives.md):
 * the modified Bruck alltoall and the linear_sync gather. Written from the
 * algorithm descriptions; which peer a step talks to, how many blocks a
 * message packs and which messages are empty were read in Open MPI v4.1.4
 * ompi/mca/coll/base/coll_base_{alltoall,gather}.c and checked against the
 * installed library with pml monitoring.
 */
#include "coll_a2a.h"

/* Two more Open MPI 4.1 algorithms send exactly the messages of an older
 * schedule, so mm_coll_expand runs that one for them:
 *
 * linear_sync alltoall (ompi_coll_base_alltoall_intra_linear_sync) keeps at
 * most max_requests receives and as many sends outstanding, refilling as
 * they complete; tuned passes ompi_coll_tuned_alltoall_max_requests, whose
 * default 0 (MCA coll_tuned_alltoall_algorithm_max_requests) means no
 * limit: every rank posts its n-1 receives, from rank+1, rank+2, ..., and
 * its n-1 sends, to rank-1, rank-2, ..., at once, as basic_linear does.
 *
 * linear_nb scatter (ompi_coll_base_scatter_intra_linear_nb): the root
 * sends every other rank its block in rank order with isend, every
 * max_reqs-th one a blocking send; tuned passes
 * ompi_coll_tuned_scatter_blocking_send_ratio, default 0: all isends. Each
 * receiver takes one message, as in basic_linear.
 *
 * The two_procs alltoall (n = 2 only) is one exchange of the blocks, the
 * single step of the pairwise alltoall at n = 2. */

/* Modified Bruck alltoall (ompi_coll_base_alltoall_intra_bruck). Every rank
 * first rotates its send buffer so that its slot i holds the block for
 * rank + i. In the step with distance 2^j (j = 0 .. ceil(log2 n) - 1) it
 * sends to rank + 2^j, in one message of an indexed datatype, every slot i
 * in 1 .. n-1 whose bit 2^j is set, and receives the same slots from
 * rank - 2^j into them. So a block travels from its source s to its
 * destination s + i through the partial sums of i's bits, and before the
 * step with distance d the slot i of holder h holds the block of source
 * s = h - (i mod d), destination s + i. The slots with bit d set are the
 * runs d .. 2d-1, 3d .. 4d-1, ...: the k-th is 2d*(k/d) + d + k%d. */
static uint32_t bruck_slots(int32_t n, int64_t dist)
{
    uint32_t cnt = 0;
    for (int64_t i = dist; i < n; i += 2 * dist) /* each run, cut at n */
        cnt += (uint32_t)(n - i < dist ? n - i : dist);
    return cnt;
}

uint32_t mm_coll_bruck_block(int32_t n, int32_t holder, int64_t dist, uint32_t k)
{
    int64_t q = k % dist, i = 2 * dist * (k / dist) + dist + q;
    int32_t s = mm_coll_mod(holder - q, n), t = mm_coll_mod(s + i, n);
    return (uint32_t)s * (uint32_t)n + (uint32_t)t;
}

void mm_coll_alltoall_bruck(mm_coll_emitter *e)
{
    int32_t n = e->d->n;
    uint32_t step = 0;
    for (int64_t dist = 1; dist < n; dist <<= 1, step++) {
        uint32_t cnt = bruck_slots(n, dist);
        for (int32_t r = 0; r < n; r++)
            mm_coll_put(e, step, r, mm_coll_mod(r + dist, n), mm_coll_bruck_block(n, r, dist, 0),
                        cnt, MM_XFER_COPY);
    }
}

/* Linear_sync gather (ompi_coll_base_gather_intra_linear_sync). The root
 * takes the other ranks one after the other in rank order: it sends rank i
 * an empty message that allows i to start, then waits for i's first
 * segment; i sends its first segment and then the rest of its block. The
 * first segment is first_segment_size bytes rounded to elements; tuned
 * passes the segment size 0 (its fixed decision, and the default
 * coll_tuned_gather_algorithm_segmentsize when the algorithm is forced),
 * and a size of 0 leaves the first segment the whole block, so the rest is
 * an empty message. Per peer: the sync in one step, both segments in the
 * next. */
void mm_coll_gather_linear_sync(mm_coll_emitter *e)
{
    const mm_coll_desc *d = e->d;
    uint32_t step = 0;
    for (int32_t i = 0; i < d->n; i++) {
        if (i == d->root)
            continue;
        mm_coll_put(e, step, d->root, i, 0, 0, MM_XFER_SYNC);
        mm_coll_put(e, step + 1, i, d->root, (uint32_t)i, 1, MM_XFER_COPY);
        mm_coll_put(e, step + 1, i, d->root, 0, 0, MM_XFER_SYNC);
        step += 2;
    }
}
