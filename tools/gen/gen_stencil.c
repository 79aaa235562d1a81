/*
 * gen_stencil.c - multithreaded stencil halo exchanges (Schonbein et al., Euro-Par 2018): the
 * naive, 2D, 3D and linear-z thread decompositions, seen from the
 * receiving process.
 *
 * One BSP phase, as in the paper's benchmark (section 4.1): T_r receiving
 * threads pre-post the M_t receives, each message with its own tag; after a
 * barrier the sending process (one proxy for all neighbours, rank 1) issues
 * the M_t sends from T_s threads. Each thread issues its own operations in
 * program order (increasing tag); which thread goes next is the seeded
 * scheduler `sched` (docs/workloads.md). Every phase draws a new
 * interleaving and reuses the tags.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_emit.h"
#include "gen_stencil.h"

#define PEER 1
#define BYTES 8

static const char *const assign_names[] = { "strided", "geometric", NULL };

/* Post the phase's receives, then its messages, `phases` times. */
static int stencil_emit(mm_gen_out *o, const mm_stencil *p, int sched, uint32_t burst,
                        uint32_t phases, uint64_t seed)
{
    mm_rng rng;
    mm_rng_seed(&rng, seed);
    int rc = mm_gen_reserve(o, 2 * (uint64_t)p->nmsg * phases, "the decomposition or phases");
    if (rc)
        return rc;
    mm_gen_threads recv, send;
    uint32_t *order = malloc(((size_t)p->nmsg + 1) * sizeof *order);
    if (!order)
        return mm_gen_nomem(o);
    rc = mm_gen_threads_build(o, &recv, p->rt, p->nmsg, p->nrecv);
    if (rc == MMS_OK && (rc = mm_gen_threads_build(o, &send, p->st, p->nmsg, p->nsend)) != MMS_OK)
        mm_gen_threads_free(&recv);
    if (rc != MMS_OK) {
        free(order);
        return rc;
    }
    for (uint32_t ph = 0; ph < phases && rc == MMS_OK; ph++) {
        rc = mm_gen_threads_schedule_burst(o, &recv, &rng, sched, burst, order);
        for (uint32_t k = 0; k < p->nmsg && rc == MMS_OK; k++)
            rc = mm_gen_recv(o, PEER, (int32_t)order[k], BYTES);
        if (rc == MMS_OK)
            rc = mm_gen_threads_schedule_burst(o, &send, &rng, sched, burst, order);
        for (uint32_t k = 0; k < p->nmsg && rc == MMS_OK; k++)
            rc = mm_gen_msg(o, PEER, (int32_t)order[k], BYTES);
    }
    mm_gen_threads_free(&recv);
    mm_gen_threads_free(&send);
    free(order);
    return rc;
}

/* Build the plan, or say why not. */
static int plan_or_fail(mm_gen_out *o, int rc)
{
    if (rc == -2)
        return mm_gen_nomem(o);
    if (rc != 0) {
        snprintf(o->err, o->errlen, "the decomposition has more than %llu messages per phase",
                 (unsigned long long)MM_STENCIL_MAX_MSGS);
        return MMS_EFORMAT;
    }
    return MMS_OK;
}

static int run_plan(mm_stream *s, int dims, int points, const uint32_t l[3], int assign,
                    int sched, uint32_t burst, uint32_t phases, uint64_t seed, char *err,
                    size_t errlen)
{
    mm_gen_out o;
    mm_stencil p;
    mm_gen_out_init(&o, s, err, errlen);
    int rc = plan_or_fail(&o, mm_stencil_plan(&p, dims, points, l[0], l[1], l[2], assign));
    if (rc == MMS_OK)
        rc = stencil_emit(&o, &p, sched, burst, phases, seed);
    mm_stencil_free(&p);
    return rc;
}

/* ---- naive ---- */
enum { N_THREADS, N_MSGS, N_SCHED, N_PHASES, N_BURST };

static int naive_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    mm_gen_out o;
    mm_stencil p;
    mm_gen_out_init(&o, s, err, errlen);
    int rc = plan_or_fail(&o, mm_stencil_naive(&p, (uint32_t)v[N_THREADS], (uint32_t)v[N_MSGS]));
    if (rc == MMS_OK)
        rc = stencil_emit(&o, &p, (int)v[N_SCHED], (uint32_t)v[N_BURST], (uint32_t)v[N_PHASES], seed);
    mm_stencil_free(&p);
    return rc;
}

