/*
 * ep.c - endpoints: creation, binding to an AV and CQs, enabling, names,
 * connections to peers, completions, progress, and the entry points of the
 * tagged and untagged operations (which hand over to match.c and xfer.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "mmfi.h"

#define LOCK(ep)   mmfi_lock((ep)->dom)
#define UNLOCK(ep) mmfi_unlock((ep)->dom)

/* ---- connections ---- */

static int conn_new(mmfi_ep *ep, const mmfi_addr *a, uint32_t *out)
{
    if (ep->nconns == ep->conns_cap) {
        size_t cap = ep->conns_cap ? ep->conns_cap * 2 : 16;
        mmfi_conn *c = realloc(ep->conns, cap * sizeof *c);
        if (!c)
            return -FI_ENOMEM;
        ep->conns = c;
        ep->conns_cap = cap;
    }
    mmfi_conn *c = &ep->conns[ep->nconns];
    memset(c, 0, sizeof *c);
    c->peer = *a;
    c->ch = NULL; /* chosen at the first connect (mmfi_chan_for) */
    c->tx_fd = c->rx_fd = -1;
    c->fiaddr = mmfi_av_find(ep->av, a);
    c->rx_slot = -1;
    c->tx_seq = ep->dom->set.seq_start;
    c->rx_seq = ep->dom->set.seq_start;
    c->credit = ep->dom->set.credit;
    mm_fifo_init(&c->ctrl, sizeof(mmfi_wire), 16, &ep->ctrl_mem);
    *out = (uint32_t)ep->nconns++;
    return 0;
}

int mmfi_conn_for_name(mmfi_ep *ep, const mmfi_addr *a, uint32_t *out)
{
    for (size_t i = 0; i < ep->nconns; i++) {
        const mmfi_addr *p = &ep->conns[i].peer;
        if (p->pid == a->pid && p->epid == a->epid && p->host == a->host && !strcmp(p->shm, a->shm)) {
            *out = (uint32_t)i;
            return 0;
        }
    }
    return conn_new(ep, a, out);
}

/* Refresh the fi_addr of every connection after the AV changed. */
static void sync_av_changed(mmfi_ep *ep);

static inline void sync_av(mmfi_ep *ep)
{
    if (MM_UNLIKELY(ep->av && ep->av_gen != ep->av->gen))
        sync_av_changed(ep);
}

static void sync_av_changed(mmfi_ep *ep)
{
    ep->av_gen = ep->av->gen;
    ep->tcp_possible = mmfi_tcp_possible(ep);
    ep->local_procs = 0;
    for (fi_addr_t a = 0; a < ep->av->count; a++)
        ep->local_procs += ep->av->valid[a] && ep->av->addrs[a].host == ep->name.host;
    ep->yield = mmfi_ep_wants_yield(ep);
    int found_new = 0;
    for (size_t i = 0; i < ep->nconns; i++) {
        fi_addr_t was = ep->conns[i].fiaddr;
        ep->conns[i].fiaddr = mmfi_av_find(ep->av, &ep->conns[i].peer);
        found_new |= was == FI_ADDR_NOTAVAIL && ep->conns[i].fiaddr != FI_ADDR_NOTAVAIL;
    }
    /* a peer that sent before the AV had it: its messages under their source now */
    if (found_new && ep->eng)
        mmfi_match_rekey(ep);
    if (ep->av_conn_cap < ep->av->count) {
        uint32_t *m = realloc(ep->av_conn, ep->av->cap * sizeof *m);
        if (!m) { /* no fast lookup for the new entries; none stale for the old */
            if (ep->av_conn)
                memset(ep->av_conn, 0, ep->av_conn_cap * sizeof *ep->av_conn);
            return;
        }
        ep->av_conn = m;
        ep->av_conn_cap = ep->av->cap;
    }
    memset(ep->av_conn, 0, ep->av_conn_cap * sizeof *ep->av_conn);
    for (size_t i = 0; i < ep->nconns; i++)
        if (ep->conns[i].fiaddr != FI_ADDR_NOTAVAIL && ep->conns[i].fiaddr < ep->av_conn_cap)
            ep->av_conn[ep->conns[i].fiaddr] = (uint32_t)i + 1;
    if (!ep->enabled)
        return;
    /* Attach to every same-host peer now (shm.c: inboxes lose their names
     * once everyone is attached). A peer that cannot be reached fails later,
     * at its first send. */
    ep->expect_attach = 0;
    for (fi_addr_t a = 0; a < ep->av->count; a++) {
        uint32_t ci;
        if (!ep->av->valid[a] || mmfi_conn_for_addr(ep, a, &ci))
            continue;
        mmfi_conn *c = &ep->conns[ci];
        if (!c->ch)
            c->ch = mmfi_chan_for(ep, c);
        if (c->ch == &mmfi_chan_shm)
            ep->expect_attach++;
        if (!c->up && !c->dead)
            (void)c->ch->connect(ep, c);
    }
}

