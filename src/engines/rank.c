/* rank.c - per-peer queues, Open MPI ob1 style.
 *
 * Per communicator: a specific-receive queue and an unexpected queue for
 * every peer, plus one ANY_SOURCE receive list. An arrival searches its
 * peer's receive queue and the ANY_SOURCE list, merged by sequence number; a
 * specific receive searches one peer's unexpected queue, an ANY_SOURCE
 * receive all of them.
 *
 * The peers' queues are allocated on first use, CHUNK peers at a time, and
 * found through a two-level directory (top: one pointer per TOP_SPAN peers,
 * in the communicator; middle: one pointer per chunk), so a communicator
 * costs memory for the peers that have queued something, not for nprocs:
 * with nprocs = 10^6, a communicator that saw one message holds one chunk
 * (12 KiB) and one middle block (2 KiB), where ob1-style arrays would hold
 * 48 MB. */
#include "engine.h"
#include "core/ktable.h"

enum { CHUNK_BITS = 8, MID_BITS = 8 };
#define CHUNK    (1u << CHUNK_BITS)              /* peers per chunk          */
#define MID      (1u << MID_BITS)                /* chunks per middle block  */
#define TOP_SPAN (1u << (CHUNK_BITS + MID_BITS)) /* peers per top entry      */

typedef struct peer_chunk {
    mm_queue prq[CHUNK]; /* specific receives by source   */
    mm_queue umq[CHUNK]; /* unexpected messages by source */
} peer_chunk;

typedef struct peer_mid {
    peer_chunk *chunk[MID];
} peer_mid;

/* Per communicator, hung off a ktable entry keyed (comm, 0, 0) whose own
 * FIFO is the ANY_SOURCE receive list. */
typedef struct rank_comm {
    uint32_t  ntop;
    uint32_t  nchunks;  /* chunks allocated */
    peer_mid *top[];    /* [ntop] */
} rank_comm;

typedef struct rank_impl {
    mm_ktable comms;
    mm_kentry *last; /* the communicator used last: most calls repeat it */
} rank_impl;

static size_t comm_bytes(uint32_t ntop)
{
    return sizeof(rank_comm) + (size_t)ntop * sizeof(peer_mid *);
}

/* The chunk holding peer src's queues, or NULL if none was needed yet. */
static inline peer_chunk *chunk_of(const rank_comm *c, int32_t src)
{
    const peer_mid *m = c->top[(uint32_t)src / TOP_SPAN];
    return m ? m->chunk[(uint32_t)src / CHUNK % MID] : NULL;
}

static inline uint32_t slot_of(int32_t src)
{
    return (uint32_t)src % CHUNK;
}

/* A chunk counts as 2 * CHUNK queues, its bytes half on each side. */
static void account_chunk(mm_engine *e, int sign)
{
    if (sign > 0) {
        mm_mem_charge(&e->prq_mem, sizeof(mm_queue) * CHUNK);
        mm_mem_charge(&e->umq_mem, sizeof(mm_queue) * CHUNK);
    } else {
        mm_mem_uncharge(&e->prq_mem, sizeof(mm_queue) * CHUNK);
        mm_mem_uncharge(&e->umq_mem, sizeof(mm_queue) * CHUNK);
    }
    mm_stat_queues(&e->st.prq, sign * (int64_t)CHUNK);
    mm_stat_queues(&e->st.umq, sign * (int64_t)CHUNK);
}

/* The chunk for peer src, allocated (with its middle block) if absent;
 * NULL when out of memory, with nothing changed. */
static peer_chunk *chunk_get(mm_engine *e, rank_comm *c, int32_t src)
{
    peer_chunk *k = chunk_of(c, src);
    if (MM_LIKELY(k != NULL))
        return k;
    peer_mid **m = &c->top[(uint32_t)src / TOP_SPAN];
    int new_mid = *m == NULL;
    if (new_mid && !(*m = mm_mem_calloc(&e->mem, 1, sizeof(peer_mid))))
        return NULL;
    k = mm_mem_alloc(&e->mem, sizeof *k);
    if (!k) {
        if (new_mid) {
            mm_mem_free(&e->mem, *m, sizeof(peer_mid));
            *m = NULL;
        }
        return NULL;
    }
    for (uint32_t i = 0; i < CHUNK; i++) {
        mm_queue_init(&k->prq[i], 0);
        mm_queue_init(&k->umq[i], 0);
    }
    (*m)->chunk[(uint32_t)src / CHUNK % MID] = k;
    c->nchunks++;
    account_chunk(e, +1);
    return k;
}

