#include <stdint.h>
#include <string.h>
#include "core/fifo.h"

void mm_fifo_init(mm_fifo *f, size_t item, size_t first, mm_mem *mem)
{
    size_t c = 1;
    while (c < first && c <= SIZE_MAX / 2)
        c *= 2;
    f->buf = NULL;
    f->item = item ? item : 1;
    f->first = c;
    f->cap = f->head = f->len = 0;
    f->mem = mem;
}

void mm_fifo_destroy(mm_fifo *f)
{
    mm_mem_free(f->mem, f->buf, f->cap * f->item);
    f->buf = NULL;
    f->cap = f->head = f->len = 0;
}

MM_COLD int mm_fifo_grow(mm_fifo *f)
{
    size_t cap = f->cap ? f->cap * 2 : f->first;
    if (cap < f->cap || cap > SIZE_MAX / f->item)
        return -1;
    char *b = mm_mem_alloc(f->mem, cap * f->item);
    if (!b)
        return -1;
    /* The held items, front first: up to the buffer's end, then from its start. */
    size_t n1 = f->len < f->cap - f->head ? f->len : f->cap - f->head;
    if (n1)
        memcpy(b, f->buf + f->head * f->item, n1 * f->item);
    if (f->len > n1)
        memcpy(b + n1 * f->item, f->buf, (f->len - n1) * f->item);
    mm_mem_free(f->mem, f->buf, f->cap * f->item);
    f->buf = b;
    f->cap = cap;
    f->head = 0;
    return 0;
}
