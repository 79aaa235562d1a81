/*
 * test_stream_text.c - the text parser and the canonical writer: every
 * valid construct gives the right event, every error the right line and
 * reason, canonical output is exact and stable.
 */
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "fixtures.h"
#include "tcheck.h"

#define H "# mpimatch stream v1\n"

/* Parse len bytes (strlen if len is 0) as text into a fresh stream. */
static int parse(mm_stream *s, const char *in, size_t len, int32_t np, char *err, size_t errlen)
{
    mm_stream_init(s, "t.txt", NULL, 0);
    err[0] = '\0';
    return mm_stream_parse(s, in, len ? len : strlen(in), MM_READ_AUTO, np, err, errlen);
}

static char *canonical(const mm_stream *s)
{
    mm_buf b = { 0 };
    if (mm_stream_write_text(s, mm_sink_buf, &b) != MMS_OK || mm_sink_buf(&b, "", 1)) {
        mm_buf_free(&b);
        return NULL;
    }
    return (char *)b.p;
}

static const struct bad_case {
    const char *in;
    size_t      len;  /* 0: strlen */
    unsigned    line;
    const char *msg;
} bad[] = {
    { "", 0, 1, "empty file: missing header" },
    { "\n", 0, 1, "missing header" },
    { "R 1 0 0 0\n", 0, 1, "missing header" },
    { " # mpimatch stream v1\n", 0, 1, "missing header" },
    { "#mpimatch stream v1\n", 0, 1, "missing header" },
    { "# mpimatch stream v2\n", 0, 1, "unsupported stream version 'v2'" },
    { "# mpimatch stream v1\0\n", 22, 1, "NUL byte at column 21" },
    { H "R 1 0 0 0\0\n", 32, 2, "NUL byte at column 10" },
    { H "Q 1 0 0 0\n", 0, 2, "unknown record type 'Q' (expected R, M, P, X or C)" },
    { H "RR 1 0 0 0\n", 0, 2, "unknown record type 'RR'" },
    { H "r 1 0 0 0\n", 0, 2, "unknown record type 'r'" },
    { H "\x01\n", 0, 2, "unknown record type '\\x01'" },
    { H "R\n", 0, 2, "malformed line: R needs <id> <comm> <src> <tag>; <id> is missing" },
    { H "M 1 0 0\n", 0, 2, "<tag> is missing" },
    { H "P 1 0\n", 0, 2, "<src> is missing" },
    { H "C\n", 0, 2, "malformed line: C needs <id>" },
    { H "R 1 0 0 0\nC 1 2\n", 0, 3, "C takes only an id; unexpected '2'" },
    { H "R x 0 0 0\n", 0, 2, "bad id 'x': expected a non-negative decimal integer" },
    { H "R -1 0 0 0\n", 0, 2, "bad id '-1'" },
    { H "R +1 0 0 0\n", 0, 2, "bad id '+1'" },
    { H "R 0x1 0 0 0\n", 0, 2, "bad id '0x1'" },
    { H "R 18446744073709551616 0 0 0\n", 0, 2, "id '18446744073709551616' out of range 0..18446744073709551615" },
    { H "R 99999999999999999999999 0 0 0\n", 0, 2, "out of range" },
    { H "R 1 2147483648 0 0\n", 0, 2, "communicator '2147483648' out of range 0..2147483647" },
    { H "R 1 -1 0 0\n", 0, 2, "bad communicator '-1'" },
    { H "R 1 * 0 0\n", 0, 2, "bad communicator '*'" },
    { H "R 1 0 2147483647 0\n", 0, 2, "source '2147483647' out of range 0..2147483646" },
    { H "R 1 0 -1 0\n", 0, 2, "bad source '-1'" },
    { H "R 1 0 ** 0\n", 0, 2, "bad source '**'" },
    { H "R 1 0 0 2147483648\n", 0, 2, "tag '2147483648' out of range" },
    { H "R 1 0 0 -2147483649\n", 0, 2, "tag '-2147483649' out of range" },
    { H "R 1 0 0 -2147483648\n", 0, 2, "tag -2147483648 is reserved" },
    { H "M 1 0 0 -2147483648\n", 0, 2, "tag -2147483648 is reserved" },
    { H "R 1 0 0 1x\n", 0, 2, "bad tag '1x'" },
    { H "R 1 0 0 --1\n", 0, 2, "bad tag '--1'" },
    { H "R 1 0 0 -\n", 0, 2, "bad tag '-'" },
    { H "R 1 0 0 +1\n", 0, 2, "bad tag '+1'" },
    { H "R 1 0 0 0\nM 1 0 0 0\n", 0, 3, "duplicate id 1 (first used at line 2)" },
    { H "M 7 0 0 0\n# c\n\nP 7 0 0 0\n", 0, 5, "duplicate id 7 (first used at line 2)" },
    { H "R 7 0 0 0\nX 7 0 0 0\n", 0, 3, "duplicate id 7" },
    { H "C 5\n", 0, 2, "C names unknown id 5 (a C must follow its R)" },
    { H "C 5\nR 5 0 0 0\n", 0, 2, "C names unknown id 5" },
    { H "M 5 0 0 0\nC 5\n", 0, 3, "C names id 5, which is an M at line 2, not a receive (R)" },
    { H "P 5 0 0 0\nC 5\n", 0, 3, "C names id 5, which is a P at line 2" },
    { H "X 5 0 0 0\nC 5\n", 0, 3, "which is an X at line 2" },
    { H "M 1 0 * 0\n", 0, 2, "M has wildcard source '*'; arrivals must be concrete" },
    { H "M 1 0 0 *\n", 0, 2, "M has wildcard tag '*'; arrivals must be concrete" },
    { H "# np=2\nR 1 0 1 0\nR 2 0 2 0\n", 0, 4, "source 2 outside 0..1 (declared np=2)" },
    { H "R 1 0 5 0\nM 2 0 0 0\n# np=2\n", 0, 2, "source 5 outside 0..1" },
    { H "R 1 0 0 0 foo=1\n", 0, 2,
      "unknown attribute 'foo' (known: coll, bytes, np, call, t, src_resolved, tag_resolved)" },
    { H "M 1 0 0 0 src_resolved=0\n", 0, 2, "M takes no src_resolved/tag_resolved (R only)" },
    { H "R 1 0 * * src_resolved=*\n", 0, 2, "src_resolved must be concrete" },
    { H "R 1 0 * * src_resolved=x\n", 0, 2, "bad source 'x'" },
    { H "R 1 0 * * tag_resolved=*\n", 0, 2, "tag_resolved must be concrete" },
    { H "R 1 0 * * tag_resolved=-3\n", 0, 2, "tag_resolved=-3: a receive with tag '*' only matches tags >= 0" },
    { H "R 1 0 2 * src_resolved=1\n", 0, 2, "src_resolved=1 differs from the receive's source 2" },
    { H "R 1 0 * 4 tag_resolved=5\n", 0, 2, "tag_resolved=5 differs from the receive's tag 4" },
    { H "R 1 0 * * src_resolved=1 src_resolved=1\n", 0, 2, "duplicate attribute 'src_resolved'" },
    { H "# np=2\nR 1 0 * * src_resolved=2\n", 0, 3, "src_resolved 2 outside 0..1 (declared np=2)" },
    { H "R 1 0 0 0 Bytes=1\n", 0, 2, "unknown attribute 'Bytes'" },
    { H "M 1 0 0 0 bytes=1 bytes=2\n", 0, 2, "duplicate attribute 'bytes'" },
    { H "R 1 0 0 0 coll=bcast np=4 coll=bcast\n", 0, 2, "duplicate attribute 'coll'" },
    { H "R 1 0 0 0 bytes\n", 0, 2, "malformed attribute 'bytes' (expected key=value)" },
    { H "R 1 0 0 0 =5\n", 0, 2, "malformed attribute '=5'" },
    { H "R 1 0 0 0 bytes=\n", 0, 2, "bad bytes ''" },
    { H "R 1 0 0 0 bytes=-1\n", 0, 2, "bad bytes '-1'" },
    { H "R 1 0 0 0 bytes=1=2\n", 0, 2, "bad bytes '1=2'" },
    { H "R 1 0 0 0 np=4294967296\n", 0, 2, "np '4294967296' out of range 0..4294967295" },
    { H "R 1 0 0 0 call=x\n", 0, 2, "bad call 'x'" },
    { H "R 1 0 0 0 call=4294967296\n", 0, 2, "call '4294967296' out of range" },
    { H "R 1 0 0 0 t=18446744073709551616\n", 0, 2, "t '18446744073709551616' out of range" },
    { H "R 1 0 0 0 coll=foo\n", 0, 2, "unknown collective 'foo' (known: barrier, bcast," },
    { H "R 1 0 0 0 coll=none\n", 0, 2, "unknown collective 'none'" },
    { H "R 1 0 0 0 coll=\n", 0, 2, "unknown collective ''" },
    { H "P 1 0 0 0 bytes=1\n", 0, 2, "P takes no attributes; unexpected 'bytes=1'" },
    { H "X 1 0 * * extra\n", 0, 2, "X takes no attributes; unexpected 'extra'" },
    { H "# np=0\n", 0, 2, "np '0' out of range 1..2147483647" },
    { H "# np=x\n", 0, 2, "bad np 'x'" },
    { H "# np=\n", 0, 2, "bad np ''" },
    { H "# np=2147483648\n", 0, 2, "np '2147483648' out of range 1..2147483647" },
    { H "# np=-1\n", 0, 2, "bad np '-1': expected a positive decimal integer" },
    { H "# np=2\n#np=3\n", 0, 3, "duplicate '# np=' line (first at line 2)" },
    { H "# np=2 processes\n", 0, 2, "bad np '2 processes'" },
    /* CR-only line endings are named as such, not as a bad version string */
    { "# mpimatch stream v1\rR 1 0 0 0\rM 1 0 0 0\r", 0, 1, "the lines end in CR only" },
    /* line counting survives CRLF, blank lines, comments, no final newline */
    { "# mpimatch stream v1\r\nR 1 0 0 0\r\nM 1 0 0 0\r\n", 0, 3, "duplicate id 1 (first used at line 2)" },
    { H "R 1 0 0 0\nM 1 0 0 0", 0, 3, "duplicate id 1" },
    { H "\n\n# comment\n \t \nM 1 0 * 0\n", 0, 6, "wildcard source" },
    { H "R 1 0 0 0\rM 2 0 0 0\n", 0, 2, "bad tag '0\\x0dM'" },
};

