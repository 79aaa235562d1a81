/* White-box tests of the `adaptive`, `auto` and `simd` engines: adaptive
 * switches to bins and back at the points its parameters say, and keeps MPI
 * order across the switch; auto leaves the list for hash, bins and nm where
 * its rule says, and not on head matches; simd's scanners agree with each other on every ISA the machine
 * has, its arrays stay bounded under churn and cancels, and it keeps 12
 * bytes of key per element. (The semantic rules and the long random
 * differential run are in test_semantics.c and test_differential.c, which
 * cover these engines too.) */
#include <string.h>
#include "check.h"
#include "mpimatch.h"
#include "engines/simd_scan.h"
#include "core/khash.h"
#include "engine.h" /* the allocation-failure hooks of core/mem.h */

static mm_engine *make(const char *name, int32_t np, const char *const *params, size_t n)
{
    mm_config cfg = {.nprocs = np, .params = params, .nparams = n};
    mm_engine *e = NULL;
    char err[256];
    int rc = mm_create(&e, name, &cfg, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", name, err);
    CHECK_EQ(rc, 0);
    return e;
}

static uintptr_t got;

static int post(mm_engine *e, int32_t c, int32_t s, int32_t t, uintptr_t id, mm_handle *h)
{
    mm_entry x = {.comm = c, .src = s, .tag = t, .cookie = id};
    got = 0;
    return mm_post(e, &x, h, &got);
}

static int arrive(mm_engine *e, int32_t c, int32_t s, int32_t t, uintptr_t id)
{
    mm_entry x = {.comm = c, .src = s, .tag = t, .cookie = id};
    got = 0;
    return mm_arrive(e, &x, &got);
}

static mm_stats stats(mm_engine *e)
{
    mm_stats st;
    mm_get_stats(e, &st);
    return st;
}

/* ---- adaptive ---- */

enum { FILL = 40, NBINS = 8 };

/* Queue receives of every pattern and three messages while adaptive is a
 * list, then search deep until it switches: two searches of 43 elements lift
 * the running average (x16) to 84 > threshold 4 x16, so the switch happens
 * at the start of the third search. */
static mm_engine *adaptive_loaded(const char *low, mm_handle *fill)
{
    const char *p[] = {"threshold=4", "bins=8", low};
    mm_engine *e = make("adaptive", 4, p, 3);
    CHECK_EQ(post(e, 0, MM_ANY_SOURCE, 5, 1, NULL), MM_QUEUED);
    CHECK_EQ(post(e, 0, 1, 5, 2, NULL), MM_QUEUED);
    CHECK_EQ(post(e, 0, 1, MM_ANY_TAG, 3, NULL), MM_QUEUED);
    CHECK_EQ(post(e, 0, 1, MM_ANY_TAG, 4, NULL), MM_QUEUED);
    for (int i = 0; i < FILL; i++)
        CHECK_EQ(post(e, 0, 2, 100 + i, (uintptr_t)(10 + i), &fill[i]), MM_QUEUED);
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.queues, 1);
    CHECK_EQ(st.umq.queues, 1);
    CHECK_EQ(st.overhead.events, 0);
    CHECK_EQ(arrive(e, 0, 3, 7, 60), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 3, 7, 61), MM_QUEUED);
    st = stats(e);
    CHECK_EQ(st.prq.queues, 1);  /* still a list */
    CHECK_EQ(st.prq.traversed, 2 * (FILL + 4));
    CHECK_EQ(arrive(e, 0, 3, -2, 62), MM_QUEUED);
    st = stats(e);
    CHECK_EQ(st.prq.queues, 1 + NBINS + 1);  /* prq_all, bins, wildcard list */
    CHECK_EQ(st.umq.queues, 1 + NBINS);      /* umq_all, bins */
    CHECK_EQ(st.overhead.events, 2);         /* allocation, then the move */
    return e;
}

/* Everything queued before the switch is found in the same order after it. */
static void adaptive_switch_keeps_order(void)
{
    mm_handle fill[FILL];
    mm_engine *e = adaptive_loaded("low=-1", fill);
    /* receives: earliest posted wins across the wildcard list and the bins */
    CHECK_EQ(arrive(e, 0, 1, 5, 70), MM_MATCHED);
    CHECK_EQ(got, 1);                                   /* ANY_SOURCE, posted first */
    CHECK_EQ(arrive(e, 0, 1, 5, 71), MM_MATCHED);
    CHECK_EQ(got, 2);
    CHECK_EQ(arrive(e, 0, 1, 5, 72), MM_MATCHED);
    CHECK_EQ(got, 3);                                   /* ANY_TAG */
    CHECK_EQ(arrive(e, 0, 1, -1, 73), MM_QUEUED);       /* ANY_TAG refuses tag -1 */
    CHECK_EQ(arrive(e, 0, 1, 9, 74), MM_MATCHED);
    CHECK_EQ(got, 4);
    /* a receive queued before the switch cancels after it */
    CHECK_EQ(mm_cancel(e, fill[20]), MM_MATCHED);
    CHECK_EQ(arrive(e, 0, 2, 120, 75), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 2, 121, 76), MM_MATCHED);
    CHECK_EQ(got, 31);
    /* messages: earliest arrived wins, in a bin and in the arrival list */
    CHECK_EQ(post(e, 0, 3, 7, 80, NULL), MM_MATCHED);
    CHECK_EQ(got, 60);
    CHECK_EQ(post(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, 81, NULL), MM_MATCHED);
    CHECK_EQ(got, 61);                                  /* not 62: tag -2 */
    CHECK_EQ(mm_probe(e, 0, 3, -2, &got), MM_MATCHED);
    CHECK_EQ(got, 62);
    CHECK_EQ(mm_mprobe(e, 0, MM_ANY_SOURCE, -2, &got), MM_MATCHED);
    CHECK_EQ(got, 62);
    CHECK_EQ(mm_probe(e, 0, 3, -2, &got), MM_NOTFOUND);
    CHECK_EQ(post(e, 0, 1, -1, 82, NULL), MM_MATCHED);
    CHECK_EQ(got, 73);
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.queues, 1 + NBINS + 1);             /* low=-1: never back */
    CHECK_EQ(st.overhead.events, 2);
    CHECK_EQ(st.prq.length, FILL - 2);
    mm_destroy(e);
}

