/* hash_part.h - one hash table on (comm, source, tag) for both queue sides,
 * a FIFO per key: the `hash` engine's structure and search, shared with the
 * hash phase of `auto` (which enters it only when both MPI 4.0 assertions
 * hold).
 *
 * Paper 002, Algorithm 1: with no_any_source and no_any_tag every receive
 * names one key, so the earliest partner is always the head of one FIFO: a
 * lookup, no search. And a key never has receives and messages queued at
 * once (they would have matched), so one table serves both sides: a slot
 * per key whose live FIFO holds either the key's receives or its messages,
 * the side in the slot's tag (MM_FSLOT_SIDE, core/ftable.h). A post or an
 * arrival is one lookup of its key: a live FIFO of the other side gives the
 * partner (its head), else the element joins the key's FIFO (idle, or live
 * with its own side), or a new slot. The expected and unexpected paths are
 * one code with the side flipped (the tag-match model of UCX's developers'
 * guide). The FIFOs live in the slots: a match reads the slot and the
 * partner element, two cache lines. Link 0.
 *
 * Statistics: each call counts a search of the other side (a hit when it
 * matched), as with two tables; the slots its one lookup inspected count as
 * probes once, on the side whose FIFO it took from (a match) or joined (a
 * queued element; a lookup that ends at once, on the memo or the home slot,
 * leaves max_probes to mm_get_stats: mm_hash_probes). Memory: the table is
 * allocated from the engine's own account and charged half to each side
 * (mm_hash_charge), so that the two sides' bytes still add up to the
 * engine's. */
#ifndef MM_ENGINES_HASH_PART_H
#define MM_ENGINES_HASH_PART_H

#include "engine.h"
#include "core/ftable.h"
#include "enter.h"

typedef struct mm_hash {
    mm_ftable t;       /* both sides' keys                                */
    uint64_t  charged; /* t's bytes as charged to the sides (half each)   */
} mm_hash;

/* The table uses link 0 and no projection: the ftable templates are
 * instantiated with those constants (li 0, masked 0). A live FIFO's side:
 * receives (tag bit clear) or messages (MM_FSLOT_SIDE). */
enum { MM_HASH_LI = 0 };
#define MM_HASH_RECV 0u
#define MM_HASH_MSG  MM_FSLOT_SIDE
/* mm_hash_enter tells a used slot's three states by the tag's order: live
 * receives below MM_FSLOT_SIDE, live messages from it up to MM_FSLOT_LIVE
 * (not negative), idle with the idle bit (negative: IDLE | comm). Empty
 * slots (MM_FSLOT_EMPTY, between live and idle) never reach that test. */
_Static_assert(MM_HASH_RECV == 0 && MM_HASH_MSG == MM_FSLOT_SIDE &&
               MM_FSLOT_IDLE == 0x80000000u && MM_FSLOT_SIDE == 0x20000000u &&
               MM_FSLOT_LIVE == 0x40000000u && MM_FSLOT_EMPTY >= MM_FSLOT_LIVE &&
               MM_FSLOT_EMPTY < MM_FSLOT_IDLE,
               "hash's slot states are ordered by the tag");

/* Charge the table's bytes, half to each side's account (the engine's
 * account holds the block), after a call that may have rebuilt it. */
static inline void mm_hash_charge(mm_engine *e, mm_hash *H)
{
    uint64_t b = mm_ftable_bytes(&H->t), c = H->charged;
    if (b == c)
        return;
    mm_mem_uncharge(&e->prq_mem, c / 2);
    mm_mem_uncharge(&e->umq_mem, c - c / 2);
    mm_mem_charge(&e->prq_mem, b / 2);
    mm_mem_charge(&e->umq_mem, b - b / 2);
    H->charged = b;
}

/* mm_stat_probes for an operation that found its key's slot, having
 * inspected n >= 1 slots: max_probes is written only for n >= 2, so the
 * common call (the memo or the home slot: n is the constant 1 once this is
 * inlined) adds to probes and compares nothing. A side whose operations
 * all inspected one slot then holds max_probes 0 with probes > 0, which
 * mm_get_stats reads as 1 (api.c: any operation that counts a slot counts
 * at least one, so the most one inspected is at least 1): the statistic
 * the caller sees is the same. */
MM_INLINE void mm_hash_probes(mm_qstats *q, uint32_t n)
{
    q->probes += n;
    if (n > 1 && n > q->max_probes)
        q->max_probes = n;
}

/* An empty table of cap slots (both sides) hashing with seed: 0, or
 * MM_ENOMEM (nothing held). */
