/*
 * conv_p2p.c - point-to-point records into stream events and messages
 * (docs/convert.md, "Point-to-point").
 *
 * Receive side, at the call's entry time: RECV and IRECV post an R (its
 * wildcards kept; the source and tag it really got, from the status or the
 * request's COMPLETE record, become src_resolved/tag_resolved); PROBE and a
 * found IPROBE are P; MPROBE and a found IMPROBE are X; an IPROBE or
 * IMPROBE that found nothing is P; CANCEL of a receive request is C. MRECV
 * and IMRECV add nothing (the X already took the message). Send side: SEND
 * and ISEND become messages to the destination, sent at the call's entry.
 * Records on MPI_PROC_NULL are dropped; records on a communicator the
 * tracer did not see created (NOCOMM) cannot be routed and are counted.
 */
#include <stdlib.h>
#include <string.h>

#include "conv_internal.h"

static int push_op(cv_rank *r, const cv_op *op)
{
    if (r->nops == r->capops) {
        size_t cap = r->capops ? 2 * r->capops : 64;
        cv_op *p = realloc(r->ops, cap * sizeof *p);
        if (!p)
            return MMS_ENOMEM;
        r->ops = p;
        r->capops = cap;
    }
    r->ops[r->nops++] = *op;
    return MMS_OK;
}

static int32_t src_of(int32_t peer) { return peer == MMT_ANY_SOURCE ? MM_ANY_SOURCE : peer; }
static int32_t tag_of(int32_t tag) { return tag == MMT_ANY_TAG ? MM_ANY_TAG : tag; }

/* Give a wildcard receive the source and tag it really matched, when they
 * are consistent with it (the stream format's rule). */
static void resolve(mm_event *e, int32_t src, int32_t rtag)
{
    if (e->src != MM_ANY_SOURCE && e->tag != MM_ANY_TAG)
        return;
    if (src < 0 || rtag < 0 || (e->src != MM_ANY_SOURCE && e->src != src) ||
        (e->tag != MM_ANY_TAG && e->tag != rtag))
        return;
    e->resolved = MM_RES_SRC | MM_RES_TAG;
    e->src_resolved = src;
    e->tag_resolved = rtag;
}

/* Requests of one rank: for an IRECV, its event and operation (1-based). */
typedef struct req_slot { size_t ev, op; } req_slot;

static int one_rank(cv_conv *c, int32_t w, char *err, size_t errlen)
{
    cv_rank *r = &c->r[w];
    uint64_t maxreq = 0;
    for (size_t k = 0; k < r->nrec; k++)
        if (r->rec[k].type == MMT_IRECV && r->rec[k].req > maxreq)
            maxreq = r->rec[k].req;
    req_slot *req = calloc(maxreq + 1, sizeof *req);
    if (!req)
        goto nomem;
    for (size_t k = 0; k < r->nrec; k++) {
        const mmt_record *x = &r->rec[k];
        int type = x->type;
        int is_recv = type == MMT_RECV || type == MMT_IRECV || type == MMT_PROBE ||
                      type == MMT_IPROBE || type == MMT_MPROBE || type == MMT_IMPROBE;
        int is_send = type == MMT_SEND || type == MMT_ISEND;
        if (type == MMT_COMPLETE && x->sub == MMT_IRECV && x->req <= maxreq && req[x->req].ev) {
            req_slot q = req[x->req];
            cv_op *op = &r->ops[q.op - 1];
            if (!(x->flags & MMT_F_CANCELLED) && x->src_world >= 0) {
                op->kind = CV_OP_CONSUME;
                op->src_w = x->src_world;
                op->tag = x->rtag;
                resolve(&r->evs.v[q.ev - 1].ev, x->src, x->rtag);
            }
            continue;
        }
        if (type == MMT_CANCEL) {
            if (x->req <= maxreq && req[x->req].ev) {
                cv_ev e = { cv_time(r, x->t_start), r->evs.n, CV_CLS_CALL,
                            mm_event_make(MM_EV_CANCEL, req[x->req].ev - 1, 0, 0, 0) };
                if (cv_push_ev(&r->evs, &e))
                    goto nomem;
            }
            continue;
        }
        if (!is_recv && !is_send)
            continue;
        if (x->peer == MMT_PROC_NULL)
            continue;
        int32_t comm = cv_comm_id(c, x->comm);
        const mmt_comm *cm = mmt_comm_find(r->rd, x->comm);
        if ((x->flags & MMT_F_NOCOMM) || comm < 0 || !cm) {
            c->skipped_nocomm++;
            continue;
        }
        uint64_t t = cv_time(r, x->t_start);
        if (is_send) {
            if (x->peer_world < 0 || x->peer_world >= c->n) {
                c->skipped_nocomm++;
                continue;
            }
            cv_msg m = { .t_send = t, .bytes = x->bytes, .tcomm = x->comm, .src_w = w,
                         .dst_w = x->peer_world, .src_c = cm->rank, .tag = x->tag, .comm = comm,
                         .kind = MM_KIND_P2P };
            if (cv_push_msg(c, &m))
                goto nomem;
            c->p2p_msgs++;
            continue;
        }
        int found = type == MMT_RECV || type == MMT_PROBE || type == MMT_MPROBE ||
                    ((type == MMT_IPROBE || type == MMT_IMPROBE) && (x->flags & MMT_F_FOUND));
        int evtype = type == MMT_RECV || type == MMT_IRECV ? MM_EV_RECV
                     : (type == MMT_MPROBE || type == MMT_IMPROBE) && found ? MM_EV_MPROBE
                                                                            : MM_EV_PROBE;
        cv_ev e = { t, r->evs.n, CV_CLS_CALL,
                    mm_event_make(evtype, 0, comm, src_of(x->peer), tag_of(x->tag)) };
        if (evtype == MM_EV_RECV) {
            e.ev.bytes = x->bytes;
            e.ev.t = t;
            if (type == MMT_RECV)
                resolve(&e.ev, x->src, x->rtag);
        }
        if (cv_push_ev(&r->evs, &e))
            goto nomem;
        cv_op op = { x->comm, x->src_world, x->rtag, r->evs.n - 1, 0 };
        if (type == MMT_IRECV) {
            if (x->req <= maxreq) {
                req[x->req].ev = r->evs.n;
                req[x->req].op = r->nops + 1;
            }
        } else if (found && x->src_world >= 0) {
            op.kind = evtype == MM_EV_PROBE ? CV_OP_PEEK : CV_OP_CONSUME;
        } else {
            continue;
        }
        if (push_op(r, &op))
            goto nomem;
    }
    free(req);
    return MMS_OK;
nomem:
    free(req);
    snprintf(err, errlen, "out of memory");
    return MMS_ENOMEM;
}

