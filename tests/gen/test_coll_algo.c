/* test_coll_algo: the collective schedules of tools/coll/coll_algo.c deliver
 * exactly the data their collective promises.
 *
 * For every operation family, algorithm, a range of communicator sizes
 * (powers of two and not, 1 .. 100), roots and byte sizes, the transfers
 * are replayed step by step on a model of every rank's data: per rank and
 * block, the set of ranks whose contribution it holds (for scatter: the
 * ranks whose block it is). A transfer sends what the sender held at the
 * start of its step; COPY needs the sender to hold the block and must not
 * resend what the receiver has, REDUCE must combine disjoint sets (nothing
 * counted twice), FORWARD as REDUCE with what the sender last received of
 * each block (it must have received it), SYNC (barrier) merges, PREFIX (scan) combines disjoint
 * partial sums into block 1 and, from a lower rank, into the result, block
 * 0. At the end: gather, the root holds every rank's block; allgather,
 * every rank does; bcast, every rank holds the root's; reduce/allreduce,
 * the root / every rank holds the sum of all n contributions in every
 * segment; barrier, every rank has heard from all; alltoall, rank d holds
 * block s->d from every s; scatter, rank r holds block r; reduce_scatter,
 * rank r holds block r summed over all n ranks; scan, rank r's result is
 * the sum of contributions 0..r, exscan 0..r-1 (nothing at rank 0). Plus
 * byte counts, message counts per rank, the tags each transfer carries,
 * the section 5.4 hot spot and the automatic selection. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll_algo.h"
#include "coll_mpich_comp.h"
#include "stream.h"

typedef struct sim {
    int32_t   n;
    uint32_t  nb;
    size_t    words;  /* 64-bit words per contributor set */
    uint64_t *st;     /* n * nb sets                     */
    uint64_t *last;   /* n * nb sets: what each rank last received of each
                         block (MM_XFER_FORWARD passes that on)          */
    uint64_t *pay;    /* payload snapshot of one step     */
} sim;

static uint64_t *set_of(sim *s, int32_t r, uint32_t b)
{
    return s->st + ((size_t)r * s->nb + b) * s->words;
}

static uint64_t *last_of(sim *s, int32_t r, uint32_t b)
{
    return s->last + ((size_t)r * s->nb + b) * s->words;
}

static int set_empty(const uint64_t *a, size_t w)
{
    for (size_t i = 0; i < w; i++)
        if (a[i])
            return 0;
    return 1;
}

static int set_eq(const uint64_t *a, const uint64_t *b, size_t w)
{
    return memcmp(a, b, w * sizeof *a) == 0;
}

static int set_subset(const uint64_t *a, const uint64_t *b, size_t w)
{
    for (size_t i = 0; i < w; i++)
        if (a[i] & ~b[i])
            return 0;
    return 1;
}

static int set_disjoint(const uint64_t *a, const uint64_t *b, size_t w)
{
    for (size_t i = 0; i < w; i++)
        if (a[i] & b[i])
            return 0;
    return 1;
}

static void set_add(uint64_t *a, int32_t r) { a[r / 64] |= 1ull << (r % 64); }

static int set_is(const uint64_t *a, size_t w, int32_t only)
{
    for (size_t i = 0; i < w; i++) {
        uint64_t want = (size_t)only / 64 == i ? 1ull << (only % 64) : 0;
        if (a[i] != want)
            return 0;
    }
    return 1;
}

static int set_full(const uint64_t *a, int32_t n)
{
    for (int32_t r = 0; r < n; r++)
        if (!(a[r / 64] >> (r % 64) & 1))
            return 0;
    return 1;
}

/* Exactly the ranks 0 .. hi-1 of n. */
static int set_prefix(const uint64_t *a, int32_t n, int32_t hi)
{
    for (int32_t r = 0; r < n; r++)
        if ((int)(a[r / 64] >> (r % 64) & 1) != (r < hi))
            return 0;
    return 1;
}

/* Initial data of each rank. */
static void sim_init(sim *s, const mm_coll_desc *d)
{
    int fam = mm_coll_family(d->op);
    int32_t n = d->n;
    for (int32_t r = 0; r < n; r++)
        for (uint32_t b = 0; b < s->nb; b++) {
            int own = 0;
            int32_t who = r; /* whose the data is */
            switch (fam) {
            case MM_COLL_GATHER: case MM_COLL_ALLGATHER: own = (int32_t)b == r; break;
            case MM_COLL_ALLTOALL: own = (int32_t)(b / (uint32_t)n) == r; break;
            case MM_COLL_BCAST: own = r == d->root; break;
            case MM_COLL_SCATTER: own = r == d->root; who = (int32_t)b; break;
            case MM_COLL_EXSCAN: own = b == 1; break; /* the result starts empty */
            default: own = 1; /* reduce(_scatter), allreduce, barrier, scan: all contribute */
            }
            if (own)
                set_add(set_of(s, r, b), who);
        }
}

/* Open MPI's scatter + allgather bcast, alone or as the second phase of
 * the nonoverlapping allreduce. */
static int scatter_bcast_in(const mm_coll_desc *d)
{
    int fam = mm_coll_family(d->op);
    int alg = fam == MM_COLL_BCAST ? d->alg
            : fam == MM_COLL_ALLREDUCE && d->alg == MM_ALG_NONOVERLAPPING ? d->sub[1] : 0;
    return fam != MM_COLL_BCAST && fam != MM_COLL_ALLREDUCE ? 0
         : alg == MM_ALG_SCATTER_ALLGATHER || alg == MM_ALG_SCATTER_RING_ALLGATHER;
}

/* Algorithms whose pieces may be empty with count >= n (bcast scatter +
 * allgather: ceil(count/n) elements per piece); the final check skips those
 * pieces too. */
/* MPICH's, alone or as the second phase of the nonoverlapping allreduce */
static int mpich_scatter_bcast(const mm_coll_desc *d)
{
    int fam = mm_coll_family(d->op);
    int alg = fam == MM_COLL_BCAST ? d->alg
            : fam == MM_COLL_ALLREDUCE && d->alg == MM_ALG_NONOVERLAPPING ? d->sub[1] : 0;
    return (fam == MM_COLL_BCAST || fam == MM_COLL_ALLREDUCE) &&
           (alg == MM_ALG_MPICH_SCATTER_RD_ALLGATHER || alg == MM_ALG_MPICH_SCATTER_RING_ALLGATHER);
}

static int empty_piece_ok(const mm_coll_desc *d)
{
    /* MPICH's scatter + allgather bcasts: ceil(nbytes/n)-byte pieces */
    return (scatter_bcast_in(d) || mpich_scatter_bcast(d)) && mm_coll_nblocks(d) > 1;
}

/* The collective's promise, checked on the final state; returns the number
 * of (rank, block) pairs that are wrong. */
static long sim_final(sim *s, const mm_coll_desc *d)
{
    int fam = mm_coll_family(d->op);
    int32_t n = d->n;
    long bad = 0;
    for (int32_t r = 0; r < n; r++)
        for (uint32_t b = 0; b < s->nb; b++) {
            const uint64_t *a = set_of(s, r, b);
            int ok = 1;
            switch (fam) {
            case MM_COLL_GATHER:
                ok = r != d->root || set_is(a, s->words, (int32_t)b);
                break;
            case MM_COLL_ALLGATHER:
                ok = set_is(a, s->words, (int32_t)b);
                break;
            case MM_COLL_ALLTOALL:
                ok = (int32_t)(b % (uint32_t)n) != r || set_is(a, s->words, (int32_t)(b / (uint32_t)n));
                break;
            case MM_COLL_BCAST:
                ok = set_is(a, s->words, d->root);
                break;
            case MM_COLL_REDUCE:
                ok = r != d->root || set_full(a, n);
                break;
            case MM_COLL_SCATTER:
                ok = (int32_t)b != r || set_is(a, s->words, r);
                break;
            case MM_COLL_REDUCE_SCATTER:
                ok = (int32_t)b != r || set_full(a, n);
                break;
            case MM_COLL_SCAN: /* block 1 is scratch */
                ok = b != 0 || set_prefix(a, n, r + 1);
                break;
            case MM_COLL_EXSCAN: /* MPI leaves rank 0's result undefined; none arrives */
                ok = b != 0 || set_prefix(a, n, r);
                break;
            default: /* allreduce, barrier */
                ok = set_full(a, n);
            }
            if (s->nb > 1 && mm_coll_block_bytes(d, b) == 0 && empty_piece_ok(d))
                ok = 1;
            bad += !ok;
        }
    return bad;
}

typedef struct run_result {
    long      errors;   /* rule violations while replaying                */
    long      wrong;    /* (rank, block) pairs off the promise at the end */
    size_t    nx;
    uint32_t  steps;
    size_t   *recvs;    /* messages each rank receives (n entries)        */
} run_result;

typedef struct xlist { mm_coll_xfer *v; size_t n, cap; } xlist;

static int push_x(void *ctx, const mm_coll_xfer *x)
{
    xlist *a = ctx;
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        if (!a->v)
            abort();
    }
    a->v[a->n++] = *x;
    return 0;
}

static int expand_with_shm(const mm_coll_desc *d, mm_coll_xfer **x, size_t *nx, char *err,
                           size_t errlen)
{
    xlist a = {NULL, 0, 0};
    int rc = mm_coll_expand_shm(d, push_x, &a, err, errlen);
    *x = a.v;
    *nx = a.n;
    return rc;
}

/* Expand d and replay it; fills *res (recvs malloc'd). */
static int run(const mm_coll_desc *d, run_result *res)
{
    char err[256];
    mm_coll_xfer *x = NULL;
    size_t nx = 0;
    memset(res, 0, sizeof *res);
    /* MPICH's compositions: replayed with their shared-memory phases as
     * pseudo transfers (tag_op MM_COLL_NONE: no message, no queue), which
     * deliver what release_gather does */
    int comp = d->alg == MM_ALG_MPICH_COMPOSITION;
    if (comp ? expand_with_shm(d, &x, &nx, err, sizeof err) != MMS_OK
             : mm_coll_expand_array(d, &x, &nx, err, sizeof err) != MMS_OK) {
        fprintf(stderr, "expand %s/%s n=%d: %s\n", mm_coll_name(d->op),
                mm_coll_alg_name(d->alg), d->n, err);
        return -1;
    }
    sim s;
    s.n = d->n;
    s.nb = mm_coll_nblocks(d);
    s.words = ((size_t)d->n + 63) / 64;
    s.st = calloc((size_t)d->n * s.nb * s.words, sizeof *s.st);
    s.last = calloc((size_t)d->n * s.nb * s.words, sizeof *s.last);
    size_t maxblk = 0;
    for (size_t i = 0; i < nx; i++)
        if (x[i].nblk > maxblk)
            maxblk = x[i].nblk;
    res->recvs = calloc((size_t)d->n, sizeof *res->recvs);
    res->nx = nx;
    size_t paycap = 0;
    /* payload of a whole step: the sum of its transfers' blocks */
    for (size_t i = 0; i < nx; i++)
        paycap += x[i].nblk;
    s.pay = calloc(paycap ? paycap * s.words : 1, sizeof *s.pay);
    if (!s.st || !s.last || !res->recvs || !s.pay)
        abort();
    sim_init(&s, d);
    /* Open MPI's scatter + allgather bcasts send every piece back to ranks
     * that already hold it, the root included, as does a bcast after a
     * Rabenseifner reduce (the ranks keep the pieces they summed): a copy
     * may repeat what the receiver has */
    int resend_ok = scatter_bcast_in(d) || mpich_scatter_bcast(d) ||
                    d->alg == MM_ALG_GATHER_BCAST ||
                    /* and the bcast after the reduce of a nonoverlapping
                     * allreduce: ranks on the reduce's path may already
                     * hold the sum (a Rabenseifner reduce's pieces, the
                     * in-order binary tree's root n-1) and get it again */
                    (mm_coll_family(d->op) == MM_COLL_ALLREDUCE &&
                     d->alg == MM_ALG_NONOVERLAPPING) ||
                    /* MPICH's bcast composition alpha sends the vector
                     * to the root's node root, then bcasts it in the node,
                     * the root included; allreduce alpha's node bcast
                     * reaches ranks of a cut reduce that hold pieces */
                    comp;

    for (size_t i = 0; i < nx; i++) {
        const mm_coll_xfer *t = &x[i];
        if (t->src < 0 || t->src >= d->n || t->dst < 0 || t->dst >= d->n || t->src == t->dst ||
            (t->nblk < 1 && t->mode != MM_XFER_SYNC) || t->nblk > s.nb || t->blk >= s.nb ||
            t->mode > MM_XFER_FORWARD ||
            (t->mode == MM_XFER_PREFIX && (t->blk != 1 || t->nblk != 1)) ||
            (i > 0 && t->step < x[i - 1].step)) {
            fprintf(stderr, "bad transfer %zu: step %u %d->%d blk %u+%u\n", i, t->step,
                    t->src, t->dst, t->blk, t->nblk);
            res->errors++;
            goto out;
        }
        uint64_t want = 0;
        for (uint32_t k = 0; k < t->nblk; k++)
            want += mm_coll_block_bytes(d, mm_coll_xfer_block(d, t, k));
        if (comp && t->mode == MM_XFER_SYNC && t->tag_op == MM_COLL_BCAST)
            want = 1; /* the barrier composition's 1-byte bcast in each node */
        if (t->bytes != want) {
            fprintf(stderr, "transfer %zu carries %llu bytes, its blocks %llu\n", i,
                    (unsigned long long)t->bytes, (unsigned long long)want);
            res->errors++;
        }
        if (t->tag_op != MM_COLL_NONE) /* shared memory: not a message */
            res->recvs[t->dst]++;
        if (t->step + 1 > res->steps)
            res->steps = t->step + 1;
    }

    for (size_t i = 0; i < nx;) {
        size_t j = i;
        while (j < nx && x[j].step == x[i].step)
            j++;
        /* snapshot what every sender of this step holds (forwards: what
         * it last received) */
        uint64_t *p = s.pay;
        for (size_t k = i; k < j; k++)
            for (uint32_t b = 0; b < x[k].nblk; b++, p += s.words) {
                uint32_t blk = mm_coll_xfer_block(d, &x[k], b);
                memcpy(p, x[k].mode == MM_XFER_FORWARD ? last_of(&s, x[k].src, blk)
                                                       : set_of(&s, x[k].src, blk),
                       s.words * sizeof *p);
            }
        p = s.pay;
        for (size_t k = i; k < j; k++)
            for (uint32_t b = 0; b < x[k].nblk; b++, p += s.words) {
                uint32_t blk = mm_coll_xfer_block(d, &x[k], b);
                uint64_t *r = set_of(&s, x[k].dst, blk);
                int ok = 1;
                /* an empty piece of a cut vector (ceil(count/n) pieces run
                 * out before the last rank) carries no data to follow */
                if (s.nb > 1 && mm_coll_block_bytes(d, blk) == 0 && empty_piece_ok(d))
                    continue;
                switch (x[k].mode) {
                case MM_XFER_COPY:
                    /* gather_bcast broadcasts the whole vector: every rank
                     * gets its own block back, as Open MPI sends it */
                    ok = !set_empty(p, s.words) &&
                         (set_empty(r, s.words) ||
                          (set_subset(r, p, s.words) && (resend_ok || !set_eq(r, p, s.words))));
                    memcpy(r, p, s.words * sizeof *r);
                    break;
                case MM_XFER_REDUCE:
                case MM_XFER_FORWARD: /* the sender must have received it */
                    ok = !set_empty(p, s.words) && set_disjoint(r, p, s.words);
                    for (size_t w = 0; w < s.words; w++)
                        r[w] |= p[w];
                    break;
                case MM_XFER_PREFIX: {
                    /* the partial sum always; the result only from below */
                    uint64_t *out = set_of(&s, x[k].dst, 0);
                    int below = x[k].src < x[k].dst;
                    ok = !set_empty(p, s.words) && set_disjoint(r, p, s.words) &&
                         (!below || set_disjoint(out, p, s.words));
                    for (size_t w = 0; w < s.words; w++) {
                        r[w] |= p[w];
                        if (below)
                            out[w] |= p[w];
                    }
                    break;
                }
                default:
                    for (size_t w = 0; w < s.words; w++)
                        r[w] |= p[w];
                }
                memcpy(last_of(&s, x[k].dst, blk), p, s.words * sizeof *p);
                if (!ok) {
                    if (res->errors < 5)
                        fprintf(stderr, "%s/%s n=%d root=%d: step %u %d->%d block %u: %s\n",
                                mm_coll_name(d->op), mm_coll_alg_name(d->alg), d->n, d->root,
                                x[k].step, x[k].src, x[k].dst, mm_coll_xfer_block(d, &x[k], b),
                                x[k].mode == MM_XFER_COPY ? "sender lacks it or receiver has it"
                                                          : "contributions counted twice");
                    res->errors++;
                }
            }
        i = j;
    }
    /* a composition of count 0 moves no data (MPI_Reduce returns, bcast's
     * release_gather and MPIR binomial bcast send nothing): no promise */
    res->wrong = comp && d->bytes == 0 && mm_coll_family(d->op) != MM_COLL_BARRIER
               ? 0 : sim_final(&s, d);
out:
    free(s.st);
    free(s.last);
    free(s.pay);
    free(x);
    return 0;
}

