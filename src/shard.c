/* shard.c - MM_CFG_CONCURRENT: concurrent callers without a global lock.
 *
 * The engine is split into MM_SHARDS shards by a hash of (communicator,
 * source) - of (communicator, source, tag) with the no_any_tag hint, where
 * no receive can span tags. Each shard is an ordinary engine of the same
 * kind (its own queues, pools, statistics) behind its own lock; a receive
 * with a concrete source, a message and a probe with a concrete source take
 * exactly one shard's lock. Two such operations can only interact (match, or
 * be ordered by MPI's rules) when some receive could match both messages or
 * some message both receives, which never happens across shards.
 *
 * ANY_SOURCE receives (engines created without the no_any_source hint)
 * span shards. The design (docs/semantics.md, "Concurrent callers"):
 *
 * - Stamps. Every call that creates an element takes the next value of one
 *   atomic counter while it holds its shard lock, and the element carries it
 *   as its sequence number. Within a shard stamps grow in lock order, so the
 *   inner engine keeps its order; across shards they order messages by
 *   arrival and receives by posting, which the earliest-arrived and
 *   earliest-posted rules need. The stamps are the linearization order.
 * - The wildcard path. An ANY_SOURCE receive or probe locks every shard its
 *   communicator's sources hash to (the mask; at most 64 locks, in index
 *   order), takes one stamp, and finds the earliest-stamped matching message
 *   over those shards (the engines' own probe). A receive that finds none is
 *   queued as one copy in every shard of the mask, all with its stamp and a
 *   shared token (struct wild), so each shard's own engine compares it with
 *   that shard's concrete receives by sequence number: the earliest posted
 *   receive wins whatever queue it is in.
 * - Claiming. An arrival that matches a copy claims the token with one
 *   atomic exchange (so does mm_cancel of the wildcard); the one that sets it
 *   from live to dead owns the match, then removes the other copies (one
 *   shard lock at a time, never two). An arrival that meets a copy already
 *   dead has removed it and searches its shard again, with a fresh stamp.
 * - The fast path. No shared lock is taken by concrete calls whether or not
 *   wildcards are pending: they pay one atomic increment (the stamp) and, if
 *   they match a copy, one exchange.
 *
 * Statistics are the sums over the shards, corrected to count each call
 * once (see mm_shards_stats): a pending wildcard is one receive in the
 * lengths, a wildcard post or probe one UMQ search, a dead copy met no
 * search; the elements compared in every shard stay in `traversed`. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shard.h"
#include "core/pool.h"

#define MM_SHARDS 64
/* A wildcard's mask is computed from its communicator's sources up to this
 * many processes; beyond, it is every shard. */
#define MM_MASK_NPROCS 256

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

/* One pending ANY_SOURCE receive: the token its copies carry as cookie. */
typedef struct wild {
    void       *free_link; /* the pool's free list while free            */
    atomic_int  live;      /* 1 while queued; whoever sets 0 owns it      */
    uint64_t    seq;       /* its stamp, in its handle                    */
    uintptr_t   cookie;    /* the caller's                                */
    uint64_t    mask;      /* the shards holding a copy                   */
    mm_handle   copy[MM_SHARDS];
} wild;