/* mmfi_conn_for_addr after sync_av: the AV is current. */
static int conn_for_addr_synced(mmfi_ep *ep, fi_addr_t a, uint32_t *out)
{
    /* av_conn[a] is set only for entries valid at the last sync (sync_av_changed) */
    if (MM_LIKELY(a < ep->av_conn_cap && ep->av_conn[a])) {
        *out = ep->av_conn[a] - 1;
        return 0;
    }
    if (!ep->av || a >= ep->av->count || !ep->av->valid[a])
        return -FI_EINVAL;
    int rc = mmfi_conn_for_name(ep, &ep->av->addrs[a], out);
    if (rc)
        return rc;
    /* The connection's fi_addr is the first valid AV entry of the peer's address,
     * whichever entry a sends through: Open MPI inserts a peer again for every
     * intercommunicator (add_procs), and arrivals are keyed by this fi_addr, so
     * it must not move with the entry last used (a receive directed at one
     * entry then missed a message keyed by another: test_provider avdup). */
    ep->conns[*out].fiaddr = mmfi_av_find(ep->av, &ep->av->addrs[a]);
    if (a < ep->av_conn_cap)
        ep->av_conn[a] = *out + 1;
    return 0;
}

int mmfi_conn_for_addr(mmfi_ep *ep, fi_addr_t a, uint32_t *out)
{
    sync_av(ep);
    return conn_for_addr_synced(ep, a, out);
}

/* A directed receive's source as arrivals are keyed: the first valid AV entry
 * of the same address (the connection's fi_addr), so a receive directed at a
 * duplicate entry of a peer meets that peer's messages. An unknown or invalid
 * fi_addr stays as it is (it matches nothing). */
static inline fi_addr_t canonical_src(mmfi_ep *ep, fi_addr_t src)
{
    uint32_t ci;
    if (src == FI_ADDR_UNSPEC || conn_for_addr_synced(ep, src, &ci))
        return src;
    return ep->conns[ci].fiaddr != FI_ADDR_NOTAVAIL ? ep->conns[ci].fiaddr : src;
}

/* ---- progress ---- */

#define LIVENESS_NS 100000000u /* check peers' processes every 100 ms */

