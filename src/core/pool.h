/* pool.h - fixed-size object pool: slabs carved into objects, a free list.
 *
 * Keeps malloc off the matching path: after warm-up, taking and returning an
 * object is a pointer swap. A new slab adds a sixteenth of the objects the
 * pool has (at least its first slab's count, at most a cap), so past the
 * first few slabs at most a seventeenth of the objects lie unused after a
 * growth (a quarter left a fifth, doubling up to half), and a queue of a
 * million elements costs about 150 mallocs. Slabs are only released when
 * the pool is destroyed, so an element's address stays valid for the life of
 * its engine (which is what makes stale cancel handles safe to check).
 *
 * The pool keeps a small hash set of the pages its objects lie in (a page
 * meets at most two of its slabs, which span a page or more), so
 * mm_pool_owns answers in O(1) whether a pointer is one of its objects
 * without reading the memory it points to (a handle of another engine, or
 * no handle at all, is answered, not dereferenced). Objects start on a cache
 * line: a 64-byte object is one cache line. */
#ifndef MM_CORE_POOL_H
#define MM_CORE_POOL_H

#include <stddef.h>
#include <stdint.h>
#include "core/compiler.h"
#include "core/mem.h"

typedef struct mm_slab mm_slab;

/* One page holding objects, in the pool's page set (page 0: empty). */
typedef struct mm_pool_page {
    uintptr_t page;     /* address / MM_POOL_PAGE                */
    mm_slab  *slab[2];  /* the slabs with objects in it (or NULL) */
} mm_pool_page;

enum { MM_POOL_PAGE = 4096 };

typedef struct mm_pool {
    size_t        obj_size;   /* rounded up to pointer alignment          */
    size_t        next_count; /* objects in the next slab                 */
    size_t        objects;    /* in all slabs                             */
    void         *free;       /* free list threaded through the objects   */
    mm_slab      *slabs;
    mm_mem       *mem;
    mm_pool_page *pages;      /* open addressing, pages_mask + 1 entries  */
    size_t        pages_mask;
    /* Entries reserved: for each slab the most pages its objects can
     * touch (mm_pool_grow), not the pages they do touch, so the set's size
     * (counted in the engine's bytes) follows the slabs' sizes and not
     * where malloc placed them. */
    size_t        npages;
} mm_pool;

void  mm_pool_init(mm_pool *p, size_t obj_size, mm_mem *mem);
void  mm_pool_destroy(mm_pool *p);
int   mm_pool_grow(mm_pool *p);            /* 0, or -1 when out of memory */
/* Is obj one of p's objects (in use or free)? O(1); obj is not read. */
int   mm_pool_owns(const mm_pool *p, const void *obj);
/* Call fn on every object of p, in use or free (the caller tells them apart:
 * a new slab's objects start zeroed but for the free-list word at offset 0).
 * For diagnostics (mm_walk) and rare restructuring (auto's switches), not
 * for the matching path. */
void  mm_pool_foreach(const mm_pool *p, void (*fn)(void *obj, void *arg), void *arg);

MM_INLINE void *mm_pool_get(mm_pool *p)
{
    if (MM_UNLIKELY(!p->free) && mm_pool_grow(p) != 0)
        return NULL;
    void *o = p->free;
    p->free = *(void **)o;
    return o;
}

MM_INLINE void mm_pool_put(mm_pool *p, void *o)
{
    *(void **)o = p->free;
    p->free = o;
}

#endif
