/*
 * coll_algo.c - collective algorithms expanded into point-to-point transfers
 * (coll_algo.h, docs/collectives.md). Written from the textbook algorithms
 * (Thakur, Rabenseifner, Gropp 2005; Bruck et al. 1997; Hensgen et al. 1988
 * for dissemination); only published facts (tags, thresholds, which peer a
 * step talks to) come from Open MPI and MPICH. The selection rules are in
 * coll_auto.c.
 */
#include "coll_algo.h"
#include "coll_a2a.h"
#include "coll_bcast_reduce_trees.h"
#include "coll_emit.h"
#include "coll_nbc.h"
#include "coll_mpich.h"
#include "coll_pof2.h"
#include "coll_rsag.h"
#include "coll_mpich_comp.h"
#include "coll_raben.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"


#define A(x) (1ull << MM_ALG_##x)

/* The algorithms implemented for each family, one bit per enum mm_coll_alg. */
static uint64_t valid_algs(int family)
{
    switch (family) {
    case MM_COLL_GATHER:    return A(LINEAR) | A(DIRECT) | A(BINOMIAL) | A(LINEAR_SYNC);
    case MM_COLL_BCAST:     return A(LINEAR) | A(BINOMIAL) |
                                   A(CHAIN) | A(PIPELINE) | A(SPLIT_BINARY) | A(BINARY) |
                                   A(KNOMIAL) | A(BMTREE) | A(MPICH_COMPOSITION);
    case MM_COLL_REDUCE:    return A(LINEAR) | A(BINOMIAL) |
                                   A(CHAIN) | A(PIPELINE) | A(BINARY) | A(IN_ORDER_BINARY) |
                                   A(MPICH_COMPOSITION);
    case MM_COLL_ALLREDUCE: return A(RECURSIVE_DOUBLING) | A(RING) | A(MPICH_COMPOSITION);
    case MM_COLL_ALLGATHER: return A(LINEAR) | A(RING) | A(BRUCK) | A(RECURSIVE_DOUBLING) |
                                   A(NEIGHBOR_EXCHANGE) | A(GATHER_BCAST);
    case MM_COLL_BARRIER:   return A(DISSEMINATION) | A(RECURSIVE_DOUBLING) | A(LINEAR) |
                                   A(TREE) | A(MPICH_COMPOSITION);
    case MM_COLL_ALLTOALL:  return A(LINEAR) | A(PAIRWISE) | A(MODIFIED_BRUCK) | A(LINEAR_SYNC);
    case MM_COLL_SCATTER:   return A(LINEAR) | A(BINOMIAL) | A(LINEAR_NB);
    case MM_COLL_REDUCE_SCATTER:
        return A(RECURSIVE_HALVING) | A(RING) | A(PAIRWISE) | A(NONOVERLAPPING) |
               A(BUTTERFLY) | A(RECURSIVE_DOUBLING);
    case MM_COLL_SCAN:      return A(LINEAR) | A(RECURSIVE_DOUBLING) | A(MPICH_COMPOSITION);
    case MM_COLL_EXSCAN:    return A(LINEAR) | A(RECURSIVE_DOUBLING);
    default:                return 0;
    }
}

#undef A

int mm_coll_alg_valid(int op, int alg)
{
    int fam = mm_coll_family(op);
    return alg > MM_ALG_AUTO && alg < MM_ALG_COUNT &&
           ((valid_algs(fam) | mm_coll_raben_algs(fam) | mm_coll_nbc_algs(fam) |
             mm_coll_mpich_algs(fam)) >> alg) & 1 &&
           mm_coll_rsag_op_valid(op, alg);
}

static uint32_t vector_pieces(const mm_coll_desc *d);

/* The model as the algorithm files see it (coll_emit.h): every composite
 * algorithm reaches its parts through it. */
static const mm_coll_model model = {
    mm_coll_check, mm_coll_nblocks, mm_coll_block_bytes, vector_pieces, mm_coll_expand,
    mm_coll_select,
};