static uint32_t ceil_log2(int32_t n)
{
    uint32_t k = 0;
    while ((1ll << k) < n)
        k++;
    return k;
}

/* libnbc's schedules (coll_nbc.c) where they differ from the family's
 * counts below; -2: as below. */
static long nbc_expected_recvs(const mm_coll_desc *d, int32_t r)
{
    int fam = mm_coll_family(d->op);
    int32_t n = d->n, vr = r == 0 ? d->root : r == d->root ? 0 : r; /* libnbc's swap */
    uint64_t elem = d->elem ? d->elem : 1, frag = fam == MM_COLL_BCAST ? 16384 : 8192;
    uint64_t frags = (d->bytes / elem * elem + frag - 1) / frag;
    switch (d->alg) {
    case MM_ALG_NBC_BINOMIAL:
        if (fam == MM_COLL_ALLREDUCE) /* reduce to 0, bcast from 0 */
            return r == 0 ? (long)ceil_log2(n) : -1;
        return -2;
    case MM_ALG_NBC_BINOMIAL_ROOT0:
        return d->root == 0 ? -2 : r == d->root ? -1 : r == 0 ? (long)ceil_log2(n) : -1;
    case MM_ALG_NBC_CHAIN: /* every vrank but the first (bcast) or the last
                              (reduce) receives every fragment */
        return vr == (fam == MM_COLL_BCAST ? 0 : n - 1) ? 0 : (long)frags;
    case MM_ALG_NBC_REDSCAT:
        if (fam == MM_COLL_ALLREDUCE && (n & (n - 1)) == 0)
            return 2 * (long)ceil_log2(n);
        return -1;
    case MM_ALG_NBC_RING:
        return 2 * (long)(n - 1);
    default:
        return -2;
    }
}

/* Receives per rank that the algorithm must give; -1 = not checked. */
static long expected_recvs(const mm_coll_desc *d, int32_t r)
{
    long nbc = nbc_expected_recvs(d, r);
    if (nbc != -2)
        return nbc;
    int32_t n = d->n;
    int fam = mm_coll_family(d->op);
    int32_t vr = ((r - d->root) % n + n) % n;
    if (d->sub[0] || d->sub[1] || d->alg == MM_ALG_MPICH_COMPOSITION) /* composites */
        return -1;
    switch (fam) {
    case MM_COLL_GATHER:
        if (d->alg == MM_ALG_LINEAR_SYNC) /* the root: both segments; the others: the sync */
            return r == d->root ? 2 * (n - 1) : 1;
        if (d->alg != MM_ALG_BINOMIAL)
            return r == d->root ? n - 1 : 0;
        if (r == d->root)
            return ceil_log2(n);
        return -1;
    case MM_COLL_REDUCE:
        if (d->alg == MM_ALG_RABENSEIFNER || d->alg == MM_ALG_RABENSEIFNER_MPICH)
            return -1;
        switch (d->alg) {
        case MM_ALG_CHAIN: case MM_ALG_PIPELINE: /* vr receives from vr+1 */
            return vr == n - 1 ? 0 : 1;
        case MM_ALG_BINARY:
            return r == d->root ? (n > 2 ? 2 : n - 1) : -1;
        case MM_ALG_BINOMIAL_ROOT0: /* the tree's root is 0 */
            return r == 0 ? (long)ceil_log2(n) : -1;
        case MM_ALG_IN_ORDER_BINARY: /* the tree's root is n-1 */
            return r == n - 1 ? (n > 2 ? 2 : n - 1) : -1;
        default:
            break;
        }
        return d->alg == MM_ALG_LINEAR ? (r == d->root ? n - 1 : 0) : (r == d->root ? (long)ceil_log2(n) : -1);
    case MM_COLL_BCAST:
        /* split binary: a half down the tree, the other from the partner
         * (one message when the vector has fewer than two elements) */
        if (d->alg == MM_ALG_SPLIT_BINARY && vr != 0)
            return d->bytes / (d->elem ? d->elem : 1) >= 2 ? 2 : 1;
        if (d->alg == MM_ALG_SPLIT_BINARY)
            return 0;
        if (mpich_scatter_bcast(d) && (d->bytes == 0 || n == 1))
            return 0; /* MPICH: nothing to do */
        if (mm_coll_nblocks(d) > 1) { /* scatter + allgather: ring: n-1 pieces */
            if (d->alg != MM_ALG_SCATTER_RING_ALLGATHER &&
                d->alg != MM_ALG_MPICH_SCATTER_RING_ALLGATHER)
                return -1;
            return n - 1 + (vr != 0 && mm_coll_block_bytes(d, (uint32_t)vr) > 0);
        }
        return vr == 0 ? 0 : 1;
    case MM_COLL_ALLGATHER:
        switch (d->alg) {
        case MM_ALG_GATHER_BCAST: return r == 0 ? n - 1 : 1; /* linear gatherv, bcast */
        case MM_ALG_RING: case MM_ALG_LINEAR: return n - 1;
        case MM_ALG_BRUCK: case MM_ALG_RECURSIVE_DOUBLING: return ceil_log2(n);
        default: return n / 2; /* neighbor exchange */
        }
    case MM_COLL_ALLREDUCE:
        if (d->alg == MM_ALG_LINEAR || (d->alg == MM_ALG_RABENSEIFNER && mm_coll_nblocks(d) == 1))
            return n == 1 ? 0 : r == 0 ? n - 1 : 1; /* linear reduce to 0, linear bcast */
        if (d->alg == MM_ALG_NONOVERLAPPING)
            return -1;
        if (d->alg == MM_ALG_RABENSEIFNER || d->alg == MM_ALG_RABENSEIFNER_MPICH)
            /* halving, then doubling */
            return (n & (n - 1)) == 0 ? 2 * (long)ceil_log2(n) : -1;
        if (mm_coll_nblocks(d) > 1) /* ring, segmented ring; else recursive doubling */
            return 2 * (n - 1);
        return (n & (n - 1)) == 0 ? (long)ceil_log2(n) : -1;
    case MM_COLL_BARRIER:
        if (d->alg == MM_ALG_LINEAR)
            return r == 0 ? n - 1 : 1;
        if (d->alg == MM_ALG_TREE) { /* its binomial children, then its release */
            long children = 0;
            for (int64_t m = 1; r + m < n && (r == 0 || m < (r & -r)); m <<= 1)
                children++;
            return children + (r != 0);
        }
        return d->alg == MM_ALG_DISSEMINATION || (n & (n - 1)) == 0 ? (long)ceil_log2(n) : -1;
    case MM_COLL_ALLTOALL:
        return d->alg == MM_ALG_MODIFIED_BRUCK ? (long)ceil_log2(n) : n - 1;
    case MM_COLL_SCATTER:
        return vr == 0 ? 0 : 1;
    case MM_COLL_REDUCE_SCATTER:
        switch (d->alg) {
        case MM_ALG_RING: case MM_ALG_PAIRWISE: return n - 1;
        case MM_ALG_NONCOMMUTATIVE: return ceil_log2(n);
        case MM_ALG_BUTTERFLY: case MM_ALG_RECURSIVE_DOUBLING: return -1;
        case MM_ALG_RECURSIVE_HALVING: {
            int32_t pof2 = 1;
            while (pof2 * 2 <= n)
                pof2 *= 2;
            int32_t rem = n - pof2;
            if (r < 2 * rem) /* folded pairs: even r only gets its result back */
                return r % 2 ? 1 + (long)ceil_log2(pof2) : 1;
            return ceil_log2(pof2);
        }
        default: { /* nonoverlapping: binomial reduce to 0, then one block from 0 */
            if (r == 0)
                return ceil_log2(n);
            long children = 0;
            for (int32_t m = 1; m < (r & -r) && r + m < n; m <<= 1)
                children++;
            return children + 1;
        }
        }
    case MM_COLL_SCAN: case MM_COLL_EXSCAN:
        if (d->alg == MM_ALG_LINEAR)
            return r == 0 ? 0 : 1;
        long partners = 0;
        for (int32_t m = 1; m < n; m <<= 1)
            partners += (r ^ m) < n;
        return partners;
    }
    return -1;
}

static const int families[] = {
    MM_COLL_GATHER, MM_COLL_BCAST, MM_COLL_REDUCE, MM_COLL_ALLREDUCE,
    MM_COLL_ALLGATHER, MM_COLL_BARRIER, MM_COLL_ALLTOALL, MM_COLL_SCATTER,
    MM_COLL_REDUCE_SCATTER, MM_COLL_SCAN, MM_COLL_EXSCAN,
    /* algorithms of one operation of a family only */
    MM_COLL_ALLGATHERV, MM_COLL_REDUCE_SCATTER_BLOCK,
};
static const int32_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17,
                                24, 31, 32, 33, 63, 64, 100};
static const uint64_t byte_sizes[] = {0, 3, 1000};

/* Replay one description and check it; 0 if the algorithm does not take
 * it (recursive-doubling allgather, n = 6). */
static int check_schedule(const mm_coll_desc *d)
{
    char err[256];
    if (mm_coll_check(d, err, sizeof err) != MMS_OK)
        return 0;
    run_result res;
    CHECK_EQ(run(d, &res), 0);
    if (res.errors || res.wrong)
        fprintf(stderr, "FAILED: %s/%s n=%d root=%d bytes=%llu: %ld errors, %ld wrong\n",
                mm_coll_name(d->op), mm_coll_alg_name(d->alg), d->n, d->root,
                (unsigned long long)d->bytes, res.errors, res.wrong);
    CHECK_EQ(res.errors, 0);
    CHECK_EQ(res.wrong, 0);
    for (int32_t r = 0; r < d->n && res.recvs; r++) {
        long want = expected_recvs(d, r);
        if (want >= 0 && (long)res.recvs[r] != want) {
            fprintf(stderr, "%s/%s n=%d root=%d rank %d: %zu receives, want %ld\n",
                    mm_coll_name(d->op), mm_coll_alg_name(d->alg), d->n, d->root, r,
                    res.recvs[r], want);
            CHECK(0);
        }
    }
    if (d->n == 1)
        CHECK_EQ(res.nx, 0);
    free(res.recvs);
    return 1;
}

static void test_schedules(void)
{
    size_t combos = 0;
    for (size_t f = 0; f < sizeof families / sizeof *families; f++)
        for (int alg = 1; alg < MM_ALG_COUNT; alg++) {
            if (!mm_coll_alg_valid(families[f], alg))
                continue;
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
                int32_t n = sizes[si];
                int32_t roots[3] = {0, n - 1, n / 2};
                /* 3 bytes: fewer than the ring allreduce's segments, some empty */
                for (int ri = 0; ri < 3; ri++)
                    for (size_t bi = 0; bi < sizeof byte_sizes / sizeof *byte_sizes; bi++) {
                        mm_coll_desc d = {families[f], alg, n, roots[ri], byte_sizes[bi], 0, {0, 0}, NULL, {0, 0}};
                        combos += (size_t)check_schedule(&d);
                    }
            }
        }
    printf("schedules checked: %zu\n", combos);
    CHECK(combos > 3000);
}

/* Composite algorithms with every pair of phase algorithms: reduce
 * (linear, binomial) then scatter(v) (linear, binomial); gather(v)
 * (linear, direct, binomial) then bcast (linear, binomial). A phase
 * algorithm the phase's operation lacks is refused. */
static void test_composites(void)
{
    static const int ops[][2] = {
        {MM_COLL_REDUCE_SCATTER, MM_ALG_NONOVERLAPPING},
        {MM_COLL_REDUCE_SCATTER_BLOCK, MM_ALG_NONOVERLAPPING},
        {MM_COLL_ALLGATHER, MM_ALG_GATHER_BCAST}, {MM_COLL_ALLGATHERV, MM_ALG_GATHER_BCAST},
    };
    static const int first[] = {MM_ALG_LINEAR, MM_ALG_DIRECT, MM_ALG_BINOMIAL};
    static const int second[] = {MM_ALG_LINEAR, MM_ALG_BINOMIAL};
    size_t combos = 0;
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (size_t a = 0; a < 3; a++)
            for (size_t b = 0; b < 2; b++)
                for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
                    mm_coll_desc d = {ops[o][0], ops[o][1], sizes[si], 0, 24, 8,
                                      {first[a], second[b]}, NULL, {0, 0}};
                    combos += (size_t)check_schedule(&d);
                }
    CHECK_EQ(combos, 4 * 2 * 2 * (sizeof sizes / sizeof *sizes) +
                     2 * 1 * 2 * (sizeof sizes / sizeof *sizes)); /* no direct reduce */
    char err[256];
    mm_coll_desc d = {MM_COLL_REDUCE_SCATTER, MM_ALG_NONOVERLAPPING, 8, 0, 8, 0,
                      {MM_ALG_RING, MM_ALG_LINEAR}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_check(&d, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "ring") != NULL && strstr(err, "reduce") != NULL);
}

/* Algorithms that cut the vector between elements (ring and Rabenseifner
 * allreduce, Rabenseifner reduce, scatter + allgather bcasts), and the
 * nonoverlapping allreduce with each pair of reduce and bcast algorithms:
 * element sizes 1 and 8, counts below n, at n and odd ones above. */
