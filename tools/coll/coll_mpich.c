/*
 * coll_mpich.c - MPICH 4.0.2 MPIR algorithms whose messages differ from the
 * Open MPI algorithms of the same idea (docs/collectives.md, "MPICH
 * 4.0.2"). Written from the algorithm descriptions; every fact (which peer,
 * how many bytes, which messages are empty, batch sizes) was read in MPICH
 * v4.0.2 src/mpi/coll/ and is cited where it is used:
 *   bcast/bcast_utils.c (MPII_Scatter_for_bcast),
 *   bcast/bcast_intra_scatter_recursive_doubling_allgather.c,
 *   bcast/bcast_intra_scatter_ring_allgather.c,
 *   alltoall/alltoall_intra_scattered.c, alltoall/alltoall_intra_pairwise.c,
 *   reduce_scatter/reduce_scatter_intra_noncommutative.c (and the
 *   reduce_scatter_block one, the same exchanges), src/mpi/coll/cvars.txt,
 *   reduce/reduce_intra_binomial.c.
 */
#include "coll_mpich.h"
#include "coll_raben.h"
#include "coll_pof2.h"

#include <stdio.h>

#include "stream.h"

#define A(x) (1ull << MM_ALG_##x)

uint64_t mm_coll_mpich_algs(int family)
{
    switch (family) {
    case MM_COLL_BCAST:    return A(MPICH_SCATTER_RD_ALLGATHER) | A(MPICH_SCATTER_RING_ALLGATHER);
    case MM_COLL_ALLTOALL: return A(SCATTERED) | A(MPICH_PAIRWISE);
    case MM_COLL_REDUCE_SCATTER: return A(NONCOMMUTATIVE);
    case MM_COLL_REDUCE:   return A(BINOMIAL_ROOT0);
    default:               return 0;
    }
}

#undef A

static int is_mine(const mm_coll_desc *d)
{
    return (mm_coll_mpich_algs(mm_coll_family(d->op)) >> d->alg) & 1;
}

static int is_scatter_bcast(const mm_coll_desc *d)
{
    return mm_coll_family(d->op) == MM_COLL_BCAST && is_mine(d);
}

/* ---- bcast: the vector cut in bytes ---- */

/* MPICH packs the vector into bytes and cuts it into n pieces of
 * scatter_size = ceil(nbytes / n) bytes, piece v for relative rank v (rank
 * - root); the last pieces are short or empty (bcast_utils.c: "if bufsize =
 * 97 and nprocs = 16, ranks 15 and 16 will get 0 data"). Elements do not
 * matter: a piece may end inside one. n pieces even for an empty vector
 * (MPICH then sends nothing), so that an empty call has empty pieces. */
uint32_t mm_coll_mpich_pieces(const mm_coll_desc *d)
{
    return is_scatter_bcast(d) && d->n >= 2 ? (uint32_t)d->n : 0;
}

static uint64_t scatter_size(const mm_coll_desc *d)
{
    return (d->bytes + (uint64_t)d->n - 1) / (uint64_t)d->n;
}

uint64_t mm_coll_mpich_piece_bytes(const mm_coll_desc *d, uint32_t b)
{
    uint64_t ss = scatter_size(d), at = (uint64_t)b * ss;
    return at >= d->bytes ? 0 : d->bytes - at < ss ? d->bytes - at : ss;
}

