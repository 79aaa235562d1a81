/* MM_CFG_CONCURRENT: 16 threads post and deliver at once, with an oracle.
 *
 * Part one, exact pairs. Thread t delivers the messages of source t and
 * posts the receives for source t+1 (mod T), both in the order n = 0, 1,
 * 2, ... of one key sequence per source (communicator n % 3, tag
 * (7n + s) % 5). Per key, the receives and the messages are each issued in
 * order by one thread, and MPI's rules (earliest posted receive wins; no
 * overtaking per sender and communicator) pair the j-th message of a key
 * with the j-th receive of that key, however the threads interleave: message
 * n of source s must match receive n of source s. Now and then a thread
 * posts and cancels a receive on a private communicator.
 *
 * Part two, wildcards. Thread t is also the only receiver on communicator
 * 200+t, whose messages come from threads t-1 and t-2 (tag 0): it posts
 * receives from ANY_SOURCE or from one of them, with ANY_TAG or tag 0, cancels
 * some of its pending receives, matched-probes, and probes then
 * matched-probes (which must find the same message: nobody else takes
 * messages there). Every thread delivers messages to threads t+1 and t+2.
 * Every receive there accepts every message of its sources, so MPI's rules
 * say, whatever the interleaving: the messages of one sender are matched by
 * receives (or matched probes) of increasing posting order; a receive is
 * matched at most once, a message too; a cancel that succeeded means no
 * match, one that missed means a match; and at the end no pending receive
 * accepts a message still queued (they would have matched). The leftovers
 * are then taken out (cancels, matched probes in arrival order per sender)
 * and the engine must be empty, its statistics counting every call once.
 * With the no_any_source hint the wildcard part posts named sources only.
 *
 * Every engine runs in four shard modes (by comm/source/tag; by
 * comm/source; no_any_tag only: tag in the key, ANY_SOURCE allowed; no
 * hints), and under TSan in CI.
 *
 * usage: test_concurrent [OPS [ENGINE]]  OPS operations per thread (default 20000),
 *                                       every engine or only ENGINE; the full size
 *                                       is test_concurrent 1000000
 *        test_concurrent --bench ENGINE THREADS OPS [wild]
 *                                       throughput (operations per second); with
 *                                       wild, no hints and the wildcard part on
 *        test_concurrent --stress SECONDS [SEED]
 *                                       random engines, modes, thread counts and
 *                                       seeds against the oracle until SECONDS pass */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "mpimatch.h"
#include "shard.h" /* white-box: the shards' engines, for the out-of-memory check */

enum { MAXT = 64, WCOMM = 200 };

static mm_engine *eng;
static int nthreads;
static long per_thread; /* posts + deliveries of each thread, in each part */
static int wild_part;   /* run the wildcard part */
static int any_src_ok, any_tag_ok;
static uint64_t round_seed;
static atomic_long matched, errors, cancels, probe_hits;

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

/* ---- the wildcard part's ids and logs ---- */
/* A receive: (receiver t, its n-th receive or matched probe); a message:
 * (sender u, destination v, u's j-th message). Cookies carry them, with a
 * bit that tells the kinds apart. */
#define RBIT ((uint64_t)1 << 62)
#define MBIT ((uint64_t)1 << 63)
static inline uint64_t rid(int t, long n) { return RBIT | ((uint64_t)t << 32) | (uint64_t)n; }
static inline uint64_t mid(int u, int v, long j)
{
    return MBIT | ((uint64_t)u << 48) | ((uint64_t)v << 32) | (uint64_t)j;
}
#define RID_T(r) ((int)(((r) >> 32) & 0xffff))
#define RID_N(r) ((long)((r) & 0xffffffffu))
#define MID_U(m) ((int)(((m) >> 48) & 0x3fff))
#define MID_V(m) ((int)(((m) >> 32) & 0xffff))
#define MID_J(m) ((long)((m) & 0xffffffffu))

enum { R_PENDING = 1, R_DONE, R_CANCELLED, R_CANCEL_MISSED, R_NONE };

