/*
 * replay_paths.c - classify events by matching path, cut the stream into
 * segments of one path, and time the segments (replay_paths.h).
 *
 * The timed loop reads the clock once per segment boundary: segment k's
 * interval runs from the clock read that ended segment k-1 to the one that
 * ends it, so it holds the segment's events plus one clock read, which is
 * what gets subtracted. Within a segment every event has the same type, so
 * each type has its own loop without a switch per event.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay_paths.h"
#include "replay_stats.h"
#include "stream_internal.h"

static const char *const path_names[MM_PATH_COUNT] = {
    "fail_from_recv", "success_from_recv", "fail_from_send", "success_from_send",
    "probe", "mprobe", "cancel",
};

const char *mm_path_name(int path)
{
    return path >= 0 && path < MM_PATH_COUNT ? path_names[path] : NULL;
}

const char *mm_class_name(int cls)
{
    static const char *const names[MM_CLASS_COUNT] = {"p2p", "coll"};
    return cls >= 0 && cls < MM_CLASS_COUNT ? names[cls] : NULL;
}

int mm_paths_init(mm_paths *p, const mm_stream *s, unsigned max_reps, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (!s->finalized || max_reps == 0)
        return mms_fail(MMR_ESTATE, err, errlen, "paths: stream not finalized or no reps");
    p->s = s;
    p->reps_cap = max_reps;
    /* +1 everywhere: malloc(0) may return NULL. */
    p->cls = malloc(s->n + 1);
    p->seg_start = malloc((s->n + 2) * sizeof *p->seg_start);
    p->seg_path = malloc(s->n + 1);
    p->raw = malloc((size_t)MM_PATH_KEYS * max_reps * sizeof *p->raw);
    p->tmp = malloc((size_t)max_reps * sizeof *p->tmp);
    if (!p->cls || !p->seg_start || !p->seg_path || !p->raw || !p->tmp) {
        mm_paths_free(p);
        return mms_fail(MMR_ENOMEM, err, errlen, "paths: out of memory for %zu events", s->n);
    }
    return MMR_OK;
}

void mm_paths_free(mm_paths *p)
{
    free(p->cls);
    free(p->seg_start);
    free(p->seg_path);
    free(p->raw);
    free(p->tmp);
    memset(p, 0, sizeof *p);
}

static int path_of(const mm_event *e, uint64_t out)
{
    int matched = out != MM_OUT_NONE;
    switch (e->type) {
    case MM_EV_RECV:
        return matched ? MM_PATH_SUCCESS_RECV : MM_PATH_FAIL_RECV;
    case MM_EV_MSG:
        return matched ? MM_PATH_SUCCESS_SEND : MM_PATH_FAIL_SEND;
    case MM_EV_PROBE:
        return MM_PATH_PROBE;
    case MM_EV_MPROBE:
        return MM_PATH_MPROBE;
    default:
        return MM_PATH_CANCEL;
    }
}

/* An event's class: its kind for receives and messages; probes, matched
 * probes and cancels carry none. */
static int class_of(const mm_event *e)
{
    return (e->type == MM_EV_RECV || e->type == MM_EV_MSG) && e->kind == MM_KIND_COLL
               ? MM_CLASS_COLL : MM_CLASS_P2P;
}

void mm_paths_classify(mm_paths *p, const uint64_t *out)
{
    const mm_stream *s = p->s;
    p->nseg = 0;
    for (size_t i = 0; i < s->n; i++) {
        int key = path_of(&s->ev[i], out[i]);
        if (p->by_class)
            key += MM_PATH_COUNT * class_of(&s->ev[i]);
        p->cls[i] = (uint8_t)key;
        if (i == 0 || p->cls[i] != p->cls[i - 1]) {
            p->seg_start[p->nseg] = i;
            p->seg_path[p->nseg++] = p->cls[i];
        }
    }
    p->seg_start[p->nseg] = s->n;
}

