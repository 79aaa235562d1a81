/*
 * conv_clock.c - causal clock alignment across hosts (docs/convert.md,
 * "Clocks").
 *
 * Every matched point-to-point message bounds the offset between the
 * sender's and the receiver's clocks: the receive cannot complete before
 * the send started. With y_h the correction of host h (aligned time = time
 * of the trace's alignment - y_h), a message from host s sent at ts (send
 * entry) and received at tr (end of the Recv, of the Wait/Test that
 * completed the Irecv, or of the Mprobe) gives
 *
 *     y_d - y_s <= tr - ts,
 *
 * a system of difference constraints: y_v - y_u <= w is an edge u -> v of
 * weight w, a solution exists iff the graph has no negative cycle, and the
 * shortest distances D bound every difference, y_h - y_0 in
 * [-D(h,0), D(0,h)] (Cormen, Leiserson, Rivest, Stein, "Introduction to
 * Algorithms", section 24.4). Host 0 (rank 0's) is the reference (y_0 = 0);
 * hosts are fixed one at a time in the middle of the window the others
 * still allow, so the offsets taken together satisfy every message. The
 * window's width is the uncertainty.
 *
 * A negative cycle means no constant offsets fit: clocks that drift, or a
 * broken trace. Then each host gets offset + rate: the messages are cut in
 * time slices, each slice solved on its own, a line fitted per host through
 * the slices' middles; the constant part is solved again on the
 * drift-corrected times. If that is still inconsistent, the number of
 * messages that would complete before they were sent is reported for the
 * best fit (host by host, the offset with the fewest such messages) and the trace's own alignment is kept (a warning says so).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv_internal.h"

#define INF (INT64_MAX / 4)

/* A send or a consuming receive, by (dst, comm, src, tag) in call order. */
typedef struct ck_end {
    uint64_t tcomm;
    int32_t  dst, src, tag;
    int32_t  rank;        /* whose record                                */
    size_t   seq;         /* record index at that rank                   */
    int64_t  t;           /* time of the trace's alignment               */
} ck_end;

/* A matched message between two hosts. */
typedef struct ck_msg { int32_t ds, dd; int64_t ts, tr; } ck_msg;

static int cmp_end(const void *a, const void *b)
{
    const ck_end *x = a, *y = b;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->tcomm != y->tcomm)
        return x->tcomm < y->tcomm ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int same_key(const ck_end *x, const ck_end *y)
{
    return x->dst == y->dst && x->tcomm == y->tcomm && x->src == y->src && x->tag == y->tag;
}

static int push_end(ck_end **v, size_t *n, size_t *cap, const ck_end *e)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        ck_end *p = realloc(*v, c * sizeof *p);
        if (!p)
            return MMS_ENOMEM;
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = *e;
    return MMS_OK;
}

/* Sends and consuming receives of every rank, paired as MPI pairs them:
 * the k-th receive of a (comm, source, tag) at a rank takes the k-th
 * message of that key sent to it. Keeps the pairs between hosts. */
