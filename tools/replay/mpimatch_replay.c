/*
 * mpimatch_replay.c - `mpimatch-replay`: replay an event stream through one
 * or more engines, check that they agree, time them (docs/replay.md).
 */
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"
#include "gen.h"
#include "outfile.h"
#include "replay.h"
#include "match_profile.h"
#include "replay_analysis.h"
#include "replay_paths.h"
#include "replay_engines.h"
#include "replay_report.h"
#include "replay_stats.h"
#include "stream.h"

static const char usage[] =
    "usage: mpimatch-replay STREAM --engine NAME [--engine NAME ...] [options]\n"
    "       mpimatch-replay --workload SPEC --engine NAME [...] [options]\n"
    "       mpimatch-replay --list [--json [FILE]]\n"
    "\n"
    "Replays STREAM (text or binary, see mpimatch-stream) through each engine,\n"
    "checks that all engines produce the same outcomes, and times the event loop.\n"
    "\n"
    "  --workload SPEC      instead of STREAM, generate the workload SPEC\n"
    "                       (NAME[:key=value,...], see mpimatch-gen --list) in\n"
    "                       memory before timing\n"
    "  --engine NAME        an engine, a comma list, or 'all' (repeatable)\n"
    "  --param [ENGINE:]key=value\n"
    "                       engine parameter: an integer, or a path for a file\n"
    "                       parameter (kmeans:clusters=FILE); without ENGINE it\n"
    "                       applies to every selected engine that has the parameter\n"
    "  --matches FILE       write the outcome lines ('-': standard output)\n"
    "  --json FILE          write results as JSON ('-': standard output)\n"
    "  --reps R             timed repetitions after one warm-up (default 5)\n"
    "  --paths              also time each matching path (fail/success from\n"
    "                       recv/send, probe, mprobe, cancel) in R more runs\n"
    "                       that read the clock where the path changes\n"
    "  --classes            as --paths with each path split by element class\n"
    "                       (collective or point-to-point), plus one untimed run\n"
    "                       counting each class's searches and compared elements\n"
    "  --interleave         take the engines' repetitions in turn (engine 1 rep 1,\n"
    "                       engine 2 rep 1, ..., engine 1 rep 2, ...): on a shared\n"
    "                       machine both sides of a ratio then see the same load\n"
    "  --entries array|fresh  where the calls' entries come from: array (default)\n"
    "                       the stream's, written once before the timing; fresh:\n"
    "                       each written field by field just before its call, as\n"
    "                       an MPI library or a provider builds it (the floor too)\n"
    "  --seed N             seed of the hashed engines' key hash (engine parameter\n"
    "                       seed=, for every engine that has it unless --param\n"
    "                       sets it): default 1, so depths and probe counts repeat\n"
    "                       run to run; 0: each engine draws a secret one from the OS\n"
    "  --np N               number of processes (overrides the stream's)\n"
    "  --hints H            auto (default: what the stream satisfies), none, or\n"
    "                       a comma list of no_any_source, no_any_tag\n"
    "  --peer-traversal FILE  untimed, list-engine semantics: JSON of the queue\n"
    "                       elements traversed by their source (docs/replay.md)\n"
    "  --queue-series FILE  untimed, list-engine semantics: CSV 'event,t,prq,umq'\n"
    "                       of the queue lengths after every K events\n"
    "  --every K            sampling interval of --queue-series (default 1)\n"
    "  --match-profile FILE untimed, list-engine semantics: JSON of the matching\n"
    "                       profile (attempts, successes and failures, elements\n"
    "                       traversed, message sizes, queue lengths), per phase\n"
    "                       and in all (docs/advise.md)\n"
    "  --phase-events W     events per phase of --match-profile (default 1024)\n"
    "                       (with only these analyses, no engine needs to run)\n"
    "  -q, --quiet          no table, no notes\n"
    "  --list               list the engines and their parameters\n"
    "  --help               this text\n"
    "\n"
    CLI_EXIT_STATUS_1 ";\n"
    "     engines disagree, or an engine answers something impossible"
    CLI_EXIT_STATUS_2 ";\n"
    "     the library rejects a stream's event or an engine's parameters\n";

