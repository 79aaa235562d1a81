/*
 * coll_a2a.h - Open MPI 4.1 alltoall and gather schedules written in
 * coll_a2a.c (modified Bruck alltoall, linear_sync gather). Internal to
 * tools/gen.
 */
#ifndef MM_TOOLS_COLL_A2A_H
#define MM_TOOLS_COLL_A2A_H

#include "coll_emit.h"

/* The k-th block that holder sends in the modified Bruck step with
 * distance dist (a power of two below n), as an alltoall block s*n+t. */
uint32_t mm_coll_bruck_block(int32_t n, int32_t holder, int64_t dist, uint32_t k);

void mm_coll_alltoall_bruck(mm_coll_emitter *e);
void mm_coll_gather_linear_sync(mm_coll_emitter *e);

#endif /* MM_TOOLS_COLL_A2A_H */
