/* Differential test: every engine, in lockstep, against the reference engine
 * `list` and against a naive model written here with its own match rule, on
 * random event streams (wildcards, negative tags, probes, matched probes,
 * cancels, several communicators, queue lengths that swell and drain), and
 * every engine's queues as mm_walk shows them against the model's queues.
 *
 *   test_differential [events-per-config [seed]]
 * Default: 270,000 events for each of 4 wildcard configurations and 1,080,000
 * wildcard-free events, so every engine runs at least a million events. */
#include <inttypes.h>
#include <string.h>
#include "check.h"
#include "mpimatch.h"

/* ---- the naive model: arrays scanned in order, nothing shared with the library ---- */
typedef struct { int32_t c, s, t; uint64_t id; } mitem;
typedef struct { mitem *v; size_t n, cap; } mvec;

static void mpush(mvec *q, mitem x)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 256;
        q->v = realloc(q->v, q->cap * sizeof *q->v);
        if (!q->v)
            abort();
    }
    q->v[q->n++] = x;
}

static void mdel(mvec *q, size_t i)
{
    memmove(&q->v[i], &q->v[i + 1], (q->n - i - 1) * sizeof *q->v);
    q->n--;
}

/* A receive (rs, rt: -1000 = any) accepts a message (ms, mt)? */
enum { WILD = -1000 };
static int accepts(int32_t rc, int32_t rs, int32_t rt, int32_t mc, int32_t ms, int32_t mt)
{
    if (rc != mc)
        return 0;
    if (rs != WILD && rs != ms)
        return 0;
    if (rt == WILD)
        return mt >= 0;
    return rt == mt;
}

static int32_t to_api_src(int32_t s) { return s == WILD ? MM_ANY_SOURCE : s; }
static int32_t to_api_tag(int32_t t) { return t == WILD ? MM_ANY_TAG : t; }

/* ---- random streams ---- */
static uint64_t rng;
static uint64_t rnd(void) { return check_xorshift(&rng); }
static int chance(double p) { return (double)(rnd() % 1000000) < p * 1e6; }
static int32_t pick(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint64_t)(hi - lo + 1)); }

typedef struct config {
    const char *name;
    int32_t np, ncomm, tag_lo, tag_hi;
    double any_src, any_tag, probe, mprobe, cancel;
    int swell; /* alternate phases that favour posts or arrivals */
    double coll; /* share of receives and messages marked collective traffic */
} config;

static const config configs[] = {
    {"small-keys",  4,  2, -1,  2, 0.20, 0.20, 0.05, 0.03, 0.05, 0, 0},
    {"swelling",   16,  3, -2,  7, 0.10, 0.10, 0.03, 0.02, 0.04, 1, 0},
    {"many-peers", 64,  2,  0,  3, 0.15, 0.05, 0.02, 0.02, 0.03, 1, 0},
    {"wild-heavy",  8,  4, -1,  3, 0.45, 0.45, 0.05, 0.05, 0.05, 1, 0},
    {"no-wildcards", 8, 3, -2,  5, 0.00, 0.00, 0.04, 0.03, 0.05, 1, 0},
    /* collective-kind elements, on negative and non-negative tags, mixed
     * with point-to-point: kind is an annotation, matching ignores it */
    {"coll-mix",   32,  2, -4,  5, 0.10, 0.10, 0.03, 0.02, 0.03, 1, 0.5},
};

/* kmeans reads its clusters from a file made for the exact nprocs:
 * run_config writes this one for each configuration before the engines
 * are created (peer p in cluster (7p + p/3) mod k: uneven on purpose). */
#define CLUSTER_FILE "test_differential.clusters"
static void write_cluster_file(int32_t np)
{
    int32_t k = np < 5 ? np : 5;
    FILE *f = fopen(CLUSTER_FILE, "w");
    if (!f)
        abort();
    fprintf(f, "mpimatch-clusters 1\nnp %d\nk %d\nreceiver 0\n", (int)np, (int)k);
    for (int32_t p = 0; p < np; p++)
        fprintf(f, "%d %d\n", (int)p, (int)((7 * p + p / 3) % k));
    if (fclose(f) != 0)
        abort();
}

/* Engines run again with non-default parameters, chosen so that queues
 * cross the engines' thresholds and caps many times in a run. */