void mmfi_ep_progress(mmfi_ep *ep)
{
    if (!ep->enabled)
        return;
    sync_av(ep);
    if (ep->inbox_linked)
        mmfi_shm_unlink_when_attached(ep, ep->expect_attach);
    /* The polling scheme (poll.h): shared memory at every call, the network
     * at every call (rr) or every ratio-th (static, dynamic). */
    mmfi_poll_looked(&ep->poll, MMFI_CH_SHM, mmfi_shm_poll(ep, 64));
    if (mmfi_poll_net_due(&ep->poll)) {
        /* (mmfi_tcp_poll looks at nothing without a socket or a TCP peer) */
        int got = ep->tcp_conns || ep->ntcp_pend || ep->tcp_possible ? mmfi_tcp_poll(ep, 0) : -1;
        if (got >= 0)
            mmfi_poll_looked(&ep->poll, MMFI_CH_NET, got);
    } else if (ep->tcp_conns)
        mmfi_tcp_flush(ep);
    /* control cells that waited for room, rendezvous sends (xfer.c) */
    if (ep->ctrl_queued || !mmfi_list_empty(&ep->sends))
        mmfi_push_pending(ep);
    mmfi_dump_poll(ep);
    if ((++ep->polls & 255) == 0) {
        uint64_t now = mmfi_now_ns();
        if (now - ep->last_check_ns > LIVENESS_NS) {
            ep->last_check_ns = now;
            uint32_t ci;
            for (fi_addr_t a = 0; ep->av && a < ep->av->count; a++)
                if (ep->av->valid[a])
                    (void)mmfi_conn_for_addr(ep, a, &ci);
            mmfi_tcp_poll(ep, 1); /* goodbyes of peers that are gone, before kill(2) says so */
            for (size_t i = 0; i < ep->nconns; i++)
                if (!ep->conns[i].dead && mmfi_same_host(&ep->conns[i]) &&
                    kill(ep->conns[i].peer.pid, 0) != 0 && errno == ESRCH) {
                    mmfi_tcp_drain(ep, (uint32_t)i); /* its goodbye may be unread */
                    mmfi_fail_conn(ep, (uint32_t)i);
                }
        }
    }
}

int mmfi_ep_wants_yield(const mmfi_ep *ep)
{
    const mmfi_settings *s = &ep->dom->set;
    if (s->yield != MMFI_YIELD_AUTO)
        return s->yield == MMFI_YIELD_ALWAYS;
    return s->ncpus > 0 && ep->local_procs > (size_t)s->ncpus;
}

/* ---- fid ops ---- */

static int ep_close(struct fid *fid)
{
    mmfi_ep *ep = container_of(fid, mmfi_ep, ep.fid);
    mmfi_domain *d = ep->dom;
    pthread_mutex_lock(&d->lock);
    if (ep->enabled) {
        mmfi_ep_progress(ep); /* connects to every AV peer: all get our goodbye (tcp.c) */
        /* Push what can still be pushed (rendezvous data of matched sends). */
        for (int i = 0; i < 1000 && !mmfi_list_empty(&ep->sends); i++) {
            mmfi_shm_poll(ep, 64);
            mmfi_tcp_poll(ep, 0);
            mmfi_push_pending(ep);
        }
        mmfi_dump_close(ep);
        mmfi_stats_write(ep);
    }
    mmfi_tcp_close(ep);
    mmfi_match_close(ep);
    while (!mmfi_list_empty(&ep->sends)) {
        mmfi_send *s = (mmfi_send *)ep->sends.next;
        mmfi_list_del(&s->link);
        free(s->copy);
        free(s);
    }
    for (size_t i = 0; i < ep->nconns; i++) {
        if (ep->conns[i].ch)
            ep->conns[i].ch->disconnect(&ep->conns[i]);
        mmfi_tcp_conn_close(&ep->conns[i]);
        mm_fifo_destroy(&ep->conns[i].ctrl);
    }
    free(ep->conns);
    free(ep->av_conn);
    mmfi_shm_close(ep);
    mmfi_cq *cqs[2] = {ep->tx_cq, ep->rx_cq == ep->tx_cq ? NULL : ep->rx_cq};
    for (int k = 0; k < 2; k++) {
        mmfi_cq *cq = cqs[k];
        for (int i = 0; cq && i < cq->neps; i++)
            if (cq->eps[i] == ep) {
                cq->eps[i] = cq->eps[--cq->neps];
                cq->refs--;
                break;
            }
    }
    if (ep->av)
        ep->av->refs--;
    d->refs--;
    pthread_mutex_unlock(&d->lock);
    free(ep);
    return 0;
}

