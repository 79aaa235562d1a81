/*
 * stream.c - the in-memory stream: storage, the id index and the semantic
 * rules every event must obey, whatever produced it.
 */
#include <stdlib.h>
#include <string.h>

#include "stream_internal.h"

/* Events are addressed by 32-bit index in the id table; far beyond any
 * stream that fits in memory (72 bytes per event). */
#define MMS_MAX_EVENTS ((size_t)UINT32_MAX - 1)

int mm_stream_init(mm_stream *s, const char *name, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->max_src = -1;
    if (name) {
        size_t n = strlen(name);
        s->name = malloc(n + 1);
        if (!s->name)
            return mms_fail(MMS_ENOMEM, err, errlen, "out of memory");
        memcpy(s->name, name, n + 1);
    }
    return MMS_OK;
}

void mm_stream_free(mm_stream *s)
{
    if (!s)
        return;
    free(s->ev);
    free(s->hkeys);
    free(s->hvals);
    free(s->name);
    memset(s, 0, sizeof *s);
    s->max_src = -1;
}

mm_event mm_event_make(int type, uint64_t id, int32_t comm, int32_t src, int32_t tag)
{
    mm_event e;
    memset(&e, 0, sizeof e);
    e.type = (uint8_t)type;
    e.id = id;
    if (type != MM_EV_CANCEL) {
        e.comm = comm;
        e.src = src;
        e.tag = tag;
    }
    return e;
}

/* ---- id index: open addressing with linear probing ---- */

static size_t hash_id(uint64_t x)
{
    /* splitmix64 finaliser: sequential ids spread over the whole table. */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return (size_t)x;
}

long long mm_stream_find(const mm_stream *s, uint64_t id)
{
    if (s->hcap == 0)
        return -1;
    size_t mask = s->hcap - 1;
    for (size_t i = hash_id(id) & mask;; i = (i + 1) & mask) {
        if (s->hvals[i] == 0)
            return -1;
        if (s->hkeys[i] == id)
            return (long long)s->hvals[i] - 1;
    }
}

static void hash_put(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t id, uint32_t v)
{
    size_t mask = cap - 1;
    size_t i = hash_id(id) & mask;
    while (vals[i] != 0)
        i = (i + 1) & mask;
    keys[i] = id;
    vals[i] = v;
}

/* Make room for one more id, keeping the load at most 1/2. */
static int hash_reserve(mm_stream *s)
{
    if ((s->hcount + 1) * 2 <= s->hcap)
        return MMS_OK;
    size_t cap = s->hcap ? s->hcap * 2 : 1024;
    if (cap > SIZE_MAX / sizeof(uint64_t))
        return MMS_ENOMEM;
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return MMS_ENOMEM;
    }
    for (size_t i = 0; i < s->hcap; i++)
        if (s->hvals[i])
            hash_put(keys, vals, cap, s->hkeys[i], s->hvals[i]);
    free(s->hkeys);
    free(s->hvals);
    s->hkeys = keys;
    s->hvals = vals;
    s->hcap = cap;
    return MMS_OK;
}

int mm_stream_reserve(mm_stream *s, size_t more, char *err, size_t errlen)
{
    if (more > MMS_MAX_EVENTS || s->n > MMS_MAX_EVENTS - more)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "too many events (at most %zu)", MMS_MAX_EVENTS);
    size_t need = s->n + more;
    if (need <= s->cap)
        return MMS_OK;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < need)
        cap = cap > MMS_MAX_EVENTS / 2 ? MMS_MAX_EVENTS : cap * 2;
    if (cap > SIZE_MAX / sizeof(mm_event))
        return mms_fail(MMS_ENOMEM, err, errlen, "out of memory");
    mm_event *ev = realloc(s->ev, cap * sizeof *ev);
    if (!ev)
        return mms_fail(MMS_ENOMEM, err, errlen, "out of memory (%zu events)", cap);
    s->ev = ev;
    s->cap = cap;
    return MMS_OK;
}

static const char *type_article(int type)
{
    return type == MM_EV_MSG || type == MM_EV_RECV || type == MM_EV_MPROBE ? "an" : "a";
}

