/*
 * replay_stats.h - the summary of repeated timings that every timed report
 * gives: minimum, quartiles and median over the repetitions.
 */
#ifndef MM_TOOLS_REPLAY_STATS_H
#define MM_TOOLS_REPLAY_STATS_H

typedef struct mm_quartiles {
    double min, q1, median, q3;
} mm_quartiles;

/* Sort v[0..n) (n > 0) in place and summarize it; quantiles interpolate
 * linearly between ranks. */
mm_quartiles mm_quartiles_of(double *v, unsigned n);

#endif /* MM_TOOLS_REPLAY_STATS_H */
