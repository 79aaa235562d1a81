/*
 * test_gen_p2p.c - the point-to-point generators produce exactly the
 * workloads of the papers: event counts, the order of tags and sources,
 * and the search depths a single list sees (library statistics).
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_emit.h"
#include "replay.h"
#include "gen_check.h"
#include "tcheck.h"

/* Replay s through one engine; the result's statistics and outcomes. */
static mm_replay_result replay(const mm_stream *s, const char *engine, uint64_t *out_copy)
{
    mm_replay r;
    mm_replay_result res;
    char err[1024];
    memset(&res, 0, sizeof res);
    CHECK(mm_replay_init(&r, s, 1, err, sizeof err) == MMR_OK);
    uint64_t fa = 0, ft = 0;
    mm_config cfg = { s->np, mm_stream_hints(s, &fa, &ft), 0, NULL, 0 };
    int rc = mm_replay_run(&r, mm_engine_find(engine), &cfg, 0, 1, &res, err, sizeof err);
    CHECK_MSG(rc == MMR_OK, "%s on %s: %s", engine, s->name, err);
    if (out_copy)
        memcpy(out_copy, r.out, s->n * sizeof *out_copy);
    mm_replay_free(&r);
    return res;
}

static int is(const mm_event *e, int type, int32_t src, int32_t tag)
{
    return e->type == type && e->comm == 0 && e->src == src && e->tag == tag;
}

/* ---- MadMPI benchmarks ---- */

static void test_burst_tags(void)
{
    mm_stream s = build("burst:n=100,rounds=3");
    CHECK(s.n == 600 && s.np == 2);
    int ok = 1;
    for (size_t i = 0; i < s.n; i++)
        ok &= is(&s.ev[i], (i % 200) < 100 ? MM_EV_RECV : MM_EV_MSG, 1, 0) && s.ev[i].bytes == 1;
    CHECK(ok);
    mm_replay_result r = replay(&s, "list", NULL);
    CHECK(r.stats.prq.traversed == 300 && r.stats.prq.max_depth == 1 && r.counts.matches == 300);
    mm_stream_free(&s);

    s = build("tags:n=50,rounds=2");
    CHECK(s.n == 200);
    ok = 1;
    for (size_t i = 0; i < s.n; i++)
        ok &= is(&s.ev[i], (i % 100) < 50 ? MM_EV_RECV : MM_EV_MSG, 1, (int32_t)(i % 50));
    CHECK(ok);
    r = replay(&s, "list", NULL);
    CHECK(r.stats.prq.max_depth == 1 && r.counts.matches == 100);
    mm_stream_free(&s);
}

/* Round r of shuffle/any: receives tags 0..n-1 in order, messages a
 * permutation of them (the same in every round), not the identity. */
