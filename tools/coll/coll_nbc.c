/*
 * coll_nbc.c - the schedules Open MPI 4.1's libnbc (ompi/mca/coll/libnbc,
 * nbc_ibcast.c, nbc_ireduce.c, nbc_iallreduce.c) builds where they are not
 * one of coll_algo.c's algorithms. Written from the schedules' description
 * (which peer, which part of the vector, which round); none of libnbc's
 * code is copied. Sources and the rules that pick them: docs/collectives.md.
 *
 * Rounds. libnbc runs a schedule as rounds: a round's sends and receives
 * start together and the round ends when all of them are done. A step here
 * is a round; a rank with nothing in a step passes through it.
 *
 * Ranks. libnbc's binomial trees and its chains renumber ranks by swapping
 * the root and rank 0 (vrank = root for rank 0, 0 for the root, the rank
 * itself otherwise), not by rotating them as coll/tuned does; the swap is
 * its own inverse.
 */
#include "coll_nbc.h"
#include "coll_pof2.h"

#include <stdio.h>

#include "stream.h"

#define put mm_coll_put
typedef mm_coll_emitter emitter;

/* libnbc's chains cut the vector into fragments of 8192 bytes (reduce,
 * nbc_ireduce.c: segsize = 16384/2) or 16384 bytes (bcast, nbc_ibcast.c,
 * chosen with libnbc_ibcast_algorithm 3). */
#define NBC_REDUCE_FRAG 8192u
#define NBC_BCAST_FRAG  16384u
/* libnbc's k-nomial ibcast radix (coll_libnbc_ibcast_knomial_radix, 4). */
#define NBC_KNOMIAL_RADIX 4

#define A(x) (1ull << MM_ALG_##x)

uint64_t mm_coll_nbc_algs(int family)
{
    switch (family) {
    case MM_COLL_BCAST:     return A(NBC_BINOMIAL) | A(NBC_CHAIN) | A(NBC_KNOMIAL);
    case MM_COLL_REDUCE:    return A(NBC_BINOMIAL) | A(NBC_BINOMIAL_ROOT0) | A(NBC_CHAIN) |
                                   A(NBC_REDSCAT);
    case MM_COLL_ALLREDUCE: return A(NBC_BINOMIAL) | A(NBC_REDSCAT) | A(NBC_RING);
    case MM_COLL_ALLTOALL:  return A(NBC_LINEAR);
    default:                return 0;
    }
}

#undef A

int mm_coll_nbc_alg(int alg)
{
    return alg >= MM_ALG_NBC_BINOMIAL && alg <= MM_ALG_NBC_KNOMIAL;
}

static uint64_t elem_of(const mm_coll_desc *d) { return d->elem ? d->elem : 1; }
static uint64_t count_of(const mm_coll_desc *d) { return d->bytes / elem_of(d); }

static uint32_t ceil_log2(int32_t n)
{
    uint32_t k = 0;
    while ((1ll << k) < n)
        k++;
    return k;
}

/* The chain's fragments: ceil(count * size / fragment size) (0 for an
 * empty vector: libnbc schedules nothing). */
static uint64_t chain_frags(const mm_coll_desc *d)
{
    uint64_t total = count_of(d) * elem_of(d);
    uint64_t frag = mm_coll_family(d->op) == MM_COLL_BCAST ? NBC_BCAST_FRAG : NBC_REDUCE_FRAG;
    return (total + frag - 1) / frag;
}

int mm_coll_nbc_check(const mm_coll_desc *d, char *err, size_t errlen)
{
    int32_t pof2 = mm_pof2_floor(d->n);
    if (d->alg == MM_ALG_NBC_REDSCAT && d->n > 1 && count_of(d) < (uint64_t)pof2) {
        snprintf(err, errlen, "libnbc's reduce-scatter schedule needs at least %ld elements "
                 "(the power of two <= n), not %llu", (long)pof2,
                 (unsigned long long)count_of(d));
        return MMS_EFORMAT;
    }
    if ((d->alg == MM_ALG_NBC_CHAIN || d->alg == MM_ALG_NBC_RING) && d->n > 1 &&
        count_of(d) == 0) {
        snprintf(err, errlen, "libnbc's %s schedules no messages for an empty vector",
                 mm_coll_alg_name(d->alg));
        return MMS_EFORMAT;
    }
    if (d->alg == MM_ALG_NBC_CHAIN && chain_frags(d) > UINT32_MAX) {
        snprintf(err, errlen, "libnbc chain of %llu fragments: more than 2^32",
                 (unsigned long long)chain_frags(d));
        return MMS_EFORMAT;
    }
    return MMS_OK;
}

