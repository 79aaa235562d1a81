/*
 * replay.c - the replay loop and its timing.
 *
 * The timed loop does nothing but call the engine and store one word per
 * event; checking outcomes, counting and hashing happen after the clock
 * stops, so every engine pays the same small fixed overhead.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay.h"
#include "replay_stats.h"

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

static uint8_t tev_type(uint8_t type, uint64_t ref)
{
    switch (type) {
    case MM_EV_MSG:    return MM_TEV_MSG;
    case MM_EV_RECV:   return ref ? MM_TEV_RECV_REF : MM_TEV_RECV;
    case MM_EV_PROBE:  return MM_TEV_PROBE;
    case MM_EV_MPROBE: return MM_TEV_MPROBE;
    default:           return MM_TEV_CANCEL;
    }
}

int mm_replay_init(mm_replay *r, const mm_stream *s, unsigned max_reps, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!s->finalized || max_reps == 0)
        return fail(err, errlen, MMR_ESTATE, "replay: stream not finalized or no repetitions");
    r->s = s;
    r->reps_cap = max_reps;
    if (s->nslots >= UINT32_MAX)
        return fail(err, errlen, MMR_ESTATE, "replay: %zu cancellable receives exceed the "
                    "timed loop's 32-bit handle slots", s->nslots);
    /* +1 everywhere: malloc(0) may return NULL. */
    r->tev = malloc((s->n + 1) * sizeof *r->tev);
    r->out = malloc((s->n + 1) * sizeof *r->out);
    r->handles = malloc((s->nslots + 1) * sizeof *r->handles);
    r->queued = malloc(s->nslots + 1);
    r->times = malloc((size_t)max_reps * sizeof *r->times);
    if (!r->tev || !r->out || !r->handles || !r->queued || !r->times) {
        mm_replay_free(r);
        return fail(err, errlen, MMR_ENOMEM, "replay: out of memory for %zu events", s->n);
    }
    for (size_t i = 0; i < s->n; i++) {
        const mm_event *x = &s->ev[i];
        /* A C names its R's handle slot directly: one lookup less per cancel. */
        uint64_t ref = x->type == MM_EV_CANCEL ? s->ev[x->ref].ref - 1 : x->ref;
        r->tev[i] = (mm_timed_event){
            { x->comm, x->src, x->tag, x->kind, x->coll_op, 0, x->comm_size, x->call, x->bytes,
              (uintptr_t)i },
            tev_type(x->type, ref), (uint32_t)ref };
    }
    return MMR_OK;
}

void mm_replay_free(mm_replay *r)
{
    free(r->tev);
    free(r->out);
    free(r->handles);
    free(r->queued);
    free(r->times);
    memset(r, 0, sizeof *r);
}

/* Expected statuses: post/arrive queue or match; probe/mprobe/cancel match
 * or find nothing. Anything else non-negative is an engine bug. */
/* How the loop hands an event over: the library's API, or the null path of
 * the floor measurement (mm_replay_floor). One loop serves both, so the
 * floor costs exactly what the loop costs around each call. */
typedef struct dispatch {
    int (*post)(mm_engine *, const mm_entry *, mm_handle *, uintptr_t *);
    int (*arrive)(mm_engine *, const mm_entry *, uintptr_t *);
    int (*probe)(mm_engine *, int32_t, int32_t, int32_t, uintptr_t *);
    int (*mprobe)(mm_engine *, int32_t, int32_t, int32_t, uintptr_t *);
    int (*cancel)(mm_engine *, mm_handle);
} dispatch;

static const dispatch api_dispatch = { mm_post, mm_arrive, mm_probe, mm_mprobe, mm_cancel };

/* The null path: a call that searches nothing and queues everything. Not
 * inlined, not specialized (gcc's noipa: no clone that drops the unused
 * arguments), and opaque to the optimizer (the empty asm), so each event
 * still pays a real call with its arguments, as through the API. */
#if defined(__GNUC__) && !defined(__clang__)
#define NULL_FN __attribute__((noipa))
#else
#define NULL_FN __attribute__((noinline))
#endif
#define NULL_BODY(ret) do { __asm__ volatile("" ::: "memory"); return ret; } while (0)
static NULL_FN int null_post(mm_engine *e, const mm_entry *x, mm_handle *h,
                                               uintptr_t *p)
{
    (void)e, (void)x, (void)h, (void)p;
    NULL_BODY(MM_QUEUED);
}
static NULL_FN int null_arrive(mm_engine *e, const mm_entry *x, uintptr_t *p)
{
    (void)e, (void)x, (void)p;
    NULL_BODY(MM_QUEUED);
}
static NULL_FN int null_probe(mm_engine *e, int32_t c, int32_t s, int32_t t,
                                                uintptr_t *p)
{
    (void)e, (void)c, (void)s, (void)t, (void)p;
    NULL_BODY(MM_NOTFOUND);
}
static NULL_FN int null_cancel(mm_engine *e, mm_handle h)
{
    (void)e, (void)h;
    NULL_BODY(MM_NOTFOUND);
}

