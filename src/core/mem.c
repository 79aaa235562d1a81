#include <stdlib.h>
#include "core/compiler.h"
#include "core/mem.h"

/* Does the test hook on m's root account refuse an allocation of size? */
static int refused(mm_mem *m, size_t size)
{
    while (m->parent)
        m = m->parent;
    if (MM_LIKELY(!m->limit && !m->fail_in))
        return 0;
    if (m->fail_in && --m->fail_in == 0)
        return 1;
    return m->limit && m->bytes + size > m->limit;
}

static void account(mm_mem *m, size_t size)
{
    for (; m; m = m->parent)
        mm_mem_charge(m, size);
}

void *mm_mem_alloc(mm_mem *m, size_t size)
{
    if (refused(m, size))
        return NULL;
    void *p = malloc(size ? size : 1);
    if (p)
        account(m, size);
    return p;
}

void *mm_mem_calloc(mm_mem *m, size_t n, size_t size)
{
    if ((size && n > SIZE_MAX / size) || refused(m, n * size))
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