static void test_schedules_elems(void)
{
    static const int cut[][2] = {
        {MM_COLL_ALLREDUCE, MM_ALG_RING}, {MM_COLL_ALLREDUCE, MM_ALG_SEGMENTED_RING},
        {MM_COLL_ALLREDUCE, MM_ALG_RABENSEIFNER}, {MM_COLL_ALLREDUCE, MM_ALG_LINEAR},
        {MM_COLL_REDUCE, MM_ALG_RABENSEIFNER}, {MM_COLL_BCAST, MM_ALG_SCATTER_ALLGATHER},
        {MM_COLL_ALLREDUCE, MM_ALG_RABENSEIFNER_MPICH}, {MM_COLL_REDUCE, MM_ALG_RABENSEIFNER_MPICH},
        {MM_COLL_BCAST, MM_ALG_SCATTER_RING_ALLGATHER},
        {MM_COLL_BCAST, MM_ALG_MPICH_SCATTER_RD_ALLGATHER},
        {MM_COLL_BCAST, MM_ALG_MPICH_SCATTER_RING_ALLGATHER},
    };
    static const uint32_t elems[] = {1, 8};
    size_t combos = 0, pieces = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int32_t n = sizes[si];
        uint64_t counts[] = {1, (uint64_t)n - 1, (uint64_t)n, (uint64_t)n + 1,
                             2 * (uint64_t)n + 3, 37, 1001};
        for (size_t ei = 0; ei < 2; ei++)
            for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
                int32_t roots[3] = {0, n - 1, n / 2};
                for (size_t a = 0; a < sizeof cut / sizeof *cut; a++)
                    for (int ri = 0; ri < 3; ri++) {
                        mm_coll_desc d = {cut[a][0], cut[a][1], n, roots[ri],
                                          counts[ci] * elems[ei], elems[ei], {0, 0}, NULL, {0, 0}};
                        combos += (size_t)check_schedule(&d);
                        pieces += mm_coll_nblocks(&d) > 1;
                    }
                for (int ra = 1; ra < MM_ALG_COUNT; ra++)
                    for (int ba = 0; ba < MM_ALG_COUNT; ba++) {
                        if ((ra != MM_ALG_AUTO && !mm_coll_alg_valid(MM_COLL_REDUCE, ra)) ||
                            (ba != MM_ALG_AUTO && !mm_coll_alg_valid(MM_COLL_BCAST, ba)))
                            continue;
                        /* Open MPI's allreduce: MPICH's own reduce and bcasts
                         * (checked alone above) would only slow this down */
                        if (ra == MM_ALG_BINOMIAL_ROOT0 || ba == MM_ALG_MPICH_SCATTER_RD_ALLGATHER ||
                            ba == MM_ALG_MPICH_SCATTER_RING_ALLGATHER)
                            continue;
                        mm_coll_desc d = {MM_COLL_ALLREDUCE, MM_ALG_NONOVERLAPPING, n, 0,
                                          counts[ci] * elems[ei], elems[ei], {ra, ba}, NULL, {0, 0}};
                        combos += (size_t)check_schedule(&d);
                    }
            }
    }
    printf("element-cut schedules checked: %zu (%zu cut into pieces)\n", combos, pieces);
    CHECK(combos > 3000 && pieces > 1000);
}

/* libnbc's schedules with real element sizes and vectors cut unevenly
 * (fragments of 8192 B, halving 100000/8 elements, ring segments). */
static void test_nbc_schedules(void)
{
    static const int fams[] = {MM_COLL_BCAST, MM_COLL_REDUCE, MM_COLL_ALLREDUCE, MM_COLL_ALLTOALL};
    static const uint64_t bytes[] = {8, 24, 4096, 65536, 100000, 100003};
    static const uint32_t elems[] = {1, 8};
    size_t combos = 0;
    for (size_t f = 0; f < sizeof fams / sizeof *fams; f++)
        for (int alg = MM_ALG_NBC_BINOMIAL; alg <= MM_ALG_NBC_KNOMIAL; alg++) {
            if (!mm_coll_alg_valid(fams[f], alg))
                continue;
            for (int32_t n = 1; n <= 33; n++)
                for (int32_t root = 0; root < n; root += n > 9 ? 5 : 1)
                    for (size_t b = 0; b < sizeof bytes / sizeof *bytes; b++)
                        for (size_t e = 0; e < 2; e++) {
                            mm_coll_desc d = {fams[f], alg, n, root, bytes[b], elems[e], {0, 0}, NULL, {0, 0}};
                            combos += (size_t)check_schedule(&d);
                        }
        }
    printf("libnbc schedules checked: %zu\n", combos);
    CHECK(combos > 5000);
    /* libnbc's piece sizes: 100000 B in 8192-B fragments (12 of 7692 B, the
     * last 7696 B), 7 elements halved for 4 ranks (1 2 2 2) */
    mm_coll_desc c = {MM_COLL_IREDUCE, MM_ALG_NBC_CHAIN, 2, 0, 100000, 1, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_nblocks(&c), 13);
    CHECK_EQ(mm_coll_block_bytes(&c, 0), 7692);
    CHECK_EQ(mm_coll_block_bytes(&c, 12), 7696);
    mm_coll_desc h = {MM_COLL_IALLREDUCE, MM_ALG_NBC_REDSCAT, 5, 0, 56, 8, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_nblocks(&h), 4);
    CHECK_EQ(mm_coll_block_bytes(&h, 0), 8);
    CHECK_EQ(mm_coll_block_bytes(&h, 1), 16);
    CHECK_EQ(mm_coll_block_bytes(&h, 3), 16);
    char err[256];
    h.bytes = 24; /* 3 elements < 4 */
    CHECK_EQ(mm_coll_check(&h, err, sizeof err), MMS_EFORMAT);
    c.bytes = 0;
    CHECK_EQ(mm_coll_check(&c, err, sizeof err), MMS_EFORMAT);
    /* libnbc's binomial ibcast, 8 ranks, root 3: vranks swap 0 and 3 (as
     * Open MPI 4.1.4 sends it, checked with pml monitoring) */
    static const int32_t tree[][3] = {{0, 3, 1}, {0, 3, 2}, {0, 3, 4}, {1, 1, 0},
                                      {1, 1, 5}, {1, 2, 6}, {2, 0, 7}};
    mm_coll_desc bc = {MM_COLL_IBCAST, MM_ALG_NBC_BINOMIAL, 8, 3, 4096, 1, {0, 0}, NULL, {0, 0}};
    mm_coll_xfer *x = NULL;
    size_t nx = 0;
    CHECK_EQ(mm_coll_expand_array(&bc, &x, &nx, err, sizeof err), MMS_OK);
    CHECK_EQ(nx, sizeof tree / sizeof *tree);
    for (size_t i = 0; i < nx && i < sizeof tree / sizeof *tree; i++) {
        CHECK_EQ(x[i].step, (uint32_t)tree[i][0]);
        CHECK_EQ(x[i].src, tree[i][1]);
        CHECK_EQ(x[i].dst, tree[i][2]);
        CHECK_EQ(x[i].bytes, 4096);
    }
    free(x);
    /* non-commutative operations: libnbc reduces at rank 0 */
    mm_coll_query q = {MM_COLL_IREDUCE, 8, 1 << 20, 8, 1, MM_COLL_LIB_OMPI, NULL};
    CHECK_EQ(mm_coll_select(&q).alg, MM_ALG_NBC_BINOMIAL_ROOT0);
    q.op = MM_COLL_IALLREDUCE;
    CHECK_EQ(mm_coll_select(&q).alg, MM_ALG_NBC_BINOMIAL);
    q.noncommutative = 0;
    CHECK_EQ(mm_coll_select(&q).alg, MM_ALG_NBC_REDSCAT);
}

/* Transfers equal but for the tag they carry. */
static int same_but_tag(const mm_coll_xfer *a, const mm_coll_xfer *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mm_coll_xfer x = a[i], y = b[i];
        x.tag_op = y.tag_op = 0;
        if (memcmp(&x, &y, sizeof x) != 0)
            return 0;
    }
    return 1;
}

static int xfer_cmp(const void *pa, const void *pb)
{
    const mm_coll_xfer *a = pa, *b = pb;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return a->src < b->src ? -1 : a->src > b->src;
}

/* Open MPI's alltoallv basic_linear: every rank posts its receives in rank
 * order 0, 1, ..., n-1 (skipping itself), and sends in that order too. */
static void check_alltoallv_linear_order(const mm_coll_xfer *x, size_t nx, int32_t n)
{
    int32_t *next_src = calloc((size_t)n, sizeof *next_src), *next_dst = calloc((size_t)n, sizeof *next_dst);
    CHECK(next_src && next_dst);
    for (size_t k = 0; next_src && next_dst && k < nx; k++) {
        int32_t s = x[k].src, d = x[k].dst;
        next_src[d] += next_src[d] == d; /* no message from itself */
        next_dst[s] += next_dst[s] == s;
        CHECK_EQ(s, next_src[d]);
        CHECK_EQ(d, next_dst[s]);
        next_src[d]++;
        next_dst[s]++;
        CHECK_EQ(x[k].step, 0);
    }
    free(next_src);
    free(next_dst);
}

/* The nonblocking and v-variants expand exactly as their family, with
 * every algorithm; but alltoallv linear (Open MPI's basic_linear posts in
 * rank order) sends the same messages in another order. */
static void test_variants(void)
{
    static const int pairs[][2] = {
        {MM_COLL_IGATHER, MM_COLL_GATHER}, {MM_COLL_GATHERV, MM_COLL_GATHER},
        {MM_COLL_IALLGATHER, MM_COLL_ALLGATHER}, {MM_COLL_ALLGATHERV, MM_COLL_ALLGATHER},
        {MM_COLL_IALLREDUCE, MM_COLL_ALLREDUCE}, {MM_COLL_IBCAST, MM_COLL_BCAST},
        {MM_COLL_IREDUCE, MM_COLL_REDUCE}, {MM_COLL_IBARRIER, MM_COLL_BARRIER},
        {MM_COLL_IALLTOALL, MM_COLL_ALLTOALL}, {MM_COLL_ALLTOALLV, MM_COLL_ALLTOALL},
        {MM_COLL_ISCATTER, MM_COLL_SCATTER}, {MM_COLL_SCATTERV, MM_COLL_SCATTER},
        {MM_COLL_ISCATTERV, MM_COLL_SCATTER},
        {MM_COLL_IREDUCE_SCATTER, MM_COLL_REDUCE_SCATTER},
        {MM_COLL_REDUCE_SCATTER_BLOCK, MM_COLL_REDUCE_SCATTER},
        {MM_COLL_IREDUCE_SCATTER_BLOCK, MM_COLL_REDUCE_SCATTER},
        {MM_COLL_ISCAN, MM_COLL_SCAN}, {MM_COLL_IEXSCAN, MM_COLL_EXSCAN},
    };
    size_t compared = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        CHECK_EQ(mm_coll_family(pairs[i][0]), pairs[i][1]);
        for (int alg = 1; alg < MM_ALG_COUNT; alg++) {
            if (!mm_coll_alg_valid(pairs[i][1], alg))
                continue;
            mm_coll_desc a = {pairs[i][0], alg, 13, 4, 64, 0, {0, 0}, NULL, {0, 0}}, b = {pairs[i][1], alg, 13, 4, 64, 0, {0, 0}, NULL, {0, 0}};
            mm_coll_xfer *xa, *xb;
            size_t na, nb;
            char err[256];
            if (mm_coll_check(&b, err, sizeof err) != MMS_OK)
                continue;
            CHECK_EQ(mm_coll_expand_array(&a, &xa, &na, err, sizeof err), MMS_OK);
            CHECK_EQ(mm_coll_expand_array(&b, &xb, &nb, err, sizeof err), MMS_OK);
            CHECK_EQ(na, nb);
            if (pairs[i][0] == MM_COLL_ALLTOALLV && alg == MM_ALG_LINEAR && na == nb) {
                check_alltoallv_linear_order(xa, na, a.n);
                CHECK(!same_but_tag(xa, xb, na)); /* another order ... */
                qsort(xa, na, sizeof *xa, xfer_cmp);
                qsort(xb, nb, sizeof *xb, xfer_cmp);
            }
            CHECK(na == nb && same_but_tag(xa, xb, na)); /* ... the same messages */
            compared++;
            free(xa);
            free(xb);
        }
    }
    CHECK(compared > 30);
    CHECK_EQ(mm_coll_family(MM_COLL_NONE), -1);
    CHECK_EQ(mm_coll_family(MM_COLL_OP_COUNT), -1);
    CHECK_EQ(mm_coll_nonblocking_of(MM_COLL_ALLGATHER), MM_COLL_IALLGATHER);
    CHECK_EQ(mm_coll_nonblocking_of(MM_COLL_SCATTERV), MM_COLL_ISCATTERV);
    CHECK_EQ(mm_coll_nonblocking_of(MM_COLL_REDUCE_SCATTER_BLOCK), MM_COLL_IREDUCE_SCATTER_BLOCK);
    CHECK_EQ(mm_coll_nonblocking_of(MM_COLL_GATHERV), MM_COLL_GATHERV);
    CHECK(mm_coll_nonblocking(MM_COLL_IALLGATHER) && !mm_coll_nonblocking(MM_COLL_ALLGATHER));
    /* every operation but NONE has a family; its nonblocking form is nonblocking */
    for (int op = MM_COLL_NONE + 1; op < MM_COLL_OP_COUNT; op++) {
        int fam = mm_coll_family(op);
        CHECK(fam > 0);
        int nbop = mm_coll_nonblocking_of(op);
        if (nbop == op && !mm_coll_nonblocking(op))
            nbop = mm_coll_nonblocking_of(fam);
        CHECK(mm_coll_nonblocking(nbop) && mm_coll_family(nbop) == fam);
    }
}

/* The tag each transfer carries: the call's own operation's, except in the
 * blocking nonoverlapping reduce_scatter (Open MPI: a reduce, then a
 * scatterv, or a scatter for reduce_scatter_block), whose reduce part is
 * every step before the last, and in the blocking allreduces that are a
 * reduce then a bcast. */
static void test_tag_ops(void)
{
    static const int32_t ns[] = {1, 2, 5, 8, 13};
    for (int op = MM_COLL_NONE + 1; op < MM_COLL_OP_COUNT; op++)
        for (int alg = 1; alg < MM_ALG_COUNT; alg++)
            for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
                mm_coll_desc d = {op, alg, ns[i], 0, 16, 0, {0, 0}, NULL, {0, 0}};
                mm_coll_xfer *x;
                size_t nx;
                char err[256];
                if (mm_coll_check(&d, err, sizeof err) != MMS_OK)
                    continue;
                CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
                int ar = mm_coll_family(op) == MM_COLL_ALLREDUCE;
                /* allreduce basic_linear, nonoverlapping, Rabenseifner's
                 * fallback: a reduce (combining), then a bcast (copies) */
                int ar2 = ar && !mm_coll_nonblocking(op) &&
                          (alg == MM_ALG_LINEAR || alg == MM_ALG_NONOVERLAPPING ||
                           (alg == MM_ALG_RABENSEIFNER && mm_coll_nblocks(&d) == 1));
                int two = alg == MM_ALG_NONOVERLAPPING && !ar && !mm_coll_nonblocking(op);
                /* gather_bcast: a gather(v) to 0, then a bcast from 0 */
                int gb = alg == MM_ALG_GATHER_BCAST && !mm_coll_nonblocking(op);
                int gat = op == MM_COLL_ALLGATHERV ? MM_COLL_GATHERV : MM_COLL_GATHER;
                int scat = op == MM_COLL_REDUCE_SCATTER_BLOCK ? MM_COLL_SCATTER : MM_COLL_SCATTERV;
                uint32_t last = nx ? x[nx - 1].step : 0;
                for (size_t k = 0; k < nx; k++) {
                    int want = gb ? (x[k].dst == 0 ? gat : MM_COLL_BCAST)
                             : ar2 ? (x[k].mode == MM_XFER_REDUCE ? MM_COLL_REDUCE : MM_COLL_BCAST)
                             : !two ? op : x[k].step < last ? MM_COLL_REDUCE : scat;
                    CHECK_EQ(x[k].tag_op, want);
                    CHECK_EQ(mm_coll_xfer_tag(&x[k], 3), mm_coll_tag(want, 3));
                    if (two)
                        CHECK_EQ(x[k].mode, want == MM_COLL_REDUCE ? MM_XFER_REDUCE : MM_XFER_COPY);
                }
                free(x);
            }
    /* Open MPI: reduce -21, scatter -25, scatterv -26 */
    mm_coll_desc d = {MM_COLL_REDUCE_SCATTER, MM_ALG_NONOVERLAPPING, 4, 0, 8, 0, {0, 0}, NULL, {0, 0}};
    mm_coll_xfer *x;
    size_t nx;
    char err[256];
    CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
    CHECK_EQ(nx, 3 + 3); /* binomial reduce of 4 ranks, then 3 blocks */
    CHECK(nx == 6 && mm_coll_xfer_tag(&x[0], 0) == -21 && mm_coll_xfer_tag(&x[5], 0) == -26);
    free(x);
    d.op = MM_COLL_REDUCE_SCATTER_BLOCK;
    CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
    CHECK(nx == 6 && mm_coll_xfer_tag(&x[0], 0) == -21 && mm_coll_xfer_tag(&x[5], 0) == -25);
    free(x);
    d.op = MM_COLL_IREDUCE_SCATTER;
    CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
    CHECK(nx == 6 && mm_coll_xfer_tag(&x[0], 2) == -29 && mm_coll_xfer_tag(&x[5], 2) == -29);
    free(x);
}

