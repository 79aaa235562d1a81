/*
 * coll_tree.c - Open MPI 4.1's coll/base process trees (coll_tree.h),
 * written from the description of ompi/mca/coll/base/coll_base_topo.c
 * (v4.1.4); no code taken from it. Each builder lists the children of one
 * relative rank vr in the order the library's tree holds them.
 */
#include "coll_tree.h"

#include <stdlib.h>

#include "coll_emit.h"

/* Children being listed for one rank: appended into t->kids. */
typedef struct kid_list {
    mm_tree *t;
    int32_t  pos; /* next free slot in t->kids   */
    int32_t  off; /* relative rank -> real rank */
} kid_list;

static void add_kid(kid_list *k, int64_t vchild)
{
    if (k->pos >= k->t->n - 1) /* not a tree: a bug the data-flow test shows */
        return;
    k->t->kids[k->pos++] = mm_coll_mod(vchild + k->off, k->t->n);
}

/* Level-by-level tree of fanout f: level L holds f^L ranks; a rank at
 * level L has children vr + f^L * i, i = 1..f. */
static void kary_kids(kid_list *k, int64_t n, int64_t f, int64_t vr)
{
    int64_t width = 1, seen = 0;
    while (seen + width <= vr) { /* find vr's level; width = f^level */
        seen += width;
        width *= f;
    }
    for (int64_t i = 1; i <= f && vr + width * i < n; i++)
        add_kid(k, vr + width * i);
}

/* Chains: the root heads f chains over relative ranks 1..n-1, cut in
 * order into f runs, the first (n-1) mod f of them one rank longer when
 * n-1 is not a multiple of f. Every other rank passes on to the next in
 * its run. f is clamped to 1..min(n-1, 32) as the library does. */
static void chain_kids(kid_list *k, int64_t n, int64_t f, int64_t vr)
{
    if (f < 1)
        f = 1;
    if (f > 32)
        f = 32;
    if (f > n - 1)
        f = n - 1;
    int64_t len = (n - 1 + f - 1) / f;         /* the longer runs          */
    int64_t nlong = (n - 1) % f ? (n - 1) % f : f; /* how many runs are long */
    if (vr == 0) {
        for (int64_t c = 0, head = 1; c < f; c++) {
            add_kid(k, head);
            head += c < nlong ? len : len - 1;
        }
        return;
    }
    int64_t head, rl;
    if (vr - 1 < nlong * len) {
        head = 1 + (vr - 1) / len * len;
        rl = len;
    } else {
        int64_t past = vr - 1 - nlong * len;
        head = 1 + nlong * len + past / (len - 1) * (len - 1);
        rl = len - 1;
    }
    if (vr < head + rl - 1 && vr + 1 < n)
        add_kid(k, vr + 1);
}

/* Binomial trees. bmtree: vr's children are vr + 2^j for every 2^j > vr
 * (so its parent is vr without its highest bit). In-order: vr + 2^j for
 * every 2^j below vr's lowest set bit (all j for the root), so its parent
 * is vr without its lowest bit. Both ascending. */
static void bm_kids(kid_list *k, int64_t n, int64_t vr, int in_order)
{
    int64_t low = vr & -vr;
    for (int64_t m = 1; vr + m < n; m <<= 1) {
        if (in_order ? (vr != 0 && m >= low) : m <= vr)
            continue;
        add_kid(k, vr + m);
    }
}

/* K-nomial tree of radix R: vr's parent is vr rounded down to a multiple of
 * R*m for the smallest power m of R with vr mod R*m != 0; its children are
 * vr + m'*i, i = 1..R-1, for the powers m' of R below that m, the largest
 * m' first (the root: all powers below n). */
static void knomial_kids(kid_list *k, int64_t n, int64_t radix, int64_t vr)
{
    int64_t m = 1;
    while (m < n && vr % (radix * m) == 0)
        m *= radix;
    for (m /= radix; m > 0; m /= radix)
        for (int64_t i = 1; i < radix && vr + m * i < n; i++)
            add_kid(k, vr + m * i);
}

/* In-order binary tree on real ranks: ranks lo .. lo+size-1 form a subtree
 * whose top is the highest rank; with h = size/2, its right subtree is the
 * h lowest ranks and its left subtree the rest below the top. Children:
 * the left subtree's top first, then the right's (size 2: the one other
 * rank). */
static void in_order_bin_kids(kid_list *k, int64_t n, int64_t r)
{
    int64_t lo = 0, size = n;
    for (;;) {
        int64_t top = lo + size - 1, h = size / 2;
        if (r == top) {
            if (size == 2)
                add_kid(k, lo);
            else if (size > 2) {
                add_kid(k, top - 1);
                add_kid(k, lo + h - 1);
            }
            return;
        }
        if (size > 2 && r >= lo + h) {
            lo += h;
            size -= h + 1;
        } else {
            size = h;
        }
    }
}

void mm_tree_free(mm_tree *t)
{
    free(t->parent);
    free(t->first);
    free(t->kids);
    t->parent = t->first = t->kids = NULL;
}

int mm_tree_build(mm_tree *t, int kind, int32_t n, int32_t root, int32_t arg)
{
    t->n = n;
    t->root = kind == MM_TREE_IN_ORDER_BIN ? n - 1 : root;
    t->parent = malloc((size_t)n * sizeof *t->parent);
    t->first = malloc(((size_t)n + 1) * sizeof *t->first);
    t->kids = malloc((size_t)(n > 1 ? n - 1 : 1) * sizeof *t->kids);
    if (!t->parent || !t->first || !t->kids) {
        mm_tree_free(t);
        return -1;
    }
    kid_list k = {t, 0, kind == MM_TREE_IN_ORDER_BIN ? 0 : root};
    for (int32_t r = 0; r < n; r++)
        t->parent[r] = -1;
    for (int32_t r = 0; r < n; r++) {
        int64_t vr = mm_coll_mod((int64_t)r - k.off, n);
        t->first[r] = k.pos;
        if (n < 2)
            continue;
        switch (kind) {
        case MM_TREE_KARY:         kary_kids(&k, n, arg, vr); break;
        case MM_TREE_CHAIN:        chain_kids(&k, n, arg, vr); break;
        case MM_TREE_BMTREE:       bm_kids(&k, n, vr, 0); break;
        case MM_TREE_IN_ORDER_BM:  bm_kids(&k, n, vr, 1); break;
        case MM_TREE_KNOMIAL:      knomial_kids(&k, n, arg, vr); break;
        default:                   in_order_bin_kids(&k, n, vr); break;
        }
        for (int32_t i = t->first[r]; i < k.pos; i++)
            t->parent[t->kids[i]] = r;
    }
    t->first[n] = k.pos;
    return 0;
}
