/* test_gen_coll: the collective workloads and application profiles of
 * tools/gen/gen_coll.c and gen_apps.c, run directly (not through the
 * registry).
 *
 * For every generator: the stream is valid and reproducible (same seed, same
 * events; another seed, other times); every collective R and M carries
 * kind COLL, its operation, the communicator size, a call number and the
 * operation's negative tag, every point-to-point one a tag >= 0; every
 * receive finds its message. Every registered engine replays the stream
 * and pairs each receive with the same message as the reference engine
 * "list". The profiles have 10k-250k events with default parameters and
 * the collective / point-to-point mix of paper 000, Fig. 1; the gather hot
 * spot delivers n-1 messages per call at the root, some of them unexpected.
 * Bad parameters give clear errors. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll_algo.h"
#include "coll_mv2.h"
#include "coll_sim.h"
#include "gen_coll.h"
#include "mpimatch.h"
#include "stream.h"

static const mm_gen *const gens[] = {
    &mm_gen_gather, &mm_gen_bcast, &mm_gen_reduce, &mm_gen_allreduce, &mm_gen_allgather,
    &mm_gen_barrier, &mm_gen_alltoall, &mm_gen_scatter, &mm_gen_reduce_scatter,
    &mm_gen_reduce_scatter_block, &mm_gen_scan, &mm_gen_exscan,
    &mm_gen_radix, &mm_gen_nbody, &mm_gen_miniamr, &mm_gen_fds,
};
#define NGENS (sizeof gens / sizeof *gens)
#define NCOLL 12 /* the collective generators come first, then the profiles */

/* Parameter values: the defaults with "key=value" overrides. */
static void values(const mm_gen *g, int64_t *v, const char *const *set)
{
    for (size_t i = 0; i < g->nparams; i++)
        v[i] = g->params[i].def;
    for (; set && *set; set++) {
        const char *eq = strchr(*set, '=');
        size_t i = 0;
        while (i < g->nparams && (strncmp(g->params[i].name, *set, (size_t)(eq - *set)) != 0 ||
                                  g->params[i].name[eq - *set] != '\0'))
            i++;
        if (i == g->nparams) {
            fprintf(stderr, "test: %s has no parameter %s\n", g->name, *set);
            abort();
        }
        if (g->params[i].choices) {
            int64_t k = 0;
            while (g->params[i].choices[k] && strcmp(g->params[i].choices[k], eq + 1) != 0)
                k++;
            if (!g->params[i].choices[k])
                abort();
            v[i] = k;
        } else {
            v[i] = strtoll(eq + 1, NULL, 10);
        }
    }
}