/* Section 5.4 / 5.2 of paper 000: in a linear gather rank 0 of n ranks
 * receives n-1 messages, one from every other rank, all on the gather tag. */
static void test_hot_spot(void)
{
    const int32_t ns[] = {64, 512, 1024};
    for (size_t i = 0; i < 3; i++) {
        mm_coll_desc d = {MM_COLL_GATHER, MM_ALG_LINEAR, ns[i], 0, 8, 0, {0, 0}, NULL, {0, 0}};
        mm_coll_xfer *x;
        size_t nx;
        char err[256];
        CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
        CHECK_EQ(nx, ns[i] - 1);
        char *seen = calloc((size_t)ns[i], 1);
        size_t at_root = 0;
        for (size_t k = 0; k < nx; k++) {
            at_root += x[k].dst == 0;
            if (x[k].src > 0 && x[k].src < ns[i])
                seen[x[k].src]++;
            CHECK_EQ(x[k].step, x[k].src - 1); /* one blocking receive after the other */
        }
        CHECK_EQ(at_root, ns[i] - 1);
        for (int32_t r = 1; r < ns[i]; r++)
            CHECK_EQ(seen[r], 1);
        free(seen);
        free(x);
    }
    CHECK(mm_coll_tag(MM_COLL_GATHER, 0) < 0);
}

static void test_check_errors(void)
{
    char err[256];
    mm_coll_desc d = {MM_COLL_ALLGATHER, MM_ALG_RECURSIVE_DOUBLING, 6, 0, 8, 0, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_check(&d, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "power-of-two") != NULL);
    d.alg = MM_ALG_NEIGHBOR_EXCHANGE;
    d.n = 7;
    CHECK_EQ(mm_coll_check(&d, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "even") != NULL);
    mm_coll_desc g = {MM_COLL_GATHER, MM_ALG_RING, 4, 0, 8, 0, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_check(&g, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "ring") != NULL && strstr(err, "gather") != NULL);
    g.alg = MM_ALG_LINEAR;
    g.root = 4;
    CHECK_EQ(mm_coll_check(&g, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "root 4") != NULL);
    g.root = 0;
    g.n = 0;
    CHECK_EQ(mm_coll_check(&g, err, sizeof err), MMS_EFORMAT);
    mm_coll_desc s = {MM_COLL_NONE, MM_ALG_LINEAR, 4, 0, 8, 0, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_check(&s, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "not a collective") != NULL);
    mm_coll_desc sc = {MM_COLL_SCATTER, MM_ALG_RING, 4, 0, 8, 0, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_check(&sc, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "ring") != NULL && strstr(err, "scatter") != NULL);
    sc.alg = MM_ALG_BINOMIAL;
    sc.root = -1;
    CHECK_EQ(mm_coll_check(&sc, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "root -1") != NULL);
    mm_coll_desc sn = {MM_COLL_SCAN, MM_ALG_RECURSIVE_HALVING, 4, 0, 8, 0, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_check(&sn, err, sizeof err), MMS_EFORMAT);
    CHECK_EQ(mm_coll_alg_from_name("recursive_halving"), MM_ALG_RECURSIVE_HALVING);
    CHECK_EQ(mm_coll_alg_from_name("nonoverlapping"), MM_ALG_NONOVERLAPPING);
    CHECK_EQ(mm_coll_alg_from_name("bruck"), MM_ALG_BRUCK);
    CHECK_EQ(mm_coll_alg_from_name("nope"), -1);
    CHECK(mm_coll_alg_name(MM_ALG_COUNT) == NULL);
}

static void test_tags(void)
{
    /* blocking: one fixed negative tag per operation, all distinct */
    int32_t seen[64];
    size_t ns = 0;
    static const int blocking[] = {
        MM_COLL_BARRIER, MM_COLL_BCAST, MM_COLL_REDUCE, MM_COLL_ALLREDUCE, MM_COLL_GATHER,
        MM_COLL_GATHERV, MM_COLL_SCATTER, MM_COLL_SCATTERV, MM_COLL_ALLGATHER,
        MM_COLL_ALLGATHERV, MM_COLL_ALLTOALL, MM_COLL_ALLTOALLV, MM_COLL_REDUCE_SCATTER,
        MM_COLL_SCAN, MM_COLL_EXSCAN, MM_COLL_REDUCE_SCATTER_BLOCK,
    };
    for (size_t b = 0; b < sizeof blocking / sizeof *blocking; b++) {
        int op = blocking[b];
        CHECK(!mm_coll_nonblocking(op));
        int32_t t = mm_coll_tag(op, 0);
        CHECK(t < 0 && t > MM_COLL_TAG_NONBLOCKING_BASE);
        for (size_t i = 0; i < ns; i++)
            CHECK(seen[i] != t);
        seen[ns++] = t;
    }
    CHECK_EQ(mm_coll_tag(MM_COLL_GATHER, 5), -19);
    CHECK_EQ(mm_coll_tag(MM_COLL_ALLREDUCE, 5), -12);
    /* coll_tags.h of Open MPI 2.x-4.x */
    CHECK_EQ(mm_coll_tag(MM_COLL_REDUCE_SCATTER_BLOCK, 0), -23);
    CHECK_EQ(mm_coll_tag(MM_COLL_SCAN, 0), -24);
    CHECK_EQ(mm_coll_tag(MM_COLL_SCATTER, 0), -25);
    CHECK_EQ(mm_coll_tag(MM_COLL_SCATTERV, 0), -26);
    CHECK_EQ(mm_coll_tag(MM_COLL_EXSCAN, 0), -18);
    CHECK_EQ(mm_coll_tag(MM_COLL_ISCAN, 4), -31);
    /* nonblocking: a new tag per call, counting down from -27 */
    CHECK_EQ(mm_coll_tag(MM_COLL_IALLGATHER, 0), -27);
    CHECK_EQ(mm_coll_tag(MM_COLL_IALLGATHER, 1), -28);
    CHECK_EQ(mm_coll_tag(MM_COLL_IBARRIER, 100), -127);
    CHECK(mm_coll_tag(MM_COLL_IALLREDUCE, UINT32_MAX) < 0);
    CHECK(mm_coll_tag(MM_COLL_IALLREDUCE, UINT32_MAX) != INT32_MIN);
}

/* Every automatic choice, of both libraries, for every operation, size,
 * element size and commutativity, is one the schedules expand (the
 * converter has no fallback: a refusal there is a bug); a few rules checked
 * against the published thresholds (Open MPI's blocking rules:
 * test_coll_auto.c). */
static void test_auto(void)
{
    static const uint64_t bytes[] = {0, 8, 100, 299, 300, 511, 1023, 2048, 6001, 9999, 10000,
                                     50000, 100000, 1 << 20, UINT64_MAX / 2};
    static const int32_t ns[] = {1, 2, 3, 7, 8, 11, 13, 61, 64, 100, 512, 1000};
    static const uint32_t elems[] = {0, 1, 8};
    size_t checked = 0;
    for (int lib = 0; lib < 2; lib++)
        for (int op = MM_COLL_NONE + 1; op < MM_COLL_OP_COUNT; op++)
            for (size_t b = 0; b < sizeof bytes / sizeof *bytes; b++)
                for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
                    for (size_t e = 0; e < 3; e++)
                        for (int nc = 0; nc < 2; nc++) {
                            mm_coll_query q = {op, ns[i], bytes[b], elems[e], nc, lib, NULL};
                            mm_coll_choice c = mm_coll_select(&q);
                            CHECK(c.rule != NULL && c.rule[0] != '\0');
                            if (mm_coll_family(op) < 0) {
                                CHECK_EQ(c.alg, MM_ALG_AUTO); /* nothing to expand */
                                continue;
                            }
                            mm_coll_desc d = {op, c.alg, ns[i], 0, bytes[b], elems[e],
                                              {c.sub[0], c.sub[1]}, NULL, {0, 0}};
                            char err[256];
                            int rc = mm_coll_check(&d, err, sizeof err);
                            if (rc != MMS_OK)
                                fprintf(stderr, "auto %s n=%d bytes=%llu elem=%u nc=%d lib=%d: "
                                        "%s (%s)\n", mm_coll_name(op), ns[i],
                                        (unsigned long long)bytes[b], elems[e], nc, lib, err,
                                        c.rule);
                            CHECK_EQ(rc, MMS_OK);
                            /* a stand-in says so, in the flag and in the rule */
                            CHECK_EQ(c.substitute, strstr(c.rule, "(as ") != NULL);
                            checked++;
                        }
    printf("automatic choices checked: %zu\n", checked);
    /* the rules against the published thresholds: {op, n, bytes, lib, alg} */
    enum { O = MM_COLL_LIB_OMPI, M = MM_COLL_LIB_MPICH };
    static const struct { int op; int32_t n; uint64_t bytes; int lib, alg; } rules[] = {
        /* Open MPI: libnbc (the blocking rules: test_coll_auto.c) */
        {MM_COLL_IGATHER, 512, 8, O, MM_ALG_DIRECT},
        {MM_COLL_IALLGATHER, 512, 1024, O, MM_ALG_LINEAR},
        /* MPICH */
        {MM_COLL_GATHER, 4, 8, M, MM_ALG_BINOMIAL},
        {MM_COLL_ALLGATHER, 512, 1000, M, MM_ALG_RECURSIVE_DOUBLING},
        {MM_COLL_ALLGATHER, 500, 1000, M, MM_ALG_RING},
        {MM_COLL_ALLGATHER, 13, 8, M, MM_ALG_BRUCK},
        /* MPICH 4.0.2: <= 8 B or count < pof2(n): recursive doubling, else
         * Rabenseifner (ring stands in until it is implemented) */
        {MM_COLL_ALLREDUCE, 64, 8, M, MM_ALG_RECURSIVE_DOUBLING},
        {MM_COLL_ALLREDUCE, 64, 504, M, MM_ALG_RECURSIVE_DOUBLING},
        {MM_COLL_IALLREDUCE, 64, 2048, M, MM_ALG_RECURSIVE_DOUBLING},
        {MM_COLL_BARRIER, 16, 0, M, MM_ALG_DISSEMINATION},
        /* scatter: Open MPI basic linear for scatterv, libnbc linear; MPICH
         * binomial, scatterv linear */
        {MM_COLL_SCATTERV, 64, 8, O, MM_ALG_LINEAR},
        {MM_COLL_ISCATTER, 64, 8, O, MM_ALG_LINEAR},
        {MM_COLL_SCATTER, 4, 1 << 20, M, MM_ALG_BINOMIAL},
        {MM_COLL_ISCATTER, 4, 8, M, MM_ALG_BINOMIAL},
        {MM_COLL_SCATTERV, 64, 8, M, MM_ALG_LINEAR},
        {MM_COLL_ISCATTERV, 64, 8, M, MM_ALG_LINEAR},
        /* ireduce_scatter, Open MPI: libnbc */
        {MM_COLL_IREDUCE_SCATTER, 1000, 1000, O, MM_ALG_NONOVERLAPPING},
        /* MPICH: n*block < 524288: recursive halving, else pairwise */
        {MM_COLL_REDUCE_SCATTER, 64, 8191, M, MM_ALG_RECURSIVE_HALVING},
        {MM_COLL_REDUCE_SCATTER_BLOCK, 64, 8192, M, MM_ALG_PAIRWISE},
        {MM_COLL_IREDUCE_SCATTER, 64, 8192, M, MM_ALG_PAIRWISE},
        /* scan, exscan: Open MPI basic and libnbc linear */
        {MM_COLL_SCAN, 64, 8, O, MM_ALG_LINEAR},
        {MM_COLL_IEXSCAN, 64, 8, O, MM_ALG_LINEAR},
        /* Open MPI gatherv: coll/basic's, one rank after the other */
        {MM_COLL_GATHERV, 512, 8, O, MM_ALG_LINEAR},
        /* MPICH gather: binomial; gatherv: linear, all receives posted at once */
        {MM_COLL_GATHER, 64, 8, M, MM_ALG_BINOMIAL},
        {MM_COLL_GATHERV, 64, 8, M, MM_ALG_DIRECT},
        /* Open MPI 4.1.4 libnbc (8-byte elements assumed) */
        {MM_COLL_IBCAST, 4, 1 << 20, O, MM_ALG_LINEAR},
        {MM_COLL_IBCAST, 5, 8, O, MM_ALG_NBC_BINOMIAL},
        {MM_COLL_IREDUCE, 8, 8, O, MM_ALG_NBC_BINOMIAL},
        {MM_COLL_IREDUCE, 8, 64, O, MM_ALG_NBC_REDSCAT},
        {MM_COLL_IREDUCE, 2, 65535, O, MM_ALG_NBC_BINOMIAL},
        {MM_COLL_IREDUCE, 2, 65536, O, MM_ALG_NBC_CHAIN},
        {MM_COLL_IALLREDUCE, 3, 1 << 20, O, MM_ALG_NBC_BINOMIAL},
        {MM_COLL_IALLREDUCE, 8, 65535, O, MM_ALG_NBC_BINOMIAL},
        {MM_COLL_IALLREDUCE, 8, 65536, O, MM_ALG_NBC_REDSCAT},
        {MM_COLL_IALLREDUCE, 16384, 65536, O, MM_ALG_NBC_RING},
        {MM_COLL_IALLTOALL, 64, 1 << 20, O, MM_ALG_NBC_LINEAR},
    };
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        mm_coll_choice c = mm_coll_auto(rules[i].op, rules[i].n, rules[i].bytes, rules[i].lib);
        if (c.alg != rules[i].alg)
            fprintf(stderr, "auto %s n=%d bytes=%llu lib=%d: %s, want %s\n",
                    mm_coll_name(rules[i].op), rules[i].n, (unsigned long long)rules[i].bytes,
                    rules[i].lib, mm_coll_alg_name(c.alg), mm_coll_alg_name(rules[i].alg));
        CHECK_EQ(c.alg, rules[i].alg);
    }
    /* MPICH 4.0.2 scan: recursive doubling with one rank per node (node
     * layout unknown: assumed); ranks sharing nodes, consecutively: the ch4
     * composition (coll_mpich_comp.c) */
    mm_coll_choice sc = mm_coll_auto(MM_COLL_SCAN, 64, 8, M);
    CHECK(sc.alg == MM_ALG_RECURSIVE_DOUBLING && !sc.substitute);
    static const int32_t two_nodes[8] = { 0, 0, 0, 0, 1, 1, 1, 1 }, mixed[8] = { 0, 1, 0, 1, 0, 1, 0, 1 },
                         alone[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    mm_coll_query sq = { MM_COLL_SCAN, 8, 64, 8, 0, M, two_nodes };
    sc = mm_coll_select(&sq);
    CHECK(sc.alg == MM_ALG_MPICH_COMPOSITION && !sc.substitute && strstr(sc.rule, "is_node_consecutive"));
    sq.node = mixed; /* shared nodes, not consecutive: composition beta = MPIR recursive doubling */
    sc = mm_coll_select(&sq);
    CHECK(sc.alg == MM_ALG_RECURSIVE_DOUBLING && !sc.substitute);
    sq.node = alone;
    CHECK(!mm_coll_select(&sq).substitute);
    /* allreduce: a noncommutative op runs recursive doubling; commutative on
     * nodes shared by ranks: composition alpha (marked) */
    mm_coll_query aq = { MM_COLL_ALLREDUCE, 8, 1 << 16, 8, 1, M, two_nodes };
    sc = mm_coll_select(&aq);
    CHECK(sc.alg == MM_ALG_RECURSIVE_DOUBLING && !sc.substitute);
    aq.noncommutative = 0;
    sc = mm_coll_select(&aq);
    CHECK(sc.alg == MM_ALG_MPICH_COMPOSITION && strstr(sc.rule, "composition alpha"));
    aq.node = alone;
    sc = mm_coll_select(&aq);
    CHECK(sc.alg != MM_ALG_RECURSIVE_DOUBLING && !strstr(sc.rule, "composition"));
    /* element size: 4096 B of 1-byte elements >= pof2, of 1024-byte ones not */
    aq.bytes = 4096, aq.elem = 1024;
    CHECK(mm_coll_select(&aq).alg == MM_ALG_RECURSIVE_DOUBLING);
    sc = mm_coll_auto(MM_COLL_EXSCAN, 64, 8, M);
    CHECK(sc.alg == MM_ALG_RECURSIVE_DOUBLING && !sc.substitute);
}

