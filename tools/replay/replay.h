/*
 * replay.h - run a finalized stream through an engine and record what
 * happens, timing the event loop.
 *
 * Outcomes are kept per event in an array preallocated once per stream
 * (no allocation per event): for an R or M the index of the partner it
 * matched at that moment, for a P or X the index of the message found, for
 * a C the index of the receive it cancelled; MM_OUT_NONE when nothing was
 * matched, found or cancelled. The outcome lines are derived from it in
 * event order, which is the order in which matches happen (a match is
 * reported by whichever of the pair came second).
 */
#ifndef MM_TOOLS_REPLAY_H
#define MM_TOOLS_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "mpimatch.h"
#include "stream.h"

#define MM_OUT_NONE UINT64_MAX

enum {
    MMR_OK       = 0,
    MMR_ELIB     = -1, /* the library returned an error at an event      */
    MMR_ECREATE  = -2, /* mm_create failed (unknown engine, bad params)  */
    MMR_EUNSTABLE = -3, /* repetitions produced different outcomes       */
    MMR_EENGINE  = -4, /* the engine answered something impossible      */
    MMR_ENOMEM   = -5, /* out of memory (also the library's MM_ENOMEM)   */
    MMR_ESTATE   = -6  /* unfinalized stream, zero repetitions          */
};

typedef struct mm_replay_counts {
    uint64_t matches, probe_hits, probe_misses, mprobe_hits, mprobe_misses;
    uint64_t cancel_ok, cancel_miss;
} mm_replay_counts;

typedef struct mm_replay_result {
    double   ns_median, ns_q1, ns_q3, ns_min; /* per event, over the timed reps */
    mm_replay_counts counts;   /* from the last repetition                  */
    mm_stats stats;            /* mm_get_stats after the last repetition    */
    uint64_t hash;             /* hash of the outcome array                 */
    uint64_t fail_line;        /* MMR_ELIB/MMR_EENGINE: the event's line    */
    int      lib_status;       /* MMR_ELIB/MMR_ECREATE: the library status  */
} mm_replay_result;

/* Scratch for replaying one stream; reused for every engine and repetition. */
/* An event as the timed loop reads it: the library's own argument, built
 * before the clock starts (the loop passes a pointer, copies nothing), plus
 * what the loop needs to dispatch it; 48 bytes against mm_event's 72, so that
 * streaming through the events evicts less of the engine's working set. */
/* The timed loop's event types, decoded once at mm_replay_init: a receive
 * whose handle a C needs is its own type, so the loop tests no ref for the
 * others. In the order the loop tests them. */
enum mm_tev_type {
    MM_TEV_MSG, MM_TEV_RECV, MM_TEV_RECV_REF, MM_TEV_PROBE, MM_TEV_MPROBE, MM_TEV_CANCEL
};

typedef struct mm_timed_event {
    mm_entry en;        /* R/M: the entry, cookie = event index; P/X: the key */
    uint8_t  type;      /* enum mm_tev_type (decoded from mm_event_type)      */
    uint32_t ref;       /* R: cancel-handle slot + 1 (0: none); C: R's slot   */
} mm_timed_event;

typedef struct mm_replay {
    const mm_stream *s;
    mm_timed_event *tev; /* s->n events in timed form                      */
    uint64_t  *out;      /* s->n outcomes of the most recent run           */
    mm_handle *handles;  /* s->nslots handles of receives a C names        */
    uint8_t   *queued;   /* s->nslots: 1 while the handle names a queued R  */
    double    *times;    /* ns per event of each timed repetition           */
    unsigned   reps_cap;
    int        fresh;    /* --entries fresh: each call's entry is written,
                            field by field, just before the call (as a
                            runtime builds it), not read from tev          */
} mm_replay;

int  mm_replay_init(mm_replay *r, const mm_stream *s, unsigned max_reps,
                    char *err, size_t errlen);
void mm_replay_free(mm_replay *r);

/* Create the engine (looked up once by the caller: mm_engine_find, or the
 * plan of replay_engines.h) fresh for each run: `warmup` untimed runs (0 or 1),
 * then `reps` timed ones. Every run must give the same outcomes. r->out
 * holds those of the last run. On error, err names the engine, the stream
 * location and the reason. */
int  mm_replay_run(mm_replay *r, const mm_engine_info *engine, const mm_config *cfg,
                   unsigned warmup, unsigned reps, mm_replay_result *res,
                   char *err, size_t errlen);

/* The harness floor: the same loop over the same events, each handed to a
 * null path (a call that searches nothing, answers "queued" or "not
 * found") instead of the library; one warm-up, then `reps` timed runs.
 * *ns_median: the median ns per event, what every engine's time includes
 * besides the API layer and the engine itself. Leaves r->out undefined. */
int  mm_replay_floor(mm_replay *r, unsigned reps, double *ns_median, char *err, size_t errlen);

/* ---- outcomes (outcomes.c) ---- */

/* The outcome line of event i ("3 7", "P 9 -", "C 4 ok") without newline;
 * returns its length, or 0 if the event produced no outcome (an R or M
 * that was queued). A buffer of 64 bytes always suffices. */
int  mm_outcome_format(const mm_stream *s, size_t i, uint64_t out, char *buf, size_t len);
/* Write every outcome line, each ended by '\n'. */
int  mm_outcomes_write(const mm_stream *s, const uint64_t *out, mm_sink_fn sink, void *ctx);
/* Count matches, probe hits and misses, cancels. */
void mm_outcomes_count(const mm_stream *s, const uint64_t *out, mm_replay_counts *c);
/* Check that every outcome is possible: partners of the right type that
 * came earlier. Returns the index of the first bad event, or -1. */
long long mm_outcomes_check(const mm_stream *s, const uint64_t *out);
/* First event where a and b differ, or -1; *outcome_index (may be NULL)
 * receives the number of outcome lines before it in a. */
long long mm_outcomes_diff(const mm_stream *s, const uint64_t *a, const uint64_t *b,
                           uint64_t *outcome_index);
uint64_t  mm_outcomes_hash(const uint64_t *out, size_t n);

#endif /* MM_TOOLS_REPLAY_H */
