/*
 * coll_bcast_reduce_trees.c - Open MPI 4.1's tree algorithms of bcast and
 * reduce as coll/tuned's fixed decision runs them: segment size 0 (one
 * segment: the whole vector in one message per tree edge) and fan-in/out 0
 * (a chain of fanout 0 is built as one chain). Written from the
 * description of ompi/mca/coll/base/coll_base_bcast.c and
 * coll_base_reduce.c (v4.1.4) and the trees of coll_tree.c; no code taken
 * from them. docs/collectives.md lists each algorithm with its source.
 *
 * Steps. Bcast (the generic bcast): a rank receives from its parent, then
 * sends to all its children at once and waits for those sends, so the edge
 * parent -> child is step depth(parent). Reduce (the generic reduce): a
 * rank receives from its children one after the other in the tree's order,
 * combining each into its sum, then sends the sum to its parent; child i
 * is received in step max(ready(child i), step of child i-1 + 1), where
 * ready(x) is the step after x's last receive (0 for a leaf). (Open MPI
 * posts the receive of child i+1 just before waiting for child i; a step
 * holds one wait.)
 */
#include "coll_bcast_reduce_trees.h"

#include <stdio.h>
#include <stdlib.h>

#include "coll_tree.h"
#include "stream.h"

/* The k-nomial radix of coll/tuned's bcast (coll_tuned_bcast_decision.c:
 * coll_tuned_bcast_knomial_radix, default 4). */
#define OMPI_BCAST_KNOMIAL_RADIX 4

int mm_coll_tree_alg(const mm_coll_desc *d)
{
    switch (mm_coll_family(d->op)) {
    case MM_COLL_BCAST:
        return d->alg == MM_ALG_CHAIN || d->alg == MM_ALG_PIPELINE ||
               d->alg == MM_ALG_SPLIT_BINARY || d->alg == MM_ALG_BINARY ||
               d->alg == MM_ALG_KNOMIAL || d->alg == MM_ALG_BMTREE;
    case MM_COLL_REDUCE:
        return d->alg == MM_ALG_CHAIN || d->alg == MM_ALG_PIPELINE ||
               d->alg == MM_ALG_BINARY || d->alg == MM_ALG_IN_ORDER_BINARY;
    default:
        return 0;
    }
}

/* Transfers gathered before they are emitted in step order. */
typedef struct tx {
    uint32_t step;
    int32_t  src, dst;
    uint32_t blk, nblk;
    int      mode;
    size_t   seq; /* keeps the order within a step */
} tx;

typedef struct txs {
    tx    *v;
    size_t n;
} txs;

static void tx_add(txs *a, uint32_t step, int32_t src, int32_t dst, uint32_t blk,
                   uint32_t nblk, int mode)
{
    a->v[a->n] = (tx){step, src, dst, blk, nblk, mode, a->n};
    a->n++;
}

