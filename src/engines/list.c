/* list.c - one PRQ and one UMQ linked list (MPICH ch3, MVAPICH).
 *
 * The semantic reference: every other engine must produce its matches.
 * Search is O(queue length); memory is one link per element. The queues and
 * their search are list_part.h (shared with `auto`). */
#include "engines/list_part.h"
#include "enter.h"

static int list_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    mm_list *L = mm_mem_alloc(&e->mem, sizeof *L);
    if (!L)
        return MM_ENOMEM;
    mm_list_init(e, L);
    e->impl = L;
    return 0;
}

static void list_fini(mm_engine *e)
{
    mm_mem_free(&e->mem, e->impl, sizeof(mm_list));
}

static int list_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    return mm_list_post(e, e->impl, r, partner);
}

static int list_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    return mm_list_arrive(e, e->impl, m, partner);
}

static mm_elem *list_probe(mm_engine *e, const mm_key *k, int remove)
{
    return mm_list_probe(e, e->impl, k, remove);
}

static void list_cancel(mm_engine *e, mm_elem *r)
{
    mm_list_cancel(e->impl, r);
}

/* post and arrive fail only for an element they may not queue; one pool
 * (nlinks_recv 0); the search never reads the new element's seq. */
MM_ENGINE_ENTER_LEAN(list, list_post, list_arrive, 0, MM_ENTER_ONE_POOL | MM_ENTER_LATE_SEQ)

static const mm_engine_ops list_ops = {
    .nlinks = 1,
    .init = list_init, .fini = list_fini,
    .post = list_post, .arrive = list_arrive,
    .enter_post = list_enter_post, .enter_arrive = list_enter_arrive,
    .probe = list_probe, .cancel = list_cancel,
};

const mm_engine_def mm_engine_list = {
    .info = {
        .name = "list",
        .summary = "one posted-receive list and one unexpected-message list, searched in order",
        .origin = "MPICH ch3 and MVAPICH (the semantic reference)",
    },
    .ops = &list_ops,
};
