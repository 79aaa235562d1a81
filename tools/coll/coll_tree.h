/*
 * coll_tree.h - the process trees of Open MPI 4.1's coll/base
 * (coll_base_topo.c), written from their description: which ranks a rank
 * receives from and sends to in the tree algorithms of bcast and reduce
 * (coll_bcast_reduce_trees.c). Internal to tools/gen.
 *
 * A tree over n ranks is stored as, for every rank, its parent (-1 for the
 * root) and its children in the order the library serves them.
 */
#ifndef MM_TOOLS_COLL_TREE_H
#define MM_TOOLS_COLL_TREE_H

#include <stdint.h>

typedef struct mm_tree {
    int32_t  n, root;
    int32_t *parent; /* n entries, -1 at the root                          */
    int32_t *first;  /* n+1 entries: rank r's children are kids[first[r] ..
                        first[r+1]-1]                                      */
    int32_t *kids;   /* n-1 entries                                        */
} mm_tree;

enum mm_tree_kind {
    MM_TREE_KARY,          /* topo_build_tree(fanout): level by level      */
    MM_TREE_CHAIN,         /* topo_build_chain(fanout): fanout chains      */
    MM_TREE_BMTREE,        /* topo_build_bmtree: parent clears the highest
                              bit of the relative rank                     */
    MM_TREE_IN_ORDER_BM,   /* topo_build_in_order_bmtree: parent clears the
                              lowest bit                                   */
    MM_TREE_KNOMIAL,       /* topo_build_kmtree(radix)                     */
    MM_TREE_IN_ORDER_BIN   /* topo_build_in_order_bintree: rooted at n-1,
                              on real ranks (root is ignored)              */
};

/* Build the tree of kind over n >= 1 ranks rooted at root (relative ranks
 * vr = (r - root) mod n, except MM_TREE_IN_ORDER_BIN); arg is the fanout
 * (KARY, CHAIN) or the radix (KNOMIAL). 0 on success, -1 when out of
 * memory. Release with mm_tree_free. */
int  mm_tree_build(mm_tree *t, int kind, int32_t n, int32_t root, int32_t arg);
void mm_tree_free(mm_tree *t);

static inline int32_t mm_tree_nkids(const mm_tree *t, int32_t r)
{
    return t->first[r + 1] - t->first[r];
}

#endif /* MM_TOOLS_COLL_TREE_H */
