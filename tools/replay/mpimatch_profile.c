/*
 * mpimatch_profile.c - `mpimatch-profile`: the profile phase of the kmeans
 * engine. Replays each stream (one receiving process each) with single-list
 * matching and writes, per receiver, how many queue elements every peer
 * added and how far the searches on its behalf walked (docs/clustering.md).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "outfile.h"
#include "profile.h"
#include "version.h"
#include "stream.h"

static const char usage[] =
    "usage: mpimatch-profile STREAM [STREAM ...] --out FILE [--np N] [--receiver R]\n"
    "\n"
    "Profiles each STREAM (the events one receiving process saw) with single-list\n"
    "matching and writes JSON: per receiver and peer, the queue elements the peer\n"
    "added (PRQ and UMQ), the searches on its behalf and the elements they compared,\n"
    "and pairwise counts (which peer's searches walked over which peer's elements).\n"
    "`mpimatch cluster` turns it into a cluster file for the kmeans engine.\n"
    "\n"
    "  --out FILE     where to write the profile ('-': standard output)\n"
    "  --np N         number of processes (overrides the streams'); all streams\n"
    "                 must have the same\n"
    "  --receiver R   number of the first receiver (default 0); the streams are\n"
    "                 receivers R, R+1, ... in the order given\n"
    "  --help         this text\n"
    "\n"
    CLI_EXIT_STATUS;

#define MAX_STREAMS 4096

typedef struct args {
    const char *streams[MAX_STREAMS];
    size_t nstreams;
    const char *out;
    int32_t np;
    int64_t receiver;
} args;

static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *v;
        int64_t x;
        int r;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return -1;
        } else if ((r = cli_opt(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->out = v;
        } else if ((r = cli_opt_int(argc, argv, &i, "--np", 1, INT32_MAX, &x)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->np = (int32_t)x;
        } else if ((r = cli_opt_int(argc, argv, &i, "--receiver", 0, INT32_MAX, &x)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            a->receiver = x;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_error("unknown option '%s' (try --help)", argv[i]);
            return CLI_USAGE;
        } else if (a->nstreams == MAX_STREAMS) {
            cli_error("more than %d streams", MAX_STREAMS);
            return CLI_USAGE;
        } else {
            a->streams[a->nstreams++] = argv[i];
        }
    }
    if (a->nstreams == 0) {
        cli_error("missing STREAM (try --help)");
        return CLI_USAGE;
    }
    if (!a->out) {
        cli_error("--out FILE is required ('-' for standard output)");
        return CLI_USAGE;
    }
    if (a->receiver + (int64_t)a->nstreams - 1 > INT32_MAX) {
        cli_error("--receiver %lld: receivers would pass %d", (long long)a->receiver, INT32_MAX);
        return CLI_USAGE;
    }
    return 0;
}

static void u64_array(mmj *j, const char *key, const uint64_t *v, int32_t n)
{
    mmj_key(j, key);
    mmj_arr(j);
    for (int32_t i = 0; i < n; i++)
        mmj_u64(j, v[i]);
    mmj_arr_end(j);
}

/* Peer numbers in JSON: -1 for ANY_SOURCE (np in mm_profile). */
static int64_t json_peer(const mm_profile *p, int32_t peer)
{
    return peer == p->np ? -1 : peer;
}

static void write_receiver(mmj *j, const mm_profile *p, int64_t receiver, const char *name)
{
    mmj_obj(j);
    mmj_ki64(j, "receiver", receiver);
    mmj_kstr(j, "stream", name);
    mmj_ku64(j, "events", p->events);
    u64_array(j, "prq_added", p->prq_added, p->np);
    u64_array(j, "umq_added", p->umq_added, p->np);
    u64_array(j, "prq_searches", p->prq_searches, p->np);
    u64_array(j, "prq_traversed", p->prq_traversed, p->np);
    u64_array(j, "umq_searches", p->umq_searches, p->np);
    u64_array(j, "umq_traversed", p->umq_traversed, p->np);
    mmj_key(j, "any_source");
    mmj_obj(j);
    mmj_ku64(j, "prq_added", p->any_prq_added);
    mmj_ku64(j, "umq_searches", p->any_umq_searches);
    mmj_ku64(j, "umq_traversed", p->any_umq_traversed);
    mmj_obj_end(j);
    mmj_key(j, "pairs");
    mmj_arr(j);
    for (size_t i = 0; i < p->npairs; i++) {
        mmj_arr(j);
        mmj_i64(j, json_peer(p, p->pairs[i].searcher));
        mmj_i64(j, json_peer(p, p->pairs[i].owner));
        mmj_u64(j, p->pairs[i].count);
        mmj_arr_end(j);
    }
    mmj_arr_end(j);
    mmj_obj_end(j);
}

