/*
 * shm.c - the shared-memory channel.
 *
 * Every endpoint owns an inbox: a POSIX shared segment named
 * /mpimatch-<job>-<pid>-<ep> (job from the launcher's environment), holding
 * MMFI_SHM_SLOTS single-producer single-consumer rings. A sender claims one
 * slot in the receiver's inbox (compare-and-swap of the slot owner), writes
 * its own address there, and from then on is the only writer of that ring:
 * no locks, one release store per record. The receiver is the only reader.
 *
 * A ring is FI_MPIMATCH_RING_CELLS x 4 KiB bytes of variable-size records,
 * packed: a record is a 64-byte header (mmfi_wire, whose plen says how many
 * payload bytes follow) and its payload, padded to a 64-byte cache line; an
 * eager payload of up to 24 bytes goes inside the header (in fields an eager
 * cell does not use), so such a message is one cache line and a ring of 128
 * cells (the default) holds 8,129 of them (a 4 KiB cell each before). tail and head count bytes since the slot
 * was claimed; a record starts at tail mod the ring size and may run past
 * the ring's end into a slack of one largest record (4 KiB) that follows it,
 * so every record, header and payload, is contiguous and the reader never
 * reassembles one. The sender reserves room for the largest record (xfer.c
 * fills the header before it knows the payload's length), commits the real
 * size, and keeps the last head it read beside its tail, so it reads the
 * receiver's cache line only when the ring looks full.
 *
 * Lifetime: every endpoint attaches to the inbox of each same-host address
 * of its AV as soon as the address is inserted (ep.c), and an inbox loses its
 * name as soon as all same-host addresses of its owner's AV hold a slot in it:
 * from then on a crash leaves nothing behind. Otherwise the owner unlinks it
 * at close; a peer that finds the owner dead (kill(pid, 0) fails, xfer.c)
 * unlinks it for it; and every new endpoint sweeps /dev/shm for inboxes of
 * dead processes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmfi.h"

#define MMFI_CELL       4096u /* ring unit and largest record (header + payload) */
#define MMFI_SHM_SLOTS  64u
#define SEG_MAGIC       0x6d6d6669736832ull /* "mmfish2": packed records */
#define SLOT_HDR        256u
#define REC_ALIGN       64u   /* records start on a cache line */
/* An eager payload this small travels in the header's last 24 bytes, which
 * an eager cell does not use (recv_id, off, t_post), 16 when the sender stamps
 * t_post (statistics on; mmfi.h): the message is one cache line. The flag
 * WF_SHM_INLINE is the shm channel's own (xfer.c's flags are the low bits). */
#define INL_MAX         (sizeof(mmfi_wire) - offsetof(mmfi_wire, recv_id))

typedef struct seg_hdr {
    uint64_t         magic;
    int32_t          pid;
    uint32_t         nslots, ncells, cell;
    _Atomic uint32_t nactive;  /* slots 0..nactive-1 may be in use */
    _Atomic uint32_t closed;   /* the owner closed its endpoint (did not crash) */
    char             pad[64 - 32];
} seg_hdr;

typedef struct slot_hdr {
    _Atomic uint64_t owner;    /* 0: free; else the sender's token */
    _Atomic uint32_t ready;    /* peer address written             */
    uint32_t         pad0;
    mmfi_addr        peer;     /* the sender's address (64 bytes)  */
    char             pad1[128 - 16 - sizeof(mmfi_addr)];
    /* the sender's cache line */
    _Atomic uint64_t tail;     /* bytes committed                  */
    _Atomic uint64_t puts;     /* records committed                */
    uint64_t         head_seen;/* the last head the sender read    */
    char             pad2[40];
    /* the receiver's cache line */
    _Atomic uint64_t head;     /* bytes consumed                   */
    _Atomic uint64_t takes;    /* records consumed                 */
    char             pad3[48];
} slot_hdr;

_Static_assert(sizeof(seg_hdr) == 64, "segment header is one cache line");
_Static_assert(sizeof(slot_hdr) == SLOT_HDR, "slot header is four cache lines");
_Static_assert(sizeof(mmfi_wire) == 64, "wire header is one cache line");
_Static_assert(MMFI_CELL % REC_ALIGN == 0 && sizeof(mmfi_wire) % REC_ALIGN == 0,
               "records keep their headers aligned");
