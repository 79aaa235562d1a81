/*
 * replay_report.c - the table, the JSON results and the engine list of
 * mpimatch-replay.
 */
#include <string.h>

#include "json.h"
#include "replay_paths.h"
#include "replay_report.h"
#include "version.h"

static double mean_depth(const mm_qstats *q)
{
    return q->searches ? (double)q->traversed / (double)q->searches : 0.0;
}

/* Hash-table slots inspected per operation (a post or an arrival searches one
 * side, and may insert into the other), mean/max; "-" for an engine without
 * hash tables. A healthy table inspects 1-2 whatever the depth says. */
static const char *probes_cell(const mm_stats *st, char *buf, size_t n)
{
    uint64_t probes = st->prq.probes + st->umq.probes;
    uint64_t ops = st->prq.searches + st->umq.searches;
    uint64_t max = st->prq.max_probes > st->umq.max_probes ? st->prq.max_probes
                                                           : st->umq.max_probes;
    if (!probes)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2f/%llu", ops ? (double)probes / (double)ops : 0.0,
                 (unsigned long long)max);
    return buf;
}

static int name_width(const mm_plan *p)
{
    int w = 6;
    for (size_t i = 0; i < p->n; i++) {
        int n = (int)strlen(p->e[i].info->name);
        if (n > w)
            w = n;
    }
    return w;
}

static const char *format_name(const mm_stream *s)
{
    if (s->format == MM_FMT_MEMORY)
        return "generated"; /* by a workload generator (--workload) */
    return s->format == MM_FMT_BINARY ? "binary" : "text";
}

void mm_report_table_head(FILE *f, const mm_stream *s, const mm_plan *p)
{
    fprintf(f, "stream %s (%s), events %zu, np %d, hints %s, seed %lld\n", s->name,
            format_name(s), s->n, (int)s->np, mm_hints_str(p->hints), (long long)p->seed);
    fprintf(f, "floor %.2f ns/event (the replay loop with a null call per event, measured now); "
               "engine ns = ns/event - floor%s\n", p->floor_ns,
            p->fresh ? "; entries written fresh before each call" : "");
    fprintf(f, "%-*s %10s %10s %9s %15s %15s %9s %9s %11s %12s %12s\n", name_width(p), "engine",
            "ns/event", "engine ns", "Mev/s", "PRQ depth", "UMQ depth", "PRQ len", "UMQ len",
            "queues", "peak bytes", "probes/op");
}

void mm_report_table_row(FILE *f, const mm_plan *p, const mm_plan_engine *e)
{
    const mm_replay_result *r = &e->res;
    char pd[32], ud[32], qs[32], pr[48];
    snprintf(pd, sizeof pd, "%.2f/%llu", mean_depth(&r->stats.prq),
             (unsigned long long)r->stats.prq.max_depth);
    snprintf(ud, sizeof ud, "%.2f/%llu", mean_depth(&r->stats.umq),
             (unsigned long long)r->stats.umq.max_depth);
    snprintf(qs, sizeof qs, "%llu/%llu", (unsigned long long)r->stats.prq.max_queues,
             (unsigned long long)r->stats.umq.max_queues);
    fprintf(f, "%-*s %10.2f %10.2f %9.2f %15s %15s %9llu %9llu %11s %12llu %12s\n", name_width(p),
            e->info->name, r->ns_median, r->ns_median - p->floor_ns,
            r->ns_median > 0 ? 1e3 / r->ns_median : 0.0, pd, ud,
            (unsigned long long)r->stats.prq.max_length,
            (unsigned long long)r->stats.umq.max_length, qs,
            (unsigned long long)r->stats.peak_bytes, probes_cell(&r->stats, pr, sizeof pr));
    if (e->paths)
        mm_paths_table(f, e->info->name, e->paths);
    if (e->classes)
        mm_paths_table(f, e->info->name, e->classes);
}

static void json_hints(mmj *j, uint32_t h)
{
    mmj_arr(j);
    if (h & MM_HINT_NO_ANY_SOURCE)
        mmj_str(j, "no_any_source");
    if (h & MM_HINT_NO_ANY_TAG)
        mmj_str(j, "no_any_tag");
    mmj_arr_end(j);
}

static void json_qstats(mmj *j, const char *key, const mm_qstats *q)
{
    mmj_key(j, key);
    mmj_obj(j);
    mmj_ku64(j, "searches", q->searches);
    mmj_ku64(j, "hits", q->hits);
    mmj_ku64(j, "misses", q->misses);
    mmj_ku64(j, "traversed", q->traversed);
    mmj_knum(j, "mean_depth", mean_depth(q));
    mmj_ku64(j, "max_depth", q->max_depth);
    mmj_ku64(j, "length", q->length);
    mmj_ku64(j, "max_length", q->max_length);
    mmj_ku64(j, "queues", q->queues);
    mmj_ku64(j, "max_queues", q->max_queues);
    mmj_ku64(j, "bytes", q->bytes);
    mmj_ku64(j, "peak_bytes", q->peak_bytes);
    mmj_ku64(j, "probes", q->probes);
    mmj_ku64(j, "max_probes", q->max_probes);
    mmj_obj_end(j);
}

