/* hash_part.h - one hash table on (comm, source, tag) per side, a FIFO per
 * key: the `hash` engine's structure and search, shared with the hash phase
 * of `auto` (which enters it only when both MPI 4.0 assertions hold).
 *
 * Paper 002, Algorithm 1: with no_any_source and no_any_tag every receive
 * names one key, so the earliest partner is always the head of one FIFO: a
 * lookup, no search. The FIFOs live in the table slots (core/ftable.h): a
 * match reads the slot and the partner element, two cache lines. Both tables
 * hash with one secret seed, so a post computes one hash for the lookup in
 * the UMQ and the insertion in the PRQ (and an arrival the reverse), unless
 * a table has re-seeded itself against hostile keys. Link 0. */
#ifndef MM_ENGINES_HASH_PART_H
#define MM_ENGINES_HASH_PART_H

#include "engine.h"
#include "core/ftable.h"
#include "enter.h"

typedef struct mm_hash {
    mm_ftable prq, umq;
} mm_hash;

/* Empty tables of cap_prq and cap_umq slots hashing with seed: 0, or
 * MM_ENOMEM (nothing held). */
static inline int mm_hash_init(mm_engine *e, mm_hash *H, uint32_t cap_prq, uint32_t cap_umq,
                               uint64_t seed)
{
    if (mm_ftable_init(&H->prq, 0, cap_prq, seed, 0, &e->prq_mem) != 0)
        return MM_ENOMEM;
    if (mm_ftable_init(&H->umq, 0, cap_umq, seed, 0, &e->umq_mem) != 0) {
        mm_ftable_destroy(&H->prq);
        return MM_ENOMEM;
    }
    return 0;
}

static inline void mm_hash_fini(mm_hash *H)
{
    mm_ftable_destroy(&H->prq);
    mm_ftable_destroy(&H->umq);
}

/* Release the tables and uncount their open FIFOs (the elements stay where
 * they are, for another structure to take). */
static inline void mm_hash_drop(mm_engine *e, mm_hash *H)
{
    mm_stat_queues(&e->st.prq, -(int64_t)(H->prq.count - H->prq.idle));
    mm_stat_queues(&e->st.umq, -(int64_t)(H->umq.count - H->umq.idle));
    mm_hash_fini(H);
}

/* The hash engine's tables use link 0 and no projection: the ftable
 * templates are instantiated with those constants (li 0, masked 0). */
enum { MM_HASH_LI = 0 };

/* Take (or, without remove, peek at) the head of key k's FIFO in t: the
 * search of either side. */
static inline mm_elem *mm_hash_take_head(mm_ftable *t, mm_qstats *st, const mm_key *k,
                                         int remove)
{
    uint32_t n = 0;
    mm_fslot *s = NULL;
    if (t->count != t->idle) {
        s = mm_ftable_lookup_t(t, k, mm_ftable_hash(t, k), &n, 0);
        if (s && !mm_fslot_head(s))
            s = NULL;
    }
    mm_stat_search(st, s != NULL, s != NULL);
    mm_stat_probes(st, n);
    if (!s)
        return NULL;
    if (!remove)
        return s->u.head;
    int closed;
    mm_elem *head = mm_ftable_pop_t(t, s, &closed, MM_HASH_LI);
    if (closed)
        mm_stat_queues(st, -1);
    return head;
}

/* How mm_hash_push and mm_hash_search_or_queue run: the whole path, the
 * entries' first try (fast), or the rest of a call after that try
 * (resumed: mm_hash_resume). */
enum { MM_HASH_FULL = 0, MM_HASH_FAST = 1, MM_HASH_RESUMED = 2 };

/* What a first try that answers MM_ENTER_RETRY hands to mm_hash_resume, in
 * one word: the key's hash (30 bits, mm_ftable_hash) and where the try
 * stopped. MM_HASH_HOW_PUSH clear: at the searched table, whose home slot
 * (of that hash) holds another key (the search goes on past it); set: at the
 * key's own table (the hash is that table's), the search having missed
 * after inspecting MM_HASH_HOW_N1 ? 1 : 0 slots, the own table's memo not
 * the key and its home slot not the key's (empty: the key is new; else the
 * lookup goes on past it). */