_Static_assert(INL_MAX == 24 && ((WF_TAGGED | WF_DATA | WF_CMA) & WF_SHM_INLINE) == 0,
               "inline payloads use the eager header's unused tail and a flag of their own");

size_t mmfi_shm_payload_max(void) { return MMFI_CELL - sizeof(mmfi_wire); }

static uint64_t ring_bytes(uint32_t ncells) { return (uint64_t)ncells * MMFI_CELL; }

/* A slot: its header, the ring, and the slack a record may run into. */
static size_t slot_size(uint32_t ncells) { return SLOT_HDR + ring_bytes(ncells) + MMFI_CELL; }

static slot_hdr *slot_at(void *seg, uint32_t i)
{
    seg_hdr *h = seg;
    return (slot_hdr *)((char *)seg + sizeof(seg_hdr) + (size_t)i * slot_size(h->ncells));
}

/* The record at byte position pos of a ring of ncells cells (a power of two). */
static char *rec_at(slot_hdr *s, uint32_t ncells, uint64_t pos)
{
    return (char *)s + SLOT_HDR + (size_t)(pos & (ring_bytes(ncells) - 1));
}

static uint64_t rec_size(size_t plen)
{
    return sizeof(mmfi_wire) + ((plen + REC_ALIGN - 1) & ~(uint64_t)(REC_ALIGN - 1));
}

/* Payload bytes after a header xfer.c filled: the message (eager), the
 * segment (DATA), the sender's iov (an RTS for process_vm_readv); none for
 * the other cells. */
static size_t shm_payload_len(const mmfi_wire *w)
{
    switch (w->type) {
    case W_EAGER:
    case W_DATA:
        return (size_t)w->len;
    case W_RTS:
        if (w->flags & WF_CMA) {
            uint64_t n = *(const uint64_t *)(w + 1);
            return (size_t)(1 + 2 * (n <= MMFI_IOV_MAX ? n : MMFI_IOV_MAX)) * sizeof(uint64_t);
        }
        return 0;
    default:
        return 0;
    }
}

static void job_id(char *out, size_t n)
{
    const char *vars[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid",
                          "SLURM_JOB_ID", "PMI_JOBID"};
    const char *v = NULL;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0] && !v; i++)
        v = getenv(vars[i]);
    if (!v)
        v = "nojob";
    size_t k = 0;
    for (; *v && k + 1 < n; v++)
        if ((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z'))
            out[k++] = *v;
    out[k] = 0;
}

static _Atomic uint32_t next_epid;

int mmfi_shm_open(mmfi_ep *ep)
{
    char job[12]; /* the name must fit mmfi_addr.shm (40) */
    job_id(job, sizeof job);
    uint32_t epid = atomic_fetch_add(&next_epid, 1);
    mmfi_addr *a = &ep->name;
    memset(a, 0, sizeof *a);
    a->magic = MMFI_ADDR_MAGIC;
    a->host = mmfi_host_hash();
    a->pid = (int32_t)getpid();
    a->epid = epid;
    snprintf(a->shm, sizeof a->shm, "/mpimatch-%s-%d-%u", job, (int)a->pid, epid);
    uint32_t ncells = ep->dom->set.ring_cells;
    size_t len = sizeof(seg_hdr) + MMFI_SHM_SLOTS * slot_size(ncells);
    int fd = shm_open(a->shm, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno == EEXIST) { /* a stale one of an earlier process with our pid */
        shm_unlink(a->shm);
        fd = shm_open(a->shm, O_CREAT | O_EXCL | O_RDWR, 0600);
    }
    if (fd < 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "shm_open(%s): %s\n", a->shm, strerror(errno));
        return -FI_EIO;
    }
    if (ftruncate(fd, (off_t)len) != 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "ftruncate(%s, %zu): %s\n", a->shm, len, strerror(errno));
        close(fd);
        shm_unlink(a->shm);
        return -FI_EIO;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(a->shm);
        return -FI_ENOMEM;
    }
    seg_hdr *h = p;
    h->pid = a->pid;
    h->nslots = MMFI_SHM_SLOTS;
    h->ncells = ncells;
    h->cell = MMFI_CELL;
    atomic_store_explicit(&h->nactive, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    h->magic = SEG_MAGIC;
    ep->inbox = p;
    ep->inbox_len = len;
    ep->slot0 = (char *)slot_at(p, 0);
    ep->slot_stride = slot_size(ncells);
    ep->ring_mask = ring_bytes(ncells) - 1;
    ep->inbox_linked = 1;
    ep->slot_conn = malloc(MMFI_SHM_SLOTS * sizeof *ep->slot_conn);
    if (!ep->slot_conn) {
        mmfi_shm_close(ep);
        return -FI_ENOMEM;
    }
    for (uint32_t i = 0; i < MMFI_SHM_SLOTS; i++)
        ep->slot_conn[i] = -1;
    return 0;
}

