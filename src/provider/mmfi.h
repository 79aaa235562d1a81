/*
 * mmfi.h - the internal header of libmpimatch-fi.so, the libfabric provider
 * "mpimatch" (docs/provider.md).
 *
 * Objects: fabric -> domain -> {av, cq, ep}. An endpoint owns one libmpimatch
 * engine (match.c), its receive and unexpected-message records, its inbox on
 * the shared-memory channel (shm.c) and one connection per peer it talks to.
 * Every entry point takes the domain lock; everything below assumes it held.
 */
#ifndef MMFI_H
#define MMFI_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include <stddef.h>
#include <string.h>

#include "mpimatch.h"
#include "core/fifo.h"
#include "poll.h"

#define MMFI_NAME      "mpimatch"
#define MMFI_VERSION   FI_VERSION(0, 1)
#define MMFI_API       FI_VERSION(1, 17)
#define MMFI_IOV_MAX   8
#define MMFI_ADDR_MAGIC 0x6d6d6669u /* "mmfi" */

extern struct fi_provider mmfi_prov;

#define MMFI_WARN(subsys, ...) FI_WARN(&mmfi_prov, subsys, __VA_ARGS__)

/* ---- settings (prov.c): read and checked once per fi_getinfo / fi_domain ---- */
typedef struct mmfi_settings {
    char     engine[64];   /* FI_MPIMATCH_ENGINE                          */
    uint32_t hints;        /* FI_MPIMATCH_HINTS                           */
    size_t   eager;        /* FI_MPIMATCH_EAGER: largest eager message    */
    size_t   credit;       /* FI_MPIMATCH_CREDIT: eager bytes in flight per peer */
    uint32_t ring_cells;   /* FI_MPIMATCH_RING_CELLS                      */
    uint32_t seq_start;    /* FI_MPIMATCH_SEQ_START (tests: start near the wrap) */
    uint32_t tcp_sndbuf;   /* FI_MPIMATCH_TCP_SNDBUF (tests: partial writes; 0 system's) */
    int      cma;          /* FI_MPIMATCH_CMA: 1 (default) kernel-assisted copy */
    int      layout;       /* FI_MPIMATCH_LAYOUT                          */
    int      max_peers;    /* FI_MPIMATCH_MAX_PEERS: engine source range  */
    char     stats_dir[512]; /* FI_MPIMATCH_STATS                         */
    uint64_t stats_interval_ns; /* FI_MPIMATCH_STATS_INTERVAL (ms): samples, 0 none */
    char     dump_dir[512];  /* FI_MPIMATCH_DUMP: snapshots on a signal    */
    char     profile_dir[512]; /* FI_MPIMATCH_PROFILE: matching event streams */
    int      dump_signal;    /* FI_MPIMATCH_DUMP_SIGNAL (default SIGUSR2)  */
    uint32_t tcp_ip;       /* FI_MPIMATCH_TCP_IFACE: IPv4 to listen on (network order) */
    uint32_t tcp_adv;      /* the IPv4 peers are given (tcp_ip, or an interface's when tcp_ip is any) */
    int      force_tcp;    /* FI_MPIMATCH_FORCE_TCP: 0 none, 1 all, 2 the list */
    uint32_t force_list[64]; /* AV indices (MPI ranks) treated as on another host */
    uint32_t nforce;
    int      yield;        /* FI_MPIMATCH_YIELD: MMFI_YIELD_AUTO, _ALWAYS or _NEVER */
    uint32_t spin;         /* FI_MPIMATCH_SPIN: empty CQ reads before each yield */
    long     ncpus;        /* online processors (auto: oversubscribed above this) */
    /* channel polling and thresholds (poll.h, tuning.c; docs/provider.md#polling) */
    int      poll;         /* FI_MPIMATCH_POLL: MMFI_POLL_RR, _STATIC or _DYNAMIC */
    uint32_t poll_ratio;   /* FI_MPIMATCH_POLL_RATIO: static shm polls per network poll */
    uint32_t poll_history; /* FI_MPIMATCH_POLL_HISTORY: dynamic update rate    */
    size_t   shm_eager;    /* FI_MPIMATCH_SHM_EAGER: largest eager message over shared memory */
    uint64_t cma_min;      /* FI_MPIMATCH_CMA_MIN: smallest message read with process_vm_readv */
    char     tuning[512];  /* FI_MPIMATCH_TUNING: the file the values above came from */
} mmfi_settings;

enum { MMFI_YIELD_AUTO = 0, MMFI_YIELD_ALWAYS = 1, MMFI_YIELD_NEVER = 2 };

enum { MMFI_LAYOUT_OMPI = 0, MMFI_LAYOUT_NONE = 1 };

int mmfi_settings_read(mmfi_settings *s); /* 0 or -FI_EINVAL (warned) */
/* FI_MPIMATCH_CMA_MIN's default, measured on the development machine (docs/provider.md). */
#define MMFI_CMA_MIN_DEFAULT 65536u