int mm_coll_check(const mm_coll_desc *d, char *err, size_t errlen)
{
    const char *opn = mm_coll_name(d->op);
    int fam = mm_coll_family(d->op);
    if (fam < 0) {
        snprintf(err, errlen, "operation %d (%s) is not a collective with a point-to-point "
                 "expansion", d->op, opn ? opn : "unknown");
        return MMS_EFORMAT;
    }
    if (!mm_coll_alg_valid(d->op, d->alg)) {
        snprintf(err, errlen, "algorithm '%s' does not exist for %s",
                 mm_coll_alg_name(d->alg) ? mm_coll_alg_name(d->alg) : "?", opn);
        return MMS_EFORMAT;
    }
    int32_t maxn = fam == MM_COLL_ALLTOALL ? MM_COLL_MAX_N_A2A : MM_COLL_MAX_N;
    if (d->n < 1 || d->n > maxn) {
        snprintf(err, errlen, "communicator size %ld outside 1..%ld for %s",
                 (long)d->n, (long)maxn, opn);
        return MMS_EFORMAT;
    }
    int rooted = fam == MM_COLL_GATHER || fam == MM_COLL_BCAST || fam == MM_COLL_REDUCE ||
                 fam == MM_COLL_SCATTER;
    if (rooted && (d->root < 0 || d->root >= d->n)) {
        snprintf(err, errlen, "root %ld outside 0..%ld", (long)d->root, (long)d->n - 1);
        return MMS_EFORMAT;
    }
    if (fam == MM_COLL_ALLGATHER && d->alg == MM_ALG_RECURSIVE_DOUBLING && !mm_is_pof2(d->n)) {
        snprintf(err, errlen, "recursive-doubling allgather needs a power-of-two "
                 "communicator size, not %ld (use bruck or ring)", (long)d->n);
        return MMS_EFORMAT;
    }
    if (fam == MM_COLL_ALLGATHER && d->alg == MM_ALG_NEIGHBOR_EXCHANGE && d->n % 2) {
        snprintf(err, errlen, "neighbor-exchange allgather needs an even communicator "
                 "size, not %ld (use ring)", (long)d->n);
        return MMS_EFORMAT;
    }
    if (mm_coll_nbc_alg(d->alg))
        return mm_coll_nbc_check(d, err, errlen);
    int rc = mm_coll_rsag_check(&model, d, err, errlen);
    if (rc == MMS_OK)
        rc = mm_coll_mpich_check(d, err, errlen);
    if (rc == MMS_OK)
        rc = mm_coll_mpich_comp_check(&model, d, err, errlen);
    return rc != MMS_OK ? rc : mm_coll_raben_check(&model, d, err, errlen);
}

/* ---- blocks ---- */

/* Algorithms that cut the vector into pieces (the ring allreduce: n
 * segments, when count >= n) and how many. 0: the blocks are whole
 * (mm_coll_nblocks). */
static uint32_t vector_pieces(const mm_coll_desc *d)
{
    if (mm_coll_nbc_alg(d->alg))
        return mm_coll_nbc_pieces(d);
    if (mm_coll_family(d->op) == MM_COLL_BCAST && d->alg == MM_ALG_SPLIT_BINARY)
        return 2; /* the two halves */
    if (mm_coll_mpich_pieces(d))
        return mm_coll_mpich_pieces(d);
    if (d->alg == MM_ALG_MPICH_COMPOSITION)
        return mm_coll_mpich_comp_pieces(&model, d); /* the union of its phases' cuts */
    return mm_coll_raben_pieces(&model, d);
}

uint32_t mm_coll_nblocks(const mm_coll_desc *d)
{
    uint32_t k = vector_pieces(d);
    if (k)
        return k;
    switch (mm_coll_family(d->op)) {
    case MM_COLL_GATHER:
    case MM_COLL_ALLGATHER:
    case MM_COLL_SCATTER:
    case MM_COLL_REDUCE_SCATTER:
        return (uint32_t)d->n;
    case MM_COLL_SCAN:
    case MM_COLL_EXSCAN:
        return 2;
    case MM_COLL_ALLTOALL:
        return (uint32_t)d->n * (uint32_t)d->n;
    default:
        return 1;
    }
}


