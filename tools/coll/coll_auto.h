/*
 * coll_auto.h - the selection rules: which algorithm Open MPI 4.1.4 or MPICH
 * 4.0.2 runs for a call (coll_auto*.c; thresholds and sources in
 * docs/collectives.md).
 */
#ifndef MM_TOOLS_COLL_AUTO_H
#define MM_TOOLS_COLL_AUTO_H

#include "coll_base.h"

/* What the library would run for the call. The thresholds and their
 * sources: docs/collectives.md. Written in coll_auto*.c. */
mm_coll_choice mm_coll_select(const mm_coll_query *q);
/* The same for a commutative reduction of unknown element size, node
 * layout unknown. */
mm_coll_choice mm_coll_auto(int op, int32_t n, uint64_t bytes, int lib);

#endif /* MM_TOOLS_COLL_AUTO_H */