uint32_t mm_coll_nbc_pieces(const mm_coll_desc *d)
{
    switch (d->alg) {
    case MM_ALG_NBC_CHAIN:   return (uint32_t)chain_frags(d);
    case MM_ALG_NBC_REDSCAT: return (uint32_t)mm_pof2_floor(d->n);
    case MM_ALG_NBC_RING:    return (uint32_t)d->n;
    default:                 return 0;
    }
}

/* Reduce-scatter pieces: libnbc halves a window of w elements into w/2 and
 * w - w/2, log2(pof2) times. Piece b is the leaf reached by reading b's
 * bits from the top: 0 the lower half, 1 the upper. */
static uint64_t halving_piece(uint64_t count, uint32_t nsteps, uint32_t b)
{
    for (uint32_t k = 0; k < nsteps; k++) {
        uint64_t lo = count / 2;
        count = (b >> (nsteps - 1 - k)) & 1 ? count - lo : lo;
    }
    return count;
}

uint64_t mm_coll_nbc_block_bytes(const mm_coll_desc *d, uint32_t b)
{
    uint64_t count = count_of(d), elem = elem_of(d);
    switch (d->alg) {
    case MM_ALG_NBC_CHAIN: { /* fragcount each, the last takes the rest */
        uint64_t nf = chain_frags(d), fc = count / nf;
        return (b + 1 < nf ? fc : count - fc * (nf - 1)) * elem;
    }
    case MM_ALG_NBC_REDSCAT:
        return halving_piece(count, ceil_log2(mm_pof2_floor(d->n)), b) * elem;
    default: /* ring: n segments, the first count mod n one element longer */
        return mm_coll_piece_bytes(d, (uint32_t)d->n, b);
    }
}

/* libnbc's rank swap: the root becomes 0 and 0 becomes the root. */
static int32_t swap_root(int32_t r, int32_t root)
{
    return r == 0 ? root : r == root ? 0 : r;
}

static uint32_t popcount32(uint32_t v)
{
    uint32_t c = 0;
    for (; v; v &= v - 1)
        c++;
    return c;
}

/* libnbc's binomial bcast (nbc_ibcast.c bcast_sched_binomial): vrank v > 0
 * receives from v minus its highest bit, and sends to v + 2^r for every
 * 2^r > v (the root: every 2^r < n), all in one round after its receive.
 * A rank is popcount(v) hops from the root, so the transfer from v is step
 * first + popcount(v). Returns the steps used. */
static uint32_t nbc_bcast_tree(emitter *e, int32_t root, uint32_t first)
{
    int32_t n = e->d->n;
    uint32_t maxr = ceil_log2(n);
    for (uint32_t s = 0; s < maxr; s++)
        for (int32_t v = 0; v < n; v++) {
            if (popcount32((uint32_t)v) != s)
                continue;
            for (uint32_t r = 0; r < maxr; r++) {
                int64_t c = (int64_t)v + (1ll << r);
                if ((1ll << r) > v && c < n)
                    put(e, first + s, swap_root(v, root), swap_root((int32_t)c, root), 0, 1,
                        MM_XFER_COPY);
            }
        }
    return maxr;
}

/* libnbc's binomial reduce (nbc_ireduce.c red_sched_binomial, and the
 * first half of nbc_iallreduce.c allred_sched_diss with root 0): in round
 * r = 1..ceil(log2 n) a vrank that is a multiple of 2^r receives from
 * v + 2^(r-1), each receive a round of its own; the others send to
 * v - 2^(r-1) and leave. Returns the steps used. */
static uint32_t nbc_reduce_tree(emitter *e, int32_t vroot)
{
    int32_t n = e->d->n;
    uint32_t maxr = ceil_log2(n);
    for (uint32_t r = 1; r <= maxr; r++)
        for (int64_t v = 0; v + (1ll << (r - 1)) < n; v += 1ll << r)
            put(e, r - 1, swap_root((int32_t)(v + (1ll << (r - 1))), vroot),
                swap_root((int32_t)v, vroot), 0, 1, MM_XFER_REDUCE);
    return maxr;
}

