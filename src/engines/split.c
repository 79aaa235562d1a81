/* split.c - paper 000's engines: a part for each kind of traffic.
 *
 * Every side (PRQ, UMQ) holds two parts: one for point-to-point elements and
 * one for collective elements, each a single list (`ll`), partner/non-partner
 * queues (pnp_part.c) or per-collective levels (col_part.c):
 *
 *   engine    point-to-point   collective
 *   pnp       PNP              (the same PNP: one structure for all)
 *   col+pnp   PNP              COL           the unified design
 *   col+ll    one list         COL           ablation
 *   ll+pnp    PNP              one list      ablation
 *
 * An element goes to the part for its kind. Matching ignores kind, so a
 * search may also have to look in the other part. Each part counts its
 * elements in 64 buckets by (communicator, sign of the tags it pairs with;
 * ANY_TAG pairs with tags >= 0), and a part is searched only if the
 * searching key's bucket is not empty: a counting filter with no false
 * negatives. In real traffic the other part is never searched: Open MPI
 * sends collectives on negative tags, MPICH on a communicator context of
 * their own, and point-to-point uses tags >= 0. The second part's search is
 * bounded by the first hit's sequence number, so the earliest element wins. */
#include <string.h>
#include "engines/col_part.h"
#include "engines/pnp_part.h"
#include "enter.h"

enum part_type { PART_NONE, PART_LL, PART_PNP, PART_COL };
enum { P2P, COLL };

typedef struct part {
    uint8_t  type;
    uint32_t n[64]; /* elements by bucket_of (communicator, tag sign) */
    union {
        mm_queue ll;
        pnp_side pnp;
        col_side col;
    } u;
} part;

typedef struct side {
    part_ctx cx;
    part     p[2]; /* [P2P], [COLL] */
} side;

typedef struct split_impl {
    side     prq, umq;
    unsigned coll_part; /* where collective elements go: COLL, or P2P for "pnp" */
} split_impl;

/* The two part types of an engine, by its name's position in this table. */
typedef struct split_spec {
    const char *name;
    uint8_t     p2p, coll;
} split_spec;

static const split_spec specs[] = {
    {"pnp", PART_PNP, PART_NONE},
    {"col+pnp", PART_PNP, PART_COL},
    {"col+ll", PART_LL, PART_COL},
    {"ll+pnp", PART_PNP, PART_LL},
};

/* ---- the part interface, dispatched by type ---- */

/* A key's bucket: keys in different buckets never pair (their communicators
 * or the signs of the tags they pair with differ). */
static inline unsigned bucket_of(const mm_key *k)
{
    unsigned nonneg = k->tag >= 0 || k->tag == MM_ANY_TAG;
    return ((uint32_t)k->comm * 2u + nonneg) & 63u;
}

static inline mm_elem *part_find(part *p, const mm_key *k, int recv_key, uint64_t bound,
                                 uint64_t *depth)
{
    switch (p->type) {
    case PART_LL:  return mm_queue_find(&p->u.ll, k, recv_key, bound, depth);
    case PART_PNP: return pnp_find(&p->u.pnp, k, recv_key, bound, depth);
    default:       return col_find(&p->u.col, k, recv_key, bound, depth);
    }
}

static inline void part_add(part *p, mm_elem *x)
{
    p->n[bucket_of(&x->key)]++;
    switch (p->type) {
    case PART_LL:  mm_queue_push(&p->u.ll, x); break;
    case PART_PNP: pnp_add(&p->u.pnp, x); break;
    default:       col_add(&p->u.col, x); break;
    }
}

static inline void part_remove(part *p, mm_elem *x)
{
    p->n[bucket_of(&x->key)]--;
    switch (p->type) {
    case PART_LL:  mm_queue_remove(&p->u.ll, x); break;
    case PART_PNP: pnp_remove(&p->u.pnp, x); break;
    default:       col_remove(&p->u.col, x); break;
    }
}

static inline part *part_of(const split_impl *I, side *s, const mm_elem *x)
{
    return &s->p[x->kind == MM_KIND_COLL ? I->coll_part : P2P];
}