/* ---- addresses: what fi_getname returns and fi_av_insert takes ---- */
typedef struct mmfi_addr {
    uint32_t magic;
    uint32_t host;      /* hash of the host name: same host <=> shm reachable */
    int32_t  pid;
    uint32_t epid;      /* endpoint number inside the process */
    char     shm[40];   /* name of the endpoint's inbox segment */
    uint32_t ip;        /* TCP channel: listening IPv4 address (network order) */
    uint16_t port;      /* and port (network order)                */
    uint16_t pad;
} mmfi_addr;

/* ---- intrusive list of records ---- */
typedef struct mmfi_link { struct mmfi_link *prev, *next; } mmfi_link;
static inline void mmfi_list_init(mmfi_link *h) { h->prev = h->next = h; }
static inline int  mmfi_list_empty(const mmfi_link *h) { return h->next == h; }
static inline void mmfi_list_push(mmfi_link *h, mmfi_link *n)
{ n->prev = h->prev; n->next = h; h->prev->next = n; h->prev = n; }
static inline void mmfi_list_push_front(mmfi_link *h, mmfi_link *n)
{ n->next = h->next; n->prev = h; h->next->prev = n; h->next = n; }
static inline void mmfi_list_del(mmfi_link *n)
{ n->prev->next = n->next; n->next->prev = n->prev; n->prev = n->next = n; }

/* ---- records: a posted receive or an arrived message ---- */
enum { REC_RECV = 1, REC_MSG = 2 };
enum { REC_NONE = 0, REC_POSTED, REC_UNEXP, REC_CLAIMED, REC_RDV_WAIT, REC_DONE };

/* An unexpected eager message of at most this many bytes keeps its payload
 * inside its record (the receive iov's room, unused by messages), not in a
 * malloc'd copy: a flood of small messages costs one record each. */
#define MMFI_INLINE (MMFI_IOV_MAX * sizeof(struct iovec))

typedef struct mmfi_rec {
    /* What a receive touches at its post and its match comes first: the
     * first two cache lines (link to iov[0]); the message and rendezvous
     * fields, the engine key and the timestamps after them. */
    mmfi_link  link;       /* posted or unexpected list (or none)         */
    uint8_t    kind;       /* REC_RECV / REC_MSG                          */
    uint8_t    state;
    uint8_t    tagged;     /* 1: tagged; 0: untagged (fi_recv/fi_send)    */
    uint8_t    in_engine;  /* queued inside the engine (keyed path)       */
    uint8_t    rdv;        /* message: rendezvous (payload still at the sender) */
    uint8_t    has_data;   /* message: carries remote CQ data             */
    uint8_t    keyable;    /* message: has an engine key                  */
    uint8_t    owned;      /* message: payload is a held copy (accounted)  */
    uint8_t    inl;        /* message: that copy is in iov's room (<= MMFI_INLINE) */
    uint64_t   tag, ignore;
    fi_addr_t  addr;       /* receive: source filter; message: sender's fi_addr */
    uint32_t   conn;       /* message: connection it came on              */
    mm_handle  h;          /* receive queued in the engine                */
    /* receive */
    void      *context;
    uint64_t   flags;      /* op flags: FI_COMPLETION, FI_CLAIM ...       */
    size_t     cap;        /* total buffer bytes                          */
    union {
        struct {           /* receive: the buffer                         */
            size_t       iov_count;
            struct iovec iov[MMFI_IOV_MAX];
        };
        struct {           /* rendezvous message: the sender's buffer (cma.c) */
            uint8_t      riov_n;
            struct iovec riov[MMFI_IOV_MAX];
        };
    };
    union {
        struct {           /* message                                     */
            uint64_t len, data, send_id;
            void    *payload;  /* eager unexpected copy (len bytes)       */
        };
        struct {           /* receive: its rendezvous in progress         */
            uint64_t  msg_len, got, msg_tag, msg_data;
            fi_addr_t msg_addr;
            uint32_t  msg_conn;
            uint8_t   msg_has_data;
        };
    };
    mm_entry   key;        /* message: the engine key (keyed path)        */
    uint64_t   prof_id;    /* receive: its id in the FI_MPIMATCH_PROFILE stream */
    uint64_t   t_ns;       /* posted / arrived (only with FI_MPIMATCH_DUMP or samples) */
} mmfi_rec;

_Static_assert(offsetof(mmfi_rec, iov) + sizeof(struct iovec) <= 128,
               "a receive's post and match touch two cache lines");
_Static_assert(offsetof(mmfi_rec, iov_count) == offsetof(mmfi_rec, riov_n),
               "clearing iov_count clears riov_n (mmfi_rec_alloc)");