void mmfi_shm_close(mmfi_ep *ep)
{
    if (ep->inbox) {
        atomic_store_explicit(&((seg_hdr *)ep->inbox)->closed, 1, memory_order_release);
        munmap(ep->inbox, ep->inbox_len);
        if (ep->inbox_linked)
            shm_unlink(ep->name.shm);
        ep->inbox_linked = 0;
        ep->inbox = NULL;
    }
    free(ep->slot_conn);
    ep->slot_conn = NULL;
}

static int shm_connect(mmfi_ep *ep, mmfi_conn *c)
{
    if (c->up)
        return 0;
    int fd = shm_open(c->peer.shm, O_RDWR, 0);
    if (fd < 0) {
        MMFI_WARN(FI_LOG_EP_DATA, "peer inbox %s: %s\n", c->peer.shm, strerror(errno));
        return -FI_EIO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(seg_hdr)) {
        close(fd);
        return -FI_EIO;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -FI_ENOMEM;
    seg_hdr *h = p;
    atomic_thread_fence(memory_order_acquire);
    if (h->magic != SEG_MAGIC || h->pid != c->peer.pid || h->cell != MMFI_CELL ||
        (size_t)st.st_size < sizeof(seg_hdr) + h->nslots * slot_size(h->ncells)) {
        MMFI_WARN(FI_LOG_EP_DATA, "peer inbox %s is not a live mpimatch inbox\n", c->peer.shm);
        munmap(p, (size_t)st.st_size);
        return -FI_EIO;
    }
    uint64_t token = ((uint64_t)(uint32_t)ep->name.pid << 32) | (ep->name.epid + 1u);
    for (uint32_t i = 0; i < h->nslots; i++) {
        slot_hdr *s = slot_at(p, i);
        uint64_t zero = 0;
        if (atomic_compare_exchange_strong(&s->owner, &zero, token)) {
            s->peer = ep->name;
            atomic_store_explicit(&s->ready, 1, memory_order_release);
            uint32_t n = atomic_load(&h->nactive);
            while (n < i + 1 && !atomic_compare_exchange_weak(&h->nactive, &n, i + 1))
                ;
            c->seg = p;
            c->seg_len = (size_t)st.st_size;
            c->tx_slot = s;
            c->tx_ring = ring_bytes(h->ncells);
            c->up = 1;
            return 0;
        }
    }
    MMFI_WARN(FI_LOG_EP_DATA, "peer inbox %s has no free slot (%u peers per process)\n",
              c->peer.shm, h->nslots);
    munmap(p, (size_t)st.st_size);
    return -FI_ENOSPC;
}

int mmfi_shm_peer_closed(const mmfi_conn *c)
{
    return c->seg && atomic_load_explicit(&((seg_hdr *)c->seg)->closed, memory_order_acquire);
}

static void shm_disconnect(mmfi_conn *c)
{
    if (c->seg)
        munmap(c->seg, c->seg_len);
    c->seg = NULL;
    c->tx_slot = NULL;
    c->up = 0;
}

/* Room for the largest record at the tail (NULL: the ring is full). */
static mmfi_wire *shm_reserve(mmfi_ep *ep, mmfi_conn *c, void **payload)
{
    (void)ep;
    slot_hdr *s = c->tx_slot;
    uint32_t ncells = ((seg_hdr *)c->seg)->ncells;
    uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
    if (tail + MMFI_CELL - s->head_seen > ring_bytes(ncells)) {
        s->head_seen = atomic_load_explicit(&s->head, memory_order_acquire);
        if (tail + MMFI_CELL - s->head_seen > ring_bytes(ncells))
            return NULL;
    }
    char *rec = rec_at(s, ncells, tail);
    *payload = rec + sizeof(mmfi_wire);
    return (mmfi_wire *)rec;
}

/* Publish the reserved record with the size its header says. */
static void shm_commit(mmfi_ep *ep, mmfi_conn *c)
{
    (void)ep;
    slot_hdr *s = c->tx_slot;
    uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
    mmfi_wire *w = (mmfi_wire *)rec_at(s, ((seg_hdr *)c->seg)->ncells, tail);
    size_t plen = shm_payload_len(w);
    if (w->type == W_EAGER && plen <= (w->t_post ? MMFI_INLINE_STAMPED : INL_MAX)) {
        memcpy(&w->recv_id, w + 1, plen);
        w->flags |= WF_SHM_INLINE;
        plen = 0;
    }
    w->plen = (uint16_t)plen;
    atomic_store_explicit(&s->puts, atomic_load_explicit(&s->puts, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&s->tail, tail + rec_size(plen), memory_order_release);
}

/* An eager message straight into c's ring, each field written once: the
 * header, the payload inside it (up to INL_MAX bytes, 16 with a stamp) or
 * after it, then the tail: no reserve of the largest record and no second
 * pass over the header (shm_commit). 0: sent; -FI_EAGAIN: the ring is full;
 * 1: a record larger than a cell (the caller takes the general path). */
int mmfi_shm_send_eager(mmfi_conn *c, uint8_t flags, uint64_t tag, uint64_t data,
                        const struct iovec *iov, size_t count, size_t len, uint64_t t_post)
{
    slot_hdr *s = c->tx_slot;
    size_t plen = len <= (t_post ? MMFI_INLINE_STAMPED : INL_MAX) ? 0 : len;
    uint64_t need = rec_size(plen);
    if (MM_UNLIKELY(need > MMFI_CELL))
        return 1;
    uint64_t ring = c->tx_ring;
    uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
    if (MM_UNLIKELY(tail + need - s->head_seen > ring)) {
        s->head_seen = atomic_load_explicit(&s->head, memory_order_acquire);
        if (tail + need - s->head_seen > ring)
            return -FI_EAGAIN;
    }
    mmfi_wire *w = (mmfi_wire *)((char *)s + SLOT_HDR + (size_t)(tail & (ring - 1)));
    w->type = W_EAGER;
    w->flags = (uint8_t)(flags | (plen ? 0 : WF_SHM_INLINE));
    w->plen = (uint16_t)plen;
    w->seq = c->tx_seq++;
    w->len = len;
    w->tag = tag;
    w->data = data;
    w->send_id = 0;
    void *dst = plen ? (void *)(w + 1) : (void *)&w->recv_id;
    if (plen || len <= MMFI_INLINE_STAMPED)
        w->t_post = t_post; /* (an inline payload of 17-24 bytes covers it: t_post 0) */
    if (MM_LIKELY(count == 1)) {
        if (len)
            memcpy(dst, iov[0].iov_base, len);
    } else
        for (size_t i = 0, off = 0; i < count; off += iov[i].iov_len, i++)
            if (iov[i].iov_len)
                memcpy((char *)dst + off, iov[i].iov_base, iov[i].iov_len);
    atomic_store_explicit(&s->puts, atomic_load_explicit(&s->puts, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&s->tail, tail + need, memory_order_release);
    return 0;
}

const mmfi_chan mmfi_chan_shm = {
    .name = "shm",
    .connect = shm_connect,
    .disconnect = shm_disconnect,
    .reserve = shm_reserve,
    .commit = shm_commit,
    .payload_max = mmfi_shm_payload_max,
};

/* Read up to budget records from every active slot of my inbox. */
int mmfi_shm_poll(mmfi_ep *ep, int budget)
{
    seg_hdr *h = ep->inbox;
    uint32_t n = atomic_load_explicit(&h->nactive, memory_order_acquire);
    int done = 0;
    for (uint32_t i = 0; i < n; i++) {
        /* An empty ring first (the idle poll: two loads). A slot not claimed
         * yet is all zeros, so it looks empty; once its tail moved, the
         * acquire load of tail makes the sender's earlier stores (peer,
         * ready) visible too. */
        slot_hdr *s = (slot_hdr *)(ep->slot0 + (size_t)i * ep->slot_stride);
        uint64_t tail = atomic_load_explicit(&s->tail, memory_order_acquire);
        uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
        if (head == tail)
            continue;
        if (ep->slot_conn[i] < 0 && !atomic_load_explicit(&s->ready, memory_order_acquire))
            continue;
        if (ep->slot_conn[i] < 0) {
            uint32_t ci;
            mmfi_addr peer = s->peer;
            if (mmfi_conn_for_name(ep, &peer, &ci))
                continue;
            ep->slot_conn[i] = (int32_t)ci;
            ep->conns[ci].rx_slot = (int)i;
        }
        uint32_t ci = (uint32_t)ep->slot_conn[i];
        if (ep->conns[ci].dead)
            continue;
        /* head and takes published once for the records read here (the
         * sender reads head only when its ring looks full) */
        uint64_t head0 = head;
        int k = 0;
        for (; head != tail && k < budget; k++) {
            const char *rec = (const char *)s + SLOT_HDR + (size_t)(head & ep->ring_mask);
            const mmfi_wire *w = (const mmfi_wire *)rec;
            size_t plen = w->plen;
            if (plen > mmfi_shm_payload_max() || rec_size(plen) > tail - head) {
                MMFI_WARN(FI_LOG_EP_DATA, "peer pid %d: bad record (%zu payload bytes, %llu "
                          "committed): failing it\n", (int)ep->conns[ci].peer.pid, plen,
                          (unsigned long long)(tail - head));
                mmfi_fail_conn(ep, ci);
                break;
            }
            const void *pl = (w->flags & WF_SHM_INLINE) ? (const void *)&w->recv_id
                                                         : (const void *)(w + 1);
            if (mmfi_handle_wire(ep, ci, w, pl) > 0)
                break;
            head += rec_size(plen);
        }
        if (head != head0) {
            atomic_store_explicit(&s->takes,
                                  atomic_load_explicit(&s->takes, memory_order_relaxed) +
                                      (uint64_t)k, memory_order_relaxed);
            atomic_store_explicit(&s->head, head, memory_order_release);
            done += k;
        }
    }
    return done;
}

void mmfi_shm_unlink_when_attached(mmfi_ep *ep, size_t expected)
{
    if (!ep->inbox_linked || !expected)
        return;
    seg_hdr *h = ep->inbox;
    uint32_t n = atomic_load_explicit(&h->nactive, memory_order_acquire);
    size_t ready = 0;
    for (uint32_t i = 0; i < n; i++)
        ready += atomic_load_explicit(&slot_at(ep->inbox, i)->ready, memory_order_acquire) != 0;
    if (ready >= expected) {
        shm_unlink(ep->name.shm);
        ep->inbox_linked = 0;
    }
}

void mmfi_shm_sweep_stale(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "mpimatch-", 9))
            continue;
        const char *p = strchr(e->d_name + 9, '-');
        if (!p)
            continue;
        long pid = strtol(p + 1, NULL, 10);
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            char name[300];
            snprintf(name, sizeof name, "/%s", e->d_name);
            shm_unlink(name);
        }
    }
    closedir(d);
}

/* Records in flight on c's rings (snapshots, dump.c): *in, written by the
 * peer into my inbox and not yet read here; *out, written by me into the
 * peer's inbox and not yet read there. Read-only: two loads per ring. */
void mmfi_shm_inflight(mmfi_ep *ep, const mmfi_conn *c, uint64_t *in, uint64_t *out)
{
    *in = *out = 0;
    if (c->rx_slot >= 0 && ep->inbox) {
        slot_hdr *s = slot_at(ep->inbox, (uint32_t)c->rx_slot);
        *in = atomic_load_explicit(&s->puts, memory_order_acquire) -
              atomic_load_explicit(&s->takes, memory_order_acquire);
    }
    if (c->tx_slot) {
        slot_hdr *s = c->tx_slot;
        *out = atomic_load_explicit(&s->puts, memory_order_acquire) -
               atomic_load_explicit(&s->takes, memory_order_acquire);
    }
}
