/*
 * stream_binary.c - the binary form of the stream: reader and writer.
 *
 * Layout (docs/stream-format.md): a 32-byte header, then fixed-size records
 * (48 bytes in version 1; 56 in version 2, which adds the resolved source
 * and tag of trace conversion), all integers little-endian whatever the
 * host. Fixed-size records let the reader check the file size against the
 * count before allocating, and make every record's offset computable for
 * error messages. The writer uses version 1 unless some event carries
 * resolved attributes, so streams without them stay readable by version-1
 * readers.
 */
#include <string.h>

#include "le.h"
#include "stream_internal.h"

/* Field offsets in a record. */
enum {
    R_TYPE = 0, R_KIND = 1, R_COLL = 2, R_RSVD = 3, R_COMM = 4, R_SRC = 8, R_TAG = 12,
    R_ID = 16, R_BYTES = 24, R_T = 32, R_CSIZE = 40, R_CALL = 44,
    R_SRC_RES = 48, R_TAG_RES = 52 /* version 2 only; byte 3 holds the flags */
};
/* Header offsets. */
enum { H_MAGIC = 0, H_VERSION = 6, H_NP = 8, H_RECSIZE = 12, H_FLAGS = 14, H_COUNT = 16, H_RSVD = 24 };

static void encode(const mm_event *e, unsigned char *r, size_t recsize)
{
    memset(r, 0, recsize);
    r[R_TYPE] = e->type;
    r[R_KIND] = e->kind;
    r[R_COLL] = e->coll_op;
    le_put32(r + R_COMM, (uint32_t)e->comm);
    le_put32(r + R_SRC, (uint32_t)e->src);
    le_put32(r + R_TAG, (uint32_t)e->tag);
    le_put64(r + R_ID, e->id);
    le_put64(r + R_BYTES, e->bytes);
    le_put64(r + R_T, e->t);
    le_put32(r + R_CSIZE, e->comm_size);
    le_put32(r + R_CALL, e->call);
    if (recsize == MM_BIN_RECORD_SIZE2) {
        r[R_RSVD] = e->resolved;
        le_put32(r + R_SRC_RES, (uint32_t)e->src_resolved);
        le_put32(r + R_TAG_RES, (uint32_t)e->tag_resolved);
    }
}

static int decode(const unsigned char *r, mm_event *e, size_t recsize)
{
    memset(e, 0, sizeof *e);
    e->type = r[R_TYPE];
    e->kind = r[R_KIND];
    e->coll_op = r[R_COLL];
    if (recsize == MM_BIN_RECORD_SIZE2) {
        /* the push checks the flags and the values */
        e->resolved = r[R_RSVD];
        e->src_resolved = le_as_i32(le_get32(r + R_SRC_RES));
        e->tag_resolved = le_as_i32(le_get32(r + R_TAG_RES));
    } else if (r[R_RSVD]) {
        return -1; /* version 1: the reserved byte must be 0 */
    }
    e->comm = le_as_i32(le_get32(r + R_COMM));
    e->src = le_as_i32(le_get32(r + R_SRC));
    e->tag = le_as_i32(le_get32(r + R_TAG));
    e->id = le_get64(r + R_ID);
    e->bytes = le_get64(r + R_BYTES);
    e->t = le_get64(r + R_T);
    e->comm_size = le_get32(r + R_CSIZE);
    e->call = le_get32(r + R_CALL);
    return 0;
}

