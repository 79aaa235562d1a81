/* pnp_part.c - partner/non-partner queues for one side (see pnp_part.h). */
#include <stdlib.h>
#include <string.h>
#include "engines/pnp_part.h"

/* Where an element waits (mm_elem.slot). An NP element's level is found from
 * its sequence number, a dedicated one's queue from the partner table. */
enum { SLOT_BASE, SLOT_WILD, SLOT_NP, SLOT_DED };

int pnp_init(pnp_side *S, part_ctx *cx, uint32_t theta, uint32_t kp, int prq)
{
    memset(S, 0, sizeof *S);
    S->cx = cx;
    S->theta = theta;
    S->cap = part_cap(kp, (uint64_t)cx->e->nprocs);
    S->capped = S->cap == 0;
    mm_queue_init(&S->base, 0);
    mm_queue_init(&S->wild, 0);
    if (mm_ktable_init(&S->partners, 0, 16, mm_seed_random(), cx->mem) != 0)
        return MM_ENOMEM;
    mm_stat_queues(cx->st, prq ? 2 : 1); /* the base queue, and the wild one on the PRQ */
    return 0;
}

void pnp_fini(pnp_side *S)
{
    for (uint32_t i = 0; i < S->levels.n; i++)
        mm_mem_free(S->cx->mem, S->levels.at[i], sizeof(mm_queue));
    part_levels_free(&S->levels, S->cx->mem);
    mm_mem_free(S->cx->mem, S->plist, S->plist_cap * sizeof *S->plist);
    mm_ktable_destroy(&S->partners);
}

/* A partner is a process (a source rank), whatever the communicator: the
 * paper counts elements per process and averages over all n processes. */
static inline mm_key partner_key(int32_t src)
{
    return (mm_key){0, src, 0};
}

static inline mm_kentry *partner_of(const pnp_side *S, int32_t src)
{
    if (!S->npartners) /* the common case before any extraction: no lookup */
        return NULL;
    mm_key pk = partner_key(src);
    return mm_ktable_find(&S->partners, &pk, mm_ktable_hash(&S->partners, &pk));
}

static inline mm_queue *np_queue(const pnp_side *S, uint32_t level)
{
    return S->levels.at[level];
}

/* Level i and every later level, with their dedicated queues, hold elements
 * of seq >= levels.first[i] only: none below bound from level *i on. */
static inline int levels_past(const pnp_side *S, uint32_t i, uint64_t bound)
{
    return i < S->levels.n && S->levels.first[i] >= bound;
}

/* The earliest element of rank k->src: base, NP0 .. NP(L-1), then D(src) for
 * a partner of level L; base and every NP for a non-partner. The NP queues
 * before S->lo are empty and skipped; the walk stops at the first level that
 * begins at or after bound (a search bounded by an earlier hit elsewhere). */
static mm_elem *find_rank(const pnp_side *S, const mm_key *k, int recv_key, uint64_t bound,
                          uint64_t *depth)
{
    mm_kentry *p = partner_of(S, k->src);
    uint32_t upto = p ? (uint32_t)(uintptr_t)p->aux : S->levels.n;
    mm_elem *h = mm_queue_find(&S->base, k, recv_key, bound, depth);
    uint32_t i = S->lo;
    for (; !h && i < upto && !levels_past(S, i, bound); i++)
        h = mm_queue_find(np_queue(S, i), k, recv_key, bound, depth);
    if (!h && p && !levels_past(S, upto, bound))
        h = mm_queue_find(&p->q, k, recv_key, bound, depth);
    return h;
}

/* An ANY_SOURCE receive key: the shared queues are chronological, so their
 * first hit is their earliest; each dedicated queue is then searched only
 * up to the best candidate so far. */
static mm_elem *find_any(const pnp_side *S, const mm_key *k, uint64_t bound, uint64_t *depth)
{
    mm_elem *best = mm_queue_find(&S->base, k, 1, bound, depth);
    for (uint32_t i = S->lo; !best && i < S->levels.n && !levels_past(S, i, bound); i++)
        best = mm_queue_find(np_queue(S, i), k, 1, bound, depth);
    for (uint32_t i = 0; i < S->npartners; i++)
        mm_queue_find_earlier(&S->plist[i]->q, k, 1, bound, &best, depth);
    return best;
}

mm_elem *pnp_find(pnp_side *S, const mm_key *k, int recv_key, uint64_t bound, uint64_t *depth)
{
    if (k->src == MM_ANY_SOURCE)
        return find_any(S, k, bound, depth);
    mm_elem *h = find_rank(S, k, recv_key, bound, depth);
    if (!recv_key && !mm_queue_empty(&S->wild))
        mm_queue_find_earlier(&S->wild, k, 0, bound, &h, depth);
    return h;
}

/* ---- partner extraction (rare: when a shared queue reaches theta) ---- */