static void test_shuffle_any(void)
{
    const uint32_t n = 200;
    mm_stream s = build("shuffle:n=200,rounds=3,seed=5");
    CHECK(s.n == 3 * 2 * n);
    uint8_t *seen = calloc(n, 1);
    int ok = 1, identity = 1;
    for (uint32_t r = 0; r < 3; r++) {
        const mm_event *e = s.ev + (size_t)r * 2 * n;
        memset(seen, 0, n);
        for (uint32_t i = 0; i < n; i++) {
            ok &= is(&e[i], MM_EV_RECV, 1, (int32_t)i);
            const mm_event *m = &e[n + i];
            ok &= m->type == MM_EV_MSG && m->src == 1 && m->tag >= 0 && (uint32_t)m->tag < n &&
                  !seen[m->tag];
            if (m->type == MM_EV_MSG && m->tag >= 0 && (uint32_t)m->tag < n)
                seen[m->tag] = 1;
            identity &= m->tag == (int32_t)i;
            ok &= m->tag == s.ev[n + i].tag; /* the same permutation every round */
        }
    }
    CHECK(ok);
    CHECK(!identity);
    mm_replay_result r = replay(&s, "list", NULL);
    CHECK(r.counts.matches == 3 * n);
    /* A list walks to each message's receive: the total depth is the sum
     * over messages of 1 + the receives still queued before it. */
    CHECK(r.stats.prq.traversed > 3 * n && r.stats.prq.max_depth <= n);
    mm_replay_result h = replay(&s, "hash", NULL);
    CHECK(h.stats.prq.max_depth == 1);
    mm_stream_free(&s);

    s = build("any:n=200,rounds=2,seed=5");
    CHECK(s.n == 2 * (2 * n + 2));
    uint64_t *out = malloc(s.n * sizeof *out);
    replay(&s, "list", out);
    for (uint32_t round = 0; round < 2; round++) {
        size_t b = (size_t)round * (2 * n + 2);
        CHECK(is(&s.ev[b], MM_EV_RECV, MM_ANY_SOURCE, (int32_t)n + 1));
        const mm_event *last = &s.ev[b + 2 * n + 1];
        CHECK(is(last, MM_EV_MSG, 1, (int32_t)n + 1) && last->bytes == 0);
        /* The wildcard receive stays posted through the round and takes
         * only the last message. */
        CHECK(out[b + 2 * n + 1] == b);
        for (uint32_t i = 0; i < n; i++)
            ok &= is(&s.ev[b + 1 + i], MM_EV_RECV, 1, (int32_t)i) &&
                  s.ev[b + 1 + n + i].tag == s.ev[1 + n + i].tag; /* as in round 0 */
    }
    CHECK(ok);
    free(out);
    mm_stream_free(&s);

    /* The shuffle of any and shuffle with the same seed and n agree. */
    mm_stream a = build("any:n=64,rounds=1,seed=9"), b = build("shuffle:n=64,rounds=1,seed=9");
    ok = 1;
    for (uint32_t i = 0; i < 64; i++)
        ok &= a.ev[1 + 64 + i].tag == b.ev[64 + i].tag;
    CHECK(ok);
    mm_stream_free(&a);
    mm_stream_free(&b);
    free(seen);
}

/* ---- pingpong: every matching search walks n+1 list elements ---- */

static void test_pingpong(void)
{
    mm_stream s = build("pingpong:n=50,iters=20,bytes=64");
    CHECK(s.n == 50 + 40);
    int ok = 1;
    for (uint32_t i = 0; i < 50; i++)
        ok &= is(&s.ev[i], MM_EV_RECV, 1, (int32_t)i + 1) && s.ev[i].bytes == 64;
    for (uint32_t i = 0; i < 20; i++)
        ok &= is(&s.ev[50 + 2 * i], MM_EV_RECV, 1, 0) && is(&s.ev[51 + 2 * i], MM_EV_MSG, 1, 0);
    CHECK(ok);
    mm_replay_result r = replay(&s, "list", NULL);
    CHECK(r.counts.matches == 20);
    CHECK(r.stats.prq.searches == 20 && r.stats.prq.hits == 20);
    CHECK_MSG(r.stats.prq.traversed == 20 * 51 && r.stats.prq.max_depth == 51,
              "traversed %llu max %llu", (unsigned long long)r.stats.prq.traversed,
              (unsigned long long)r.stats.prq.max_depth);
    CHECK(r.stats.prq.length == 50); /* the dead receives stay */
    mm_replay_result h = replay(&s, "hash", NULL);
    CHECK(h.stats.prq.max_depth == 1);
    mm_stream_free(&s);

    s = build("pingpong:n=0,iters=3");
    r = replay(&s, "list", NULL);
    CHECK(s.n == 6 && r.stats.prq.traversed == 3 && r.stats.prq.max_depth == 1);
    mm_stream_free(&s);
}

/* ---- reverse search ---- */

/* Each round: `total` messages, then the receives naming them in exactly
 * the reverse order; each sender's tags count up from 0 in arrival order. */
