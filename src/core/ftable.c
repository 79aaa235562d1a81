#include "core/ftable.h"

int mm_ftable_init(mm_ftable *t, unsigned li, uint32_t capacity, uint64_t seed, unsigned proj,
                   mm_mem *mem)
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
    t->reseeds = 0;
    t->last = 0;
    t->src_mask = proj & MM_FTABLE_ANY_SRC ? 0 : -1;
    t->tag_mask = proj & MM_FTABLE_ANY_TAG ? 0 : -1;
    t->seed = seed;
    t->steps = 0;
    t->mem = mem;
    return 0;
}

void mm_ftable_destroy(mm_ftable *t)
{
    if (!t->slots)
        return;
    mm_mem_free(t->mem, t->slots, ((size_t)t->mask + 1) * sizeof *t->slots);
    t->slots = NULL;
}

/* Put (h, head) in the first empty slot from h's home; returns the slot. */
static uint32_t place(mm_fslot *slots, uint32_t mask, uint32_t h, mm_elem *head)
{
    uint32_t i = h & mask;
    while (slots[i].head)
        i = (i + 1) & mask;
    slots[i] = (mm_fslot){h, 0, head};
    return i;
}

/* Move every key into a table of cap slots hashed with seed (rehashing
 * from the head elements' keys when the seed changes). 0, or -1 when out
 * of memory (the table unchanged). */
static int rebuild(mm_ftable *t, uint32_t cap, uint64_t seed)
{
    uint32_t oldcap = t->mask + 1;
    mm_fslot *slots = mm_mem_calloc(t->mem, cap, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t i = 0; i < oldcap; i++) {
        mm_elem *head = t->slots[i].head;
        if (!head)
            continue;
        mm_key k = mm_ftable_key(t, &head->key);
        uint32_t h = seed == t->seed ? t->slots[i].hash : mm_khash(&k, seed);
        place(slots, cap - 1, h, head);
    }
    mm_mem_free(t->mem, t->slots, (size_t)oldcap * sizeof *slots);
    t->slots = slots;
    t->mask = cap - 1;
    t->seed = seed;
    t->last = 0;
    return 0;
}

int mm_ftable_insert(mm_ftable *t, mm_elem *x, uint32_t h)
{
    uint32_t cap = t->mask + 1;
    if ((uint64_t)(t->count + 1) * 2 > cap) {
        if (cap >= (1u << 30) || rebuild(t, cap * 2, t->seed) != 0)
            return -1;
    }
    uint32_t at = place(t->slots, t->mask, h, x);
    uint32_t run = (at - h) & t->mask;
    t->steps += run + 1;
    t->count++;
    t->last = at;
    if (run > mm_ftable_max_run(t->mask + 1)) {
        /* A run this long is all but impossible for keys the seed spreads:
         * the keys were chosen against it (or the table is crowded). Spread
         * them again: bigger if there is load to halve, else a new seed.
         * If that fails for lack of memory the table stays as it is, correct
         * and slower. */
        cap = t->mask + 1;
        if ((uint64_t)t->count * 4 >= cap && cap < (1u << 30)) {
            rebuild(t, cap * 2, t->seed);
        } else if (rebuild(t, cap, mm_seed_derive(t->seed, t->reseeds + 1)) == 0) {
            t->reseeds++;
        }
    }
    return 0;
}

void mm_ftable_delete(mm_ftable *t, mm_fslot *s)
{
    uint32_t i = (uint32_t)(s - t->slots);
    /* Backward shift: pull later members of the probe run into the hole so
     * lookups never need tombstones. */
    for (uint32_t j = (i + 1) & t->mask; t->slots[j].head; j = (j + 1) & t->mask) {
        uint32_t home = t->slots[j].hash & t->mask;
        /* Move slots[j] into hole i unless its home lies cyclically in (i, j]. */
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i] = (mm_fslot){0, 0, NULL};
    t->count--;
}