/* With low=0 it returns to the lists once both queues are empty, frees the
 * bins, and matches as before; then it can switch again. */
static void adaptive_switches_back(void)
{
    mm_handle fill[FILL];
    mm_engine *e = adaptive_loaded("low=0", fill);
    mm_stats before = stats(e);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(arrive(e, 0, 1, 5, (uintptr_t)(70 + i)), MM_MATCHED);
    for (int i = 0; i < FILL; i++)
        CHECK_EQ(arrive(e, 0, 2, 100 + i, (uintptr_t)(200 + i)), MM_MATCHED);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(post(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, (uintptr_t)(300 + i), NULL),
                 i < 2 ? MM_MATCHED : MM_QUEUED);   /* 60 and 61; 62 has tag -2 */
    CHECK_EQ(mm_mprobe(e, 0, 3, -2, &got), MM_MATCHED);
    CHECK_EQ(arrive(e, 0, 0, 0, 400), MM_MATCHED);   /* the last receive; now empty */
    CHECK_EQ(got, 302);
    CHECK_EQ(stats(e).prq.queues, 1 + NBINS + 1);
    CHECK_EQ(arrive(e, 0, 0, 0, 401), MM_QUEUED);    /* switches back first */
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.queues, 1);
    CHECK_EQ(st.umq.queues, 1);
    CHECK_EQ(st.overhead.events, 3);
    CHECK(before.prq.bytes > 0);
    CHECK_EQ(st.prq.bytes, 0); /* the bins are freed, and no receive is queued */
    CHECK_EQ(post(e, 0, 0, 0, 402, NULL), MM_MATCHED);
    CHECK_EQ(got, 401);
    mm_destroy(e);
}

