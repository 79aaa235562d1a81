/* enter.h - the matching path of mm_post and mm_arrive, as an inline
 * template an engine can instantiate with its own post and arrive.
 *
 * api.c runs every call through mm_enter with the engine's functions taken
 * from the handle (an indirect call). An engine that instantiates the
 * template (MM_ENGINE_ENTER below, and the entries set in its ops) gets the
 * same path compiled with its post and arrive called directly, which lets
 * the compiler inline the engine's search into the path: one function per
 * call instead of two, no registers saved twice, no status dispatch on the
 * way out (as UCX's tag matching inlines its search into the receive call).
 * api.c still does the argument checks and the rare cases (locks,
 * collective annotations, pool growth, the shard layer) before calling the
 * entry, so an engine's entries see only valid point-to-point calls. */
#ifndef MM_ENTER_H
#define MM_ENTER_H

#include <string.h>
#include "engine.h"
#include "core/compiler.h"

/* The element is its entry's key and kind word, 8 bytes in, then its cookie
 * (elem.h: comm_size, call and bytes are not kept), with the API's flags
 * over the entry's reserved word (which the API has checked is 0; slot
 * stays 0). mm_enter_fill_entry leaves seq alone (offset 0, where a free
 * object keeps its pool's list link).
 *
 * A caller builds its entry just before the call, a store per field or a
 * few (a compiler zeroes it with one vector store, then sets the fields).
 * A load that lies inside one earlier store gets its bytes forwarded from
 * it; a load that spans two stores waits until both have reached the cache
 * (x86: a store-forwarding stall). The key is read at once by every
 * search, so it is read field by field, no load wider than its field
 * (MM_OPAQUE keeps gcc from merging neighbours into one wider load again),
 * put together in registers and stored as two 8-byte words, inside which
 * the engines' own loads of the key lie (8 and 4 bytes, ftable.h). The
 * cookie is copied with one load of its own 8 bytes: no search waits for
 * it. Measured with the entry written field by field before each call
 * (mpimatch-replay --entries fresh, docs/replay.md): `hash` on shuffle
 * n=4096 1.6x faster than the 40-byte vector copy the element took when it
 * was the whole entry, `bins` and `nm` 1.3-1.6x, `list` on burst 1.09x;
 * with entries written long before (--entries array) every engine pays a
 * few instructions more. */
MM_INLINE void mm_enter_fill_entry(mm_elem *x, const mm_entry *d, uint8_t flags)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t comm = (uint32_t)d->comm, src = (uint32_t)d->src, tag = (uint32_t)d->tag;
    uint32_t kind = d->kind, op = d->coll_op;
    MM_OPAQUE(comm);
    MM_OPAQUE(tag);
    MM_OPAQUE(kind);
    uint64_t w0 = comm | (uint64_t)src << 32;
    uint64_t w1 = tag | (uint64_t)(kind | op << 8 | (uint32_t)flags << 16) << 32;
    memcpy(&x->key, &w0, 8);
    memcpy((char *)&x->key + 8, &w1, 8);
    x->cookie = d->cookie;
#else
    x->key.comm = d->comm, x->key.src = d->src, x->key.tag = d->tag;
    x->kind = d->kind, x->coll_op = d->coll_op, x->flags = flags, x->slot = 0;
    x->cookie = d->cookie;
#endif
}

MM_INLINE void mm_enter_fill(mm_elem *x, const mm_entry *d, uint64_t seq, uint8_t flags)
{
    mm_enter_fill_entry(x, d, flags);
    x->seq = seq;
}

static inline mm_pool *mm_enter_pool(mm_engine *e, int is_recv)
{
    return is_recv ? e->recv_pool : &e->msgs;
}

/* What an engine's entries may take for granted (MM_ENGINE_ENTER_LEAN):
 * MM_ENTER_ONE_POOL: receives and messages share one pool (ops.nlinks_recv
 *   0, so recv_pool is &msgs): no pointer is loaded to find a pool.
 * MM_ENTER_LATE_SEQ: the engine's post and arrive never read the new
 *   element's seq (they may queue it: queues read the seq of the elements
 *   they hold only): the element is numbered only once queued, and a call
 *   that matches takes no number.
 * MM_ENTER_OWN_RECVS: receives have a pool of their own (ops.nlinks_recv
 *   below nlinks, so recv_pool is &recvs): no pointer is loaded either. */
