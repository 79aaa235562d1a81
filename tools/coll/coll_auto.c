/*
 * coll_auto.c - which algorithm Open MPI or MPICH would run for a
 * collective call (mm_coll_select, coll_auto.h): the rules of each library
 * are in their own file (coll_auto_ompi.c, coll_auto_mpich.c).
 */
#include "coll_rules.h"

mm_coll_choice mm_coll_select(const mm_coll_query *q)
{
    return q->lib == MM_COLL_LIB_MPICH ? mm_coll_auto_mpich(q) : mm_coll_auto_ompi(q);
}

mm_coll_choice mm_coll_auto(int op, int32_t n, uint64_t bytes, int lib)
{
    mm_coll_query q = {op, n, bytes, 0, 0, lib, NULL};
    return mm_coll_select(&q);
}
