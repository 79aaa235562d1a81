/* MM_CFG_CONCURRENT: 16 threads post and deliver at once, with an oracle.
 *
 * Thread t delivers the messages of source t and posts the receives for
 * source t+1 (mod T), both in the order n = 0, 1, 2, ... of one key
 * sequence per source (communicator n % 3, tag (7n + s) % 5). Per key, the
 * receives and the messages are each issued in order by one thread, and
 * MPI's rules (earliest posted receive wins; no overtaking per sender and
 * communicator) pair the j-th message of a key with the j-th receive of
 * that key, however the threads interleave: message n of source s must match
 * receive n of source s. Each thread mixes its posts and deliveries in a
 * seeded random order, and now and then posts and cancels a receive on a
 * private communicator. The oracle: every match names its own n (none out of
 * MPI order), every message matched exactly once (none lost or duplicated),
 * queues empty at the end. Run for every engine, in the three shard modes
 * (by comm/source/tag, by comm/source, one shard), and under TSan in CI.
 *
 * usage: test_concurrent [OPS [ENGINE]]  OPS operations per thread (default 20000),
 *                                       every engine or only ENGINE; the full size
 *                                       is test_concurrent 1000000
 *        test_concurrent --bench ENGINE THREADS OPS
 *                                       throughput (operations per second) */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "mpimatch.h"

enum { MAXT = 64 };

static mm_engine *eng;
static int nthreads;
static long per_thread; /* posts + deliveries of each thread */
static atomic_long matched, errors, cancels;

static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static mm_entry entry(int32_t s, long n)
{
    mm_entry x;
    memset(&x, 0, sizeof x);
    x.comm = (int32_t)(n % 3);
    x.src = s;
    x.tag = (int32_t)((7 * n + s) % 5);
    x.cookie = ((uintptr_t)s << 40) | (uintptr_t)n;
    return x;
}

static void *worker(void *arg)
{
    int32_t t = (int32_t)(intptr_t)arg, r = (t + 1) % nthreads;
    long nr = 0, nm = 0, half = per_thread / 2, bad = 0, ok = 0, canc = 0;
    uint64_t seed = 0x1234 + (uint64_t)t;
    while (nr < half || nm < half) {
        int post = nm == half || (nr < half && (rng_next(&seed) & 1));
        mm_entry x = post ? entry(r, nr++) : entry(t, nm++);
        uintptr_t got = 0;
        mm_handle h;
        int rc = post ? mm_post(eng, &x, &h, &got) : mm_arrive(eng, &x, &got);
        if (rc == MM_MATCHED) {
            ok++;
            bad += got != x.cookie; /* paired with another n: out of MPI order */
        } else if (rc != MM_QUEUED) {
            bad++;
        }
        if ((nr + nm) % 64 == 0) { /* a receive on a private communicator, cancelled */
            mm_entry c = entry(t, 0);
            c.comm = 1000 + t;
            rc = mm_post(eng, &c, &h, &got);
            bad += rc != MM_QUEUED || mm_cancel(eng, h) != MM_MATCHED ||
                   mm_cancel(eng, h) != MM_NOTFOUND;
            canc++;
        }
    }
    atomic_fetch_add(&matched, ok);
    atomic_fetch_add(&errors, bad);
    atomic_fetch_add(&cancels, canc);
    return NULL;
}

static double run(const mm_engine_info *info, uint32_t hints, uint32_t flags)
{
    mm_config cfg = {.nprocs = nthreads, .hints = hints | info->hints_required, .flags = flags};
    char err[256];
    int rc = mm_create(&eng, info->name, &cfg, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return 0;
    }
    atomic_store(&matched, 0);
    atomic_store(&errors, 0);
    atomic_store(&cancels, 0);
    pthread_t th[MAXT];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    mm_stats st;
    mm_get_stats(eng, &st);
    CHECK_EQ(atomic_load(&errors), 0);
    CHECK_EQ(atomic_load(&matched), (long)nthreads * (per_thread / 2)); /* each pair once */
    CHECK_EQ(st.prq.length + st.umq.length, 0);
    CHECK_EQ(st.cancels, atomic_load(&cancels));
    CHECK_EQ(st.prq.hits + st.umq.hits, (long)nthreads * (per_thread / 2));
    mm_destroy(eng);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    return s > 0 ? (double)nthreads * (double)per_thread / s : 0;
}

