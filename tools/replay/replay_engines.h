/*
 * replay_engines.h - which engines mpimatch-replay runs, with which hints
 * and parameters: turning --engine, --hints and --param into one plan.
 */
#ifndef MM_TOOLS_REPLAY_ENGINES_H
#define MM_TOOLS_REPLAY_ENGINES_H

#include <stddef.h>
#include <stdint.h>

#include "mpimatch.h"
#include "replay.h"
#include "stream.h"

/* One selected engine. */
typedef struct mm_plan_engine {
    const mm_engine_info *info;
    int      named;          /* named explicitly (not only through 'all') */
    int      skipped;        /* required hints missing; see reason        */
    char     reason[512];
    /* Parameters as the user wrote them: the library validates them when
     * it creates the engine, and says what it runs with (mm_get_param). */
    const char **given;      /* [info->nparams] "key=value" from --param (in
                                argv), NULL if not given; the last one wins */
    const char **params;     /* the given ones in table order, for mm_config */
    size_t   nparams;
    int64_t *values;         /* [info->nparams] the values the engine runs
                                with: defaults, then mm_plan_values        */
    mm_replay_result res;
    const struct mm_paths_result *paths; /* --paths: per-path timing, else NULL */
    const struct mm_paths_result *classes; /* --classes: per class and path, else NULL */
} mm_plan_engine;

typedef struct mm_plan {
    mm_plan_engine *e;
    size_t          n;
    uint32_t        hints;   /* asserted                                   */
    int             interleaved; /* repetitions taken in turn (--interleave) */
    int             fresh;       /* --entries fresh (mm_replay.fresh)          */
    double          floor_ns;    /* the harness floor, ns/event (mm_replay_floor);
                                    engine-only time = ns_median - floor_ns */
    int64_t         seed;        /* --seed: the seed= of the hashed engines (0:
                                    each draws its own from the OS)          */
} mm_plan;

#define MM_HINTS_AUTO UINT32_MAX

/* Select engines from --engine values (each a name, a comma list or
 * 'all'). Returns 0, or prints an error and returns nonzero. */
int  mm_plan_engines(mm_plan *p, const char *const *specs, size_t nspecs);
/* Decide hints (hints_opt: MM_HINTS_AUTO or MM_HINT_* bits) and skip or
 * reject engines whose required hints are not asserted. */
int  mm_plan_hints(mm_plan *p, const mm_stream *s, uint32_t hints_opt);
/* Give every selected engine that has parameter `key` the value "key=value"
 * in kv (kept by the caller), unless --param sets it: call before
 * mm_plan_params, whose values win. The lab's fixed hash seed (--seed). */
void mm_plan_default(mm_plan *p, const char *key, const char *kv);
/* Apply --param values ("[ENGINE:]key=value") to the engines that have
 * the key; the values themselves are the library's to check. */
int  mm_plan_params(mm_plan *p, const char *const *params, size_t nparams);
/* The configuration engine e is created with, and the library's verdict on
 * it: creates e once (mm_create_from) and records the values it runs with.
 * Returns 0, or prints the library's reason and returns CLI_USAGE. */
mm_config mm_plan_config(const mm_plan *p, const mm_plan_engine *e, int32_t np);
int  mm_plan_values(mm_plan *p, mm_plan_engine *e, int32_t np);
/* The file an MM_PARAM_FILE parameter k was given (NULL if not). */
const char *mm_plan_file(const mm_plan_engine *e, size_t k);
void mm_plan_free(mm_plan *p);

/* Parse a --hints value: "auto", "none" or a comma list of hint names. */
int  mm_parse_hints(const char *v, uint32_t *out);
/* "no_any_source,no_any_tag", "no_any_source", ... or "none". */
const char *mm_hints_str(uint32_t hints);

#endif /* MM_TOOLS_REPLAY_ENGINES_H */
