/* bins_part.h - hash bins on (comm, source, tag): the placement and search
 * order shared by the `bins` engine and the bins phase of `adaptive`.
 *
 * A fixed number of bins, each a FIFO holding elements of every key that
 * hashes there. Fully specified receives go to their bin; receives with a
 * wildcard go to one wildcard list, and an arrival searches its bin and the
 * wildcard list merged by sequence number. Unexpected messages sit in their
 * bin (link 0) and also in one arrival-ordered list of all unexpected
 * messages, umq_all (link 1), which is what a wildcard receive walks.
 *
 * umq_all is set up by the engine, not by mm_bins_alloc: `adaptive` keeps it
 * (as its plain UMQ list) while the bins come and go. mm_bins_post and the
 * three after it are the whole `bins` engine (also the bins phase of `auto`). */
#ifndef MM_ENGINES_BINS_PART_H
#define MM_ENGINES_BINS_PART_H

#include "engine.h"
#include "core/khash.h"
#include "core/queue.h"

typedef struct mm_bins {
    uint32_t  nbins;
    uint64_t  seed;     /* of the key hash (core/khash.h): set by the engine */
    mm_queue *prq;      /* [nbins] specific receives (link 0)   */
    mm_queue *umq;      /* [nbins] unexpected messages (link 0) */
    mm_queue  wild;     /* receives with a wildcard (link 0)    */
    mm_queue  umq_all;  /* every unexpected message, in arrival order (link 1) */
} mm_bins;

/* A key's bin: its seeded hash (all key bits, mixed with the engine's
 * secret seed, so senders cannot aim tags at one bin) scaled to nbins. */
static inline uint32_t mm_bins_of(const mm_bins *B, const mm_key *k)
{
    return (uint32_t)(((uint64_t)mm_khash(k, B->seed) * B->nbins) >> 32);
}

/* Release the bin arrays (a no-op when they are not allocated). */
static inline void mm_bins_free(mm_engine *e, mm_bins *B)
{
    if (!B->prq && !B->umq)
        return;
    mm_mem_free(&e->prq_mem, B->prq, B->nbins * sizeof(mm_queue));
    mm_mem_free(&e->umq_mem, B->umq, B->nbins * sizeof(mm_queue));
    if (B->prq && B->umq) {
        mm_stat_queues(&e->st.prq, -(int64_t)B->nbins - 1);
        mm_stat_queues(&e->st.umq, -(int64_t)B->nbins);
    }
    B->prq = B->umq = NULL;
}

/* Give B the tables prq and umq (n bins each, allocated by the caller on
 * e->prq_mem and e->umq_mem), emptied unless `empty` says every queue in
 * them is initialised and empty already, and the empty wildcard list;
 * counts the queues in the statistics. */
static inline void mm_bins_attach(mm_engine *e, mm_bins *B, mm_queue *prq, mm_queue *umq,
                                  uint32_t n, int empty)
{
    B->nbins = n;
    B->prq = prq;
    B->umq = umq;
    for (uint32_t i = 0; !empty && i < n; i++) {
        mm_queue_init(&B->prq[i], 0);
        mm_queue_init(&B->umq[i], 0);
    }
    mm_queue_init(&B->wild, 0);
    mm_stat_queues(&e->st.prq, n + 1);
    mm_stat_queues(&e->st.umq, n);
}

/* Take the tables back from B without freeing them (the caller's, see
 * mm_bins_attach); uncounts the queues. */
static inline void mm_bins_detach(mm_engine *e, mm_bins *B)
{
    mm_stat_queues(&e->st.prq, -(int64_t)B->nbins - 1);
    mm_stat_queues(&e->st.umq, -(int64_t)B->nbins);
    B->prq = B->umq = NULL;
}

/* Allocate n empty bins for each side and the empty wildcard list; counts
 * them in the statistics. MM_ENOMEM leaves B without bins. */
