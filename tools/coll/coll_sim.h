/*
 * coll_sim.h - the arrival model behind the collective and application
 * workloads: a whole job of n ranks is simulated in time, and the events one
 * observed rank's matching engine sees (its posted receives and the
 * messages arriving at it) are written as a stream (docs/collectives.md,
 * "Arrival model").
 *
 * Every rank has a clock (ns). A collective call runs the transfers of
 * coll_algo.h step by step: in step s a rank posts its receives and sends at
 * its current clock; a message arrives latency + bytes * ns_per_byte after
 * it was sent (and never before an earlier message on the same channel into
 * the observed rank: MPI's non-overtaking rule); after the step a rank's
 * clock is the latest arrival it waited for. Before each call every rank
 * draws a seeded delay in [0, skew], so some ranks enter late and their
 * partners' messages arrive before the matching receive is posted
 * (unexpected messages), others early (receives wait in the posted queue).
 * Point-to-point phases work the same way with receives posted at once and
 * one wait for all of them (MPI_Irecv ... MPI_Waitall).
 *
 * Events are collected with their times and written in time order (ties in
 * the order they were produced) with ids 1, 2, 3, ...
 */
#ifndef MM_TOOLS_COLL_SIM_H
#define MM_TOOLS_COLL_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "coll_algo.h"
#include "rng.h"
#include "stream.h"

/* Events one run may collect (about 3 GB of memory at most). */
#define MM_CSIM_MAX_EVENTS 50000000ull

typedef struct mm_csim_net {
    uint64_t latency_ns;  /* per message                            */
    uint64_t ps_per_byte; /* picoseconds per byte (1000 = 1 GB/s)   */
    uint64_t skew_ns;     /* largest random delay before each call  */
    uint64_t noise_ns;    /* largest random delay of each collective message's
                             send after its sender is ready (progress noise;
                             0: none, no random draw)                     */
} mm_csim_net;

/* One collective the simulation calls repeatedly: its expansion, computed
 * once (every call of the same operation has the same schedule). */
typedef struct mm_csim_plan {
    mm_coll_desc  d;
    mm_coll_xfer *x;
    size_t        nx;
    int           over;  /* mm_csim_plan_make refused it: over plan_max */
} mm_csim_plan;

typedef struct mm_csim_pend {
    uint64_t t, seq;
    mm_event ev;
} mm_csim_pend;

typedef struct mm_csim {
    int32_t       n, rank, comm;
    mm_csim_net   net;
    mm_rng        rng;
    uint64_t     *clock;   /* per rank                                       */
    uint64_t     *scratch; /* per rank / per transfer of a step               */
    size_t        scratch_cap;
    uint64_t     *last_in; /* per source: latest arrival into the observed rank */
    uint32_t      calls[MM_COLL_OP_COUNT]; /* calls so far per operation       */
    uint32_t      nbc;     /* nonblocking collectives started (their tags)    */
    mm_csim_pend *ev;
    size_t        nev, cap;
    uint64_t      coll_events, p2p_events; /* R and M written, by kind         */
    /* Transfers one plan may have (0: no limit), set by a generator before
     * mm_csim_plan_make: its size limit over the plan's calls, so that a spec
     * too big is refused before a huge plan takes its memory and time. */
    uint64_t      plan_max;
} mm_csim;

int  mm_csim_init(mm_csim *s, int32_t n, int32_t rank, const mm_csim_net *net,
                  uint64_t seed, char *err, size_t errlen);
void mm_csim_free(mm_csim *s);

/* Expand (op, alg, root, bytes) on the simulation's n ranks; alg may be
 * MM_ALG_AUTO (then lib picks, mm_coll_auto). */
int  mm_csim_plan_make(const mm_csim *s, mm_csim_plan *p, int op, int alg, int lib,
                       int32_t root, uint64_t bytes, char *err, size_t errlen);
void mm_csim_plan_free(mm_csim_plan *p);
/* An allreduce of `bytes` as MVAPICH2's reduce_p2p runs it on k-nomial trees
 * of the given radix (coll_mv2.h): the plan's op is MM_COLL_ALLREDUCE, its
 * d.alg MM_ALG_AUTO (the schedule is not one of mm_coll_expand's). */
