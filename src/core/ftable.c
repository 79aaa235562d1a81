#include <string.h>
#include "core/ftable.h"

enum { LINE = 64 };

static size_t block_size(uint32_t cap)
{
    return (size_t)cap * sizeof(mm_fslot) + LINE; /* (mm_ftable_bytes) */
}

/* cap empty slots (bytes 0x7F: tag MM_FSLOT_EMPTY) starting on a cache line
 * inside a new block (*block), or NULL. */
static mm_fslot *alloc_slots(mm_mem *mem, uint32_t cap, void **block)
{
    char *b = mm_mem_alloc(mem, block_size(cap));
    if (!b)
        return NULL;
    mm_fslot *s = (mm_fslot *)(b + (LINE - (uintptr_t)b % LINE) % LINE);
    memset(s, MM_FSLOT_EMPTY_BYTE, (size_t)cap * sizeof *s);
    *block = b;
    return s;
}

int mm_ftable_init(mm_ftable *t, unsigned li, uint32_t capacity, uint64_t seed, unsigned proj,
                   mm_mem *mem)
{
    uint32_t cap = 16;
    while (cap < capacity && cap < MM_FTABLE_MAX_CAP)
        cap <<= 1;
    t->slots = alloc_slots(mem, cap, &t->block);
    if (!t->slots)
        return -1;
    t->mask = cap - 1;
    t->count = 0;
    t->idle = 0;
    t->li = (uint16_t)li;
    t->reseeds = 0;
    t->last = t->slots;
    t->last_key = (mm_key){-1, -1, -1};
    t->last_h = 0;
    t->proj = (uint16_t)proj;
    /* the compare masks: all ones in the fields the table keeps */
    mm_key keep = {-1, (proj & MM_FTABLE_ANY_SRC) ? 0 : -1, (proj & MM_FTABLE_ANY_TAG) ? 0 : -1};
    t->keep = keep;
    t->seed = seed;
    t->hk = mm_mshash_of(seed);
    t->steps = 0;
    t->mem = mem;
    return 0;
}

void mm_ftable_destroy(mm_ftable *t)
{
    if (!t->slots)
        return;
    mm_mem_free(t->mem, t->block, block_size(t->mask + 1));
    t->slots = NULL;
    t->block = NULL;
}

/* Put a live key with hash h and FIFO head in the first empty slot from h's
 * home; returns the slot's index. */
static uint32_t place(mm_fslot *slots, uint32_t mask, uint32_t h, mm_elem *head)
{
    uint32_t i = h & mask;
    while (slots[i].tag != MM_FSLOT_EMPTY)
        i = (i + 1) & mask;
    mm_fslot_set_live(&slots[i], h, head);
    return i;
}

/* Move the live keys into a table of cap slots hashed with seed (rehashing
 * the slots' keys when the seed changes), dropping the idle ones. 0, or -1
 * when out of memory (the table unchanged). */
static int rebuild(mm_ftable *t, uint32_t cap, uint64_t seed)
{
    uint32_t oldcap = t->mask + 1;
    void *block;
    mm_fslot *slots = alloc_slots(t->mem, cap, &block);
    if (!slots)
        return -1;
    mm_mshash hk = seed != t->seed ? mm_mshash_of(seed) : t->hk;
    for (uint32_t i = 0; i < oldcap; i++) {
        const mm_fslot *s = &t->slots[i];
        if (!mm_fslot_tag_live(s->tag)) /* empty or idle */
            continue;
        uint32_t h = s->tag; /* (the hash and the FIFO's side bit) */
        mm_elem *head = mm_fslot_live_head(s);
        if (seed != t->seed) {
            mm_key k = mm_ftable_key(t, &head->key);
            h = mm_ftable_hash_hk(&hk, &k) | (s->tag & MM_FSLOT_SIDE);
        }
        place(slots, cap - 1, h, head);
    }
    mm_mem_free(t->mem, t->block, block_size(oldcap));
    t->slots = slots;
    t->block = block;
    t->mask = cap - 1;
    t->count -= t->idle;
    t->idle = 0;
    t->seed = seed;
    t->hk = hk;
    t->last = t->slots;
    t->last_key = (mm_key){-1, -1, -1};
    t->last_h = 0;
    return 0;
}

