/* simd.c - one PRQ and one UMQ as packed key arrays, searched with vector
 * compares (the approach of Open MPI's custom matching, ompi/mca/pml/ob1/
 * custommatch, and of Dosanjh et al.'s AVX-512 matching).
 *
 * Each side is a queue of slots in posting / arrival order:
 *
 *     comm[]  c0 c1 -1 c3 ...     12 bytes of key per slot (simd_scan.h),
 *     src[]   s0 s1  . s3 ...     scanned 8 (AVX2) or 16 (AVX-512) at a time
 *     tag[]   t0 t1  . t3 ...
 *     elem[]  e0 e1  0 e3 ...     the element of each slot
 *             ^head    ^hole      ^end              ^cap
 *
 * Slot order is sequence order, so the first slot that matches holds the
 * earliest partner: a search is one forward scan, like `list`, with many
 * keys per instruction. The scanner's hit is verified against the element
 * with mm_match before it is used.
 *
 * An append writes the slot's element only; the next scan writes the keys
 * of the slots appended since the last one (q_keys), so traffic whose
 * partner is always the head (a burst) never writes a key.
 *
 * Removing from the middle leaves a hole (no element, and comm = -1, which
 * no search matches); taking the head only moves the head. Holes at either
 * end are trimmed at once, and when holes outnumber live slots the queue is
 * compacted in place, keeping order. Appending to a full side compacts it
 * if that frees half of it, else grows it: the first arrays double (one at a
 * time) up to SEG_FROM slots; from there a growth adds a segment of a
 * quarter of the side's slots (its four arrays in one block) after the
 * last, and copies nothing. So a side of n slots beyond SEG_FROM holds at
 * most about 1.25 n slots and never a copy of them (doubling at 4097 queued
 * elements would hold 8192 slots, and 4096 + 8192 of some arrays while it
 * copies). Slot numbers run on across the segments; a scan scans each
 * segment in turn (after the first arrays, with the code a side without
 * segments runs). When a side with segments is empty again, its next
 * append replaces them and the first arrays with first arrays of the
 * whole length (q_merge: nothing to copy). Compaction and growth are
 * amortised O(1) per operation.
 * An element remembers its slot (in its link area: this engine threads no
 * lists) so a cancel or a match finds it in O(1) and compaction updates
 * it. */
#include <string.h>
#include "engine.h"
#include "enter.h"
#include "engines/simd_scan.h"

enum { P_ISA };
static const mm_param_info simd_params[] = {
    [P_ISA] = {"isa", "instruction set of the key scan: 0 the widest the CPU has, 1 plain C, "
               "2 AVX2, 3 AVX-512F (creation fails if the CPU lacks it)", 0, 0, 3},
};

/* SEG_FROM: the first arrays double up to this many slots (80 KB a side);
 * beyond, a growth adds a segment of a quarter of the side's slots. */
enum { INITIAL_CAP = 4 * MM_SIMD_BLOCK, MIN_HOLES_TO_COMPACT = 32, SEG_FROM = 4096 };

/* Arrays holding slots [base, base + cap): slot i is elem[i - base], and so
 * on. The first arrays (simd_q.s0) and the segments after them, whose four
 * arrays are carved from one block (elem first, then comm, src, tag). */
typedef struct simd_seg {
    mm_elem **elem;
    int32_t  *comm, *src, *tag;
    uint32_t  base, cap;         /* multiples of MM_SIMD_BLOCK */
} simd_seg;

typedef struct simd_q {
    simd_seg  s0;                /* the first arrays, base 0, each its own
                                  * allocation; comm == -1: no element       */
    uint32_t  head, end;         /* live slots are in [head, end)             */
    uint32_t  kend;              /* the keys of [head, kend) are written      */
    uint32_t  holes;             /* empty slots inside [head, end)            */
    uint32_t  cap;               /* slots in all: s0.cap and the segments'    */
    uint32_t  grown;             /* arrays (q_array order) already of 2 * s0.cap */
    uint32_t  nseg, seg_cap;     /* segments after the first arrays, in slot
                                  * order, and room in seg[]                  */
    uint32_t  room;              /* s0.cap without segments, else 0: the
                                  * append entry's bound (q_merge)            */
    simd_seg *seg;
    mm_mem   *mem;               /* the side's byte account                   */
} simd_q;