enum { MM_ENTER_ONE_POOL = 1u << 0, MM_ENTER_LATE_SEQ = 1u << 1, MM_ENTER_OWN_RECVS = 1u << 2 };

MM_INLINE mm_pool *mm_enter_pool_of(mm_engine *e, int is_recv, unsigned lean)
{
    if (lean & MM_ENTER_OWN_RECVS)
        return is_recv ? &e->recvs : &e->msgs;
    return (lean & MM_ENTER_ONE_POOL) ? &e->msgs : mm_enter_pool(e, is_recv);
}

/* Return x to its pool p (mm_enter_pool of its side). */
static inline void mm_enter_release(mm_pool *p, mm_elem *x)
{
    x->flags = 0;
    mm_pool_put(p, x);
}

/* An element joins or leaves side q. Its bytes are counted in the side's
 * account m from q->length (mem.h): one compare keeps max_length and the
 * peak bytes. */
static inline void mm_enter_side_add(mm_qstats *q, mm_mem *m)
{
    if (MM_UNLIKELY(++q->length > m->mark))
        mm_mem_count_grew(m);
}

static inline void mm_enter_side_del(mm_qstats *q)
{
    q->length--;
}

/* The searched side's counters that a failed call gives back (besides its
 * search and miss counts): saved before the engine's call, restored after
 * its failure. An engine whose entries promise may_fail 0 but whose rarer
 * paths may still fail (auto's keyed structures) saves and restores them
 * itself on those paths only. The saving costs a store-forwarding stall on
 * counters the previous call has just written, which is why `list`'s path
 * does without it. */
static inline void mm_enter_undo_save(mm_engine *e, const mm_qstats *theirs)
{
    e->undo_traversed = theirs->traversed;
    e->undo_max_depth = theirs->max_depth;
    e->undo_probes = theirs->probes;
    e->undo_max_probes = theirs->max_probes;
}

static inline void mm_enter_undo_restore(const mm_engine *e, mm_qstats *theirs)
{
    theirs->traversed = e->undo_traversed;
    theirs->max_depth = e->undo_max_depth;
    theirs->probes = e->undo_probes;
    theirs->max_probes = e->undo_max_probes;
}

typedef int (*mm_engine_fn)(mm_engine *e, mm_elem *x, mm_elem **partner);

/* The pool is empty: grow it and go on, or search with an element the
 * engine may not queue (api.c). mode is is_recv | xflags << 8: six
 * arguments, so that the entries reach it with a jump (no stack argument,
 * no frame kept for the call). */
int mm_enter_slow(mm_engine *e, const mm_entry *x, unsigned mode, mm_handle *h,
                  uintptr_t *partner, uint8_t *pflags);

/* Post (is_recv) or arrive: search the other side, take the earliest
 * partner or queue self.
 *
 * self is the head of its pool's free list, filled before the engine sees
 * it (engines take nothing from these pools, and put nothing back during a
 * call); it leaves the list only if queued. A call that matches or fails
 * leaves self where it was, its list link (offset 0) written back over the
 * sequence number the fill put there (or, with MM_ENTER_LATE_SEQ, never
 * overwritten: the number is written once self is queued). A failed call
 * leaves no trace: the engine fails only where it would queue self, after
 * its one search (a miss), so the sequence number and that search's count
 * are taken back, traversed, max_depth and the probe counts from the values
 * saved in e->undo_*. may_fail 0 promises that the engine fails only for an
 * element it may not queue (mm_may_queue), which this path never hands it
 * (mm_enter_slow's search-only call restores every statistic itself), or
 * that a failure leaves traversed, max_depth and the probe counts as they
 * were (counting the search's searches and misses only, which are taken back
 * here: simd.c, hash_part.h): then nothing is saved. lean: MM_ENTER_* above.
 *
 * xflags: MM_ELEM_* bits the new element carries besides the API's (0 on
 * the public path); pflags, if not NULL, receives a matched partner's flags
 * (the shard layer's internal calls, shard.c). */
/* A status that only an engine's try function returns
 * (MM_ENGINE_ENTER_RESUME): it cannot finish the call inline and has
 * changed nothing but filling the new element. */
