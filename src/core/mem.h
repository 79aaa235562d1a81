/* mem.h - allocation with accounting.
 *
 * Every byte an engine holds goes through here, so the statistics can report
 * bytes now and at peak (the memory side of each design's trade-off). An
 * account may have a parent: allocations count in both, so an engine can
 * keep one account per queue side (PRQ, UMQ) that rolls up into its total.
 * A charge counts bytes held elsewhere without allocating; it does not reach
 * the parent, which already has them.
 *
 * A side's account also holds the side's queued elements (pooled, so in the
 * parent already) without a charge each: it counts *count elements of unit
 * bytes, a number the API keeps on the matching path (enter.h), and bytes
 * leaves them out (mm_mem_total has them in). The matching path compares
 * the count with mark only: while *count <= mark, neither peak nor
 * *max_count can change; mm_mem_count_grew updates both, and mark, when
 * the count passes it. */
#ifndef MM_CORE_MEM_H
#define MM_CORE_MEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct mm_mem {
    uint64_t       bytes, peak;
    struct mm_mem *parent;
    /* The side's elements (all NULL or 0 for other accounts): */
    const uint64_t *count;     /* elements queued now                        */
    uint64_t      *max_count;  /* the most queued at once (statistics)       */
    uint64_t       unit;       /* bytes of one element                       */
    uint64_t       mark;       /* *count <= mark: peak and *max_count hold   */
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

/* Bytes held now: bytes and, on a side's account, its elements. */
static inline uint64_t mm_mem_total(const mm_mem *m)
{
    return m->bytes + (m->count ? *m->count * m->unit : 0);
}

/* The count the side may reach before peak or *max_count must change. */
static inline void mm_mem_remark(mm_mem *m)
{
    uint64_t room = (m->peak - m->bytes) / m->unit; /* peak >= bytes + count * unit */
    m->mark = room < *m->max_count ? room : *m->max_count;
}

/* *count passed mark: the new maxima and mark. Inline: a call from the
 * matching path would make its entries keep an aligned stack frame. A
 * count that raises the peak is its own mark (the room under the peak is
 * then *count elements, and *count <= *max_count): no division, which a
 * side growing to a new length at every call (a new engine's first round)
 * would otherwise pay at each. */
static inline void mm_mem_count_grew(mm_mem *m)
{
    if (*m->count > *m->max_count)
        *m->max_count = *m->count;
    uint64_t total = mm_mem_total(m);
    if (total >= m->peak) {
        m->peak = total;
        m->mark = *m->count;
        return;
    }
    mm_mem_remark(m);
}

static inline void mm_mem_charge(mm_mem *m, uint64_t size)
{
    m->bytes += size;
    uint64_t total = mm_mem_total(m);
    if (total > m->peak)
        m->peak = total;
    if (m->count)
        mm_mem_remark(m);
}

/* Make m a side's account of *count elements of unit bytes, at most
 * *max_count at once. */
static inline void mm_mem_count(mm_mem *m, const uint64_t *count, uint64_t *max_count,
                                uint64_t unit)
{
    m->count = count;
    m->max_count = max_count;
    m->unit = unit;
    mm_mem_charge(m, 0);
}

/* The statistics restart: peak from now on, *max_count set by the caller. */
static inline void mm_mem_reset_peak(mm_mem *m)
{
    m->peak = mm_mem_total(m);
    if (m->count)
        mm_mem_remark(m);
}

/* (mark only grows when bytes shrink: the old one is still safe.) */
static inline void mm_mem_uncharge(mm_mem *m, uint64_t size)
{
    m->bytes -= size;
}

#endif