static void check_reverse(const mm_stream *s, uint32_t nsenders, const uint32_t *cnt,
                          uint32_t rounds)
{
    uint64_t total = 0;
    for (uint32_t p = 0; p < nsenders; p++)
        total += cnt[p];
    CHECK(s->n == 2 * total * rounds);
    CHECK(s->np == (int32_t)nsenders + 1);
    uint32_t *next = calloc(nsenders + 1, sizeof *next);
    int ok = 1;
    for (uint32_t r = 0; r < rounds; r++) {
        const mm_event *e = s->ev + (size_t)r * 2 * total;
        memset(next, 0, (nsenders + 1) * sizeof *next);
        for (uint64_t k = 0; k < total; k++) {
            const mm_event *m = &e[k], *rv = &e[2 * total - 1 - k];
            ok &= m->type == MM_EV_MSG && m->src >= 1 && (uint32_t)m->src <= nsenders;
            if (!ok)
                break;
            ok &= m->tag == (int32_t)next[m->src - 1]++;
            ok &= is(rv, MM_EV_RECV, m->src, m->tag);
        }
        for (uint32_t p = 0; p < nsenders; p++)
            ok &= next[p] == cnt[p];
    }
    CHECK(ok);
    free(next);

    /* A single list: the k-th receive of a round walks the whole queue,
     * total - k + 1 elements. */
    mm_replay_result res = replay(s, "list", NULL);
    CHECK(res.counts.matches == total * rounds);
    CHECK(res.stats.umq.max_depth == total);
    CHECK(res.stats.umq.traversed == rounds * total * (total + 1) / 2);
}

static void test_reverse(void)
{
    uint32_t cnt[40];
    for (int i = 0; i < 40; i++)
        cnt[i] = 7;
    const char *arrivals[] = { "random", "roundrobin", "sequential" };
    for (int a = 0; a < 3; a++) {
        char spec[128];
        snprintf(spec, sizeof spec, "reverse:n=41,m=7,rounds=2,arrival=%s", arrivals[a]);
        mm_stream s = build(spec);
        check_reverse(&s, 40, cnt, 2);
        /* sequential: sender 1's messages first; roundrobin: one each. */
        if (a == 2)
            CHECK(is(&s.ev[6], MM_EV_MSG, 1, 6) && is(&s.ev[7], MM_EV_MSG, 2, 0));
        if (a == 1)
            CHECK(is(&s.ev[39], MM_EV_MSG, 40, 0) && is(&s.ev[40], MM_EV_MSG, 1, 1));
        mm_stream_free(&s);
    }

    /* Groups Ps, Pm, Pl, Pvl: ranks 1..3, 4..6, 7..9, 10..12. */
    mm_stream s = build("reverse_groups:per_group=3,rounds=2");
    uint32_t g[12];
    for (int i = 0; i < 12; i++)
        g[i] = (uint32_t[]){ 2, 10, 50, 100 }[i / 3];
    check_reverse(&s, 12, g, 2);
    mm_stream_free(&s);
    s = build("reverse_groups:per_group=1,small=1,medium=2,large=3,vlarge=4,rounds=1");
    check_reverse(&s, 4, (uint32_t[]){ 1, 2, 3, 4 }, 1);
    mm_stream_free(&s);
}

/* ---- the scheduler ---- */