struct mm_shards {
    size_t n;      /* 1 or MM_SHARDS */
    int    by_tag; /* the tag is part of the key (no_any_tag) */
    int    wild;   /* ANY_SOURCE allowed: stamps and wildcard copies */
    int32_t nprocs;
    _Alignas(64) atomic_uint_fast64_t stamp;
    _Alignas(64) pthread_mutex_t wlock; /* the token pool and the counts below */
    mm_mem  mem;
    mm_pool tokens;
    /* Corrections from the shards' sums to one count per call. */
    uint64_t umq_searches, umq_hits, umq_misses, umq_max_depth; /* wildcard path */
    atomic_int_fast64_t extra;      /* copies in the shards - pending wildcards */
    atomic_int_fast64_t dead_hits;  /* dead copies met by arrivals */
    atomic_int_fast64_t cancels;    /* wildcard cancels - copies removed by cancel */
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

static inline size_t index_of(const struct mm_shards *s, int32_t comm, int32_t src, int32_t tag)
{
    if (s->n == 1)
        return 0;
    uint64_t k = ((uint64_t)(uint32_t)comm << 32) | (uint32_t)src;
    if (s->by_tag)
        k = mix(k) ^ (uint32_t)tag;
    return (size_t)(mix(k) & (s->n - 1));
}

static inline shard *shard_at(struct mm_shards *s, size_t i)
{
    return &s->slot[i].s;
}

/* The shards a receive or probe of (comm, ANY_SOURCE, tag) may need. */
static uint64_t mask_of(const struct mm_shards *s, int32_t comm, int32_t tag)
{
    if (s->n == 1)
        return 1;
    if (s->nprocs >= MM_MASK_NPROCS)
        return ~(uint64_t)0;
    uint64_t m = 0;
    for (int32_t p = 0; p < s->nprocs; p++)
        m |= (uint64_t)1 << index_of(s, comm, p, tag);
    return m;
}

#define FOR_MASK(i, m) \
    for (uint64_t i##_m = (m); i##_m; i##_m &= i##_m - 1) \
        for (size_t i = (size_t)__builtin_ctzll(i##_m), i##_once = 1; i##_once; i##_once = 0)

/* The element the next call on sh creates gets the next stamp (sh locked). */
static inline void take_stamp(struct mm_shards *s, shard *sh)
{
    if (s->wild)
        sh->e->seq = atomic_fetch_add(&s->stamp, 1);
}

static void free_shards(struct mm_shards *s, size_t made)
{
    for (size_t i = 0; i < made; i++) {
        mm_destroy(s->slot[i].s.e);
        pthread_mutex_destroy(&s->slot[i].s.lock);
    }
    mm_pool_destroy(&s->tokens);
    pthread_mutex_destroy(&s->wlock);
    free(s);
}

/* The design for hints: mm_shards_create builds it, mm_concurrency_of reports it. */
static mm_concurrency plan(uint32_t hints)
{
    return (mm_concurrency){
        .shards = MM_SHARDS,
        .key = hints & MM_HINT_NO_ANY_TAG ? MM_SHARD_BY_TAG : MM_SHARD_BY_SOURCE,
        .wildcards = hints & MM_HINT_NO_ANY_SOURCE ? MM_WILD_NONE : MM_WILD_SHARDS,
    };
}

int mm_concurrency_of(const mm_engine_info *info, uint32_t hints, mm_concurrency *out)
{
    const mm_engine_def *def = mm_engine_def_of(info);
    if (!def || !out || hints & ~(uint32_t)(MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG))
        return MM_EINVAL;
    if (def->info.hints_required & ~hints)
        return MM_EHINT;
    *out = plan(hints);
    return 0;
}

int mm_shards_create(mm_engine **out, const mm_engine_def *def, const mm_config *cfg,
                     char *err, size_t errlen)
{
    mm_concurrency p = plan(cfg->hints);
    size_t n = p.shards;
    struct mm_shards *s = calloc(1, sizeof *s + n * sizeof s->slot[0]);
    mm_engine *e = calloc(1, sizeof *e);
    if (!s || !e || pthread_mutex_init(&s->wlock, NULL) != 0) {
        free(s);
        free(e);
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return MM_ENOMEM;
    }
    s->n = n;
    s->by_tag = p.key == MM_SHARD_BY_TAG;
    s->wild = p.wildcards == MM_WILD_SHARDS;
    s->nprocs = cfg->nprocs;
    atomic_init(&s->stamp, 0);
    atomic_init(&s->extra, 0);
    atomic_init(&s->dead_hits, 0);
    atomic_init(&s->cancels, 0);
    mm_pool_init(&s->tokens, sizeof(wild), &s->mem);
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
    e->locked = 1; /* its entries are set by create (api.c: locked_enter_*) */
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

/* ---- the wildcard path ---- */

/* Undo the counts of the searches a shard's engine made for the wildcard
 * path (one logical search is counted for the whole call); the elements
 * compared stay in traversed. Returns them. */
static uint64_t unsearch(mm_qstats *q, const mm_qstats *was)
{
    uint64_t d = q->traversed - was->traversed;
    q->searches = was->searches;
    q->hits = was->hits;
    q->misses = was->misses;
    q->max_depth = was->max_depth;
    return d;
}

/* Remove the copies of w that remain (all but shard `except`'s; -1: all),
 * one shard lock at a time, then free the token. The caller owns w (it set
 * w->live to 0) and holds no lock. */
static void drop_copies(struct mm_shards *s, wild *w, size_t except)
{
    FOR_MASK(i, w->mask) {
        if (i == except)
            continue;
        shard *sh = shard_at(s, i);
        pthread_mutex_lock(&sh->lock);
        int rc = mm_cancel(sh->e, w->copy[i]);
        pthread_mutex_unlock(&sh->lock);
        if (rc == MM_MATCHED) { /* else an arrival met it dead and counted it */
            atomic_fetch_sub(&s->extra, 1);
            atomic_fetch_sub(&s->cancels, 1);
        }
    }
    pthread_mutex_lock(&s->wlock);
    mm_pool_put(&s->tokens, w);
    pthread_mutex_unlock(&s->wlock);
}

enum { WILD_POST, WILD_PROBE, WILD_MPROBE };

/* An ANY_SOURCE receive (x) or probe (key k) under the locks of its mask. */
static int wild_op(struct mm_shards *s, int op, const mm_entry *x, const mm_key *k,
                   mm_handle *h, uintptr_t *out)
{
    uint64_t mask = mask_of(s, k->comm, k->tag);
    FOR_MASK(i, mask)
        pthread_mutex_lock(&shard_at(s, i)->lock);
    uint64_t stamp = atomic_fetch_add(&s->stamp, 1); /* the call's stamp is stamp + 1 */
    mm_elem *best = NULL;
    size_t bi = 0;
    uint64_t depth = 0;
    /* What a failed call puts back (the searches' counts are undone anyway). */
    struct { uint64_t traversed, probes, max_probes, prq_max_length, cancels; } before[MM_SHARDS];
    FOR_MASK(i, mask) {
        mm_engine *ie = shard_at(s, i)->e;
        before[i].traversed = ie->st.umq.traversed;
        before[i].probes = ie->st.umq.probes;
        before[i].max_probes = ie->st.umq.max_probes;
        before[i].prq_max_length = ie->st.prq.max_length;
        before[i].cancels = ie->st.cancels;
        mm_qstats was = ie->st.umq;
        mm_elem *m = ie->probe(ie, k, 0);
        depth += unsearch(&ie->st.umq, &was);
        if (m && (!best || m->seq < best->seq)) {
            best = m;
            bi = i;
        }
    }
    int rc;
    uintptr_t got = 0;
    if (best && op == WILD_PROBE) {
        got = best->cookie;
        rc = MM_MATCHED;
    } else if (best) {
        /* The same search on the one shard that has the earliest message. */
        mm_engine *ie = shard_at(s, bi)->e;
        mm_qstats was = ie->st.umq;
        ie->seq = stamp;
        rc = op == WILD_MPROBE ? mm_mprobe(ie, k->comm, k->src, k->tag, &got)
                               : mm_enter_internal(ie, x, 1, 0, h, &got, NULL);
        depth += unsearch(&ie->st.umq, &was);
    } else if (op != WILD_POST) {
        rc = MM_NOTFOUND;
    } else {
        /* Queue one copy in each shard of the mask. The token's fields a
         * stale handle's mm_cancel reads are set under wlock. */
        pthread_mutex_lock(&s->wlock);
        wild *w = mm_pool_get(&s->tokens);
        if (w) {
            w->seq = stamp + 1;
            w->cookie = x->cookie;
            w->mask = 0;
            atomic_store(&w->live, 1);
        }
        pthread_mutex_unlock(&s->wlock);
        rc = w ? MM_QUEUED : MM_ENOMEM;
        if (w) {
            mm_entry c = *x;
            c.cookie = (uintptr_t)w;
            FOR_MASK(i, mask) {
                if (rc != MM_QUEUED)
                    continue;
                mm_engine *ie = shard_at(s, i)->e;
                mm_qstats was = ie->st.umq;
                ie->seq = stamp;
                uintptr_t none;
                /* MM_QUEUED, or MM_ENOMEM: no message matches (the probes said so) */
                rc = mm_enter_internal(ie, &c, 1, MM_ELEM_WILD, &w->copy[i], &none, NULL);
                if (rc == MM_QUEUED) {
                    depth += unsearch(&ie->st.umq, &was);
                    w->mask |= (uint64_t)1 << i;
                }
            }
            if (rc == MM_QUEUED) {
                atomic_fetch_add(&s->extra, (int64_t)__builtin_popcountll(mask) - 1);
                if (h)
                    *h = (mm_handle){w, w->seq};
            } else {
                FOR_MASK(i, w->mask)
                    mm_cancel(shard_at(s, i)->e, w->copy[i]);
                pthread_mutex_lock(&s->wlock);
                atomic_store(&w->live, 0);
                mm_pool_put(&s->tokens, w);
                pthread_mutex_unlock(&s->wlock);
            }
        }
    }
    if (rc < 0) {
        /* A failed call leaves the queues and the counts as they were. */
        FOR_MASK(i, mask) {
            mm_engine *ie = shard_at(s, i)->e;
            ie->st.umq.traversed = before[i].traversed;
            ie->st.umq.probes = before[i].probes;
            ie->st.umq.max_probes = before[i].max_probes;
            ie->st.prq.max_length = before[i].prq_max_length;
            mm_mem_remark(&ie->prq_mem); /* the mark may exceed the old maximum */
            ie->st.cancels = before[i].cancels; /* the copies taken back */
        }
    }
    if (rc >= 0) {
        pthread_mutex_lock(&s->wlock);
        s->umq_searches++;
        if (rc == MM_MATCHED)
            s->umq_hits++;
        else
            s->umq_misses++;
        if (depth > s->umq_max_depth)
            s->umq_max_depth = depth;
        pthread_mutex_unlock(&s->wlock);
    }
    FOR_MASK(i, mask)
        pthread_mutex_unlock(&shard_at(s, i)->lock);
    if (rc == MM_MATCHED && out)
        *out = got;
    if (rc == MM_MATCHED && h && op == WILD_POST)
        *h = (mm_handle){NULL, 0};
    return rc;
}

/* ---- the calls ---- */

int mm_shards_enter(mm_engine *e, const mm_entry *x, int is_recv, mm_handle *h,
                    uintptr_t *partner)
{
    struct mm_shards *s = e->shards;
    if (is_recv && x->src == MM_ANY_SOURCE && s->wild) {
        mm_key k = {x->comm, x->src, x->tag};
        return wild_op(s, WILD_POST, x, &k, h, partner);
    }
    size_t si = index_of(s, x->comm, x->src, x->tag);
    shard *sh = shard_at(s, si);
    wild *won = NULL;
    uintptr_t got = 0;
    int rc;
    pthread_mutex_lock(&sh->lock);
    for (;;) {
        take_stamp(s, sh);
        uint8_t pf = 0;
        rc = mm_enter_internal(sh->e, x, is_recv, 0, h, &got, &pf);
        if (rc != MM_MATCHED || !(pf & MM_ELEM_WILD))
            break;
        /* A wildcard's copy: the match is ours if the wildcard is still live. */
        wild *w = (wild *)got;
        if (atomic_exchange(&w->live, 0)) {
            won = w;
            got = w->cookie;
            break;
        }
        /* Dead: its copy is gone now; search again, as a later call. */
        atomic_fetch_sub(&s->extra, 1);
        atomic_fetch_add(&s->dead_hits, 1);
    }
    pthread_mutex_unlock(&sh->lock);
    if (won)
        drop_copies(s, won, si);
    if (rc == MM_MATCHED && partner)
        *partner = got;
    return rc;
}

int mm_shards_probe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found,
                    int remove)
{
    struct mm_shards *s = e->shards;
    if (src == MM_ANY_SOURCE && s->wild) {
        mm_key k = {comm, src, tag};
        return wild_op(s, remove ? WILD_MPROBE : WILD_PROBE, NULL, &k, NULL, found);
    }
    /* A concrete source: its messages are all in one shard (with the tag in
     * the shard key, ANY_TAG is excluded by the hint). */
    shard *sh = shard_at(s, index_of(s, comm, src, tag));
    pthread_mutex_lock(&sh->lock);
    int rc = remove ? mm_mprobe(sh->e, comm, src, tag, found)
                    : mm_probe(sh->e, comm, src, tag, found);
    pthread_mutex_unlock(&sh->lock);
    return rc;
}

int mm_shards_cancel(mm_engine *e, mm_handle h)
{
    /* A receive with a named source is an element of one shard's pool: ask
     * each shard in turn (under its lock) until one owns it. */
    struct mm_shards *s = e->shards;
    for (size_t i = 0; i < s->n; i++) {
        shard *sh = shard_at(s, i);
        pthread_mutex_lock(&sh->lock);
        int rc = mm_cancel(sh->e, h);
        pthread_mutex_unlock(&sh->lock);
        if (rc != MM_EHANDLE)
            return rc;
    }
    if (!s->wild)
        return MM_EHANDLE;
    /* An ANY_SOURCE receive's handle names its token. */
    pthread_mutex_lock(&s->wlock);
    int owns = mm_pool_owns(&s->tokens, h.elem);
    wild *w = h.elem;
    int mine = owns && w->seq == h.seq && atomic_exchange(&w->live, 0);
    pthread_mutex_unlock(&s->wlock);
    if (!owns)
        return MM_EHANDLE;
    if (!mine)
        return MM_NOTFOUND;
    atomic_fetch_add(&s->extra, 1);
    atomic_fetch_add(&s->cancels, 1);
    drop_copies(s, w, (size_t)-1);
    return MM_MATCHED;
}

/* ---- statistics ---- */

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
    a->probes += b->probes;
    if (b->max_probes > a->max_probes)
        a->max_probes = b->max_probes;
}

void mm_shards_stats(mm_engine *e, mm_stats *out)
{
    struct mm_shards *s = e->shards;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < s->n; i++) {
        shard *sh = shard_at(s, i);
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
    /* One count per call: a pending wildcard is one receive however many
     * shards hold a copy; a dead copy met by an arrival was no search. */
    int64_t dead = atomic_load(&s->dead_hits);
    out->prq.length -= (uint64_t)atomic_load(&s->extra);
    out->prq.searches -= (uint64_t)dead;
    out->prq.hits -= (uint64_t)dead;
    out->cancels += (uint64_t)atomic_load(&s->cancels);
    pthread_mutex_lock(&s->wlock);
    out->umq.searches += s->umq_searches;
    out->umq.hits += s->umq_hits;
    out->umq.misses += s->umq_misses;
    if (s->umq_max_depth > out->umq.max_depth)
        out->umq.max_depth = s->umq_max_depth;
    out->bytes += s->mem.bytes;
    out->peak_bytes += s->mem.peak;
    pthread_mutex_unlock(&s->wlock);
}

void mm_shards_reset(mm_engine *e)
{
    struct mm_shards *s = e->shards;
    for (size_t i = 0; i < s->n; i++) {
        shard *sh = shard_at(s, i);
        pthread_mutex_lock(&sh->lock);
        mm_reset_stats(sh->e);
        pthread_mutex_unlock(&sh->lock);
    }
    pthread_mutex_lock(&s->wlock);
    s->umq_searches = s->umq_hits = s->umq_misses = s->umq_max_depth = 0;
    s->mem.peak = s->mem.bytes;
    pthread_mutex_unlock(&s->wlock);
    atomic_store(&s->dead_hits, 0);
    atomic_store(&s->cancels, 0);
}

mm_engine *mm_shards_engine_at(mm_engine *e, size_t i)
{
    return i < e->shards->n ? shard_at(e->shards, i)->e : NULL;
}

uint64_t mm_shards_mask(mm_engine *e, int32_t comm, int32_t tag)
{
    return mask_of(e->shards, comm, tag);
}

/* The walk of a concurrent engine. Each shard's elements are copied under its
 * lock. A pending ANY_SOURCE receive is one copy in every shard of its mask,
 * whose cookie is its token: it is reported once, from the first shard of the
 * mask, with the caller's cookie, and not at all once its token is dead (an
 * arrival or a cancel owns it). While shard i's lock is held and the copy is
 * in shard i, the token cannot go back to the pool (drop_copies must take
 * that lock first) and its mask is fixed (set under all its shards' locks),
 * so reading them there is safe. With wildcards the stamps are one order over
 * all shards and the walk is in that order; without, each shard's sequence
 * numbers are its own and the walk goes shard by shard. */
int mm_shards_walk(mm_engine *e, int side, mm_walk_fn fn, void *arg)
{
    struct mm_shards *s = e->shards;
    mm_queued *all = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < s->n && !rc; i++) {
        shard *sh = &s->slot[i].s;
        mm_queued *q = NULL;
        size_t m = 0;
        pthread_mutex_lock(&sh->lock);
        rc = mm_walk_collect(sh->e, side, &q, &m);
        mm_queued *grown = !rc && m ? realloc(all, (n + m) * sizeof *all) : all;
        if (!rc && m && !grown) {
            rc = MM_ENOMEM;
        } else if (!rc) {
            all = grown;
            for (size_t j = 0; !rc && j < m; j++) {
                if (s->wild && side == MM_SIDE_PRQ && q[j].entry.src == MM_ANY_SOURCE) {
                    const wild *w = (const wild *)q[j].entry.cookie;
                    if (!atomic_load(&w->live) || (size_t)__builtin_ctzll(w->mask) != i)
                        continue;
                    q[j].entry.cookie = w->cookie;
                    q[j].seq = w->seq;
                }
                q[j].shard = (uint32_t)i;
                all[n++] = q[j];
            }
        }
        pthread_mutex_unlock(&sh->lock);
        free(q);
    }
    if (!rc) {
        if (s->wild && n > 1)
            qsort(all, n, sizeof *all, mm_queued_by_seq);
        for (size_t j = 0; j < n && !fn(&all[j], arg); j++)
            ;
    }
    free(all);
    return rc;
}