enum { MM_HASH_HOW_HASH = (1u << 30) - 1, MM_HASH_HOW_N1 = 1u << 30, MM_HASH_HOW_PUSH = 1u << 31 };

/* Queue x on t (statistics st) under key k: the last key pushed (no hash),
 * else a lookup with hash h (if have_h) or one computed now. Counts the
 * slots inspected and an opened FIFO: MM_QUEUED, or MM_ENOMEM with no
 * statistic changed. With MM_HASH_FAST, only a key found in its home slot
 * is queued here; a new key (an insertion: out of line, it may rebuild the
 * table) or one further along its probe run is left to the rest of the
 * call: MM_ENTER_RETRY, nothing changed, *how the hash with how_bits.
 * MM_HASH_RESUMED is that rest (have_h 1): no memo, and the lookup starts
 * past the home slot unless that is empty. The memo is consulted without
 * checking that t has keys: it names a key only while the key has its slot
 * (a rebuild clears it), and its empty value has comm -1, which no queued
 * key has. */
MM_INLINE int mm_hash_push_how(mm_ftable *t, mm_qstats *st, mm_elem *x, const mm_key *k,
                               uint32_t h, int have_h, const int mode, uint32_t *how,
                               uint32_t how_bits)
{
    uint32_t n = 1;
    mm_fslot *s;
    if (mode != MM_HASH_RESUMED && mm_ftable_memo_is(t, k)) { /* the last key pushed */
        s = mm_ftable_memo_slot(t);
    } else {
        if (!have_h)
            h = mm_ftable_hash(t, k);
        n = 0;
        if (mode == MM_HASH_FAST) {
            s = mm_ftable_home_slot(t, h);
            n = 1;
            if (!mm_ftable_home_has_t(t, s, k, h, 0)) { /* a new key, or a probe run */
                *how = h | how_bits;
                return MM_ENTER_RETRY;
            }
        } else if (mode == MM_HASH_RESUMED) { /* the home slot is not k's */
            s = mm_ftable_home_slot(t, h);
            if (s->tag == MM_FSLOT_EMPTY)
                s = NULL, n = 1;
            else
                s = mm_ftable_lookup_from_t(t, k, h, 1, &n, 0);
        } else
            s = t->count ? mm_ftable_lookup_t(t, k, h, &n, 0) : NULL;
        if (!s) {
            mm_link *l = mm_ftable_link_t(x, MM_HASH_LI);
            l->next = NULL;
            l->prev = l;
            uint32_t at = n ? mm_ftable_miss_slot(t, h, n) : MM_FTABLE_NO_SLOT;
            if (MM_UNLIKELY(mm_ftable_insert_at(t, k, x, h, at, &n) != 0))
                return MM_ENOMEM; /* a failed call leaves the statistics as they were */
            mm_stat_probes(st, n);
            mm_stat_queues(st, 1);
            return MM_QUEUED;
        }
        mm_ftable_remember(t, s, k);
    }
    mm_stat_probes(st, n);
    if (mm_ftable_append_t(t, s, x, MM_HASH_LI))
        mm_stat_queues(st, 1);
    return MM_QUEUED;
}

/* The same, the whole path (every caller but the entries' first try). */
MM_INLINE int mm_hash_push(mm_ftable *t, mm_qstats *st, mm_elem *x, const mm_key *k,
                           uint32_t h, int have_h)
{
    return mm_hash_push_how(t, st, x, k, h, have_h, MM_HASH_FULL, NULL, 0);
}

/* The match: take the head of live slot s of t (a search that inspected n
 * slots, statistics st) as *partner. A FIFO that empties lowers the side's
 * count of queues, which cannot raise its maximum. */
MM_INLINE int mm_hash_take(mm_ftable *t, mm_qstats *st, mm_fslot *s, uint32_t n,
                           mm_elem **partner)
{
    mm_stat_search(st, 1, 1);
    mm_stat_probes(st, n);
    int closed;
    *partner = mm_ftable_pop_t(t, s, &closed, MM_HASH_LI);
    if (closed)
        st->queues--;
    return MM_MATCHED;
}