int  mm_csim_plan_mv2(const mm_csim *s, mm_csim_plan *p, uint32_t radix, uint64_t bytes,
                      char *err, size_t errlen);

/* Every rank computes for mean_ns, plus or minus up to a quarter (seeded). */
void mm_csim_compute(mm_csim *s, uint64_t mean_ns);
/* The same with a lasting load per rank: rank r computes for
 * mean_ns * (1000 + permille[r]) / 1000, plus or minus up to a quarter
 * (an application whose ranks hold different amounts of work). */
void mm_csim_compute_load(mm_csim *s, uint64_t mean_ns, const uint32_t *permille);

/* One call of a planned collective: the skew draw, then its steps. */
int  mm_csim_collective(mm_csim *s, const mm_csim_plan *p, char *err, size_t errlen);

/* `calls` calls of a planned nonblocking collective in flight together, as an
 * application that starts them in groups of `group` calls back to back, a
 * group `stagger` message latencies after the previous one, and waits for
 * all of them (one skew draw). Each call has its own call number and tag
 * (the per-communicator counter) and progresses on its own clocks, as a
 * nonblocking schedule does: a rank sends a call's step as soon as its
 * receives of that call's earlier steps are in, whatever the other calls
 * do; so the observed rank holds receives and unexpected messages of
 * several calls, from several peers, at once. Calls may overtake each other
 * on a channel (their tags differ), never an earlier message of the same
 * call. calls = 1 is mm_csim_collective. MMS_EFORMAT for calls outside
 * 1..256, group or stagger 0, or calls > 1 of a blocking operation;
 * MMS_ENOMEM possible. */
int  mm_csim_pipeline(mm_csim *s, const mm_csim_plan *p, uint32_t calls, uint32_t group,
                      uint32_t stagger, char *err, size_t errlen);

/* A point-to-point phase: every rank p receives one message of the given
 * bytes and tag from each rank from(ctx, p, i) for i = 0, 1, ... until it
 * returns -1, and sends to whoever receives from it. The observed rank's
 * receives are posted with MPI_ANY_SOURCE when anysrc is nonzero (use a tag
 * no specific-source receive uses, so every receive still finds its own
 * message). */
typedef int32_t (*mm_csim_from_fn)(const void *ctx, int32_t p, int i);
int  mm_csim_p2p(mm_csim *s, mm_csim_from_fn from, const void *ctx, uint64_t bytes,
                 int32_t tag, int anysrc, char *err, size_t errlen);

/* One call of a planned collective overlapped with a point-to-point phase
 * (as mm_csim_p2p: every rank p receives from from(ctx, p, i), specific
 * sources, the given tag and bytes): one skew draw, then the collective's
 * first step and the whole phase in one step, the observed rank posting the
 * collective's receives of that step first, then the phase's; then the
 * collective's other steps. So point-to-point messages search among the
 * collective's posted receives, and collective receives among unexpected
 * point-to-point messages. MMS_ENOMEM possible. */
int  mm_csim_overlap(mm_csim *s, const mm_csim_plan *p, mm_csim_from_fn from, const void *ctx,
                     uint64_t bytes, int32_t tag, char *err, size_t errlen);

/* What one call costs, for checking a run's size before simulating it:
 * events at the observed rank (a receive and a message per transfer into
 * it) and simulated transfers (every rank's). */
typedef struct mm_csim_cost {
    uint64_t events, transfers;
} mm_csim_cost;
mm_csim_cost mm_csim_plan_cost(const mm_csim *s, const mm_csim_plan *p);
mm_csim_cost mm_csim_p2p_cost(const mm_csim *s, mm_csim_from_fn from, const void *ctx);

/* Write the collected events, in time order, into s_out (declaring np = n)
 * and forget them. */
int  mm_csim_write(mm_csim *s, mm_stream *out, char *err, size_t errlen);

#endif /* MM_TOOLS_COLL_SIM_H */
