/*
 * gen_apps.c - synthetic application profiles after Ghazimirsaeed et al., ParCo 2019, Fig. 1 and
 * sec. 5.3-5.4: Radix, Nbody, MiniAMR and FDS as one rank of an n-process
 * job sees them (gen_coll.h, docs/collectives.md).
 *
 * These are models, not traces: each profile is a loop of the collectives
 * the paper names for the application (expanded into point-to-point
 * messages, coll_algo.h) and of a point-to-point pattern typical of it,
 * timed by the arrival model (coll_sim.h). They reproduce the mix of
 * collective and point-to-point queue elements the figure shows and the
 * queue behaviour the paper describes (short traversals in Radix and
 * MiniAMR, long ones at FDS rank 0), not the applications' exact traffic,
 * so their mm_gen entries say synthetic = 1.
 *
 * Collective traffic uses the operations' negative tags and kind COLL;
 * point-to-point traffic uses tags >= 0. The library whose selection rules
 * pick the algorithms defaults to MPICH, because the paper ran MVAPICH2,
 * which inherits MPICH's collectives.
 */
#include "gen_coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_mv2.h"
#include "coll_sim.h"
#include "gen_emit.h"

static const char *const lib_choices[] = {"ompi", "mpich", NULL};
static const char *const gather_algs[] = {"auto", "linear", "direct", "binomial", NULL};

/* Parameters every profile has, first in its table. */
enum { A_N, A_RANK, A_ITERS, A_SKEW, A_LIB, A_LAT, A_COMPUTE, A_P2P_BYTES, A_COLL_BYTES, A_NOISE, A_X1, A_X2,
       A_X3, A_X4, A_X5, A_X6, A_X7, A_X8 };

#define APP_PARAMS(n_def, rank_def, iters_def, iters_doc, compute_def, p2p_doc, p2p_def, coll_doc, coll_def, noise_def, skew_def) \
    {"n", "processes in the job", n_def, 2, 16384, NULL},                                       \
    {"rank", "the rank whose matching engine the stream feeds", rank_def, 0, 16383, NULL},      \
    {"iters", iters_doc, iters_def, 1, 1000000, NULL},                                          \
    {"skew", "largest random delay of each rank before each collective, ns", skew_def, 0,      \
     1000000000000, NULL},                                                                      \
    {"lib", "whose selection rules pick the collective algorithms", 1, 0, 1, lib_choices},      \
    {"latency", "per-message latency, ns", 1000, 0, 1000000000, NULL},                          \
    {"compute", "mean computation per iteration, ns", compute_def, 0, 1000000000000, NULL},     \
    {"p2p_bytes", p2p_doc, p2p_def, 0, (int64_t)1 << 40, NULL},                                 \
    {"coll_bytes", coll_doc, coll_def, 0, (int64_t)1 << 40, NULL},                              \
    {"noise", "largest random delay of each collective message's send, ns (progress noise)",    \
     noise_def, 0, 1000000000, NULL}

/* ---- shared pieces ---- */

typedef struct app {
    const char  *name;
    mm_csim      sim;
    mm_csim_plan plan[6];
    int          nplans;
    int          failed; /* a plan could not be made: its MMS_E* code (out of
                            memory or a refused call), err says why     */
    int          over;   /* a plan was refused for its size (plan_max): it
                            has no transfers, app_check reports it after
                            the events (over[] says why)                  */
    char         over_why[512];
    int          lib;
    char        *err;
    size_t       errlen;
} app;

static int app_start(app *a, const char *name, const int64_t *v, uint64_t seed,
                     char *err, size_t errlen)
{
    a->name = name;
    a->nplans = 0;
    a->failed = 0;
    a->over = 0;
    a->lib = (int)v[A_LIB];
    a->err = err;
    a->errlen = errlen;
    if (v[A_RANK] >= v[A_N]) {
        snprintf(err, errlen, "%s: rank %lld outside 0..%lld (n=%lld)", name,
                 (long long)v[A_RANK], (long long)v[A_N] - 1, (long long)v[A_N]);
        return MMS_EFORMAT;
    }
    mm_csim_net net = {(uint64_t)v[A_LAT], 100, (uint64_t)v[A_SKEW], (uint64_t)v[A_NOISE]};
    return mm_csim_init(&a->sim, (int32_t)v[A_N], (int32_t)v[A_RANK], &net, seed, err, errlen);
}

