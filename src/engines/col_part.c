/* col_part.c - queues for collective traffic on one side (see col_part.h). */
#include <string.h>
#include "engines/col_part.h"

/* Where an element waits (mm_elem.slot): pq, or level slot - SLOT_LEVEL of
 * its operation; from level SLOT_FAR - SLOT_LEVEL on, the level is found
 * from the element's sequence number (binary search over the levels). */
enum { SLOT_PQ, SLOT_LEVEL, SLOT_FAR = 255 };

/* What the first call of one p taught us (hung off the profile table). */
typedef struct col_prof {
    int32_t  comm;        /* the profiled call: communicator and call number */
    uint32_t call;
    int      done;        /* profile complete, queues decided                */
    uint64_t searches, traversals;
} col_prof;

int col_init(col_side *S, part_ctx *cx, uint32_t kc)
{
    memset(S, 0, sizeof *S);
    S->cx = cx;
    S->cap = part_cap(kc, (uint64_t)cx->e->nprocs);
    mm_queue_init(&S->pq, 0);
    if (mm_ktable_init(&S->prof, 0, 16, mm_seed_random(), cx->mem) != 0)
        return MM_ENOMEM;
    S->pcache = mm_mem_calloc(cx->mem, COL_PCACHE, sizeof *S->pcache);
    if (!S->pcache)
        return MM_ENOMEM;
    mm_stat_queues(cx->st, 1);
    return 0;
}

static size_t level_bytes(uint32_t nq)
{
    return sizeof(col_level) + (size_t)nq * sizeof(mm_queue);
}

static void free_prof(mm_kentry *ke, void *mem)
{
    mm_mem_free(mem, ke->aux, sizeof(col_prof));
}

void col_fini(col_side *S)
{
    mm_mem *mem = S->cx->mem;
    for (unsigned op = 0; op < MM_COLL_OP_COUNT; op++) {
        part_levels *lv = &S->op[op].levels;
        for (uint32_t i = 0; i < lv->n; i++)
            mm_mem_free(mem, lv->at[i], level_bytes(((col_level *)lv->at[i])->nq));
        part_levels_free(lv, mem);
    }
    if (S->prof.slots) /* NULL when col_init failed */
        mm_ktable_foreach(&S->prof, free_prof, mem);
    mm_ktable_destroy(&S->prof);
    mm_mem_free(mem, S->pcache, COL_PCACHE * sizeof *S->pcache); /* NULL: nothing */
}

/* ---- search (Algorithm 2) ---- */

/* Tags a key can pair with, as a range: ANY_TAG pairs with tags >= 0. */
static inline void tag_range(int32_t tag, int32_t *lo, int32_t *hi)
{
    *lo = tag == MM_ANY_TAG ? 0 : tag;
    *hi = tag == MM_ANY_TAG ? INT32_MAX : tag;
}

static inline mm_queue *queue_of(const col_level *L, int32_t src)
{
    return (mm_queue *)&L->q[part_mod((uint32_t)src, L->magic, L->nq)];
}

/* The earliest element of one operation: its levels in order, first hit;
 * the drained levels before o->lo and any other empty level are skipped. */
static mm_elem *op_find(const col_op *o, const mm_key *k, int recv_key, uint64_t bound,
                        uint64_t *depth)
{
    for (uint32_t l = o->lo; l < o->levels.n && o->levels.first[l] < bound; l++) {
        const col_level *L = o->levels.at[l];
        if (!L->count)
            continue;
        mm_elem *h = NULL;
        if (k->src != MM_ANY_SOURCE) {
            h = mm_queue_find(queue_of(L, k->src), k, recv_key, bound, depth);
        } else { /* an ANY_SOURCE receive key: every queue of the level */
            for (uint32_t i = 0; i < L->nq; i++)
                mm_queue_find_earlier(&L->q[i], k, 1, bound, &h, depth);
        }
        if (h)
            return h;
    }
    return NULL;
}

