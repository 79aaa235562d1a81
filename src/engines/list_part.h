/* list_part.h - one PRQ and one UMQ linked list: the structure and search of
 * the `list` engine, shared with the list phase of `auto`.
 *
 * Both queues thread their elements through link 0 (LI: a constant, see
 * mm_queue_find_at). */
#ifndef MM_ENGINES_LIST_PART_H
#define MM_ENGINES_LIST_PART_H

#include "engine.h"
#include "core/queue.h"

enum { MM_LIST_LI = 0 };

typedef struct mm_list {
    mm_queue prq, umq;
} mm_list;

/* Empty queues, counted in the statistics (one queue per side). */
static inline void mm_list_init(mm_engine *e, mm_list *L)
{
    mm_queue_init(&L->prq, MM_LIST_LI);
    mm_queue_init(&L->umq, MM_LIST_LI);
    mm_stat_queues(&e->st.prq, 1);
    mm_stat_queues(&e->st.umq, 1);
}

/* Forget the queues (their elements stay where they are): uncounted. */
static inline void mm_list_drop(mm_engine *e, mm_list *L)
{
    (void)L;
    mm_stat_queues(&e->st.prq, -1);
    mm_stat_queues(&e->st.umq, -1);
}

/* Search q for the earliest element that pairs with x (NULL: none), counted
 * in st; *walked: the elements the search compared (what it adds to st's
 * traversed count). */
MM_INLINE mm_elem *mm_list_search(mm_queue *q, mm_qstats *st, const mm_elem *x, int x_is_recv,
                                  uint64_t *walked)
{
    uint64_t depth = 0;
    mm_elem *hit = mm_queue_find_at(q, MM_LIST_LI, &x->key, x_is_recv, MM_SEQ_NONE, &depth);
    mm_stat_search(st, depth, hit != NULL);
    *walked = depth;
    return hit;
}

/* The end of a call whose search of q found hit: unlink it from q, else
 * queue x on other. */
MM_INLINE int mm_list_take_or_queue(mm_queue *q, mm_elem *hit, mm_elem *x, mm_queue *other,
                                    mm_elem **partner)
{
    if (hit) {
        mm_queue_remove_at(q, MM_LIST_LI, hit);
        *partner = hit;
        return MM_MATCHED;
    }
    if (!mm_may_queue(x))
        return MM_ENOMEM;
    mm_queue_push_at(other, MM_LIST_LI, x);
    return MM_QUEUED;
}

/* Search q for the earliest element that pairs with x; unlink it if found,
 * else queue x on other. The same walk serves both directions. *walked: the
 * elements the search compared. */
MM_INLINE int mm_list_search_or_queue(mm_queue *q, mm_qstats *st, mm_elem *x, int x_is_recv,
                                      mm_queue *other, mm_elem **partner, uint64_t *walked)
{
    mm_elem *hit = mm_list_search(q, st, x, x_is_recv, walked);
    return mm_list_take_or_queue(q, hit, x, other, partner);
}

/* Post receive r (arrive message m); *walked: the elements its search
 * compared (auto's list phase decides by them). */
MM_INLINE int mm_list_post_walked(mm_engine *e, mm_list *L, mm_elem *r, mm_elem **partner,
                                  uint64_t *walked)
{
    return mm_list_search_or_queue(&L->umq, &e->st.umq, r, 1, &L->prq, partner, walked);
}

MM_INLINE int mm_list_arrive_walked(mm_engine *e, mm_list *L, mm_elem *m, mm_elem **partner,
                                    uint64_t *walked)
{
    return mm_list_search_or_queue(&L->prq, &e->st.prq, m, 0, &L->umq, partner, walked);
}

MM_INLINE int mm_list_post(mm_engine *e, mm_list *L, mm_elem *r, mm_elem **partner)
{
    uint64_t walked;
    return mm_list_post_walked(e, L, r, partner, &walked);
}

MM_INLINE int mm_list_arrive(mm_engine *e, mm_list *L, mm_elem *m, mm_elem **partner)
{
    uint64_t walked;
    return mm_list_arrive_walked(e, L, m, partner, &walked);
}

static inline mm_elem *mm_list_probe(mm_engine *e, mm_list *L, const mm_key *k, int remove)
{
    uint64_t depth = 0;
    mm_elem *m = mm_queue_find(&L->umq, k, 1, MM_SEQ_NONE, &depth);
    mm_stat_search(&e->st.umq, depth, m != NULL);
    if (m && remove)
        mm_queue_remove(&L->umq, m);
    return m;
}

static inline void mm_list_cancel(mm_list *L, mm_elem *r)
{
    mm_queue_remove(&L->prq, r);
}

#endif
