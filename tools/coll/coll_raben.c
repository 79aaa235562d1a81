/*
 * coll_raben.c - Open MPI 4.1 coll/base algorithms made of halving and
 * doubling phases (docs/collectives.md), written from the algorithm
 * descriptions; facts (which peer, which part of the vector, fallbacks)
 * from Open MPI 4.1.4 ompi/mca/coll/base/coll_base_{allreduce,reduce,
 * bcast}.c:
 *   allreduce basic_linear: linear reduce to rank 0, then linear bcast;
 *   allreduce nonoverlapping: reduce to 0, then bcast from 0, each run by
 *     the algorithm tuned picks for it (desc.sub[0], desc.sub[1]);
 *   allreduce segmented ring with segment size 0 (what tuned passes): the
 *     ring (coll_algo.c), so it lives there;
 *   allreduce redscat_allgather and reduce redscat_gather (Rabenseifner);
 *   bcast scatter_allgather and scatter_allgather_ring.
 * Algorithms that are two collectives are expanded phase by phase through
 * mm_coll_expand on a description of each phase; their transfers carry the
 * tag of their phase (blocking) or the call's own (nonblocking).
 */
#include "coll_raben.h"
#include "coll_rsag.h"
#include "coll_pof2.h"

#include <stdio.h>
#include <string.h>

#include "stream.h"

#define A(x) (1ull << MM_ALG_##x)

uint64_t mm_coll_raben_algs(int family)
{
    switch (family) {
    case MM_COLL_ALLREDUCE: return A(LINEAR) | A(NONOVERLAPPING) | A(SEGMENTED_RING) |
                                   A(RABENSEIFNER) | A(RABENSEIFNER_MPICH);
    case MM_COLL_REDUCE:    return A(RABENSEIFNER) | A(RABENSEIFNER_MPICH);
    case MM_COLL_BCAST:     return A(SCATTER_ALLGATHER) | A(SCATTER_RING_ALLGATHER);
    default:                return 0;
    }
}

#undef A

static uint64_t elem_of(const mm_coll_desc *d) { return d->elem ? d->elem : 1; }
static uint64_t count_of(const mm_coll_desc *d) { return d->bytes / elem_of(d); }

static int is_scatter_bcast(const mm_coll_desc *d)
{
    return mm_coll_family(d->op) == MM_COLL_BCAST &&
           (d->alg == MM_ALG_SCATTER_ALLGATHER || d->alg == MM_ALG_SCATTER_RING_ALLGATHER);
}

static int is_raben(const mm_coll_desc *d)
{
    int fam = mm_coll_family(d->op);
    return (d->alg == MM_ALG_RABENSEIFNER || d->alg == MM_ALG_RABENSEIFNER_MPICH) &&
           (fam == MM_COLL_ALLREDUCE || fam == MM_COLL_REDUCE);
}

/* The phases of allreduce nonoverlapping: reduce to 0, then bcast from 0.
 * MM_ALG_AUTO in sub: binomial. */
static mm_coll_desc phase_desc(const mm_coll_desc *d, int which)
{
    mm_coll_desc s = *d;
    s.op = which == 0 ? MM_COLL_REDUCE : MM_COLL_BCAST;
    s.root = 0;
    s.sub[0] = s.sub[1] = MM_ALG_AUTO;
    if (d->alg == MM_ALG_NONOVERLAPPING)
        s.alg = d->sub[which] == MM_ALG_AUTO ? MM_ALG_BINOMIAL : d->sub[which];
    else /* basic_linear and the fallbacks: Open MPI calls the linear ones */
        s.alg = MM_ALG_LINEAR;
    return s;
}

/* Open MPI's Rabenseifner works while count >= pof2 (it falls back to the
 * basic linear algorithm below that, and for n = 1 has nothing to send);
 * MPICH's has no fallback (its selection calls it for count >= pof2 only;
 * below, some pieces are empty messages). */
static int raben_runs(const mm_coll_desc *d)
{
    return d->n >= 2 && (d->alg == MM_ALG_RABENSEIFNER_MPICH ||
                         count_of(d) >= (uint64_t)mm_pof2_floor(d->n));
}