/* Plan a collective and return its index; after a failure (a->failed,
 * the error set) later calls do nothing, so a profile plans everything and
 * checks once. */
static int app_plan(app *a, int op, int alg, int32_t root, uint64_t bytes, uint64_t times)
{
    char why[256];
    mm_csim_plan *p = &a->plan[a->nplans];
    if (a->failed)
        return -1;
    if (a->over) { /* the run is refused: no more big plans, nothing sized */
        memset(p, 0, sizeof *p);
        return a->nplans++;
    }
    /* the plan is called at least `times` times: refused while it is made
     * when that is over the simulation's limit (mm_gen_plan_max) */
    a->sim.plan_max = mm_gen_plan_max(times);
    int rc = mm_csim_plan_make(&a->sim, p, op, alg, a->lib, root, bytes, why, sizeof why);
    a->sim.plan_max = 0;
    if (rc != MMS_OK && p->over) {
        mm_gen_plan_over(a->name, why, a->over_why, sizeof a->over_why);
        a->over = 1;
        memset(p, 0, sizeof *p); /* no transfers: sized as nothing, never run */
        return a->nplans++;
    }
    if (rc != MMS_OK) {
        snprintf(a->err, a->errlen, "%s: %s", a->name, why);
        a->failed = rc;
        return -1;
    }
    return a->nplans++;
}

/* The same for MVAPICH2's k-nomial reduce_p2p allreduce (coll_mv2.h). */
static int app_plan_mv2(app *a, uint32_t radix, uint64_t bytes)
{
    char why[256];
    if (a->failed)
        return -1;
    int rc = mm_csim_plan_mv2(&a->sim, &a->plan[a->nplans], radix, bytes, why, sizeof why);
    if (rc != MMS_OK) {
        snprintf(a->err, a->errlen, "%s: %s", a->name, why);
        a->failed = rc;
        return -1;
    }
    return a->nplans++;
}

static int app_coll(app *a, int plan)
{
    return mm_csim_collective(&a->sim, &a->plan[plan], a->err, a->errlen);
}

static int app_finish(app *a, mm_stream *s, int rc)
{
    if (rc == MMS_OK)
        rc = mm_csim_write(&a->sim, s, a->err, a->errlen);
    for (int i = 0; i < a->nplans; i++)
        mm_csim_plan_free(&a->plan[i]);
    mm_csim_free(&a->sim);
    return rc;
}

/* A run's size, added up before simulating it (mm_gen_check_size):
 * `times` calls of a plan or of a point-to-point pattern. */
typedef struct app_size {
    uint64_t events, transfers;
} app_size;

static void size_add(app_size *z, uint64_t times, mm_csim_cost c)
{
    z->events = mm_gen_muladd(times, c.events, z->events);
    z->transfers = mm_gen_muladd(times, c.transfers, z->transfers);
}

static void size_plan(app_size *z, const app *a, uint64_t times, int plan)
{
    size_add(z, times, mm_csim_plan_cost(&a->sim, &a->plan[plan]));
}

static int app_check(app *a, mm_stream *s, const app_size *z, const char *what)
{
    /* sized without a refused plan (a->over): the counts are lower bounds */
    int rc = mm_gen_check_size(a->name, z->events, z->transfers, a->over, what, a->err,
                               a->errlen);
    if (rc == MMS_OK && a->over) { /* within the limits without the refused plans */
        snprintf(a->err, a->errlen, "%s", a->over_why);
        rc = MMS_EFORMAT;
    }
    return rc == MMS_OK ? MMS_OK : app_finish(a, s, rc);
}

/* A 3D process grid px * py * pz = n, as cubic as n allows (MPI_Dims_create
 * style): the halo neighbours of MiniAMR and FDS. */
typedef struct grid {
    int32_t px, py, pz;
    int     dir;   /* 0, 1, 2: one axis; 3: all three */
    int32_t reach; /* ranks on each side of an axis: 1 the face neighbour, k also the next k-1 */
} grid;

static grid grid_make(int32_t n)
{
    grid g = {n, 1, 1, 3, 1};
    int32_t z = 1;
    for (int32_t a = 1; (int64_t)a * a * a <= n; a++)
        if (n % a == 0)
            z = a;
    int32_t m = n / z, y = 1;
    for (int32_t a = 1; (int64_t)a * a <= m; a++)
        if (m % a == 0)
            y = a;
    g.px = m / y;
    g.py = y;
    g.pz = z;
    return g;
}

