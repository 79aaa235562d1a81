/*
 * stream_io.c - reading inputs into memory, format detection, sinks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_internal.h"

int mm_stream_parse(mm_stream *s, const void *data, size_t len, int how,
                    int32_t np_override, char *err, size_t errlen)
{
    const unsigned char *d = data;
    int rc;
    if (how == MM_READ_AUTO) {
        /* The format is whatever the bytes say, never the file name. */
        int magic = len >= MM_BIN_MAGIC_LEN && memcmp(d, MM_BIN_MAGIC, MM_BIN_MAGIC_LEN) == 0;
        /* A non-empty prefix of the magic is a binary file cut short. */
        int cut = len > 0 && len < MM_BIN_MAGIC_LEN && memcmp(d, MM_BIN_MAGIC, len) == 0;
        if (cut) {
            s->format = MM_FMT_BINARY;
            return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                               "offset %zu: truncated header (%zu of %d bytes)", len, len,
                               MM_BIN_HEADER_SIZE);
        }
        how = magic ? MM_READ_BINARY : MM_READ_TEXT;
    }
    if (how == MM_READ_BINARY)
        rc = mm_stream_parse_binary(s, d, len, err, errlen);
    else
        rc = mm_stream_parse_text(s, (const char *)d, len, err, errlen);
    if (rc)
        return rc;
    return mm_stream_finalize(s, np_override, err, errlen);
}

int mm_read_file(const char *path, char **data, size_t *len, char *err, size_t errlen)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    *data = NULL;
    *len = 0;
    if (!f)
        return mms_fail(MMS_EIO, err, errlen, "%s: cannot open: %s", path, strerror(errno));

    /* Read in growing chunks: works for pipes, which have no size. */
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int rc = MMS_OK;
    while (buf) {
        if (cap - n < 2) {
            char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (!buf)
        rc = mms_fail(MMS_ENOMEM, err, errlen, "%s: out of memory reading the file", path);
    else if (ferror(f) && errno == EISDIR)
        rc = mms_fail(MMS_EIO, err, errlen, "%s: is a directory, not a stream file (a "
                      "directory of streams or traces, one per rank: mpimatch replay DIR)", path);
    else if (ferror(f))
        rc = mms_fail(MMS_EIO, err, errlen, "%s: read error: %s", path, strerror(errno));
    if (!is_stdin)
        fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return MMS_OK;
}

int mm_stream_load(mm_stream *s, const char *path, int32_t np_override, char *err, size_t errlen)
{
    char *data;
    size_t len;
    int rc = mm_stream_init(s, path, err, errlen);
    if (rc)
        return rc;
    rc = mm_read_file(path, &data, &len, err, errlen);
    if (rc == MMS_OK)
        rc = mm_stream_parse(s, data, len, MM_READ_AUTO, np_override, err, errlen);
    free(data);
    if (rc)
        mm_stream_free(s);
    return rc;
}

int mm_sink_file(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

int mm_sink_buf(void *ctx, const void *data, size_t len)
{
    mm_buf *b = ctx;
    if (len > SIZE_MAX - b->len)
        return -1;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len)
            cap = cap > SIZE_MAX / 2 ? b->len + len : cap * 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    if (len)
        memcpy(b->p + b->len, data, len);
    b->len += len;
    return 0;
}

void mm_buf_free(mm_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}