int cv_p2p(cv_conv *c, char *err, size_t errlen)
{
    for (int32_t w = 0; w < c->n; w++) {
        int rc = one_rank(c, w, err, errlen);
        if (rc)
            return rc;
    }
    return MMS_OK;
}

/* ---- pairing: the k-th operation on (comm, source, tag) at a rank takes
 * the k-th message of that key sent to it (MPI's non-overtaking rule) ---- */

static const cv_msg *g_msg; /* qsort has no context argument in C11 */

static int key_cmp(const cv_msg *x, int32_t dst, uint64_t tcomm, int32_t src, int32_t tag)
{
    if (x->dst_w != dst)
        return x->dst_w < dst ? -1 : 1;
    if (x->tcomm != tcomm)
        return x->tcomm < tcomm ? -1 : 1;
    if (x->src_w != src)
        return x->src_w < src ? -1 : 1;
    if (x->tag != tag)
        return x->tag < tag ? -1 : 1;
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const cv_msg *y = &g_msg[j];
    int k = key_cmp(&g_msg[i], y->dst_w, y->tcomm, y->src_w, y->tag);
    return k ? k : (i < j ? -1 : i > j); /* creation order = send order of one sender */
}

int cv_pair(cv_conv *c, char *err, size_t errlen)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nmsg; i++)
        n += c->msg[i].kind == MM_KIND_P2P;
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    uint32_t *used = calloc(n ? n : 1, sizeof *used); /* at a key's first index */
    if (!ix || !used) {
        free(ix);
        free(used);
        snprintf(err, errlen, "out of memory");
        return MMS_ENOMEM;
    }
    n = 0;
    for (size_t i = 0; i < c->nmsg; i++)
        if (c->msg[i].kind == MM_KIND_P2P)
            ix[n++] = i;
    g_msg = c->msg;
    if (n)
        qsort(ix, n, sizeof *ix, cmp_key);
    for (int32_t w = 0; w < c->n; w++) {
        cv_rank *r = &c->r[w];
        for (size_t k = 0; k < r->nops; k++) {
            const cv_op *op = &r->ops[k];
            if (!op->kind)
                continue;
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (key_cmp(&c->msg[ix[mid]], w, op->tcomm, op->src_w, op->tag) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            size_t at = lo + used[lo];
            if (at >= n || key_cmp(&c->msg[ix[at]], w, op->tcomm, op->src_w, op->tag) != 0) {
                c->unpaired++;
                continue;
            }
            if (op->kind == CV_OP_CONSUME)
                used[lo]++;
            /* A probe finds its message when it is there: at the call, or
             * later at the message's modelled arrival (after it, on a tie). */
            cv_ev *e = &r->evs.v[op->ev];
            const cv_msg *m = &c->msg[ix[at]];
            if (e->ev.type != MM_EV_RECV && m->t_arr >= e->t) {
                e->t = m->t_arr;
                e->cls = CV_CLS_AFTER;
            }
        }
    }
    free(ix);
    free(used);
    return MMS_OK;
}