/* The i-th existing neighbour of p along the axes of g->dir: for j = 1 ..
 * reach, the rank j places before p, then the one j places after (axis by
 * axis); reach 1 gives the face neighbours. */
static int32_t grid_from(const void *ctx, int32_t p, int i)
{
    const grid *g = ctx;
    int32_t c[3] = {p % g->px, (p / g->px) % g->py, p / (g->px * g->py)};
    int32_t dim[3] = {g->px, g->py, g->pz};
    int32_t stride[3] = {1, g->px, g->px * g->py};
    for (int d = 0; d < 3; d++) {
        if (g->dir != 3 && g->dir != d)
            continue;
        for (int32_t j = 1; j <= g->reach; j++) {
            if (c[d] >= j && i-- == 0)
                return p - j * stride[d];
            if (c[d] + j < dim[d] && i-- == 0)
                return p + j * stride[d];
        }
    }
    return -1;
}

/* ---- radix ---- */

/* Radix (Ghazimirsaeed et al., ParCo 2019 sec. 5.4.1: MPI_Iallgather, MPI_Allreduce, MPI_Reduce,
 * MPI_Reduce_scatter; almost every queue element collective, Fig. 1a;
 * queues of about 10 elements, sec. 5.3.1; iallgather about 65% of the
 * collective queues, sec. 5.4.1). One iteration is one radix pass:
 * `inflight` iallgathers of bucket counts in flight together, started in
 * groups of `group` back to back, a group `stagger` message latencies after
 * the previous one, each progressing on its own (mm_csim_pipeline): the
 * partners of later recursive-doubling steps do not wait for the observed
 * rank, so messages of many calls and steps wait in its UMQ and each
 * receive walks the other calls' messages; `inflight` and `group` are
 * fitted to the paper's "around 10 elements" (docs/workloads.md); then `allreduces`
 * allreduces of the global counts (fitted so that the iallgather is about
 * 65% of the collective elements), a reduce_scatter of the bucket totals,
 * the key exchange (a few messages from other ranks received with
 * MPI_ANY_SOURCE: who sends first is not known; an assumption, see docs),
 * and a reduce of statistics to rank 0. */
static const mm_gen_param radix_params[] = {
    APP_PARAMS(512, 0, 100, "radix passes", 20000,
               "bytes of each key-exchange message", 4096,
               "bytes of each rank's bucket counts", 256, 0, 2000),
    {"peers", "key-exchange messages each rank receives per pass", 2, 0, 64, NULL},
    {"anysrc", "1: key-exchange receives use MPI_ANY_SOURCE", 1, 0, 1, NULL},
    {"inflight", "iallgathers of bucket counts in flight per pass", 24, 1, 256, NULL},
    {"stagger", "message latencies between the starts of two groups of iallgathers", 1, 1, 64,
     NULL},
    {"group", "iallgathers started back to back as one group", 2, 1, 256, NULL},
    {"allreduces", "allreduces of the global counts per pass", 11, 0, 1000, NULL},
};

typedef struct offsets { int32_t n, k, off[64]; } offsets;

static int32_t offsets_from(const void *ctx, int32_t p, int i)
{
    const offsets *o = ctx;
    return i < o->k ? (p - o->off[i] + o->n) % o->n : -1;
}

