/*
 * conv_internal.h - the converter's working state, shared by its parts:
 * conv_load.c (trace files, clocks, communicators), conv_p2p.c
 * (point-to-point records), conv_coll.c (collective expansion),
 * conv_model.c (network model), conv_write.c (streams and index.json).
 */
#ifndef MM_TOOLS_CONV_INTERNAL_H
#define MM_TOOLS_CONV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "convert.h"
#include "json.h"
#include "stream.h"
#include "trace_read.h"

/* Sort classes of events at equal times (docs/convert.md, "Ties"): calls of
 * the rank first, then arrivals, then probes placed at the arrival of the
 * message they found. */
enum { CV_CLS_CALL = 0, CV_CLS_ARRIVAL = 1, CV_CLS_AFTER = 2 };

/* One event of a rank's stream before sorting. For C, ev.id holds the
 * index (in the rank's event array) of its R until ids are assigned. */
typedef struct cv_ev {
    uint64_t t;    /* aligned ns                                   */
    uint64_t seq;  /* tie order within a class                     */
    uint8_t  cls;
    mm_event ev;
} cv_ev;

typedef struct cv_evs { cv_ev *v; size_t n, cap; } cv_evs;

/* A message: point-to-point or one transfer of a collective. */
typedef struct cv_msg {
    uint64_t t_send, t_arr; /* aligned ns                              */
    uint64_t bytes;
    uint64_t tcomm;         /* trace communicator id                   */
    int32_t  src_w, dst_w;  /* world ranks                             */
    int32_t  src_c, tag;    /* source as the receiver's engine sees it */
    int32_t  comm;          /* stream communicator id                  */
    uint32_t np, call;      /* collective attributes                   */
    uint8_t  kind, coll_op;
} cv_msg;

/* A receive-side operation that takes (CONSUME) or looks at (PEEK) the next
 * message of a (communicator, source, tag) in the traced run. */
enum { CV_OP_CONSUME = 1, CV_OP_PEEK = 2 };
typedef struct cv_op {
    uint64_t tcomm;
    int32_t  src_w, tag;
    size_t   ev;            /* index of its R/P/X in the rank's events  */
    uint8_t  kind;          /* CV_OP_*, 0 while an IRECV is unresolved  */
} cv_op;

typedef struct cv_rank {
    char       *path;
    mmt_reader *rd;         /* kept open: its communicator table        */
    mmt_header  h;
    mmt_record *rec;
    size_t      nrec;
    int64_t     shift;      /* aligned time = t - shift - rate*(t - rbase) */
    double      rate;       /* clock drift against the reference host  */
    int64_t     rbase;
    int32_t     node;       /* host index                               */
    cv_evs      evs;
    cv_op      *ops;
    size_t      nops, capops;
} cv_rank;

/* A clock domain (a host) and what causal alignment found for it
 * (conv_clock.c). Offsets are of the trace's own alignment: aligned time =
 * time after --clock trace/first-record - corr - rate * that time. */
typedef struct cv_dom {
    int32_t  rank;          /* its first rank (the host's name is there) */
    int64_t  base;          /* shift of the trace alignment vs host 0   */
    int64_t  corr;          /* causal correction                        */
    double   rate;          /* drift (ns per ns), 0 unless fitted       */
    int64_t  lo, hi;        /* window of corr causality allows (CV_UNB) */
    uint64_t sent, received;/* matched messages to and from other hosts */
} cv_dom;
#define CV_UNB INT64_MAX     /* an unbounded side of a window            */

