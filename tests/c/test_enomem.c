/* Out of memory: the failed-call contract (docs/api.md) and "search first,
 * allocate only to queue", with injected allocation failures.
 *
 * 1. Every engine runs a random stream twice in lockstep: engine A under
 *    injected failures (the test hooks of core/mem.h: an allocation limit
 *    for stretches of events, and single failures armed at random), engine B
 *    without. A call that fails on A must leave no trace: its output
 *    arguments untouched, and A's statistics equal to B's, which never saw
 *    the call. Every call that succeeds on A is made on B too and must give
 *    the same status and partner. For engines whose every allocation on the
 *    matching path is all-or-nothing the statistics must stay equal in full
 *    (search depths and queue counts too); adaptive, auto and the paper-000
 *    engines absorb a failed allocation by design (they stay on their lists
 *    or shared queues), so for them matches, searches, hits and lengths.
 * 2. Under a fixed limit, once arrivals fail, receives that match queued
 *    messages still succeed (and arrivals that match queued receives), in
 *    every engine.
 *
 *   test_enomem [events-per-config [seed]] */
#include <inttypes.h>
#include <string.h>
#include "check.h"
#include "engine.h"

static uint64_t rng;
static uint64_t rnd(void) { return check_xorshift(&rng); }
static int chance(unsigned per_mille) { return rnd() % 1000 < per_mille; }
static int32_t pick(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint64_t)(hi - lo + 1)); }

static const struct variant {
    const char *engine;
    const char *params[4];
} variants[] = {
    {"bins", {"bins=3"}},
    {"kmeans", {"k=3"}},
    {"adaptive", {"threshold=1", "bins=3", "low=400"}},
    {"simd", {"isa=1"}},
    {"auto", {"force=2", "seed=5"}},
    {"auto", {"window=3", "up=1", "down=30"}},
    {"col+pnp", {"theta=3", "kc=1", "kp=2"}},
    {"col+pnp", {"theta=2", "kc=64", "kp=64"}},
};

/* Engines that, by design, carry on without an allocation that failed. */
static int absorbs(const char *name)
{
    return strcmp(name, "adaptive") == 0 || strcmp(name, "auto") == 0 ||
           strcmp(name, "pnp") == 0 ||
           strcmp(name, "col+pnp") == 0 || strcmp(name, "col+ll") == 0 ||
           strcmp(name, "ll+pnp") == 0;
}

static int create(mm_engine **e, const char *name, const char *const *params, int wild,
                  int32_t np)
{
    /* the twin engines compare statistics: a hashing engine gets one fixed
     * seed (its default draws a secret one per engine, which moves bins'
     * depths and the tables' probe counts) */
    const char *all[5];
    size_t n = 0;
    int seeded = 0;
    while (params && n < 4 && params[n]) {
        seeded |= strncmp(params[n], "seed=", 5) == 0;
        all[n] = params[n];
        n++;
    }
    const mm_engine_info *info = mm_engine_find(name);
    for (size_t i = 0; info && !seeded && i < info->nparams; i++)
        if (strcmp(info->params[i].name, "seed") == 0)
            all[n++] = "seed=7", seeded = 1;
    mm_config cfg = {.nprocs = np, .params = all, .nparams = n};
    if (!wild)
        cfg.hints = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG;
    char err[256];
    int rc = mm_create(e, name, &cfg, err, sizeof err);
    if (rc != 0 && rc != MM_EHINT) {
        fprintf(stderr, "%s: %s\n", name, err);
        exit(1);
    }
    return rc == 0;
}

/* Statistics equal? full: depths and queue counts too. */
static int same_side(const mm_qstats *a, const mm_qstats *b, int full)
{
    int ok = a->searches == b->searches && a->hits == b->hits && a->misses == b->misses &&
             a->length == b->length && a->max_length == b->max_length;
    if (full)
        ok = ok && a->traversed == b->traversed && a->max_depth == b->max_depth &&
             a->queues == b->queues && a->max_queues == b->max_queues;
    return ok;
}

