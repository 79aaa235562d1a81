/* kmeans.c - one queue per cluster of peers, Ghazimirsaeed and Afsahi
 * (paper 001: "Accelerating MPI message matching by a data clustering
 * strategy").
 *
 * Static, two-phase: a profile run counts how many elements each peer put in
 * the queues, K-means groups the peers into k clusters (`mpimatch profile`,
 * `mpimatch cluster`), and this engine reads the resulting cluster file and
 * gives each cluster a PRQ and a UMQ. Specific receives and messages go to
 * their peer's cluster; ANY_SOURCE receives go to PRQ_ANY. Order across
 * queues is restored with sequence numbers:
 *   - an arrival searches its cluster's PRQ, then PRQ_ANY only up to the
 *     candidate found (the earlier posted receive wins);
 *   - a specific receive or probe searches its peer's cluster UMQ;
 *   - an ANY_SOURCE receive or probe searches every cluster UMQ, each only up
 *     to the best candidate so far: O(k + E) with no second link per element
 *     (the paper's choice; a list of all messages would cost a second link,
 *     16 bytes per element, and an unlink per match).
 * Without a cluster file, peer p uses queue p mod k (the paper's baseline of
 * k queues without profile knowledge), computed, not stored: creation costs
 * nothing per process, whatever nprocs. Keys keep the communicator: a queue
 * holds every communicator's elements and matching compares full keys. */
#include <stdio.h>
#include "engine.h"
#include "core/queue.h"
#include "engines/kmeans_clusters.h"

typedef struct kmeans_impl {
    uint32_t  k;
    uint16_t *cluster;  /* [nprocs]: the queue of each peer (cluster file);
                           NULL: peer p uses queue p mod k             */
    mm_queue *prq;      /* [k] specific receives, by the source's cluster */
    mm_queue *umq;      /* [k] unexpected messages, by the source's cluster */
    mm_queue  prq_any;  /* ANY_SOURCE receives                           */
} kmeans_impl;

enum { P_K, P_CLUSTERS, P_RECEIVER };
enum { DEFAULT_K = 16 }; /* paper 001, Fig. 8: gains level off past 16 */
static const mm_param_info kmeans_params[] = {
    [P_K] = {"k", "queues; 0: the cluster file's k, or min(16, nprocs) without a file "
                  "(then peer p uses queue p mod k)", 0, 0, MM_CLUSTERS_MAX_K, MM_PARAM_INT},
    [P_CLUSTERS] = {"clusters", "cluster file from `mpimatch cluster` (docs/clustering.md); "
                                "optional: without it peers are assigned round-robin",
                    0, 0, 0, MM_PARAM_FILE},
    [P_RECEIVER] = {"receiver", "which receiver's section of the cluster file to use",
                    0, 0, INT32_MAX, MM_PARAM_INT},
};

static void kmeans_fini(mm_engine *e)
{
    kmeans_impl *K = e->impl;
    mm_mem_free(&e->prq_mem, K->prq, K->k * sizeof(mm_queue));
    mm_mem_free(&e->umq_mem, K->umq, K->k * sizeof(mm_queue));
    if (K->cluster)
        mm_mem_free(&e->mem, K->cluster, (size_t)e->nprocs * sizeof *K->cluster);
    mm_mem_free(&e->mem, K, sizeof *K);
}

/* The peer -> queue map: from the cluster file, or round-robin. */
static int assign_peers(mm_engine *e, kmeans_impl *K, char *err, size_t errlen)
{
    int64_t k = e->param[P_K];
    const char *path = e->param_str[P_CLUSTERS];
    if (path) {
        K->cluster = mm_mem_alloc(&e->mem, (size_t)e->nprocs * sizeof *K->cluster);
        if (!K->cluster)
            return MM_ENOMEM;
        uint32_t fk;
        int rc = mm_clusters_load(path, e->nprocs, e->param[P_RECEIVER], K->cluster, &fk,
                                  err, errlen);
        if (rc)
            return rc;
        if (k && k != fk) {
            if (err && errlen)
                snprintf(err, errlen, "parameter k=%lld conflicts with cluster file %s, which has "
                         "k %u: give k=0 (the default) or k=%u", (long long)k, path, fk, fk);
            return MM_EPARAM;
        }
        K->k = fk;
        return 0;
    }
    if (k > e->nprocs) {
        if (err && errlen)
            snprintf(err, errlen, "parameter k=%lld of engine 'kmeans' is out of range: with "
                     "nprocs %d an integer from 1 to %d is allowed (0: the default, min(%d, nprocs))",
                     (long long)k, (int)e->nprocs, (int)e->nprocs, DEFAULT_K);
        return MM_EPARAM;
    }
    if (k == 0)
        k = e->nprocs < DEFAULT_K ? e->nprocs : DEFAULT_K;
    K->k = (uint32_t)k;
    return 0;
}

