/*
 * dump.c - what is this process waiting for? Snapshots of the queues on a
 * signal (FI_MPIMATCH_DUMP), and samples of them over time
 * (FI_MPIMATCH_STATS_INTERVAL). docs/queues.md.
 *
 * The signal handler only counts the request (one atomic add; async-signal-
 * safe) and calls the handler it replaced. The snapshot is written by the
 * endpoint itself, at its next progress call (mmfi_dump_poll), with the
 * domain lock held like every other call: it sees the queues between two
 * operations, reads them (mm_walk copies, nothing is unlinked or counted)
 * and changes no match. A rank that hangs in MPI spins in progress
 * (fi_cq_read), so it answers within microseconds; a rank outside MPI
 * (computing, or blocked elsewhere) writes nothing, and `mpimatch queues`
 * says so. Why not a helper thread: it would have to take the same lock and
 * would see the same state; it would add a thread to every MPI process (and
 * one more party to fork, TSan and the application's signal masks) only to
 * report on ranks that are not in MPI, which their missing snapshot already
 * tells.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mmfi.h"

_Atomic uint32_t mmfi_dump_requests;

static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static int sig_installed;          /* the signal whose handler is ours, or 0 */
static struct sigaction sig_old;   /* what it replaced (called after ours)  */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    atomic_fetch_add_explicit(&mmfi_dump_requests, 1, memory_order_relaxed);
    if (sig_old.sa_flags & SA_SIGINFO) {
        if (sig_old.sa_sigaction)
            sig_old.sa_sigaction(sig, si, uc);
    } else if (sig_old.sa_handler != SIG_DFL && sig_old.sa_handler != SIG_IGN) {
        sig_old.sa_handler(sig);
    }
    errno = saved;
}

static void install(int sig)
{
    pthread_mutex_lock(&sig_lock);
    if (!sig_installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sig, &sa, &sig_old) == 0)
            sig_installed = sig;
        else
            MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_DUMP: cannot install the handler of signal "
                      "%d: %s\n", sig, strerror(errno));
    }
    pthread_mutex_unlock(&sig_lock);
}

/* At provider cleanup (before libfabric unloads this library, at exit): the old
 * action back; but a default action that would end the process becomes "ignore":
 * the user who set FI_MPIMATCH_DUMP sends these signals, and one that comes while
 * the process exits must not turn a finished job into a killed one. */
void mmfi_dump_restore(void)
{
    pthread_mutex_lock(&sig_lock);
    if (sig_installed) {
        if (!(sig_old.sa_flags & SA_SIGINFO) && sig_old.sa_handler == SIG_DFL &&
            sig_installed != SIGCHLD && sig_installed != SIGURG && sig_installed != SIGWINCH &&
            sig_installed != SIGCONT)
            sig_old.sa_handler = SIG_IGN;
        sigaction(sig_installed, &sig_old, NULL);
        sig_installed = 0;
    }
    pthread_mutex_unlock(&sig_lock);
}

/* This process's MPI rank: its own address's index in the AV (Open MPI
 * inserts MPI_COMM_WORLD in rank order), else the launcher's variable, else -1. */
static long my_rank(mmfi_ep *ep)
{
    fi_addr_t a = mmfi_av_find(ep->av, &ep->name);
    if (a != FI_ADDR_NOTAVAIL)
        return (long)a;
    const char *v = getenv("OMPI_COMM_WORLD_RANK");
    if (!v)
        v = getenv("PMIX_RANK");
    return v ? strtol(v, NULL, 10) : -1;
}

/* DIR/mpimatch-<what>-<host>-<pid>-<ep>.<ext> (mmfi_file_path) */
static void path_of(char *out, size_t n, const char *dir, mmfi_ep *ep, const char *what,
                    const char *ext)
{
    mmfi_file_path(out, n, dir, &ep->name, what, ext);
}

/* ---- samples ---- */

