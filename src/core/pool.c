#include <stdint.h>
#include "core/pool.h"

struct mm_slab {
    mm_slab *next;
    size_t   count;
    size_t   bytes;
    /* objects follow, aligned to max_align_t */
};

#define SLAB_HEADER (((sizeof(mm_slab) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t)) \
                     * _Alignof(max_align_t))
enum { FIRST_SLAB = 64, MAX_SLAB = 16384 };

void mm_pool_init(mm_pool *p, size_t obj_size, mm_mem *mem)
{
    size_t a = sizeof(void *);
    p->obj_size = (obj_size < a ? a : obj_size + a - 1) / a * a;
    p->next_count = FIRST_SLAB;
    p->free = NULL;
    p->slabs = NULL;
    p->mem = mem;
}

void mm_pool_destroy(mm_pool *p)
{
    mm_slab *s = p->slabs;
    while (s) {
        mm_slab *next = s->next;
        mm_mem_free(p->mem, s, s->bytes);
        s = next;
    }
    p->slabs = NULL;
    p->free = NULL;
}

int mm_pool_grow(mm_pool *p)
{
    size_t count = p->next_count;
    size_t bytes = SLAB_HEADER + count * p->obj_size;
    mm_slab *s = mm_mem_alloc(p->mem, bytes);
    if (!s)
        return -1;
    s->next = p->slabs;
    s->count = count;
    s->bytes = bytes;
    p->slabs = s;
    /* Thread the new objects onto the free list in address order. */
    char *base = (char *)s + SLAB_HEADER;
    for (size_t i = count; i-- > 0;) {
        void *o = base + i * p->obj_size;
        *(void **)o = p->free;
        p->free = o;
    }
    if (p->next_count < MAX_SLAB)
        p->next_count *= 2;
    return 0;
}

int mm_pool_owns(const mm_pool *p, const void *obj)
{
    uintptr_t o = (uintptr_t)obj;
    for (const mm_slab *s = p->slabs; s; s = s->next) {
        uintptr_t base = (uintptr_t)s + SLAB_HEADER;
        uintptr_t end = base + s->count * p->obj_size;
        if (o >= base && o < end)
            return (o - base) % p->obj_size == 0;
    }
    return 0;
}