static int ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
    mmfi_ep *ep = container_of(fid, mmfi_ep, ep.fid);
    int rc = 0;
    LOCK(ep);
    if (ep->enabled)
        rc = -FI_EINVAL;
    else if (bfid->fclass == FI_CLASS_AV) {
        mmfi_av *av = container_of(bfid, mmfi_av, av.fid);
        if (ep->av)
            rc = -FI_EINVAL;
        else {
            ep->av = av;
            av->refs++;
        }
    } else if (bfid->fclass == FI_CLASS_CQ) {
        mmfi_cq *cq = container_of(bfid, mmfi_cq, cq.fid);
        if (!(flags & (FI_TRANSMIT | FI_RECV)))
            rc = -FI_EINVAL;
        else if ((flags & FI_TRANSMIT && ep->tx_cq) || (flags & FI_RECV && ep->rx_cq))
            rc = -FI_EINVAL;
        else {
            int found = 0;
            for (int i = 0; i < cq->neps; i++)
                found |= cq->eps[i] == ep;
            if (!found) {
                if (cq->neps == MMFI_CQ_MAX_EPS)
                    rc = -FI_ENOSPC;
                else {
                    cq->eps[cq->neps++] = ep;
                    cq->refs++;
                }
            }
            if (!rc && flags & FI_TRANSMIT) {
                ep->tx_cq = cq;
                ep->tx_bind = flags;
            }
            if (!rc && flags & FI_RECV) {
                ep->rx_cq = cq;
                ep->rx_bind = flags;
            }
        }
    } else
        rc = -FI_ENOSYS;
    UNLOCK(ep);
    return rc;
}

static int ep_enable(mmfi_ep *ep)
{
    if (ep->enabled)
        return 0;
    if (!ep->av || !ep->tx_cq || !ep->rx_cq) {
        MMFI_WARN(FI_LOG_EP_CTRL, "fi_enable: bind an AV and a CQ for FI_TRANSMIT and FI_RECV first\n");
        return -FI_ENOCQ;
    }
    int rc = mmfi_match_open(ep);
    if (rc)
        return rc;
    ep->enabled = 1;
    ep->av_gen = ep->av->gen - 1; /* attach to what the AV already holds */
    mmfi_dump_open(ep);
    return 0;
}

static int ep_control(struct fid *fid, int command, void *arg)
{
    (void)arg;
    mmfi_ep *ep = container_of(fid, mmfi_ep, ep.fid);
    int rc;
    LOCK(ep);
    switch (command) {
    case FI_ENABLE:
        rc = ep_enable(ep);
        break;
    case FI_GETOPSFLAG: {
        uint64_t *f = arg;
        rc = 0;
        if (*f & FI_TRANSMIT)
            *f = ep->tx_op_flags;
        else if (*f & FI_RECV)
            *f = ep->rx_op_flags;
        else
            rc = -FI_EINVAL;
        break;
    }
    case FI_SETOPSFLAG: {
        uint64_t *f = arg;
        rc = 0;
        if (*f & FI_TRANSMIT)
            ep->tx_op_flags = *f & ~(uint64_t)FI_TRANSMIT;
        else if (*f & FI_RECV)
            ep->rx_op_flags = *f & ~(uint64_t)FI_RECV;
        else
            rc = -FI_EINVAL;
        break;
    }
    default:
        rc = -FI_ENOSYS;
    }
    UNLOCK(ep);
    return rc;
}

static struct fi_ops ep_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = ep_close,
    .bind = ep_bind,
    .control = ep_control,
    .ops_open = mmfi_no_ops_open,
};

static ssize_t ep_cancel(fid_t fid, void *context)
{
    mmfi_ep *ep = container_of(fid, mmfi_ep, ep.fid);
    LOCK(ep);
    int rc = ep->enabled ? mmfi_match_cancel(ep, context) : -FI_EOPBADSTATE;
    UNLOCK(ep);
    return rc;
}

