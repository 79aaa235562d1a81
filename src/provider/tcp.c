/*
 * tcp.c - the TCP channel, for peers on other hosts (and for peers that
 * FI_MPIMATCH_FORCE_TCP names, so that it is tested on one machine).
 *
 * One nonblocking socket per direction: the endpoint that sends to a peer
 * connects to the peer's listener (address and port are in mmfi_addr) and
 * first writes its own mmfi_addr, so the acceptor knows which connection the
 * frames belong to; replies (CTS, CREDIT, FIN, DISCARD) go back over the
 * peer's own socket to us. A frame is an mmfi_wire header whose `plen` says
 * how many payload bytes follow, padded to 8 bytes (headers stay aligned in
 * both buffers). The protocols of xfer.c run unchanged: reserve gives a cell
 * at the tail of the connection's send buffer (NULL when it is full: the
 * caller sees -FI_EAGAIN, like a full ring), commit appends it and writes
 * what the socket takes. Everything moves in manual progress (mmfi_tcp_poll:
 * one poll(2) over the listener and the sockets, then accept, read, write).
 *
 * A peer that closes in order sends W_BYE before closing; end of stream
 * without it, a reset or a refused connection fail the connection
 * (mmfi_fail_conn): its operations complete with FI_EIO, never hang.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mmfi.h"

#define FRAME_MAX  4096u               /* header + largest payload            */
#define RXB_CAP    (16u * FRAME_MAX)   /* bytes read per socket per poll       */
#define PAD8(n)    (((n) + 7u) & ~(size_t)7u)

static size_t tcp_payload_max(void) { return FRAME_MAX - sizeof(mmfi_wire); }

int mmfi_same_host(const mmfi_conn *c) { return c->peer.host == mmfi_host_hash(); }

int mmfi_peer_closed(const mmfi_conn *c) { return c->bye || mmfi_shm_peer_closed(c); }

static int listed(const mmfi_settings *s, fi_addr_t a)
{
    for (uint32_t i = 0; i < s->nforce && a != FI_ADDR_NOTAVAIL; i++)
        if (s->force_list[i] == a)
            return 1;
    return 0;
}

const mmfi_chan *mmfi_chan_for(mmfi_ep *ep, const mmfi_conn *c)
{
    const mmfi_settings *s = &ep->dom->set;
    if (!mmfi_same_host(c) || s->force_tcp == 1)
        return &mmfi_chan_tcp;
    if (s->force_tcp == 2 && (listed(s, c->fiaddr) || listed(s, mmfi_av_find(ep->av, &ep->name))))
        return &mmfi_chan_tcp;
    return &mmfi_chan_shm;
}

int mmfi_tcp_possible(mmfi_ep *ep)
{
    const mmfi_settings *s = &ep->dom->set;
    if (s->force_tcp == 1)
        return 1;
    if (s->force_tcp == 2 && ep->av && listed(s, mmfi_av_find(ep->av, &ep->name)))
        return 1;
    uint32_t host = ep->name.host;
    for (fi_addr_t a = 0; ep->av && a < ep->av->count; a++)
        if (ep->av->valid[a] && (ep->av->addrs[a].host != host || (s->force_tcp == 2 && listed(s, a))))
            return 1;
    return 0;
}

static int nonblock_socket(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

int mmfi_tcp_open(mmfi_ep *ep)
{
    ep->tcp_lfd = -1;
    int fd = nonblock_socket();
    if (fd < 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "TCP channel: socket: %s\n", strerror(errno));
        return -FI_EIO;
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0,
                             .sin_addr.s_addr = ep->dom->set.tcp_ip};
    socklen_t sl = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        char ip[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &ep->dom->set.tcp_ip, ip, sizeof ip);
        MMFI_WARN(FI_LOG_EP_CTRL, "TCP channel: cannot listen on %s (FI_MPIMATCH_TCP_IFACE): %s\n",
                  ip, strerror(errno));
        close(fd);
        return -FI_EIO;
    }
    ep->tcp_lfd = fd;
    ep->name.ip = ep->dom->set.tcp_adv;
    ep->name.port = sa.sin_port;
    return 0;
}

void mmfi_tcp_conn_close(mmfi_conn *c)
{
    if (c->tx_fd >= 0)
        close(c->tx_fd);
    if (c->rx_fd >= 0)
        close(c->rx_fd);
    c->tx_fd = c->rx_fd = -1;
    free(c->txb);
    free(c->rxb);
    c->txb = c->rxb = NULL;
    c->txb_head = c->txb_tail = c->txb_cap = c->rxb_len = 0;
}

/* Write what the socket takes. 0, or -1 when the connection failed (warned
 * when `report`: the caller then fails the connection). */