static inline int64_t clock_read(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double mm_paths_clock_ns(void)
{
    enum { BATCHES = 15, READS = 1000 };
    double v[BATCHES];
    for (unsigned b = 0; b < BATCHES; b++) {
        int64_t t0 = clock_read();
        for (unsigned i = 0; i < READS; i++)
            (void)clock_read();
        int64_t t1 = clock_read();
        /* t0..t1 holds READS reads and the two halves of the outer ones. */
        v[b] = (double)(t1 - t0) / (READS + 1);
    }
    return mm_quartiles_of(v, BATCHES).median;
}

static inline mm_entry entry_of(const mm_event *x, size_t i)
{
    mm_entry en = { x->comm, x->src, x->tag, x->kind, x->coll_op, 0,
                    x->comm_size, x->call, x->bytes, (uintptr_t)i };
    return en;
}

/* The segment loops: events a..b-1, all of one type. Each returns 0, or
 * 1 after recording in *bad the event and the status it should not have
 * had. */
typedef struct seg_bad {
    size_t at;
    int    status;
} seg_bad;

static inline int bad_status(seg_bad *bad, size_t i, int rc)
{
    bad->at = i;
    bad->status = rc;
    return 1;
}
/* R (post) or M events: an R that some C names keeps its handle (an M's
 * ref is 0). */
static int seg_entries(mm_replay *r, mm_engine *eng, size_t a, size_t b, int post, seg_bad *bad)
{
    const mm_event *ev = r->s->ev;
    for (size_t i = a; i < b; i++) {
        mm_entry en = entry_of(&ev[i], i);
        uintptr_t partner = 0;
        uint64_t slot = ev[i].ref;
        int rc = post ? mm_post(eng, &en, slot ? &r->handles[slot - 1] : NULL, &partner)
                      : mm_arrive(eng, &en, &partner);
        if (rc != MM_QUEUED && rc != MM_MATCHED)
            return bad_status(bad, i, rc);
        if (slot)
            r->queued[slot - 1] = rc == MM_QUEUED;
        r->out[i] = rc == MM_MATCHED ? (uint64_t)partner : MM_OUT_NONE;
    }
    return 0;
}

static int seg_probe(mm_replay *r, mm_engine *eng, size_t a, size_t b, int take, seg_bad *bad)
{
    const mm_event *ev = r->s->ev;
    for (size_t i = a; i < b; i++) {
        uintptr_t found = 0;
        int rc = take ? mm_mprobe(eng, ev[i].comm, ev[i].src, ev[i].tag, &found)
                      : mm_probe(eng, ev[i].comm, ev[i].src, ev[i].tag, &found);
        if (rc != MM_MATCHED && rc != MM_NOTFOUND)
            return bad_status(bad, i, rc);
        r->out[i] = rc == MM_MATCHED ? (uint64_t)found : MM_OUT_NONE;
    }
    return 0;
}

/* As replay.c: a receive matched at post time has no handle (a miss
 * without a call), a second cancel of one receive is a miss. */
static int seg_cancel(mm_replay *r, mm_engine *eng, size_t a, size_t b, seg_bad *bad)
{
    const mm_event *ev = r->s->ev;
    for (size_t i = a; i < b; i++) {
        uint64_t slot = ev[ev[i].ref].ref - 1;
        int rc = r->queued[slot] ? mm_cancel(eng, r->handles[slot]) : MM_NOTFOUND;
        if (rc != MM_MATCHED && rc != MM_NOTFOUND)
            return bad_status(bad, i, rc);
        if (rc == MM_MATCHED)
            r->queued[slot] = 0;
        r->out[i] = rc == MM_MATCHED ? ev[i].ref : MM_OUT_NONE;
    }
    return 0;
}

static int run_segment(mm_replay *r, mm_engine *eng, int key, size_t a, size_t b, seg_bad *bad)
{
    int path = key % MM_PATH_COUNT;
    switch (path) {
    case MM_PATH_FAIL_RECV:
    case MM_PATH_SUCCESS_RECV:
        return seg_entries(r, eng, a, b, 1, bad);
    case MM_PATH_FAIL_SEND:
    case MM_PATH_SUCCESS_SEND:
        return seg_entries(r, eng, a, b, 0, bad);
    case MM_PATH_PROBE:
    case MM_PATH_MPROBE:
        return seg_probe(r, eng, a, b, path == MM_PATH_MPROBE, bad);
    default:
        return seg_cancel(r, eng, a, b, bad);
    }
}

/* One pass; acc[key] receives the ns measured for the key's segments. */
static int run_segments(const mm_paths *p, mm_replay *r, mm_engine *eng, int64_t *acc, seg_bad *bad)
{
    int64_t t = clock_read();
    for (size_t k = 0; k < p->nseg; k++) {
        int rc = run_segment(r, eng, p->seg_path[k], p->seg_start[k], p->seg_start[k + 1], bad);
        int64_t t1 = clock_read();
        acc[p->seg_path[k]] += t1 - t;
        t = t1;
        if (rc)
            return rc;
    }
    return 0;
}

/* Count events and segments per key; set the per-rep figures. */
static void summarize(mm_paths *p, unsigned reps, mm_paths_result *res)
{
    double *tmp = p->tmp;
    for (size_t i = 0; i < p->s->n; i++)
        res->path[p->cls[i]].events++;
    for (size_t k = 0; k < p->nseg; k++)
        res->path[p->seg_path[k]].segments++;
    res->segments = p->nseg;
    for (int c = 0; c < MM_PATH_KEYS; c++) {
        mm_path_result *pr = &res->path[c];
        double *raw = &p->raw[(size_t)c * p->reps_cap];
        pr->ns_q1 = pr->ns_median = pr->ns_q3 = pr->ns_total = pr->ns_segment = NAN;
        pr->timer_share = NAN;
        if (pr->events == 0)
            continue;
        double clock = (double)pr->segments * res->clock_ns;
        for (unsigned k = 0; k < reps; k++) {
            double v = raw[k] - clock;
            tmp[k] = (v > 0 ? v : 0) / (double)pr->events;
        }
        mm_quartiles q = mm_quartiles_of(tmp, reps);
        pr->ns_q1 = q.q1;
        pr->ns_median = q.median;
        pr->ns_q3 = q.q3;
        pr->ns_total = q.median * (double)pr->events;
        pr->ns_segment = pr->ns_total / (double)pr->segments;
        double raw_median = mm_quartiles_of(raw, reps).median;
        pr->timer_share = raw_median > 0 ? clock / raw_median : INFINITY;
        pr->timer_dominated = !(pr->timer_share <= MM_PATHS_TIMER_SHARE);
    }
}

/* A fresh engine for one run of the stream, the cancel slots cleared. */
static int fresh_engine(mm_engine **eng, mm_replay *r, const mm_engine_info *info,
                        const mm_config *cfg, char *err, size_t errlen)
{
    char cerr[512] = "";
    *eng = NULL;
    int rc = mm_create_from(eng, info, cfg, cerr, sizeof cerr);
    if (rc < 0 || !*eng)
        return mms_fail(rc == MM_ENOMEM ? MMR_ENOMEM : MMR_ECREATE, err, errlen,
                        "cannot create engine '%s': %s", info ? info->name : "(none)",
                        cerr[0] ? cerr : mm_strerror(rc));
    if (r->s->nslots)
        memset(r->queued, 0, r->s->nslots);
    return MMR_OK;
}

int mm_paths_run(mm_paths *p, mm_replay *r, const mm_engine_info *info, const mm_config *cfg,
                 unsigned reps, uint64_t hash, mm_paths_result *res, char *err, size_t errlen)
{
    const char *engine = info ? info->name : "(none)";
    const mm_stream *s = p->s;
    memset(res, 0, sizeof *res);
    if (reps == 0 || reps > p->reps_cap || reps > r->reps_cap || r->s != s)
        return mms_fail(MMR_ESTATE, err, errlen, "paths: bad repetition count %u or stream",
                        reps);
    res->reps = reps;
    res->by_class = p->by_class;
    res->clock_ns = mm_paths_clock_ns();

    for (unsigned run = 0; run < 1 + reps; run++) {
        mm_engine *eng;
        int rc = fresh_engine(&eng, r, info, cfg, err, errlen);
        if (rc != MMR_OK)
            return rc;
        int64_t acc[MM_PATH_KEYS] = { 0 };
        seg_bad bad = { 0, 0 };
        rc = run_segments(p, r, eng, acc, &bad);
        mm_destroy(eng);
        if (rc && bad.status < 0)
            return mms_fail_at(s, s->ev[bad.at].line,
                               bad.status == MM_ENOMEM ? MMR_ENOMEM : MMR_ELIB, err, errlen,
                               "engine '%s' (--paths run %u): %s", engine, run + 1,
                               mm_strerror(bad.status));
        if (rc)
            return mms_fail_at(s, s->ev[bad.at].line, MMR_EENGINE, err, errlen,
                               "engine '%s' (--paths run %u) returned unexpected status %d",
                               engine, run + 1, bad.status);
        if (mm_outcomes_hash(r->out, s->n) != hash)
            return mms_fail(MMR_EUNSTABLE, err, errlen,
                            "engine '%s': --paths run %u produced other outcomes than the replay",
                            engine, run + 1);
        if (run > 0)
            for (int c = 0; c < MM_PATH_KEYS; c++)
                p->raw[(size_t)c * p->reps_cap + run - 1] = (double)acc[c];
    }
    summarize(p, reps, res);
    return MMR_OK;
}

/* The change of one side's counters, charged to a class. */
static void charge(mm_class_side *c, const mm_qstats *before, const mm_qstats *after)
{
    c->searches += after->searches - before->searches;
    c->traversed += after->traversed - before->traversed;
}

int mm_paths_count(mm_paths *p, mm_replay *r, const mm_engine_info *info, const mm_config *cfg,
                   uint64_t hash, mm_paths_result *res, char *err, size_t errlen)
{
    const char *engine = info ? info->name : "(none)";
    const mm_stream *s = p->s;
    mm_engine *eng;
    memset(res->count, 0, sizeof res->count);
    if (r->s != s)
        return mms_fail(MMR_ESTATE, err, errlen, "classes: replay of another stream");
    int rc = fresh_engine(&eng, r, info, cfg, err, errlen);
    if (rc != MMR_OK)
        return rc;
    mm_stats before, after;
    seg_bad bad = { 0, 0 };
    rc = mm_get_stats(eng, &before);
    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        if ((rc = run_segment(r, eng, p->cls[i], i, i + 1, &bad)) != 0)
            break;
        if ((rc = mm_get_stats(eng, &after)) != 0) {
            bad.at = i;
            bad.status = rc;
            break;
        }
        mm_class_side *c = res->count[class_of(&s->ev[i])];
        charge(&c[0], &before.prq, &after.prq);
        charge(&c[1], &before.umq, &after.umq);
        before = after;
    }
    mm_destroy(eng);
    if (rc)
        return mms_fail_at(s, s->ev[bad.at].line,
                           bad.status == MM_ENOMEM ? MMR_ENOMEM
                           : bad.status < 0        ? MMR_ELIB : MMR_EENGINE, err, errlen,
                           "engine '%s' (--classes count): status %d (%s)", engine, bad.status,
                           mm_strerror(bad.status));
    if (mm_outcomes_hash(r->out, s->n) != hash)
        return mms_fail(MMR_EUNSTABLE, err, errlen,
                        "engine '%s': --classes count produced other outcomes than the replay",
                        engine);
    return MMR_OK;
}
