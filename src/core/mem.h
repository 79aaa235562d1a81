/* mem.h - allocation with accounting.
 *
 * Every byte an engine holds goes through here, so the statistics can report
 * bytes now and at peak (the memory side of each design's trade-off). */
#ifndef MM_CORE_MEM_H
#define MM_CORE_MEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct mm_mem {
    uint64_t bytes, peak;
} mm_mem;

void *mm_mem_alloc(mm_mem *m, size_t size);
void *mm_mem_calloc(mm_mem *m, size_t n, size_t size);
void  mm_mem_free(mm_mem *m, void *p, size_t size);

#endif