static void free_comm_data(mm_engine *e, rank_comm *c)
{
    for (uint32_t t = 0; t < c->ntop; t++) {
        if (!c->top[t])
            continue;
        for (uint32_t i = 0; i < MID; i++)
            if (c->top[t]->chunk[i]) {
                mm_mem_free(&e->mem, c->top[t]->chunk[i], sizeof(peer_chunk));
                account_chunk(e, -1);
            }
        mm_mem_free(&e->mem, c->top[t], sizeof(peer_mid));
    }
    mm_mem_free(&e->mem, c, comm_bytes(c->ntop));
}

static int rank_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rank_impl *R = mm_mem_alloc(&e->mem, sizeof *R);
    if (!R)
        return MM_ENOMEM;
    if (mm_ktable_init(&R->comms, 0, 16, mm_seed_random(), &e->mem) != 0) {
        mm_mem_free(&e->mem, R, sizeof *R);
        return MM_ENOMEM;
    }
    R->last = NULL;
    e->impl = R;
    return 0;
}

static void free_comm(mm_kentry *ke, void *arg)
{
    free_comm_data(arg, ke->aux);
}

static void rank_fini(mm_engine *e)
{
    rank_impl *R = e->impl;
    mm_ktable_foreach(&R->comms, free_comm, e);
    mm_ktable_destroy(&R->comms);
    mm_mem_free(&e->mem, R, sizeof *R);
}

static mm_kentry *find_comm(rank_impl *R, int32_t comm)
{
    if (R->last && R->last->key.comm == comm)
        return R->last;
    mm_key k = {comm, 0, 0};
    mm_kentry *ke = mm_ktable_find(&R->comms, &k, mm_ktable_hash(&R->comms, &k));
    if (ke)
        R->last = ke;
    return ke;
}

/* Set up a communicator the caller has just failed to find (queue_elem
 * counts its ANY_SOURCE list once something is queued in it). */
static mm_kentry *new_comm(mm_engine *e, int32_t comm)
{
    rank_impl *R = e->impl;
    mm_key k = {comm, 0, 0};
    int created;
    mm_kentry *ke = mm_ktable_get(&R->comms, &k, mm_ktable_hash(&R->comms, &k), &created);
    if (!ke)
        return NULL;
    uint32_t ntop = (uint32_t)(((uint64_t)e->nprocs + TOP_SPAN - 1) / TOP_SPAN);
    rank_comm *c = mm_mem_calloc(&e->mem, 1, comm_bytes(ntop));
    if (!c) {
        mm_ktable_remove(&R->comms, ke);
        return NULL;
    }
    c->ntop = ntop;
    ke->aux = c;
    R->last = ke;
    return ke;
}

/* Undo new_comm (nothing was queued in it). */
static void drop_comm(mm_engine *e, mm_kentry *ke)
{
    rank_impl *R = e->impl;
    free_comm_data(e, ke->aux);
    mm_ktable_remove(&R->comms, ke);
    R->last = NULL;
}

/* Earliest unexpected message matching receive key k in communicator ke
 * (NULL: not set up yet, so nothing queued), and its queue. */
static mm_elem *find_message(mm_engine *e, mm_kentry *ke, const mm_key *k, mm_queue **from)
{
    uint64_t depth = 0;
    mm_elem *best = NULL;
    if (ke) {
        rank_comm *c = ke->aux;
        if (k->src != MM_ANY_SOURCE) {
            peer_chunk *pc = chunk_of(c, k->src);
            if (pc)
                best = mm_queue_find(&pc->umq[slot_of(k->src)], k, 1, MM_SEQ_NONE, &depth);
        } else {
            /* Each peer queue is in arrival order: stop a scan at the first
             * message later than the best candidate so far. Only peers with
             * queues (allocated chunks) can hold messages. */
            for (uint32_t t = 0; t < c->ntop; t++) {
                const peer_mid *m = c->top[t];
                for (uint32_t i = 0; m && i < MID; i++)
                    for (uint32_t p = 0; m->chunk[i] && p < CHUNK; p++)
                        mm_queue_find_earlier(&m->chunk[i]->umq[p], k, 1, MM_SEQ_NONE, &best,
                                              &depth);
            }
        }
        if (best)
            *from = &chunk_of(c, best->key.src)->umq[slot_of(best->key.src)];
    }
    mm_stat_search(&e->st.umq, depth, best != NULL);
    return best;
}