/* Open MPI's bcast/reduce trees (coll_bcast_reduce_trees.c): the
 * data-flow check with element sizes that make split binary cut between
 * elements or fall back to the chain, and the per-pair messages the
 * installed Open MPI 4.1.4 sent (pml monitoring, algorithm forced). */
typedef struct pair_msg { int32_t src, dst; uint64_t bytes; } pair_msg;

static void expect_pairs(int op, int alg, int32_t n, int32_t root, uint64_t bytes, uint32_t elem,
                         const pair_msg *want, size_t nwant)
{
    mm_coll_desc d = {op, alg, n, root, bytes, elem, {0, 0}, NULL, {0, 0}};
    mm_coll_xfer *x = NULL;
    size_t nx = 0;
    char err[256];
    CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
    int ok = nx == nwant;
    for (size_t i = 0; ok && i < nwant; i++) {
        size_t hits = 0;
        for (size_t j = 0; j < nx; j++)
            hits += x[j].src == want[i].src && x[j].dst == want[i].dst &&
                    x[j].bytes == want[i].bytes;
        ok = hits == 1;
    }
    if (!ok)
        fprintf(stderr, "%s/%s n=%d root=%d bytes=%llu elem=%u: not Open MPI's messages\n",
                mm_coll_name(op), mm_coll_alg_name(alg), n, root, (unsigned long long)bytes,
                elem);
    CHECK(ok);
    free(x);
}

static void test_ompi_trees(void)
{
    static const int algs[] = {MM_ALG_CHAIN, MM_ALG_PIPELINE, MM_ALG_SPLIT_BINARY,
                               MM_ALG_BINARY, MM_ALG_KNOMIAL, MM_ALG_BMTREE,
                               MM_ALG_IN_ORDER_BINARY};
    static const uint64_t bytes[] = {8, 16, 24, 4096};
    size_t combos = 0;
    for (size_t a = 0; a < sizeof algs / sizeof *algs; a++)
        for (int op = 0; op < 2; op++) /* bcast, reduce; invalid pairs are skipped */
            for (int32_t n = 1; n <= 33; n++)
                for (int32_t root = 0; root < n; root += 1 + n / 4)
                    for (size_t b = 0; b < sizeof bytes / sizeof *bytes; b++) {
                        mm_coll_desc d = {op ? MM_COLL_REDUCE : MM_COLL_BCAST, algs[a], n, root,
                                          bytes[b], 8, {0, 0}, NULL, {0, 0}};
                        combos += (size_t)check_schedule(&d);
                    }
    CHECK(combos > 2000);
    /* observed: mpirun -np N --mca coll_tuned_use_dynamic_rules 1
     * --mca coll_tuned_bcast_algorithm K (docs/collectives.md) */
    static const pair_msg bin8[] = {{0, 1, 4096}, {0, 2, 4096}, {1, 3, 4096}, {1, 5, 4096},
                                    {2, 4, 4096}, {2, 6, 4096}, {3, 7, 4096}};
    expect_pairs(MM_COLL_BCAST, MM_ALG_BINARY, 8, 0, 4096, 1, bin8, 7);
    static const pair_msg bm6[] = {{0, 1, 4096}, {0, 2, 4096}, {0, 4, 4096}, {1, 3, 4096},
                                   {1, 5, 4096}};
    expect_pairs(MM_COLL_BCAST, MM_ALG_BMTREE, 6, 0, 4096, 1, bm6, 5);
    static const pair_msg split6[] = {{0, 1, 2048}, {0, 2, 2048}, {0, 5, 2048}, {1, 2, 2048},
                                      {1, 3, 2048}, {1, 5, 2048}, {2, 1, 2048}, {2, 4, 2048},
                                      {3, 4, 2048}, {4, 3, 2048}};
    expect_pairs(MM_COLL_BCAST, MM_ALG_SPLIT_BINARY, 6, 0, 4096, 1, split6, 10);
    static const pair_msg chain6[] = {{0, 1, 4096}, {1, 2, 4096}, {2, 3, 4096}, {3, 4, 4096},
                                      {4, 5, 4096}};
    expect_pairs(MM_COLL_BCAST, MM_ALG_CHAIN, 6, 0, 4096, 1, chain6, 5);
    static const pair_msg io9[] = {{0, 1, 100000}, {1, 3, 100000}, {2, 3, 100000},
                                   {3, 8, 100000}, {4, 5, 100000}, {5, 7, 100000},
                                   {6, 7, 100000}, {7, 8, 100000}, {8, 3, 100000}};
    expect_pairs(MM_COLL_REDUCE, MM_ALG_IN_ORDER_BINARY, 9, 3, 100000, 8, io9, 9);
}


/* ---- MPICH 4.0.2 algorithms (coll_mpich.c). No oracle sees MPICH, so the
 * per-pair totals below were derived by hand from MPICH v4.0.2's source. */
static int32_t modn(int32_t a, int32_t n) { return ((a % n) + n) % n; }

typedef struct pair_tot { int32_t src, dst; uint32_t msgs; uint64_t bytes; } pair_tot;

/* The call's transfers, summed per (src, dst), are exactly want. */
static void expect_totals(const mm_coll_desc *d, const pair_tot *want, size_t nwant)
{
    mm_coll_xfer *x = NULL;
    size_t nx = 0, matched = 0;
    char err[256];
    CHECK_EQ(mm_coll_expand_array(d, &x, &nx, err, sizeof err), MMS_OK);
    int ok = 1;
    for (size_t i = 0; i < nwant; i++) {
        uint32_t msgs = 0;
        uint64_t bytes = 0;
        for (size_t j = 0; j < nx; j++)
            if (x[j].src == want[i].src && x[j].dst == want[i].dst)
                msgs++, bytes += x[j].bytes;
        ok &= msgs == want[i].msgs && bytes == want[i].bytes;
        matched += msgs;
    }
    if (!ok || matched != nx)
        fprintf(stderr, "%s/%s n=%d root=%d bytes=%llu elem=%u: not MPICH's messages\n",
                mm_coll_name(d->op), mm_coll_alg_name(d->alg), d->n, d->root,
                (unsigned long long)d->bytes, d->elem);
    CHECK(ok && matched == nx);
    free(x);
}

/* Per-pair (messages, bytes) of two descriptions, equal? */
static int same_totals(const mm_coll_desc *a, const mm_coll_desc *b)
{
    mm_coll_xfer *xa, *xb;
    size_t na, nb;
    char err[256];
    if (mm_coll_expand_array(a, &xa, &na, err, sizeof err) != MMS_OK)
        return -1;
    if (mm_coll_expand_array(b, &xb, &nb, err, sizeof err) != MMS_OK) {
        free(xa);
        return -1;
    }
    size_t nn = (size_t)a->n * (size_t)a->n;
    uint64_t *t = calloc(4 * nn, sizeof *t);
    if (!t)
        abort();
    for (size_t i = 0; i < na; i++) {
        t[(size_t)xa[i].src * (size_t)a->n + (size_t)xa[i].dst]++;
        t[nn + (size_t)xa[i].src * (size_t)a->n + (size_t)xa[i].dst] += xa[i].bytes;
    }
    for (size_t i = 0; i < nb; i++) {
        t[2 * nn + (size_t)xb[i].src * (size_t)a->n + (size_t)xb[i].dst]++;
        t[3 * nn + (size_t)xb[i].src * (size_t)a->n + (size_t)xb[i].dst] += xb[i].bytes;
    }
    int same = memcmp(t, t + 2 * nn, 2 * nn * sizeof *t) == 0;
    free(t);
    free(xa);
    free(xb);
    return same;
}

