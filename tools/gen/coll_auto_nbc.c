/*
 * coll_auto_nbc.c - which schedule Open MPI's libnbc builds for a
 * nonblocking collective (coll/libnbc, nbc_i*.c). Sources in
 * docs/collectives.md; none of its code is copied.
 */
#include "coll_auto_internal.h"

/* Open MPI's nonblocking collectives (libnbc, releases 2.x-4.0). */
int mm_coll_auto_libnbc(const mm_coll_query *q, mm_coll_choice *c)
{
    switch (mm_coll_family(q->op)) {
    case MM_COLL_ALLGATHER:
        *c = mm_coll_pick(MM_ALG_LINEAR, "libnbc iallgather: one round, n-1 receives");
        return 1;
    case MM_COLL_GATHER:
        *c = mm_coll_pick(MM_ALG_DIRECT, "libnbc igather: root posts all receives in one round");
        return 1;
    case MM_COLL_BARRIER:
        *c = mm_coll_pick(MM_ALG_DISSEMINATION, "libnbc ibarrier: dissemination");
        return 1;
    case MM_COLL_SCATTER:
        *c = mm_coll_pick(MM_ALG_LINEAR, "libnbc iscatter(v): the root sends every block in one round");
        return 1;
    case MM_COLL_REDUCE_SCATTER:
        *c = mm_coll_pick(MM_ALG_NONOVERLAPPING, "libnbc ireduce_scatter(_block): binomial reduce to "
                  "rank 0, then rank 0 sends every block in one round");
        return 1;
    case MM_COLL_SCAN:
    case MM_COLL_EXSCAN:
        *c = mm_coll_pick(MM_ALG_LINEAR, "libnbc iscan/iexscan: linear chain, r receives from r-1 "
                  "and sends to r+1");
        return 1;
    default:
        return 0;
    }
}