int mmfi_dump_open(mmfi_ep *ep)
{
    const mmfi_settings *s = &ep->dom->set;
    ep->t_open_ns = mmfi_now_ns();
    ep->timed = s->dump_dir[0] != 0;
    if (s->dump_dir[0]) {
        install(s->dump_signal);
        ep->dump_seen = atomic_load_explicit(&mmfi_dump_requests, memory_order_relaxed);
    }
    if (!s->stats_interval_ns || !s->stats_dir[0])
        return 0;
    char path[600];
    path_of(path, sizeof path, s->stats_dir, ep, "samples", "jsonl");
    ep->sample_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (ep->sample_fd < 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_STATS=%s: cannot write %s: %s\n", s->stats_dir,
                  path, strerror(errno));
        return -FI_EIO;
    }
    char line[512];
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
        rank = getenv("PMIX_RANK");
    int n = snprintf(line, sizeof line, "{\"tool\": \"libmpimatch-fi\", \"kind\": \"samples\", "
                     "\"pid\": %d, \"ep\": %u, \"rank\": %ld, \"engine\": \"%s\", "
                     "\"interval_ms\": %llu}\n", (int)ep->name.pid, ep->name.epid,
                     rank ? strtol(rank, NULL, 10) : -1L, s->engine,
                     (unsigned long long)(s->stats_interval_ns / 1000000u));
    if (write(ep->sample_fd, line, (size_t)n) != n)
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_STATS: cannot write %s\n", path);
    ep->next_sample_ns = ep->t_open_ns;
    return 0;
}

/* One line: the time since the endpoint was enabled, queue lengths, the
 * counters (matches, searches and elements compared: a reader takes the
 * differences between lines for the depth of each interval). */
void mmfi_sample_write(mmfi_ep *ep, uint64_t now)
{
    mm_stats st;
    if (mm_get_stats(ep->eng, &st) != 0)
        return;
    const mmfi_counters *c = &ep->c;
    char line[768];
    int n = snprintf(line, sizeof line,
                     "{\"t\": %.6f, \"prq\": %llu, \"umq\": %llu, \"posts\": %llu, "
                     "\"arrivals\": %llu, \"matches\": %llu, \"prq_searches\": %llu, "
                     "\"prq_traversed\": %llu, \"prq_max_depth\": %llu, \"umq_searches\": %llu, "
                     "\"umq_traversed\": %llu, \"umq_max_depth\": %llu, \"unexpected\": %llu, "
                     "\"unexpected_bytes\": %llu, \"bytes\": %llu}\n",
                     (double)(now - ep->t_open_ns) / 1e9, (unsigned long long)st.prq.length,
                     (unsigned long long)st.umq.length, (unsigned long long)c->posts,
                     (unsigned long long)c->arrivals, (unsigned long long)c->matches,
                     (unsigned long long)st.prq.searches, (unsigned long long)st.prq.traversed,
                     (unsigned long long)st.prq.max_depth, (unsigned long long)st.umq.searches,
                     (unsigned long long)st.umq.traversed, (unsigned long long)st.umq.max_depth,
                     (unsigned long long)c->unexp_now, (unsigned long long)c->unexp_bytes_now,
                     (unsigned long long)st.bytes);
    if (n > 0 && write(ep->sample_fd, line, (size_t)n) == n)
        ep->nsamples++;
    ep->next_sample_ns = now + ep->dom->set.stats_interval_ns;
}

void mmfi_dump_close(mmfi_ep *ep)
{
    /* A request still pending (it came within DUMP_MIN_GAP_NS of the last
     * snapshot, or after the last progress call) is served now, gap or not:
     * the signal was taken, so the user gets the endpoint's last state. */
    if (ep->dom->set.dump_dir[0] &&
        atomic_load_explicit(&mmfi_dump_requests, memory_order_relaxed) != ep->dump_seen) {
        mmfi_dump_write(ep, 1);
    }
    if (ep->sample_fd < 0)
        return;
    mmfi_sample_write(ep, mmfi_now_ns());
    close(ep->sample_fd);
    ep->sample_fd = -1;
}

/* ---- snapshots ---- */

#define L_ACK  (1ull << 33)
#define L_SYNC (1ull << 32)

static double age(const mmfi_ep *ep, uint64_t t, uint64_t now)
{
    return t && now > t ? (double)(now - t) / 1e9 : ep->timed ? 0.0 : -1.0;
}

