/*
 * coll_sim.c - the arrival model of the collective and application
 * workloads (coll_sim.h, docs/collectives.md).
 */
#include "coll_sim.h"

#include "coll_mv2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mm_csim_init(mm_csim *s, int32_t n, int32_t rank, const mm_csim_net *net,
                 uint64_t seed, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (n < 1 || rank < 0 || rank >= n) {
        snprintf(err, errlen, "observed rank %ld outside 0..%ld", (long)rank, (long)n - 1);
        return MMS_EFORMAT;
    }
    s->n = n;
    s->rank = rank;
    s->net = *net;
    mm_rng_seed(&s->rng, seed);
    s->clock = calloc((size_t)n, sizeof *s->clock);
    s->last_in = calloc((size_t)n, sizeof *s->last_in);
    s->scratch = calloc((size_t)n, sizeof *s->scratch);
    s->scratch_cap = (size_t)n;
    if (!s->clock || !s->last_in || !s->scratch) {
        mm_csim_free(s);
        snprintf(err, errlen, "out of memory for %ld simulated ranks", (long)n);
        return MMS_ENOMEM;
    }
    return MMS_OK;
}

void mm_csim_free(mm_csim *s)
{
    free(s->clock);
    free(s->last_in);
    free(s->scratch);
    free(s->ev);
    memset(s, 0, sizeof *s);
}

int mm_csim_plan_make(const mm_csim *s, mm_csim_plan *p, int op, int alg, int lib,
                      int32_t root, uint64_t bytes, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (alg == MM_ALG_AUTO)
        alg = mm_coll_auto(op, s->n, bytes, lib).alg;
    p->d.op = op;
    p->d.alg = alg;
    p->d.n = s->n;
    p->d.root = root;
    p->d.bytes = bytes;
    size_t max = s->plan_max > SIZE_MAX ? SIZE_MAX : (size_t)s->plan_max;
    return mm_coll_expand_array_max(&p->d, max, &p->x, &p->nx, &p->over, err, errlen);
}

int mm_csim_plan_mv2(const mm_csim *s, mm_csim_plan *p, uint32_t radix, uint64_t bytes,
                     char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->d.op = MM_COLL_ALLREDUCE;
    p->d.alg = MM_ALG_AUTO;
    p->d.n = s->n;
    p->d.bytes = bytes;
    return mm_coll_mv2_reduce_p2p(s->n, radix, bytes, &p->x, &p->nx, err, errlen);
}

void mm_csim_plan_free(mm_csim_plan *p)
{
    free(p->x);
    memset(p, 0, sizeof *p);
}

void mm_csim_compute_load(mm_csim *s, uint64_t mean_ns, const uint32_t *permille)
{
    for (int32_t r = 0; r < s->n; r++) {
        uint64_t m = permille ? mean_ns + mean_ns * permille[r] / 1000 : mean_ns;
        s->clock[r] += m - m / 4 + mm_rng_below(&s->rng, m / 2 + 1);
    }
}

void mm_csim_compute(mm_csim *s, uint64_t mean_ns)
{
    mm_csim_compute_load(s, mean_ns, NULL);
}

static int add_event(mm_csim *s, uint64_t t, const mm_event *e, char *err, size_t errlen)
{
    if (s->nev >= MM_CSIM_MAX_EVENTS) {
        snprintf(err, errlen, "more than %llu events at the observed rank; make the run "
                 "smaller (fewer calls or iterations, or a smaller n)",
                 (unsigned long long)MM_CSIM_MAX_EVENTS);
        return MMS_EFORMAT;
    }
    if (s->nev == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        mm_csim_pend *v = realloc(s->ev, cap * sizeof *v);
        if (!v) {
            snprintf(err, errlen, "out of memory after %zu generated events", s->nev);
            return MMS_ENOMEM;
        }
        s->ev = v;
        s->cap = cap;
    }
    mm_csim_pend *p = &s->ev[s->nev];
    p->t = t;
    p->seq = s->nev;
    p->ev = *e;
    p->ev.t = t;
    s->nev++;
    if (e->kind == MM_KIND_COLL)
        s->coll_events++;
    else
        s->p2p_events++;
    return MMS_OK;
}

/* A message of `bytes` sent at `sent` arrives here; into the observed rank
 * it never overtakes an earlier one from the same source. */
