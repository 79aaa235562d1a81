/* The kmeans engine: cluster-file validation (every bad file is an
 * MM_EPARAM naming the file and line) and matching across cluster queues,
 * PRQ_ANY and sequence numbers. */
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "mpimatch.h"

static char path[256];

/* Write text to this test's cluster file. */
static const char *file_with(const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    return path;
}

/* Create kmeans with nprocs and params; returns the status, err filled. */
static int create(mm_engine **e, int32_t nprocs, const char *p1, const char *p2,
                  char *err, size_t errlen)
{
    const char *params[2] = {p1, p2};
    mm_config cfg = {.nprocs = nprocs, .params = params, .nparams = p2 ? 2 : p1 ? 1 : 0};
    *e = NULL;
    err[0] = '\0';
    return mm_create(e, "kmeans", &cfg, err, errlen);
}

static char clusters_param[300];
static const char *clusters_arg(void)
{
    snprintf(clusters_param, sizeof clusters_param, "clusters=%s", path);
    return clusters_param;
}

/* The file is rejected with MM_EPARAM, the message names the file and
 * contains `want` (e.g. ":4:" for the line, or a phrase). */
static void expect_bad(const char *text, int32_t nprocs, const char *extra, const char *want)
{
    char err[512];
    mm_engine *e;
    if (text)
        file_with(text);
    else
        unlink(path);
    int rc = create(&e, nprocs, clusters_arg(), extra, err, sizeof err);
    CHECK_EQ(rc, MM_EPARAM);
    CHECK(e == NULL);
    CHECK(strstr(err, path) != NULL);
    if (!strstr(err, want)) {
        check_failed++;
        fprintf(stderr, "expected '%s' in: %s\n", want, err);
    }
}

static void test_bad_files(void)
{
    const char *good4 = "mpimatch-clusters 1\nnp 4\nk 2\nreceiver 0\n0 0\n1 1\n2 0\n3 1\n";
    expect_bad(NULL, 4, NULL, "cannot open");
    expect_bad("", 4, NULL, "truncated");
    expect_bad("mpimatch-clusters 1\nnp 4\n", 4, NULL, "truncated");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\nreceiver 0\n0 0\n1 1\n", 4, NULL,
               "peer 2 is missing");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\n", 4, NULL, "no section 'receiver 0'");
    expect_bad("hello\n", 4, NULL, ":1: not a cluster file");
    expect_bad("mpimatch-clusters 2\nnp 4\n", 4, NULL, ":1: cluster file version 2");
    expect_bad(good4, 8, NULL, ":2: the file is for np 4 but the engine has nprocs 8");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 5\n", 4, NULL, ":3: expected 'k K' with K from 1 to 4");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\nreceiver 0\n0 0\n1 2\n", 4, NULL,
               ":6: cluster '2' of peer 1 is not from 0 to 1");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\nreceiver 0\n0 0\n1 1\n0 1\n", 4, NULL,
               ":7: peer 0 is listed twice");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\nreceiver 0\n0 0\n9 1\n", 4, NULL,
               ":6: peer '9' is not from 0 to 3");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\n0 0\n", 4, NULL, ":4: a 'peer cluster' line before");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\nreceiver 0\n0 0 0\n", 4, NULL, ":5: too many fields");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\nreceiver 0\n0 x\n", 4, NULL, ":5: cluster 'x'");
    expect_bad("mpimatch-clusters 1\nnp 4\nk 2\nreceiver 1\n0 0\n1 1\n2 0\n3 1\n"
               "receiver 0\n", 4, NULL, ":9: receiver 0 after receiver 1");
    expect_bad(good4, 4, "receiver=3", "no section 'receiver 3'");
    expect_bad(good4, 4, "k=3", "conflicts with cluster file");
}

static void test_params(void)
{
    char err[512];
    mm_engine *e;
    /* without a file: k above nprocs is refused with the allowed range */
    CHECK_EQ(create(&e, 4, "k=5", NULL, err, sizeof err), MM_EPARAM);
    CHECK(strstr(err, "from 1 to 4") != NULL);
    CHECK_EQ(create(&e, 4, "k=70000", NULL, err, sizeof err), MM_EPARAM);
    CHECK(strstr(err, "from 0 to 65535") != NULL);
    CHECK_EQ(create(&e, 4, "clusters=", NULL, err, sizeof err), MM_EPARAM);
    /* defaults: min(16, nprocs) queues, round-robin */
    mm_stats st;
    CHECK_EQ(create(&e, 4, NULL, NULL, err, sizeof err), 0);
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.queues, 5);
    CHECK_EQ(st.umq.queues, 4);
    mm_destroy(e);
    CHECK_EQ(create(&e, 100, NULL, NULL, err, sizeof err), 0);
    mm_get_stats(e, &st);
    CHECK_EQ(st.umq.queues, 16);
    mm_destroy(e);
    CHECK_EQ(create(&e, 100, "k=3", NULL, err, sizeof err), 0);
    mm_get_stats(e, &st);
    CHECK_EQ(st.umq.queues, 3);
    mm_destroy(e);
}

