/*
 * xfer.c - the protocols, over any channel (mmfi_chan):
 *
 *   eager       len <= FI_MPIMATCH_EAGER and the sender holds credit: one
 *               cell, header and payload. An unexpected eager message is
 *               copied out of the ring; the receiver returns the credit
 *               (len + 64 bytes) when the message is consumed.
 *   rendezvous  otherwise: an RTS cell (header only) is matched like any
 *               message; once matched the receiver answers CTS with the
 *               bytes it wants, and the sender streams DATA cells (segmented
 *               copy through the ring). Unexpected large messages cost a
 *               header, never their payload. With kernel-assisted copy
 *               (cma.c) the receiver reads the payload itself instead and
 *               answers FIN.
 *
 * Every cell carries the sender's per-connection sequence number (32 bits,
 * wrapping); the receiver checks it and treats a gap as a fault of the peer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mmfi.h"

#define WIRE_COST sizeof(mmfi_wire)

/* Copy len bytes between a flat buffer and an iov at offset off; to_iov
 * chooses the direction. The bytes copied. */
static size_t iov_copy(const struct iovec *iov, size_t count, uint64_t off, void *flat,
                       size_t len, int to_iov)
{
    size_t done = 0;
    for (size_t i = 0; i < count && done < len; i++) {
        if (off >= iov[i].iov_len) {
            off -= iov[i].iov_len;
            continue;
        }
        size_t n = iov[i].iov_len - off;
        if (n > len - done)
            n = len - done;
        char *v = (char *)iov[i].iov_base + off, *p = (char *)flat + done;
        memcpy(to_iov ? v : p, to_iov ? p : v, n);
        done += n;
        off = 0;
    }
    return done;
}

size_t mmfi_copy_to_iov(const struct iovec *iov, size_t count, uint64_t off,
                        const void *src, size_t len)
{
    if (MM_LIKELY(count == 1 && off == 0)) { /* one buffer: the common case */
        size_t n = len < iov[0].iov_len ? len : iov[0].iov_len;
        if (n) /* (a 0-byte buffer may be NULL) */
            memcpy(iov[0].iov_base, src, n);
        return n;
    }
    return iov_copy(iov, count, off, (void *)src, len, 1);
}

static size_t copy_from_iov(void *dst, const struct iovec *iov, size_t count, uint64_t off,
                            size_t len)
{
    if (MM_LIKELY(count == 1 && off == 0)) {
        size_t n = len < iov[0].iov_len ? len : iov[0].iov_len;
        if (n)
            memcpy(dst, iov[0].iov_base, n);
        return n;
    }
    return iov_copy(iov, count, off, dst, len, 0);
}

static int conn_ready(mmfi_ep *ep, uint32_t ci)
{
    mmfi_conn *c = &ep->conns[ci];
    if (c->dead)
        return -FI_EIO;
    if (!c->up) {
        if (!c->ch)
            c->ch = mmfi_chan_for(ep, c);
        int rc = c->ch->connect(ep, c);
        if (rc)
            return rc;
    }
    return 0;
}

/* A cell to ci, progressing once if the ring is full. */
static mmfi_wire *reserve(mmfi_ep *ep, uint32_t ci, void **payload)
{
    mmfi_wire *w = ep->conns[ci].ch->reserve(ep, &ep->conns[ci], payload);
    if (!w) {
        mmfi_ep_progress(ep);
        if (ep->conns[ci].dead)
            return NULL;
        w = ep->conns[ci].ch->reserve(ep, &ep->conns[ci], payload);
        if (!w)
            ep->c.ring_full++;
    }
    return w;
}

/* The send time carried by EAGER and RTS cells, for the receiver's discovery
 * time (only with statistics: it costs a clock read). */
static uint64_t stamp(const mmfi_ep *ep)
{
    return ep->dom->set.stats_dir[0] ? mmfi_now_ns() : 0;
}

/* An EAGER or RTS cell found on connection ci: the polling counters, and under
 * the dynamic scheme the ratio (poll.h). The discovery time is known when
 * both clocks are this host's CLOCK_MONOTONIC. */
