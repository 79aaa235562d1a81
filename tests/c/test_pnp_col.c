/* White-box tests of paper 000's engines (src/engines/split.c): the order in
 * which PNP extracts partners and searches its levels, the caps on dedicated
 * queues, COL's queue-count arithmetic (paper 000, section 5.2), the overhead
 * counters, the kind routing, and the parameter ranges. The differential test
 * checks the matches themselves on random streams. */
#include <string.h>
#include "check.h"
#include "mpimatch.h"

static mm_engine *make(const char *name, int32_t nprocs, const char *p0, const char *p1,
                       const char *p2)
{
    const char *params[3] = {p0, p1, p2};
    size_t n = p2 ? 3 : p1 ? 2 : p0 ? 1 : 0;
    mm_config cfg = {.nprocs = nprocs, .params = params, .nparams = n};
    mm_engine *e = NULL;
    char err[256];
    int rc = mm_create(&e, name, &cfg, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", name, err);
    CHECK_EQ(rc, 0);
    return e;
}

static mm_stats stats(mm_engine *e)
{
    mm_stats st;
    mm_get_stats(e, &st);
    return st;
}

static int post(mm_engine *e, int32_t src, int32_t tag, uintptr_t id)
{
    mm_entry x = {.comm = 0, .src = src, .tag = tag, .cookie = id};
    uintptr_t got;
    return mm_post(e, &x, NULL, &got);
}

/* A message arrives; returns the partner's cookie (0: queued) and the
 * number of PRQ elements its search compared in *depth. */
static uintptr_t arrive(mm_engine *e, int32_t src, int32_t tag, uint64_t *depth)
{
    uint64_t before = stats(e).prq.traversed;
    mm_entry x = {.comm = 0, .src = src, .tag = tag, .cookie = 999};
    uintptr_t got = 0;
    int rc = mm_arrive(e, &x, &got);
    *depth = stats(e).prq.traversed - before;
    return rc == MM_MATCHED ? got : 0;
}

/* Partner extraction and the search order of paper 000 section 4.2, on a
 * stream small enough to follow by hand: theta = 4, n = 4. */
static void pnp_levels(void)
{
    mm_engine *e = make("pnp", 4, "theta=4", "kp=8", NULL);
    uint64_t d;
    CHECK_EQ(stats(e).prq.queues, 2); /* base queue and the ANY_SOURCE queue */
    /* Rank 0 puts 3 of the 4 elements in the base queue: more than the
     * average over the 4 processes (1), so it becomes a partner of level 0;
     * rank 1 (1 element) does not. */
    post(e, 0, 0, 1);
    post(e, 0, 1, 2);
    post(e, 0, 2, 3);
    post(e, 1, 3, 4);
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.queues, 4); /* + NP0 + D(0) */
    CHECK(st.overhead.extract_ns > 0);
    CHECK(st.overhead.alloc_ns > 0);
    CHECK(st.overhead.events >= 2);
    post(e, 0, 9, 5); /* to D(0) */
    post(e, 1, 9, 6); /* to NP0  */
    /* partner 0, level 0: the base queue (4 compares), then D(0) */
    CHECK_EQ(arrive(e, 0, 9, &d), 5);
    CHECK_EQ(d, 5);
    /* non-partner 1: the base queue, then NP0 */
    CHECK_EQ(arrive(e, 1, 9, &d), 6);
    CHECK_EQ(d, 5);
    CHECK_EQ(arrive(e, 0, 0, &d), 1); /* the earliest stays in the base queue */
    CHECK_EQ(d, 1);
    /* NP0 reaches theta with rank 1 three times: partner of level 1. */
    post(e, 1, 20, 7);
    post(e, 1, 21, 8);
    post(e, 1, 22, 9);
    post(e, 2, 23, 10);
    CHECK_EQ(stats(e).prq.queues, 6); /* + NP1 + D(1) */
    post(e, 2, 50, 11); /* NP1 */
    post(e, 1, 30, 12); /* D(1) */
    post(e, 3, 40, 13); /* NP1 */
    /* partner 1, level 1: base (3), NP0 (4), D(1) (1); NP1 is not searched */
    CHECK_EQ(arrive(e, 1, 30, &d), 12);
    CHECK_EQ(d, 8);
    /* non-partner 3: base (3), NP0 (4), NP1 (2) */
    CHECK_EQ(arrive(e, 3, 40, &d), 13);
    CHECK_EQ(d, 9);
    /* an ANY_SOURCE receive waits apart and is found after rank 1's queues */
    mm_entry w = {.comm = 0, .src = MM_ANY_SOURCE, .tag = 60, .cookie = 14};
    uintptr_t got;
    CHECK_EQ(mm_post(e, &w, NULL, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 1, 60, &d), 14);
    CHECK_EQ(d, 8); /* base 3, NP0 4, D(1) empty, ANY_SOURCE queue 1 */
    /* ...but an earlier specific receive beats a later wildcard */
    CHECK_EQ(mm_post(e, &w, NULL, &got), MM_QUEUED);
    post(e, 1, 60, 15);
    CHECK_EQ(arrive(e, 1, 60, &d), 14);
    CHECK_EQ(arrive(e, 1, 60, &d), 15);
    mm_destroy(e);
}

