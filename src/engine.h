/* engine.h - what an engine implements, and what the API layer gives it.
 *
 * The API layer (api.c) validates arguments, checks hints, assigns sequence
 * numbers, takes elements from the pool, keeps queue lengths and frees
 * matched elements. An engine only decides where an element goes and in
 * which order its queues are searched; it counts its own search depths and
 * queue allocations with the helpers below.
 *
 * Failure (MM_ENOMEM from post or arrive) happens only when the element
 * should be queued: after the engine's one search, counted as a miss, and
 * before anything else changes (queues, queue counts, the engine's own
 * heuristics). The API takes that search's count back and the sequence
 * number, so a failed call leaves no trace in the statistics either. (With
 * an element that may not be queued, mm_may_queue, the API restores all
 * statistics itself, so an engine may also fail before searching.) The
 * engine may keep memory it obtained on the way (a table that grew). */
#ifndef MM_ENGINE_H
#define MM_ENGINE_H

#include <pthread.h>
#include <time.h>
#include "mpimatch.h"
#include "core/elem.h"
#include "core/mem.h"
#include "core/pool.h"

#define MM_MAX_PARAMS 8
#define MM_MAX_LINKS  4  /* links per element, at most */

typedef struct mm_engine_ops {
    unsigned nlinks; /* links per element */
    unsigned nlinks_recv; /* links per receive, if fewer than nlinks (0: nlinks): an
                             engine whose receives sit in one structure while its
                             messages sit in several saves the memory of the rest */
    /* Build the engine's structures from e->param[]; 0 or MM_E* (with err). */
    int  (*init)(mm_engine *e, char *err, size_t errlen);
    void (*fini)(mm_engine *e);
    /* Receive r searches the messages: on a match, unlink the earliest
     * matching message, set *partner and return MM_MATCHED; otherwise queue
     * r and return MM_QUEUED, or MM_ENOMEM (see the top of this file) when
     * r cannot be queued: out of memory, or !mm_may_queue(r). */
    int  (*post)(mm_engine *e, mm_elem *r, mm_elem **partner);
    /* Message m searches the receives, symmetric to post. */
    int  (*arrive)(mm_engine *e, mm_elem *m, mm_elem **partner);
    /* Earliest queued message matching receive key k, unlinked if remove. */
    mm_elem *(*probe)(mm_engine *e, const mm_key *k, int remove);
    /* Unlink queued receive r. */
    void (*cancel)(mm_engine *e, mm_elem *r);
    /* Optional (NULL: the API's own path, which calls post and arrive
     * through the handle): the whole matching path of mm_post and mm_arrive
     * for a checked point-to-point call, with this engine's post and arrive
     * compiled in. Defined with MM_ENGINE_ENTER (enter.h). */
    int  (*enter_post)(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner);
    int  (*enter_arrive)(mm_engine *e, const mm_entry *x, uintptr_t *partner);
    /* Optional: called by mm_reset_stats after it has zeroed the counters,
     * for an engine whose rule reads them (auto's list phase). */
    void (*stats_reset)(mm_engine *e);
} mm_engine_ops;

typedef struct mm_engine_def {
    mm_engine_info       info;
    const mm_engine_ops *ops;
} mm_engine_def;