static int run_radix(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    app a;
    int rc = app_start(&a, "radix", v, seed, err, errlen);
    if (rc != MMS_OK)
        return rc;
    uint64_t cb = (uint64_t)v[A_COLL_BYTES], nit = (uint64_t)v[A_ITERS];
    int iag = app_plan(&a, MM_COLL_IALLGATHER, MM_ALG_AUTO, 0, cb, mm_gen_muladd(nit, (uint64_t)v[A_X3], 0));
    int ar = app_plan(&a, MM_COLL_ALLREDUCE, MM_ALG_AUTO, 0, cb, mm_gen_muladd(nit, (uint64_t)v[A_X6], 0));
    int rs = app_plan(&a, MM_COLL_REDUCE_SCATTER, MM_ALG_AUTO, 0, cb, nit);
    int red = app_plan(&a, MM_COLL_REDUCE, MM_ALG_AUTO, 0, 64, nit);
    if (a.failed)
        return app_finish(&a, s, a.failed);
    offsets o = {a.sim.n, 0, {0}};
    o.k = (int32_t)v[A_X1] < a.sim.n - 1 ? (int32_t)v[A_X1] : a.sim.n - 1;
    for (int32_t i = 0; i < o.k; i++)
        o.off[i] = i + 1; /* for the size: every pass has o.k senders */
    uint64_t iters = (uint64_t)v[A_ITERS];
    app_size z = {0, 0};
    size_plan(&z, &a, iters * (uint64_t)v[A_X3], iag);
    size_plan(&z, &a, iters * (uint64_t)v[A_X6], ar);
    size_plan(&z, &a, iters, rs);
    size_plan(&z, &a, iters, red);
    size_add(&z, iters, mm_csim_p2p_cost(&a.sim, offsets_from, &o));
    if ((rc = app_check(&a, s, &z, "iters, n, inflight, allreduces or peers")) != MMS_OK)
        return rc;
    for (int64_t it = 0; rc == MMS_OK && it < v[A_ITERS]; it++) {
        mm_csim_compute(&a.sim, (uint64_t)v[A_COMPUTE]);
        if ((rc = mm_csim_pipeline(&a.sim, &a.plan[iag], (uint32_t)v[A_X3], (uint32_t)v[A_X5],
                                   (uint32_t)v[A_X4], err, errlen)) != MMS_OK)
            break;
        for (int64_t k = 0; rc == MMS_OK && k < v[A_X6]; k++)
            rc = app_coll(&a, ar);
        if (rc != MMS_OK || (rc = app_coll(&a, rs)) != MMS_OK)
            break;
        /* distinct senders for this pass, the same offsets for every rank */
        for (int32_t i = 0; i < o.k; i++) {
            int32_t off, dup;
            do {
                off = 1 + (int32_t)mm_rng_below(&a.sim.rng, (uint64_t)a.sim.n - 1);
                dup = 0;
                for (int32_t j = 0; j < i; j++)
                    dup |= o.off[j] == off;
            } while (dup);
            o.off[i] = off;
        }
        if ((rc = mm_csim_p2p(&a.sim, offsets_from, &o, (uint64_t)v[A_P2P_BYTES], 1,
                              (int)v[A_X2], err, errlen)) != MMS_OK)
            break;
        rc = app_coll(&a, red);
    }
    return app_finish(&a, s, rc);
}

/* ---- nbody ---- */

/* Nbody (sec. 5.4: MPI_Allgather, MPI_Allreduce, MPI_Bcast, MPI_Reduce;
 * most queue elements point-to-point, Fig. 1b; the partner/non-partner
 * design gains on its point-to-point elements, sec. 5.3.2, so its
 * point-to-point queue reaches the threshold theta = 100 and some peers
 * send more than the average, sec. 4.2). One iteration is a time step:
 * every rank exchanges particles with the `peers` ranks before it (one
 * message each, posted at once: MPI_Irecv ... MPI_Waitall), the `hot`
 * nearest of them sending `hot_msgs` messages in all (the close
 * interactions); then an allgather of positions and an allreduce of the
 * energy; every 10th step a bcast of parameters from rank 0 and a reduce
 * of diagnostics to it. */
static const mm_gen_param nbody_params[] = {
    APP_PARAMS(512, 0, 100, "time steps", 2000000,
               "bytes of a particle message", 4096,
               "bytes of each rank's positions in the allgather", 64, 0, 2000),
    {"peers", "ranks each rank receives particles from per step", 32, 1, 4096, NULL},
    {"hot", "nearest of them that send more (the close interactions)", 4, 0, 4096, NULL},
    {"hot_msgs", "messages each of the hot peers sends per step", 32, 1, 4096, NULL},
};

typedef struct nbody_peers { int32_t n, peers, hot, extra; } nbody_peers;

/* The i-th sender into p: p-1, ..., p-peers (one message each), then the hot
 * ones again, round-robin, hot_msgs - 1 more times each. */
static int32_t nbody_from(const void *ctx, int32_t p, int i)
{
    const nbody_peers *b = ctx;
    int32_t d;
    if (i < b->peers)
        d = 1 + i;
    else if (i < b->peers + b->extra)
        d = 1 + (i - b->peers) % b->hot;
    else
        return -1;
    return (int32_t)(((int64_t)p - d % b->n + b->n) % b->n);
}

