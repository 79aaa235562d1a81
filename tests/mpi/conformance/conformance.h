/*
 * conformance.h - what the conformance programs (the .c files beside it)
 * share. Each program checks its own results (EXPECT counts and names a failed
 * check on stderr) and folds what it received (sources, tags, counts, data
 * hashes; never timings nor the outcome of a legal race) into a per-rank
 * digest with record(). conf_finish() prints, on rank 0,
 *     NAME np=N digest=HEX: ok            (or "FAILED, K checks")
 * where HEX hashes every rank's digest in rank order, and returns the exit
 * status (0, or 1 when a check failed on any rank). The same program run on
 * two MPI stacks must print the same line: tests/python/test_conformance.py
 * compares them with ob1's. CONF_VERBOSE=1 prints each record on stderr.
 */
#ifndef MM_CONFORMANCE_H
#define MM_CONFORMANCE_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *conf_name;
static int rank, size, failures, conf_verbose;
static uint64_t digest = 14695981039346656037ULL; /* FNV-1a offset basis */

#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s: rank %d: line %d: %s\n", conf_name, rank, __LINE__, #cond); \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

/* FNV-1a over n bytes, continuing from h. */
static inline uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* A hash of a buffer, for records of received data. */
static inline uint64_t data_hash(const void *p, size_t n)
{
    return fnv(14695981039346656037ULL, p, n);
}

/* Fold one formatted line into this rank's digest. */
__attribute__((format(printf, 1, 2))) static inline void record(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        fprintf(stderr, "%s: rank %d: record too long\n", conf_name, rank);
        failures++;
        return;
    }
    digest = fnv(digest, line, (size_t)n + 1);
    if (conf_verbose)
        fprintf(stderr, "[%d] %s\n", rank, line);
}

/* Deterministic bytes for message number `seed`: byte i of the pattern. */
static inline unsigned char pattern_byte(uint64_t seed, size_t i)
{
    uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ULL + i * 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return (unsigned char)(x ^ (x >> 17));
}

static inline void fill(void *buf, size_t n, uint64_t seed)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = pattern_byte(seed, i);
}

/* The index of the first byte that differs from the pattern, or n. */
static inline size_t first_bad(const void *buf, size_t n, uint64_t seed)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern_byte(seed, i))
            return i;
    return n;
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "%s: rank %d: out of memory (%zu bytes)\n", conf_name, rank, n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static inline int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* MPI_Init (or Init_thread when `thread` >= 0); 0, or 2 when the number of
 * processes is outside [min_np, max_np] (the run is refused with a message). */
static int conf_start(const char *name, int *argc, char ***argv, int min_np, int max_np,
                      int thread, int *provided)
{
    conf_name = name;
    const char *v = getenv("CONF_VERBOSE");
    conf_verbose = v && *v == '1';
    if (thread >= 0)
        MPI_Init_thread(argc, argv, thread, provided);
    else
        MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size >= min_np && size <= max_np)
        return 0;
    if (rank == 0)
        fprintf(stderr, "%s: run with %d to %d processes, not %d\n", name, min_np, max_np, size);
    MPI_Finalize();
    return 2;
}

/* Each phase, then a barrier on the world. */
static inline void conf_phases(void (*const phase[])(void), size_t n)
{
    for (size_t i = 0; i < n; i++) {
        phase[i]();
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* Gather the digests, sum the failures, MPI_Finalize; the exit status. */
static int conf_finish(void)
{
    uint64_t *all = xmalloc(sizeof(uint64_t) * (size_t)size);
    int bad = 0;
    MPI_Gather(&digest, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t h = fnv(14695981039346656037ULL, all, sizeof(uint64_t) * (size_t)size);
        if (bad)
            printf("%s np=%d digest=%016llx: FAILED, %d checks\n", conf_name, size,
                   (unsigned long long)h, bad);
        else
            printf("%s np=%d digest=%016llx: ok\n", conf_name, size, (unsigned long long)h);
        fflush(stdout);
    }
    free(all);
    MPI_Finalize();
    return bad ? 1 : 0;
}

#endif /* MM_CONFORMANCE_H */