static void json_result(mmj *j, const mm_plan *p, const mm_plan_engine *e)
{
    const mm_replay_result *r = &e->res;
    mmj_obj(j);
    mmj_kstr(j, "engine", e->info->name);
    mmj_key(j, "params");
    mmj_obj(j);
    for (size_t k = 0; k < e->info->nparams; k++) {
        if (e->info->params[k].type == MM_PARAM_FILE)
            mmj_kstr(j, e->info->params[k].name, mm_plan_file(e, k)); /* null when not given */
        else
            mmj_ki64(j, e->info->params[k].name, e->values[k]);
    }
    mmj_obj_end(j);
    mmj_key(j, "ns_per_event");
    mmj_obj(j);
    mmj_knum(j, "median", r->ns_median);
    mmj_knum(j, "q1", r->ns_q1);
    mmj_knum(j, "q3", r->ns_q3);
    mmj_knum(j, "min", r->ns_min);
    mmj_obj_end(j);
    mmj_knum(j, "floor_ns_per_event", p->floor_ns);
    mmj_knum(j, "engine_ns_per_event", r->ns_median - p->floor_ns);
    mmj_knum(j, "events_per_second", r->ns_median > 0 ? 1e9 / r->ns_median : 0.0);
    mmj_key(j, "outcomes");
    mmj_obj(j);
    mmj_ku64(j, "matches", r->counts.matches);
    mmj_ku64(j, "probe_hits", r->counts.probe_hits);
    mmj_ku64(j, "probe_misses", r->counts.probe_misses);
    mmj_ku64(j, "mprobe_hits", r->counts.mprobe_hits);
    mmj_ku64(j, "mprobe_misses", r->counts.mprobe_misses);
    mmj_ku64(j, "cancel_ok", r->counts.cancel_ok);
    mmj_ku64(j, "cancel_miss", r->counts.cancel_miss);
    mmj_obj_end(j);
    mmj_key(j, "stats");
    mmj_obj(j);
    json_qstats(j, "prq", &r->stats.prq);
    json_qstats(j, "umq", &r->stats.umq);
    mmj_ku64(j, "bytes", r->stats.bytes);
    mmj_ku64(j, "peak_bytes", r->stats.peak_bytes);
    mmj_ku64(j, "cancels", r->stats.cancels);
    mmj_key(j, "overhead");
    mmj_obj(j);
    mmj_ku64(j, "alloc_ns", r->stats.overhead.alloc_ns);
    mmj_ku64(j, "extract_ns", r->stats.overhead.extract_ns);
    mmj_ku64(j, "profile_ns", r->stats.overhead.profile_ns);
    mmj_ku64(j, "events", r->stats.overhead.events);
    mmj_obj_end(j);
    mmj_obj_end(j);
    if (e->paths) {
        mmj_key(j, "paths");
        mm_paths_json(j, e->paths);
    }
    if (e->classes) {
        mmj_key(j, "classes");
        mm_paths_json(j, e->classes);
    }
    mmj_obj_end(j);
}

int mm_report_json(FILE *f, const mm_stream *s, const mm_plan *p, unsigned reps,
                   const mm_gen_spec *wl)
{
    mmj j;
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_kstr(&j, "tool", "mpimatch-replay");
    mmj_kstr(&j, "version", MM_TOOLS_VERSION_STR);
    mmj_kstr(&j, "stream", s->name);
    mmj_kstr(&j, "format", format_name(s));
    if (wl) {
        mmj_key(&j, "workload");
        mm_gen_spec_json(&j, wl);
    }
    mmj_ku64(&j, "events", s->n);
    mmj_ki64(&j, "np", s->np);
    mmj_key(&j, "hints");
    json_hints(&j, p->hints);
    mmj_ku64(&j, "reps", reps);
    mmj_ki64(&j, "seed", p->seed);
    mmj_knum(&j, "floor_ns_per_event", p->floor_ns);
    mmj_key(&j, "interleaved");
    mmj_bool(&j, p->interleaved);
    mmj_kstr(&j, "entries", p->fresh ? "fresh" : "array");
    mmj_key(&j, "results");
    mmj_arr(&j);
    for (size_t i = 0; i < p->n; i++)
        if (!p->e[i].skipped)
            json_result(&j, p, &p->e[i]);
    mmj_arr_end(&j);
    mmj_key(&j, "skipped");
    mmj_arr(&j);
    for (size_t i = 0; i < p->n; i++)
        if (p->e[i].skipped) {
            mmj_obj(&j);
            mmj_kstr(&j, "engine", p->e[i].info->name);
            mmj_kstr(&j, "reason", p->e[i].reason);
            mmj_obj_end(&j);
        }
    mmj_arr_end(&j);
    mmj_obj_end(&j);
    return mmj_finish(&j);
}