static void found(mmfi_ep *ep, const mmfi_conn *c, const mmfi_wire *w)
{
    uint64_t disc = UINT64_MAX, t_post = mmfi_wire_t_post(w);
    if (t_post && ep->dom->set.stats_dir[0] && c->peer.host == ep->name.host) {
        uint64_t now = mmfi_now_ns();
        disc = now > t_post ? now - t_post : 0;
    }
    /* cells from a peer come over its socket (TCP) or its slot in the inbox */
    mmfi_poll_found(&ep->poll, c->rx_fd >= 0 ? MMFI_CH_NET : MMFI_CH_SHM, disc);
}

static void commit(mmfi_ep *ep, uint32_t ci, mmfi_wire *w)
{
    mmfi_conn *c = &ep->conns[ci];
    w->seq = c->tx_seq++;
    c->ch->commit(ep, c);
    if (c->ch == &mmfi_chan_tcp)
        ep->c.tcp_cells_sent++;
}

/* A control cell (CTS, CREDIT, DISCARD): sent now, or queued in order. */
static void send_ctrl(mmfi_ep *ep, uint32_t ci, const mmfi_wire *x)
{
    mmfi_conn *c = &ep->conns[ci];
    if (c->dead || conn_ready(ep, ci))
        return;
    ep->c.ctrl_sent++;
    void *pl;
    mmfi_wire *w;
    if (!mm_fifo_len(&c->ctrl) && (w = c->ch->reserve(ep, c, &pl))) {
        *w = *x;
        commit(ep, ci, w);
        return;
    }
    mmfi_wire *q = mm_fifo_push(&c->ctrl);
    if (q) {
        *q = *x;
        ep->ctrl_queued++;
    } /* out of memory otherwise: the peer will see a sequence gap */
}

static void return_credit(mmfi_ep *ep, uint32_t ci, uint64_t bytes)
{
    mmfi_conn *c = &ep->conns[ci];
    c->credit_owed += bytes;
    if (c->credit_owed >= ep->dom->set.credit / 4 + 1) {
        mmfi_wire w = {.type = W_CREDIT, .len = c->credit_owed};
        c->credit_owed = 0;
        send_ctrl(ep, ci, &w);
    }
}

