/*
 * profile.c - count, per peer, what a single-list matcher does with a
 * stream (see profile.h). The two queues are simulated as index-linked
 * lists over the stream's events; the library's `list` engine runs beside
 * them and must agree on every partner and search depth.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

#define NONE SIZE_MAX
enum { NOT_QUEUED = 0, IN_PRQ = 1, IN_UMQ = 2 };

/* Sparse (searcher, owner) -> count, open addressing. */
typedef struct pairmap {
    uint64_t *keys;  /* 1 + (searcher << 32 | owner); 0 = empty */
    uint64_t *vals;
    size_t    cap, count;
} pairmap;

typedef struct sim {
    const mm_stream *s;
    mm_profile *p;
    size_t  *next, *prev;      /* [n] links of queued R/M events     */
    uint8_t *where;            /* [n] NOT_QUEUED, IN_PRQ or IN_UMQ   */
    size_t   head[3], tail[3]; /* by IN_PRQ / IN_UMQ                 */
    pairmap  pm;
    mm_engine *eng;            /* `list`, in lockstep                */
    mm_handle *handles;        /* [n] handles of queued receives     */
} sim;

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int pair_add(pairmap *m, int32_t searcher, int32_t owner)
{
    if (2 * (m->count + 1) > m->cap) {
        size_t ncap = m->cap ? 2 * m->cap : 1024;
        uint64_t *nk = calloc(ncap, sizeof *nk), *nv = calloc(ncap, sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i])
                continue;
            size_t j = mix(m->keys[i]) & (ncap - 1);
            while (nk[j])
                j = (j + 1) & (ncap - 1);
            nk[j] = m->keys[i];
            nv[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = ncap;
    }
    uint64_t key = 1 + ((uint64_t)(uint32_t)searcher << 32 | (uint32_t)owner);
    size_t j = mix(key) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->keys[j]) {
        m->keys[j] = key;
        m->count++;
    }
    m->vals[j]++;
    return 0;
}

/* Does receive pattern r accept message m? (docs/semantics.md) */
static int accepts(const mm_event *r, const mm_event *m)
{
    return r->comm == m->comm && (r->src == MM_ANY_SOURCE || r->src == m->src) &&
           (r->tag == MM_ANY_TAG ? m->tag >= 0 : r->tag == m->tag);
}

/* The peer an element or a search belongs to; np for ANY_SOURCE. */
static int32_t peer_of(const sim *S, const mm_event *x)
{
    return x->src == MM_ANY_SOURCE ? S->s->np : x->src;
}

static void push(sim *S, int q, size_t i)
{
    S->where[i] = (uint8_t)q;
    S->next[i] = NONE;
    S->prev[i] = S->tail[q];
    if (S->tail[q] == NONE)
        S->head[q] = i;
    else
        S->next[S->tail[q]] = i;
    S->tail[q] = i;
}

static void unlink_elem(sim *S, size_t i)
{
    int q = S->where[i];
    if (S->prev[i] == NONE)
        S->head[q] = S->next[i];
    else
        S->next[S->prev[i]] = S->next[i];
    if (S->next[i] == NONE)
        S->tail[q] = S->prev[i];
    else
        S->prev[S->next[i]] = S->prev[i];
    S->where[i] = NOT_QUEUED;
}

/* Walk queue q for the first partner of x, charging every compared element
 * to its owner in the searcher's row. Returns its index or NONE. */
static size_t walk(sim *S, int q, const mm_event *x, uint64_t *depth, int *oom)
{
    const mm_event *ev = S->s->ev;
    int32_t searcher = peer_of(S, x);
    for (size_t i = S->head[q]; i != NONE; i = S->next[i]) {
        ++*depth;
        if (pair_add(&S->pm, searcher, peer_of(S, &ev[i])))
            *oom = 1;
        if (q == IN_UMQ ? accepts(x, &ev[i]) : accepts(&ev[i], x))
            return i;
    }
    return NONE;
}

/* Run event i through the engine; its partner (event index) or NONE. */
static int engine_step(sim *S, size_t i, size_t *partner)
{
    const mm_event *x = &S->s->ev[i];
    uintptr_t got = 0;
    int rc;
    if (x->type == MM_EV_RECV || x->type == MM_EV_MSG) {
        mm_entry en = { x->comm, x->src, x->tag, x->kind, x->coll_op, 0,
                        x->comm_size, x->call, x->bytes, (uintptr_t)i };
        rc = x->type == MM_EV_MSG ? mm_arrive(S->eng, &en, &got)
                                  : mm_post(S->eng, &en, &S->handles[i], &got);
    } else if (x->type == MM_EV_CANCEL) {
        rc = S->where[x->ref] == IN_PRQ ? mm_cancel(S->eng, S->handles[x->ref]) : MM_NOTFOUND;
        got = (uintptr_t)x->ref;
    } else {
        rc = (x->type == MM_EV_PROBE ? mm_probe : mm_mprobe)(S->eng, x->comm, x->src, x->tag, &got);
    }
    if (rc < 0)
        return rc;
    *partner = rc == MM_MATCHED ? (size_t)got : NONE;
    return 0;
}

static void count_search(sim *S, const mm_event *x, uint64_t depth)
{
    mm_profile *p = S->p;
    if (x->type == MM_EV_MSG) {
        p->prq_searches[x->src]++;
        p->prq_traversed[x->src] += depth;
    } else if (x->src == MM_ANY_SOURCE) {
        p->any_umq_searches++;
        p->any_umq_traversed += depth;
    } else {
        p->umq_searches[x->src]++;
        p->umq_traversed[x->src] += depth;
    }
}