typedef struct simd_impl {
    simd_q             prq, umq;
    mm_simd_scan_fn    scan;
    mm_simd_tagscan_fn tagscan;
    int                isa;
    int                no_any_tag; /* MM_HINT_NO_ANY_TAG: no queued receive has ANY_TAG */
} simd_impl;


static inline void set_slot(mm_elem *x, uint32_t i)
{
    memcpy(&x->link[0], &i, sizeof i);
}

static inline uint32_t slot_of(const mm_elem *x)
{
    uint32_t i;
    memcpy(&i, &x->link[0], sizeof i);
    return i;
}

/* The segment holding slot i, s0.cap <= i < cap. Inline, no call (few
 * segments, a linear search): the entries' head-taking path (q_take_head)
 * walks holes with it and must keep needing no stack frame. */
static inline simd_seg *q_seg_past(const simd_q *q, uint32_t i)
{
    simd_seg *g = q->seg;
    while (i - g->base >= g->cap)
        g++;
    return g;
}

/* The arrays holding slot i < cap. */
static inline simd_seg *q_seg_at(simd_q *q, uint32_t i)
{
    return MM_LIKELY(i < q->s0.cap) ? &q->s0 : q_seg_past(q, i);
}

/* The element pointer of slot i < cap. */
static inline mm_elem **q_slot(simd_q *q, uint32_t i)
{
    if (MM_LIKELY(i < q->s0.cap))
        return &q->s0.elem[i];
    simd_seg *g = q_seg_past(q, i);
    return &g->elem[i - g->base];
}

/* The four arrays, each allocated on its own (so that growth holds the old
 * arrays and one new one at a time: q_grow), in growth order: array a of
 * q, and the bytes of one of its slots. */
enum { NARRAYS = 4, SEG_ITEM = sizeof(mm_elem *) + MM_SIMD_KEY_WORDS * sizeof(int32_t) };

static void **q_array(simd_q *q, int a, size_t *item)
{
    *item = a == 0 ? sizeof(mm_elem *) : sizeof(int32_t);
    return a == 0 ? (void **)&q->s0.elem : a == 1 ? (void **)&q->s0.comm
         : a == 2 ? (void **)&q->s0.src : (void **)&q->s0.tag;
}

/* Empty first arrays of cap slots (the keys of no slot are written), for a
 * side that has none (no segment either). When an allocation fails, the
 * side is left with none: 0 slots, which the next append tries to make
 * room for again (q_make_room). */
static int q_alloc(simd_q *q, uint32_t cap)
{
    q->grown = 0;
    for (int a = 0; a < NARRAYS; a++) {
        size_t item;
        void **p = q_array(q, a, &item);
        *p = mm_mem_calloc(q->mem, cap, item);
        if (!*p) {
            while (a-- > 0) {
                p = q_array(q, a, &item);
                mm_mem_free(q->mem, *p, cap * item);
                *p = NULL;
            }
            q->cap = q->s0.cap = q->room = 0;
            return MM_ENOMEM;
        }
    }
    q->cap = q->s0.cap = q->room = cap;
    return 0;
}

/* Free the segments (they hold no live slot) and their table. */
static void q_free_segs(simd_q *q)
{
    for (uint32_t g = 0; g < q->nseg; g++)
        mm_mem_free(q->mem, q->seg[g].elem, (size_t)q->seg[g].cap * SEG_ITEM);
    if (q->seg)
        mm_mem_free(q->mem, q->seg, q->seg_cap * sizeof *q->seg);
    q->seg = NULL;
    q->nseg = q->seg_cap = 0;
    q->cap = q->room = q->s0.cap;
}

static void q_free(simd_q *q)
{
    for (int a = 0; a < NARRAYS; a++) {
        size_t item;
        void **p = q_array(q, a, &item);
        if (*p)
            mm_mem_free(q->mem, *p, (size_t)(a < (int)q->grown ? 2 : 1) * q->s0.cap * item);
    }
    q_free_segs(q);
}

