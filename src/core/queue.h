/* queue.h - intrusive FIFO of elements, in sequence order.
 *
 * The only place in mpimatch where a queue is walked. A queue threads its
 * elements through link[li]; elements are appended in sequence order, so a
 * search may stop at the first element later than a bound: that is how an
 * engine merges several queues by sequence number without walking them all. */
#ifndef MM_CORE_QUEUE_H
#define MM_CORE_QUEUE_H

#include "core/compiler.h"
#include "core/elem.h"

typedef struct mm_queue {
    mm_link  head;   /* sentinel of a circular doubly linked list */
    uint32_t len;
    uint32_t li;     /* which element link this queue uses        */
} mm_queue;

static inline void mm_queue_init(mm_queue *q, unsigned li)
{
    q->head.next = q->head.prev = &q->head;
    q->len = 0;
    q->li = li;
}

static inline int mm_queue_empty(const mm_queue *q)
{
    return q->head.next == &q->head;
}

static inline mm_elem *mm_queue_head(const mm_queue *q)
{
    return mm_queue_empty(q) ? NULL : mm_elem_of(q->head.next, q->li);
}

/* The _at functions take the queue's link index li (== q->li) from the
 * caller: a structure whose queues all use one link passes a constant, so
 * the element offsets are immediates and the search keeps a register free
 * (list_part.h; on the matching path that is a saved register fewer). */
MM_INLINE void mm_queue_push_at(mm_queue *q, unsigned li, mm_elem *e)
{
    mm_link *l = &e->link[li];
    l->prev = q->head.prev;
    l->next = &q->head;
    q->head.prev->next = l;
    q->head.prev = l;
    q->len++;
}

MM_INLINE void mm_queue_push(mm_queue *q, mm_elem *e)
{
    mm_queue_push_at(q, q->li, e);
}

MM_INLINE void mm_queue_remove_at(mm_queue *q, unsigned li, mm_elem *e)
{
    mm_link *l = &e->link[li];
    l->prev->next = l->next;
    l->next->prev = l->prev;
    l->next = l->prev = NULL;
    q->len--;
}

MM_INLINE void mm_queue_remove(mm_queue *q, mm_elem *e)
{
    mm_queue_remove_at(q, q->li, e);
}

/* Visit every element of q in order, as mm_elem *x (for moving elements
 * between structures or counting them; searches use mm_queue_find). The
 * body must not unlink x from q. */
#define mm_queue_foreach(x, q)                                                 \
    for (mm_link *x##_l = (q)->head.next; x##_l != &(q)->head; x##_l = x##_l->next) \
        for (mm_elem *x = mm_elem_of(x##_l, (q)->li); x; x = NULL)

/* First element of q with seq < bound that pairs with key k, counting every
 * element compared into *depth. recv_key says which side k is: the key of a
 * receive searching messages (1) or of a message searching receives (0). */
MM_INLINE mm_elem *mm_queue_find_at(const mm_queue *q, unsigned li, const mm_key *k,
                                    int recv_key, uint64_t bound, uint64_t *depth)
{
    for (mm_link *l = q->head.next; l != &q->head; l = l->next) {
        mm_elem *e = mm_elem_of(l, li);
        if (e->seq >= bound)
            return NULL;
        ++*depth;
        if (recv_key ? mm_match(k, &e->key) : mm_match(&e->key, k))
            return e;
    }
    return NULL;
}

MM_INLINE mm_elem *mm_queue_find(const mm_queue *q, const mm_key *k, int recv_key,
                                 uint64_t bound, uint64_t *depth)
{
    return mm_queue_find_at(q, q->li, k, recv_key, bound, depth);
}

#define MM_SEQ_NONE UINT64_MAX

/* The search across queues: "search this queue, then that one, bounded by
 * the best sequence number so far". Queues hold elements in sequence order,
 * so the next queue needs searching only up to the best candidate found so
 * far: mm_seq_bound is that limit (bound when there is no candidate yet). */
MM_INLINE uint64_t mm_seq_bound(const mm_elem *best, uint64_t bound)
{
    return best ? best->seq : bound;
}

/* One step of that search: *best is the earliest partner found so far in
 * other queues (or NULL); q is searched up to mm_seq_bound(*best, bound), so
 * whatever q yields is earlier and replaces it. Returns 1 when q gave the
 * new *best. Every engine that keeps one key's candidates in several queues
 * merges them with this (or, over a structure of queues, with mm_seq_bound). */
MM_INLINE int mm_queue_find_earlier(const mm_queue *q, const mm_key *k, int recv_key,
                                    uint64_t bound, mm_elem **best, uint64_t *depth)
{
    mm_elem *x = mm_queue_find(q, k, recv_key, mm_seq_bound(*best, bound), depth);
    if (x)
        *best = x;
    return x != NULL;
}

#endif