static int list_json(FILE *f)
{
    mmj j;
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_kstr(&j, "tool", "mpimatch-replay");
    mmj_kstr(&j, "version", MM_TOOLS_VERSION_STR);
    mmj_key(&j, "engines");
    mmj_arr(&j);
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const mm_engine_info *in = mm_engine_at(i);
        if (!in)
            continue;
        mmj_obj(&j);
        mmj_kstr(&j, "name", in->name);
        mmj_kstr(&j, "summary", in->summary);
        mmj_kstr(&j, "origin", in->origin);
        mmj_key(&j, "hints_required");
        json_hints(&j, in->hints_required);
        mmj_key(&j, "concurrent");
        mmj_arr(&j);
        for (uint32_t h = 0; h < 4; h++) {
            mm_concurrency c;
            if (mm_concurrency_of(in, h, &c) != 0)
                continue;
            mmj_obj(&j);
            mmj_key(&j, "hints");
            json_hints(&j, h);
            mmj_ki64(&j, "shards", c.shards);
            mmj_kstr(&j, "shard_key", c.key == MM_SHARD_BY_TAG ? "comm,source,tag" : "comm,source");
            mmj_kstr(&j, "any_source", c.wildcards == MM_WILD_SHARDS ? "locks its communicator's shards"
                                                                      : "excluded");
            mmj_key(&j, "serialises");
            mmj_bool(&j, c.shards == 1);
            mmj_obj_end(&j);
        }
        mmj_arr_end(&j);
        mmj_key(&j, "params");
        mmj_arr(&j);
        for (size_t k = 0; k < in->nparams; k++) {
            const mm_param_info *pi = &in->params[k];
            mmj_obj(&j);
            mmj_kstr(&j, "name", pi->name);
            if (pi->type == MM_PARAM_FILE) {
                mmj_kstr(&j, "type", "file"); /* a path: no default, no range */
            } else {
                mmj_kstr(&j, "type", "int");
                mmj_ki64(&j, "default", pi->def);
                mmj_ki64(&j, "min", pi->min);
                mmj_ki64(&j, "max", pi->max);
            }
            mmj_kstr(&j, "doc", pi->doc);
            mmj_obj_end(&j);
        }
        mmj_arr_end(&j);
        mmj_obj_end(&j);
    }
    mmj_arr_end(&j);
    mmj_obj_end(&j);
    return mmj_finish(&j);
}

/* One line on what MM_CFG_CONCURRENT makes of an engine (mm_concurrency_of). */
static void print_concurrency(FILE *f, uint32_t hints, const mm_concurrency *c)
{
    fprintf(f, "  concurrent, hints %s: ", mm_hints_str(hints));
    if (c->shards == 1) {
        fprintf(f, "serialises (one lock)\n");
        return;
    }
    fprintf(f, "%u shards by %s%s\n", (unsigned)c->shards,
            c->key == MM_SHARD_BY_TAG ? "(comm, source, tag)" : "(comm, source)",
            c->wildcards == MM_WILD_SHARDS ? "; ANY_SOURCE locks its communicator's shards" : "");
}

int mm_report_list(FILE *f, int json)
{
    if (json)
        return list_json(f);
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const mm_engine_info *in = mm_engine_at(i);
        if (!in)
            continue;
        fprintf(f, "%s\n  %s\n  origin: %s\n  hints required: %s\n", in->name,
                in->summary ? in->summary : "", in->origin ? in->origin : "",
                mm_hints_str(in->hints_required));
        for (uint32_t h = 0; h < 4; h++) {
            mm_concurrency c;
            if (mm_concurrency_of(in, h, &c) == 0)
                print_concurrency(f, h, &c);
        }
        if (in->nparams == 0)
            fprintf(f, "  parameters: none\n");
        for (size_t k = 0; k < in->nparams; k++) {
            const mm_param_info *pi = &in->params[k];
            if (pi->type == MM_PARAM_FILE)
                fprintf(f, "  --param %s=FILE  a path: %s\n", pi->name, pi->doc ? pi->doc : "");
            else
                fprintf(f, "  --param %s=N  default %lld, range %lld..%lld: %s\n", pi->name,
                        (long long)pi->def, (long long)pi->min, (long long)pi->max,
                        pi->doc ? pi->doc : "");
        }
    }
    return ferror(f) ? -1 : 0;
}