/* scatter_allgather bcasts fall back to the linear bcast when count < n. */
static int scatter_runs(const mm_coll_desc *d)
{
    return d->n >= 2 && count_of(d) >= (uint64_t)d->n;
}

uint32_t mm_coll_raben_pieces(const mm_coll_model *m, const mm_coll_desc *d)
{
    int fam = mm_coll_family(d->op);
    if (fam == MM_COLL_ALLREDUCE && (d->alg == MM_ALG_RING || d->alg == MM_ALG_SEGMENTED_RING))
        return d->n >= 2 && count_of(d) >= (uint64_t)d->n ? (uint32_t)d->n : 0;
    if (is_raben(d))
        return raben_runs(d) ? (uint32_t)mm_pof2_floor(d->n) : 0;
    if (is_scatter_bcast(d))
        return scatter_runs(d) ? (uint32_t)d->n : 0;
    if (fam == MM_COLL_ALLREDUCE && d->alg == MM_ALG_NONOVERLAPPING) {
        /* the phase that cuts the vector gives the blocks (check: not both) */
        for (int w = 0; w < 2; w++) {
            mm_coll_desc s = phase_desc(d, w);
            uint32_t k = m->nblocks(&s);
            if (k > 1)
                return k;
        }
    }
    return 0;
}

/* Rabenseifner: the vector is halved log2(pof2) times, the lower rank of a
 * pair keeping the left floor(w/2) elements of a window of w. Piece b (in
 * vector order) is the window reached by taking the left half when a bit of
 * b, most significant first, is 0. */
static uint64_t raben_piece_count(uint64_t count, uint32_t pof2, uint32_t b)
{
    uint64_t w = count;
    for (uint32_t bit = pof2 >> 1; bit; bit >>= 1)
        w = (b & bit) ? w - w / 2 : w / 2;
    return w;
}

uint64_t mm_coll_raben_piece_bytes(const mm_coll_model *m, const mm_coll_desc *d, uint32_t b)
{
    uint64_t count = count_of(d);
    if (is_raben(d) && d->alg == MM_ALG_RABENSEIFNER_MPICH) /* equal pieces */
        return mm_coll_piece_bytes(d, (uint32_t)mm_pof2_floor(d->n), b);
    if (is_raben(d))
        return raben_piece_count(count, (uint32_t)mm_pof2_floor(d->n), b) * elem_of(d);
    if (is_scatter_bcast(d)) {
        /* ceil(count / n) elements per rank (vrank order), the last ones short */
        uint64_t sc = (count + (uint64_t)d->n - 1) / (uint64_t)d->n, at = (uint64_t)b * sc;
        return (at >= count ? 0 : count - at < sc ? count - at : sc) * elem_of(d);
    }
    if (d->alg == MM_ALG_NONOVERLAPPING) {
        for (int w = 0; w < 2; w++) {
            mm_coll_desc s = phase_desc(d, w);
            if (m->nblocks(&s) > 1)
                return m->block_bytes(&s, b);
        }
    }
    return mm_coll_piece_bytes(d, mm_coll_raben_pieces(m, d), b); /* the ring */
}

int mm_coll_raben_check(const mm_coll_model *m, const mm_coll_desc *d, char *err, size_t errlen)
{
    if (mm_coll_family(d->op) != MM_COLL_ALLREDUCE || d->alg != MM_ALG_NONOVERLAPPING)
        return MMS_OK;
    uint32_t cut = 0;
    for (int w = 0; w < 2; w++) {
        mm_coll_desc s = phase_desc(d, w);
        char sub[200];
        if (m->check(&s, sub, sizeof sub) != MMS_OK) {
            snprintf(err, errlen, "allreduce nonoverlapping: its %s phase: %s",
                     w == 0 ? "reduce" : "bcast", sub);
            return MMS_EFORMAT;
        }
        cut += m->nblocks(&s) > 1;
    }
    if (cut > 1) {
        snprintf(err, errlen, "allreduce nonoverlapping: a reduce and a bcast that both "
                 "cut the vector into pieces are not supported");
        return MMS_EFORMAT;
    }
    return MMS_OK;
}

