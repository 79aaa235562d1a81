/*
 * mpimatch_threads.c - `mpimatch-threads`: the benchmark of Schonbein et al.,
 * Euro-Par 2018 (section 4.1) with real threads through libmpimatch.
 *
 * For each case (a stencil workload spec, docs/workloads.md) the plan of the
 * generator says which receiving thread posts and which sending thread sends
 * each message (tag) of one BSP phase. T_r receiving pthreads post their
 * receives, each in program order (increasing tag), all at once into one
 * engine created with MM_CFG_THREAD_SAFE; a barrier; then T_s sending
 * pthreads deliver their messages (mm_arrive) all at once. The interleaving
 * is whatever the OS scheduler and the engine's lock make of it. Per phase
 * it takes the PRQ search depth from mm_get_stats and the drain time (first
 * mm_arrive started to last mm_arrive returned); it reports them beside the
 * paper's values and the generator's modelled depth (the same spec replayed
 * in one thread). One warm-up phase is not counted, as in the paper.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gen.h"
#include "gen_stencil.h"
#include "json.h"
#include "mpimatch.h"
#include "outfile.h"
#include "stream.h"

static const char usage[] =
    "usage: mpimatch-threads [--case SPEC]... [--engine NAME] [--phases N] [--json FILE]\n"
    "                        [--lock one|shards] [--any-source] [--seed N]\n"
    "\n"
    "Runs the stencil benchmark of Schonbein et al. (Euro-Par 2018, section 4.1) with real\n"
    "threads: T_r pthreads post the M_t receives of one phase at once, then T_s pthreads\n"
    "deliver the M_t messages at once, into one thread-safe engine. Reports the measured\n"
    "mean PRQ search depth and queue drain time per case, beside the paper's values and\n"
    "the generator's modelled depth (the same spec, one thread, seeded scheduler).\n"
    "\n"
    "  --case SPEC      a stencil workload (stencil_naive, stencil2d, stencil3d,\n"
    "                   stencil_linear; docs/workloads.md), repeatable; default: the\n"
    "                   paper's eleven cases (naive, 2D, 3D, linear z)\n"
    "  --engine NAME    engine (default list, the paper's MPICH-style list)\n"
    "  --phases N       measured phases per case, after one warm-up (default 10)\n"
    "  --lock MODE      one: the engine takes one lock (MM_CFG_THREAD_SAFE, the default);\n"
    "                   shards: MM_CFG_CONCURRENT, a lock per shard of the keys\n"
    "  --any-source     post every receive from ANY_SOURCE (the engine is created\n"
    "                   without the no_any_source hint): the wildcard path\n"
    "  --seed N         seed of a hashed engine's key hash (its parameter seed=):\n"
    "                   default 1, fixed, as mpimatch-replay's; 0: the engine\n"
    "                   draws a secret one from the OS (recorded in the JSON)\n"
    "  --json FILE      also write the results as JSON ('-': standard output, and no\n"
    "                   table); complete or not at all\n"
    "  --help           this text\n"
    "\n"
    "Depths do not depend on the machine's speed but on its scheduling: with fewer cores\n"
    "than threads the OS runs them in time slices. Drain times are wall-clock.\n"
    "\n"
    "Exit status: 0 ok, 1 failure (a thread could not start, a match was wrong),\n"
    "2 usage error or bad SPEC.\n";

/* ---- the paper's cases (section 4.2; figures 1-4) ---- */
typedef struct paper_case {
    const char *label, *spec;
    double      depth;    /* mean PRQ depth; NAN: not given            */
    int         bound;    /* depth is a lower bound ("over", "exceeds") */
    double      drain_us; /* NAN: not given                             */
    const char *note;
} paper_case;

