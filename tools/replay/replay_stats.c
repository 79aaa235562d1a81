/*
 * replay_stats.c - quartiles of repeated timings (replay_stats.h).
 */
#include <stdlib.h>

#include "replay_stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile of sorted v[0..n) with linear interpolation between ranks. */
static double quantile(const double *v, unsigned n, double p)
{
    double pos = p * (n - 1);
    unsigned lo = (unsigned)pos;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

mm_quartiles mm_quartiles_of(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    mm_quartiles q = { v[0], quantile(v, n, 0.25), quantile(v, n, 0.5), quantile(v, n, 0.75) };
    return q;
}
