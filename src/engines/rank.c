/* rank.c - per-peer queues, Open MPI ob1 style.
 *
 * Per communicator: an array of nprocs specific-receive queues and nprocs
 * unexpected queues (one per peer, allocated eagerly when the communicator is
 * first used, so memory grows with nprocs per communicator), plus one
 * ANY_SOURCE receive list. An arrival searches its peer's receive queue and
 * the ANY_SOURCE list, merged by sequence number; a specific receive searches
 * one peer's unexpected queue, an ANY_SOURCE receive all of them. */
#include "engine.h"
#include "core/ktable.h"

/* Per communicator, hung off a ktable entry keyed (comm, 0, 0) whose own
 * FIFO is the ANY_SOURCE receive list. */
typedef struct rank_comm {
    mm_queue *prq; /* [nprocs] specific receives by source */
    mm_queue *umq; /* [nprocs] unexpected messages by source */
} rank_comm;

typedef struct rank_impl {
    mm_ktable comms;
    mm_kentry *last; /* the communicator used last: most calls repeat it */
} rank_impl;

static size_t peers_bytes(const mm_engine *e)
{
    return (size_t)e->nprocs * sizeof(mm_queue);
}

static void free_comm_data(mm_engine *e, rank_comm *c)
{
    mm_mem_free(&e->prq_mem, c->prq, peers_bytes(e));
    mm_mem_free(&e->umq_mem, c->umq, peers_bytes(e));
    mm_mem_free(&e->mem, c, sizeof *c);
}

static int rank_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rank_impl *R = mm_mem_alloc(&e->mem, sizeof *R);
    if (!R)
        return MM_ENOMEM;
    if (mm_ktable_init(&R->comms, 0, 16, 0, &e->mem) != 0) {
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
    mm_kentry *ke = mm_ktable_find(&R->comms, &k, mm_key_hash(&k));
    if (ke)
        R->last = ke;
    return ke;
}

/* Set up a communicator the caller has just failed to find. */
static mm_kentry *new_comm(mm_engine *e, int32_t comm)
{
    rank_impl *R = e->impl;
    mm_key k = {comm, 0, 0};
    int created;
    mm_kentry *ke = mm_ktable_get(&R->comms, &k, mm_key_hash(&k), &created);
    if (!ke)
        return NULL;
    rank_comm *c = mm_mem_calloc(&e->mem, 1, sizeof *c);
    if (c) {
        c->prq = mm_mem_alloc(&e->prq_mem, peers_bytes(e));
        c->umq = mm_mem_alloc(&e->umq_mem, peers_bytes(e));
    }
    if (!c || !c->prq || !c->umq) {
        if (c)
            free_comm_data(e, c);
        mm_ktable_remove(&R->comms, ke);
        return NULL;
    }
    for (int32_t i = 0; i < e->nprocs; i++) {
        mm_queue_init(&c->prq[i], 0);
        mm_queue_init(&c->umq[i], 0);
    }
    ke->aux = c;
    mm_stat_queues(&e->st.prq, e->nprocs + 1);
    mm_stat_queues(&e->st.umq, e->nprocs);
    R->last = ke;
    return ke;
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
            best = mm_queue_find(&c->umq[k->src], k, 1, MM_SEQ_NONE, &depth);
        } else {
            /* Each peer queue is in arrival order: stop a scan at the first
             * message later than the best candidate so far. */
            for (int32_t p = 0; p < e->nprocs; p++)
                mm_queue_find_earlier(&c->umq[p], k, 1, MM_SEQ_NONE, &best, &depth);
        }
        if (best)
            *from = &c->umq[best->key.src];
    }
    mm_stat_search(&e->st.umq, depth, best != NULL);
    return best;
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
    if (!mm_may_queue(r) || (!ke && !(ke = new_comm(e, r->key.comm))))
        return MM_ENOMEM;
    rank_comm *c = ke->aux;
    mm_queue_push(r->key.src == MM_ANY_SOURCE ? &ke->q : &c->prq[r->key.src], r);
    return MM_QUEUED;
}

static int rank_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    mm_kentry *ke = find_comm(e->impl, m->key.comm);
    uint64_t depth = 0;
    mm_elem *best = NULL;
    mm_queue *from = NULL;
    if (ke) {
        rank_comm *c = ke->aux;
        best = mm_queue_find(&c->prq[m->key.src], &m->key, 0, MM_SEQ_NONE, &depth);
        from = &c->prq[m->key.src];
        if (mm_queue_find_earlier(&ke->q, &m->key, 0, MM_SEQ_NONE, &best, &depth))
            from = &ke->q;
    }
    mm_stat_search(&e->st.prq, depth, best != NULL);
    if (best) {
        mm_queue_remove(from, best);
        *partner = best;
        return MM_MATCHED;
    }
    if (!mm_may_queue(m) || (!ke && !(ke = new_comm(e, m->key.comm))))
        return MM_ENOMEM;
    rank_comm *c = ke->aux;
    mm_queue_push(&c->umq[m->key.src], m);
    return MM_QUEUED;
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
    rank_comm *c = ke->aux;
    mm_queue_remove(r->key.src == MM_ANY_SOURCE ? &ke->q : &c->prq[r->key.src], r);
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
