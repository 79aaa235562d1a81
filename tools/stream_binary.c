/*
 * stream_binary.c - the binary form of the stream: reader and writer.
 *
 * Layout (docs/stream-format.md): a 32-byte header, then fixed 48-byte
 * records, all integers little-endian whatever the host. Fixed-size records
 * let the reader check the file size against the count before allocating,
 * and make every record's offset computable for error messages.
 */
#include <string.h>

#include "stream_internal.h"

static uint16_t get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static void put16(unsigned char *p, uint16_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* Field offsets in a record. */
enum {
    R_TYPE = 0, R_KIND = 1, R_COLL = 2, R_RSVD = 3, R_COMM = 4, R_SRC = 8, R_TAG = 12,
    R_ID = 16, R_BYTES = 24, R_T = 32, R_CSIZE = 40, R_CALL = 44
};
/* Header offsets. */
enum { H_MAGIC = 0, H_VERSION = 6, H_NP = 8, H_RECSIZE = 12, H_FLAGS = 14, H_COUNT = 16, H_RSVD = 24 };

static void encode(const mm_event *e, unsigned char *r)
{
    memset(r, 0, MM_BIN_RECORD_SIZE);
    r[R_TYPE] = e->type;
    r[R_KIND] = e->kind;
    r[R_COLL] = e->coll_op;
    put32(r + R_COMM, (uint32_t)e->comm);
    put32(r + R_SRC, (uint32_t)e->src);
    put32(r + R_TAG, (uint32_t)e->tag);
    put64(r + R_ID, e->id);
    put64(r + R_BYTES, e->bytes);
    put64(r + R_T, e->t);
    put32(r + R_CSIZE, e->comm_size);
    put32(r + R_CALL, e->call);
}

/* Two's complement reinterpretation without implementation-defined casts. */
static int32_t as_i32(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

static void decode(const unsigned char *r, mm_event *e)
{
    memset(e, 0, sizeof *e);
    e->type = r[R_TYPE];
    e->kind = r[R_KIND];
    e->coll_op = r[R_COLL];
    e->pad = r[R_RSVD]; /* the push rejects a nonzero reserved byte */
    e->comm = as_i32(get32(r + R_COMM));
    e->src = as_i32(get32(r + R_SRC));
    e->tag = as_i32(get32(r + R_TAG));
    e->id = get64(r + R_ID);
    e->bytes = get64(r + R_BYTES);
    e->t = get64(r + R_T);
    e->comm_size = get32(r + R_CSIZE);
    e->call = get32(r + R_CALL);
}

int mm_stream_parse_binary(mm_stream *s, const unsigned char *d, size_t len, char *err, size_t errlen)
{
    s->format = MM_FMT_BINARY;
    if (len < MM_BIN_MAGIC_LEN || memcmp(d, MM_BIN_MAGIC, MM_BIN_MAGIC_LEN) != 0)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen, "offset 0: not a binary stream (no '" MM_BIN_MAGIC "' magic)");
    if (len < MM_BIN_HEADER_SIZE)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %zu: truncated header (%zu of %d bytes)", len, len, MM_BIN_HEADER_SIZE);
    uint16_t version = get16(d + H_VERSION);
    if (version != MM_BIN_VERSION)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %d: unsupported binary version %u (this reader knows %d)",
                           H_VERSION, version, MM_BIN_VERSION);
    uint32_t np = get32(d + H_NP);
    if (np == 0 || np > INT32_MAX)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %d: np %u out of range 1..2147483647", H_NP, np);
    if (get16(d + H_RECSIZE) != MM_BIN_RECORD_SIZE)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen, "offset %d: record size %u, expected %d",
                           H_RECSIZE, get16(d + H_RECSIZE), MM_BIN_RECORD_SIZE);
    if (get16(d + H_FLAGS) != 0 || get64(d + H_RSVD) != 0)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen, "offset %d: reserved header fields must be 0",
                           get16(d + H_FLAGS) ? H_FLAGS : H_RSVD);

    /* Check the size against the count before trusting the count. */
    uint64_t count = get64(d + H_COUNT);
    size_t body = len - MM_BIN_HEADER_SIZE;
    size_t whole = body / MM_BIN_RECORD_SIZE, part = body % MM_BIN_RECORD_SIZE;
    if (part != 0 && whole < count)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %zu: truncated: record %zu needs %d bytes, only %zu remain",
                           len - part, whole + 1, MM_BIN_RECORD_SIZE, part);
    if (whole < count)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %zu: truncated: the header declares %llu records, the file holds %zu",
                           len, (unsigned long long)count, whole);
    if (whole > count || part != 0)
        return mms_fail_at(s, 0, MMS_EFORMAT, err, errlen,
                           "offset %llu: %llu trailing bytes after the %llu records the header declares",
                           (unsigned long long)(MM_BIN_HEADER_SIZE + count * MM_BIN_RECORD_SIZE),
                           (unsigned long long)(body - count * MM_BIN_RECORD_SIZE),
                           (unsigned long long)count);

    int rc = mm_stream_reserve(s, (size_t)count, err, errlen);
    if (rc)
        return rc;
    s->np_decl = (int32_t)np;
    for (size_t i = 0; i < count; i++) {
        mm_event e;
        decode(d + MM_BIN_HEADER_SIZE + i * MM_BIN_RECORD_SIZE, &e);
        e.line = i + 1;
        if ((rc = mm_stream_push(s, &e, err, errlen)))
            return rc;
    }
    return MMS_OK;
}

int mm_stream_write_binary(const mm_stream *s, mm_sink_fn sink, void *ctx)
{
    enum { PER_BLOCK = 1024 };
    unsigned char block[PER_BLOCK * MM_BIN_RECORD_SIZE];
    if (!s->finalized)
        return MMS_ESTATE;

    unsigned char *h = block;
    memset(h, 0, MM_BIN_HEADER_SIZE);
    memcpy(h + H_MAGIC, MM_BIN_MAGIC, MM_BIN_MAGIC_LEN);
    put16(h + H_VERSION, MM_BIN_VERSION);
    put32(h + H_NP, (uint32_t)s->np);
    put16(h + H_RECSIZE, MM_BIN_RECORD_SIZE);
    put64(h + H_COUNT, (uint64_t)s->n);
    if (sink(ctx, h, MM_BIN_HEADER_SIZE))
        return MMS_EIO;

    for (size_t i = 0; i < s->n; i += PER_BLOCK) {
        size_t k = s->n - i < PER_BLOCK ? s->n - i : PER_BLOCK;
        for (size_t j = 0; j < k; j++)
            encode(&s->ev[i + j], block + j * MM_BIN_RECORD_SIZE);
        if (sink(ctx, block, k * MM_BIN_RECORD_SIZE))
            return MMS_EIO;
    }
    return MMS_OK;
}