#define MAX_ARGS_LIST 256
/* The lab's hash seed: a fixed one, so that every replay of a stream builds
 * the same tables (depths, probe counts, reseeds) and reports repeat. */
#define MM_LAB_SEED 1

typedef struct args {
    const char *stream, *workload, *matches, *json;
    const char *peer, *series;   /* untimed analyses (replay_analysis.h) */
    const char *mprof;           /* --match-profile (match_profile.h)      */
    uint64_t every, phase_events;
    const char *engines[MAX_ARGS_LIST];
    size_t nengines;
    const char *params[MAX_ARGS_LIST];
    size_t nparams;
    unsigned reps;
    int64_t seed;                /* --seed (MM_LAB_SEED unless given)          */
    char seed_kv[32];            /* "seed=N", the engines' default parameter    */
    int32_t np;
    uint32_t hints;
    int quiet, list;
    int paths;                   /* --paths: per-path timing (replay_paths.h) */
    int classes;                 /* --classes: per class and path (replay_paths.h) */
    int interleave;              /* --interleave: repetitions round-robin      */
    int fresh;                   /* --entries fresh                            */
} args;

static int add_list(const char **list, size_t *n, const char *v, const char *opt)
{
    if (*n >= MAX_ARGS_LIST) {
        cli_error("too many %s options", opt);
        return CLI_USAGE;
    }
    list[(*n)++] = v;
    return 0;
}