static int kmeans_init(mm_engine *e, char *err, size_t errlen)
{
    kmeans_impl *K = mm_mem_calloc(&e->mem, 1, sizeof *K);
    if (!K)
        return MM_ENOMEM;
    e->impl = K;
    uint64_t t0 = mm_now_ns();
    int rc = assign_peers(e, K, err, errlen);
    if (rc) {
        K->k = 0;
        kmeans_fini(e);
        return rc;
    }
    mm_overhead_add(e, &e->st.overhead.extract_ns, t0);

    t0 = mm_now_ns();
    K->prq = mm_mem_alloc(&e->prq_mem, K->k * sizeof(mm_queue));
    K->umq = mm_mem_alloc(&e->umq_mem, K->k * sizeof(mm_queue));
    if (!K->prq || !K->umq) {
        kmeans_fini(e);
        return MM_ENOMEM;
    }
    for (uint32_t i = 0; i < K->k; i++) {
        mm_queue_init(&K->prq[i], 0);
        mm_queue_init(&K->umq[i], 0);
    }
    mm_queue_init(&K->prq_any, 0);
    mm_stat_queues(&e->st.prq, K->k + 1);
    mm_stat_queues(&e->st.umq, K->k);
    mm_overhead_add(e, &e->st.overhead.alloc_ns, t0);
    return 0;
}

/* The queue (cluster) of peer src. */
static inline uint32_t cluster_of(const kmeans_impl *K, int32_t src)
{
    return K->cluster ? K->cluster[src] : (uint32_t)src % K->k;
}

/* Earliest message matching receive key k; *from receives its queue. */
static mm_elem *find_message(mm_engine *e, const mm_key *k, mm_queue **from)
{
    kmeans_impl *K = e->impl;
    uint64_t depth = 0;
    mm_elem *best = NULL;
    if (k->src != MM_ANY_SOURCE) {
        *from = &K->umq[cluster_of(K, k->src)];
        best = mm_queue_find(*from, k, 1, MM_SEQ_NONE, &depth);
    } else {
        for (uint32_t i = 0; i < K->k; i++)
            if (mm_queue_find_earlier(&K->umq[i], k, 1, MM_SEQ_NONE, &best, &depth))
                *from = &K->umq[i];
    }
    mm_stat_search(&e->st.umq, depth, best != NULL);
    return best;
}

static inline mm_queue *recv_queue(kmeans_impl *K, const mm_key *k)
{
    return k->src == MM_ANY_SOURCE ? &K->prq_any : &K->prq[cluster_of(K, k->src)];
}

static int kmeans_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    mm_queue *from;
    mm_elem *m = find_message(e, &r->key, &from);
    if (m) {
        mm_queue_remove(from, m);
        *partner = m;
        return MM_MATCHED;
    }
    if (!mm_may_queue(r))
        return MM_ENOMEM;
    mm_queue_push(recv_queue(e->impl, &r->key), r);
    return MM_QUEUED;
}

static int kmeans_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    kmeans_impl *K = e->impl;
    uint32_t cl = cluster_of(K, m->key.src);
    mm_queue *q = &K->umq[cl];
    mm_queue *from = &K->prq[cl];
    uint64_t depth = 0;
    mm_elem *best = mm_queue_find(from, &m->key, 0, MM_SEQ_NONE, &depth);
    if (mm_queue_find_earlier(&K->prq_any, &m->key, 0, MM_SEQ_NONE, &best, &depth))
        from = &K->prq_any;
    mm_stat_search(&e->st.prq, depth, best != NULL);
    if (best) {
        mm_queue_remove(from, best);
        *partner = best;
        return MM_MATCHED;
    }
    if (!mm_may_queue(m))
        return MM_ENOMEM;
    mm_queue_push(q, m);
    return MM_QUEUED;
}

static mm_elem *kmeans_probe(mm_engine *e, const mm_key *k, int remove)
{
    mm_queue *from;
    mm_elem *m = find_message(e, k, &from);
    if (m && remove)
        mm_queue_remove(from, m);
    return m;
}

static void kmeans_cancel(mm_engine *e, mm_elem *r)
{
    mm_queue_remove(recv_queue(e->impl, &r->key), r);
}

static const mm_engine_ops kmeans_ops = {
    .nlinks = 1,
    .init = kmeans_init, .fini = kmeans_fini,
    .post = kmeans_post, .arrive = kmeans_arrive,
    .probe = kmeans_probe, .cancel = kmeans_cancel,
};

const mm_engine_def mm_engine_kmeans = {
    .info = {
        .name = "kmeans",
        .summary = "one PRQ and UMQ per cluster of peers from a profile (K-means, "
                   "clusters=FILE); ANY_SOURCE receives in PRQ_ANY, order by sequence "
                   "numbers; without a file, peer p in queue p mod k",
        .origin = "Ghazimirsaeed, Afsahi: Accelerating MPI message matching by a data "
                  "clustering strategy (2017)",
        .params = kmeans_params,
        .nparams = sizeof kmeans_params / sizeof kmeans_params[0],
    },
    .ops = &kmeans_ops,
};