static inline int mm_hash_init(mm_engine *e, mm_hash *H, uint32_t cap, uint64_t seed)
{
    if (mm_ftable_init(&H->t, MM_HASH_LI, cap, seed, 0, &e->mem) != 0)
        return MM_ENOMEM;
    H->charged = 0;
    mm_hash_charge(e, H);
    return 0;
}

static inline void mm_hash_fini(mm_engine *e, mm_hash *H)
{
    mm_mem_uncharge(&e->prq_mem, H->charged / 2);
    mm_mem_uncharge(&e->umq_mem, H->charged - H->charged / 2);
    H->charged = 0;
    mm_ftable_destroy(&H->t);
}

/* Release the table and uncount its open FIFOs, each on its side (the
 * elements stay where they are, for another structure to take): a pass
 * over the slots, at a switch that moves every element anyway. */
static inline void mm_hash_drop(mm_engine *e, mm_hash *H)
{
    int64_t live[2] = {0, 0};
    for (uint32_t i = 0; i <= H->t.mask; i++) {
        uint32_t tag = H->t.slots[i].tag;
        if (mm_fslot_tag_live(tag))
            live[(tag & MM_FSLOT_SIDE) != 0]++;
    }
    mm_stat_queues(&e->st.prq, -live[0]);
    mm_stat_queues(&e->st.umq, -live[1]);
    mm_hash_fini(e, H);
}

/* A new key's slot for x (its FIFO alone), with hash h and side: after a
 * lookup that inspected n slots and ended on an empty one (n 0: none made,
 * the table being empty); the slots the insertion inspects besides are
 * added to *n. 0, or -1 when out of memory (nothing changed). */
static inline int mm_hash_insert(mm_engine *e, mm_hash *H, mm_elem *x, uint32_t h,
                                 uint32_t side, uint32_t *n)
{
    mm_ftable *t = &H->t;
    mm_link *l = mm_ftable_link_t(x, MM_HASH_LI);
    l->next = NULL;
    l->prev = l;
    uint32_t at = *n ? mm_ftable_miss_slot(t, h, *n) : MM_FTABLE_NO_SLOT;
    if (MM_UNLIKELY(mm_ftable_insert_at(t, &x->key, x, h | side, at, n) != 0))
        return -1;
    mm_hash_charge(e, H); /* (a growth or a re-seed rebuilds the table) */
    return 0;
}

/* Queue x (known to have no partner queued) on its side, as a switch into
 * the table does: the memo's key, else a lookup with hash h (if have_h) or
 * one computed now. Counts the slots inspected and an opened FIFO, no
 * search: MM_QUEUED, or MM_ENOMEM with no statistic changed. */
MM_INLINE int mm_hash_file(mm_engine *e, mm_hash *H, mm_elem *x, uint32_t h, int have_h)
{
    mm_ftable *t = &H->t;
    const int recv = (x->flags & MM_ELEM_RECV) != 0;
    mm_qstats *st = recv ? &e->st.prq : &e->st.umq;
    const uint32_t side = recv ? MM_HASH_RECV : MM_HASH_MSG;
    const mm_key *k = &x->key;
    uint32_t n = 1;
    mm_fslot *s;
    if (mm_ftable_memo_is(t, k)) {
        s = mm_ftable_memo_slot(t);
        h = mm_ftable_memo_hash(t);
    } else {
        if (!have_h)
            h = mm_ftable_hash(t, k);
        n = 0;
        s = t->count ? mm_ftable_lookup_t(t, k, h, &n, 0) : NULL;
        if (!s) {
            if (mm_hash_insert(e, H, x, h, side, &n) != 0)
                return MM_ENOMEM;
            mm_stat_probes(st, n);
            mm_stat_queues(st, 1);
            return MM_QUEUED;
        }
        mm_ftable_remember(t, s, k, h);
    }
    mm_stat_probes(st, n);
    if (mm_ftable_append_side_t(t, s, x, MM_HASH_LI, side, h))
        mm_stat_queues(st, 1);
    return MM_QUEUED;
}

static inline int mm_hash_queue(mm_engine *e, mm_hash *H, mm_elem *x)
{
    return mm_hash_file(e, H, x, 0, 0);
}

/* How mm_hash_enter runs: the whole path, the entries' first try (fast),
 * or the rest of a call after that try (resumed). */
enum { MM_HASH_FULL = 0, MM_HASH_FAST = 1, MM_HASH_RESUMED = 2 };

/* What a first try that answers MM_ENTER_RETRY hands to the rest of the
 * call: the key's hash (29 bits); the try stopped at the key's home slot,
 * which is empty (a new key) or holds another key (a probe run to walk). */
enum { MM_HASH_HOW_HASH = MM_FSLOT_HASH };

/* The match: take the head of live slot s (a lookup that inspected n
 * slots) as *partner, from the side searched (statistics ost). A FIFO that
 * empties lowers the side's count of queues, which cannot raise its
 * maximum. */