typedef struct wlog {
    uint64_t  *pr, *pm;  /* matches this thread saw: receive, message */
    long       npairs;
    uint8_t   *rstate;   /* per receive n: R_* */
    int32_t   *rsrc;     /* per receive n: its source (MM_ANY_SOURCE or a rank) */
    mm_handle *rh;       /* per receive n: its handle while pending */
    long       nrecv, nsent;
    long       bad;
} wlog;

static wlog wl[MAXT];

static void wlog_pair(wlog *w, uint64_t r, uint64_t m)
{
    w->pr[w->npairs] = r;
    w->pm[w->npairs++] = m;
}

/* One operation of thread t's wildcard part: a delivery, or one of the
 * receiver's operations on its communicator. */
static void wild_op(int t, uint64_t *seed, int send)
{
    wlog *w = &wl[t];
    uintptr_t got = 0;
    if (send) {
        int v = (int)((t + 1 + (int)(rng_next(seed) & 1)) % nthreads);
        mm_entry m = {.comm = WCOMM + v, .src = t, .tag = 0, .cookie = mid(t, v, w->nsent++)};
        int rc = mm_arrive(eng, &m, &got);
        if (rc == MM_MATCHED)
            wlog_pair(w, got, m.cookie);
        else
            w->bad += rc != MM_QUEUED;
        return;
    }
    int32_t senders[2] = {(int32_t)((t + nthreads - 1) % nthreads),
                          (int32_t)((t + 2 * nthreads - 2) % nthreads)};
    uint64_t u = rng_next(seed);
    int32_t src = any_src_ok && (u & 1) ? MM_ANY_SOURCE : senders[(u >> 1) & 1];
    int32_t tag = any_tag_ok && (u & 4) ? MM_ANY_TAG : 0;
    int op = (int)((u >> 8) % 100);
    long n = w->nrecv;
    if (op < 60) { /* post */
        mm_entry r = {.comm = WCOMM + t, .src = src, .tag = tag, .cookie = rid(t, n)};
        int rc = mm_post(eng, &r, &w->rh[n], &got);
        w->rsrc[n] = src;
        w->nrecv++;
        if (rc == MM_MATCHED) {
            w->rstate[n] = R_DONE;
            wlog_pair(w, r.cookie, got);
        } else {
            w->rstate[n] = R_PENDING;
            w->bad += rc != MM_QUEUED;
        }
    } else if (op < 75) { /* cancel one of the last 64 receives, if pending */
        if (!n)
            return;
        long k = n - 1 - (long)((u >> 24) % (uint64_t)(n < 64 ? n : 64));
        if (w->rstate[k] != R_PENDING)
            return;
        int rc = mm_cancel(eng, w->rh[k]);
        if (rc == MM_MATCHED)
            w->rstate[k] = R_CANCELLED;
        else if (rc == MM_NOTFOUND)
            w->rstate[k] = R_CANCEL_MISSED; /* an arrival took it: must be in a log */
        else
            w->bad++;
    } else if (op < 88) { /* matched probe: a receive posted and withdrawn at once */
        int rc = mm_mprobe(eng, WCOMM + t, src, tag, &got);
        w->rsrc[n] = src;
        w->nrecv++;
        w->rstate[n] = rc == MM_MATCHED ? R_DONE : R_NONE;
        if (rc == MM_MATCHED)
            wlog_pair(w, rid(t, n), got);
        else
            w->bad += rc != MM_NOTFOUND;
    } else { /* probe, then the matched probe must take that very message */
        int rc = mm_probe(eng, WCOMM + t, src, tag, &got);
        if (rc == MM_NOTFOUND)
            return;
        atomic_fetch_add(&probe_hits, 1);
        uintptr_t again = 0;
        int rc2 = mm_mprobe(eng, WCOMM + t, src, tag, &again);
        w->rsrc[n] = src;
        w->nrecv++;
        w->rstate[n] = R_DONE;
        wlog_pair(w, rid(t, n), again);
        w->bad += rc != MM_MATCHED || rc2 != MM_MATCHED || again != got;
    }
}