static int run_nbody(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    app a;
    int rc = app_start(&a, "nbody", v, seed, err, errlen);
    if (rc != MMS_OK)
        return rc;
    uint64_t nit = (uint64_t)v[A_ITERS];
    int ag = app_plan(&a, MM_COLL_ALLGATHER, MM_ALG_AUTO, 0, (uint64_t)v[A_COLL_BYTES], nit);
    int ar = app_plan(&a, MM_COLL_ALLREDUCE, MM_ALG_AUTO, 0, 8, nit);
    int bc = app_plan(&a, MM_COLL_BCAST, MM_ALG_AUTO, 0, 64, (nit + 9) / 10);
    int red = app_plan(&a, MM_COLL_REDUCE, MM_ALG_AUTO, 0, 64, nit / 10);
    if (a.failed)
        return app_finish(&a, s, a.failed);
    int32_t n = a.sim.n;
    nbody_peers b = {n, (int32_t)(v[A_X1] < n - 1 ? v[A_X1] : n - 1), 0, 0};
    b.hot = (int32_t)(v[A_X2] < b.peers ? v[A_X2] : b.peers);
    b.extra = (int32_t)(b.hot * (v[A_X3] - 1) > 1000000 ? 1000000 : b.hot * (v[A_X3] - 1));
    uint64_t iters = (uint64_t)v[A_ITERS];
    app_size z = {0, 0};
    size_plan(&z, &a, (iters + 9) / 10, bc);
    size_add(&z, iters, mm_csim_p2p_cost(&a.sim, nbody_from, &b));
    size_plan(&z, &a, iters, ag);
    size_plan(&z, &a, iters, ar);
    size_plan(&z, &a, iters / 10, red);
    if ((rc = app_check(&a, s, &z, "iters, n, peers, hot or hot_msgs")) != MMS_OK)
        return rc;
    for (int64_t it = 0; rc == MMS_OK && it < v[A_ITERS]; it++) {
        if (it % 10 == 0 && (rc = app_coll(&a, bc)) != MMS_OK)
            break;
        mm_csim_compute(&a.sim, (uint64_t)v[A_COMPUTE]);
        if ((rc = mm_csim_p2p(&a.sim, nbody_from, &b, (uint64_t)v[A_P2P_BYTES], 0, 0, err,
                              errlen)) != MMS_OK ||
            (rc = app_coll(&a, ag)) != MMS_OK || (rc = app_coll(&a, ar)) != MMS_OK)
            break;
        if (it % 10 == 9)
            rc = app_coll(&a, red);
    }
    return app_finish(&a, s, rc);
}

/* ---- miniamr ---- */

/* MiniAMR (sec. 5.4: MPI_Allreduce, MPI_Bcast, MPI_Allgather, MPI_Reduce;
 * allreduce contributes most; more collective than point-to-point elements,
 * Fig. 1c; the paper ran miniAMR's default refinement options), laid out as
 * the reference miniAMR's driver() (driver.c) runs a time step: `stages`
 * stages, each with the halo exchange of comm() (comm.c: per axis, MPI_Irecv
 * from the halo partners with tag = axis, MPI_Isend, MPI_Waitany until all
 * are in; specific sources) for every `comm_vars` variables, and then,
 * variable by variable, the stencil and, every `checksum` stages,
 * check_sum()'s MPI_Allreduce of one double (check_sum.c): `vars` small
 * blocking allreduces one stencil apart. The defaults are miniAMR's
 * (param.h: 40 variables, all exchanged together, 20 stages, a checksum
 * every 5 stages, refinement every 5 steps). Every `refine` steps the
 * refinement: eight small allreduces of block counts (refine.c has more)
 * and an allgather; a bcast of the parameters from rank 0 first (main.c)
 * and a reduce of the profile to rank 0 last (the paper's list; the
 * reference code's report uses allreduces).
 *
 * Every receive miniAMR posts is complete before it calls a collective, and
 * its collectives are blocking, so with algorithms that post one receive
 * per step (mv2_radix=0: those `lib` picks) a collective search meets only
 * what arrived early and stays at one element or less. The paper's queues
 * (collective searches longer than Radix's ~10 elements, COL+PNP 1.37x and
 * 1.46x on them) need receives posted many at a time: with `mv2_radix` = k
 * the allreduces run MVAPICH2's reduce_p2p on k-nomial trees
 * (coll_mv2.h), where rank 0, the root, posts the receives of all its
 * children at once. The default k = 120 is fitted to COL+PNP's 1.46x on
 * collective PRQ searches (MVAPICH2's tuning tables give 4; 128 gives the
 * same within noise, 120 keeps the default stream under 200,000 events).
 * The UMQ side (COL+PNP's 1.37x on collective UMQ searches) needs sums that
 * reach rank 0 before it posts: ranks out of step from the first allreduce
 * on, `imbalance` 2000 and `skew` 5000 (the other profiles 2000), fitted;
 * docs/workloads.md gives the depths and what is not reproduced. */