static const dispatch null_dispatch = { null_post, null_arrive, null_probe, null_probe,
                                        null_cancel };

/* The partner a call reports is written straight into the outcome array. */
_Static_assert(_Generic((uint64_t *)0, uintptr_t *: 1, default: 0),
               "the outcome array doubles as the calls' partner argument");

/* --entries fresh: write e's fields into *f one store each (volatile: the
 * compiler may neither merge them into wider stores nor drop them), as a
 * runtime fills its entry from the places it learns each field from just
 * before the call. The library then reads stores that have not reached the
 * cache yet, which a replay of entries written before the timing never
 * shows (docs/replay.md, "Entries"). */
static inline __attribute__((always_inline)) void write_fresh(mm_entry *f, const mm_entry *e)
{
    volatile mm_entry *v = f;
    v->comm = e->comm;
    v->src = e->src;
    v->tag = e->tag;
    v->kind = e->kind;
    v->coll_op = e->coll_op;
    v->reserved = 0;
    v->comm_size = e->comm_size;
    v->call = e->call;
    v->bytes = e->bytes;
    v->cookie = e->cookie;
}

_Static_assert(MM_TEV_MSG < MM_TEV_RECV_REF && MM_TEV_RECV < MM_TEV_RECV_REF &&
               MM_TEV_RECV_REF < MM_TEV_PROBE && MM_TEV_RECV_REF < MM_TEV_CANCEL,
               "the calls that take an entry are the types up to MM_TEV_RECV_REF");

/* One pass over the stream. Returns the library status that stopped it
 * (negative or unexpected) and sets *at, or MM_QUEUED when all went well.
 * fresh: the entries are written by write_fresh before each call. */
static inline __attribute__((always_inline)) int run_loop(mm_replay *r, mm_engine *eng, size_t *at,
                                                          const dispatch *d, const int fresh)
{
    const mm_timed_event *const ev = r->tev, *const end = ev + r->s->n;
    uint64_t *o = r->out;
    mm_handle *hs = r->handles;
    uint8_t *queued = r->queued;

    /* Each event's outcome starts as "none"; the library writes the
     * partner over it only on a match (post, arrive, probe, mprobe), so the
     * loop itself never looks at the partner. (A memset of the outcomes
     * before the loop instead of the store is no cheaper: glibc's rep stosb
     * counts as one instruction per byte under callgrind, and a vector loop
     * is about one instruction per event.) Each case checks its own status
     * (R, M: QUEUED or MATCHED, 0..1; P, X, C: MATCHED or NOTFOUND, 1..2)
     * with one unsigned compare, and the common cases come first. */
    const mm_timed_event *x = ev;
    mm_entry f;
    for (; x != end; x++, o++) {
        int rc;
        unsigned type = x->type;
        const mm_entry *en = &x->en;
        *o = MM_OUT_NONE;
        if (fresh && type <= MM_TEV_RECV_REF) {
            write_fresh(&f, en);
            en = &f;
        }
        if (type == MM_TEV_MSG) {
            rc = d->arrive(eng, en, o);
            if ((unsigned)rc > MM_MATCHED)
                goto bad;
        } else if (type == MM_TEV_RECV) {
            rc = d->post(eng, en, NULL, o);
            if ((unsigned)rc > MM_MATCHED)
                goto bad;
        } else if (type == MM_TEV_RECV_REF) {
            /* Some C names this receive: keep its handle. */
            uint32_t ref = x->ref;
            rc = d->post(eng, en, &hs[ref - 1], o);
            queued[ref - 1] = rc == MM_QUEUED;
            if ((unsigned)rc > MM_MATCHED)
                goto bad;
        } else {
            if (type == MM_TEV_PROBE) {
                rc = d->probe(eng, x->en.comm, x->en.src, x->en.tag, o);
            } else if (type == MM_TEV_MPROBE) {
                rc = d->mprobe(eng, x->en.comm, x->en.src, x->en.tag, o);
            } else { /* MM_EV_CANCEL; ref is its R's handle slot */
                uint32_t slot = x->ref;
                /* A receive matched at post time never had a handle: a miss.
                 * Otherwise the library answers NOTFOUND for a matched or
                 * already cancelled receive. */
                rc = queued[slot] ? d->cancel(eng, hs[slot]) : MM_NOTFOUND;
                if (rc == MM_MATCHED) {
                    queued[slot] = 0; /* a second C on it is a miss */
                    *o = (uint64_t)r->s->ev[x - ev].ref;
                }
            }
            if ((unsigned)(rc - MM_MATCHED) > MM_NOTFOUND - MM_MATCHED)
                goto bad;
        }
        continue;
    bad:
        *at = (size_t)(x - ev);
        return rc;
    }
    return MM_QUEUED;
}

