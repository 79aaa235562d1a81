/*
 * coll_rsag.c - Open MPI 4.1 coll/base algorithms for barrier,
 * reduce_scatter, reduce_scatter_block and allgatherv (coll_rsag.h,
 * docs/collectives.md), written from the algorithms' descriptions in
 * Open MPI 4.1.4's coll_base_barrier.c, coll_base_reduce_scatter.c,
 * coll_base_reduce_scatter_block.c and coll_base_allgatherv.c: which peer
 * each step talks to and how much it sends. Checked message by message
 * against the installed Open MPI 4.1.4 (pml monitoring, n = 2..9).
 */
#include "coll_rsag.h"
#include "coll_pof2.h"

#include <stdio.h>

#include "stream.h"

/* ---- composite algorithms: one collective as a phase of another ---- */

typedef struct phase {
    mm_coll_emitter *outer;
    uint32_t step0, steps, sub_nb;
    int tag_op;
} phase;

static int phase_put(void *ctx, const mm_coll_xfer *x)
{
    phase *p = ctx;
    mm_coll_emitter *e = p->outer;
    /* a one-block phase (reduce, bcast of the whole vector) carries all of
     * the call's blocks; otherwise the blocks are the call's own */
    uint32_t blk = p->sub_nb == 1 ? 0 : x->blk, nblk = p->sub_nb == 1 ? e->nb : x->nblk;
    int saved = e->tag_op;
    e->tag_op = p->tag_op;
    mm_coll_put(e, p->step0 + x->step, x->src, x->dst, blk, nblk, x->mode);
    e->tag_op = saved;
    if (x->step + 1 > p->steps)
        p->steps = x->step + 1;
    return e->rc;
}

uint32_t mm_coll_phase(mm_coll_emitter *e, const mm_coll_desc *sub, int tag_op,
                       uint32_t step0)
{
    phase p = {e, step0, 0, e->m->nblocks(sub), tag_op};
    char err[128];
    if (e->rc)
        return 0;
    int rc = e->m->expand(sub, phase_put, &p, err, sizeof err);
    if (rc && !e->rc)
        e->rc = rc;
    return e->rc ? 0 : p.steps;
}

int mm_coll_phase_check(const mm_coll_model *m, const mm_coll_desc *d,
                        const mm_coll_desc *sub, char *err, size_t errlen)
{
    int rc = m->check(sub, err, errlen);
    if (rc != MMS_OK)
        return rc;
    uint32_t nb = m->nblocks(sub), want = m->nblocks(d);
    if (nb != 1 && nb != want) {
        snprintf(err, errlen, "%s phase of %s/%s: algorithm '%s' cuts the data into %lu "
                 "pieces, not whole blocks", mm_coll_name(sub->op), mm_coll_name(d->op),
                 mm_coll_alg_name(d->alg), mm_coll_alg_name(sub->alg), (unsigned long)nb);
        return MMS_EFORMAT;
    }
    return MMS_OK;
}

/* The two phases of the composite algorithms, as descriptions. */
static void composite_phases(const mm_coll_desc *d, mm_coll_desc ph[2], int tag[2])
{
    int nb = mm_coll_nonblocking(d->op);
    uint64_t all = (uint64_t)d->n * d->bytes;
    for (int i = 0; i < 2; i++) {
        ph[i] = *d;
        ph[i].root = 0;
        ph[i].sub[0] = ph[i].sub[1] = MM_ALG_AUTO;
    }
    if (d->alg == MM_ALG_GATHER_BCAST) {
        /* Open MPI allgatherv "default": coll/basic's gatherv to 0, then
         * the communicator's bcast of the whole receive vector; allgather
         * basic_linear: the communicator's gather, then its bcast */
        ph[0].op = d->op == MM_COLL_ALLGATHERV ? MM_COLL_GATHERV : MM_COLL_GATHER;
        ph[0].alg = d->sub[0] ? d->sub[0] : MM_ALG_LINEAR;
        ph[1].op = MM_COLL_BCAST;
        ph[1].alg = d->sub[1] ? d->sub[1] : MM_ALG_BINOMIAL;
        ph[1].bytes = all;
    } else {
        /* reduce_scatter nonoverlapping / reduce_scatter_block basic_linear:
         * the communicator's reduce of the whole vector to 0, then its
         * scatterv (reduce_scatter) or scatter (reduce_scatter_block) */
        ph[0].op = MM_COLL_REDUCE;
        ph[0].alg = d->sub[0] ? d->sub[0] : MM_ALG_BINOMIAL;
        ph[0].bytes = all;
        int blk = d->op == MM_COLL_REDUCE_SCATTER_BLOCK ||
                  d->op == MM_COLL_IREDUCE_SCATTER_BLOCK;
        ph[1].op = blk ? MM_COLL_SCATTER : MM_COLL_SCATTERV;
        ph[1].alg = d->sub[1] ? d->sub[1] : MM_ALG_LINEAR;
    }
    /* a nonblocking call is one libnbc schedule with one tag */
    for (int i = 0; i < 2; i++)
        tag[i] = nb ? d->op : ph[i].op;
}