static const mm_gen_param miniamr_params[] = {
    APP_PARAMS(512, 0, 5, "time steps", 800000,
               "bytes of a halo face message", 4096,
               "bytes of the checksum allreduce", 8, 0, 5000),
    {"refine", "time steps between refinements", 5, 1, 1000000, NULL},
    {"stages", "stages per time step (halo exchange, stencils, checksums)", 20, 1, 1000, NULL},
    {"vars", "variables: stencils and checksum allreduces per checksum stage", 40, 1, 1000,
     NULL},
    {"checksum", "stages between checksum stages", 5, 1, 1000, NULL},
    {"comm_vars", "variables per halo exchange (0: all, as miniAMR's default)", 0, 0, 1000, NULL},
    {"partners", "halo partner ranks on each side of an axis (refined blocks spread over ranks)",
     1, 1, 64, NULL},
    {"imbalance", "largest extra work of a rank, per mille of the mean, drawn per rank after "
                  "each refinement (blocks per rank differ)", 2000, 0, 100000, NULL},
    {"mv2_radix", "0: the allreduces run the algorithms `lib` picks; k >= 2: MVAPICH2's "
                  "reduce_p2p on k-nomial trees of radix k (all of a rank's children's "
                  "receives posted at once)", 120, 0, MM_COLL_MV2_RADIX_MAX, NULL},
};

static int run_miniamr(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    app a;
    int rc = app_start(&a, "miniamr", v, seed, err, errlen);
    if (rc != MMS_OK)
        return rc;
    uint32_t radix = (uint32_t)v[A_X8];
    if (radix == 1) {
        snprintf(err, errlen, "miniamr: mv2_radix 1 (0: the algorithms of lib; a radix: 2..%d)",
                 MM_COLL_MV2_RADIX_MAX);
        return app_finish(&a, s, MMS_EFORMAT);
    }
    uint64_t nit = (uint64_t)v[A_ITERS], per_refine = nit / (uint64_t)v[A_X1];
    int ck = radix ? app_plan_mv2(&a, radix, (uint64_t)v[A_COLL_BYTES])
                   : app_plan(&a, MM_COLL_ALLREDUCE, MM_ALG_AUTO, 0, (uint64_t)v[A_COLL_BYTES], nit);
    int cnt = radix ? app_plan_mv2(&a, radix, 8)
                    : app_plan(&a, MM_COLL_ALLREDUCE, MM_ALG_AUTO, 0, 8, 8 * per_refine);
    int ag = app_plan(&a, MM_COLL_ALLGATHER, MM_ALG_AUTO, 0, 8, per_refine);
    int red = app_plan(&a, MM_COLL_REDUCE, MM_ALG_AUTO, 0, 1024, 1);
    int bc = app_plan(&a, MM_COLL_BCAST, MM_ALG_AUTO, 0, 156, 1);
    if (a.failed)
        return app_finish(&a, s, a.failed);
    grid g = grid_make(a.sim.n);
    g.reach = (int32_t)v[A_X6];
    uint64_t iters = (uint64_t)v[A_ITERS], refine = (uint64_t)v[A_X1];
    uint64_t stages = (uint64_t)v[A_X2], vars = (uint64_t)v[A_X3], every = (uint64_t)v[A_X4];
    uint64_t group = v[A_X5] == 0 || (uint64_t)v[A_X5] > vars ? vars : (uint64_t)v[A_X5];
    uint64_t exchanges = (vars + group - 1) / group; /* halo exchanges per stage */
    uint32_t *load = NULL;
    if (v[A_X7] && !(load = malloc((size_t)a.sim.n * sizeof *load))) {
        snprintf(err, errlen, "miniamr: out of memory for the loads of %ld ranks", (long)a.sim.n);
        return app_finish(&a, s, MMS_ENOMEM);
    }
    uint64_t checks = (stages + every - 1) / every; /* stages 0, every, 2 every, ... */
    uint64_t stencil = (uint64_t)v[A_COMPUTE] / stages / vars; /* one variable's stencil */
    app_size z = {0, 0};
    for (g.dir = 0; g.dir < 3; g.dir++)
        size_add(&z, mm_gen_muladd(mm_gen_muladd(iters, stages, 0), exchanges, 0),
                 mm_csim_p2p_cost(&a.sim, grid_from, &g));
    size_plan(&z, &a, mm_gen_muladd(mm_gen_muladd(iters, checks, 0), vars, 0), ck);
    size_plan(&z, &a, 8 * (iters / refine), cnt);
    size_plan(&z, &a, iters / refine, ag);
    size_plan(&z, &a, 1, red);
    size_plan(&z, &a, 1, bc);
    if ((rc = app_check(&a, s, &z, "iters, n, stages, vars or mv2_radix")) != MMS_OK) {
        free(load);
        return rc;
    }
    rc = app_coll(&a, bc); /* the parameters from rank 0 (main.c) */
    for (uint64_t it = 0; rc == MMS_OK && it < iters; it++) {
        if (load && it % refine == 0) /* after a refinement the ranks hold other blocks */
            for (int32_t r = 0; r < a.sim.n; r++)
                load[r] = (uint32_t)mm_rng_below(&a.sim.rng, (uint64_t)v[A_X7] + 1);
        for (uint64_t st = 0; rc == MMS_OK && st < stages; st++) {
            for (uint64_t var = 0; rc == MMS_OK && var < vars; var++) {
                for (g.dir = 0; var % group == 0 && rc == MMS_OK && g.dir < 3; g.dir++)
                    rc = mm_csim_p2p(&a.sim, grid_from, &g, (uint64_t)v[A_P2P_BYTES], g.dir, 0,
                                     err, errlen);
                if (rc != MMS_OK)
                    break;
                mm_csim_compute_load(&a.sim, stencil, load);
                if (st % every == 0)
                    rc = app_coll(&a, ck);
            }
        }
        if (rc == MMS_OK && (it + 1) % refine == 0) {
            for (int k = 0; rc == MMS_OK && k < 8; k++)
                rc = app_coll(&a, cnt);
            if (rc == MMS_OK)
                rc = app_coll(&a, ag);
        }
    }
    if (rc == MMS_OK)
        rc = app_coll(&a, red); /* the profile to rank 0 */
    free(load);
    return app_finish(&a, s, rc);
}

