/*
 * list_sim.c - list semantics, element by element (list_sim.h).
 */
#include "list_sim.h"

#include <stdlib.h>
#include <string.h>

#include "core/elem.h"

int mm_lsim_init(mm_lsim *q, const mm_stream *s)
{
    memset(q, 0, sizeof *q);
    q->s = s;
    for (int k = 0; k < 3; k++)
        q->head[k] = q->tail[k] = MM_LSIM_NONE;
    size_t n = s->n + 1;
    q->next = malloc(n * sizeof *q->next);
    q->prev = malloc(n * sizeof *q->prev);
    q->where = calloc(n, 1);
    if (!q->next || !q->prev || !q->where) {
        mm_lsim_free(q);
        return -1;
    }
    return 0;
}

void mm_lsim_free(mm_lsim *q)
{
    free(q->next);
    free(q->prev);
    free(q->where);
    memset(q, 0, sizeof *q);
}

static void push(mm_lsim *q, int k, size_t i)
{
    q->where[i] = (uint8_t)k;
    q->next[i] = MM_LSIM_NONE;
    q->prev[i] = q->tail[k];
    if (q->tail[k] == MM_LSIM_NONE)
        q->head[k] = i;
    else
        q->next[q->tail[k]] = i;
    q->tail[k] = i;
    q->len[k]++;
}

static void unlink_elem(mm_lsim *q, size_t i)
{
    int k = q->where[i];
    if (q->prev[i] == MM_LSIM_NONE)
        q->head[k] = q->next[i];
    else
        q->next[q->prev[i]] = q->next[i];
    if (q->next[i] == MM_LSIM_NONE)
        q->tail[k] = q->prev[i];
    else
        q->prev[q->next[i]] = q->prev[i];
    q->where[i] = MM_LSIM_OUT;
    q->len[k]--;
}

static mm_key key_of(const mm_event *e)
{
    return (mm_key){ e->comm, e->src, e->tag };
}

int mm_lsim_step(mm_lsim *q, size_t i, mm_lsim_visit visit, void *ctx,
                 size_t *partner, uint64_t *depth, int *searched)
{
    const mm_event *ev = q->s->ev, *x = &ev[i];
    *partner = MM_LSIM_NONE;
    *depth = 0;
    *searched = 0;
    if (x->type == MM_EV_CANCEL) {
        if (q->where[x->ref] == MM_LSIM_PRQ) {
            unlink_elem(q, x->ref);
            *partner = x->ref;
        }
        return 0;
    }
    /* A message searches the PRQ (the elements are receives); a receive
     * or a probe searches the UMQ (the elements are messages). */
    int k = x->type == MM_EV_MSG ? MM_LSIM_PRQ : MM_LSIM_UMQ;
    mm_key xk = key_of(x);
    *searched = 1;
    for (size_t j = q->head[k]; j != MM_LSIM_NONE; j = q->next[j]) {
        ++*depth;
        if (visit) {
            int rc = visit(ctx, x, &ev[j]);
            if (rc)
                return rc;
        }
        mm_key ek = key_of(&ev[j]);
        if (k == MM_LSIM_PRQ ? mm_match(&ek, &xk) : mm_match(&xk, &ek)) {
            *partner = j;
            break;
        }
    }
    if (*partner != MM_LSIM_NONE) {
        if (x->type != MM_EV_PROBE)
            unlink_elem(q, *partner);
    } else if (x->type == MM_EV_MSG) {
        push(q, MM_LSIM_UMQ, i);
    } else if (x->type == MM_EV_RECV) {
        push(q, MM_LSIM_PRQ, i);
    }
    return 0;
}
