/*
 * replay_analysis.c - per-source traversal counts and queue series
 * (replay_analysis.h), on the list-semantics simulator (list_sim.h).
 */
#include "replay_analysis.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "list_sim.h"

static size_t src_slot(const mm_analysis *a, int32_t src)
{
    return src >= 0 && src < a->np ? (size_t)src : (size_t)a->np;
}

/* Every element a search compares, counted under its source: messages in
 * the UMQ, receives (ANY_SOURCE apart) in the PRQ. */
static int count_elem(void *ctx, const mm_event *x, const mm_event *elem)
{
    mm_analysis *a = ctx;
    (x->type == MM_EV_MSG ? a->prq_src : a->umq_src)[src_slot(a, elem->src)]++;
    return 0;
}

int mm_analyze(const mm_stream *s, mm_analysis *a, FILE *series, uint64_t every)
{
    memset(a, 0, sizeof *a);
    a->np = s->np;
    a->umq_src = calloc((size_t)s->np + 1, sizeof *a->umq_src); /* [np] unused */
    a->prq_src = calloc((size_t)s->np + 1, sizeof *a->prq_src);
    mm_lsim q;
    if (!a->umq_src || !a->prq_src || mm_lsim_init(&q, s))
        return MMS_ENOMEM;
    int rc = MMS_EIO;
    uint64_t t = 0;
    if (series && fputs("event,t,prq,umq\n", series) < 0)
        goto out;
    for (size_t i = 0; i < s->n; i++) {
        const mm_event *ev = &s->ev[i];
        size_t partner;
        uint64_t depth;
        int searched;
        mm_lsim_step(&q, i, count_elem, a, &partner, &depth, &searched);
        if (ev->type == MM_EV_RECV || ev->type == MM_EV_MSG)
            t = ev->t;
        if (searched && ev->type == MM_EV_MSG) {
            a->prq_searches++;
            a->prq_traversed += depth;
        } else if (searched) {
            a->umq_searches++;
            a->umq_traversed += depth;
        }
        size_t prq = q.len[MM_LSIM_PRQ], umq = q.len[MM_LSIM_UMQ];
        if (prq > a->prq_max_length)
            a->prq_max_length = prq;
        if (umq > a->umq_max_length)
            a->umq_max_length = umq;
        if (series && every && ((i + 1) % every == 0 || i + 1 == s->n) &&
            fprintf(series, "%zu,%llu,%zu,%zu\n", i + 1, (unsigned long long)t, prq, umq) < 0)
            goto out;
    }
    rc = MMS_OK;
out:
    mm_lsim_free(&q);
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
