/*
 * test_gen_spec.c - workload specs: parsing, the canonical form, error
 * messages, and determinism of every registered generator (same spec, same
 * bytes; another seed, another stream where the generator draws anything).
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "tcheck.h"

/* Parse spec, expect failure, and check the message names `want`. */
static void parse_fails(const char *spec, const char *want)
{
    mm_gen_spec sp;
    char err[1024] = "";
    int rc = mm_gen_parse(spec, &sp, err, sizeof err);
    CHECK_MSG(rc == MMS_EFORMAT, "'%s' parsed (rc %d)", spec, rc);
    CHECK_MSG(strstr(err, want) != NULL, "'%s': message '%s' lacks '%s'", spec, err, want);
    CHECK_MSG(strncmp(err, "workload '", 10) == 0, "'%s': message '%s' does not name it", spec, err);
}

static void test_errors(void)
{
    parse_fails("nosuch", "unknown generator 'nosuch' (generators: burst, tags, shuffle");
    parse_fails("", "no generator name");
    parse_fails(":n=3", "no generator name");
    parse_fails("shuffle:x=1", "shuffle has no parameter 'x' (parameters: n, rounds, seed)");
    parse_fails("shuffle:n=0", "n=0 is out of range 1..1048576");
    parse_fails("shuffle:n=1048577", "out of range 1..1048576");
    parse_fails("shuffle:n=-5", "n=-5 is out of range");
    parse_fails("shuffle:n=12x", "n='12x' is not an integer (range 1..1048576)");
    parse_fails("shuffle:n=+3", "is not an integer");
    parse_fails("shuffle:n=", "n='' is not an integer");
    parse_fails("shuffle:n=99999999999999999999", "is not an integer");
    parse_fails("shuffle:n", "'n' is not key=value");
    parse_fails("shuffle:=4", "'=4' is not key=value");
    parse_fails("shuffle:", "empty parameter");
    parse_fails("shuffle:n=4,", "empty parameter");
    parse_fails("shuffle:n=4,,rounds=2", "empty parameter");
    parse_fails("shuffle:n=4,n=5", "parameter 'n' given twice");
    parse_fails("shuffle:seed=1,seed=2", "parameter 'seed' given twice");
    parse_fails("shuffle:seed=-1", "seed='-1' is not an integer in 0..18446744073709551615");
    parse_fails("shuffle:seed=18446744073709551616", "not an integer in 0..");
    parse_fails("stencil3d:points=9pt", "points='9pt' is not one of: 7pt, 27pt");
    parse_fails("reverse:arrival=fifo", "arrival='fifo' is not one of: random, roundrobin, sequential");
    parse_fails("shuffle:N=4", "no parameter 'N'"); /* keys are case-sensitive */
    parse_fails("shuffle :n=4", "unknown generator 'shuffle '");
    /* Untrusted bytes are quoted, not printed raw. */
    parse_fails("shuffle:n=\x01", "\\x01");
}

static void test_parse_values(void)
{
    mm_gen_spec sp;
    char err[512], buf[MM_GEN_SPEC_MAX];
    CHECK(mm_gen_parse("shuffle", &sp, err, sizeof err) == MMS_OK);
    CHECK(sp.gen == mm_gen_find("shuffle") && sp.v[0] == 1024 && sp.seed == 1);
    CHECK(mm_gen_format(&sp, buf, sizeof buf) == (int)strlen("shuffle:n=1024,rounds=8,seed=1"));
    CHECK(strcmp(buf, "shuffle:n=1024,rounds=8,seed=1") == 0);

    CHECK(mm_gen_parse("shuffle:seed=18446744073709551615,n=7", &sp, err, sizeof err) == MMS_OK);
    CHECK(sp.seed == UINT64_MAX && sp.v[0] == 7);
    mm_gen_format(&sp, buf, sizeof buf);
    CHECK(strcmp(buf, "shuffle:n=7,rounds=8,seed=18446744073709551615") == 0);

    CHECK(mm_gen_parse("stencil3d:points=7pt,lz=2,sched=sequential", &sp, err, sizeof err) == MMS_OK);
    mm_gen_format(&sp, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, "stencil3d:lx=4,ly=4,lz=2,points=7pt,assign=strided,sched=sequential,"
                          "phases=8,burst=1,seed=1") == 0, "%s", buf);
    /* A short buffer: snprintf semantics, still terminated. */
    char small[8];
    int n = mm_gen_format(&sp, small, sizeof small);
    CHECK(n > (int)sizeof small && strlen(small) == sizeof small - 1);
}

/* Every generator: its defaults and listing are consistent, the canonical
 * spec parses back to itself, and building is deterministic. */
