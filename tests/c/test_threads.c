/* MM_CFG_THREAD_SAFE: several threads post, arrive, probe and cancel on one
 * engine at once. Each thread owns one communicator, so the final outcome is
 * known whatever the interleaving: every message matched exactly once.
 * Run under ThreadSanitizer in CI. */
#include <pthread.h>
#include <stdatomic.h>
#include "check.h"
#include "mpimatch.h"

enum { THREADS = 4, ROUNDS = 20000 };

static mm_engine *eng;
static atomic_long matched, errors;

static void *worker(void *arg)
{
    int32_t comm = (int32_t)(intptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        int32_t src = i % 3, tag = i % 5;
        mm_entry r = {.comm = comm, .src = src, .tag = tag, .cookie = (uintptr_t)i};
        mm_entry m = r;
        uintptr_t got;
        mm_handle h;
        int a = (i & 1) ? mm_arrive(eng, &m, &got) : mm_post(eng, &r, &h, &got);
        int b = (i & 1) ? mm_post(eng, &r, &h, &got) : mm_arrive(eng, &m, &got);
        if (a != MM_QUEUED || b != MM_MATCHED)
            atomic_fetch_add(&errors, 1);
        else
            atomic_fetch_add(&matched, 1);
        if (i % 7 == 0) {
            mm_post(eng, &r, &h, &got);
            if (mm_cancel(eng, h) != MM_MATCHED)
                atomic_fetch_add(&errors, 1);
            if (mm_probe(eng, comm, src, tag, &got) != MM_NOTFOUND)
                atomic_fetch_add(&errors, 1);
        }
    }
    return NULL;
}

int main(void)
{
    for (size_t k = 0; k < mm_engine_count(); k++) {
        const mm_engine_info *info = mm_engine_at(k);
        mm_config cfg = {.nprocs = 3, .hints = info->hints_required, .flags = MM_CFG_THREAD_SAFE};
        char err[256];
        CHECK_EQ(mm_create(&eng, info->name, &cfg, err, sizeof err), 0);
        atomic_store(&matched, 0);
        atomic_store(&errors, 0);
        pthread_t th[THREADS];
        for (int t = 0; t < THREADS; t++)
            pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
        mm_stats st;
        mm_get_stats(eng, &st);
        CHECK_EQ(atomic_load(&errors), 0);
        CHECK_EQ(atomic_load(&matched), THREADS * ROUNDS);
        CHECK_EQ(st.prq.length + st.umq.length, 0);
        printf("%-8s %ld matches across %d threads\n", info->name, atomic_load(&matched), THREADS);
        mm_destroy(eng);
    }
    return check_report("test_threads");
}