/* libnbc's chain reduce (red_sched_chain): vranks n-1 -> n-2 -> ... -> 0,
 * fragment after fragment; a middle rank receives a fragment, combines it
 * (a round), sends it on, and only then receives the next one. Fragment f
 * leaves vrank v in step 2f + (n-1-v). */
static void nbc_reduce_chain(emitter *e)
{
    const mm_coll_desc *d = e->d;
    int32_t n = d->n;
    uint64_t nf = chain_frags(d);
    if (n < 2 || nf == 0)
        return;
    uint64_t last = 2 * (nf - 1) + (uint64_t)(n - 2);
    for (uint64_t t = 0; t <= last; t++)
        for (uint64_t f = 0; 2 * f <= t && f < nf; f++) {
            uint64_t hop = t - 2 * f; /* vrank n-1-hop sends */
            if (hop <= (uint64_t)(n - 2)) {
                int32_t v = n - 1 - (int32_t)hop;
                put(e, (uint32_t)t, swap_root(v, d->root), swap_root(v - 1, d->root),
                    (uint32_t)f, 1, MM_XFER_REDUCE);
            }
        }
}

/* ---- reduce-scatter by recursive halving (Rabenseifner), libnbc's form:
 * nbc_ireduce.c red_sched_redscat_gather, nbc_iallreduce.c
 * allred_sched_redscat_allgather. pof2 pieces (halving_piece). With
 * rem = n - pof2, the first 2*rem ranks fold in pairs: the even one keeps
 * the lower half and survives as vrank r/2 (coll/base's recursive doubling
 * keeps the odd one); ranks >= 2*rem are vrank r - rem. ---- */

typedef struct halving {
    int32_t  n, pof2, rem;
    uint32_t nsteps;
} halving;

static int32_t hv_real(const halving *h, int32_t v) { return v < h->rem ? 2 * v : v + h->rem; }

/* The k-bit reversal of v's low k bits: where v's window starts. */
static uint32_t rev_bits(uint32_t v, uint32_t k)
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < k; i++)
        r |= ((v >> i) & 1) << (k - 1 - i);
    return r;
}

/* The half of its window vrank v keeps in halving step k (its window in
 * step k+1): the lower half if bit k of v is 0. */
static uint32_t hv_kept(const halving *h, int32_t v, uint32_t k)
{
    uint32_t len = (uint32_t)h->pof2 >> k, start = rev_bits((uint32_t)v, k) << (h->nsteps - k);
    return start + (((uint32_t)v >> k) & 1 ? len / 2 : 0);
}

/* Fold (2 steps if rem > 0) and halving (nsteps steps); returns the next
 * step. After it vrank v holds piece rev_bits(v, nsteps) complete. */
static uint32_t nbc_halving(emitter *e, halving *h)
{
    h->n = e->d->n;
    h->pof2 = mm_pof2_floor(h->n);
    h->rem = h->n - h->pof2;
    h->nsteps = ceil_log2(h->pof2);
    uint32_t half = (uint32_t)h->pof2 / 2, step = 0;
    if (h->rem > 0) {
        /* even r sends the upper half to r+1, odd r+1 the lower half to r;
         * then r+1 returns the upper half, combined */
        for (int32_t r = 0; r < 2 * h->rem; r += 2) {
            put(e, 0, r, r + 1, half, half, MM_XFER_REDUCE);
            put(e, 0, r + 1, r, 0, half, MM_XFER_REDUCE);
        }
        for (int32_t r = 0; r < 2 * h->rem; r += 2)
            put(e, 1, r + 1, r, half, half, MM_XFER_COPY);
        step = 2;
    }
    for (uint32_t k = 0; k < h->nsteps; k++, step++)
        for (int32_t v = 0; v < h->pof2; v++) {
            int32_t peer = v ^ (1 << k);
            uint32_t len = (uint32_t)h->pof2 >> (k + 1);
            /* it sends the half its peer keeps */
            put(e, step, hv_real(h, v), hv_real(h, peer), hv_kept(h, peer, k), len,
                MM_XFER_REDUCE);
        }
    return step;
}