uint64_t mm_coll_block_bytes(const mm_coll_desc *d, uint32_t b)
{
    if (mm_coll_family(d->op) == MM_COLL_BARRIER)
        return 0;
    uint32_t k = vector_pieces(d);
    if (!k)
        return d->bytes;
    if (mm_coll_nbc_alg(d->alg))
        return mm_coll_nbc_block_bytes(d, b);
    if (mm_coll_mpich_pieces(d)) /* MPICH's bcast pieces: cut in bytes */
        return mm_coll_mpich_piece_bytes(d, b);
    if (d->alg == MM_ALG_MPICH_COMPOSITION)
        return mm_coll_mpich_comp_piece_bytes(&model, d, b);
    /* Rabenseifner's halves and the scatter pieces have their own sizes */
    return mm_coll_raben_pieces(&model, d) ? mm_coll_raben_piece_bytes(&model, d, b)
                                          : mm_coll_piece_bytes(d, k, b);
}

/* ---- the expansion ---- */


#define put   mm_coll_put
#define mod   mm_coll_mod
#define absr  mm_coll_absr
typedef mm_coll_emitter emitter;

/* Linear gather (Open MPI basic_linear): the root receives from every other
 * rank in rank order, one blocking receive after the other, so peer i is
 * step i. Linear reduce: the same in descending rank order (Open MPI starts
 * at n-1 to keep non-commutative operations in order). Direct gather: all
 * receives posted at once (MVAPICH2 "direct", libnbc igather). */
static void root_collects(emitter *e, int mode, int descending, int one_step)
{
    const mm_coll_desc *d = e->d;
    uint32_t step = 0;
    for (int32_t i = 0; i < d->n; i++) {
        int32_t p = descending ? d->n - 1 - i : i;
        if (p == d->root)
            continue;
        put(e, step, p, d->root, mode == MM_XFER_REDUCE ? 0 : (uint32_t)p, 1, mode);
        if (!one_step)
            step++;
    }
}

/* Binomial tree towards the root: in step k (mask 2^k) every relative rank
 * vr that is a multiple of 2*mask receives from vr+mask what that rank's
 * subtree holds: the blocks of relative ranks vr+mask .. vr+2*mask-1 (cut at
 * n) for gather, the partial sum of blocks 0 .. nred-1 for reduce. Returns
 * the number of steps, ceil(log2 n). */
static uint32_t binomial_up(emitter *e, int mode, uint32_t nred)
{
    const mm_coll_desc *d = e->d;
    uint32_t step = 0;
    for (int64_t mask = 1; mask < d->n; mask <<= 1, step++)
        for (int64_t vr = 0; vr + mask < d->n; vr += 2 * mask) {
            int64_t child = vr + mask;
            int64_t cnt = d->n - child < mask ? d->n - child : mask;
            if (mode == MM_XFER_REDUCE)
                put(e, step, absr(d, child), absr(d, vr), 0, nred, mode);
            else
                put(e, step, absr(d, child), absr(d, vr), (uint32_t)absr(d, child),
                    (uint32_t)cnt, mode);
        }
    return step;
}

/* Binomial bcast and scatter: the mirror image. With 2^L >= n > 2^(L-1),
 * step k uses mask 2^(L-1-k): every vr that is a multiple of 2*mask (it has
 * the data since an earlier step) sends to vr+mask: the whole vector
 * (bcast), or the blocks of vr+mask's subtree, relative ranks vr+mask ..
 * vr+2*mask-1 cut at n (scatter: Open MPI's in-order binomial tree and
 * MPICH's both send the largest subtree first). */
static void binomial_down(emitter *e, int blocks)
{
    const mm_coll_desc *d = e->d;
    int64_t top = 1;
    while (top < d->n)
        top <<= 1;
    uint32_t step = 0;
    for (int64_t mask = top >> 1; mask >= 1; mask >>= 1, step++)
        for (int64_t vr = 0; vr + mask < d->n; vr += 2 * mask) {
            int64_t child = vr + mask;
            int64_t cnt = d->n - child < mask ? d->n - child : mask;
            if (blocks)
                put(e, step, absr(d, vr), absr(d, child), (uint32_t)absr(d, child),
                    (uint32_t)cnt, MM_XFER_COPY);
            else
                put(e, step, absr(d, vr), absr(d, child), 0, 1, MM_XFER_COPY);
        }
}

/* Linear bcast and scatter: the root sends to every other rank in rank
 * order, all in one step (Open MPI basic_linear sends one blocking send
 * after the other, but the receivers take one message each; libnbc and
 * MPICH's scatterv post them all at once). */
