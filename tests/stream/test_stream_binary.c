/*
 * test_stream_binary.c - the binary form: exact byte layout, text -> binary
 * -> text round trip, every truncation and every corruption rejected with
 * a located message.
 */
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "fixtures.h"
#include "tcheck.h"

static const char text[] = FIXTURE_CANONICAL;

static int load(mm_stream *s, const void *d, size_t n, const char *name, char *err, size_t errlen)
{
    mm_stream_init(s, name, NULL, 0);
    err[0] = '\0';
    return mm_stream_parse(s, d, n, MM_READ_AUTO, 0, err, errlen);
}

static mm_buf to_binary(const mm_stream *s)
{
    mm_buf b = { 0 };
    CHECK(mm_stream_write_binary(s, mm_sink_buf, &b) == MMS_OK);
    return b;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void test_layout_and_round_trip(void)
{
    char err[512];
    mm_stream s, s2;
    CHECK_MSG(load(&s, text, strlen(text), "t.txt", err, sizeof err) == MMS_OK, "%s", err);
    mm_buf b = to_binary(&s);
    CHECK(b.len == 32 + 9 * 48);

    /* Header. */
    const unsigned char *h = b.p;
    CHECK(memcmp(h, "MMSTRM", 6) == 0);
    CHECK(le(h + 6, 2) == 1 && le(h + 8, 4) == 8 && le(h + 12, 2) == 48 && le(h + 14, 2) == 0);
    CHECK(le(h + 16, 8) == 9 && le(h + 24, 8) == 0);
    /* First record: R 10 3 * * coll=allreduce bytes=64 np=8 call=2 t=1000 */
    const unsigned char *r = b.p + 32;
    CHECK(r[0] == 'R' && r[1] == MM_KIND_COLL && r[2] == MM_COLL_ALLREDUCE && r[3] == 0);
    CHECK(le(r + 4, 4) == 3 && le(r + 8, 4) == 0xffffffffu && le(r + 12, 4) == 0x80000000u);
    CHECK(le(r + 16, 8) == 10 && le(r + 24, 8) == 64 && le(r + 32, 8) == 1000);
    CHECK(le(r + 40, 4) == 8 && le(r + 44, 4) == 2);
    /* Second: M 11 3 7 -5 */
    r += 48;
    CHECK(r[0] == 'M' && le(r + 8, 4) == 7 && le(r + 12, 4) == (uint32_t)-5 && le(r + 16, 8) == 11);
    /* Sixth: C 10 carries only the id */
    r = b.p + 32 + 5 * 48;
    CHECK(r[0] == 'C' && le(r + 16, 8) == 10);
    for (int i = 1; i < 48; i++)
        if (i < 16 || i >= 24)
            CHECK(r[i] == 0);

    /* binary -> stream -> text gives the canonical text back, byte for byte. */
    CHECK_MSG(load(&s2, b.p, b.len, "t.mmb", err, sizeof err) == MMS_OK, "%s", err);
    CHECK(s2.format == MM_FMT_BINARY && s2.np == 8 && s2.n == s.n && s2.nslots == s.nslots);
    mm_buf t1 = { 0 }, t2 = { 0 }, b2;
    CHECK(mm_stream_write_text(&s, mm_sink_buf, &t1) == MMS_OK);
    CHECK(mm_stream_write_text(&s2, mm_sink_buf, &t2) == MMS_OK);
    CHECK(t1.len == strlen(text) && memcmp(t1.p, text, t1.len) == 0);
    CHECK(t1.len == t2.len && memcmp(t1.p, t2.p, t1.len) == 0);
    b2 = to_binary(&s2);
    CHECK(b2.len == b.len && memcmp(b.p, b2.p, b.len) == 0);
    for (size_t i = 0; i < s.n && i < s2.n; i++) {
        mm_event x = s.ev[i], y = s2.ev[i];
        CHECK(y.line == i + 1);
        x.line = y.line = 0;
        CHECK_MSG(memcmp(&x, &y, sizeof x) == 0, "event %zu", i);
    }
    mm_buf_free(&t1);
    mm_buf_free(&t2);
    mm_buf_free(&b2);

    /* Every proper prefix is rejected cleanly, naming an offset. */
    for (size_t cut = 0; cut < b.len; cut++) {
        mm_stream t;
        int rc = load(&t, b.p, cut, "cut.mmb", err, sizeof err);
        CHECK_MSG(rc == MMS_EFORMAT, "cut %zu: rc %d", cut, rc);
        if (cut > 0)
            CHECK_MSG(strstr(err, "cut.mmb: offset ") == err && strstr(err, "truncated"),
                      "cut %zu: %s", cut, err);
        mm_stream_free(&t);
    }
    mm_buf_free(&b);
    mm_stream_free(&s);
    mm_stream_free(&s2);
}

/* Build a binary stream from text, corrupt it with f, expect msg. */
static void corrupt(const char *src, void (*f)(mm_buf *), const char *msg, int line)
{
    char err[512];
    mm_stream s, t;
    CHECK(load(&s, src, strlen(src), "t.txt", err, sizeof err) == MMS_OK);
    mm_buf b = to_binary(&s);
    f(&b);
    CHECK_MSG(load(&t, b.p, b.len, "c.mmb", err, sizeof err) == MMS_EFORMAT, "line %d", line);
    CHECK_MSG(strstr(err, msg) != NULL, "line %d: want '%s' in '%s'", line, msg, err);
    mm_buf_free(&b);
    mm_stream_free(&s);
    mm_stream_free(&t);
}

#define REC(b, i) ((b)->p + 32 + (size_t)(i) * 48)
static void set32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> 8 * i); }
static void set64(unsigned char *p, uint64_t v) { set32(p, (uint32_t)v); set32(p + 4, (uint32_t)(v >> 32)); }