MM_INLINE int mm_hash_take(mm_ftable *t, mm_qstats *ost, mm_fslot *s, uint32_t n,
                           mm_elem **partner)
{
    mm_stat_search(ost, 1, 1);
    mm_hash_probes(ost, n);
    int closed;
    *partner = mm_ftable_pop_t(t, s, &closed, MM_HASH_LI);
    if (closed)
        ost->queues--;
    return MM_MATCHED;
}

/* x (a receive if is_recv) has no partner queued and joins the FIFO of its
 * key's slot s, live with x's side, or opens it (idle, when open; the key's
 * hash h): mm_hash_enter's end, after a lookup that inspected n slots
 * (looked: not the memo's, so remembered now). */
MM_INLINE int mm_hash_join(mm_engine *e, mm_hash *H, mm_elem *x, mm_fslot *s, uint32_t n,
                           uint32_t h, const int looked, const int mode, const int is_recv,
                           const int open)
{
    mm_ftable *t = &H->t;
    mm_qstats *st = is_recv ? &e->st.prq : &e->st.umq;
    mm_qstats *ost = is_recv ? &e->st.umq : &e->st.prq;
    if (looked)
        mm_ftable_remember(t, s, &x->key, h);
    mm_stat_search(ost, 0, 0);
    if (mode == MM_HASH_FULL && MM_UNLIKELY(!mm_may_queue(x))) {
        mm_stat_probes(ost, n);
        return MM_ENOMEM;
    }
    mm_hash_probes(st, n);
    if (open) {
        mm_ftable_open_t(t, s, x, MM_HASH_LI, is_recv ? MM_HASH_RECV : MM_HASH_MSG, h);
        mm_stat_queues(st, 1);
    } else {
        mm_ftable_join_t(s, x, MM_HASH_LI);
    }
    return MM_QUEUED;
}

/* x (a receive if is_recv, else a message) takes the head of its key's
 * live FIFO of the other side, or joins its key's FIFO. One lookup: the
 * memo (the last key queued: a run of one key, no hash), else the key's
 * slot. A call that fails (out of memory for a new slot, or a search-only
 * element with no partner) has changed no statistic but the search count
 * and miss that mm_enter takes back (MM_ENGINE_ENTER's may_fail 0).
 *
 * MM_HASH_FAST (the entries' inlined first try, MM_ENGINE_ENTER_RESUME):
 * only the memo and the key's home slot are read; a key elsewhere (a probe
 * run) or new (an insertion: out of line, it may rebuild the table)
 * answers MM_ENTER_RETRY having changed nothing, *how the hash, for the
 * rest of the call (MM_HASH_RESUMED, *how read): at half load most keys sit
 * in their home slot, and the inlined path makes no call and holds few
 * registers. x is then an entry's element, which may be queued. */
MM_INLINE int mm_hash_enter(mm_engine *e, mm_hash *H, mm_elem *x, mm_elem **partner,
                            const int is_recv, const int mode, uint32_t *how)
{
    mm_ftable *t = &H->t;
    mm_qstats *st = is_recv ? &e->st.prq : &e->st.umq;
    mm_qstats *ost = is_recv ? &e->st.umq : &e->st.prq;
    const uint32_t side = is_recv ? MM_HASH_RECV : MM_HASH_MSG;
    const mm_key *k = &x->key;
    mm_fslot *s;
    uint32_t n, h;
    int looked = 0;
    if (mode != MM_HASH_RESUMED && mm_ftable_memo_is(t, k)) { /* the last key queued */
        s = mm_ftable_memo_slot(t); /* never NULL */
        h = mm_ftable_memo_hash(t);
        n = 1;
    } else {
        if (mode == MM_HASH_RESUMED) { /* the home slot is not k's */
            h = *how & MM_HASH_HOW_HASH;
            s = mm_ftable_home_slot(t, h);
            n = 1;
            if (s->tag == MM_FSLOT_EMPTY)
                s = NULL;
            else
                n = 0, s = mm_ftable_lookup_from_t(t, k, h, 1, &n, 0);
        } else {
            h = mm_ftable_hash(t, k);
            if (mode == MM_HASH_FAST) { /* the home slot: k's, else retry */
                s = mm_ftable_home_slot(t, h);
                n = 1;
                if (!mm_ftable_home_has_t(t, s, k, h, 0)) {
                    *how = h;
                    return MM_ENTER_RETRY;
                }
            } else {
                n = 0;
                s = t->count ? mm_ftable_lookup_t(t, k, h, &n, 0) : NULL;
            }
        }
        if (!s) { /* a new key */
            mm_stat_search(ost, 0, 0);
            if (mode == MM_HASH_FULL && MM_UNLIKELY(!mm_may_queue(x))) {
                mm_stat_probes(ost, n);
                return MM_ENOMEM;
            }
            if (MM_UNLIKELY(mm_hash_insert(e, H, x, h, side, &n) != 0))
                return MM_ENOMEM; /* a failed call leaves the statistics as they were */
            mm_stat_probes(st, n);
            mm_stat_queues(st, 1);
            return MM_QUEUED;
        }
        looked = 1;
    }
    /* The tag's order says all: a live FIFO of receives (below
     * MM_FSLOT_SIDE), of messages (not negative), or idle (negative).
     * A live FIFO of the other side gives the partner (its head); else x
     * joins its key's live FIFO or opens the idle one. */
    const uint32_t tag = s->tag;
    if (tag < MM_FSLOT_SIDE) { /* live receives */
        if (!is_recv)
            return mm_hash_take(t, ost, s, n, partner);
        return mm_hash_join(e, H, x, s, n, h, looked, mode, is_recv, 0);
    }
    if ((int32_t)tag >= 0) { /* live messages */
        if (is_recv)
            return mm_hash_take(t, ost, s, n, partner);
        return mm_hash_join(e, H, x, s, n, h, looked, mode, is_recv, 0);
    }
    return mm_hash_join(e, H, x, s, n, h, looked, mode, is_recv, 1);
}

