/*
 * conv_model.c - the network model (docs/convert.md, "Network model").
 *
 * A message of b bytes that leaves its sender at time t (the send call's
 * entry, or the start of a collective step) reaches the receiver's matching
 * engine at
 *
 *     inject  = max(t, previous inject of the same sender + g)
 *     arrival = inject + o + L + (b - 1) * G          (b = 0 counts as 1)
 *     arrival = max(arrival, previous arrival from the same sender
 *                            at the same receiver)     (non-overtaking)
 *
 * with (L, o, g, G) of the intra-node link when both ranks' trace headers
 * name the same host, else of the inter-node link. The second max keeps a
 * small message behind a big one sent before it: MPI's non-overtaking rule
 * for messages that could match the same receive, applied here to the
 * whole channel (one shared-memory queue or one connection per pair).
 */
#include <stdlib.h>

#include "conv_internal.h"

const mm_loggp *cv_link(const cv_conv *c, int32_t src_w, int32_t dst_w)
{
    return c->r[src_w].node == c->r[dst_w].node ? &c->o->intra : &c->o->inter;
}

uint64_t cv_arrival(const mm_loggp *p, uint64_t t, uint64_t bytes)
{
    uint64_t extra = bytes > 1 ? bytes - 1 : 0;
    /* picoseconds to ns, rounded down; split to avoid overflow on huge sizes */
    uint64_t wire = extra / 1000 * p->ps_per_byte + extra % 1000 * p->ps_per_byte / 1000;
    return t + p->overhead_ns + p->latency_ns + wire;
}

static const cv_msg *g_msg; /* qsort has no context argument in C11 */

/* By sender, then send time, then creation order. */
static int cmp_send(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const cv_msg *x = &g_msg[i], *y = &g_msg[j];
    if (x->src_w != y->src_w)
        return x->src_w < y->src_w ? -1 : 1;
    if (x->t_send != y->t_send)
        return x->t_send < y->t_send ? -1 : 1;
    return i < j ? -1 : i > j;
}

int cv_model(cv_conv *c, size_t **order_out, char *err, size_t errlen)
{
    size_t n = c->nmsg;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    uint64_t *last = calloc((size_t)c->n, sizeof *last); /* per receiver, of one sender */
    int32_t *touched = malloc((size_t)c->n * sizeof *touched);
    if (!order || !last || !touched) {
        free(order);
        free(last);
        free(touched);
        snprintf(err, errlen, "out of memory");
        return MMS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    g_msg = c->msg;
    if (n)
        qsort(order, n, sizeof *order, cmp_send);
    size_t k = 0;
    while (k < n) {
        int32_t s = c->msg[order[k]].src_w;
        uint64_t inject = 0;
        int first = 1;
        size_t nt = 0;
        for (; k < n && c->msg[order[k]].src_w == s; k++) {
            cv_msg *m = &c->msg[order[k]];
            const mm_loggp *p = cv_link(c, m->src_w, m->dst_w);
            uint64_t t = m->t_send;
            if (!first && inject + p->gap_ns > t)
                t = inject + p->gap_ns;
            inject = t;
            first = 0;
            uint64_t a = cv_arrival(p, t, m->bytes);
            if (last[m->dst_w] == 0)
                touched[nt++] = m->dst_w;
            if (a < last[m->dst_w])
                a = last[m->dst_w];
            m->t_arr = a;
            last[m->dst_w] = a ? a : 1; /* 0 marks "none yet" */
        }
        for (size_t j = 0; j < nt; j++)
            last[touched[j]] = 0;
    }
    free(last);
    free(touched);
    *order_out = order;
    return MMS_OK;
}