/* Queue x (a receive when recv) in its communicator (ke, or a new one when
 * NULL), allocating what it needs: MM_QUEUED, or MM_ENOMEM with nothing
 * changed. */
static int queue_elem(mm_engine *e, mm_kentry *ke, mm_elem *x, int recv)
{
    if (!mm_may_queue(x))
        return MM_ENOMEM;
    int fresh = ke == NULL;
    if (fresh && !(ke = new_comm(e, x->key.comm)))
        return MM_ENOMEM;
    mm_queue *q = &ke->q; /* an ANY_SOURCE receive */
    if (!recv || x->key.src != MM_ANY_SOURCE) {
        peer_chunk *pc = chunk_get(e, ke->aux, x->key.src);
        if (!pc) {
            if (fresh)
                drop_comm(e, ke);
            return MM_ENOMEM;
        }
        q = recv ? &pc->prq[slot_of(x->key.src)] : &pc->umq[slot_of(x->key.src)];
    }
    if (fresh)
        mm_stat_queues(&e->st.prq, 1); /* the ANY_SOURCE list */
    mm_queue_push(q, x);
    return MM_QUEUED;
}

static int rank_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    mm_queue *from;
    mm_kentry *ke = find_comm(e->impl, r->key.comm);
    mm_elem *m = find_message(e, ke, &r->key, &from);
    if (m) {
        mm_queue_remove(from, m);
        *partner = m;
        return MM_MATCHED;
    }
    return queue_elem(e, ke, r, 1);
}

static int rank_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    mm_kentry *ke = find_comm(e->impl, m->key.comm);
    uint64_t depth = 0;
    mm_elem *best = NULL;
    mm_queue *from = NULL;
    if (ke) {
        peer_chunk *pc = chunk_of(ke->aux, m->key.src);
        if (pc) {
            from = &pc->prq[slot_of(m->key.src)];
            best = mm_queue_find(from, &m->key, 0, MM_SEQ_NONE, &depth);
        }
        if (mm_queue_find_earlier(&ke->q, &m->key, 0, MM_SEQ_NONE, &best, &depth))
            from = &ke->q;
    }
    mm_stat_search(&e->st.prq, depth, best != NULL);
    if (best) {
        mm_queue_remove(from, best);
        *partner = best;
        return MM_MATCHED;
    }
    return queue_elem(e, ke, m, 0);
}

static mm_elem *rank_probe(mm_engine *e, const mm_key *k, int remove)
{
    mm_queue *from;
    mm_elem *m = find_message(e, find_comm(e->impl, k->comm), k, &from);
    if (m && remove)
        mm_queue_remove(from, m);
    return m;
}

static void rank_cancel(mm_engine *e, mm_elem *r)
{
    mm_kentry *ke = find_comm(e->impl, r->key.comm);
    mm_queue_remove(r->key.src == MM_ANY_SOURCE
                        ? &ke->q : &chunk_of(ke->aux, r->key.src)->prq[slot_of(r->key.src)], r);
}

static const mm_engine_ops rank_ops = {
    .nlinks = 1,
    .init = rank_init, .fini = rank_fini,
    .post = rank_post, .arrive = rank_arrive,
    .probe = rank_probe, .cancel = rank_cancel,
};

const mm_engine_def mm_engine_rank = {
    .info = {
        .name = "rank",
        .summary = "per communicator, one receive and one unexpected queue per peer plus an "
                   "ANY_SOURCE list, merged by sequence number",
        .origin = "Open MPI ob1 (ompi/mca/pml/ob1)",
    },
    .ops = &rank_ops,
};