static void test_errors(void)
{
    char err[1024], want[64];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mm_stream s;
        int rc = parse(&s, bad[i].in, bad[i].len, 0, err, sizeof err);
        snprintf(want, sizeof want, "t.txt:%u: ", bad[i].line);
        CHECK_MSG(rc == MMS_EFORMAT, "case %zu: rc %d", i, rc);
        CHECK_MSG(strncmp(err, want, strlen(want)) == 0, "case %zu: want '%s', got '%s'", i, want, err);
        CHECK_MSG(strstr(err, bad[i].msg) != NULL, "case %zu: want '%s' in '%s'", i, bad[i].msg, err);
        mm_stream_free(&s);
    }
}

/* --np overrides the header; the error says so. */
static void test_np_override(void)
{
    char err[512];
    mm_stream s;
    CHECK(parse(&s, H "# np=8\nR 1 0 5 0\n", 0, 4, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "t.txt:3: source 5 outside 0..3 (override np=4)"), "%s", err);
    mm_stream_free(&s);

    CHECK(parse(&s, H "# np=2\nR 1 0 5 0\n", 0, 6, err, sizeof err) == MMS_OK);
    CHECK(s.np == 6 && s.np_origin == MM_NP_OVERRIDE && s.np_decl == 2);
    mm_stream_free(&s);

    CHECK(parse(&s, H "R 1 0 5 0\nM 2 0 2 0\n", 0, 0, err, sizeof err) == MMS_OK);
    CHECK(s.np == 6 && s.np_origin == MM_NP_INFERRED);
    mm_stream_free(&s);

    CHECK(parse(&s, H "R 1 0 * *\n", 0, 0, err, sizeof err) == MMS_OK);
    CHECK(s.np == 1 && s.n == 1);
    mm_stream_free(&s);

    CHECK(parse(&s, H, 0, 0, err, sizeof err) == MMS_OK);
    CHECK(s.np == 1 && s.n == 0);
    mm_stream_free(&s);
}