static void root_sends(emitter *e, uint32_t step, int blocks)
{
    const mm_coll_desc *d = e->d;
    for (int32_t p = 0; p < d->n; p++)
        if (p != d->root)
            put(e, step, d->root, p, blocks ? (uint32_t)p : 0, 1, MM_XFER_COPY);
}

/* Recursive doubling for allreduce, any n (the MPICH / Open MPI
 * scheme). pof2 = largest power of two <= n, rem = n - pof2. If rem > 0,
 * step 0 folds the first 2*rem ranks in pairs: even rank r sends to r+1 and
 * sits out. The pof2 remaining ranks (new rank: r/2 for odd r < 2*rem,
 * r-rem above) exchange with new rank ^ 2^k in each of log2(pof2) steps.
 * A last step returns the result from each odd r < 2*rem to r-1. */

static void recursive_doubling(emitter *e, int fold, int exchange, int unfold)
{
    const mm_coll_desc *d = e->d;
    int32_t pof2 = mm_pof2_floor(d->n), rem = d->n - pof2;
    uint32_t step = 0;
    if (rem > 0) {
        for (int32_t r = 0; r < 2 * rem; r += 2)
            put(e, step, r, r + 1, 0, 1, fold);
        step++;
    }
    for (int32_t mask = 1; mask < pof2; mask <<= 1, step++)
        for (int32_t nr = 0; nr < pof2; nr++)
            put(e, step, mm_coll_rd_real(nr, rem), mm_coll_rd_real(nr ^ mask, rem), 0, 1, exchange);
    if (rem > 0)
        for (int32_t r = 1; r < 2 * rem; r += 2)
            put(e, step, r, r - 1, 0, 1, unfold);
}

/* Ring allreduce (Open MPI ring, Patarasuk-Yuan): n segments. Steps 0..n-2
 * reduce-scatter: rank r sends segment r-k to r+1, which adds it to its
 * own; afterwards r holds segment r+1 complete. Steps n-1..2n-3 allgather
 * the complete segments around the same ring: in step n-1+k rank r sends
 * segment r+1-k. */
static void allreduce_ring(emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t k = 0; k < n - 1; k++)
        for (int32_t r = 0; r < n; r++)
            put(e, (uint32_t)k, r, mod(r + 1, n), (uint32_t)mod(r - k, n), 1, MM_XFER_REDUCE);
    for (int32_t k = 0; k < n - 1; k++)
        for (int32_t r = 0; r < n; r++)
            put(e, (uint32_t)(n - 1 + k), r, mod(r + 1, n), (uint32_t)mod(r + 1 - k, n), 1,
                MM_XFER_COPY);
}

/* Allgather ring: in step k rank r passes block r-k to r+1. */
static void allgather_ring(emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t k = 0; k < n - 1; k++)
        for (int32_t r = 0; r < n; r++)
            put(e, (uint32_t)k, r, mod(r + 1, n), (uint32_t)mod(r - k, n), 1, MM_XFER_COPY);
}

/* Bruck allgather: rank r holds blocks r .. r+2^k-1 before step k and sends
 * the first min(2^k, n-2^k) of them to r-2^k (receiving as many from
 * r+2^k); ceil(log2 n) steps for any n. */
static void allgather_bruck(emitter *e)
{
    int32_t n = e->d->n;
    uint32_t step = 0;
    for (int64_t dist = 1; dist < n; dist <<= 1, step++) {
        int64_t cnt = n - dist < dist ? n - dist : dist;
        for (int32_t r = 0; r < n; r++)
            put(e, step, r, mod(r - dist, n), (uint32_t)r, (uint32_t)cnt, MM_XFER_COPY);
    }
}

/* Recursive-doubling allgather (n a power of two): in step k rank r and
 * r ^ 2^k swap the 2^k blocks of their aligned group. */
static void allgather_rd(emitter *e)
{
    int32_t n = e->d->n;
    uint32_t step = 0;
    for (int32_t mask = 1; mask < n; mask <<= 1, step++)
        for (int32_t r = 0; r < n; r++)
            put(e, step, r, r ^ mask, (uint32_t)(r & ~(mask - 1)), (uint32_t)mask, MM_XFER_COPY);
}

