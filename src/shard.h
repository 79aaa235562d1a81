/* shard.h - MM_CFG_CONCURRENT: one engine split into shards by key, each an
 * engine of the same kind behind its own lock (shard.c, docs/semantics.md).
 * api.c hands every call on such an engine (e->shards set) to these. */
#ifndef MM_SHARD_H
#define MM_SHARD_H

#include "engine.h"

/* Build the outer engine of def for cfg (cfg->flags has MM_CFG_CONCURRENT). */
int  mm_shards_create(mm_engine **out, const mm_engine_def *def, const mm_config *cfg,
                      char *err, size_t errlen);
void mm_shards_destroy(mm_engine *e);
int  mm_shards_enter(mm_engine *e, const mm_entry *x, int is_recv, mm_handle *h,
                     uintptr_t *partner);
int  mm_shards_probe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found,
                     int remove);
int  mm_shards_cancel(mm_engine *e, mm_handle h);
void mm_shards_stats(mm_engine *e, mm_stats *out);
void mm_shards_reset(mm_engine *e);
int  mm_shards_walk(mm_engine *e, int side, mm_walk_fn fn, void *arg);
/* mm_walk's copy of one unsharded engine's side, in sequence order, made
 * with the engine's lock held by the caller (api.c); *out is freed by the
 * caller. 0 or MM_ENOMEM. */
int  mm_walk_collect(mm_engine *e, int side, mm_queued **out, size_t *n);
/* qsort order of mm_queued by ascending seq (mm_walk_collect's order). */
int  mm_queued_by_seq(const void *a, const void *b);
/* Tests: the engine of shard i (NULL past the last), and the shards a
 * receive or probe of (comm, ANY_SOURCE, tag) locks (bit i: shard i). */
mm_engine *mm_shards_engine_at(mm_engine *e, size_t i);
uint64_t   mm_shards_mask(mm_engine *e, int32_t comm, int32_t tag);

#endif /* MM_SHARD_H */