static const char valid[] =
    "# mpimatch stream v1  \r\n"
    "# np=8\t \r\n"
    "# a comment: R 1 2 3 4\n"
    "\n"
    "\t R\t10 \t3  *  *   coll=allreduce bytes=64 np=8 call=2 t=1000  \n"
    "M 11 3 7 -5\n"
    "R 12 0 2 *\n"
    "P 13 0 * 5\n"
    "X 14 2147483647 7 2147483647\n"
    "C 10\n"
    "R 18446744073709551615 0 0 -2147483647 t=0 bytes=18446744073709551615\n"
    "C 10\n"
    "M 0 0 1 0 call=4294967295 np=4294967295 coll=ialltoall\n"
    "M 00015 0 1 -0";

static const char valid_canonical[] = FIXTURE_CANONICAL "M 15 0 1 0\n";

static void test_valid(void)
{
    char err[512];
    mm_stream s;
    int rc = parse(&s, valid, 0, 0, err, sizeof err);
    CHECK_MSG(rc == MMS_OK, "%s", err);
    if (rc)
        return;
    CHECK(s.n == 10 && s.np == 8 && s.np_origin == MM_NP_DECLARED && s.format == MM_FMT_TEXT);
    const mm_event *e = s.ev;
    CHECK(e[0].type == 'R' && e[0].id == 10 && e[0].comm == 3 && e[0].src == MM_ANY_SOURCE &&
          e[0].tag == MM_ANY_TAG && e[0].kind == MM_KIND_COLL && e[0].coll_op == MM_COLL_ALLREDUCE &&
          e[0].bytes == 64 && e[0].comm_size == 8 && e[0].call == 2 && e[0].t == 1000 &&
          e[0].line == 5 && e[0].ref == 1);
    CHECK(e[1].type == 'M' && e[1].id == 11 && e[1].src == 7 && e[1].tag == -5 &&
          e[1].kind == MM_KIND_P2P && e[1].coll_op == 0 && e[1].bytes == 0 && e[1].line == 6);
    CHECK(e[2].type == 'R' && e[2].src == 2 && e[2].tag == MM_ANY_TAG && e[2].ref == 0);
    CHECK(e[3].type == 'P' && e[3].id == 13 && e[3].src == MM_ANY_SOURCE && e[3].tag == 5);
    CHECK(e[4].type == 'X' && e[4].comm == INT32_MAX && e[4].tag == INT32_MAX);
    CHECK(e[5].type == 'C' && e[5].id == 10 && e[5].ref == 0 && e[5].line == 10 &&
          e[5].comm == 0 && e[5].src == 0 && e[5].tag == 0);
    CHECK(e[6].id == UINT64_MAX && e[6].tag == -INT32_MAX && e[6].bytes == UINT64_MAX && e[6].t == 0);
    CHECK(e[7].type == 'C' && e[7].ref == 0);
    CHECK(e[8].kind == MM_KIND_COLL && e[8].coll_op == MM_COLL_IALLTOALL &&
          e[8].call == UINT32_MAX && e[8].comm_size == UINT32_MAX);
    CHECK(e[9].id == 15 && e[9].tag == 0 && e[9].line == 14);
    CHECK(s.nslots == 1);
    CHECK(mm_stream_find(&s, 14) == 4 && mm_stream_find(&s, 99) == -1);

    char *c = canonical(&s);
    CHECK_MSG(c && strcmp(c, valid_canonical) == 0, "got:\n%s", c ? c : "(null)");

    /* Canonical text parses back to the same events and writes the same bytes. */
    mm_stream s2;
    rc = parse(&s2, c ? c : "", 0, 0, err, sizeof err);
    CHECK_MSG(rc == MMS_OK, "%s", err);
    if (rc == MMS_OK) {
        char *c2 = canonical(&s2);
        CHECK(c2 && c && strcmp(c, c2) == 0);
        CHECK(s2.n == s.n);
        for (size_t i = 0; i < s.n && i < s2.n; i++) {
            mm_event a = s.ev[i], b = s2.ev[i];
            a.line = b.line = 0;
            CHECK_MSG(memcmp(&a, &b, sizeof a) == 0, "event %zu", i);
        }
        free(c2);
    }
    mm_stream_free(&s2);
    free(c);
    mm_stream_free(&s);
}