static void addr_json(FILE *f, const char *name, fi_addr_t a)
{
    if (a == FI_ADDR_UNSPEC || a == FI_ADDR_NOTAVAIL)
        fprintf(f, "\"%s\": null", name);
    else
        fprintf(f, "\"%s\": %llu", name, (unsigned long long)a);
}

/* Open MPI's fields of a tag (bits 63..34 cid, 33 ACK, 32 SYNC, 31..0 tag),
 * straight from the bits: for records the engine does not hold. */
static void raw_fields(FILE *f, uint64_t tag, int tagged)
{
    if (!tagged) {
        fputs("\"untagged\": true, \"cid\": null, \"tag\": null", f);
        return;
    }
    fprintf(f, "\"cid\": %llu, \"ack\": %d, \"sync\": %d, \"tag\": %d",
            (unsigned long long)(tag >> 34), !!(tag & L_ACK), !!(tag & L_SYNC),
            (int)(int32_t)(uint32_t)(tag & 0xffffffffull));
}

/* A receive or message; key: its engine element (NULL: the provider's alone). */
static void rec_json(FILE *f, mmfi_ep *ep, const mmfi_rec *r, const mm_queued *q, uint64_t now)
{
    int recv = r->kind == REC_RECV;
    fprintf(f, "{\"in\": \"%s\", ", q ? "engine" : "provider");
    if (q)
        fprintf(f, "\"seq\": %llu, ", (unsigned long long)q->seq);
    if (q && q->entry.comm == 0)
        fputs("\"untagged\": true, \"cid\": null, \"tag\": null", f);
    else if (q) {
        /* the engine's key: comm = 1 + (cid << 1 | ACK), the tag or ANY_TAG */
        fprintf(f, "\"cid\": %lld, \"ack\": %d, ", (long long)((q->entry.comm - 1) >> 1),
                (q->entry.comm - 1) & 1);
        if (!recv)
            fprintf(f, "\"sync\": %d, ", !!(r->tag & L_SYNC));
        if (q->entry.tag == MM_ANY_TAG)
            fputs("\"tag\": null", f);
        else
            fprintf(f, "\"tag\": %d", (int)q->entry.tag);
    } else
        raw_fields(f, r->tag, r->tagged);
    fputs(", ", f);
    if (recv) {
        addr_json(f, "src", r->addr);
        fprintf(f, ", \"bytes\": %zu, \"tag_bits\": \"0x%016llx\", \"ignore\": \"0x%016llx\"",
                r->cap, (unsigned long long)r->tag, (unsigned long long)r->ignore);
    } else {
        addr_json(f, "src", r->addr);
        if (r->has_data) /* Open MPI: the sender's rank in the communicator */
            fprintf(f, ", \"src_comm_rank\": %lld", (long long)r->data);
        fprintf(f, ", \"bytes\": %llu, \"rdv\": %s, \"tag_bits\": \"0x%016llx\"",
                (unsigned long long)r->len, r->rdv ? "true" : "false",
                (unsigned long long)r->tag);
    }
    fprintf(f, ", \"age_s\": %.6f}", age(ep, r->t_ns, now));
}

/* A snapshot lists at most this many elements per side (the rest are counted
 * in <side>_total): writing one stays a few milliseconds however deep the queues. */
#define DUMP_MAX_PER_SIDE 1000
/* and an endpoint writes at most one every 50 ms: requests in between are served
 * together, when the time has come (a flood of signals cannot stall the rank). */
#define DUMP_MIN_GAP_NS 50000000u

typedef struct walk_ctx {
    FILE    *f;
    mmfi_ep *ep;
    uint64_t now;
    size_t   n;
} walk_ctx;

static int walk_one(const mm_queued *q, void *arg)
{
    walk_ctx *w = arg;
    fputs(w->n++ ? ",\n    " : "\n    ", w->f);
    rec_json(w->f, w->ep, (const mmfi_rec *)q->entry.cookie, q, w->now);
    return w->n == DUMP_MAX_PER_SIDE;
}

/* One side: the engine's elements in its order (mm_walk), then the records
 * the provider keeps itself (keyless messages, the generic path); at most
 * DUMP_MAX_PER_SIDE listed, all counted. engine_len: the engine's length of
 * this side (mm_get_stats), which must equal the records marked as in it. */