/* iallreduce: allgather by recursive doubling in the reverse order of the
 * halving, then each even r < 2*rem sends the whole result to r+1. */
static void nbc_redscat_allgather(emitter *e)
{
    halving h;
    uint32_t step = nbc_halving(e, &h);
    for (uint32_t k = h.nsteps; k-- > 0; step++)
        for (int32_t v = 0; v < h.pof2; v++)
            put(e, step, hv_real(&h, v), hv_real(&h, v ^ (1 << k)), hv_kept(&h, v, k),
                (uint32_t)h.pof2 >> (k + 1), MM_XFER_COPY);
    for (int32_t r = 0; r < 2 * h.rem; r += 2)
        put(e, step, r, r + 1, 0, (uint32_t)h.pof2, MM_XFER_COPY);
}

/* ireduce: binomial gather of the pieces towards the root's vrank. A root
 * folded out (odd, < 2*rem) first takes vrank 0's piece from rank 0 and
 * then stands in for vrank 0. In gather step k (k = nsteps-1 .. 0) the
 * vranks that agree with vroot above bit k pair up across bit k; the one
 * that differs from vroot at bit k sends what it holds and leaves. */
static void nbc_redscat_gather(emitter *e)
{
    const mm_coll_desc *d = e->d;
    halving h;
    uint32_t step = nbc_halving(e, &h);
    int32_t root = d->root;
    int root_out = root < 2 * h.rem && root % 2;
    int32_t vroot = root < 2 * h.rem ? (root_out ? 0 : root / 2) : root - h.rem;
    if (root_out)
        put(e, step++, 0, root, 0, 1, MM_XFER_COPY);
    for (uint32_t k = h.nsteps; k-- > 0; step++)
        for (int32_t v = 0; v < h.pof2; v++) {
            int32_t peer = v ^ (1 << k);
            if ((v >> (k + 1)) != (vroot >> (k + 1)) || (peer >> k) != (vroot >> k))
                continue; /* gone already, or the receiver of the pair */
            int32_t src = hv_real(&h, v), dst = peer == 0 && root_out ? root : hv_real(&h, peer);
            put(e, step, src, dst, hv_kept(&h, v, k), (uint32_t)h.pof2 >> (k + 1), MM_XFER_COPY);
        }
}

/* libnbc's ring allreduce (allred_sched_ring): n segments; in round k <
 * n-1 rank r sends segment r+1-k to r+1, which combines it; in rounds
 * n-1 .. 2n-3 it passes the complete segments on the same way. (coll/base's
 * ring starts one segment lower: segment r.) */
static void nbc_allreduce_ring(emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t k = 0; k + 1 < n; k++)
        for (int32_t r = 0; r < n; r++)
            put(e, (uint32_t)k, r, mm_coll_mod(r + 1, n), (uint32_t)mm_coll_mod((int64_t)r + 1 - k, n),
                1, MM_XFER_REDUCE);
    for (int32_t k = n - 1; k < 2 * n - 2; k++)
        for (int32_t r = 0; r < n; r++)
            put(e, (uint32_t)k, r, mm_coll_mod(r + 1, n), (uint32_t)mm_coll_mod((int64_t)r + 1 - k, n),
                1, MM_XFER_COPY);
}

/* libnbc's linear alltoall (a2a_sched_linear): one round in which every
 * rank receives from and sends to peers 0, 1, ..., n-1 in that order
 * (coll/base's basic_linear starts at rank+1). */
static void nbc_alltoall_linear(emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t dst = 0; dst < n; dst++)
        for (int32_t src = 0; src < n; src++)
            if (src != dst)
                put(e, 0, src, dst, (uint32_t)src * (uint32_t)n + (uint32_t)dst, 1, MM_XFER_COPY);
}

/* Nonzero base-4 digits of v: how many hops vrank v is from the root of
 * the k-nomial tree. */
static uint32_t knomial_depth(int64_t v)
{
    uint32_t c = 0;
    for (; v; v /= NBC_KNOMIAL_RADIX)
        c += v % NBC_KNOMIAL_RADIX != 0;
    return c;
}

/* libnbc's k-nomial bcast (bcast_sched_knomial, radix 4): ranks rotate
 * (vrank = rank - root mod n). Vrank v's parent is v with its lowest
 * nonzero base-4 digit cleared; after receiving, it sends in one round to
 * v + m*j (j = 1..3) for every power of 4 m below v's lowest nonzero digit's
 * (the root: below n), the largest m first. The transfer from v is step
 * depth(v). */
