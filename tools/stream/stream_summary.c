/*
 * stream_summary.c - facts about a stream: counts for `mpimatch-stream
 * check`, and the hints a stream satisfies for replay's `--hints auto`.
 */
#include <stdlib.h>
#include <string.h>

#include "stream_internal.h"

int mm_event_type_index(int type)
{
    switch (type) {
    case MM_EV_RECV:   return 0;
    case MM_EV_MSG:    return 1;
    case MM_EV_PROBE:  return 2;
    case MM_EV_MPROBE: return 3;
    case MM_EV_CANCEL: return 4;
    default:           return -1;
    }
}

uint32_t mm_stream_hints(const mm_stream *s, uint64_t *first_any_source, uint64_t *first_any_tag)
{
    uint64_t fs = 0, ft = 0;
    for (size_t i = 0; i < s->n && !(fs && ft); i++) {
        const mm_event *e = &s->ev[i];
        if (e->type == MM_EV_MSG || e->type == MM_EV_CANCEL)
            continue;
        if (!fs && e->src == MM_ANY_SOURCE)
            fs = e->line;
        if (!ft && e->tag == MM_ANY_TAG)
            ft = e->line;
    }
    if (first_any_source)
        *first_any_source = fs;
    if (first_any_tag)
        *first_any_tag = ft;
    return (fs ? 0u : MM_HINT_NO_ANY_SOURCE) | (ft ? 0u : MM_HINT_NO_ANY_TAG);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int mm_stream_summarize(const mm_stream *s, mm_stream_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    mm_stream_hints(s, &sum->first_any_source, &sum->first_any_tag);

    /* Distinct communicators: sort a copy; this runs once per check. */
    int32_t *comms = malloc((s->n ? s->n : 1) * sizeof *comms);
    size_t nc = 0;
    if (!comms)
        return MMS_ENOMEM;

    for (size_t i = 0; i < s->n; i++) {
        const mm_event *e = &s->ev[i];
        int k = mm_event_type_index(e->type);
        if (k >= 0)
            sum->count[k]++;
        if (e->type == MM_EV_CANCEL)
            continue;
        comms[nc++] = e->comm;
        int as = e->src == MM_ANY_SOURCE, at = e->tag == MM_ANY_TAG;
        if (e->type == MM_EV_RECV) {
            sum->recv_any_source += as;
            sum->recv_any_tag += at;
            sum->recv_any_both += as && at;
        } else if (e->type != MM_EV_MSG) {
            sum->probe_wild += as || at;
        }
        if (!at && e->tag < 0)
            sum->negative_tags++;
        if (e->kind == MM_KIND_COLL)
            sum->coll++;
    }
    qsort(comms, nc, sizeof *comms, cmp_i32);
    for (size_t i = 0; i < nc; i++)
        if (i == 0 || comms[i] != comms[i - 1])
            sum->comms++;
    free(comms);
    return MMS_OK;
}