/* src_resolved= / tag_resolved= on receives: parsed into the event and its
 * flags, written back canonically; np is inferred from them too. */
static void test_resolved(void)
{
    char err[512];
    mm_stream s;
    int rc = parse(&s, FIXTURE_RESOLVED, 0, 0, err, sizeof err);
    CHECK_MSG(rc == MMS_OK, "%s", err);
    if (rc)
        return;
    const mm_event *e = s.ev;
    CHECK(e[0].resolved == MM_RES_ALL && e[0].src_resolved == 3 && e[0].tag_resolved == 7 &&
          e[0].src == MM_ANY_SOURCE && e[0].tag == MM_ANY_TAG);
    CHECK(e[1].resolved == MM_RES_TAG && e[1].src_resolved == 0 && e[1].tag_resolved == INT32_MAX);
    CHECK(e[2].resolved == MM_RES_SRC && e[2].src_resolved == 0 && e[2].tag_resolved == 0);
    CHECK(e[3].resolved == 0 && e[4].resolved == 0);
    char *c = canonical(&s);
    CHECK_MSG(c && strcmp(c, FIXTURE_RESOLVED) == 0, "got:\n%s", c ? c : "(null)");
    free(c);
    mm_stream_free(&s);

    /* Without '# np=', the largest resolved source counts. */
    CHECK(parse(&s, H "R 1 0 * * src_resolved=6\n", 0, 0, err, sizeof err) == MMS_OK && s.np == 7);
    mm_stream_free(&s);

    /* The push applies the same rules to generated events. */
    mm_stream_init(&s, "gen", NULL, 0);
    mm_event r = mm_event_make(MM_EV_RECV, 1, 0, MM_ANY_SOURCE, 3);
    r.tag_resolved = 4;
    CHECK(mm_stream_push(&s, &r, err, sizeof err) == MMS_EFORMAT &&
          strstr(err, "gen: event 1: src_resolved/tag_resolved set without their flags"));
    r.resolved = MM_RES_SRC;
    CHECK(mm_stream_push(&s, &r, err, sizeof err) == MMS_EFORMAT &&
          strstr(err, "tag_resolved set without its flag"));
    r.resolved = 4;
    CHECK(mm_stream_push(&s, &r, err, sizeof err) == MMS_EFORMAT && strstr(err, "bad resolved flags 0x04"));
    r.resolved = MM_RES_TAG;
    CHECK_MSG(mm_stream_push(&s, &r, err, sizeof err) == MMS_EFORMAT && strstr(err, "differs"), "%s", err);
    r.tag_resolved = 3;
    CHECK_MSG(mm_stream_push(&s, &r, err, sizeof err) == MMS_OK, "%s", err);
    mm_event c1 = mm_event_make(MM_EV_CANCEL, 1, 0, 0, 0);
    c1.resolved = MM_RES_SRC;
    CHECK(mm_stream_push(&s, &c1, err, sizeof err) == MMS_EFORMAT && strstr(err, "C takes no src_resolved"));
    CHECK(s.n == 1);
    mm_stream_free(&s);
}