static const paper_case paper[] = {
    { "naive 512 msgs, 64 threads", "stencil_naive:threads=64,msgs=512", 3000, 1, NAN,
      "depth: \"over 3000\" (Fig. 1a)" },
    { "naive 27-pt, 64 threads", "stencil_naive:threads=64,msgs=26", NAN, 0, 4000,
      "drain: \"more than four milliseconds\" (Fig. 1b)" },
    { "naive 27-pt, 256 threads", "stencil_naive:threads=256,msgs=26", 1000, 1, 147147,
      "depth \"exceeds 1000\"; drain printed \"147147 ms\" (probably 147.147 ms)" },
    { "2D 32x32 5-pt", "stencil2d:lx=32,ly=32,points=5pt", 35.512, 0, 91.78, NULL },
    { "2D 32x32 9-pt", "stencil2d:lx=32,ly=32,points=9pt", 85.18, 0, 486.54, NULL },
    { "3D 8x8x4 7-pt", "stencil3d:lx=8,ly=8,lz=4,points=7pt", 65.85, 0, 479.15, NULL },
    { "3D 8x8x4 27-pt", "stencil3d:lx=8,ly=8,lz=4,points=27pt", 410.02, 0, 14860, NULL },
    { "3D 4x4x4 7-pt", "stencil3d:lx=4,ly=4,lz=4,points=7pt", 25.1, 0, 41.02, NULL },
    { "3D 4x4x4 27-pt", "stencil3d:lx=4,ly=4,lz=4,points=27pt", 135.86, 0, 1044.17, NULL },
    { "linear 1x1x256 7-pt", "stencil_linear:lz=256,points=7pt", 114.81, 0, 3290,
      "the paper's M_t is 576, its equations give 1026 (docs/workloads.md)" },
    { "linear 1x1x256 27-pt", "stencil_linear:lz=256,points=27pt", 967.27, 0, 163050, NULL },
};
#define NPAPER (sizeof paper / sizeof paper[0])

/* ---- one case ---- */
typedef struct result {
    const paper_case *paper; /* NULL for a case given with --case */
    char     spec[MM_GEN_SPEC_MAX];
    uint32_t nmsg, nrecv, nsend;
    double   model_depth;
    double   depth, depth_min, depth_max;          /* over the measured phases */
    double   drain_med, drain_min, drain_max;      /* microseconds             */
} result;

typedef struct shared {
    mm_engine         *e;
    const mm_stencil  *p;
    pthread_barrier_t  bar;
    uint32_t           phases; /* warm-up included */
    uint32_t         **items;  /* per thread: its tags in program order; receivers first */
    uint32_t          *nitems;
    uint64_t          *t_first, *t_last; /* per sender, this phase */
    unsigned long      errors;  /* wrong or missing matches (under elock) */
    pthread_mutex_t    elock;
} shared;

typedef struct worker {
    shared  *sh;
    uint32_t id; /* 0..nrecv-1 receivers, then senders */
} worker;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define PEER 1

static int lock_shards; /* --lock shards: MM_CFG_CONCURRENT */
static int any_source;  /* --any-source */
static int64_t seed = 1; /* --seed: the hashed engines' seed= (the lab's fixed 1) */