/* Without the no_any_source hint there is one shard, and wildcards work. */
static void wildcards(const mm_engine_info *info)
{
    if (info->hints_required & MM_HINT_NO_ANY_SOURCE)
        return;
    mm_config cfg = {.nprocs = 4, .hints = info->hints_required, .flags = MM_CFG_CONCURRENT};
    CHECK_EQ(mm_create(&eng, info->name, &cfg, NULL, 0), 0);
    mm_entry r = {.comm = 0, .src = MM_ANY_SOURCE, .tag = 5, .cookie = 1};
    mm_entry c = {.comm = 0, .src = 2, .tag = 5, .cookie = 2};
    mm_entry m = {.comm = 0, .src = 2, .tag = 5, .cookie = 9};
    uintptr_t got = 0;
    CHECK_EQ(mm_post(eng, &r, NULL, &got), MM_QUEUED);
    CHECK_EQ(mm_post(eng, &c, NULL, &got), MM_QUEUED);
    CHECK_EQ(mm_arrive(eng, &m, &got), MM_MATCHED);
    CHECK_EQ(got, 1); /* the earlier-posted wildcard wins */
    CHECK_EQ(mm_arrive(eng, &m, &got), MM_MATCHED);
    CHECK_EQ(got, 2);
    mm_destroy(eng);
    /* With the hint, a wildcard is refused as for any engine. */
    cfg.hints |= MM_HINT_NO_ANY_SOURCE;
    CHECK_EQ(mm_create(&eng, info->name, &cfg, NULL, 0), 0);
    CHECK_EQ(mm_post(eng, &r, NULL, &got), MM_EHINT);
    CHECK_EQ(mm_probe(eng, 0, 2, 5, &got), MM_NOTFOUND);
    mm_destroy(eng);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--bench") == 0) {
        const mm_engine_info *info = mm_engine_find(argv[2]);
        nthreads = atoi(argv[3]);
        per_thread = atol(argv[4]);
        if (!info || nthreads < 1 || nthreads > MAXT || per_thread < 2) {
            fprintf(stderr, "usage: test_concurrent --bench ENGINE THREADS(1..64) OPS\n");
            return 2;
        }
        double c = run(info, MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG, MM_CFG_CONCURRENT);
        double g = run(info, MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG, MM_CFG_THREAD_SAFE);
        printf("%s threads=%d concurrent %.0f ops/s thread_safe %.0f ops/s\n", info->name,
               nthreads, c, g);
        return check_failed ? 1 : 0;
    }
    nthreads = 16;
    per_thread = argc > 1 ? atol(argv[1]) : 20000;
    if (per_thread < 2)
        per_thread = 2;
    static const uint32_t modes[3] = {MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG,
                                      MM_HINT_NO_ANY_SOURCE, 0};
    const char *only = argc > 2 ? argv[2] : NULL;
    if (only && !mm_engine_find(only)) {
        fprintf(stderr, "test_concurrent: no engine '%s'\n", only);
        return 2;
    }
    for (size_t k = 0; k < mm_engine_count(); k++) {
        const mm_engine_info *info = mm_engine_at(k);
        if (only && strcmp(only, info->name) != 0)
            continue;
        for (int m = 0; m < 3; m++) {
            double ops = run(info, modes[m], MM_CFG_CONCURRENT);
            printf("%-8s shards by %-16s %d threads x %ld ops: %.2f Mops/s\n", info->name,
                   m == 0 ? "comm,source,tag" : m == 1 ? "comm,source" : "none (1 shard)",
                   nthreads, per_thread, ops / 1e6);
        }
        wildcards(info);
    }
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
