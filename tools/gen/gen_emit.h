/*
 * gen_emit.h - what generators share: appending receives and messages with
 * consecutive ids, the size limit, and the seeded thread scheduler that
 * models nondeterministic interleaving (docs/workloads.md).
 */
#ifndef MM_TOOLS_GEN_EMIT_H
#define MM_TOOLS_GEN_EMIT_H

#include <stddef.h>
#include <stdint.h>
#include "gen.h"

/* The most events one workload may have: a generated stream lives in
 * memory (about 100 bytes per event with its id index), so a typo such as
 * n=1000000,rounds=1000 fails at once instead of exhausting memory. */
#define MM_GEN_MAX_EVENTS ((uint64_t)1 << 24)

/* The most transfers a simulated run (tools/coll/coll_sim.h) may model:
 * the simulation's time grows with every rank's transfers, not only with
 * the observed rank's events. */
#define MM_GEN_MAX_SIM_TRANSFERS 4000000000ull

/* a * b + c, saturating at UINT64_MAX: sizes computed from a spec. */
static inline uint64_t mm_gen_muladd(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m;
    if (__builtin_mul_overflow(a, b, &m) || m > UINT64_MAX - c)
        return UINT64_MAX;
    return m + c;
}

/* Check a workload's size computed from its spec, before generating it:
 * MMS_OK, or MMS_EFORMAT with "NAME: the workload would have N events,
 * more than the limit of M; lower WHAT" (or the same for simulated
 * transfers; transfers 0 when nothing is simulated) in err; "over N" when
 * at_least (the counts leave out a refused plan) or N saturated. */
int mm_gen_check_size(const char *name, uint64_t events, uint64_t transfers, int at_least,
                      const char *what, char *err, size_t errlen);
/* The transfers one collective plan may have when it is called `times`
 * times (mm_csim.plan_max): the limit of the whole simulation over times,
 * so a spec that is too big is refused while its plan is being made, before
 * the plan takes its memory (8 GB for some at n=16384). Plans of up to
 * MM_GEN_PLAN_FLOOR transfers (128 MB) are always made, so that the usual
 * refusals still give the workload's exact size. */
#define MM_GEN_PLAN_FLOOR ((uint64_t)1 << 22)
static inline uint64_t mm_gen_plan_max(uint64_t times)
{
    uint64_t max = MM_GEN_MAX_SIM_TRANSFERS / (times ? times : 1);
    return max > MM_GEN_PLAN_FLOOR ? max : MM_GEN_PLAN_FLOOR;
}

/* The message of a plan refused by plan_max (mm_csim_plan.over), why being
 * mm_csim_plan_make's: "NAME: WHY: the simulation would be over its limit". */
void mm_gen_plan_over(const char *name, const char *why, char *err, size_t errlen);


/* Where a generator appends events: ids count up from 1. */
typedef struct mm_gen_out {
    mm_stream *s;
    uint64_t   next_id;
    char      *err;
    size_t     errlen;
} mm_gen_out;

static inline void mm_gen_out_init(mm_gen_out *o, mm_stream *s, char *err, size_t errlen)
{
    o->s = s;
    o->next_id = 1;
    o->err = err;
    o->errlen = errlen;
}

/* Check that `events` more events stay within MM_GEN_MAX_EVENTS and
 * preallocate them. `what` names the parameters that set the size, for the
 * message ("lower n or rounds"). */
int mm_gen_reserve(mm_gen_out *o, uint64_t events, const char *what);

/* Append one R or M (point-to-point, on communicator 0 unless comm says
 * otherwise). Returns MMS_OK or the push error. */
static inline int mm_gen_event(mm_gen_out *o, int type, int32_t comm, int32_t src,
                               int32_t tag, uint64_t bytes)
{
    mm_event e = mm_event_make(type, o->next_id++, comm, src, tag);
    e.bytes = bytes;
    return mm_stream_push(o->s, &e, o->err, o->errlen);
}

static inline int mm_gen_recv(mm_gen_out *o, int32_t src, int32_t tag, uint64_t bytes)
{
    return mm_gen_event(o, MM_EV_RECV, 0, src, tag, bytes);
}

static inline int mm_gen_msg(mm_gen_out *o, int32_t src, int32_t tag, uint64_t bytes)
{
    return mm_gen_event(o, MM_EV_MSG, 0, src, tag, bytes);
}

/* ---- interleaving threads (or senders) ----
 *
 * Thread t has counts[t] operations that it issues in program order. The
 * scheduler decides which thread issues the next operation:
 *   random      each step, a thread drawn uniformly among those with
 *               operations left (a seeded free-for-all);
 *   roundrobin  threads take turns, one operation each, skipping finished
 *               ones (perfectly fair, deterministic);
 *   sequential  thread 0 issues all its operations, then thread 1, ...
 *               (no overlap at all: the single-threaded order). */
enum { MM_SCHED_RANDOM = 0, MM_SCHED_ROUNDROBIN = 1, MM_SCHED_SEQUENTIAL = 2 };

/* The names, in enum order, NULL-terminated: a ready choice list. */
extern const char *const mm_gen_sched_names[];

/* Write the thread of each of the sum(counts) steps into order[]. Returns
 * MMS_OK, or MMS_ENOMEM with a message in o->err. */
int mm_gen_interleave(mm_gen_out *o, mm_rng *r, int mode, const uint32_t *counts,
                      size_t nthreads, uint32_t *order);

/* As mm_gen_interleave, with threads that run in bursts: `random` draws a
 * thread and lets it issue a run of operations of mean length `burst`
 * (1 + a geometric count; cut at what the thread has left); `roundrobin`
 * gives each turn `burst` operations; `sequential` ignores it. burst 1 is
 * mm_gen_interleave. */
int mm_gen_interleave_burst(mm_gen_out *o, mm_rng *r, int mode, uint32_t burst,
                            const uint32_t *counts, size_t nthreads, uint32_t *order);

/* Each thread's operations, in program order, as one array: thread t's
 * are items[first[t] .. first[t+1]). Built from owner[i], the thread of
 * item i, keeping items in increasing i. */
typedef struct mm_gen_threads {
    uint32_t *first;  /* nthreads + 1 offsets         */
    uint32_t *items;  /* nitems item indices           */
    uint32_t *counts; /* nthreads operations per thread */
    size_t    nthreads, nitems;
} mm_gen_threads;

int  mm_gen_threads_build(mm_gen_out *o, mm_gen_threads *t, const uint32_t *owner,
                          size_t nitems, size_t nthreads);
void mm_gen_threads_free(mm_gen_threads *t);

/* Issue every thread's items in an order drawn by the scheduler: order[k]
 * receives the item issued at step k. */
int  mm_gen_threads_schedule(mm_gen_out *o, const mm_gen_threads *t, mm_rng *r, int mode,
                             uint32_t *order);

/* The same, with threads that run in bursts (mm_gen_interleave_burst). */
int  mm_gen_threads_schedule_burst(mm_gen_out *o, const mm_gen_threads *t, mm_rng *r, int mode,
                                   uint32_t burst, uint32_t *order);

/* Fail with "out of memory" (MMS_ENOMEM) in o->err. */
int  mm_gen_nomem(mm_gen_out *o);

#endif /* MM_TOOLS_GEN_EMIT_H */