static void test_each_generator(void)
{
    char err[1024];
    CHECK(mm_gen_count() >= 11);
    CHECK(mm_gen_at(mm_gen_count()) == NULL);
    for (size_t i = 0; i < mm_gen_count(); i++) {
        const mm_gen *g = mm_gen_at(i);
        CHECK(mm_gen_find(g->name) == g);
        CHECK_MSG(g->summary && *g->summary && g->origin && *g->origin, "%s", g->name);
        CHECK(g->nparams <= MM_GEN_MAX_PARAMS);
        for (size_t k = 0; k < g->nparams; k++) {
            const mm_gen_param *p = &g->params[k];
            CHECK_MSG(strcmp(p->name, "seed") != 0, "%s redefines seed", g->name);
            if (p->choices) {
                size_t nc = 0;
                while (p->choices[nc])
                    nc++;
                CHECK_MSG(p->def >= 0 && (size_t)p->def < nc, "%s.%s", g->name, p->name);
            } else {
                CHECK_MSG(p->min <= p->def && p->def <= p->max, "%s.%s", g->name, p->name);
            }
        }

        mm_gen_spec sp, sp2;
        char canon[MM_GEN_SPEC_MAX], canon2[MM_GEN_SPEC_MAX];
        CHECK(mm_gen_parse(g->name, &sp, err, sizeof err) == MMS_OK);
        mm_gen_format(&sp, canon, sizeof canon);
        CHECK_MSG(mm_gen_parse(canon, &sp2, err, sizeof err) == MMS_OK, "%s", err);
        mm_gen_format(&sp2, canon2, sizeof canon2);
        CHECK_MSG(strcmp(canon, canon2) == 0, "%s vs %s", canon, canon2);

        /* Same spec, same bytes; the stream is named after the canonical spec. */
        mm_stream a, b;
        mm_buf ba = { 0 }, bb = { 0 };
        CHECK_MSG(mm_gen_build(g->name, &a, err, sizeof err) == MMS_OK, "%s", err);
        CHECK_MSG(mm_gen_build(canon, &b, err, sizeof err) == MMS_OK, "%s", err);
        CHECK(a.finalized && a.n > 0 && strcmp(a.name, canon) == 0);
        CHECK_MSG(a.n >= 200 && a.n <= 200000, "%s default has %zu events", g->name, a.n);
        CHECK(mm_stream_write_binary(&a, mm_sink_buf, &ba) == MMS_OK);
        CHECK(mm_stream_write_binary(&b, mm_sink_buf, &bb) == MMS_OK);
        CHECK_MSG(ba.len == bb.len && memcmp(ba.p, bb.p, ba.len) == 0, "%s not reproducible", g->name);
        mm_buf_free(&bb);
        mm_stream_free(&b);

        /* Another seed: a different stream when the generator draws
         * anything (pingpong, burst and tags draw nothing). */
        char other[MM_GEN_SPEC_MAX];
        snprintf(other, sizeof other, "%s:seed=2", g->name);
        CHECK(mm_gen_build(other, &b, err, sizeof err) == MMS_OK);
        CHECK(mm_stream_write_binary(&b, mm_sink_buf, &bb) == MMS_OK);
        int deterministic = !strcmp(g->name, "pingpong") || !strcmp(g->name, "burst") ||
                            !strcmp(g->name, "tags");
        int same = ba.len == bb.len && memcmp(ba.p, bb.p, ba.len) == 0;
        CHECK_MSG(same == deterministic, "%s: seed 2 %s the stream", g->name,
                  same ? "does not change" : "changes");
        CHECK(b.n == a.n); /* the seed changes orders, never counts */
        mm_buf_free(&ba);
        mm_buf_free(&bb);
        mm_stream_free(&a);
        mm_stream_free(&b);
    }
}

static void test_build_errors(void)
{
    mm_stream s;
    char err[1024];
    /* A bad spec leaves the stream empty and freeable. */
    CHECK(mm_gen_build("nosuch", &s, err, sizeof err) == MMS_EFORMAT);
    CHECK(s.n == 0 && s.ev == NULL);
    mm_stream_free(&s);
    /* Too large a workload fails before allocating it, naming the knobs. */
    CHECK(mm_gen_build("shuffle:n=1048576,rounds=65536", &s, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "workload 'shuffle:n=1048576,rounds=65536,seed=1': the workload would "
                          "have 137438953472 events, more than the limit") != NULL, "%s", err);
    CHECK(strstr(err, "lower n or rounds") != NULL);
    CHECK(s.n == 0 && s.ev == NULL);
    mm_stream_free(&s);
    CHECK(mm_gen_build("stencil_linear:lz=65536,phases=65536", &s, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "lower the decomposition or phases") != NULL, "%s", err);
    mm_stream_free(&s);
}

int main(void)
{
    test_errors();
    test_parse_values();
    test_each_generator();
    test_build_errors();
    return TC_DONE();
}
