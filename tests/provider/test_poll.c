/*
 * test_poll.c - the polling schemes' rules (src/provider/poll.c) and the
 * tuning file's reader (src/provider/tuning.c), alone, without libfabric.
 *
 *   rule      m / (n + 1), floor, kept within [1, MMFI_POLL_RATIO_MAX]
 *   dynamic   the ratio changes after every `history` messages, from that
 *             window's counts only; the network is polled at the new ratio
 *   static    the network every ratio-th call, shared memory never skipped
 *   counters  polls, empty polls, found, discovery times and quantiles
 *   tuning    good files, and every kind of bad line names file:line
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "poll.h"
#include "tuning.h"

static int failed;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); failed = 1; } } while (0)
#define EQ(a, b) do { unsigned long long x_ = (unsigned long long)(a), y_ = (unsigned long long)(b); \
    if (x_ != y_) { fprintf(stderr, "%s:%d: %s = %llu, expected %llu\n", __FILE__, __LINE__, #a, x_, y_); failed = 1; } } while (0)

static void t_rule(void)
{
    EQ(mmfi_poll_rule(0, 0), 1);      /* nothing from shm: never below 1 */
    EQ(mmfi_poll_rule(0, 8), 1);
    EQ(mmfi_poll_rule(8, 0), 8);      /* all from shm: the history length */
    EQ(mmfi_poll_rule(7, 1), 3);      /* 7 / 2, floor */
    EQ(mmfi_poll_rule(6, 2), 2);
    EQ(mmfi_poll_rule(4, 4), 1);      /* 4 / 5 */
    EQ(mmfi_poll_rule(5000, 0), MMFI_POLL_RATIO_MAX); /* the bound */
    EQ(mmfi_poll_rule(UINT32_MAX, UINT32_MAX), 1);    /* no overflow in n + 1 */
    /* exhaustive small range against the definition */
    for (uint32_t m = 0; m <= 64; m++)
        for (uint32_t n = 0; m + n <= 64; n++) {
            uint32_t want = m / (n + 1);
            EQ(mmfi_poll_rule(m, n), want < 1 ? 1 : want);
        }
}

/* Calls until the network is due, counting this one. */
static int calls_to_net(mmfi_poll *p)
{
    int k = 1;
    while (!mmfi_poll_net_due(p))
        k++;
    return k;
}

static void t_rr_static(void)
{
    mmfi_poll p;
    mmfi_poll_init(&p, MMFI_POLL_RR, 50, 8);
    EQ(p.ratio, 1);
    for (int i = 0; i < 10; i++)
        CHECK(mmfi_poll_net_due(&p));
    mmfi_poll_init(&p, MMFI_POLL_STATIC, 50, 8);
    EQ(p.ratio, 50);
    for (int i = 0; i < 5; i++)
        EQ(calls_to_net(&p), 50);
    /* messages do not move a static ratio */
    for (int i = 0; i < 100; i++)
        mmfi_poll_found(&p, MMFI_CH_NET, UINT64_MAX);
    EQ(p.ratio, 50);
    EQ(p.updates, 0);
    mmfi_poll_init(&p, MMFI_POLL_STATIC, 0, 8); /* out of range: clamped */
    EQ(p.ratio, 1);
    mmfi_poll_init(&p, MMFI_POLL_STATIC, 5000, 8);
    EQ(p.ratio, MMFI_POLL_RATIO_MAX);
}