/* A very long line is fine when valid, and its error message stays short. */
static void test_long_lines(void)
{
    size_t big = 1 << 20;
    char *in = malloc(big + 100);
    char err[1024];
    mm_stream s;
    int n = snprintf(in, 100, H "R 1 0 0 0 ");
    memset(in + n, 'a', big);
    strcpy(in + n + big, "=1\n");
    CHECK(parse(&s, in, 0, 0, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "t.txt:2: unknown attribute 'aaaa") && strstr(err, "...'") && strlen(err) < 300,
              "%s", err);
    mm_stream_free(&s);

    /* Valid: a huge run of blanks between fields. */
    n = snprintf(in, 100, H "R 1 0");
    memset(in + n, ' ', big);
    strcpy(in + n + big, "0 0 bytes=5\n");
    CHECK_MSG(parse(&s, in, 0, 0, err, sizeof err) == MMS_OK, "%s", err);
    CHECK(s.n == 1 && s.ev[0].bytes == 5);
    mm_stream_free(&s);
    free(in);
}

/* Writing before finalize is refused. */
static void test_unfinalized(void)
{
    mm_stream s;
    mm_buf b = { 0 };
    mm_stream_init(&s, "x", NULL, 0);
    mm_event e = mm_event_make(MM_EV_RECV, 1, 0, 0, 0);
    CHECK(mm_stream_push(&s, &e, NULL, 0) == MMS_OK);
    CHECK(mm_stream_write_text(&s, mm_sink_buf, &b) == MMS_ESTATE);
    CHECK(mm_stream_write_binary(&s, mm_sink_buf, &b) == MMS_ESTATE);
    CHECK(b.len == 0);
    mm_buf_free(&b);
    mm_stream_free(&s);
}

int main(void)
{
    test_errors();
    test_np_override();
    test_valid();
    test_resolved();
    test_long_lines();
    test_unfinalized();
    return TC_DONE();
}