static uint64_t arrival(mm_csim *s, int32_t src, int32_t dst, uint64_t sent, uint64_t bytes)
{
    uint64_t t = sent + s->net.latency_ns + bytes * s->net.ps_per_byte / 1000;
    if (dst == s->rank) {
        if (t < s->last_in[src])
            t = s->last_in[src];
        s->last_in[src] = t;
    }
    return t;
}

static int grow_scratch(mm_csim *s, size_t need, char *err, size_t errlen)
{
    if (need <= s->scratch_cap)
        return MMS_OK;
    uint64_t *v = realloc(s->scratch, need * sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory for a step of %zu transfers", need);
        return MMS_ENOMEM;
    }
    s->scratch = v;
    s->scratch_cap = need;
    return MMS_OK;
}

/* The R and M of one message into the observed rank. */
static int observe(mm_csim *s, int type, uint64_t t, int32_t src, int32_t tag,
                   uint64_t bytes, int op, uint32_t call, char *err, size_t errlen)
{
    mm_event e = mm_event_make(type, 0, s->comm, src, tag);
    e.bytes = bytes;
    if (op != MM_COLL_NONE) {
        e.kind = MM_KIND_COLL;
        e.coll_op = (uint8_t)op;
        e.comm_size = (uint32_t)s->n;
        e.call = call;
    }
    return add_event(s, t, &e, err, errlen);
}

/* The transfers of one call's step, with the call's number and tag counter. */
typedef struct step_part {
    const mm_coll_xfer *x;
    size_t              n;
    uint32_t            call, nbc;
    int                 op;  /* the collective, or MM_COLL_NONE: point-to-point */
    int32_t             tag; /* point-to-point: the messages' tag               */
} step_part;

/* One step of the simulation: the transfers of every part leave at their
 * senders' clocks before the step's arrivals move any clock; the observed
 * rank posts its receives of the step at its clock. */
static int run_step(mm_csim *s, const step_part *part, size_t nparts, char *err, size_t errlen)
{
    size_t total = 0, k = 0;
    int rc;
    for (size_t q = 0; q < nparts; q++)
        total += part[q].n;
    if ((rc = grow_scratch(s, total, err, errlen)) != MMS_OK)
        return rc;
    for (size_t q = 0; q < nparts; q++)
        for (size_t i = 0; i < part[q].n; i++) {
            const mm_coll_xfer *x = &part[q].x[i];
            uint64_t sent = s->clock[x->src];
            if (s->net.noise_ns && part[q].op != MM_COLL_NONE)
                sent += mm_rng_below(&s->rng, s->net.noise_ns + 1);
            uint64_t t = arrival(s, x->src, x->dst, sent, x->bytes);
            s->scratch[k++] = t;
            if (x->dst != s->rank)
                continue;
            int op = part[q].op;
            int32_t tag = op == MM_COLL_NONE ? part[q].tag : mm_coll_xfer_tag(x, part[q].nbc);
            if ((rc = observe(s, MM_EV_RECV, s->clock[s->rank], x->src, tag, x->bytes, op,
                              part[q].call, err, errlen)) != MMS_OK ||
                (rc = observe(s, MM_EV_MSG, t, x->src, tag, x->bytes, op, part[q].call,
                              err, errlen)) != MMS_OK)
                return rc;
        }
    k = 0;
    for (size_t q = 0; q < nparts; q++)
        for (size_t i = 0; i < part[q].n; i++, k++)
            if (s->clock[part[q].x[i].dst] < s->scratch[k])
                s->clock[part[q].x[i].dst] = s->scratch[k];
    return MMS_OK;
}

/* The end of the step that starts at transfer i of p. */
static size_t step_end(const mm_csim_plan *p, size_t i)
{
    size_t j = i;
    while (j < p->nx && p->x[j].step == p->x[i].step)
        j++;
    return j;
}

int mm_csim_collective(mm_csim *s, const mm_csim_plan *p, char *err, size_t errlen)
{
    return mm_csim_pipeline(s, p, 1, 1, 1, err, errlen);
}