static void two_phases(mm_coll_emitter *e)
{
    mm_coll_desc ph[2];
    int tag[2];
    composite_phases(e->d, ph, tag);
    uint32_t steps = mm_coll_phase(e, &ph[0], tag[0], 0);
    mm_coll_phase(e, &ph[1], tag[1], steps);
}

void mm_coll_reduce_then_scatter(mm_coll_emitter *e) { two_phases(e); }
void mm_coll_gather_then_bcast(mm_coll_emitter *e) { two_phases(e); }

int mm_coll_rsag_op_valid(int op, int alg)
{
    switch (alg) {
    case MM_ALG_GATHER_BCAST:
        return mm_coll_family(op) == MM_COLL_ALLGATHER;
    default:
        return 1;
    }
}

int mm_coll_rsag_check(const mm_coll_model *m, const mm_coll_desc *d, char *err, size_t errlen)
{
    if (d->alg == MM_ALG_GATHER_BCAST ||
        (d->alg == MM_ALG_NONOVERLAPPING && mm_coll_family(d->op) == MM_COLL_REDUCE_SCATTER)) {
        mm_coll_desc ph[2];
        int tag[2];
        composite_phases(d, ph, tag);
        for (int i = 0; i < 2; i++) {
            int rc = mm_coll_phase_check(m, d, &ph[i], err, errlen);
            if (rc != MMS_OK)
                return rc;
        }
    }
    return MMS_OK;
}

/* ---- barrier ---- */

/* basic_linear: every rank signals rank 0, which waits for all, then
 * releases every rank. */
void mm_coll_barrier_linear(mm_coll_emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t r = 1; r < n; r++)
        mm_coll_put(e, 0, r, 0, 0, 1, MM_XFER_SYNC);
    for (int32_t r = 1; r < n; r++)
        mm_coll_put(e, 1, 0, r, 0, 1, MM_XFER_SYNC);
}

/* tree: a binomial fan-in to rank 0 over rank XOR 2^k (the rank whose
 * lowest set bit is 2^k signals rank - 2^k once its own subtree has
 * signalled it: step k), then the same tree in reverse, largest distance
 * first (step L + j, distance 2^(L-1-j), L = ceil(log2 n)). */
void mm_coll_barrier_tree(mm_coll_emitter *e)
{
    int32_t n = e->d->n;
    uint32_t levels = 0;
    while ((1ll << levels) < n)
        levels++;
    for (uint32_t k = 0; k < levels; k++)
        for (int64_t r = 1ll << k; r < n; r += 2ll << k)
            mm_coll_put(e, k, (int32_t)r, (int32_t)(r - (1ll << k)), 0, 1, MM_XFER_SYNC);
    for (uint32_t j = 0; j < levels; j++) {
        int64_t dist = 1ll << (levels - 1 - j);
        for (int64_t r = dist; r < n; r += 2 * dist)
            mm_coll_put(e, levels + j, (int32_t)(r - dist), (int32_t)r, 0, 1, MM_XFER_SYNC);
    }
}

/* recursive doubling (Open MPI): with pof2 the largest power of two <= n,
 * every rank r >= pof2 first signals r - pof2; ranks below pof2 exchange
 * with r XOR 2^k, k = 0 .. log2(pof2)-1; then r < n - pof2 releases
 * r + pof2. */
