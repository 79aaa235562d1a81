#include <stdlib.h>
#include "core/mem.h"

static void account(mm_mem *m, size_t size)
{
    for (; m; m = m->parent)
        mm_mem_charge(m, size);
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
    for (; m; m = m->parent)
        mm_mem_uncharge(m, size);
    free(p);
}
