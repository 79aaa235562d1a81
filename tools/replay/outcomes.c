/*
 * outcomes.c - turning the per-event outcome array into outcome lines,
 * counts, a hash, and comparisons between engines.
 */
#include <inttypes.h>
#include <stdio.h>

#include "replay.h"

int mm_outcome_format(const mm_stream *s, size_t i, uint64_t out, char *buf, size_t len)
{
    const mm_event *e = &s->ev[i];
    int has = out != MM_OUT_NONE && out < s->n;
    if (len > 0)
        buf[0] = '\0';
    switch (e->type) {
    case MM_EV_RECV:
        return has ? snprintf(buf, len, "%" PRIu64 " %" PRIu64, e->id, s->ev[out].id) : 0;
    case MM_EV_MSG:
        return has ? snprintf(buf, len, "%" PRIu64 " %" PRIu64, s->ev[out].id, e->id) : 0;
    case MM_EV_PROBE:
    case MM_EV_MPROBE:
        if (has)
            return snprintf(buf, len, "%c %" PRIu64 " %" PRIu64, e->type, e->id, s->ev[out].id);
        return snprintf(buf, len, "%c %" PRIu64 " -", e->type, e->id);
    case MM_EV_CANCEL:
        return snprintf(buf, len, "C %" PRIu64 " %s", e->id, has ? "ok" : "miss");
    default:
        return 0;
    }
}

int mm_outcomes_write(const mm_stream *s, const uint64_t *out, mm_sink_fn sink, void *ctx)
{
    /* Batch lines: one sink call per block, not per outcome. */
    char block[65536];
    size_t o = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (sizeof block - o < 80) {
            if (sink(ctx, block, o))
                return MMS_EIO;
            o = 0;
        }
        int w = mm_outcome_format(s, i, out[i], block + o, 79);
        if (w <= 0)
            continue;
        o += (size_t)w;
        block[o++] = '\n';
    }
    if (o > 0 && sink(ctx, block, o))
        return MMS_EIO;
    return MMS_OK;
}

void mm_outcomes_count(const mm_stream *s, const uint64_t *out, mm_replay_counts *c)
{
    *c = (mm_replay_counts){ 0 };
    for (size_t i = 0; i < s->n; i++) {
        int hit = out[i] != MM_OUT_NONE;
        switch (s->ev[i].type) {
        case MM_EV_RECV:
        case MM_EV_MSG:
            c->matches += hit;
            break;
        case MM_EV_PROBE:
            c->probe_hits += hit;
            c->probe_misses += !hit;
            break;
        case MM_EV_MPROBE:
            c->mprobe_hits += hit;
            c->mprobe_misses += !hit;
            break;
        case MM_EV_CANCEL:
            c->cancel_ok += hit;
            c->cancel_miss += !hit;
            break;
        default:
            break;
        }
    }
}

long long mm_outcomes_check(const mm_stream *s, const uint64_t *out)
{
    for (size_t i = 0; i < s->n; i++) {
        const mm_event *e = &s->ev[i];
        uint64_t j = out[i];
        if (j == MM_OUT_NONE)
            continue;
        /* A partner always came before the event that completed the pair. */
        if (j >= i)
            return (long long)i;
        int want;
        switch (e->type) {
        case MM_EV_RECV:   want = MM_EV_MSG; break;
        case MM_EV_MSG:    want = MM_EV_RECV; break;
        case MM_EV_PROBE:
        case MM_EV_MPROBE: want = MM_EV_MSG; break;
        default:
            if (j != e->ref)
                return (long long)i;
            continue;
        }
        if (s->ev[j].type != want)
            return (long long)i;
    }
    return -1;
}

long long mm_outcomes_diff(const mm_stream *s, const uint64_t *a, const uint64_t *b,
                           uint64_t *outcome_index)
{
    uint64_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (a[i] != b[i]) {
            if (outcome_index)
                *outcome_index = k;
            return (long long)i;
        }
        int t = s->ev[i].type;
        k += (t != MM_EV_RECV && t != MM_EV_MSG) || a[i] != MM_OUT_NONE;
    }
    return -1;
}

uint64_t mm_outcomes_hash(const uint64_t *out, size_t n)
{
    /* FNV-1a over 64-bit words: enough to tell repetitions apart cheaply. */
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= out[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
