/*
 * replay_analysis.c - per-source traversal counts and queue series
 * (replay_analysis.h). Plain arrays of event indices serve as the queues:
 * this pass is untimed, so clarity beats speed.
 */
#include "replay_analysis.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

typedef struct vq {
    size_t *e;
    size_t n, cap;
} vq;

static int vq_push(vq *q, size_t i)
{
    if (q->n == q->cap) {
        size_t nc = q->cap ? 2 * q->cap : 64;
        size_t *p = realloc(q->e, nc * sizeof *p);
        if (!p)
            return -1;
        q->e = p;
        q->cap = nc;
    }
    q->e[q->n++] = i;
    return 0;
}

static void vq_remove(vq *q, size_t at)
{
    memmove(q->e + at, q->e + at + 1, (q->n - at - 1) * sizeof *q->e);
    q->n--;
}

/* The MPI rule (src/core/elem.h mm_match): receive key r, message key m. */
static int match(const mm_event *r, const mm_event *m)
{
    return r->comm == m->comm && (r->src == m->src || r->src == MM_ANY_SOURCE) &&
           (r->tag == m->tag || (r->tag == MM_ANY_TAG && m->tag >= 0));
}

static size_t src_slot(const mm_analysis *a, int32_t src)
{
    return src >= 0 && src < a->np ? (size_t)src : (size_t)a->np;
}

/* Search queue q from the head for the partner of event x: in the UMQ
 * (recv_side 0: x is a receive or probe, the elements are messages) or in
 * the PRQ (recv_side 1: x is a message, the elements are receives). Every
 * element looked at is counted under its source. Index in q or -1. */
static long long search(const mm_stream *s, mm_analysis *a, const vq *q, const mm_event *x,
                        int recv_side)
{
    uint64_t depth = 0, *by_src = recv_side ? a->prq_src : a->umq_src;
    long long hit = -1;
    for (size_t i = 0; i < q->n; i++) {
        const mm_event *e = &s->ev[q->e[i]];
        depth++;
        by_src[src_slot(a, e->src)]++;
        if (recv_side ? match(e, x) : match(x, e)) {
            hit = (long long)i;
            break;
        }
    }
    *(recv_side ? &a->prq_searches : &a->umq_searches) += 1;
    *(recv_side ? &a->prq_traversed : &a->umq_traversed) += depth;
    return hit;
}

int mm_analyze(const mm_stream *s, mm_analysis *a, FILE *series, uint64_t every)
{
    memset(a, 0, sizeof *a);
    a->np = s->np;
    a->umq_src = calloc((size_t)s->np + 1, sizeof *a->umq_src); /* [np] unused */
    a->prq_src = calloc((size_t)s->np + 1, sizeof *a->prq_src);
    vq prq = { 0 }, umq = { 0 };
    int rc = MMS_ENOMEM;
    if (!a->umq_src || !a->prq_src)
        goto out;
    uint64_t t = 0;
    if (series && fputs("event,t,prq,umq\n", series) < 0) {
        rc = MMS_EIO;
        goto out;
    }
    for (size_t i = 0; i < s->n; i++) {
        const mm_event *ev = &s->ev[i];
        long long h;
        switch (ev->type) {
        case MM_EV_RECV:
            t = ev->t;
            if ((h = search(s, a, &umq, ev, 0)) >= 0)
                vq_remove(&umq, (size_t)h);
            else if (vq_push(&prq, i))
                goto out;
            break;
        case MM_EV_MSG:
            t = ev->t;
            if ((h = search(s, a, &prq, ev, 1)) >= 0)
                vq_remove(&prq, (size_t)h);
            else if (vq_push(&umq, i))
                goto out;
            break;
        case MM_EV_PROBE:
        case MM_EV_MPROBE:
            if ((h = search(s, a, &umq, ev, 0)) >= 0 && ev->type == MM_EV_MPROBE)
                vq_remove(&umq, (size_t)h);
            break;
        case MM_EV_CANCEL:
            for (size_t k = 0; k < prq.n; k++)
                if (prq.e[k] == ev->ref) {
                    vq_remove(&prq, k);
                    break;
                }
            break;
        default:
            break;
        }
        if (prq.n > a->prq_max_length)
            a->prq_max_length = prq.n;
        if (umq.n > a->umq_max_length)
            a->umq_max_length = umq.n;
        if (series && every && ((i + 1) % every == 0 || i + 1 == s->n) &&
            fprintf(series, "%zu,%llu,%zu,%zu\n", i + 1, (unsigned long long)t, prq.n, umq.n) < 0) {
            rc = MMS_EIO;
            goto out;
        }
    }
    rc = MMS_OK;
out:
    free(prq.e);
    free(umq.e);
    return rc;
}

void mm_analysis_free(mm_analysis *a)
{
    free(a->umq_src);
    free(a->prq_src);
    memset(a, 0, sizeof *a);
}

static void u64_array(mmj *j, const char *key, const uint64_t *v, size_t n)
{
    mmj_key(j, key);
    mmj_arr(j);
    for (size_t i = 0; i < n; i++)
        mmj_u64(j, v[i]);
    mmj_arr_end(j);
}

int mm_analysis_json(FILE *f, const mm_stream *s, const mm_analysis *a)
{
    mmj j;
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_kstr(&j, "stream", s->name);
    mmj_kstr(&j, "semantics", "list");
    mmj_ku64(&j, "np", (uint64_t)a->np);
    mmj_ku64(&j, "events", (uint64_t)s->n);
    u64_array(&j, "umq_traversed_by_source", a->umq_src, (size_t)a->np);
    u64_array(&j, "prq_traversed_by_source", a->prq_src, (size_t)a->np);
    mmj_ku64(&j, "prq_traversed_any_source", a->prq_src[a->np]);
    mmj_ku64(&j, "umq_traversed", a->umq_traversed);
    mmj_ku64(&j, "prq_traversed", a->prq_traversed);
    mmj_ku64(&j, "umq_searches", a->umq_searches);
    mmj_ku64(&j, "prq_searches", a->prq_searches);
    mmj_ku64(&j, "umq_max_length", a->umq_max_length);
    mmj_ku64(&j, "prq_max_length", a->prq_max_length);
    mmj_obj_end(&j);
    return mmj_finish(&j);
}