/* The messages, read in MPICH's source, are those coll_raben.c sends for
 * Open MPI's scatter + allgather bcasts, on MPICH's pieces (checked:
 * tests/gen/test_coll_algo.c, test_mpich):
 *
 * MPII_Scatter_for_bcast (bcast_utils.c) is mm_coll_scatter_pieces:
 * relative rank v receives from v - m, m its lowest set bit, only when its
 * piece starts inside the vector (recv_size = nbytes - v*ss > 0); then, for
 * each mask m below that bit, largest first, it sends v+m (if it exists)
 * the tail of what it holds, from piece v+m on, when that is not empty
 * (send_size = curr_size - ss*m > 0): the pieces v+m .. v+2m-1 cut at n.
 *
 * The recursive-doubling allgather of
 * bcast_intra_scatter_recursive_doubling_allgather.c is
 * mm_coll_allgather_doubling_pieces: for mask = 1, 2, 4, ... (i = log2
 * mask) relative rank v, in the group of 2^i ranks from vt = v with its low
 * i bits cleared, MPIC_Sendrecv's with v ^ mask if that rank exists,
 * sending curr_size bytes from piece vt on (all it holds: pieces vt ..
 * vt+mask-1 cut at n), empty or not. When the partner group is cut by n,
 * the nprocs_completed = n - vt - mask ranks of v's group that had a
 * partner hand its pieces on: for tmp_mask = mask/2 down to 1, with
 * tree_root = v with its low log2(2*tmp_mask) bits cleared, v sends
 * recv_size bytes to v ^ tmp_mask if that rank is above v, v < tree_root +
 * nprocs_completed <= v ^ tmp_mask, empty or not. MPICH's selection runs it
 * for a power-of-two n only (the source marks the rest experimental).
 *
 * The ring of bcast_intra_scatter_ring_allgather.c is
 * mm_coll_allgather_ring_pieces: in iteration j = 1 .. n-1 every rank
 * MPIC_Sendrecv's to rank + 1 the piece of relative rank v - (j-1), empty
 * or not.
 *
 * What differs from Open MPI: the pieces (bytes, not elements), and an
 * empty vector sends nothing ("nothing to do"; Open MPI falls back to its
 * linear bcast below count n). */

/* ---- alltoall ---- */

/* MPIR_CVAR_ALLTOALL_THROTTLE, default 32 (cvars.txt): peers per batch. */
#define MPICH_ALLTOALL_THROTTLE 32

/* Scattered: batch b covers offsets ii = 32b .. 32b+31 (cut at n); rank r
 * posts receives from r + off, in offset order, and sends to r - off, then
 * waits for the batch (one step per batch). Offset 0 is r itself: MPICH
 * sends that block to itself through the point-to-point layer; a message
 * to oneself is not a transfer here (src != dst), so it is left out. */
static void alltoall_scattered(mm_coll_emitter *e)
{
    int32_t n = e->d->n;
    for (int32_t ii = 0; ii < n; ii += MPICH_ALLTOALL_THROTTLE) {
        int32_t ss = n - ii < MPICH_ALLTOALL_THROTTLE ? n - ii : MPICH_ALLTOALL_THROTTLE;
        for (int32_t r = 0; r < n; r++)
            for (int32_t i = 0; i < ss; i++) {
                int32_t src = mm_coll_mod((int64_t)r + i + ii, n);
                if (src != r)
                    mm_coll_put(e, (uint32_t)(ii / MPICH_ALLTOALL_THROTTLE), src, r,
                                (uint32_t)src * (uint32_t)n + (uint32_t)r, 1, MM_XFER_COPY);
            }
    }
}

/* Pairwise: in exchange i = 1 .. n-1 rank r MPIC_Sendrecv's its block for
 * dst; for a power-of-two n dst = src = r XOR i, else dst = r + i and src
 * = r - i. */
static void alltoall_pairwise(mm_coll_emitter *e)
{
    int32_t n = e->d->n;
    int pof2 = mm_is_pof2(n);
    for (int32_t i = 1; i < n; i++)
        for (int32_t r = 0; r < n; r++) {
            int32_t dst = pof2 ? r ^ i : mm_coll_mod((int64_t)r + i, n);
            mm_coll_put(e, (uint32_t)(i - 1), r, dst, (uint32_t)r * (uint32_t)n + (uint32_t)dst,
                        1, MM_XFER_COPY);
        }
}

/* ---- reduce binomial, noncommutative op ---- */

/* reduce_intra_binomial.c: with a noncommutative op the tree is rooted at
 * lroot = 0, not at the root, so that every rank combines in rank order;
 * then, if root != 0, rank 0 sends the result to the root. The tree is
 * MM_ALG_BINOMIAL's (relrank receives from relrank | mask, sends to
 * relrank & ~mask), expanded with root 0; the last message follows it. */