/* ---- fds ---- */

/* FDS (sec. 5.3.1 and 5.4: MPI_Gather, MPI_Gatherv, MPI_Allgatherv,
 * MPI_Allreduce; every process sends messages to rank 0 through
 * MPI_Gather(v), the hot spot; rank 0 holds most of the queue elements and
 * most of them are collective, Fig. 1d). One iteration is a time step: the
 * exchange of mesh boundaries with the face neighbours on a 3D process grid
 * (specific sources, tag 0), an allreduce of the time-step control, and a
 * gatherv of the diagnostics to rank 0; every 10th step a gather and an
 * allgatherv. The gather algorithm defaults to "direct" (rank 0 posts all
 * n-1 receives at once), MVAPICH2's choice for small messages that matches
 * the long rank-0 queues the paper reports; auto would follow `lib`. The
 * default `skew` (1000 ns, the other profiles 2000) is fitted to sec. 5.4.1:
 * at 1024 processes rank 0 opens the cap of 8 * sqrt(1024) = 256 collective
 * PRQs (with 2000 it opens 226). */
static const mm_gen_param fds_params[] = {
    APP_PARAMS(512, 0, 80, "time steps", 50000,
               "bytes of a mesh-boundary message", 8192,
               "bytes each rank gathers to rank 0", 256, 0, 1000),
    {"gather_alg", "algorithm of MPI_Gather(v)", 2, 0, 3, gather_algs},
    {"overlap", "1: the mesh exchange and the messages to rank 0 overlap the gatherv "
                "(posted after its receives); 0: one after the other", 1, 0, 1, NULL},
    {"to_root", "point-to-point messages every rank sends rank 0 per step (with overlap)",
     1, 0, 1000, NULL},
};

/* With overlap: the face neighbours of p, then, into rank 0, to_root
 * messages from every other rank. */
typedef struct fds_p2p { grid g; int32_t n, to_root; } fds_p2p;

