/* hash.c - one hash table on (comm, source, tag) with a FIFO per key.
 *
 * Paper 002, Algorithm 1: with the MPI 4.0 assertions no_any_source and
 * no_any_tag every receive names one key, so the earliest partner is always
 * the head of one FIFO: a lookup, no search. The engine refuses to be
 * created without both hints, and the API refuses wildcard operations on it,
 * so it can never match wrongly.
 *
 * The FIFOs live in the table slots (core/ftable.h): a match reads the slot
 * and the partner element, two cache lines. Both tables hash with one secret
 * seed per engine (parameter seed), so a post computes one hash for the
 * lookup in the UMQ and the insertion in the PRQ (and an arrival the
 * reverse), unless a table has re-seeded itself against hostile keys. */
#include "engine.h"
#include "enter.h"
#include "core/ftable.h"

typedef struct hash_impl {
    mm_ftable prq, umq;
} hash_impl;

enum { P_CAPACITY, P_SEED };
static const mm_param_info hash_params[] = {
    [P_CAPACITY] = {"capacity", "initial slots of each table (grows by doubling at half load)",
                    1024, 16, 1 << 30},
    [P_SEED] = {"seed", "seed of the key hash: 0 draws a secret one from the OS at creation "
                "(the default: senders cannot aim keys at one probe run); N >= 1 fixes it, "
                "for reproducible layouts and probe counts", 0, 0, INT64_MAX},
};

static int hash_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    hash_impl *H = mm_mem_alloc(&e->mem, sizeof *H);
    if (!H)
        return MM_ENOMEM;
    uint32_t cap = (uint32_t)e->param[P_CAPACITY];
    uint64_t seed = mm_seed_pick(e->param[P_SEED]);
    if (mm_ftable_init(&H->prq, 0, cap, seed, 0, &e->prq_mem) != 0) {
        mm_mem_free(&e->mem, H, sizeof *H);
        return MM_ENOMEM;
    }
    if (mm_ftable_init(&H->umq, 0, cap, seed, 0, &e->umq_mem) != 0) {
        mm_ftable_destroy(&H->prq);
        mm_mem_free(&e->mem, H, sizeof *H);
        return MM_ENOMEM;
    }
    e->impl = H;
    return 0;
}

static void hash_fini(mm_engine *e)
{
    hash_impl *H = e->impl;
    mm_ftable_destroy(&H->prq);
    mm_ftable_destroy(&H->umq);
    mm_mem_free(&e->mem, H, sizeof *H);
}

/* Take (or, without remove, peek at) the head of key k's FIFO in t: the
 * search of either side. Forced inline: it is most of the matching path. */
MM_INLINE mm_elem *take_head(mm_ftable *t, mm_qstats *st, const mm_key *k, uint32_t h,
                             int remove)
{
    int closed;
    mm_elem *head = mm_ftable_take(t, k, h, remove, &closed);
    if (closed)
        mm_stat_queues(st, -1);
    mm_stat_search(st, head != NULL, head != NULL);
    mm_stat_probes(st, mm_ftable_take_steps(t));
    return head;
}

/* Account for an element pushed onto t (rc from mm_ftable_push*). */
MM_INLINE int queued(mm_ftable *t, mm_qstats *st, int rc)
{
    uint64_t steps = mm_ftable_take_steps(t);
    if (rc < 0) /* a failed call leaves the statistics as they were */
        return MM_ENOMEM;
    mm_stat_probes(st, steps);
    if (rc)
        mm_stat_queues(st, 1);
    return MM_QUEUED;
}

/* x searches `other` and, unmatched, joins `own`. */
MM_INLINE int search_or_queue(mm_ftable *other, mm_qstats *ost, mm_ftable *own, mm_qstats *st,
                              mm_elem *x, mm_elem **partner)
{
    const mm_key *k = &x->key;
    uint32_t h = 0;
    int hashed = 0;
    mm_fslot *s = NULL;
    if (other->count != other->idle) { /* else a miss without a probe */
        s = mm_ftable_memo(other, k);
        if (!s) {
            h = mm_ftable_hash(own, k), hashed = 1;
            s = mm_ftable_slot(other, k, other->seed == own->seed ? h : mm_ftable_hash(other, k));
        }
        if (s && !s->head) /* the key is idle there */
            s = NULL;
    }
    if (s) {
        int closed;
        *partner = mm_ftable_pop(other, s, &closed);
        if (closed)
            mm_stat_queues(ost, -1);
    }
    mm_stat_search(ost, s != NULL, s != NULL);
    mm_stat_probes(ost, mm_ftable_take_steps(other));
    if (s)
        return MM_MATCHED;
    if (!mm_may_queue(x))
        return MM_ENOMEM;
    return queued(own, st, hashed ? mm_ftable_push(own, x, k, own->seed == other->seed ? h
                                                   : mm_ftable_hash(own, k))
                                  : mm_ftable_push_key(own, x, k));
}

static int hash_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    hash_impl *H = e->impl;
    return search_or_queue(&H->umq, &e->st.umq, &H->prq, &e->st.prq, r, partner);
}

static int hash_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    hash_impl *H = e->impl;
    return search_or_queue(&H->prq, &e->st.prq, &H->umq, &e->st.umq, m, partner);
}

static mm_elem *hash_probe(mm_engine *e, const mm_key *k, int remove)
{
    hash_impl *H = e->impl;
    return take_head(&H->umq, &e->st.umq, k, mm_ftable_hash(&H->umq, k), remove);
}

static void hash_cancel(mm_engine *e, mm_elem *r)
{
    hash_impl *H = e->impl;
    if (mm_ftable_remove(&H->prq, r, &r->key))
        mm_stat_queues(&e->st.prq, -1);
    mm_stat_probes(&e->st.prq, mm_ftable_take_steps(&H->prq));
}

MM_ENGINE_ENTER(hash, hash_post, hash_arrive, 1)

static const mm_engine_ops hash_ops = {
    .nlinks = 1,
    .init = hash_init, .fini = hash_fini,
    .post = hash_post, .arrive = hash_arrive,
    .enter_post = hash_enter_post, .enter_arrive = hash_enter_arrive,
    .probe = hash_probe, .cancel = hash_cancel,
};

const mm_engine_def mm_engine_hash = {
    .info = {
        .name = "hash",
        .summary = "one seeded hash table on (comm, source, tag), the FIFO of each key in its "
                   "slot; no wildcards",
        .origin = "Hint-driven MPI matching with the MPI 4.0 assertions (MPC-MPI), Algorithm 1",
        .hints_required = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG,
        .params = hash_params,
        .nparams = sizeof hash_params / sizeof hash_params[0],
    },
    .ops = &hash_ops,
};