static int gather(const cv_conv *c, ck_msg **out, size_t *nout)
{
    ck_end *s = NULL, *r = NULL;
    size_t ns = 0, caps = 0, nr = 0, capr = 0;
    uint64_t *irecv = NULL; /* per request: 1 + its IRECV's record index */
    int rc = MMS_ENOMEM;
    *out = NULL;
    *nout = 0;
    for (int32_t w = 0; w < c->n; w++) {
        const cv_rank *k = &c->r[w];
        uint64_t maxreq = 0;
        for (size_t i = 0; i < k->nrec; i++)
            if (k->rec[i].type == MMT_IRECV && k->rec[i].req > maxreq)
                maxreq = k->rec[i].req;
        free(irecv);
        if (!(irecv = calloc(maxreq + 1, sizeof *irecv)))
            goto out;
        for (size_t i = 0; i < k->nrec; i++) {
            const mmt_record *x = &k->rec[i];
            if (x->flags & MMT_F_NOCOMM)
                continue;
            int64_t ts = (int64_t)x->t_start - k->shift, te = (int64_t)x->t_end - k->shift;
            if ((x->type == MMT_SEND || x->type == MMT_ISEND) && x->peer != MMT_PROC_NULL &&
                x->peer_world >= 0 && x->peer_world < c->n) {
                ck_end e = { x->comm, x->peer_world, w, x->tag, w, i, ts };
                if (push_end(&s, &ns, &caps, &e))
                    goto out;
            } else if (x->type == MMT_IRECV && x->req <= maxreq) {
                irecv[x->req] = i + 1;
            } else if (((x->type == MMT_RECV || x->type == MMT_MPROBE) ||
                        (x->type == MMT_IMPROBE && (x->flags & MMT_F_FOUND))) &&
                       x->peer != MMT_PROC_NULL && x->src_world >= 0 && x->src_world < c->n) {
                ck_end e = { x->comm, w, x->src_world, x->rtag, w, i, te };
                if (push_end(&r, &nr, &capr, &e))
                    goto out;
            } else if (x->type == MMT_COMPLETE && x->sub == MMT_IRECV && x->req <= maxreq &&
                       irecv[x->req] && !(x->flags & MMT_F_CANCELLED) && x->src_world >= 0 &&
                       x->src_world < c->n) {
                const mmt_record *p = &k->rec[irecv[x->req] - 1];
                if (p->flags & MMT_F_NOCOMM)
                    continue;
                ck_end e = { p->comm, w, x->src_world, x->rtag, w, irecv[x->req] - 1, te };
                if (push_end(&r, &nr, &capr, &e))
                    goto out;
            }
        }
    }
    if (ns)
        qsort(s, ns, sizeof *s, cmp_end);
    if (nr)
        qsort(r, nr, sizeof *r, cmp_end);
    size_t cap = 0;
    for (size_t i = 0, j = 0; i < ns && j < nr;) {
        int k = cmp_end(&s[i], &r[j]);
        if (!same_key(&s[i], &r[j])) {
            if (k < 0)
                i++;
            else
                j++;
            continue;
        }
        int32_t ds = c->r[s[i].rank].node, dd = c->r[r[j].rank].node;
        if (ds != dd) {
            if (*nout == cap) {
                cap = cap ? 2 * cap : 256;
                ck_msg *p = realloc(*out, cap * sizeof *p);
                if (!p)
                    goto out;
                *out = p;
            }
            (*out)[(*nout)++] = (ck_msg){ ds, dd, s[i].t, r[j].t };
        }
        i++;
        j++;
    }
    rc = MMS_OK;
out:
    free(s);
    free(r);
    free(irecv);
    if (rc) {
        free(*out);
        *out = NULL;
        *nout = 0;
    }
    return rc;
}

static int64_t add(int64_t a, int64_t b)
{
    if (a >= INF || b >= INF)
        return INF;
    int64_t x = a + b;
    return x > INF ? INF : x < -INF ? -INF : x;
}

/* Shortest distances of the constraint graph of messages m[0..n) between
 * H hosts, times corrected by rates (NULL: none). 0 if consistent, 1 if
 * there is a negative cycle. */
static int solve(int64_t *D, int32_t H, const ck_msg *m, size_t n, const double *rate)
{
    for (size_t i = 0; i < (size_t)H * (size_t)H; i++)
        D[i] = INF;
    for (int32_t i = 0; i < H; i++)
        D[(size_t)i * H + i] = 0;
    for (size_t k = 0; k < n; k++) {
        int64_t ts = m[k].ts, tr = m[k].tr;
        if (rate) {
            ts -= (int64_t)llround(rate[m[k].ds] * (double)ts);
            tr -= (int64_t)llround(rate[m[k].dd] * (double)tr);
        }
        int64_t *e = &D[(size_t)m[k].ds * H + m[k].dd];
        if (tr - ts < *e)
            *e = tr - ts;
    }
    for (int32_t k = 0; k < H; k++)
        for (int32_t i = 0; i < H; i++) {
            int64_t ik = D[(size_t)i * H + k];
            if (ik >= INF)
                continue;
            for (int32_t j = 0; j < H; j++) {
                int64_t x = add(ik, D[(size_t)k * H + j]);
                if (x < D[(size_t)i * H + j])
                    D[(size_t)i * H + j] = x;
            }
        }
    for (int32_t i = 0; i < H; i++)
        if (D[(size_t)i * H + i] < 0)
            return 1;
    return 0;
}