mm_elem *col_find(col_side *S, const mm_key *k, int recv_key, uint64_t bound, uint64_t *depth)
{
    mm_elem *best = mm_queue_find(&S->pq, k, recv_key, bound, depth);
    int32_t lo, hi;
    tag_range(k->tag, &lo, &hi);
    for (uint32_t live = S->live; live; live &= live - 1) {
        const col_op *o = &S->op[__builtin_ctz(live)];
        if (hi < o->tag_lo || o->tag_hi < lo)
            continue; /* no element of this operation can pair with k */
        mm_elem *h = op_find(o, k, recv_key, mm_seq_bound(best, bound), depth);
        if (h)
            best = h;
    }
    return best;
}

/* ---- profiling and queue allocation (Algorithm 1) ---- */

/* p of collective element x, whose call's entry is d: its operation, its
 * message size's class and its communicator's size (the last two from the
 * entry: elements do not keep them, elem.h). */
static inline mm_key profile_key(const mm_elem *x, const mm_entry *d)
{
    int32_t size_class = d->bytes ? 64 - __builtin_clzll(d->bytes) : 0;
    return (mm_key){(int32_t)x->coll_op | size_class << 8, (int32_t)d->comm_size, 0};
}

/* The profile of x's p, created (profiling x's call) if new; NULL when out
 * of memory, and x then simply waits in pq. Profiles in use sit in a small
 * direct-mapped cache (calls repeat p), so the table is read only on a
 * cache miss; the clock is read only when a profile is created (the
 * profiling overhead counted in st.overhead, Table 2), not on every event. */
static MM_COLD col_prof *profile_lookup(col_side *S, col_pcache *c, mm_key pk,
                                        const mm_entry *d)
{
    int created;
    mm_kentry *ke = mm_ktable_get(&S->prof, &pk, mm_ktable_hash(&S->prof, &pk), &created);
    if (!ke)
        return NULL;
    if (created) {
        mm_engine *e = S->cx->e;
        uint64_t t0 = mm_now_ns();
        col_prof *p = mm_mem_calloc(S->cx->mem, 1, sizeof *p);
        if (!p) {
            mm_ktable_remove(&S->prof, ke);
            return NULL;
        }
        p->comm = d->comm;
        p->call = d->call;
        ke->aux = p;
        mm_overhead_add(e, &e->st.overhead.profile_ns, t0);
    }
    c->key = pk;
    c->prof = ke->aux;
    return c->prof;
}

MM_INLINE col_prof *profile_of(col_side *S, const mm_elem *x, const mm_entry *d)
{
    mm_key pk = profile_key(x, d);
    /* operation + 5 * size class: one operation's 64 classes take distinct entries */
    col_pcache *c = &S->pcache[(uint32_t)(pk.comm + 5 * (pk.comm >> 8)) % COL_PCACHE];
    if (MM_LIKELY(c->prof && mm_key_eq(&c->key, &pk)))
        return c->prof;
    return profile_lookup(S, c, pk, d);
}

/* Open a level of nq queues for operation o, taking elements from first_seq. */
static void open_level(col_side *S, col_op *o, uint32_t nq, uint64_t first_seq)
{
    col_level *L = mm_mem_alloc(S->cx->mem, level_bytes(nq));
    if (!L)
        return;
    if (part_levels_push(&o->levels, S->cx->mem, L, first_seq) != 0) {
        mm_mem_free(S->cx->mem, L, level_bytes(nq));
        return;
    }
    L->nq = nq;
    L->count = 0;
    L->magic = part_mod_magic(nq);
    for (uint32_t i = 0; i < nq; i++)
        mm_queue_init(&L->q[i], 0);
    S->allocated += nq;
    mm_stat_queues(S->cx->st, nq);
}

/* p's first call is over: nq from its average traversals, then a new level
 * if nq is more than the operation's last level has and the cap allows. */