static int same_stats(mm_engine *a, mm_engine *b, int full, const char **what)
{
    mm_stats x, y;
    mm_get_stats(a, &x);
    mm_get_stats(b, &y);
    *what = !same_side(&x.prq, &y.prq, full) ? "PRQ statistics"
          : !same_side(&x.umq, &y.umq, full) ? "UMQ statistics"
          : x.cancels != y.cancels ? "cancels" : NULL;
    return *what == NULL;
}

enum { MAXID = 1 << 20 };

/* Part 1 for one engine: returns the number of failed calls on A. */
static uint64_t run_pair(const char *name, const char *const *params, int wild, uint64_t nevents)
{
    const int32_t np = 8, ncomm = 3;
    mm_engine *a, *b;
    if (!create(&a, name, params, wild, np))
        return 0;
    create(&b, name, params, wild, np);
    int full = !absorbs(name);
    mm_handle *ha = calloc(nevents + 1, sizeof *ha), *hb = calloc(nevents + 1, sizeof *hb);
    uint64_t *recvs = calloc(nevents + 1, sizeof *recvs);
    if (!ha || !hb || !recvs)
        abort();
    uint64_t nrecv = 0, failed = 0, bad = 0, limit_left = 0;
    uint64_t matched_while_limited = 0;
    unsigned post_share = 45;
    for (uint64_t id = 1; id <= nevents && bad < 5; id++) {
        /* Injection: stretches of events with no room to grow, and single
         * failures armed to hit the 1st..4th allocation from now on. */
        if (limit_left == 0 && chance(15)) {
            limit_left = 1 + rnd() % 400;
            a->mem.limit = a->mem.bytes + rnd() % 256;
        }
        if (limit_left && --limit_left == 0)
            a->mem.limit = 0;
        if (!a->mem.fail_in && chance(20))
            a->mem.fail_in = 1 + rnd() % 4;

        /* Phases that favour posts or arrivals: the queues swell (and the
         * pools must grow) and drain, again and again. */
        if (id % 1500 == 1)
            post_share = 10 + (unsigned)(rnd() % 78);
        int kind; /* 0 post, 1 arrive, 2 probe, 3 mprobe, 4 cancel */
        unsigned u = (unsigned)(rnd() % 100);
        kind = u < 88 ? (u < post_share ? 0 : 1) : u < 92 ? 2 : u < 95 ? 3 : 4;
        if (kind == 4 && !nrecv)
            kind = 0;
        mm_entry x = {.comm = pick(0, ncomm - 1), .src = pick(0, np - 1), .tag = pick(-1, 5),
                      .cookie = id};
        if (wild && kind != 1 && kind != 4) {
            if (chance(150))
                x.src = MM_ANY_SOURCE;
            if (chance(150))
                x.tag = MM_ANY_TAG;
        }
        if ((kind == 0 || kind == 1) && chance(300)) {
            x.kind = MM_KIND_COLL;
            x.coll_op = chance(500) ? MM_COLL_ALLREDUCE : MM_COLL_GATHER;
            x.comm_size = (uint32_t)np;
            x.call = (uint32_t)(rnd() % 3);
            x.bytes = 8;
        }
        uintptr_t pa = 0xdead, pb = 0xdead;
        mm_handle before = {(void *)0x1, 7};
        int ra, rb;
        uint64_t cid = 0;
        switch (kind) {
        case 0:
            ha[id] = before;
            ra = mm_post(a, &x, &ha[id], &pa);
            if (ra == MM_ENOMEM && (ha[id].elem != before.elem || ha[id].seq != before.seq)) {
                fprintf(stderr, "%s: event %" PRIu64 ": a failed post wrote the handle\n", name, id);
                bad++;
            }
            break;
        case 1: ra = mm_arrive(a, &x, &pa); break;
        case 2: ra = mm_probe(a, x.comm, x.src, x.tag, &pa); break;
        case 3: ra = mm_mprobe(a, x.comm, x.src, x.tag, &pa); break;
        default:
            cid = recvs[rnd() % nrecv];
            ra = ha[cid].elem ? mm_cancel(a, ha[cid]) : MM_NOTFOUND;
            break;
        }
        if (ra < 0) {
            failed++;
            const char *what;
            if (ra != MM_ENOMEM || (kind != 0 && kind != 1)) {
                fprintf(stderr, "%s: event %" PRIu64 " (op %d): status %d\n", name, id, kind, ra);
                bad++;
            } else if (pa != 0xdead) {
                fprintf(stderr, "%s: event %" PRIu64 ": a failed call wrote its partner\n", name, id);
                bad++;
            } else if (!same_stats(a, b, full, &what)) {
                fprintf(stderr, "%s: event %" PRIu64 " (op %d): the failed call changed the %s\n",
                        name, id, kind, what);
                bad++;
            }
            continue;
        }
        if (limit_left && ra == MM_MATCHED && kind <= 1)
            matched_while_limited++;
        switch (kind) {
        case 0:
            rb = mm_post(b, &x, &hb[id], &pb);
            recvs[nrecv++] = id;
            break;
        case 1: rb = mm_arrive(b, &x, &pb); break;
        case 2: rb = mm_probe(b, x.comm, x.src, x.tag, &pb); break;
        case 3: rb = mm_mprobe(b, x.comm, x.src, x.tag, &pb); break;
        default: rb = hb[cid].elem ? mm_cancel(b, hb[cid]) : MM_NOTFOUND; break;
        }
        if (ra != rb || (ra == MM_MATCHED && kind != 4 && pa != pb)) {
            fprintf(stderr, "%s: event %" PRIu64 " (op %d): A gives %d/%" PRIuPTR
                    ", B gives %d/%" PRIuPTR "\n", name, id, kind, ra, pa, rb, pb);
            bad++;
        }
        const char *what;
        if (id % 64 == 0 && !same_stats(a, b, full, &what)) {
            fprintf(stderr, "%s: event %" PRIu64 ": the %s differ\n", name, id, what);
            bad++;
        }
    }
    a->mem.limit = a->mem.fail_in = 0;
    const char *what;
    CHECK(same_stats(a, b, full, &what));
    CHECK_EQ(bad, 0);
    CHECK(failed > 0);                 /* the injection reached the engine */
    CHECK(matched_while_limited > 0);  /* and matches went on under the limit */
    printf("%-10s %-28s %s: %7" PRIu64 " events, %6" PRIu64 " failed calls, %s\n", name,
           params && params[0] ? params[0] : "", wild ? "wild" : "exact", nevents, failed,
           bad ? "DIFFER" : "as if never made");
    mm_destroy(a);
    mm_destroy(b);
    free(ha);
    free(hb);
    free(recvs);
    return failed;
}