int mm_csim_pipeline(mm_csim *s, const mm_csim_plan *p, uint32_t calls, uint32_t group,
                     uint32_t stagger, char *err, size_t errlen)
{
    enum { MAX_CALLS = 256 };
    int op = p->d.op, rc;
    if (calls < 1 || calls > MAX_CALLS || stagger < 1 || group < 1) {
        snprintf(err, errlen, "a pipeline of %u calls, %u at a time, %u steps apart (1..%d "
                 "calls, groups of >= 1, >= 1 step)", calls, group, stagger, MAX_CALLS);
        return MMS_EFORMAT;
    }
    if (calls > 1 && !mm_coll_nonblocking(op)) {
        snprintf(err, errlen, "only nonblocking collectives overlap in a pipeline");
        return MMS_EFORMAT;
    }
    for (int32_t r = 0; r < s->n; r++)
        s->clock[r] += mm_rng_below(&s->rng, s->net.skew_ns + 1);
    if (calls == 1) { /* one call: its steps one after the other */
        uint32_t call = ++s->calls[op], nbc = mm_coll_nonblocking(op) ? s->nbc++ : 0;
        for (size_t i = 0; i < p->nx;) {
            size_t j = step_end(p, i);
            step_part part = {&p->x[i], j - i, call, nbc, op, 0};
            if ((rc = run_step(s, &part, 1, err, errlen)) != MMS_OK)
                return rc;
            i = j;
        }
        return MMS_OK;
    }
    /* Several calls: each progresses on its own clocks (a nonblocking
     * schedule advances as soon as its own receives are in, whatever the
     * other calls do), starting (c / group) * stagger message latencies
     * after the pipeline; the application waits for all of them. */
    size_t n = (size_t)s->n;
    uint64_t *cc = malloc(3 * n * sizeof *cc), *end = cc ? cc + n : NULL,
             *last = cc ? cc + 2 * n : NULL; /* per source, this call's latest arrival here */
    if (!cc) {
        snprintf(err, errlen, "out of memory for a pipeline of %u calls on %ld ranks", calls,
                 (long)s->n);
        return MMS_ENOMEM;
    }
    memcpy(end, s->clock, n * sizeof *end);
    rc = MMS_OK;
    for (uint32_t c = 0; rc == MMS_OK && c < calls; c++) {
        uint32_t call = ++s->calls[op], nbc = s->nbc++;
        uint64_t start = (uint64_t)(c / group) * stagger * s->net.latency_ns;
        for (size_t r = 0; r < n; r++)
            cc[r] = s->clock[r] + start;
        memset(last, 0, n * sizeof *last);
        for (size_t i = 0; rc == MMS_OK && i < p->nx;) {
            size_t j = step_end(p, i);
            if ((rc = grow_scratch(s, j - i, err, errlen)) != MMS_OK)
                break;
            for (size_t k = i; k < j; k++) {
                const mm_coll_xfer *x = &p->x[k];
                uint64_t sent = cc[x->src];
                if (s->net.noise_ns)
                    sent += mm_rng_below(&s->rng, s->net.noise_ns + 1);
                /* calls have their own tags: one call's messages may pass
                 * another's, never an earlier one of the same call */
                uint64_t t = sent + s->net.latency_ns + x->bytes * s->net.ps_per_byte / 1000;
                if (x->dst == s->rank && t < last[x->src])
                    t = last[x->src];
                s->scratch[k - i] = t;
                if (x->dst != s->rank)
                    continue;
                last[x->src] = t;
                if (s->last_in[x->src] < t)
                    s->last_in[x->src] = t;
                int32_t tag = mm_coll_xfer_tag(x, nbc);
                if ((rc = observe(s, MM_EV_RECV, cc[s->rank], x->src, tag, x->bytes, op, call,
                                  err, errlen)) != MMS_OK ||
                    (rc = observe(s, MM_EV_MSG, t, x->src, tag, x->bytes, op, call, err,
                                  errlen)) != MMS_OK)
                    break;
            }
            for (size_t k = i; rc == MMS_OK && k < j; k++)
                if (cc[p->x[k].dst] < s->scratch[k - i])
                    cc[p->x[k].dst] = s->scratch[k - i];
            i = j;
        }
        for (size_t r = 0; r < n; r++)
            if (end[r] < cc[r])
                end[r] = cc[r];
    }
    if (rc == MMS_OK)
        memcpy(s->clock, end, n * sizeof *end);
    free(cc);
    return rc;
}