static void test_mpich(void)
{
    /* bcast scatter + ring allgather, n = 5, root 2, 13 bytes:
     * scatter_size = ceil(13/5) = 3 bytes (bcast_utils.c), pieces of
     * relative ranks 0..4: 3 3 3 3 1. MPII_Scatter_for_bcast, masks 4, 2,
     * 1: v0->v4 1 B, v0->v2 6 B, v0->v1 3 B, v2->v3 3 B (v = rank - 2).
     * Ring (bcast_intra_scatter_ring_allgather.c): 4 sendrecvs to the
     * right, all pieces but the receiver's own, empty or not. */
    static const pair_tot ring5[] = {{2, 3, 5, 13}, {3, 4, 4, 10}, {4, 0, 5, 13}, {0, 1, 4, 12},
                                     {1, 2, 4, 10}, {2, 1, 1, 1}, {2, 4, 1, 6}};
    mm_coll_desc d = {MM_COLL_BCAST, MM_ALG_MPICH_SCATTER_RING_ALLGATHER, 5, 2, 13, 1, {0, 0}, NULL, {0, 0}};
    expect_totals(&d, ring5, sizeof ring5 / sizeof *ring5);
    /* bcast scatter + recursive doubling, n = 8, root 0, 10 elements of 8
     * bytes: MPICH cuts 80 bytes into 10-byte pieces (Open MPI: 2-element
     * pieces, 16 16 16 16 16 0 0 0). Scatter: 0->4 40, 0->2 20, 4->6 20,
     * 0->1 10, 2->3 10, 4->5 10, 6->7 10; then MPIC_Sendrecv with v^1 (10
     * B), v^2 (20 B), v^4 (40 B). */
    static const pair_tot rd8[] = {
        {0, 1, 2, 20}, {1, 0, 1, 10}, {0, 2, 2, 40}, {2, 0, 1, 20}, {0, 4, 2, 80}, {4, 0, 1, 40},
        {1, 3, 1, 20}, {3, 1, 1, 20}, {1, 5, 1, 40}, {5, 1, 1, 40}, {2, 3, 2, 20}, {3, 2, 1, 10},
        {2, 6, 1, 40}, {6, 2, 1, 40}, {3, 7, 1, 40}, {7, 3, 1, 40}, {4, 5, 2, 20}, {5, 4, 1, 10},
        {4, 6, 2, 40}, {6, 4, 1, 20}, {5, 7, 1, 20}, {7, 5, 1, 20}, {6, 7, 2, 20}, {7, 6, 1, 10}};
    mm_coll_desc r = {MM_COLL_BCAST, MM_ALG_MPICH_SCATTER_RD_ALLGATHER, 8, 0, 80, 8, {0, 0}, NULL, {0, 0}};
    expect_totals(&r, rd8, sizeof rd8 / sizeof *rd8);
    mm_coll_desc o = r;
    o.alg = MM_ALG_SCATTER_ALLGATHER;
    CHECK_EQ(same_totals(&r, &o), 0);
    /* nbytes == 0: "nothing to do" */
    r.bytes = 0;
    expect_totals(&r, NULL, 0);
    /* With 1-byte elements and count >= n both libraries cut alike, and
     * their scatters and allgathers send the same per-pair messages (any n,
     * non-powers of two too). */
    size_t same = 0;
    for (int32_t n = 2; n <= 40; n++)
        for (int32_t root = 0; root < n; root += 1 + n / 3)
            for (int ring = 0; ring < 2; ring++) {
                uint64_t counts[] = {(uint64_t)n, (uint64_t)n + 1, 3 * (uint64_t)n - 1, 1000};
                for (size_t c = 0; c < 4; c++) {
                    mm_coll_desc m = {MM_COLL_BCAST, ring ? MM_ALG_MPICH_SCATTER_RING_ALLGATHER
                                                          : MM_ALG_MPICH_SCATTER_RD_ALLGATHER,
                                      n, root, counts[c], 1, {0, 0}, NULL, {0, 0}};
                    mm_coll_desc om = m;
                    om.alg = ring ? MM_ALG_SCATTER_RING_ALLGATHER : MM_ALG_SCATTER_ALLGATHER;
                    int s = same_totals(&m, &om);
                    CHECK_EQ(s, 1);
                    same += s == 1;
                }
            }
    CHECK(same > 500);

    /* alltoall scattered (alltoall_intra_scattered.c, MPIR_CVAR_ALLTOALL_
     * THROTTLE = 32): n = 40: rank r receives from r+1 .. r+31 in the first
     * batch, r+32 .. r+39 in the second; the self message is left out. */
    mm_coll_desc a = {MM_COLL_ALLTOALL, MM_ALG_SCATTERED, 40, 0, 100, 1, {0, 0}, NULL, {0, 0}};
    mm_coll_xfer *x;
    size_t nx;
    char err[256];
    CHECK_EQ(mm_coll_expand_array(&a, &x, &nx, err, sizeof err), MMS_OK);
    CHECK_EQ(nx, 40 * 39);
    for (size_t i = 0; i < nx; i++) {
        int32_t off = modn(x[i].src - x[i].dst, 40);
        CHECK_EQ(x[i].step, off < 32 ? 0u : 1u);
        CHECK_EQ(x[i].bytes, 100);
    }
    free(x);
    mm_coll_desc lin = a;
    lin.alg = MM_ALG_LINEAR;
    CHECK_EQ(same_totals(&a, &lin), 1); /* the same pairs as linear, in two steps */
    a.n = 13; /* one batch: exactly the linear alltoall, in its order */
    lin.n = 13;
    mm_coll_xfer *xl;
    size_t nl;
    CHECK_EQ(mm_coll_expand_array(&a, &x, &nx, err, sizeof err), MMS_OK);
    CHECK_EQ(mm_coll_expand_array(&lin, &xl, &nl, err, sizeof err), MMS_OK);
    CHECK(nx == nl && memcmp(x, xl, nx * sizeof *x) == 0);
    free(x);
    free(xl);
    /* pairwise (alltoall_intra_pairwise.c): n = 8, exchange i with r ^ i;
     * n = 5, to r + i, from r - i */
    mm_coll_desc p = {MM_COLL_ALLTOALL, MM_ALG_MPICH_PAIRWISE, 8, 0, 4, 1, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_expand_array(&p, &x, &nx, err, sizeof err), MMS_OK);
    CHECK_EQ(nx, 8 * 7);
    for (size_t i = 0; i < nx; i++)
        CHECK_EQ((uint32_t)(x[i].src ^ x[i].dst), x[i].step + 1);
    free(x);
    p.n = 5;
    CHECK_EQ(mm_coll_expand_array(&p, &x, &nx, err, sizeof err), MMS_OK);
    for (size_t i = 0; i < nx; i++)
        CHECK_EQ(modn(x[i].dst - x[i].src, 5), (int32_t)x[i].step + 1);
    free(x);
    /* Bruck (alltoall_intra_brucks.c) rotates by rank, sends to rank +
     * 2^k the slots with bit k set, as Open MPI's modified Bruck: MPICH's
     * rule picks MM_ALG_MODIFIED_BRUCK. */
    CHECK_EQ(mm_coll_auto(MM_COLL_ALLTOALL, 16, 64, MM_COLL_LIB_MPICH).alg, MM_ALG_MODIFIED_BRUCK);

    /* reduce_scatter noncommutative (reduce_scatter_intra_noncommutative.c),
     * n = 4, 8-byte blocks: blocks stored at mirror positions (0 1 2 3 ->
     * 0 2 1 3); exchange 0 with r ^ 1, 2 blocks: rank 0 sends positions 2,
     * 3 = blocks 1, 3; exchange 1 with r ^ 2, 1 block: rank 1 (window 2..3)
     * sends position 3 = block 3 to rank 3. */
    mm_coll_desc q = {MM_COLL_REDUCE_SCATTER_BLOCK, MM_ALG_NONCOMMUTATIVE, 4, 0, 8, 8, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_expand_array(&q, &x, &nx, err, sizeof err), MMS_OK);
    CHECK_EQ(nx, 8);
    int seen = 0;
    for (size_t i = 0; i < nx; i++) {
        CHECK_EQ(x[i].bytes, x[i].step == 0 ? 16u : 8u);
        if (x[i].step == 0 && x[i].src == 0) {
            CHECK(x[i].dst == 1 && mm_coll_xfer_block(&q, &x[i], 0) == 1 &&
                  mm_coll_xfer_block(&q, &x[i], 1) == 3);
            seen++;
        }
        if (x[i].step == 1 && x[i].src == 1) {
            CHECK(x[i].dst == 3 && mm_coll_xfer_block(&q, &x[i], 0) == 3);
            seen++;
        }
    }
    CHECK_EQ(seen, 2);
    free(x);
    q.n = 6;
    CHECK_EQ(mm_coll_check(&q, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "power-of-two") != NULL);
    /* binomial reduce of a noncommutative op (reduce_intra_binomial.c:
     * lroot = 0, then 0 sends to the root): n = 5, root 3, 16 bytes: 1->0,
     * 3->2 (mask 1), 2->0 (mask 2), 4->0 (mask 4), then 0->3 */
    static const pair_tot nc5[] = {{1, 0, 1, 16}, {3, 2, 1, 16}, {2, 0, 1, 16}, {4, 0, 1, 16},
                                   {0, 3, 1, 16}};
    mm_coll_desc b = {MM_COLL_REDUCE, MM_ALG_BINOMIAL_ROOT0, 5, 3, 16, 8, {0, 0}, NULL, {0, 0}};
    expect_totals(&b, nc5, sizeof nc5 / sizeof *nc5);
    CHECK_EQ(mm_coll_expand_array(&b, &x, &nx, err, sizeof err), MMS_OK);
    CHECK(nx == 5 && x[4].src == 0 && x[4].dst == 3 && x[4].step == 3);
    free(x);
    mm_coll_query nq = {MM_COLL_REDUCE, 5, 16, 8, 1, MM_COLL_LIB_MPICH, NULL};
    CHECK_EQ(mm_coll_select(&nq).alg, MM_ALG_BINOMIAL_ROOT0);
    nq.noncommutative = 0;
    CHECK_EQ(mm_coll_select(&nq).alg, MM_ALG_BINOMIAL);

    /* the rules (mpir/generic.json at v4.0.2), one rank per node */
    static const struct { int op; int32_t n; uint64_t bytes; int nonc, alg; } rules[] = {
        {MM_COLL_BCAST, 7, 100000, 0, MM_ALG_BINOMIAL},
        {MM_COLL_BCAST, 8, 12288, 0, MM_ALG_BINOMIAL},
        {MM_COLL_IBCAST, 8, 12288, 0, MM_ALG_MPICH_SCATTER_RD_ALLGATHER},
        {MM_COLL_BCAST, 16, 524288, 0, MM_ALG_MPICH_SCATTER_RD_ALLGATHER},
        {MM_COLL_IBCAST, 16, 524288, 0, MM_ALG_MPICH_SCATTER_RING_ALLGATHER},
        {MM_COLL_BCAST, 12, 20000, 0, MM_ALG_MPICH_SCATTER_RING_ALLGATHER},
        {MM_COLL_ALLTOALL, 8, 256, 0, MM_ALG_MODIFIED_BRUCK},
        {MM_COLL_IALLTOALL, 8, 2048, 0, MM_ALG_MODIFIED_BRUCK},
        {MM_COLL_ALLTOALL, 8, 257, 0, MM_ALG_SCATTERED},
        {MM_COLL_ALLTOALL, 4, 100, 0, MM_ALG_SCATTERED},
        {MM_COLL_ALLTOALL, 8, 32769, 0, MM_ALG_MPICH_PAIRWISE},
        {MM_COLL_REDUCE_SCATTER, 8, 64, 1, MM_ALG_NONCOMMUTATIVE},
        {MM_COLL_IREDUCE_SCATTER_BLOCK, 16, 64, 1, MM_ALG_NONCOMMUTATIVE},
        {MM_COLL_REDUCE, 6, 100000, 1, MM_ALG_BINOMIAL_ROOT0},
        /* Rabenseifner as MPICH writes it (whole-vector fold, equal pieces), not
         * Open MPI's: the rules once named the wrong one */
        {MM_COLL_ALLREDUCE, 8, 80000, 0, MM_ALG_RABENSEIFNER_MPICH},
        {MM_COLL_IALLREDUCE, 6, 80000, 0, MM_ALG_RABENSEIFNER_MPICH},
        {MM_COLL_REDUCE, 8, 80000, 0, MM_ALG_RABENSEIFNER_MPICH},
        {MM_COLL_REDUCE_SCATTER, 6, 64, 1, MM_ALG_RECURSIVE_DOUBLING},
        {MM_COLL_REDUCE_SCATTER_BLOCK, 5, 64, 1, MM_ALG_RECURSIVE_DOUBLING},
        {MM_COLL_IREDUCE_SCATTER, 12, 1 << 20, 1, MM_ALG_RECURSIVE_DOUBLING},
        {MM_COLL_IREDUCE_SCATTER_BLOCK, 3, 8, 1, MM_ALG_RECURSIVE_DOUBLING},
    };
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        mm_coll_query rq = {rules[i].op, rules[i].n, rules[i].bytes, 8, rules[i].nonc,
                            MM_COLL_LIB_MPICH, NULL};
        mm_coll_choice c = mm_coll_select(&rq);
        if (c.alg != rules[i].alg || c.substitute)
            fprintf(stderr, "mpich %s n=%d bytes=%llu: %s (%s)\n", mm_coll_name(rules[i].op),
                    rules[i].n, (unsigned long long)rules[i].bytes, mm_coll_alg_name(c.alg), c.rule);
        CHECK(c.alg == rules[i].alg && !c.substitute);
    }
}

/* Messages and bytes per (src, dst) pair, all of them: what pml
 * monitoring counts. */
typedef struct pair_sum { int32_t src, dst; uint64_t msgs, bytes; } pair_sum;

static void expect_pair_sums(int op, int alg, int32_t n, uint64_t bytes, uint32_t elem,
                             const pair_sum *want, size_t nwant)
{
    mm_coll_desc d = {op, alg, n, 0, bytes, elem, {0, 0}, NULL, {0, 0}};
    mm_coll_xfer *x = NULL;
    size_t nx = 0, pairs = 0;
    char err[256];
    CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
    uint64_t *sum = calloc(2 * (size_t)n * (size_t)n, sizeof *sum); /* msgs, bytes */
    CHECK(sum != NULL);
    for (size_t j = 0; sum && j < nx; j++) {
        uint64_t *c = sum + 2 * ((size_t)x[j].src * (size_t)n + (size_t)x[j].dst);
        pairs += c[0] == 0;
        c[0]++;
        c[1] += x[j].bytes;
    }
    int ok = sum && pairs == nwant;
    for (size_t i = 0; ok && i < nwant; i++) {
        const uint64_t *c = sum + 2 * ((size_t)want[i].src * (size_t)n + (size_t)want[i].dst);
        ok = c[0] == want[i].msgs && c[1] == want[i].bytes;
    }
    if (!ok)
        fprintf(stderr, "%s/%s n=%d bytes=%llu elem=%u: not Open MPI's messages\n",
                mm_coll_name(op), mm_coll_alg_name(alg), n, (unsigned long long)bytes, elem);
    CHECK(ok);
    free(sum);
    free(x);
}

/* reduce_scatter_block recursive doubling (forwards on n = 5 and 7) and
 * the power-of-two butterfly: the data-flow check over element sizes and
 * counts, and what the installed Open MPI 4.1.4 sent (pml monitoring,
 * tuned reduce_scatter_block algorithm 2 / 4 forced, 3 doubles a block). */
static void test_ompi_rsb(void)
{
    static const int algs[] = {MM_ALG_RECURSIVE_DOUBLING, MM_ALG_BUTTERFLY};
    static const uint64_t counts[] = {1, 3, 7, 300};
    size_t combos = 0;
    for (size_t a = 0; a < 2; a++)
        for (int32_t n = 1; n <= 40; n++)
            for (size_t c = 0; c < 4; c++)
                for (uint32_t elem = 1; elem <= 8; elem += 7) {
                    mm_coll_desc d = {MM_COLL_REDUCE_SCATTER_BLOCK, algs[a], n, 0,
                                      counts[c] * elem, elem, {0, 0}, NULL, {0, 0}};
                    combos += (size_t)check_schedule(&d);
                }
    CHECK_EQ(combos, 2 * 40 * 4 * 2);
    static const pair_sum rd5[] = {{0, 1, 2, 192}, {0, 2, 2, 168}, {0, 4, 1, 24}, {1, 0, 1, 96},
                                   {1, 3, 1, 72}, {2, 0, 1, 72}, {2, 3, 2, 192}, {3, 1, 1, 72},
                                   {3, 2, 1, 96}, {4, 0, 1, 96}};
    expect_pair_sums(MM_COLL_REDUCE_SCATTER_BLOCK, MM_ALG_RECURSIVE_DOUBLING, 5, 24, 8, rd5, 10);
    static const pair_sum rd7[] = {{0, 1, 1, 144}, {0, 2, 1, 120}, {0, 4, 1, 72}, {1, 0, 1, 144},
                                   {1, 3, 2, 216}, {1, 5, 1, 72}, {2, 0, 1, 120}, {2, 3, 1, 144},
                                   {2, 6, 1, 72}, {3, 1, 1, 120}, {3, 2, 1, 144}, {4, 0, 1, 96},
                                   {4, 5, 2, 288}, {4, 6, 1, 120}, {5, 1, 1, 96}, {5, 4, 1, 144},
                                   {6, 2, 1, 96}, {6, 4, 1, 144}};
    expect_pair_sums(MM_COLL_REDUCE_SCATTER_BLOCK, MM_ALG_RECURSIVE_DOUBLING, 7, 24, 8, rd7, 18);
    static const pair_sum bf8[] = {{0, 1, 1, 96}, {0, 2, 1, 48}, {0, 4, 1, 24}, {1, 0, 1, 96},
                                   {1, 3, 1, 48}, {1, 5, 1, 24}, {2, 0, 1, 48}, {2, 3, 1, 96},
                                   {2, 6, 1, 24}, {3, 1, 1, 48}, {3, 2, 1, 96}, {3, 7, 1, 24},
                                   {4, 0, 1, 24}, {4, 5, 1, 96}, {4, 6, 1, 48}, {5, 1, 1, 24},
                                   {5, 4, 1, 96}, {5, 7, 1, 48}, {6, 2, 1, 24}, {6, 4, 1, 48},
                                   {6, 7, 1, 96}, {7, 3, 1, 24}, {7, 5, 1, 48}, {7, 6, 1, 96}};
    expect_pair_sums(MM_COLL_REDUCE_SCATTER_BLOCK, MM_ALG_BUTTERFLY, 8, 24, 8, bf8, 24);
    /* the butterfly's messages carry blocks in mirror order: n = 8, rank 0's
     * first message holds positions 4..7, blocks 1, 5, 3, 7 */
    mm_coll_desc d = {MM_COLL_REDUCE_SCATTER_BLOCK, MM_ALG_BUTTERFLY, 8, 0, 24, 8, {0, 0}, NULL, {0, 0}};
    mm_coll_xfer *x = NULL;
    size_t nx = 0;
    char err[256];
    CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
    for (size_t j = 0; j < nx; j++)
        if (x[j].src == 0 && x[j].step == 0) {
            CHECK(x[j].nblk == 4 && mm_coll_xfer_block(&d, &x[j], 0) == 1 &&
                  mm_coll_xfer_block(&d, &x[j], 1) == 5 && mm_coll_xfer_block(&d, &x[j], 3) == 7);
        }
    free(x);
}

/* MPICH 4.0.2's noncommutative reduce_scatter(_block) on n not a power of
 * two: MPIR_Reduce_scatter_intra_recursive_doubling, written as MM_ALG_
 * RECURSIVE_DOUBLING (the messages of Open MPI's reduce_scatter_block one,
 * which was derived from it). Data flow for every op of the family, then
 * the messages derived by hand from reduce_scatter_intra_recursive_
 * doubling.c (v4.0.2), 3 elements of 8 bytes per block: lines 88-153, the
 * MPIC_Sendrecv with rank ^ mask of the blocks outside my_tree_root ..
 * +mask for those outside dst_tree_root .. +mask; lines 170-231, the
 * forwards of tmp_recvbuf (recvtype) when dst_tree_root + mask >
 * comm_size.
 * n = 5: mask 1: 0<->1, 2<->3, 96 B each (4 blocks); 4 has no partner and
 * nprocs_completed = 0. mask 2: 0<->2, 1<->3, 72 B; rank 4: dst 6,
 * nprocs_completed = -1, nothing. mask 4: 0->4 24 B (block 4), 4->0 96 B
 * (blocks 0..3); ranks 0..3: dst_tree_root 4, nprocs_completed = 1;
 * tmp_mask 2 (tree_root 0): 0->2; tmp_mask 1 (tree_root r & ~1): 0->1,
 * 2->3; each forward recvtype = blocks 0..3, 96 B.
 * n = 6: mask 1: 0<->1, 2<->3, 4<->5, 120 B (5 blocks). mask 2: 0<->2,
 * 1<->3, 96 B; ranks 4, 5: nprocs_completed = 0. mask 4: 0->4, 1->5 48 B
 * (blocks 4, 5), 4->0, 5->1 96 B (blocks 0..3); ranks 0..3:
 * nprocs_completed = 2; tmp_mask 2: 0->2, 1->3 96 B; tmp_mask 1: rank 0's
 * partner 1 < 2 and rank 2's partner 3 < 4 already have it: nothing. */
