/*
 * test_stream_api.c - the push API that generators use, the summary and
 * hint inference, outcome formatting, the JSON writer and atomic output.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "outfile.h"
#include "replay.h"
#include "stream.h"
#include "tcheck.h"

static void test_push(void)
{
    char err[512];
    mm_stream s;
    CHECK(mm_stream_init(&s, "gen", err, sizeof err) == MMS_OK);
    CHECK(mm_stream_reserve(&s, 10, err, sizeof err) == MMS_OK && s.cap >= 10);

    mm_event r = mm_event_make(MM_EV_RECV, 100, 0, MM_ANY_SOURCE, 3);
    r.kind = MM_KIND_COLL;
    r.coll_op = MM_COLL_BCAST;
    r.comm_size = 4;
    CHECK(mm_stream_push(&s, &r, err, sizeof err) == MMS_OK);
    mm_event m = mm_event_make(MM_EV_MSG, 101, 0, 2, -7);
    CHECK(mm_stream_push(&s, &m, err, sizeof err) == MMS_OK);
    mm_event c = mm_event_make(MM_EV_CANCEL, 100, 5, 5, 5); /* C ignores comm/src/tag */
    CHECK(c.comm == 0 && c.src == 0 && c.tag == 0);
    CHECK(mm_stream_push(&s, &c, err, sizeof err) == MMS_OK);
    CHECK(s.n == 3 && s.ev[2].ref == 0 && s.ev[0].ref == 1 && s.nslots == 1);
    CHECK(s.ev[0].line == 1 && s.ev[2].line == 3); /* line 0 becomes the event number */

    /* Rejected pushes leave the stream unchanged and name the event. */
    mm_event d = mm_event_make(MM_EV_PROBE, 101, 0, 0, 0);
    CHECK(mm_stream_push(&s, &d, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strcmp(err, "gen: event 4: duplicate id 101 (first used at event 2)") == 0, "%s", err);
    mm_event bad = mm_event_make(MM_EV_CANCEL, 101, 0, 0, 0);
    CHECK(mm_stream_push(&s, &bad, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "gen: event 4: C names id 101, which is an M at event 2"), "%s", err);
    bad = mm_event_make(MM_EV_CANCEL, 100, 0, 0, 0);
    bad.bytes = 1;
    CHECK(mm_stream_push(&s, &bad, err, sizeof err) == MMS_EFORMAT);
    bad = mm_event_make('Z', 7, 0, 0, 0);
    CHECK(mm_stream_push(&s, &bad, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "unknown event type 0x5a"), "%s", err);
    bad = mm_event_make(MM_EV_MSG, 7, 0, 0, 0);
    bad.line = 42;
    bad.kind = MM_KIND_COLL;
    CHECK(mm_stream_push(&s, &bad, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "gen: event 42: collective with bad operation 0"), "%s", err);
    CHECK(s.n == 3 && s.nslots == 1);

    /* Ids need not be dense; many of them force the index to grow. */
    for (uint64_t i = 0; i < 5000; i++) {
        mm_event x = mm_event_make(i % 2 ? MM_EV_MSG : MM_EV_RECV, i * 7919 + 1000, (int32_t)(i % 3),
                                   (int32_t)(i % 5), (int32_t)i);
        CHECK(mm_stream_push(&s, &x, NULL, 0) == MMS_OK);
    }
    CHECK(s.n == 5003 && mm_stream_find(&s, 4999 * 7919 + 1000) == 5002);
    CHECK(mm_stream_find(&s, 1001) == -1);

    CHECK(mm_stream_finalize(&s, 0, err, sizeof err) == MMS_OK && s.np == 5);
    CHECK(mm_stream_finalize(&s, 3, err, sizeof err) == MMS_EFORMAT && !s.finalized);
    CHECK_MSG(strstr(err, "gen: event ") && strstr(err, "source 3 outside 0..2 (override np=3)"), "%s", err);
    CHECK(mm_stream_finalize(&s, 0, err, sizeof err) == MMS_OK);
    /* Pushing again needs a new finalize before writing. */
    mm_event more = mm_event_make(MM_EV_RECV, 1, 0, 0, 0);
    CHECK(mm_stream_push(&s, &more, NULL, 0) == MMS_OK && !s.finalized);
    mm_stream_free(&s);
    mm_stream_free(&s); /* freeing twice is harmless */
}

