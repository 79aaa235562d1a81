/*
 * table.c - open-addressing table from MPI handles to ids (tracer.h).
 * Linear probing with backward-shift deletion (no tombstones), so a
 * long-running program that issues and completes millions of requests
 * keeps probe sequences short. Grows at half full; never shrinks.
 */
#include <stdlib.h>

#include "tracer.h"

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 29;
    key *= UINT64_C(0xbf58476d1ce4e5b9);
    key ^= key >> 32;
    return (size_t)key & (cap - 1);
}

static int grow(tr_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    tr_entry *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->e[i].used)
            continue;
        size_t j = slot_of(t->e[i].key, cap);
        while (e[j].used)
            j = (j + 1) & (cap - 1);
        e[j] = t->e[i];
    }
    free(t->e);
    t->e = e;
    t->cap = cap;
    return 0;
}

static tr_entry *find(const tr_table *t, uint64_t key, size_t *at)
{
    if (t->cap == 0)
        return NULL;
    for (size_t i = slot_of(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (!t->e[i].used)
            return NULL;
        if (t->e[i].key == key) {
            *at = i;
            return &t->e[i];
        }
    }
}

tr_entry *tr_table_get(const tr_table *t, uint64_t key)
{
    size_t at;
    return find(t, key, &at);
}

int tr_table_put(tr_table *t, uint64_t key, uint64_t id, tr_comm *comm, uint8_t type)
{
    size_t at;
    tr_entry *e = find(t, key, &at);
    if (!e) {
        if ((t->n + 1) * 2 > t->cap && grow(t))
            return -1;
        size_t i = slot_of(key, t->cap);
        while (t->e[i].used)
            i = (i + 1) & (t->cap - 1);
        e = &t->e[i];
        t->n++;
    } else {
        free(e->tmpl);
    }
    e->tmpl = NULL;
    e->key = key;
    e->id = id;
    e->comm = comm;
    e->type = type;
    e->used = 1;
    return 0;
}

int tr_table_take(tr_table *t, uint64_t key, tr_entry *out)
{
    size_t i;
    tr_entry *e = find(t, key, &i);
    if (!e)
        return 0;
    *out = *e;
    /* Backward shift: move later entries of the probe run into the hole
     * when their home slot is not between the hole and them. */
    size_t mask = t->cap - 1;
    for (size_t j = (i + 1) & mask; t->e[j].used; j = (j + 1) & mask) {
        size_t home = slot_of(t->e[j].key, t->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->e[i] = t->e[j];
            i = j;
        }
    }
    t->e[i].used = 0;
    t->n--;
    return 1;
}