/* Double every first array (the side has no segment yet), keeping each
 * slot where it is: one array at a time is
 * allocated, copied and freed, so the side holds its arrays and one new
 * array at the most (16 bytes a slot less than a new set of all four). When
 * an allocation fails, the arrays already doubled stay so (q->grown) and the
 * next call goes on from there. */
static int q_grow(simd_q *q)
{
    for (int a = (int)q->grown; a < NARRAYS; a++) {
        size_t item;
        void **p = q_array(q, a, &item);
        char *b = mm_mem_calloc(q->mem, 2 * (size_t)q->s0.cap, item);
        if (!b)
            return MM_ENOMEM;
        memcpy(b + q->head * item, (char *)*p + q->head * item, (size_t)(q->end - q->head) * item);
        mm_mem_free(q->mem, *p, q->s0.cap * item);
        *p = b;
        q->grown = (uint32_t)a + 1;
    }
    q->s0.cap *= 2;
    q->cap = q->room = q->s0.cap;
    q->grown = 0;
    return 0;
}

/* Add a segment of a quarter of the side's slots (rounded up to a block)
 * after the last: nothing is copied, and the side holds no second copy of
 * anything. seg[] itself doubles (a few dozen bytes). */
static int q_add_seg(simd_q *q)
{
    uint32_t n = (q->cap / 4 + MM_SIMD_BLOCK - 1) / MM_SIMD_BLOCK * MM_SIMD_BLOCK;
    if (q->nseg == q->seg_cap) {
        uint32_t c = q->seg_cap ? 2 * q->seg_cap : 4;
        simd_seg *t = mm_mem_calloc(q->mem, c, sizeof *t);
        if (!t)
            return MM_ENOMEM;
        if (q->seg) {
            memcpy(t, q->seg, q->nseg * sizeof *t);
            mm_mem_free(q->mem, q->seg, q->seg_cap * sizeof *t);
        }
        q->seg = t, q->seg_cap = c;
    }
    char *b = mm_mem_calloc(q->mem, n, SEG_ITEM);
    if (!b)
        return MM_ENOMEM;
    simd_seg *g = &q->seg[q->nseg++];
    g->elem = (mm_elem **)(void *)b;
    g->comm = (int32_t *)(void *)(b + (size_t)n * sizeof(mm_elem *));
    g->src = g->comm + n;
    g->tag = g->src + n;
    g->base = q->cap;
    g->cap = n;
    q->cap += n;
    q->room = 0;
    return 0;
}

/* The side is empty and has segments: free them and the first arrays,
 * and allocate first arrays as long as the side was (cap slots), so that
 * when it fills again it scans one run of arrays, and the head-hit and
 * append entries (which handle the first arrays only) serve it. Nothing is
 * copied (the side is empty), and everything is freed before the new
 * arrays are allocated, so the side never holds more than before. When
 * that fails, it takes INITIAL_CAP slots, or, failing that too, none
 * (q_alloc). Called by the first append after the side emptied. */
static MM_COLD void q_merge(simd_q *q)
{
    uint32_t cap = q->cap;
    q_free_segs(q);
    for (int a = 0; a < NARRAYS; a++) { /* no growth is under way: grown == 0 */
        size_t item;
        void **p = q_array(q, a, &item);
        mm_mem_free(q->mem, *p, q->s0.cap * item);
        *p = NULL;
    }
    if (q_alloc(q, cap) != 0)
        (void)q_alloc(q, INITIAL_CAP);
}

/* Write the keys of the slots appended since the last scan, [kend, end),
 * from their elements (a hole, whose element is gone, gets comm -1). An
 * append writes only the element's slot, so traffic that never scans (a
 * burst matches at the head) never writes a key; a scan writes each slot's
 * key once. */
static MM_NOINLINE void q_keys(simd_q *q)
{
    uint32_t i = q->kend > q->head ? q->kend : q->head;
    while (i < q->end) {
        simd_seg *g = q_seg_at(q, i);
        uint32_t to = (q->end - g->base < g->cap ? q->end - g->base : g->cap);
        for (uint32_t j = i - g->base; j < to; j++) {
            const mm_elem *x = g->elem[j];
            if (x) {
                g->comm[j] = x->key.comm;
                g->src[j] = x->key.src;
                g->tag[j] = x->key.tag;
            } else {
                g->comm[j] = -1;
            }
        }
        i = to + g->base;
    }
    q->kend = q->end;
}

