/*
 * stream_errors.c - error messages that name the place in the input.
 */
#include <stdio.h>
#include <string.h>

#include "stream_internal.h"

const char *mm_stream_unit(const mm_stream *s)
{
    switch (s->format) {
    case MM_FMT_TEXT:   return "line";
    case MM_FMT_BINARY: return "record";
    default:            return "event";
    }
}

int mm_stream_where(const mm_stream *s, uint64_t line, char *buf, size_t len)
{
    const char *name = s->name ? s->name : "stream";
    unsigned long long l = (unsigned long long)line;
    switch (s->format) {
    case MM_FMT_TEXT:
        return snprintf(buf, len, "%s:%llu: ", name, l);
    case MM_FMT_BINARY: {
        /* The offset lets someone find the record with a hex dump. */
        unsigned rsz = s->bin_recsize ? s->bin_recsize : MM_BIN_RECORD_SIZE;
        unsigned long long off = MM_BIN_HEADER_SIZE + (l - 1) * rsz;
        return snprintf(buf, len, "%s: record %llu (offset %llu): ", name, l, off);
    }
    default:
        return snprintf(buf, len, "%s: event %llu: ", name, l);
    }
}

static int vfail(int code, char *err, size_t errlen, size_t used,
                 const char *fmt, va_list ap)
{
    if (err && errlen > 0 && used < errlen)
        vsnprintf(err + used, errlen - used, fmt, ap);
    return code;
}

int mms_fail_at(const mm_stream *s, uint64_t line, int code, char *err,
                size_t errlen, const char *fmt, ...)
{
    size_t used = 0;
    if (err && errlen > 0) {
        int w;
        err[0] = '\0';
        if (line > 0)
            w = mm_stream_where(s, line, err, errlen);
        else
            w = snprintf(err, errlen, "%s: ", s->name ? s->name : "stream");
        used = w < 0 ? 0 : (size_t)w;
    }
    va_list ap;
    va_start(ap, fmt);
    vfail(code, err, errlen, used, fmt, ap);
    va_end(ap);
    return code;
}

int mms_fail(int code, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(code, err, errlen, 0, fmt, ap);
    va_end(ap);
    return code;
}

const char *mms_quote(const char *p, size_t n, char *out, size_t outlen)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    /* Leave room for one escape (4), "..." (3) and the terminator. */
    size_t limit = outlen > 8 ? outlen - 8 : 0;
    size_t i;
    for (i = 0; i < n && o < limit; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out[o++] = (char)c;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    if (i < n && o + 3 < outlen) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    if (outlen > 0)
        out[o < outlen ? o : outlen - 1] = '\0';
    return out;
}