/* Out-of-range parameters are refused with the allowed range. */
static void adaptive_params_checked(void)
{
    static const char *const bad[][2] = {
        {"threshold=0", "from 1 to 1048576"}, {"bins=0", "from 1 to 1048576"},
        {"low=-2", "from -1 to 1048576"}, {"threshold=1048577", "from 1 to 1048576"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mm_config cfg = {.nprocs = 4, .params = &bad[i][0], .nparams = 1};
        mm_engine *e = NULL;
        char err[256];
        CHECK_EQ(mm_create(&e, "adaptive", &cfg, err, sizeof err), MM_EPARAM);
        CHECK(e == NULL && strstr(err, bad[i][1]) != NULL);
    }
}

/* ---- auto ---- */

static uint32_t rnd(uint32_t n); /* a seeded generator (simd's section) */

static mm_engine *make_auto(uint32_t hints)
{
    const char *p[] = {"seed=3"};
    mm_config cfg = {.nprocs = 8, .hints = hints, .params = p, .nparams = 1};
    mm_engine *e = NULL;
    char err[256];
    CHECK_EQ(mm_create(&e, "auto", &cfg, err, sizeof err), 0);
    return e;
}

/* With both hints: receives tags 0..N-1, messages in reverse order (each
 * search walks the whole PRQ as a list) -> hash (a queue per live key: N
 * per 256 bins is more than up = 6 per bin); then short queues (a
 * ping-pong) -> back to the list. */
static void auto_hash_and_back(void)
{
    enum { N = 4096 };
    mm_engine *e = make_auto(MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG);
    for (int t = 0; t < N; t++)
        CHECK_EQ(post(e, 0, 1, t, 1000 + (uintptr_t)t, NULL), MM_QUEUED);
    CHECK_EQ(stats(e).prq.queues, 1u);
    CHECK_EQ(stats(e).overhead.events, 0u);
    for (int t = N - 1; t >= N / 2; t--) {
        CHECK_EQ(arrive(e, 0, 1, t, 1), MM_MATCHED);
        CHECK_EQ(got, 1000 + (uintptr_t)t);
    }
    mm_stats st = stats(e);
    CHECK_EQ(st.overhead.events, 2u);            /* one switch */
    CHECK_EQ(st.prq.queues, (uint64_t)N / 2);    /* hash: a FIFO per live key */
    CHECK(st.prq.max_depth >= N / 2 && st.prq.max_depth <= N);
    for (int t = N / 2 - 1; t >= 0; t--) {
        CHECK_EQ(arrive(e, 0, 1, t, 1), MM_MATCHED);
        CHECK_EQ(got, 1000 + (uintptr_t)t);
    }
    for (int i = 0; i < 200; i++) {
        CHECK_EQ(post(e, 0, 1, 7, 1, NULL), MM_QUEUED);
        CHECK_EQ(arrive(e, 0, 1, 7, 2), MM_MATCHED);
    }
    st = stats(e);
    CHECK_EQ(st.overhead.events, 4u);            /* and back */
    CHECK_EQ(st.prq.queues, 1u);
    CHECK_EQ(st.umq.queues, 1u);
    mm_destroy(e);
}

/* With both hints and few queued (N = 128 receives): hash, not bins (the
 * rule from branch auto18i to auto18k took bins up to `bins` / 2 = 128
 * queued); no bins tables from creation (the rule never takes bins with
 * both hints), but the hash phase's first table; then a longer
 * queue grows the table as `hash`'s own (no switch), and every match is
 * the earliest, across the switch and the growth. */
static void auto_hinted_small_hash(void)
{
    enum { N = 128, M = 8192, A = 600 };
    mm_engine *e = make_auto(MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG);
    /* no warm bins table (256 x 24 bytes); the first hash table (1024 x 12
     * bytes, half charged to each side) from creation, as `hash`'s own */
    CHECK_EQ(stats(e).prq.bytes, (1024 * 12 + 64) / 2);
    for (int t = 0; t < N; t++)
        CHECK_EQ(post(e, 0, 1, t, 1000 + (uintptr_t)t, NULL), MM_QUEUED);
    for (int t = N - 1; t >= N / 2; t--) {
        CHECK_EQ(arrive(e, 0, 1, t, 1), MM_MATCHED);
        CHECK_EQ(got, 1000 + (uintptr_t)t);
    }
    mm_stats st = stats(e);
    CHECK_EQ(st.overhead.events, 2u);            /* one switch */
    CHECK_EQ(st.prq.queues, (uint64_t)N / 2);    /* hash: a FIFO per live key */
    for (int t = N; t < N + M; t++)              /* posts search the empty UMQ: D = 0 */
        CHECK_EQ(post(e, 0, 1, t, 1000 + (uintptr_t)t, NULL), MM_QUEUED);
    st = stats(e);
    CHECK_EQ(st.overhead.events, 2u);            /* no switch: the table grew */
    CHECK_EQ(st.prq.queues, (uint64_t)(N / 2 + M)); /* a FIFO per live key */
    for (int i = 0; i < A; i++) {
        int t = N + M - 1 - i;
        CHECK_EQ(arrive(e, 0, 1, t, 1), MM_MATCHED);
        CHECK_EQ(got, 1000 + (uintptr_t)t);
    }
    for (int t = N / 2 - 1; t >= 0; t--) {       /* the earliest, across the switch */
        CHECK_EQ(arrive(e, 0, 1, t, 1), MM_MATCHED);
        CHECK_EQ(got, 1000 + (uintptr_t)t);
    }
    CHECK_EQ(stats(e).overhead.events, 2u);
    mm_destroy(e);
}

/* With both hints, keys that all fall in one of bins' 256 bins (crafted
 * against make_auto's fixed seed, seed=3), K = 100 queued: the list leaves
 * for hash, whose seeded table spreads them (until branch auto18k: bins,
 * where every search walked that bin like a list, then hash after 4
 * windows). Rounds of K receives matched in reverse order; every match the
 * earliest, a few slots per call. */
static void auto_hinted_bins_collide_hash(void)
{
    enum { K = 100, ROUNDS = 4 };
    const uint64_t seed = mm_seed_pick(3); /* bins hashes with auto's seed */
    int32_t tags[K];
    int n = 0;
    for (int32_t t = 0; n < K; t++) {
        mm_key k = {0, 1, t};
        if ((((uint64_t)mm_khash(&k, seed) * 256) >> 32) == 0)
            tags[n++] = t;
    }
    mm_engine *e = make_auto(MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG);
    uint64_t p0 = 0, c0 = 0;
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < K; i++)
            CHECK_EQ(post(e, 0, 1, tags[i], 100 + (uintptr_t)i, NULL), MM_QUEUED);
        for (int i = K - 1; i >= 0; i--) {
            CHECK_EQ(arrive(e, 0, 1, tags[i], 1), MM_MATCHED);
            CHECK_EQ(got, 100 + (uintptr_t)i);
        }
        mm_stats st = stats(e);
        if (round == 0) {
            CHECK_EQ(st.overhead.events, 2u);         /* list -> hash */
            p0 = st.prq.probes + st.umq.probes;
            c0 = st.prq.searches + st.umq.searches;
        }
    }
    mm_stats st = stats(e);
    CHECK_EQ(st.overhead.events, 2u);                 /* and it stays */
    double per_call = (double)(st.prq.probes + st.umq.probes - p0) /
                      (double)(st.prq.searches + st.umq.searches - c0);
    CHECK(per_call < 3.0);                            /* spread: not a bin's list */
    mm_destroy(e);
}

/* With both hints, the default suite's shuffle n=256 (receives tags
 * 0..255, messages in random order): leaving the list with 256 receives
 * queued (more than one per other bin of the 256) takes hash at once, a
 * FIFO per live key, not bins (the rule before, which kept bins up to 6
 * per bin, 1536 receives). Two rounds, each match the earliest. */