static int run_events(mm_replay *r, mm_engine *eng, size_t *at)
{
    return r->fresh ? run_loop(r, eng, at, &api_dispatch, 1) : run_loop(r, eng, at, &api_dispatch, 0);
}

/* Integer nanoseconds: a double would lose precision on long uptimes. */
static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int mm_replay_run(mm_replay *r, const mm_engine_info *info, const mm_config *cfg,
                  unsigned warmup, unsigned reps, mm_replay_result *res,
                  char *err, size_t errlen)
{
    const char *engine = info ? info->name : "(none)";
    const mm_stream *s = r->s;
    char where[512], cerr[512];
    memset(res, 0, sizeof *res);
    if (reps == 0 || reps > r->reps_cap || warmup > 1)
        return fail(err, errlen, MMR_ESTATE, "replay: bad repetition count %u", reps);

    uint64_t first_hash = 0;
    for (unsigned run = 0; run < warmup + reps; run++) {
        mm_engine *eng = NULL;
        cerr[0] = '\0';
        int rc = mm_create_from(&eng, info, cfg, cerr, sizeof cerr);
        if (rc < 0 || !eng) {
            res->lib_status = rc;
            return fail(err, errlen, rc == MM_ENOMEM ? MMR_ENOMEM : MMR_ECREATE,
                        "cannot create engine '%s': %s", engine,
                        cerr[0] ? cerr : mm_strerror(rc));
        }
        if (s->nslots)
            memset(r->queued, 0, s->nslots);

        size_t at = 0;
        int64_t t0 = now_ns();
        rc = run_events(r, eng, &at);
        int64_t t1 = now_ns();

        if (rc == MM_QUEUED && run + 1 == warmup + reps) {
            rc = mm_get_stats(eng, &res->stats);
            if (rc < 0) {
                mm_destroy(eng);
                res->lib_status = rc;
                return fail(err, errlen, MMR_ELIB, "engine '%s': mm_get_stats: %s", engine,
                            mm_strerror(rc));
            }
            rc = MM_QUEUED;
        }
        mm_destroy(eng);

        if (rc != MM_QUEUED) {
            res->fail_line = s->ev[at].line;
            res->lib_status = rc;
            mm_stream_where(s, s->ev[at].line, where, sizeof where);
            if (rc < 0)
                return fail(err, errlen, rc == MM_ENOMEM ? MMR_ENOMEM : MMR_ELIB, "%sengine '%s': %s",
                            where, engine, mm_strerror(rc));
            return fail(err, errlen, MMR_EENGINE, "%sengine '%s' returned unexpected status %d",
                        where, engine, rc);
        }
        long long bad = mm_outcomes_check(s, r->out);
        if (bad >= 0) {
            res->fail_line = s->ev[bad].line;
            mm_stream_where(s, s->ev[bad].line, where, sizeof where);
            return fail(err, errlen, MMR_EENGINE,
                        "%sengine '%s' named an impossible partner (cookie %llu)", where, engine,
                        (unsigned long long)r->out[bad]);
        }
        uint64_t h = mm_outcomes_hash(r->out, s->n);
        if (run == 0)
            first_hash = h;
        else if (h != first_hash)
            return fail(err, errlen, MMR_EUNSTABLE,
                        "engine '%s': run %u produced different outcomes than run 1", engine, run + 1);
        if (run >= warmup)
            r->times[run - warmup] = s->n ? (double)(t1 - t0) / (double)s->n : 0.0;
    }

    res->hash = first_hash;
    mm_outcomes_count(s, r->out, &res->counts);
    mm_quartiles q = mm_quartiles_of(r->times, reps);
    res->ns_min = q.min;
    res->ns_q1 = q.q1;
    res->ns_median = q.median;
    res->ns_q3 = q.q3;
    return MMR_OK;
}

int mm_replay_floor(mm_replay *r, unsigned reps, double *ns_median, char *err, size_t errlen)
{
    const mm_stream *s = r->s;
    if (reps == 0 || reps > r->reps_cap)
        return fail(err, errlen, MMR_ESTATE, "replay: bad repetition count %u", reps);
    for (unsigned run = 0; run < 1 + reps; run++) { /* one warm-up */
        size_t at = 0;
        if (s->nslots)
            memset(r->queued, 0, s->nslots);
        int64_t t0 = now_ns();
        int rc = r->fresh ? run_loop(r, NULL, &at, &null_dispatch, 1)
                          : run_loop(r, NULL, &at, &null_dispatch, 0);
        int64_t t1 = now_ns();
        if (rc != MM_QUEUED)
            return fail(err, errlen, MMR_EENGINE, "replay: the null path stopped at event %zu", at);
        if (run > 0)
            r->times[run - 1] = s->n ? (double)(t1 - t0) / (double)s->n : 0.0;
    }
    *ns_median = mm_quartiles_of(r->times, reps).median;
    return MMR_OK;
}