ssize_t mmfi_send_common(mmfi_ep *ep, const struct iovec *iov, size_t count, fi_addr_t dest,
                         uint64_t tag, uint64_t data, int has_data, int tagged, void *context,
                         uint64_t flags)
{
    uint32_t ci;
    if (mmfi_conn_of(ep, dest, &ci))
        return -FI_EINVAL;
    mmfi_conn *c = &ep->conns[ci];
    if (MM_UNLIKELY(c->dead || !c->up)) {
        int rc = conn_ready(ep, ci);
        if (rc)
            return rc;
    }
    size_t len = count == 1 ? iov[0].iov_len : 0;
    for (size_t i = 0; count != 1 && i < count; i++)
        len += iov[i].iov_len;
    int inject = !!(flags & FI_INJECT);
    if (inject && len > ep->dom->set.eager)
        return -FI_EMSGSIZE;
    uint8_t wf = (uint8_t)((tagged ? WF_TAGGED : 0) | (has_data ? WF_DATA : 0));
    void *pl;
    int shm = ep->conns[ci].ch == &mmfi_chan_shm;
    size_t eager = shm ? ep->dom->set.shm_eager : ep->dom->set.eager;
    if (len <= eager && c->credit >= len + WIRE_COST) {
        int rc = shm ? mmfi_shm_send_eager(c, wf, tag, data, iov, count, len, stamp(ep)) : 1;
        if (MM_UNLIKELY(rc == -FI_EAGAIN)) { /* the ring is full: progress once (reserve) */
            mmfi_ep_progress(ep);
            c = &ep->conns[ci]; /* (progress may have grown ep->conns) */
            if (c->dead)
                return -FI_EIO;
            rc = mmfi_shm_send_eager(c, wf, tag, data, iov, count, len, stamp(ep));
            if (rc == -FI_EAGAIN) {
                ep->c.ring_full++;
                return -FI_EAGAIN;
            }
        }
        if (MM_LIKELY(rc == 0)) {
            c->credit -= len + WIRE_COST;
            ep->c.eager_sent++;
            ep->c.bytes_sent += len;
            if (!inject)
                mmfi_report_send(ep, context, flags, tagged, 0);
            return 0;
        }
        mmfi_wire *w = reserve(ep, ci, &pl);
        if (!w)
            return ep->conns[ci].dead ? -FI_EIO : -FI_EAGAIN;
        *w = (mmfi_wire){.type = W_EAGER, .flags = wf, .len = len, .tag = tag, .data = data,
                         .t_post = stamp(ep)};
        copy_from_iov(pl, iov, count, 0, len);
        commit(ep, ci, w);
        ep->conns[ci].credit -= len + WIRE_COST;
        ep->c.eager_sent++;
        ep->c.bytes_sent += len;
        if (!inject)
            mmfi_report_send(ep, context, flags, tagged, 0);
        return 0;
    }
    if (len <= eager)
        ep->c.credit_stalls++;
    mmfi_send *s = calloc(1, sizeof *s);
    if (!s)
        return -FI_EAGAIN;
    s->context = context;
    s->flags = flags;
    if (ep->timed)
        s->t_ns = mmfi_now_ns();
    s->tag = tag;
    s->data = data;
    s->tagged = (uint8_t)tagged;
    s->has_data = (uint8_t)has_data;
    s->conn = ci;
    s->len = len;
    if (inject) { /* the caller's buffer is free on return: keep a copy */
        s->copy = malloc(len ? len : 1);
        if (!s->copy) {
            free(s);
            return -FI_EAGAIN;
        }
        copy_from_iov(s->copy, iov, count, 0, len);
        s->iov[0].iov_base = s->copy;
        s->iov[0].iov_len = len;
        s->iov_count = 1;
        s->internal = 1;
    } else {
        memcpy(s->iov, iov, count * sizeof *iov);
        s->iov_count = count;
    }
    mmfi_wire *w = reserve(ep, ci, &pl);
    if (!w) {
        free(s->copy);
        free(s);
        return ep->conns[ci].dead ? -FI_EIO : -FI_EAGAIN;
    }
    memset(w, 0, sizeof *w);
    w->type = W_RTS;
    /* the sender's iov, for process_vm_readv (from FI_MPIMATCH_CMA_MIN bytes on) */
    if (ep->dom->set.cma && shm && len >= ep->dom->set.cma_min) {
        wf |= WF_CMA;
        uint64_t *p = pl;
        p[0] = s->iov_count;
        for (size_t i = 0; i < s->iov_count; i++) {
            p[1 + 2 * i] = (uint64_t)(uintptr_t)s->iov[i].iov_base;
            p[2 + 2 * i] = s->iov[i].iov_len;
        }
    }
    w->flags = wf;
    w->len = len;
    w->tag = tag;
    w->data = data;
    w->t_post = stamp(ep);
    w->send_id = (uint64_t)(uintptr_t)s;
    commit(ep, ci, w);
    ep->c.rdv_sent++;
    mmfi_list_push(&ep->sends, &s->link);
    return 0;
}

static void complete_send(mmfi_ep *ep, mmfi_send *s, int err)
{
    mmfi_list_del(&s->link);
    if (!s->internal)
        mmfi_report_send(ep, s->context, s->flags, s->tagged, err);
    free(s->copy);
    free(s);
}

static void finish_rdv_recv(mmfi_ep *ep, mmfi_rec *r)
{
    mmfi_list_del(&r->link);
    ep->c.rdv_recv++;
    ep->c.bytes_recv += r->got;
    if (r->msg_len > r->cap) {
        ep->c.truncations++;
        mmfi_report_recv(ep, r, r->cap, r->msg_tag, r->msg_data, r->msg_has_data, r->msg_addr,
                         FI_ETRUNC, r->msg_len - r->cap);
    } else
        mmfi_report_recv(ep, r, r->msg_len, r->msg_tag, r->msg_data, r->msg_has_data,
                         r->msg_addr, 0, 0);
    mmfi_rec_free(ep, r);
}

/* A matched eager message into receive r, which is then done: the copy, the
 * completion, the credit back to connection ci. The message is an unexpected
 * record's or, matched on arrival, still in the ring (arrive_eager). */