static void auto_hinted_shuffle_hash(void)
{
    enum { N = 256 };
    mm_engine *e = make_auto(MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG);
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = i;
    for (int round = 0; round < 2; round++) {
        for (int t = 0; t < N; t++)
            CHECK_EQ(post(e, 0, 1, t, 100 + (uintptr_t)t, NULL), MM_QUEUED);
        for (int i = N - 1; i > 0; i--) {
            int j = (int)rnd((uint32_t)i + 1), x = order[i];
            order[i] = order[j], order[j] = x;
        }
        for (int i = 0; i < N; i++) {
            CHECK_EQ(arrive(e, 0, 1, order[i], 1), MM_MATCHED);
            CHECK_EQ(got, 100 + (uintptr_t)order[i]);
            if (round == 0 && i == N / 2) {
                mm_stats st = stats(e);
                CHECK_EQ(st.overhead.events, 2u); /* one switch */
                CHECK_EQ(st.prq.queues, (uint64_t)(N - N / 2 - 1)); /* hash: live keys */
            }
        }
    }
    CHECK_EQ(stats(e).overhead.events, 2u);      /* and it stays */
    mm_destroy(e);
}

/* Every match at the head of a long queue: the list stays. */
static void auto_stays_list_on_head_matches(void)
{
    enum { N = 4096 };
    mm_engine *e = make_auto(MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            CHECK_EQ(post(e, 0, 1, round == 1 ? i : 0, 1, NULL), MM_QUEUED);
        for (int i = 0; i < N; i++)
            CHECK_EQ(arrive(e, 0, 1, round == 1 ? i : 0, 2), MM_MATCHED);
    }
    mm_stats st = stats(e);
    CHECK_EQ(st.overhead.events, 0u);
    CHECK_EQ(st.prq.queues, 1u);
    mm_destroy(e);
}

/* A shuffled round of receives (ANY_SOURCE ones when wild, else from
 * source 3), K distinct tags, matched in random order. */
static void auto_round(mm_engine *e, int K, int wild, int *order)
{
    for (int t = 0; t < K; t++)
        CHECK_EQ(post(e, 0, wild ? MM_ANY_SOURCE : 3, t, 100 + (uintptr_t)t, NULL), MM_QUEUED);
    for (int i = K - 1; i > 0; i--) {
        int j = (int)rnd((uint32_t)i + 1), x = order[i];
        order[i] = order[j], order[j] = x;
    }
    for (int i = 0; i < K; i++) {
        CHECK_EQ(arrive(e, 0, wild ? (int32_t)rnd(8) : 3, order[i], 1), MM_MATCHED);
        CHECK_EQ(got, 100 + (uintptr_t)order[i]);
    }
}

/* Without hints, ROUNDS shuffled rounds of K receives (auto_round), the
 * first `specific` of them from one source, the others ANY_SOURCE; `first`
 * switch events after round `specific` (the first wildcard round, or the
 * first round when specific = 0); at the end nm holds one (*,tag) FIFO per
 * queued receive, after `events` switch events in all; every match the
 * earliest. */
static void auto_wild_rounds(int K, int rounds, int specific, uint64_t first, uint64_t events)
{
    mm_engine *e = make_auto(0);
    int order[256];
    CHECK(K <= 256);
    for (int i = 0; i < K; i++)
        order[i] = i;
    for (int round = 0; round < rounds; round++) {
        auto_round(e, K, round >= specific, order);
        if (round == (specific ? specific - 1 : 0))
            CHECK_EQ(stats(e).overhead.events, first);
    }
    for (int t = 0; t < K; t++)
        CHECK_EQ(post(e, 0, MM_ANY_SOURCE, t, 100 + (uintptr_t)t, NULL), MM_QUEUED);
    CHECK_EQ(stats(e).prq.queues, (uint64_t)K); /* nm: (*,tag) FIFOs */
    CHECK_EQ(stats(e).overhead.events, events);
    mm_destroy(e);
}

/* K = 128 ANY_SOURCE receives a round: leaving the list, the queued
 * wildcard receives (bins would walk them all, its wildcard list) call for
 * nm at once (list -> nm, not through bins), and it stays. */
static void auto_nm_for_wildcards(void)
{
    auto_wild_rounds(128, 12, 0, 2, 2);
}

/* Two rounds of specific receives first (list -> bins: a key per bin),
 * then K = 256 ANY_SOURCE receives a round: bins' wildcard list grows as
 * deep as a list (K^2/4 elements a round, more than nm = 24 per call over
 * HOLD windows), and bins -> nm, where it stays. */
static void auto_bins_then_nm(void)
{
    auto_wild_rounds(256, 8, 2, 2, 4);
}

static void auto_params_checked(void)
{
    const char *bad[] = {"window=0"};
    mm_config cfg = {.nprocs = 2, .params = bad, .nparams = 1};
    mm_engine *e = NULL;
    char err[256];
    CHECK_EQ(mm_create(&e, "auto", &cfg, err, sizeof err), MM_EPARAM);
    CHECK(e == NULL);
}

/* ---- simd ---- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* Every scanner the CPU has against the scalar one, on random arrays with
 * holes, wildcard receive keys and negative tags, from every start offset
 * within a block and every end. */