/* Returns 0 to go on, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->reps = 5;
    a->seed = MM_LAB_SEED;
    a->every = 1;
    a->phase_events = 1024;
    a->hints = MM_HINTS_AUTO;
    for (int i = 1; i < argc; i++)
        a->list |= strcmp(argv[i], "--list") == 0;

    for (int i = 1; i < argc; i++) {
        const char *v, *arg = argv[i];
        int r;
        int64_t x;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return -1;
        } else if (strcmp(arg, "--list") == 0) {
            continue;
        } else if (strcmp(arg, "--paths") == 0) {
            a->paths = 1;
        } else if (strcmp(arg, "--classes") == 0) {
            a->classes = 1;
        } else if (strcmp(arg, "--interleave") == 0) {
            a->interleave = 1;
        } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
            a->quiet = 1;
        } else if (a->list && strcmp(arg, "--json") == 0 &&
                   (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1] != '\0'))) {
            a->json = "-"; /* --list --json: JSON on standard output */
        } else if ((r = cli_opt(argc, argv, &i, "--engine", &v)) != 0) {
            if (r < 0 || add_list(a->engines, &a->nengines, v, "--engine"))
                return CLI_USAGE;
        } else if ((r = cli_opt(argc, argv, &i, "--param", &v)) != 0) {
            if (r < 0 || add_list(a->params, &a->nparams, v, "--param"))
                return CLI_USAGE;
        } else if ((r = cli_opt(argc, argv, &i, "--workload", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            if (a->workload) {
                cli_error("more than one --workload: '%s' and '%s'", a->workload, v);
                return CLI_USAGE;
            }
            a->workload = v;
        } else if ((r = cli_opt(argc, argv, &i, "--matches", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->matches = v;
        } else if ((r = cli_opt(argc, argv, &i, "--peer-traversal", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->peer = v;
        } else if ((r = cli_opt(argc, argv, &i, "--queue-series", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->series = v;
        } else if ((r = cli_opt(argc, argv, &i, "--match-profile", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->mprof = v;
        } else if ((r = cli_opt_int(argc, argv, &i, "--phase-events", 1, INT64_MAX, &x)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->phase_events = (uint64_t)x;
        } else if ((r = cli_opt_int(argc, argv, &i, "--every", 1, INT64_MAX, &x)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->every = (uint64_t)x;
        } else if ((r = cli_opt(argc, argv, &i, "--json", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->json = v;
        } else if ((r = cli_opt_int(argc, argv, &i, "--reps", 1, 1000000, &x)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->reps = (unsigned)x;
        } else if ((r = cli_opt(argc, argv, &i, "--entries", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            if (strcmp(v, "array") != 0 && strcmp(v, "fresh") != 0) {
                cli_error("--entries: '%s' is not array or fresh", v);
                return CLI_USAGE;
            }
            a->fresh = strcmp(v, "fresh") == 0;
        } else if ((r = cli_opt_int(argc, argv, &i, "--seed", 0, INT64_MAX, &x)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->seed = x;
        } else if ((r = cli_opt_int(argc, argv, &i, "--np", 1, INT32_MAX, &x)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->np = (int32_t)x;
        } else if ((r = cli_opt(argc, argv, &i, "--hints", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            if (mm_parse_hints(v, &a->hints)) {
                cli_error("--hints: '%s' is not auto, none, or a comma list of "
                          "no_any_source, no_any_tag", v);
                return CLI_USAGE;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            cli_error("unknown option '%s' (try --help)", arg);
            return CLI_USAGE;
        } else if (!a->stream) {
            a->stream = arg;
        } else {
            cli_error("more than one STREAM: '%s' and '%s'", a->stream, arg);
            return CLI_USAGE;
        }
    }
    if (a->paths && (a->list || a->nengines == 0)) {
        cli_error("--paths times the engines' matching paths: it needs --engine%s",
                  a->list ? ", not --list" : "");
        return CLI_USAGE;
    }
    if (a->classes && (a->list || a->nengines == 0)) {
        cli_error("--classes times the engines' matching paths by class: it needs --engine%s",
                  a->list ? ", not --list" : "");
        return CLI_USAGE;
    }
    if (a->fresh && (a->paths || a->classes)) {
        cli_error("--entries fresh times the calls as a whole: not with %s",
                  a->paths ? "--paths" : "--classes");
        return CLI_USAGE;
    }
    if (a->interleave && (a->list || a->nengines == 0 || a->paths || a->classes)) {
        cli_error("--interleave takes the engines' repetitions in turn: it needs --engine%s",
                  a->list ? ", not --list" : a->paths ? ", not --paths" :
                  a->classes ? ", not --classes" : "");
        return CLI_USAGE;
    }
    if (!a->list && a->stream && a->workload) {
        cli_error("give STREAM or --workload, not both ('%s' and '%s')", a->stream, a->workload);
        return CLI_USAGE;
    }
    if (!a->list && !a->stream && !a->workload) {
        cli_error("missing STREAM or --workload SPEC (try --help)");
        return CLI_USAGE;
    }
    if (a->matches && a->json && strcmp(a->matches, a->json) == 0) {
        cli_error("--matches and --json name the same file '%s'", a->json);
        return CLI_USAGE;
    }
    const char *others[] = {a->matches, a->json, a->peer, a->series};
    for (size_t i = 0; a->mprof && i < sizeof others / sizeof others[0]; i++)
        if (others[i] && strcmp(others[i], a->mprof) == 0) {
            cli_error("--match-profile and another output name the same file '%s'", a->mprof);
            return CLI_USAGE;
        }
    return 0;
}

static int do_list(const args *a)
{
    char err[1024];
    mm_outfile o;
    if (mm_outfile_open(&o, a->json ? a->json : "-", err, sizeof err)) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    if (mm_report_list(o.f, a->json != NULL)) {
        mm_outfile_fail(&o, err, sizeof err);
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (mm_outfile_commit(&o, err, sizeof err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* Everything a run holds, so one cleanup path releases it. */
typedef struct run {
    args        a;
    mm_outfile  matches, json, peer, series, mprof;
    mm_stream   s;
    int         have_stream;
    mm_gen_spec wl;        /* the parsed --workload; wl.gen NULL for a file */
    mm_plan     plan;
    mm_replay   rep;
    uint64_t   *ref_out;   /* outcomes of the first engine, for comparison */
    mm_paths    paths;     /* --paths: classification and per-rep totals  */
    mm_paths_result *pres; /* --paths: one result per plan engine          */
    mm_paths    classes;   /* --classes: as paths, keys split by class     */
    mm_paths_result *cres; /* --classes: one result per plan engine        */
    const mm_plan_engine *ref;
    int         table;     /* print the table on standard output */
} run;

static int exit_code_for(int replay_rc)
{
    switch (replay_rc) {
    case MMR_ELIB:
    case MMR_ECREATE:
        return CLI_USAGE;
    default:
        return CLI_FAIL;
    }
}

/* Compare an engine's outcomes with the first engine's. */
static int compare(run *r, const mm_plan_engine *e)
{
    uint64_t k;
    long long i = mm_outcomes_diff(&r->s, r->ref_out, r->rep.out, &k);
    if (i < 0)
        return 0;
    char a[80], b[80], where[512];
    if (mm_outcome_format(&r->s, (size_t)i, r->ref_out[i], a, sizeof a) == 0)
        snprintf(a, sizeof a, "(none: queued)");
    if (mm_outcome_format(&r->s, (size_t)i, r->rep.out[i], b, sizeof b) == 0)
        snprintf(b, sizeof b, "(none: queued)");
    mm_stream_where(&r->s, r->s.ev[i].line, where, sizeof where);
    cli_error("%sengines '%s' and '%s' disagree at outcome %llu: %s gives '%s', %s gives '%s'",
              where, r->ref->info->name, e->info->name, (unsigned long long)k + 1,
              r->ref->info->name, a, e->info->name, b);
    return CLI_FAIL;
}

static mm_config config_for(const run *r, const mm_plan_engine *e)
{
    return mm_plan_config(&r->plan, e, r->s.np);
}

/* Create every engine once before timing any: the library checks the
 * parameters, and a bad one fails at once instead of after the other
 * engines have run. */
static int check_engines(run *r)
{
    for (size_t i = 0; i < r->plan.n; i++) {
        mm_plan_engine *e = &r->plan.e[i];
        int rc;
        if (!e->skipped && (rc = mm_plan_values(&r->plan, e, r->s.np)))
            return rc;
    }
    return 0;
}

/* --paths (and --classes, with keys split by class and then the exact
 * counts): classify by this engine's outcomes (the same as every other
 * engine's, compared above), then time the keys. */
static int time_paths(run *r, mm_plan_engine *e, mm_paths *p, mm_paths_result *res)
{
    char err[1024];
    mm_config cfg = config_for(r, e);
    mm_paths_classify(p, r->rep.out);
    int rc = mm_paths_run(p, &r->rep, e->info, &cfg, r->a.reps, e->res.hash, res, err,
                          sizeof err);
    if (rc == MMR_OK && p->by_class)
        rc = mm_paths_count(p, &r->rep, e->info, &cfg, e->res.hash, res, err, sizeof err);
    if (rc != MMR_OK) {
        cli_error("%s", err);
        return exit_code_for(rc);
    }
    if (p->by_class)
        e->classes = res;
    else
        e->paths = res;
    return 0;
}

/* One engine's first (or only) timing is done: check it against the
 * reference outcomes, time its paths, print its row. */
static int engine_done(run *r, mm_plan_engine *e, size_t i, int *printed_head)
{
    int rc;
    if (!r->ref) {
        r->ref = e;
        memcpy(r->ref_out, r->rep.out, r->s.n * sizeof *r->ref_out);
    } else if ((rc = compare(r, e))) {
        return rc;
    }
    if (r->a.paths && (rc = time_paths(r, e, &r->paths, &r->pres[i])))
        return rc;
    if (r->a.classes && (rc = time_paths(r, e, &r->classes, &r->cres[i])))
        return rc;
    if (r->table) {
        if (!(*printed_head)++)
            mm_report_table_head(stdout, &r->s, &r->plan);
        mm_report_table_row(stdout, &r->plan, e);
        if (cli_flush_stdout())
            return CLI_FAIL; /* no use timing the other engines */
    }
    return 0;
}

/* --interleave: round k times every engine once (one warm-up first in round
 * 0), so that slow and fast spells of a shared machine fall on all engines
 * alike. In the last round an engine's run leaves its outcomes in
 * r->rep.out: it is summarised, checked against the reference and printed
 * right there. Returns 0 or an exit code (after the error message). */
static int run_interleaved(run *r, int *printed_head)
{
    char err[1024];
    size_t n = r->plan.n;
    unsigned reps = r->a.reps;
    double *times = calloc(n * reps + 1, sizeof *times);
    if (!times) {
        cli_error("out of memory");
        return exit_code_for(MMR_ENOMEM);
    }
    int rc = 0;
    for (unsigned k = 0; k < reps && !rc; k++)
        for (size_t i = 0; i < n && !rc; i++) {
            mm_plan_engine *e = &r->plan.e[i];
            if (e->skipped)
                continue;
            mm_config cfg = config_for(r, e);
            mm_replay_result one;
            int lib = mm_replay_run(&r->rep, e->info, &cfg, k == 0, 1, &one, err, sizeof err);
            if (lib == MMR_OK && k > 0 && one.hash != e->res.hash) {
                snprintf(err, sizeof err, "engine '%s': repetition %u produced different "
                         "outcomes than repetition 1", e->info->name, k + 1);
                lib = MMR_EUNSTABLE;
            }
            if (lib != MMR_OK) {
                cli_error("%s", err);
                rc = exit_code_for(lib);
                break;
            }
            e->res = one;            /* statistics and counts of the latest repetition */
            times[i * reps + k] = one.ns_median;
            if (k + 1 == reps) {
                mm_quartiles q = mm_quartiles_of(&times[i * reps], reps);
                e->res.ns_min = q.min;
                e->res.ns_q1 = q.q1;
                e->res.ns_median = q.median;
                e->res.ns_q3 = q.q3;
                rc = engine_done(r, e, i, printed_head);
            }
        }
    free(times);
    return rc;
}

static int run_engines(run *r)
{
    char err[1024];
    int printed_head = 0, rc;
    /* Notes first, so they do not interleave with the table. */
    for (size_t i = 0; i < r->plan.n && !r->a.quiet; i++)
        if (r->plan.e[i].skipped)
            fprintf(stderr, "%s: note: skipping engine '%s': %s\n", cli_prog,
                    r->plan.e[i].info->name, r->plan.e[i].reason);
    r->plan.interleaved = r->a.interleave;
    if (r->a.interleave && (rc = run_interleaved(r, &printed_head)))
        return rc;
    for (size_t i = 0; i < r->plan.n && !r->a.interleave; i++) {
        mm_plan_engine *e = &r->plan.e[i];
        if (e->skipped)
            continue;
        mm_config cfg = config_for(r, e);
        rc = mm_replay_run(&r->rep, e->info, &cfg, 1, r->a.reps, &e->res, err, sizeof err);
        if (rc != MMR_OK) {
            cli_error("%s", err);
            return exit_code_for(rc);
        }
        if ((rc = engine_done(r, e, i, &printed_head)))
            return rc;
    }
    if (!r->ref) {
        cli_error("no engine can run this stream (all selected engines were skipped)");
        return CLI_USAGE;
    }
    return 0;
}

static int write_outputs(run *r)
{
    char err[1024];
    if (r->a.matches) {
        if (mm_outcomes_write(&r->s, r->ref_out, mm_sink_file, r->matches.f) != MMS_OK) {
            mm_outfile_fail(&r->matches, err, sizeof err);
            cli_error("%s", err);
            return CLI_FAIL;
        }
    }
    if (r->a.json &&
        mm_report_json(r->json.f, &r->s, &r->plan, r->a.reps, r->wl.gen ? &r->wl : NULL)) {
        mm_outfile_fail(&r->json, err, sizeof err);
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (r->a.peer || r->a.series) {
        mm_analysis an;
        int rc = mm_analyze(&r->s, &an, r->a.series ? r->series.f : NULL, r->a.every);
        if (rc == MMS_OK && r->a.peer && mm_analysis_json(r->peer.f, &r->s, &an))
            rc = MMS_EIO;
        mm_analysis_free(&an);
        if (rc != MMS_OK) {
            cli_error("%s", rc == MMS_ENOMEM ? "out of memory" : "cannot write the analyses");
            return CLI_FAIL;
        }
    }
    if (r->a.mprof) {
        int rc = mm_match_profile_json(r->mprof.f, &r->s, r->a.phase_events);
        if (rc != MMS_OK) {
            cli_error("%s", rc == MMS_ENOMEM ? "out of memory" : "cannot write the match profile");
            return CLI_FAIL;
        }
    }
    /* Commit only when all are complete: no half of a result set. A
     * failure here is a write error. */
    if (r->a.matches && mm_outfile_commit(&r->matches, err, sizeof err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (r->a.json && mm_outfile_commit(&r->json, err, sizeof err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if ((r->a.peer && mm_outfile_commit(&r->peer, err, sizeof err)) ||
        (r->a.series && mm_outfile_commit(&r->series, err, sizeof err)) ||
        (r->a.mprof && mm_outfile_commit(&r->mprof, err, sizeof err))) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    return 0;
}

static void touch_heap_top(void);

static int replay_main(run *r)
{
    char err[1024];
    int rc;
    args *a = &r->a;

    /* The table would corrupt a result written to standard output. */
    r->table = !a->quiet && !(a->matches && strcmp(a->matches, "-") == 0) &&
               !(a->json && strcmp(a->json, "-") == 0);

    /* A bad workload spec is a usage error: report it before creating
     * any output file. */
    if (a->workload && mm_gen_parse(a->workload, &r->wl, err, sizeof err) != MMS_OK) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    /* Outputs first: an unwritable path fails before any work. */
    if ((a->matches && mm_outfile_open(&r->matches, a->matches, err, sizeof err)) ||
        (a->json && mm_outfile_open(&r->json, a->json, err, sizeof err)) ||
        (a->peer && mm_outfile_open(&r->peer, a->peer, err, sizeof err)) ||
        (a->series && mm_outfile_open(&r->series, a->series, err, sizeof err)) ||
        (a->mprof && mm_outfile_open(&r->mprof, a->mprof, err, sizeof err))) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    if (a->workload) {
        /* Generated before anything is timed; --np overrides its np. */
        rc = mm_gen_build_parsed(&r->wl, &r->s, err, sizeof err);
        if (rc == MMS_OK && a->np > 0 && (rc = mm_stream_finalize(&r->s, a->np, err, sizeof err)))
            mm_stream_free(&r->s);
    } else {
        rc = mm_stream_load(&r->s, a->stream, a->np, err, sizeof err);
    }
    if (rc != MMS_OK) {
        cli_error("%s", err);
        return rc == MMS_ENOMEM ? CLI_FAIL : CLI_USAGE;
    }
    r->have_stream = 1;
    if (a->nengines == 0 && (a->peer || a->series || a->mprof) && !a->json && !a->matches)
        return write_outputs(r); /* the untimed analyses only */

    if ((rc = mm_plan_engines(&r->plan, a->engines, a->nengines)) ||
        (rc = mm_plan_hints(&r->plan, &r->s, a->hints)))
        return rc;
    snprintf(a->seed_kv, sizeof a->seed_kv, "seed=%lld", (long long)a->seed);
    r->plan.seed = a->seed;
    mm_plan_default(&r->plan, "seed", a->seed_kv);
    if ((rc = mm_plan_params(&r->plan, a->params, a->nparams)))
        return rc;

    if (mm_replay_init(&r->rep, &r->s, a->reps, err, sizeof err) != MMR_OK) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    r->rep.fresh = r->plan.fresh = a->fresh;
    if (a->paths && (mm_paths_init(&r->paths, &r->s, a->reps, err, sizeof err) != MMR_OK ||
                     !(r->pres = calloc(r->plan.n + 1, sizeof *r->pres)))) {
        cli_error("%s", r->paths.s ? "out of memory" : err);
        return CLI_FAIL;
    }
    if (a->classes && (mm_paths_init(&r->classes, &r->s, a->reps, err, sizeof err) != MMR_OK ||
                       !(r->cres = calloc(r->plan.n + 1, sizeof *r->cres)))) {
        cli_error("%s", r->classes.s ? "out of memory" : err);
        return CLI_FAIL;
    }
    r->classes.by_class = 1;
    r->ref_out = malloc((r->s.n + 1) * sizeof *r->ref_out);
    if (!r->ref_out) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    if ((rc = check_engines(r)))
        return rc;
    touch_heap_top();
    /* The harness floor, measured in this run before the engines, with
     * as many repetitions (reported beside each engine). */
    if (mm_replay_floor(&r->rep, a->reps, &r->plan.floor_ns, err, sizeof err) != MMR_OK) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if ((rc = run_engines(r)))
        return rc;
    return write_outputs(r);
}

/* Every repetition builds a fresh engine. By default glibc hands large freed
 * blocks back to the kernel (munmap, heap trimming), so each repetition would
 * page-fault its pool slabs back in and the timed loop would measure the
 * kernel zeroing pages (docs/replay.md, "Timing"). Keeping freed memory in
 * the process makes every timed repetition measure matching. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

/* With trimming off (keep_freed_memory), glibc still extends the heap in
 * steps (the request plus 128 KiB) whose pages the kernel maps only at their
 * first touch, 1.2 to 1.6 us each on the development VM. Each repetition's
 * fresh engine lands a little differently in the heap than the one before
 * (the harness's and the other engines' blocks in between), so in the first
 * repetitions the heap's top creeps up a page or two into untouched memory:
 * a 1024-event run took one or two such faults in about half its
 * repetitions (8 to 10-12 ns per event), and under --interleave they fell on
 * the engine whose blocks reached furthest (docs/replay.md, "What a
 * replay does").
 * Touching 1 MiB at the top of the heap once, after the harness's own
 * allocations and before anything is timed, maps those pages beforehand;
 * with trimming off, freeing it keeps them in the process. */
static void touch_heap_top(void)
{
#ifdef __GLIBC__
    enum { PAD = 1 << 20 };
    char *p = malloc(PAD);
    if (!p)
        return; /* only the timing's noise is at stake */
    memset(p, 1, PAD);
    __asm__ volatile("" : : "r"(p) : "memory"); /* keep the stores */
    free(p);
#endif
}

int main(int argc, char **argv)
{
    static run r; /* zeroed: the cleanup below is safe whatever failed */
    cli_init("mpimatch-replay");
    keep_freed_memory();
    int rc = parse_args(argc, argv, &r.a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    if (r.a.list)
        return do_list(&r.a);

    rc = replay_main(&r);

    mm_outfile_abort(&r.matches); /* no-op after a commit */
    mm_outfile_abort(&r.json);
    mm_outfile_abort(&r.peer);
    mm_outfile_abort(&r.series);
    mm_outfile_abort(&r.mprof);
    free(r.ref_out);
    mm_replay_free(&r.rep);
    mm_paths_free(&r.paths);
    free(r.pres);
    mm_paths_free(&r.classes);
    free(r.cres);
    mm_plan_free(&r.plan);
    if (r.have_stream)
        mm_stream_free(&r.s);
    return rc;
}
