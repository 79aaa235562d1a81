/*
 * list_sim.h - a stream replayed with the `list` engine's semantics (one
 * PRQ and one UMQ, each searched from the head, the library's match rule
 * mm_match), untimed and visible element by element: every element a
 * search compares is shown to the caller. The traversal analyses
 * (replay_analysis.c) and the kmeans profile (profile.c) count on it.
 *
 * The queues are index-linked lists over the stream's events: an element
 * is the index of the R or M event that queued it.
 */
#ifndef MM_TOOLS_LIST_SIM_H
#define MM_TOOLS_LIST_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define MM_LSIM_NONE SIZE_MAX
enum { MM_LSIM_OUT = 0, MM_LSIM_PRQ = 1, MM_LSIM_UMQ = 2 };

typedef struct mm_lsim {
    const mm_stream *s;
    size_t  *next, *prev;     /* [n] links of queued R/M events          */
    uint8_t *where;           /* [n] MM_LSIM_OUT, _PRQ or _UMQ           */
    size_t   head[3], tail[3], len[3]; /* by MM_LSIM_PRQ / MM_LSIM_UMQ    */
} mm_lsim;

/* Called for every element a search compares, in queue order: x is the
 * searching event, elem the queued one. A nonzero return stops the step
 * (mm_lsim_step then returns it). */
typedef int (*mm_lsim_visit)(void *ctx, const mm_event *x, const mm_event *elem);

/* Returns 0, or -1 out of memory. */
int  mm_lsim_init(mm_lsim *q, const mm_stream *s);
void mm_lsim_free(mm_lsim *q);

/* Event i: R and P/X search the UMQ, M the PRQ (*depth: the elements
 * compared, *searched: 1); an unmatched R joins the PRQ, an unmatched M
 * the UMQ; a matched partner leaves its queue unless x is a P; C removes
 * its R if still queued (no search). *partner: the partner's event index
 * (C: the cancelled R) or MM_LSIM_NONE. Returns 0 or what visit returned. */
int  mm_lsim_step(mm_lsim *q, size_t i, mm_lsim_visit visit, void *ctx,
                  size_t *partner, uint64_t *depth, int *searched);

#endif /* MM_TOOLS_LIST_SIM_H */