/* The search that inspected n slots missed, and x's push answered rc. */
MM_INLINE int mm_hash_missed(mm_qstats *ost, uint32_t n, int rc)
{
    mm_stat_search(ost, 0, 0);
    if (rc == MM_QUEUED && n)
        mm_stat_probes(ost, n);
    return rc;
}

/* x searches `other` and, unmatched, joins `own`. A call that fails (out of
 * memory for own's table) has changed no statistic but the search count
 * and miss that mm_enter takes back: the search's probes are recorded only
 * once x is matched or queued, so the engine's entries need not save and
 * restore the others (MM_ENGINE_ENTER's may_fail 0). With MM_HASH_FAST
 * (the entries' first try, MM_ENGINE_ENTER_RESUME) the lookups read the
 * home slot only, and a call that needs more (a probe run, a new key to
 * insert) answers MM_ENTER_RETRY having changed nothing, with *how (the
 * MM_HASH_HOW_* word) for mm_hash_resume: the inlined path makes no call
 * and holds few registers (at half load most keys sit in their home slot;
 * the memo answers a run of one key without a lookup).
 *
 * The search: nothing when `other` has no live key (one side empty is the
 * common case: no slot inspected, no probe recorded); else the last key
 * pushed there (a run of one key: no hash), else a lookup. The slots
 * inspected are counted in a register and the statistics written once, at
 * the end. Both tables hash alike unless one re-seeded itself, so the hash
 * computed for the lookup serves the insertion too. */
MM_INLINE int mm_hash_search_or_queue(mm_ftable *other, mm_qstats *ost, mm_ftable *own,
                                      mm_qstats *st, mm_elem *x, mm_elem **partner,
                                      const int mode, uint32_t *how)
{
    const int fast = mode == MM_HASH_FAST;
    const mm_key *k = &x->key;
    uint32_t h = 0, n = 0;
    int hashed = 0;
    if (other->count != other->idle) {
        mm_fslot *s;
        if (mm_ftable_memo_is(other, k)) { /* the last key pushed: no hash */
            s = mm_ftable_memo_slot(other); /* never NULL */
            n = 1;
            if (!(s->tag & MM_FSLOT_IDLE))
                return mm_hash_take(other, ost, s, n, partner);
        } else {
            h = mm_ftable_hash(other, k), hashed = 1;
            if (fast) { /* the home slot: k's, or empty (k absent), else retry */
                s = mm_ftable_home_slot(other, h);
                n = 1;
                if (!mm_ftable_home_has_t(other, s, k, h, 0)) {
                    if (s->tag != MM_FSLOT_EMPTY) {
                        *how = h;
                        return MM_ENTER_RETRY;
                    }
                    s = NULL;
                }
            } else
                s = mm_ftable_lookup_t(other, k, h, &n, 0);
            if (s && !(s->tag & MM_FSLOT_IDLE))
                return mm_hash_take(other, ost, s, n, partner);
        }
    }
    /* fast: x is an entry's element, which may be queued (only
     * mm_enter_slow's search-only element may not, on the full path) */
    if (!fast && MM_UNLIKELY(!mm_may_queue(x))) {
        mm_stat_search(ost, 0, 0);
        mm_stat_probes(ost, n);
        return MM_ENOMEM;
    }
    int rc = mm_hash_push_how(own, st, x, k, h, hashed && mm_ftable_same_hash(own, other),
                              mode, how, MM_HASH_HOW_PUSH | (n ? MM_HASH_HOW_N1 : 0));
    if (fast && rc == MM_ENTER_RETRY)
        return rc;
    return mm_hash_missed(ost, n, rc);
}

/* The rest of a call whose first try (mm_hash_search_or_queue, fast)
 * answered MM_ENTER_RETRY with how: from where the try stopped, with the
 * hash it computed (x is an entry's element: it may be queued). */
MM_INLINE int mm_hash_resume(mm_ftable *other, mm_qstats *ost, mm_ftable *own, mm_qstats *st,
                             mm_elem *x, mm_elem **partner, uint32_t how)
{
    const mm_key *k = &x->key;
    uint32_t h = how & MM_HASH_HOW_HASH, n = 0;
    int rc;
    if (how & MM_HASH_HOW_PUSH) {
        n = (how & MM_HASH_HOW_N1) ? 1 : 0;
        rc = mm_hash_push_how(own, st, x, k, h, 1, MM_HASH_RESUMED, NULL, 0);
    } else { /* the search, past the home slot */
        mm_fslot *s = mm_ftable_lookup_from_t(other, k, h, 1, &n, 0);
        if (s && !(s->tag & MM_FSLOT_IDLE))
            return mm_hash_take(other, ost, s, n, partner);
        rc = mm_hash_push(own, st, x, k, h, mm_ftable_same_hash(own, other));
    }
    return mm_hash_missed(ost, n, rc);
}