static inline void deliver_eager(mmfi_ep *ep, mmfi_rec *r, uint32_t ci, uint64_t len,
                                 uint64_t tag, uint64_t data, int has_data, fi_addr_t addr,
                                 const void *payload)
{
    ep->c.matches++;
    size_t n = len < r->cap ? (size_t)len : r->cap;
    mmfi_copy_to_iov(r->iov, r->iov_count, 0, payload, n);
    ep->c.eager_recv++;
    ep->c.bytes_recv += n;
    if (MM_UNLIKELY(len > r->cap)) {
        ep->c.truncations++;
        mmfi_report_recv(ep, r, n, tag, data, has_data, addr, FI_ETRUNC, len - r->cap);
    } else
        mmfi_report_recv(ep, r, n, tag, data, has_data, addr, 0, 0);
    return_credit(ep, ci, len + WIRE_COST);
    mmfi_rec_free(ep, r);
}

void mmfi_deliver(mmfi_ep *ep, mmfi_rec *r, mmfi_rec *m)
{
    if (!m->rdv) {
        if (m->owned) {
            ep->conns[m->conn].held_bytes -= m->len;
            ep->c.unexp_bytes_now -= m->len;
        }
        if (m->state == REC_UNEXP || m->state == REC_CLAIMED)
            ep->c.unexp_now--;
        deliver_eager(ep, r, m->conn, m->len, m->tag, m->data, m->has_data, m->addr, m->payload);
        mmfi_rec_free(ep, m);
        return;
    }
    ep->c.matches++;
    /* Rendezvous: ask for the bytes the buffer holds. */
    if (m->state == REC_UNEXP || m->state == REC_CLAIMED)
        ep->c.unexp_now--;
    r->msg_len = m->len;
    r->msg_tag = m->tag;
    r->msg_data = m->data;
    r->msg_has_data = m->has_data;
    r->msg_addr = m->addr;
    r->msg_conn = m->conn;
    r->got = 0;
    uint64_t want = m->len < r->cap ? m->len : r->cap;
    uint32_t ci = m->conn;
    if (ep->conns[ci].dead) { /* its payload went with the sender */
        mmfi_rec_free(ep, m);
        mmfi_report_recv(ep, r, 0, r->msg_tag, r->msg_data, r->msg_has_data, r->msg_addr, FI_EIO, 0);
        mmfi_rec_free(ep, r);
        return;
    }
    r->state = REC_RDV_WAIT;
    mmfi_list_push(&ep->active, &r->link);
    if (m->riov_n && want && !ep->cma_off) {
        int rc = mmfi_cma_read(ep, ep->conns[ci].peer.pid, r, m->riov, m->riov_n, want);
        if (rc == 0) {
            mmfi_wire fin = {.type = W_FIN, .send_id = m->send_id};
            mmfi_rec_free(ep, m);
            send_ctrl(ep, ci, &fin);
            r->got = want;
            finish_rdv_recv(ep, r);
            return;
        }
        ep->c.cma_fallbacks++;
        if (rc == -EPERM || rc == -ENOSYS || rc == -EACCES) {
            ep->cma_off = 1;
            MMFI_WARN(FI_LOG_EP_DATA, "process_vm_readv: %s: large messages now go through the "
                      "shared-memory ring (segmented copy)\n", strerror(-rc));
        }
    }
    mmfi_wire w = {.type = W_CTS, .len = want, .send_id = m->send_id,
                   .recv_id = (uint64_t)(uintptr_t)r};
    mmfi_rec_free(ep, m);
    send_ctrl(ep, ci, &w);
    if (want == 0)
        finish_rdv_recv(ep, r);
}

void mmfi_discard_msg(mmfi_ep *ep, mmfi_rec *m)
{
    ep->c.unexp_now--;
    if (m->rdv) {
        mmfi_wire w = {.type = W_DISCARD, .send_id = m->send_id};
        send_ctrl(ep, m->conn, &w);
    } else {
        if (m->owned) {
            ep->conns[m->conn].held_bytes -= m->len;
            ep->c.unexp_bytes_now -= m->len;
        }
        return_credit(ep, m->conn, m->len + WIRE_COST);
    }
    mmfi_rec_free(ep, m);
}

