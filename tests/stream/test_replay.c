/*
 * test_replay.c - the replay loop on tiny hand-written streams whose
 * outcomes were worked out by hand from docs/semantics.md, run on every
 * registered engine that accepts the stream.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "stream.h"
#include "tcheck.h"

#define H "# mpimatch stream v1\n"

static const struct replay_case {
    const char *name, *stream, *outcomes;
} cases[] = {
    { "wildcards",
      H "R 1 0 * 5\n"      /* queued                                  */
        "R 2 0 1 *\n"      /* queued                                  */
        "M 3 0 1 5\n"      /* both accept it: earliest posted, 1      */
        "M 4 0 1 7\n"      /* only 2                                  */
        "M 5 0 2 7\n"      /* queued                                  */
        "R 6 0 * *\n"      /* takes 5 at post time                    */
        "M 7 1 0 5\n"      /* other communicator: queued              */
        "R 8 0 0 5\n",     /* queued: 7 is on communicator 1          */
      "1 3\n2 4\n6 5\n" },
    { "negative_tags",
      H "R 1 0 0 *\n"
        "M 2 0 0 -3\n"     /* ANY_TAG never accepts a negative tag    */
        "M 3 0 0 4\n"
        "R 4 0 0 -3\n"     /* the exact negative tag does             */
        "R 5 0 * *\n"
        "M 6 0 0 -1\n"
        "R 7 0 0 -1\n"
        "M 8 0 1 0\n",     /* 0 is >= 0: 5 takes it                   */
      "1 3\n4 2\n7 6\n5 8\n" },
    { "earliest_arrived",
      H "M 1 0 3 1\nM 2 0 1 2\nM 3 0 3 1\nM 4 0 1 1\n"
        "R 10 0 * 1\nR 11 0 1 *\nR 12 0 * *\n",
      "10 1\n11 2\n12 3\n" },
    { "probe_mprobe",
      H "P 1 0 * *\n"
        "M 2 0 1 3\n"
        "M 3 0 0 3\n"
        "P 4 0 * 3\n"      /* earliest arrived, left queued           */
        "P 5 0 0 *\n"
        "X 6 0 * *\n"      /* takes 2                                 */
        "P 7 0 1 *\n"      /* 2 is gone                               */
        "R 8 0 * *\n"      /* takes 3                                 */
        "X 9 0 * *\n"
        "M 10 1 0 -3\n"
        "P 11 0 * *\n"
        "X 12 1 * *\n"     /* ANY_TAG misses the negative tag         */
        "X 13 1 0 -3\n",
      "P 1 -\nP 4 2\nP 5 3\nX 6 2\nP 7 -\n8 3\nX 9 -\nP 11 -\nX 12 -\nX 13 10\n" },
    { "cancel",
      H "R 1 0 0 1\n"
        "R 2 0 0 2\n"
        "C 1\n"            /* queued: ok                              */
        "M 3 0 0 1\n"      /* 1 is gone: queued                       */
        "C 1\n"            /* second cancel: miss                     */
        "M 4 0 0 2\n"
        "C 2\n"            /* already matched: miss                   */
        "R 5 0 0 1\n"      /* matched at post time: no handle         */
        "C 5\n"
        "R 6 0 0 9\n"
        "R 7 0 0 9\n"
        "C 6\n"
        "M 8 0 0 9\n",     /* 7, the receive left                     */
      "C 1 ok\nC 1 miss\n2 4\nC 2 miss\n5 3\nC 5 miss\nC 6 ok\n7 8\n" },
    { "no_wildcards",
      H "# np=3\n"
        "R 1 0 0 1\nR 2 0 1 1\nM 3 0 1 1\nM 4 0 0 1\n"
        "M 5 1 2 -5\nR 6 1 2 -5\n"
        "R 7 0 2 3 coll=bcast np=3 call=1\nM 8 0 2 3 coll=bcast np=3 call=1 bytes=8\n"
        "R 9 0 2 4\nC 9\nM 10 0 2 4\nP 11 0 2 4\nX 12 0 2 4\nP 13 0 2 4\n",
      "2 3\n1 4\n6 5\n7 8\nC 9 ok\nP 11 10\nX 12 10\nP 13 -\n" },
    { "empty", H, "" },
};

static int load(mm_stream *s, const char *text)
{
    char err[512];
    mm_stream_init(s, "t.txt", NULL, 0);
    int rc = mm_stream_parse(s, text, strlen(text), MM_READ_AUTO, 0, err, sizeof err);
    CHECK_MSG(rc == MMS_OK, "%s", err);
    return rc;
}

static char *outcome_text(const mm_stream *s, const uint64_t *out)
{
    mm_buf b = { 0 };
    CHECK(mm_outcomes_write(s, out, mm_sink_buf, &b) == MMS_OK);
    mm_sink_buf(&b, "", 1);
    return (char *)b.p;
}