static int post(mm_engine *e, int32_t s, int32_t t, uintptr_t id, uintptr_t *got)
{
    mm_entry x = {.comm = 0, .src = s, .tag = t, .cookie = id};
    *got = 0;
    return mm_post(e, &x, NULL, got);
}

static int arrive(mm_engine *e, int32_t c, int32_t s, int32_t t, uintptr_t id, uintptr_t *got)
{
    mm_entry x = {.comm = c, .src = s, .tag = t, .cookie = id};
    *got = 0;
    return mm_arrive(e, &x, got);
}

static void test_matching(void)
{
    /* 6 peers; receiver 1's section: peers 0,1 -> queue 0; 2..4 -> 1; 5 -> 2 */
    file_with("# made by hand\nmpimatch-clusters 1\nnp 6\nk 3\n"
              "receiver 0\n0 0\n1 0\n2 0\n3 0\n4 0\n5 0\n"
              "receiver 1\n5 2\n0 0\n1 0\n2 1\n3 1\n4 1  # peer 4\n");
    char err[512];
    mm_engine *e;
    int rc = create(&e, 6, clusters_arg(), "receiver=1", err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    mm_stats st;
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.queues, 4);
    CHECK_EQ(st.umq.queues, 3);
    CHECK(st.overhead.events >= 2);

    uintptr_t got;
    /* messages from peers in three clusters, and another communicator */
    CHECK_EQ(arrive(e, 0, 0, 7, 100, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 2, 7, 101, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 5, 7, 102, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 1, 3, 7, 103, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 3, 7, 104, &got), MM_QUEUED);
    /* a specific receive walks only its cluster: peer 3's queue holds 101,
     * 103 (comm 1), 104: depth 3, and 103's communicator is respected */
    mm_reset_stats(e);
    CHECK_EQ(post(e, 3, 7, 1, &got), MM_MATCHED);
    CHECK_EQ(got, 104);
    mm_get_stats(e, &st);
    CHECK_EQ(st.umq.traversed, 3);
    /* peer 5 is alone in its queue: depth 1 */
    mm_reset_stats(e);
    CHECK_EQ(post(e, 5, MM_ANY_TAG, 2, &got), MM_MATCHED);
    CHECK_EQ(got, 102);
    mm_get_stats(e, &st);
    CHECK_EQ(st.umq.traversed, 1);
    /* ANY_SOURCE takes the earliest arrival across clusters */
    CHECK_EQ(post(e, MM_ANY_SOURCE, 7, 3, &got), MM_MATCHED);
    CHECK_EQ(got, 100);
    CHECK_EQ(post(e, MM_ANY_SOURCE, 7, 4, &got), MM_MATCHED);
    CHECK_EQ(got, 101);
    CHECK_EQ(post(e, MM_ANY_SOURCE, 7, 5, &got), MM_QUEUED); /* 103 is on comm 1 */
    /* PRQ_ANY vs a cluster queue: the earlier posted receive wins */
    CHECK_EQ(post(e, 4, 7, 6, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 4, 7, 200, &got), MM_MATCHED);
    CHECK_EQ(got, 5); /* the ANY_SOURCE receive was posted first */
    CHECK_EQ(arrive(e, 0, 4, 7, 201, &got), MM_MATCHED);
    CHECK_EQ(got, 6);
    CHECK_EQ(post(e, 2, 7, 7, &got), MM_QUEUED);
    CHECK_EQ(post(e, MM_ANY_SOURCE, MM_ANY_TAG, 8, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 2, 7, 202, &got), MM_MATCHED);
    CHECK_EQ(got, 7); /* the specific receive was posted first */
    CHECK_EQ(arrive(e, 0, 2, 9, 203, &got), MM_MATCHED);
    CHECK_EQ(got, 8);
    /* probe and mprobe across clusters */
    CHECK_EQ(mm_probe(e, 1, MM_ANY_SOURCE, MM_ANY_TAG, &got), MM_MATCHED);
    CHECK_EQ(got, 103);
    CHECK_EQ(mm_mprobe(e, 1, 3, 7, &got), MM_MATCHED);
    CHECK_EQ(got, 103);
    CHECK_EQ(mm_probe(e, 1, MM_ANY_SOURCE, MM_ANY_TAG, &got), MM_NOTFOUND);
    /* cancel from a cluster queue and from PRQ_ANY */
    mm_handle h1, h2;
    mm_entry r1 = {.src = 1, .tag = 3, .cookie = 9}, r2 = {.src = MM_ANY_SOURCE, .tag = 3, .cookie = 10};
    CHECK_EQ(mm_post(e, &r1, &h1, &got), MM_QUEUED);
    CHECK_EQ(mm_post(e, &r2, &h2, &got), MM_QUEUED);
    CHECK_EQ(mm_cancel(e, h1), MM_MATCHED);
    CHECK_EQ(mm_cancel(e, h2), MM_MATCHED);
    CHECK_EQ(arrive(e, 0, 1, 3, 300, &got), MM_QUEUED);
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.length, 0);
    CHECK_EQ(st.umq.length, 1);
    mm_destroy(e);
}

int main(void)
{
    snprintf(path, sizeof path, "test_kmeans_%ld.clusters", (long)getpid());
    test_bad_files();
    test_params();
    test_matching();
    unlink(path);
    return check_report("test_kmeans");
}