/* The cap: n = 16, kp = 1 gives floor(1 * 4) = 4 dedicated queues per side.
 * Each pair of receives from a new rank makes it a partner (theta = 2) until
 * the cap; after that every rank shares the last NP queue, and matching
 * stays right. */
static void pnp_cap(void)
{
    mm_engine *e = make("pnp", 16, "theta=2", "kp=1", NULL);
    uintptr_t id = 1;
    for (int32_t s = 0; s < 16; s++) {
        post(e, s, 7, id++);
        post(e, s, 7, id++);
        uint64_t q = stats(e).prq.queues;
        /* base + wild, then one NP queue and one dedicated queue per partner */
        CHECK_EQ(q, 2 + 2 * (uint64_t)(s + 1 < 4 ? s + 1 : 4));
    }
    CHECK_EQ(stats(e).prq.max_queues, 10);
    uint64_t d;
    id = 1;
    for (int32_t s = 0; s < 16; s++) {
        CHECK_EQ(arrive(e, s, 7, &d), id);
        CHECK_EQ(arrive(e, s, 7, &d), id + 1);
        id += 2;
    }
    CHECK_EQ(stats(e).prq.length, 0);
    mm_destroy(e);

    /* kp = 0: no dedicated queue at all, PNP is one list */
    e = make("pnp", 16, "theta=1", "kp=0", NULL);
    for (int32_t s = 0; s < 16; s++)
        post(e, s, 1, (uintptr_t)s + 1);
    CHECK_EQ(stats(e).prq.queues, 2);
    CHECK_EQ(stats(e).overhead.events, 0);
    mm_destroy(e);
}

/* One gather at the root: receives from ranks 1..n-1 posted in rank order,
 * the messages arriving in a scrambled order (rank 1 + i * 7919 mod (n-1),
 * a permutation since 7919 is a prime not dividing n-1), negative tag, kind
 * COLL. */