int mm_stream_parse_binary(mm_stream *s, const unsigned char *d, size_t len, char *err, size_t errlen)
{
    s->format = MM_FMT_BINARY;
    if (len < MM_BIN_MAGIC_LEN || memcmp(d, MM_BIN_MAGIC, MM_BIN_MAGIC_LEN) != 0)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen, "offset 0: not a binary stream (no '" MM_BIN_MAGIC "' magic)");
    if (len < MM_BIN_HEADER_SIZE)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %zu: truncated header (%zu of %d bytes)", len, len, MM_BIN_HEADER_SIZE);
    uint16_t version = le_get16(d + H_VERSION);
    if (version != MM_BIN_VERSION && version != MM_BIN_VERSION2)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %d: unsupported binary version %u (this reader knows %d and %d)",
                           H_VERSION, version, MM_BIN_VERSION, MM_BIN_VERSION2);
    const size_t rsz = version == MM_BIN_VERSION ? MM_BIN_RECORD_SIZE : MM_BIN_RECORD_SIZE2;
    s->bin_recsize = (uint8_t)rsz;
    uint32_t np = le_get32(d + H_NP);
    if (np == 0 || np > INT32_MAX)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %d: np %u out of range 1..2147483647", H_NP, np);
    if (le_get16(d + H_RECSIZE) != rsz)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %d: record size %u, expected %zu (version %u)", H_RECSIZE,
                           le_get16(d + H_RECSIZE), rsz, version);
    if (le_get16(d + H_FLAGS) != 0 || le_get64(d + H_RSVD) != 0)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen, "offset %d: reserved header fields must be 0",
                           le_get16(d + H_FLAGS) ? H_FLAGS : H_RSVD);

    /* Check the size against the count before trusting the count. */
    uint64_t count = le_get64(d + H_COUNT);
    size_t body = len - MM_BIN_HEADER_SIZE;
    size_t whole = body / rsz, part = body % rsz;
    if (part != 0 && whole < count)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %zu: truncated: record %zu needs %zu bytes, only %zu remain",
                           len - part, whole + 1, rsz, part);
    if (whole < count)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %zu: truncated: the header declares %llu records, the file holds %zu",
                           len, (unsigned long long)count, whole);
    if (whole > count || part != 0)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %llu: %llu trailing bytes after the %llu records the header declares",
                           (unsigned long long)(MM_BIN_HEADER_SIZE + count * rsz),
                           (unsigned long long)(body - count * rsz),
                           (unsigned long long)count);

    int rc = mm_stream_reserve(s, (size_t)count, err, errlen);
    if (rc)
        return rc;
    s->np_decl = (int32_t)np;
    for (size_t i = 0; i < count; i++) {
        mm_event e;
        if (decode(d + MM_BIN_HEADER_SIZE + i * rsz, &e, rsz))
            return mms_fail_at(s, i + 1, MMS_EFORMAT, err, errlen,
                               "reserved byte 3 must be 0 in a version-1 record");
        e.line = i + 1;
        if ((rc = mm_stream_push(s, &e, err, errlen)))
            return rc;
    }
    return MMS_OK;
}

int mm_stream_write_binary(const mm_stream *s, mm_sink_fn sink, void *ctx)
{
    enum { PER_BLOCK = 1024 };
    unsigned char block[PER_BLOCK * MM_BIN_RECORD_SIZE2];
    if (!s->finalized)
        return MMS_ESTATE;
    int v2 = 0;
    for (size_t i = 0; i < s->n && !v2; i++)
        v2 = s->ev[i].resolved != 0;
    const size_t rsz = v2 ? MM_BIN_RECORD_SIZE2 : MM_BIN_RECORD_SIZE;

    unsigned char *h = block;
    memset(h, 0, MM_BIN_HEADER_SIZE);
    memcpy(h + H_MAGIC, MM_BIN_MAGIC, MM_BIN_MAGIC_LEN);
    le_put16(h + H_VERSION, v2 ? MM_BIN_VERSION2 : MM_BIN_VERSION);
    le_put32(h + H_NP, (uint32_t)s->np);
    le_put16(h + H_RECSIZE, (uint16_t)rsz);
    le_put64(h + H_COUNT, (uint64_t)s->n);
    if (sink(ctx, h, MM_BIN_HEADER_SIZE))
        return MMS_EIO;

    for (size_t i = 0; i < s->n; i += PER_BLOCK) {
        size_t k = s->n - i < PER_BLOCK ? s->n - i : PER_BLOCK;
        for (size_t j = 0; j < k; j++)
            encode(&s->ev[i + j], block + j * rsz, rsz);
        if (sink(ctx, block, k * rsz))
            return MMS_EIO;
    }
    return MMS_OK;
}
