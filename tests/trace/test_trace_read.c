/*
 * test_trace_read.c - the trace reader on files made here: a valid trace,
 * and every kind of bad input the reader must name (file, offset, reason)
 * or read partially with a warning.
 *   test_trace_read TMPFILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../stream/tcheck.h"
#include "trace_read.h"

static const char *tmp;

/* The file being built. */
static unsigned char buf[MMT_HEADER_SIZE + 64 * MMT_RECORD_SIZE];
static size_t len;
static unsigned nrec;

static void begin(void)
{
    mmt_header h;
    memset(&h, 0, sizeof h);
    h.rank = 1;
    h.size = 4;
    h.pid = 42;
    h.clock = MMT_CLOCK_MONOTONIC;
    h.t0 = 1000;
    h.t0_real = 5;
    h.thread_level = 0;
    strcpy(h.mpi, "openmpi");
    strcpy(h.libver, "Test MPI v0");
    strcpy(h.host, "node0");
    mmt_encode_header(&h, buf);
    len = MMT_HEADER_SIZE;
    nrec = 0;
}

static mmt_record rec(int type, int sub, uint64_t comm, uint64_t t)
{
    mmt_record r;
    memset(&r, 0, sizeof r);
    r.type = (uint8_t)type;
    r.sub = (uint8_t)sub;
    r.comm = comm;
    r.t_start = t;
    r.t_end = t + 10;
    return r;
}

static void add(const mmt_record *r)
{
    mmt_encode(r, buf + len);
    len += MMT_RECORD_SIZE;
    nrec++;
}

static void add_comm(uint64_t id, uint64_t parent, int how, int32_t rank, const int32_t *world,
                     int32_t size)
{
    mmt_record r = rec(MMT_COMM, how, id, 1000);
    r.peer = rank;
    r.tag = MMT_NONE;
    r.src = size;
    r.aux = parent;
    if (!world)
        r.flags = MMT_F_IDENTITY;
    add(&r);
    for (int32_t i = 0; world && i < size; i += MMT_GROUP_PER_RECORD) {
        unsigned k = (unsigned)(size - i < MMT_GROUP_PER_RECORD ? size - i : MMT_GROUP_PER_RECORD);
        mmt_encode_group(world + i, k, buf + len);
        len += MMT_RECORD_SIZE;
        nrec++;
    }
}

#define SPLIT_ID (UINT64_C(0) << 32 | 2)

/* A small valid trace of rank 1 of 4. Returns the number of records that
 * mmt_next returns (GROUP records are not returned). */
static unsigned build_valid(int with_end)
{
    begin();
    int32_t self[1] = { 1 }, split[2] = { 0, 1 };
    int32_t big[21];
    for (int i = 0; i < 21; i++)
        big[i] = i % 2 ? 1 : 3;
    big[0] = 1;
    add_comm(MMT_COMM_WORLD_ID, MMT_NO_PARENT, MMT_CM_WORLD, 1, NULL, 4);
    add_comm(UINT64_C(1) << 32 | 1, MMT_NO_PARENT, MMT_CM_SELF, 0, self, 1);
    mmt_record r = rec(MMT_SYNC, 0, 0, 1100);
    add(&r);
    add_comm(SPLIT_ID, MMT_COMM_WORLD_ID, MMT_CM_SPLIT, 1, split, 2);
    /* a group spanning two GROUP records (ranks may repeat: not checked) */
    add_comm(UINT64_C(1) << 32 | 3, MMT_COMM_WORLD_ID, MMT_CM_CREATE, 0, big, 21);
    r = rec(MMT_SEND, MMT_MODE_STD, SPLIT_ID, 1200);
    r.peer = 0, r.peer_world = 0, r.tag = 7, r.bytes = 64;
    add(&r);
    r = rec(MMT_IRECV, 0, MMT_COMM_WORLD_ID, 1300);
    r.peer = MMT_ANY_SOURCE, r.peer_world = -1, r.tag = MMT_ANY_TAG, r.bytes = 128, r.req = 1;
    add(&r);
    r = rec(MMT_COMPLETE, MMT_IRECV, MMT_COMM_WORLD_ID, 1400);
    r.req = 1, r.src = 3, r.src_world = 3, r.rtag = 9, r.bytes = 16;
    add(&r);
    r = rec(MMT_COLL, MMT_C_BCAST, SPLIT_ID, 1500);
    r.peer = 0, r.peer_world = 0, r.bytes = 8;
    add(&r);
    r = rec(MMT_COMMFREE, 0, SPLIT_ID, 1600);
    add(&r);
    unsigned returned = 10;
    if (with_end) {
        r = rec(MMT_END, 0, 0, 1700);
        r.aux = nrec;
        add(&r);
        returned++;
    }
    return returned;
}