static int32_t fds_from(const void *ctx, int32_t p, int i)
{
    const fds_p2p *f = ctx;
    int32_t q = grid_from(&f->g, p, i);
    if (q >= 0)
        return q;
    if (p != 0 || f->n < 2)
        return -1;
    int nb = 0;
    while (grid_from(&f->g, p, nb) >= 0)
        nb++;
    int64_t j = (int64_t)i - nb;
    return j < (int64_t)f->to_root * (f->n - 1) ? 1 + (int32_t)(j % (f->n - 1)) : -1;
}

static int run_fds(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    app a;
    int rc = app_start(&a, "fds", v, seed, err, errlen);
    if (rc != MMS_OK)
        return rc;
    int galg = mm_coll_alg_from_name(gather_algs[v[A_X1]]);
    uint64_t nit = (uint64_t)v[A_ITERS];
    int gv = app_plan(&a, MM_COLL_GATHERV, galg, 0, (uint64_t)v[A_COLL_BYTES], nit);
    int ga = app_plan(&a, MM_COLL_GATHER, galg, 0, 8, nit / 10);
    int ar = app_plan(&a, MM_COLL_ALLREDUCE, MM_ALG_AUTO, 0, 8, nit);
    int agv = app_plan(&a, MM_COLL_ALLGATHERV, MM_ALG_AUTO, 0, 64, nit / 10);
    if (a.failed)
        return app_finish(&a, s, a.failed);
    grid g = grid_make(a.sim.n);
    fds_p2p f = {g, a.sim.n, v[A_X2] ? (int32_t)v[A_X3] : 0};
    uint64_t iters = (uint64_t)v[A_ITERS];
    app_size z = {0, 0};
    size_add(&z, iters, mm_csim_p2p_cost(&a.sim, fds_from, &f));
    size_plan(&z, &a, iters, ar);
    size_plan(&z, &a, iters, gv);
    size_plan(&z, &a, iters / 10, ga);
    size_plan(&z, &a, iters / 10, agv);
    if ((rc = app_check(&a, s, &z, "iters or n")) != MMS_OK)
        return rc;
    for (int64_t it = 0; rc == MMS_OK && it < v[A_ITERS]; it++) {
        mm_csim_compute(&a.sim, (uint64_t)v[A_COMPUTE]);
        if (v[A_X2]) { /* the exchange and the messages to rank 0 during the gatherv */
            if ((rc = app_coll(&a, ar)) != MMS_OK ||
                (rc = mm_csim_overlap(&a.sim, &a.plan[gv], fds_from, &f,
                                      (uint64_t)v[A_P2P_BYTES], 0, err, errlen)) != MMS_OK)
                break;
        } else if ((rc = mm_csim_p2p(&a.sim, grid_from, &g, (uint64_t)v[A_P2P_BYTES], 0, 0,
                                     err, errlen)) != MMS_OK ||
                   (rc = app_coll(&a, ar)) != MMS_OK || (rc = app_coll(&a, gv)) != MMS_OK) {
            break;
        }
        if (it % 10 == 9 && ((rc = app_coll(&a, ga)) != MMS_OK || (rc = app_coll(&a, agv)) != MMS_OK))
            break;
    }
    return app_finish(&a, s, rc);
}

#define GEN_APP(NAME, PARAMS, SUMMARY, ORIGIN) \
    const mm_gen mm_gen_##NAME = {#NAME, SUMMARY, ORIGIN, 1, PARAMS, \
                                  sizeof PARAMS / sizeof *PARAMS, run_##NAME}

GEN_APP(radix, radix_params,
        "synthetic Radix sort profile: almost all queue elements collective (iallgathers in flight, allreduce, reduce)",
        "Ghazimirsaeed et al., ParCo 2019, Fig. 1a, sec. 5.3-5.4");
GEN_APP(nbody, nbody_params,
        "synthetic Nbody profile: particle exchange with 32 peers (4 hot) plus allgather, allreduce, bcast, reduce",
        "Ghazimirsaeed et al., ParCo 2019, Fig. 1b, sec. 5.3-5.4");
GEN_APP(miniamr, miniamr_params,
        "synthetic MiniAMR profile: 3D halo exchange plus allreduce-heavy refinement",
        "Ghazimirsaeed et al., ParCo 2019, Fig. 1c, sec. 5.3-5.4");
GEN_APP(fds, fds_params,
        "synthetic FDS profile: gather(v) hot spot at rank 0 plus neighbour exchange",
        "Ghazimirsaeed et al., ParCo 2019, Fig. 1d, sec. 5.3.1 and 5.4");