/* q_compact's slots from i on, i >= s0.cap (in segments), n of them kept
 * so far: they may move from one segment to another. The number kept. */
static MM_NOINLINE uint32_t q_compact_segs(simd_q *q, uint32_t i, uint32_t n)
{
    simd_seg *r = &q->s0, *w = &q->s0; /* the arrays read (slot i), written (slot n) */
    for (; i < q->end; i++) {
        if (i - r->base >= r->cap)
            r = q_seg_at(q, i);
        uint32_t a = i - r->base;
        mm_elem *x = r->elem[a];
        if (!x)
            continue;
        if (n - w->base >= w->cap)
            w = q_seg_at(q, n);
        uint32_t b = n - w->base;
        w->comm[b] = r->comm[a];
        w->src[b] = r->src[a];
        w->tag[b] = r->tag[a];
        w->elem[b] = x;
        set_slot(x, n);
        n++;
    }
    return n;
}

/* Move the live slots of q, in order, to the front (slots only move down),
 * keys written. */
static void q_compact(simd_q *q)
{
    q_keys(q);
    uint32_t n = 0, i = q->head, stop = q->end < q->s0.cap ? q->end : q->s0.cap;
    for (; i < stop; i++) { /* the first arrays */
        if (!q->s0.elem[i])
            continue;
        q->s0.comm[n] = q->s0.comm[i];
        q->s0.src[n] = q->s0.src[i];
        q->s0.tag[n] = q->s0.tag[i];
        q->s0.elem[n] = q->s0.elem[i];
        set_slot(q->s0.elem[n], n);
        n++;
    }
    if (MM_UNLIKELY(i < q->end)) /* slots in segments */
        n = q_compact_segs(q, i, n);
    q->head = 0;
    q->end = q->kend = n;
    q->holes = 0;
}

/* Room for one more slot at the end: compact, or grow (double the first
 * arrays, or add a segment). Timed as allocation overhead. */
static MM_COLD int q_make_room(mm_engine *e, simd_q *q)
{
    uint64_t t0 = mm_now_ns();
    uint32_t live = q->end - q->head - q->holes;
    int rc = 0;
    if (MM_UNLIKELY(q->s0.cap == 0)) /* a failed q_merge left no arrays */
        rc = q_alloc(q, INITIAL_CAP);
    else if ((uint64_t)live * 2 <= q->cap)
        q_compact(q);
    else if (q->cap > UINT32_MAX / 2 - MM_SIMD_BLOCK)
        rc = MM_ENOMEM;
    else if (q->nseg == 0 && q->s0.cap < SEG_FROM)
        rc = q_grow(q);
    else
        rc = q_add_seg(q);
    mm_overhead_add(e, &e->st.overhead.alloc_ns, t0);
    return rc;
}

/* Append x to q, whose first arrays have room: its key is written by the
 * next scan (q_keys). */
static inline void q_append(simd_q *q, mm_elem *x)
{
    uint32_t i = q->end++;
    q->s0.elem[i] = x;
    set_slot(x, i);
}

/* q_push when the first arrays have no room for the append: a side with
 * segments (which every append to takes this path), or a full one. */
static MM_NOINLINE int q_push_slow(mm_engine *e, simd_q *q, mm_elem *x)
{
    if (q->nseg != 0 && q->end == 0) { /* empty, with segments */
        uint64_t t0 = mm_now_ns();
        q_merge(q);
        mm_overhead_add(e, &e->st.overhead.alloc_ns, t0);
    }
    if (q->end == q->cap) {
        int rc = q_make_room(e, q);
        if (rc != 0)
            return rc;
    }
    uint32_t i = q->end++;
    *q_slot(q, i) = x;
    set_slot(x, i);
    return 0;
}

/* Append x to q: inline while the first arrays have room (room is their
 * length while the side has no segment, else 0). */
static inline int q_push(mm_engine *e, simd_q *q, mm_elem *x)
{
    if (MM_LIKELY(q->end < q->room)) {
        q_append(q, x);
        return 0;
    }
    return q_push_slow(e, q, x);
}

