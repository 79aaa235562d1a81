/* shard.c - MM_CFG_CONCURRENT: concurrent callers without a global lock.
 *
 * Two operations can only interact (match, or be ordered against each other
 * by MPI's rules) when some receive could match both messages or some
 * message both receives. With no ANY_SOURCE receive (the no_any_source
 * hint), that never happens across (communicator, source) pairs; with no
 * ANY_TAG either, never across (communicator, source, tag) keys. So the
 * engine is split into MM_SHARDS shards by a hash of that key: each shard is
 * an ordinary engine of the same kind (its own queues, pools, statistics)
 * behind its own lock, and a call takes exactly one shard's lock. Every
 * shard is linearizable under its lock, the shards' key sets are disjoint,
 * so the whole engine is linearizable (docs/semantics.md states the
 * guarantees). Without the no_any_source hint an ANY_SOURCE receive may
 * match any source, so there is one shard: every call serialises, as with
 * MM_CFG_THREAD_SAFE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shard.h"

#define MM_SHARDS 64

typedef struct shard {
    pthread_mutex_t lock;
    mm_engine      *e;
} shard;

/* One shard per cache line pair: two threads on different shards do not
 * write the same line. */
typedef union shard_slot {
    shard         s;
    unsigned char pad[128];
} shard_slot;

struct mm_shards {
    size_t     n;      /* 1 or MM_SHARDS */
    int        by_tag; /* the tag is part of the key (no_any_source and no_any_tag) */
    shard_slot slot[];
};

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline shard *shard_of(mm_engine *e, int32_t comm, int32_t src, int32_t tag)
{
    struct mm_shards *s = e->shards;
    if (s->n == 1)
        return &s->slot[0].s;
    uint64_t k = ((uint64_t)(uint32_t)comm << 32) | (uint32_t)src;
    if (s->by_tag)
        k = mix(k) ^ (uint32_t)tag;
    return &s->slot[mix(k) & (s->n - 1)].s;
}

static void free_shards(struct mm_shards *s, size_t made)
{
    for (size_t i = 0; i < made; i++) {
        mm_destroy(s->slot[i].s.e);
        pthread_mutex_destroy(&s->slot[i].s.lock);
    }
    free(s);
}

int mm_shards_create(mm_engine **out, const mm_engine_def *def, const mm_config *cfg,
                     char *err, size_t errlen)
{
    int sharded = (cfg->hints & MM_HINT_NO_ANY_SOURCE) != 0;
    size_t n = sharded ? MM_SHARDS : 1;
    struct mm_shards *s = calloc(1, sizeof *s + n * sizeof s->slot[0]);
    mm_engine *e = calloc(1, sizeof *e);
    if (!s || !e) {
        free(s);
        free(e);
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return MM_ENOMEM;
    }
    s->n = n;
    s->by_tag = sharded && (cfg->hints & MM_HINT_NO_ANY_TAG);
    mm_config inner = *cfg;
    inner.flags &= ~(uint32_t)(MM_CFG_CONCURRENT | MM_CFG_THREAD_SAFE);
    for (size_t i = 0; i < n; i++) {
        int rc = mm_create_from(&s->slot[i].s.e, &def->info, &inner, err, errlen);
        if (rc == 0 && pthread_mutex_init(&s->slot[i].s.lock, NULL) != 0) {
            mm_destroy(s->slot[i].s.e);
            rc = MM_ENOMEM;
            if (err && errlen)
                snprintf(err, errlen, "cannot create a shard lock");
        }
        if (rc) {
            free_shards(s, i);
            free(e);
            return rc;
        }
    }
    e->def = def;
    e->nprocs = cfg->nprocs;
    e->hints = cfg->hints;
    e->locked = 1; /* off the unlocked fast path in api.c */
    memcpy(e->param, s->slot[0].s.e->param, sizeof e->param);
    e->shards = s;
    *out = e;
    return 0;
}

void mm_shards_destroy(mm_engine *e)
{
    free_shards(e->shards, e->shards->n);
    free(e);
}

