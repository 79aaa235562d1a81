/* White-box tests of the `adaptive` and `simd` engines: adaptive switches to
 * bins and back at the points its parameters say, and keeps MPI order across
 * the switch; (the semantic rules and the random differential run are in
 * test_semantics.c and test_differential.c, which cover these engines too). */
#include <string.h>
#include "check.h"
#include "mpimatch.h"

static mm_engine *make(const char *name, int32_t np, const char *const *params, size_t n)
{
    mm_config cfg = {.nprocs = np, .params = params, .nparams = n};
    mm_engine *e = NULL;
    char err[256];
    int rc = mm_create(&e, name, &cfg, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", name, err);
    CHECK_EQ(rc, 0);
    return e;
}

static uintptr_t got;

static int post(mm_engine *e, int32_t c, int32_t s, int32_t t, uintptr_t id, mm_handle *h)
{
    mm_entry x = {.comm = c, .src = s, .tag = t, .cookie = id};
    got = 0;
    return mm_post(e, &x, h, &got);
}

static int arrive(mm_engine *e, int32_t c, int32_t s, int32_t t, uintptr_t id)
{
    mm_entry x = {.comm = c, .src = s, .tag = t, .cookie = id};
    got = 0;
    return mm_arrive(e, &x, &got);
}

static mm_stats stats(mm_engine *e)
{
    mm_stats st;
    mm_get_stats(e, &st);
    return st;
}

/* ---- adaptive ---- */

enum { FILL = 40, NBINS = 8 };

/* Queue receives of every pattern and three messages while adaptive is a
 * list, then search deep until it switches: two searches of 43 elements lift
 * the running average (x16) to 84 > threshold 4 x16, so the switch happens
 * at the start of the third search. */
static mm_engine *adaptive_loaded(const char *low, mm_handle *fill)
{
    const char *p[] = {"threshold=4", "bins=8", low};
    mm_engine *e = make("adaptive", 4, p, 3);
    CHECK_EQ(post(e, 0, MM_ANY_SOURCE, 5, 1, NULL), MM_QUEUED);
    CHECK_EQ(post(e, 0, 1, 5, 2, NULL), MM_QUEUED);
    CHECK_EQ(post(e, 0, 1, MM_ANY_TAG, 3, NULL), MM_QUEUED);
    CHECK_EQ(post(e, 0, 1, MM_ANY_TAG, 4, NULL), MM_QUEUED);
    for (int i = 0; i < FILL; i++)
        CHECK_EQ(post(e, 0, 2, 100 + i, (uintptr_t)(10 + i), &fill[i]), MM_QUEUED);
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.queues, 1);
    CHECK_EQ(st.umq.queues, 1);
    CHECK_EQ(st.overhead.events, 0);
    CHECK_EQ(arrive(e, 0, 3, 7, 60), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 3, 7, 61), MM_QUEUED);
    st = stats(e);
    CHECK_EQ(st.prq.queues, 1);  /* still a list */
    CHECK_EQ(st.prq.traversed, 2 * (FILL + 4));
    CHECK_EQ(arrive(e, 0, 3, -2, 62), MM_QUEUED);
    st = stats(e);
    CHECK_EQ(st.prq.queues, 1 + NBINS + 1);  /* prq_all, bins, wildcard list */
    CHECK_EQ(st.umq.queues, 1 + NBINS);      /* umq_all, bins */
    CHECK_EQ(st.overhead.events, 2);         /* allocation, then the move */
    return e;
}