/* ---- wire: one cell of a ring ---- */
enum {
    W_EAGER = 1,  /* header + whole payload                               */
    W_RTS   = 2,  /* rendezvous: header only; payload waits at the sender */
    W_CTS   = 3,  /* receiver -> sender: matched, send the payload        */
    W_DATA  = 4,  /* sender -> receiver: one segment of a rendezvous      */
    W_CREDIT = 5, /* receiver -> sender: eager bytes consumed             */
    W_DISCARD = 6, /* receiver -> sender: matched and discarded               */
    W_FIN   = 7,  /* receiver -> sender: read with process_vm_readv, done     */
    W_BYE   = 8   /* TCP: the sender closed its endpoint in order             */
};
enum { WF_TAGGED = 1, WF_DATA = 2, WF_CMA = 4 /* RTS: payload holds the sender's iov */ };

typedef struct mmfi_wire {
    uint8_t  type, flags;
    uint16_t plen;     /* TCP: payload bytes after the header (set at commit) */
    uint32_t seq;      /* per-peer wire sequence number (wraps)          */
    uint64_t len;      /* message length (EAGER/RTS), segment length (DATA), credit */
    uint64_t tag;
    uint64_t data;
    uint64_t send_id;  /* sender's pending-send record                   */
    uint64_t recv_id;  /* receiver's record (CTS/DATA)                   */
    uint64_t off;      /* DATA: offset in the message                    */
    uint64_t t_post;   /* EAGER/RTS: the sender's mmfi_now_ns() at the send (with
                        * FI_MPIMATCH_STATS; 0 otherwise): discovery time */
} mmfi_wire;           /* 64 bytes */

/* The shared-memory channel carries an eager payload of up to 24 bytes in the
 * header's last 24 bytes (recv_id, off, t_post; shm.c), flag WF_SHM_INLINE.
 * A stamped record (t_post != 0) keeps t_post and inlines at most 16 bytes,
 * so t_post is the stamp unless an inline payload of 17-24 bytes covers it. */
#define WF_SHM_INLINE      0x80u
#define MMFI_INLINE_STAMPED (offsetof(mmfi_wire, t_post) - offsetof(mmfi_wire, recv_id))
static inline uint64_t mmfi_wire_t_post(const mmfi_wire *w)
{
    return ((w->flags & WF_SHM_INLINE) && w->len > MMFI_INLINE_STAMPED) ? 0 : w->t_post;
}

/* ---- pending sends (rendezvous, waiting for CTS or streaming) ---- */
typedef struct mmfi_send {
    mmfi_link   link;
    void       *context;
    uint64_t    flags;      /* FI_COMPLETION etc. */
    uint64_t    tag, data;
    uint8_t     tagged, has_data, internal; /* internal: inject copy, no completion */
    uint8_t     state;      /* 0: waiting CTS; 1: streaming */
    uint32_t    conn;
    struct iovec iov[MMFI_IOV_MAX];
    size_t      iov_count;
    uint64_t    len, off;
    uint64_t    recv_id;
    void       *copy;       /* internal: the buffered payload */
    uint64_t    t_ns;       /* sent (only with FI_MPIMATCH_DUMP)              */
} mmfi_send;

/* ---- a connection to one peer endpoint ---- */
/* A channel moves cells (a 64-byte mmfi_wire header and up to payload_max
 * bytes) to one peer, in order. xfer.c runs every protocol (eager,
 * rendezvous, credits) over this interface; shm.c is the first channel. */
struct mmfi_conn;
struct mmfi_ep;
typedef struct mmfi_chan {
    const char *name;
    int        (*connect)(struct mmfi_ep *ep, struct mmfi_conn *c);
    void       (*disconnect)(struct mmfi_conn *c);
    /* a cell to fill, or NULL when the peer's ring is full */
    mmfi_wire *(*reserve)(struct mmfi_ep *ep, struct mmfi_conn *c, void **payload);
    void       (*commit)(struct mmfi_ep *ep, struct mmfi_conn *c);
    size_t     (*payload_max)(void);
} mmfi_chan;

extern const mmfi_chan mmfi_chan_shm;
extern const mmfi_chan mmfi_chan_tcp;