static void reduce_binomial_root0(mm_coll_emitter *e)
{
    mm_coll_desc t = *e->d;
    t.alg = MM_ALG_BINOMIAL;
    t.root = 0;
    char err[200];
    int rc = e->m->expand(&t, e->fn, e->ctx, err, sizeof err);
    if (rc != MMS_OK) {
        e->rc = rc;
        return;
    }
    if (e->d->root != 0) {
        uint32_t steps = 0; /* the tree's: ceil(log2 n) */
        while ((1ll << steps) < e->d->n)
            steps++;
        mm_coll_put(e, steps, 0, e->d->root, 0, 1, MM_XFER_COPY);
    }
}

/* ---- reduce_scatter noncommutative (n a power of two, equal blocks) ---- */

/* Every rank first stores block b at position mirror(b), its log2 n bits
 * reversed (MPL_mirror_permutation). In exchange k = 0 .. log2(n)-1 rank r
 * and r ^ 2^k work on the window of n/2^k positions r reached so far: the
 * higher rank keeps the top half, the lower the bottom half, and each
 * sends the other the half that one keeps (size n/2^(k+1) blocks). So
 * the window after k exchanges starts at the sum over j < k of bit j of r
 * times n/2^(j+1), and r ends at position mirror(r), which holds block r.
 * A transfer's blk is its first position; mm_coll_mpich_xfer_block maps
 * positions to blocks. */
static uint32_t mirror(uint32_t p, uint32_t bits)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < bits; i++)
        m |= ((p >> i) & 1u) << (bits - 1 - i);
    return m;
}

static uint32_t log2u(int32_t n)
{
    uint32_t b = 0;
    while ((1 << b) < n)
        b++;
    return b;
}

static void reduce_scatter_noncommutative(mm_coll_emitter *e)
{
    int32_t n = e->d->n;
    uint32_t bits = log2u(n);
    for (uint32_t k = 0; k < bits; k++)
        for (int32_t r = 0; r < n; r++) {
            int32_t peer = r ^ (1 << k);
            uint32_t start = 0, size = (uint32_t)n >> (k + 1);
            for (uint32_t j = 0; j < k; j++)
                start += (((uint32_t)r >> j) & 1u) * ((uint32_t)n >> (j + 1));
            /* the peer keeps the bottom half when it is the lower rank */
            uint32_t send_at = r > peer ? start : start + size;
            mm_coll_put(e, k, r, peer, send_at, size, MM_XFER_REDUCE);
        }
}

int mm_coll_mpich_xfer_block(const mm_coll_desc *d, const mm_coll_xfer *x, uint32_t k,
                             uint32_t *blk)
{
    if (mm_coll_family(d->op) != MM_COLL_REDUCE_SCATTER || d->alg != MM_ALG_NONCOMMUTATIVE)
        return 0;
    *blk = mirror(x->blk + k, log2u(d->n));
    return 1;
}

int mm_coll_mpich_check(const mm_coll_desc *d, char *err, size_t errlen)
{
    if (mm_coll_family(d->op) == MM_COLL_REDUCE_SCATTER && d->alg == MM_ALG_NONCOMMUTATIVE &&
        !mm_is_pof2(d->n)) {
        snprintf(err, errlen, "MPICH's noncommutative reduce_scatter needs a power-of-two "
                 "communicator size, not %ld (MPICH runs recursive doubling then)", (long)d->n);
        return MMS_EFORMAT;
    }
    return MMS_OK;
}

int mm_coll_mpich_expand(mm_coll_emitter *e)
{
    const mm_coll_desc *d = e->d;
    if (!is_mine(d))
        return 0;
    switch (d->alg) {
    case MM_ALG_MPICH_SCATTER_RD_ALLGATHER:
        /* nbytes == 0 (or n == 1): "nothing to do" */
        if (d->bytes > 0 && d->n >= 2)
            mm_coll_allgather_doubling_pieces(e, mm_coll_scatter_pieces(e));
        break;
    case MM_ALG_MPICH_SCATTER_RING_ALLGATHER:
        if (d->bytes > 0 && d->n >= 2)
            mm_coll_allgather_ring_pieces(e, mm_coll_scatter_pieces(e));
        break;
    case MM_ALG_SCATTERED:
        alltoall_scattered(e);
        break;
    case MM_ALG_MPICH_PAIRWISE:
        alltoall_pairwise(e);
        break;
    case MM_ALG_BINOMIAL_ROOT0:
        reduce_binomial_root0(e);
        break;
    default:
        reduce_scatter_noncommutative(e);
    }
    return 1;
}