/* ---- two collectives in a row ---- */

/* Expand phase s from step0 on (coll_rsag.c's mm_coll_phase); returns the
 * step after its last. */
static uint32_t run_phase(mm_coll_emitter *e, const mm_coll_desc *s, uint32_t step0, int tag_op)
{
    return step0 + mm_coll_phase(e, s, tag_op, step0);
}

/* Reduce to 0 (phase 0), then bcast from 0 (phase 1); only the first for
 * a reduce (Rabenseifner's fallback: the linear reduce to the root). */
static void reduce_then_bcast(mm_coll_emitter *e, int phases)
{
    const mm_coll_desc *d = e->d;
    int nb = mm_coll_nonblocking(d->op);
    uint32_t step = 0;
    for (int w = 0; w < phases; w++) {
        mm_coll_desc s = phase_desc(d, w);
        if (mm_coll_family(d->op) != MM_COLL_ALLREDUCE)
            s = *d, s.op = mm_coll_family(d->op), s.alg = MM_ALG_LINEAR;
        step = run_phase(e, &s, step, nb ? d->op : s.op);
    }
}

/* ---- Rabenseifner: reduce-scatter by recursive halving, then allgather
 * (allreduce) or gather (reduce) by recursive doubling ---- */

/* With rem = n - pof2 > 0 the first 2*rem ranks pair up (r even, r+1) and
 * one of each pair sits out. Open MPI: each sends the other the half it
 * does not keep (the odd one the left half, the even one the right), both
 * combine, then the odd one sends its right half to the even one, which
 * stays. MPICH: one rank sends its whole vector to the other, which stays:
 * the odd one in the allreduce, the even one in the reduce. Virtual rank v
 * is real rank 2v (2v+1 where the odd ones stay) below rem, v+rem above. */
typedef struct raben {
    mm_coll_emitter *e;
    int32_t  pof2, rem;
    uint32_t nsteps;  /* log2(pof2) */
    int      odd;     /* the odd rank of a folded pair stays (MPICH allreduce) */
} raben;

static int32_t raben_real(const raben *R, int32_t v)
{
    return v < R->rem ? 2 * v + R->odd : v + R->rem;
}

static raben raben_init(mm_coll_emitter *e)
{
    raben R = {e, mm_pof2_floor(e->d->n), 0, 0, 0};
    R.rem = e->d->n - R.pof2;
    while ((1 << R.nsteps) < R.pof2)
        R.nsteps++;
    R.odd = e->d->alg == MM_ALG_RABENSEIFNER_MPICH &&
            mm_coll_family(e->d->op) == MM_COLL_ALLREDUCE;
    return R;
}

/* The pieces virtual rank v holds after `level` halvings: level bits of v,
 * least significant first, pick left (0) or right (1) halves. */
static uint32_t raben_window(int32_t v, uint32_t level, uint32_t pof2)
{
    uint32_t at = 0;
    for (uint32_t i = 0; i < level; i++)
        at = (at << 1) | (((uint32_t)v >> i) & 1);
    return at * (pof2 >> level);
}

static uint32_t raben_fold_and_halve(const raben *R)
{
    mm_coll_emitter *e = R->e;
    int32_t pof2 = R->pof2, rem = R->rem;
    uint32_t half = (uint32_t)pof2 / 2, step = 0;
    if (rem > 0 && e->d->alg == MM_ALG_RABENSEIFNER_MPICH) {
        for (int32_t r = 0; r < 2 * rem; r += 2) /* the whole vector to the one that stays */
            mm_coll_put(e, 0, R->odd ? r : r + 1, R->odd ? r + 1 : r, 0, (uint32_t)pof2,
                        MM_XFER_REDUCE);
        step = 1;
    } else if (rem > 0) {
        for (int32_t r = 0; r < 2 * rem; r += 2) {
            mm_coll_put(e, 0, r, r + 1, half, half, MM_XFER_REDUCE);
            mm_coll_put(e, 0, r + 1, r, 0, half, MM_XFER_REDUCE);
        }
        for (int32_t r = 0; r < 2 * rem; r += 2)
            mm_coll_put(e, 1, r + 1, r, half, half, MM_XFER_COPY);
        step = 2;
    }
    for (uint32_t k = 0; k < R->nsteps; k++, step++)
        for (int32_t v = 0; v < pof2; v++) {
            int32_t peer = v ^ (1 << k);
            uint32_t len = (uint32_t)pof2 >> (k + 1);
            /* the peer keeps the half on its side */
            uint32_t at = raben_window(v, k, (uint32_t)pof2) + (v < peer ? len : 0);
            mm_coll_put(e, step, raben_real(R, v), raben_real(R, peer), at, len,
                        MM_XFER_REDUCE);
        }
    return step;
}