/* The heat-map matrices (Ghazimirsaeed and Afsahi, HPCS 2017, Fig. 6): one row per receiver. */
static void write_matrices(mmj *j, const mm_profile *ps, size_t n)
{
    mmj_key(j, "added");
    mmj_arr(j);
    for (size_t r = 0; r < n; r++) {
        mmj_arr(j);
        for (int32_t i = 0; i < ps[r].np; i++)
            mmj_u64(j, ps[r].prq_added[i] + ps[r].umq_added[i]);
        mmj_arr_end(j);
    }
    mmj_arr_end(j);
    mmj_key(j, "mean_traversal");
    mmj_arr(j);
    for (size_t r = 0; r < n; r++) {
        mmj_arr(j);
        for (int32_t i = 0; i < ps[r].np; i++) {
            uint64_t s = ps[r].prq_searches[i] + ps[r].umq_searches[i];
            mmj_num(j, s ? (double)(ps[r].prq_traversed[i] + ps[r].umq_traversed[i]) / (double)s
                         : 0.0);
        }
        mmj_arr_end(j);
    }
    mmj_arr_end(j);
}

static int write_profile(FILE *f, const args *a, const mm_profile *ps, char **names)
{
    mmj j;
    mmj_init(&j, f);
    mmj_obj(&j);
    mmj_kstr(&j, "format", "mpimatch-profile");
    mmj_ki64(&j, "version", 1);
    mmj_kstr(&j, "tool", "mpimatch-profile " MM_TOOLS_VERSION_STR);
    mmj_ki64(&j, "np", ps[0].np);
    write_matrices(&j, ps, a->nstreams);
    mmj_key(&j, "receivers");
    mmj_arr(&j);
    for (size_t r = 0; r < a->nstreams; r++)
        write_receiver(&j, &ps[r], a->receiver + (int64_t)r, names[r]);
    mmj_arr_end(&j);
    mmj_obj_end(&j);
    return mmj_finish(&j);
}

/* Load and profile every stream; all must have the same np. */
static int profile_all(const args *a, mm_profile *ps, char **names)
{
    char err[1024];
    for (size_t r = 0; r < a->nstreams; r++) {
        mm_stream s;
        int rc = mm_stream_load(&s, a->streams[r], a->np, err, sizeof err);
        if (rc != MMS_OK) {
            cli_error("%s", err);
            return rc == MMS_ENOMEM ? CLI_FAIL : CLI_USAGE;
        }
        if (r > 0 && s.np != ps[0].np) {
            cli_error("%s: np %d differs from %s's np %d: every receiver of a profile has the "
                      "same number of processes (or give --np)", a->streams[r], (int)s.np,
                      a->streams[0], (int)ps[0].np);
            mm_stream_free(&s);
            return CLI_USAGE;
        }
        names[r] = strdup(s.name ? s.name : a->streams[r]);
        rc = names[r] ? mm_profile_run(&s, &ps[r], err, sizeof err) : -1;
        mm_stream_free(&s);
        if (rc) {
            cli_error("%s", names[r] ? err : "out of memory");
            return CLI_FAIL;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static args a;
    char err[1024];
    cli_init("mpimatch-profile");
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    mm_outfile o = {0};
    mm_profile *ps = calloc(a.nstreams, sizeof *ps);
    char **names = calloc(a.nstreams, sizeof *names);
    if (!ps || !names) {
        cli_error("out of memory");
        rc = CLI_FAIL;
    } else if (mm_outfile_open(&o, a.out, err, sizeof err)) { /* fail before any work */
        cli_error("%s", err);
        rc = CLI_USAGE;
    } else if ((rc = profile_all(&a, ps, names)) == 0) {
        if (write_profile(o.f, &a, ps, names)) {
            mm_outfile_fail(&o, err, sizeof err);
            cli_error("%s", err);
            rc = CLI_FAIL;
        } else if (mm_outfile_commit(&o, err, sizeof err)) {
            cli_error("%s", err);
            rc = CLI_FAIL;
        }
    }
    mm_outfile_abort(&o);
    for (size_t r = 0; ps && names && r < a.nstreams; r++) {
        mm_profile_free(&ps[r]);
        free(names[r]);
    }
    free(ps);
    free(names);
    return rc;
}
