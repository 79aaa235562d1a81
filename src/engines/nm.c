/* nm.c - NewMadeleine's four structures: constant time with wildcards.
 *
 * Posted receives are filed by wildcard pattern into one of four keyed
 * tables: (src,tag), (src,*), (*,tag), (*,*), always with the communicator.
 * Every receive in one FIFO accepts exactly the same messages, so the head
 * is the earliest match of that FIFO: an arrival looks at (at most) four
 * heads and takes the one with the smallest sequence number.
 * An unexpected message is filed under all four projections of its key
 * (link i for table i), so a receive of any pattern finds its earliest
 * partner at the head of one FIFO; a match unlinks the message from all of
 * them. Negative tags never enter the two ANY_TAG tables, since ANY_TAG does
 * not match them. Paper 002, section II and Table I; paper 002's variant with
 * a table (not a list) for (*,*) so that communicators are honoured. */
#include "engine.h"
#include "core/ktable.h"

enum { NPAT = 4, PAT_ANY_TAG = 1, PAT_ANY_SRC = 2 };

typedef struct nm_impl {
    mm_ktable prq[NPAT]; /* receives by their own pattern (link 0)      */
    mm_ktable umq[NPAT]; /* messages under each projection (link p)     */
} nm_impl;

static inline unsigned pattern_of(const mm_key *k)
{
    return (k->src == MM_ANY_SOURCE ? PAT_ANY_SRC : 0) | (k->tag == MM_ANY_TAG ? PAT_ANY_TAG : 0);
}

static inline mm_key project(const mm_key *k, unsigned p)
{
    mm_key x = *k;
    if (p & PAT_ANY_SRC)
        x.src = MM_ANY_SOURCE;
    if (p & PAT_ANY_TAG)
        x.tag = MM_ANY_TAG;
    return x;
}

/* Does a message with tag `tag` belong under pattern p? */
static inline int projects(int32_t tag, unsigned p)
{
    return !(p & PAT_ANY_TAG) || tag >= 0;
}

static void nm_fini(mm_engine *e)
{
    nm_impl *N = e->impl;
    for (unsigned p = 0; p < NPAT; p++) {
        mm_ktable_destroy(&N->prq[p]);
        mm_ktable_destroy(&N->umq[p]);
    }
    mm_mem_free(&e->mem, N, sizeof *N);
}

static int nm_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    nm_impl *N = mm_mem_calloc(&e->mem, 1, sizeof *N);
    if (!N)
        return MM_ENOMEM;
    e->impl = N;
    for (unsigned p = 0; p < NPAT; p++)
        if (mm_ktable_init(&N->prq[p], 0, 16, MM_KTABLE_KEEP_IDLE, &e->prq_mem) != 0 ||
            mm_ktable_init(&N->umq[p], p, 16, MM_KTABLE_KEEP_IDLE, &e->umq_mem) != 0) {
            nm_fini(e);
            return MM_ENOMEM;
        }
    return 0;
}

static void drop_from(mm_ktable *t, mm_kentry *ke, mm_elem *x, mm_qstats *st)
{
    if (mm_ktable_pull(t, ke, x))
        mm_stat_queues(st, -1);
}

/* Unlink message m from the tables it is filed in, among the first `upto`;
 * `known` is the entry already found for table `kp`, which saves a lookup. */
static void unlink_message(mm_engine *e, mm_elem *m, unsigned upto, unsigned kp, mm_kentry *known)
{
    nm_impl *N = e->impl;
    for (unsigned p = 0; p < upto; p++) {
        if (!projects(m->key.tag, p))
            continue;
        mm_kentry *ke = known;
        if (p != kp) {
            mm_key k = project(&m->key, p);
            ke = mm_ktable_find(&N->umq[p], &k, mm_key_hash(&k));
        }
        drop_from(&N->umq[p], ke, m, &e->st.umq);
    }
}

/* The one FIFO a receive of key k (pattern p, hash h) looks at: its head is
 * the answer. */
static mm_elem *find_message(mm_engine *e, const mm_key *k, unsigned p, uint32_t h,
                             mm_kentry **ke_out)
{
    nm_impl *N = e->impl;
    mm_kentry *ke = mm_ktable_find(&N->umq[p], k, h);
    mm_elem *m = ke ? mm_queue_head(&ke->q) : NULL;
    mm_stat_search(&e->st.umq, m != NULL, m != NULL);
    *ke_out = ke;
    return m;
}