static void f_version(mm_buf *b) { b->p[6] = 3; }
static void f_version2(mm_buf *b) { b->p[6] = 2; }
static void f_np0(mm_buf *b) { set32(b->p + 8, 0); }
static void f_npbig(mm_buf *b) { set32(b->p + 8, 0x80000000u); }
static void f_recsize(mm_buf *b) { b->p[12] = 40; }
static void f_flags(mm_buf *b) { b->p[14] = 1; }
static void f_rsvd(mm_buf *b) { b->p[31] = 1; }
static void f_count_more(mm_buf *b) { set64(b->p + 16, 4); }
static void f_count_less(mm_buf *b) { set64(b->p + 16, 2); }
static void f_count_huge(mm_buf *b) { set64(b->p + 16, UINT64_MAX); }
static void f_type(mm_buf *b) { REC(b, 1)[0] = 'Q'; }
static void f_kind(mm_buf *b) { REC(b, 1)[1] = 2; }
static void f_coll_no_kind(mm_buf *b) { REC(b, 1)[2] = 3; }
static void f_kind_no_coll(mm_buf *b) { REC(b, 1)[1] = 1; }
static void f_coll_range(mm_buf *b) { REC(b, 1)[1] = 1; REC(b, 1)[2] = 200; }
static void f_pad(mm_buf *b) { REC(b, 1)[3] = 1; }
static void f_dup(mm_buf *b) { set64(REC(b, 1) + 16, 1); }
static void f_msg_any_src(mm_buf *b) { set32(REC(b, 1) + 8, 0xffffffffu); }
static void f_msg_any_tag(mm_buf *b) { set32(REC(b, 1) + 12, 0x80000000u); }
static void f_src_range(mm_buf *b) { set32(REC(b, 1) + 8, 5); }
static void f_src_neg(mm_buf *b) { set32(REC(b, 1) + 8, (uint32_t)-2); }
static void f_comm_neg(mm_buf *b) { set32(REC(b, 1) + 4, 0x80000000u); }
static void f_cancel_unknown(mm_buf *b) { set64(REC(b, 2) + 16, 99); }
static void f_cancel_msg(mm_buf *b) { set64(REC(b, 2) + 16, 2); }
static void f_cancel_field(mm_buf *b) { REC(b, 2)[4] = 1; }
static void f_probe_attr(mm_buf *b) { REC(b, 1)[0] = 'P'; set64(REC(b, 1) + 24, 5); }

