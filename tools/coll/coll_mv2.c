/*
 * coll_mv2.c - MVAPICH2's k-nomial reduce_p2p allreduce (coll_mv2.h).
 */
#include "coll_mv2.h"

#include <stdio.h>
#include <stdlib.h>

#include "stream.h"

typedef struct mv2_tx {
    mm_coll_xfer x;
    size_t       seq;
} mv2_tx;

static int tx_cmp(const void *pa, const void *pb)
{
    const mv2_tx *a = pa, *b = pb;
    if (a->x.step != b->x.step)
        return a->x.step < b->x.step ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The largest m of r's children (0: none) and r's parent (-1 at the root),
 * as MPIR_Reduce_knomial_trace computes them for root 0. */
static int64_t top_mask(int64_t r, int64_t n, int64_t k, int32_t *parent)
{
    int64_t m = 1;
    *parent = -1;
    while (m < n) {
        if (r % (k * m)) {
            *parent = (int32_t)(r / (k * m) * (k * m));
            break;
        }
        m *= k;
    }
    return m / k;
}

int mm_coll_mv2_reduce_p2p(int32_t n, uint32_t radix, uint64_t bytes, mm_coll_xfer **out,
                           size_t *count, char *err, size_t errlen)
{
    *out = NULL;
    *count = 0;
    if (n < 1 || n > MM_COLL_MAX_N || radix < MM_COLL_MV2_RADIX_MIN ||
        radix > MM_COLL_MV2_RADIX_MAX) {
        snprintf(err, errlen, "MVAPICH2 k-nomial reduce_p2p: n = %ld (1..%d) and radix = %u "
                 "(%d..%d)", (long)n, MM_COLL_MAX_N, radix, MM_COLL_MV2_RADIX_MIN,
                 MM_COLL_MV2_RADIX_MAX);
        return MMS_EFORMAT;
    }
    size_t nt = 2 * (size_t)(n - 1);
    uint32_t *h = malloc((size_t)n * sizeof *h), *depth = malloc((size_t)n * sizeof *depth);
    int32_t *par = malloc((size_t)n * sizeof *par);
    mv2_tx *t = malloc((nt ? nt : 1) * sizeof *t);
    mm_coll_xfer *x = malloc((nt ? nt : 1) * sizeof *x);
    if (!h || !depth || !par || !t || !x) {
        free(h), free(depth), free(par), free(t), free(x);
        snprintf(err, errlen, "out of memory expanding MVAPICH2's reduce_p2p on %ld ranks",
                 (long)n);
        return MMS_ENOMEM;
    }
    int64_t k = radix;
    /* children are above their parent: heights from the top rank down,
     * depths from rank 0 up */
    for (int64_t r = n - 1; r >= 0; r--) {
        h[r] = 0;
        for (int64_t m = top_mask(r, n, k, &par[r]); m > 0; m /= k)
            for (int64_t j = 1; j < k && r + m * j < n; j++)
                if (h[r + m * j] + 1 > h[r])
                    h[r] = h[r + m * j] + 1;
    }
    for (int32_t r = 0; r < n; r++)
        depth[r] = par[r] < 0 ? 0 : depth[par[r]] + 1;
    size_t c = 0;
    for (int64_t r = 0; r < n; r++) {
        int32_t p;
        int64_t top = top_mask(r, n, k, &p);
        /* the reduce: MVAPICH2 posts its list of children (m from top
         * down, j ascending) backwards */
        for (int64_t m = 1; m <= top && top > 0; m *= k)
            for (int64_t j = (n - 1 - r) / m < k - 1 ? (n - 1 - r) / m : k - 1; j >= 1; j--) {
                t[c] = (mv2_tx){{bytes, h[r], (int32_t)(r + m * j), (int32_t)r, 0, 1,
                                 MM_XFER_REDUCE, MM_COLL_REDUCE}, c};
                c++;
            }
        /* the bcast: the list of children in its own order */
        for (int64_t m = top; m > 0; m /= k)
            for (int64_t j = 1; j < k && r + m * j < n; j++) {
                t[c] = (mv2_tx){{bytes, h[0] + 1 + depth[r], (int32_t)r, (int32_t)(r + m * j), 0,
                                 1, MM_XFER_COPY, MM_COLL_BCAST}, c};
                c++;
            }
    }
    qsort(t, c, sizeof *t, tx_cmp);
    for (size_t i = 0; i < c; i++)
        x[i] = t[i].x;
    free(h), free(depth), free(par), free(t);
    *out = x;
    *count = c;
    return MMS_OK;
}
