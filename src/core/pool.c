#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/pool.h"

struct mm_slab {
    mm_slab *next;
    void    *block;  /* what was allocated (the slab is aligned inside it) */
    size_t   count;
    size_t   bytes;  /* of block */
    /* objects follow at SLAB_HEADER */
};

/* One cache line: objects keep the line alignment of the slab. */
enum { LINE = 64, SLAB_HEADER = 64 };
_Static_assert(sizeof(mm_slab) <= SLAB_HEADER, "slab header fits its line");
enum { FIRST_SLAB = 64, MAX_SLAB = 16384 }; /* objects */
/* A new slab adds 1/GROWTH of the objects the pool has: at most that share
 * of a pool lies unused after a growth, which is what the engine's peak
 * memory per queued element pays for the pool (bench's bytes-per-queued). */
enum { GROWTH = 16 };

void mm_pool_init(mm_pool *p, size_t obj_size, mm_mem *mem)
{
    size_t a = sizeof(void *);
    memset(p, 0, sizeof *p);
    p->obj_size = (obj_size < a ? a : obj_size + a - 1) / a * a;
    /* A slab spans at least a page, so a page meets at most two of them. */
    p->next_count = FIRST_SLAB;
    while (p->next_count * p->obj_size < MM_POOL_PAGE)
        p->next_count *= 2;
    p->mem = mem;
}

void mm_pool_destroy(mm_pool *p)
{
    mm_slab *s = p->slabs;
    while (s) {
        mm_slab *next = s->next;
        mm_mem_free(p->mem, s->block, s->bytes);
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

/* The entry of page in the set, or the empty slot where it would go. */
static mm_pool_page *page_find(mm_pool_page *set, size_t mask, uintptr_t page)
{
    size_t i = page_slot(page, mask);
    while (set[i].page && set[i].page != page)
        i = (i + 1) & mask;
    return &set[i];
}

/* Room in the page set for n more pages (at most half full), counted in
 * npages whether or not the slab's pages turn out to be new ones (a page
 * may be its neighbour's): the set's size, in the engine's bytes, then
 * depends on the slabs' sizes only, not on the heap's layout; 0 or -1. */
static int pages_reserve(mm_pool *p, size_t n)
{
    size_t cap = p->pages ? p->pages_mask + 1 : 0;
    if ((p->npages + n) * 2 <= cap) {
        p->npages += n;
        return 0;
    }
    size_t ncap = cap ? cap : 16;
    while ((p->npages + n) * 2 > ncap)
        ncap *= 2;
    mm_pool_page *set = mm_mem_calloc(p->mem, ncap, sizeof *set);
    if (!set)
        return -1;
    for (size_t i = 0; i < cap; i++)
        if (p->pages[i].page)
            *page_find(set, ncap - 1, p->pages[i].page) = p->pages[i];
    mm_mem_free(p->mem, p->pages, cap * sizeof *set);
    p->pages = set;
    p->pages_mask = ncap - 1;
    p->npages += n;
    return 0;
}

int mm_pool_grow(mm_pool *p)
{
    size_t count = p->next_count;
    /* Plain malloc of the same sizes every time (freed slabs are reused as
     * they are); the slab starts at the first cache line inside. */
    size_t bytes = LINE - 1 + SLAB_HEADER + count * p->obj_size;
    /* The most pages the objects can touch: they start on a line, at most
     * a page less a line into their first page. */
    size_t npages = (count * p->obj_size - 1 + MM_POOL_PAGE - LINE) / MM_POOL_PAGE + 1;
    if (pages_reserve(p, npages) != 0)
        return -1;
    void *block = mm_mem_alloc(p->mem, bytes);
    if (!block) {
        p->npages -= npages; /* a failed growth leaves no reservation */
        return -1;
    }
    mm_slab *s = (mm_slab *)(((uintptr_t)block + LINE - 1) & ~(uintptr_t)(LINE - 1));
    s->next = p->slabs;
    s->block = block;
    s->count = count;
    s->bytes = bytes;
    p->slabs = s;
    /* Objects start zeroed, so fields an owner reads to tell its objects in
     * use from free ones (mm_pool_foreach) never hold garbage. */
    memset((char *)s + SLAB_HEADER, 0, count * p->obj_size);
    /* Register every page the objects touch: each page, for at most two slabs. */
    char *base = (char *)s + SLAB_HEADER;
    uintptr_t first = (uintptr_t)base / MM_POOL_PAGE;
    uintptr_t last = ((uintptr_t)base + count * p->obj_size - 1) / MM_POOL_PAGE;
    for (uintptr_t pg = first; pg <= last; pg++) {
        mm_pool_page *x = page_find(p->pages, p->pages_mask, pg);
        if (!x->page) {
            *x = (mm_pool_page){pg, {s, NULL}};
        } else {
            x->slab[1] = s;
        }
    }
    /* Thread the new objects onto the free list in address order. */
    for (size_t i = count; i-- > 0;) {
        void *o = base + i * p->obj_size;
        *(void **)o = p->free;
        p->free = o;
    }
    p->objects += count;
    if (p->objects / GROWTH > p->next_count)
        p->next_count = p->objects / GROWTH < MAX_SLAB ? p->objects / GROWTH : MAX_SLAB;
    return 0;
}

static int in_slab(const mm_pool *p, const mm_slab *s, uintptr_t o)
{
    uintptr_t base = (uintptr_t)s + SLAB_HEADER;
    return s && o >= base && o < base + s->count * p->obj_size && (o - base) % p->obj_size == 0;
}

int mm_pool_owns(const mm_pool *p, const void *obj)
{
    uintptr_t o = (uintptr_t)obj, page = o / MM_POOL_PAGE;
    if (!p->pages || !page)
        return 0;
    const mm_pool_page *x = page_find(p->pages, p->pages_mask, page);
    return x->page && (in_slab(p, x->slab[0], o) || in_slab(p, x->slab[1], o));
}

void mm_pool_foreach(const mm_pool *p, void (*fn)(void *obj, void *arg), void *arg)
{
    for (const mm_slab *s = p->slabs; s; s = s->next) {
        char *base = (char *)s + SLAB_HEADER;
        for (size_t i = 0; i < s->count; i++)
            fn(base + i * p->obj_size, arg);
    }
}