static void test_corruptions(void)
{
    const char *src = "# mpimatch stream v1\n# np=4\nR 1 0 1 2\nM 2 0 3 4 bytes=5\nC 1\n";
    corrupt(src, f_version, "c.mmb: offset 6: unsupported binary version 3 (this reader knows 1 and 2)",
            __LINE__);
    corrupt(src, f_version2, "c.mmb: offset 12: record size 48, expected 56 (version 2)", __LINE__);
    corrupt(src, f_np0, "c.mmb: offset 8: np 0 out of range", __LINE__);
    corrupt(src, f_npbig, "np 2147483648 out of range", __LINE__);
    corrupt(src, f_recsize, "c.mmb: offset 12: record size 40, expected 48", __LINE__);
    corrupt(src, f_flags, "offset 14: reserved header fields", __LINE__);
    corrupt(src, f_rsvd, "offset 24: reserved header fields", __LINE__);
    corrupt(src, f_count_more, "c.mmb: offset 176: truncated: the header declares 4 records, the file holds 3",
            __LINE__);
    corrupt(src, f_count_less, "c.mmb: offset 128: 48 trailing bytes after the 2 records", __LINE__);
    corrupt(src, f_count_huge, "the header declares 18446744073709551615 records", __LINE__);
    corrupt(src, f_type, "c.mmb: record 2 (offset 80): unknown event type 0x51", __LINE__);
    corrupt(src, f_kind, "record 2 (offset 80): bad kind 2", __LINE__);
    corrupt(src, f_coll_no_kind, "record 2 (offset 80): collective operation 3 on a point-to-point event",
            __LINE__);
    corrupt(src, f_kind_no_coll, "record 2 (offset 80): collective with bad operation 0", __LINE__);
    corrupt(src, f_coll_range, "collective with bad operation 200", __LINE__);
    corrupt(src, f_pad, "record 2 (offset 80): reserved byte 3 must be 0 in a version-1 record", __LINE__);
    corrupt(src, f_dup, "c.mmb: record 2 (offset 80): duplicate id 1 (first used at record 1)", __LINE__);
    corrupt(src, f_msg_any_src, "record 2 (offset 80): M has wildcard source", __LINE__);
    corrupt(src, f_msg_any_tag, "record 2 (offset 80): M has wildcard tag", __LINE__);
    corrupt(src, f_src_range, "c.mmb: record 2 (offset 80): source 5 outside 0..3 (declared np=4)", __LINE__);
    corrupt(src, f_src_neg, "record 2 (offset 80): source -2 out of range", __LINE__);
    corrupt(src, f_comm_neg, "record 2 (offset 80): communicator -2147483648 out of range", __LINE__);
    corrupt(src, f_cancel_unknown, "record 3 (offset 128): C names unknown id 99", __LINE__);
    corrupt(src, f_cancel_msg, "record 3 (offset 128): C names id 2, which is an M at record 2", __LINE__);
    corrupt(src, f_cancel_field, "record 3 (offset 128): C carries only the id", __LINE__);
    corrupt(src, f_probe_attr, "record 2 (offset 80): P takes no attributes", __LINE__);
}

/* Version 2: written when some R carries src_resolved/tag_resolved; 56-byte
 * records, byte 3 the flags, the two values at 48 and 52. Round trip, and
 * the rules applied to the decoded values. */
#define REC2(b, i) ((b)->p + 32 + (size_t)(i) * 56)
static void f2_flags(mm_buf *b) { REC2(b, 0)[3] = 4; }
static void f2_value(mm_buf *b) { REC2(b, 1)[3] = 3; }              /* src_resolved 0, src 2 */
static void f2_msg(mm_buf *b) { REC2(b, 3)[3] = 1; }                 /* on an M */
static void f2_noflag(mm_buf *b) { set32(REC2(b, 3) + 48, 1); }
static void f2_count(mm_buf *b) { set64(b->p + 16, 6); }

