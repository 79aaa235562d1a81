/*
 * gen_list.c - describing generators and workloads: the text and JSON
 * listings of mpimatch-gen --list, and the "workload" object that
 * mpimatch-replay --json writes.
 */
#include <inttypes.h>
#include <stdio.h>

#include "gen.h"
#include "json.h"
#include "version.h"

static void json_param(mmj *j, const mm_gen_param *p)
{
    mmj_obj(j);
    mmj_kstr(j, "name", p->name);
    mmj_kstr(j, "doc", p->doc);
    if (p->choices) {
        mmj_kstr(j, "default", p->choices[p->def]);
        mmj_key(j, "choices");
        mmj_arr(j);
        for (size_t c = 0; p->choices[c]; c++)
            mmj_str(j, p->choices[c]);
        mmj_arr_end(j);
    } else {
        mmj_ki64(j, "default", p->def);
        mmj_ki64(j, "min", p->min);
        mmj_ki64(j, "max", p->max);
    }
    mmj_obj_end(j);
}

static const char seed_doc[] = "seed of every random choice; the same spec gives the same stream";

static int list_json(FILE *f)
{
    mmj j;
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_kstr(&j, "tool", "mpimatch-gen");
    mmj_kstr(&j, "version", MM_TOOLS_VERSION_STR);
    mmj_key(&j, "generators");
    mmj_arr(&j);
    for (size_t i = 0; i < mm_gen_count(); i++) {
        const mm_gen *g = mm_gen_at(i);
        mmj_obj(&j);
        mmj_kstr(&j, "name", g->name);
        mmj_kstr(&j, "summary", g->summary);
        mmj_kstr(&j, "origin", g->origin);
        mmj_key(&j, "synthetic");
        mmj_bool(&j, g->synthetic);
        mmj_key(&j, "params");
        mmj_arr(&j);
        for (size_t k = 0; k < g->nparams; k++)
            json_param(&j, &g->params[k]);
        mmj_obj(&j);
        mmj_kstr(&j, "name", "seed");
        mmj_kstr(&j, "doc", seed_doc);
        mmj_ku64(&j, "default", 1);
        mmj_ku64(&j, "min", 0);
        mmj_ku64(&j, "max", UINT64_MAX);
        mmj_obj_end(&j);
        mmj_arr_end(&j);
        mmj_obj_end(&j);
    }
    mmj_arr_end(&j);
    mmj_obj_end(&j);
    return mmj_finish(&j);
}

int mm_gen_list(FILE *f, int json)
{
    if (json)
        return list_json(f);
    for (size_t i = 0; i < mm_gen_count(); i++) {
        const mm_gen *g = mm_gen_at(i);
        fprintf(f, "%s%s\n  %s\n  origin: %s\n", g->name, g->synthetic ? "  (synthetic)" : "",
                g->summary, g->origin);
        for (size_t k = 0; k < g->nparams; k++) {
            const mm_gen_param *p = &g->params[k];
            if (p->choices) {
                fprintf(f, "  %s=", p->name);
                for (size_t c = 0; p->choices[c]; c++)
                    fprintf(f, "%s%s", c ? "|" : "", p->choices[c]);
                fprintf(f, "  default %s: %s\n", p->choices[p->def], p->doc);
            } else {
                fprintf(f, "  %s=N  default %" PRId64 ", range %" PRId64 "..%" PRId64 ": %s\n",
                        p->name, p->def, p->min, p->max, p->doc);
            }
        }
        fprintf(f, "  seed=N  default 1, range 0..%" PRIu64 ": %s\n", UINT64_MAX, seed_doc);
    }
    return ferror(f) ? -1 : 0;
}

void mm_gen_spec_json(mmj *j, const mm_gen_spec *sp)
{
    char spec[MM_GEN_SPEC_MAX];
    mm_gen_format(sp, spec, sizeof spec);
    mmj_obj(j);
    mmj_kstr(j, "name", sp->gen->name);
    mmj_kstr(j, "spec", spec);
    mmj_key(j, "params");
    mmj_obj(j);
    for (size_t k = 0; k < sp->gen->nparams; k++) {
        const mm_gen_param *p = &sp->gen->params[k];
        if (p->choices)
            mmj_kstr(j, p->name, p->choices[sp->v[k]]);
        else
            mmj_ki64(j, p->name, sp->v[k]);
    }
    mmj_ku64(j, "seed", sp->seed);
    mmj_obj_end(j);
    mmj_key(j, "synthetic");
    mmj_bool(j, sp->gen->synthetic);
    mmj_kstr(j, "origin", sp->gen->origin);
    mmj_obj_end(j);
}