static void simd_scanners_agree(void)
{
    enum { CAP = 8 * MM_SIMD_BLOCK };
    static int32_t comm[CAP], src[CAP], tag[CAP];
    mm_simd_scan_fn scalar, vec;
    int chosen;
    char err[256];
    CHECK_EQ(mm_simd_scan_select(MM_ISA_SCALAR, &scalar, &chosen, err, sizeof err), 0);
    for (int isa = MM_ISA_AVX2; isa <= MM_ISA_AVX512; isa++) {
        int rc = mm_simd_scan_select(isa, &vec, &chosen, err, sizeof err);
        CHECK_EQ(rc, mm_simd_isa_available(isa) ? 0 : MM_EPARAM);
        if (rc != 0)
            continue;
        CHECK_EQ(chosen, isa);
        uint64_t hits = 0, compared = 0;
        for (int round = 0; round < 300; round++) {
            for (uint32_t i = 0; i < CAP; i++) {
                int is_recv = round & 1;
                comm[i] = rnd(4) == 0 ? -1 : (int32_t)rnd(2);
                src[i] = is_recv && rnd(3) == 0 ? MM_ANY_SOURCE : (int32_t)rnd(3);
                /* later rounds: sparse candidates, so that the scanners'
                 * unrolled loops run through whole blocks without a hit */
                tag[i] = is_recv && rnd(3) == 0 ? MM_ANY_TAG
                       : round >= 150 ? (int32_t)rnd(300) - 2 : (int32_t)rnd(5) - 2;
            }
            mm_key k = {(int32_t)rnd(2), (int32_t)rnd(3), (int32_t)rnd(5) - 2};
            if (round & 2)
                k.src = MM_ANY_SOURCE;
            if (round & 4)
                k.tag = MM_ANY_TAG;
            /* odd rounds: queued receives, searched by a message key */
            if (round & 1)
                k.src = k.src < 0 ? 1 : k.src, k.tag = k.tag == MM_ANY_TAG ? -1 : k.tag;
            mm_simd_pat p = round & 1 ? mm_simd_pat_msg(&k) : mm_simd_pat_recv(&k);
            uint32_t end = CAP - rnd(2 * MM_SIMD_BLOCK);
            for (uint32_t from = 0; from < 2 * MM_SIMD_BLOCK; from++) {
                uint32_t want = scalar(comm, src, tag, from, end, &p);
                uint32_t have = vec(comm, src, tag, from, end, &p);
                CHECK_EQ(have, want);
                /* the tag-first scanners (specific tags): the first slot
                 * whose tag alone fits */
                if (p.tag_mask == -1) {
                    uint32_t tw = MM_SIMD_NONE;
                    for (uint32_t i = from; i < end && tw == MM_SIMD_NONE; i++)
                        if (tag[i] == p.tag || tag[i] == p.tag_alt)
                            tw = i;
                    CHECK_EQ(mm_simd_tagscan_for(MM_ISA_SCALAR)(tag, from, end, &p), tw);
                    CHECK_EQ(mm_simd_tagscan_for(isa)(tag, from, end, &p), tw);
                    if (tw != MM_SIMD_NONE && want != MM_SIMD_NONE)
                        CHECK(tw <= want); /* a match is a candidate */
                }
                hits += want != MM_SIMD_NONE;
                compared++;
                if (want != MM_SIMD_NONE) {  /* the scalar answer is the MPI rule */
                    mm_key slot = {comm[want], src[want], tag[want]};
                    CHECK(round & 1 ? mm_match(&slot, &k) : mm_match(&k, &slot));
                }
            }
        }
        CHECK(hits > compared / 4 && hits < compared);  /* both outcomes exercised */
    }
}

/* Each ISA the CPU has (an engine per ISA, and list) runs one random stream in
 * lockstep: same statuses, same partners. An ISA the CPU lacks is refused. */
/* One random call on every engine of e[0..ne): a post (op < posts), an
 * arrival (op < arrivals), a probe, an mprobe (op < mprobes), or a cancel
 * of receive `victim`; h[k] holds engine k's handles, by id. 1 when an
 * engine's status or partner differs from e[0]'s. */
typedef struct rnd_call {
    uint32_t id, op, victim;
    int32_t c, s, t, ws, wt;
} rnd_call;

static int differ(mm_engine *const *e, int ne, mm_handle *const *h, const rnd_call *r,
                  uint32_t posts, uint32_t arrivals, uint32_t probes, uint32_t mprobes)
{
    int rc0 = 0, bad = 0;
    uintptr_t got0 = 0;
    for (int k = 0; k < ne; k++) {
        mm_entry x = {.comm = r->c, .src = r->ws, .tag = r->wt, .cookie = r->id};
        uintptr_t g = 0;
        int rc;
        if (r->op < posts) {
            rc = mm_post(e[k], &x, &h[k][r->id], &g);
        } else if (r->op < arrivals) {
            x.src = r->s, x.tag = r->t;
            rc = mm_arrive(e[k], &x, &g);
        } else if (r->op < probes) {
            rc = mm_probe(e[k], r->c, r->ws, r->wt, &g);
        } else if (r->op < mprobes) {
            rc = mm_mprobe(e[k], r->c, r->ws, r->wt, &g);
        } else {
            rc = h[k][r->victim].elem ? mm_cancel(e[k], h[k][r->victim]) : MM_NOTFOUND;
        }
        if (k == 0)
            rc0 = rc, got0 = g;
        else if (rc != rc0 || g != got0)
            bad = 1;
    }
    return bad;
}