static MM_NOINLINE void q_remove_slow(mm_engine *e, simd_q *q, uint32_t i);

/* Take the head slot (order-preserving traffic): move the head past it,
 * and past the holes behind it if there are any. The slot itself is left as
 * it is: slots below the head are never read (a scan masks the lanes below
 * its start), so it needs no hole marker; and a vector load of the next
 * search does not overlap a store of this one (no store-forwarding stall). */
static inline void q_take_head(simd_q *q)
{
    uint32_t h = q->head + 1;
    if (MM_UNLIKELY(q->holes != 0))
        while (h < q->end && !*q_slot(q, h))
            h++, q->holes--;
    q->head = h;
    if (h == q->end)
        q->head = q->end = q->kend = 0;  /* empty: restart at slot 0 */
}

/* Empty slot i. */
static inline void q_remove(mm_engine *e, simd_q *q, uint32_t i)
{
    if (i != q->head)
        q_remove_slow(e, q, i);
    else
        q_take_head(q);
}

/* Empty slot i (not the head) and trim holes at either end: segs 0 when
 * the side has only its first arrays (the slot arithmetic of the segments
 * left out). */
static inline __attribute__((always_inline)) void q_hole(simd_q *q, uint32_t i, int segs)
{
    simd_seg *g = segs ? q_seg_at(q, i) : &q->s0;
    uint32_t base = segs ? g->base : 0;
    g->comm[i - base] = -1; /* for a slot past kend, q_keys writes it too */
    g->elem[i - base] = NULL;
    q->holes++;
    while (q->head < q->end && !(segs ? *q_slot(q, q->head) : q->s0.elem[q->head]))
        q->head++, q->holes--;
    while (q->end > q->head && !(segs ? *q_slot(q, q->end - 1) : q->s0.elem[q->end - 1]))
        q->end--, q->holes--;
}

static MM_NOINLINE void q_remove_slow(mm_engine *e, simd_q *q, uint32_t i)
{
    if (MM_LIKELY(q->end <= q->s0.cap)) /* every slot in the first arrays */
        q_hole(q, i, 0);
    else
        q_hole(q, i, 1);
    if (q->kend > q->end)
        q->kend = q->end;
    if (q->head == q->end) {
        q->head = q->end = q->kend = 0;  /* empty: every slot is a hole, restart at 0 */
    } else if (q->holes >= MIN_HOLES_TO_COMPACT && q->holes > q->end - q->head - q->holes) {
        uint64_t t0 = mm_now_ns();
        q_compact(q);
        mm_overhead_add(e, &e->st.overhead.alloc_ns, t0);
    }
}

static inline int pairs(const mm_elem *x, const mm_key *k, int recv_key)
{
    return recv_key ? mm_match(k, &x->key) : mm_match(&x->key, k);
}

/* First slot j in [from, to) of the arrays (elem, comm, src, tag) whose
 * element pairs with key k (pattern p), or MM_SIMD_NONE. */
static inline __attribute__((always_inline)) uint32_t
q_scan_in(const simd_impl *S, mm_elem *const *elem, const int32_t *comm, const int32_t *src,
          const int32_t *tag, uint32_t j, uint32_t to, const mm_simd_pat *p, const mm_key *k,
          int recv_key)
{
    if (p->tag_mask == -1) {
        while (j < to && (j = S->tagscan(tag, j, to, p)) != MM_SIMD_NONE) {
            const mm_elem *x = elem[j];
            if (x && pairs(x, k, recv_key))
                return j;
            j++; /* a hole, or another comm or source: scan on */
        }
    } else {
        while (j < to && (j = S->scan(comm, src, tag, j, to, p)) != MM_SIMD_NONE) {
            if (pairs(elem[j], k, recv_key))
                return j;
            j++; /* a probable match that is not one: scan on */
        }
    }
    return MM_SIMD_NONE;
}

/* q_scan from slot i on a side with slots in segments: the first arrays,
 * then each segment in turn. */