/* Part 2: flood one side under a fixed limit, then drain it from the other. */
static void drain_under_limit(const char *name, int wild, int flood_messages)
{
    const int32_t np = 4;
    mm_engine *e;
    if (!create(&e, name, NULL, wild, np))
        return;
    enum { MAXQ = 100000 };
    static mm_entry q[MAXQ];
    uint64_t n = 0;
    /* Some traffic first, so that structures exist; then no room to grow. */
    for (uint64_t i = 0; i < 10; i++) {
        mm_entry x = {.comm = 0, .src = (int32_t)(i % np), .tag = (int32_t)i, .cookie = 1000000 + i};
        uintptr_t p;
        CHECK_EQ(flood_messages ? mm_arrive(e, &x, &p) : mm_post(e, &x, NULL, &p), MM_QUEUED);
        q[n++] = x;
    }
    e->mem.limit = e->mem.bytes;
    int rc = MM_QUEUED;
    for (uint64_t i = 10; n < MAXQ; i++) {
        mm_entry x = {.comm = 0, .src = (int32_t)(i % np), .tag = (int32_t)(i % 50),
                      .cookie = 1000000 + i};
        uintptr_t p;
        rc = flood_messages ? mm_arrive(e, &x, &p) : mm_post(e, &x, NULL, &p);
        if (rc != MM_QUEUED)
            break;
        q[n++] = x;
    }
    CHECK_EQ(rc, MM_ENOMEM);
    mm_stats st;
    mm_get_stats(e, &st);
    CHECK_EQ(flood_messages ? st.umq.length : st.prq.length, n);
    /* Every queued element is still taken by its partner, in order; with
     * wildcards, every other one by an ANY_SOURCE / ANY_TAG receive. */
    uint64_t ok = 0;
    for (uint64_t i = 0; i < n; i++) {
        mm_entry y = q[i];
        y.cookie = 2000000 + i;
        uintptr_t p = 0;
        if (flood_messages) {
            if (wild && i % 2)
                y.src = MM_ANY_SOURCE;
            if (wild && i % 4 == 1)
                y.tag = MM_ANY_TAG;
            if (i % 3 == 2) {
                uintptr_t f = 0;
                ok += mm_probe(e, y.comm, y.src, y.tag, &f) == MM_MATCHED && f == q[i].cookie;
                ok += mm_mprobe(e, y.comm, y.src, y.tag, &p) == MM_MATCHED && p == q[i].cookie;
                continue;
            }
            ok += 2 * (mm_post(e, &y, NULL, &p) == MM_MATCHED && p == q[i].cookie);
        } else {
            ok += 2 * (mm_arrive(e, &y, &p) == MM_MATCHED && p == q[i].cookie);
        }
    }
    CHECK_EQ(ok, 2 * n);
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.length + st.umq.length, 0);
    /* Drained: the freed elements serve new calls of the flooded side under
     * the same limit (with a key seen before: a new key may need a table
     * entry, which the limit refuses). */
    mm_entry z = q[0];
    uintptr_t p;
    CHECK_EQ(flood_messages ? mm_arrive(e, &z, &p) : mm_post(e, &z, NULL, &p), MM_QUEUED);
    printf("%-10s %s: %s flood of %" PRIu64 " under the limit, drained\n", name,
           wild ? "wild " : "exact", flood_messages ? "message" : "receive", n);
    mm_destroy(e);
}