/* Neighbor exchange allgather (Chen et al. 2005, Open MPI; n even). Even
 * steps pair rank r with r^1, odd steps with its other neighbour (r-1 for
 * even r, r+1 for odd r). Step 0 swaps the ranks' own blocks; from then on
 * each rank forwards the pair of blocks (2m, 2m+1) it received in the
 * previous step, so n/2 steps bring in all n/2 pairs. last[] holds, per
 * rank, the first block of the pair it got last; tmp is scratch. */
static int32_t ne_peer(int32_t r, uint32_t step, int32_t n)
{
    if (step % 2 == 0)
        return r ^ 1;
    return r % 2 == 0 ? mod((int64_t)r - 1, n) : mod((int64_t)r + 1, n);
}

static void allgather_neighbor(emitter *e, int32_t *last, int32_t *tmp)
{
    int32_t n = e->d->n;
    for (int32_t r = 0; r < n; r++) {
        put(e, 0, r, r ^ 1, (uint32_t)r, 1, MM_XFER_COPY);
        last[r] = r & ~1;
    }
    for (uint32_t step = 1; step < (uint32_t)n / 2; step++) {
        for (int32_t r = 0; r < n; r++) {
            int32_t peer = ne_peer(r, step, n);
            put(e, step, r, peer, (uint32_t)last[r], 2, MM_XFER_COPY);
            tmp[peer] = last[r];
        }
        memcpy(last, tmp, (size_t)n * sizeof *last);
    }
}

static void allgather_linear(emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t dst = 0; dst < n; dst++)
        for (int32_t src = 0; src < n; src++)
            if (src != dst)
                put(e, 0, src, dst, (uint32_t)src, 1, MM_XFER_COPY);
}

/* Dissemination barrier: in step k rank r signals r+2^k; after ceil(log2 n)
 * steps every rank has heard, directly or not, from every other. */
static void barrier_dissemination(emitter *e)
{
    int32_t n = e->d->n;
    uint32_t step = 0;
    for (int64_t dist = 1; dist < n; dist <<= 1, step++)
        for (int32_t r = 0; r < n; r++)
            put(e, step, r, mod(r + dist, n), 0, 1, MM_XFER_SYNC);
}

/* Pairwise alltoall (Open MPI): in step k-1 rank r sends its block for
 * r+k to r+k and receives from r-k. Linear: every rank posts its n-1
 * receives, from r+1, r+2, ... (Open MPI basic_linear order). */
static void alltoall_pairwise(emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t k = 1; k < n; k++)
        for (int32_t r = 0; r < n; r++) {
            int32_t to = mod(r + k, n);
            put(e, (uint32_t)(k - 1), r, to, (uint32_t)r * (uint32_t)n + (uint32_t)to, 1,
                MM_XFER_COPY);
        }
}

/* alltoallv basic_linear (Open MPI 4.1.4 coll_base_alltoallv.c) posts its
 * receives and sends in rank order 0, 1, ..., n-1 instead: same messages,
 * another order. */
static void alltoall_linear(emitter *e)
{
    int32_t n = e->d->n;
    int rank_order = e->d->op == MM_COLL_ALLTOALLV && e->d->alg == MM_ALG_LINEAR;
    for (int32_t dst = 0; dst < n; dst++)
        for (int32_t k = 1; k < n; k++) {
            int32_t src = rank_order ? (k <= dst ? k - 1 : k) : mod(dst + k, n);
            put(e, 0, src, dst, (uint32_t)src * (uint32_t)n + (uint32_t)dst, 1, MM_XFER_COPY);
        }
}

/* ---- reduce_scatter: n blocks, rank r ends with block r summed ---- */

/* Recursive halving (Open MPI basic_recursivehalving, MPICH; commutative
 * operations). With pof2 and rem as in recursive_doubling, step 0 folds:
 * even r < 2*rem sends its whole vector to r+1 and sits out. New rank i
 * (real rank rd_real) then answers for the blocks of real ranks
 * rh_first(i) .. rh_first(i+1)-1: its own and, if it took in a neighbour,
 * that one's. In the step with mask m (pof2/2 down to 1) a new rank works
 * on the aligned window of 2m new ranks around it: it sends the half of the
 * window its partner (new rank XOR m) keeps, and combines the half it keeps.
 * A last step sends each odd r < 2*rem's result for r-1 to r-1. */
static int32_t rh_first(int32_t i, int32_t rem) { return i < rem ? 2 * i : i + rem; }

