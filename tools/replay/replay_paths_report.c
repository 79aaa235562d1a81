/*
 * replay_paths_report.c - the per-path timings as JSON and as a table
 * (replay_paths.h; schema in docs/replay.md, "Matching paths").
 */
#include "json.h"
#include "replay_paths.h"

void mm_paths_json(struct mmj *j, const mm_paths_result *res)
{
    mmj_obj(j);
    mmj_knum(j, "clock_ns", res->clock_ns);
    mmj_knum(j, "timer_share_limit", MM_PATHS_TIMER_SHARE);
    mmj_ku64(j, "segments", res->segments);
    mmj_ku64(j, "reps", res->reps);
    mmj_key(j, "by_path");
    mmj_obj(j);
    for (int c = 0; c < MM_PATH_COUNT; c++) {
        const mm_path_result *pr = &res->path[c];
        mmj_key(j, mm_path_name(c));
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
    mmj_obj_end(j);
    mmj_obj_end(j);
}

void mm_paths_table(FILE *f, const char *engine, const mm_paths_result *res)
{
    int flagged = 0;
    fprintf(f, "  paths of %s: %llu segments; one clock read (%.1f ns) subtracted per segment\n",
            engine, (unsigned long long)res->segments, res->clock_ns);
    fprintf(f, "  %-18s %10s %9s %10s %21s %14s\n", "path", "events", "segments", "ns/event",
            "q1-q3", "ns/segment");
    for (int c = 0; c < MM_PATH_COUNT; c++) {
        const mm_path_result *pr = &res->path[c];
        if (pr->events == 0)
            continue;
        char iq[48];
        snprintf(iq, sizeof iq, "%.2f-%.2f", pr->ns_q1, pr->ns_q3);
        fprintf(f, "  %-18s %10llu %9llu %10.2f %21s %14.1f%s\n", mm_path_name(c),
                (unsigned long long)pr->events, (unsigned long long)pr->segments, pr->ns_median,
                iq, pr->ns_segment, pr->timer_dominated ? "  *" : "");
        flagged |= pr->timer_dominated;
    }
    if (flagged)
        fprintf(f, "  * timer-dominated: the clock reads subtracted exceed %.0f%% of the path's "
                   "time (segments too short)\n", 100 * MM_PATHS_TIMER_SHARE);
}
