#include <stdint.h>
#include <string.h>
#include "core/pool.h"

struct mm_slab {
    mm_slab *next;
    size_t   count;
    size_t   bytes;
    /* objects follow at SLAB_HEADER */
};

/* One cache line: objects keep the line alignment of the (page-aligned) slab. */
enum { SLAB_HEADER = 64 };
_Static_assert(sizeof(mm_slab) <= SLAB_HEADER, "slab header fits its line");
enum { FIRST_SLAB = 64, MAX_SLAB = 16384 }; /* objects, about */

static size_t pages_for(size_t objects, size_t obj_size)
{
    return (SLAB_HEADER + objects * obj_size + MM_POOL_PAGE - 1) / MM_POOL_PAGE;
}

void mm_pool_init(mm_pool *p, size_t obj_size, mm_mem *mem)
{
    size_t a = sizeof(void *);
    memset(p, 0, sizeof *p);
    p->obj_size = (obj_size < a ? a : obj_size + a - 1) / a * a;
    p->next_pages = pages_for(FIRST_SLAB, p->obj_size);
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
    mm_mem_free(p->mem, p->pages, p->pages ? (p->pages_mask + 1) * sizeof *p->pages : 0);
    p->slabs = NULL;
    p->free = NULL;
    p->pages = NULL;
    p->pages_mask = p->npages = 0;
}

static size_t page_slot(uintptr_t page, size_t mask)
{
    return (size_t)((page * 0x9E3779B97F4A7C15ull) >> 20) & mask;
}

static void page_put(mm_pool_page *set, size_t mask, uintptr_t page, mm_slab *s)
{
    size_t i = page_slot(page, mask);
    while (set[i].page)
        i = (i + 1) & mask;
    set[i] = (mm_pool_page){page, s};
}

/* Room in the page set for n more pages (at most half full); 0 or -1. */
static int pages_reserve(mm_pool *p, size_t n)
{
    size_t cap = p->pages ? p->pages_mask + 1 : 0;
    if ((p->npages + n) * 2 <= cap)
        return 0;
    size_t ncap = cap ? cap : 16;
    while ((p->npages + n) * 2 > ncap)
        ncap *= 2;
    mm_pool_page *set = mm_mem_calloc(p->mem, ncap, sizeof *set);
    if (!set)
        return -1;
    for (size_t i = 0; i < cap; i++)
        if (p->pages[i].page)
            page_put(set, ncap - 1, p->pages[i].page, p->pages[i].slab);
    mm_mem_free(p->mem, p->pages, cap * sizeof *set);
    p->pages = set;
    p->pages_mask = ncap - 1;
    return 0;
}

int mm_pool_grow(mm_pool *p)
{
    size_t npages = p->next_pages;
    size_t bytes = npages * MM_POOL_PAGE;
    if (pages_reserve(p, npages) != 0)
        return -1;
    mm_slab *s = mm_mem_alloc_aligned(p->mem, MM_POOL_PAGE, bytes);
    if (!s)
        return -1;
    s->next = p->slabs;
    s->count = (bytes - SLAB_HEADER) / p->obj_size;
    s->bytes = bytes;
    p->slabs = s;
    for (size_t i = 0; i < npages; i++)
        page_put(p->pages, p->pages_mask, (uintptr_t)s / MM_POOL_PAGE + i, s);
    p->npages += npages;
    /* Thread the new objects onto the free list in address order. */
    char *base = (char *)s + SLAB_HEADER;
    for (size_t i = s->count; i-- > 0;) {
        void *o = base + i * p->obj_size;
        *(void **)o = p->free;
        p->free = o;
    }
    if (p->next_pages < pages_for(MAX_SLAB, p->obj_size))
        p->next_pages *= 2;
    return 0;
}

int mm_pool_owns(const mm_pool *p, const void *obj)
{
    if (!p->pages)
        return 0;
    uintptr_t o = (uintptr_t)obj, page = o / MM_POOL_PAGE;
    if (!page)
        return 0;
    const mm_slab *s = NULL;
    for (size_t i = page_slot(page, p->pages_mask); p->pages[i].page; i = (i + 1) & p->pages_mask)
        if (p->pages[i].page == page) {
            s = p->pages[i].slab;
            break;
        }
    if (!s)
        return 0;
    uintptr_t base = (uintptr_t)s + SLAB_HEADER;
    return o >= base && o < base + s->count * p->obj_size && (o - base) % p->obj_size == 0;
}
