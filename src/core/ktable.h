/* ktable.h - hash table from a key (comm, src, tag) to a FIFO of elements.
 *
 * Open addressing with linear probing and backward-shift deletion; entries
 * come from a pool. Keys are hashed with the seeded mm_khash (core/khash.h)
 * under the table's seed (mm_ktable_hash), as every hashed structure of the
 * library is: a peer cannot aim keys at one probe run without the seed. The table doubles when half full (amortised: no rehash
 * on the steady-state matching path). Wildcards are ordinary key values
 * here: an engine that files receives by their wildcard pattern uses the
 * pattern itself as the key.
 *
 * A map (key -> aux, plus a queue the engine may use): entries live until
 * mm_ktable_remove. The engines' keyed FIFOs of elements are the lean,
 * seeded table of core/ftable.h; this one keys the engines' own structures
 * (communicators, partners, collective profiles). */
#ifndef MM_CORE_KTABLE_H
#define MM_CORE_KTABLE_H

#include "core/khash.h"
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

typedef struct mm_ktable {
    mm_kslot   *slots;
    uint32_t    mask;   /* capacity - 1 (capacity is a power of two) */
    uint32_t    count;  /* entries                                   */
    uint32_t    li;     /* element link used by the entries' queues  */
    uint64_t    seed;   /* of mm_ktable_hash                         */
    mm_pool     entries;
    mm_mem     *mem;
} mm_ktable;

/* seed: of the key hash (mm_seed_pick: an engine's seed= parameter, or 0 to
 * draw one from the OS). */
int  mm_ktable_init(mm_ktable *t, unsigned li, uint32_t capacity, uint64_t seed, mm_mem *mem);

/* The hash every call below takes: computed once per key by the caller. */
static inline uint32_t mm_ktable_hash(const mm_ktable *t, const mm_key *k)
{
    return mm_khash(k, t->seed);
}

void mm_ktable_destroy(mm_ktable *t);

/* The entry for k, or NULL. */
static inline mm_kentry *mm_ktable_find(const mm_ktable *t, const mm_key *k, uint32_t hash)
{
    if (!t->count)
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
 * is new. mm_ktable_insert is the creating half: k must be absent. */
mm_kentry *mm_ktable_insert(mm_ktable *t, const mm_key *k, uint32_t hash, int *created);

static inline mm_kentry *mm_ktable_get(mm_ktable *t, const mm_key *k, uint32_t hash, int *created)
{
    mm_kentry *e = mm_ktable_find(t, k, hash);
    if (e) {
        if (created)
            *created = 0;
        return e;
    }
    return mm_ktable_insert(t, k, hash, created);
}

/* Remove an entry (its FIFO must be empty) and return it to the pool. */
void mm_ktable_remove(mm_ktable *t, mm_kentry *e);

/* Call fn on every entry (for engines that attach aux data). */
void mm_ktable_foreach(mm_ktable *t, void (*fn)(mm_kentry *e, void *arg), void *arg);

#endif