static int nm_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    nm_impl *N = e->impl;
    mm_kentry *ke;
    unsigned p = pattern_of(&r->key);
    uint32_t h = mm_key_hash(&r->key);
    mm_elem *m = find_message(e, &r->key, p, h, &ke);
    if (m) {
        unlink_message(e, m, NPAT, p, ke);
        *partner = m;
        return MM_MATCHED;
    }
    if (!mm_may_queue(r))
        return MM_ENOMEM;
    ke = mm_ktable_get(&N->prq[p], &r->key, h, NULL);
    if (!ke)
        return MM_ENOMEM;
    if (mm_ktable_push(ke, r))
        mm_stat_queues(&e->st.prq, 1);
    return MM_QUEUED;
}

static int nm_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    nm_impl *N = e->impl;
    mm_elem *best = NULL;
    mm_kentry *best_ke = NULL;
    unsigned best_p = 0;
    uint64_t depth = 0;
    /* Only tables holding receives can match, and a negative tag only the two
     * tables that name the tag: usually one table is left to look at. */
    unsigned look = m->key.tag >= 0 ? 0xFu : 0x5u;
    for (unsigned p = 0; p < NPAT; p++)
        if (N->prq[p].count == N->prq[p].idle)
            look &= ~(1u << p);
    for (; look; look &= look - 1) {
        unsigned p = (unsigned)__builtin_ctz(look);
        mm_key k = project(&m->key, p);
        mm_kentry *ke = mm_ktable_find(&N->prq[p], &k, mm_key_hash(&k));
        mm_elem *r = ke ? mm_queue_head(&ke->q) : NULL;
        if (!r)
            continue;
        depth++;
        if (!best || r->seq < best->seq) {
            best = r;
            best_ke = ke;
            best_p = p;
        }
    }
    mm_stat_search(&e->st.prq, depth, best != NULL);
    if (best) {
        drop_from(&N->prq[best_p], best_ke, best, &e->st.prq);
        *partner = best;
        return MM_MATCHED;
    }
    if (!mm_may_queue(m))
        return MM_ENOMEM;
    /* File under every projection; on failure undo what was filed. Opened
     * queues are counted once all succeeded, so a failure leaves the
     * statistics (max_queues too) as they were. */
    mm_kentry *filed[NPAT];
    unsigned opened = 0;
    for (unsigned p = 0; p < NPAT; p++) {
        if (!projects(m->key.tag, p))
            continue;
        mm_key k = project(&m->key, p);
        filed[p] = mm_ktable_get(&N->umq[p], &k, mm_key_hash(&k), NULL);
        if (!filed[p]) {
            while (p-- > 0)
                if (projects(m->key.tag, p))
                    mm_ktable_pull(&N->umq[p], filed[p], m);
            return MM_ENOMEM;
        }
        opened += (unsigned)mm_ktable_push(filed[p], m);
    }
    mm_stat_queues(&e->st.umq, opened);
    return MM_QUEUED;
}

static mm_elem *nm_probe(mm_engine *e, const mm_key *k, int remove)
{
    mm_kentry *ke;
    unsigned p = pattern_of(k);
    mm_elem *m = find_message(e, k, p, mm_key_hash(k), &ke);
    if (m && remove)
        unlink_message(e, m, NPAT, p, ke);
    return m;
}

static void nm_cancel(mm_engine *e, mm_elem *r)
{
    nm_impl *N = e->impl;
    unsigned p = pattern_of(&r->key);
    drop_from(&N->prq[p], mm_ktable_find(&N->prq[p], &r->key, mm_key_hash(&r->key)), r,
              &e->st.prq);
}

static const mm_engine_ops nm_ops = {
    .nlinks = NPAT,
    .nlinks_recv = 1,   /* a receive sits in one table: 64-byte receives, not 112 */
    .init = nm_init, .fini = nm_fini,
    .post = nm_post, .arrive = nm_arrive,
    .probe = nm_probe, .cancel = nm_cancel,
};

const mm_engine_def mm_engine_nm = {
    .info = {
        .name = "nm",
        .summary = "four keyed tables for (src,tag), (src,*), (*,tag), (*,*) with sequence "
                   "numbers: constant time even with wildcards",
        .origin = "NewMadeleine (pm2 nmad); paper 002 section II and Table I",
    },
    .ops = &nm_ops,
};
