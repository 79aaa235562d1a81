/* mm_walk: what it shows of each side, in which order, for every engine;
 * that it changes nothing; arguments; stopping; a callback that calls into
 * the engine; MM_CFG_CONCURRENT shard by shard, and with ANY_SOURCE receives
 * (one copy per shard inside) each receive once, in posting order. (test_differential compares
 * every engine's walk with its model's queues on random streams.) */
#include <string.h>
#include "check.h"
#include "mpimatch.h"

typedef struct seen {
    mm_queued q[64];
    size_t    n, stop_at;
    mm_engine *reenter; /* post a receive from inside the callback */
} seen;

static int collect(const mm_queued *q, void *arg)
{
    seen *s = arg;
    if (s->n < 64)
        s->q[s->n] = *q;
    s->n++;
    if (s->reenter) {
        mm_entry r = {.comm = 9, .src = 0, .tag = 9, .cookie = 999};
        mm_post(s->reenter, &r, NULL, NULL);
    }
    return s->stop_at && s->n == s->stop_at;
}

/* What the walk shows of an entry: all but comm_size, call and bytes, which
 * the engine does not keep (0 since 0.3: the caller's record has them). */
static mm_entry shown(mm_entry x)
{
    x.comm_size = x.call = 0;
    x.bytes = 0;
    return x;
}

static void one_engine(const char *name)
{
    const mm_engine_info *info = mm_engine_find(name);
    mm_config cfg = {.nprocs = 4, .hints = info->hints_required};
    int wild = !info->hints_required;
    mm_engine *e;
    char err[256];
    CHECK_EQ(mm_create(&e, name, &cfg, err, sizeof err), 0);
    seen s = {0};
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &s), 0);
    CHECK_EQ(s.n, 0);
    /* receives 1..6 (two wildcards when the engine takes them), message 7
     * matches receive 2, messages 8 (negative tag), 9 and 10 stay */
    mm_entry r[] = {
        {.comm = 1, .src = 2, .tag = 5, .bytes = 10, .cookie = 1},
        {.comm = 1, .src = 3, .tag = 5, .bytes = 20, .cookie = 2},
        {.comm = 2, .src = wild ? MM_ANY_SOURCE : 0, .tag = 7, .cookie = 3},
        {.comm = 2, .src = 1, .tag = wild ? MM_ANY_TAG : 4, .cookie = 4},
        {.comm = 1, .src = 0, .tag = 0, .kind = MM_KIND_COLL, .coll_op = MM_COLL_BCAST,
         .comm_size = 4, .call = 3, .cookie = 5},
        {.comm = 3, .src = 2, .tag = 1, .cookie = 6},
    };
    mm_handle h[6];
    for (int i = 0; i < 6; i++)
        CHECK_EQ(mm_post(e, &r[i], &h[i], NULL), MM_QUEUED);
    mm_entry m[] = {
        {.comm = 1, .src = 3, .tag = 5, .cookie = 7},
        {.comm = 2, .src = 1, .tag = -16, .bytes = 4, .cookie = 8},
        {.comm = 0, .src = 0, .tag = 0, .cookie = 9},
        {.comm = 1, .src = 2, .tag = 6, .bytes = 1 << 20, .cookie = 10},
    };
    uintptr_t got = 0;
    CHECK_EQ(mm_arrive(e, &m[0], &got), MM_MATCHED);
    CHECK_EQ(got, 2);
    for (int i = 1; i < 4; i++)
        CHECK_EQ(mm_arrive(e, &m[i], NULL), MM_QUEUED);
    CHECK_EQ(mm_cancel(e, h[5]), MM_MATCHED); /* receive 6 leaves */
    mm_stats before, after;
    mm_get_stats(e, &before);
    /* PRQ: 1, 3, 4, 5 in post order, every field as posted but the three not kept */
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &s), 0);
    CHECK_EQ(s.n, 4);
    const int want_r[] = {0, 2, 3, 4};
    for (size_t i = 0; i < 4 && i < s.n; i++) {
        mm_entry want = shown(r[want_r[i]]);
        CHECK(memcmp(&s.q[i].entry, &want, sizeof(mm_entry)) == 0);
        CHECK(s.q[i].entry.comm_size == 0 && s.q[i].entry.call == 0 && s.q[i].entry.bytes == 0);
        CHECK_EQ(s.q[i].shard, 0);
        if (i)
            CHECK(s.q[i].seq > s.q[i - 1].seq);
    }
    /* UMQ: 8, 9, 10 in arrival order */
    memset(&s, 0, sizeof s);
    CHECK_EQ(mm_walk(e, MM_SIDE_UMQ, collect, &s), 0);
    CHECK_EQ(s.n, 3);
    for (size_t i = 0; i < 3 && i < s.n; i++) {
        mm_entry want = shown(m[i + 1]);
        CHECK(memcmp(&s.q[i].entry, &want, sizeof(mm_entry)) == 0);
        CHECK_EQ(s.q[i].entry.bytes, 0);
    }
    /* nothing changed: the same matches and statistics afterwards */
    mm_get_stats(e, &after);
    CHECK(memcmp(&before, &after, sizeof before) == 0);
    /* stop early */
    memset(&s, 0, sizeof s);
    s.stop_at = 2;
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &s), 0);
    CHECK_EQ(s.n, 2);
    /* the callback may call into the engine: not seen by this walk */
    memset(&s, 0, sizeof s);
    s.reenter = e;
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &s), 0);
    CHECK_EQ(s.n, 4);
    memset(&s, 0, sizeof s);
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &s), 0);
    CHECK_EQ(s.n, 8);
    /* a message for receive 1 takes it, the earliest posted */
    mm_entry m1 = {.comm = 1, .src = 2, .tag = 5, .cookie = 11};
    CHECK_EQ(mm_arrive(e, &m1, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    memset(&s, 0, sizeof s);
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &s), 0);
    CHECK_EQ(s.n, 7);
    CHECK_EQ(s.q[0].entry.cookie, 3);
    /* arguments */
    CHECK_EQ(mm_walk(NULL, MM_SIDE_PRQ, collect, &s), MM_EINVAL);
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, NULL, &s), MM_EINVAL);
    CHECK_EQ(mm_walk(e, 2, collect, &s), MM_EINVAL);
    CHECK_EQ(mm_walk(e, -1, collect, &s), MM_EINVAL);
    mm_destroy(e);
}

