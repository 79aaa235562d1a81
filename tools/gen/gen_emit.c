/*
 * gen_emit.c - size limit, scheduler and per-thread operation lists shared
 * by the generators.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_emit.h"

const char *const mm_gen_sched_names[] = { "random", "roundrobin", "sequential", NULL };

int mm_gen_nomem(mm_gen_out *o)
{
    if (o->err && o->errlen)
        snprintf(o->err, o->errlen, "out of memory");
    return MMS_ENOMEM;
}

int mm_gen_check_size(const char *name, uint64_t events, uint64_t transfers, int at_least,
                      const char *what, char *err, size_t errlen)
{
    const char *sep = name ? ": " : "";
    if (events > MM_GEN_MAX_EVENTS) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%s%sthe workload would have %s%" PRIu64 " events, more than the limit of %" PRIu64
                     "; lower %s",
                     name ? name : "", sep, at_least || events == UINT64_MAX ? "over " : "",
                     events, MM_GEN_MAX_EVENTS, what);
        return MMS_EFORMAT;
    }
    if (transfers > MM_GEN_MAX_SIM_TRANSFERS) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%s%sthe simulation would model %s%" PRIu64 " transfers, more than the limit of %"
                     PRIu64 " (it would take hours); lower %s",
                     name ? name : "", sep, at_least || transfers == UINT64_MAX ? "over " : "",
                     transfers, (uint64_t)MM_GEN_MAX_SIM_TRANSFERS, what);
        return MMS_EFORMAT;
    }
    return MMS_OK;
}

void mm_gen_plan_over(const char *name, const char *why, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen,
                 "%s: %s: the simulation would be over its limit of %" PRIu64
                 " transfers (it would take hours); lower the calls or iterations, or n",
                 name, why, (uint64_t)MM_GEN_MAX_SIM_TRANSFERS);
}

int mm_gen_reserve(mm_gen_out *o, uint64_t events, const char *what)
{
    uint64_t total = mm_gen_muladd(1, o->s->n, events); /* with those already there */
    if (total > MM_GEN_MAX_EVENTS)
        return mm_gen_check_size(NULL, total, 0, 0, what, o->err, o->errlen);
    return mm_stream_reserve(o->s, (size_t)events, o->err, o->errlen);
}

int mm_gen_interleave(mm_gen_out *o, mm_rng *r, int mode, const uint32_t *counts,
                      size_t nthreads, uint32_t *order)
{
    return mm_gen_interleave_burst(o, r, mode, 1, counts, nthreads, order);
}

/* A run length with mean `burst`: 1 + a geometric number of extra
 * operations, each drawn with probability 1 - 1/burst (burst 1: always 1). */
static uint32_t run_length(mm_rng *r, uint32_t burst)
{
    uint32_t n = 1;
    while (burst > 1 && n < UINT32_MAX && mm_rng_below(r, burst) != 0)
        n++;
    return n;
}

int mm_gen_interleave_burst(mm_gen_out *o, mm_rng *r, int mode, uint32_t burst,
                            const uint32_t *counts, size_t nthreads, uint32_t *order)
{
    size_t k = 0;
    if (burst < 1)
        burst = 1;
    if (mode == MM_SCHED_SEQUENTIAL) {
        for (size_t t = 0; t < nthreads; t++)
            for (uint32_t j = 0; j < counts[t]; j++)
                order[k++] = (uint32_t)t;
        return MMS_OK;
    }
    /* live[0..nlive) are the threads with operations left, in thread order
     * for round robin (removal keeps the order); left[] what each has. */
    uint32_t *live = malloc((nthreads + 1) * sizeof *live);
    uint32_t *left = malloc((nthreads + 1) * sizeof *left);
    if (!live || !left) {
        free(live);
        free(left);
        return mm_gen_nomem(o);
    }
    size_t nlive = 0;
    for (size_t t = 0; t < nthreads; t++) {
        left[t] = counts[t];
        if (counts[t])
            live[nlive++] = (uint32_t)t;
    }
    if (mode == MM_SCHED_RANDOM) {
        while (nlive) {
            size_t j = (size_t)mm_rng_below(r, nlive);
            uint32_t t = live[j];
            uint32_t run = run_length(r, burst);
            if (run > left[t])
                run = left[t];
            for (uint32_t q = 0; q < run; q++)
                order[k++] = t;
            left[t] -= run;
            if (left[t] == 0)
                live[j] = live[--nlive]; /* order of live threads is irrelevant here */
        }
    } else {
        while (nlive) {
            size_t keep = 0;
            for (size_t j = 0; j < nlive; j++) {
                uint32_t t = live[j];
                uint32_t run = burst < left[t] ? burst : left[t];
                for (uint32_t q = 0; q < run; q++)
                    order[k++] = t;
                left[t] -= run;
                if (left[t])
                    live[keep++] = t;
            }
            nlive = keep;
        }
    }
    free(live);
    free(left);
    return MMS_OK;
}

void mm_gen_threads_free(mm_gen_threads *t)
{
    free(t->first);
    free(t->items);
    free(t->counts);
    memset(t, 0, sizeof *t);
}

int mm_gen_threads_build(mm_gen_out *o, mm_gen_threads *t, const uint32_t *owner,
                         size_t nitems, size_t nthreads)
{
    memset(t, 0, sizeof *t);
    t->first = calloc(nthreads + 1, sizeof *t->first);
    t->items = malloc((nitems + 1) * sizeof *t->items);
    t->counts = calloc(nthreads + 1, sizeof *t->counts);
    if (!t->first || !t->items || !t->counts) {
        mm_gen_threads_free(t);
        return mm_gen_nomem(o);
    }
    t->nthreads = nthreads;
    t->nitems = nitems;
    for (size_t i = 0; i < nitems; i++)
        t->counts[owner[i]]++;
    for (size_t th = 0; th < nthreads; th++)
        t->first[th + 1] = t->first[th] + t->counts[th];
    /* A counting sort: items stay in increasing index within each thread. */
    uint32_t *fill = t->first; /* advanced below, then restored */
    for (size_t i = 0; i < nitems; i++)
        t->items[fill[owner[i]]++] = (uint32_t)i;
    for (size_t th = nthreads; th > 0; th--)
        t->first[th] = t->first[th - 1];
    t->first[0] = 0;
    return MMS_OK;
}

int mm_gen_threads_schedule(mm_gen_out *o, const mm_gen_threads *t, mm_rng *r, int mode,
                            uint32_t *order)
{
    return mm_gen_threads_schedule_burst(o, t, r, mode, 1, order);
}

int mm_gen_threads_schedule_burst(mm_gen_out *o, const mm_gen_threads *t, mm_rng *r, int mode,
                                  uint32_t burst, uint32_t *order)
{
    uint32_t *next = malloc((t->nthreads + 1) * sizeof *next);
    if (!next)
        return mm_gen_nomem(o);
    int rc = mm_gen_interleave_burst(o, r, mode, burst, t->counts, t->nthreads, order);
    if (rc == MMS_OK) {
        memcpy(next, t->first, t->nthreads * sizeof *next);
        /* order[] holds threads; replace each by that thread's next item. */
        for (size_t k = 0; k < t->nitems; k++)
            order[k] = t->items[next[order[k]]++];
    }
    free(next);
    return rc;
}