void mm_coll_barrier_rd_ompi(mm_coll_emitter *e)
{
    int32_t n = e->d->n, pof2 = mm_pof2_floor(n);
    uint32_t step = 0;
    if (pof2 < n) {
        for (int32_t r = pof2; r < n; r++)
            mm_coll_put(e, step, r, r - pof2, 0, 1, MM_XFER_SYNC);
        step++;
    }
    for (int32_t mask = 1; mask < pof2; mask <<= 1, step++)
        for (int32_t r = 0; r < pof2; r++)
            mm_coll_put(e, step, r, r ^ mask, 0, 1, MM_XFER_SYNC);
    for (int32_t r = pof2; r < n; r++)
        mm_coll_put(e, step, r - pof2, r, 0, 1, MM_XFER_SYNC);
}

/* ---- reduce_scatter(_block) ---- */

/* With rem = n - pof2 ranks folded in pairs (the even rank of each of the
 * first rem pairs hands its vector to the odd one), virtual rank v answers
 * for the blocks of real ranks vfirst(v) .. vfirst(v+1)-1. */
static int32_t vfirst(int32_t v, int32_t rem) { return v < rem ? 2 * v : v + rem; }

/* v with its log2(pof2) low bits reversed (Open MPI's mirror permutation). */
static int32_t mirror(int32_t v, int32_t pof2)
{
    int32_t m = 0;
    for (int32_t bit = 1, b = pof2 / 2; bit < pof2; bit <<= 1, b >>= 1)
        if (v & bit)
            m |= b;
    return m;
}

int mm_coll_rsb_mirrored(const mm_coll_desc *d)
{
    return d->alg == MM_ALG_BUTTERFLY && mm_is_pof2(d->n) &&
           (d->op == MM_COLL_REDUCE_SCATTER_BLOCK || d->op == MM_COLL_IREDUCE_SCATTER_BLOCK);
}

uint32_t mm_coll_rsb_block(const mm_coll_desc *d, const mm_coll_xfer *x, uint32_t k)
{
    return (uint32_t)mirror((int32_t)((x->blk + k) % (uint32_t)d->n), d->n);
}

/* Butterfly (Open MPI reduce_scatter butterfly; reduce_scatter_block
 * butterfly). reduce_scatter_block on a power of two n
 * (..._butterfly_pof2) first stores block b at position mirror(b) and
 * halves windows of positions: a message carries the blocks at positions
 * blk .. blk+nblk-1 (mm_coll_rsb_block), and v ends with position
 * mirror(v), its own block, so no last step. Otherwise: step 0 folds as above. Then, for
 * mask = 1, 2, ..., pof2/2, virtual rank v and v XOR mask split their
 * window of virtual blocks (all pof2 at first) in halves: the one with the
 * mask bit clear keeps the lower half and sends the upper one, the other
 * the reverse, and each adds what it receives. v ends with virtual block
 * mirror(v) (log2 pof2 bits reversed); a last step sends it to the ranks it
 * belongs to: the even rank of a folded pair first, then the odd one (or
 * the rank itself, no message). */
void mm_coll_rs_butterfly(mm_coll_emitter *e)
{
    int32_t n = e->d->n, pof2 = mm_pof2_floor(n), rem = n - pof2;
    uint32_t step = 0;
    if (n < 2)
        return;
    if (rem > 0) {
        for (int32_t r = 0; r < 2 * rem; r += 2)
            mm_coll_put(e, step, r, r + 1, 0, (uint32_t)n, MM_XFER_REDUCE);
        step++;
    }
    for (int32_t mask = 1; mask < pof2; mask <<= 1, step++)
        for (int32_t v = 0; v < pof2; v++) {
            /* v's window before this step: its lower bits chose halves */
            int32_t lo = 0, len = pof2;
            for (int32_t m = 1; m < mask; m <<= 1) {
                len /= 2;
                if (v & m)
                    lo += len;
            }
            len /= 2;
            int32_t give = v & mask ? lo : lo + len;
            int32_t first = vfirst(give, rem), end = vfirst(give + len, rem);
            mm_coll_put(e, step, mm_coll_rd_real(v, rem), mm_coll_rd_real(v ^ mask, rem),
                        (uint32_t)first, (uint32_t)(end - first), MM_XFER_REDUCE);
        }
    for (int32_t v = 0; v < pof2 && !mm_coll_rsb_mirrored(e->d); v++) {
        int32_t held = mirror(v, pof2); /* the virtual block v ends with */
        int32_t me = mm_coll_rd_real(v, rem), peer = mm_coll_rd_real(held, rem);
        if (held < rem)
            mm_coll_put(e, step, me, peer - 1, (uint32_t)(peer - 1), 1, MM_XFER_COPY);
        if (held != v)
            mm_coll_put(e, step, me, peer, (uint32_t)peer, 1, MM_XFER_COPY);
    }
}

