/*
 * coll_nbc.h - Open MPI 4.1's libnbc schedules (coll/libnbc nbc_i*.c) that
 * are not one of coll_algo.c's algorithms: the MM_ALG_NBC_* algorithms.
 * Internal to tools/gen; coll_algo.c registers them.
 */
#ifndef MM_TOOLS_COLL_NBC_H
#define MM_TOOLS_COLL_NBC_H

#include "coll_emit.h"

/* The MM_ALG_NBC_* algorithms of an operation family, one bit each. */
uint64_t mm_coll_nbc_algs(int family);
/* 1 for an MM_ALG_NBC_* algorithm. */
int      mm_coll_nbc_alg(int alg);
/* The description's own limits (MMS_OK or MMS_EFORMAT with err). */
int      mm_coll_nbc_check(const mm_coll_desc *d, char *err, size_t errlen);
/* Pieces the vector is cut into (0: the family's whole blocks) and the
 * bytes of piece b. */
uint32_t mm_coll_nbc_pieces(const mm_coll_desc *d);
uint64_t mm_coll_nbc_block_bytes(const mm_coll_desc *d, uint32_t b);
/* Emit every transfer of e->d (an MM_ALG_NBC_* algorithm, checked). */
void     mm_coll_nbc_expand(mm_coll_emitter *e);

#endif /* MM_TOOLS_COLL_NBC_H */
