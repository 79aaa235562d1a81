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

/* Element classes (Ghazimirsaeed et al., ParCo 2019, figs. 6-8 time the searches of
 * collective and of point-to-point queue elements apart): an event's class is
 * its kind (MM_KIND_P2P, MM_KIND_COLL); probes, matched probes and cancels
 * carry no kind and count as point-to-point. */
enum { MM_CLASS_P2P = 0, MM_CLASS_COLL = 1, MM_CLASS_COUNT = 2 };
/* Classification keys: path + MM_PATH_COUNT * class (class 0 without by_class). */
#define MM_PATH_KEYS (MM_PATH_COUNT * MM_CLASS_COUNT)

/* "p2p", "coll"; NULL out of range. */
const char *mm_class_name(int cls);

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

/* One class's searches of one queue side, counted exactly in an untimed pass
 * (mm_paths_count): the engine's statistics read after every event, each
 * change charged to the event's class. */
typedef struct mm_class_side {
    uint64_t searches;   /* searches of this side by events of the class      */
    uint64_t traversed;  /* elements compared by them                          */
} mm_class_side;

typedef struct mm_paths_result {
    double         clock_ns;  /* calibrated cost of one clock read            */
    uint64_t       segments;  /* all paths                                     */
    unsigned       reps;
    int            by_class;  /* keys split by class (mpimatch-replay --classes) */
    /* path[k] for key k: without by_class only k < MM_PATH_COUNT is used;
     * with it, path[c * MM_PATH_COUNT + q] is path q of class c. */
    mm_path_result path[MM_PATH_KEYS];
    /* by_class: the exact search counts (mm_paths_count), [class][0 PRQ, 1 UMQ]. */
    mm_class_side  count[MM_CLASS_COUNT][2];
} mm_paths_result;

/* Scratch for one stream: the classification and the per-rep totals. */
typedef struct mm_paths {
    const mm_stream *s;
    int       by_class;  /* set after init, before classify: keys by path and class */
    uint8_t  *cls;       /* s->n: key of each event (its path, + class)     */
    size_t   *seg_start; /* nseg + 1: first event of each segment, then s->n */
    uint8_t  *seg_path;  /* nseg                                            */
    size_t    nseg;
    double   *raw;       /* MM_PATH_KEYS * reps_cap: measured ns per key and rep */
    double   *tmp;       /* reps_cap                                        */
    unsigned  reps_cap;
} mm_paths;

int  mm_paths_init(mm_paths *p, const mm_stream *s, unsigned max_reps, char *err, size_t errlen);
void mm_paths_free(mm_paths *p);

/* Classify every event from the outcomes out[] of a replay of p->s (an
 * mm_replay's out after mm_replay_run) and cut the segments: maximal runs of
 * one key (one path; with by_class, one path and one class). */
void mm_paths_classify(mm_paths *p, const uint64_t *out);

/* by_class: one untimed run of the classified stream on a fresh engine that
 * reads the engine's statistics after every event and charges the searches
 * and compared elements of each side to the event's class (res->count).
 * Call after mm_paths_run (which zeroes res). Same returns as mm_paths_run. */
int  mm_paths_count(mm_paths *p, mm_replay *r, const mm_engine_info *engine,
                    const mm_config *cfg, uint64_t hash, mm_paths_result *res, char *err,
                    size_t errlen);

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
/* The "paths" object of a result in mpimatch-replay's JSON; with by_class,
 * the "classes" object (docs/replay.md, "Element classes"). */
void mm_paths_json(struct mmj *j, const mm_paths_result *res);
/* The table printed under an engine's row. */
void mm_paths_table(FILE *f, const char *engine, const mm_paths_result *res);

#endif /* MM_TOOLS_REPLAY_PATHS_H */