enum { MM_ENTER_RETRY = 3 };

/* The end of a call, once the engine's post (is_recv) or arrive has
 * answered rc for self, the head of pool mp's free list (next: the list's
 * link that the fill overwrote, without MM_ENTER_LATE_SEQ), with partner
 * *partner_of when rc is MM_MATCHED: release the partner, or take self off the
 * list and number it, or take a failed call back (mm_enter_lean). */
MM_INLINE int mm_enter_finish(mm_engine *e, mm_pool *mp, mm_elem *self, void *next, int rc,
                              mm_elem *const *partner_of, const int is_recv, mm_handle *h,
                              uintptr_t *partner, uint8_t *const pflags, const int may_fail,
                              const unsigned lean)
{
    const int late = (lean & MM_ENTER_LATE_SEQ) != 0;
    mm_qstats *theirs = is_recv ? &e->st.umq : &e->st.prq;
    if (rc == MM_MATCHED) {
        mm_elem *other = *partner_of;
        uintptr_t cookie = other->cookie;
        if (pflags)
            *pflags = other->flags;
        if (!late)
            *(void **)self = next; /* never queued: no flags to clear */
        mm_enter_release(mm_enter_pool_of(e, !is_recv, lean), other);
        mm_enter_side_del(theirs);
        if (h)
            *h = (mm_handle){NULL, 0};
        if (partner)
            *partner = cookie;
        return rc;
    }
    if (MM_LIKELY(rc == MM_QUEUED)) {
        if (late) {
            mp->free = *(void **)self;
            self->seq = ++e->seq;
        } else {
            mp->free = next;
        }
        self->flags |= MM_ELEM_QUEUED;
        mm_enter_side_add(is_recv ? &e->st.prq : &e->st.umq, is_recv ? &e->prq_mem : &e->umq_mem);
        if (h)
            *h = (mm_handle){self, self->seq};
        return rc;
    }
    self->flags = 0;
    if (!late) {
        *(void **)self = next;
        e->seq--;
    }
    theirs->searches--;
    theirs->misses--;
    if (may_fail)
        mm_enter_undo_restore(e, theirs);
    return rc;
}

MM_INLINE int mm_enter_lean(mm_engine *e, const mm_entry *x, const int is_recv, mm_handle *h,
                            uintptr_t *partner, const uint8_t xflags, uint8_t *const pflags,
                            const mm_engine_fn post, const mm_engine_fn arrive,
                            const int may_fail, const unsigned lean)
{
    const int late = (lean & MM_ENTER_LATE_SEQ) != 0;
    mm_pool *mp = mm_enter_pool_of(e, is_recv, lean);
    mm_elem *self = mp->free;
    if (MM_UNLIKELY(!self))
        return mm_enter_slow(e, x, (unsigned)is_recv | (unsigned)xflags << 8, h, partner, pflags);
    void *next = late ? NULL : *(void **)self;
    if (may_fail)
        mm_enter_undo_save(e, is_recv ? &e->st.umq : &e->st.prq);
    const uint8_t flags = (uint8_t)((is_recv ? MM_ELEM_RECV : 0) | xflags);
    if (late)
        mm_enter_fill_entry(self, x, flags);
    else
        mm_enter_fill(self, x, ++e->seq, flags);
    mm_elem *other;
    int rc = is_recv ? post(e, self, &other) : arrive(e, self, &other);
    return mm_enter_finish(e, mp, self, next, rc, &other, is_recv, h, partner, pflags, may_fail,
                           lean);
}

MM_INLINE int mm_enter(mm_engine *e, const mm_entry *x, const int is_recv, mm_handle *h,
                       uintptr_t *partner, const uint8_t xflags, uint8_t *const pflags,
                       const mm_engine_fn post, const mm_engine_fn arrive, const int may_fail)
{
    return mm_enter_lean(e, x, is_recv, h, partner, xflags, pflags, post, arrive, may_fail, 0);
}

/* Defines NAME_enter_post and NAME_enter_arrive, the matching path with
 * POST and ARRIVE (the engine's mm_engine_ops functions) called directly,
 * for the ops' enter_post and enter_arrive. MAY_FAIL as for mm_enter (1
 * unless the engine's post and arrive fail only for !mm_may_queue, or
 * change no statistic but searches and misses when they fail). The
 * entries are flattened: everything they call in this file is inlined. */