/* Elements queued and released many times over a pool that grew: only the
 * queued ones show. */
static void churn(void)
{
    mm_config cfg = {.nprocs = 2, .flags = MM_CFG_THREAD_SAFE};
    mm_engine *e;
    CHECK_EQ(mm_create(&e, "rank", &cfg, NULL, 0), 0);
    for (int i = 0; i < 5000; i++) {
        mm_entry r = {.comm = 0, .src = 1, .tag = i, .cookie = (uintptr_t)i + 1};
        mm_post(e, &r, NULL, NULL);
    }
    for (int i = 0; i < 5000; i += 2) {
        mm_entry m = {.comm = 0, .src = 1, .tag = i};
        mm_arrive(e, &m, NULL);
    }
    seen s = {0};
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &s), 0);
    CHECK_EQ(s.n, 2500);
    CHECK_EQ(s.q[0].entry.tag, 1);
    CHECK_EQ(s.q[63].entry.tag, 127);
    memset(&s, 0, sizeof s);
    CHECK_EQ(mm_walk(e, MM_SIDE_UMQ, collect, &s), 0);
    CHECK_EQ(s.n, 0);
    mm_destroy(e);
}

/* MM_CFG_CONCURRENT: every element once, each shard in order. */
static void shards(void)
{
    mm_config cfg = {.nprocs = 64, .hints = MM_HINT_NO_ANY_SOURCE, .flags = MM_CFG_CONCURRENT};
    mm_engine *e;
    CHECK_EQ(mm_create(&e, "list", &cfg, NULL, 0), 0);
    for (int i = 0; i < 60; i++) {
        mm_entry m = {.comm = 0, .src = i % 32, .tag = i, .cookie = (uintptr_t)i + 1};
        CHECK_EQ(mm_arrive(e, &m, NULL), MM_QUEUED);
    }
    seen s = {0};
    CHECK_EQ(mm_walk(e, MM_SIDE_UMQ, collect, &s), 0);
    CHECK_EQ(s.n, 60);
    int once[61] = {0}, shards_seen = 0;
    for (size_t i = 0; i < s.n && i < 64; i++) {
        once[s.q[i].entry.cookie]++;
        if (i && s.q[i].shard == s.q[i - 1].shard)
            CHECK(s.q[i].seq > s.q[i - 1].seq);
        else
            shards_seen++;
        if (i)
            CHECK(s.q[i].shard >= s.q[i - 1].shard);
    }
    for (int i = 1; i <= 60; i++)
        CHECK_EQ(once[i], 1);
    CHECK(shards_seen > 1);
    mm_destroy(e);
}

/* MM_CFG_CONCURRENT with ANY_SOURCE: a wildcard receive sits in many shards
 * as copies; the walk shows it once, with the caller's cookie, in posting
 * order among the named receives, and no more once a message took it. */
static void shards_wild(void)
{
    mm_config cfg = {.nprocs = 64, .flags = MM_CFG_CONCURRENT};
    mm_engine *e;
    CHECK_EQ(mm_create(&e, "list", &cfg, NULL, 0), 0);
    for (int i = 0; i < 20; i++) {   /* cookies 1..20; odd ones from ANY_SOURCE */
        mm_entry r = {.comm = 0, .src = i % 2 ? MM_ANY_SOURCE : i, .tag = 7,
                      .cookie = (uintptr_t)i + 1};
        CHECK_EQ(mm_post(e, &r, NULL, NULL), MM_QUEUED);
    }
    seen s = {0};
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &s), 0);
    CHECK_EQ(s.n, 20);
    for (size_t i = 0; i < s.n && i < 64; i++) {
        CHECK_EQ(s.q[i].entry.cookie, i + 1);
        CHECK_EQ(s.q[i].entry.src, i % 2 ? MM_ANY_SOURCE : (int32_t)i);
        if (i)
            CHECK(s.q[i].seq > s.q[i - 1].seq);
    }
    /* a message from source 33 takes the first wildcard (cookie 2) */
    mm_entry m = {.comm = 0, .src = 33, .tag = 7, .cookie = 100};
    uintptr_t got = 0;
    CHECK_EQ(mm_arrive(e, &m, &got), MM_MATCHED);
    CHECK_EQ(got, 2);
    seen t = {0};
    CHECK_EQ(mm_walk(e, MM_SIDE_PRQ, collect, &t), 0);
    CHECK_EQ(t.n, 19);
    for (size_t i = 0; i < t.n && i < 64; i++)
        CHECK(t.q[i].entry.cookie != 2);
    mm_destroy(e);
}

int main(void)
{
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const char *name = mm_engine_at(i)->name;
        int before = check_failed;
        one_engine(name);
        if (check_failed != before)
            fprintf(stderr, "  (engine %s)\n", name);
    }
    churn();
    shards();
    shards_wild();
    return check_report("test_walk");
}
