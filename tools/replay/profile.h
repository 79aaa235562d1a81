/*
 * profile.h - the profile phase of the kmeans engine (Ghazimirsaeed and
 * Afsahi, HPCS 2017, section 4): replay a stream with single-list
 * (MPICH/MVAPICH) matching and count, per peer, how many elements it put in
 * the queues and how much of the queues the searches on its behalf walked
 * (docs/clustering.md).
 *
 * The walk is that of the list-semantics simulator (list_sim.h), which
 * shows every compared element, so that it can be charged to the peer that
 * owns it (the `pairs` counts, which give the exact search cost of any
 * clustering); the library's `list` engine runs in lockstep and must agree
 * on every partner and every search depth, so the counts are those of the
 * real engine.
 */
#ifndef MM_TOOLS_PROFILE_H
#define MM_TOOLS_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

/* One nonzero pairwise count: searches on behalf of `searcher` compared
 * `count` elements owned by `owner`. Peers are 0..np-1; np stands for
 * ANY_SOURCE (a searcher: ANY_SOURCE receives and probes; an owner:
 * ANY_SOURCE receives waiting in the PRQ). */
typedef struct mm_profile_pair {
    int32_t  searcher, owner;
    uint64_t count;
} mm_profile_pair;

typedef struct mm_profile {
    int32_t   np;
    uint64_t  events;
    /* per peer, [np] */
    uint64_t *prq_added;     /* receives for this source that were queued   */
    uint64_t *umq_added;     /* messages from it that were queued unexpected */
    uint64_t *prq_searches;  /* its messages' searches of the PRQ          */
    uint64_t *prq_traversed; /* elements those searches compared           */
    uint64_t *umq_searches;  /* receives and probes for it searching the UMQ */
    uint64_t *umq_traversed;
    /* ANY_SOURCE receives and probes */
    uint64_t  any_prq_added, any_umq_searches, any_umq_traversed;
    /* nonzero pairwise counts, sorted by searcher then owner */
    mm_profile_pair *pairs;
    size_t    npairs;
} mm_profile;

/* Profile a finalized stream. Returns 0, or -1 with a message in err (out
 * of memory, or the simulation disagreeing with the engine: a bug). */
int  mm_profile_run(const mm_stream *s, mm_profile *p, char *err, size_t errlen);
void mm_profile_free(mm_profile *p);

#endif /* MM_TOOLS_PROFILE_H */