/* Allreduce: the halving undone by recursive doubling, then the ranks that
 * sat out get the whole result from their partner. */
static void allreduce_raben(mm_coll_emitter *e)
{
    raben R = raben_init(e);
    uint32_t step = raben_fold_and_halve(&R);
    for (uint32_t k = R.nsteps; k-- > 0; step++)
        for (int32_t v = 0; v < R.pof2; v++)
            mm_coll_put(e, step, raben_real(&R, v), raben_real(&R, v ^ (1 << k)),
                        raben_window(v, k + 1, (uint32_t)R.pof2), (uint32_t)R.pof2 >> (k + 1),
                        MM_XFER_COPY);
    for (int32_t r = 0; r < 2 * R.rem; r += 2)
        mm_coll_put(e, step, R.odd ? r + 1 : r, R.odd ? r : r + 1, 0, (uint32_t)R.pof2,
                    MM_XFER_COPY);
}

/* Reduce: after the halving the pieces go to the root's virtual rank on a
 * binomial tree, largest distance first: at distance 2^k the ranks whose
 * bits above k agree with vroot's and whose bit k does not send all they
 * hold. A root that sat out (odd, below 2*rem) first gets virtual rank 0's
 * piece from rank 0 and takes its place in the tree. */
static void reduce_raben(mm_coll_emitter *e)
{
    raben R = raben_init(e);
    int32_t root = e->d->root, pof2 = R.pof2, rem = R.rem;
    uint32_t step = raben_fold_and_halve(&R);
    int odd_root = root < 2 * rem && root % 2;
    int32_t vroot = root < 2 * rem ? (odd_root ? 0 : root / 2) : root - rem;
    if (odd_root)
        mm_coll_put(e, step++, 0, root, 0, 1, MM_XFER_COPY);
    for (uint32_t k = R.nsteps; k-- > 0; step++)
        for (int32_t v = 0; v < pof2; v++) {
            int32_t dst = v ^ (1 << k);
            if ((v >> (k + 1)) != (vroot >> (k + 1)) || ((v ^ vroot) >> k & 1) == 0)
                continue;
            mm_coll_put(e, step, raben_real(&R, v),
                        dst == 0 && odd_root ? root : raben_real(&R, dst),
                        raben_window(v, k + 1, (uint32_t)pof2), (uint32_t)pof2 >> (k + 1),
                        MM_XFER_COPY);
        }
}

/* ---- bcast: binomial scatter of ceil(count/n)-element pieces (piece v
 * for virtual rank v = rank - root), then an allgather ---- */

/* Binomial scatter, largest subtree first; a piece range with no data is
 * not sent (its first piece is empty: the pieces run out before it).
 * Returns the number of steps. MPICH's MPII_Scatter_for_bcast sends the
 * same messages of its own pieces (coll_mpich.c). */
uint32_t mm_coll_scatter_pieces(mm_coll_emitter *e)
{
    const mm_coll_desc *d = e->d;
    int64_t top = 1;
    uint32_t step = 0;
    while (top < d->n)
        top <<= 1;
    for (int64_t mask = top >> 1; mask >= 1; mask >>= 1, step++)
        for (int64_t vr = 0; vr + mask < d->n; vr += 2 * mask) {
            int64_t child = vr + mask, cnt = d->n - child < mask ? d->n - child : mask;
            if (e->m->block_bytes(d, (uint32_t)child))
                mm_coll_put(e, step, mm_coll_absr(d, vr), mm_coll_absr(d, child),
                            (uint32_t)child, (uint32_t)cnt, MM_XFER_COPY);
        }
    return step;
}