static void test_version2(void)
{
    char err[512];
    mm_stream s, s2;
    const char *txt = FIXTURE_RESOLVED;
    CHECK_MSG(load(&s, txt, strlen(txt), "t.txt", err, sizeof err) == MMS_OK, "%s", err);
    mm_buf b = to_binary(&s);
    CHECK(b.len == 32 + 5 * 56);
    CHECK(le(b.p + 6, 2) == 2 && le(b.p + 12, 2) == 56);
    const unsigned char *r = b.p + 32;
    CHECK(r[0] == 'R' && r[3] == (MM_RES_SRC | MM_RES_TAG) && le(r + 48, 4) == 3 && le(r + 52, 4) == 7);
    r += 56;
    CHECK(r[3] == MM_RES_TAG && le(r + 48, 4) == 0 && le(r + 52, 4) == 0x7fffffffu);
    CHECK_MSG(load(&s2, b.p, b.len, "t.mmb", err, sizeof err) == MMS_OK, "%s", err);
    mm_buf t2 = { 0 };
    CHECK(mm_stream_write_text(&s2, mm_sink_buf, &t2) == MMS_OK);
    CHECK(t2.len == strlen(txt) && memcmp(t2.p, txt, t2.len) == 0);
    mm_buf_free(&t2);
    mm_stream_free(&s2);
    for (size_t cut = 0; cut < b.len; cut++) {
        int rc = load(&s2, b.p, cut, "cut.mmb", err, sizeof err);
        CHECK_MSG(rc == MMS_EFORMAT, "cut %zu: rc %d", cut, rc);
        mm_stream_free(&s2);
    }
    mm_buf_free(&b);
    mm_stream_free(&s);

    corrupt(txt, f2_flags, "c.mmb: record 1 (offset 32): bad resolved flags 0x04", __LINE__);
    corrupt(txt, f2_value, "c.mmb: record 2 (offset 88): src_resolved=0 differs from the receive's source 2",
            __LINE__);
    corrupt(txt, f2_msg, "c.mmb: record 4 (offset 200): M takes no src_resolved", __LINE__);
    corrupt(txt, f2_noflag, "record 4 (offset 200): src_resolved/tag_resolved set without their flags",
            __LINE__);
    corrupt(txt, f2_count, "c.mmb: offset 312: truncated: the header declares 6 records, the file holds 5",
            __LINE__);
}

/* Detection is by content: a binary named .txt is binary, and so on. */
static void test_detection(void)
{
    char err[512];
    mm_stream s;
    CHECK(load(&s, "MMS", 3, "x.txt", err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "x.txt: offset 3: truncated header (3 of 32 bytes)"), "%s", err);
    mm_stream_free(&s);
    CHECK(load(&s, "MMSTRM", 6, "x.txt", err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "truncated header (6 of 32 bytes)"), "%s", err);
    mm_stream_free(&s);
    CHECK(load(&s, "MMX", 3, "x.mmb", err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "x.mmb:1: missing header"), "%s", err);
    mm_stream_free(&s);

    /* Forcing a format. */
    mm_stream_init(&s, "f", NULL, 0);
    CHECK(mm_stream_parse(&s, "# mpimatch stream v1\n", 21, MM_READ_BINARY, 0, err, sizeof err) ==
          MMS_EFORMAT);
    CHECK_MSG(strstr(err, "f: offset 0: not a binary stream"), "%s", err);
    mm_stream_free(&s);

    /* An empty binary stream is valid. */
    CHECK(load(&s, "# mpimatch stream v1\n", 21, "e", err, sizeof err) == MMS_OK);
    mm_buf b = to_binary(&s);
    mm_stream_free(&s);
    CHECK(b.len == 32);
    CHECK(load(&s, b.p, b.len, "e.mmb", err, sizeof err) == MMS_OK && s.n == 0 && s.np == 1);
    mm_stream_free(&s);
    mm_buf_free(&b);
}

int main(void)
{
    test_layout_and_round_trip();
    test_corruptions();
    test_version2();
    test_detection();
    return TC_DONE();
}