static void t_dynamic(void)
{
    mmfi_poll p;
    mmfi_poll_init(&p, MMFI_POLL_DYNAMIC, 50, 8);
    EQ(p.ratio, 1); /* no history yet: round robin */
    /* 7 shm messages: no update yet */
    for (int i = 0; i < 7; i++)
        mmfi_poll_found(&p, MMFI_CH_SHM, UINT64_MAX);
    EQ(p.ratio, 1);
    EQ(p.updates, 0);
    mmfi_poll_found(&p, MMFI_CH_SHM, UINT64_MAX); /* the 8th: 8 / (0 + 1) */
    EQ(p.ratio, 8);
    EQ(p.updates, 1);
    EQ(calls_to_net(&p), 8);
    /* next window: 6 shm, 2 net -> 6 / 3 = 2, from this window alone */
    for (int i = 0; i < 6; i++)
        mmfi_poll_found(&p, MMFI_CH_SHM, UINT64_MAX);
    mmfi_poll_found(&p, MMFI_CH_NET, UINT64_MAX);
    EQ(p.ratio, 8);
    mmfi_poll_found(&p, MMFI_CH_NET, UINT64_MAX);
    EQ(p.ratio, 2);
    EQ(p.updates, 2);
    EQ(calls_to_net(&p), 2);
    /* all network: the ratio falls to 1, never below */
    for (int i = 0; i < 8; i++)
        mmfi_poll_found(&p, MMFI_CH_NET, UINT64_MAX);
    EQ(p.ratio, 1);
    EQ(p.ratio_min_seen, 1);
    EQ(p.ratio_max_seen, 8);
    /* a lower ratio takes effect at once: after many calls at ratio 8, down to 1 */
    mmfi_poll_init(&p, MMFI_POLL_DYNAMIC, 50, 4);
    for (int i = 0; i < 4; i++)
        mmfi_poll_found(&p, MMFI_CH_SHM, UINT64_MAX);
    EQ(p.ratio, 4);
    CHECK(!mmfi_poll_net_due(&p));
    CHECK(!mmfi_poll_net_due(&p));
    CHECK(!mmfi_poll_net_due(&p)); /* three calls since the network */
    for (int i = 0; i < 4; i++)
        mmfi_poll_found(&p, MMFI_CH_NET, UINT64_MAX);
    EQ(p.ratio, 1);
    CHECK(mmfi_poll_net_due(&p));
    /* history 1: every message is a window; bounded by the history length */
    mmfi_poll_init(&p, MMFI_POLL_DYNAMIC, 50, 1);
    mmfi_poll_found(&p, MMFI_CH_SHM, UINT64_MAX);
    EQ(p.ratio, 1);
    mmfi_poll_init(&p, MMFI_POLL_DYNAMIC, 50, MMFI_POLL_HISTORY_MAX);
    for (uint32_t i = 0; i < MMFI_POLL_HISTORY_MAX; i++)
        mmfi_poll_found(&p, MMFI_CH_SHM, UINT64_MAX);
    EQ(p.ratio, MMFI_POLL_RATIO_MAX); /* 1024 / 1, bounded */
    EQ(calls_to_net(&p), MMFI_POLL_RATIO_MAX);
    /* a random stream against a direct model of the rule */
    uint64_t x = 12345;
    for (uint32_t h = 1; h <= 64; h *= 2) {
        mmfi_poll_init(&p, MMFI_POLL_DYNAMIC, 50, h);
        uint32_t m = 0, n = 0, want = 1;
        for (int i = 0; i < 5000; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            int net = (x >> 33) % 5 == 0;
            if (net)
                n++;
            else
                m++;
            mmfi_poll_found(&p, net ? MMFI_CH_NET : MMFI_CH_SHM, UINT64_MAX);
            if (m + n == h) {
                want = m / (n + 1) ? m / (n + 1) : 1;
                m = n = 0;
            }
            EQ(p.ratio, want);
        }
    }
}

static void t_counters(void)
{
    mmfi_poll p;
    mmfi_poll_init(&p, MMFI_POLL_RR, 50, 8);
    mmfi_poll_looked(&p, MMFI_CH_SHM, 0);
    mmfi_poll_looked(&p, MMFI_CH_SHM, 3);
    mmfi_poll_looked(&p, MMFI_CH_NET, 0);
    EQ(p.ch[MMFI_CH_SHM].polls, 2);
    EQ(p.ch[MMFI_CH_SHM].empty, 1);
    EQ(p.ch[MMFI_CH_NET].polls, 1);
    EQ(p.ch[MMFI_CH_NET].empty, 1);
    EQ(mmfi_poll_disc_quantile(&p, MMFI_CH_SHM, 0.5), 0); /* none yet */
    /* 90 at ~1000 ns (bin 9: 512..1023), 10 at 100000 ns (bin 16) */
    for (int i = 0; i < 90; i++)
        mmfi_poll_found(&p, MMFI_CH_SHM, 1000);
    for (int i = 0; i < 10; i++)
        mmfi_poll_found(&p, MMFI_CH_SHM, 100000);
    mmfi_poll_found(&p, MMFI_CH_SHM, UINT64_MAX); /* found, no time */
    EQ(p.ch[MMFI_CH_SHM].found, 101);
    EQ(p.ch[MMFI_CH_SHM].disc_n, 100);
    EQ(p.ch[MMFI_CH_SHM].disc_sum_ns, 90 * 1000 + 10 * 100000);
    EQ(p.ch[MMFI_CH_SHM].disc_max_ns, 100000);
    EQ(mmfi_poll_disc_quantile(&p, MMFI_CH_SHM, 0.5), 1024);
    EQ(mmfi_poll_disc_quantile(&p, MMFI_CH_SHM, 0.95), 131072);
    mmfi_poll_found(&p, MMFI_CH_NET, 0);
    EQ(p.ch[MMFI_CH_NET].disc_hist[0], 1);
    mmfi_poll_found(&p, MMFI_CH_NET, UINT64_MAX - 1); /* last bin */
    EQ(p.ch[MMFI_CH_NET].disc_hist[MMFI_POLL_HIST_BINS - 1], 1);
}