static void test_cases(void)
{
    char err[1024];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *want = cases[c].outcomes;
        mm_stream s;
        if (load(&s, cases[c].stream))
            continue;
        uint32_t hints = mm_stream_hints(&s, NULL, NULL);
        mm_replay r;
        CHECK(mm_replay_init(&r, &s, 3, err, sizeof err) == MMR_OK);
        int ran = 0;
        for (size_t i = 0; i < mm_engine_count(); i++) {
            const mm_engine_info *in = mm_engine_at(i);
            if (in->hints_required & ~hints)
                continue;
            mm_config cfg = { s.np, hints, 0, NULL, 0 };
            mm_replay_result res;
            int rc = mm_replay_run(&r, in, &cfg, 1, 3, &res, err, sizeof err);
            CHECK_MSG(rc == MMR_OK, "%s/%s: %s", cases[c].name, in->name, err);
            if (rc)
                continue;
            ran++;
            char *got = outcome_text(&s, r.out);
            CHECK_MSG(got && strcmp(got, want) == 0, "%s/%s: got:\n%swant:\n%s", cases[c].name,
                      in->name, got ? got : "(null)", want);
            free(got);
            /* Counts agree with the outcome lines; stats with the stream. */
            mm_replay_counts k;
            mm_outcomes_count(&s, r.out, &k);
            CHECK(memcmp(&k, &res.counts, sizeof k) == 0);
            mm_stream_summary sum;
            CHECK(mm_stream_summarize(&s, &sum) == MMS_OK);
            CHECK_MSG(res.stats.prq.searches == sum.count[1], "%s/%s: prq searches %llu",
                      cases[c].name, in->name, (unsigned long long)res.stats.prq.searches);
            CHECK(res.stats.umq.searches == sum.count[0] + sum.count[2] + sum.count[3]);
            CHECK(res.stats.cancels == k.cancel_ok);
            CHECK(res.ns_min <= res.ns_q1 && res.ns_q1 <= res.ns_median && res.ns_median <= res.ns_q3);
        }
        CHECK_MSG(ran >= 1, "%s: no engine ran", cases[c].name);
        if (strcmp(cases[c].name, "no_wildcards") == 0)
            CHECK_MSG(ran == (int)mm_engine_count(), "no_wildcards: only %d engines ran", ran);
        mm_replay_free(&r);
        mm_stream_free(&s);
    }
}

static void test_errors(void)
{
    char err[1024];
    mm_stream s;
    mm_replay r;
    mm_replay_result res;
    if (load(&s, H "R 1 0 0 1\nM 2 0 0 2\nR 3 0 * 1\n"))
        return;
    CHECK(mm_replay_init(&r, &s, 2, err, sizeof err) == MMR_OK);

    /* Hints forced on a wildcard stream: the library refuses at line 4. */
    mm_config cfg = { s.np, MM_HINT_NO_ANY_SOURCE, 0, NULL, 0 };
    CHECK(mm_replay_run(&r, mm_engine_find("list"), &cfg, 1, 2, &res, err, sizeof err) == MMR_ELIB);
    CHECK_MSG(strstr(err, "t.txt:4: engine 'list': ") && strstr(err, mm_strerror(MM_EHINT)), "%s", err);
    CHECK(res.fail_line == 4 && res.lib_status == MM_EHINT);

    cfg.hints = 0;
    mm_engine_info fake = *mm_engine_find("list"); /* not of the registry */
    fake.name = "no-such-engine";
    CHECK(mm_replay_run(&r, &fake, &cfg, 1, 2, &res, err, sizeof err) == MMR_ECREATE);
    CHECK_MSG(strstr(err, "cannot create engine 'no-such-engine'"), "%s", err);
    if (mm_engine_find("hash")) {
        CHECK(mm_replay_run(&r, mm_engine_find("hash"), &cfg, 1, 2, &res, err, sizeof err) == MMR_ECREATE);
        CHECK(res.lib_status == MM_EHINT);
    }
    const char *bad_param[] = { "no_such_param=1" };
    cfg.params = bad_param;
    cfg.nparams = 1;
    CHECK(mm_replay_run(&r, mm_engine_find("list"), &cfg, 1, 2, &res, err, sizeof err) == MMR_ECREATE);
    cfg.params = NULL;
    cfg.nparams = 0;
    CHECK(mm_replay_run(&r, mm_engine_find("list"), &cfg, 1, 3, &res, err, sizeof err) == MMR_ESTATE); /* > max reps */
    CHECK(mm_replay_run(&r, mm_engine_find("list"), &cfg, 0, 1, &res, err, sizeof err) == MMR_OK);      /* no warm-up */
    mm_replay_free(&r);

    /* A source beyond the engine's nprocs (a config smaller than the
     * stream's np): the library's EINVAL names the line. */
    mm_stream_free(&s);
    if (load(&s, H "R 1 0 0 1\nM 2 0 3 1\n"))
        return;
    CHECK(mm_replay_init(&r, &s, 1, err, sizeof err) == MMR_OK);
    cfg.nprocs = 1;
    CHECK(mm_replay_run(&r, mm_engine_find("list"), &cfg, 0, 1, &res, err, sizeof err) == MMR_ELIB);
    CHECK_MSG(strstr(err, "t.txt:3: engine 'list': "), "%s", err);
    mm_replay_free(&r);
    mm_stream_free(&s);

    /* An unfinalized stream is refused. */
    mm_stream_init(&s, "u", NULL, 0);
    CHECK(mm_replay_init(&r, &s, 1, err, sizeof err) == MMR_ESTATE);
    mm_stream_free(&s);
}

int main(void)
{
    test_cases();
    test_errors();
    return TC_DONE();
}
