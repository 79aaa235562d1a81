/* mem.h - allocation with accounting.
 *
 * Every byte an engine holds goes through here, so the statistics can report
 * bytes now and at peak (the memory side of each design's trade-off). An
 * account may have a parent: allocations count in both, so an engine can
 * keep one account per queue side (PRQ, UMQ) that rolls up into its total.
 * A charge counts bytes held elsewhere (a pooled element queued on a side)
 * without allocating; it does not reach the parent, which already has them. */
#ifndef MM_CORE_MEM_H
#define MM_CORE_MEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct mm_mem {
    uint64_t       bytes, peak;
    struct mm_mem *parent;
    /* Allocation-failure injection, for tests (set through this internal
     * header; the library itself never sets them). Read on the root account
     * (no parent) only, so they govern everything an engine allocates:
     *   limit    nonzero: an allocation that would take bytes above it fails;
     *   fail_in  nonzero: counts allocation attempts down; the one that
     *            brings it to zero fails (one failure, then it is off). */
    uint64_t       limit;
    uint64_t       fail_in;
} mm_mem;

void *mm_mem_alloc(mm_mem *m, size_t size);
void *mm_mem_calloc(mm_mem *m, size_t n, size_t size);
void  mm_mem_free(mm_mem *m, void *p, size_t size);

static inline void mm_mem_charge(mm_mem *m, uint64_t size)
{
    m->bytes += size;
    if (m->bytes > m->peak)
        m->peak = m->bytes;
}

static inline void mm_mem_uncharge(mm_mem *m, uint64_t size)
{
    m->bytes -= size;
}

#endif