#if defined(__GNUC__) || defined(__clang__)
#define MM_ENTER_FLATTEN __attribute__((flatten))
#else
#define MM_ENTER_FLATTEN
#endif
#define MM_ENGINE_ENTER_LEAN(NAME, POST, ARRIVE, MAY_FAIL, LEAN)                         \
    static MM_ENTER_FLATTEN int NAME##_enter_post(mm_engine *e, const mm_entry *x,        \
                                                  mm_handle *h, uintptr_t *partner)       \
    {                                                                                      \
        return mm_enter_lean(e, x, 1, h, partner, 0, NULL, POST, ARRIVE, MAY_FAIL, LEAN); \
    }                                                                                      \
    static MM_ENTER_FLATTEN int NAME##_enter_arrive(mm_engine *e, const mm_entry *x,      \
                                                    uintptr_t *partner)                   \
    {                                                                                      \
        return mm_enter_lean(e, x, 0, NULL, partner, 0, NULL, POST, ARRIVE, MAY_FAIL,     \
                             LEAN);                                                        \
    }
/* MM_ENGINE_ENTER_LEAN: the same with LEAN, the MM_ENTER_* promises the
 * engine makes (0: none). */
#define MM_ENGINE_ENTER(NAME, POST, ARRIVE, MAY_FAIL)                                      \
    MM_ENGINE_ENTER_LEAN(NAME, POST, ARRIVE, MAY_FAIL, 0)

/* The whole path with POST and ARRIVE, compiled out of line
 * (NAME_enter_post_full, NAME_enter_arrive_full): where the entries below
 * jump when the pool is empty or their first try cannot finish. */
#define MM_ENGINE_ENTER_FULL(NAME, POST, ARRIVE, MAY_FAIL, LEAN)                            \
    static MM_NOINLINE MM_ENTER_FLATTEN int NAME##_enter_post_full(                       \
        mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner)                \
    {                                                                                      \
        return mm_enter_lean(e, x, 1, h, partner, 0, NULL, POST, ARRIVE, MAY_FAIL, LEAN); \
    }                                                                                      \
    static MM_NOINLINE MM_ENTER_FLATTEN int NAME##_enter_arrive_full(                     \
        mm_engine *e, const mm_entry *x, uintptr_t *partner)                              \
    {                                                                                      \
        return mm_enter_lean(e, x, 0, NULL, partner, 0, NULL, POST, ARRIVE, MAY_FAIL,     \
                             LEAN);                                                        \
    }

/* MM_ENGINE_ENTER_LEAN with a fast path that resumes: the entries first
 * fill the new element and run the engine's try functions inline
 * (TPOST, TARRIVE: mm_engine_try_fn) answer MM_ENTER_RETRY with a word
 * *how saying what they computed and where they stopped (hash_part.h: the
 * key's hash and the step), having changed nothing but filling self; the
 * entry then jumps to RPOST / RARRIVE (mm_engine_resume_fn), compiled out
 * of line with the end of the call, with self (filled, still the head of
 * its pool's free list) and that word: no second fill, hash or look at what
 * the try has seen. POST and ARRIVE are the whole path, for an empty pool.
 * Needs MM_ENTER_LATE_SEQ (self is unnumbered until queued, so it can be
 * handed over as it is). */
typedef int (*mm_engine_try_fn)(mm_engine *e, mm_elem *x, mm_elem **partner, uint32_t *how);
typedef int (*mm_engine_resume_fn)(mm_engine *e, mm_elem *x, mm_elem **partner, uint32_t how);

/* The first try: fill self (the head of its pool's free list) from x and
 * run the engine's try function on it (*other, *how: its answers). */
MM_INLINE int mm_enter_try(mm_engine *e, mm_elem *self, const mm_entry *x, const int is_recv,
                           const mm_engine_try_fn tpost, const mm_engine_try_fn tarrive,
                           const int may_fail, mm_elem **other, uint32_t *how)
{
    if (may_fail)
        mm_enter_undo_save(e, is_recv ? &e->st.umq : &e->st.prq);
    const uint8_t flags = is_recv ? MM_ELEM_RECV : 0;
    mm_enter_fill_entry(self, x, flags);
    return is_recv ? tpost(e, self, other, how) : tarrive(e, self, other, how);
}