MM_INLINE int mm_hash_post(mm_engine *e, mm_hash *H, mm_elem *r, mm_elem **partner)
{
    return mm_hash_search_or_queue(&H->umq, &e->st.umq, &H->prq, &e->st.prq, r, partner,
                                   MM_HASH_FULL, NULL);
}

MM_INLINE int mm_hash_arrive(mm_engine *e, mm_hash *H, mm_elem *m, mm_elem **partner)
{
    return mm_hash_search_or_queue(&H->prq, &e->st.prq, &H->umq, &e->st.umq, m, partner,
                                   MM_HASH_FULL, NULL);
}

/* mm_hash_post and mm_hash_arrive that leave a new key or a probe run to
 * the rest of the call (MM_ENTER_RETRY, nothing changed, *how for
 * mm_hash_post_resume / mm_hash_arrive_resume): the entries' inlined first
 * try. */
MM_INLINE int mm_hash_post_try(mm_engine *e, mm_hash *H, mm_elem *r, mm_elem **partner,
                               uint32_t *how)
{
    return mm_hash_search_or_queue(&H->umq, &e->st.umq, &H->prq, &e->st.prq, r, partner,
                                   MM_HASH_FAST, how);
}

MM_INLINE int mm_hash_arrive_try(mm_engine *e, mm_hash *H, mm_elem *m, mm_elem **partner,
                                 uint32_t *how)
{
    return mm_hash_search_or_queue(&H->prq, &e->st.prq, &H->umq, &e->st.umq, m, partner,
                                   MM_HASH_FAST, how);
}

/* The same answering MM_ENTER_RETRY without saying where (how discarded):
 * for a caller that runs the whole call again (auto's hash phase). */
MM_INLINE int mm_hash_post_fast(mm_engine *e, mm_hash *H, mm_elem *r, mm_elem **partner)
{
    uint32_t how;
    return mm_hash_post_try(e, H, r, partner, &how);
}

MM_INLINE int mm_hash_arrive_fast(mm_engine *e, mm_hash *H, mm_elem *m, mm_elem **partner)
{
    uint32_t how;
    return mm_hash_arrive_try(e, H, m, partner, &how);
}

MM_INLINE int mm_hash_post_resume(mm_engine *e, mm_hash *H, mm_elem *r, mm_elem **partner,
                                  uint32_t how)
{
    return mm_hash_resume(&H->umq, &e->st.umq, &H->prq, &e->st.prq, r, partner, how);
}

MM_INLINE int mm_hash_arrive_resume(mm_engine *e, mm_hash *H, mm_elem *m, mm_elem **partner,
                                    uint32_t how)
{
    return mm_hash_resume(&H->prq, &e->st.prq, &H->umq, &e->st.umq, m, partner, how);
}

static inline mm_elem *mm_hash_probe(mm_engine *e, mm_hash *H, const mm_key *k, int remove)
{
    return mm_hash_take_head(&H->umq, &e->st.umq, k, remove);
}

static inline void mm_hash_cancel(mm_engine *e, mm_hash *H, mm_elem *r)
{
    if (mm_ftable_remove(&H->prq, r, &r->key))
        mm_stat_queues(&e->st.prq, -1);
    mm_stat_probes(&e->st.prq, mm_ftable_take_steps(&H->prq));
}

/* Queue x (already known to have no partner) on its side, as a rebuild does:
 * MM_QUEUED or MM_ENOMEM. */
static inline int mm_hash_queue(mm_engine *e, mm_hash *H, mm_elem *x)
{
    int recv = (x->flags & MM_ELEM_RECV) != 0;
    return mm_hash_push(recv ? &H->prq : &H->umq, recv ? &e->st.prq : &e->st.umq, x, &x->key,
                        0, 0);
}

#endif
