/*
 * stream_text_write.c - the canonical text form.
 *
 * Canonical means: one header line, one '# np=' line with the effective np,
 * then one line per event, fields separated by one space, attributes in the
 * fixed order coll, bytes, np, call, t (only when not zero), src_resolved,
 * tag_resolved (when set), '\n' line
 * ends. Parsing canonical text and writing it again gives the same bytes,
 * and so does text -> binary -> text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stream_internal.h"

/* Appends with snprintf semantics: *o counts what would have been written. */
static void put(char *buf, size_t len, size_t *o, const char *fmt, ...) MMS_PRINTF(4, 5);
static void put(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(*o < len ? buf + *o : NULL, *o < len ? len - *o : 0, fmt, ap);
    va_end(ap);
    if (w > 0)
        *o += (size_t)w;
}

int mm_event_format_text(const mm_event *e, char *buf, size_t len)
{
    size_t o = 0;
    if (len > 0)
        buf[0] = '\0';
    if (e->type == MM_EV_CANCEL) {
        put(buf, len, &o, "C %" PRIu64, e->id);
        return (int)o;
    }
    put(buf, len, &o, "%c %" PRIu64 " %" PRId32, e->type, e->id, e->comm);
    if (e->src == MM_ANY_SOURCE)
        put(buf, len, &o, " *");
    else
        put(buf, len, &o, " %" PRId32, e->src);
    if (e->tag == MM_ANY_TAG)
        put(buf, len, &o, " *");
    else
        put(buf, len, &o, " %" PRId32, e->tag);
    if (e->kind == MM_KIND_COLL) {
        const char *nm = mm_coll_name(e->coll_op);
        put(buf, len, &o, " coll=%s", nm ? nm : "?");
    }
    if (e->bytes)
        put(buf, len, &o, " bytes=%" PRIu64, e->bytes);
    if (e->comm_size)
        put(buf, len, &o, " np=%" PRIu32, e->comm_size);
    if (e->call)
        put(buf, len, &o, " call=%" PRIu32, e->call);
    if (e->t)
        put(buf, len, &o, " t=%" PRIu64, e->t);
    if (e->resolved & MM_RES_SRC)
        put(buf, len, &o, " src_resolved=%" PRId32, e->src_resolved);
    if (e->resolved & MM_RES_TAG)
        put(buf, len, &o, " tag_resolved=%" PRId32, e->tag_resolved);
    return (int)o;
}

/* Lines are gathered in a block so the sink sees few, large writes. */
#define BLOCK 65536
#define LINE_MAX_LEN 256

int mm_stream_write_text(const mm_stream *s, mm_sink_fn sink, void *ctx)
{
    char block[BLOCK];
    size_t o = 0;
    if (!s->finalized)
        return MMS_ESTATE;
    o = (size_t)snprintf(block, sizeof block, "# mpimatch stream v1\n# np=%" PRId32 "\n", s->np);
    for (size_t i = 0; i < s->n; i++) {
        if (BLOCK - o < LINE_MAX_LEN) {
            if (sink(ctx, block, o))
                return MMS_EIO;
            o = 0;
        }
        int w = mm_event_format_text(&s->ev[i], block + o, LINE_MAX_LEN - 1);
        if (w < 0 || w >= LINE_MAX_LEN - 1)
            return MMS_ESTATE; /* cannot happen: a line is at most ~210 bytes */
        o += (size_t)w;
        block[o++] = '\n';
    }
    if (o > 0 && sink(ctx, block, o))
        return MMS_EIO;
    return MMS_OK;
}
