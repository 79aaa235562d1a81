/*
 * profile.c - count, per peer, what a single-list matcher does with a
 * stream (see profile.h). The two queues are those of the list-semantics
 * simulator (list_sim.h); the library's `list` engine runs beside it and
 * must agree on every partner and search depth.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "list_sim.h"
#include "profile.h"

#define NONE MM_LSIM_NONE

/* Sparse (searcher, owner) -> count, open addressing. */
typedef struct pairmap {
    uint64_t *keys;  /* 1 + (searcher << 32 | owner); 0 = empty */
    uint64_t *vals;
    size_t    cap, count;
} pairmap;

typedef struct sim {
    const mm_stream *s;
    mm_profile *p;
    mm_lsim  q;                /* the two queues, list semantics     */
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
        rc = S->q.where[x->ref] == MM_LSIM_PRQ ? mm_cancel(S->eng, S->handles[x->ref]) : MM_NOTFOUND;
        got = (uintptr_t)x->ref;
    } else {
        rc = (x->type == MM_EV_PROBE ? mm_probe : mm_mprobe)(S->eng, x->comm, x->src, x->tag, &got);
    }
    if (rc < 0)
        return rc;
    *partner = rc == MM_MATCHED ? (size_t)got : NONE;
    return 0;
}

/* The peer an element or a search belongs to; np for ANY_SOURCE. */
static int32_t peer_of(const mm_stream *s, const mm_event *x)
{
    return x->src == MM_ANY_SOURCE ? s->np : x->src;
}

/* Every compared element, charged to its owner in the searcher's row. */
static int charge(void *ctx, const mm_event *x, const mm_event *elem)
{
    sim *S = ctx;
    return pair_add(&S->pm, peer_of(S->s, x), peer_of(S->s, elem));
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
        const mm_event *x = &s->ev[i];
        uint64_t depth;
        int searched;
        size_t want = NONE, hit;
        int rc = engine_step(S, i, &want); /* first: a cancel asks where the receive is */
        if (mm_lsim_step(&S->q, i, charge, S, &hit, &depth, &searched))
            return fail(err, errlen, "out of memory for the pairwise counts");
        if (searched)
            count_search(S, x, depth);
        if (hit == NONE && x->type == MM_EV_MSG) {
            S->p->umq_added[x->src]++;
        } else if (hit == NONE && x->type == MM_EV_RECV) {
            if (x->src == MM_ANY_SOURCE)
                S->p->any_prq_added++;
            else
                S->p->prq_added[x->src]++;
        }
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

    sim S = {.s = s, .p = p};
    int qrc = mm_lsim_init(&S.q, s);
    S.handles = calloc(n, sizeof *S.handles);
    char cerr[512] = "";
    mm_config cfg = {.nprocs = s->np};
    int rc;
    if (qrc || !S.handles)
        rc = fail(err, errlen, "out of memory for %zu events", s->n);
    else if (mm_create(&S.eng, "list", &cfg, cerr, sizeof cerr) != 0)
        rc = fail(err, errlen, "cannot create engine 'list': %s", cerr);
    else if ((rc = run_events(&S, err, errlen)) == 0 && collect_pairs(&S))
        rc = fail(err, errlen, "out of memory for %zu pairwise counts", S.pm.count);
    mm_destroy(S.eng);
    mm_lsim_free(&S.q);
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