typedef struct cv_conv {
    const mm_conv_opts *o;
    int32_t   n;            /* world size                               */
    cv_rank  *r;
    int       lib;          /* selection rules used                     */
    char      mpi[32];      /* from the trace headers                   */
    int       has_index;
    uint64_t *comm_ids;     /* sorted trace ids; stream id = index      */
    size_t    ncomm;
    cv_msg   *msg;
    size_t    nmsg, capmsg;
    char    **warn;
    size_t    nwarn, capwarn;
    /* counts for the summary and index.json */
    uint64_t  coll_calls, coll_expanded, coll_xfers, p2p_msgs;
    uint64_t  skipped_nocomm, skipped_coll, unpaired;
    uint64_t  skipped_op[32]; /* collective calls not expanded, by trace op */
    /* calls expanded with a stand-in for the library's algorithm
     * (mm_coll_choice.substitute), by trace op, with the first rule seen */
    uint64_t    substituted_op[32];
    const char *substituted_rule[32];
    /* calls whose chosen algorithm the expansion refused (mm_coll_check):
     * a disagreement between the selection rules and the schedules, which
     * tests/gen/test_coll_algo.c's test_auto sweeps for; by trace op, with
     * the algorithm, rule and reason of the first one */
    uint64_t    refused_op[32];
    int         refused_alg[32];
    const char *refused_rule[32];
    char        refused_why[32][160];
    /* clocks (conv_clock.c) */
    cv_dom     *dom;
    int32_t     ndom;
    const char *clock_result; /* one word: docs/convert.md, "Clocks"    */
    uint64_t    clock_msgs;   /* matched messages between hosts         */
    uint64_t    viol_trace;   /* of those, received before sent, with
                                 the trace's alignment                  */
    uint64_t    viol_final;   /* ... with the alignment used            */
    uint64_t    viol_best;    /* ... with the best fit (inconsistent)   */
    /* partial traces: calls the source did not record, as the trace's
     * index.json lists them ("imported": {"not_recorded": {...}}), and
     * rank files cut short */
    char      **nr_name;
    uint64_t   *nr_count;
    size_t      n_nr;
    uint64_t    cut_short;
} cv_conv;

/* conv_load.c */
int  cv_load(cv_conv *c, char *err, size_t errlen);
void cv_free(cv_conv *c);
int  cv_warn(cv_conv *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Stream communicator id of a trace id, or -1. */
int32_t cv_comm_id(const cv_conv *c, uint64_t tcomm);
/* Aligned time of a trace time of rank r (0 for the few records, such as
 * the world's COMM, stamped before the earliest MPI_Init return). */
static inline uint64_t cv_time(const cv_rank *r, uint64_t t)
{
    int64_t x = (int64_t)t - r->shift;
    if (r->rate != 0)
        x -= (int64_t)(r->rate * (double)((int64_t)t - r->rbase));
    return x > 0 ? (uint64_t)x : 0;
}
/* A progress bar line on o->progress (NULL: none): what, done of total. */
void cv_progress(const cv_conv *c, const char *what, int64_t done, int64_t total);
int  cv_push_ev(cv_evs *e, const cv_ev *x);
int  cv_push_msg(cv_conv *c, const cv_msg *m);

/* conv_clock.c: correct r->shift (the trace's alignment, before the
 * earliest MPI_Init is made 0) by message causality; fills c->dom. */
int  cv_clock(cv_conv *c, char *err, size_t errlen);
/* What it found: lines on f (NULL: none), the "clock" member of index.json. */
void cv_clock_print(const cv_conv *c, FILE *f);
void cv_clock_json(const cv_conv *c, mmj *j);

/* Is the trace partial (calls not recorded, files cut short)? */
static inline int cv_partial(const cv_conv *c) { return c->n_nr > 0 || c->cut_short > 0; }

/* conv_model.c */
const mm_loggp *cv_link(const cv_conv *c, int32_t src_w, int32_t dst_w);
/* Arrival of a message sent at t on an idle link (o + L + G per byte). */
uint64_t cv_arrival(const mm_loggp *p, uint64_t t, uint64_t bytes);
/* Every message's final arrival: sender gaps and non-overtaking. */
int  cv_model(cv_conv *c, size_t **order, char *err, size_t errlen);

/* conv_p2p.c */
int  cv_p2p(cv_conv *c, char *err, size_t errlen);
/* Pair receive-side operations with messages and place found probes. */
int  cv_pair(cv_conv *c, char *err, size_t errlen);

/* conv_coll.c */
int  cv_coll(cv_conv *c, char *err, size_t errlen);

/* conv_write.c */
/* A partial trace: a line on o->info and a warning (0 or MMS_ENOMEM). */
int  cv_partial_note(cv_conv *c);
int  cv_write(cv_conv *c, const size_t *order, char *err, size_t errlen);

#endif /* MM_TOOLS_CONV_INTERNAL_H */