static void add_errors(shared *sh, unsigned long n)
{
    if (!n)
        return;
    pthread_mutex_lock(&sh->elock);
    sh->errors += n;
    pthread_mutex_unlock(&sh->elock);
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    int recv = w->id < sh->p->nrecv;
    const uint32_t *tags = sh->items[w->id];
    uint32_t n = sh->nitems[w->id];
    for (uint32_t ph = 0; ph < sh->phases; ph++) {
        unsigned long bad = 0;
        pthread_barrier_wait(&sh->bar); /* phase start: receivers post */
        if (recv)
            for (uint32_t k = 0; k < n; k++) {
                mm_entry en = { 0 };
                en.src = any_source ? MM_ANY_SOURCE : PEER;
                en.tag = (int32_t)tags[k];
                en.cookie = (uintptr_t)tags[k] + 1;
                uintptr_t partner;
                bad += mm_post(sh->e, &en, NULL, &partner) != MM_QUEUED;
            }
        pthread_barrier_wait(&sh->bar); /* every receive posted: senders deliver */
        if (!recv) {
            uint32_t s = w->id - sh->p->nrecv;
            uint64_t t0 = n ? now_ns() : 0, t1 = 0;
            for (uint32_t k = 0; k < n; k++) {
                mm_entry en = { 0 };
                en.src = PEER;
                en.tag = (int32_t)tags[k];
                en.cookie = (uintptr_t)tags[k] + 1;
                uintptr_t partner = 0;
                int rc = mm_arrive(sh->e, &en, &partner);
                bad += rc != MM_MATCHED || partner != (uintptr_t)tags[k] + 1;
            }
            if (n)
                t1 = now_ns();
            sh->t_first[s] = t0;
            sh->t_last[s] = t1;
        }
        add_errors(sh, bad);
        pthread_barrier_wait(&sh->bar); /* phase done */
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Does the engine take parameter seed (the hashed ones)? */
static int engine_has_seed(const char *engine)
{
    const mm_engine_info *info = mm_engine_find(engine);
    for (size_t i = 0; info && i < info->nparams; i++)
        if (strcmp(info->params[i].name, "seed") == 0)
            return 1;
    return 0;
}

static int make_engine(mm_engine **e, const char *engine, int safe, char *err, size_t errlen)
{
    mm_config cfg = { 0 };
    cfg.nprocs = 2;
    /* The benchmark has no wildcards, unless --any-source (the model never has). */
    cfg.hints = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG;
    if (safe && any_source)
        cfg.hints = MM_HINT_NO_ANY_TAG;
    cfg.flags = !safe ? 0 : lock_shards ? MM_CFG_CONCURRENT : MM_CFG_THREAD_SAFE;
    /* A hashed engine gets the lab's seed (--seed), as in mpimatch-replay. */
    char kv[32];
    const char *params[1] = {kv};
    if (engine_has_seed(engine)) {
        snprintf(kv, sizeof kv, "seed=%lld", (long long)seed);
        cfg.params = params;
        cfg.nparams = 1;
    }
    return mm_create(e, engine, &cfg, err, errlen);
}

/* The modelled depth: the generator's stream of the same spec, one thread. */
static int modelled(const mm_gen_spec *sp, const char *engine, double *depth,
                    char *err, size_t errlen)
{
    mm_stream st;
    if (mm_gen_build_parsed(sp, &st, err, errlen) != MMS_OK)
        return -1;
    mm_engine *e;
    if (make_engine(&e, engine, 0, err, errlen) < 0) {
        mm_stream_free(&st);
        return -1;
    }
    for (size_t k = 0; k < st.n; k++) {
        const mm_event *ev = &st.ev[k];
        mm_entry en = { 0 };
        en.comm = ev->comm;
        en.src = ev->src;
        en.tag = ev->tag;
        uintptr_t partner;
        if (ev->type == MM_EV_RECV)
            mm_post(e, &en, NULL, &partner);
        else if (ev->type == MM_EV_MSG)
            mm_arrive(e, &en, &partner);
    }
    mm_stats stt;
    mm_get_stats(e, &stt);
    *depth = stt.prq.searches ? (double)stt.prq.traversed / (double)stt.prq.searches : 0;
    mm_destroy(e);
    mm_stream_free(&st);
    return 0;
}

/* Run one case with real threads. Returns CLI_OK or CLI_FAIL (err set). */
static int run_case(result *r, const mm_gen_spec *sp, const char *engine, uint32_t phases,
                    char *err, size_t errlen)
{
    mm_stencil p;
    if (mm_stencil_of_spec(&p, sp, err, errlen))
        return CLI_FAIL;
    r->nmsg = p.nmsg;
    r->nrecv = p.nrecv;
    r->nsend = p.nsend;
    if (modelled(sp, engine, &r->model_depth, err, errlen)) {
        mm_stencil_free(&p);
        return CLI_FAIL;
    }
    size_t nth = (size_t)p.nrecv + p.nsend;
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.p = &p;
    sh.phases = phases + 1;
    sh.items = calloc(nth, sizeof *sh.items);
    sh.nitems = calloc(nth, sizeof *sh.nitems);
    uint32_t *store = malloc(2 * (size_t)p.nmsg * sizeof *store + 1);
    sh.t_first = calloc(p.nsend + 1, sizeof *sh.t_first);
    sh.t_last = calloc(p.nsend + 1, sizeof *sh.t_last);
    pthread_t *tid = calloc(nth, sizeof *tid);
    worker *wk = calloc(nth, sizeof *wk);
    double *dep = calloc(phases, sizeof *dep), *drn = calloc(phases, sizeof *drn);
    int rc = CLI_OK, bar = 0, lock = 0;
    size_t started = 0;
    if (!sh.items || !sh.nitems || !store || !sh.t_first || !sh.t_last || !tid || !wk || !dep ||
        !drn) {
        snprintf(err, errlen, "out of memory");
        rc = CLI_FAIL;
        goto out;
    }
    /* Each thread's tags in increasing order (its program order). */
    for (uint32_t i = 0; i < p.nmsg; i++) {
        sh.nitems[p.rt[i]]++;
        sh.nitems[p.nrecv + p.st[i]]++;
    }
    size_t off = 0;
    for (size_t t = 0; t < nth; t++) {
        sh.items[t] = store + off;
        off += sh.nitems[t];
        sh.nitems[t] = 0;
    }
    for (uint32_t i = 0; i < p.nmsg; i++) {
        uint32_t a = p.rt[i], b = p.nrecv + p.st[i];
        sh.items[a][sh.nitems[a]++] = i;
        sh.items[b][sh.nitems[b]++] = i;
    }
    if (make_engine(&sh.e, engine, 1, err, errlen) < 0) {
        rc = CLI_FAIL;
        goto out;
    }
    if (pthread_barrier_init(&sh.bar, NULL, (unsigned)nth + 1) != 0 ||
        pthread_mutex_init(&sh.elock, NULL) != 0) {
        snprintf(err, errlen, "cannot create a barrier for %zu threads", nth + 1);
        rc = CLI_FAIL;
        goto out;
    }
    bar = lock = 1;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (; started < nth; started++) {
        wk[started].sh = &sh;
        wk[started].id = (uint32_t)started;
        int e = pthread_create(&tid[started], &attr, work, &wk[started]);
        if (e) {
            snprintf(err, errlen, "cannot start thread %zu of %zu: %s", started + 1, nth,
                     strerror(e));
            break;
        }
    }
    pthread_attr_destroy(&attr);
    if (started < nth) {
        /* The threads that started wait at the first barrier, which needs
         * all of them: they cannot be released, so give up. */
        rc = CLI_FAIL;
        bar = 0;
        goto out;
    }
    /* Only arrivals search the PRQ (a receive searches the UMQ), so the
     * PRQ counters between two phase ends are those of one phase's drain;
     * they are read while every thread waits at a barrier. */
    mm_stats before, after;
    mm_get_stats(sh.e, &after);
    for (uint32_t ph = 0; ph < sh.phases; ph++) {
        before = after;
        pthread_barrier_wait(&sh.bar);
        pthread_barrier_wait(&sh.bar);
        pthread_barrier_wait(&sh.bar);
        mm_get_stats(sh.e, &after);
        uint64_t first = UINT64_MAX, last = 0;
        for (uint32_t s = 0; s < p.nsend; s++) {
            if (sh.t_first[s] && sh.t_first[s] < first)
                first = sh.t_first[s];
            if (sh.t_last[s] > last)
                last = sh.t_last[s];
        }
        if (after.prq.length != 0)
            add_errors(&sh, (unsigned long)after.prq.length);
        if (ph == 0)
            continue; /* warm-up */
        uint64_t ns = after.prq.searches - before.prq.searches;
        dep[ph - 1] = ns ? (double)(after.prq.traversed - before.prq.traversed) / (double)ns : 0;
        drn[ph - 1] = last > first ? (double)(last - first) / 1e3 : 0;
    }
    for (size_t t = 0; t < nth; t++)
        pthread_join(tid[t], NULL);
    if (sh.errors) {
        snprintf(err, errlen, "%lu operations did not match as MPI requires", sh.errors);
        rc = CLI_FAIL;
        goto out;
    }
    double sum = 0;
    for (uint32_t k = 0; k < phases; k++)
        sum += dep[k];
    r->depth = sum / phases;
    qsort(dep, phases, sizeof *dep, cmp_double);
    qsort(drn, phases, sizeof *drn, cmp_double);
    r->depth_min = dep[0];
    r->depth_max = dep[phases - 1];
    r->drain_min = drn[0];
    r->drain_max = drn[phases - 1];
    r->drain_med = phases % 2 ? drn[phases / 2] : (drn[phases / 2 - 1] + drn[phases / 2]) / 2;
out:
    if (started < nth && started > 0) {
        /* Threads are blocked on a barrier that can never complete; exit
         * the process from main's caller with the error (no cleanup). */
        mm_stencil_free(&p);
        return CLI_FAIL;
    }
    if (bar)
        pthread_barrier_destroy(&sh.bar);
    if (lock)
        pthread_mutex_destroy(&sh.elock);
    if (sh.e)
        mm_destroy(sh.e);
    free(sh.items);
    free(sh.nitems);
    free(store);
    free(sh.t_first);
    free(sh.t_last);
    free(tid);
    free(wk);
    free(dep);
    free(drn);
    mm_stencil_free(&p);
    return rc;
}

/* ---- output ---- */
static void fmt_num(char *b, size_t n, double v, int bound, const char *unit)
{
    if (isnan(v))
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%s%.2f%s", bound ? ">" : "", v, unit);
}

static void print_table(FILE *f, const result *r, size_t n, const char *engine, uint32_t phases)
{
    fprintf(f, "engine %s (%s%s), %u phases after one warm-up, %ld online CPUs\n", engine,
            lock_shards ? "MM_CFG_CONCURRENT" : "one lock",
            any_source ? ", receives from ANY_SOURCE" : "", phases,
            sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(f, "%-28s %7s %5s %5s | %9s %9s %9s %9s | %11s %11s\n", "case", "M_t", "T_r", "T_s",
            "paper", "modelled", "threads", "(min-max)", "paper drain", "drain med");
    for (size_t i = 0; i < n; i++) {
        char pd[32], pdr[32], rng[48];
        fmt_num(pd, sizeof pd, r[i].paper ? r[i].paper->depth : NAN,
                r[i].paper && r[i].paper->bound, "");
        fmt_num(pdr, sizeof pdr, r[i].paper ? r[i].paper->drain_us : NAN, 0, "us");
        /* small depths with a decimal: rounded to integers, a range of 1.6-1.8 printed
         * as "2-2" beside its mean 1.70 */
        snprintf(rng, sizeof rng, r[i].depth_max < 100 ? "%.1f-%.1f" : "%.0f-%.0f",
                 r[i].depth_min, r[i].depth_max);
        fprintf(f, "%-28s %7u %5u %5u | %9s %9.2f %9.2f %9s | %11s %9.1fus\n",
                r[i].paper ? r[i].paper->label : r[i].spec, r[i].nmsg, r[i].nrecv, r[i].nsend,
                pd, r[i].model_depth, r[i].depth, rng, pdr, r[i].drain_med);
    }
}

static void json_opt(mmj *j, const char *key, double v)
{
    mmj_key(j, key);
    if (isnan(v))
        mmj_null(j);
    else
        mmj_num(j, v);
}

static int write_json(FILE *f, const result *r, size_t n, const char *engine, uint32_t phases)
{
    mmj j;
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_kstr(&j, "tool", "mpimatch-threads");
    mmj_kstr(&j, "engine", engine);
    if (engine_has_seed(engine))
        mmj_ki64(&j, "seed", seed);
    mmj_kstr(&j, "lock", lock_shards ? "shards" : "one");
    mmj_key(&j, "any_source");
    mmj_bool(&j, any_source);
    mmj_ku64(&j, "phases", phases);
    mmj_ki64(&j, "cpus", sysconf(_SC_NPROCESSORS_ONLN));
    mmj_key(&j, "cases");
    mmj_arr(&j);
    for (size_t i = 0; i < n; i++) {
        mmj_obj(&j);
        mmj_kstr(&j, "label", r[i].paper ? r[i].paper->label : r[i].spec);
        mmj_kstr(&j, "spec", r[i].spec);
        mmj_ku64(&j, "msgs", r[i].nmsg);
        mmj_ku64(&j, "recv_threads", r[i].nrecv);
        mmj_ku64(&j, "send_threads", r[i].nsend);
        mmj_key(&j, "paper");
        if (r[i].paper) {
            mmj_obj(&j);
            json_opt(&j, "depth", r[i].paper->depth);
            mmj_key(&j, "depth_is_lower_bound");
            mmj_bool(&j, r[i].paper->bound);
            json_opt(&j, "drain_us", r[i].paper->drain_us);
            mmj_kstr(&j, "note", r[i].paper->note);
            mmj_obj_end(&j);
        } else {
            mmj_null(&j);
        }
        mmj_key(&j, "modelled");
        mmj_obj(&j);
        mmj_knum(&j, "depth", r[i].model_depth);
        mmj_obj_end(&j);
        mmj_key(&j, "threads");
        mmj_obj(&j);
        mmj_knum(&j, "depth", r[i].depth);
        mmj_knum(&j, "depth_min", r[i].depth_min);
        mmj_knum(&j, "depth_max", r[i].depth_max);
        mmj_knum(&j, "drain_us_median", r[i].drain_med);
        mmj_knum(&j, "drain_us_min", r[i].drain_min);
        mmj_knum(&j, "drain_us_max", r[i].drain_max);
        mmj_obj_end(&j);
        mmj_obj_end(&j);
    }
    mmj_arr_end(&j);
    mmj_obj_end(&j);
    return mmj_finish(&j);
}

int main(int argc, char **argv)
{
    cli_prog = "mpimatch-threads";
    const char *engine = "list", *json = NULL;
    int64_t phases = 10;
    int rc = CLI_OK;
    result *res = NULL;
    mm_gen_spec *sp = NULL;
    const char **cases = calloc((size_t)argc + 1, sizeof *cases);
    size_t ncases = 0;
    if (!cases) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            goto done;
        } else if ((r = cli_opt(argc, argv, &i, "--case", &v)) != 0) {
            if (r < 0) {
                rc = CLI_USAGE;
                goto done;
            }
            cases[ncases++] = v;
        } else if ((r = cli_opt(argc, argv, &i, "--engine", &v)) != 0) {
            if (r < 0) {
                rc = CLI_USAGE;
                goto done;
            }
            engine = v;
        } else if ((r = cli_opt(argc, argv, &i, "--lock", &v)) != 0) {
            if (r < 0 || (strcmp(v, "one") != 0 && strcmp(v, "shards") != 0)) {
                if (r > 0)
                    cli_error("--lock: '%s' is not one or shards", v);
                rc = CLI_USAGE;
                goto done;
            }
            lock_shards = strcmp(v, "shards") == 0;
        } else if (strcmp(argv[i], "--any-source") == 0) {
            any_source = 1;
        } else if ((r = cli_opt(argc, argv, &i, "--json", &v)) != 0) {
            if (r < 0) {
                rc = CLI_USAGE;
                goto done;
            }
            json = v;
        } else if ((r = cli_opt_int(argc, argv, &i, "--seed", 0, INT64_MAX, &seed)) != 0) {
            if (r < 0) {
                rc = CLI_USAGE;
                goto done;
            }
        } else if ((r = cli_opt_int(argc, argv, &i, "--phases", 1, 100000, &phases)) != 0) {
            if (r < 0) {
                rc = CLI_USAGE;
                goto done;
            }
        } else {
            cli_error("unknown argument '%s' (try --help)", argv[i]);
            rc = CLI_USAGE;
            goto done;
        }
    }
    char err[1024] = "";
    size_t n = ncases ? ncases : NPAPER;
    res = calloc(n, sizeof *res);
    sp = calloc(n, sizeof *sp);
    if (!res || !sp) {
        cli_error("out of memory");
        rc = CLI_FAIL;
        goto done;
    }
    /* Check everything before running anything. */
    mm_engine *probe;
    if (make_engine(&probe, engine, 1, err, sizeof err) < 0) {
        cli_error("--engine: %s", err);
        rc = CLI_USAGE;
        goto done;
    }
    mm_destroy(probe);
    for (size_t i = 0; i < n; i++) {
        res[i].paper = ncases ? NULL : &paper[i];
        const char *s = ncases ? cases[i] : paper[i].spec;
        mm_stencil p;
        if (mm_gen_parse(s, &sp[i], err, sizeof err) != MMS_OK ||
            mm_stencil_of_spec(&p, &sp[i], err, sizeof err)) {
            cli_error("--case '%s': %s", s, err);
            rc = CLI_USAGE;
            goto done;
        }
        mm_stencil_free(&p);
        for (size_t k = 0; k < sp[i].gen->nparams; k++)
            if (strcmp(sp[i].gen->params[k].name, "phases") == 0)
                sp[i].v[k] = phases; /* the modelled stream has as many phases */
        mm_gen_format(&sp[i], res[i].spec, sizeof res[i].spec);
    }
    mm_outfile o = { 0 };
    if (json && mm_outfile_open(&o, json, err, sizeof err)) {
        cli_error("%s", err);
        rc = CLI_USAGE;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (run_case(&res[i], &sp[i], engine, (uint32_t)phases, err, sizeof err) != CLI_OK) {
            cli_error("%s: %s", res[i].spec, err);
            mm_outfile_abort(&o);
            _exit(CLI_FAIL); /* threads may be blocked: leave at once */
        }
    }
    if (!json || strcmp(json, "-") != 0)
        print_table(stdout, res, n, engine, (uint32_t)phases);
    if (json) {
        if (write_json(o.f, res, n, engine, (uint32_t)phases) ||
            mm_outfile_commit(&o, err, sizeof err)) {
            cli_error("cannot write '%s'%s%s", json, *err ? ": " : "", err);
            rc = CLI_FAIL;
        }
        mm_outfile_abort(&o);
    }
done:
    free(res);
    free(sp);
    free(cases);
    return rc;
}
