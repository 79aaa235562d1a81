/* part.c - the growable arrays the paper-000 parts keep (rare work). */
#include <string.h>
#include "engines/part.h"

void *part_grow(mm_mem *mem, void *arr, uint32_t *cap, uint32_t used, uint32_t need,
                size_t size)
{
    if (need <= *cap)
        return arr;
    uint32_t ncap = *cap ? *cap : 4;
    while (ncap < need)
        ncap *= 2;
    void *a = mm_mem_alloc(mem, (size_t)ncap * size);
    if (!a)
        return NULL;
    if (used)
        memcpy(a, arr, (size_t)used * size);
    mm_mem_free(mem, arr, (size_t)*cap * size);
    *cap = ncap;
    return a;
}

int part_levels_push(part_levels *l, mm_mem *mem, void *level, uint64_t first_seq)
{
    /* Each array has its own capacity, so a failure after one grew is harmless. */
    void **at = part_grow(mem, l->at, &l->cap_at, l->n, l->n + 1, sizeof *l->at);
    if (!at)
        return -1;
    l->at = at;
    uint64_t *first = part_grow(mem, l->first, &l->cap_first, l->n, l->n + 1,
                                 sizeof *l->first);
    if (!first)
        return -1;
    l->first = first;
    l->at[l->n] = level;
    l->first[l->n] = first_seq;
    l->n++;
    return 0;
}

void part_levels_free(part_levels *l, mm_mem *mem)
{
    mm_mem_free(mem, l->at, l->cap_at * sizeof *l->at);
    mm_mem_free(mem, l->first, l->cap_first * sizeof *l->first);
    *l = (part_levels){0};
}
