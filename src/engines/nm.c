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
 * a table (not a list) for (*,*) so that communicators are honoured.
 *
 * The tables are core/ftable.h (FIFO in the slot, seeded hash, bounded
 * probe runs; parameter seed); every table remembers its last key, so runs
 * of one key hash nothing. */
#include "engine.h"
#include "enter.h"
#include "core/ftable.h"

enum { NPAT = 4, PAT_ANY_TAG = MM_FTABLE_ANY_TAG, PAT_ANY_SRC = MM_FTABLE_ANY_SRC };

enum { P_SEED };
static const mm_param_info nm_params[] = {
    [P_SEED] = {"seed", "seed of the key hash: 0 draws a secret one from the OS at creation "
                "(the default: senders cannot aim keys at one probe run); N >= 1 fixes it, "
                "for reproducible layouts and probe counts", 0, 0, INT64_MAX},
};

typedef struct nm_impl {
    mm_ftable prq[NPAT]; /* receives by their own pattern (link 0)      */
    mm_ftable umq[NPAT]; /* messages under each projection (link p)     */
} nm_impl;

static inline unsigned pattern_of(const mm_key *k)
{
    return (k->src == MM_ANY_SOURCE ? PAT_ANY_SRC : 0) | (k->tag == MM_ANY_TAG ? PAT_ANY_TAG : 0);
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
        mm_ftable_destroy(&N->prq[p]);
        mm_ftable_destroy(&N->umq[p]);
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
    uint64_t seed = mm_seed_pick(e->param[P_SEED]);
    for (unsigned p = 0; p < NPAT; p++)
        if (mm_ftable_init(&N->prq[p], 0, 16, seed, 0, &e->prq_mem) != 0 ||
            mm_ftable_init(&N->umq[p], p, 16, seed, p, &e->umq_mem) != 0) {
            nm_fini(e);
            return MM_ENOMEM;
        }
    return 0;
}

/* Unlink message m from the UMQ tables it is filed in, among the first
 * `upto`, except table `skip` (NPAT: none). */
static void unlink_message(mm_engine *e, mm_elem *m, unsigned upto, unsigned skip)
{
    nm_impl *N = e->impl;
    uint64_t steps = 0;
    for (unsigned p = 0; p < upto; p++) {
        if (p == skip || !projects(m->key.tag, p))
            continue;
        mm_key k = mm_ftable_key(&N->umq[p], &m->key);
        if (mm_ftable_remove(&N->umq[p], m, &k))
            mm_stat_queues(&e->st.umq, -1);
        steps += mm_ftable_take_steps(&N->umq[p]);
    }
    e->st.umq.probes += steps;
}

/* The one FIFO a receive of key k (pattern p) looks at: its head is the
 * answer, taken when remove. Counted as one UMQ search. */
static mm_elem *find_message(mm_engine *e, const mm_key *k, unsigned p, int remove)
{
    nm_impl *N = e->impl;
    mm_ftable *t = &N->umq[p];
    mm_fslot *s = mm_ftable_find_key(t, k);
    mm_elem *m = NULL;
    if (s) {
        int closed = 0;
        m = remove ? mm_ftable_pop(t, s, &closed) : s->head;
        if (closed)
            mm_stat_queues(&e->st.umq, -1);
    }
    mm_stat_search(&e->st.umq, m != NULL, m != NULL);
    mm_stat_probes(&e->st.umq, mm_ftable_take_steps(t));
    if (m && remove)
        unlink_message(e, m, NPAT, p);
    return m;
}

static int nm_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    nm_impl *N = e->impl;
    unsigned p = pattern_of(&r->key);
    mm_elem *m = find_message(e, &r->key, p, 1);
    if (m) {
        *partner = m;
        return MM_MATCHED;
    }
    if (!mm_may_queue(r))
        return MM_ENOMEM;
    mm_ftable *t = &N->prq[p];
    int rc = mm_ftable_push_key(t, r, &r->key);
    uint64_t steps = mm_ftable_take_steps(t);
    if (rc < 0)
        return MM_ENOMEM;
    mm_stat_probes(&e->st.prq, steps);
    if (rc)
        mm_stat_queues(&e->st.prq, 1);
    return MM_QUEUED;
}