/* The rest of a call whose try answered MM_ENTER_RETRY with how. */
MM_INLINE int mm_enter_resume(mm_engine *e, mm_elem *self, const int is_recv, mm_handle *h,
                              uintptr_t *partner, uint32_t how, const mm_engine_resume_fn rpost,
                              const mm_engine_resume_fn rarrive, const int may_fail,
                              const unsigned lean)
{
    if (may_fail)
        mm_enter_undo_save(e, is_recv ? &e->st.umq : &e->st.prq);
    mm_elem *other;
    int rc = is_recv ? rpost(e, self, &other, how) : rarrive(e, self, &other, how);
    return mm_enter_finish(e, mm_enter_pool_of(e, is_recv, lean), self, NULL, rc, &other, is_recv,
                           h, partner, NULL, may_fail, lean);
}

#define MM_ENGINE_ENTER_RESUME(NAME, TPOST, TARRIVE, RPOST, RARRIVE, POST, ARRIVE, MAY_FAIL,  \
                               LEAN)                                                         \
    _Static_assert(((LEAN) & MM_ENTER_LATE_SEQ) != 0,                                        \
                   "MM_ENGINE_ENTER_RESUME hands over an unnumbered element");              \
    MM_ENGINE_ENTER_FULL(NAME, POST, ARRIVE, MAY_FAIL, LEAN)                                 \
    static MM_NOINLINE MM_ENTER_FLATTEN int NAME##_enter_post_resume(                       \
        mm_engine *e, mm_elem *self, mm_handle *h, uintptr_t *partner, uint32_t how)        \
    {                                                                                        \
        return mm_enter_resume(e, self, 1, h, partner, how, RPOST, RARRIVE, MAY_FAIL, LEAN); \
    }                                                                                        \
    static MM_NOINLINE MM_ENTER_FLATTEN int NAME##_enter_arrive_resume(                     \
        mm_engine *e, mm_elem *self, uintptr_t *partner, uint32_t how)                      \
    {                                                                                        \
        return mm_enter_resume(e, self, 0, NULL, partner, how, RPOST, RARRIVE, MAY_FAIL,    \
                               LEAN);                                                        \
    }                                                                                        \
    static MM_ENTER_FLATTEN int NAME##_enter_post(mm_engine *e, const mm_entry *x,          \
                                                  mm_handle *h, uintptr_t *partner)         \
    {                                                                                        \
        mm_pool *mp = mm_enter_pool_of(e, 1, LEAN);                                          \
        mm_elem *self = mp->free, *other;                                                    \
        if (MM_UNLIKELY(!self))                                                              \
            return NAME##_enter_post_full(e, x, h, partner);                                 \
        uint32_t how;                                                                        \
        int rc = mm_enter_try(e, self, x, 1, TPOST, TARRIVE, MAY_FAIL, &other, &how);        \
        if (MM_UNLIKELY(rc == MM_ENTER_RETRY))                                               \
            return NAME##_enter_post_resume(e, self, h, partner, how);                       \
        return mm_enter_finish(e, mp, self, NULL, rc, &other, 1, h, partner, NULL, MAY_FAIL, \
                               LEAN);                                                        \
    }                                                                                        \
    static MM_ENTER_FLATTEN int NAME##_enter_arrive(mm_engine *e, const mm_entry *x,        \
                                                    uintptr_t *partner)                     \
    {                                                                                        \
        mm_pool *mp = mm_enter_pool_of(e, 0, LEAN);                                          \
        mm_elem *self = mp->free, *other;                                                    \
        if (MM_UNLIKELY(!self))                                                              \
            return NAME##_enter_arrive_full(e, x, partner);                                  \
        uint32_t how;                                                                        \
        int rc = mm_enter_try(e, self, x, 0, TPOST, TARRIVE, MAY_FAIL, &other, &how);        \
        if (MM_UNLIKELY(rc == MM_ENTER_RETRY))                                               \
            return NAME##_enter_arrive_resume(e, self, partner, how);                        \
        return mm_enter_finish(e, mp, self, NULL, rc, &other, 0, NULL, partner, NULL,        \
                               MAY_FAIL, LEAN);                                              \
    }

#endif
