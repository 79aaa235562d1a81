/* fifo.h - a growable FIFO of fixed-size items: a ring whose capacity is a
 * power of two (an index is masked, never divided), doubled when full.
 *
 * Items are stored by value: mm_fifo_push returns the room for one more at
 * the back, which the caller fills; mm_fifo_front and mm_fifo_at read in
 * FIFO order and mm_fifo_pop drops the front. Growing copies the held items
 * (in at most two pieces) to the front of a buffer twice the size, so the
 * pointers those calls return are valid only until the next push. The buffer
 * is allocated at the first push and accounted in an mm_mem.
 * Not thread-safe: callers hold their own lock (the provider's completion
 * queues, src/provider/cq.c). */
#ifndef MM_CORE_FIFO_H
#define MM_CORE_FIFO_H

#include <stddef.h>
#include "core/compiler.h"
#include "core/mem.h"

typedef struct mm_fifo {
    char   *buf;
    size_t  item;   /* bytes per item                                  */
    size_t  first;  /* capacity of the first buffer (a power of two)   */
    size_t  cap;    /* items the buffer holds: 0 or a power of two     */
    size_t  head;   /* index of the front item                         */
    size_t  len;    /* items held                                      */
    mm_mem *mem;
} mm_fifo;

/* An empty FIFO of item-byte items; the first push allocates room for
 * `first` of them (rounded up to a power of two, at least 1). */
void mm_fifo_init(mm_fifo *f, size_t item, size_t first, mm_mem *mem);
void mm_fifo_destroy(mm_fifo *f);
/* Double the capacity (or allocate the first buffer): 0, or -1 when out of
 * memory (the FIFO is unchanged). */
int  mm_fifo_grow(mm_fifo *f);

static inline size_t mm_fifo_len(const mm_fifo *f) { return f->len; }

/* The i-th item from the front, i < mm_fifo_len(f). */
MM_INLINE void *mm_fifo_at(const mm_fifo *f, size_t i)
{
    return f->buf + ((f->head + i) & (f->cap - 1)) * f->item;
}

/* The front item, or NULL when empty. */
MM_INLINE void *mm_fifo_front(const mm_fifo *f)
{
    return f->len ? mm_fifo_at(f, 0) : NULL;
}

/* Room for one more item at the back (now counted in the length), or NULL
 * when the FIFO had to grow and memory ran out. */
MM_INLINE void *mm_fifo_push(mm_fifo *f)
{
    if (MM_UNLIKELY(f->len == f->cap) && mm_fifo_grow(f) != 0)
        return NULL;
    return mm_fifo_at(f, f->len++);
}

/* Drop the front item (the FIFO must not be empty). */
MM_INLINE void mm_fifo_pop(mm_fifo *f)
{
    f->head = (f->head + 1) & (f->cap - 1);
    f->len--;
}

#endif