static int tx_cmp(const void *pa, const void *pb)
{
    const tx *a = pa, *b = pb;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Breadth-first order of the tree from its root into order[], each rank's
 * depth into depth[]. */
static void bfs(const mm_tree *t, int32_t *order, uint32_t *depth)
{
    int32_t head = 0, tail = 0;
    order[tail++] = t->root;
    depth[t->root] = 0;
    while (head < tail) {
        int32_t u = order[head++];
        for (int32_t i = t->first[u]; i < t->first[u + 1]; i++) {
            depth[t->kids[i]] = depth[u] + 1;
            order[tail++] = t->kids[i];
        }
    }
}

/* Generic bcast down the tree: the whole vector (blocks 0 .. nb-1) on each
 * edge, parent -> child in step depth(parent). */
static void bcast_down(txs *a, const mm_tree *t, const int32_t *order,
                       const uint32_t *depth, uint32_t nb)
{
    for (int32_t j = 0; j < t->n; j++) {
        int32_t u = order[j];
        for (int32_t i = t->first[u]; i < t->first[u + 1]; i++)
            tx_add(a, depth[u], u, t->kids[i], 0, nb, MM_XFER_COPY);
    }
}

/* Split binary tree (bcast_intra_split_bintree), at least 2 elements: the
 * vector is cut into two halves by elements (block 0: the first
 * ceil(count/2), block 1: the rest). On the binary tree the root sends
 * block 0 to its first child, whose subtree holds the odd relative ranks,
 * and block 1 to its second, the even ones; each node passes on what it
 * got. Then relative ranks 2i-1 and 2i swap halves (each as soon as both
 * have theirs), and when n is even the root sends block 1 to the last
 * relative rank n-1, which has no partner. */
static void split_binary(txs *a, const mm_coll_desc *d, const mm_tree *t,
                         const int32_t *order, const uint32_t *depth)
{
    for (int32_t j = 0; j < t->n; j++) {
        int32_t u = order[j];
        for (int32_t i = t->first[u]; i < t->first[u + 1]; i++) {
            int32_t c = t->kids[i];
            uint32_t half = mm_coll_mod((int64_t)c - d->root, d->n) % 2 ? 0 : 1;
            tx_add(a, depth[u], u, c, half, 1, MM_XFER_COPY);
        }
    }
    for (int32_t v = 1; v < d->n; v += 2) {
        int32_t l = mm_coll_absr(d, v);
        if (v + 1 < d->n) {
            int32_t r = mm_coll_absr(d, v + 1);
            uint32_t step = depth[l] > depth[r] ? depth[l] : depth[r];
            tx_add(a, step, l, r, 0, 1, MM_XFER_COPY);
            tx_add(a, step, r, l, 1, 1, MM_XFER_COPY);
        } else {
            tx_add(a, depth[l], d->root, l, 1, 1, MM_XFER_COPY);
        }
    }
}

/* Generic reduce up the tree (see the top of the file). order[] is
 * breadth-first, so walking it backwards meets children before parents;
 * ready[] gets each rank's step after its last receive. */
static void reduce_up(txs *a, const mm_tree *t, const int32_t *order, uint32_t *ready)
{
    for (int32_t j = t->n - 1; j >= 0; j--) {
        int32_t u = order[j];
        int64_t s = -1;
        for (int32_t i = t->first[u]; i < t->first[u + 1]; i++) {
            int32_t c = t->kids[i];
            s = (int64_t)ready[c] > s + 1 ? (int64_t)ready[c] : s + 1;
            tx_add(a, (uint32_t)s, c, u, 0, 1, MM_XFER_REDUCE);
        }
        ready[u] = (uint32_t)(s + 1);
    }
}

/* Tree and fanout/radix of each algorithm. */
static void tree_of(const mm_coll_desc *d, int *kind, int32_t *arg)
{
    *arg = 0;
    switch (d->alg) {
    case MM_ALG_CHAIN:    /* fanout 0 from the fixed decision: one chain */
    case MM_ALG_PIPELINE: *kind = MM_TREE_CHAIN; *arg = 1; break;
    case MM_ALG_SPLIT_BINARY:
    case MM_ALG_BINARY:   *kind = MM_TREE_KARY; *arg = 2; break;
    case MM_ALG_KNOMIAL:  *kind = MM_TREE_KNOMIAL; *arg = OMPI_BCAST_KNOMIAL_RADIX; break;
    case MM_ALG_BMTREE:   *kind = MM_TREE_BMTREE; break;
    default:              *kind = MM_TREE_IN_ORDER_BIN; break; /* in-order binary */
    }
}

int mm_coll_trees(mm_coll_emitter *e, char *err, size_t errlen)
{
    const mm_coll_desc *d = e->d;
    int kind;
    int32_t arg;
    tree_of(d, &kind, &arg);
    uint64_t elem = d->elem ? d->elem : 1;
    /* split binary with fewer than 2 elements: Open MPI runs the chain of
     * fanout 1 instead */
    if (d->alg == MM_ALG_SPLIT_BINARY && d->bytes / elem < 2) {
        kind = MM_TREE_CHAIN;
        arg = 1;
    }
    mm_tree t;
    int32_t *order = malloc((size_t)d->n * sizeof *order);
    uint32_t *depth = malloc((size_t)d->n * sizeof *depth);
    txs a = {malloc(2 * (size_t)d->n * sizeof *a.v), 0};
    int rc = MMS_ENOMEM;
    if (!order || !depth || !a.v || mm_tree_build(&t, kind, d->n, d->root, arg) != 0) {
        snprintf(err, errlen, "out of memory expanding %s/%s on %ld ranks",
                 mm_coll_name(d->op), mm_coll_alg_name(d->alg), (long)d->n);
        goto out;
    }
    bfs(&t, order, depth);
    if (mm_coll_family(d->op) == MM_COLL_BCAST) {
        if (kind == MM_TREE_KARY && d->alg == MM_ALG_SPLIT_BINARY)
            split_binary(&a, d, &t, order, depth);
        else
            bcast_down(&a, &t, order, depth, e->nb);
    } else {
        reduce_up(&a, &t, order, depth);
        /* in-order binary: the sum is at rank n-1; it sends it to the root */
        if (t.root != d->root)
            tx_add(&a, depth[t.root], t.root, d->root, 0, 1, MM_XFER_COPY);
    }
    mm_tree_free(&t);
    qsort(a.v, a.n, sizeof *a.v, tx_cmp);
    for (size_t i = 0; i < a.n; i++)
        mm_coll_put(e, a.v[i].step, a.v[i].src, a.v[i].dst, a.v[i].blk, a.v[i].nblk,
                    a.v[i].mode);
    rc = e->rc;
out:
    free(order);
    free(depth);
    free(a.v);
    return rc;
}