/* ---- set-up ---- */

static int64_t param(const mm_engine *e, const char *name)
{
    const mm_engine_info *info = &e->def->info;
    for (size_t i = 0; i < info->nparams; i++)
        if (strcmp(info->params[i].name, name) == 0)
            return e->param[i];
    return 0; /* the engine has no such parameter: its part is not used */
}

static int part_init(mm_engine *e, part *p, part_ctx *cx, uint8_t type, int prq)
{
    p->type = type;
    switch (type) {
    case PART_LL:
        mm_queue_init(&p->u.ll, 0);
        mm_stat_queues(cx->st, 1);
        return 0;
    case PART_PNP:
        return pnp_init(&p->u.pnp, cx, (uint32_t)param(e, "theta"), (uint32_t)param(e, "kp"), prq);
    case PART_COL:
        return col_init(&p->u.col, cx, (uint32_t)param(e, "kc"));
    default:
        return 0;
    }
}

static void part_fini(part *p)
{
    if (p->type == PART_PNP)
        pnp_fini(&p->u.pnp);
    else if (p->type == PART_COL)
        col_fini(&p->u.col);
}

static void split_fini(mm_engine *e)
{
    split_impl *I = e->impl;
    for (unsigned i = 0; i < 2; i++) {
        part_fini(&I->prq.p[i]);
        part_fini(&I->umq.p[i]);
    }
    mm_mem_free(&e->mem, I, sizeof *I);
}

static int split_init(mm_engine *e, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const split_spec *sp = specs;
    while (strcmp(sp->name, e->def->info.name) != 0)
        sp++;
    split_impl *I = mm_mem_calloc(&e->mem, 1, sizeof *I);
    if (!I)
        return MM_ENOMEM;
    e->impl = I;
    I->coll_part = sp->coll == PART_NONE ? P2P : COLL;
    I->prq.cx = (part_ctx){e, &e->prq_mem, &e->st.prq};
    I->umq.cx = (part_ctx){e, &e->umq_mem, &e->st.umq};
    const uint8_t types[2] = {sp->p2p, sp->coll};
    for (unsigned i = 0; i < 2; i++)
        if (part_init(e, &I->prq.p[i], &I->prq.cx, types[i], 1) != 0 ||
            part_init(e, &I->umq.p[i], &I->umq.cx, types[i], 0) != 0) {
            split_fini(e);
            return MM_ENOMEM;
        }
    return 0;
}

/* ---- matching ---- */

/* Earliest element of side s pairing with key k: the part `first` (the
 * searcher's own, when it has one), then the other part bounded by the
 * first's hit; each only if it holds elements of k's bucket. *first_depth
 * gets the compares made in the part `first` (a COL part's profile). */
static mm_elem *side_find(side *s, unsigned first, const mm_key *k, int recv_key,
                          uint64_t *depth, uint64_t *first_depth)
{
    unsigned b = bucket_of(k);
    mm_elem *best = NULL;
    for (unsigned i = 0; i < 2; i++) {
        part *p = &s->p[first ^ i];
        if (!p->type || !p->n[b])
            continue;
        uint64_t d = 0;
        mm_elem *h = part_find(p, k, recv_key, mm_seq_bound(best, MM_SEQ_NONE), &d);
        *depth += d;
        if (i == 0)
            *first_depth = d;
        if (h)
            best = h;
    }
    return best;
}

/* Post and arrive are one path: x searches side `search` and takes the
 * earliest partner, or joins side `home`. */
static int enter(mm_engine *e, side *search, mm_qstats *st, side *home, mm_elem *x, int x_recv,
                 mm_elem **partner)
{
    split_impl *I = e->impl;
    unsigned own = x->kind == MM_KIND_COLL ? I->coll_part : P2P;
    uint64_t depth = 0, own_depth = 0;
    mm_elem *hit = side_find(search, own, &x->key, x_recv, &depth, &own_depth);
    mm_stat_search(st, depth, hit != NULL);
    if (!hit && !mm_may_queue(x))
        return MM_ENOMEM; /* before the COL profile learns of the search */
    if (x->kind == MM_KIND_COLL && search->p[own].type == PART_COL)
        col_searched(&search->p[own].u.col, x, own_depth);
    if (hit) {
        part_remove(part_of(I, search, hit), hit);
        *partner = hit;
        return MM_MATCHED;
    }
    part_add(part_of(I, home, x), x);
    return MM_QUEUED;
}