static void profiled(col_side *S, col_prof *p, unsigned op, uint64_t seq)
{
    mm_engine *e = S->cx->e;
    uint64_t t0 = mm_now_ns();
    uint64_t nq = p->searches ? (p->traversals + p->searches - 1) / p->searches : 1;
    if (nq == 0)
        nq = 1;
    p->done = 1;
    mm_overhead_add(e, &e->st.overhead.profile_ns, t0);
    col_op *o = &S->op[op];
    uint32_t last = o->levels.n ? ((col_level *)o->levels.at[o->levels.n - 1])->nq : 0;
    if (nq > S->cap - S->allocated)
        nq = S->cap - S->allocated;
    if (nq > last) {
        uint64_t t1 = mm_now_ns();
        open_level(S, o, (uint32_t)nq, seq);
        mm_overhead_add(e, &e->st.overhead.alloc_ns, t1);
    }
}

/* One event of collective element x on this side: a search of `depth`
 * compares (searched), or x joining it. Returns x's profile. */
static MM_COLD void profile_record(col_side *S, col_prof *p, const mm_elem *x,
                                    const mm_entry *d, int searched, uint64_t depth)
{
    if (p->comm == x->key.comm && p->call == d->call) {
        p->searches += (uint64_t)searched;
        p->traversals += depth;
    } else {
        profiled(S, p, x->coll_op, x->seq);
    }
}

/* x is the element of the call in progress, whose entry the API has put in
 * the engine's coll_entry (api.c): x is collective, so its call has
 * collective annotations. */
MM_INLINE col_prof *profile_step(col_side *S, const mm_elem *x, int searched, uint64_t depth)
{
    const mm_entry *d = S->cx->e->coll_entry;
    col_prof *p = profile_of(S, x, d);
    if (MM_UNLIKELY(p && !p->done)) /* profiling: only during a p's first call */
        profile_record(S, p, x, d, searched, depth);
    return p;
}

void col_searched(col_side *S, const mm_elem *x, uint64_t depth)
{
    profile_step(S, x, 1, depth);
}

void col_add(col_side *S, mm_elem *x)
{
    col_prof *p = profile_step(S, x, 0, 0);
    col_op *o = &S->op[x->coll_op];
    if (!p || !p->done || !o->levels.n || x->key.src == MM_ANY_SOURCE) {
        x->slot = SLOT_PQ;
        mm_queue_push(&S->pq, x);
        return;
    }
    uint32_t l = o->levels.n - 1;
    col_level *L = o->levels.at[l];
    x->slot = l < SLOT_FAR - SLOT_LEVEL ? (uint8_t)(SLOT_LEVEL + l) : SLOT_FAR;
    L->count++;
    mm_queue_push(queue_of(L, x->key.src), x);
    int32_t lo, hi;
    tag_range(x->key.tag, &lo, &hi);
    if (o->count++ == 0) {
        S->live |= 1u << x->coll_op;
        o->tag_lo = lo;
        o->tag_hi = hi;
    } else {
        o->tag_lo = lo < o->tag_lo ? lo : o->tag_lo;
        o->tag_hi = hi > o->tag_hi ? hi : o->tag_hi;
    }
}

void col_remove(col_side *S, mm_elem *x)
{
    if (x->slot == SLOT_PQ) {
        mm_queue_remove(&S->pq, x);
        return;
    }
    col_op *o = &S->op[x->coll_op];
    uint32_t l = x->slot < SLOT_FAR ? (uint32_t)(x->slot - SLOT_LEVEL)
                                    : part_level_of(&o->levels, x->seq);
    col_level *L = o->levels.at[l];
    mm_queue_remove(queue_of(L, x->key.src), x);
    if (--L->count == 0 && l == o->lo) /* levels drain oldest first: skip them */
        while (o->lo + 1 < o->levels.n && !((col_level *)o->levels.at[o->lo])->count)
            o->lo++;
    if (--o->count == 0)
        S->live &= ~(1u << x->coll_op);
}