#define SCHED_PARAM                                                                       \
    { "sched", "which thread issues the next operation (program order within a thread)",  \
      MM_SCHED_RANDOM, 0, 0, mm_gen_sched_names }
#define PHASES_PARAM { "phases", "BSP phases (each posts and matches every message)", 8, 1, 1 << 16, NULL }
#define BURST_PARAM                                                                       \
    { "burst", "mean operations a thread issues in a row once scheduled (1: one at a time)", \
      1, 1, 4096, NULL }
#define ASSIGN_PARAM                                                                      \
    { "assign", "strided: tag i to thread i mod T (the paper's benchmark); geometric: "    \
      "each boundary subdomain receives from each outside neighbour",                     \
      MM_STENCIL_STRIDED, 0, 0, assign_names }

static const mm_gen_param naive_params[] = {
    { "threads", "threads; each communicates with all its neighbours (figure 1: up to 256)",
      64, 1, 4096, NULL },
    { "msgs", "receives each thread posts: 8 (9-point), 26 (27-point) or 512 in figure 1", 8,
      1, 4096, NULL },
    SCHED_PARAM,
    PHASES_PARAM,
    BURST_PARAM,
};

const mm_gen mm_gen_stencil_naive = {
    "stencil_naive",
    "naive thread decomposition: every thread receives msgs messages, T_r = T_s = threads, "
    "M_t = threads * msgs",
    "Schonbein et al., Euro-Par 2018, section 3 and figure 1 (naive decomposition)",
    0, naive_params, sizeof naive_params / sizeof naive_params[0], naive_run,
};

/* ---- 2D ---- */
enum { D2_LX, D2_LY, D2_POINTS, D2_ASSIGN, D2_SCHED, D2_PHASES, D2_BURST };
static const char *const points2d[] = { "5pt", "9pt", NULL };

static int d2_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    const uint32_t l[3] = { (uint32_t)v[D2_LX], (uint32_t)v[D2_LY], 1 };
    return run_plan(s, 2, v[D2_POINTS] ? 9 : 5, l, (int)v[D2_ASSIGN], (int)v[D2_SCHED],
                    (uint32_t)v[D2_BURST], (uint32_t)v[D2_PHASES], seed, err, errlen);
}

static const mm_gen_param d2_params[] = {
    { "lx", "thread subdomains along x", 32, 1, 1024, NULL },
    { "ly", "thread subdomains along y", 32, 1, 1024, NULL },
    { "points", "stencil: 5-point (faces) or 9-point (with corners)", 1, 0, 0, points2d },
    ASSIGN_PARAM,
    SCHED_PARAM,
    PHASES_PARAM,
    BURST_PARAM,
};

const mm_gen mm_gen_stencil2d = {
    "stencil2d",
    "2D lx x ly thread decomposition, boundary exchange only: 9-point M_t = 6lx+6ly-4, "
    "T_r = 2lx+2ly-4, T_s = 2lx+2ly+4 (eq. 2-4); 5-point M_t = T_s = 2lx+2ly",
    "Schonbein et al., Euro-Par 2018, section 3.1, equations 1-4 and figure 2",
    0, d2_params, sizeof d2_params / sizeof d2_params[0], d2_run,
};

/* ---- 3D and linear z ---- */
enum { D3_LX, D3_LY, D3_LZ, D3_POINTS, D3_ASSIGN, D3_SCHED, D3_PHASES, D3_BURST };
static const char *const points3d[] = { "7pt", "27pt", NULL };

static int d3_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    const uint32_t l[3] = { (uint32_t)v[D3_LX], (uint32_t)v[D3_LY], (uint32_t)v[D3_LZ] };
    return run_plan(s, 3, v[D3_POINTS] ? 27 : 7, l, (int)v[D3_ASSIGN], (int)v[D3_SCHED],
                    (uint32_t)v[D3_BURST], (uint32_t)v[D3_PHASES], seed, err, errlen);
}