typedef struct mmfi_conn {
    mmfi_addr   peer;
    const mmfi_chan *ch;
    fi_addr_t   fiaddr;     /* in the bound AV, or FI_ADDR_NOTAVAIL        */
    int         dead;       /* the peer process is gone                    */
    int         up;         /* ch->connect succeeded                       */
    int         bye;        /* the peer said it closed its endpoint in order (TCP) */
    int         tx_err;     /* TCP: sending failed; progress fails the connection */
    /* tcp channel: one socket per direction (tcp.c) */
    int         tx_fd, rx_fd;   /* -1: none                                */
    char       *txb;            /* frames not yet written to tx_fd         */
    size_t      txb_head, txb_tail, txb_cap;
    char       *rxb;            /* bytes read from rx_fd, not yet handled  */
    size_t      rxb_len;
    /* shm channel: my slot in the peer's inbox (sending side) */
    void       *seg;        /* mapping of the peer's inbox                 */
    size_t      seg_len;
    void       *tx_slot;    /* my slot in it, NULL until claimed           */
    uint64_t    tx_ring;    /* its ring's bytes                            */
    uint32_t    tx_seq;     /* next sequence number I send                 */
    /* receiving side: the slot this peer writes in my inbox (-1: none yet) */
    int         rx_slot;
    uint32_t    rx_seq;     /* next sequence number expected               */
    /* flow control of eager bytes */
    uint64_t    credit;         /* eager bytes I may still send to the peer */
    uint64_t    credit_owed;    /* eager bytes of the peer consumed here, not yet returned */
    uint64_t    held_bytes;     /* unexpected eager payload from this peer held now */
    /* control messages that did not fit the ring yet (mmfi_wire items) */
    mm_fifo     ctrl;
} mmfi_conn;

/* ---- per-endpoint counters (statistics, docs/provider.md) ---- */
typedef struct mmfi_counters {
    uint64_t eager_sent, eager_recv, rdv_sent, rdv_recv;
    uint64_t bytes_sent, bytes_recv, segments_sent, segments_recv;
    uint64_t ctrl_sent, ring_full, credit_stalls;
    uint64_t unexp_now, unexp_max, unexp_bytes_now, unexp_bytes_max;
    uint64_t posts, arrivals, peeks, claims, discards, cancels, truncations;
    uint64_t matches, peek_hits, peek_misses, mpeek_hits, mpeek_misses, cancel_miss;
    uint64_t generic_ops, keyless_msgs, wildcard_refused, peer_deaths;
    uint64_t cma_reads, cma_bytes, cma_fallbacks, cma_fins;
    uint64_t tcp_connects, tcp_accepts, tcp_cells_sent, tcp_cells_recv;
    uint64_t tcp_bytes_sent, tcp_bytes_recv, tcp_tx_full, tcp_eof, tcp_errors;
    uint64_t yields;  /* sched_yield calls of idle CQ reads (FI_MPIMATCH_YIELD) */
} mmfi_counters;

struct mmfi_fabric;
struct mmfi_domain;
struct mmfi_av;
struct mmfi_cq;

typedef struct mmfi_fabric {
    struct fid_fabric fabric;
} mmfi_fabric;

typedef struct mmfi_domain {
    struct fid_domain dom;
    mmfi_fabric      *fab;
    pthread_mutex_t   lock;
    int               locking;  /* 0: the application serializes every call
                                 * (FI_THREAD_DOMAIN): the data path takes no lock */
    mmfi_settings     set;
    int               refs;
    uint64_t          cq_data_size;
} mmfi_domain;

typedef struct mmfi_av {
    struct fid_av      av;
    mmfi_domain       *dom;
    enum fi_av_type    type;
    mmfi_addr         *addrs;
    uint8_t           *valid;
    size_t             count, cap;
    uint64_t           gen;  /* changes on every insert/remove */
    int                refs;
} mmfi_av;

typedef struct mmfi_cqe {
    struct fi_cq_tagged_entry e;
    fi_addr_t src;
} mmfi_cqe;

#define MMFI_CQ_MAX_EPS 16
typedef struct mmfi_cq {
    struct fid_cq   cq;
    mmfi_domain    *dom;
    enum fi_cq_format format;
    mm_fifo         ent;    /* mmfi_cqe, oldest first                  */
    mm_fifo         err;    /* struct fi_cq_err_entry, oldest first    */
    mm_mem          mem;    /* the two FIFOs' bytes                    */
    struct mmfi_ep *eps[MMFI_CQ_MAX_EPS];
    int             neps;
    int             refs;
    uint32_t        idle;   /* reads in a row that found nothing (FI_MPIMATCH_SPIN) */
} mmfi_cq;

