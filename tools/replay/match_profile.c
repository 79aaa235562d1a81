/*
 * match_profile.c - the matching profiler (match_profile.h), on the
 * list-semantics simulator (list_sim.h).
 */
#include "match_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "list_sim.h"
#include "replay_stats.h"

static const char *const dist_names[MM_MP_NDIST] = {
    "depth_success", "depth_failure", "bytes", "prq_length", "umq_length",
};

/* What a phase (or the whole stream) counts besides the distributions. */
typedef struct counts {
    uint64_t events, attempts, successes, failures;
    uint64_t prq_attempts, prq_successes, umq_attempts, umq_successes;
    uint64_t receives, any_source, any_tag, messages, probes, cancels;
} counts;

typedef struct phase {
    counts c;
    size_t first_event;
    size_t start[MM_MP_NDIST]; /* offset of its first value in each distribution */
} phase;

typedef struct prof {
    double *val[MM_MP_NDIST];  /* every value, in event order */
    size_t  nval[MM_MP_NDIST];
    phase  *ph;
    size_t  nph;
    counts  total;
    double *scratch;           /* sorted copy of one slice */
} prof;

static void count_event(counts *c, const mm_event *x, int searched, int success)
{
    c->events++;
    switch (x->type) {
    case MM_EV_RECV: c->receives++; break;
    case MM_EV_MSG: c->messages++; break;
    case MM_EV_CANCEL: c->cancels++; break;
    default: c->probes++; break;
    }
    if (x->type != MM_EV_MSG && x->type != MM_EV_CANCEL) {
        c->any_source += x->src == MM_ANY_SOURCE;
        c->any_tag += x->tag == MM_ANY_TAG;
    }
    if (!searched)
        return;
    c->attempts++;
    c->successes += success;
    c->failures += !success;
    if (x->type == MM_EV_MSG) {
        c->prq_attempts++;
        c->prq_successes += success;
    } else {
        c->umq_attempts++;
        c->umq_successes += success;
    }
}

static void add_counts(counts *to, const counts *c)
{
    uint64_t *t = (uint64_t *)to;
    const uint64_t *f = (const uint64_t *)c;
    for (size_t k = 0; k < sizeof *c / sizeof(uint64_t); k++)
        t[k] += f[k];
}

static void put(prof *P, int d, double v)
{
    P->val[d][P->nval[d]++] = v;
}

static int run(prof *P, const mm_stream *s, uint64_t phase_events)
{
    mm_lsim q;
    if (mm_lsim_init(&q, s))
        return MMS_ENOMEM;
    for (size_t i = 0; i < s->n; i++) {
        const mm_event *x = &s->ev[i];
        if (i % phase_events == 0) {
            phase *p = &P->ph[P->nph++];
            p->first_event = i;
            memcpy(p->start, P->nval, sizeof p->start);
        }
        size_t partner;
        uint64_t depth;
        int searched;
        mm_lsim_step(&q, i, NULL, NULL, &partner, &depth, &searched);
        int success = partner != MM_LSIM_NONE;
        if (searched)
            put(P, success ? MM_MP_DEPTH_SUCCESS : MM_MP_DEPTH_FAILURE, (double)depth);
        if (x->type == MM_EV_MSG)
            put(P, MM_MP_BYTES, (double)x->bytes);
        put(P, MM_MP_PRQ_LEN, (double)q.len[MM_LSIM_PRQ]);
        put(P, MM_MP_UMQ_LEN, (double)q.len[MM_LSIM_UMQ]);
        count_event(&P->ph[P->nph - 1].c, x, searched, success);
    }
    for (size_t k = 0; k < P->nph; k++)
        add_counts(&P->total, &P->ph[k].c);
    mm_lsim_free(&q);
    return MMS_OK;
}

/* The statistics of v[0..n): P->scratch holds the sorted copy afterwards. */
static void write_stats(mmj *j, prof *P, const double *v, size_t n)
{
    double sum = 0, ss = 0, nan = NAN;
    mm_quartiles q = { nan, nan, nan, nan };
    double mean = nan, var = nan, max = nan;
    if (n) {
        for (size_t i = 0; i < n; i++)
            sum += v[i];
        mean = sum / (double)n;
        for (size_t i = 0; i < n; i++)
            ss += (v[i] - mean) * (v[i] - mean);
        var = ss / (double)n;
        memcpy(P->scratch, v, n * sizeof *v);
        q = mm_quartiles_of(P->scratch, (unsigned)n);
        max = P->scratch[n - 1];
    }
    mmj_obj(j);
    mmj_ku64(j, "count", n);
    mmj_knum(j, "mean", mean);
    mmj_knum(j, "std", n ? sqrt(var) : nan);
    mmj_knum(j, "var", var);
    mmj_knum(j, "min", q.min);
    mmj_knum(j, "q1", q.q1);
    mmj_knum(j, "median", q.median);
    mmj_knum(j, "q3", q.q3);
    mmj_knum(j, "max", max);
    mmj_obj_end(j);
}

