/* ftable.h - a FIFO of elements per key (comm, src, tag), in a seeded hash
 * table whose slot holds the FIFO itself.
 *
 * A slot is 16 bytes, four to a cache line: the key's seeded hash and a
 * pointer to the FIFO's head element. The head's key (in the element) is
 * what a lookup verifies, and the head is the answer a search wants, so a
 * match reads the slot's cache line and the element's: two lines, no
 * separate key entry in between. The FIFO is threaded through element link
 * li: next runs from head to tail; prev runs back, except that the head's
 * prev points at the tail, so that appending needs nothing but the head.
 *
 *     slot [hash | head] --> e1 --next--> e2 --next--> e3 (next NULL)
 *                            e1.prev = e3, e2.prev = e1, e3.prev = e2
 *
 * Open addressing with linear probing and backward-shift deletion (no
 * tombstones); a slot is empty when head is NULL, so a key whose FIFO
 * empties leaves the table at once. The table doubles at half load (linear
 * probing stays at about 1.5 slots a lookup, 2.5 an insertion) and never
 * shrinks (programs reuse their keys round after round).
 *
 * Hostile keys: the hash is mm_khash with the table's secret seed, and probe
 * runs are bounded: an insertion that lands more than mm_ftable_max_run
 * slots from its home rebuilds the table, twice the size if it is at least
 * a quarter full, else under a new seed (derived from the old one, so a
 * fixed seed still reproduces). Every slot a lookup or insertion inspects is
 * counted (mm_ftable_take_steps), so a slow table shows in the statistics. */
#ifndef MM_CORE_FTABLE_H
#define MM_CORE_FTABLE_H

#include "core/elem.h"
#include "core/khash.h"
#include "core/mem.h"

typedef struct mm_fslot {
    uint32_t hash;
    uint32_t reserved;
    mm_elem *head;     /* NULL: empty slot */
} mm_fslot;

_Static_assert(sizeof(mm_fslot) == 16, "an ftable slot is 16 bytes, four per cache line");

/* The longest probe run an insertion accepts in a table of cap slots:
 * 8 log2(cap). Random keys at half load make runs of about 5 log2(cap) at
 * the most in a large table; keys crowding one run make runs as long as
 * their number. */
static inline uint32_t mm_ftable_max_run(uint32_t cap)
{
    return 8u * (uint32_t)__builtin_ctz(cap);
}

typedef struct mm_ftable {
    mm_fslot *slots;
    uint32_t  mask;    /* capacity - 1 (a power of two)                 */
    uint32_t  count;   /* keys (non-empty FIFOs)                         */
    uint32_t  li;      /* element link of the FIFOs                      */
    uint32_t  reseeds; /* rebuilds under a new seed                      */
    uint32_t  last;    /* slot of the last key found or inserted (a hint,
                          checked against the slot's head before use)    */
    int32_t   src_mask, tag_mask; /* 0: the field is projected away  */
    uint64_t  seed;
    uint64_t  steps;   /* slots inspected since the last take_steps      */
    mm_mem   *mem;
} mm_ftable;

/* A table may file elements under a projection of their key (NewMadeleine's
 * (src,*), (*,tag), (*,*) tables): with MM_FTABLE_ANY_SRC / MM_FTABLE_ANY_TAG
 * in proj, the element's source / tag is not part of the key it is filed
 * under, and callers look up with that field set to the wildcard. */
enum { MM_FTABLE_ANY_TAG = 1u << 0, MM_FTABLE_ANY_SRC = 1u << 1 };

/* 0, or -1 when out of memory. capacity is rounded up to a power of two >= 16. */
int  mm_ftable_init(mm_ftable *t, unsigned li, uint32_t capacity, uint64_t seed, unsigned proj,
                    mm_mem *mem);
void mm_ftable_destroy(mm_ftable *t);

/* The key x is filed under in t. */
static inline mm_key mm_ftable_key(const mm_ftable *t, const mm_key *x)
{
    mm_key k = *x;
    if (!t->src_mask)
        k.src = MM_ANY_SOURCE;
    if (!t->tag_mask)
        k.tag = MM_ANY_TAG;
    return k;
}

/* Is element key x filed under key k in t? */
static inline int mm_ftable_key_eq(const mm_ftable *t, const mm_key *x, const mm_key *k)
{
    return x->comm == k->comm && ((x->src ^ k->src) & t->src_mask) == 0
        && ((x->tag ^ k->tag) & t->tag_mask) == 0;
}

static inline uint32_t mm_ftable_hash(const mm_ftable *t, const mm_key *k)
{
    return mm_khash(k, t->seed);
}

/* Slots inspected since the last call (for mm_qstats.probes), and reset. */
static inline uint64_t mm_ftable_take_steps(mm_ftable *t)
{
    uint64_t s = t->steps;
    t->steps = 0;
    return s;
}

static inline mm_link *mm_ftable_link(const mm_ftable *t, mm_elem *x)
{
    return &x->link[t->li];
}