typedef struct mmfi_ep {
    struct fid_ep   ep;
    mmfi_domain    *dom;
    mmfi_av        *av;
    mmfi_cq        *tx_cq, *rx_cq;
    uint64_t        tx_bind, rx_bind;   /* bind flags (FI_SELECTIVE_COMPLETION) */
    uint64_t        tx_op_flags, rx_op_flags;
    uint64_t        caps;
    int             enabled;
    mmfi_addr       name;
    /* matching (match.c) */
    mm_engine      *eng;
    int32_t         eng_nprocs;   /* sources 0..eng_nprocs-2 are fi_addrs; the last: not in the AV */
    int             generic;      /* the generic path is in use (docs/provider.md) */
    int             profiling;    /* FI_MPIMATCH_PROFILE is set                 */
    FILE           *prof;         /* FI_MPIMATCH_PROFILE stream (stats.c), or NULL */
    uint64_t        prof_ids;     /* events written to it                   */
    int             prof_failed;  /* could not write it: no more tries      */
    mmfi_link       posted;       /* receives in post order                 */
    mmfi_link       unexp;        /* messages in arrival order              */
    mmfi_link       sends;        /* rendezvous sends waiting or streaming  */
    mmfi_link       active;       /* matched rendezvous receives waiting for data */
    mmfi_link       claimed;      /* messages taken by FI_PEEK | FI_CLAIM   */
    mmfi_link       free_recs;    /* record cache (no malloc per message)   */
    /* connections */
    mmfi_conn      *conns;
    size_t          nconns, conns_cap;
    mm_mem          ctrl_mem;   /* the connections' control FIFOs' bytes */
    uint32_t       *av_conn;      /* fi_addr -> conn index + 1 (0: none)   */
    size_t          av_conn_cap;
    uint64_t        av_gen;
    size_t          local_procs;  /* AV addresses on this host (FI_MPIMATCH_YIELD=auto) */
    int             yield;        /* mmfi_ep_wants_yield, kept up to date with the AV */
    /* shm channel: my inbox */
    void           *inbox;
    size_t          inbox_len;
    int32_t        *slot_conn;    /* inbox slot -> conn index (-1)          */
    char           *slot0;        /* the inbox's first slot, its stride and ring */
    size_t          slot_stride;  /* mask: mmfi_shm_poll computes nothing else  */
    uint64_t        ring_mask;
    int             inbox_linked; /* the inbox still has its name           */
    size_t          expect_attach;/* same-host addresses in the AV          */
    int             cma_off;      /* process_vm_readv refused here: segmented copy */
    /* tcp channel (tcp.c): listener and accepted sockets before their handshake */
    int             tcp_lfd;
    int            *tcp_pend;     /* accepted fds waiting for the peer's address */
    size_t          ntcp_pend;
    size_t          tcp_conns;    /* connections with a socket                */
    int             tcp_possible; /* the AV holds a peer reached over TCP (or
                                   * FI_MPIMATCH_FORCE_TCP=all): the listener is
                                   * polled with the sockets; otherwise only at
                                   * the liveness checks (ep.c) */
    size_t          ctrl_queued;  /* control cells waiting in the connections' FIFOs */
    uint64_t        tcp_calls;    /* mmfi_tcp_poll calls (the listener: every 64th) */
    uint64_t        polls;        /* progress calls                         */
    mmfi_poll       poll;         /* polling scheme and its counters (poll.h) */
    uint64_t        last_check_ns;
    mmfi_counters   c;
    /* snapshots and samples (dump.c) */
    int             timed;        /* records carry t_ns                      */
    uint32_t        dump_seen;    /* the signal count of the last snapshot   */
    uint64_t        last_dump_ns; /* when it was written (0: never)           */
    uint64_t        t_open_ns;    /* endpoint enabled                        */
    uint64_t        next_sample_ns;
    int             sample_fd;    /* FI_MPIMATCH_STATS_INTERVAL's file, or -1 */
    uint64_t        nsamples;
} mmfi_ep;

/* The domain lock around the data path (sends, receives, CQ reads, cancel):
 * taken unless the domain was opened with FI_THREAD_DOMAIN, under which the
 * application serializes every call into the domain (fi_domain(3)); Open
 * MPI's mtl ofi asks for it unless MPI_THREAD_MULTIPLE. */
static inline void mmfi_lock(mmfi_domain *d)
{
    if (d->locking)
        pthread_mutex_lock(&d->lock);
}
static inline void mmfi_unlock(mmfi_domain *d)
{
    if (d->locking)
        pthread_mutex_unlock(&d->lock);
}

/* ---- prov.c ---- */
int  mmfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
uint32_t mmfi_host_hash(void);
/* DIR/mpimatch-<what>-<host>-<pid>-<ep>.<ext>: the files an endpoint writes
 * (statistics, profile, snapshots, samples). The host name (its first label,
 * characters other than [A-Za-z0-9_] made '_') keeps apart processes of two
 * hosts that have the same pid, which happens on any cluster whose nodes write
 * to one shared directory. */
void mmfi_file_path(char *out, size_t n, const char *dir, const mmfi_addr *name, const char *what,
                    const char *ext);

/* ---- domain.c ---- */
int  mmfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
                      struct fid_domain **dom, void *context);
int  mmfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int  mmfi_no_control(struct fid *fid, int command, void *arg);
int  mmfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops, void *context);

/* ---- av.c ---- */
int  mmfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
                  struct fid_av **av, void *context);
fi_addr_t mmfi_av_find(mmfi_av *av, const mmfi_addr *a);
/* Distinct peers (endpoint addresses) among the valid entries: Open MPI
 * inserts a peer again for every intercommunicator (0 without an AV). */
size_t mmfi_av_peers(mmfi_av *av);
/* The distinct peers the AV ever held, removed entries included (the statistics file's np:
 * Open MPI removes every entry before the endpoint closes). */