/* src_resolved= / tag_resolved= (R only): what the receive really got, so
 * concrete, and equal to the receive's own source / tag where that is not a
 * wildcard. The source's upper bound is checked by finalize. */
static int check_resolved(const mm_stream *s, const mm_event *e, char *err, size_t errlen)
{
    uint64_t l = e->line;
    if (e->type != MM_EV_RECV)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "%c takes no src_resolved/tag_resolved (R only)", e->type);
    if (!(e->resolved & MM_RES_SRC) && e->src_resolved)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen, "src_resolved set without its flag");
    if (!(e->resolved & MM_RES_TAG) && e->tag_resolved)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen, "tag_resolved set without its flag");
    if (e->resolved & MM_RES_SRC) {
        if (e->src_resolved == MM_ANY_SOURCE)
            return mms_fail_at(s, l, MMS_EFORMAT, err, errlen, "src_resolved must be concrete");
        if (e->src_resolved < 0 || e->src_resolved == INT32_MAX)
            return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                               "src_resolved %d out of range 0..2147483646", (int)e->src_resolved);
        if (e->src != MM_ANY_SOURCE && e->src != e->src_resolved)
            return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                               "src_resolved=%d differs from the receive's source %d",
                               (int)e->src_resolved, (int)e->src);
    }
    if (e->resolved & MM_RES_TAG) {
        if (e->tag_resolved == MM_ANY_TAG)
            return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                               "tag_resolved must be concrete");
        if (e->tag != MM_ANY_TAG && e->tag != e->tag_resolved)
            return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                               "tag_resolved=%d differs from the receive's tag %d",
                               (int)e->tag_resolved, (int)e->tag);
        if (e->tag == MM_ANY_TAG && e->tag_resolved < 0)
            return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                               "tag_resolved=%d: a receive with tag '*' only matches tags >= 0",
                               (int)e->tag_resolved);
    }
    return MMS_OK;
}

/* Rules on the event alone: MMS_OK, or MMS_EFORMAT with the reason in err. */
static int check_fields(const mm_stream *s, const mm_event *e, char *err, size_t errlen)
{
    uint64_t l = e->line;
    char t = (char)e->type;
    int rc;
    int has_attr = e->kind || e->coll_op || e->bytes || e->t || e->comm_size || e->call;

    if (e->resolved & ~MM_RES_ALL)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen, "bad resolved flags 0x%02x", e->resolved);
    if (!e->resolved && (e->src_resolved || e->tag_resolved))
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "src_resolved/tag_resolved set without their flags");
    if (e->resolved && (rc = check_resolved(s, e, err, errlen)))
        return rc;
    switch (e->type) {
    case MM_EV_RECV: case MM_EV_MSG: case MM_EV_PROBE: case MM_EV_MPROBE:
        break;
    case MM_EV_CANCEL:
        if (e->comm || e->src || e->tag || has_attr)
            return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                               "C carries only the id of its receive; other fields must be 0");
        return MMS_OK;
    default:
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "unknown event type 0x%02x (expected R, M, P, X or C)", e->type);
    }
    if (e->comm < 0)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "communicator %d out of range 0..2147483647", (int)e->comm);
    /* np is at most INT32_MAX, so a source is at most INT32_MAX - 1. */
    if (e->src < MM_ANY_SOURCE || e->src == INT32_MAX)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "source %d out of range 0..2147483646", (int)e->src);
    if (t == MM_EV_MSG && e->src == MM_ANY_SOURCE)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "M has wildcard source '*'; arrivals must be concrete");
    if (t == MM_EV_MSG && e->tag == MM_ANY_TAG)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "M has wildcard tag '*'; arrivals must be concrete");
    if ((t == MM_EV_PROBE || t == MM_EV_MPROBE) && has_attr)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "%c takes no attributes", t);
    if (e->kind > MM_KIND_COLL)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen, "bad kind %u", e->kind);
    if (e->kind == MM_KIND_COLL && (e->coll_op == MM_COLL_NONE || e->coll_op >= MM_COLL_OP_COUNT))
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "collective with bad operation %u", e->coll_op);
    if (e->kind == MM_KIND_P2P && e->coll_op != MM_COLL_NONE)
        return mms_fail_at(s, l, MMS_EFORMAT, err, errlen,
                           "collective operation %u on a point-to-point event", e->coll_op);
    return MMS_OK;
}

