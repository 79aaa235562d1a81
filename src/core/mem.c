#include <stdlib.h>
#include "core/mem.h"

static void account(mm_mem *m, size_t size)
{
    m->bytes += size;
    if (m->bytes > m->peak)
        m->peak = m->bytes;
}

void *mm_mem_alloc(mm_mem *m, size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p)
        account(m, size);
    return p;
}

void *mm_mem_calloc(mm_mem *m, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p)
        account(m, n * size);
    return p;
}

void mm_mem_free(mm_mem *m, void *p, size_t size)
{
    if (!p)
        return;
    m->bytes -= size;
    free(p);
}
