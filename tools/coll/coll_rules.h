/*
 * coll_rules.h - what the selection rules share (coll_auto*.c): one file
 * per library's rules, dispatched by mm_coll_select() (coll_auto.c).
 */
#ifndef MM_TOOLS_COLL_RULES_H
#define MM_TOOLS_COLL_RULES_H

#include "coll_auto.h"
#include "coll_pof2.h"

/* n * bytes without wrapping (the whole vector of a reduce_scatter). */
static inline uint64_t mm_coll_times_n(uint64_t bytes, int32_t n)
{
    uint64_t nn = n > 0 ? (uint64_t)n : 0;
    return nn && bytes > UINT64_MAX / nn ? UINT64_MAX : bytes * nn;
}

/* The library runs alg (implemented here), by the rule quoted. */
static inline mm_coll_choice mm_coll_pick(int alg, const char *rule)
{
    mm_coll_choice c = {alg, {0, 0}, rule, 0};
    return c;
}

/* The library's choice cannot be expanded for this call: alg stands in for
 * it (mm_coll_choice.substitute). */
static inline mm_coll_choice mm_coll_subst(int alg, const char *rule)
{
    mm_coll_choice c = {alg, {0, 0}, rule, 1};
    return c;
}

mm_coll_choice mm_coll_auto_ompi(const mm_coll_query *q);   /* coll_auto_ompi.c  */
mm_coll_choice mm_coll_auto_mpich(const mm_coll_query *q);  /* coll_auto_mpich.c */
/* libnbc's choice for a nonblocking op into *c: 1, or 0 when the rules of
 * the blocking operation apply (coll_auto_nbc.c). */
int mm_coll_auto_libnbc(const mm_coll_query *q, mm_coll_choice *c);

#endif /* MM_TOOLS_COLL_RULES_H */