/* The slot of key k (hash h = mm_ftable_hash(t, k)), or NULL. Its head is
 * the earliest element queued under k. */
static inline mm_fslot *mm_ftable_find(mm_ftable *t, const mm_key *k, uint32_t h)
{
    if (!t->count) /* one side empty is the common case: no probe */
        return NULL;
    uint32_t home = h & t->mask;
    for (uint32_t i = home;; i = (i + 1) & t->mask) {
        mm_fslot *s = &t->slots[i];
        if (!s->head || (s->hash == h && mm_ftable_key_eq(t, &s->head->key, k))) {
            t->steps += ((i - home) & t->mask) + 1;
            if (!s->head)
                return NULL;
            t->last = i;
            return s;
        }
    }
}

/* The slot of key k if it is the last key found or inserted, else NULL:
 * one slot inspected, no hash computed. Runs of the same key (a burst of
 * receives, then of their messages) take this path. */
static inline mm_fslot *mm_ftable_memo(mm_ftable *t, const mm_key *k)
{
    mm_fslot *s = &t->slots[t->last];
    if (!s->head || !mm_ftable_key_eq(t, &s->head->key, k))
        return NULL;
    t->steps++;
    return s;
}

/* Append x to the FIFO of slot s (x's key's slot). */
static inline void mm_ftable_append(mm_ftable *t, mm_fslot *s, mm_elem *x)
{
    mm_link *l = mm_ftable_link(t, x);
    mm_link *hl = mm_ftable_link(t, s->head);
    mm_link *tail = hl->prev;
    l->next = NULL;
    tail->next = l;
    l->prev = tail;
    hl->prev = l;
}

/* Insert a new key whose FIFO is x alone (k absent). 0, or -1 when out of
 * memory (the table unchanged). */
int mm_ftable_insert(mm_ftable *t, mm_elem *x, uint32_t h);

/* Remove slot s (its key leaves the table). */
void mm_ftable_delete(mm_ftable *t, mm_fslot *s);

/* Append x, filed under key k = mm_ftable_key(t, &x->key) with hash h, to
 * its FIFO. 1 when that opened a new FIFO, 0 when it joined one, -1 when
 * out of memory (nothing changed). */
static inline int mm_ftable_push(mm_ftable *t, mm_elem *x, const mm_key *k, uint32_t h)
{
    mm_fslot *s = mm_ftable_find(t, k, h);
    if (s) {
        mm_ftable_append(t, s, x);
        return 0;
    }
    mm_link *l = mm_ftable_link(t, x);
    l->next = NULL;
    l->prev = l;
    return mm_ftable_insert(t, x, h) == 0 ? 1 : -1;
}

/* Take the head of slot s's FIFO (returned). Returns through *closed
 * whether the FIFO emptied (then the key left the table and s is gone). */
static inline mm_elem *mm_ftable_pop(mm_ftable *t, mm_fslot *s, int *closed)
{
    mm_elem *x = s->head;
    mm_link *l = mm_ftable_link(t, x);
    mm_link *n = l->next;
    if (n) {
        n->prev = l->prev;
        s->head = mm_elem_of(n, t->li);
        *closed = 0;
    } else {
        mm_ftable_delete(t, s);
        *closed = 1;
    }
    l->next = l->prev = NULL;
    return x;
}

/* The head of key k's FIFO (hash h), or NULL: taken off the FIFO when
 * remove (*closed: that emptied it), else left queued (*closed = 0). */
static inline mm_elem *mm_ftable_take(mm_ftable *t, const mm_key *k, uint32_t h, int remove,
                                      int *closed)
{
    mm_fslot *s = mm_ftable_find(t, k, h);
    *closed = 0;
    if (!s)
        return NULL;
    return remove ? mm_ftable_pop(t, s, closed) : s->head;
}

/* Unlink x, filed under key k = mm_ftable_key(t, &x->key), from its FIFO,
 * wherever it is. Returns 1 when that emptied the FIFO. A middle element
 * is unlinked in O(1) without hashing; the head or the tail needs the slot. */
static inline int mm_ftable_remove(mm_ftable *t, mm_elem *x, const mm_key *k)
{
    mm_link *l = mm_ftable_link(t, x);
    int is_head = l->prev->next != l; /* the head's prev is the tail, whose next is NULL */
    if (!is_head && l->next) {
        l->prev->next = l->next;
        l->next->prev = l->prev;
        l->next = l->prev = NULL;
        return 0;
    }
    mm_fslot *s = mm_ftable_find(t, k, mm_ftable_hash(t, k));
    int closed;
    if (is_head) {
        mm_ftable_pop(t, s, &closed);
        return closed;
    }
    /* the tail, behind a head */
    mm_ftable_link(t, s->head)->prev = l->prev;
    l->prev->next = NULL;
    l->next = l->prev = NULL;
    return 0;
}

#endif
