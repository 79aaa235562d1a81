/*
 * replay_paths_report.c - the per-path timings as JSON and as a table
 * (replay_paths.h; schema in docs/replay.md, "Matching paths").
 */
#include "json.h"
#include "replay_paths.h"

static void json_path(struct mmj *j, const mm_path_result *pr)
{
    mmj_obj(j);
    mmj_ku64(j, "events", pr->events);
    mmj_ku64(j, "segments", pr->segments);
    mmj_key(j, "ns_per_event");
    mmj_obj(j);
    mmj_knum(j, "median", pr->ns_median);
    mmj_knum(j, "q1", pr->ns_q1);
    mmj_knum(j, "q3", pr->ns_q3);
    mmj_obj_end(j);
    mmj_knum(j, "ns_total", pr->ns_total);
    mmj_knum(j, "ns_per_segment", pr->ns_segment);
    mmj_knum(j, "timer_share", pr->timer_share);
    mmj_key(j, "timer_dominated");
    mmj_bool(j, pr->timer_dominated);
    mmj_obj_end(j);
}

/* The paths of keys base .. base + MM_PATH_COUNT - 1, by name. */
static void json_by_path(struct mmj *j, const mm_paths_result *res, int base)
{
    mmj_key(j, "by_path");
    mmj_obj(j);
    for (int c = 0; c < MM_PATH_COUNT; c++) {
        mmj_key(j, mm_path_name(c));
        json_path(j, &res->path[base + c]);
    }
    mmj_obj_end(j);
}

static void json_side(struct mmj *j, const char *key, const mm_class_side *c)
{
    mmj_key(j, key);
    mmj_obj(j);
    mmj_ku64(j, "searches", c->searches);
    mmj_ku64(j, "traversed", c->traversed);
    mmj_knum(j, "mean_depth", c->searches ? (double)c->traversed / (double)c->searches : 0.0);
    mmj_obj_end(j);
}

void mm_paths_json(struct mmj *j, const mm_paths_result *res)
{
    mmj_obj(j);
    mmj_knum(j, "clock_ns", res->clock_ns);
    mmj_knum(j, "timer_share_limit", MM_PATHS_TIMER_SHARE);
    mmj_ku64(j, "segments", res->segments);
    mmj_ku64(j, "reps", res->reps);
    if (!res->by_class) {
        json_by_path(j, res, 0);
    } else {
        mmj_key(j, "by_class");
        mmj_obj(j);
        for (int c = 0; c < MM_CLASS_COUNT; c++) {
            mmj_key(j, mm_class_name(c));
            mmj_obj(j);
            json_side(j, "prq", &res->count[c][0]);
            json_side(j, "umq", &res->count[c][1]);
            json_by_path(j, res, c * MM_PATH_COUNT);
            mmj_obj_end(j);
        }
        mmj_obj_end(j);
    }
    mmj_obj_end(j);
}

void mm_paths_table(FILE *f, const char *engine, const mm_paths_result *res)
{
    int flagged = 0;
    fprintf(f, "  %s of %s: %llu segments; one clock read (%.1f ns) subtracted per segment\n",
            res->by_class ? "classes" : "paths", engine, (unsigned long long)res->segments,
            res->clock_ns);
    fprintf(f, "  %-23s %10s %9s %10s %21s %14s\n", "path", "events", "segments", "ns/event",
            "q1-q3", "ns/segment");
    for (int c = 0; c < (res->by_class ? MM_PATH_KEYS : MM_PATH_COUNT); c++) {
        const mm_path_result *pr = &res->path[c];
        if (pr->events == 0)
            continue;
        char iq[48], name[40];
        snprintf(iq, sizeof iq, "%.2f-%.2f", pr->ns_q1, pr->ns_q3);
        snprintf(name, sizeof name, "%s%s%s", res->by_class ? mm_class_name(c / MM_PATH_COUNT) : "",
                 res->by_class ? " " : "", mm_path_name(c % MM_PATH_COUNT));
        fprintf(f, "  %-23s %10llu %9llu %10.2f %21s %14.1f%s\n", name,
                (unsigned long long)pr->events, (unsigned long long)pr->segments, pr->ns_median,
                iq, pr->ns_segment, pr->timer_dominated ? "  *" : "");
        flagged |= pr->timer_dominated;
    }
    for (int c = 0; res->by_class && c < MM_CLASS_COUNT; c++)
        for (int side = 0; side < 2; side++) {
            const mm_class_side *cs = &res->count[c][side];
            if (cs->searches)
                fprintf(f, "  %-4s %s searches %llu, elements compared %llu, mean depth %.2f\n",
                        mm_class_name(c), side ? "UMQ" : "PRQ", (unsigned long long)cs->searches,
                        (unsigned long long)cs->traversed,
                        (double)cs->traversed / (double)cs->searches);
        }
    if (flagged)
        fprintf(f, "  * timer-dominated: the clock reads subtracted exceed %.0f%% of the path's "
                   "time (segments too short)\n", 100 * MM_PATHS_TIMER_SHARE);
}