static int ep_getopt(fid_t fid, int level, int optname, void *optval, size_t *optlen)
{
    (void)fid;
    if (level != FI_OPT_ENDPOINT)
        return -FI_ENOPROTOOPT;
    if (optname == FI_OPT_MIN_MULTI_RECV || optname == FI_OPT_CM_DATA_SIZE) {
        if (*optlen < sizeof(size_t))
            return -FI_ETOOSMALL;
        *(size_t *)optval = 0;
        *optlen = sizeof(size_t);
        return 0;
    }
    return -FI_ENOPROTOOPT;
}

static int ep_setopt(fid_t fid, int level, int optname, const void *optval, size_t optlen)
{
    (void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
    return -FI_ENOPROTOOPT;
}

static int no_ctx(struct fid_ep *s, int i, struct fi_tx_attr *a, struct fid_ep **e, void *c)
{ (void)s; (void)i; (void)a; (void)e; (void)c; return -FI_ENOSYS; }
static int no_rctx(struct fid_ep *s, int i, struct fi_rx_attr *a, struct fid_ep **e, void *c)
{ (void)s; (void)i; (void)a; (void)e; (void)c; return -FI_ENOSYS; }
static ssize_t size_left(struct fid_ep *e) { (void)e; return 1 << 16; }

static struct fi_ops_ep ep_ops = {
    .size = sizeof(struct fi_ops_ep),
    .cancel = ep_cancel,
    .getopt = ep_getopt,
    .setopt = ep_setopt,
    .tx_ctx = no_ctx,
    .rx_ctx = no_rctx,
    .rx_size_left = size_left,
    .tx_size_left = size_left,
};

/* ---- cm: names ---- */

static int cm_getname(fid_t fid, void *addr, size_t *addrlen)
{
    mmfi_ep *ep = container_of(fid, mmfi_ep, ep.fid);
    size_t have = *addrlen;
    *addrlen = sizeof(mmfi_addr);
    if (have < sizeof(mmfi_addr))
        return -FI_ETOOSMALL;
    memcpy(addr, &ep->name, sizeof(mmfi_addr));
    return 0;
}
static int cm_setname(fid_t f, void *a, size_t l) { (void)f; (void)a; (void)l; return -FI_ENOSYS; }
static int cm_getpeer(struct fid_ep *e, void *a, size_t *l) { (void)e; (void)a; (void)l; return -FI_ENOSYS; }
static int cm_connect(struct fid_ep *e, const void *a, const void *p, size_t l)
{ (void)e; (void)a; (void)p; (void)l; return -FI_ENOSYS; }
static int cm_listen(struct fid_pep *p) { (void)p; return -FI_ENOSYS; }
static int cm_accept(struct fid_ep *e, const void *p, size_t l) { (void)e; (void)p; (void)l; return -FI_ENOSYS; }
static int cm_reject(struct fid_pep *pe, fid_t h, const void *p, size_t l)
{ (void)pe; (void)h; (void)p; (void)l; return -FI_ENOSYS; }
static int cm_shutdown(struct fid_ep *e, uint64_t f) { (void)e; (void)f; return -FI_ENOSYS; }
static int cm_join(struct fid_ep *e, const void *a, uint64_t f, struct fid_mc **mc, void *c)
{ (void)e; (void)a; (void)f; (void)mc; (void)c; return -FI_ENOSYS; }

static struct fi_ops_cm cm_ops = {
    .size = sizeof(struct fi_ops_cm),
    .setname = cm_setname,
    .getname = cm_getname,
    .getpeer = cm_getpeer,
    .connect = cm_connect,
    .listen = cm_listen,
    .accept = cm_accept,
    .reject = cm_reject,
    .shutdown = cm_shutdown,
    .join = cm_join,
};

/* ---- receives ---- */

static ssize_t post_recv(mmfi_ep *ep, const struct iovec *iov, size_t count, fi_addr_t src,
                         uint64_t tag, uint64_t ignore, void *context, uint64_t flags, int tagged)
{
    if (count > MMFI_IOV_MAX)
        return -FI_EINVAL;
    LOCK(ep);
    if (!ep->enabled) {
        UNLOCK(ep);
        return -FI_EOPBADSTATE;
    }
    /* A probe answers from what has arrived: progress first. A receive does
     * not need it: a message still in a ring meets the receive when progress
     * reads it (the receive is then queued, earlier than any receive posted
     * after that read), exactly as if it had been read first and waited. */
    if (flags & FI_PEEK)
        mmfi_ep_progress(ep);
    else
        sync_av(ep); /* attach to new peers now, as progress would (a test when none) */
    mmfi_rec *r = mmfi_rec_alloc(ep); /* from the free list: a freed receive is reused */
    if (!r) {
        UNLOCK(ep);
        return -FI_EAGAIN;
    }
    r->kind = REC_RECV;
    r->tagged = (uint8_t)tagged;
    r->tag = tagged ? tag : 0;
    r->ignore = tagged ? ignore : 0;
    r->addr = (ep->caps & FI_DIRECTED_RECV) ? canonical_src(ep, src) : FI_ADDR_UNSPEC;
    r->context = context;
    r->flags = flags;
    r->iov_count = count;
    for (size_t i = 0; i < count; i++) {
        r->iov[i] = iov[i];
        r->cap += iov[i].iov_len;
    }
    int rc = mmfi_match_post(ep, r);
    UNLOCK(ep);
    return rc;
}

static ssize_t t_recv(struct fid_ep *fep, void *buf, size_t len, void *desc, fi_addr_t src,
                      uint64_t tag, uint64_t ignore, void *context)
{
    (void)desc;
    mmfi_ep *ep = container_of(fep, mmfi_ep, ep);
    struct iovec iov = {buf, len};
    return post_recv(ep, &iov, 1, src, tag, ignore, context, ep->rx_op_flags, 1);
}

static ssize_t t_recvv(struct fid_ep *fep, const struct iovec *iov, void **desc, size_t count,
                       fi_addr_t src, uint64_t tag, uint64_t ignore, void *context)
{
    (void)desc;
    mmfi_ep *ep = container_of(fep, mmfi_ep, ep);
    return post_recv(ep, iov, count, src, tag, ignore, context, ep->rx_op_flags, 1);
}

static ssize_t t_recvmsg(struct fid_ep *fep, const struct fi_msg_tagged *m, uint64_t flags)
{
    mmfi_ep *ep = container_of(fep, mmfi_ep, ep);
    return post_recv(ep, m->msg_iov, m->iov_count, m->addr, m->tag, m->ignore, m->context,
                     flags, 1);
}

static ssize_t m_recv(struct fid_ep *fep, void *buf, size_t len, void *desc, fi_addr_t src,
                      void *context)
{
    (void)desc;
    mmfi_ep *ep = container_of(fep, mmfi_ep, ep);
    struct iovec iov = {buf, len};
    return post_recv(ep, &iov, 1, src, 0, 0, context, ep->rx_op_flags, 0);
}

static ssize_t m_recvv(struct fid_ep *fep, const struct iovec *iov, void **desc, size_t count,
                       fi_addr_t src, void *context)
{
    (void)desc;
    mmfi_ep *ep = container_of(fep, mmfi_ep, ep);
    return post_recv(ep, iov, count, src, 0, 0, context, ep->rx_op_flags, 0);
}

static ssize_t m_recvmsg(struct fid_ep *fep, const struct fi_msg *m, uint64_t flags)
{
    mmfi_ep *ep = container_of(fep, mmfi_ep, ep);
    if (flags & (FI_PEEK | FI_CLAIM | FI_DISCARD))
        return -FI_EINVAL;
    return post_recv(ep, m->msg_iov, m->iov_count, m->addr, 0, 0, m->context, flags, 0);
}

/* ---- sends ---- */

static ssize_t do_send(mmfi_ep *ep, const struct iovec *iov, size_t count, fi_addr_t dest,
                       uint64_t tag, uint64_t data, int has_data, int tagged, void *context,
                       uint64_t flags)
{
    if (count > MMFI_IOV_MAX)
        return -FI_EINVAL;
    LOCK(ep);
    ssize_t rc = ep->enabled ? mmfi_send_common(ep, iov, count, dest, tag, data, has_data, tagged,
                                                context, flags)
                             : -FI_EOPBADSTATE;
    UNLOCK(ep);
    return rc;
}

#define SEND1(buf, len) struct iovec iov = {(void *)(buf), (len)}
#define EPOF(fep) container_of(fep, mmfi_ep, ep)

static ssize_t t_send(struct fid_ep *fep, const void *buf, size_t len, void *desc, fi_addr_t dest,
                      uint64_t tag, void *context)
{
    (void)desc; SEND1(buf, len);
    return do_send(EPOF(fep), &iov, 1, dest, tag, 0, 0, 1, context, EPOF(fep)->tx_op_flags);
}
static ssize_t t_sendv(struct fid_ep *fep, const struct iovec *iov, void **desc, size_t count,
                       fi_addr_t dest, uint64_t tag, void *context)
{
    (void)desc;
    return do_send(EPOF(fep), iov, count, dest, tag, 0, 0, 1, context, EPOF(fep)->tx_op_flags);
}
static ssize_t t_sendmsg(struct fid_ep *fep, const struct fi_msg_tagged *m, uint64_t flags)
{
    return do_send(EPOF(fep), m->msg_iov, m->iov_count, m->addr, m->tag, m->data,
                   !!(flags & FI_REMOTE_CQ_DATA), 1, m->context, flags);
}
static ssize_t t_inject(struct fid_ep *fep, const void *buf, size_t len, fi_addr_t dest, uint64_t tag)
{
    SEND1(buf, len);
    return do_send(EPOF(fep), &iov, 1, dest, tag, 0, 0, 1, NULL, FI_INJECT);
}
static ssize_t t_senddata(struct fid_ep *fep, const void *buf, size_t len, void *desc, uint64_t data,
                          fi_addr_t dest, uint64_t tag, void *context)
{
    (void)desc; SEND1(buf, len);
    return do_send(EPOF(fep), &iov, 1, dest, tag, data, 1, 1, context, EPOF(fep)->tx_op_flags);
}
static ssize_t t_injectdata(struct fid_ep *fep, const void *buf, size_t len, uint64_t data,
                            fi_addr_t dest, uint64_t tag)
{
    SEND1(buf, len);
    return do_send(EPOF(fep), &iov, 1, dest, tag, data, 1, 1, NULL, FI_INJECT);
}

static ssize_t m_send(struct fid_ep *fep, const void *buf, size_t len, void *desc, fi_addr_t dest,
                      void *context)
{
    (void)desc; SEND1(buf, len);
    return do_send(EPOF(fep), &iov, 1, dest, 0, 0, 0, 0, context, EPOF(fep)->tx_op_flags);
}
static ssize_t m_sendv(struct fid_ep *fep, const struct iovec *iov, void **desc, size_t count,
                       fi_addr_t dest, void *context)
{
    (void)desc;
    return do_send(EPOF(fep), iov, count, dest, 0, 0, 0, 0, context, EPOF(fep)->tx_op_flags);
}
static ssize_t m_sendmsg(struct fid_ep *fep, const struct fi_msg *m, uint64_t flags)
{
    return do_send(EPOF(fep), m->msg_iov, m->iov_count, m->addr, 0, m->data,
                   !!(flags & FI_REMOTE_CQ_DATA), 0, m->context, flags);
}
static ssize_t m_inject(struct fid_ep *fep, const void *buf, size_t len, fi_addr_t dest)
{
    SEND1(buf, len);
    return do_send(EPOF(fep), &iov, 1, dest, 0, 0, 0, 0, NULL, FI_INJECT);
}
static ssize_t m_senddata(struct fid_ep *fep, const void *buf, size_t len, void *desc, uint64_t data,
                          fi_addr_t dest, void *context)
{
    (void)desc; SEND1(buf, len);
    return do_send(EPOF(fep), &iov, 1, dest, 0, data, 1, 0, context, EPOF(fep)->tx_op_flags);
}
static ssize_t m_injectdata(struct fid_ep *fep, const void *buf, size_t len, uint64_t data,
                            fi_addr_t dest)
{
    SEND1(buf, len);
    return do_send(EPOF(fep), &iov, 1, dest, 0, data, 1, 0, NULL, FI_INJECT);
}

static struct fi_ops_tagged tagged_ops = {
    .size = sizeof(struct fi_ops_tagged),
    .recv = t_recv, .recvv = t_recvv, .recvmsg = t_recvmsg,
    .send = t_send, .sendv = t_sendv, .sendmsg = t_sendmsg,
    .inject = t_inject, .senddata = t_senddata, .injectdata = t_injectdata,
};

static struct fi_ops_msg msg_ops = {
    .size = sizeof(struct fi_ops_msg),
    .recv = m_recv, .recvv = m_recvv, .recvmsg = m_recvmsg,
    .send = m_send, .sendv = m_sendv, .sendmsg = m_sendmsg,
    .inject = m_inject, .senddata = m_senddata, .injectdata = m_injectdata,
};

int mmfi_ep_open(struct fid_domain *domain, struct fi_info *info, struct fid_ep **out,
                 void *context)
{
    mmfi_domain *d = container_of(domain, mmfi_domain, dom);
    if (!info || (info->ep_attr && info->ep_attr->type != FI_EP_RDM &&
                  info->ep_attr->type != FI_EP_UNSPEC))
        return -FI_EINVAL;
    mmfi_ep *ep = calloc(1, sizeof *ep);
    if (!ep)
        return -FI_ENOMEM;
    ep->dom = d;
    ep->sample_fd = -1;
    ep->profiling = d->set.profile_dir[0] != 0;
    ep->yield = d->set.yield == MMFI_YIELD_ALWAYS;
    mmfi_poll_init(&ep->poll, d->set.poll, d->set.poll_ratio, d->set.poll_history);
    ep->caps = info->caps ? info->caps : (FI_TAGGED | FI_MSG | FI_DIRECTED_RECV | FI_SOURCE);
    ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
    ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
    mmfi_list_init(&ep->posted);
    mmfi_list_init(&ep->unexp);
    mmfi_list_init(&ep->sends);
    mmfi_list_init(&ep->active);
    mmfi_list_init(&ep->claimed);
    mmfi_list_init(&ep->free_recs);
    mmfi_shm_sweep_stale();
    int rc = mmfi_shm_open(ep);
    if (rc) {
        free(ep);
        return rc;
    }
    rc = mmfi_tcp_open(ep);
    if (rc) {
        mmfi_shm_close(ep);
        free(ep);
        return rc;
    }
    ep->ep.fid.fclass = FI_CLASS_EP;
    ep->ep.fid.context = context;
    ep->ep.fid.ops = &ep_fi_ops;
    ep->ep.ops = &ep_ops;
    ep->ep.cm = &cm_ops;
    ep->ep.msg = &msg_ops;
    ep->ep.tagged = &tagged_ops;
    ep->ep.rma = NULL;
    ep->ep.atomic = NULL;
    ep->ep.collective = NULL;
    pthread_mutex_lock(&d->lock);
    d->refs++;
    pthread_mutex_unlock(&d->lock);
    *out = &ep->ep;
    return 0;
}