static void side_json(FILE *f, mmfi_ep *ep, const char *name, int side, mmfi_link *list,
                      uint64_t now, uint64_t engine_len, int *consistent)
{
    walk_ctx w = {f, ep, now, 0};
    fprintf(f, "  \"%s\": [", name);
    if (ep->eng && mm_walk(ep->eng, side, walk_one, &w) != 0)
        *consistent = 0;
    size_t in_engine = 0, listed = w.n, total = (size_t)engine_len;
    for (mmfi_link *l = list->next; l != list; l = l->next) {
        const mmfi_rec *r = (const mmfi_rec *)l;
        if (r->in_engine) {
            in_engine++;
            continue;
        }
        total++;
        if (listed == DUMP_MAX_PER_SIDE)
            continue;
        fputs(listed++ ? ",\n    " : "\n    ", f);
        rec_json(f, ep, r, NULL, now);
    }
    if (in_engine != engine_len || w.n != (engine_len < DUMP_MAX_PER_SIDE ? engine_len
                                                                         : DUMP_MAX_PER_SIDE))
        *consistent = 0;
    fprintf(f, "],\n  \"%s_total\": %zu,\n", name, total);
}

static void conn_json(FILE *f, mmfi_ep *ep, const mmfi_conn *c)
{
    uint64_t in = 0, out = 0;
    int tcp = c->ch == &mmfi_chan_tcp;
    if (c->ch == &mmfi_chan_shm)
        mmfi_shm_inflight(ep, c, &in, &out);
    fputs("{", f);
    addr_json(f, "peer", c->fiaddr);
    fprintf(f, ", \"pid\": %d, \"channel\": \"%s\", \"up\": %s, \"dead\": %s, ",
            (int)c->peer.pid, c->ch ? c->ch->name : "none", c->up ? "true" : "false",
            c->dead ? "true" : "false");
    if (tcp)
        fprintf(f, "\"tx_bytes_queued\": %zu, \"rx_bytes_unparsed\": %zu, ",
                c->txb_tail - c->txb_head, c->rxb_len);
    else
        fprintf(f, "\"cells_in\": %llu, \"cells_out\": %llu, ", (unsigned long long)in,
                (unsigned long long)out);
    fprintf(f, "\"credit\": %llu, \"credit_owed\": %llu, \"held_bytes\": %llu, "
               "\"ctrl_queued\": %zu}", (unsigned long long)c->credit,
            (unsigned long long)c->credit_owed, (unsigned long long)c->held_bytes, mm_fifo_len(&c->ctrl));
}

