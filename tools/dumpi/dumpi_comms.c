/*
 * dumpi_comms.c - reconstruct communicators across the ranks of a DUMPI run
 * (dumpi_comms.h).
 */
#include "dumpi_comms.h"

#include <stdlib.h>
#include <string.h>

#include "dumpi_format.h"
#include "trace_format.h"

int dc_init(dc_set *s, int32_t nranks)
{
    memset(s, 0, sizeof *s);
    s->nranks = nranks;
    s->ranks = calloc((size_t)nranks, sizeof *s->ranks);
    s->cap = (size_t)nranks + 16;
    s->comms = calloc(s->cap, sizeof *s->comms);
    if (!s->ranks || !s->comms)
        return -1;
    s->comms[0] = (dc_comm){ MMT_COMM_WORLD_ID, MMT_NO_PARENT, MMT_CM_WORLD, nranks, NULL, -1 };
    for (int32_t r = 0; r < nranks; r++) {
        dc_comm *c = &s->comms[1 + r];
        *c = (dc_comm){ (uint64_t)r << 32 | 1u, MMT_NO_PARENT, MMT_CM_SELF, 1, NULL, -1 };
        if (!(c->world = malloc(sizeof *c->world)))
            return -1;
        c->world[0] = r;
    }
    s->ncomms = 1 + (size_t)nranks;
    return 0;
}

int dc_add(dc_set *s, int32_t rank, const dc_event *e)
{
    dc_rank *r = &s->ranks[rank];
    if (r->nev == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 16;
        dc_event *ne = realloc(r->ev, nc * sizeof *ne);
        if (!ne)
            return -1;
        r->ev = ne;
        r->cap = nc;
    }
    r->ev[r->nev++] = *e;
    return 0;
}

int32_t dc_world(const dc_comm *c, int32_t r)
{
    if (r < 0 || r >= c->size)
        return -1;
    return c->world ? c->world[r] : r;
}

int32_t dc_rank_of(const dc_comm *c, int32_t w)
{
    if (!c->world)
        return w >= 0 && w < c->size ? w : -1;
    for (int32_t i = 0; i < c->size; i++)
        if (c->world[i] == w)
            return i;
    return -1;
}

/* Is this creation call one whose members we can compute? */
static int matched_kind(uint16_t label)
{
    return label == DL_COMM_DUP || label == DL_COMM_SPLIT || label == DL_CART_CREATE ||
           label == DL_GRAPH_CREATE;
}

/* Per-rank state while resolving. */
typedef struct hmap {
    int32_t *to;   /* handle -> comm index, -1 unbound or unknown */
    size_t n;
    size_t next;   /* next event */
} hmap;

static int32_t lookup(const hmap *h, int32_t handle)
{
    return handle >= 0 && (size_t)handle < h->n ? h->to[handle] : -1;
}

static void bind(hmap *h, int32_t handle, int32_t comm)
{
    if (handle >= 0 && (size_t)handle < h->n && handle != DUMPI_COMM_NULL)
        h->to[handle] = comm;
}

/* A new communicator with the given members (world ranks, in rank order). */
static int32_t new_comm(dc_set *s, uint64_t *seq, uint64_t parent, int how, int32_t *world,
                        int32_t size, int32_t color)
{
    if (s->ncomms == s->cap) {
        size_t nc = 2 * s->cap;
        dc_comm *n = realloc(s->comms, nc * sizeof *n);
        if (!n)
            return -2;
        s->comms = n;
        s->cap = nc;
    }
    int32_t low = world[0];
    for (int32_t i = 1; i < size; i++)
        if (world[i] < low)
            low = world[i];
    dc_comm *c = &s->comms[s->ncomms];
    *c = (dc_comm){ (uint64_t)low << 32 | seq[low]++, parent, how, size, world, color };
    return (int32_t)s->ncomms++;
}

/* Sort members of one split colour by (key, parent rank). */
typedef struct member { int64_t key; int32_t prank, world; } member;
static int by_key(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->prank > y->prank) - (x->prank < y->prank);
}