/* The blocks outside [first, min(first + mask, n)): what a rank of the
 * aligned group of mask ranks from first sends in recursive doubling. */
static void outside_group(int32_t first, int32_t mask, int32_t n, uint32_t *blk,
                          uint32_t *nblk)
{
    int32_t end = first + mask < n ? first + mask : n;
    *blk = (uint32_t)(end % n);
    *nblk = (uint32_t)(n - (end - first));
}

/* Recursive doubling (Open MPI 4.1.4 reduce_scatter_block_intra_
 * recursivedoubling; MPICH 4.0.2 MPIR_Reduce_scatter(_block)_intra_
 * recursive_doubling and their sched_ versions, from which Open MPI's was
 * derived: the same messages, see below): for mask = 1, 2, 4, ... rank r sends r XOR mask, if
 * that rank exists, its partial sums of every block outside its own
 * aligned group of mask ranks (cut at n) and adds what it gets. On n not a
 * power of two the last aligned pair of groups may be cut short: its lower
 * group G (from g) then has partners for its first nad = n - g - mask
 * ranks only, and the message each of those received goes on, unchanged,
 * to the ranks without one, in one blocking step per rh = mask/2, ..., 1:
 * r sends to r + rh when, with t = r rounded down to a multiple of 2*rh,
 * r < t + nad <= r + rh (Open MPI's test, t taken per subgroup). What goes
 * on is what the sender received (MM_XFER_FORWARD), the blocks outside
 * the upper group.
 * MPICH (reduce_scatter_intra_recursive_doubling.c at v4.0.2; the _block
 * and sched_ files differ only in equal counts and in scheduling the same
 * sends and receives): MPIC_Sendrecv with rank ^ mask of the blocks outside
 * my_tree_root .. +mask (sendtype) for those outside dst_tree_root .. +mask
 * (recvtype); when dst_tree_root + mask > comm_size, nprocs_completed =
 * comm_size - my_tree_root - mask (our nad) and, for tmp_mask = mask/2 ..
 * 1 with tree_root = rank rounded down to 2 * tmp_mask, rank sends
 * tmp_recvbuf (what it received) to rank ^ tmp_mask when rank < tree_root +
 * nprocs_completed <= rank ^ tmp_mask: our test, with equal blocks the
 * same bytes. MPICH keeps the operands in rank order (received data from a
 * lower group on the left: recv op mine; from a higher group: mine op
 * recv), so a noncommutative op is right; the model's reductions are
 * sets, and the data-flow test checks which contributions each block
 * holds, not their order. A reduce_scatter whose counts are all 0 sends
 * nothing in MPICH (total_count == 0; reduce_scatter_block: recvcount ==
 * 0 returns before the algorithm); the expansion, like every other one
 * here, still lists the empty messages. */
void mm_coll_rsb_recursive_doubling(mm_coll_emitter *e)
{
    int32_t n = e->d->n;
    uint32_t step = 0, blk, nblk;
    for (int32_t mask = 1; mask < n; mask <<= 1) {
        for (int32_t r = 0; r < n; r++) {
            if ((r ^ mask) >= n)
                continue;
            outside_group(r & ~(mask - 1), mask, n, &blk, &nblk);
            mm_coll_put(e, step, r, r ^ mask, blk, nblk, MM_XFER_REDUCE);
        }
        step++;
        int32_t g = (n - 1) & ~(2 * mask - 1), nad = n - g - mask;
        if (g + 2 * mask <= n || nad <= 0)
            continue; /* no cut pair, or no upper group at all */
        outside_group(g + mask, mask, n, &blk, &nblk);
        for (int32_t rh = mask / 2; rh > 0; rh /= 2) {
            int sent = 0;
            for (int32_t r = g; r < g + mask; r++) {
                int32_t t = r & ~(2 * rh - 1), to = r ^ rh;
                if (to > r && r < t + nad && to >= t + nad) {
                    mm_coll_put(e, step, r, to, blk, nblk, MM_XFER_FORWARD);
                    sent = 1;
                }
            }
            step += (uint32_t)sent;
        }
    }
}