static void simd_isas_agree_with_list(void)
{
    enum { NE = 4, EVENTS = 60000 };
    static const char *const isa_param[NE] = {NULL, "isa=1", "isa=2", "isa=3"};
    mm_engine *e[NE];
    int ne = 0;
    e[ne++] = make("list", 6, NULL, 0);
    for (int isa = MM_ISA_SCALAR; isa <= MM_ISA_AVX512; isa++) {
        mm_config cfg = {.nprocs = 6, .params = &isa_param[isa], .nparams = 1};
        char err[256];
        mm_engine *x = NULL;
        int rc = mm_create(&x, "simd", &cfg, err, sizeof err);
        if (mm_simd_isa_available(isa)) {
            CHECK_EQ(rc, 0);
            e[ne++] = x;
        } else {
            CHECK_EQ(rc, MM_EPARAM);
            CHECK(strstr(err, mm_simd_isa_name(isa)) != NULL);
        }
    }
    static mm_handle h[NE][EVENTS];
    mm_handle *hk[NE] = {h[0], h[1], h[2], h[3]};
    uint64_t disagree = 0;
    for (uint32_t id = 1; id < EVENTS; id++) {
        int32_t c = (int32_t)rnd(2), s = (int32_t)rnd(6), t = (int32_t)rnd(12) - 3;
        uint32_t op = rnd(100);
        int32_t ws = rnd(5) == 0 ? MM_ANY_SOURCE : s, wt = rnd(5) == 0 ? MM_ANY_TAG : t;
        uint32_t back = id - 1 < 1000 ? id - 1 : 1000;  /* cancel a recent receive */
        uint32_t victim = back ? id - 1 - rnd(back) : 0;
        rnd_call r = {id, op, victim, c, s, t, ws, wt};
        disagree += (uint64_t)differ(e, ne, hk, &r, 45, 88, 92, 95);
    }
    CHECK_EQ(disagree, 0);
    mm_stats st;
    mm_get_stats(e[0], &st);
    CHECK(st.prq.max_length > 100 && st.umq.max_length > 100 && st.cancels > 100);
    for (int k = 0; k < ne; k++)
        mm_destroy(e[k]);
}

/* An append writes only the slot's element; the next scan writes the keys
 * of the slots appended since the last one (simd.c, q_keys). Holes made
 * before that (a cancel in the middle, a cancel of the last slot, which
 * trims the end below the written keys) and a head that has moved past the
 * written keys must not show as keys, under every ISA the CPU has. */
static void simd_keys_written_by_the_scan(void)
{
    static const char *const isa_param[] = {"isa=1", "isa=2", "isa=3"};
    for (int isa = MM_ISA_SCALAR; isa <= MM_ISA_AVX512; isa++) {
        if (!mm_simd_isa_available(isa))
            continue;
        mm_engine *e = make("simd", 4, &isa_param[isa - MM_ISA_SCALAR], 1);
        static mm_handle h[200];
        for (uint32_t i = 0; i < 100; i++)  /* tags 0..99, no key written yet */
            CHECK_EQ(post(e, 0, 1, (int32_t)i, i, &h[i]), MM_QUEUED);
        CHECK_EQ(mm_cancel(e, h[99]), MM_MATCHED);  /* the end moves back */
        CHECK_EQ(mm_cancel(e, h[50]), MM_MATCHED);  /* a hole without a key */
        CHECK_EQ(arrive(e, 0, 1, 98, 1000), MM_MATCHED);  /* a scan: keys 0..98 */
        CHECK_EQ(got, 98);
        for (uint32_t i = 100; i < 110; i++)  /* slots 98.. again, past the keys */
            CHECK_EQ(post(e, 0, 1, (int32_t)i, i, &h[i]), MM_QUEUED);
        CHECK_EQ(arrive(e, 0, 1, 99, 1001), MM_QUEUED);   /* cancelled, not a key */
        CHECK_EQ(arrive(e, 0, 1, 50, 1002), MM_QUEUED);
        for (uint32_t i = 0; i < 60; i++)  /* the head passes holes and keys */
            if (i != 50) {
                CHECK_EQ(arrive(e, 0, 1, (int32_t)i, 2000 + i), MM_MATCHED);
                CHECK_EQ(got, i);
            }
        CHECK_EQ(arrive(e, 0, 1, 100, 1006), MM_MATCHED);  /* slot 98, a new key */
        CHECK_EQ(got, 100);
        CHECK_EQ(arrive(e, 0, 1, 105, 1003), MM_MATCHED);  /* a scan past the keys */
        CHECK_EQ(got, 105);
        CHECK_EQ(mm_cancel(e, h[109]), MM_MATCHED);
        CHECK_EQ(arrive(e, 0, 1, 109, 1004), MM_QUEUED);
        CHECK_EQ(post(e, 0, 1, 7, 110, &h[110]), MM_QUEUED);  /* tag 7 again, last */
        CHECK_EQ(arrive(e, 0, 1, 7, 1005), MM_MATCHED);
        CHECK_EQ(got, 110);
        mm_stats st = stats(e);
        CHECK_EQ(st.prq.length, 38 + 7);  /* 60..97, and 101..108 but 105 */
        CHECK_EQ(st.umq.length, 3);       /* tags 99, 50, 109 */
        mm_destroy(e);
    }
}

/* Cancels in random order leave holes; compaction keeps the array near the
 * live count, and the survivors still match in posting order. */