/* Part 3: auto's switches and windows with no room to grow, scripted.
 *
 * A hinted auto with one bin leaves its list for hash; here the switch
 * finds no memory for the tables (list_to_hash, then move_sorted's
 * array or tables): it must stay a list, keep matching, and switch once
 * memory is back (the hash tables' probes show it). R = 600 receives: more
 * than the table made at creation (1024 slots, up to 256 elements) holds,
 * so the switch must allocate (since branch auto18k). */
static uint64_t switches(mm_engine *e)
{
    mm_stats st;
    mm_get_stats(e, &st);
    return st.overhead.events;
}

static int call(mm_engine *e, int recv, int32_t comm, int32_t src, int32_t tag, uintptr_t cookie,
                uintptr_t *got)
{
    mm_entry x = {.comm = comm, .src = src, .tag = tag, .cookie = cookie};
    *got = 0;
    return recv ? mm_post(e, &x, NULL, got) : mm_arrive(e, &x, got);
}

static void auto_switch_no_memory(void)
{
    const char *params[] = {"bins=1", "window=8", NULL};
    mm_engine *e;
    create(&e, "auto", params, 0, 4);
    uintptr_t got;
    int bad = 0;
    enum { R = 600, M = 12 };
    for (int i = 0; i < R; i++) /* the list: searches of an empty side */
        bad += call(e, 1, 0, i % 4, i, (uintptr_t)i + 1, &got) != MM_QUEUED;
    e->mem.limit = e->mem.bytes; /* no room: the messages' first slab is there */
    for (int i = 0; i < M; i++) /* each walks all R receives: a switch is due */
        bad += call(e, 0, 1, 0, 0, 1000 + (uintptr_t)i, &got) != MM_QUEUED;
    mm_stats st;
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.probes + st.umq.probes, 0); /* no table was built */
    CHECK_EQ(st.prq.traversed, (uint64_t)M * R); /* still a list */
    e->mem.limit = 0;
    for (int i = M; i < M + 3; i++)
        bad += call(e, 0, 1, 0, 0, 1000 + (uintptr_t)i, &got) != MM_QUEUED;
    for (int i = 0; i < R; i++) /* hash now: the receives in order */
        bad += call(e, 0, 0, i % 4, i, 1, &got) != MM_MATCHED || got != (uintptr_t)i + 1;
    for (int i = 0; i < M + 3; i++)
        bad += call(e, 1, 1, 0, 0, 1, &got) != MM_MATCHED || got != 1000 + (uintptr_t)i;
    mm_get_stats(e, &st);
    CHECK(st.prq.probes > 0); /* the switch was made, into hash */
    CHECK_EQ(st.prq.length + st.umq.length, 0);
    CHECK_EQ(bad, 0);
    mm_destroy(e);
}