static void test_summary(void)
{
    char err[512];
    const char *text = "# mpimatch stream v1\n"
                       "R 1 0 * 1\nR 2 1 0 *\nR 3 2 * *\nR 4 0 1 -3 coll=barrier\n"
                       "M 5 9 1 -4\nP 6 0 * 0\nX 7 0 0 0\nC 1\n";
    mm_stream s;
    mm_stream_summary m;
    mm_stream_init(&s, "s", NULL, 0);
    CHECK_MSG(mm_stream_parse(&s, text, strlen(text), MM_READ_AUTO, 0, err, sizeof err) == MMS_OK, "%s", err);
    CHECK(mm_stream_summarize(&s, &m) == MMS_OK);
    CHECK(m.count[0] == 4 && m.count[1] == 1 && m.count[2] == 1 && m.count[3] == 1 && m.count[4] == 1);
    CHECK(m.comms == 4);
    CHECK(m.recv_any_source == 2 && m.recv_any_tag == 2 && m.recv_any_both == 1);
    CHECK(m.probe_wild == 1 && m.negative_tags == 2 && m.coll == 1);
    CHECK(m.first_any_source == 2 && m.first_any_tag == 3);
    uint64_t ls, lt;
    CHECK(mm_stream_hints(&s, &ls, &lt) == 0 && ls == 2 && lt == 3);
    mm_stream_free(&s);

    text = "# mpimatch stream v1\nR 1 0 0 1\nM 2 0 0 1\nP 3 0 * 0\n";
    mm_stream_init(&s, "s", NULL, 0);
    CHECK(mm_stream_parse(&s, text, strlen(text), MM_READ_AUTO, 0, err, sizeof err) == MMS_OK);
    CHECK(mm_stream_hints(&s, &ls, &lt) == MM_HINT_NO_ANY_TAG && ls == 4 && lt == 0);
    mm_stream_free(&s);

    /* A wildcard only in an M is impossible, and a C has none. */
    text = "# mpimatch stream v1\nR 1 0 0 1\nC 1\n";
    mm_stream_init(&s, "s", NULL, 0);
    CHECK(mm_stream_parse(&s, text, strlen(text), MM_READ_AUTO, 0, err, sizeof err) == MMS_OK);
    CHECK(mm_stream_hints(&s, NULL, NULL) == (MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG));
    mm_stream_free(&s);
}

static void test_outcomes(void)
{
    char err[512], line[64];
    const char *text = "# mpimatch stream v1\nR 1 0 0 0\nM 2 0 0 0\nM 3 0 0 0\nP 4 0 * *\n"
                       "X 5 0 0 0\nR 6 0 0 0\nC 6\nR 7 0 0 0\n";
    mm_stream s;
    mm_stream_init(&s, "o", NULL, 0);
    CHECK(mm_stream_parse(&s, text, strlen(text), MM_READ_AUTO, 0, err, sizeof err) == MMS_OK);
    const uint64_t N = MM_OUT_NONE;
    uint64_t out[8] = { N, 0, N, 2, 2, N, 5, N };
    CHECK(mm_outcome_format(&s, 0, out[0], line, sizeof line) == 0);
    CHECK(mm_outcome_format(&s, 1, out[1], line, sizeof line) > 0 && strcmp(line, "1 2") == 0);
    CHECK(mm_outcome_format(&s, 3, out[3], line, sizeof line) > 0 && strcmp(line, "P 4 3") == 0);
    CHECK(mm_outcome_format(&s, 4, out[4], line, sizeof line) > 0 && strcmp(line, "X 5 3") == 0);
    CHECK(mm_outcome_format(&s, 6, out[6], line, sizeof line) > 0 && strcmp(line, "C 6 ok") == 0);
    CHECK(mm_outcome_format(&s, 6, N, line, sizeof line) > 0 && strcmp(line, "C 6 miss") == 0);
    CHECK(mm_outcome_format(&s, 3, N, line, sizeof line) > 0 && strcmp(line, "P 4 -") == 0);
    CHECK(mm_outcomes_check(&s, out) == -1);

    mm_buf b = { 0 };
    CHECK(mm_outcomes_write(&s, out, mm_sink_buf, &b) == MMS_OK);
    CHECK(b.len == strlen("1 2\nP 4 3\nX 5 3\nC 6 ok\n") &&
          memcmp(b.p, "1 2\nP 4 3\nX 5 3\nC 6 ok\n", b.len) == 0);
    mm_buf_free(&b);

    mm_replay_counts c;
    mm_outcomes_count(&s, out, &c);
    CHECK(c.matches == 1 && c.probe_hits == 1 && c.probe_misses == 0 && c.mprobe_hits == 1 &&
          c.cancel_ok == 1 && c.cancel_miss == 0);

    uint64_t other[8];
    memcpy(other, out, sizeof out);
    uint64_t k = 99;
    CHECK(mm_outcomes_diff(&s, out, other, &k) == -1);
    other[4] = N;
    CHECK(mm_outcomes_diff(&s, out, other, &k) == 4 && k == 2);
    CHECK(mm_outcomes_hash(out, 8) != mm_outcomes_hash(other, 8));

    /* Impossible partners are caught. */
    other[4] = 2;
    other[1] = 3; /* an M matched a later M */
    CHECK(mm_outcomes_check(&s, other) == 1);
    other[1] = 0;
    other[6] = 0; /* C cancelled the wrong receive */
    CHECK(mm_outcomes_check(&s, other) == 6);
    mm_stream_free(&s);
}