typedef struct cand {
    int32_t  src;
    uint32_t count, first; /* elements in the queue; position of the first */
} cand;

static int by_process(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Most elements first; ties go to the process that appears first. */
static int by_count(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Count queue q's elements per process into c (q->len entries) and keep the
 * processes with more than the average over all n processes: count * n > len.
 * Returns how many were kept, at most `room`, the largest counts first. */
static uint32_t choose_partners(const mm_queue *q, cand *c, int32_t nprocs, uint64_t room)
{
    uint32_t n = 0;
    mm_queue_foreach(x, q) {
        c[n] = (cand){x->key.src, 1, n};
        n++;
    }
    qsort(c, n, sizeof *c, by_process);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        while (j < n && c[j].src == c[i].src)
            j++;
        cand run = {c[i].src, j - i, c[i].first};
        if ((uint64_t)run.count * (uint64_t)nprocs > n)
            c[kept++] = run;
        i = j;
    }
    if (kept > room) {
        qsort(c, kept, sizeof *c, by_count);
        kept = (uint32_t)room;
    }
    return kept;
}

/* Open level L = levels.n with its NP queue, taking elements from first_seq
 * on, and make the chosen processes partners of level L. */
static void open_level(pnp_side *S, const cand *c, uint32_t n, uint64_t first_seq)
{
    part_ctx *cx = S->cx;
    mm_queue *np = mm_mem_alloc(cx->mem, sizeof *np);
    if (!np)
        return;
    mm_kentry **pl = part_grow(cx->mem, S->plist, &S->plist_cap, S->npartners,
                               S->npartners + n, sizeof *S->plist);
    if (!pl || part_levels_push(&S->levels, cx->mem, np, first_seq) != 0) {
        if (pl)
            S->plist = pl;
        mm_mem_free(cx->mem, np, sizeof *np);
        return;
    }
    S->plist = pl;
    mm_queue_init(np, 0);
    mm_stat_queues(cx->st, 1);
    uintptr_t level = S->levels.n - 1;
    for (uint32_t i = 0; i < n; i++) {
        mm_key pk = partner_key(c[i].src);
        int created;
        mm_kentry *p = mm_ktable_get(&S->partners, &pk, mm_ktable_hash(&S->partners, &pk), &created);
        if (!p)
            break; /* out of memory: fewer partners, still consistent */
        p->aux = (void *)level;
        S->plist[S->npartners++] = p;
        mm_stat_queues(cx->st, 1);
    }
    if (S->npartners >= S->cap)
        S->capped = 1;
}

static void extract(pnp_side *S, const mm_queue *q, uint64_t seq)
{
    mm_engine *e = S->cx->e;
    uint64_t t0 = mm_now_ns();
    S->since = 0;
    S->wait = S->theta; /* if nobody qualifies, try again theta inserts later */
    cand *c = mm_mem_alloc(S->cx->mem, q->len * sizeof *c);
    if (!c)
        return;
    size_t bytes = q->len * sizeof *c;
    uint32_t n = choose_partners(q, c, e->nprocs, S->cap - S->npartners);
    mm_overhead_add(e, &e->st.overhead.extract_ns, t0);
    if (n) {
        uint64_t t1 = mm_now_ns();
        open_level(S, c, n, seq + 1);
        S->wait = 0;
        mm_overhead_add(e, &e->st.overhead.alloc_ns, t1);
    }
    mm_mem_free(S->cx->mem, c, bytes);
}

void pnp_add(pnp_side *S, mm_elem *x)
{
    if (x->key.src == MM_ANY_SOURCE) {
        x->slot = SLOT_WILD;
        mm_queue_push(&S->wild, x);
        return;
    }
    mm_kentry *p = partner_of(S, x->key.src);
    if (p) {
        x->slot = SLOT_DED;
        mm_queue_push(&p->q, x);
        return;
    }
    mm_queue *q = S->levels.n ? np_queue(S, S->levels.n - 1) : &S->base;
    x->slot = S->levels.n ? SLOT_NP : SLOT_BASE;
    mm_queue_push(q, x);
    if (q->len >= S->theta && !S->capped && ++S->since >= S->wait)
        extract(S, q, x->seq);
}

void pnp_remove(pnp_side *S, mm_elem *x)
{
    switch (x->slot) {
    case SLOT_BASE:
        mm_queue_remove(&S->base, x);
        break;
    case SLOT_WILD:
        mm_queue_remove(&S->wild, x);
        break;
    case SLOT_NP: {
        uint32_t l = part_level_of(&S->levels, x->seq);
        mm_queue_remove(np_queue(S, l), x);
        /* Only the last level's NP queue takes new elements: older ones drain. */
        while (S->lo == l && l + 1 < S->levels.n && mm_queue_empty(np_queue(S, l)))
            S->lo = ++l;
        break;
    }
    default:
        mm_queue_remove(&partner_of(S, x->key.src)->q, x);
        break;
    }
}
