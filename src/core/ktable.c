#include "core/ktable.h"

int mm_ktable_init(mm_ktable *t, unsigned li, uint32_t capacity, uint64_t seed, mm_mem *mem)
{
    uint32_t cap = 16;
    while (cap < capacity && cap < (1u << 30))
        cap <<= 1;
    t->slots = mm_mem_calloc(mem, cap, sizeof *t->slots);
    if (!t->slots)
        return -1;
    t->mask = cap - 1;
    t->count = 0;
    t->li = li;
    t->seed = seed;
    t->mem = mem;
    mm_pool_init(&t->entries, sizeof(mm_kentry), mem);
    return 0;
}

void mm_ktable_destroy(mm_ktable *t)
{
    if (!t->slots)
        return;
    mm_mem_free(t->mem, t->slots, ((size_t)t->mask + 1) * sizeof *t->slots);
    t->slots = NULL;
    mm_pool_destroy(&t->entries);
}

static void place(mm_kslot *slots, uint32_t mask, uint32_t hash, mm_kentry *e)
{
    uint32_t i = hash & mask;
    while (slots[i].e)
        i = (i + 1) & mask;
    slots[i] = (mm_kslot){hash, e};
}

/* Move the entries into a table of cap slots. */
static int rebuild(mm_ktable *t, uint32_t cap)
{
    uint32_t oldcap = t->mask + 1;
    mm_kslot *slots = mm_mem_calloc(t->mem, cap, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t i = 0; i < oldcap; i++) {
        mm_kentry *e = t->slots[i].e;
        if (e)
            place(slots, cap - 1, t->slots[i].hash, e);
    }
    mm_mem_free(t->mem, t->slots, (size_t)oldcap * sizeof *slots);
    t->slots = slots;
    t->mask = cap - 1;
    return 0;
}

/* Make room for one more entry: double when half full. */
static int make_room(mm_ktable *t)
{
    uint32_t cap = t->mask + 1;
    if ((t->count + 1) * 2 <= cap)
        return 0;
    if (cap >= (1u << 30))
        return -1;
    return rebuild(t, cap * 2);
}

mm_kentry *mm_ktable_insert(mm_ktable *t, const mm_key *k, uint32_t hash, int *created)
{
    if (created)
        *created = 0;
    if (make_room(t) != 0)
        return NULL;
    mm_kentry *e = mm_pool_get(&t->entries);
    if (!e)
        return NULL;
    e->key = *k;
    e->hash = hash;
    e->aux = NULL;
    mm_queue_init(&e->q, t->li);
    place(t->slots, t->mask, hash, e);
    t->count++;
    if (created)
        *created = 1;
    return e;
}

void mm_ktable_remove(mm_ktable *t, mm_kentry *e)
{
    uint32_t i = e->hash & t->mask;
    while (t->slots[i].e != e)
        i = (i + 1) & t->mask;
    /* Backward shift: pull later entries of the probe run into the hole so
     * lookups never need tombstones. */
    for (uint32_t j = (i + 1) & t->mask; t->slots[j].e; j = (j + 1) & t->mask) {
        uint32_t home = t->slots[j].hash & t->mask;
        /* Move slots[j] into hole i unless its home lies cyclically in (i, j]. */
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i] = (mm_kslot){0, NULL};
    t->count--;
    mm_pool_put(&t->entries, e);
}

void mm_ktable_foreach(mm_ktable *t, void (*fn)(mm_kentry *e, void *arg), void *arg)
{
    for (uint32_t i = 0; i <= t->mask; i++)
        if (t->slots[i].e)
            fn(t->slots[i].e, arg);
}