static const struct variant {
    const char *engine;
    const char *params[5];
    uint32_t    flags;  /* MM_CFG_* */
} variants[] = {
    /* the thread-safe engines take the API's locked path (one thread here) */
    {"list", {NULL}, MM_CFG_THREAD_SAFE},
    {"nm", {NULL}, MM_CFG_THREAD_SAFE},
    {"hash", {NULL}, MM_CFG_THREAD_SAFE},
    {"bins", {"bins=3"}, 0},
    /* fixed hash seeds (the default draws one from the OS): other layouts,
     * the same matches */
    {"bins", {"bins=64", "seed=5"}, 0},
    {"hash", {"seed=2", "capacity=16"}, 0},
    {"nm", {"seed=1"}, 0},
    {"adaptive", {"threshold=2", "bins=7", "low=40", "seed=3"}, 0},
    {"kmeans", {"clusters=" CLUSTER_FILE}, 0},
    {"kmeans", {"k=3"}, 0},
    /* switches to bins and back: low > threshold makes the first flap on
     * purpose (thousands of switches a config, hundreds of elements moved
     * each time); the second switches about a hundred times a config */
    {"adaptive", {"threshold=1", "bins=3", "low=400"}, 0},
    {"adaptive", {"threshold=150", "bins=5", "low=350"}, 0},
    /* the plain C scan; the default picks the widest vector scan the CPU has
     * (test_adaptive_simd compares every ISA the machine has) */
    {"simd", {"isa=1"}, 0},
    /* paper 000: small theta, with caps that are reached early (k = 1, 2)
     * or late (k = 64), so partners are extracted and levels opened many
     * times in a run, before and after the caps */
    {"col+pnp", {"theta=3", "kc=1", "kp=2"}, 0},
    {"col+pnp", {"theta=2", "kc=64", "kp=64"}, 0},
    /* the locked path of a call with collective annotations: the COL part
     * reads the call's entry (comm_size, call, bytes), set under the lock */
    {"col+ll", {"kc=1"}, MM_CFG_THREAD_SAFE},
    /* auto with switches forced at random points (after about one post or
     * arrive in 300, in 3000), between every pair of its structures, all
     * the queued elements moved each time (thousands here: more frequent
     * switches are tests/python/test_differential.py's, on short streams);
     * once in the concurrent mode's shards */
    {"auto", {"force=300", "seed=7"}, 0},
    {"auto", {"force=3000", "seed=9"}, 0},
    {"auto", {"force=100", "seed=5"}, MM_CFG_CONCURRENT},
    /* the locked path runs auto's generic entries only, whose list phase
     * switches inside the call (the new element not yet released by the
     * API), where the list phase's own entries (late numbers) never switch:
     * they leave the decision to the next call, through the generic ones */
    {"auto", {"force=40", "seed=11"}, MM_CFG_THREAD_SAFE},
    /* auto's rule with short windows: down > up flaps on purpose (a switch
     * almost every window); the second keeps the hysteresis band, with nm = 1
     * so that leaving the list takes nm whenever bins would search (queued
     * wildcard receives, more receives than bins) and bins <-> nm by the rule */
    {"auto", {"window=200", "up=1", "down=300"}, 0},
    {"auto", {"window=64", "up=2", "down=1", "seed=2", "nm=1"}, 0},
    /* windows of three calls: the bins phase's lean entries run the first
     * two calls of each window and hand the last to the generic ones */
    {"auto", {"window=3", "up=1", "down=2", "seed=3"}, 0},
    /* windows of two calls: the lean bins entries run one call and hand the
     * window's last to the generic ones at once (left 2 -> 1); two bins, so
     * that leaving the list often takes nm (or, with both hints, hash), whose
     * own entries switch inside the call. Windows of one call: bins on the
     * generic entries only, hash's fast try always retried, and nm's entries
     * deciding at every call */
    {"auto", {"window=2", "up=1", "down=3", "seed=4", "bins=2"}, 0},
    {"auto", {"window=1", "up=2", "down=5", "seed=6", "bins=4"}, 0},
    /* never back to the list (down -1): the bins and hash phases' entries
     * that count the window's calls only, from every window's first call
     * (the variants above reach them within a window, once a call finds
     * more than `down` queued) */
    {"auto", {"window=16", "up=1", "down=-1", "seed=8"}, 0},
};
enum { NVARIANT = sizeof variants / sizeof variants[0] };
enum { NCONFIG = sizeof configs / sizeof configs[0] };

typedef struct runner {
    char        name[96];
    mm_engine  *e;
    mm_handle  *handles; /* by event id */
    int         per_shard; /* concurrent without ANY_SOURCE: walked shard by shard */
} runner;