/* The collective creation call that every member of comm ci is at now. */
static int create(dc_set *s, hmap *hm, uint64_t *seq, int32_t ci)
{
    const dc_comm pc = s->comms[ci];
    int32_t n = pc.size;
    if (n <= 0)
        return -1;
    const dc_event *e0 = &s->ranks[dc_world(&pc, 0)].ev[hm[dc_world(&pc, 0)].next];
    member *m = malloc((size_t)n * sizeof *m);
    uint8_t *done = calloc((size_t)n, 1);
    if (!m || !done) {
        free(m);
        free(done);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t w = dc_world(&pc, i);
        const dc_event *e = &s->ranks[w].ev[hm[w].next];
        s->ranks[w].result[hm[w].next] = -1;
        m[i] = (member){ e->label == DL_COMM_SPLIT ? e->key : 0, i, w };
    }
    int rc = 0;
    for (int32_t i = 0; i < n && rc == 0; i++) {
        if (done[i])
            continue;
        const dc_event *ei = &s->ranks[m[i].world].ev[hm[m[i].world].next];
        int how = ei->label == DL_COMM_DUP ? MMT_CM_DUP
                  : ei->label == DL_COMM_SPLIT ? MMT_CM_SPLIT
                  : ei->label == DL_CART_CREATE ? MMT_CM_CART_CREATE : MMT_CM_GRAPH_CREATE;
        /* Members of the communicator rank i lands in. */
        member *g = malloc((size_t)n * sizeof *g);
        if (!g) {
            rc = -1;
            break;
        }
        int32_t k = 0;
        for (int32_t j = i; j < n; j++) {
            const dc_event *ej = &s->ranks[m[j].world].ev[hm[m[j].world].next];
            int in;
            if (how == MMT_CM_SPLIT)
                in = ej->color >= 0 && ej->color == ei->color;
            else if (how == MMT_CM_DUP)
                in = 1;
            else
                in = j < e0->nprod;
            if (in && !done[j]) {
                g[k++] = m[j];
                done[j] = 1;
            }
        }
        if (k == 0 || (how == MMT_CM_SPLIT && ei->color < 0) || ei->child == DUMPI_COMM_NULL) {
            free(g);
            done[i] = 1;
            continue;
        }
        if (how == MMT_CM_SPLIT)
            qsort(g, (size_t)k, sizeof *g, by_key);
        int32_t *world = malloc((size_t)k * sizeof *world);
        if (!world) {
            free(g);
            rc = -1;
            break;
        }
        for (int32_t j = 0; j < k; j++)
            world[j] = g[j].world;
        int32_t nc = new_comm(s, seq, pc.id, how, world, k,
                              how == MMT_CM_SPLIT ? (int32_t)ei->color : -1);
        if (nc < 0) {
            free(world);
            free(g);
            rc = -1;
            break;
        }
        for (int32_t j = 0; j < k; j++) {
            int32_t w = g[j].world;
            s->ranks[w].result[hm[w].next] = nc;
        }
        free(g);
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t w = dc_world(&pc, i);
        dc_event *e = &s->ranks[w].ev[hm[w].next];
        bind(&hm[w], e->child, s->ranks[w].result[hm[w].next]);
        hm[w].next++;
    }
    free(m);
    free(done);
    return rc;
}

/* Are all members of comm ci at a matched creation call on ci, of one kind? */
static int ready(const dc_set *s, const hmap *hm, int32_t ci, uint16_t label, int64_t nprod)
{
    const dc_comm *c = &s->comms[ci];
    for (int32_t i = 0; i < c->size; i++) {
        int32_t w = dc_world(c, i);
        const dc_rank *r = &s->ranks[w];
        if (hm[w].next >= r->nev)
            return 0;
        const dc_event *e = &r->ev[hm[w].next];
        if (lookup(&hm[w], e->parent) != ci || e->label != label ||
            (label != DL_COMM_DUP && label != DL_COMM_SPLIT && e->nprod != nprod))
            return 0;
    }
    return 1;
}

/* Take rank w's next call as one whose result is unknown. */
static void skip(dc_set *s, hmap *hm, int32_t w)
{
    dc_rank *r = &s->ranks[w];
    r->result[hm[w].next] = -1;
    bind(&hm[w], r->ev[hm[w].next].child, -1);
    hm[w].next++;
}

int dc_resolve(dc_set *s)
{
    int32_t n = s->nranks;
    hmap *hm = calloc((size_t)n, sizeof *hm);
    uint64_t *seq = malloc((size_t)n * sizeof *seq);
    int rc = -1;
    if (!hm || !seq)
        goto out;
    for (int32_t w = 0; w < n; w++) {
        seq[w] = 2;
        dc_rank *r = &s->ranks[w];
        int32_t maxh = DUMPI_COMM_SELF;
        for (size_t i = 0; i < r->nev; i++) {
            if (r->ev[i].parent > maxh)
                maxh = r->ev[i].parent;
            if (r->ev[i].child > maxh)
                maxh = r->ev[i].child;
        }
        hm[w].n = (size_t)maxh + 1;
        hm[w].to = malloc(hm[w].n * sizeof *hm[w].to);
        r->result = malloc((r->nev ? r->nev : 1) * sizeof *r->result);
        if (!hm[w].to || !r->result)
            goto out;
        for (size_t i = 0; i < hm[w].n; i++)
            hm[w].to[i] = -1;
        hm[w].to[DUMPI_COMM_WORLD] = 0;
        hm[w].to[DUMPI_COMM_SELF] = 1 + w;
    }
    for (;;) {
        int progress = 0, left = 0;
        for (int32_t w = 0; w < n; w++) {
            dc_rank *r = &s->ranks[w];
            while (hm[w].next < r->nev) {
                const dc_event *e = &r->ev[hm[w].next];
                int32_t ci = lookup(&hm[w], e->parent);
                if (ci < 0 || !matched_kind(e->label)) {
                    skip(s, hm, w);
                    progress = 1;
                    continue;
                }
                if (!ready(s, hm, ci, e->label, e->nprod))
                    break;
                if (create(s, hm, seq, ci))
                    goto out;
                progress = 1;
            }
            left |= hm[w].next < r->nev;
        }
        if (!left)
            break;
        if (!progress) {
            /* The files disagree (a rank file is partial, or the calls
             * differ): give up on the first stuck call. */
            for (int32_t w = 0; w < n; w++)
                if (hm[w].next < s->ranks[w].nev) {
                    skip(s, hm, w);
                    s->unmatched++;
                    break;
                }
        }
    }
    rc = 0;
out:
    if (hm)
        for (int32_t w = 0; w < n; w++)
            free(hm[w].to);
    free(hm);
    free(seq);
    return rc;
}

void dc_free(dc_set *s)
{
    if (s->ranks)
        for (int32_t r = 0; r < s->nranks; r++) {
            free(s->ranks[r].ev);
            free(s->ranks[r].result);
        }
    if (s->comms)
        for (size_t i = 0; i < s->ncomms; i++)
            free(s->comms[i].world);
    free(s->ranks);
    free(s->comms);
    memset(s, 0, sizeof *s);
}
