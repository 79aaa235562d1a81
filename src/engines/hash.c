/* hash.c - one hash table on (comm, source, tag) with a FIFO per key.
 *
 * Paper 002, Algorithm 1: with the MPI 4.0 assertions no_any_source and
 * no_any_tag every receive names one key, so the earliest partner is always
 * the head of one FIFO: a lookup, no search. The engine refuses to be
 * created without both hints, and the API refuses wildcard operations on it,
 * so it can never match wrongly. A key whose FIFO empties stays in the table,
 * idle, for its next use (MM_KTABLE_KEEP_IDLE), without growing it. */
#include "engine.h"
#include "core/ktable.h"

typedef struct hash_impl {
    mm_ktable prq, umq;
} hash_impl;

enum { P_CAPACITY };
static const mm_param_info hash_params[] = {
    [P_CAPACITY] = {"capacity", "initial slots of each table (grows by doubling at half load)",
                    1024, 16, 1 << 30},
};

static int hash_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    hash_impl *H = mm_mem_alloc(&e->mem, sizeof *H);
    if (!H)
        return MM_ENOMEM;
    uint32_t cap = (uint32_t)e->param[P_CAPACITY];
    if (mm_ktable_init(&H->prq, 0, cap, MM_KTABLE_KEEP_IDLE, &e->prq_mem) != 0) {
        mm_mem_free(&e->mem, H, sizeof *H);
        return MM_ENOMEM;
    }
    if (mm_ktable_init(&H->umq, 0, cap, MM_KTABLE_KEEP_IDLE, &e->umq_mem) != 0) {
        mm_ktable_destroy(&H->prq);
        mm_mem_free(&e->mem, H, sizeof *H);
        return MM_ENOMEM;
    }
    e->impl = H;
    return 0;
}

static void hash_fini(mm_engine *e)
{
    hash_impl *H = e->impl;
    mm_ktable_destroy(&H->prq);
    mm_ktable_destroy(&H->umq);
    mm_mem_free(&e->mem, H, sizeof *H);
}

/* Pop the head of x's key FIFO in `t`, if any (the search of either side).
 * Forced inline: it is most of the matching path, and a call frame around it
 * cost about a tenth of a burst replay. */
MM_INLINE mm_elem *take_head(mm_ktable *t, mm_qstats *st, const mm_key *k, uint32_t h, int remove)
{
    mm_kentry *ke = mm_ktable_find(t, k, h);
    mm_elem *head = ke ? mm_queue_head(&ke->q) : NULL;
    mm_stat_search(st, head != NULL, head != NULL);
    if (head && remove && mm_ktable_pull(t, ke, head))
        mm_stat_queues(st, -1);
    return head;
}

MM_INLINE int append(mm_ktable *t, mm_qstats *st, mm_elem *x, uint32_t h)
{
    mm_kentry *ke = mm_ktable_get(t, &x->key, h, NULL);
    if (!ke)
        return MM_ENOMEM;
    if (mm_ktable_push(ke, x))
        mm_stat_queues(st, 1);
    return MM_QUEUED;
}

static int hash_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    hash_impl *H = e->impl;
    uint32_t h = mm_key_hash(&r->key);
    mm_elem *m = take_head(&H->umq, &e->st.umq, &r->key, h, 1);
    if (m) {
        *partner = m;
        return MM_MATCHED;
    }
    return mm_may_queue(r) ? append(&H->prq, &e->st.prq, r, h) : MM_ENOMEM;
}

static int hash_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    hash_impl *H = e->impl;
    uint32_t h = mm_key_hash(&m->key);
    mm_elem *r = take_head(&H->prq, &e->st.prq, &m->key, h, 1);
    if (r) {
        *partner = r;
        return MM_MATCHED;
    }
    return mm_may_queue(m) ? append(&H->umq, &e->st.umq, m, h) : MM_ENOMEM;
}

static mm_elem *hash_probe(mm_engine *e, const mm_key *k, int remove)
{
    hash_impl *H = e->impl;
    return take_head(&H->umq, &e->st.umq, k, mm_key_hash(k), remove);
}

static void hash_cancel(mm_engine *e, mm_elem *r)
{
    hash_impl *H = e->impl;
    mm_kentry *ke = mm_ktable_find(&H->prq, &r->key, mm_key_hash(&r->key));
    if (mm_ktable_pull(&H->prq, ke, r))
        mm_stat_queues(&e->st.prq, -1);
}

static const mm_engine_ops hash_ops = {
    .nlinks = 1,
    .init = hash_init, .fini = hash_fini,
    .post = hash_post, .arrive = hash_arrive,
    .probe = hash_probe, .cancel = hash_cancel,
};

const mm_engine_def mm_engine_hash = {
    .info = {
        .name = "hash",
        .summary = "one hash table on (comm, source, tag) with a FIFO per key; no wildcards",
        .origin = "Hint-driven MPI matching (paper 002, Algorithm 1)",
        .hints_required = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG,
        .params = hash_params,
        .nparams = sizeof hash_params / sizeof hash_params[0],
    },
    .ops = &hash_ops,
};