size_t mmfi_av_peers_held(mmfi_av *av);

/* ---- cq.c ---- */
int  mmfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
                  struct fid_cq **cq, void *context);
/* A completion (inline: one per message on both sides). */
static inline int mmfi_cq_push(mmfi_cq *cq, void *context, uint64_t flags, size_t len, void *buf,
                               uint64_t data, uint64_t tag, fi_addr_t src)
{
    mmfi_cqe *e = mm_fifo_push(&cq->ent);
    if (MM_UNLIKELY(!e))
        return -FI_ENOMEM;
    e->e.op_context = context;
    e->e.flags = flags;
    e->e.len = len;
    e->e.buf = buf;
    e->e.data = data;
    e->e.tag = tag;
    e->src = src;
    return 0;
}
int  mmfi_cq_push_err(mmfi_cq *cq, void *context, uint64_t flags, size_t len, size_t olen,
                      uint64_t data, uint64_t tag, int err);

/* ---- ep.c ---- */
int  mmfi_ep_open(struct fid_domain *domain, struct fi_info *info,
                  struct fid_ep **ep, void *context);
void mmfi_ep_progress(mmfi_ep *ep);
/* Whether an idle CQ read of this endpoint should yield the processor once the
 * spin budget is spent: FI_MPIMATCH_YIELD, and for auto, more processes of the
 * AV on this host than online processors. */
int mmfi_ep_wants_yield(const mmfi_ep *ep);
int  mmfi_conn_for_addr(mmfi_ep *ep, fi_addr_t a, uint32_t *out);
/* The same, inline for a known address of an unchanged AV (every send). */
static inline int mmfi_conn_of(mmfi_ep *ep, fi_addr_t a, uint32_t *out)
{
    if (MM_LIKELY(ep->av && ep->av_gen == ep->av->gen && a < ep->av_conn_cap && ep->av_conn[a])) {
        *out = ep->av_conn[a] - 1;
        return 0;
    }
    return mmfi_conn_for_addr(ep, a, out);
}
int  mmfi_conn_for_name(mmfi_ep *ep, const mmfi_addr *a, uint32_t *out);

/* ---- completions (inline: every message reports one) ---- */

static inline int mmfi_want_completion(uint64_t bind, uint64_t flags)
{
    return !(bind & FI_SELECTIVE_COMPLETION) || (flags & FI_COMPLETION);
}

static inline void mmfi_report_recv(mmfi_ep *ep, mmfi_rec *r, uint64_t len, uint64_t tag,
                                    uint64_t data, int has_data, fi_addr_t src, int err,
                                    uint64_t olen)
{
    if (!ep->rx_cq)
        return;
    uint64_t fl = FI_RECV | (r->tagged ? FI_TAGGED : FI_MSG) | (has_data ? FI_REMOTE_CQ_DATA : 0);
    if (err) {
        mmfi_cq_push_err(ep->rx_cq, r->context, fl, len, olen, has_data ? data : 0, tag, err);
        return;
    }
    if (!mmfi_want_completion(ep->rx_bind, r->flags))
        return;
    mmfi_cq_push(ep->rx_cq, r->context, fl, len, NULL, has_data ? data : 0, tag,
                 ep->caps & FI_SOURCE ? src : FI_ADDR_NOTAVAIL);
}

static inline void mmfi_report_send(mmfi_ep *ep, void *context, uint64_t flags, int tagged, int err)
{
    if (!ep->tx_cq)
        return;
    uint64_t fl = FI_SEND | (tagged ? FI_TAGGED : FI_MSG);
    if (err)
        mmfi_cq_push_err(ep->tx_cq, context, fl, 0, 0, 0, 0, err);
    else if (mmfi_want_completion(ep->tx_bind, flags))
        mmfi_cq_push(ep->tx_cq, context, fl, 0, NULL, 0, 0, FI_ADDR_NOTAVAIL);
}

/* ---- match.c: the keyed and generic paths ---- */
int  mmfi_match_open(mmfi_ep *ep);
void mmfi_match_close(mmfi_ep *ep);
int  mmfi_match_post(mmfi_ep *ep, mmfi_rec *r);         /* receive (FI_PEEK etc. inside) */
int  mmfi_match_arrive(mmfi_ep *ep, mmfi_rec *m, mmfi_rec **recv_out);
int  mmfi_match_cancel(mmfi_ep *ep, void *context);
void mmfi_match_rekey(mmfi_ep *ep);
void mmfi_rec_free(mmfi_ep *ep, mmfi_rec *r);
mmfi_rec *mmfi_rec_grow(mmfi_ep *ep);
/* The record mmfi_rec_alloc would return next, left on the free list (NULL:
 * out of memory): an arrival names it to the engine as its cookie and takes
 * it off the list only when no receive matched (xfer.c). */