struct mm_engine {
    /* The matching path's fields first (api.c, enter.h). The entries are
     * the ops' (or the API's generic path), or, for an engine with a lock
     * or shards, the API's wrappers that take them: */
    int     (*enter_post)(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner);
    int     (*enter_arrive)(mm_engine *e, const mm_entry *x, uintptr_t *partner);
    int     (*post)(mm_engine *e, mm_elem *r, mm_elem **partner);   /* def->ops-> */
    int     (*arrive)(mm_engine *e, mm_elem *m, mm_elem **partner); /* def->ops-> */
    /* def->ops->probe, or one the engine sets per state (auto: its list
     * phase's probe, no phase test): what mm_probe and mm_mprobe call */
    mm_elem *(*probe)(mm_engine *e, const mm_key *k, int remove);
    uint32_t  msg_size, recv_size; /* bytes of a message and a receive element */
    int32_t   nprocs;
    uint32_t  hints;
    uint64_t  seq;          /* last sequence number given out */
    int       locked;       /* MM_CFG_THREAD_SAFE: calls take `lock`  */
    uint64_t  undo_traversed, undo_max_depth; /* the searched side's, before the call */
    uint64_t  undo_probes, undo_max_probes;
    const mm_engine_def *def;
    mm_stats  st;
    mm_mem    mem;          /* everything the engine holds                 */
    mm_mem    prq_mem;      /* PRQ structures and queued receives (in mem) */
    mm_mem    umq_mem;      /* UMQ structures and queued messages (in mem) */
    mm_pool   msgs;         /* message elements (nlinks links), and receives
                               when they have as many links                */
    mm_pool   recvs;        /* receive elements when nlinks_recv < nlinks  */
    mm_pool  *recv_pool;    /* &recvs or &msgs: one pool unless sizes differ */
    void     *impl;         /* the engine's own state */
    int64_t   param[MM_MAX_PARAMS];
    char     *param_str[MM_MAX_PARAMS]; /* MM_PARAM_FILE values, or NULL */
    pthread_mutex_t lock;
    struct mm_shards *shards; /* MM_CFG_CONCURRENT: the shards (shard.c), else NULL */
    /* The caller's entry while a call with collective annotations runs (set
     * under the lock, NULL otherwise; point-to-point calls never touch it):
     * elements do not keep the entry's comm_size, call and bytes (elem.h),
     * so an engine that needs them for the call's own element reads them
     * here (the COL part, col_part.c). */
    const mm_entry *coll_entry;
};

/* ---- statistics, updated on the matching path ---- */
MM_INLINE void mm_stat_search(mm_qstats *q, uint64_t depth, int hit)
{
    q->searches++;
    q->traversed += depth;
    if (depth > q->max_depth)
        q->max_depth = depth;
    if (hit)
        q->hits++;
    else
        q->misses++;
}

/* n hash-table slots inspected by one operation on side q. */
static inline void mm_stat_probes(mm_qstats *q, uint64_t n)
{
    q->probes += n;
    if (n > q->max_probes)
        q->max_probes = n;
}

static inline void mm_stat_queues(mm_qstats *q, int64_t delta)
{
    q->queues += (uint64_t)delta;
    if (q->queues > q->max_queues)
        q->max_queues = q->queues;
}

/* May x be queued? Not when the API, out of memory for a new element,
 * searches with one of its own that it cannot give away (MM_ELEM_NOQUEUE):
 * a receive can then still take a queued message. An engine checks this
 * where it would queue x, and returns MM_ENOMEM instead. */
MM_INLINE int mm_may_queue(const mm_elem *x)
{
    return MM_LIKELY(!(x->flags & MM_ELEM_NOQUEUE));
}

/* ---- overhead timing (mm_overhead), around rare, non-search work ---- */
static inline uint64_t mm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Add the time since t0 to one of e->st.overhead's counters. */
static inline void mm_overhead_add(mm_engine *e, uint64_t *counter, uint64_t t0)
{
    *counter += mm_now_ns() - t0;
    e->st.overhead.events++;
}

/* mm_post (is_recv) or mm_arrive on an engine without lock or shards, for
 * the shard layer: the new element also carries xflags (MM_ELEM_WILD), and
 * *pflags (if not NULL) gets a matched partner's flags. */
int mm_enter_internal(mm_engine *e, const mm_entry *x, int is_recv, uint8_t xflags,
                      mm_handle *h, uintptr_t *partner, uint8_t *pflags);

/* Registry of built-in engines (registry.c). */
extern const mm_engine_def mm_engine_list, mm_engine_rank, mm_engine_bins,
                           mm_engine_hash, mm_engine_nm;
extern const mm_engine_def mm_engine_kmeans;
extern const mm_engine_def mm_engine_adaptive, mm_engine_simd, mm_engine_auto;
/* paper 000's family (split.c) */
extern const mm_engine_def mm_engine_pnp, mm_engine_col_pnp, mm_engine_col_ll, mm_engine_ll_pnp;
const mm_engine_def *mm_engine_def_find(const char *name);
/* The registered engine whose info this is, or NULL. */
const mm_engine_def *mm_engine_def_of(const mm_engine_info *info);

#endif