/* Add the edge u -> v of weight w to the closed distances D. */
static void relax(int64_t *D, int32_t H, int32_t u, int32_t v, int64_t w)
{
    for (int32_t i = 0; i < H; i++) {
        int64_t iu = D[(size_t)i * H + u];
        if (iu >= INF)
            continue;
        for (int32_t j = 0; j < H; j++) {
            int64_t x = add(add(iu, w), D[(size_t)v * H + j]);
            if (x < D[(size_t)i * H + j])
                D[(size_t)i * H + j] = x;
        }
    }
}

/* Fix every host's correction in the middle of the window D allows given
 * the hosts fixed before it; lo/hi are the windows against host 0 alone. */
static void place(cv_conv *c, int64_t *D, int32_t H, int64_t *y)
{
    y[0] = 0;
    for (int32_t h = 1; h < H; h++) {
        cv_dom *d = &c->dom[h];
        int64_t up = D[h], down = D[(size_t)h * H]; /* D(0,h), D(h,0) */
        d->lo = down >= INF ? -CV_UNB : -down;
        d->hi = up >= INF ? CV_UNB : up;
        int64_t v;
        if (up < INF && down < INF)
            v = -down + (up + down) / 2;
        else if (up < INF)
            v = up < 0 ? up : 0;     /* keep the trace's alignment if allowed */
        else if (down < INF)
            v = -down > 0 ? -down : 0;
        else
            v = 0;
        y[h] = v;
        if (up < INF || down < INF) {
            relax(D, H, 0, h, v);
            relax(D, H, h, 0, -v);
        }
    }
}