/* auto's bins phase (its lean entries run a window's calls but the last)
 * with the receives' pool empty and no room to grow: posts that match a
 * queued message go through the API's slow path (search only, the generic
 * entries) at every position of the window, those that do not fail. The
 * window must still end (a countdown the slow path and the lean entries
 * share): once the queues are short, the engine goes back to the list,
 * which a search of a queue of one key shows (bins would look at one bin). */
static void auto_bins_window_no_memory(void)
{
    const char *params[] = {"window=4", "up=1", "down=2", NULL};
    mm_engine *e;
    create(&e, "auto", params, 1, 4);
    uintptr_t got;
    int bad = 0;
    enum { R = 300, M = 40 };
    for (int i = 0; i < M; i++) /* messages to take later */
        bad += call(e, 0, 3, 1, i, 5000 + (uintptr_t)i, &got) != MM_QUEUED;
    int n = 0;
    for (; n < R; n++) /* receives: each walks the M messages, and the list leaves */
        bad += call(e, 1, 0, n % 4, n, (uintptr_t)n + 1, &got) != MM_QUEUED;
    uint64_t sw = switches(e);
    CHECK(sw > 0);
    /* until the receives' pool is empty (a pool grows by a slab) */
    for (; e->recvs.free && n < 4 * R; n++)
        bad += call(e, 1, 0, n % 4, n, (uintptr_t)n + 1, &got) != MM_QUEUED;
    CHECK(e->recvs.free == NULL);
    e->mem.limit = e->mem.bytes;
    int taken = 0, failed = 0;
    for (int i = 0; i < 3 * 4; i++) { /* three windows, every position twice */
        if (i % 3 == 2) {
            failed += call(e, 1, 7, 0, i, 1, &got) == MM_ENOMEM && got == 0;
        } else {
            int rc = call(e, 1, 3, 1, taken, 1, &got);
            bad += rc != MM_MATCHED || got != 5000 + (uintptr_t)taken;
            taken++;
        }
    }
    CHECK_EQ(failed, 4);
    e->mem.limit = 0;
    for (int i = 0; i < n; i++) /* drain: the receives, in order */
        bad += call(e, 0, 0, i % 4, i, 1, &got) != MM_MATCHED || got != (uintptr_t)i + 1;
    for (int i = taken; i < M; i++)
        bad += call(e, 1, 3, 1, i, 1, &got) != MM_MATCHED || got != 5000 + (uintptr_t)i;
    /* short queues for a few windows: back to the list */
    for (int i = 0; i < 16; i++) {
        bad += call(e, 1, 5, 0, i, 1, &got) != MM_QUEUED;
        bad += call(e, 0, 5, 0, i, 1, &got) != MM_MATCHED;
    }
    CHECK(switches(e) > sw);
    /* a list: a receive no message matches walks all of one key's queue
     * (with fewer than `down` elements per window no switch comes of it) */
    for (int i = 0; i < 2; i++)
        bad += call(e, 0, 6, 0, 1, 9000 + (uintptr_t)i, &got) != MM_QUEUED;
    mm_stats st0, st;
    mm_get_stats(e, &st0);
    bad += call(e, 1, 6, 0, 2, 1, &got) != MM_QUEUED;
    mm_get_stats(e, &st);
    uint64_t walked = st.umq.traversed - st0.umq.traversed;
    CHECK_EQ(walked, 2);
    CHECK_EQ(bad, 0);
    printf("auto       bins window with no room to grow: %d posts matched, %d failed, %s\n",
           taken, failed, walked == 2 ? "back to the list" : "NOT back to the list");
    mm_destroy(e);
}