static inline mmfi_rec *mmfi_rec_spare(mmfi_ep *ep)
{
    if (MM_LIKELY(!mmfi_list_empty(&ep->free_recs)))
        return (mmfi_rec *)ep->free_recs.next;
    return mmfi_rec_grow(ep);
}
/* Take r (mmfi_rec_spare's) off the free list. Not cleared whole (328 bytes
 * at every post and arrival): the fields read before the receive or message
 * path writes them are zeroed here; the iovs, the message fields and the
 * rendezvous fields are always written first (ep.c post_recv, xfer.c). */
static inline mmfi_rec *mmfi_rec_take(mmfi_rec *r)
{
    mmfi_list_del(&r->link);
    memset(&r->kind, 0, offsetof(mmfi_rec, tag) - offsetof(mmfi_rec, kind)); /* the flag bytes */
    r->tag = r->ignore = 0;
    r->h = (mm_handle){0};
    r->prof_id = 0;
    r->context = NULL;
    r->flags = 0;
    r->cap = 0;
    r->iov_count = 0; /* also riov_n: a rendezvous message without the sender's iov */
    r->payload = NULL;
    r->t_ns = 0;
    return r;
}
/* A record from the free list (or a new one), cleared as mmfi_rec_take's. */
static inline mmfi_rec *mmfi_rec_alloc(mmfi_ep *ep)
{
    mmfi_rec *r = mmfi_rec_spare(ep);
    return r ? mmfi_rec_take(r) : NULL;
}
int  mmfi_rec_match(const mmfi_rec *r, const mmfi_rec *m);
int  mmfi_decode_msg(const mmfi_ep *ep, const mmfi_rec *m, mm_entry *key);

/* Open MPI's tag layout with remote CQ data (match.c explains the decoding). */
#define MMFI_L_ACK    (1ull << 33)
#define MMFI_L_SYNC   (1ull << 32)
#define MMFI_L_TAG    0xffffffffull
#define MMFI_L_ANYTAG 0x7fffffffull
#define MMFI_L_CIDMAX 0x3fffffffull

/* The engine key of a message (tagged or not, its tag, the sender's fi_addr,
 * its length): 0 when it has none (keyless; match.c). Inline: every arrival. */
static inline int mmfi_decode_msg_fields(const mmfi_ep *ep, int tagged, uint64_t T, fi_addr_t a,
                                         uint64_t len, mm_entry *key)
{
    *key = (mm_entry){.src = a < (fi_addr_t)(ep->eng_nprocs - 1) ? (int32_t)a : ep->eng_nprocs - 1,
                      .bytes = len};
    if (!tagged)
        return 1;
    if (MM_UNLIKELY(ep->dom->set.layout != MMFI_LAYOUT_OMPI))
        return 0;
    if (MM_UNLIKELY(((T & MMFI_L_ACK) && (T & MMFI_L_SYNC)) ||
                    (T & MMFI_L_TAG) == 0x80000000ull || (T >> 34) == MMFI_L_CIDMAX))
        return 0;
    key->tag = (int32_t)(uint32_t)(T & MMFI_L_TAG);
    key->comm = (int32_t)(1 + (((T >> 34) << 1) | ((T & MMFI_L_ACK) ? 1 : 0)));
    return 1;
}

/* ---- xfer.c: moving messages (protocols over a channel) ---- */
ssize_t mmfi_send_common(mmfi_ep *ep, const struct iovec *iov, size_t count, fi_addr_t dest,
                         uint64_t tag, uint64_t data, int has_data, int tagged, void *context,
                         uint64_t flags);
void mmfi_deliver(mmfi_ep *ep, mmfi_rec *r, mmfi_rec *m); /* a matched pair */
void mmfi_discard_msg(mmfi_ep *ep, mmfi_rec *m);        /* drop (FI_DISCARD) */
int  mmfi_handle_wire(mmfi_ep *ep, uint32_t conn, const mmfi_wire *w, const void *payload);
void mmfi_push_pending(mmfi_ep *ep);
void mmfi_fail_conn(mmfi_ep *ep, uint32_t conn);
size_t mmfi_copy_to_iov(const struct iovec *iov, size_t count, uint64_t off,
                        const void *src, size_t len);

/* ---- shm.c: the shared-memory channel ---- */
size_t mmfi_shm_payload_max(void);
int  mmfi_shm_open(mmfi_ep *ep);
void mmfi_shm_close(mmfi_ep *ep);
int  mmfi_shm_connect(mmfi_ep *ep, mmfi_conn *c);
void mmfi_shm_disconnect(mmfi_conn *c);
/* a cell to fill in c's ring, or NULL when full; mmfi_shm_commit publishes it */
mmfi_wire *mmfi_shm_reserve(mmfi_ep *ep, mmfi_conn *c, void **payload);
void mmfi_shm_commit(mmfi_conn *c);
int  mmfi_shm_send_eager(mmfi_conn *c, uint8_t flags, uint64_t tag, uint64_t data,
                         const struct iovec *iov, size_t count, size_t len, uint64_t t_post);