static MM_NOINLINE uint32_t q_scan_segs(const simd_impl *S, simd_q *q, uint32_t i,
                                        const mm_simd_pat *p, const mm_key *k, int recv_key)
{
    while (i < q->end) {
        const simd_seg *g = q_seg_at(q, i);
        uint32_t to = q->end - g->base < g->cap ? q->end - g->base : g->cap;
        uint32_t j = q_scan_in(S, g->elem, g->comm, g->src, g->tag, i - g->base, to, p, k,
                               recv_key);
        if (j != MM_SIMD_NONE)
            return j + g->base;
        i = to + g->base;
    }
    return MM_SIMD_NONE;
}

/* First slot of q after slot i whose element pairs with key k (a receive
 * key when recv_key, else a message key), or MM_SIMD_NONE.
 *
 * For a specific tag, only the tag array is scanned (4 bytes per slot) and
 * each candidate verified against its element; a hole has no element. An
 * ANY_TAG receive, for which most tags are candidates, scans all three key
 * arrays. Out of line (one copy per side), so that the head-slot check of
 * q_find, which settles a burst, keeps few registers and no stack frame
 * for the vector pattern. */
static inline __attribute__((always_inline)) uint32_t q_scan(const simd_impl *S, simd_q *q,
                                                             uint32_t i, const mm_key *k,
                                                             int recv_key)
{
    if (q->kend != q->end)
        q_keys(q);
    mm_simd_pat p = recv_key ? mm_simd_pat_recv(k) : mm_simd_pat_msg(k);
    if (!recv_key && S->no_any_tag)
        p.tag_alt = p.tag; /* no ANY_TAG receive to find: one tag compare per slot */
    if (MM_UNLIKELY(q->end > q->s0.cap))
        return q_scan_segs(S, q, i + 1, &p, k, recv_key);
    i++; /* every slot in the first arrays: */
    if (p.tag_mask == -1) {
        while (i < q->end && (i = S->tagscan(q->s0.tag, i, q->end, &p)) != MM_SIMD_NONE) {
            const mm_elem *x = q->s0.elem[i];
            if (x && pairs(x, k, recv_key))
                return i;
            i++; /* a hole, or another comm or source: scan on */
        }
    } else {
        while (i < q->end &&
               (i = S->scan(q->s0.comm, q->s0.src, q->s0.tag, i, q->end, &p)) != MM_SIMD_NONE) {
            if (pairs(q->s0.elem[i], k, recv_key))
                return i;
            i++; /* a probable match that is not one: scan on */
        }
    }
    return MM_SIMD_NONE;
}

static MM_NOINLINE uint32_t q_scan_recv(const simd_impl *S, simd_q *q, uint32_t i,
                                        const mm_key *k)
{
    return q_scan(S, q, i, k, 1);
}

static MM_NOINLINE uint32_t q_scan_msg(const simd_impl *S, simd_q *q, uint32_t i,
                                       const mm_key *k)
{
    return q_scan(S, q, i, k, 0);
}

/* First slot of q whose element pairs with key k (as for q_scan), or
 * MM_SIMD_NONE; *depth = the slots the search passed, holes included: they
 * were compared. The caller counts the search (mm_stat_search).
 *
 * The head slot is checked first, through its element: in order-preserving
 * traffic (a burst) the partner is the head, and its key may not be written
 * yet (q_keys). The head is never a hole (q_remove moves the head past
 * holes), so it has an element. */
static inline __attribute__((always_inline)) uint32_t q_find(const simd_impl *S, simd_q *q,
                                                             const mm_key *k, int recv_key,
                                                             uint64_t *depth)
{
    uint32_t i = q->head;
    if (i == q->end) { /* empty: the other side's turn in most traffic */
        *depth = 0;
        return MM_SIMD_NONE;
    }
    if (MM_LIKELY(pairs(*q_slot(q, i), k, recv_key))) {
        *depth = 1;
        return i;
    }
    i = recv_key ? q_scan_recv(S, q, i, k) : q_scan_msg(S, q, i, k);
    *depth = (i == MM_SIMD_NONE ? q->end : i + 1) - q->head;
    return i;
}

static void simd_fini(mm_engine *e)
{
    simd_impl *S = e->impl;
    q_free(&S->prq);
    q_free(&S->umq);
    mm_mem_free(&e->mem, S, sizeof *S);
}

