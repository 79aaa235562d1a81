/*
 * replay_analysis.h - untimed analyses of a stream under the `list`
 * engine's semantics (one PRQ and one UMQ searched from the head), for
 * reports: elements traversed per source, and queue lengths over time
 * (docs/replay.md, "Analyses"). Independent of the engines: their hot paths
 * stay untouched, and the totals equal the list engine's statistics.
 */
#ifndef MM_TOOLS_REPLAY_ANALYSIS_H
#define MM_TOOLS_REPLAY_ANALYSIS_H

#include <stdint.h>
#include <stdio.h>

#include "stream.h"

typedef struct mm_analysis {
    int32_t   np;
    uint64_t *umq_src;    /* np: UMQ elements (messages) traversed, by their source   */
    uint64_t *prq_src;    /* np + 1: PRQ elements (receives) traversed, by their
                             posted source; [np] counts MPI_ANY_SOURCE receives      */
    uint64_t  umq_traversed, prq_traversed, umq_searches, prq_searches;
    uint64_t  umq_max_length, prq_max_length;
} mm_analysis;

/* Run the analysis. If series is not NULL, write "event,t,prq,umq" CSV
 * lines to it after every `every` events and after the last one (event:
 * 1-based count of events done; t: the time attribute of the latest R or M).
 * Returns MMS_OK, MMS_ENOMEM or MMS_EIO. */
int  mm_analyze(const mm_stream *s, mm_analysis *a, FILE *series, uint64_t every);
void mm_analysis_free(mm_analysis *a);
/* The per-source counts as JSON. Returns 0 or -1. */
int  mm_analysis_json(FILE *f, const mm_stream *s, const mm_analysis *a);

#endif /* MM_TOOLS_REPLAY_ANALYSIS_H */
