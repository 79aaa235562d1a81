/*
 * replay_paths.h - time a stream path by path (mpimatch-replay --paths,
 * docs/replay.md "Matching paths").
 *
 * Every event takes one path through the matching engine, decided by its
 * outcome (the same for every engine): a receive that finds no unexpected
 * message and is queued ("fail from recv", the MPI 4.0 hints paper, Table I) or that takes
 * one ("success from recv"); a message that finds no receive and is queued
 * as unexpected ("fail from send") or that matches a posted receive
 * ("success from send"); probes, matched probes and cancels are classes of
 * their own.
 *
 * An untimed pass classifies the events from the outcomes of an ordinary
 * replay and cuts the stream into segments: maximal runs of consecutive
 * events on one path. The timed repetitions then read the clock only where
 * the path changes, charge each segment's time to its path, and subtract
 * the calibrated cost of one clock read per segment. A stream built in
 * phases (all receives, then all messages) has a few long segments, so the
 * correction is small; where it is a large share of a path's time the
 * result says so (timer_dominated).
 *
 * The loop here is separate from replay.c's, which stays as it is for runs
 * without --paths.
 */
#ifndef MM_TOOLS_REPLAY_PATHS_H
#define MM_TOOLS_REPLAY_PATHS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mpimatch.h"
#include "replay.h"
#include "stream.h"

enum mm_path {
    MM_PATH_FAIL_RECV = 0,  /* R queued: no unexpected message matched    */
    MM_PATH_SUCCESS_RECV,   /* R took an unexpected message               */
    MM_PATH_FAIL_SEND,      /* M queued as unexpected                     */
    MM_PATH_SUCCESS_SEND,   /* M matched a posted receive                 */
    MM_PATH_PROBE,          /* P, found or not                            */
    MM_PATH_MPROBE,         /* X, found or not                            */
    MM_PATH_CANCEL,         /* C, ok or miss                              */
    MM_PATH_COUNT
};

/* "fail_from_recv", "success_from_recv", "fail_from_send",
 * "success_from_send", "probe", "mprobe", "cancel"; NULL out of range. */
const char *mm_path_name(int path);

/* A path is flagged timer_dominated when the clock reads subtracted from it
 * exceed this share of its measured time: its mean segment lasts less than
 * ten clock reads, and the correction is as large as what is left. */
#define MM_PATHS_TIMER_SHARE 0.10

typedef struct mm_path_result {
    uint64_t events;      /* events on this path                              */
    uint64_t segments;    /* maximal runs of them                              */
    double   ns_q1, ns_median, ns_q3; /* ns per event, over the timed reps,
                                          clock reads subtracted; NaN: none  */
    double   ns_total;    /* median over reps of the path's corrected total     */
    double   ns_segment;  /* ns_total / segments: e.g. one phase's drain time   */
    double   timer_share; /* clock reads subtracted / measured time (median rep) */
    int      timer_dominated; /* timer_share > MM_PATHS_TIMER_SHARE             */
} mm_path_result;

typedef struct mm_paths_result {
    double         clock_ns;  /* calibrated cost of one clock read            */
    uint64_t       segments;  /* all paths                                     */
    unsigned       reps;
    mm_path_result path[MM_PATH_COUNT];
} mm_paths_result;

/* Scratch for one stream: the classification and the per-rep totals. */
typedef struct mm_paths {
    const mm_stream *s;
    uint8_t  *cls;       /* s->n: path of each event                        */
    size_t   *seg_start; /* nseg + 1: first event of each segment, then s->n */
    uint8_t  *seg_path;  /* nseg                                            */
    size_t    nseg;
    double   *raw;       /* MM_PATH_COUNT * reps_cap: measured ns per path and rep */
    double   *tmp;       /* reps_cap                                        */
    unsigned  reps_cap;
} mm_paths;

int  mm_paths_init(mm_paths *p, const mm_stream *s, unsigned max_reps, char *err, size_t errlen);
void mm_paths_free(mm_paths *p);

/* Classify every event from the outcomes out[] of a replay of p->s (an
 * mm_replay's out after mm_replay_run) and cut the segments. */
void mm_paths_classify(mm_paths *p, const uint64_t *out);

/* The cost of one clock read in ns: the median of batches of back-to-back
 * reads. */
double mm_paths_clock_ns(void);

/* One untimed warm-up and `reps` timed runs of the classified stream, each
 * on a fresh engine, using r's scratch (r->out is overwritten). Every run
 * must reproduce the outcomes whose hash is `hash` (mm_replay_result.hash
 * of the same engine). Returns MMR_OK or an MMR_E* code with err set. */
int  mm_paths_run(mm_paths *p, mm_replay *r, const mm_engine_info *engine, const mm_config *cfg,
                  unsigned reps, uint64_t hash, mm_paths_result *res, char *err,
                  size_t errlen);

/* ---- report (replay_paths_report.c) ---- */
struct mmj;
/* The "paths" object of a result in mpimatch-replay's JSON. */
void mm_paths_json(struct mmj *j, const mm_paths_result *res);
/* The table printed under an engine's row. */
void mm_paths_table(FILE *f, const char *engine, const mm_paths_result *res);

#endif /* MM_TOOLS_REPLAY_PATHS_H */