static mmfi_send *find_send(mmfi_ep *ep, uint64_t id, uint32_t ci)
{
    for (mmfi_link *l = ep->sends.next; l != &ep->sends; l = l->next)
        if ((uint64_t)(uintptr_t)l == id && ((mmfi_send *)l)->conn == ci)
            return (mmfi_send *)l;
    return NULL;
}

static mmfi_rec *find_active(mmfi_ep *ep, uint64_t id, uint32_t ci)
{
    for (mmfi_link *l = ep->active.next; l != &ep->active; l = l->next)
        if ((uint64_t)(uintptr_t)l == id && ((mmfi_rec *)l)->msg_conn == ci)
            return (mmfi_rec *)l;
    return NULL;
}

static void count_unexpected(mmfi_ep *ep)
{
    ep->c.unexp_now++;
    if (ep->c.unexp_now > ep->c.unexp_max)
        ep->c.unexp_max = ep->c.unexp_now;
}

/* An unexpected eager message m keeps a copy of its payload (in the record up
 * to MMFI_INLINE bytes), accounted to its connection. */
static void hold_unexpected(mmfi_ep *ep, mmfi_conn *c, mmfi_rec *m, const void *payload)
{
    count_unexpected(ep);
    m->inl = m->len <= MMFI_INLINE;
    m->payload = m->inl ? (void *)m->iov : malloc(m->len ? m->len : 1);
    if (!m->payload) { /* cannot hold it: it stays queued without data (truncated) */
        m->len = 0;
        return;
    }
    memcpy(m->payload, payload, m->len);
    m->owned = 1;
    c->held_bytes += m->len;
    ep->c.unexp_bytes_now += m->len;
    if (ep->c.unexp_bytes_now > ep->c.unexp_bytes_max)
        ep->c.unexp_bytes_max = ep->c.unexp_bytes_now;
}

/* An eager message with an engine key (the keyed path). The engine's cookie
 * is the record the message would wait in, named before the call but taken
 * off the free list only if no receive matched: a matched message goes from
 * the ring into the receive's buffer without a record of its own. 1: leave
 * the cell (out of memory), try again later. */
static int arrive_eager(mmfi_ep *ep, uint32_t ci, const mmfi_wire *w, const void *payload,
                        mm_entry *key)
{
    mmfi_conn *c = &ep->conns[ci];
    mmfi_rec *m = mmfi_rec_spare(ep);
    if (MM_UNLIKELY(!m))
        return 1;
    key->cookie = (uintptr_t)m;
    uintptr_t partner = 0;
    int rc = mm_arrive(ep->eng, key, &partner);
    if (MM_UNLIKELY(rc < 0))
        return 1;
    ep->c.arrivals++;
    mmfi_profile(ep, 'M', key, w->len);
    c->rx_seq++;
    found(ep, c, w);
    int tagged = !!(w->flags & WF_TAGGED), has_data = !!(w->flags & WF_DATA);
    uint64_t tag = tagged ? w->tag : 0;
    if (rc == MM_MATCHED) {
        mmfi_rec *r = (mmfi_rec *)partner;
        r->in_engine = 0;
        mmfi_list_del(&r->link);
        deliver_eager(ep, r, ci, w->len, tag, w->data, has_data, c->fiaddr, payload);
        return 0;
    }
    mmfi_rec_take(m); /* the engine holds it now */
    m->kind = REC_MSG;
    m->tagged = (uint8_t)tagged;
    m->has_data = (uint8_t)has_data;
    m->tag = tag;
    m->data = w->data;
    m->len = w->len;
    m->send_id = w->send_id;
    m->addr = c->fiaddr;
    m->conn = ci;
    if (ep->timed)
        m->t_ns = mmfi_now_ns();
    m->key = *key;
    m->in_engine = 1;
    m->keyable = 1;
    m->state = REC_UNEXP;
    mmfi_list_push(&ep->unexp, &m->link);
    hold_unexpected(ep, c, m, payload);
    return 0;
}