static int flush(mmfi_ep *ep, mmfi_conn *c, int report)
{
    while (c->txb_head < c->txb_tail) {
        ssize_t n = send(c->tx_fd, c->txb + c->txb_head, c->txb_tail - c->txb_head,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c->txb_head += (size_t)n;
            ep->c.tcp_bytes_sent += (uint64_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return 0;
        if (!report)
            return -1;
        ep->c.tcp_errors++;
        MMFI_WARN(FI_LOG_EP_DATA, "TCP channel: peer pid %d: send: %s\n", (int)c->peer.pid,
                  n < 0 ? strerror(errno) : "closed");
        return -1;
    }
    c->txb_head = c->txb_tail = 0;
    return 0;
}

static int tcp_connect(mmfi_ep *ep, mmfi_conn *c)
{
    if (c->up)
        return 0;
    if (!c->peer.port || !c->peer.ip) {
        MMFI_WARN(FI_LOG_EP_DATA, "TCP channel: peer pid %d has no TCP address\n", (int)c->peer.pid);
        return -FI_EIO;
    }
    int fd = nonblock_socket();
    if (fd < 0)
        return -FI_EIO;
    int sndbuf = (int)ep->dom->set.tcp_sndbuf;
    if (sndbuf && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) != 0)
        MMFI_WARN(FI_LOG_EP_DATA, "FI_MPIMATCH_TCP_SNDBUF=%d: %s (the system's size is kept)\n",
                  sndbuf, strerror(errno));
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = c->peer.port,
                             .sin_addr.s_addr = c->peer.ip};
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
        MMFI_WARN(FI_LOG_EP_DATA, "TCP channel: connect to peer pid %d: %s\n", (int)c->peer.pid,
                  strerror(errno));
        close(fd);
        return -FI_EIO;
    }
    size_t cap = (size_t)ep->dom->set.ring_cells * FRAME_MAX;
    c->txb = malloc(cap);
    if (!c->txb) {
        close(fd);
        return -FI_ENOMEM;
    }
    c->txb_cap = cap;
    memcpy(c->txb, &ep->name, sizeof ep->name); /* the handshake: who I am */
    c->txb_head = 0;
    c->txb_tail = sizeof ep->name;
    c->tx_fd = fd;
    c->up = 1;
    ep->tcp_conns++;
    ep->c.tcp_connects++;
    return 0;
}

static void tcp_disconnect(mmfi_conn *c)
{
    mmfi_tcp_conn_close(c);
    c->up = 0;
}

/* The callers (xfer.c) hold records of this connection: a failure found here
 * is only noted, and mmfi_tcp_poll fails the connection at a safe point. */
static mmfi_wire *tcp_reserve(mmfi_ep *ep, mmfi_conn *c, void **payload)
{
    if (c->tx_err)
        return NULL;
    /* room for a frame, and for the 7 bytes that keeping alignment may cost below */
    if (c->txb_cap - (c->txb_tail - c->txb_head) < FRAME_MAX + 8) {
        if (flush(ep, c, 1)) {
            c->tx_err = 1;
            return NULL;
        }
        if (c->txb_cap - (c->txb_tail - c->txb_head) < FRAME_MAX + 8) {
            ep->c.tcp_tx_full++;
            return NULL;
        }
    }
    if (c->txb_cap - c->txb_tail < FRAME_MAX) {
        /* Move the unsent bytes to the front. A partial write leaves the head
         * anywhere, but frames start at multiples of 8 (the header is read in
         * place): keep the head's offset mod 8, so the tail stays aligned. */
        size_t keep = c->txb_head & 7u, n = c->txb_tail - c->txb_head;
        memmove(c->txb + keep, c->txb + c->txb_head, n);
        c->txb_head = keep;
        c->txb_tail = keep + n;
    }
    char *p = c->txb + c->txb_tail;
    *payload = p + sizeof(mmfi_wire);
    return (mmfi_wire *)p;
}

static size_t wire_payload(const mmfi_wire *w)
{
    switch (w->type) {
    case W_EAGER:
    case W_DATA:
        return (size_t)w->len;
    case W_RTS: /* the sender's iov for process_vm_readv: never sent over TCP */
    default:
        return 0;
    }
}

static void tcp_commit(mmfi_ep *ep, mmfi_conn *c)
{
    mmfi_wire *w = (mmfi_wire *)(c->txb + c->txb_tail);
    size_t plen = wire_payload(w);
    w->plen = (uint16_t)plen;
    c->txb_tail += sizeof *w + PAD8(plen);
    /* On its way now, as on shared memory; what the socket does not take
     * leaves in progress. A failure is seen there too (the caller holds
     * pointers into the connection's state). */
    (void)flush(ep, c, 0);
}

const mmfi_chan mmfi_chan_tcp = {
    .name = "tcp",
    .connect = tcp_connect,
    .disconnect = tcp_disconnect,
    .reserve = tcp_reserve,
    .commit = tcp_commit,
    .payload_max = tcp_payload_max,
};