/* Everything queued before the switch is found in the same order after it. */
static void adaptive_switch_keeps_order(void)
{
    mm_handle fill[FILL];
    mm_engine *e = adaptive_loaded("low=-1", fill);
    /* receives: earliest posted wins across the wildcard list and the bins */
    CHECK_EQ(arrive(e, 0, 1, 5, 70), MM_MATCHED);
    CHECK_EQ(got, 1);                                   /* ANY_SOURCE, posted first */
    CHECK_EQ(arrive(e, 0, 1, 5, 71), MM_MATCHED);
    CHECK_EQ(got, 2);
    CHECK_EQ(arrive(e, 0, 1, 5, 72), MM_MATCHED);
    CHECK_EQ(got, 3);                                   /* ANY_TAG */
    CHECK_EQ(arrive(e, 0, 1, -1, 73), MM_QUEUED);       /* ANY_TAG refuses tag -1 */
    CHECK_EQ(arrive(e, 0, 1, 9, 74), MM_MATCHED);
    CHECK_EQ(got, 4);
    /* a receive queued before the switch cancels after it */
    CHECK_EQ(mm_cancel(e, fill[20]), MM_MATCHED);
    CHECK_EQ(arrive(e, 0, 2, 120, 75), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 2, 121, 76), MM_MATCHED);
    CHECK_EQ(got, 31);
    /* messages: earliest arrived wins, in a bin and in the arrival list */
    CHECK_EQ(post(e, 0, 3, 7, 80, NULL), MM_MATCHED);
    CHECK_EQ(got, 60);
    CHECK_EQ(post(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, 81, NULL), MM_MATCHED);
    CHECK_EQ(got, 61);                                  /* not 62: tag -2 */
    CHECK_EQ(mm_probe(e, 0, 3, -2, &got), MM_MATCHED);
    CHECK_EQ(got, 62);
    CHECK_EQ(mm_mprobe(e, 0, MM_ANY_SOURCE, -2, &got), MM_MATCHED);
    CHECK_EQ(got, 62);
    CHECK_EQ(mm_probe(e, 0, 3, -2, &got), MM_NOTFOUND);
    CHECK_EQ(post(e, 0, 1, -1, 82, NULL), MM_MATCHED);
    CHECK_EQ(got, 73);
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.queues, 1 + NBINS + 1);             /* low=-1: never back */
    CHECK_EQ(st.overhead.events, 2);
    CHECK_EQ(st.prq.length, FILL - 2);
    mm_destroy(e);
}

/* With low=0 it returns to the lists once both queues are empty, frees the
 * bins, and matches as before; then it can switch again. */
static void adaptive_switches_back(void)
{
    mm_handle fill[FILL];
    mm_engine *e = adaptive_loaded("low=0", fill);
    mm_stats before = stats(e);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(arrive(e, 0, 1, 5, (uintptr_t)(70 + i)), MM_MATCHED);
    for (int i = 0; i < FILL; i++)
        CHECK_EQ(arrive(e, 0, 2, 100 + i, (uintptr_t)(200 + i)), MM_MATCHED);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(post(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, (uintptr_t)(300 + i), NULL),
                 i < 2 ? MM_MATCHED : MM_QUEUED);   /* 60 and 61; 62 has tag -2 */
    CHECK_EQ(mm_mprobe(e, 0, 3, -2, &got), MM_MATCHED);
    CHECK_EQ(arrive(e, 0, 0, 0, 400), MM_MATCHED);   /* the last receive; now empty */
    CHECK_EQ(got, 302);
    CHECK_EQ(stats(e).prq.queues, 1 + NBINS + 1);
    CHECK_EQ(arrive(e, 0, 0, 0, 401), MM_QUEUED);    /* switches back first */
    mm_stats st = stats(e);
    CHECK_EQ(st.prq.queues, 1);
    CHECK_EQ(st.umq.queues, 1);
    CHECK_EQ(st.overhead.events, 3);
    CHECK(st.prq.bytes + NBINS * 24 <= before.prq.bytes); /* the bins are freed */
    CHECK_EQ(post(e, 0, 0, 0, 402, NULL), MM_MATCHED);
    CHECK_EQ(got, 401);
    mm_destroy(e);
}

int main(void)
{
    adaptive_switch_keeps_order();
    adaptive_switches_back();
    return check_report("test_adaptive_simd");
}