static int simd_init(mm_engine *e, char *err, size_t errlen)
{
    mm_simd_scan_fn scan;
    int isa;
    int rc = mm_simd_scan_select((int)e->param[P_ISA], &scan, &isa, err, errlen);
    if (rc != 0)
        return rc;
    simd_impl *S = mm_mem_calloc(&e->mem, 1, sizeof *S);
    if (!S)
        return MM_ENOMEM;
    S->scan = scan;
    S->tagscan = mm_simd_tagscan_for(isa);
    S->isa = isa;
    S->no_any_tag = (e->hints & MM_HINT_NO_ANY_TAG) != 0;
    S->prq.mem = &e->prq_mem;
    S->umq.mem = &e->umq_mem;
    e->impl = S;
    if (q_alloc(&S->prq, INITIAL_CAP) != 0 || q_alloc(&S->umq, INITIAL_CAP) != 0) {
        simd_fini(e);
        return MM_ENOMEM;
    }
    mm_stat_queues(&e->st.prq, 1);
    mm_stat_queues(&e->st.umq, 1);
    return 0;
}

/* Search the other side for x's earliest partner and take it, or queue x on
 * its own side. The same path serves posts and arrivals.
 *
 * A miss counts its depth only once x is queued: when the queue cannot
 * grow, the search is counted with depth 0 (the API takes back searches
 * and misses), so a failed call changes no statistic and the entries need
 * no undo copies (MM_ENGINE_ENTER's MAY_FAIL 0). */
static int search_or_queue(mm_engine *e, simd_q *q, mm_qstats *st, mm_elem *x, int x_is_recv,
                           simd_q *own, mm_elem **partner)
{
    uint64_t depth;
    uint32_t i = q_find(e->impl, q, &x->key, x_is_recv, &depth);
    if (i != MM_SIMD_NONE) {
        mm_stat_search(st, depth, 1);
        *partner = *q_slot(q, i);
        q_remove(e, q, i);
        return MM_MATCHED;
    }
    if (mm_may_queue(x) && q_push(e, own, x) == 0) {
        mm_stat_search(st, depth, 0);
        return MM_QUEUED;
    }
    mm_stat_search(st, 0, 0);
    return MM_ENOMEM;
}

static int simd_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    simd_impl *S = e->impl;
    return search_or_queue(e, &S->umq, &e->st.umq, r, 1, &S->prq, partner);
}

static int simd_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    simd_impl *S = e->impl;
    return search_or_queue(e, &S->prq, &e->st.prq, m, 0, &S->umq, partner);
}

static mm_elem *simd_probe(mm_engine *e, const mm_key *k, int remove)
{
    simd_impl *S = e->impl;
    uint64_t depth;
    uint32_t i = q_find(S, &S->umq, k, 1, &depth);
    mm_stat_search(&e->st.umq, depth, i != MM_SIMD_NONE);
    if (i == MM_SIMD_NONE)
        return NULL;
    mm_elem *m = *q_slot(&S->umq, i);
    if (remove)
        q_remove(e, &S->umq, i);
    return m;
}

static void simd_cancel(mm_engine *e, mm_elem *r)
{
    simd_impl *S = e->impl;
    q_remove(e, &S->prq, slot_of(r));
}

/* post and arrive fail only for an element they may not queue, or when the
 * queue cannot grow, and then leave every statistic as it was but the
 * search's count, which the API takes back (search_or_queue). One pool
 * (nlinks_recv 0); slots keep the order, so no search reads a seq. */
static MM_NOINLINE int simd_full_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h,
                                            uintptr_t *partner);
static MM_NOINLINE int simd_full_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner);
MM_ENGINE_ENTER_LEAN(simd_full, simd_post, simd_arrive, 0, MM_ENTER_ONE_POOL | MM_ENTER_LATE_SEQ)

/* The calls that need neither a scan nor growth, each with an entry of its
 * own: the other side's head pairs with the new element (depth 1, a hit),
 * or the other side is empty and the own side has room (depth 0, a miss,
 * appended). The entries below check which applies, with scalar loads of
 * the head slot (the head is never a hole, so it has an element), before
 * the API's copy of the entry into the element, which changes neither side;
 * any other call takes the full path above, a tail call away. So these
 * paths have no call in them and save (almost) no registers. The statistics
 * and the slots end as search_or_queue leaves them. */
