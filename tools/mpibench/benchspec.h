/*
 * benchspec.h - what the MPI benchmark programs (mpibench.c, pollbench.c) share:
 * failing the run, zeroed allocation, and their arguments, one measurement each,
 * "mode:key=value,key=value", run in order by bench_dispatch.
 *
 * The including program defines BENCH_NAME (its name in messages) before
 * including this, and sets rank (its MPI_COMM_WORLD rank) after MPI_Init.
 */
#ifndef MPIMATCH_BENCHSPEC_H
#define MPIMATCH_BENCHSPEC_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
/* The measurement being run: "mode:key=value,key=value". */
static const char *spec_g;

static void die(const char *what)
{
    fprintf(stderr, "%s: rank %d: %s\n", BENCH_NAME, rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static const char *arg_str(const char *key, const char *def)
{
    static char val[64];
    size_t k = strlen(key);
    const char *p = strchr(spec_g, ':');
    while (p && *p) {
        p++;
        if (!strncmp(p, key, k) && p[k] == '=') {
            size_t n = strcspn(p + k + 1, ",");
            if (n >= sizeof val)
                n = sizeof val - 1;
            memcpy(val, p + k + 1, n);
            val[n] = 0;
            return val;
        }
        p = strchr(p, ',');
    }
    return def;
}

static long long arg_int(const char *key, long long def, long long lo, long long hi)
{
    const char *v = arg_str(key, NULL);
    if (!v)
        return def;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || x < lo || x > hi) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: %s=%s: expected an integer from %lld to %lld", spec_g, key,
                 v, lo, hi);
        die(msg);
    }
    return x;
}

/* --help or -h anywhere in argv: `text` on standard output and exit 0, before MPI_Init
 * (no mpirun needed); exit 1 if it cannot be written. */
static void bench_help(int argc, char **argv, const char *text)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(text, stdout);
            exit(fflush(stdout) || ferror(stdout) ? 1 : 0);
        }
}

typedef struct bench_mode {
    const char *name;
    void (*run)(MPI_Comm comm, MPI_Comm ctl);
} bench_mode;

/* Run argv[1..] in order, each by its mode; an unknown mode fails with `expected`. */
static void bench_dispatch(int argc, char **argv, MPI_Comm comm, MPI_Comm ctl,
                           const bench_mode *modes, size_t nmodes, const char *expected)
{
    for (int i = 1; i < argc; i++) {
        spec_g = argv[i];
        size_t len = strcspn(argv[i], ":");
        int found = 0;
        for (size_t m = 0; m < nmodes && !found; m++)
            if (strlen(modes[m].name) == len && !strncmp(argv[i], modes[m].name, len)) {
                modes[m].run(comm, ctl);
                found = 1;
            }
        if (!found) {
            char msg[200];
            snprintf(msg, sizeof msg, "%.80s: mode: expected %s", argv[i], expected);
            die(msg);
        }
    }
}

#endif /* MPIMATCH_BENCHSPEC_H */
