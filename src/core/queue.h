/* queue.h - intrusive FIFOs of elements, in sequence order.
 *
 * The only place in mpimatch where a queue is walked. A queue threads its
 * elements through link[li]; elements are appended in sequence order, so a
 * search may stop at the first element later than a bound: that is how an
 * engine merges several queues by sequence number without walking them all.
 *
 * Two shapes: mm_queue (24 bytes: a sentinel link, the length, the link
 * index) and, for structures that keep many queues, mm_hqueue (8 bytes: the
 * head's link alone, as core/ftable.h's FIFOs keep theirs; see below). */
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

/* ---- mm_hqueue: a FIFO known by its head's link alone (8 bytes) ----
 *
 * For a structure of many queues, most of them short or empty (`bins`: 2
 * per bin), where mm_queue's 24 bytes a queue would cost more than the
 * elements (4096 bins a side at 4096 queued elements: 48 bytes per element
 * against 16). next runs from head to tail and ends in NULL; prev runs back,
 * except that the head's prev points at the tail, so that appending needs
 * nothing but the head (the shape of core/ftable.h's FIFOs):
 *
 *     q.head --> e1 --next--> e2 --next--> e3 (next NULL)
 *                e1.prev = e3, e2.prev = e1, e3.prev = e2
 *
 * All zero bytes is the empty queue (a table of them can be calloc'd). It
 * keeps no length and no link index: the caller passes li, a constant in
 * every structure that has one. Appending reads the head's link as well
 * as the tail's when the queue holds two or more (mm_queue's sentinel has
 * the tail); unlinking reads q's head (to tell the head and the tail). */
typedef struct mm_hqueue {
    mm_link *head;   /* the head's link[li], or NULL when empty */
} mm_hqueue;

_Static_assert(sizeof(mm_hqueue) == sizeof(void *), "an hqueue is one pointer");

static inline void mm_hqueue_init(mm_hqueue *q)
{
    q->head = NULL;
}

static inline int mm_hqueue_empty(const mm_hqueue *q)
{
    return q->head == NULL;
}

static inline mm_elem *mm_hqueue_head_at(const mm_hqueue *q, unsigned li)
{
    return q->head ? mm_elem_of(q->head, li) : NULL;
}

MM_INLINE void mm_hqueue_push_at(mm_hqueue *q, unsigned li, mm_elem *e)
{
    mm_link *l = &e->link[li], *h = q->head;
    l->next = NULL;
    if (!h) {
        l->prev = l;
        q->head = l;
        return;
    }
    mm_link *t = h->prev;
    l->prev = t;
    t->next = l;
    h->prev = l;
}

/* Unlink e (queued in q through link li) wherever it is. */
MM_INLINE void mm_hqueue_remove_at(mm_hqueue *q, unsigned li, mm_elem *e)
{
    mm_link *l = &e->link[li], *n = l->next, *h = q->head;
    if (l == h) {               /* the head: its next inherits the tail */
        if (n)
            n->prev = l->prev;
        q->head = n;
    } else {
        l->prev->next = n;
        if (n)
            n->prev = l->prev;
        else                    /* the tail: the head points at the new one */
            h->prev = l->prev;
    }
    l->next = l->prev = NULL;
}

/* Visit every element of q (link li) in order, as mm_elem *x; the body must
 * not unlink x from q. */
#define mm_hqueue_foreach(x, q, li)                                            \
    for (mm_link *x##_l = (q)->head; x##_l; x##_l = x##_l->next)               \
        for (mm_elem *x = mm_elem_of(x##_l, (li)); x; x = NULL)

/* mm_queue_find_at for an hqueue: the first element of q with seq < bound
 * that pairs with key k, counting every element compared into *depth. The
 * same loop as mm_queue_find_at's, not one shared with it: written as one
 * walk from a first link to an end link, it changed how gcc 12 compiled
 * mm_queue_find_at in engines that do not use hqueues (`rank`'s arrival
 * tested the message's tag sign before the receive's ANY_TAG: 2
 * instructions more per element walked). */
MM_INLINE mm_elem *mm_hqueue_find_at(const mm_hqueue *q, unsigned li, const mm_key *k,
                                     int recv_key, uint64_t bound, uint64_t *depth)
{
    for (mm_link *l = q->head; l; l = l->next) {
        mm_elem *e = mm_elem_of(l, li);
        if (e->seq >= bound)
            return NULL;
        ++*depth;
        if (recv_key ? mm_match(k, &e->key) : mm_match(&e->key, k))
            return e;
    }
    return NULL;
}

#endif
