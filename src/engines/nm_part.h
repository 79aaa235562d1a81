/* nm_part.h - NewMadeleine's four structures: the `nm` engine's tables and
 * search, shared with the nm phase of `auto`.
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
 * probe runs); every table remembers its last key, so runs of one key hash
 * nothing. A receive uses link 0, a message links 0..3. */
#ifndef MM_ENGINES_NM_PART_H
#define MM_ENGINES_NM_PART_H

#include "engine.h"
#include "core/ftable.h"

enum { MM_NM_NPAT = 4 };

typedef struct mm_nm {
    mm_ftable prq[MM_NM_NPAT]; /* receives by their own pattern (link 0)  */
    mm_ftable umq[MM_NM_NPAT]; /* messages under each projection (link p) */
} mm_nm;

static inline unsigned mm_nm_pattern(const mm_key *k)
{
    return (k->src == MM_ANY_SOURCE ? MM_FTABLE_ANY_SRC : 0) |
           (k->tag == MM_ANY_TAG ? MM_FTABLE_ANY_TAG : 0);
}

/* Does a message with tag `tag` belong under pattern p? */
static inline int mm_nm_projects(int32_t tag, unsigned p)
{
    return !(p & MM_FTABLE_ANY_TAG) || tag >= 0;
}

/* Release the tables (any of them may be uninitialised: zeroed). */
static inline void mm_nm_fini(mm_nm *N)
{
    for (unsigned p = 0; p < MM_NM_NPAT; p++) {
        mm_ftable_destroy(&N->prq[p]);
        mm_ftable_destroy(&N->umq[p]);
    }
}

/* Empty tables hashing with seed; 0 or MM_ENOMEM (N released). N must be
 * zeroed. The (src,tag) tables start with cap_prq and cap_umq slots (16 or
 * more; the tables grow by themselves), the others with 16. */
static inline int mm_nm_init(mm_engine *e, mm_nm *N, uint64_t seed, uint32_t cap_prq,
                             uint32_t cap_umq)
{
    for (unsigned p = 0; p < MM_NM_NPAT; p++)
        if (mm_ftable_init(&N->prq[p], 0, p ? 16 : cap_prq, seed, 0, &e->prq_mem) != 0 ||
            mm_ftable_init(&N->umq[p], p, p ? 16 : cap_umq, seed, p, &e->umq_mem) != 0) {
            mm_nm_fini(N);
            return MM_ENOMEM;
        }
    return 0;
}

/* Release the tables and uncount their open FIFOs (the elements stay where
 * they are, for another structure to take). */
static inline void mm_nm_drop(mm_engine *e, mm_nm *N)
{
    for (unsigned p = 0; p < MM_NM_NPAT; p++) {
        mm_stat_queues(&e->st.prq, -(int64_t)(N->prq[p].count - N->prq[p].idle));
        mm_stat_queues(&e->st.umq, -(int64_t)(N->umq[p].count - N->umq[p].idle));
    }
    mm_nm_fini(N);
}

/* Unlink message m from the UMQ tables it is filed in, except table `skip`
 * (MM_NM_NPAT: none). */
static inline void mm_nm_unlink_message(mm_engine *e, mm_nm *N, mm_elem *m, unsigned skip)
{
    uint64_t steps = 0;
    for (unsigned p = 0; p < MM_NM_NPAT; p++) {
        if (p == skip || !mm_nm_projects(m->key.tag, p))
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
static inline mm_elem *mm_nm_find_message(mm_engine *e, mm_nm *N, const mm_key *k, unsigned p,
                                          int remove)
{
    mm_ftable *t = &N->umq[p];
    mm_fslot *s = mm_ftable_find_key(t, k);
    mm_elem *m = NULL;
    if (s) {
        int closed = 0;
        m = remove ? mm_ftable_pop(t, s, &closed) : mm_fslot_live_head(s);
        if (closed)
            mm_stat_queues(&e->st.umq, -1);
    }
    mm_stat_search(&e->st.umq, m != NULL, m != NULL);
    mm_stat_probes(&e->st.umq, mm_ftable_take_steps(t));
    if (m && remove)
        mm_nm_unlink_message(e, N, m, p);
    return m;
}

/* Queue receive r in its pattern's table: MM_QUEUED or MM_ENOMEM. */
static inline int mm_nm_queue_recv(mm_engine *e, mm_nm *N, mm_elem *r)
{
    mm_ftable *t = &N->prq[mm_nm_pattern(&r->key)];
    int rc = mm_ftable_push_key(t, r, &r->key);
    uint64_t steps = mm_ftable_take_steps(t);
    if (rc < 0)
        return MM_ENOMEM;
    mm_stat_probes(&e->st.prq, steps);
    if (rc)
        mm_stat_queues(&e->st.prq, 1);
    return MM_QUEUED;
}

/* File message m under every projection: MM_QUEUED, or MM_ENOMEM with what
 * was filed undone. Opened queues are counted once all succeeded, so a
 * failure leaves the statistics (max_queues too) as they were. */
static inline int mm_nm_queue_message(mm_engine *e, mm_nm *N, mm_elem *m)
{
    unsigned opened = 0;
    uint64_t steps = 0;
    for (unsigned p = 0; p < MM_NM_NPAT; p++) {
        if (!mm_nm_projects(m->key.tag, p))
            continue;
        mm_ftable *t = &N->umq[p];
        mm_key k = mm_ftable_key(t, &m->key);
        int rc = mm_ftable_push_key(t, m, &k);
        steps += mm_ftable_take_steps(t);
        if (rc < 0) {
            while (p-- > 0) { /* undo the filings so far; statistics untouched */
                if (!mm_nm_projects(m->key.tag, p))
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

static inline int mm_nm_post(mm_engine *e, mm_nm *N, mm_elem *r, mm_elem **partner)
{
    mm_elem *m = mm_nm_find_message(e, N, &r->key, mm_nm_pattern(&r->key), 1);
    if (m) {
        *partner = m;
        return MM_MATCHED;
    }
    if (!mm_may_queue(r))
        return MM_ENOMEM;
    return mm_nm_queue_recv(e, N, r);
}

static inline int mm_nm_arrive(mm_engine *e, mm_nm *N, mm_elem *m, mm_elem **partner)
{
    mm_elem *best = NULL;
    mm_fslot *best_s = NULL;
    unsigned best_p = 0;
    uint64_t depth = 0, steps = 0;
    /* Only tables holding receives can match, and a negative tag only the two
     * tables that name the tag: usually one table is left to look at. */
    unsigned look = m->key.tag >= 0 ? 0xFu : 0x5u;
    for (unsigned p = 0; p < MM_NM_NPAT; p++)
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
        mm_elem *head = mm_fslot_live_head(s);
        if (!best || head->seq < best->seq) {
            best = head;
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
    return mm_nm_queue_message(e, N, m);
}

static inline mm_elem *mm_nm_probe(mm_engine *e, mm_nm *N, const mm_key *k, int remove)
{
    return mm_nm_find_message(e, N, k, mm_nm_pattern(k), remove);
}

static inline void mm_nm_cancel(mm_engine *e, mm_nm *N, mm_elem *r)
{
    mm_ftable *t = &N->prq[mm_nm_pattern(&r->key)];
    if (mm_ftable_remove(t, r, &r->key))
        mm_stat_queues(&e->st.prq, -1);
    mm_stat_probes(&e->st.prq, mm_ftable_take_steps(t));
}

#endif
