/* ktable.h - hash table from a key (comm, src, tag) to a FIFO of elements.
 *
 * Open addressing with linear probing and backward-shift deletion; entries
 * come from a pool. The table doubles when half full (amortised: no rehash
 * on the steady-state matching path). Wildcards are ordinary key values
 * here: an engine that files receives by their wildcard pattern uses the
 * pattern itself as the key.
 *
 * Two uses. As a map (key -> aux), entries live until mm_ktable_remove. As a
 * table of FIFOs (mm_ktable_push / mm_ktable_pull), an entry whose FIFO
 * empties is kept, idle, for the key's next use when the table was created
 * with MM_KTABLE_KEEP_IDLE: MPI programs reuse their (comm, source, tag)
 * keys round after round, and re-creating the entry each time costs more
 * than the match. Idle entries never make the table grow: when an insertion
 * would, the idle ones are dropped first, so memory still follows the live
 * keys (at most the table size those need). */
#ifndef MM_CORE_KTABLE_H
#define MM_CORE_KTABLE_H

#include "core/queue.h"
#include "core/pool.h"

typedef struct mm_kentry {
    mm_key   key;
    uint32_t hash;
    mm_queue q;
    void    *aux;     /* engine-private data attached to the key */
} mm_kentry;

/* A slot keeps the entry's hash beside the pointer: a probe compares hashes
 * in the slot array and touches an entry only when they agree, and growing
 * rehashes without reading the entries. */
typedef struct mm_kslot {
    uint32_t   hash;
    mm_kentry *e;      /* NULL: empty */
} mm_kslot;

enum { MM_KTABLE_KEEP_IDLE = 1u << 0 };

typedef struct mm_ktable {
    mm_kslot   *slots;
    uint32_t    mask;   /* capacity - 1 (capacity is a power of two) */
    uint32_t    count;  /* entries, idle ones included               */
    uint32_t    idle;   /* entries kept with an empty FIFO           */
    uint32_t    li;     /* element link used by the entries' queues  */
    unsigned    flags;  /* MM_KTABLE_*                               */
    mm_pool     entries;
    mm_mem     *mem;
} mm_ktable;

int  mm_ktable_init(mm_ktable *t, unsigned li, uint32_t capacity, unsigned flags, mm_mem *mem);

/* Is e kept only for its key's next use (an emptied FIFO of a KEEP_IDLE table)? */
static inline int mm_ktable_idle(const mm_ktable *t, const mm_kentry *e)
{
    return (t->flags & MM_KTABLE_KEEP_IDLE) && mm_queue_empty(&e->q);
}
void mm_ktable_destroy(mm_ktable *t);

/* The entry for k, or NULL. In a FIFO table the entry may be idle (empty
 * FIFO); callers that want a partner look at its head. */
static inline mm_kentry *mm_ktable_find(const mm_ktable *t, const mm_key *k, uint32_t hash)
{
    /* No live key is the common case of one side (receives posted before
     * their messages, or the reverse): answer without a probe. */
    if (t->count == t->idle)
        return NULL;
    for (uint32_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        const mm_kslot *s = &t->slots[i];
        if (!s->e)
            return NULL;
        if (s->hash == hash && mm_key_eq(&s->e->key, k))
            return s->e;
    }
}

/* The entry for k, created (with an empty FIFO) if absent; NULL when out of
 * memory, with the table unchanged. *created (if not NULL) tells whether it
 * is new. An idle entry is handed back as no longer idle: push onto it next.
 * mm_ktable_insert is the creating half: k must be absent. */
mm_kentry *mm_ktable_insert(mm_ktable *t, const mm_key *k, uint32_t hash, int *created);

static inline mm_kentry *mm_ktable_get(mm_ktable *t, const mm_key *k, uint32_t hash, int *created)
{
    /* Probe without mm_ktable_find's shortcut: an idle entry is wanted too.
     * Inline, because finding the key is the steady state of a FIFO table. */
    for (uint32_t i = hash & t->mask; t->slots[i].e; i = (i + 1) & t->mask) {
        mm_kentry *e = t->slots[i].e;
        if (t->slots[i].hash == hash && mm_key_eq(&e->key, k)) {
            if (mm_ktable_idle(t, e))
                t->idle--;
            if (created)
                *created = 0;
            return e;
        }
    }
    return mm_ktable_insert(t, k, hash, created);
}

/* Remove an entry (its FIFO must be empty) and return it to the pool. */
void mm_ktable_remove(mm_ktable *t, mm_kentry *e);

/* Append x to e's FIFO. Returns 1 when the FIFO was empty (a queue opens). */
static inline int mm_ktable_push(mm_kentry *e, mm_elem *x)
{
    int opened = mm_queue_empty(&e->q);
    mm_queue_push(&e->q, x);
    return opened;
}

/* Unlink x from e's FIFO. Returns 1 when that emptied it (a queue closes):
 * then e is idle (MM_KTABLE_KEEP_IDLE) or removed, and in both cases not
 * to be used by the caller again. */
static inline int mm_ktable_pull(mm_ktable *t, mm_kentry *e, mm_elem *x)
{
    mm_queue_remove(&e->q, x);
    if (!mm_queue_empty(&e->q))
        return 0;
    if (t->flags & MM_KTABLE_KEEP_IDLE)
        t->idle++;
    else
        mm_ktable_remove(t, e);
    return 1;
}

/* Call fn on every entry (for engines that attach aux data). */
void mm_ktable_foreach(mm_ktable *t, void (*fn)(mm_kentry *e, void *arg), void *arg);

#endif
