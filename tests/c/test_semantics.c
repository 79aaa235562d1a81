/* One test per rule of docs/semantics.md, run on every registered engine
 * (engines that need hints run the wildcard-free rules, and must refuse the
 * others), plus the API's error contract. */
#include <string.h>
#include "check.h"
#include "mpimatch.h"

static const char *ename;  /* engine under test */
static int wild_ok;        /* engine accepts wildcards */

static mm_engine *make(int32_t nprocs)
{
    const mm_engine_info *info = mm_engine_find(ename);
    mm_config cfg = {.nprocs = nprocs, .hints = info->hints_required};
    mm_engine *e = NULL;
    char err[256];
    int rc = mm_create(&e, ename, &cfg, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", ename, err);
    CHECK_EQ(rc, 0);
    return e;
}

static mm_entry ent(int32_t comm, int32_t src, int32_t tag, uintptr_t cookie)
{
    return (mm_entry){.comm = comm, .src = src, .tag = tag, .cookie = cookie};
}

static int post(mm_engine *e, int32_t c, int32_t s, int32_t t, uintptr_t id, uintptr_t *got)
{
    mm_entry x = ent(c, s, t, id);
    *got = 0;
    return mm_post(e, &x, NULL, got);
}

static int arrive(mm_engine *e, int32_t c, int32_t s, int32_t t, uintptr_t id, uintptr_t *got)
{
    mm_entry x = ent(c, s, t, id);
    *got = 0;
    return mm_arrive(e, &x, got);
}

/* Rule 1: communicators never match across. */
static void rule_communicators(void)
{
    mm_engine *e = make(4);
    uintptr_t got;
    CHECK_EQ(post(e, 1, 2, 5, 100, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 2, 2, 5, 200, &got), MM_QUEUED);   /* other comm: no match */
    CHECK_EQ(arrive(e, 1, 2, 5, 201, &got), MM_MATCHED);
    CHECK_EQ(got, 100);
    CHECK_EQ(post(e, 2, 2, 5, 101, &got), MM_MATCHED);
    CHECK_EQ(got, 200);
    mm_destroy(e);
}

/* Rule 2: source and tag must be equal unless wildcarded. */
static void rule_exact(void)
{
    mm_engine *e = make(4);
    uintptr_t got;
    CHECK_EQ(post(e, 0, 1, 7, 1, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 2, 7, 2, &got), MM_QUEUED);  /* wrong source */
    CHECK_EQ(arrive(e, 0, 1, 8, 3, &got), MM_QUEUED);  /* wrong tag */
    CHECK_EQ(arrive(e, 0, 1, 7, 4, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    mm_destroy(e);
}

/* Rule 3: ANY_SOURCE matches any source. */
static void rule_any_source(void)
{
    mm_engine *e = make(8);
    uintptr_t got;
    CHECK_EQ(post(e, 0, MM_ANY_SOURCE, 3, 1, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 6, 3, 2, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    CHECK_EQ(arrive(e, 0, 5, 3, 3, &got), MM_QUEUED);
    CHECK_EQ(post(e, 0, MM_ANY_SOURCE, 3, 4, &got), MM_MATCHED);
    CHECK_EQ(got, 3);
    mm_destroy(e);
}

/* Rule 4: ANY_TAG matches tags >= 0 and never a negative tag. */
static void rule_any_tag(void)
{
    mm_engine *e = make(4);
    uintptr_t got;
    CHECK_EQ(post(e, 0, 1, MM_ANY_TAG, 1, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 1, -3, 2, &got), MM_QUEUED);     /* internal tag: not for ANY_TAG */
    CHECK_EQ(arrive(e, 0, 1, 0, 3, &got), MM_MATCHED);     /* tag 0 is >= 0 */
    CHECK_EQ(got, 1);
    CHECK_EQ(post(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, 4, &got), MM_QUEUED); /* -3 still invisible */
    CHECK_EQ(post(e, 0, 1, -3, 5, &got), MM_MATCHED);      /* an exact negative tag matches */
    CHECK_EQ(got, 2);
    CHECK_EQ(mm_probe(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, &got), MM_NOTFOUND);
    mm_destroy(e);
}

/* Rule 5: among receives that match a message, the earliest posted wins,
 * whichever queue or pattern each sits in. */
static void rule_earliest_posted(void)
{
    mm_engine *e = make(4);
    uintptr_t got;
    if (wild_ok) {
        CHECK_EQ(post(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, 1, &got), MM_QUEUED);
        CHECK_EQ(post(e, 0, 2, 9, 2, &got), MM_QUEUED);
        CHECK_EQ(post(e, 0, 2, MM_ANY_TAG, 3, &got), MM_QUEUED);
        CHECK_EQ(post(e, 0, MM_ANY_SOURCE, 9, 4, &got), MM_QUEUED);
        uintptr_t want[] = {1, 2, 3, 4};
        for (int i = 0; i < 4; i++) {
            CHECK_EQ(arrive(e, 0, 2, 9, 10 + (uintptr_t)i, &got), MM_MATCHED);
            CHECK_EQ(got, want[i]);
        }
    } else {
        CHECK_EQ(post(e, 0, 2, 9, 1, &got), MM_QUEUED);
        CHECK_EQ(post(e, 0, 2, 9, 2, &got), MM_QUEUED);
        CHECK_EQ(arrive(e, 0, 2, 9, 10, &got), MM_MATCHED);
        CHECK_EQ(got, 1);
        CHECK_EQ(arrive(e, 0, 2, 9, 11, &got), MM_MATCHED);
        CHECK_EQ(got, 2);
    }
    mm_destroy(e);
}

/* Rule 6: among messages that match a receive, the earliest arrived wins;
 * so messages from one sender never overtake each other. */
static void rule_earliest_arrived(void)
{
    mm_engine *e = make(4);
    uintptr_t got;
    CHECK_EQ(arrive(e, 0, 3, 1, 1, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 1, 2, 2, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 3, 1, 3, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 1, 1, 4, &got), MM_QUEUED);
    if (wild_ok) {
        CHECK_EQ(post(e, 0, MM_ANY_SOURCE, 1, 10, &got), MM_MATCHED);
        CHECK_EQ(got, 1);
        CHECK_EQ(post(e, 0, 1, MM_ANY_TAG, 11, &got), MM_MATCHED);
        CHECK_EQ(got, 2);
        CHECK_EQ(post(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, 12, &got), MM_MATCHED);
        CHECK_EQ(got, 3);
    } else {
        CHECK_EQ(post(e, 0, 3, 1, 10, &got), MM_MATCHED);
        CHECK_EQ(got, 1);
        CHECK_EQ(post(e, 0, 3, 1, 11, &got), MM_MATCHED);
        CHECK_EQ(got, 3);
    }
    mm_destroy(e);
}

/* Rule 7: probe reports the earliest match and leaves it; mprobe removes. */
static void rule_probe(void)
{
    mm_engine *e = make(4);
    uintptr_t got;
    CHECK_EQ(mm_probe(e, 0, 1, 4, &got), MM_NOTFOUND);
    CHECK_EQ(arrive(e, 0, 1, 4, 1, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 1, 4, 2, &got), MM_QUEUED);
    CHECK_EQ(mm_probe(e, 0, 1, 4, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    CHECK_EQ(mm_probe(e, 0, 1, 4, &got), MM_MATCHED);  /* still there */
    CHECK_EQ(got, 1);
    CHECK_EQ(mm_mprobe(e, 0, 1, 4, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    CHECK_EQ(mm_mprobe(e, 0, 1, 4, &got), MM_MATCHED);
    CHECK_EQ(got, 2);
    CHECK_EQ(mm_mprobe(e, 0, 1, 4, &got), MM_NOTFOUND);
    if (wild_ok) {
        CHECK_EQ(arrive(e, 0, 2, -1, 3, &got), MM_QUEUED);
        CHECK_EQ(mm_probe(e, 0, MM_ANY_SOURCE, MM_ANY_TAG, &got), MM_NOTFOUND);
        CHECK_EQ(mm_probe(e, 0, MM_ANY_SOURCE, -1, &got), MM_MATCHED);
        CHECK_EQ(got, 3);
    }
    mm_stats st;
    mm_get_stats(e, &st);
    CHECK_EQ(st.umq.length, wild_ok ? 1 : 0);
    mm_destroy(e);
}

/* Rule 8: cancel removes a queued receive; a matched or cancelled one is a
 * miss; a handle of another engine is refused. */
static void rule_cancel(void)
{
    mm_engine *e = make(4), *other = make(4);
    uintptr_t got = 0;
    mm_handle h1, h2, h3;
    mm_entry r = ent(0, 1, 2, 1);
    CHECK_EQ(mm_post(e, &r, &h1, &got), MM_QUEUED);
    r.cookie = 2;
    CHECK_EQ(mm_post(e, &r, &h2, &got), MM_QUEUED);
    CHECK_EQ(mm_cancel(e, h1), MM_MATCHED);
    CHECK_EQ(mm_cancel(e, h1), MM_NOTFOUND);
    CHECK_EQ(arrive(e, 0, 1, 2, 10, &got), MM_MATCHED);
    CHECK_EQ(got, 2);                         /* the cancelled receive is gone */
    CHECK_EQ(mm_cancel(e, h2), MM_NOTFOUND);  /* matched already */
    r.cookie = 3;
    CHECK_EQ(mm_post(e, &r, &h3, &got), MM_QUEUED); /* may reuse h1's element */
    CHECK_EQ(mm_cancel(e, h1), MM_NOTFOUND);  /* stale handle never cancels a new receive */
    CHECK_EQ(mm_cancel(other, h3), MM_EHANDLE);
    int outside;
    CHECK_EQ(mm_cancel(e, (mm_handle){&outside, 3}), MM_EHANDLE);  /* answered, not read */
    CHECK_EQ(mm_cancel(e, (mm_handle){(char *)h3.elem + 8, 3}), MM_EHANDLE);
    CHECK_EQ(mm_cancel(e, h3), MM_MATCHED);
    /* A receive matched at post time: its handle is zero, and cancelling
     * it is a miss (MM_NOTFOUND), as for any matched receive. */
    mm_handle h4 = {(void *)1, 1};
    CHECK_EQ(arrive(e, 0, 1, 2, 11, &got), MM_QUEUED);
    r.cookie = 4;
    CHECK_EQ(mm_post(e, &r, &h4, &got), MM_MATCHED);
    CHECK(h4.elem == NULL && h4.seq == 0);
    CHECK_EQ(mm_cancel(e, h4), MM_NOTFOUND);
    mm_stats st;
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.length, 0);
    CHECK_EQ(st.cancels, 2);
    mm_destroy(e);
    mm_destroy(other);
}

/* Statistics: depth counts the matched element; lengths follow the queues. */
static void rule_stats(void)
{
    mm_engine *e = make(4);
    uintptr_t got;
    CHECK_EQ(post(e, 0, 1, 1, 1, &got), MM_QUEUED);
    CHECK_EQ(arrive(e, 0, 1, 1, 2, &got), MM_MATCHED);
    mm_stats st;
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.searches, 1);
    CHECK_EQ(st.prq.hits, 1);
    CHECK_EQ(st.prq.traversed, 1);  /* a hit at the head has depth 1 */
    CHECK_EQ(st.umq.searches, 1);
    CHECK_EQ(st.umq.misses, 1);
    CHECK_EQ(st.prq.max_length, 1);
    CHECK_EQ(st.prq.length, 0);
    CHECK(st.bytes > 0 && st.peak_bytes >= st.bytes);
    CHECK(st.prq.queues >= 1 || st.prq.max_queues >= 1);
    mm_reset_stats(e);
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.searches, 0);
    CHECK_EQ(st.prq.max_length, 0);
    CHECK_EQ(st.peak_bytes, st.bytes);
    mm_destroy(e);
}

/* Bytes per side: queued elements are charged to their side and released
 * when they leave; both sides together never exceed the engine total. */
static void rule_side_bytes(void)
{
    mm_engine *e = make(8);
    uintptr_t got;
    mm_stats st0, st, st1;
    CHECK_EQ(post(e, 0, 1, 0, 100, &got), MM_QUEUED); /* creates what the comm needs */
    mm_get_stats(e, &st0);
    for (uintptr_t i = 1; i <= 100; i++)
        CHECK_EQ(post(e, 0, 1, (int32_t)i, i, &got), MM_QUEUED);
    mm_get_stats(e, &st);
    CHECK(st.prq.bytes >= st0.prq.bytes + 100 * 48);  /* an element is >= 48 bytes */
    CHECK_EQ(st.umq.bytes, st0.umq.bytes);
    CHECK(st.prq.bytes + st.umq.bytes <= st.bytes);
    for (uintptr_t i = 1; i <= 100; i++)
        CHECK_EQ(arrive(e, 0, 1, (int32_t)i, 1000 + i, &got), MM_MATCHED);
    mm_get_stats(e, &st0);
    for (uintptr_t i = 1; i <= 50; i++)
        CHECK_EQ(arrive(e, 0, 2, (int32_t)i, 2000 + i, &got), MM_QUEUED);
    mm_get_stats(e, &st);
    CHECK(st.prq.bytes <= st.prq.peak_bytes);
    CHECK(st.prq.peak_bytes >= st0.prq.bytes + 100 * 48);
    CHECK(st.umq.bytes >= st0.umq.bytes + 50 * 48);
    CHECK(st.prq.bytes + st.umq.bytes <= st.bytes);
    for (uintptr_t i = 1; i <= 50; i++)
        CHECK_EQ(mm_mprobe(e, 0, 2, (int32_t)i, &got), MM_MATCHED);
    mm_get_stats(e, &st1);
    CHECK(st.umq.bytes - st1.umq.bytes >= 50 * 48);  /* the elements left the side */
    CHECK_EQ(st1.umq.peak_bytes, st.umq.peak_bytes);
    mm_destroy(e);
}

/* hash keeps both sides' keys in one table, a key's slot holding a FIFO of
 * receives or of messages: one key turned over between the sides, a probe
 * that must not take the key's receives for messages, a cancel beside
 * queued messages, the queues each side counts, and the table's bytes
 * charged half to each side (a growth caused by receives alone adds to the
 * messages' side too). */
static void hash_one_table(void)
{
    mm_config cfg = {.nprocs = 4, .hints = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG};
    mm_engine *e = NULL;
    char err[256];
    CHECK_EQ(mm_create(&e, "hash", &cfg, err, sizeof err), 0);
    uintptr_t got;
    CHECK_EQ(post(e, 0, 1, 5, 1, &got), MM_QUEUED);
    CHECK_EQ(post(e, 0, 1, 5, 2, &got), MM_QUEUED);
    CHECK_EQ(mm_probe(e, 0, 1, 5, &got), MM_NOTFOUND); /* receives, not messages */
    CHECK_EQ(mm_mprobe(e, 0, 1, 5, &got), MM_NOTFOUND);
    CHECK_EQ(arrive(e, 0, 1, 5, 10, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    CHECK_EQ(arrive(e, 0, 1, 5, 11, &got), MM_MATCHED);
    CHECK_EQ(got, 2);
    CHECK_EQ(arrive(e, 0, 1, 5, 12, &got), MM_QUEUED); /* the key's slot: messages now */
    CHECK_EQ(arrive(e, 0, 1, 5, 13, &got), MM_QUEUED);
    CHECK_EQ(post(e, 0, 1, 5, 3, &got), MM_MATCHED);
    CHECK_EQ(got, 12);
    CHECK_EQ(post(e, 0, 1, 5, 4, &got), MM_MATCHED);
    CHECK_EQ(got, 13);
    CHECK_EQ(post(e, 0, 1, 5, 5, &got), MM_QUEUED); /* receives again */
    CHECK_EQ(arrive(e, 0, 1, 6, 14, &got), MM_QUEUED);
    mm_handle h;
    mm_entry r = ent(0, 1, 7, 6);
    CHECK_EQ(mm_post(e, &r, &h, &got), MM_QUEUED);
    CHECK_EQ(mm_cancel(e, h), MM_MATCHED);
    CHECK_EQ(arrive(e, 0, 1, 7, 15, &got), MM_QUEUED); /* the cancelled receive is gone */
    CHECK_EQ(mm_probe(e, 0, 1, 6, &got), MM_MATCHED);
    CHECK_EQ(got, 14);
    mm_stats st0, st;
    mm_get_stats(e, &st0);
    CHECK_EQ(st0.prq.length, 1);
    CHECK_EQ(st0.umq.length, 2);
    CHECK_EQ(st0.prq.queues, 1); /* key 5's receive */
    CHECK_EQ(st0.umq.queues, 2); /* keys 6 and 7's messages */
    /* 600 new keys, receives only: the table (1024 slots) grows */
    for (uintptr_t i = 0; i < 600; i++)
        CHECK_EQ(post(e, 1, 2, (int32_t)i, 100 + i, &got), MM_QUEUED);
    mm_get_stats(e, &st);
    CHECK(st.umq.bytes > st0.umq.bytes);
    CHECK(st.prq.bytes + st.umq.bytes <= st.bytes);
    CHECK_EQ(st.prq.queues, 601);
    int bad = 0;
    for (uintptr_t i = 0; i < 600; i++)
        bad += arrive(e, 1, 2, (int32_t)i, 5000 + i, &got) != MM_MATCHED || got != 100 + i;
    CHECK_EQ(bad, 0);
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.queues, 1);
    /* the growth's rebuild kept each live FIFO's side: key 7 still holds a
     * message (a receive takes it), key 5 a receive (a message takes it) */
    CHECK_EQ(post(e, 0, 1, 7, 16, &got), MM_MATCHED);
    CHECK_EQ(got, 15);
    CHECK_EQ(arrive(e, 0, 1, 5, 17, &got), MM_MATCHED);
    CHECK_EQ(got, 5);
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.length, 0);
    CHECK_EQ(st.umq.length, 1); /* key 6's message (probed, not taken) */
    CHECK_EQ(mm_mprobe(e, 0, 1, 6, &got), MM_MATCHED);
    CHECK_EQ(got, 14);
    mm_destroy(e);
}

/* A `hash` call that finds its key's slot at once (the memo or the home
 * slot) counts one probe without writing max_probes (hash_part.h,
 * mm_hash_probes); the API reads the most as 1 all the same, also when
 * every call since a reset was such a call. */
static void hash_probe_stats(void)
{
    mm_config cfg = {.nprocs = 4, .hints = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG};
    mm_engine *e = NULL;
    char err[256];
    CHECK_EQ(mm_create(&e, "hash", &cfg, err, sizeof err), 0);
    uintptr_t got;
    mm_stats st;
    CHECK_EQ(post(e, 0, 1, 5, 1, &got), MM_QUEUED); /* a new key: an insertion */
    mm_reset_stats(e);
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.probes, 0);
    CHECK_EQ(st.prq.max_probes, 0);
    CHECK_EQ(post(e, 0, 1, 5, 2, &got), MM_QUEUED); /* the memo: joins the FIFO */
    CHECK_EQ(post(e, 0, 1, 5, 3, &got), MM_QUEUED);
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.probes, 2);
    CHECK_EQ(st.prq.max_probes, 1);
    CHECK_EQ(st.umq.probes, 0);
    CHECK_EQ(st.umq.max_probes, 0);
    for (uintptr_t i = 1; i <= 3; i++) {
        CHECK_EQ(arrive(e, 0, 1, 5, 10 + i, &got), MM_MATCHED); /* takes from the PRQ */
        CHECK_EQ(got, i);
    }
    CHECK_EQ(arrive(e, 0, 1, 5, 14, &got), MM_QUEUED); /* the idle key opens on the UMQ */
    mm_get_stats(e, &st);
    CHECK_EQ(st.prq.probes, 5);
    CHECK_EQ(st.prq.max_probes, 1);
    CHECK_EQ(st.umq.probes, 1);
    CHECK_EQ(st.umq.max_probes, 1);
    mm_destroy(e);
}

/* max_probes as the API reports it (api.c reads 0 with probes > 0 as 1,
 * for hash_part.h's mm_hash_probes) is exact wherever hash_part.h runs:
 * `hash` alone and in the concurrent mode's shards (whose merged statistics
 * take each shard's through mm_get_stats), and auto's hash phase (its lean
 * entries, and the bulk move's own count). After a reset, calls that all
 * find their key at once (the memo or the home slot) leave 1; and over the
 * whole run 1 <= max_probes <= probes on any side with probes, 0 without. */
static void probe_max_exact(void)
{
    static const struct {
        const char *name;
        const char *params[3];
        size_t      nparams;
        uint32_t    flags;
    } cf[] = {
        {"hash", {NULL}, 0, 0},
        {"hash", {NULL}, 0, MM_CFG_CONCURRENT},
        {"auto", {"window=4", "up=1", "down=-1"}, 3, 0}, /* into hash, never back */
        {"nm", {NULL}, 0, 0},
    };
    for (size_t c = 0; c < sizeof cf / sizeof cf[0]; c++) {
        mm_config cfg = {.nprocs = 4, .hints = MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG,
                         .flags = cf[c].flags, .params = cf[c].params,
                         .nparams = cf[c].nparams};
        mm_engine *e = NULL;
        char err[256];
        CHECK_EQ(mm_create(&e, cf[c].name, &cfg, err, sizeof err), 0);
        if (!e)
            continue;
        uintptr_t got;
        mm_stats st;
        int bad = 0;
        /* 64 keys queued, then matched last first (deep searches: auto
         * leaves its list for hash) */
        for (int32_t k = 0; k < 64; k++)
            bad += post(e, 0, k % 4, k, 1 + (uintptr_t)k, &got) != MM_QUEUED;
        for (int32_t k = 63; k >= 0; k--)
            bad += arrive(e, 0, k % 4, k, 100 + (uintptr_t)k, &got) != MM_MATCHED ||
                   got != 1 + (uintptr_t)k;
        mm_get_stats(e, &st);
        for (int side = 0; side < 2; side++) {
            const mm_qstats *q = side ? &st.umq : &st.prq;
            bad += q->probes ? q->max_probes < 1 || q->max_probes > q->probes
                             : q->max_probes != 0;
        }
        /* 64 more receives keep the queues deep; then runs of one key */
        for (int32_t k = 0; k < 64; k++)
            bad += post(e, 0, k % 4, 1000 + k, 200 + (uintptr_t)k, &got) != MM_QUEUED;
        bad += post(e, 1, 2, 7, 300, &got) != MM_QUEUED; /* a new key: maybe a run */
        mm_reset_stats(e);
        for (uintptr_t i = 1; i < 8; i++) /* the memo's key */
            bad += post(e, 1, 2, 7, 300 + i, &got) != MM_QUEUED;
        mm_get_stats(e, &st);
        if (strcmp(cf[c].name, "nm") != 0) { /* (nm's posts probe its UMQ table) */
            bad += st.prq.probes == 0 || st.prq.max_probes != 1;
            if (bad)
                fprintf(stderr, "probe_max_exact: %s: probes %llu, max %llu\n", cf[c].name,
                        (unsigned long long)st.prq.probes,
                        (unsigned long long)st.prq.max_probes);
        }
        for (uintptr_t i = 0; i < 8; i++)
            bad += arrive(e, 1, 2, 7, 400 + i, &got) != MM_MATCHED || got != 300 + i;
        mm_get_stats(e, &st);
        for (int side = 0; side < 2; side++) {
            const mm_qstats *q = side ? &st.umq : &st.prq;
            bad += q->probes ? q->max_probes < 1 || q->max_probes > q->probes
                             : q->max_probes != 0;
        }
        if (bad)
            fprintf(stderr, "probe_max_exact: %s (flags %u)\n", cf[c].name, cf[c].flags);
        CHECK_EQ(bad, 0);
        mm_destroy(e);
    }
}

/* rank allocates per-peer queues on first use, 256 peers at a time: memory
 * grows with the peers that queue something, not with the number of
 * processes (issue 13: 100 one-message communicators at nprocs = 10^6 took
 * 4.8 GB when every communicator had arrays of nprocs queues). */
static void rank_memory_follows_peers(void)
{
    mm_stats small, large;
    mm_engine *e;
    mm_config cfg = {.nprocs = 4};
    mm_entry r = ent(0, 1, 1, 1);
    uintptr_t got;
    CHECK_EQ(mm_create(&e, "rank", &cfg, NULL, 0), 0);
    mm_post(e, &r, NULL, &got);
    mm_get_stats(e, &small);
    mm_destroy(e);
    CHECK_EQ(small.prq.queues, 1 + 256); /* the ANY_SOURCE list, one chunk */
    CHECK_EQ(small.umq.queues, 256);
    CHECK(small.prq.bytes >= 256 * 24 && small.prq.bytes < 256 * 24 + 4096);

    cfg.nprocs = 1000000;
    CHECK_EQ(mm_create(&e, "rank", &cfg, NULL, 0), 0);
    mm_post(e, &r, NULL, &got);
    r.comm = 1;
    mm_post(e, &r, NULL, &got);
    mm_get_stats(e, &large);
    CHECK_EQ(large.prq.queues, 2 * (1 + 256));
    CHECK_EQ(large.prq.bytes, 2 * small.prq.bytes);
    /* 100 communicators with one message each, from peers far apart */
    for (int32_t c = 0; c < 100; c++) {
        mm_entry m = ent(10 + c, (c * 99991) % 1000000, 5, 100 + (uintptr_t)c);
        CHECK_EQ(mm_arrive(e, &m, &got), MM_QUEUED);
    }
    mm_get_stats(e, &large);
    CHECK(large.bytes < 4u << 20); /* ~16 KiB a communicator, not 48 MB */
    /* an ANY_SOURCE receive still finds each of them, earliest first */
    for (int32_t c = 0; c < 100; c++) {
        r = ent(10 + c, MM_ANY_SOURCE, 5, 1000);
        CHECK_EQ(mm_post(e, &r, NULL, &got), MM_MATCHED);
        CHECK_EQ(got, 100 + (uintptr_t)c);
    }
    mm_destroy(e);
}

/* Creating any engine with the largest nprocs is cheap (issue 13: kmeans
 * took 4 GB and 10 s), and the highest rank matches. */
static void huge_nprocs(void)
{
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const mm_engine_info *info = mm_engine_at(i);
        mm_config cfg = {.nprocs = INT32_MAX, .hints = info->hints_required};
        mm_engine *e;
        CHECK_EQ(mm_create(&e, info->name, &cfg, NULL, 0), 0);
        mm_entry m = ent(3, INT32_MAX - 1, 7, 1), r = ent(3, INT32_MAX - 1, 7, 2);
        uintptr_t got = 0;
        CHECK_EQ(mm_arrive(e, &m, &got), MM_QUEUED);
        CHECK_EQ(mm_post(e, &r, NULL, &got), MM_MATCHED);
        CHECK_EQ(got, 1);
        mm_stats st;
        mm_get_stats(e, &st);
        if (st.peak_bytes >= 2u << 20)
            fprintf(stderr, "%s: %llu peak bytes at nprocs 2^31-1\n", info->name,
                    (unsigned long long)st.peak_bytes);
        CHECK(st.peak_bytes < 2u << 20);
        mm_destroy(e);
    }
}

/* Bad arguments return an error and leave the engine unchanged. */
/* nm files a receive in one table but a message in four: receives come from
 * their own pool of one-link (48-byte) elements, messages from four-link ones.
 * Consecutive receives on a fresh engine sit one element apart; and a
 * message's element can never be taken for a receive handle. */
static void nm_receives_take_one_link(void)
{
    mm_engine *e;
    mm_config cfg = {.nprocs = 4};
    uintptr_t got;
    mm_handle h[3];
    CHECK_EQ(mm_create(&e, "nm", &cfg, NULL, 0), 0);
    mm_entry m = ent(0, 2, 9, 50);
    CHECK_EQ(mm_arrive(e, &m, &got), MM_QUEUED);           /* a message in between */
    for (int i = 0; i < 3; i++) {
        mm_entry r = ent(0, 1, i, (uintptr_t)(i + 1));
        CHECK_EQ(mm_post(e, &r, &h[i], &got), MM_QUEUED);
    }
    CHECK_EQ((char *)h[1].elem - (char *)h[0].elem, 48);
    CHECK_EQ((char *)h[2].elem - (char *)h[1].elem, 48);
    CHECK_EQ(mm_cancel(e, h[1]), MM_MATCHED);
    mm_entry again = ent(0, 1, 7, 9);                       /* reuses h[1]'s element */
    mm_handle h2;
    CHECK_EQ(mm_post(e, &again, &h2, &got), MM_QUEUED);
    CHECK(h2.elem == h[1].elem);
    CHECK_EQ(mm_cancel(e, h[1]), MM_NOTFOUND);              /* stale: a new receive there */
    CHECK_EQ(mm_cancel(e, h2), MM_MATCHED);
    mm_destroy(e);
}

static void rule_errors(void)
{
    mm_engine *e = make(4);
    uintptr_t got = 77;
    mm_stats before, after;
    CHECK_EQ(post(e, 0, 1, 1, 1, &got), MM_QUEUED);
    mm_get_stats(e, &before);
    CHECK_EQ(arrive(e, 0, 4, 1, 2, &got), MM_EINVAL);            /* source out of range */
    CHECK_EQ(arrive(e, 0, MM_ANY_SOURCE, 1, 2, &got), MM_EINVAL); /* wildcard arrival */
    CHECK_EQ(arrive(e, 0, 1, MM_ANY_TAG, 2, &got), MM_EINVAL);
    CHECK_EQ(arrive(e, -1, 1, 1, 2, &got), MM_EINVAL);           /* negative communicator */
    CHECK_EQ(post(e, 0, -2, 1, 3, &got), MM_EINVAL);
    CHECK_EQ(mm_post(e, NULL, NULL, &got), MM_EINVAL);
    CHECK_EQ(mm_arrive(NULL, NULL, &got), MM_EINVAL);
    mm_entry bad = ent(0, 1, 1, 9);
    bad.kind = MM_KIND_COLL; /* collective without an operation */
    CHECK_EQ(mm_arrive(e, &bad, &got), MM_EINVAL);
    CHECK_EQ(mm_post(e, &bad, NULL, &got), MM_EINVAL);
    bad = ent(0, 1, 1, 9);
    bad.coll_op = MM_COLL_GATHER; /* an operation on point-to-point traffic */
    CHECK_EQ(mm_arrive(e, &bad, &got), MM_EINVAL);
    CHECK_EQ(mm_post(e, &bad, NULL, &got), MM_EINVAL);
    bad = ent(0, 1, 1, 9);
    bad.reserved = 1;
    CHECK_EQ(mm_arrive(e, &bad, &got), MM_EINVAL);
    CHECK_EQ(mm_post(e, &bad, NULL, &got), MM_EINVAL);
    bad.reserved = 0;
    bad.kind = 2; /* no such kind */
    CHECK_EQ(mm_arrive(e, &bad, &got), MM_EINVAL);
    bad.kind = MM_KIND_COLL;
    bad.coll_op = MM_COLL_OP_COUNT; /* no such operation */
    CHECK_EQ(mm_post(e, &bad, NULL, &got), MM_EINVAL);
    CHECK_EQ(mm_cancel(NULL, (mm_handle){NULL, 0}), MM_EINVAL);
    if (!wild_ok) {
        CHECK_EQ(post(e, 0, MM_ANY_SOURCE, 1, 4, &got), MM_EHINT);
        CHECK_EQ(post(e, 0, 1, MM_ANY_TAG, 4, &got), MM_EHINT);
        CHECK_EQ(mm_probe(e, 0, MM_ANY_SOURCE, 1, &got), MM_EHINT);
    }
    mm_get_stats(e, &after);
    CHECK(memcmp(&before, &after, sizeof before) == 0);
    got = 77;
    mm_entry wild = ent(0, MM_ANY_SOURCE, 1, 6);
    CHECK_EQ(mm_arrive(e, &wild, &got), MM_EINVAL);
    CHECK_EQ(got, 77); /* outputs untouched on error */
    CHECK_EQ(arrive(e, 0, 1, 1, 5, &got), MM_MATCHED);
    CHECK_EQ(got, 1);
    mm_destroy(e);
}

static void registry_and_create(void)
{
    char err[512];
    mm_engine *e = (mm_engine *)1;
    mm_config cfg = {.nprocs = 4};
    CHECK_EQ(mm_create(&e, "nosuch", &cfg, err, sizeof err), MM_ENOENGINE);
    CHECK(e == NULL);
    CHECK(strstr(err, "list") && strstr(err, "nm"));  /* lists the valid names */
    const char *p1[] = {"bins=0"};
    cfg.params = p1, cfg.nparams = 1;
    CHECK_EQ(mm_create(&e, "bins", &cfg, err, sizeof err), MM_EPARAM);
    CHECK(strstr(err, "1") && strstr(err, "1048576"));   /* says the range */
    const char *p2[] = {"colour=3"};
    cfg.params = p2;
    CHECK_EQ(mm_create(&e, "bins", &cfg, err, sizeof err), MM_EPARAM);
    CHECK(strstr(err, "bins") != NULL);                  /* lists the valid ones */
    CHECK_EQ(mm_create(&e, "list", &cfg, err, sizeof err), MM_EPARAM);
    const char *p3[] = {"bins=12x"};
    cfg.params = p3;
    CHECK_EQ(mm_create(&e, "bins", &cfg, err, sizeof err), MM_EPARAM);
    const char *p4[] = {"bins=64"};
    cfg.params = p4;
    CHECK_EQ(mm_create(&e, "bins", &cfg, err, sizeof err), 0);
    mm_destroy(e);
    cfg.params = NULL, cfg.nparams = 0;
    CHECK_EQ(mm_create(&e, "hash", &cfg, err, sizeof err), MM_EHINT);
    CHECK(strstr(err, "no_any_source") && strstr(err, "no_any_tag"));
    cfg.hints = MM_HINT_NO_ANY_SOURCE;
    CHECK_EQ(mm_create(&e, "hash", &cfg, err, sizeof err), MM_EHINT);
    cfg.nprocs = 0;
    CHECK_EQ(mm_create(&e, "list", &cfg, err, sizeof err), MM_EINVAL);
    CHECK(mm_engine_count() >= 5);
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const mm_engine_info *info = mm_engine_at(i);
        CHECK(info && info->name && info->summary && info->origin);
        CHECK(mm_engine_find(info->name) == info);
    }
    CHECK(mm_engine_at(mm_engine_count()) == NULL);
    /* mm_create_from: an engine looked up once; mm_get_param: its values */
    cfg.nprocs = 4, cfg.hints = 0, cfg.params = p4, cfg.nparams = 1;
    const mm_engine_info *bins = mm_engine_find("bins");
    CHECK(bins && bins->nparams >= 1 && strcmp(bins->params[0].name, "bins") == 0);
    CHECK_EQ(mm_create_from(&e, bins, &cfg, err, sizeof err), 0);
    int64_t v = 0;
    CHECK_EQ(mm_get_param(e, 0, &v), 0);
    CHECK_EQ(v, 64);
    CHECK_EQ(mm_get_param(e, bins->nparams, &v), MM_EINVAL);
    CHECK_EQ(mm_get_param(NULL, 0, &v), MM_EINVAL);
    mm_destroy(e);
    cfg.params = NULL, cfg.nparams = 0;
    CHECK_EQ(mm_create_from(&e, bins, &cfg, err, sizeof err), 0);
    CHECK_EQ(mm_get_param(e, 0, &v), 0);
    CHECK_EQ(v, bins->params[0].def);
    mm_destroy(e);
    mm_engine_info fake = *bins;
    CHECK_EQ(mm_create_from(&e, &fake, &cfg, err, sizeof err), MM_ENOENGINE);
    CHECK(e == NULL && strstr(err, "bins"));
    CHECK_EQ(mm_create_from(&e, NULL, &cfg, err, sizeof err), MM_ENOENGINE);
    const mm_engine_info *km = mm_engine_find("kmeans");
    if (km)
        for (size_t i = 0; i < km->nparams; i++)
            if (km->params[i].type == MM_PARAM_FILE) {
                CHECK_EQ(mm_create_from(&e, km, &cfg, err, sizeof err), 0);
                CHECK_EQ(mm_get_param(e, i, &v), MM_EINVAL);
                mm_destroy(e);
            }
    CHECK(mm_coll_from_name("allreduce") == MM_COLL_ALLREDUCE);
    CHECK(strcmp(mm_coll_name(MM_COLL_IALLGATHER), "iallgather") == 0);
    CHECK(mm_coll_from_name("nonsense") == -1);
}

int main(void)
{
    CHECK(strcmp(mm_version(), MPIMATCH_VERSION_STRING) == 0);
    CHECK_EQ(MPIMATCH_VERSION, MPIMATCH_VERSION_MAJOR * 10000 + MPIMATCH_VERSION_MINOR * 100 +
                               MPIMATCH_VERSION_PATCH);
    registry_and_create();
    rank_memory_follows_peers();
    huge_nprocs();
    nm_receives_take_one_link();
    hash_one_table();
    hash_probe_stats();
    probe_max_exact();
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const mm_engine_info *info = mm_engine_at(i);
        ename = info->name;
        wild_ok = info->hints_required == 0;
        int before = check_failed;
        rule_communicators();
        rule_exact();
        if (wild_ok) {
            rule_any_source();
            rule_any_tag();
        }
        rule_earliest_posted();
        rule_earliest_arrived();
        rule_probe();
        rule_cancel();
        rule_stats();
        rule_side_bytes();
        rule_errors();
        printf("%-8s %s\n", ename, check_failed == before ? "ok" : "FAILED");
    }
    return check_report("test_semantics");
}
