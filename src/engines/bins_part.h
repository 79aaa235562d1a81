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

#include <string.h>
#include "engine.h"
#include "core/khash.h"
#include "core/queue.h"

typedef struct mm_bins {
    uint32_t   nbins;
    uint64_t   seed;    /* of the key hash (core/khash.h): set by the engine */
    mm_hqueue *prq;     /* [nbins] specific receives (link 0)   */
    mm_hqueue *umq;     /* [nbins] unexpected messages (link 0) */
    mm_queue   wild;    /* receives with a wildcard (link 0)    */
    mm_queue   umq_all; /* every unexpected message, in arrival order (link 1) */
} mm_bins;

/* A bin is an mm_hqueue (core/queue.h: the head's link alone, 8 bytes;
 * an mm_queue's 24 made 4096 bins a side cost 48 bytes per element at
 * 4096 queued: shuffle:n=4096,rounds=2 with bins=4096 held 116.5 bytes
 * per queued element in all, now 84.5). The wildcard list and umq_all,
 * one each, stay mm_queues: their sentinel has the tail, so appending to a
 * long one reads no head. */

/* A key's bin: its seeded hash (all key bits, mixed with the engine's
 * secret seed, so senders cannot aim tags at one bin) scaled to nbins. */
static inline uint32_t mm_bins_of(const mm_bins *B, const mm_key *k)
{
    return (uint32_t)(((uint64_t)mm_khash(k, B->seed) * B->nbins) >> 32);
}

/* Bytes of one side's table of n bins. */
static inline size_t mm_bins_table_bytes(uint32_t n)
{
    return (size_t)n * sizeof(mm_hqueue);
}

/* Release the bin arrays (a no-op when they are not allocated). */
static inline void mm_bins_free(mm_engine *e, mm_bins *B)
{
    if (!B->prq && !B->umq)
        return;
    mm_mem_free(&e->prq_mem, B->prq, mm_bins_table_bytes(B->nbins));
    mm_mem_free(&e->umq_mem, B->umq, mm_bins_table_bytes(B->nbins));
    if (B->prq && B->umq) {
        mm_stat_queues(&e->st.prq, -(int64_t)B->nbins - 1);
        mm_stat_queues(&e->st.umq, -(int64_t)B->nbins);
    }
    B->prq = B->umq = NULL;
}

/* Give B the tables prq and umq (n bins each, allocated by the caller on
 * e->prq_mem and e->umq_mem), emptied unless `empty` says every queue in
 * them is empty already, and the empty wildcard list; counts the queues in
 * the statistics. */