static char *slurp(const char *path)
{
    char *d;
    size_t n;
    return mm_read_file(path, &d, &n, NULL, 0) == MMS_OK ? d : NULL;
}

static void test_json(void)
{
    const char *path = "test_stream_api.json";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    mmj j;
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_kstr(&j, "s", "a\"b\\c\n\t\x01\x7f\xc3\xa9\xff\xe2\x82");
    mmj_ku64(&j, "u", UINT64_MAX);
    mmj_ki64(&j, "i", INT64_MIN);
    mmj_knum(&j, "d", 0.5);
    mmj_knum(&j, "nan", NAN);
    mmj_key(&j, "a");
    mmj_arr(&j);
    mmj_bool(&j, 1);
    mmj_null(&j);
    mmj_str(&j, NULL);
    mmj_arr_end(&j);
    mmj_key(&j, "e");
    mmj_obj(&j);
    mmj_obj_end(&j);
    mmj_obj_end(&j);
    CHECK(mmj_finish(&j) == 0);
    fclose(f);
    char *got = slurp(path);
    const char *want = "{\n"
                       "  \"s\": \"a\\\"b\\\\c\\n\\t\\u0001\\u007f\xc3\xa9\\ufffd\\ufffd\\ufffd\",\n"
                       "  \"u\": 18446744073709551615,\n"
                       "  \"i\": -9223372036854775808,\n"
                       "  \"d\": 0.5,\n"
                       "  \"nan\": null,\n"
                       "  \"a\": [\n    true,\n    null,\n    null\n  ],\n"
                       "  \"e\": {}\n"
                       "}\n";
    CHECK_MSG(got && strcmp(got, want) == 0, "got:\n%s", got ? got : "(null)");
    free(got);
    remove(path);

    /* Misuse is reported. */
    f = fopen(path, "w");
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_str(&j, "value without key");
    mmj_key(&j, "k");
    mmj_obj_end(&j);
    CHECK(mmj_finish(&j) != 0);
    fclose(f);
    remove(path);
}

static void test_outfile(void)
{
    char err[512], tmp[512];
    const char *path = "test_stream_api.out";
    mm_outfile o;
    remove(path);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());

    CHECK(mm_outfile_open(&o, path, err, sizeof err) == 0);
    CHECK(access(tmp, F_OK) == 0 && access(path, F_OK) != 0);
    fputs("hello\n", o.f);
    CHECK(mm_outfile_commit(&o, err, sizeof err) == 0);
    CHECK(access(tmp, F_OK) != 0);
    char *got = slurp(path);
    CHECK(got && strcmp(got, "hello\n") == 0);
    free(got);
    mm_outfile_abort(&o); /* after commit: nothing happens */
    CHECK(access(path, F_OK) == 0);

    /* Abort leaves the old file as it was and no temporary. */
    CHECK(mm_outfile_open(&o, path, err, sizeof err) == 0);
    fputs("partial", o.f);
    mm_outfile_abort(&o);
    mm_outfile_abort(&o);
    CHECK(access(tmp, F_OK) != 0);
    got = slurp(path);
    CHECK(got && strcmp(got, "hello\n") == 0);
    free(got);
    remove(path);

    CHECK(mm_outfile_open(&o, "no-such-dir/x/out.json", err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "cannot write 'no-such-dir/x/out.json'"), "%s", err);
    CHECK(mm_outfile_open(&o, ".", err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "is a directory"), "%s", err);
    CHECK(mm_outfile_open(&o, "", err, sizeof err) != 0);
}

int main(void)
{
    test_push();
    test_summary();
    test_outcomes();
    test_json();
    test_outfile();
    return TC_DONE();
}