/* Recursive doubling on any n: at distance 2^k virtual rank v swaps the
 * pieces of its aligned group of 2^k with v ^ 2^k if that rank exists.
 * When the partner group is cut short by n, the members of v's group whose
 * partner existed pass the partner group's pieces on to the others by
 * recursive halving, one step per distance 2^(k-1) .. 1 (every message is
 * sent, empty or not). */
void mm_coll_allgather_doubling_pieces(mm_coll_emitter *e, uint32_t step)
{
    const mm_coll_desc *d = e->d;
    int32_t n = d->n;
    for (int32_t mask = 1; mask < n; mask <<= 1) {
        uint32_t k = 0;
        while ((1 << k) < mask)
            k++;
        for (int32_t v = 0; v < n; v++) {
            int32_t vt = v & ~(mask - 1);
            if ((v ^ mask) < n)
                mm_coll_put(e, step, mm_coll_absr(d, v), mm_coll_absr(d, v ^ mask), (uint32_t)vt,
                            (uint32_t)(n - vt < mask ? n - vt : mask), MM_XFER_COPY);
        }
        uint32_t sub = step + 1;
        for (int32_t rh = mask >> 1; rh > 0; rh >>= 1, sub++)
            for (int32_t v = 0; v < n; v++) {
                int32_t vt = v & ~(mask - 1), rt = vt ^ mask, have = n - vt - mask;
                int32_t peer = v ^ rh, tree = v & ~(2 * rh - 1);
                if (rt + mask > n && have > 0 && peer > v && v < tree + have &&
                    peer >= tree + have)
                    mm_coll_put(e, sub, mm_coll_absr(d, v), mm_coll_absr(d, peer), (uint32_t)rt,
                                (uint32_t)have, MM_XFER_COPY);
            }
        step += 1 + k;
    }
}

/* Ring: in step i virtual rank v passes piece v-i to v+1, empty or not. */
void mm_coll_allgather_ring_pieces(mm_coll_emitter *e, uint32_t step)
{
    const mm_coll_desc *d = e->d;
    for (int32_t i = 0; i + 1 < d->n; i++, step++)
        for (int32_t v = 0; v < d->n; v++)
            mm_coll_put(e, step, mm_coll_absr(d, v), mm_coll_absr(d, v + 1),
                        (uint32_t)mm_coll_mod((int64_t)v - i, d->n), 1, MM_XFER_COPY);
}

int mm_coll_raben_expand(mm_coll_emitter *e)
{
    const mm_coll_desc *d = e->d;
    int fam = mm_coll_family(d->op);
    if (!((mm_coll_raben_algs(fam) >> d->alg) & 1) || d->alg == MM_ALG_SEGMENTED_RING)
        return 0;
    if (d->n < 2)
        return 1;
    if (is_scatter_bcast(d)) {
        if (!scatter_runs(d)) {
            mm_coll_desc s = *d;
            s.op = MM_COLL_BCAST;
            s.alg = MM_ALG_LINEAR;
            run_phase(e, &s, 0, mm_coll_nonblocking(d->op) ? d->op : MM_COLL_BCAST);
        } else if (d->alg == MM_ALG_SCATTER_ALLGATHER) {
            mm_coll_allgather_doubling_pieces(e, mm_coll_scatter_pieces(e));
        } else {
            mm_coll_allgather_ring_pieces(e, mm_coll_scatter_pieces(e));
        }
    } else if (is_raben(d) && raben_runs(d)) {
        if (fam == MM_COLL_ALLREDUCE)
            allreduce_raben(e);
        else
            reduce_raben(e);
    } else {
        reduce_then_bcast(e, fam == MM_COLL_ALLREDUCE ? 2 : 1);
    }
    return 1;
}