static inline void mm_bins_attach(mm_engine *e, mm_bins *B, mm_hqueue *prq, mm_hqueue *umq,
                                  uint32_t n, int empty)
{
    B->nbins = n;
    B->prq = prq;
    B->umq = umq;
    if (!empty) {
        memset(prq, 0, mm_bins_table_bytes(n)); /* (all zero: empty hqueues) */
        memset(umq, 0, mm_bins_table_bytes(n));
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

/* Allocate two tables of n empty bins (on e->prq_mem and e->umq_mem):
 * 0, or MM_ENOMEM with nothing held. */
static inline int mm_bins_tables_alloc(mm_engine *e, uint32_t n, mm_hqueue **prq,
                                       mm_hqueue **umq)
{
    *prq = mm_mem_calloc(&e->prq_mem, n, sizeof(mm_hqueue));
    *umq = mm_mem_calloc(&e->umq_mem, n, sizeof(mm_hqueue));
    if (!*prq || !*umq) {
        mm_mem_free(&e->prq_mem, *prq, mm_bins_table_bytes(n));
        mm_mem_free(&e->umq_mem, *umq, mm_bins_table_bytes(n));
        *prq = *umq = NULL;
        return MM_ENOMEM;
    }
    return 0;
}

/* Allocate n empty bins for each side and the empty wildcard list; counts
 * them in the statistics. MM_ENOMEM leaves B without bins. */
static inline int mm_bins_alloc(mm_engine *e, mm_bins *B, uint32_t n)
{
    mm_hqueue *prq, *umq;
    B->nbins = n;
    if (mm_bins_tables_alloc(e, n, &prq, &umq) != 0) {
        B->prq = B->umq = NULL;
        return MM_ENOMEM;
    }
    mm_bins_attach(e, B, prq, umq, n, 1);
    return 0;
}

/* Earliest queued message that receive key k accepts: its bin, or the
 * arrival list for a wildcard key. Counted as one UMQ search. */
static inline mm_elem *mm_bins_find_message(mm_engine *e, const mm_bins *B, const mm_key *k)
{
    uint64_t depth = 0;
    mm_elem *m = mm_key_wild(k)
        ? mm_queue_find_at(&B->umq_all, 1, k, 1, MM_SEQ_NONE, &depth)
        : mm_hqueue_find_at(&B->umq[mm_bins_of(B, k)], 0, k, 1, MM_SEQ_NONE, &depth);
    mm_stat_search(&e->st.umq, depth, m != NULL);
    return m;
}

/* Message m into its bin only (adaptive's switch: it is on umq_all). */
static inline void mm_bins_bin_message(mm_bins *B, mm_elem *m)
{
    mm_hqueue_push_at(&B->umq[mm_bins_of(B, &m->key)], 0, m);
}

/* Empty the bin that holds (or held) element x: auto empties a table bin by
 * bin when few are in use. */
static inline void mm_bins_clear_bin_of(mm_bins *B, const mm_elem *x)
{
    if (x->flags & MM_ELEM_RECV) {
        if (!mm_key_wild(&x->key)) /* (the wildcard list: mm_bins_attach's) */
            mm_hqueue_init(&B->prq[mm_bins_of(B, &x->key)]);
    } else {
        mm_hqueue_init(&B->umq[mm_bins_of(B, &x->key)]);
    }
}

static inline void mm_bins_unlink_message(mm_bins *B, mm_elem *m)
{
    mm_hqueue_remove_at(&B->umq[mm_bins_of(B, &m->key)], 0, m);
    mm_queue_remove_at(&B->umq_all, 1, m);
}

static inline void mm_bins_queue_message(mm_bins *B, mm_elem *m)
{
    mm_bins_bin_message(B, m);
    mm_queue_push_at(&B->umq_all, 1, m);
}

/* Receive r into its bin, or the wildcard list for a wildcard key. */
static inline void mm_bins_queue_recv(mm_bins *B, mm_elem *r)
{
    if (mm_key_wild(&r->key))
        mm_queue_push_at(&B->wild, 0, r);
    else
        mm_hqueue_push_at(&B->prq[mm_bins_of(B, &r->key)], 0, r);
}

/* Unlink receive r from bin `from` (as mm_bins_find_recv says), or from
 * the wildcard list when from is NULL. */
static inline void mm_bins_unlink_recv_from(mm_bins *B, mm_elem *r, mm_hqueue *from)
{
    if (from)
        mm_hqueue_remove_at(from, 0, r);
    else
        mm_queue_remove_at(&B->wild, 0, r);
}

/* Unlink queued receive r from wherever its key put it. */
static inline void mm_bins_unlink_recv(mm_bins *B, mm_elem *r)
{
    mm_bins_unlink_recv_from(B, r, mm_key_wild(&r->key) ? NULL
                                                        : &B->prq[mm_bins_of(B, &r->key)]);
}

/* Earliest queued receive that accepts message m: its bin, then the
 * wildcard list up to the bin's candidate. Counted as one PRQ search; *from
 * is the bin that holds the receive found, NULL when the wildcard list
 * does. */
static inline mm_elem *mm_bins_find_recv(mm_engine *e, mm_bins *B, const mm_elem *m,
                                         mm_hqueue **from)
{
    uint64_t depth = 0;
    *from = &B->prq[mm_bins_of(B, &m->key)];
    mm_elem *best = mm_hqueue_find_at(*from, 0, &m->key, 0, MM_SEQ_NONE, &depth);
    mm_elem *w = mm_queue_find_at(&B->wild, 0, &m->key, 0, mm_seq_bound(best, MM_SEQ_NONE),
                                  &depth);
    if (w) {
        best = w;
        *from = NULL;
    }
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
    mm_bins_queue_recv(B, r);
    return MM_QUEUED;
}

/* Message m takes its earliest receive, or is queued. */
MM_INLINE int mm_bins_arrive(mm_engine *e, mm_bins *B, mm_elem *m, mm_elem **partner)
{
    mm_hqueue *from;
    mm_elem *r = mm_bins_find_recv(e, B, m, &from);
    if (r) {
        mm_bins_unlink_recv_from(B, r, from);
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
    mm_bins_unlink_recv(B, r);
}

#endif