static void write_file(size_t n)
{
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
        perror(tmp);
        exit(2);
    }
}

typedef struct result {
    int rc;             /* MMT_OK, or the error of mmt_open or mmt_next */
    unsigned records;   /* records returned                          */
    char err[512];
    char warn[512];
} result;

static result read_all(size_t n)
{
    write_file(n);
    result res;
    memset(&res, 0, sizeof res);
    mmt_reader *r;
    res.rc = mmt_open(&r, tmp, res.err, sizeof res.err);
    if (res.rc)
        return res;
    mmt_record x;
    int rc;
    while ((rc = mmt_next(r, &x, res.err, sizeof res.err)) > 0)
        res.records++;
    res.rc = rc;
    if (mmt_warning(r))
        snprintf(res.warn, sizeof res.warn, "%s", mmt_warning(r));
    mmt_close(r);
    return res;
}

#define HAS(s, sub) (strstr((s), (sub)) != NULL)

static void test_valid(void)
{
    unsigned want = build_valid(1);
    result res = read_all(len);
    CHECK_MSG(res.rc == 0, "%s", res.err);
    CHECK(res.records == want);
    CHECK_MSG(res.warn[0] == '\0', "%s", res.warn);

    /* the communicator table translates ranks */
    write_file(len);
    mmt_reader *r;
    char err[256];
    CHECK(mmt_open(&r, tmp, err, sizeof err) == 0);
    CHECK(mmt_header_of(r)->rank == 1 && mmt_header_of(r)->size == 4);
    CHECK(strcmp(mmt_header_of(r)->mpi, "openmpi") == 0);
    mmt_record x;
    while (mmt_next(r, &x, err, sizeof err) > 0)
        ;
    const mmt_comm *c = mmt_comm_find(r, SPLIT_ID);
    CHECK(c && c->size == 2 && c->rank == 1 && c->freed && c->how == MMT_CM_SPLIT);
    CHECK(c && mmt_comm_world(c, 1, 0) == 1 && mmt_comm_world(c, 2, 0) == -1);
    c = mmt_comm_find(r, MMT_COMM_WORLD_ID);
    CHECK(c && !c->world && mmt_comm_world(c, 3, 0) == 3);
    c = mmt_comm_find(r, UINT64_C(1) << 32 | 3);
    CHECK(c && c->size == 21 && mmt_comm_world(c, 20, 0) == 3);
    mmt_close(r);
}

static void test_truncated(void)
{
    unsigned want = build_valid(1);
    /* cut in the middle of the last record (END) */
    result res = read_all(len - 30);
    CHECK_MSG(res.rc == 0, "%s", res.err);
    CHECK(res.records == want - 1);
    CHECK_MSG(HAS(res.warn, tmp) && HAS(res.warn, "partial record (50 of 80 bytes)"), "%s", res.warn);
    char off[64];
    snprintf(off, sizeof off, "offset %zu:", len - MMT_RECORD_SIZE);
    CHECK_MSG(HAS(res.warn, off), "%s", res.warn);

    /* cut at a record boundary, no END record: all read, warned */
    want = build_valid(0);
    res = read_all(len);
    CHECK_MSG(res.rc == 0 && res.records == want, "%u %s", res.records, res.err);
    CHECK_MSG(HAS(res.warn, "no END record"), "%s", res.warn);

    /* cut inside the GROUP records of a communicator */
    build_valid(1);
    size_t cut = MMT_HEADER_SIZE + 6 * MMT_RECORD_SIZE; /* world, self, group, sync, split, group */
    res = read_all(cut + MMT_RECORD_SIZE + MMT_RECORD_SIZE / 2);
    CHECK_MSG(res.rc == 0 && res.records == 4, "%u %s", res.records, res.err);
    CHECK_MSG(res.warn[0] != '\0', "no warning");

    /* header only: no records, warned */
    res = read_all(MMT_HEADER_SIZE);
    CHECK(res.rc == 0 && res.records == 0 && HAS(res.warn, "no END record"));

    /* a truncated header is an error */
    res = read_all(100);
    CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, tmp) &&
              HAS(res.err, "offset 100: truncated header (100 of 256 bytes)"), "%s", res.err);
}

static void test_foreign(void)
{
    build_valid(1);
    buf[0] = 'X';
    result res = read_all(len);
    CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, tmp) && HAS(res.err, "offset 0:") &&
              HAS(res.err, "not an mpimatch trace"), "%s", res.err);

    const char *text = "# mpimatch stream v1\nR 1 0 * 5\n";
    memcpy(buf, text, strlen(text));
    res = read_all(strlen(text));
    CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, "not an mpimatch trace"), "%s", res.err);

    res = read_all(0);
    CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, "empty"), "%s", res.err);

    res.rc = mmt_open(&(mmt_reader *){ NULL }, "/nonexistent/trace.mmt", res.err, sizeof res.err);
    CHECK_MSG(res.rc == MMT_EIO && HAS(res.err, "/nonexistent/trace.mmt: cannot open"), "%s", res.err);
}