static int add_runner(runner *r, const char *engine, const char *const *params,
                      size_t nparams, uint32_t flags, const config *cf, int wild,
                      uint64_t nevents)
{
    const mm_engine_info *info = mm_engine_find(engine);
    if (!info)
        return 0; /* a variant of an engine this build does not have */
    mm_config cfg = {.nprocs = cf->np, .flags = flags, .params = params, .nparams = nparams};
    if (!wild)
        cfg.hints = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG;
    if (info->hints_required & ~cfg.hints)
        return 0; /* cannot take wildcards: runs the wildcard-free config */
    char err[256];
    if (mm_create(&r->e, info->name, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", info->name, err);
        exit(1);
    }
    int n = snprintf(r->name, sizeof r->name, "%s", engine);
    for (size_t i = 0; i < nparams && n > 0 && (size_t)n < sizeof r->name; i++)
        n += snprintf(r->name + n, sizeof r->name - (size_t)n, "%s%s", i ? "," : "[", params[i]);
    if (nparams && n > 0 && (size_t)n < sizeof r->name)
        snprintf(r->name + n, sizeof r->name - (size_t)n, "]");
    if ((flags & MM_CFG_THREAD_SAFE) && !nparams && n > 0 && (size_t)n < sizeof r->name)
        snprintf(r->name + n, sizeof r->name - (size_t)n, "[thread-safe]");
    if ((flags & MM_CFG_CONCURRENT) && !nparams && n > 0 && (size_t)n < sizeof r->name)
        snprintf(r->name + n, sizeof r->name - (size_t)n, "[concurrent]");
    r->per_shard = (flags & MM_CFG_CONCURRENT) && (cfg.hints & MM_HINT_NO_ANY_SOURCE);
    r->handles = calloc(nevents + 1, sizeof(mm_handle));
    if (!r->handles)
        abort();
    return 1;
}

enum { MAX_RUNNERS = 64 };

/* mm_walk against the model's queue: the same elements (cookie = event id,
 * key) in the same order, for one side. An engine in MM_CFG_CONCURRENT's
 * shards without ANY_SOURCE (no stamps across shards) walks shard by shard:
 * there the elements are the model's, each once, and in the model's order
 * within each shard. The model's queues hold event ids in ascending order. */
typedef struct walk_check {
    const mvec *q;
    size_t      i, bad;
    int         per_shard;
    uint64_t    last[64];  /* per_shard: the last id seen in each shard */
    uint8_t    *seen;      /* per_shard: by model position */
} walk_check;

static const mitem *model_find(const mvec *q, uint64_t id, size_t *at)
{
    size_t lo = 0, hi = q->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (q->v[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return lo < q->n && q->v[lo].id == id ? &q->v[lo] : NULL;
}

static int walk_one(const mm_queued *x, void *arg)
{
    walk_check *w = arg;
    if (w->i >= w->q->n) {
        w->bad++;
        return 1;
    }
    const mitem *m = &w->q->v[w->i++];
    if (w->per_shard) {
        size_t at;
        m = model_find(w->q, x->entry.cookie, &at);
        if (!m || w->seen[at]++ || x->shard >= 64 || x->entry.cookie <= w->last[x->shard]) {
            w->bad++;
            return 0;
        }
        w->last[x->shard] = x->entry.cookie;
    }
    if (x->entry.cookie != m->id || x->entry.comm != m->c || x->entry.src != to_api_src(m->s) ||
        x->entry.tag != to_api_tag(m->t))
        w->bad++;
    return 0;
}

static size_t walk_differs(mm_engine *e, int per_shard, const mvec *prq, const mvec *umq)
{
    walk_check w[2] = {{.q = prq, .per_shard = per_shard}, {.q = umq, .per_shard = per_shard}};
    if (per_shard) {
        w[0].seen = calloc(prq->n + 1, 1);
        w[1].seen = calloc(umq->n + 1, 1);
        if (!w[0].seen || !w[1].seen)
            abort();
    }
    int rc = mm_walk(e, MM_SIDE_PRQ, walk_one, &w[0]) | mm_walk(e, MM_SIDE_UMQ, walk_one, &w[1]);
    free(w[0].seen);
    free(w[1].seen);
    return (rc != 0) + w[0].bad + w[1].bad + (w[0].i != prq->n) + (w[1].i != umq->n);
}

static int run_config(const config *cf, uint64_t nevents)
{
    runner r[MAX_RUNNERS];
    int nr = 0;
    int wild = cf->any_src > 0 || cf->any_tag > 0;
    write_cluster_file(cf->np);
    for (size_t i = 0; i < mm_engine_count() && nr < MAX_RUNNERS; i++)
        nr += add_runner(&r[nr], mm_engine_at(i)->name, NULL, 0, 0, cf, wild, nevents);
    /* Every engine again in MM_CFG_CONCURRENT's shards (one thread here): with
     * wildcards, ANY_SOURCE receives and probes take the wildcard path (copies
     * in the shards, stamps across them) and must give the same matches. */
    for (size_t i = 0; i < mm_engine_count() && nr < MAX_RUNNERS; i++)
        nr += add_runner(&r[nr], mm_engine_at(i)->name, NULL, 0, MM_CFG_CONCURRENT, cf, wild,
                         nevents);
    for (size_t i = 0; i < NVARIANT && nr < MAX_RUNNERS; i++) {
        size_t np = 0;
        while (np < 5 && variants[i].params[np])
            np++;
        nr += add_runner(&r[nr], variants[i].engine, variants[i].params, np, variants[i].flags,
                         cf, wild, nevents);
    }
    /* every engine and variant has its runner (none left out by the cap) */
    CHECK(nr < MAX_RUNNERS);
    mvec prq = {0}, umq = {0};
    uint64_t *recv_ids = malloc((nevents + 1) * sizeof *recv_ids);
    uint64_t nrecv = 0, mismatches = 0, bad_status = 0, walk_mismatches = 0;
    uint64_t posts = 0, arrivals = 0, probes = 0;
    double bias = 0.5;
    int draining = 0;
    for (uint64_t id = 1; id <= nevents && mismatches < 10; id++) {
        if (cf->swell && id % 2000 == 1)
            bias = 0.15 + 0.7 * (double)(rnd() % 1000) / 1000.0; /* P(post) for this phase */
        /* Queues swell to ~1500 elements, then drain to 300: generate partners
         * of randomly chosen queued elements, so depths vary widely. */
        if (prq.n + umq.n > 1500)
            draining = 1;
        else if (prq.n + umq.n < 300)
            draining = 0;
        int32_t c = pick(0, cf->ncomm - 1), s = pick(0, cf->np - 1), t = pick(cf->tag_lo, cf->tag_hi);
        uint64_t want = 0;     /* model's partner id (0: none) */
        int want_rc;
        int kind;              /* 0 post, 1 arrive, 2 probe, 3 mprobe, 4 cancel */
        double u = (double)(rnd() % 1000000) / 1e6;
        if (u < cf->cancel && nrecv)
            kind = 4;
        else if (u < cf->cancel + cf->probe)
            kind = 2;
        else if (u < cf->cancel + cf->probe + cf->mprobe)
            kind = 3;
        else
            kind = chance(bias) ? 0 : 1;
        if (draining && kind <= 1) {
            kind = prq.n > umq.n ? 1 : 0;
            const mitem *q = kind ? &prq.v[rnd() % prq.n] : &umq.v[rnd() % umq.n];
            c = q->c;
            s = q->s == WILD ? s : q->s;
            t = q->t == WILD ? pick(0, cf->tag_hi) : q->t;
        } else if (kind != 1 && kind != 4) {
            if (chance(cf->any_src))
                s = WILD;
            if (chance(cf->any_tag))
                t = WILD;
        }
        uint64_t cancel_id = 0;
        /* model */
        if (kind == 0 || kind == 2 || kind == 3) {
            size_t i = 0;
            while (i < umq.n && !accepts(c, s, t, umq.v[i].c, umq.v[i].s, umq.v[i].t))
                i++;
            if (i < umq.n) {
                want = umq.v[i].id;
                if (kind != 2)
                    mdel(&umq, i);
                want_rc = MM_MATCHED;
            } else {
                want_rc = kind == 0 ? MM_QUEUED : MM_NOTFOUND;
                if (kind == 0)
                    mpush(&prq, (mitem){c, s, t, id});
            }
            if (kind == 0) {
                recv_ids[nrecv++] = id;
                posts++;
            } else {
                probes++;
            }
        } else if (kind == 1) {
            size_t i = 0;
            while (i < prq.n && !accepts(prq.v[i].c, prq.v[i].s, prq.v[i].t, c, s, t))
                i++;
            if (i < prq.n) {
                want = prq.v[i].id;
                mdel(&prq, i);
                want_rc = MM_MATCHED;
            } else {
                want_rc = MM_QUEUED;
                mpush(&umq, (mitem){c, s, t, id});
            }
            arrivals++;
        } else {
            cancel_id = recv_ids[rnd() % nrecv];
            want_rc = MM_NOTFOUND;
            for (size_t i = 0; i < prq.n; i++)
                if (prq.v[i].id == cancel_id) {
                    mdel(&prq, i);
                    want_rc = MM_MATCHED;
                    break;
                }
        }
        /* collective annotations, which matching must ignore */
        mm_entry x = {.comm = c, .src = to_api_src(s), .tag = to_api_tag(t), .cookie = id};
        if ((kind == 0 || kind == 1) && chance(cf->coll)) {
            static const uint8_t ops[] = {MM_COLL_GATHER, MM_COLL_ALLREDUCE,
                                          MM_COLL_IALLGATHER, MM_COLL_BCAST};
            static const uint64_t sizes[] = {8, 1024, 65536};
            x.kind = MM_KIND_COLL;
            x.coll_op = ops[rnd() % 4];
            x.comm_size = (uint32_t)cf->np;
            x.call = (uint32_t)(rnd() % 4);
            x.bytes = sizes[rnd() % 3];
        }
        /* engines */
        for (int k = 0; k < nr; k++) {
            uintptr_t got = 0;
            int rc;
            switch (kind) {
            case 0: rc = mm_post(r[k].e, &x, &r[k].handles[id], &got); break;
            case 1: rc = mm_arrive(r[k].e, &x, &got); break;
            case 2: rc = mm_probe(r[k].e, c, x.src, x.tag, &got); break;
            case 3: rc = mm_mprobe(r[k].e, c, x.src, x.tag, &got); break;
            default:
                rc = r[k].handles[cancel_id].elem ? mm_cancel(r[k].e, r[k].handles[cancel_id])
                                                  : MM_NOTFOUND;
                break;
            }
            if (rc < 0)
                bad_status++;
            if (rc != want_rc || (rc == MM_MATCHED && kind != 4 && got != want)) {
                if (mismatches++ < 10)
                    fprintf(stderr, "%s/%s: event %" PRIu64 " (op %d comm %d src %d tag %d): "
                            "got status %d partner %" PRIuPTR ", model says %d partner %" PRIu64 "\n",
                            cf->name, r[k].name, id, kind, c, s, t, rc, got, want_rc, want);
            }
        }
        /* every engine's queues, as mm_walk sees them, are the model's */
        if (id % 4999 == 0)
            for (int k = 0; k < nr; k++)
                if (walk_differs(r[k].e, r[k].per_shard, &prq, &umq) && walk_mismatches++ < 10)
                    fprintf(stderr, "%s/%s: after event %" PRIu64 ": mm_walk differs from the "
                            "model's queues\n", cf->name, r[k].name, id);
    }
    uint64_t maxlen[2] = {0, 0};
    for (int k = 0; k < nr; k++) {
        mm_stats st;
        CHECK_EQ(walk_differs(r[k].e, r[k].per_shard, &prq, &umq), 0);
        mm_get_stats(r[k].e, &st);
        CHECK_EQ(st.prq.length, prq.n);
        CHECK_EQ(st.umq.length, umq.n);
        CHECK_EQ(st.prq.searches, arrivals);
        CHECK_EQ(st.umq.searches, posts + probes);
        CHECK_EQ(st.prq.hits + st.prq.misses, st.prq.searches);
        if (st.prq.max_length > maxlen[0]) maxlen[0] = st.prq.max_length;
        if (st.umq.max_length > maxlen[1]) maxlen[1] = st.umq.max_length;
        mm_destroy(r[k].e);
        free(r[k].handles);
    }
    CHECK_EQ(mismatches, 0);
    CHECK_EQ(walk_mismatches, 0);
    CHECK_EQ(bad_status, 0);
    printf("%-13s %8" PRIu64 " events, %d engines, max PRQ %" PRIu64 ", max UMQ %" PRIu64 ": %s\n",
           cf->name, nevents, nr, maxlen[0], maxlen[1], mismatches ? "MISMATCH" : "agree");
    free(prq.v);
    free(umq.v);
    free(recv_ids);
    return mismatches != 0;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 270000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 0x2545F4914F6CDD1Dull;
    if (!n || !rng) {
        fprintf(stderr, "usage: test_differential [events-per-config [nonzero seed]]\n");
        return 2;
    }
    printf("seed %" PRIu64 "\n", rng);
    for (int i = 0; i < NCONFIG; i++) {
        int wild = configs[i].any_src > 0 || configs[i].any_tag > 0;
        run_config(&configs[i], wild ? n : 4 * n);
    }
    remove(CLUSTER_FILE);
    return check_report("test_differential");
}