int mmfi_handle_wire(mmfi_ep *ep, uint32_t ci, const mmfi_wire *w, const void *payload)
{
    mmfi_conn *c = &ep->conns[ci];
    if (c->dead)
        return 0;
    if (w->seq != c->rx_seq) {
        MMFI_WARN(FI_LOG_EP_DATA, "peer pid %d: wire sequence %u, expected %u: failing it\n",
                  (int)c->peer.pid, w->seq, c->rx_seq);
        mmfi_fail_conn(ep, ci);
        return 0;
    }
    mm_entry key;
    switch (w->type) {
    case W_EAGER:
        if (MM_LIKELY(!ep->generic) &&
            mmfi_decode_msg_fields(ep, w->flags & WF_TAGGED, w->tag, c->fiaddr, w->len, &key))
            return arrive_eager(ep, ci, w, payload, &key);
        /* keyless, or the generic path: as a rendezvous request */
        /* fall through */
    case W_RTS: {
        mmfi_rec *m = mmfi_rec_alloc(ep);
        if (!m)
            return 1; /* leave the cell; try again later */
        m->kind = REC_MSG;
        m->tagged = !!(w->flags & WF_TAGGED);
        m->has_data = !!(w->flags & WF_DATA);
        m->tag = m->tagged ? w->tag : 0;
        m->data = w->data;
        m->len = w->len;
        m->rdv = w->type == W_RTS;
        m->send_id = w->send_id;
        m->addr = c->fiaddr;
        m->conn = ci;
        m->payload = (void *)payload;
        if (m->rdv && (w->flags & WF_CMA)) {
            const uint64_t *p = payload;
            m->riov_n = (uint8_t)(p[0] <= MMFI_IOV_MAX ? p[0] : 0);
            for (size_t i = 0; i < m->riov_n; i++) {
                m->riov[i].iov_base = (void *)(uintptr_t)p[1 + 2 * i];
                m->riov[i].iov_len = (size_t)p[2 + 2 * i];
            }
        }
        mmfi_rec *r;
        int rc = mmfi_match_arrive(ep, m, &r);
        if (rc < 0) {
            mmfi_rec_free(ep, m);
            return 1;
        }
        c->rx_seq++;
        found(ep, c, w);
        if (rc == 1) {
            mmfi_deliver(ep, r, m);
            return 0;
        }
        if (m->rdv) {
            count_unexpected(ep);
            m->payload = NULL;
            return 0;
        }
        hold_unexpected(ep, c, m, payload);
        return 0;
    }
    case W_CTS: {
        c->rx_seq++;
        mmfi_send *s = find_send(ep, w->send_id, ci);
        if (!s)
            return 0;
        s->recv_id = w->recv_id;
        s->len = w->len < s->len ? w->len : s->len;
        s->state = 1;
        if (s->len == 0)
            complete_send(ep, s, 0);
        return 0;
    }
    case W_FIN:
        ep->c.cma_fins++;
        /* fall through */
    case W_DISCARD: {
        c->rx_seq++;
        mmfi_send *s = find_send(ep, w->send_id, ci);
        if (s)
            complete_send(ep, s, 0);
        return 0;
    }
    case W_DATA: {
        c->rx_seq++;
        mmfi_rec *r = find_active(ep, w->recv_id, ci);
        if (!r)
            return 0;
        mmfi_copy_to_iov(r->iov, r->iov_count, w->off, payload, (size_t)w->len);
        r->got += w->len;
        ep->c.segments_recv++;
        uint64_t want = r->msg_len < r->cap ? r->msg_len : r->cap;
        if (r->got >= want)
            finish_rdv_recv(ep, r);
        return 0;
    }
    case W_CREDIT:
        c->rx_seq++;
        c->credit += w->len;
        return 0;
    default:
        c->rx_seq++;
        MMFI_WARN(FI_LOG_EP_DATA, "peer pid %d: unknown cell type %u\n", (int)c->peer.pid, w->type);
        return 0;
    }
}

/* Control cells that waited for room, then rendezvous data. Progress calls
 * it only when one of them is pending (ep->ctrl_queued, ep->sends). */