/* [value, count] pairs of the sorted scratch[0..n). */
static void write_counts(mmj *j, const double *sorted, size_t n)
{
    mmj_arr(j);
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && sorted[k] == sorted[i])
            k++;
        mmj_arr(j);
        mmj_u64(j, (uint64_t)sorted[i]);
        mmj_u64(j, k - i);
        mmj_arr_end(j);
        i = k;
    }
    mmj_arr_end(j);
}

static void write_count_fields(mmj *j, const counts *c)
{
    mmj_ku64(j, "events", c->events);
    mmj_ku64(j, "attempts", c->attempts);
    mmj_ku64(j, "successes", c->successes);
    mmj_ku64(j, "failures", c->failures);
    mmj_ku64(j, "prq_attempts", c->prq_attempts);
    mmj_ku64(j, "prq_successes", c->prq_successes);
    mmj_ku64(j, "umq_attempts", c->umq_attempts);
    mmj_ku64(j, "umq_successes", c->umq_successes);
    mmj_ku64(j, "receives", c->receives);
    mmj_ku64(j, "any_source", c->any_source);
    mmj_ku64(j, "any_tag", c->any_tag);
    mmj_ku64(j, "messages", c->messages);
    mmj_ku64(j, "probes", c->probes);
    mmj_ku64(j, "cancels", c->cancels);
}

static int write_json(FILE *f, const mm_stream *s, prof *P, uint64_t phase_events)
{
    mmj j;
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_kstr(&j, "stream", s->name);
    mmj_kstr(&j, "semantics", "list");
    mmj_ku64(&j, "np", (uint64_t)s->np);
    mmj_ku64(&j, "phase_events", phase_events);
    mmj_key(&j, "total");
    mmj_obj(&j);
    write_count_fields(&j, &P->total);
    for (int d = 0; d < MM_MP_NDIST; d++) {
        mmj_key(&j, dist_names[d]);
        write_stats(&j, P, P->val[d], P->nval[d]);
    }
    mmj_key(&j, "distributions");
    mmj_obj(&j);
    for (int d = 0; d < MM_MP_NDIST; d++) {
        /* sorted by the same routine the statistics use */
        memcpy(P->scratch, P->val[d], P->nval[d] * sizeof(double));
        if (P->nval[d])
            mm_quartiles_of(P->scratch, (unsigned)P->nval[d]);
        mmj_key(&j, dist_names[d]);
        write_counts(&j, P->scratch, P->nval[d]);
    }
    mmj_obj_end(&j);
    mmj_obj_end(&j);
    mmj_key(&j, "phases");
    mmj_arr(&j);
    for (size_t k = 0; k < P->nph; k++) {
        const phase *p = &P->ph[k];
        mmj_obj(&j);
        mmj_ku64(&j, "first_event", p->first_event);
        write_count_fields(&j, &p->c);
        for (int d = 0; d < MM_MP_NDIST; d++) {
            size_t end = k + 1 < P->nph ? P->ph[k + 1].start[d] : P->nval[d];
            mmj_key(&j, dist_names[d]);
            write_stats(&j, P, P->val[d] + p->start[d], end - p->start[d]);
        }
        mmj_obj_end(&j);
    }
    mmj_arr_end(&j);
    mmj_obj_end(&j);
    return mmj_finish(&j) ? MMS_EIO : MMS_OK;
}

int mm_match_profile_json(FILE *f, const mm_stream *s, uint64_t phase_events)
{
    prof P;
    memset(&P, 0, sizeof P);
    size_t n = s->n + 1;
    int rc = MMS_ENOMEM;
    for (int d = 0; d < MM_MP_NDIST; d++)
        if (!(P.val[d] = malloc(n * sizeof(double))))
            goto out;
    P.scratch = malloc(n * sizeof(double));
    P.ph = calloc(s->n / phase_events + 2, sizeof *P.ph);
    if (!P.scratch || !P.ph)
        goto out;
    if ((rc = run(&P, s, phase_events)) == MMS_OK)
        rc = write_json(f, s, &P, phase_events);
out:
    for (int d = 0; d < MM_MP_NDIST; d++)
        free(P.val[d]);
    free(P.scratch);
    free(P.ph);
    return rc;
}