void mmfi_dump_write(mmfi_ep *ep, int force)
{
    uint64_t now = mmfi_now_ns();
    if (!force && ep->last_dump_ns && now - ep->last_dump_ns < DUMP_MIN_GAP_NS)
        return; /* still pending: served at a later progress call */
    ep->last_dump_ns = now;
    uint32_t req = atomic_load_explicit(&mmfi_dump_requests, memory_order_relaxed);
    ep->dump_seen = req;
    const char *dir = ep->dom->set.dump_dir;
    char path[600], tmp[640];
    path_of(path, sizeof path, dir, ep, "snap", "json");
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_DUMP=%s: cannot write %s\n", dir, tmp);
        return;
    }
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    for (char *p = host; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = '_';
    fprintf(f, "{\"tool\": \"libmpimatch-fi\", \"kind\": \"snapshot\", \"version\": \"%s\",\n"
               "  \"rank\": %ld, \"np\": %zu, \"pid\": %d, \"ep\": %u, \"host\": \"%s\", "
               "\"request\": %u, \"time\": %.3f, \"uptime_s\": %.6f,\n"
               "  \"engine\": \"%s\", \"path\": \"%s\", \"layout\": \"%s\", \"ages\": %s,\n",
            mm_version(), my_rank(ep), mmfi_av_peers(ep->av), (int)ep->name.pid,
            ep->name.epid, host, req, (double)wall.tv_sec + (double)wall.tv_nsec / 1e9,
            (double)(now - ep->t_open_ns) / 1e9, ep->dom->set.engine,
            ep->generic ? "generic" : "keyed",
            ep->dom->set.layout == MMFI_LAYOUT_OMPI ? "ompi" : "none",
            ep->timed ? "true" : "false");
    mm_stats st;
    memset(&st, 0, sizeof st);
    if (ep->eng)
        mm_get_stats(ep->eng, &st);
    int consistent = 1;
    side_json(f, ep, "posted", MM_SIDE_PRQ, &ep->posted, now, st.prq.length, &consistent);
    side_json(f, ep, "unexpected", MM_SIDE_UMQ, &ep->unexp, now, st.umq.length, &consistent);
    /* Taken but not done: claimed messages (FI_CLAIM), matched rendezvous
     * receives waiting for data, rendezvous sends waiting or streaming. */
    size_t k = 0;
    fputs("  \"claimed\": [", f);
    for (mmfi_link *l = ep->claimed.next; l != &ep->claimed; l = l->next, k++) {
        fputs(k ? ",\n    " : "\n    ", f);
        rec_json(f, ep, (const mmfi_rec *)l, NULL, now);
    }
    k = 0;
    fputs("],\n  \"receiving\": [", f);
    for (mmfi_link *l = ep->active.next; l != &ep->active; l = l->next, k++) {
        const mmfi_rec *r = (const mmfi_rec *)l;
        fputs(k ? ",\n    " : "\n    ", f);
        fputs("{", f);
        addr_json(f, "src", r->msg_addr);
        fputs(", ", f);
        raw_fields(f, r->msg_tag, r->tagged);
        fprintf(f, ", \"bytes\": %llu, \"got\": %llu, \"age_s\": %.6f}",
                (unsigned long long)r->msg_len, (unsigned long long)r->got, age(ep, r->t_ns, now));
    }
    k = 0;
    fputs("],\n  \"sending\": [", f);
    for (mmfi_link *l = ep->sends.next; l != &ep->sends; l = l->next, k++) {
        const mmfi_send *s = (const mmfi_send *)l;
        fputs(k ? ",\n    " : "\n    ", f);
        fputs("{", f);
        addr_json(f, "dest", s->conn < ep->nconns ? ep->conns[s->conn].fiaddr : FI_ADDR_NOTAVAIL);
        fputs(", ", f);
        raw_fields(f, s->tag, s->tagged);
        fprintf(f, ", \"bytes\": %llu, \"sent\": %llu, \"state\": \"%s\", \"age_s\": %.6f}",
                (unsigned long long)s->len, (unsigned long long)s->off,
                s->state ? "streaming" : "waiting_cts", age(ep, s->t_ns, now));
    }
    fputs("],\n  \"channels\": [", f);
    for (size_t i = 0; i < ep->nconns; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        conn_json(f, ep, &ep->conns[i]);
    }
    const mmfi_counters *c = &ep->c;
    fputs("],\n  \"stats\": {", f);
    mmfi_json_qstats(f, "prq", &st.prq);
    fputs(", ", f);
    mmfi_json_qstats(f, "umq", &st.umq);
    fprintf(f, ", \"bytes\": %llu},\n  \"counters\": {\"posts\": %llu, \"arrivals\": %llu, "
               "\"matches\": %llu, \"peeks\": %llu, \"cancels\": %llu, \"unexpected_max\": %llu, "
               "\"unexpected_bytes\": %llu, \"keyless_msgs\": %llu, \"peer_deaths\": %llu},\n"
               "  \"consistent\": %s}\n",
            (unsigned long long)st.bytes, (unsigned long long)c->posts,
            (unsigned long long)c->arrivals, (unsigned long long)c->matches,
            (unsigned long long)c->peeks, (unsigned long long)c->cancels,
            (unsigned long long)c->unexp_max, (unsigned long long)c->unexp_bytes_now,
            (unsigned long long)c->keyless_msgs, (unsigned long long)c->peer_deaths,
            consistent ? "true" : "false");
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        MMFI_WARN(FI_LOG_EP_CTRL, "FI_MPIMATCH_DUMP=%s: cannot write %s\n", dir, path);
        unlink(tmp);
    }
}