static void test_mpich_rs_rd(void)
{
    static const int ops[] = {MM_COLL_REDUCE_SCATTER, MM_COLL_IREDUCE_SCATTER,
                              MM_COLL_REDUCE_SCATTER_BLOCK, MM_COLL_IREDUCE_SCATTER_BLOCK};
    static const uint64_t counts[] = {1, 3, 7, 300};
    size_t combos = 0, odd = 0;
    for (size_t o = 0; o < 4; o++)
        for (int32_t n = 1; n <= 40; n++)
            for (size_t c = 0; c < 4; c++)
                for (uint32_t elem = 1; elem <= 8; elem += 7) {
                    mm_coll_desc d = {ops[o], MM_ALG_RECURSIVE_DOUBLING, n, 0, counts[c] * elem,
                                      elem, {0, 0}, NULL, {0, 0}};
                    int ok = check_schedule(&d);
                    combos += (size_t)ok;
                    odd += (size_t)(ok && (n & (n - 1)) != 0);
                }
    CHECK_EQ(combos, 4 * 40 * 4 * 2);
    CHECK_EQ(odd, 4 * (40 - 6) * 4 * 2); /* 1, 2, 4, 8, 16, 32 are powers of two */
    static const pair_sum rd5[] = {{0, 1, 2, 192}, {0, 2, 2, 168}, {0, 4, 1, 24}, {1, 0, 1, 96},
                                   {1, 3, 1, 72}, {2, 0, 1, 72}, {2, 3, 2, 192}, {3, 1, 1, 72},
                                   {3, 2, 1, 96}, {4, 0, 1, 96}};
    static const pair_sum rd6[] = {{0, 1, 1, 120}, {1, 0, 1, 120}, {2, 3, 1, 120}, {3, 2, 1, 120},
                                   {4, 5, 1, 120}, {5, 4, 1, 120}, {0, 2, 2, 192}, {2, 0, 1, 96},
                                   {1, 3, 2, 192}, {3, 1, 1, 96}, {0, 4, 1, 48}, {4, 0, 1, 96},
                                   {1, 5, 1, 48}, {5, 1, 1, 96}};
    for (size_t o = 0; o < 4; o++) {
        expect_pair_sums(ops[o], MM_ALG_RECURSIVE_DOUBLING, 5, 24, 8, rd5, 10);
        expect_pair_sums(ops[o], MM_ALG_RECURSIVE_DOUBLING, 6, 24, 8, rd6, 14);
    }
    /* the forwards pass on what was received (lines 195, 199: tmp_recvbuf) */
    mm_coll_desc d = {MM_COLL_REDUCE_SCATTER, MM_ALG_RECURSIVE_DOUBLING, 6, 0, 24, 8, {0, 0}, NULL, {0, 0}};
    mm_coll_xfer *x = NULL;
    size_t nx = 0, fwd = 0;
    char err[256];
    CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
    for (size_t j = 0; j < nx; j++)
        if (x[j].mode == MM_XFER_FORWARD) {
            CHECK(x[j].dst == x[j].src + 2 && x[j].src < 2 && x[j].blk == 0 && x[j].nblk == 4);
            fwd++;
        }
    CHECK_EQ(fwd, 2);
    free(x);
}

/* MPICH 4.0.2's ch4 compositions (coll_mpich_comp.c) on node layouts:
 * the data-flow check (shared-memory phases delivering as release_gather
 * does), both release_gather regimes, and exact messages derived by hand
 * from MPICH's code (v4.0.2: src/mpid/ch4/src/ch4_coll_impl.h,
 * MPIR_Comm_create_subcomms, mpir/generic.json, the MPIR algorithms). */
typedef struct comp_msg { int32_t src, dst; uint64_t bytes; uint8_t tag_op; } comp_msg;

static int cmp_msg(const void *a, const void *b)
{
    const comp_msg *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return (x->tag_op > y->tag_op) - (x->tag_op < y->tag_op);
}

static void expect_comp(int op, int32_t n, const int32_t *node, int32_t root, uint64_t bytes,
                        uint32_t shm, comp_msg *want, size_t nwant, const char *what)
{
    mm_coll_desc d = {op, MM_ALG_MPICH_COMPOSITION, n, root, bytes, 8, {0, 0}, node, {shm, shm}};
    mm_coll_xfer *x = NULL;
    size_t nx = 0;
    char err[256];
    CHECK_EQ(mm_coll_expand_array(&d, &x, &nx, err, sizeof err), MMS_OK);
    comp_msg *got = calloc(nx + 1, sizeof *got);
    for (size_t i = 0; i < nx; i++) {
        comp_msg g = {x[i].src, x[i].dst, x[i].bytes, x[i].tag_op};
        got[i] = g;
    }
    if (nx)
        qsort(got, nx, sizeof *got, cmp_msg);
    if (nwant)
        qsort(want, nwant, sizeof *want, cmp_msg);
    int ok = nx == nwant;
    for (size_t i = 0; ok && i < nx; i++)
        ok = cmp_msg(&got[i], &want[i]) == 0;
    if (!ok) {
        fprintf(stderr, "%s: %zu messages, want %zu:", what, nx, nwant);
        for (size_t i = 0; i < nx; i++)
            fprintf(stderr, " %d->%d %llu/%d", got[i].src, got[i].dst,
                    (unsigned long long)got[i].bytes, got[i].tag_op);
        fprintf(stderr, "\n");
    }
    CHECK(ok);
    free(got);
    free(x);
}

/* Data flow of MPICH's node-consecutive scan (ch4 composition alpha,
 * MPIR iscan sched_smp) with MPICH's buffers, which one (rank, block) set
 * cannot hold: recvbuf R, the node scan's partial sum NP, and on node
 * roots localfulldata LF, the roots scan's result PF and partial RP, and
 * tempbuf TB (every rank). Each transfer's role follows from where it
 * goes: a PREFIX inside a node is the node scan's, between node roots the
 * roots scan's; a COPY to a node root from its node's last rank is the
 * node total (LF), between node roots the prefix (TB), inside a node to
 * a rank that is not its root the prefix bcast (TB; shared-memory pseudo
 * transfers included); SYNC the "noneed" flag. At the end every rank
 * that got a prefix adds TB to R (MPIR_Reduce_local). n <= 64. */
static long scan_comp_flow(const mm_coll_desc *d)
{
    mm_coll_xfer *x = NULL;
    size_t nx = 0;
    char err[256];
    if (expand_with_shm(d, &x, &nx, err, sizeof err) != MMS_OK || d->n > 64) {
        free(x);
        return 1;
    }
    int32_t n = d->n, rootof[64], last[64];
    uint64_t R[64], NP[64], LF[64], PF[64], RP[64], TB[64], pay[64 * 8];
    int roots_started[64] = {0};
    for (int32_t r = 0; r < n; r++) {
        int32_t k = 0;
        while (d->node[k] != d->node[r])
            k++;
        rootof[r] = k; /* consecutive nodes: the lowest rank of r's node */
        R[r] = NP[r] = LF[r] = 1ull << r;
        PF[r] = RP[r] = TB[r] = 0;
    }
    for (int32_t r = 0; r < n; r++)
        last[rootof[r]] = r;
    long bad = 0;
    for (size_t i = 0; i < nx;) {
        size_t j = i;
        while (j < nx && x[j].step == x[i].step)
            j++;
        if (j - i > sizeof pay / sizeof *pay)
            return 1;
        for (size_t t = i; t < j; t++) { /* what the senders hold before the step */
            const mm_coll_xfer *m = &x[t];
            int32_t a = m->src, b = m->dst;
            int inter = rootof[a] != rootof[b];
            if (inter && !roots_started[a]) {
                PF[a] = RP[a] = LF[a];
                roots_started[a] = 1;
            }
            pay[t - i] = m->mode == MM_XFER_PREFIX ? (inter ? RP[a] : NP[a])
                       : inter ? PF[a] : b == rootof[b] ? R[a] : TB[a];
        }
        for (size_t t = i; t < j; t++) {
            const mm_coll_xfer *m = &x[t];
            int32_t a = m->src, b = m->dst;
            uint64_t p = pay[t - i];
            int inter = rootof[a] != rootof[b];
            if (m->mode == MM_XFER_SYNC)
                continue;
            if (inter && !roots_started[b]) {
                PF[b] = RP[b] = LF[b];
                roots_started[b] = 1;
            }
            if (m->mode == MM_XFER_PREFIX) {
                uint64_t *part = inter ? RP : NP, *res = inter ? PF : R;
                bad += !p || (part[b] & p) || (a < b && (res[b] & p));
                part[b] |= p;
                if (a < b)
                    res[b] |= p;
            } else if (inter) {
                bad += !p || TB[b] != 0; /* the prefix of the node before */
                TB[b] = p;
            } else if (b == rootof[b]) {
                bad += a != last[b] || !p; /* the node's total */
                LF[b] = p;
            } else {
                bad += !p;
                TB[b] = p;
            }
        }
        i = j;
    }
    for (int32_t r = 0; r < n; r++) {
        bad += (R[r] & TB[r]) != 0;
        uint64_t want = r == 63 ? ~0ull : (1ull << (r + 1)) - 1;
        bad += (R[r] | TB[r]) != want;
    }
    free(x);
    return bad;
}