static void test_scheduler(void)
{
    char err[256];
    mm_stream s;
    mm_stream_init(&s, "t", err, sizeof err);
    mm_gen_out o;
    mm_gen_out_init(&o, &s, err, sizeof err);
    mm_rng r;
    mm_rng_seed(&r, 3);
    const uint32_t counts[4] = { 3, 0, 1, 5 };
    uint32_t order[9], per[4];
    CHECK(mm_gen_interleave(&o, &r, MM_SCHED_ROUNDROBIN, counts, 4, order) == MMS_OK);
    const uint32_t rr[9] = { 0, 2, 3, 0, 3, 0, 3, 3, 3 };
    CHECK(memcmp(order, rr, sizeof rr) == 0);
    CHECK(mm_gen_interleave(&o, &r, MM_SCHED_SEQUENTIAL, counts, 4, order) == MMS_OK);
    const uint32_t sq[9] = { 0, 0, 0, 2, 3, 3, 3, 3, 3 };
    CHECK(memcmp(order, sq, sizeof sq) == 0);
    /* random: each thread issues exactly its count, and over many draws
     * every thread is first sometimes (no fixed order). */
    uint32_t first[4] = { 0 };
    for (int t = 0; t < 400; t++) {
        CHECK(mm_gen_interleave(&o, &r, MM_SCHED_RANDOM, counts, 4, order) == MMS_OK);
        memset(per, 0, sizeof per);
        for (int k = 0; k < 9; k++)
            per[order[k]]++;
        CHECK(memcmp(per, counts, sizeof per) == 0);
        first[order[0]]++;
    }
    CHECK(first[0] > 50 && first[1] == 0 && first[2] > 50 && first[3] > 50);

    /* Bursts: round robin gives each turn `burst` operations; random keeps
     * every thread's count, and its runs (same thread as the step before)
     * grow with the mean run length. burst 1 is the plain scheduler. */
    CHECK(mm_gen_interleave_burst(&o, &r, MM_SCHED_ROUNDROBIN, 2, counts, 4, order) == MMS_OK);
    const uint32_t rr2[9] = { 0, 0, 2, 3, 3, 0, 3, 3, 3 };
    CHECK(memcmp(order, rr2, sizeof rr2) == 0);
    const uint32_t big[3] = { 400, 400, 400 };
    uint32_t bord[1200];
    size_t same[2] = { 0, 0 };
    for (int b = 0; b < 2; b++) {
        CHECK(mm_gen_interleave_burst(&o, &r, MM_SCHED_RANDOM, b ? 16 : 1, big, 3, bord) == MMS_OK);
        uint32_t bper[3] = { 0, 0, 0 };
        for (int k = 0; k < 1200; k++) {
            bper[bord[k]]++;
            same[b] += k > 0 && bord[k] == bord[k - 1];
        }
        CHECK(bper[0] == 400 && bper[1] == 400 && bper[2] == 400);
    }
    /* one at a time: a repeat about 1/3 of the steps; mean run 16: most */
    CHECK(same[0] > 300 && same[0] < 500 && same[1] > 1000);

    /* Per-thread lists keep program order (increasing item index). */
    const uint32_t owner[7] = { 1, 0, 1, 2, 0, 1, 1 };
    mm_gen_threads th;
    CHECK(mm_gen_threads_build(&o, &th, owner, 7, 3) == MMS_OK);
    const uint32_t items[7] = { 1, 4, 0, 2, 5, 6, 3 }, firsts[4] = { 0, 2, 6, 7 };
    CHECK(memcmp(th.items, items, sizeof items) == 0 && memcmp(th.first, firsts, sizeof firsts) == 0);
    uint32_t ord[7];
    CHECK(mm_gen_threads_schedule(&o, &th, &r, MM_SCHED_SEQUENTIAL, ord) == MMS_OK);
    CHECK(memcmp(ord, items, sizeof items) == 0);
    CHECK(mm_gen_threads_schedule(&o, &th, &r, MM_SCHED_RANDOM, ord) == MMS_OK);
    int ok = 1;
    uint32_t last[3] = { 0, 0, 0 };
    int seen_any[3] = { 0, 0, 0 };
    for (int k = 0; k < 7; k++) { /* within a thread, items keep their order */
        uint32_t t = owner[ord[k]];
        ok &= !seen_any[t] || ord[k] > last[t];
        last[t] = ord[k];
        seen_any[t] = 1;
    }
    CHECK(ok);
    mm_gen_threads_free(&th);
    mm_stream_free(&s);
}

int main(void)
{
    test_burst_tags();
    test_shuffle_any();
    test_pingpong();
    test_reverse();
    test_scheduler();
    return TC_DONE();
}
