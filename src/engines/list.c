/* list.c - one PRQ and one UMQ linked list (MPICH ch3, MVAPICH).
 *
 * The semantic reference: every other engine must produce its matches.
 * Search is O(queue length); memory is one link per element. */
#include "engine.h"
#include "enter.h"
#include "core/queue.h"

typedef struct list_impl {
    mm_queue prq, umq;
} list_impl;

static int list_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    list_impl *L = mm_mem_alloc(&e->mem, sizeof *L);
    if (!L)
        return MM_ENOMEM;
    mm_queue_init(&L->prq, 0);
    mm_queue_init(&L->umq, 0);
    mm_stat_queues(&e->st.prq, 1);
    mm_stat_queues(&e->st.umq, 1);
    e->impl = L;
    return 0;
}

static void list_fini(mm_engine *e)
{
    mm_mem_free(&e->mem, e->impl, sizeof(list_impl));
}

/* Search q for the earliest element that pairs with x; unlink it if found,
 * else queue x on other. The same walk serves both directions. */
static int search_or_queue(mm_queue *q, mm_qstats *st, mm_elem *x, int x_is_recv,
                           mm_queue *other, mm_elem **partner)
{
    uint64_t depth = 0;
    mm_elem *hit = mm_queue_find(q, &x->key, x_is_recv, MM_SEQ_NONE, &depth);
    mm_stat_search(st, depth, hit != NULL);
    if (hit) {
        mm_queue_remove(q, hit);
        *partner = hit;
        return MM_MATCHED;
    }
    if (!mm_may_queue(x))
        return MM_ENOMEM;
    mm_queue_push(other, x);
    return MM_QUEUED;
}

static int list_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    list_impl *L = e->impl;
    return search_or_queue(&L->umq, &e->st.umq, r, 1, &L->prq, partner);
}

static int list_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    list_impl *L = e->impl;
    return search_or_queue(&L->prq, &e->st.prq, m, 0, &L->umq, partner);
}

static mm_elem *list_probe(mm_engine *e, const mm_key *k, int remove)
{
    list_impl *L = e->impl;
    uint64_t depth = 0;
    mm_elem *m = mm_queue_find(&L->umq, k, 1, MM_SEQ_NONE, &depth);
    mm_stat_search(&e->st.umq, depth, m != NULL);
    if (m && remove)
        mm_queue_remove(&L->umq, m);
    return m;
}

static void list_cancel(mm_engine *e, mm_elem *r)
{
    list_impl *L = e->impl;
    mm_queue_remove(&L->prq, r);
}

/* post and arrive fail only for an element they may not queue. */
MM_ENGINE_ENTER(list, list_post, list_arrive, 0)

static const mm_engine_ops list_ops = {
    .nlinks = 1,
    .init = list_init, .fini = list_fini,
    .post = list_post, .arrive = list_arrive,
    .probe = list_probe, .cancel = list_cancel,
    .enter_post = list_enter_post, .enter_arrive = list_enter_arrive,
};

const mm_engine_def mm_engine_list = {
    .info = {
        .name = "list",
        .summary = "one posted-receive list and one unexpected-message list, searched in order",
        .origin = "MPICH ch3 and MVAPICH (the semantic reference)",
    },
    .ops = &list_ops,
};