/* Hand complete frames to xfer.c; keep the rest. */
static void parse(mmfi_ep *ep, uint32_t ci)
{
    mmfi_conn *c = &ep->conns[ci];
    size_t off = 0;
    while (!c->dead && c->rxb_len - off >= sizeof(mmfi_wire)) {
        mmfi_wire w;
        memcpy(&w, c->rxb + off, sizeof w);
        if (w.plen > tcp_payload_max()) {
            MMFI_WARN(FI_LOG_EP_DATA, "TCP channel: peer pid %d: bad frame (%u bytes)\n",
                      (int)c->peer.pid, w.plen);
            mmfi_fail_conn(ep, ci);
            return;
        }
        size_t fl = sizeof w + PAD8(w.plen);
        if (c->rxb_len - off < fl)
            break;
        if (w.type == W_BYE) {
            if (w.seq == c->rx_seq) {
                c->rx_seq++;
                c->bye = 1;
            }
            off += fl;
            continue;
        }
        if (mmfi_handle_wire(ep, ci, &w, c->rxb + off + sizeof w) > 0)
            break; /* no record for it now: again at the next poll */
        c = &ep->conns[ci];
        ep->c.tcp_cells_recv++;
        off += fl;
    }
    if (off) {
        memmove(c->rxb, c->rxb + off, c->rxb_len - off);
        c->rxb_len -= off;
    }
}