static void reduce_scatter_halving(emitter *e)
{
    int32_t n = e->d->n, pof2 = mm_pof2_floor(n), rem = n - pof2;
    uint32_t step = 0;
    if (rem > 0) {
        for (int32_t r = 0; r < 2 * rem; r += 2)
            put(e, step, r, r + 1, 0, (uint32_t)n, MM_XFER_REDUCE);
        step++;
    }
    for (int32_t mask = pof2 / 2; mask >= 1; mask >>= 1, step++)
        for (int32_t nr = 0; nr < pof2; nr++) {
            int32_t peer = nr ^ mask, lo = nr & ~(2 * mask - 1);
            int32_t a = nr < peer ? lo + mask : lo; /* the half the peer keeps */
            int32_t first = rh_first(a, rem), last = rh_first(a + mask, rem);
            put(e, step, mm_coll_rd_real(nr, rem), mm_coll_rd_real(peer, rem), (uint32_t)first,
                (uint32_t)(last - first), MM_XFER_REDUCE);
        }
    for (int32_t r = 1; r < 2 * rem; r += 2)
        put(e, step, r, r - 1, (uint32_t)(r - 1), 1, MM_XFER_COPY);
}

/* Ring (Open MPI reduce_scatter ring): in step k rank r sends block
 * r-1-k, summed so far, to r+1, which adds its own; after n-1 steps rank r
 * holds block r complete. */
static void reduce_scatter_ring(emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t k = 0; k + 1 < n; k++)
        for (int32_t r = 0; r < n; r++)
            put(e, (uint32_t)k, r, mod(r + 1, n), (uint32_t)mod((int64_t)r - 1 - k, n), 1,
                MM_XFER_REDUCE);
}

/* Pairwise (MPICH): in step i-1 rank r sends its contribution to block r+i
 * to r+i and receives the one to its own block from r-i. */
static void reduce_scatter_pairwise(emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t i = 1; i < n; i++)
        for (int32_t r = 0; r < n; r++) {
            int32_t to = mod((int64_t)r + i, n);
            put(e, (uint32_t)(i - 1), r, to, (uint32_t)to, 1, MM_XFER_REDUCE);
        }
}

/* ---- scan, exscan: block 0 the result, block 1 the partial sum ---- */

/* Linear (Open MPI basic, libnbc): in step r rank r sends the sum of
 * contributions 0..r to r+1. */
static void scan_linear(emitter *e)
{
    for (int32_t r = 0; r + 1 < e->d->n; r++)
        put(e, (uint32_t)r, r, r + 1, 1, 1, MM_XFER_PREFIX);
}

/* Recursive doubling (MPICH; Open MPI's scan_intra_recursivedoubling): in
 * step k rank r and r XOR 2^k (if it exists) swap their partial sums, the
 * sum over their aligned group of 2^k ranks; the upper one folds what it
 * got into its result too. */
static void scan_recursive_doubling(emitter *e)
{
    int32_t n = e->d->n;
    uint32_t step = 0;
    for (int32_t mask = 1; mask < n; mask <<= 1, step++)
        for (int32_t r = 0; r < n; r++)
            if ((r ^ mask) < n)
                put(e, step, r, r ^ mask, 1, 1, MM_XFER_PREFIX);
}