MM_INLINE int mm_hash_post(mm_engine *e, mm_hash *H, mm_elem *r, mm_elem **partner)
{
    return mm_hash_enter(e, H, r, partner, 1, MM_HASH_FULL, NULL);
}

MM_INLINE int mm_hash_arrive(mm_engine *e, mm_hash *H, mm_elem *m, mm_elem **partner)
{
    return mm_hash_enter(e, H, m, partner, 0, MM_HASH_FULL, NULL);
}

/* mm_hash_post and mm_hash_arrive that leave a new key or a probe run to
 * the rest of the call (MM_ENTER_RETRY, nothing changed, *how for
 * mm_hash_post_resume / mm_hash_arrive_resume): the entries' inlined first
 * try. */
MM_INLINE int mm_hash_post_try(mm_engine *e, mm_hash *H, mm_elem *r, mm_elem **partner,
                               uint32_t *how)
{
    return mm_hash_enter(e, H, r, partner, 1, MM_HASH_FAST, how);
}

MM_INLINE int mm_hash_arrive_try(mm_engine *e, mm_hash *H, mm_elem *m, mm_elem **partner,
                                 uint32_t *how)
{
    return mm_hash_enter(e, H, m, partner, 0, MM_HASH_FAST, how);
}

MM_INLINE int mm_hash_post_resume(mm_engine *e, mm_hash *H, mm_elem *r, mm_elem **partner,
                                  uint32_t how)
{
    return mm_hash_enter(e, H, r, partner, 1, MM_HASH_RESUMED, &how);
}

MM_INLINE int mm_hash_arrive_resume(mm_engine *e, mm_hash *H, mm_elem *m, mm_elem **partner,
                                    uint32_t how)
{
    return mm_hash_enter(e, H, m, partner, 0, MM_HASH_RESUMED, &how);
}

/* Take (or, without remove, peek at) the head of key k's queued messages:
 * MPI_Probe's search of the UMQ. */
static inline mm_elem *mm_hash_probe(mm_engine *e, mm_hash *H, const mm_key *k, int remove)
{
    mm_ftable *t = &H->t;
    mm_qstats *st = &e->st.umq;
    uint32_t n = 0;
    mm_fslot *s = NULL;
    if (t->count != t->idle) {
        s = mm_ftable_lookup_t(t, k, mm_ftable_hash(t, k), &n, 0);
        if (s && (s->tag & (MM_FSLOT_IDLE | MM_FSLOT_SIDE)) != MM_HASH_MSG)
            s = NULL;
    }
    mm_stat_search(st, s != NULL, s != NULL);
    mm_stat_probes(st, n);
    if (!s)
        return NULL;
    if (!remove)
        return mm_fslot_live_head(s);
    int closed;
    mm_elem *head = mm_ftable_pop_t(t, s, &closed, MM_HASH_LI);
    if (closed)
        mm_stat_queues(st, -1);
    return head;
}

/* Unlink queued receive r (its key's live FIFO is of receives). */
static inline void mm_hash_cancel(mm_engine *e, mm_hash *H, mm_elem *r)
{
    if (mm_ftable_remove(&H->t, r, &r->key))
        mm_stat_queues(&e->st.prq, -1);
    mm_stat_probes(&e->st.prq, mm_ftable_take_steps(&H->t));
}

#endif