/* Read from c's socket; end of stream or an error fails the connection. */
static void read_conn(mmfi_ep *ep, uint32_t ci)
{
    mmfi_conn *c = &ep->conns[ci];
    if (!c->rxb && !(c->rxb = malloc(RXB_CAP)))
        return;
    for (;;) {
        if (c->rxb_len == RXB_CAP) {
            parse(ep, ci);
            c = &ep->conns[ci];
            if (c->rxb_len == RXB_CAP || c->dead)
                return;
        }
        ssize_t n = recv(c->rx_fd, c->rxb + c->rxb_len, RXB_CAP - c->rxb_len, MSG_DONTWAIT);
        if (n > 0) {
            c->rxb_len += (size_t)n;
            ep->c.tcp_bytes_recv += (uint64_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            break;
        parse(ep, ci); /* what came before the end */
        c = &ep->conns[ci];
        if (n == 0)
            ep->c.tcp_eof++;
        else
            ep->c.tcp_errors++;
        if (!c->bye)
            MMFI_WARN(FI_LOG_EP_DATA, "TCP channel: peer pid %d: %s\n", (int)c->peer.pid,
                      n == 0 ? "connection closed without goodbye" : strerror(errno));
        close(c->rx_fd);
        c->rx_fd = -1;
        mmfi_fail_conn(ep, ci);
        return;
    }
    parse(ep, ci);
}

void mmfi_tcp_drain(mmfi_ep *ep, uint32_t ci)
{
    if (!ep->conns[ci].dead && ep->conns[ci].rx_fd >= 0)
        read_conn(ep, ci);
}

/* An accepted socket: read the peer's address, then it is that connection's. */
static int read_handshake(mmfi_ep *ep, int fd)
{
    mmfi_addr a;
    ssize_t n = recv(fd, &a, sizeof a, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (n == (ssize_t)sizeof a && a.magic == MMFI_ADDR_MAGIC) {
        (void)recv(fd, &a, sizeof a, MSG_DONTWAIT);
        a.shm[sizeof a.shm - 1] = 0;
        uint32_t ci;
        if (mmfi_conn_for_name(ep, &a, &ci) == 0 && ep->conns[ci].rx_fd < 0) {
            ep->conns[ci].rx_fd = fd;
            ep->tcp_conns++;
            read_conn(ep, ci);
            return 1;
        }
    } else if (n > 0 && n < (ssize_t)sizeof a)
        return 0; /* the rest is on its way */
    close(fd); /* closed early, not one of ours, or a second socket */
    return 1;
}

/* Write everything pending. Apart from the receiving side's poll: a polling
 * scheme that looks at the network seldom (poll.h) still sends at once. */
void mmfi_tcp_flush(mmfi_ep *ep)
{
    if (!ep->tcp_conns)
        return;
    for (size_t i = 0; i < ep->nconns; i++) {
        mmfi_conn *c = &ep->conns[i];
        if (!c->dead && c->tx_fd >= 0 && !c->tx_err && c->txb_head < c->txb_tail &&
            flush(ep, c, 1))
            c->tx_err = 1;
        if (!c->dead && c->tx_err)
            mmfi_fail_conn(ep, (uint32_t)i);
    }
}

int mmfi_tcp_poll(mmfi_ep *ep, int force)
{
    if (ep->tcp_lfd < 0)
        return -1;
    /* Only the listener so far: look at it every 64th call while a peer of
     * the AV is reached over TCP, else not at all (the liveness check, ep.c,
     * still looks every 100 ms with force, for a peer whose AV has us but not
     * ours it): an endpoint whose peers are all on shared memory makes no
     * system call in its progress loop. */
    if (!force && !ep->tcp_conns && !ep->ntcp_pend &&
        (!ep->tcp_possible || (ep->tcp_calls++ & 63)))
        return -1;
    size_t n = 1 + ep->ntcp_pend + ep->nconns;
    struct pollfd stackp[64], *pf = n <= 64 ? stackp : malloc(n * sizeof *pf);
    uint32_t stackc[64], *who = n <= 64 ? stackc : malloc(n * sizeof *who);
    if (!pf || !who) {
        if (pf != stackp)
            free(pf);
        if (who != stackc)
            free(who);
        return 0;
    }
    size_t k = 0;
    pf[k++] = (struct pollfd){.fd = ep->tcp_lfd, .events = POLLIN};
    for (size_t i = 0; i < ep->ntcp_pend; i++)
        pf[k++] = (struct pollfd){.fd = ep->tcp_pend[i], .events = POLLIN};
    size_t first_conn = k;
    for (size_t i = 0; i < ep->nconns; i++) {
        mmfi_conn *c = &ep->conns[i];
        if (c->dead)
            continue;
        if (c->rx_fd >= 0) {
            who[k] = (uint32_t)i;
            pf[k++] = (struct pollfd){.fd = c->rx_fd, .events = POLLIN};
        }
    }
    int got = poll(pf, (nfds_t)k, 0);
    mmfi_tcp_flush(ep); /* whatever poll said (EAGAIN costs little) */
    if (got > 0) {
        for (size_t j = first_conn; j < k; j++)
            if (pf[j].revents && !ep->conns[who[j]].dead)
                read_conn(ep, who[j]);
        size_t keep = 0;
        for (size_t i = 0; i < ep->ntcp_pend; i++) {
            int fd = ep->tcp_pend[i];
            if (!pf[1 + i].revents || !read_handshake(ep, fd))
                ep->tcp_pend[keep++] = fd;
        }
        ep->ntcp_pend = keep;
        if (pf[0].revents & POLLIN) {
            int fd;
            while ((fd = accept4(ep->tcp_lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                int one = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                ep->c.tcp_accepts++;
                if (read_handshake(ep, fd))
                    continue;
                int *p = realloc(ep->tcp_pend, (ep->ntcp_pend + 1) * sizeof *p);
                if (!p) {
                    close(fd);
                    continue;
                }
                ep->tcp_pend = p;
                ep->tcp_pend[ep->ntcp_pend++] = fd;
            }
        }
    }
    /* Whole frames left over when no record could be had: again now. */
    for (size_t i = 0; i < ep->nconns; i++)
        if (!ep->conns[i].dead && ep->conns[i].rxb_len >= sizeof(mmfi_wire))
            parse(ep, (uint32_t)i);
    if (pf != stackp)
        free(pf);
    if (who != stackc)
        free(who);
    return got > 0 ? got : 0;
}

void mmfi_tcp_close(mmfi_ep *ep)
{
    /* Say goodbye on every live socket and give the bytes a bounded time. */
    uint64_t t0 = mmfi_now_ns();
    for (size_t i = 0; i < ep->nconns; i++) {
        mmfi_conn *c = &ep->conns[i];
        void *pl;
        mmfi_wire *w;
        if (c->ch != &mmfi_chan_tcp || !c->up || c->dead || c->tx_fd < 0)
            continue;
        while (!(w = tcp_reserve(ep, c, &pl)) && !c->tx_err && mmfi_now_ns() - t0 < 1000000000u) {
            struct pollfd p = {.fd = c->tx_fd, .events = POLLOUT};
            poll(&p, 1, 10);
        }
        if (!w)
            continue;
        memset(w, 0, sizeof *w);
        w->type = W_BYE;
        w->seq = c->tx_seq++;
        tcp_commit(ep, c);
        while (!c->dead && c->txb_head < c->txb_tail && mmfi_now_ns() - t0 < 1000000000u) {
            if (flush(ep, c, 1))
                break;
            struct pollfd p = {.fd = c->tx_fd, .events = POLLOUT};
            if (c->txb_head < c->txb_tail)
                poll(&p, 1, 10);
        }
    }
    for (size_t i = 0; i < ep->ntcp_pend; i++)
        close(ep->tcp_pend[i]);
    free(ep->tcp_pend);
    ep->tcp_pend = NULL;
    ep->ntcp_pend = 0;
    if (ep->tcp_lfd >= 0)
        close(ep->tcp_lfd);
    ep->tcp_lfd = -1;
}