int mm_shards_enter(mm_engine *e, const mm_entry *x, int is_recv, mm_handle *h,
                    uintptr_t *partner)
{
    shard *sh = shard_of(e, x->comm, x->src, x->tag);
    pthread_mutex_lock(&sh->lock);
    int rc = is_recv ? mm_post(sh->e, x, h, partner) : mm_arrive(sh->e, x, partner);
    pthread_mutex_unlock(&sh->lock);
    return rc;
}

int mm_shards_probe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found,
                    int remove)
{
    /* A probe is a receive key: with the tag in the shard key, ANY_TAG is
     * excluded by the hint, so one shard holds every candidate. */
    shard *sh = shard_of(e, comm, src, tag);
    pthread_mutex_lock(&sh->lock);
    int rc = remove ? mm_mprobe(sh->e, comm, src, tag, found)
                    : mm_probe(sh->e, comm, src, tag, found);
    pthread_mutex_unlock(&sh->lock);
    return rc;
}

int mm_shards_cancel(mm_engine *e, mm_handle h)
{
    /* The handle names an element of one shard's pool: ask each shard in
     * turn (under its lock) until one owns it. */
    struct mm_shards *s = e->shards;
    for (size_t i = 0; i < s->n; i++) {
        shard *sh = &s->slot[i].s;
        pthread_mutex_lock(&sh->lock);
        int rc = mm_cancel(sh->e, h);
        pthread_mutex_unlock(&sh->lock);
        if (rc != MM_EHANDLE)
            return rc;
    }
    return MM_EHANDLE;
}

static void add_side(mm_qstats *a, const mm_qstats *b)
{
    a->searches += b->searches;
    a->hits += b->hits;
    a->misses += b->misses;
    a->traversed += b->traversed;
    if (b->max_depth > a->max_depth)
        a->max_depth = b->max_depth;
    a->length += b->length;
    a->max_length += b->max_length; /* sum of the shards' peaks: an upper bound */
    a->queues += b->queues;
    a->max_queues += b->max_queues;
    a->bytes += b->bytes;
    a->peak_bytes += b->peak_bytes;
}

void mm_shards_stats(mm_engine *e, mm_stats *out)
{
    struct mm_shards *s = e->shards;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < s->n; i++) {
        shard *sh = &s->slot[i].s;
        mm_stats one;
        pthread_mutex_lock(&sh->lock);
        mm_get_stats(sh->e, &one);
        pthread_mutex_unlock(&sh->lock);
        add_side(&out->prq, &one.prq);
        add_side(&out->umq, &one.umq);
        out->bytes += one.bytes;
        out->peak_bytes += one.peak_bytes;
        out->cancels += one.cancels;
        out->overhead.alloc_ns += one.overhead.alloc_ns;
        out->overhead.extract_ns += one.overhead.extract_ns;
        out->overhead.profile_ns += one.overhead.profile_ns;
        out->overhead.events += one.overhead.events;
    }
}

void mm_shards_reset(mm_engine *e)
{
    struct mm_shards *s = e->shards;
    for (size_t i = 0; i < s->n; i++) {
        shard *sh = &s->slot[i].s;
        pthread_mutex_lock(&sh->lock);
        mm_reset_stats(sh->e);
        pthread_mutex_unlock(&sh->lock);
    }
}

int mm_shards_walk(mm_engine *e, int side, mm_walk_fn fn, void *arg)
{
    struct mm_shards *s = e->shards;
    for (size_t i = 0; i < s->n; i++) {
        shard *sh = &s->slot[i].s;
        mm_queued *q;
        size_t n;
        pthread_mutex_lock(&sh->lock);
        int rc = mm_walk_collect(sh->e, side, &q, &n);
        pthread_mutex_unlock(&sh->lock);
        if (rc)
            return rc;
        int stop = 0;
        for (size_t j = 0; j < n && !stop; j++) {
            q[j].shard = (uint32_t)i;
            stop = fn(&q[j], arg);
        }
        free(q);
        if (stop)
            break;
    }
    return 0;
}