void mmfi_push_pending(mmfi_ep *ep)
{
    if (ep->ctrl_queued) {
        size_t left = 0;
        for (size_t ci = 0; ci < ep->nconns; ci++) {
            mmfi_conn *c = &ep->conns[ci];
            void *pl;
            mmfi_wire *w;
            while (mm_fifo_len(&c->ctrl) && !c->dead && (w = c->ch->reserve(ep, c, &pl))) {
                *w = *(const mmfi_wire *)mm_fifo_front(&c->ctrl);
                mm_fifo_pop(&c->ctrl);
                commit(ep, (uint32_t)ci, w);
            }
            if (!c->dead)
                left += mm_fifo_len(&c->ctrl); /* a dead peer's wait for nothing */
        }
        ep->ctrl_queued = left;
    }
    mmfi_link *l = ep->sends.next;
    while (l != &ep->sends) {
        mmfi_send *s = (mmfi_send *)l;
        l = l->next;
        if (s->state != 1)
            continue;
        mmfi_conn *c = &ep->conns[s->conn];
        size_t pmax = c->ch->payload_max();
        void *pl;
        mmfi_wire *w;
        while (s->off < s->len && !c->dead && (w = c->ch->reserve(ep, c, &pl))) {
            size_t n = s->len - s->off < pmax ? (size_t)(s->len - s->off) : pmax;
            memset(w, 0, sizeof *w);
            w->type = W_DATA;
            w->len = n;
            w->off = s->off;
            w->recv_id = s->recv_id;
            w->send_id = (uint64_t)(uintptr_t)s;
            copy_from_iov(pl, s->iov, s->iov_count, s->off, n);
            commit(ep, s->conn, w);
            s->off += n;
            ep->c.segments_sent++;
            ep->c.bytes_sent += n;
        }
        if (s->off >= s->len)
            complete_send(ep, s, 0);
    }
}

void mmfi_fail_conn(mmfi_ep *ep, uint32_t ci)
{
    mmfi_conn *c = &ep->conns[ci];
    if (c->dead)
        return;
    c->dead = 1;
    ep->c.peer_deaths++;
    if (mmfi_peer_closed(c))
        FI_INFO(&mmfi_prov, FI_LOG_EP_DATA, "peer pid %d closed its endpoint and exited\n",
                (int)c->peer.pid);
    else
        MMFI_WARN(FI_LOG_EP_DATA, "peer pid %d (%s) died: failing its operations\n",
                  (int)c->peer.pid, c->peer.shm);
    if (mmfi_same_host(c) && kill(c->peer.pid, 0) != 0 && errno == ESRCH)
        shm_unlink(c->peer.shm); /* its inbox, on its behalf */
    for (mmfi_link *l = ep->sends.next; l != &ep->sends;) {
        mmfi_send *s = (mmfi_send *)l;
        l = l->next;
        if (s->conn == ci)
            complete_send(ep, s, FI_EIO);
    }
    for (mmfi_link *l = ep->active.next; l != &ep->active;) {
        mmfi_rec *r = (mmfi_rec *)l;
        l = l->next;
        if (r->msg_conn == ci) {
            mmfi_list_del(&r->link);
            mmfi_report_recv(ep, r, 0, r->msg_tag, 0, 0, r->msg_addr, FI_EIO, 0);
            mmfi_rec_free(ep, r);
        }
    }
    /* Receives that only this peer could satisfy would wait forever; after a
     * crash (the peer never closed its endpoint) so may ANY_SOURCE receives:
     * fail those too rather than hang. A peer that closed in order may just
     * have finished before the others. */
    int crashed = !mmfi_peer_closed(c);
    for (mmfi_link *l = ep->posted.next; l != &ep->posted;) {
        mmfi_rec *r = (mmfi_rec *)l;
        l = l->next;
        if (r->addr == FI_ADDR_UNSPEC ? !crashed : r->addr != c->fiaddr || c->fiaddr == FI_ADDR_NOTAVAIL)
            continue;
        if (r->in_engine && mm_cancel(ep->eng, r->h) != MM_MATCHED)
            continue;
        r->in_engine = 0;
        mmfi_list_del(&r->link);
        mmfi_report_recv(ep, r, 0, r->tag, 0, 0, FI_ADDR_NOTAVAIL, FI_EIO, 0);
        mmfi_rec_free(ep, r);
    }
}