int mm_coll_expand(const mm_coll_desc *d, mm_coll_emit_fn fn, void *ctx,
                   char *err, size_t errlen)
{
    int rc = mm_coll_check(d, err, errlen);
    if (rc != MMS_OK)
        return rc;
    emitter e = {d, &model, fn, ctx, mm_coll_nblocks(d), d->op, 0};
    if (mm_coll_tree_alg(d)) /* Open MPI's bcast/reduce trees */
        return mm_coll_trees(&e, err, errlen);
    if (mm_coll_nbc_alg(d->alg)) {
        mm_coll_nbc_expand(&e);
        return e.rc;
    }
    if (mm_coll_mpich_expand(&e)) /* MPICH 4.0.2's own (coll_mpich.c) */
        return e.rc;
    if (d->alg == MM_ALG_MPICH_COMPOSITION) { /* coll_mpich_comp.c */
        mm_coll_mpich_comp_emit(&e, 0);
        return e.rc;
    }
    switch (mm_coll_family(d->op)) {
    case MM_COLL_GATHER:
        if (d->alg == MM_ALG_BINOMIAL)
            binomial_up(&e, MM_XFER_COPY, 0);
        else if (d->alg == MM_ALG_LINEAR_SYNC)
            mm_coll_gather_linear_sync(&e);
        else
            root_collects(&e, MM_XFER_COPY, 0, d->alg == MM_ALG_DIRECT);
        break;
    case MM_COLL_REDUCE:
        if (mm_coll_raben_expand(&e))
            break;
        if (d->alg == MM_ALG_BINOMIAL)
            binomial_up(&e, MM_XFER_REDUCE, 1);
        else
            root_collects(&e, MM_XFER_REDUCE, 1, 0);
        break;
    case MM_COLL_BCAST:
    case MM_COLL_SCATTER: /* scatter: the same trees, carrying each rank's block */
        if (mm_coll_raben_expand(&e))
            break;
        if (d->alg == MM_ALG_BINOMIAL)
            binomial_down(&e, mm_coll_family(d->op) == MM_COLL_SCATTER);
        else /* linear; scatter linear_nb too (coll_a2a.c: the same messages) */
            root_sends(&e, 0, mm_coll_family(d->op) == MM_COLL_SCATTER);
        break;
    case MM_COLL_REDUCE_SCATTER:
        switch (d->alg) {
        case MM_ALG_RECURSIVE_HALVING: reduce_scatter_halving(&e); break;
        case MM_ALG_RING:     reduce_scatter_ring(&e); break;
        case MM_ALG_PAIRWISE: reduce_scatter_pairwise(&e); break;
        case MM_ALG_BUTTERFLY: mm_coll_rs_butterfly(&e); break;
        case MM_ALG_RECURSIVE_DOUBLING: mm_coll_rsb_recursive_doubling(&e); break;
        default:              mm_coll_reduce_then_scatter(&e);
        }
        break;
    case MM_COLL_SCAN:
    case MM_COLL_EXSCAN:
        if (d->alg == MM_ALG_RECURSIVE_DOUBLING)
            scan_recursive_doubling(&e);
        else
            scan_linear(&e);
        break;
    case MM_COLL_ALLREDUCE:
        if (mm_coll_raben_expand(&e))
            break;
        /* ring and segmented ring (segment size 0: the ring); below count n
         * Open MPI's ring runs recursive doubling */
        if (vector_pieces(d))
            allreduce_ring(&e);
        else
            recursive_doubling(&e, MM_XFER_REDUCE, MM_XFER_REDUCE, MM_XFER_COPY);
        break;
    case MM_COLL_BARRIER:
        switch (d->alg) {
        case MM_ALG_DISSEMINATION: barrier_dissemination(&e); break;
        case MM_ALG_LINEAR: mm_coll_barrier_linear(&e); break;
        case MM_ALG_TREE:   mm_coll_barrier_tree(&e); break;
        default:            mm_coll_barrier_rd_ompi(&e);
        }
        break;
    case MM_COLL_ALLGATHER:
        switch (d->alg) {
        case MM_ALG_RING:  allgather_ring(&e); break;
        case MM_ALG_BRUCK: allgather_bruck(&e); break;
        case MM_ALG_RECURSIVE_DOUBLING: allgather_rd(&e); break;
        case MM_ALG_LINEAR: allgather_linear(&e); break;
        case MM_ALG_GATHER_BCAST: mm_coll_gather_then_bcast(&e); break;
        default: { /* neighbor exchange */
            int32_t *last = malloc(2 * (size_t)d->n * sizeof *last);
            if (!last) {
                snprintf(err, errlen, "out of memory expanding neighbor-exchange allgather");
                return MMS_ENOMEM;
            }
            allgather_neighbor(&e, last, last + d->n);
            free(last);
        }
        }
        break;
    case MM_COLL_ALLTOALL:
        if (d->alg == MM_ALG_PAIRWISE)
            alltoall_pairwise(&e);
        else if (d->alg == MM_ALG_MODIFIED_BRUCK)
            mm_coll_alltoall_bruck(&e);
        else /* linear, linear_sync (coll_a2a.c: the same messages) */
            alltoall_linear(&e);
        break;
    }
    return e.rc;
}