static void simd_compaction_under_cancels(void)
{
    enum { LIVE = 100, CHURN = 20000 };
    const char *p[] = {"isa=0"};
    mm_engine *e = make("simd", 4, p, 1);
    static mm_handle h[LIVE + CHURN];
    static uint32_t live[LIVE];
    for (uint32_t i = 0; i < LIVE; i++) {
        CHECK_EQ(post(e, 0, 1, (int32_t)i, i, &h[i]), MM_QUEUED);
        live[i] = i;
    }
    for (uint32_t i = LIVE; i < LIVE + CHURN; i++) {  /* one in, a random one out */
        CHECK_EQ(post(e, 0, 1, (int32_t)(i % 7), i, &h[i]), MM_QUEUED);
        uint32_t j = rnd(LIVE);
        CHECK_EQ(mm_cancel(e, h[live[j]]), MM_MATCHED);
        CHECK_EQ(mm_cancel(e, h[live[j]]), MM_NOTFOUND);
        live[j] = i;
    }
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.length, LIVE);
    CHECK_EQ(st.cancels, CHURN);
    CHECK(st.overhead.events > 10);  /* compactions and the growths before them */
    /* the array never grew past 4x the live count (20 bytes a slot) */
    CHECK(st.prq.peak_bytes <= (LIVE + 1) * 48 + 4 * LIVE * 20);
    /* survivors of each tag match in posting order */
    uint32_t sorted[LIVE];
    memcpy(sorted, live, sizeof sorted);
    for (uint32_t a = 1; a < LIVE; a++)  /* insertion sort: posting order */
        for (uint32_t b = a; b > 0 && sorted[b - 1] > sorted[b]; b--) {
            uint32_t t = sorted[b];
            sorted[b] = sorted[b - 1], sorted[b - 1] = t;
        }
    for (uint32_t a = 0; a < LIVE; a++) {
        uint32_t id = sorted[a];
        int32_t tag = id < LIVE ? (int32_t)id : (int32_t)(id % 7);
        CHECK_EQ(arrive(e, 0, 1, tag, 900000 + a), MM_MATCHED);
        CHECK_EQ(got, id);
    }
    CHECK_EQ(stats(e).prq.length, 0);
    mm_destroy(e);
}

/* 20 bytes of packed arrays per slot: 12 of key, 8 of element pointer; the
 * capacity doubles from 64 slots. A one-link element is 48 bytes (elem.h). */
static void simd_bytes_per_element(void)
{
    mm_engine *e = make("simd", 4, NULL, 0);
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.bytes, 64 * 20);
    for (uint32_t i = 0; i < 1000; i++)
        CHECK_EQ(post(e, 0, 2, (int32_t)i, i, NULL), MM_QUEUED);
    st = stats(e);
    CHECK_EQ(st.prq.bytes, 1000 * 48 + 1024 * (MM_SIMD_KEY_WORDS * 4 + 8));
    CHECK_EQ(st.umq.bytes, 64 * 20);
    /* the 1025th doubles the arrays one at a time: at the most the old
     * arrays (20 bytes a slot) and the new ones but the last (4 bytes a slot
     * old, 8 new): 44 bytes a slot of the old size, not 20 + 40 */
    for (uint32_t i = 1000; i < 1025; i++)
        CHECK_EQ(post(e, 0, 2, (int32_t)i, i, NULL), MM_QUEUED);
    st = stats(e);
    CHECK_EQ(st.prq.bytes, 1025 * 48 + 2048 * 20);
    CHECK(st.prq.peak_bytes <= 1025 * 48 + 1024 * 44);
    mm_destroy(e);
    const char *bad[] = {"isa=4"};
    mm_config cfg = {.nprocs = 4, .params = bad, .nparams = 1};
    char err[256];
    CHECK_EQ(mm_create(&e, "simd", &cfg, err, sizeof err), MM_EPARAM);
    CHECK(strstr(err, "from 0 to 3") != NULL);
}

/* Past SEG_FROM (4096) slots a side grows by segments of a quarter of its
 * slots (simd.c, q_add_seg): scans, holes, compaction and a head inside a
 * segment must keep MPI order across them. Both sides grow to many
 * segments (a mostly-posting phase, then a mostly-arriving one, the head
 * draining into the segments), under every ISA the CPU has, against list. */
static void simd_segments_agree_with_list(void)
{
    enum { NE = 4, EVENTS = 90000 };
    static const char *const isa_param[NE] = {NULL, "isa=1", "isa=2", "isa=3"};
    mm_engine *e[NE];
    int ne = 0;
    e[ne++] = make("list", 6, NULL, 0);
    for (int isa = MM_ISA_SCALAR; isa <= MM_ISA_AVX512; isa++)
        if (mm_simd_isa_available(isa))
            e[ne++] = make("simd", 6, &isa_param[isa], 1);
    static mm_handle h[NE][EVENTS];
    mm_handle *hk[NE] = {h[0], h[1], h[2], h[3]};
    uint64_t disagree = 0;
    for (uint32_t id = 1; id < EVENTS; id++) {
        int32_t c = (int32_t)rnd(2), s = (int32_t)rnd(6), t = (int32_t)rnd(40);
        uint32_t op = rnd(100), phase = id < EVENTS / 3 ? 0 : id < 2 * EVENTS / 3 ? 1 : 2;
        int32_t ws = rnd(50) == 0 ? MM_ANY_SOURCE : s, wt = rnd(50) == 0 ? MM_ANY_TAG : t;
        uint32_t victim = 1 + rnd(id - 1 ? id - 1 : 1);
        /* phase 0 posts and queues messages of comm 1 (tags 40..): both
         * sides grow; phase 1 drains the receives, phase 2 the messages */
        uint32_t posts = phase == 0 ? 60 : phase == 1 ? 20 : 45;
        if (phase == 0 && op >= posts && op < 95)
            t += 40, c = 1;
        rnd_call r = {id, op, victim, c, s, t, ws, wt};
        disagree += (uint64_t)differ(e, ne, hk, &r, posts, 95, 97, 98);
    }
    CHECK_EQ(disagree, 0);
    mm_stats st;
    mm_get_stats(e[0], &st);
    /* both sides past 3 * 4096: five segments or more each */
    CHECK(st.prq.max_length > 3 * 4096 && st.umq.max_length > 3 * 4096 && st.cancels > 100);
    for (int k = 0; k < ne; k++)
        mm_destroy(e[k]);
}