int mm_stream_push(mm_stream *s, const mm_event *in, char *err, size_t errlen)
{
    mm_event e = *in;
    if (e.line == 0)
        e.line = s->n + 1;
    int rc = check_fields(s, &e, err, errlen);
    if (rc)
        return rc;

    long long other = mm_stream_find(s, e.id);
    if (e.type == MM_EV_CANCEL) {
        if (other < 0)
            return mms_fail_at(s, e.line, MMS_EFORMAT, err, errlen,
                               "C names unknown id %llu (a C must follow its R)",
                               (unsigned long long)e.id);
        const mm_event *r = &s->ev[other];
        if (r->type != MM_EV_RECV)
            return mms_fail_at(s, e.line, MMS_EFORMAT, err, errlen,
                               "C names id %llu, which is %s %c at %s %llu, not a receive (R)",
                               (unsigned long long)e.id, type_article(r->type), r->type,
                               mm_stream_unit(s), (unsigned long long)r->line);
    } else if (other >= 0) {
        return mms_fail_at(s, e.line, MMS_EFORMAT, err, errlen,
                           "duplicate id %llu (first used at %s %llu)",
                           (unsigned long long)e.id, mm_stream_unit(s),
                           (unsigned long long)s->ev[other].line);
    }

    /* Allocate before changing anything, so an error leaves s as it was. */
    rc = mm_stream_reserve(s, 1, err, errlen);
    if (rc)
        return rc;
    if (e.type != MM_EV_CANCEL && hash_reserve(s) != MMS_OK)
        return mms_fail(MMS_ENOMEM, err, errlen, "out of memory");

    size_t idx = s->n;
    if (e.type == MM_EV_CANCEL) {
        /* Only receives that some C names need a handle kept at replay. */
        mm_event *r = &s->ev[other];
        if (r->ref == 0)
            r->ref = ++s->nslots;
        e.ref = (uint64_t)other;
    } else {
        e.ref = 0;
        hash_put(s->hkeys, s->hvals, s->hcap, e.id, (uint32_t)(idx + 1));
        s->hcount++;
        if (e.src > s->max_src)
            s->max_src = e.src;
        if ((e.resolved & MM_RES_SRC) && e.src_resolved > s->max_src)
            s->max_src = e.src_resolved;
    }
    s->ev[idx] = e;
    s->n++;
    s->finalized = 0;
    return MMS_OK;
}

int mm_stream_finalize(mm_stream *s, int32_t np_override, char *err, size_t errlen)
{
    s->finalized = 0;
    if (np_override < 0)
        return mms_fail(MMS_ESTATE, err, errlen, "bad np override %d", (int)np_override);
    if (np_override > 0) {
        s->np = np_override;
        s->np_origin = MM_NP_OVERRIDE;
    } else if (s->np_decl > 0) {
        s->np = s->np_decl;
        s->np_origin = MM_NP_DECLARED;
    } else {
        s->np = s->max_src >= 0 ? s->max_src + 1 : 1;
        s->np_origin = MM_NP_INFERRED;
    }
    if (s->max_src >= s->np) {
        for (size_t i = 0; i < s->n; i++) {
            const mm_event *e = &s->ev[i];
            int32_t src = e->src;
            if ((e->resolved & MM_RES_SRC) && e->src_resolved > src)
                src = e->src_resolved;
            if (e->type != MM_EV_CANCEL && src >= s->np)
                return mms_fail_at(s, e->line, MMS_EFORMAT, err, errlen,
                                   "%s %d outside 0..%d (%s np=%d)",
                                   src == e->src ? "source" : "src_resolved", (int)src,
                                   (int)s->np - 1,
                                   s->np_origin == MM_NP_OVERRIDE ? "override" : "declared",
                                   (int)s->np);
        }
    }
    s->finalized = 1;
    return MMS_OK;
}