MM_INLINE int take_head(simd_q *q, mm_qstats *st, mm_elem **partner)
{
    mm_stat_search(st, 1, 1);
    *partner = q->s0.elem[q->head];
    q_take_head(q);
    return MM_MATCHED;
}

MM_INLINE int append(simd_q *own, mm_qstats *st, mm_elem *x)
{
    if (MM_UNLIKELY(!mm_may_queue(x))) {
        mm_stat_search(st, 0, 0);
        return MM_ENOMEM;
    }
    q_append(own, x);
    mm_stat_search(st, 0, 0);
    return MM_QUEUED;
}

static int simd_hit_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    (void)r;
    return take_head(&((simd_impl *)e->impl)->umq, &e->st.umq, partner);
}

static int simd_hit_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    (void)m;
    return take_head(&((simd_impl *)e->impl)->prq, &e->st.prq, partner);
}

static int simd_append_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    (void)partner;
    return append(&((simd_impl *)e->impl)->prq, &e->st.umq, r);
}

static int simd_append_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    (void)partner;
    return append(&((simd_impl *)e->impl)->umq, &e->st.prq, m);
}

MM_ENGINE_ENTER_LEAN(simd_hit, simd_hit_post, simd_hit_arrive, 0,
                     MM_ENTER_ONE_POOL | MM_ENTER_LATE_SEQ)
MM_ENGINE_ENTER_LEAN(simd_append, simd_append_post, simd_append_arrive, 0,
                     MM_ENTER_ONE_POOL | MM_ENTER_LATE_SEQ)

/* Which path settles x (a receive when is_recv), searching q and queueing
 * on own: 1 the head of q pairs with it, 0 q is empty and own has room,
 * -1 neither (the full path). */
MM_INLINE int fast_path(const simd_q *q, const simd_q *own, const mm_entry *x, int is_recv)
{
    uint32_t i = q->head;
    if (i == q->end)
        return own->end < own->room ? 0 : -1;
    if (MM_UNLIKELY(i >= q->s0.cap)) /* the head is in a segment */
        return -1;
    const mm_key k = {x->comm, x->src, x->tag};
    return pairs(q->s0.elem[i], &k, is_recv) ? 1 : -1;
}

static int simd_enter_post(mm_engine *e, const mm_entry *x, mm_handle *h, uintptr_t *partner)
{
    simd_impl *S = e->impl;
    int path = fast_path(&S->umq, &S->prq, x, 1);
    if (MM_LIKELY(path > 0))
        return simd_hit_enter_post(e, x, h, partner);
    if (MM_LIKELY(path == 0))
        return simd_append_enter_post(e, x, h, partner);
    return simd_full_enter_post(e, x, h, partner);
}

static int simd_enter_arrive(mm_engine *e, const mm_entry *x, uintptr_t *partner)
{
    simd_impl *S = e->impl;
    int path = fast_path(&S->prq, &S->umq, x, 0);
    if (MM_LIKELY(path > 0))
        return simd_hit_enter_arrive(e, x, partner);
    if (MM_LIKELY(path == 0))
        return simd_append_enter_arrive(e, x, partner);
    return simd_full_enter_arrive(e, x, partner);
}

static const mm_engine_ops simd_ops = {
    .nlinks = 1, /* not a list link: holds the element's slot */
    .init = simd_init, .fini = simd_fini,
    .post = simd_post, .arrive = simd_arrive,
    .enter_post = simd_enter_post, .enter_arrive = simd_enter_arrive,
    .probe = simd_probe, .cancel = simd_cancel,
};

const mm_engine_def mm_engine_simd = {
    .info = {
        .name = "simd",
        .summary = "one PRQ and one UMQ as packed (comm, source, tag) arrays in order, scanned "
                   "8 or 16 keys per instruction (AVX2, AVX-512F, chosen at run time)",
        .origin = "Open MPI ob1 custom matching (vector); Dosanjh et al.: Fuzzy matching: "
                  "hardware accelerated MPI communication middleware (CCGrid 2019)",
        .params = simd_params,
        .nparams = sizeof simd_params / sizeof simd_params[0],
    },
    .ops = &simd_ops,
};