static inline int mm_bins_alloc(mm_engine *e, mm_bins *B, uint32_t n)
{
    B->nbins = n;
    mm_queue *prq = mm_mem_alloc(&e->prq_mem, n * sizeof(mm_queue));
    mm_queue *umq = mm_mem_alloc(&e->umq_mem, n * sizeof(mm_queue));
    if (!prq || !umq) {
        mm_mem_free(&e->prq_mem, prq, n * sizeof(mm_queue));
        mm_mem_free(&e->umq_mem, umq, n * sizeof(mm_queue));
        B->prq = B->umq = NULL;
        return MM_ENOMEM;
    }
    mm_bins_attach(e, B, prq, umq, n, 0);
    return 0;
}

/* Earliest queued message that receive key k accepts: its bin, or the
 * arrival list for a wildcard key. Counted as one UMQ search. */
static inline mm_elem *mm_bins_find_message(mm_engine *e, const mm_bins *B, const mm_key *k)
{
    uint64_t depth = 0;
    const mm_queue *q = mm_key_wild(k) ? &B->umq_all : &B->umq[mm_bins_of(B, k)];
    mm_elem *m = mm_queue_find(q, k, 1, MM_SEQ_NONE, &depth);
    mm_stat_search(&e->st.umq, depth, m != NULL);
    return m;
}

static inline void mm_bins_unlink_message(mm_bins *B, mm_elem *m)
{
    mm_queue_remove(&B->umq[mm_bins_of(B, &m->key)], m);
    mm_queue_remove(&B->umq_all, m);
}

static inline void mm_bins_queue_message(mm_bins *B, mm_elem *m)
{
    mm_queue_push(&B->umq[mm_bins_of(B, &m->key)], m);
    mm_queue_push(&B->umq_all, m);
}

/* The link-0 queue that holds (or will hold) a receive with key k. */
static inline mm_queue *mm_bins_recv_queue(mm_bins *B, const mm_key *k)
{
    return mm_key_wild(k) ? &B->wild : &B->prq[mm_bins_of(B, k)];
}

/* Earliest queued receive that accepts message m: its bin, then the
 * wildcard list up to the bin's candidate. Counted as one PRQ search; *from
 * is the queue that holds the receive found. */
static inline mm_elem *mm_bins_find_recv(mm_engine *e, mm_bins *B, const mm_elem *m,
                                         mm_queue **from)
{
    uint64_t depth = 0;
    *from = &B->prq[mm_bins_of(B, &m->key)];
    mm_elem *best = mm_queue_find(*from, &m->key, 0, MM_SEQ_NONE, &depth);
    if (mm_queue_find_earlier(&B->wild, &m->key, 0, MM_SEQ_NONE, &best, &depth))
        *from = &B->wild;
    mm_stat_search(&e->st.prq, depth, best != NULL);
    return best;
}

/* Receive r takes its earliest message, or is queued (MM_ENOMEM when it
 * may not be). */
MM_INLINE int mm_bins_post(mm_engine *e, mm_bins *B, mm_elem *r, mm_elem **partner)
{
    mm_elem *m = mm_bins_find_message(e, B, &r->key);
    if (m) {
        mm_bins_unlink_message(B, m);
        *partner = m;
        return MM_MATCHED;
    }
    if (!mm_may_queue(r))
        return MM_ENOMEM;
    mm_queue_push(mm_bins_recv_queue(B, &r->key), r);
    return MM_QUEUED;
}

/* Message m takes its earliest receive, or is queued. */
MM_INLINE int mm_bins_arrive(mm_engine *e, mm_bins *B, mm_elem *m, mm_elem **partner)
{
    mm_queue *from;
    mm_elem *r = mm_bins_find_recv(e, B, m, &from);
    if (r) {
        mm_queue_remove(from, r);
        *partner = r;
        return MM_MATCHED;
    }
    if (!mm_may_queue(m))
        return MM_ENOMEM;
    mm_bins_queue_message(B, m);
    return MM_QUEUED;
}

static inline mm_elem *mm_bins_probe(mm_engine *e, mm_bins *B, const mm_key *k, int remove)
{
    mm_elem *m = mm_bins_find_message(e, B, k);
    if (m && remove)
        mm_bins_unlink_message(B, m);
    return m;
}

static inline void mm_bins_cancel(mm_bins *B, mm_elem *r)
{
    mm_queue_remove(mm_bins_recv_queue(B, &r->key), r);
}

#endif