static int split_post(mm_engine *e, mm_elem *r, mm_elem **partner)
{
    split_impl *I = e->impl;
    return enter(e, &I->umq, &e->st.umq, &I->prq, r, 1, partner);
}

static int split_arrive(mm_engine *e, mm_elem *m, mm_elem **partner)
{
    split_impl *I = e->impl;
    return enter(e, &I->prq, &e->st.prq, &I->umq, m, 0, partner);
}

/* A probe has no kind: both parts, each if the key's bucket is not empty there. */
static mm_elem *split_probe(mm_engine *e, const mm_key *k, int remove)
{
    split_impl *I = e->impl;
    uint64_t depth = 0, first_depth = 0;
    mm_elem *m = side_find(&I->umq, P2P, k, 1, &depth, &first_depth);
    mm_stat_search(&e->st.umq, depth, m != NULL);
    if (m && remove)
        part_remove(part_of(I, &I->umq, m), m);
    return m;
}

static void split_cancel(mm_engine *e, mm_elem *r)
{
    split_impl *I = e->impl;
    part_remove(part_of(I, &I->prq, r), r);
}

/* post and arrive fail only for an element they may not queue: the path with
 * the split's search compiled in (enter.h), as the list engine has it. */
MM_ENGINE_ENTER(split, split_post, split_arrive, 0)

static const mm_engine_ops split_ops = {
    .nlinks = 1,
    .init = split_init, .fini = split_fini,
    .post = split_post, .arrive = split_arrive,
    .enter_post = split_enter_post, .enter_arrive = split_enter_arrive,
    .probe = split_probe, .cancel = split_cancel,
};

/* ---- the four engines ---- */

#define THETA {"theta", "PNP: a shared queue this long triggers partner extraction", \
               100, 1, 1 << 20, MM_PARAM_INT}
#define KP    {"kp", "PNP: at most floor(kp*sqrt(n)) dedicated partner queues per side", \
               8, 0, 1024, MM_PARAM_INT}
#define KC    {"kc", "COL: at most floor(kc*sqrt(n)) dedicated collective queues per side", \
               8, 0, 1024, MM_PARAM_INT}

static const mm_param_info pnp_params[] = {THETA, KP};
static const mm_param_info col_pnp_params[] = {KC, KP, THETA};
static const mm_param_info col_ll_params[] = {KC};
static const mm_param_info ll_pnp_params[] = {THETA, KP};

#define SPLIT_ENGINE(var, nm, sum, tbl)                                                 \
    const mm_engine_def var = {                                                           \
        .info = {.name = nm, .summary = sum,                                              \
                 .origin = "Ghazimirsaeed, Grant, Afsahi: A dynamic, unified design for " \
                           "dedicated message matching engines (ParCo 89, 2019)",         \
                 .params = tbl, .nparams = sizeof tbl / sizeof tbl[0]},                   \
        .ops = &split_ops,                                                                \
    }

SPLIT_ENGINE(mm_engine_pnp, "pnp",
             "partner/non-partner: a base queue; at theta, busy peers get dedicated queues "
             "and the rest share a new level's queue", pnp_params);
SPLIT_ENGINE(mm_engine_col_pnp, "col+pnp",
             "collectives: profiled, per-operation levels of hashed queues (COL); "
             "point-to-point: partner/non-partner (PNP)", col_pnp_params);
SPLIT_ENGINE(mm_engine_col_ll, "col+ll",
             "collectives: COL levels of hashed queues; point-to-point: one list", col_ll_params);
SPLIT_ENGINE(mm_engine_ll_pnp, "ll+pnp",
             "collectives: one list; point-to-point: partner/non-partner (PNP)", ll_pnp_params);