static void nbc_bcast_knomial(emitter *e)
{
    const mm_coll_desc *d = e->d;
    int32_t n = d->n;
    int64_t top = 1; /* the largest power of 4 below n */
    while (top * NBC_KNOMIAL_RADIX < n)
        top *= NBC_KNOMIAL_RADIX;
    uint32_t depth = 0; /* the deepest vrank's hops */
    for (int64_t v = 0; v < n; v++)
        if (knomial_depth(v) > depth)
            depth = knomial_depth(v);
    for (uint32_t s = 0; s < depth; s++) /* the leaves, at depth, send nothing */
        for (int64_t v = 0; v < n; v++) {
            if (knomial_depth(v) != s)
                continue;
            /* the children's masks: below v's lowest nonzero digit */
            int64_t m = top;
            if (v) {
                int64_t low = 1;
                while ((v / low) % NBC_KNOMIAL_RADIX == 0)
                    low *= NBC_KNOMIAL_RADIX;
                m = low / NBC_KNOMIAL_RADIX;
            }
            for (; m > 0; m /= NBC_KNOMIAL_RADIX)
                for (int64_t j = 1; j < NBC_KNOMIAL_RADIX; j++)
                    if (v + m * j < n)
                        put(e, s, mm_coll_absr(d, v), mm_coll_absr(d, v + m * j), 0, 1,
                            MM_XFER_COPY);
        }
}

/* libnbc's chain bcast (bcast_sched_chain): vranks 0 -> 1 -> ... -> n-1,
 * fragment after fragment; a middle rank receives a fragment in a round of
 * its own, then sends it on in the round that receives the next one:
 * fragment f leaves vrank v in step f + v. */
static void nbc_bcast_chain(emitter *e)
{
    const mm_coll_desc *d = e->d;
    int32_t n = d->n;
    uint64_t nf = chain_frags(d);
    if (n < 2 || nf == 0)
        return;
    uint64_t last = nf - 1 + (uint64_t)(n - 2);
    for (uint64_t t = 0; t <= last; t++)
        for (uint64_t f = 0; f <= t && f < nf; f++) {
            uint64_t v = t - f;
            if (v <= (uint64_t)(n - 2))
                put(e, (uint32_t)t, swap_root((int32_t)v, d->root),
                    swap_root((int32_t)v + 1, d->root), (uint32_t)f, 1, MM_XFER_COPY);
        }
}

void mm_coll_nbc_expand(mm_coll_emitter *e)
{
    const mm_coll_desc *d = e->d;
    int fam = mm_coll_family(d->op);
    if (d->n < 2)
        return;
    switch (d->alg) {
    case MM_ALG_NBC_BINOMIAL:
        if (fam == MM_COLL_BCAST)
            nbc_bcast_tree(e, d->root, 0);
        else if (fam == MM_COLL_REDUCE) /* commutative: the tree around the root */
            nbc_reduce_tree(e, d->root);
        else /* allreduce: reduce to rank 0, then libnbc's bcast from it */
            nbc_bcast_tree(e, 0, nbc_reduce_tree(e, 0));
        break;
    case MM_ALG_NBC_BINOMIAL_ROOT0: { /* reduce, non-commutative op */
        uint32_t steps = nbc_reduce_tree(e, 0);
        if (d->root != 0)
            put(e, steps, 0, d->root, 0, 1, MM_XFER_COPY);
        break;
    }
    case MM_ALG_NBC_CHAIN:
        if (fam == MM_COLL_BCAST)
            nbc_bcast_chain(e);
        else
            nbc_reduce_chain(e);
        break;
    case MM_ALG_NBC_REDSCAT:
        if (fam == MM_COLL_REDUCE)
            nbc_redscat_gather(e);
        else
            nbc_redscat_allgather(e);
        break;
    case MM_ALG_NBC_LINEAR:
        nbc_alltoall_linear(e);
        break;
    case MM_ALG_NBC_KNOMIAL:
        nbc_bcast_knomial(e);
        break;
    default: /* MM_ALG_NBC_RING */
        nbc_allreduce_ring(e);
    }
}