static int param_index(const mm_gen *g, const char *name)
{
    for (size_t i = 0; i < g->nparams; i++)
        if (strcmp(g->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int build(const mm_gen *g, const char *const *set, uint64_t seed, mm_stream *s,
                 char *err, size_t errlen)
{
    int64_t v[MM_GEN_MAX_PARAMS];
    values(g, v, set);
    if (mm_stream_init(s, g->name, err, errlen) != MMS_OK)
        abort();
    int rc = g->run(s, v, seed, err, errlen);
    if (rc == MMS_OK)
        rc = mm_stream_finalize(s, 0, err, errlen);
    return rc;
}

/* Replay s through every registered engine; partner[i] = id of the event
 * that event i was paired with (0: queued). Returns the number of engines
 * that disagreed with list; *unexpected counts arrivals list queued, and
 * *leftover what list still holds at the end. */
static int replay_all(const mm_stream *s, size_t *unexpected, uint64_t *leftover)
{
    uint64_t *ref = calloc(s->n, sizeof *ref), *got = calloc(s->n, sizeof *got);
    uint32_t hints = mm_stream_hints(s, NULL, NULL);
    int disagree = 0;
    *unexpected = 0;
    for (size_t k = 0; k < mm_engine_count(); k++) {
        const mm_engine_info *info = mm_engine_at(k);
        int is_ref = strcmp(info->name, "list") == 0;
        if ((info->hints_required & hints) != info->hints_required)
            continue; /* the stream uses a wildcard this engine cannot take */
        mm_config cfg = {.nprocs = s->np, .hints = info->hints_required};
        mm_engine *e;
        char err[256];
        if (mm_create(&e, info->name, &cfg, err, sizeof err) != MM_QUEUED) {
            fprintf(stderr, "create %s: %s\n", info->name, err);
            CHECK(0);
            continue;
        }
        uint64_t *out = is_ref ? ref : got;
        int bad = 0;
        for (size_t i = 0; i < s->n && !bad; i++) {
            const mm_event *ev = &s->ev[i];
            mm_entry en = {ev->comm, ev->src, ev->tag, ev->kind, ev->coll_op, 0,
                           ev->comm_size, ev->call, ev->bytes, (uintptr_t)ev->id};
            uintptr_t partner = 0;
            int rc = ev->type == MM_EV_RECV ? mm_post(e, &en, NULL, &partner)
                                            : mm_arrive(e, &en, &partner);
            if (rc < 0) {
                fprintf(stderr, "%s: event %zu: %s\n", info->name, i, mm_strerror(rc));
                bad = 1;
            }
            out[i] = rc == MM_MATCHED ? (uint64_t)partner : 0;
            if (is_ref && ev->type == MM_EV_MSG && rc == MM_QUEUED)
                (*unexpected)++;
        }
        if (is_ref) {
            mm_stats st;
            mm_get_stats(e, &st);
            *leftover = st.prq.length + st.umq.length;
        } else if (bad || memcmp(ref, got, s->n * sizeof *ref) != 0) {
            fprintf(stderr, "engine %s disagrees with list\n", info->name);
            disagree++;
        }
        mm_destroy(e);
    }
    free(ref);
    free(got);
    return disagree;
}

typedef struct tally {
    size_t r, m, coll, p2p, any_source, bad_coll, bad_p2p;
    size_t by_op[MM_COLL_OP_COUNT];
} tally;

static tally count(const mm_stream *s, int32_t n)
{
    tally t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < s->n; i++) {
        const mm_event *e = &s->ev[i];
        t.r += e->type == MM_EV_RECV;
        t.m += e->type == MM_EV_MSG;
        t.any_source += e->src == MM_ANY_SOURCE;
        if (e->kind == MM_KIND_COLL) {
            t.coll++;
            if (e->type == MM_EV_MSG)
                t.by_op[e->coll_op]++;
            int fixed = !mm_coll_nonblocking(e->coll_op);
            /* Open MPI's blocking algorithms made of two collectives
             * (nonoverlapping reduce_scatter and allreduce, linear
             * allreduce, gather_bcast) carry their phases' tags: a reduce,
             * bcast, gather(v) or scatter(v) tag */
            static const int phase_ops[] = {MM_COLL_REDUCE, MM_COLL_BCAST, MM_COLL_GATHER,
                                            MM_COLL_GATHERV, MM_COLL_SCATTER, MM_COLL_SCATTERV};
            int two = 0;
            for (size_t ph = 0; fixed && ph < sizeof phase_ops / sizeof *phase_ops; ph++)
                two |= e->tag == mm_coll_tag(phase_ops[ph], 0);
            t.bad_coll += e->tag >= 0 || e->coll_op == MM_COLL_NONE || e->comm_size != (uint32_t)n ||
                          e->call == 0 || (fixed && !two && e->tag != mm_coll_tag(e->coll_op, 0)) ||
                          (!fixed && e->tag > MM_COLL_TAG_NONBLOCKING_BASE);
        } else {
            t.p2p++;
            t.bad_p2p += e->tag < 0 || e->coll_op != MM_COLL_NONE || e->comm_size || e->call;
        }
    }
    return t;
}

static int same_events(const mm_stream *a, const mm_stream *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (memcmp(&a->ev[i], &b->ev[i], sizeof a->ev[i]) != 0)
            return 0;
    return 1;
}

/* The stream survives the text format: write it, read it back, same events. */
static int text_round_trip(const mm_stream *s)
{
    mm_buf buf = {NULL, 0, 0};
    mm_stream back;
    char err[512];
    int ok = mm_stream_write_text(s, mm_sink_buf, &buf) == 0 &&
             mm_stream_init(&back, "back", err, sizeof err) == MMS_OK &&
             mm_stream_parse(&back, buf.p, buf.len, MM_READ_TEXT, 0, err, sizeof err) == MMS_OK;
    if (!ok)
        fprintf(stderr, "round trip: %s\n", err);
    ok = ok && back.n == s->n && back.np == s->np;
    for (size_t i = 0; ok && i < s->n; i++) {
        mm_event a = s->ev[i], b = back.ev[i];
        a.line = b.line = 0;
        ok = memcmp(&a, &b, sizeof a) == 0;
    }
    mm_stream_free(&back);
    mm_buf_free(&buf);
    return ok;
}

static void test_every_generator(void)
{
    for (size_t g = 0; g < NGENS; g++) {
        const mm_gen *gen = gens[g];
        /* small jobs keep this fast; the profiles also run at their defaults below */
        static const char *const small[] = {"n=24", "rank=4", NULL};
        static const char *const small_calls[] = {"n=24", "rank=4", "calls=30", NULL};
        static const char *const small_iters[] = {"n=24", "rank=4", "iters=20", NULL};
        const char *const *set = gen->synthetic ? small_iters : param_index(gen, "calls") >= 0 ? small_calls : small;
        mm_stream a, b, c;
        char err[512];
        CHECK_EQ(build(gen, set, 7, &a, err, sizeof err), MMS_OK);
        CHECK_EQ(build(gen, set, 7, &b, err, sizeof err), MMS_OK);
        CHECK_EQ(build(gen, set, 8, &c, err, sizeof err), MMS_OK);
        CHECK(a.n > 0);
        CHECK(same_events(&a, &b));
        CHECK(!same_events(&a, &c));
        CHECK_EQ(a.np, 24);
        CHECK(text_round_trip(&a));
        tally t = count(&a, 24);
        CHECK_EQ(t.r, t.m);
        CHECK_EQ(t.bad_coll, 0);
        CHECK_EQ(t.bad_p2p, 0);
        CHECK(t.coll > 0);
        CHECK_EQ(gen->synthetic, g >= NCOLL);
        size_t unexpected;
        uint64_t leftover = 1;
        int dis = replay_all(&a, &unexpected, &leftover);
        CHECK_EQ(dis, 0);
        CHECK_EQ(leftover, 0); /* every receive found its message */
        printf("%-10s n=24 rank=4: %zu events (%zu collective, %zu point-to-point), %zu unexpected\n",
               gen->name, a.n, t.coll, t.p2p, unexpected);
        mm_stream_free(&a);
        mm_stream_free(&b);
        mm_stream_free(&c);
    }
}

/* Every algorithm choice of every collective generator, nonblocking too,
 * replays identically on every engine. */
static void test_every_algorithm(void)
{
    for (size_t g = 0; g < NCOLL; g++) {
        const mm_gen *gen = gens[g];
        const mm_gen_param *alg = &gen->params[param_index(gen, "alg")];
        for (size_t k = 0; alg->choices[k]; k++)
            for (int nb = 0; nb < 2; nb++) {
                char a_set[64], nb_set[32];
                snprintf(a_set, sizeof a_set, "alg=%s", alg->choices[k]);
                snprintf(nb_set, sizeof nb_set, "nonblocking=%d", nb);
                const char *set[] = {"n=16", "rank=3", "calls=20", a_set, nb_set, NULL};
                mm_stream s;
                char err[512];
                int rc = build(gen, set, 3, &s, err, sizeof err);
                if (rc != MMS_OK)
                    fprintf(stderr, "%s %s: %s\n", gen->name, a_set, err);
                CHECK_EQ(rc, MMS_OK);
                tally t = count(&s, 16);
                if (t.bad_coll)
                    fprintf(stderr, "%s %s %s: %zu bad collective events\n", gen->name, a_set,
                            nb_set, t.bad_coll);
                CHECK_EQ(t.bad_coll, 0);
                CHECK_EQ(t.p2p, 0);
                size_t unexpected;
                uint64_t leftover = 1;
                CHECK_EQ(replay_all(&s, &unexpected, &leftover), 0);
                CHECK_EQ(leftover, 0);
                mm_stream_free(&s);
            }
    }
}

/* The hot spot: the root of a linear gather receives n-1 messages per call,
 * and with skewed arrivals some come before their receive is posted. */
static void test_gather_hot_spot(void)
{
    const char *set[] = {"n=128", "rank=0", "root=0", "calls=10", "alg=linear", "skew=20000", NULL};
    mm_stream s;
    char err[512];
    CHECK_EQ(build(&mm_gen_gather, set, 1, &s, err, sizeof err), MMS_OK);
    tally t = count(&s, 128);
    CHECK_EQ(t.by_op[MM_COLL_GATHER], 10 * 127);
    size_t unexpected;
    uint64_t leftover;
    CHECK_EQ(replay_all(&s, &unexpected, &leftover), 0);
    CHECK(unexpected > 0 && unexpected < t.m);
    mm_stream_free(&s);
    /* a leaf of a binomial gather only sends: its stream is empty */
    const char *leaf[] = {"n=8", "rank=1", "root=0", "calls=3", "alg=binomial", NULL};
    CHECK_EQ(build(&mm_gen_gather, leaf, 1, &s, err, sizeof err), MMS_OK);
    CHECK_EQ(s.n, 0);
    mm_stream_free(&s);
}

/* The profiles at their defaults: 10k-250k events and Fig. 1's mix. */
static void test_profiles(void)
{
    for (size_t g = NCOLL; g < NGENS; g++) {
        mm_stream s;
        char err[512];
        CHECK_EQ(build(gens[g], NULL, 1, &s, err, sizeof err), MMS_OK);
        int32_t n = (int32_t)gens[g]->params[param_index(gens[g], "n")].def;
        tally t = count(&s, n);
        double coll = (double)t.coll / (double)s.n;
        printf("%-8s defaults: %zu events, %.1f%% collective, %zu ANY_SOURCE receives\n",
               gens[g]->name, s.n, 100 * coll, t.any_source);
        CHECK(s.n >= 10000 && s.n <= 250000);
        CHECK_EQ(t.bad_coll, 0);
        CHECK_EQ(t.bad_p2p, 0);
        const char *name = gens[g]->name;
        if (strcmp(name, "radix") == 0) {
            CHECK(coll > 0.9); /* almost all collective (Fig. 1a) */
            CHECK(t.any_source > 0);
            CHECK(t.by_op[MM_COLL_IALLGATHER] > 0);
        } else if (strcmp(name, "nbody") == 0) {
            CHECK(coll < 0.5 && t.coll > 0); /* mostly point-to-point (Fig. 1b) */
            CHECK(t.by_op[MM_COLL_ALLGATHER] > 0);
        } else if (strcmp(name, "miniamr") == 0) {
            CHECK(coll > 0.5 && t.p2p > 0); /* both, collective larger (Fig. 1c) */
            CHECK(t.by_op[MM_COLL_ALLREDUCE] > t.by_op[MM_COLL_ALLGATHER]);
            CHECK_EQ(t.any_source, 0); /* miniAMR posts no ANY_SOURCE receive */
        } else {
            CHECK(coll > 0.5 && t.p2p > 0); /* both, collective larger (Fig. 1d) */
            /* rank 0 receives from all 511 others in every gatherv */
            CHECK_EQ(t.by_op[MM_COLL_GATHERV], 80 * 511);
        }
        size_t unexpected;
        uint64_t leftover = 1;
        CHECK_EQ(replay_all(&s, &unexpected, &leftover), 0);
        CHECK_EQ(leftover, 0);
        mm_stream_free(&s);
    }
}

/* Per kind (0 p2p, 1 coll) and side (0 PRQ, 1 UMQ): searches and elements
 * compared by engine `name`, charged to the searching event's kind; the
 * largest PRQ length and queue count. */
typedef struct depths {
    uint64_t searches[2][2], traversed[2][2], max_prq, max_prq_queues;
} depths;

static depths depths_of(const mm_stream *s, const char *name)
{
    depths d;
    memset(&d, 0, sizeof d);
    mm_config cfg = {.nprocs = s->np, .hints = mm_stream_hints(s, NULL, NULL)};
    mm_engine *e;
    char err[256];
    if (mm_create(&e, name, &cfg, err, sizeof err) != MM_QUEUED) {
        fprintf(stderr, "create %s: %s\n", name, err);
        CHECK(0);
        return d;
    }
    mm_stats before, after;
    mm_get_stats(e, &before);
    for (size_t i = 0; i < s->n; i++) {
        const mm_event *ev = &s->ev[i];
        mm_entry en = {ev->comm, ev->src, ev->tag, ev->kind, ev->coll_op, 0,
                       ev->comm_size, ev->call, ev->bytes, (uintptr_t)ev->id};
        uintptr_t partner = 0;
        CHECK(ev->type == MM_EV_RECV ? mm_post(e, &en, NULL, &partner) >= 0
                                     : mm_arrive(e, &en, &partner) >= 0);
        mm_get_stats(e, &after);
        int k = ev->kind == MM_KIND_COLL;
        d.searches[k][0] += after.prq.searches - before.prq.searches;
        d.traversed[k][0] += after.prq.traversed - before.prq.traversed;
        d.searches[k][1] += after.umq.searches - before.umq.searches;
        d.traversed[k][1] += after.umq.traversed - before.umq.traversed;
        before = after;
    }
    d.max_prq = after.prq.max_length;
    d.max_prq_queues = after.prq.max_queues;
    mm_destroy(e);
    return d;
}

static double mean(const depths *d, int kind, int side)
{
    return d->searches[kind][side] ? (double)d->traversed[kind][side] / (double)d->searches[kind][side]
                                   : 0.0;
}

/* The rebuilt profiles produce the queue behaviour they are fitted to
 * (docs/collectives.md, "Application profiles"). */
static void test_profile_queues(void)
{
    mm_stream s;
    char err[512];
    /* nbody: the point-to-point PRQ reaches the partner threshold theta = 100
     * and the list compares several elements per search; the partner design
     * opens partner queues and compares far fewer */
    CHECK_EQ(build(&mm_gen_nbody, NULL, 1, &s, err, sizeof err), MMS_OK);
    depths l = depths_of(&s, "list"), p = depths_of(&s, "pnp");
    printf("nbody: list p2p PRQ %.2f UMQ %.2f, max PRQ length %llu; pnp p2p PRQ %.2f, %llu queues\n",
           mean(&l, 0, 0), mean(&l, 0, 1), (unsigned long long)l.max_prq, mean(&p, 0, 0),
           (unsigned long long)p.max_prq_queues);
    CHECK(l.max_prq >= 100);
    CHECK(mean(&l, 0, 0) >= 5 && mean(&l, 0, 0) <= 40);
    CHECK(mean(&l, 1, 0) <= 3); /* short collective traversals (Fig. 6c/d: 1.09x, 1.33x) */
    CHECK(p.max_prq_queues > 3 && mean(&p, 0, 0) * 2 < mean(&l, 0, 0));
    mm_stream_free(&s);

    /* radix: 24 iallgathers in flight together, each progressing on its own
     * (mm_csim_pipeline), put the messages of several calls from several
     * peers in the queues at once: collective traversals of several elements
     * (the paper's "around 10", sec. 5.3.1; the profile before gave 0.17 in
     * the UMQ and 1.43 in the PRQ) and iallgather about 65% of the
     * collective elements (sec. 5.4.1) */
    const char *one[] = {"inflight=1", NULL};
    CHECK_EQ(build(&mm_gen_radix, one, 1, &s, err, sizeof err), MMS_OK);
    depths r1 = depths_of(&s, "list");
    mm_stream_free(&s);
    CHECK_EQ(build(&mm_gen_radix, NULL, 1, &s, err, sizeof err), MMS_OK);
    depths r24 = depths_of(&s, "list");
    tally t = count(&s, 512);
    double share = 2.0 * (double)t.by_op[MM_COLL_IALLGATHER] / (double)t.coll; /* M only */
    printf("radix: list coll PRQ %.2f UMQ %.2f (inflight 1: %.2f, %.2f), longest PRQ %llu, "
           "iallgather %.0f%% of the collective\n", mean(&r24, 1, 0), mean(&r24, 1, 1),
           mean(&r1, 1, 0), mean(&r1, 1, 1), (unsigned long long)r24.max_prq, 100 * share);
    CHECK(mean(&r24, 1, 1) >= 5 && mean(&r24, 1, 1) <= 20);
    CHECK(mean(&r24, 1, 0) >= 2 && mean(&r24, 1, 0) <= 20);
    CHECK(mean(&r1, 1, 1) < 1 && mean(&r1, 1, 0) < 1.5);
    CHECK(r24.max_prq > 9 && r24.max_prq <= 24 + 2);
    CHECK(share > 0.55 && share < 0.75);
    /* exact messages into rank 0 (MPICH at 512 processes: recursive doubling,
     * 9 steps of one receive per call; recursive halving; a binomial reduce
     * brings 9 to the root) */
    CHECK_EQ(t.by_op[MM_COLL_IALLGATHER], 100 * 24 * 9);
    CHECK_EQ(t.by_op[MM_COLL_ALLREDUCE], 100 * 11 * 9);
    CHECK_EQ(t.by_op[MM_COLL_REDUCE_SCATTER], 100 * 9);
    CHECK_EQ(t.by_op[MM_COLL_REDUCE], 100 * 9);
    mm_stream_free(&s);
    /* a progress noise per collective message (up to 3 us, three latencies)
     * scrambles the arrivals further: deeper UMQ walks, every receive still
     * matched */
    const char *noisy[] = {"noise=3000", "iters=30", NULL};
    CHECK_EQ(build(&mm_gen_radix, noisy, 1, &s, err, sizeof err), MMS_OK);
    depths rn = depths_of(&s, "list");
    printf("radix noise 3 us: list coll UMQ %.2f PRQ %.2f\n", mean(&rn, 1, 1), mean(&rn, 1, 0));
    CHECK(mean(&rn, 1, 1) > mean(&r24, 1, 1));
    size_t unexpected;
    uint64_t leftover = 1;
    CHECK_EQ(replay_all(&s, &unexpected, &leftover), 0);
    CHECK_EQ(leftover, 0);
    mm_stream_free(&s);

    /* miniamr at its defaults: the allreduces run MVAPICH2's reduce_p2p on
     * k-nomial trees of radix 120 (the fit of docs/workloads.md): rank 0,
     * the root, posts the receives from its 123 children at once (119 at
     * distance 1, 4 at distance 120) and sends the bcast. Per time step 4 checksum
     * stages of 40 allreduces (check_sum.c), one refinement of 8 allreduces
     * and an allgather (MPICH's recursive doubling: 9 messages) in 5 steps,
     * one reduce to rank 0; 20 stages of a halo exchange per axis. Ranks
     * out of step (imbalance 2000 per mille after each refinement, skew 5 us
     * before each collective: the UMQ side of the fit) send before rank 0
     * posts. The collective searches walk about 16 (PRQ) and 13 (UMQ)
     * elements and COL+PNP cuts both: the real-code model below (one
     * receive per step) and the earlier profiles fail the depth bounds. */
    CHECK_EQ(build(&mm_gen_miniamr, NULL, 1, &s, err, sizeof err), MMS_OK);
    t = count(&s, 512);
    CHECK_EQ(t.by_op[MM_COLL_ALLREDUCE], (5 * 4 * 40 + 8) * 123);
    CHECK_EQ(t.by_op[MM_COLL_ALLGATHER], 9);
    CHECK_EQ(t.by_op[MM_COLL_REDUCE], 9);
    CHECK_EQ(t.by_op[MM_COLL_BCAST], 0);
    CHECK_EQ(t.p2p, 2 * 5 * 20 * 3);
    depths ml = depths_of(&s, "list"), mc = depths_of(&s, "col+pnp");
    printf("miniamr: list coll PRQ %.2f UMQ %.2f, col+pnp PRQ %.2f UMQ %.2f\n",
           mean(&ml, 1, 0), mean(&ml, 1, 1), mean(&mc, 1, 0), mean(&mc, 1, 1));
    /* longer than radix's ~10 on both sides, more on the PRQ (as 1.46x > 1.37x) */
    CHECK(mean(&ml, 1, 0) > 12 && mean(&ml, 1, 0) < 60);
    CHECK(mean(&ml, 1, 1) > 10 && mean(&ml, 1, 1) < mean(&ml, 1, 0));
    CHECK(mean(&mc, 1, 0) * 8 < mean(&ml, 1, 0));
    CHECK(mean(&mc, 1, 1) * 4 < mean(&ml, 1, 1));
    mm_stream_free(&s);
    /* the real-code model: mv2_radix=0 runs MPICH's recursive doubling (9
     * receives per call at 512 processes), 10 steps as the earlier default:
     * blocking collectives one at a time, with every halo receive complete
     * before them, leave collective searches at one element or less */
    const char *amr_real[] = {"mv2_radix=0", "iters=10", "imbalance=0", "skew=2000", NULL};
    CHECK_EQ(build(&mm_gen_miniamr, amr_real, 1, &s, err, sizeof err), MMS_OK);
    t = count(&s, 512);
    CHECK_EQ(t.by_op[MM_COLL_ALLREDUCE], (10 * 4 * 40 + 8 * 2) * 9);
    CHECK_EQ(t.by_op[MM_COLL_ALLGATHER], 2 * 9);
    CHECK_EQ(t.by_op[MM_COLL_REDUCE], 9);
    CHECK_EQ(t.by_op[MM_COLL_BCAST], 0);
    CHECK_EQ(t.p2p, 2 * 10 * 20 * 3); /* a receive and a message each */
    depths ma = depths_of(&s, "list");
    printf("miniamr real-code model: list coll PRQ %.2f UMQ %.2f\n", mean(&ma, 1, 0),
           mean(&ma, 1, 1));
    CHECK(mean(&ma, 1, 0) <= 1.0 && mean(&ma, 1, 1) < 1.0);
    mm_stream_free(&s);
    /* comm_vars=1: a halo exchange before every variable's stencil (40 per
     * stage); partners=2: two halo ranks per side of an axis (two at the
     * corner); the collectives do not change */
    const char *amr_vars[] = {"comm_vars=1", "partners=2", "mv2_radix=0", "iters=10",
                              "imbalance=0", "skew=2000", NULL};
    CHECK_EQ(build(&mm_gen_miniamr, amr_vars, 1, &s, err, sizeof err), MMS_OK);
    t = count(&s, 512);
    CHECK_EQ(t.p2p, 2 * 10 * 20 * 40 * 3 * 2);
    CHECK_EQ(t.by_op[MM_COLL_ALLREDUCE], (10 * 4 * 40 + 8 * 2) * 9);
    size_t amr_unexp;
    uint64_t amr_left = 1;
    CHECK_EQ(replay_all(&s, &amr_unexp, &amr_left), 0);
    CHECK_EQ(amr_left, 0);
    mm_stream_free(&s);
    /* imbalance: ranks hold different work; same seed, same stream */
    const char *amr_imb[] = {"imbalance=2000", "iters=5", NULL};
    mm_stream s2;
    CHECK_EQ(build(&mm_gen_miniamr, amr_imb, 1, &s, err, sizeof err), MMS_OK);
    CHECK_EQ(build(&mm_gen_miniamr, amr_imb, 1, &s2, err, sizeof err), MMS_OK);
    CHECK_EQ(s.n, s2.n);
    CHECK(memcmp(s.ev, s2.ev, s.n * sizeof *s.ev) == 0);
    mm_stream_free(&s2);
    mm_stream_free(&s);

    /* fds: rank 0's mesh exchange and messages from every rank overlap the
     * gatherv, so point-to-point messages walk the posted collective
     * receives in one list (the paper's COL+LL gains on point-to-point PRQ
     * searches by separating them) and partners form (its LL+PNP opens
     * queues); overlap=0 is the earlier profile, phases one after the other */
    CHECK_EQ(build(&mm_gen_fds, NULL, 1, &s, err, sizeof err), MMS_OK);
    depths fl = depths_of(&s, "list"), fc = depths_of(&s, "col+ll"), fp = depths_of(&s, "ll+pnp");
    printf("fds: list p2p PRQ %.2f, col+ll %.2f; list coll UMQ %.2f, ll+pnp %.2f, %llu queues\n",
           mean(&fl, 0, 0), mean(&fc, 0, 0), mean(&fl, 1, 1), mean(&fp, 1, 1),
           (unsigned long long)fp.max_prq_queues);
    CHECK(mean(&fl, 0, 0) > 50 && mean(&fc, 0, 0) * 1.5 < mean(&fl, 0, 0));
    CHECK(mean(&fp, 1, 1) < mean(&fl, 1, 1) && fp.max_prq_queues > 3);
    mm_stream_free(&s);
    /* fds at 1024 processes: rank 0 opens as many collective PRQs as the cap
     * allows, 8 * sqrt(1024) = 256 (sec. 5.4.1), plus the profiling queue
     * and the point-to-point list; `skew` 1000 is fitted to it (2000: 226) */
    const char *big[] = {"n=1024", "iters=10", NULL};
    CHECK_EQ(build(&mm_gen_fds, big, 1, &s, err, sizeof err), MMS_OK);
    fc = depths_of(&s, "col+ll");
    printf("fds n=1024: col+ll PRQs %llu (cap 256 + 2)\n", (unsigned long long)fc.max_prq_queues);
    CHECK_EQ(fc.max_prq_queues, 256 + 2);
    mm_stream_free(&s);
    const char *seq[] = {"overlap=0", NULL};
    CHECK_EQ(build(&mm_gen_fds, seq, 1, &s, err, sizeof err), MMS_OK);
    fl = depths_of(&s, "list");
    CHECK(mean(&fl, 0, 0) < 2);
    mm_stream_free(&s);

    /* the pipeline refuses blocking operations and bad counts */
    mm_csim sim;
    mm_csim_plan plan;
    mm_csim_net net = {1000, 100, 0, 0};
    CHECK_EQ(mm_csim_init(&sim, 8, 0, &net, 1, err, sizeof err), MMS_OK);
    CHECK_EQ(mm_csim_plan_make(&sim, &plan, MM_COLL_ALLREDUCE, MM_ALG_AUTO, 0, 0, 8, err,
                               sizeof err), MMS_OK);
    CHECK_EQ(mm_csim_pipeline(&sim, &plan, 2, 1, 1, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "nonblocking") != NULL);
    CHECK_EQ(mm_csim_pipeline(&sim, &plan, 0, 1, 1, err, sizeof err), MMS_EFORMAT);
    CHECK_EQ(mm_csim_pipeline(&sim, &plan, 1, 1, 0, err, sizeof err), MMS_EFORMAT);
    CHECK_EQ(mm_csim_pipeline(&sim, &plan, 1, 0, 1, err, sizeof err), MMS_EFORMAT);
    CHECK_EQ(mm_csim_pipeline(&sim, &plan, 1, 1, 1, err, sizeof err), MMS_OK);
    mm_csim_plan_free(&plan);
    mm_csim_free(&sim);
}

static void test_errors(void)
{
    mm_stream s;
    char err[512];
    const char *bad_rank[] = {"n=8", "rank=8", NULL};
    CHECK_EQ(build(&mm_gen_allreduce, bad_rank, 1, &s, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "allreduce") && strstr(err, "rank 8") && strstr(err, "0..7"));
    mm_stream_free(&s);
    const char *bad_root[] = {"n=8", "root=9", NULL};
    CHECK_EQ(build(&mm_gen_bcast, bad_root, 1, &s, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "root 9") != NULL);
    mm_stream_free(&s);
    const char *rd6[] = {"n=6", "alg=recursive_doubling", NULL};
    CHECK_EQ(build(&mm_gen_allgather, rd6, 1, &s, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "power-of-two") != NULL);
    CHECK_EQ(s.n, 0);
    mm_stream_free(&s);
    const char *app_rank[] = {"n=16", "rank=16", NULL};
    CHECK_EQ(build(&mm_gen_fds, app_rank, 1, &s, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "fds") && strstr(err, "rank 16"));
    mm_stream_free(&s);
    const char *radix1[] = {"mv2_radix=1", NULL};
    CHECK_EQ(build(&mm_gen_miniamr, radix1, 1, &s, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "miniamr") && strstr(err, "mv2_radix 1"));
    CHECK_EQ(s.n, 0);
    mm_stream_free(&s);
}

/* MVAPICH2's k-nomial reduce_p2p (coll_mv2.h): 2(n-1) transfers in step
 * order; replayed step by step (what a rank sends in a step is what it held
 * at the step's start), every rank ends with every rank's contribution;
 * every rank receives its reduce children in one step, before it sends to
 * its parent, and rank 0 posts them as MVAPICH2 does (radix 1 first, j
 * descending). Bad sizes and radices are refused. */
static void test_mv2_reduce_p2p(void)
{
    static const int32_t ns[] = {1, 2, 5, 64, 100, 512, 1000};
    static const uint32_t ks[] = {2, 3, 4, 128, 512, 2048};
    char err[256];
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof ks / sizeof *ks; b++) {
            int32_t n = ns[a];
            mm_coll_xfer *x;
            size_t nx;
            CHECK_EQ(mm_coll_mv2_reduce_p2p(n, ks[b], 8, &x, &nx, err, sizeof err), MMS_OK);
            CHECK_EQ(nx, 2 * (size_t)(n - 1));
            size_t w = ((size_t)n + 63) / 64;
            uint64_t *have = calloc((size_t)n * w, sizeof *have),
                     *snap = calloc((size_t)n * w, sizeof *snap);
            uint32_t *recv_step = calloc((size_t)n, sizeof *recv_step);
            if (!have || !snap || !recv_step)
                abort();
            for (int32_t r = 0; r < n; r++)
                have[(size_t)r * w + (size_t)r / 64] |= 1ull << (r % 64);
            size_t bad = 0;
            for (size_t i = 0; i < nx;) {
                size_t j = i;
                memcpy(snap, have, (size_t)n * w * sizeof *have);
                for (; j < nx && x[j].step == x[i].step; j++) {
                    const mm_coll_xfer *e = &x[j];
                    bad += e->src == e->dst || e->src < 0 || e->dst < 0 || e->src >= n ||
                           e->dst >= n || e->bytes != 8 || (j && e->step < x[j - 1].step);
                    if (e->mode == MM_XFER_REDUCE) {
                        bad += e->tag_op != MM_COLL_REDUCE;
                        /* a child sends after its own receives, all in one step */
                        bad += recv_step[e->src] && recv_step[e->src] >= e->step;
                        bad += recv_step[e->dst] && recv_step[e->dst] != e->step;
                        recv_step[e->dst] = e->step;
                        for (size_t q = 0; q < w; q++)
                            have[(size_t)e->dst * w + q] |= snap[(size_t)e->src * w + q];
                    } else {
                        bad += e->tag_op != MM_COLL_BCAST;
                        memcpy(&have[(size_t)e->dst * w], &snap[(size_t)e->src * w],
                               w * sizeof *have);
                    }
                }
                i = j;
            }
            size_t missing = 0;
            for (int32_t r = 0; r < n; r++)
                for (int32_t q = 0; q < n; q++)
                    missing += !(have[(size_t)r * w + (size_t)q / 64] >> (q % 64) & 1);
            CHECK_EQ(bad, 0);
            CHECK_EQ(missing, 0);
            free(have);
            free(snap);
            free(recv_step);
            free(x);
        }
    /* rank 0 at 512 processes, radix 128: 127, 126, ..., 1, then 384, 256, 128 */
    mm_coll_xfer *x;
    size_t nx, k = 0;
    int32_t want[130];
    for (int32_t j = 127; j >= 1; j--)
        want[k++] = j;
    want[k++] = 384, want[k++] = 256, want[k++] = 128;
    CHECK_EQ(mm_coll_mv2_reduce_p2p(512, 128, 8, &x, &nx, err, sizeof err), MMS_OK);
    k = 0;
    for (size_t i = 0; i < nx; i++)
        if (x[i].dst == 0) {
            CHECK(k < 130 && x[i].src == want[k] && x[i].mode == MM_XFER_REDUCE);
            k++;
        }
    CHECK_EQ(k, 130);
    free(x);
    CHECK_EQ(mm_coll_mv2_reduce_p2p(512, 1, 8, &x, &nx, err, sizeof err), MMS_EFORMAT);
    CHECK(strstr(err, "radix") != NULL);
    CHECK_EQ(mm_coll_mv2_reduce_p2p(0, 4, 8, &x, &nx, err, sizeof err), MMS_EFORMAT);
}

int main(void)
{
    test_every_generator();
    test_every_algorithm();
    test_gather_hot_spot();
    test_profiles();
    test_profile_queues();
    test_mv2_reduce_p2p();
    test_errors();
    return check_report("test_gen_coll");
}