/* auto's nm phase on its own entries (auto18g): a receive whose filing
 * needs a table that cannot grow fails after its search, which counted the
 * slots it inspected; the call must leave every statistic as it was (the
 * entries save and restore the searched side's counters: may_fail). */
static void auto_nm_failed_call(void)
{
    const char *params[] = {"bins=1", "nm=1", "up=1", "window=8", NULL};
    mm_engine *e;
    create(&e, "auto", params, 1, 4);
    uintptr_t got;
    int bad = 0;
    enum { R = 50 };
    for (int i = 0; i < R; i++)
        bad += call(e, 1, 0, i % 4, i, (uintptr_t)i + 1, &got) != MM_QUEUED;
    for (int i = 0; i < 3; i++) /* deep searches: into nm (one bin: bins would search deep) */
        bad += call(e, 0, 1, 0, 0, 1000 + (uintptr_t)i, &got) != MM_QUEUED;
    mm_stats st0, st;
    mm_get_stats(e, &st0);
    CHECK(st0.prq.probes > 0 && st0.umq.probes > 0); /* nm's tables */
    (void)mm_pool_grow(&e->recvs); /* elements enough: the tables fail first */
    (void)mm_pool_grow(&e->recvs);
    e->mem.limit = e->mem.bytes;
    int failed = 0, i = 0;
    for (; i < 1000 && !failed && e->recvs.free; i++) {
        mm_get_stats(e, &st0);
        int rc = call(e, 1, 2, 1, 100 + i, 1, &got);
        if (rc == MM_ENOMEM) {
            failed = 1;
            mm_get_stats(e, &st);
            bad += !same_side(&st.prq, &st0.prq, 1) || !same_side(&st.umq, &st0.umq, 1) ||
                   st.umq.probes != st0.umq.probes || st.umq.max_probes != st0.umq.max_probes ||
                   st.prq.probes != st0.prq.probes;
        } else {
            bad += rc != MM_QUEUED;
        }
    }
    CHECK_EQ(failed, 1);
    e->mem.limit = 0;
    for (int j = 0; j < i - 1; j++)
        bad += call(e, 0, 2, 1, 100 + j, 1, &got) != MM_MATCHED;
    for (int j = 0; j < R; j++)
        bad += call(e, 0, 0, j % 4, j, 1, &got) != MM_MATCHED || got != (uintptr_t)j + 1;
    for (int j = 0; j < 3; j++)
        bad += call(e, 1, 1, 0, 0, 1, &got) != MM_MATCHED || got != 1000 + (uintptr_t)j;
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.length + st.umq.length, 0);
    CHECK_EQ(bad, 0);
    mm_destroy(e);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 0x9E3779B97F4A7C15ull;
    if (!n || n > MAXID || !rng) {
        fprintf(stderr, "usage: test_enomem [events-per-config (<= %d) [nonzero seed]]\n", MAXID);
        return 2;
    }
    printf("seed %" PRIu64 "\n", rng);
    for (int wild = 0; wild < 2; wild++) {
        for (size_t i = 0; i < mm_engine_count(); i++)
            run_pair(mm_engine_at(i)->name, NULL, wild, n);
        for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
            run_pair(variants[i].engine, variants[i].params, wild, n);
    }
    for (size_t i = 0; i < mm_engine_count(); i++)
        for (int wild = 0; wild < 2; wild++)
            for (int msgs = 0; msgs < 2; msgs++)
                drain_under_limit(mm_engine_at(i)->name, wild, msgs);
    auto_switch_no_memory();
    auto_bins_window_no_memory();
    auto_nm_failed_call();
    return check_report("test_enomem");
}