static void *worker(void *arg)
{
    int32_t t = (int32_t)(intptr_t)arg, r = (t + 1) % nthreads;
    long nr = 0, nm = 0, half = per_thread / 2, bad = 0, ok = 0, canc = 0;
    long ws = 0, wr = 0; /* the wildcard part's deliveries and receiver operations */
    long whalf = wild_part ? half : 0;
    uint64_t seed = round_seed + 0x1234 + (uint64_t)t;
    while (nr < half || nm < half || ws < whalf || wr < whalf) {
        uint64_t u = rng_next(&seed);
        if ((u & 2) && (ws < whalf || wr < whalf)) {
            int send = wr == whalf || (ws < whalf && (u & 4));
            wild_op(t, &seed, send);
            send ? ws++ : wr++;
            continue;
        }
        if (nr == half && nm == half)
            continue;
        int post = nm == half || (nr < half && (u & 1));
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

static int wlog_alloc(void)
{
    long cap = per_thread + 1;
    for (int t = 0; t < nthreads; t++) {
        wlog *w = &wl[t];
        memset(w, 0, sizeof *w);
        w->pr = malloc((size_t)cap * sizeof *w->pr);
        w->pm = malloc((size_t)cap * sizeof *w->pm);
        w->rstate = calloc((size_t)cap, 1);
        w->rsrc = malloc((size_t)cap * sizeof *w->rsrc);
        w->rh = malloc((size_t)cap * sizeof *w->rh);
        if (!w->pr || !w->pm || !w->rstate || !w->rsrc || !w->rh)
            return -1;
    }
    return 0;
}

static void wlog_free(void)
{
    for (int t = 0; t < nthreads; t++) {
        free(wl[t].pr);
        free(wl[t].pm);
        free(wl[t].rstate);
        free(wl[t].rsrc);
        free(wl[t].rh);
        memset(&wl[t], 0, sizeof wl[t]);
    }
}

/* The wildcard part's oracle, after the threads joined. Adds the pairs it
 * saw, the probe hits and the cancels it made to *pairs, *hits, *canc.
 * Returns the number of violations (each printed). */
static long wild_check(long *pairs, long *hits, long *canc)
{
    long bad = 0, npairs = 0, extra_hits = 0, extra_canc = 0;
    uint64_t *of_recv[MAXT], *of_msg[MAXT];
    for (int t = 0; t < nthreads; t++) {
        bad += wl[t].bad;
        of_recv[t] = calloc((size_t)wl[t].nrecv + 1, sizeof(uint64_t));
        of_msg[t] = calloc((size_t)wl[t].nsent + 1, sizeof(uint64_t));
        if (!of_recv[t] || !of_msg[t])
            abort();
    }
#define VIOLATION(...) do { if (bad++ < 10) fprintf(stderr, "oracle: " __VA_ARGS__); } while (0)
    for (int t = 0; t < nthreads; t++)
        for (long i = 0; i < wl[t].npairs; i++) {
            uint64_t r = wl[t].pr[i], m = wl[t].pm[i];
            if ((r & (RBIT | MBIT)) != RBIT || (m & MBIT) == 0) {
                VIOLATION("a match of receive %#" PRIx64 " with %#" PRIx64 ": not this part's ids\n", r, m);
                continue;
            }
            int rt = RID_T(r), mu = MID_U(m), mv = MID_V(m);
            long rn = RID_N(r), mj = MID_J(m);
            if (rt >= nthreads || rn >= wl[rt].nrecv || mu >= nthreads || mj >= wl[mu].nsent) {
                VIOLATION("a match with ids out of range\n");
                continue;
            }
            int32_t rs = wl[rt].rsrc[rn];
            if (mv != rt || (rs != MM_ANY_SOURCE && rs != mu))
                VIOLATION("receive %d/%ld (source %d) took message %d/%ld to %d\n", rt, rn,
                          (int)rs, mu, mj, mv);
            if (of_recv[rt][rn] || of_msg[mu][mj])
                VIOLATION("receive %d/%ld or message %d/%ld matched twice\n", rt, rn, mu, mj);
            of_recv[rt][rn] = m;
            of_msg[mu][mj] = r;
            npairs++;
        }
    for (int t = 0; t < nthreads; t++)
        for (long n = 0; n < wl[t].nrecv; n++) {
            int st = wl[t].rstate[n];
            extra_canc += st == R_CANCELLED;
            if (st == R_CANCELLED && of_recv[t][n])
                VIOLATION("receive %d/%ld was cancelled and matched\n", t, n);
            if ((st == R_CANCEL_MISSED || st == R_DONE) && !of_recv[t][n])
                VIOLATION("receive %d/%ld: %s, but no match\n", t, n,
                          st == R_DONE ? "matched" : "its cancel missed");
            if (st == R_NONE && of_recv[t][n])
                VIOLATION("matched probe %d/%ld found nothing, but has a match\n", t, n);
        }
    /* No overtaking, earliest posted first: per (receiver, sender), receives
     * of increasing posting order take the sender's messages in order. */
    for (int u = 0; u < nthreads; u++) {
        long last[MAXT];
        for (int v = 0; v < nthreads; v++)
            last[v] = -1;
        for (long j = 0; j < wl[u].nsent; j++) {
            uint64_t r = of_msg[u][j];
            if (!r)
                continue;
            int v = RID_T(r);
            if (RID_N(r) <= last[v])
                VIOLATION("message %d/%ld to %d went to receive %ld, after an earlier message "
                          "went to receive %ld\n", u, j, v, RID_N(r), last[v]);
            last[v] = RID_N(r);
        }
    }
    /* Leftovers: no pending receive may accept a queued message. Then take
     * them out: the pending receives by cancel, the messages by matched
     * probes per sender, which must come in the sender's order. */
    for (int v = 0; v < nthreads; v++) {
        int pending_any = 0, pending_from[MAXT] = {0};
        for (long n = 0; n < wl[v].nrecv; n++)
            if (wl[v].rstate[n] == R_PENDING && !of_recv[v][n]) {
                if (wl[v].rsrc[n] == MM_ANY_SOURCE)
                    pending_any = 1;
                else
                    pending_from[wl[v].rsrc[n]] = 1;
            }
        for (int u = 0; u < nthreads; u++) {
            uintptr_t got;
            long prev = -1;
            while (mm_mprobe(eng, WCOMM + v, u, 0, &got) == MM_MATCHED) {
                extra_hits++;
                if (MID_U(got) != u || MID_V(got) != v || of_msg[u][MID_J(got)])
                    VIOLATION("left over on %d from %d: message %#" PRIx64 " is not one\n", v,
                              u, (uint64_t)got);
                else if (MID_J(got) <= prev)
                    VIOLATION("left over on %d from %d: out of order\n", v, u);
                else if (pending_any || pending_from[u])
                    VIOLATION("message %d/%ld left queued while a receive of %d accepts it\n",
                              u, MID_J(got), v);
                prev = MID_J(got);
                of_msg[u][MID_J(got)] = 1; /* accounted for */
            }
        }
        for (long n = 0; n < wl[v].nrecv; n++)
            if (wl[v].rstate[n] == R_PENDING && !of_recv[v][n]) {
                if (mm_cancel(eng, wl[v].rh[n]) != MM_MATCHED)
                    VIOLATION("pending receive %d/%ld could not be cancelled\n", v, n);
                extra_canc++;
            }
    }
    for (int u = 0; u < nthreads; u++)
        for (long j = 0; j < wl[u].nsent; j++)
            if (!of_msg[u][j])
                VIOLATION("message %d/%ld neither matched nor left queued\n", u, j);
#undef VIOLATION
    for (int t = 0; t < nthreads; t++) {
        free(of_recv[t]);
        free(of_msg[t]);
    }
    *pairs += npairs;
    *hits += extra_hits;
    *canc += extra_canc;
    return bad;
}

static const uint32_t modes[4] = {MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG,
                                  MM_HINT_NO_ANY_SOURCE, MM_HINT_NO_ANY_TAG, 0};
static const char *const mode_names[4] = {"comm,source,tag", "comm,source",
                                          "c,s,tag+ANY_SRC", "c,s+wildcards"};

/* One run of both parts on a new engine; operations per second (threads'
 * wall time), 0 when the engine could not be made. Failures are CHECKs. */
static double run(const mm_engine_info *info, uint32_t hints, uint32_t flags, int wild)
{
    mm_config cfg = {.nprocs = nthreads, .hints = hints | info->hints_required, .flags = flags};
    char err[256];
    int rc = mm_create(&eng, info->name, &cfg, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return 0;
    }
    any_src_ok = !(cfg.hints & MM_HINT_NO_ANY_SOURCE);
    any_tag_ok = !(cfg.hints & MM_HINT_NO_ANY_TAG);
    wild_part = wild;
    if (wild && wlog_alloc() != 0) {
        fprintf(stderr, "test_concurrent: out of memory\n");
        exit(2);
    }
    atomic_store(&matched, 0);
    atomic_store(&errors, 0);
    atomic_store(&cancels, 0);
    atomic_store(&probe_hits, 0);
    pthread_t th[MAXT];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long pairs = (long)nthreads * (per_thread / 2), hits = atomic_load(&probe_hits);
    long canc = atomic_load(&cancels), wbad = 0;
    if (wild)
        wbad = wild_check(&pairs, &hits, &canc);
    mm_stats st;
    mm_get_stats(eng, &st);
    CHECK_EQ(atomic_load(&errors), 0);
    CHECK_EQ(wbad, 0);
    CHECK_EQ(atomic_load(&matched), (long)nthreads * (per_thread / 2)); /* each pair once */
    CHECK_EQ(st.prq.length, 0);
    CHECK_EQ(st.umq.length, 0);
    CHECK_EQ(st.cancels, canc);
    CHECK_EQ(st.prq.hits + st.umq.hits, pairs + hits);
    CHECK_EQ(st.prq.hits + st.prq.misses, st.prq.searches);
    CHECK_EQ(st.umq.hits + st.umq.misses, st.umq.searches);
    mm_destroy(eng);
    if (wild)
        wlog_free();
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    long ops = (long)nthreads * per_thread * (wild ? 2 : 1);
    return s > 0 ? (double)ops / s : 0;
}

/* Sequential checks of the wildcard path: the earliest posted receive wins
 * across a wildcard and a named source, the earliest arrived message across
 * shards, cancel of a wildcard, and the hint's refusal. */
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
    mm_handle h;
    CHECK_EQ(mm_post(eng, &r, NULL, &got), MM_QUEUED);
    CHECK_EQ(mm_post(eng, &c, NULL, &got), MM_QUEUED);
    CHECK_EQ(mm_arrive(eng, &m, &got), MM_MATCHED);
    CHECK_EQ(got, 1); /* the earlier-posted wildcard wins */
    CHECK_EQ(mm_arrive(eng, &m, &got), MM_MATCHED);
    CHECK_EQ(got, 2);
    /* messages of sources 3, 1, 0 queued: a wildcard takes source 3's */
    for (int32_t s = 3; s >= 0; s -= s == 3 ? 2 : 1) {
        mm_entry q = {.comm = 0, .src = s, .tag = 5, .cookie = 100 + (uintptr_t)s};
        CHECK_EQ(mm_arrive(eng, &q, &got), MM_QUEUED);
    }
    CHECK_EQ(mm_probe(eng, 0, MM_ANY_SOURCE, 5, &got), MM_MATCHED);
    CHECK_EQ(got, 103);
    CHECK_EQ(mm_post(eng, &r, &h, &got), MM_MATCHED);
    CHECK_EQ(got, 103);
    CHECK_EQ(mm_mprobe(eng, 0, MM_ANY_SOURCE, 5, &got), MM_MATCHED);
    CHECK_EQ(got, 101);
    CHECK_EQ(mm_mprobe(eng, 0, 0, 5, &got), MM_MATCHED);
    CHECK_EQ(got, 100);
    /* a pending wildcard, cancelled; a named receive posted after it */
    CHECK_EQ(mm_post(eng, &r, &h, &got), MM_QUEUED);
    CHECK_EQ(mm_post(eng, &c, NULL, &got), MM_QUEUED);
    mm_stats st;
    mm_get_stats(eng, &st);
    CHECK_EQ(st.prq.length, 2);
    CHECK_EQ(mm_cancel(eng, h), MM_MATCHED);
    CHECK_EQ(mm_cancel(eng, h), MM_NOTFOUND);
    CHECK_EQ(mm_arrive(eng, &m, &got), MM_MATCHED);
    CHECK_EQ(got, 2);
    mm_get_stats(eng, &st);
    CHECK_EQ(st.prq.length + st.umq.length, 0);
    CHECK_EQ(st.cancels, 1);
    mm_destroy(eng);
    /* Out of memory while queueing the copies: the call fails and leaves the
     * engine as it was (queues and statistics); then it succeeds. */
    CHECK_EQ(mm_create(&eng, info->name, &cfg, NULL, 0), 0);
    uint64_t mask = mm_shards_mask(eng, 0, 5);
    CHECK(__builtin_popcountll(mask) >= 2);
    mm_engine *last = mm_shards_engine_at(eng, 63 - (size_t)__builtin_clzll(mask));
    last->mem.fail_in = 1; /* its first allocation: the receive pool's first slab */
    mm_stats before, after;
    mm_get_stats(eng, &before);
    CHECK_EQ(mm_post(eng, &r, &h, &got), MM_ENOMEM);
    mm_get_stats(eng, &after);
    CHECK(memcmp(&before.prq, &after.prq, offsetof(mm_qstats, queues)) == 0);
    CHECK(memcmp(&before.umq, &after.umq, offsetof(mm_qstats, queues)) == 0);
    CHECK_EQ(after.umq.traversed, before.umq.traversed);
    CHECK_EQ(after.cancels, 0);
    CHECK_EQ(mm_post(eng, &r, &h, &got), MM_QUEUED);
    CHECK_EQ(mm_arrive(eng, &m, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    mm_get_stats(eng, &after);
    CHECK_EQ(after.prq.length + after.umq.length, 0);
    CHECK_EQ(after.umq.searches, 1);
    CHECK_EQ(after.prq.searches, 1);
    mm_destroy(eng);
    /* mm_concurrency_of says what mm_create built. */
    mm_concurrency cc;
    CHECK_EQ(mm_concurrency_of(info, info->hints_required, &cc), 0);
    CHECK_EQ(cc.shards, 64);
    CHECK_EQ(cc.wildcards, MM_WILD_SHARDS);
    CHECK_EQ(cc.key, info->hints_required & MM_HINT_NO_ANY_TAG ? MM_SHARD_BY_TAG : MM_SHARD_BY_SOURCE);
    CHECK_EQ(mm_concurrency_of(info, MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG, &cc), 0);
    CHECK_EQ(cc.wildcards, MM_WILD_NONE);
    CHECK_EQ(cc.key, MM_SHARD_BY_TAG);
    CHECK_EQ(mm_concurrency_of(info, 8, &cc), MM_EINVAL);
    CHECK_EQ(mm_concurrency_of(NULL, 0, &cc), MM_EINVAL);
    CHECK_EQ(mm_concurrency_of(mm_engine_find("hash"), 0, &cc), MM_EHINT);
    /* With the hint, a wildcard is refused as for any engine. */
    cfg.hints |= MM_HINT_NO_ANY_SOURCE;
    CHECK_EQ(mm_create(&eng, info->name, &cfg, NULL, 0), 0);
    CHECK_EQ(mm_post(eng, &r, NULL, &got), MM_EHINT);
    CHECK_EQ(mm_probe(eng, 0, 2, 5, &got), MM_NOTFOUND);
    mm_destroy(eng);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Random engines, shard modes, thread counts, sizes and seeds against the
 * oracle until `seconds` have passed; stops at the first failure, which it
 * names with everything needed to run it again. */
static int stress(double seconds, uint64_t seed)
{
    double t0 = now_s(), last = t0;
    long rounds = 0, ops = 0;
    printf("stress: %.0f s, seed %" PRIu64 "\n", seconds, seed);
    while (now_s() - t0 < seconds) {
        const mm_engine_info *info = mm_engine_at(rng_next(&seed) % mm_engine_count());
        int m = (int)(rng_next(&seed) % 4);
        if (info->hints_required)
            m = 0;
        nthreads = 2 + (int)(rng_next(&seed) % 15);
        per_thread = 200 + (long)(rng_next(&seed) % 4800);
        round_seed = rng_next(&seed);
        int failed = check_failed;
        run(info, modes[m], MM_CFG_CONCURRENT, 1);
        rounds++;
        ops += (long)nthreads * per_thread * 2;
        if (check_failed != failed) {
            printf("stress: FAILED in round %ld: engine %s, shards by %s, %d threads x %ld ops, "
                   "round seed %" PRIu64 "\n", rounds, info->name, mode_names[m], nthreads,
                   per_thread, round_seed);
            return 1;
        }
        if (now_s() - last >= 30) {
            last = now_s();
            printf("stress: %.0f s, %ld rounds, %ld operations, all checks passed\n", last - t0,
                   rounds, ops);
            fflush(stdout);
        }
    }
    printf("stress: done after %.0f s: %ld rounds, %ld operations, %d checks, all passed\n",
           now_s() - t0, rounds, ops, check_passed);
    return 0;
}

int main(int argc, char **argv)
{
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "--bench") == 0) {
        const mm_engine_info *info = mm_engine_find(argv[2]);
        nthreads = atoi(argv[3]);
        per_thread = atol(argv[4]);
        int wild = argc == 6 && strcmp(argv[5], "wild") == 0;
        if (!info || nthreads < 1 || nthreads > MAXT || per_thread < 2 ||
            (argc == 6 && !wild) || (wild && info->hints_required)) {
            fprintf(stderr, "usage: test_concurrent --bench ENGINE THREADS(1..64) OPS [wild]"
                    " (wild: not with an engine that needs hints)\n");
            return 2;
        }
        uint32_t hints = wild ? 0 : MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG;
        double c = run(info, hints, MM_CFG_CONCURRENT, wild);
        double g = run(info, hints, MM_CFG_THREAD_SAFE, wild);
        printf("%s threads=%d%s concurrent %.0f ops/s thread_safe %.0f ops/s\n", info->name,
               nthreads, wild ? " wild" : "", c, g);
        return check_failed ? 1 : 0;
    }
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "--stress") == 0) {
        double secs = atof(argv[2]);
        uint64_t seed = argc == 4 ? strtoull(argv[3], NULL, 10) : (uint64_t)time(NULL);
        if (!(secs > 0)) {
            fprintf(stderr, "usage: test_concurrent --stress SECONDS [SEED]\n");
            return 2;
        }
        return stress(secs, seed);
    }
    nthreads = 16;
    per_thread = argc > 1 ? atol(argv[1]) : 20000;
    if (per_thread < 2)
        per_thread = 2;
    const char *only = argc > 2 ? argv[2] : NULL;
    if (only && !mm_engine_find(only)) {
        fprintf(stderr, "test_concurrent: no engine '%s'\n", only);
        return 2;
    }
    for (size_t k = 0; k < mm_engine_count(); k++) {
        const mm_engine_info *info = mm_engine_at(k);
        if (only && strcmp(only, info->name) != 0)
            continue;
        for (int m = 0; m < 4; m++) {
            if (info->hints_required & ~modes[m])
                continue;
            double ops = run(info, modes[m], MM_CFG_CONCURRENT, 1);
            printf("%-8s shards by %-16s %d threads x %ld ops x 2 parts: %.2f Mops/s\n",
                   info->name, mode_names[m], nthreads, per_thread, ops / 1e6);
        }
        wildcards(info);
    }
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