static char tmpdir[64];

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    return path;
}

/* A bad file: the reader fails and its message holds `want` (file:line and what). */
static void bad_file(const char *text, const char *want_line, const char *want_what)
{
    const char *path = write_file("bad.tune", text);
    mmfi_tuning t;
    char err[512] = "";
    int rc = mmfi_tuning_read(path, &t, err, sizeof err);
    char where[300];
    snprintf(where, sizeof where, "%s:%s", path, want_line);
    if (rc != -1 || !strstr(err, where) || !strstr(err, want_what)) {
        fprintf(stderr, "tuning file \"%s\": rc %d, error \"%s\", expected \"%s\" and \"%s\"\n",
                text, rc, err, where, want_what);
        failed = 1;
    }
}

static void t_tuning(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mpimatch-tune-%d", (int)getpid());
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tmpdir);
    if (system(cmd) != 0)
        exit(2);
    mmfi_tuning t;
    char err[512] = "";
    const char *ok = write_file("ok.tune",
                                "# written by mpimatch tune\n\n  shm_eager = 2048  # bytes\n"
                                "cma_min=65536\npoll = dynamic\npoll_history = 10\n");
    EQ(mmfi_tuning_read(ok, &t, err, sizeof err), 0);
    CHECK(t.have[MMFI_TUNE_SHM_EAGER] && t.val[MMFI_TUNE_SHM_EAGER] == 2048);
    CHECK(t.have[MMFI_TUNE_CMA_MIN] && t.val[MMFI_TUNE_CMA_MIN] == 65536);
    CHECK(t.have[MMFI_TUNE_POLL] && t.val[MMFI_TUNE_POLL] == MMFI_POLL_DYNAMIC);
    CHECK(t.have[MMFI_TUNE_POLL_HISTORY] && t.val[MMFI_TUNE_POLL_HISTORY] == 10);
    CHECK(!t.have[MMFI_TUNE_POLL_RATIO]);
    EQ(t.line[MMFI_TUNE_SHM_EAGER], 3);
    EQ(mmfi_tuning_read(write_file("empty.tune", ""), &t, err, sizeof err), 0);
    for (int k = 0; k < MMFI_TUNE_N; k++)
        CHECK(!t.have[k]);
    bad_file("shm_eager = 100\nbogus = 1\n", "2:", "unknown key \"bogus\"");
    bad_file("\n\nshm_eager 100\n", "3:", "expected key = value");
    bad_file("poll = sometimes\n", "1:", "expected rr, static or dynamic");
    bad_file("poll_ratio = 0\n", "1:", "from 1 to 1000");
    bad_file("poll_ratio = 1001\n", "1:", "from 1 to 1000");
    bad_file("poll_history = -3\n", "1:", "from 1 to 1024");
    bad_file("cma_min = 12k\n", "1:", "cma_min = \"12k\"");
    bad_file("cma_min =\n", "1:", "cma_min = \"\"");
    bad_file("cma_min = 1\n# again\ncma_min = 2\n", "3:", "given twice (first on line 1)");
    /* a missing file names the file */
    char missing[128];
    snprintf(missing, sizeof missing, "%s/none.tune", tmpdir);
    CHECK(mmfi_tuning_read(missing, &t, err, sizeof err) == -1 && strstr(err, missing) &&
          strstr(err, "cannot open"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        failed = 1;
}

int main(void)
{
    t_rule();
    t_rr_static();
    t_dynamic();
    t_counters();
    t_tuning();
    printf("poll: %s\n", failed ? "FAILED" : "ok");
    return failed;
}
