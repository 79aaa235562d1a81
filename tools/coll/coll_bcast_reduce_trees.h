/*
 * coll_bcast_reduce_trees.h - Open MPI 4.1's tree algorithms of bcast and
 * reduce (coll_bcast_reduce_trees.c) as coll_algo.c calls them. Internal
 * to tools/gen.
 */
#ifndef MM_TOOLS_COLL_BCAST_REDUCE_TREES_H
#define MM_TOOLS_COLL_BCAST_REDUCE_TREES_H

#include <stddef.h>

#include "coll_emit.h"

/* 1 if d's algorithm is one of these trees: bcast chain, pipeline,
 * split_binary, binary, knomial, bmtree; reduce chain, pipeline, binary,
 * in_order_binary. */
int mm_coll_tree_alg(const mm_coll_desc *d);

/* Emit the transfers of e->d (mm_coll_tree_alg true). MMS_OK, MMS_ENOMEM
 * (with err), or the emitter's first nonzero return. */
int mm_coll_trees(mm_coll_emitter *e, char *err, size_t errlen);

#endif /* MM_TOOLS_COLL_BCAST_REDUCE_TREES_H */