/* Corrupt one byte of record `index` (0-based, GROUP records count) and
 * expect an error naming its offset and `reason`. */
static void corrupt(unsigned index, unsigned field, unsigned char value, const char *reason)
{
    build_valid(1);
    size_t off = MMT_HEADER_SIZE + (size_t)index * MMT_RECORD_SIZE;
    buf[off + field] = value;
    result res = read_all(len);
    char where[64];
    snprintf(where, sizeof where, "offset %zu: record %u: ", off, index + 1);
    CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, tmp) && HAS(res.err, where) &&
              HAS(res.err, reason), "want '%s%s', got '%s'", where, reason, res.err);
}

static void test_corrupt(void)
{
    /* records: 0 world, 1 self, 2 group, 3 sync, 4 split, 5 group, 6 create,
     * 7-8 group, 9 send, 10 irecv, 11 complete, 12 bcast, 13 free, 14 end */
    corrupt(9, MMT_R_TYPE, 99, "unknown record type 99");
    corrupt(9, MMT_R_TYPE, MMT_GROUP, "GROUP record that follows no COMM");
    corrupt(9, MMT_R_FLAGS + 1, 0x80, "unknown flags");
    corrupt(9, MMT_R_SUB, 9, "bad sub-type 9");
    corrupt(9, MMT_R_COMM, 77, "unknown communicator");
    corrupt(9, MMT_R_PEER, 5, "destination 5 outside 0..1");
    corrupt(9, MMT_R_PEERW, 2, "destination 0 is world rank 0, not 2");
    corrupt(9, MMT_R_T0 + 7, 1, "ends");
    corrupt(10, MMT_R_REQ, 0, "request id 0");
    corrupt(11, MMT_R_REQ, 5, "request 5 was never issued");
    corrupt(12, MMT_R_SUB, 0, "bad sub-type 0");
    corrupt(12, MMT_R_SRC, 3, "commutativity 3 is not 0, 1 or 2");
    corrupt(12, MMT_R_TAG + 3, 0x80, "negative element size");
    corrupt(5, MMT_R_SUB, 3, "expected a GROUP record of 2 ranks");
    corrupt(5, 4, 9, "world rank 9 outside 0..3");
    corrupt(4, MMT_R_PEER, 0, "own rank 0 is world rank 0");
    corrupt(4, MMT_R_AUX, 9, "unknown parent communicator");
    corrupt(4, MMT_R_COMM, 0, "created twice");
    corrupt(14, MMT_R_AUX, 3, "END: counts 3 records");
    corrupt(13, MMT_R_TYPE, MMT_END, "END: counts 0 records");

    /* a record after END */
    build_valid(1);
    mmt_record r = rec(MMT_SYNC, 1, 0, 2000);
    add(&r);
    result res = read_all(len);
    CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, "after the END record"), "%s", res.err);

    /* a communicator used after it was freed */
    build_valid(0);
    r = rec(MMT_COLL, MMT_C_BARRIER, SPLIT_ID, 2000);
    r.peer = MMT_NONE, r.peer_world = MMT_NONE;
    add(&r);
    res = read_all(len);
    CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, "used after it was freed"), "%s", res.err);

    /* header fields */
    struct { unsigned off; unsigned char v; const char *reason; } hb[] = {
        { MMT_H_VERSION, 2, "offset 8: unsupported trace version 2" },
        { MMT_H_RECSIZE, 81, "offset 12: record size 81" },
        { MMT_H_RANK, 4, "offset 16: rank 4 outside 0..3" },
        { MMT_H_CLOCK, 7, "offset 28: unknown clock 7" },
        { MMT_H_FLAGS, 2, "offset 14: unknown header flags" },
        { MMT_H_RSVD, 1, "offset 52: reserved" },
    };
    for (size_t i = 0; i < sizeof hb / sizeof hb[0]; i++) {
        build_valid(1);
        buf[hb[i].off] = hb[i].v;
        res = read_all(len);
        CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, hb[i].reason), "want '%s', got '%s'",
                  hb[i].reason, res.err);
    }
    build_valid(1);
    memset(buf + MMT_H_HOST, 'x', MMT_HOST_LEN);
    res = read_all(len);
    CHECK_MSG(res.rc == MMT_EFORMAT && HAS(res.err, "unterminated host name"), "%s", res.err);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_trace_read TMPFILE\n");
        return 2;
    }
    tmp = argv[1];
    test_valid();
    test_truncated();
    test_foreign();
    test_corrupt();
    remove(tmp);
    return TC_DONE();
}