int mm_ftable_insert_at(mm_ftable *t, const mm_key *k, mm_elem *x, uint32_t h, uint32_t at,
                        uint32_t *n)
{
    uint32_t cap = t->mask + 1;
    if ((uint64_t)(t->count + 1) * 2 > cap) {
        /* Drop the idle keys; double only if the live ones need it. */
        uint32_t want = (uint64_t)(t->count - t->idle + 1) * 2 > cap ? cap * 2 : cap;
        if (want > MM_FTABLE_MAX_CAP || rebuild(t, want, t->seed) != 0)
            return -1;
        at = MM_FTABLE_NO_SLOT; /* the slots moved */
    }
    if (at == MM_FTABLE_NO_SLOT) {
        at = place(t->slots, t->mask, h, x);
        *n += ((at - h) & t->mask) + 1;
    } else { /* the lookup's empty slot, inspected and counted by it */
        mm_fslot_set_live(&t->slots[at], h, x);
    }
    uint32_t run = (at - h) & t->mask;
    t->count++;
    mm_ftable_remember(t, &t->slots[at], k, h);
    if (run > mm_ftable_max_run(t->mask + 1)) {
        /* A run this long is all but impossible for keys the seed spreads:
         * the keys were chosen against it (or the table is crowded). Spread
         * them again: bigger if there is load to halve, else a new seed.
         * If that fails for lack of memory the table stays as it is, correct
         * and slower. */
        cap = t->mask + 1;
        if ((uint64_t)t->count * 4 >= cap && cap < MM_FTABLE_MAX_CAP) {
            rebuild(t, cap * 2, t->seed);
        } else if (rebuild(t, cap, mm_seed_derive(t->seed, t->reseeds + 1)) == 0) {
            t->reseeds++;
        }
    }
    return 0;
}

int mm_ftable_insert_n(mm_ftable *t, const mm_key *k, mm_elem *x, uint32_t h, uint32_t *n)
{
    return mm_ftable_insert_at(t, k, x, h, MM_FTABLE_NO_SLOT, n);
}

/* ---- Bulk insertion (mm_ftable_fill) ---- */

/* The key x is filed under (projected under masked). */
MM_INLINE mm_key fill_key(const mm_ftable *t, const mm_elem *x, const int masked)
{
    return masked ? mm_ftable_key(t, &x->key) : x->key;
}

/* mm_ftable_fill for a table with (masked) or without a projection. The
 * table's fields the loop changes or reads at every element are kept in
 * locals (the slots' 32-bit tags could alias them), written back before
 * the general insertion, read again after it (a rebuild moves the slots;
 * a re-seed changes the hash), and written back after the loop. */
MM_INLINE int fill_t(mm_ftable *t, mm_link *first, const mm_link *end, unsigned from_li,
                     uint32_t side, mm_ftable_filled *out, const int masked)
{
    uint64_t probes = 0, maxp = 0, opened = 0;
    const unsigned li = t->li;
    mm_mshash hk = t->hk;
    mm_fslot *slots = t->slots;
    uint32_t mask = t->mask, count = t->count, bound = mm_ftable_max_run(mask + 1);
    int rc = 0;
    for (mm_link *l = first; l != end;) {
        mm_elem *x = mm_elem_of(l, from_li);
        l = l->next; /* (read before x is relinked) */
        const mm_key k = fill_key(t, x, masked);
        const uint32_t h = mm_ftable_hash_hk(&hk, &k);
        uint32_t i = h & mask, c = 1;
        for (;; c++, i = (i + 1) & mask) {
            mm_fslot *s = &slots[i];
            uint32_t tag = s->tag;
            if (tag != MM_FSLOT_EMPTY) {
                if (mm_fslot_has_t(t, s, &k, h, masked)) {
                    opened += (uint64_t)mm_ftable_append_side_t(t, s, x, li, side, h);
                    break;
                }
                continue;
            }
            /* a new key: the empty slot its lookup ended on (c slots inspected) */
            mm_link *xl = mm_ftable_link_t(x, li);
            xl->next = NULL;
            xl->prev = xl;
            opened++;
            if (MM_LIKELY((uint64_t)(count + 1) * 2 <= (uint64_t)mask + 1 && c - 1 <= bound)) {
                mm_fslot_set_live(s, h | side, x);
                count++;
                break;
            }
            /* the table grows first, or the run is past the bound: the
             * general insertion, which rebuilds (the slots move; under a
             * new seed, the keys hash anew) */
            t->count = count;
            rc = mm_ftable_insert_at(t, &k, x, h | side, i, &c);
            slots = t->slots;
            mask = t->mask;
            count = t->count;
            hk = t->hk;
            bound = mm_ftable_max_run(mask + 1);
            if (rc != 0) {
                opened--;
                goto done;
            }
            break;
        }
        probes += c;
        if (c > maxp)
            maxp = c;
    }
done:
    t->count = count;
    out->probes = probes;
    out->max_probes = maxp;
    out->opened = opened;
    return rc;
}

int mm_ftable_fill(mm_ftable *t, mm_link *first, const mm_link *end, unsigned from_li,
                   uint32_t side, mm_ftable_filled *out)
{
    if (t->proj)
        return fill_t(t, first, end, from_li, side, out, 1);
    return fill_t(t, first, end, from_li, side, out, 0);
}