uint32_t mm_coll_xfer_block(const mm_coll_desc *d, const mm_coll_xfer *x, uint32_t k)
{
    uint32_t blk;
    if (mm_coll_mpich_xfer_block(d, x, k, &blk))
        return blk;
    if (mm_coll_family(d->op) == MM_COLL_ALLTOALL && d->alg == MM_ALG_MODIFIED_BRUCK)
        return mm_coll_bruck_block(d->n, x->src, (int64_t)mm_coll_mod((int64_t)x->dst - x->src, d->n), k);
    if (mm_coll_rsb_mirrored(d))
        return mm_coll_rsb_block(d, x, k);
    return (uint32_t)(((uint64_t)x->blk + k) % mm_coll_nblocks(d));
}

/* n transfers seen, the first `keep` of them stored in v. */
typedef struct xvec { mm_coll_xfer *v; size_t n, cap, max, keep; } xvec;

/* A plan with a limit stores at most this many transfers (512 MiB) before
 * it knows its size: past it the expansion only counts, and a plan within
 * the limit is expanded again into an array of its exact size. So a plan
 * over its limit is refused having taken this much memory at the most
 * (radix:n=16384's iallgather stored 166 M transfers, 5.2 GB, to learn it
 * was too big), and plans up to it (n=4096's allgathers: 16.8 M) are
 * expanded once, as before. */
#define XVEC_KEEP ((size_t)1 << 24)

static int xvec_push(void *ctx, const mm_coll_xfer *x)
{
    xvec *a = ctx;
    if (a->max && a->n == a->max)
        return MMS_EFORMAT; /* over the caller's limit: stop expanding */
    if (a->n >= a->keep) {
        a->n++;         /* counting only */
        return 0;
    }
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        mm_coll_xfer *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return MMS_ENOMEM;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = *x;
    return 0;
}

int mm_coll_expand_array(const mm_coll_desc *d, mm_coll_xfer **out, size_t *count,
                         char *err, size_t errlen)
{
    return mm_coll_expand_array_max(d, 0, out, count, NULL, err, errlen);
}

int mm_coll_expand_array_max(const mm_coll_desc *d, size_t max, mm_coll_xfer **out,
                             size_t *count, int *over, char *err, size_t errlen)
{
    return mm_coll_expand_array_keep(d, max, max ? XVEC_KEEP : SIZE_MAX, out, count, over,
                                     err, errlen);
}

int mm_coll_expand_array_keep(const mm_coll_desc *d, size_t max, size_t keep,
                              mm_coll_xfer **out, size_t *count, int *over, char *err,
                              size_t errlen)
{
    xvec a = {NULL, 0, 0, max, keep};
    int rc = mm_coll_expand(d, xvec_push, &a, err, errlen);
    if (rc == MMS_OK && a.n > a.keep) { /* within the limit: store it all */
        free(a.v);
        a = (xvec){malloc(a.n * sizeof *a.v), 0, a.n, max, SIZE_MAX};
        rc = a.v ? mm_coll_expand(d, xvec_push, &a, err, errlen) : MMS_ENOMEM;
    }
    int too_many = rc != MMS_OK && rc != MMS_ENOMEM && max && a.n == max;
    if (over)
        *over = too_many;
    if (rc == MMS_ENOMEM)
        snprintf(err, errlen, "out of memory expanding %s (%zu transfers so far)",
                 mm_coll_name(d->op), a.n);
    else if (too_many)
        snprintf(err, errlen, "one call of %s on %ld ranks models more than %zu transfers",
                 mm_coll_name(d->op), (long)d->n, max);
    if (rc != MMS_OK) {
        free(a.v);
        *out = NULL;
        *count = 0;
        return rc;
    }
    *out = a.v;
    *count = a.n;
    return MMS_OK;
}

/* ---- MPICH's compositions (coll_mpich_comp.c) with the whole model ---- */

void mm_coll_mpich_shm_count(const mm_coll_desc *d, uint32_t shm_calls[2])
{
    mm_coll_mpich_comp_shm_count(&model, d, shm_calls);
}

int mm_coll_expand_shm(const mm_coll_desc *d, mm_coll_emit_fn fn, void *ctx, char *err,
                       size_t errlen)
{
    return mm_coll_mpich_comp_expand_shm(&model, d, fn, ctx, err, errlen);
}
