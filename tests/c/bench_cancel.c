/* bench_cancel - time of mm_cancel against the number of queued receives
 * (not a test: run by hand; docs/api.md quotes it).
 *
 *   bench_cancel N [ENGINE]
 * Posts N receives with distinct keys, then cancels the 10,000 oldest (or
 * N): the median over 5 runs of the mean time per cancel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpimatch.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 0;
    const char *engine = argc > 2 ? argv[2] : "list";
    if (n < 1) {
        fprintf(stderr, "usage: bench_cancel N [ENGINE]\n");
        return 2;
    }
    enum { REPS = 5 };
    double t[REPS];
    long m = n < 10000 ? n : 10000;
    mm_handle *h = malloc((size_t)n * sizeof *h);
    if (!h)
        return 1;
    for (int r = 0; r < REPS; r++) {
        /* The hints an engine requires (hash, nm under them): the receives
         * have no wildcards. */
        const mm_engine_info *info = mm_engine_find(engine);
        mm_config cfg = {.nprocs = 4, .hints = info ? info->hints_required : 0};
        mm_engine *e;
        char err[256];
        if (mm_create(&e, engine, &cfg, err, sizeof err) != 0) {
            fprintf(stderr, "bench_cancel: %s\n", err);
            return 2;
        }
        for (long i = 0; i < n; i++) {
            mm_entry x = {.comm = 0, .src = (int32_t)(i % 4), .tag = (int32_t)i, .cookie = 1};
            uintptr_t p;
            if (mm_post(e, &x, &h[i], &p) != MM_QUEUED) {
                fprintf(stderr, "bench_cancel: post %ld failed\n", i);
                return 1;
            }
        }
        double t0 = now();
        for (long i = 0; i < m; i++)
            if (mm_cancel(e, h[i]) != MM_MATCHED)
                return 1;
        t[r] = (now() - t0) / (double)m * 1e9;
        mm_destroy(e);
    }
    qsort(t, REPS, sizeof t[0], cmp);
    printf("%s: %ld queued, %.1f ns per cancel (median of %d)\n", engine, n, t[REPS / 2], REPS);
    free(h);
    return 0;
}