int mm_csim_overlap(mm_csim *s, const mm_csim_plan *p, mm_csim_from_fn from, const void *ctx,
                    uint64_t bytes, int32_t tag, char *err, size_t errlen)
{
    int op = p->d.op, rc = MMS_OK;
    size_t np2p = 0, k = 0;
    for (int32_t q = 0; q < s->n; q++)
        for (int i = 0; from(ctx, q, i) >= 0; i++)
            np2p++;
    mm_coll_xfer *x = calloc(np2p + 1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory for %zu point-to-point transfers", np2p);
        return MMS_ENOMEM;
    }
    for (int32_t q = 0; q < s->n; q++)
        for (int i = 0;; i++) {
            int32_t src = from(ctx, q, i);
            if (src < 0)
                break;
            x[k].bytes = bytes;
            x[k].src = src;
            x[k].dst = q;
            k++;
        }
    step_part part[2] = {{NULL, 0, ++s->calls[op], mm_coll_nonblocking(op) ? s->nbc++ : 0, op, 0},
                         {x, np2p, 0, 0, MM_COLL_NONE, tag}};
    for (int32_t r = 0; r < s->n; r++)
        s->clock[r] += mm_rng_below(&s->rng, s->net.skew_ns + 1);
    /* the collective's first step and the point-to-point phase together,
     * the collective's receives posted first; then its other steps */
    for (size_t i = 0, first = 1; rc == MMS_OK && (i < p->nx || first); first = 0) {
        size_t j = i < p->nx ? step_end(p, i) : i;
        part[0].x = &p->x[i];
        part[0].n = j - i;
        rc = run_step(s, part, first ? 2 : 1, err, errlen);
        i = j;
    }
    free(x);
    return rc;
}

mm_csim_cost mm_csim_plan_cost(const mm_csim *s, const mm_csim_plan *p)
{
    mm_csim_cost c = {0, p->nx};
    for (size_t k = 0; k < p->nx; k++)
        c.events += 2 * (p->x[k].dst == s->rank);
    return c;
}

mm_csim_cost mm_csim_p2p_cost(const mm_csim *s, mm_csim_from_fn from, const void *ctx)
{
    mm_csim_cost c = {0, 0};
    for (int32_t p = 0; p < s->n; p++)
        for (int i = 0; from(ctx, p, i) >= 0; i++) {
            c.transfers++;
            c.events += 2 * (p == s->rank);
        }
    return c;
}

int mm_csim_p2p(mm_csim *s, mm_csim_from_fn from, const void *ctx, uint64_t bytes,
                int32_t tag, int anysrc, char *err, size_t errlen)
{
    int rc;
    /* the observed rank posts all its receives first (MPI_Irecv each) */
    for (int i = 0; from(ctx, s->rank, i) >= 0; i++) {
        int32_t q = from(ctx, s->rank, i);
        if ((rc = observe(s, MM_EV_RECV, s->clock[s->rank], anysrc ? MM_ANY_SOURCE : q, tag,
                          bytes, MM_COLL_NONE, 0, err, errlen)) != MMS_OK)
            return rc;
    }
    for (int32_t p = 0; p < s->n; p++) {
        uint64_t done = s->clock[p];
        for (int i = 0;; i++) {
            int32_t q = from(ctx, p, i);
            if (q < 0)
                break;
            uint64_t t = arrival(s, q, p, s->clock[q], bytes);
            if (t > done)
                done = t;
            if (p == s->rank &&
                (rc = observe(s, MM_EV_MSG, t, q, tag, bytes, MM_COLL_NONE, 0, err, errlen)) != MMS_OK)
                return rc;
        }
        s->scratch[p] = done; /* MPI_Waitall */
    }
    memcpy(s->clock, s->scratch, (size_t)s->n * sizeof *s->clock);
    return MMS_OK;
}

static int by_time(const void *a, const void *b)
{
    const mm_csim_pend *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int mm_csim_write(mm_csim *s, mm_stream *out, char *err, size_t errlen)
{
    if (s->nev > 1)
        qsort(s->ev, s->nev, sizeof *s->ev, by_time);
    int rc = mm_stream_reserve(out, s->nev, err, errlen);
    for (size_t i = 0; rc == MMS_OK && i < s->nev; i++) {
        s->ev[i].ev.id = i + 1;
        rc = mm_stream_push(out, &s->ev[i].ev, err, errlen);
    }
    /* the job's size, so per-peer engines see every rank of the communicator */
    out->np_decl = s->n;
    s->nev = 0;
    return rc;
}