/* An element past 4096 adds a segment of 1024 slots (20 bytes each), not
 * 4096 more: no copy, so the peak is the bytes held then. */
static void simd_bytes_past_seg_from(void)
{
    mm_engine *e = make("simd", 4, NULL, 0);
    for (uint32_t i = 0; i < 4097; i++)
        CHECK_EQ(post(e, 0, 2, (int32_t)i, i, NULL), MM_QUEUED);
    mm_stats st = stats(e);
    uint64_t table = 4 * (4 * sizeof(void *) + 8); /* room for 4 segments */
    CHECK_EQ(st.prq.bytes, 4097 * 48 + (4096 + 1024) * 20 + table);
    CHECK_EQ(st.prq.peak_bytes, st.prq.bytes);
    for (uint32_t i = 4097; i < 5121; i++) /* 5120 slots are full: 1280 more */
        CHECK_EQ(post(e, 0, 2, (int32_t)i, i, NULL), MM_QUEUED);
    CHECK_EQ(stats(e).prq.bytes, 5121 * 48 + (5120 + 1280) * 20 + table);
    for (uint32_t i = 0; i < 5121; i++) { /* in posting order, through the segments */
        CHECK_EQ(arrive(e, 0, 2, (int32_t)i, 9000000 + i), MM_MATCHED);
        CHECK_EQ(got, i);
    }
    mm_destroy(e);
}

/* A side that empties after growing segments frees them and its first
 * arrays, and takes first arrays of its whole length (simd.c, q_merge) at
 * the next append; when that fails it takes 64 slots, and when that fails
 * too, none: the append fails (MM_ENOMEM) and the next one, with memory
 * back, works. Order is kept throughout. */
static void simd_merge_after_segments(void)
{
    for (int mode = 0; mode < 3; mode++) { /* merge: works, falls back, fails */
        mm_engine *e = make("simd", 4, NULL, 0);
        for (uint32_t i = 0; i < 5000; i++)
            CHECK_EQ(post(e, 0, 2, (int32_t)i, i, NULL), MM_QUEUED);
        for (uint32_t i = 0; i < 5000; i++) {
            CHECK_EQ(arrive(e, 0, 2, (int32_t)i, 9000000 + i), MM_MATCHED);
            CHECK_EQ(got, i);
        }
        /* empty now: 4096 slots and a segment of 1024, and the segment table */
        uint64_t held = e->mem.bytes, arrays = stats(e).prq.bytes;
        CHECK_EQ(arrays, 5120 * 20 + 4 * (4 * sizeof(void *) + 8));
        if (mode == 1)
            e->mem.fail_in = 1; /* the whole-length arrays fail, 64 slots do not */
        if (mode == 2)
            e->mem.limit = held - arrays + 100; /* not even 64 slots fit */
        int rc = post(e, 0, 2, 0, 0, NULL);
        CHECK_EQ(rc, mode == 2 ? MM_ENOMEM : MM_QUEUED);
        CHECK(e->mem.bytes <= held);
        /* one run of 5120 slots, 64 slots, or none */
        CHECK_EQ(stats(e).prq.bytes, mode == 0 ? 48 + 5120 * 20 : mode == 1 ? 48 + 64 * 20 : 0);
        e->mem.limit = 0;
        e->mem.fail_in = 0;
        for (uint32_t i = rc == MM_QUEUED; i < 7000; i++)
            CHECK_EQ(post(e, 0, 2, (int32_t)i, i, NULL), MM_QUEUED);
        for (uint32_t i = 0; i < 7000; i++) {
            CHECK_EQ(arrive(e, 0, 2, (int32_t)(6999 - i), 8000000 + i), MM_MATCHED);
            CHECK_EQ(got, 6999 - i);
        }
        CHECK_EQ(stats(e).prq.length, 0);
        mm_destroy(e);
    }
}

int main(void)
{
    adaptive_switch_keeps_order();
    adaptive_switches_back();
    adaptive_params_checked();
    auto_hash_and_back();
    auto_hinted_small_hash();
    auto_hinted_shuffle_hash();
    auto_hinted_bins_collide_hash();
    auto_stays_list_on_head_matches();
    auto_nm_for_wildcards();
    auto_bins_then_nm();
    auto_params_checked();
    simd_scanners_agree();
    simd_isas_agree_with_list();
    simd_compaction_under_cancels();
    simd_keys_written_by_the_scan();
    simd_bytes_per_element();
    simd_segments_agree_with_list();
    simd_bytes_past_seg_from();
    simd_merge_after_segments();
    return check_report("test_adaptive_simd");
}