static void gather(mm_engine *e, int32_t n, uint32_t call)
{
    mm_entry x = {.comm = 0, .tag = -10, .kind = MM_KIND_COLL, .coll_op = MM_COLL_GATHER,
                  .comm_size = (uint32_t)n, .call = call, .bytes = 8};
    uintptr_t got;
    for (int32_t s = 1; s < n; s++) {
        x.src = s;
        x.cookie = (uintptr_t)s;
        CHECK_EQ(mm_post(e, &x, NULL, &got), MM_QUEUED);
    }
    int bad = 0;
    for (int64_t i = 0; i < n - 1; i++) {
        x.src = 1 + (int32_t)(i * 7919 % (n - 1));
        bad += mm_arrive(e, &x, &got) != MM_MATCHED || got != (uintptr_t)x.src;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(stats(e).prq.length, 0);
}

/* Paper 000 section 5.2: with k = 1 the root of a gather reaches the cap,
 * 32, 45 and 64 PRQs at 1024, 2048 and 4096 processes. */
static void col_gather_queues(void)
{
    static const int32_t nprocs[] = {1024, 2048, 4096};
    static const uint64_t expect[] = {32, 45, 64};
    for (int i = 0; i < 3; i++) {
        int32_t n = nprocs[i];
        mm_engine *e = make("col+ll", n, "kc=1", NULL, NULL);
        CHECK_EQ(stats(e).prq.queues, 2); /* the point-to-point list and pq */
        gather(e, n, 0);           /* profiled in pq */
        mm_stats first = stats(e);
        CHECK_EQ(first.prq.queues, 2);
        gather(e, n, 1);           /* in the gather's level */
        mm_stats second = stats(e);
        CHECK_EQ(second.prq.queues - 2, expect[i]);
        CHECK(second.overhead.profile_ns > 0);
        CHECK(second.overhead.alloc_ns > 0);
        /* n-1 arrivals per call: the second call compares far fewer */
        uint64_t t1 = first.prq.traversed, t2 = second.prq.traversed - t1;
        CHECK(t2 * 8 < t1);
        gather(e, n, 2);           /* no new level: nq is not larger */
        CHECK_EQ(stats(e).prq.queues - 2, expect[i]);
        mm_destroy(e);
    }
}

/* A second collective on the same side gets its own level; once the cap is
 * used up, a third waits in pq, and everything still matches. */
static void col_cap(void)
{
    int32_t n = 64;
    mm_engine *e = make("col+pnp", n, "kc=1", NULL, NULL); /* cap floor(1 * 8) = 8 */
    gather(e, n, 0);
    gather(e, n, 1);
    uint64_t pnp_queues = 2; /* base + wild */
    CHECK_EQ(stats(e).prq.queues, pnp_queues + 1 + 8);
    mm_entry x = {.comm = 0, .src = 3, .tag = -20, .kind = MM_KIND_COLL,
                  .coll_op = MM_COLL_ALLREDUCE, .comm_size = 64, .call = 0, .bytes = 8};
    uintptr_t got;
    x.cookie = 1;
    CHECK_EQ(mm_post(e, &x, NULL, &got), MM_QUEUED); /* profiling allreduce */
    x.call = 1;
    x.cookie = 2;
    CHECK_EQ(mm_post(e, &x, NULL, &got), MM_QUEUED); /* profiled: no room left */
    CHECK_EQ(stats(e).prq.queues, pnp_queues + 1 + 8);
    CHECK_EQ(mm_arrive(e, &x, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    CHECK_EQ(mm_arrive(e, &x, &got), MM_MATCHED);
    CHECK_EQ(got, 2);
    mm_destroy(e);
}

/* More levels than an element's slot byte can name (col_part.c: from level
 * 254 on, an element finds its level from its sequence number). Profile i
 * of the gather (comm_size 1000 + i, tag -10 - i) posts 2(i + 1) receives whose messages
 * arrive in reverse order: mean depth (2i + 3) / 2, so nq = i + 2, more than
 * the last level's, and the call that follows opens level i. One receive of
 * that call stays queued in each level; then some far ones are cancelled and
 * the rest matched, all with the cookies they were posted with. The level
 * found decides which level's counts a removal lowers (the lists have
 * sentinels, so the unlinking itself is right either way): a wrong or out
 * of range level shows under ASan, in the queue count, or as a match. */
static void col_far_levels(void)
{
    enum { LEVELS = 270 };
    /* the cap: floor(1024 * sqrt(2000)) = 45796 >= sum of (i + 2) = 37125 */
    mm_engine *e = make("col+ll", 2000, "kc=1024", NULL, NULL);
    static mm_handle h[LEVELS];
    uint64_t queues = 2; /* the point-to-point list and pq */
    uintptr_t got;
    int bad = 0;
    for (int32_t i = 0; i < LEVELS; i++) {
        mm_entry x = {.comm = 0, .tag = -10 - i, .kind = MM_KIND_COLL, .coll_op = MM_COLL_GATHER,
                      .comm_size = 1000 + (uint32_t)i, .call = 0, .bytes = 8};
        int32_t m = 2 * (i + 1);
        for (int32_t s = 0; s < m; s++) {
            x.src = s;
            x.cookie = (uintptr_t)s + 1;
            bad += mm_post(e, &x, NULL, &got) != MM_QUEUED;
        }
        for (int32_t s = m - 1; s >= 0; s--) {
            x.src = s;
            bad += mm_arrive(e, &x, &got) != MM_MATCHED || got != (uintptr_t)s + 1;
        }
        x.call = 1;
        x.src = i;
        x.cookie = 100000 + (uintptr_t)i;
        bad += mm_post(e, &x, &h[i], &got) != MM_QUEUED;
        queues += (uint64_t)i + 2;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(stats(e).prq.queues, queues); /* every profile opened its level */
    CHECK_EQ(stats(e).prq.length, LEVELS);
    /* cancel every third receive from level 250 on, slot byte and sequence alike */
    for (int32_t i = 250; i < LEVELS; i += 3)
        bad += mm_cancel(e, h[i]) != MM_MATCHED;
    CHECK_EQ(bad, 0);
    for (int32_t j = 0; j < LEVELS; j++) {
        int32_t i = (int32_t)((j * 7919) % LEVELS); /* 7919 is prime: a permutation */
        mm_entry x = {.comm = 0, .src = i, .tag = -10 - i, .kind = MM_KIND_COLL,
                      .coll_op = MM_COLL_GATHER, .comm_size = 1000 + (uint32_t)i, .call = 1,
                      .bytes = 8, .cookie = 7};
        int cancelled = i >= 250 && (i - 250) % 3 == 0;
        int rc = mm_arrive(e, &x, &got);
        if (cancelled)
            bad += rc != MM_QUEUED;
        else
            bad += rc != MM_MATCHED || got != 100000 + (uintptr_t)i;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(stats(e).prq.length, 0);
    mm_destroy(e);
}

/* Kind routing: with point-to-point on tags >= 0 and collectives on negative
 * tags (Open MPI) or on a communicator of their own (MPICH), neither part is
 * searched for the other's traffic; a collective-kind message still matches
 * a point-to-point receive when the keys agree. */
static void kinds(void)
{
    static const char *const engines[] = {"col+pnp", "col+ll", "ll+pnp"};
    for (int i = 0; i < 3; i++) {
        mm_engine *e = make(engines[i], 8, NULL, NULL, NULL);
        uintptr_t got;
        for (int32_t t = 0; t < 10; t++)
            CHECK_EQ(post(e, t % 8, t, (uintptr_t)t + 1), MM_QUEUED);
        mm_entry c = {.comm = 0, .src = 2, .tag = -5, .kind = MM_KIND_COLL,
                      .coll_op = MM_COLL_BCAST, .comm_size = 8, .cookie = 50};
        CHECK_EQ(mm_arrive(e, &c, &got), MM_QUEUED);
        CHECK_EQ(stats(e).prq.traversed, 0); /* the p2p receives were not searched */
        c.comm = 1;
        c.tag = 4;
        CHECK_EQ(mm_arrive(e, &c, &got), MM_QUEUED);
        CHECK_EQ(stats(e).prq.traversed, 0);
        c.comm = 0;
        c.tag = 2; /* the same key as the p2p receive of tag 2 */
        CHECK_EQ(mm_arrive(e, &c, &got), MM_MATCHED);
        CHECK_EQ(got, 3);
        mm_destroy(e);
    }
}

static void params(void)
{
    static const char *const bad[][2] = {
        {"pnp", "theta=0"}, {"pnp", "kp=1025"}, {"col+pnp", "kc=-1"},
        {"col+ll", "theta=5"}, {"ll+pnp", "kc=2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p[1] = {bad[i][1]};
        mm_config cfg = {.nprocs = 4, .params = p, .nparams = 1};
        mm_engine *e = NULL;
        char err[256];
        CHECK_EQ(mm_create(&e, bad[i][0], &cfg, err, sizeof err), MM_EPARAM);
        CHECK(e == NULL);
        char key[16];
        snprintf(key, sizeof key, "%.*s", (int)(strchr(bad[i][1], '=') - bad[i][1]), bad[i][1]);
        CHECK(strstr(err, key) != NULL); /* the message names the parameter */
    }
    const char *p[1] = {"kp=1025"};
    mm_config cfg = {.nprocs = 4, .params = p, .nparams = 1};
    mm_engine *e = NULL;
    char err[256];
    mm_create(&e, "pnp", &cfg, err, sizeof err);
    CHECK(strstr(err, "from 0 to 1024") != NULL);
}

int main(void)
{
    pnp_levels();
    pnp_cap();
    col_gather_queues();
    col_cap();
    col_far_levels();
    kinds();
    params();
    return check_report("test_pnp_col");
}