static void test_mpich_comp(void)
{
    enum { B = MM_COLL_BCAST, R = MM_COLL_REDUCE, A = MM_COLL_ALLREDUCE, S = MM_COLL_BARRIER };
    static const int ops[] = {B, R, A, S, MM_COLL_IBCAST, MM_COLL_IREDUCE};
    static const uint64_t bytes[] = {0, 8, 3000, 20000, 600000};
    static const uint32_t shm[] = {0, 3, 4, 9};
    int32_t node[40];
    size_t combos = 0;
    char err0[256];
    /* layouts: c ranks per node in blocks, round-robin on k nodes, one
     * node, and uneven blocks */
    for (int32_t n = 2; n <= 33; n += (n < 12 ? 1 : 7))
        for (int lay = 0; lay < 6; lay++) {
            for (int32_t i = 0; i < n; i++)
                node[i] = lay == 0 ? i / 2 : lay == 1 ? i / 3 : lay == 2 ? i % 2 :
                          lay == 3 ? i % 3 : lay == 4 ? 7 : (i * i) % 5;
            for (size_t o = 0; o < 6; o++)
                for (size_t b = 0; b < 5; b++)
                    for (size_t h = 0; h < (mm_coll_nonblocking(ops[o]) ? 1u : 4u); h++) {
                        int32_t roots[3] = {0, n - 1, n / 2};
                        int rooted = mm_coll_family(ops[o]) == B || mm_coll_family(ops[o]) == R;
                        for (int ri = 0; ri < (rooted ? 3 : 1); ri++) {
                            mm_coll_desc d = {ops[o], MM_ALG_MPICH_COMPOSITION, n, roots[ri],
                                              bytes[b], 8, {0, 0}, node, {shm[h], shm[h]}};
                            combos += (size_t)check_schedule(&d);
                        }
                    }
        }
    /* scan on node-consecutive layouts: blocks of 2 and 3, one node,
     * uneven (3+2+..., 1+4+...), 1-rank nodes between */
    size_t scans = 0;
    for (int32_t n = 2; n <= 33; n++)
        for (int lay = 0; lay < 5; lay++) {
            for (int32_t i = 0; i < n; i++)
                node[i] = lay == 0 ? i / 2 : lay == 1 ? i / 3 : lay == 2 ? 0 :
                          lay == 3 ? (i < 3 ? 0 : 1 + (i - 3) / 2) : (i == 0 ? 0 : i < 5 ? 1 : i - 3);
            for (int o = 0; o < 2; o++)
                for (size_t h = 0; h < (o ? 1u : 4u); h++) {
                    mm_coll_desc d = {o ? MM_COLL_ISCAN : MM_COLL_SCAN, MM_ALG_MPICH_COMPOSITION,
                                      n, 0, 24, 8, {0, 0}, node, {shm[h], shm[h]}};
                    if (mm_coll_check(&d, err0, sizeof err0) != MMS_OK)
                        continue;
                    long bad = scan_comp_flow(&d);
                    if (bad)
                        fprintf(stderr, "%s n=%d layout %d shm %u: %ld wrong\n",
                                mm_coll_name(d.op), n, lay, shm[h], bad);
                    CHECK_EQ(bad, 0);
                    scans++;
                }
        }
    printf("mpich scan compositions checked: %zu\n", scans);
    CHECK(scans > 250);
    printf("mpich compositions checked: %zu\n", combos);
    CHECK(combos > 3000);
    /* no layout, one rank per node, or nonblocking: refused */
    char err[256];
    static const int32_t alone[4] = {0, 1, 2, 3};
    mm_coll_desc d = {B, MM_ALG_MPICH_COMPOSITION, 4, 0, 8, 8, {0, 0}, NULL, {0, 0}};
    CHECK_EQ(mm_coll_check(&d, err, sizeof err), MMS_EFORMAT);
    d.node = alone;
    CHECK_EQ(mm_coll_check(&d, err, sizeof err), MMS_EFORMAT);

    /* 2 nodes x 3 ranks, bcast of 8 B from rank 4 (n < 8: composition
     * alpha). node_comm {0,1,2} and {3,4,5}, node roots {0,3}. Rank 4 is
     * not its node's root: MPIC_Send 4->3; MPIR binomial bcast among the
     * roots from internode rank 1: 3->0; then bcast from local rank 0 in
     * each node: before the 5th release_gather call MPIR's binomial
     * (n = 3: 0->1, 0->2), from it on shared memory (no messages). */
    static const int32_t two3[6] = {0, 0, 0, 1, 1, 1};
    comp_msg b1[] = {{4, 3, 8, B}, {3, 0, 8, B}, {0, 1, 8, B}, {0, 2, 8, B}, {3, 4, 8, B},
                     {3, 5, 8, B}};
    expect_comp(B, 6, two3, 4, 8, 0, b1, 6, "bcast alpha 2x3, 1st call");
    comp_msg b5[] = {{4, 3, 8, B}, {3, 0, 8, B}};
    expect_comp(B, 6, two3, 4, 8, 4, b5, 2, "bcast alpha 2x3, 5th call");
    /* reduce of 4096 B (> 2048: alpha) to rank 4, release_gather in the
     * nodes: among the roots {0,3} MPIR reduce_scatter_gather to 0
     * (count 512 >= pof2 2: halves swapped, 3's half gathered to 0), then
     * MPIC_Send 0->4 since the root is not rank 0 */
    comp_msg r1[] = {{0, 3, 2048, R}, {3, 0, 2048, R}, {3, 0, 2048, R}, {0, 4, 4096, R}};
    expect_comp(R, 6, two3, 4, 4096, 4, r1, 4, "reduce alpha 2x3, 5th call");

    /* 1 node x 5 ranks. allreduce (commutative): composition gamma, posix
     * allreduce on the communicator: calls 1-4 MPIR recursive doubling
     * (8 B; rem 1: 0->1 folds, new ranks 1..4 swap at distance 1 and 2,
     * 1->0 returns the result), then release_gather: nothing. */
    static const int32_t one5[5] = {3, 3, 3, 3, 3};
    comp_msg a1[] = {{0, 1, 8, A}, {1, 2, 8, A}, {2, 1, 8, A}, {3, 4, 8, A}, {4, 3, 8, A},
                     {1, 3, 8, A}, {3, 1, 8, A}, {2, 4, 8, A}, {4, 2, 8, A}, {1, 0, 8, A}};
    expect_comp(A, 5, one5, 0, 8, 0, a1, 10, "allreduce gamma 1x5, 1st call");
    expect_comp(A, 5, one5, 0, 8, 4, NULL, 0, "allreduce gamma 1x5, 5th call");
    /* barrier: composition alpha; the node barrier is release_gather call
     * shm+1, the node's 1-byte bcast call shm+2. With 3 calls before: the
     * barrier is the 4th (MPIR dissemination, n = 5: r -> r+1, r+2, r+4),
     * the bcast the 5th (shared memory); with 0 before, the bcast is MPIR
     * binomial from 0 (0->1, 0->2, 2->3, 0->4). */
    comp_msg s4[15], s1[19];
    size_t k = 0;
    for (int32_t dist = 1; dist < 5; dist *= 2)
        for (int32_t r = 0; r < 5; r++) {
            comp_msg m = {r, (r + dist) % 5, 0, S};
            s4[k] = s1[k] = m;
            k++;
        }
    comp_msg bc[4] = {{0, 1, 1, B}, {0, 2, 1, B}, {2, 3, 1, B}, {0, 4, 1, B}};
    memcpy(s1 + 15, bc, sizeof bc);
    expect_comp(S, 5, one5, 0, 0, 3, s4, 15, "barrier alpha 1x5, 4th/5th release_gather");
    expect_comp(S, 5, one5, 0, 0, 0, s1, 19, "barrier alpha 1x5, 1st call");

    /* MPIR's sched_smp, 2 nodes x 3 ranks, 8 B to/from rank 4 (local
     * rank 1 of node {3,4,5}); src/mpi/coll/ibcast/ibcast_intra_sched_smp.c
     * and ireduce/ireduce_intra_sched_smp.c at v4.0.2, every phase
     * sched_auto: sched_binomial (comm_size < 8; <= 2048 B). Ibcast: 4
     * sends to its node's local rank 0 (4->3), ibcast among the roots
     * {0,3} from internode rank 1 (3->0), ibcast from local rank 0 in
     * every node, the root's included (0->1, 0->2, 3->4, 3->5). Ireduce:
     * in node {0,1,2} to local 0 (1->0, 2->0), among the roots to
     * internode rank 1 (0->3), then in node {3,4,5} to local rank 1:
     * binomial with relative ranks 5 -> 1, 3 -> 2 (5->4, 3->4). */
    enum { IB = MM_COLL_IBCAST, IR = MM_COLL_IREDUCE };
    comp_msg ib[] = {{4, 3, 8, IB}, {3, 0, 8, IB}, {0, 1, 8, IB}, {0, 2, 8, IB}, {3, 4, 8, IB},
                     {3, 5, 8, IB}};
    expect_comp(IB, 6, two3, 4, 8, 0, ib, 6, "ibcast sched_smp 2x3");
    comp_msg ir[] = {{1, 0, 8, IR}, {2, 0, 8, IR}, {0, 3, 8, IR}, {5, 4, 8, IR}, {3, 4, 8, IR}};
    expect_comp(IR, 6, two3, 4, 8, 0, ir, 5, "ireduce sched_smp 2x3");
    /* root 0: nothing to send first; node {3,4,5} reduces to 3 */
    comp_msg ib0[] = {{0, 3, 8, IB}, {0, 1, 8, IB}, {0, 2, 8, IB}, {3, 4, 8, IB}, {3, 5, 8, IB}};
    expect_comp(IB, 6, two3, 0, 8, 0, ib0, 5, "ibcast sched_smp 2x3 root 0");
    comp_msg ir0[] = {{4, 3, 8, IR}, {5, 3, 8, IR}, {3, 0, 8, IR}, {1, 0, 8, IR}, {2, 0, 8, IR}};
    expect_comp(IR, 6, two3, 0, 8, 0, ir0, 5, "ireduce sched_smp 2x3 root 0");

    /* scan of 8 B on 2 nodes x 3 ranks (node-consecutive), ch4's
     * MPIDI_Scan_intra_composition_alpha (src/mpid/ch4/src/ch4_coll_impl.h,
     * v4.0.2): MPIR recursive-doubling scan in each node (mask 1: 0<->1,
     * mask 2: 0<->2; 3<->4, 3<->5), the last local rank's result to local
     * rank 0 (2->0, 5->3), recursive doubling among the roots (0<->3),
     * root 0 sends its prefix to root 3 (0->3), all MPIR_SCAN_TAG; then
     * the 4-byte "noneed" bcast in both nodes (release_gather entry shm+1:
     * below the threshold MPIR binomial, 0->1, 0->2, 3->4, 3->5) and the
     * prefix bcast in node 1 (entry shm+2: 3->4, 3->5), MPIR_BCAST_TAG.
     * MPIR_Iscan_intra_sched_smp (src/mpi/coll/iscan/iscan_intra_sched_smp.c)
     * sends the same scan messages, no flag, and the prefix by
     * MPIR_Ibcast_intra_sched_auto (sched_binomial) in node 1, all in the
     * iscan's schedule. */
    enum { SC = MM_COLL_SCAN, IS = MM_COLL_ISCAN };
    comp_msg sc1[19] = {{0, 1, 8, SC}, {1, 0, 8, SC}, {0, 2, 8, SC}, {2, 0, 8, SC},
                        {3, 4, 8, SC}, {4, 3, 8, SC}, {3, 5, 8, SC}, {5, 3, 8, SC},
                        {2, 0, 8, SC}, {5, 3, 8, SC}, {0, 3, 8, SC}, {3, 0, 8, SC},
                        {0, 3, 8, SC}, {0, 1, 4, B}, {0, 2, 4, B}, {3, 4, 4, B},
                        {3, 5, 4, B}, {3, 4, 8, B}, {3, 5, 8, B}};
    comp_msg sc4[17], sc5[13], is1[15];
    memcpy(sc4, sc1, sizeof sc4); /* entries 4 and 5: the prefix by shared memory */
    memcpy(sc5, sc1, sizeof sc5); /* 5 and 6: both */
    for (size_t i = 0; i < 13; i++) { /* before expect_comp sorts sc1 */
        is1[i] = sc1[i];
        is1[i].tag_op = IS;
    }
    expect_comp(SC, 6, two3, 0, 8, 0, sc1, 19, "scan alpha 2x3, 1st call");
    expect_comp(SC, 6, two3, 0, 8, 3, sc4, 17, "scan alpha 2x3, entries 4 and 5");
    expect_comp(SC, 6, two3, 0, 8, 4, sc5, 13, "scan alpha 2x3, entries 5 and 6");
    comp_msg isb[2] = {{3, 4, 8, IS}, {3, 5, 8, IS}};
    memcpy(is1 + 13, isb, sizeof isb);
    expect_comp(IS, 6, two3, 0, 8, 0, is1, 15, "iscan sched_smp 2x3");
    /* uneven 3+2 (nodes {0,1,2}, {3,4}): node 1's scan is 3<->4 alone,
     * 4->3 its total; the iscan's prefix ibcast 3->4 */
    static const int32_t three2[5] = {0, 0, 0, 1, 1};
    comp_msg is2[] = {{0, 1, 8, IS}, {1, 0, 8, IS}, {0, 2, 8, IS}, {2, 0, 8, IS},
                      {3, 4, 8, IS}, {4, 3, 8, IS}, {2, 0, 8, IS}, {4, 3, 8, IS},
                      {0, 3, 8, IS}, {3, 0, 8, IS}, {0, 3, 8, IS}, {3, 4, 8, IS}};
    expect_comp(IS, 5, three2, 0, 8, 0, is2, 12, "iscan sched_smp 3+2");
    /* count 0: MPI_Scan and MPI_Iscan return at once */
    expect_comp(SC, 6, two3, 0, 0, 0, NULL, 0, "scan alpha, count 0");
    expect_comp(IS, 6, two3, 0, 0, 0, NULL, 0, "iscan sched_smp, count 0");

    /* interleaved nodes {0,2,4} and {1,3,5} (roots 0 and 1), reduce of 8 B
     * (<= 2048: composition beta) to rank 3 (node 1, local rank 1):
     * MPIR binomial reduce in node 0 to local 0 (2->0, 4->0), among the
     * roots to internode rank 1 (0->1), then in node 1 to local rank 1
     * (binomial rooted there: local 2 = rank 5 -> 3, local 0 = rank 1 -> 3). */
    static const int32_t inter[6] = {0, 1, 0, 1, 0, 1};
    comp_msg rb[] = {{2, 0, 8, R}, {4, 0, 8, R}, {0, 1, 8, R}, {5, 3, 8, R}, {1, 3, 8, R}};
    expect_comp(R, 6, inter, 3, 8, 0, rb, 5, "reduce beta interleaved");

    /* release_gather counters: bcast 1 per node communicator, allreduce
     * alpha 2 (reduce + bcast), barrier 2, allreduce on one node 1 on the
     * communicator's own counter */
    uint32_t cnt[2] = {0, 0};
    mm_coll_desc c = {B, MM_ALG_MPICH_COMPOSITION, 6, 4, 8, 8, {0, 0}, two3, {0, 0}};
    mm_coll_mpich_shm_count(&c, cnt);
    c.op = A;
    mm_coll_mpich_shm_count(&c, cnt);
    c.op = S;
    mm_coll_mpich_shm_count(&c, cnt);
    CHECK(cnt[0] == 5 && cnt[1] == 0);
    c.node = one5;
    c.n = 5;
    c.op = A;
    mm_coll_mpich_shm_count(&c, cnt);
    CHECK(cnt[0] == 5 && cnt[1] == 1);
    /* a scan on consecutive nodes (ch4 scan composition alpha): the first
     * node's "noneed" bcast; on interleaved nodes MPIR's scan: nothing */
    mm_coll_desc sc = {MM_COLL_SCAN, MM_ALG_MPICH_COMPOSITION, 6, 0, 8, 8, {0, 0}, two3, {0, 0}};
    mm_coll_mpich_shm_count(&sc, cnt);
    sc.op = MM_COLL_ISCAN; /* sched_smp: no shared memory */
    mm_coll_mpich_shm_count(&sc, cnt);
    sc.op = MM_COLL_SCAN;
    sc.alg = MM_ALG_RECURSIVE_DOUBLING;
    sc.node = inter;
    mm_coll_mpich_shm_count(&sc, cnt);
    CHECK(cnt[0] == 6 && cnt[1] == 1);
    /* interleaved: no composition */
    sc.alg = MM_ALG_MPICH_COMPOSITION;
    CHECK_EQ(mm_coll_check(&sc, err, sizeof err), MMS_EFORMAT);

    /* selection: parent layouts pick the composition, by ch4/generic.json */
    mm_coll_query q = {B, 6, 8, 8, 0, MM_COLL_LIB_MPICH, two3};
    mm_coll_choice ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_MPICH_COMPOSITION && strstr(ch.rule, "composition alpha"));
    q.op = R;
    q.noncommutative = 1; /* composition gamma: MPIR on the communicator (rooted at 0) */
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_BINOMIAL_ROOT0 && strstr(ch.rule, "composition gamma"));
    q.noncommutative = 0;
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_MPICH_COMPOSITION && strstr(ch.rule, "composition beta"));
    q.op = IB; /* mpir/generic.json, comm_hierarchy=parent: sched_smp */
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_MPICH_COMPOSITION && !ch.substitute && strstr(ch.rule, "sched_smp"));
    q.op = IR;
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_MPICH_COMPOSITION && !ch.substitute && strstr(ch.rule, "sched_smp"));
    q.noncommutative = 1; /* is_commutative=no: sched_binomial on the communicator */
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_BINOMIAL_ROOT0 && !ch.substitute && strstr(ch.rule, "sched_binomial"));
    q.noncommutative = 0;
    q.op = SC; /* ch4/generic.json is_node_consecutive=yes: composition alpha */
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_MPICH_COMPOSITION && !ch.substitute && strstr(ch.rule, "composition alpha"));
    q.op = IS;
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_MPICH_COMPOSITION && !ch.substitute && strstr(ch.rule, "sched_smp"));
    q.node = inter; /* not node-consecutive: recursive doubling, exactly */
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_RECURSIVE_DOUBLING && !ch.substitute && strstr(ch.rule, "not node-consecutive"));
    q.op = SC;
    ch = mm_coll_select(&q);
    CHECK(ch.alg == MM_ALG_RECURSIVE_DOUBLING && !ch.substitute);
    q.node = two3;
    static const int32_t two8[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    mm_coll_query bq = {B, 16, 100000, 8, 0, MM_COLL_LIB_MPICH, two8};
    ch = mm_coll_select(&bq);
    CHECK(ch.alg == MM_ALG_MPICH_COMPOSITION && strstr(ch.rule, "composition beta"));
    bq.n = 12;
    ch = mm_coll_select(&bq); /* not a power of two, >= 12288 B: gamma = MPIR */
    CHECK(ch.alg != MM_ALG_MPICH_COMPOSITION);
    CHECK(ch.substitute ? strstr(ch.rule, "(as ") != NULL : strstr(ch.rule, "composition gamma") != NULL);
    /* every choice on parent layouts: a stand-in says so in its rule */
    static const int comp_ops[] = {B, R, A, S};
    for (size_t o = 0; o < 4; o++)
        for (int32_t n = 2; n <= 17; n++)
            for (uint64_t by = 8; by <= 1u << 20; by *= 8) {
                for (int32_t i = 0; i < n; i++)
                    node[i] = i / 3;
                mm_coll_query cq = {comp_ops[o], n, by, 8, 0, MM_COLL_LIB_MPICH, node};
                ch = mm_coll_select(&cq);
                CHECK(ch.substitute == (strstr(ch.rule, "(as ") != NULL));
            }
}

/* No algorithm name without an expansion: each serves some operation. */
static void test_every_name_expands(void)
{
    for (int alg = MM_ALG_AUTO + 1; alg < MM_ALG_COUNT; alg++) {
        int served = 0;
        for (int op = MM_COLL_NONE + 1; op < MM_COLL_OP_COUNT; op++)
            served |= mm_coll_alg_valid(op, alg);
        if (!served)
            fprintf(stderr, "algorithm '%s' serves no operation\n", mm_coll_alg_name(alg));
        CHECK(served);
    }
}

/* Field by field: the struct's padding is whatever the expansion's copy left. */
static int xfers_eq(const mm_coll_xfer *a, const mm_coll_xfer *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].bytes != b[i].bytes || a[i].step != b[i].step || a[i].src != b[i].src ||
            a[i].dst != b[i].dst || a[i].blk != b[i].blk || a[i].nblk != b[i].nblk ||
            a[i].mode != b[i].mode || a[i].tag_op != b[i].tag_op)
            return 0;
    return 1;
}

/* A plan stored while counting past `keep` transfers, refused over `max`:
 * the same transfers as one expansion, and a refusal that says so. */
static void test_expand_keep(void)
{
    const mm_coll_desc ds[] = {
        {.op = MM_COLL_ALLGATHER, .alg = MM_ALG_RING, .n = 17, .bytes = 1000},
        {.op = MM_COLL_ALLTOALL, .alg = MM_ALG_PAIRWISE, .n = 9, .bytes = 3},
        {.op = MM_COLL_BARRIER, .alg = MM_ALG_DISSEMINATION, .n = 13},
    };
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        char err[256];
        mm_coll_xfer *ref = NULL, *x = NULL;
        size_t nref = 0, nx = 0;
        CHECK_EQ(mm_coll_expand_array(&ds[i], &ref, &nref, err, sizeof err), MMS_OK);
        CHECK(nref > 2);
        const size_t keeps[] = {0, 1, nref / 2, nref - 1, nref, nref + 1};
        for (size_t k = 0; k < sizeof keeps / sizeof keeps[0]; k++) {
            int over = -1;
            for (size_t max = nref; max <= nref + 1; max++) {
                CHECK_EQ(mm_coll_expand_array_keep(&ds[i], max, keeps[k], &x, &nx, &over, err,
                                                   sizeof err), MMS_OK);
                CHECK_EQ(over, 0);
                CHECK_EQ(nx, nref);
                CHECK(nx == nref && xfers_eq(x, ref, nref));
                free(x);
            }
            CHECK_EQ(mm_coll_expand_array_keep(&ds[i], nref - 1, keeps[k], &x, &nx, &over, err,
                                               sizeof err), MMS_EFORMAT);
            CHECK_EQ(over, 1);
            CHECK(x == NULL && nx == 0);
            CHECK(strstr(err, "models more than") != NULL);
        }
        free(ref);
    }
}

int main(void)
{
    test_expand_keep();
    test_every_name_expands();
    test_schedules();
    test_composites();
    test_schedules_elems();
    test_nbc_schedules();
    test_variants();
    test_tag_ops();
    test_hot_spot();
    test_check_errors();
    test_tags();
    test_auto();
    test_ompi_trees();
    test_mpich();
    test_ompi_rsb();
    test_mpich_rs_rd();
    test_mpich_comp();
    return check_report("test_coll_algo");
}