/* One event through the simulation; the partner's index or NONE. */
static size_t sim_step(sim *S, size_t i, uint64_t *depth, int *oom)
{
    const mm_event *x = &S->s->ev[i];
    size_t hit = NONE;
    switch (x->type) {
    case MM_EV_CANCEL:
        if (S->where[x->ref] == IN_PRQ) {
            unlink_elem(S, x->ref);
            hit = x->ref;
        }
        return hit;
    case MM_EV_MSG:
        hit = walk(S, IN_PRQ, x, depth, oom);
        break;
    default: /* R, P, X */
        hit = walk(S, IN_UMQ, x, depth, oom);
        break;
    }
    count_search(S, x, *depth);
    if (hit != NONE && x->type != MM_EV_PROBE)
        unlink_elem(S, hit);
    if (hit == NONE && x->type == MM_EV_MSG) {
        push(S, IN_UMQ, i);
        S->p->umq_added[x->src]++;
    } else if (hit == NONE && x->type == MM_EV_RECV) {
        push(S, IN_PRQ, i);
        if (x->src == MM_ANY_SOURCE)
            S->p->any_prq_added++;
        else
            S->p->prq_added[x->src]++;
    }
    return hit;
}

static int cmp_pair(const void *a, const void *b)
{
    const mm_profile_pair *x = a, *y = b;
    if (x->searcher != y->searcher)
        return x->searcher < y->searcher ? -1 : 1;
    return (x->owner > y->owner) - (x->owner < y->owner);
}

static int collect_pairs(sim *S)
{
    mm_profile *p = S->p;
    p->pairs = malloc((S->pm.count + 1) * sizeof *p->pairs);
    if (!p->pairs)
        return -1;
    for (size_t i = 0; i < S->pm.cap; i++) {
        if (!S->pm.keys[i])
            continue;
        uint64_t k = S->pm.keys[i] - 1;
        p->pairs[p->npairs++] = (mm_profile_pair){(int32_t)(k >> 32), (int32_t)(uint32_t)k,
                                                  S->pm.vals[i]};
    }
    qsort(p->pairs, p->npairs, sizeof *p->pairs, cmp_pair);
    return 0;
}

static int run_events(sim *S, char *err, size_t errlen)
{
    const mm_stream *s = S->s;
    char where[512];
    mm_stats st;
    uint64_t before = 0;
    for (size_t i = 0; i < s->n; i++) {
        uint64_t depth = 0;
        int oom = 0;
        size_t want = NONE;
        int rc = engine_step(S, i, &want); /* first: a cancel asks where the receive is */
        size_t hit = sim_step(S, i, &depth, &oom);
        if (oom)
            return fail(err, errlen, "out of memory for the pairwise counts");
        mm_get_stats(S->eng, &st);
        uint64_t now = st.prq.traversed + st.umq.traversed;
        if (rc < 0 || hit != want || now - before != depth) {
            mm_stream_where(s, s->ev[i].line, where, sizeof where);
            return fail(err, errlen, "%sinternal error: the profile disagrees with engine "
                        "'list' (%s)", where, rc < 0 ? mm_strerror(rc) : "partner or depth");
        }
        before = now;
    }
    S->p->events = s->n;
    return 0;
}

int mm_profile_run(const mm_stream *s, mm_profile *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->np = s->np;
    size_t np = (size_t)s->np, n = s->n + 1;
    uint64_t **per_peer[] = {&p->prq_added, &p->umq_added, &p->prq_searches,
                             &p->prq_traversed, &p->umq_searches, &p->umq_traversed};
    for (size_t i = 0; i < sizeof per_peer / sizeof per_peer[0]; i++) {
        if (!(*per_peer[i] = calloc(np, sizeof(uint64_t)))) {
            mm_profile_free(p);
            return fail(err, errlen, "out of memory for %zu peers", np);
        }
    }

    sim S = {.s = s, .p = p, .head = {NONE, NONE, NONE}, .tail = {NONE, NONE, NONE}};
    S.next = malloc(n * sizeof *S.next);
    S.prev = malloc(n * sizeof *S.prev);
    S.where = calloc(n, 1);
    S.handles = calloc(n, sizeof *S.handles);
    char cerr[512] = "";
    mm_config cfg = {.nprocs = s->np};
    int rc;
    if (!S.next || !S.prev || !S.where || !S.handles)
        rc = fail(err, errlen, "out of memory for %zu events", s->n);
    else if (mm_create(&S.eng, "list", &cfg, cerr, sizeof cerr) != 0)
        rc = fail(err, errlen, "cannot create engine 'list': %s", cerr);
    else if ((rc = run_events(&S, err, errlen)) == 0 && collect_pairs(&S))
        rc = fail(err, errlen, "out of memory for %zu pairwise counts", S.pm.count);
    mm_destroy(S.eng);
    free(S.next);
    free(S.prev);
    free(S.where);
    free(S.handles);
    free(S.pm.keys);
    free(S.pm.vals);
    if (rc)
        mm_profile_free(p);
    return rc;
}

void mm_profile_free(mm_profile *p)
{
    free(p->prq_added);
    free(p->umq_added);
    free(p->prq_searches);
    free(p->prq_traversed);
    free(p->umq_searches);
    free(p->umq_traversed);
    free(p->pairs);
    memset(p, 0, sizeof *p);
}