static const mm_gen_param d3_params[] = {
    { "lx", "thread subdomains along x", 4, 1, 128, NULL },
    { "ly", "thread subdomains along y", 4, 1, 128, NULL },
    { "lz", "thread subdomains along z", 4, 1, 128, NULL },
    { "points", "stencil: 7-point (faces) or 27-point (faces, edges, corners)", 1, 0, 0,
      points3d },
    ASSIGN_PARAM,
    SCHED_PARAM,
    PHASES_PARAM,
    BURST_PARAM,
};

const mm_gen mm_gen_stencil3d = {
    "stencil3d",
    "3D lx x ly x lz thread decomposition, boundary exchange only: 27-point M_t, T_r, T_s "
    "of equations 6-8; 7-point M_t = T_s = 2(lxly+lxlz+lylz)",
    "Schonbein et al., Euro-Par 2018, section 3.2, equations 5-8 and figure 3",
    0, d3_params, sizeof d3_params / sizeof d3_params[0], d3_run,
};

enum { LZ_LZ, LZ_POINTS, LZ_ASSIGN, LZ_SCHED, LZ_PHASES, LZ_BURST };

static int linear_run(mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    const uint32_t l[3] = { 1, 1, (uint32_t)v[LZ_LZ] };
    return run_plan(s, 3, v[LZ_POINTS] ? 27 : 7, l, (int)v[LZ_ASSIGN], (int)v[LZ_SCHED],
                    (uint32_t)v[LZ_BURST], (uint32_t)v[LZ_PHASES], seed, err, errlen);
}

static const mm_gen_param linear_params[] = {
    { "lz", "thread subdomains along z (x and y are 1: every thread is on the boundary)", 64,
      1, 65536, NULL },
    { "points", "stencil: 7-point or 27-point", 1, 0, 0, points3d },
    ASSIGN_PARAM,
    SCHED_PARAM,
    PHASES_PARAM,
    BURST_PARAM,
};

const mm_gen mm_gen_stencil_linear = {
    "stencil_linear",
    "1 x 1 x lz decomposition along z: T_r = lz; 7-point M_t = T_s = 4lz+2, 27-point "
    "M_t = 24lz+2, T_s = 8lz+18",
    "Schonbein et al., Euro-Par 2018, section 4.2 and figure 4 (linear 3D decomposition)",
    0, linear_params, sizeof linear_params / sizeof linear_params[0], linear_run,
};

static int64_t spec_value(const mm_gen_spec *sp, const char *name)
{
    for (size_t i = 0; i < sp->gen->nparams; i++)
        if (strcmp(sp->gen->params[i].name, name) == 0)
            return sp->v[i];
    return -1;
}

int mm_stencil_of_spec(mm_stencil *p, const mm_gen_spec *sp, char *err, size_t errlen)
{
    const char *g = sp->gen->name;
    int rc;
    if (strcmp(g, "stencil_naive") == 0) {
        rc = mm_stencil_naive(p, (uint32_t)spec_value(sp, "threads"),
                              (uint32_t)spec_value(sp, "msgs"));
    } else if (strcmp(g, "stencil2d") == 0) {
        rc = mm_stencil_plan(p, 2, spec_value(sp, "points") ? 9 : 5,
                             (uint32_t)spec_value(sp, "lx"), (uint32_t)spec_value(sp, "ly"), 1,
                             (int)spec_value(sp, "assign"));
    } else if (strcmp(g, "stencil3d") == 0) {
        rc = mm_stencil_plan(p, 3, spec_value(sp, "points") ? 27 : 7,
                             (uint32_t)spec_value(sp, "lx"), (uint32_t)spec_value(sp, "ly"),
                             (uint32_t)spec_value(sp, "lz"), (int)spec_value(sp, "assign"));
    } else if (strcmp(g, "stencil_linear") == 0) {
        rc = mm_stencil_plan(p, 3, spec_value(sp, "points") ? 27 : 7, 1, 1,
                             (uint32_t)spec_value(sp, "lz"), (int)spec_value(sp, "assign"));
    } else {
        snprintf(err, errlen, "'%s' is not a stencil workload (stencil_naive, stencil2d, "
                              "stencil3d, stencil_linear)", g);
        return -1;
    }
    if (rc) {
        snprintf(err, errlen, rc == -2 ? "out of memory" : "the decomposition is too large");
        return -1;
    }
    return 0;
}