static int nm_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    nm_impl *N = e->impl;
    mm_elem *best = NULL;
    mm_fslot *best_s = NULL;
    unsigned best_p = 0;
    uint64_t depth = 0, steps = 0;
    /* Only tables holding receives can match, and a negative tag only the two
     * tables that name the tag: usually one table is left to look at. */
    unsigned look = m->key.tag >= 0 ? 0xFu : 0x5u;
    for (unsigned p = 0; p < NPAT; p++)
        if (!N->prq[p].count)
            look &= ~(1u << p);
    for (; look; look &= look - 1) {
        unsigned p = (unsigned)__builtin_ctz(look);
        mm_ftable *t = &N->prq[p];
        mm_key k = mm_ftable_key(&N->umq[p], &m->key);
        mm_fslot *s = mm_ftable_find_key(t, &k);
        steps += mm_ftable_take_steps(t);
        if (!s)
            continue;
        depth++;
        if (!best || s->head->seq < best->seq) {
            best = s->head;
            best_s = s;
            best_p = p;
        }
    }
    mm_stat_search(&e->st.prq, depth, best != NULL);
    mm_stat_probes(&e->st.prq, steps);
    if (best) {
        int closed;
        mm_ftable_pop(&N->prq[best_p], best_s, &closed);
        if (closed)
            mm_stat_queues(&e->st.prq, -1);
        *partner = best;
        return MM_MATCHED;
    }
    if (!mm_may_queue(m))
        return MM_ENOMEM;
    /* File under every projection; on failure undo what was filed. Opened
     * queues are counted once all succeeded, so a failure leaves the
     * statistics (max_queues too) as they were. */
    unsigned opened = 0;
    steps = 0;
    for (unsigned p = 0; p < NPAT; p++) {
        if (!projects(m->key.tag, p))
            continue;
        mm_ftable *t = &N->umq[p];
        mm_key k = mm_ftable_key(t, &m->key);
        int rc = mm_ftable_push_key(t, m, &k);
        steps += mm_ftable_take_steps(t);
        if (rc < 0) {
            while (p-- > 0) { /* undo the filings so far; statistics untouched */
                if (!projects(m->key.tag, p))
                    continue;
                mm_key kp = mm_ftable_key(&N->umq[p], &m->key);
                mm_ftable_remove(&N->umq[p], m, &kp);
                (void)mm_ftable_take_steps(&N->umq[p]);
            }
            return MM_ENOMEM;
        }
        opened += (unsigned)rc;
    }
    mm_stat_probes(&e->st.umq, steps);
    mm_stat_queues(&e->st.umq, opened);
    return MM_QUEUED;
}

static mm_elem *nm_probe(mm_engine *e, const mm_key *k, int remove)
{
    return find_message(e, k, pattern_of(k), remove);
}

static void nm_cancel(mm_engine *e, mm_elem *r)
{
    nm_impl *N = e->impl;
    mm_ftable *t = &N->prq[pattern_of(&r->key)];
    if (mm_ftable_remove(t, r, &r->key))
        mm_stat_queues(&e->st.prq, -1);
    mm_stat_probes(&e->st.prq, mm_ftable_take_steps(t));
}

MM_ENGINE_ENTER(nm, nm_post, nm_arrive, 1)

static const mm_engine_ops nm_ops = {
    .nlinks = NPAT,
    .nlinks_recv = 1,   /* a receive sits in one table: 64-byte receives, not 112 */
    .init = nm_init, .fini = nm_fini,
    .post = nm_post, .arrive = nm_arrive,
    .enter_post = nm_enter_post, .enter_arrive = nm_enter_arrive,
    .probe = nm_probe, .cancel = nm_cancel,
};

const mm_engine_def mm_engine_nm = {
    .info = {
        .name = "nm",
        .summary = "four keyed tables for (src,tag), (src,*), (*,tag), (*,*) with sequence "
                   "numbers: constant time even with wildcards",
        .origin = "NewMadeleine (pm2 nmad), as the MPI 4.0 hints matching paper describes it (section II, Table I)",
        .params = nm_params,
        .nparams = sizeof nm_params / sizeof nm_params[0],
    },
    .ops = &nm_ops,
};