/* Messages received before they were sent with corrections y + rate * t. */
static uint64_t violations(const ck_msg *m, size_t n, const int64_t *y, const double *rate)
{
    uint64_t v = 0;
    for (size_t k = 0; k < n; k++) {
        double s = (double)m[k].ts - (double)y[m[k].ds] - (rate ? rate[m[k].ds] * (double)m[k].ts : 0);
        double r = (double)m[k].tr - (double)y[m[k].dd] - (rate ? rate[m[k].dd] * (double)m[k].tr : 0);
        v += r < s;
    }
    return v;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Host by host (a few rounds), the constant correction with the fewest
 * messages received before sent, the others fixed: a local best fit for
 * constraints no alignment satisfies. y: start and result. */
static int descend(const ck_msg *m, size_t n, int32_t H, const double *rate, int64_t *y)
{
    int64_t *up = malloc((n ? n : 1) * sizeof *up), *dn = malloc((n ? n : 1) * sizeof *dn);
    if (!up || !dn) {
        free(up);
        free(dn);
        return MMS_ENOMEM;
    }
    for (int round = 0; round < 3; round++)
        for (int32_t h = 1; h < H; h++) {
            size_t nu = 0, nd = 0;
            for (size_t k = 0; k < n; k++) {
                double ts = (double)m[k].ts - rate[m[k].ds] * (double)m[k].ts;
                double tr = (double)m[k].tr - rate[m[k].dd] * (double)m[k].tr;
                if (m[k].dd == h && m[k].ds != h)      /* y_h <= tr - ts + y_s */
                    up[nu++] = (int64_t)floor(tr - ts) + y[m[k].ds];
                else if (m[k].ds == h && m[k].dd != h) /* y_h >= y_d - (tr - ts) */
                    dn[nd++] = y[m[k].dd] - (int64_t)floor(tr - ts);
            }
            if (!nu && !nd)
                continue;
            qsort(up, nu, sizeof *up, cmp_i64);
            qsort(dn, nd, sizeof *dn, cmp_i64);
            /* violations at v: uppers below v + lowers above v */
            uint64_t best = UINT64_MAX;
            int64_t at = y[h];
            for (size_t c = 0; c < nu + nd + 1; c++) {
                int64_t v = c < nu ? up[c] : c < nu + nd ? dn[c - nu] : y[h];
                size_t lo = 0, hi = nu;
                while (lo < hi) { /* uppers < v */
                    size_t mid = (lo + hi) / 2;
                    if (up[mid] < v)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                uint64_t bad = lo;
                lo = 0, hi = nd;
                while (lo < hi) { /* lowers <= v */
                    size_t mid = (lo + hi) / 2;
                    if (dn[mid] <= v)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                bad += nd - lo;
                int64_t dv = v > y[h] ? v - y[h] : y[h] - v, da = at > y[h] ? at - y[h] : y[h] - at;
                if (bad < best || (bad == best && dv < da)) {
                    best = bad;
                    at = v;
                }
            }
            y[h] = at;
        }
    free(up);
    free(dn);
    return MMS_OK;
}

static int cmp_ts(const void *a, const void *b)
{
    const ck_msg *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Offset + rate per host from time slices of the messages: fills a and
 * rate; hosts no slice bounds keep 0. */
static int fit_drift(const ck_msg *m, size_t n, int32_t H, double *a, double *rate)
{
    enum { SLICES = 8 };
    size_t ns = n / 8 < SLICES ? n / 8 : SLICES;
    if (ns < 2)
        ns = 2;
    int64_t *D = malloc((size_t)H * H * sizeof *D);
    double *sw = calloc((size_t)H * 5, sizeof *sw); /* n, st, sy, stt, sty */
    ck_msg *v = malloc((n ? n : 1) * sizeof *v);
    if (!D || !sw || !v) {
        free(D);
        free(sw);
        free(v);
        return MMS_ENOMEM;
    }
    memcpy(v, m, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_ts);
    for (size_t k = 0; k < ns; k++) {
        size_t from = n * k / ns, to = n * (k + 1) / ns;
        if (to <= from || solve(D, H, v + from, to - from, NULL))
            continue;
        double tm = 0;
        for (size_t i = from; i < to; i++)
            tm += (double)v[i].ts;
        tm /= (double)(to - from);
        for (int32_t h = 1; h < H; h++) {
            int64_t up = D[h], down = D[(size_t)h * H];
            if (up >= INF || down >= INF)
                continue;
            double y = ((double)up - (double)down) / 2, *p = &sw[(size_t)h * 5];
            p[0] += 1;
            p[1] += tm;
            p[2] += y;
            p[3] += tm * tm;
            p[4] += tm * y;
        }
    }
    for (int32_t h = 0; h < H; h++) {
        const double *p = &sw[(size_t)h * 5];
        a[h] = rate[h] = 0;
        if (p[0] < 1)
            continue;
        double var = p[0] * p[3] - p[1] * p[1];
        rate[h] = p[0] >= 2 && var > 0 ? (p[0] * p[4] - p[1] * p[2]) / var : 0;
        a[h] = (p[2] - rate[h] * p[1]) / p[0];
    }
    free(D);
    free(sw);
    free(v);
    return MMS_OK;
}

static void apply(cv_conv *c, const int64_t *y, const double *rate)
{
    for (int32_t h = 0; h < c->ndom; h++) {
        c->dom[h].corr = y ? y[h] : 0;
        c->dom[h].rate = rate ? rate[h] : 0;
    }
    for (int32_t i = 0; i < c->n; i++) {
        cv_rank *r = &c->r[i];
        const cv_dom *d = &c->dom[r->node];
        r->rbase = d->base;
        r->shift = d->base + d->corr;
        r->rate = d->rate;
    }
}

int cv_clock(cv_conv *c, char *err, size_t errlen)
{
    int32_t H = c->ndom;
    for (int32_t h = 0; h < H; h++) {
        c->dom[h].lo = -CV_UNB;
        c->dom[h].hi = CV_UNB;
    }
    c->dom[0].lo = c->dom[0].hi = 0;
    c->clock_result = c->o->clock == MM_CONV_CLOCK_CAUSAL ? "one-host" : "as-traced";
    ck_msg *m = NULL;
    size_t n = 0;
    int rc = gather(c, &m, &n);
    if (rc)
        goto nomem;
    c->clock_msgs = n;
    for (size_t k = 0; k < n; k++) {
        c->dom[m[k].ds].sent++;
        c->dom[m[k].dd].received++;
    }
    int64_t *zero = calloc((size_t)H, sizeof *zero);
    if (!zero)
        goto nomem;
    c->viol_trace = c->viol_final = violations(m, n, zero, NULL);
    free(zero);
    if (c->o->clock != MM_CONV_CLOCK_CAUSAL || H < 2) {
        free(m);
        return MMS_OK;
    }
    if (n == 0) {
        c->clock_result = "no-messages";
        free(m);
        return cv_warn(c, "clocks: no matched messages between hosts: causality cannot correct "
                          "the trace's alignment (kept as it is)");
    }
    if (H > 512) {
        c->clock_result = "as-traced";
        free(m);
        return cv_warn(c, "clocks: %d hosts: causal alignment solves up to 512 (trace's alignment "
                          "kept)", (int)H);
    }
    int64_t *D = malloc((size_t)H * H * sizeof *D), *y = calloc((size_t)H, sizeof *y);
    double *a = calloc((size_t)H, sizeof *a), *rate = calloc((size_t)H, sizeof *rate);
    if (!D || !y || !a || !rate) {
        free(D);
        free(y);
        free(a);
        free(rate);
        goto nomem;
    }
    if (!solve(D, H, m, n, NULL)) {
        place(c, D, H, y);
        apply(c, y, NULL);
        c->clock_result = "causal";
    } else if ((rc = fit_drift(m, n, H, a, rate)) == MMS_OK && !solve(D, H, m, n, rate)) {
        place(c, D, H, y);
        apply(c, y, rate);
        c->clock_result = "causal-drift";
    } else if (rc == MMS_OK) {
        for (int32_t h = 0; h < H; h++)
            y[h] = (int64_t)llround(a[h]);
        if ((rc = descend(m, n, H, rate, y)))
            goto done;
        c->viol_best = violations(m, n, y, rate);
        c->clock_result = "inconsistent";
        apply(c, NULL, NULL);
        rc = cv_warn(c, "clocks: no offset and drift per host lets every message between hosts "
                        "be received after it was sent: %llu of %zu would still be received "
                        "before they were sent after the best fit (%llu with the trace's "
                        "alignment); the trace's alignment is kept",
                     (unsigned long long)c->viol_best, n, (unsigned long long)c->viol_trace);
    }
done:
    if (rc == MMS_OK) {
        int64_t *yy = y;
        for (int32_t h = 0; h < H; h++)
            yy[h] = c->dom[h].corr;
        for (int32_t h = 0; h < H; h++)
            rate[h] = c->dom[h].rate;
        c->viol_final = violations(m, n, yy, rate);
    }
    free(D);
    free(y);
    free(a);
    free(rate);
    free(m);
    if (rc == MMS_ENOMEM)
        goto nomem_nofree;
    return rc;
nomem:
    free(m);
nomem_nofree:
    snprintf(err, errlen, "out of memory");
    return MMS_ENOMEM;
}

static const char *mode_name(int clock)
{
    return clock == MM_CONV_CLOCK_TRACE ? "trace" : clock == MM_CONV_CLOCK_FIRST ? "first-record"
                                                                                 : "causal";
}

void cv_clock_print(const cv_conv *c, FILE *f)
{
    if (!f || c->ndom < 2)
        return;
    fprintf(f, "clocks (--clock %s): %s; %llu matched messages between %d hosts; received before "
               "sent: %llu with the trace's alignment, %llu as converted\n",
            mode_name(c->o->clock), c->clock_result, (unsigned long long)c->clock_msgs,
            (int)c->ndom, (unsigned long long)c->viol_trace, (unsigned long long)c->viol_final);
    for (int32_t h = 0; h < c->ndom; h++) {
        const cv_dom *d = &c->dom[h];
        fprintf(f, "  host %s (from rank %d): offset %+lld ns", c->r[d->rank].h.host, (int)d->rank,
                (long long)(d->base + d->corr));
        if (h == 0)
            fprintf(f, " (reference)");
        else if (c->o->clock != MM_CONV_CLOCK_CAUSAL)
            ;
        else if (d->lo > -CV_UNB && d->hi < CV_UNB)
            fprintf(f, ", window [%+lld, %+lld] ns, uncertainty %lld ns",
                    (long long)(d->base + d->lo), (long long)(d->base + d->hi),
                    (long long)(d->hi - d->lo));
        else if (d->lo > -CV_UNB)
            fprintf(f, ", window [%+lld, +inf) ns: messages one way only", (long long)(d->base + d->lo));
        else if (d->hi < CV_UNB)
            fprintf(f, ", window (-inf, %+lld] ns: messages one way only", (long long)(d->base + d->hi));
        else
            fprintf(f, ", not bounded: no messages with the other hosts");
        if (d->rate != 0)
            fprintf(f, ", drift %+.3f ppm", d->rate * 1e6);
        fprintf(f, "; correction %+lld ns\n", (long long)d->corr);
    }
}

void cv_clock_json(const cv_conv *c, mmj *j)
{
    mmj_key(j, "clock");
    mmj_obj(j);
    mmj_kstr(j, "mode", mode_name(c->o->clock));
    mmj_kstr(j, "result", c->clock_result);
    mmj_ku64(j, "messages_between_hosts", c->clock_msgs);
    mmj_key(j, "received_before_sent");
    mmj_obj(j);
    mmj_ku64(j, "trace_alignment", c->viol_trace);
    mmj_ku64(j, "converted", c->viol_final);
    if (strcmp(c->clock_result, "inconsistent") == 0)
        mmj_ku64(j, "best_fit", c->viol_best);
    mmj_obj_end(j);
    mmj_key(j, "hosts");
    mmj_arr(j);
    for (int32_t h = 0; h < c->ndom; h++) {
        const cv_dom *d = &c->dom[h];
        mmj_obj(j);
        mmj_kstr(j, "host", c->r[d->rank].h.host);
        mmj_ki64(j, "first_rank", d->rank);
        mmj_ki64(j, "offset_ns", d->base + d->corr);
        mmj_ki64(j, "trace_offset_ns", d->base);
        mmj_ki64(j, "correction_ns", d->corr);
        mmj_key(j, "window_ns");
        mmj_arr(j);
        if (d->lo > -CV_UNB)
            mmj_i64(j, d->base + d->lo);
        else
            mmj_null(j);
        if (d->hi < CV_UNB)
            mmj_i64(j, d->base + d->hi);
        else
            mmj_null(j);
        mmj_arr_end(j);
        mmj_key(j, "uncertainty_ns");
        if (d->lo > -CV_UNB && d->hi < CV_UNB)
            mmj_i64(j, d->hi - d->lo);
        else
            mmj_null(j);
        mmj_knum(j, "drift_ppm", d->rate * 1e6);
        mmj_ku64(j, "messages_sent", d->sent);
        mmj_ku64(j, "messages_received", d->received);
        mmj_obj_end(j);
    }
    mmj_arr_end(j);
    mmj_obj_end(j);
}
