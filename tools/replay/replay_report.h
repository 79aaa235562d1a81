/*
 * replay_report.h - what mpimatch-replay prints and writes: the table, the
 * JSON document (schema in docs/replay.md) and the engine list.
 */
#ifndef MM_TOOLS_REPLAY_REPORT_H
#define MM_TOOLS_REPLAY_REPORT_H

#include <stdio.h>

#include "gen.h"
#include "replay_engines.h"
#include "stream.h"


/* The line naming stream, events, np and hints, then the column heads. */
void mm_report_table_head(FILE *f, const mm_stream *s, const mm_plan *p);
/* One row for an engine that ran. */
void mm_report_table_row(FILE *f, const mm_plan *p, const mm_plan_engine *e);
/* The whole JSON document; returns 0, or -1 if writing failed. wl (NULL
 * for a stream read from a file) adds the "workload" object. */
int  mm_report_json(FILE *f, const mm_stream *s, const mm_plan *p, unsigned reps,
                    const mm_gen_spec *wl);
/* --list: every registered engine, as text or JSON; 0 or -1. */
int  mm_report_list(FILE *f, int json);

#endif /* MM_TOOLS_REPLAY_REPORT_H */