int  mmfi_shm_poll(mmfi_ep *ep, int budget);
void mmfi_shm_sweep_stale(void);
/* The peer closed its endpoint in order (1), as opposed to crashing. */
int  mmfi_shm_peer_closed(const mmfi_conn *c);
/* Unlink the inbox's name once `expected` senders hold a slot in it. */
void mmfi_shm_unlink_when_attached(mmfi_ep *ep, size_t expected);
/* Cells in flight on c's two rings: from the peer unread here, from here unread there. */
void mmfi_shm_inflight(mmfi_ep *ep, const mmfi_conn *c, uint64_t *in, uint64_t *out);

/* ---- tcp.c: the TCP channel ---- */
int  mmfi_tcp_open(mmfi_ep *ep);     /* listener; fills ep->name.ip/port */
void mmfi_tcp_close(mmfi_ep *ep);    /* says BYE, flushes (bounded), closes */
/* accept, read, write: the descriptors with events, or -1 when it did not look
 * (no connection and the listener not due) */
int  mmfi_tcp_poll(mmfi_ep *ep, int force);
void mmfi_tcp_flush(mmfi_ep *ep);    /* write what the sockets take, nothing else */
void mmfi_tcp_conn_close(mmfi_conn *c);
void mmfi_tcp_drain(mmfi_ep *ep, uint32_t ci); /* read what ci's socket holds now */
/* The channel for a peer: TCP for other hosts and FI_MPIMATCH_FORCE_TCP. */
const mmfi_chan *mmfi_chan_for(mmfi_ep *ep, const mmfi_conn *c);
/* Whether any peer of the AV is (or may be) reached over TCP. */
int  mmfi_tcp_possible(mmfi_ep *ep);
/* The peer closed its endpoint in order (either channel said so). */
int  mmfi_peer_closed(const mmfi_conn *c);
int  mmfi_same_host(const mmfi_conn *c);

/* ---- cma.c: kernel-assisted copy ---- */
int  mmfi_cma_read(mmfi_ep *ep, pid_t pid, const mmfi_rec *r, const struct iovec *rv, size_t rn,
                   uint64_t want);

/* ---- stats.c ---- */
void mmfi_stats_write(mmfi_ep *ep);
/* FI_MPIMATCH_PROFILE (stats.c): every keyed engine call as a stream event
 * (type 'R', 'M', 'P', 'X'; returns its id, 0 when not recording), a cancel
 * of the receive with that id, a comment line, and the close that renames
 * the complete file into place. */
uint64_t mmfi_profile_event(mmfi_ep *ep, int type, const mm_entry *k, uint64_t bytes);
/* The same, a test and no call when not profiling (every post and arrival). */
static inline uint64_t mmfi_profile(mmfi_ep *ep, int type, const mm_entry *k, uint64_t bytes)
{
    return ep->profiling ? mmfi_profile_event(ep, type, k, bytes) : 0;
}
void mmfi_profile_cancel(mmfi_ep *ep, uint64_t id);
void mmfi_profile_note(mmfi_ep *ep, const char *text);
void mmfi_profile_close(mmfi_ep *ep);
/* "name": {searches, hits, ..., peak_bytes}: one side of mm_stats as JSON. */
void mmfi_json_qstats(FILE *f, const char *name, const mm_qstats *q);

uint64_t mmfi_now_ns(void);

/* ---- dump.c: snapshots on a signal (FI_MPIMATCH_DUMP), samples over time ---- */
extern _Atomic uint32_t mmfi_dump_requests; /* raised by the signal handler */
int  mmfi_dump_open(mmfi_ep *ep);    /* at enable: handler, sample file; 0 or -FI_E* */
void mmfi_dump_close(mmfi_ep *ep);   /* at close: last sample, file closed */
void mmfi_dump_restore(void);        /* provider cleanup: the old signal action back */
/* One snapshot (progress, under the lock); at most one per DUMP_MIN_GAP_NS
 * unless force (the endpoint's last one, at close). */
void mmfi_dump_write(mmfi_ep *ep, int force);
void mmfi_sample_write(mmfi_ep *ep, uint64_t now);
/* At every progress call: a snapshot when a signal came, a sample when due. */
static inline void mmfi_dump_poll(mmfi_ep *ep)
{
    if (ep->dom->set.dump_dir[0] &&
        atomic_load_explicit(&mmfi_dump_requests, memory_order_relaxed) != ep->dump_seen)
        mmfi_dump_write(ep, 0);
    if (ep->sample_fd >= 0) {
        uint64_t now = mmfi_now_ns();
        if (now >= ep->next_sample_ns)
            mmfi_sample_write(ep, now);
    }
}

#endif /* MMFI_H */
