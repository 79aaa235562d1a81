/*
 * test_provider.c - the mpimatch libfabric provider through the libfabric API,
 * two processes on one machine (fork). Usage: test_provider [CASE] (all by
 * default). Cases: basic, wildcards, mpi_masks, mixed_masks, peek, cancel,
 * unexpected, packed, wrap, flood, crossflood, bad_env, hints, peer_death, peer_exit, threads, engines,
 * dump.
 */
#include "fitest.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "mpimatch.h"

/* Open MPI mtl ofi, layout with remote CQ data: cid 63..34, ACK 33, SYNC 32, tag 31..0. */
#define O_ACK  (1ull << 33)
#define O_SYNC (1ull << 32)
static uint64_t otag(uint64_t cid, int32_t tag) { return cid << 34 | (uint32_t)tag; }
static const uint64_t O_ANY = 0x7fffffffull;

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A barrier that keeps the provider progressing while it waits. */
static void barrier_progress(ft *f)
{
    char a = 1, b;
    if (write(f->sock, &a, 1) != 1)
        exit(2);
    double end = ft_now() + 60;
    for (;;) {
        struct pollfd p = {.fd = f->sock, .events = POLLIN};
        if (poll(&p, 1, 0) == 1)
            break;
        if (f->nstash < 256) {
            ssize_t rc = fi_cq_readfrom(f->cq, &f->stash[f->nstash], 1, &f->stash_src[f->nstash]);
            if (rc == 1)
                f->nstash++;
            else
                FT_CHECK(rc == -FI_EAGAIN);
        }
        if (ft_now() > end) {
            fprintf(stderr, "rank %d: barrier timed out\n", f->rank);
            exit(3);
        }
    }
    if (read(f->sock, &b, 1) != 1)
        exit(2);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u);
}

static int same(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 131u + i * 7u))
            return 0;
    return 1;
}

/* Wait for nsend send completions (and nothing else). */
static void wait_sends(ft *f, int nsend)
{
    for (int i = 0; i < nsend; i++) {
        struct fi_cq_tagged_entry e;
        struct fi_cq_err_entry err;
        int ok = ft_wait(f, &e, NULL, &err);
        FT_CHECK(ok);
        if (ok)
            FT_CHECK(e.flags & FI_SEND);
    }
}

/* ---- basic: sizes 0 B .. 8 MiB, tsend / tsenddata / tinject / sendv, pre-posted and late receives ---- */
static const size_t sizes[] = {0, 1, 16, 24, 100, 4031, 4032, 4033, 65536, 1 << 20, 8 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void t_basic(ft *f)
{
    if (f->rank == 1) {
        barrier_progress(f); /* the first half is posted */
        int done = 0, expect = 0;
        unsigned char *buf[NSIZES];
        for (size_t i = 0; i < NSIZES; i++) {
            buf[i] = malloc(sizes[i] + 1);
            fill(buf[i], sizes[i], (unsigned)i);
            uint64_t t = otag(5, (int32_t)i);
            if (i % 3 == 0 && sizes[i] <= f->info->tx_attr->inject_size)
                FT_RETRY(f, &done, fi_tinjectdata(f->ep, buf[i], sizes[i], 1000 + i, f->addr[0], t));
            else if (i % 3 != 2) {
                FT_RETRY(f, &done, fi_tsenddata(f->ep, buf[i], sizes[i], NULL, 1000 + i, f->addr[0], t, NULL));
                expect++;
            } else {
                struct iovec iov[2] = {{buf[i], sizes[i] / 2}, {buf[i] + sizes[i] / 2, sizes[i] - sizes[i] / 2}};
                FT_RETRY(f, &done, fi_tsendv(f->ep, iov, NULL, 2, f->addr[0], t, NULL));
                expect++;
            }
        }
        wait_sends(f, expect - done);
        barrier_progress(f);
        for (size_t i = 0; i < NSIZES; i++)
            free(buf[i]);
        return;
    }
    unsigned char *buf[NSIZES];
    struct fi_context ctx[NSIZES];
    for (size_t i = 0; i < NSIZES; i++) {
        buf[i] = calloc(1, sizes[i] + 1);
        if (i % 2 == 0) /* pre-posted, directed */
            FT_OK(fi_trecv(f->ep, buf[i], sizes[i], NULL, f->addr[1], otag(5, (int32_t)i), O_SYNC, &ctx[i]));
    }
    barrier_progress(f);
    for (size_t i = 1; i < NSIZES; i += 2) /* late, any source */
        FT_OK(fi_trecv(f->ep, buf[i], sizes[i], NULL, FI_ADDR_UNSPEC, otag(5, (int32_t)i), O_SYNC, &ctx[i]));
    for (size_t k = 0; k < NSIZES; k++) {
        struct fi_cq_tagged_entry e;
        fi_addr_t src = 77;
        FT_CHECK(ft_wait(f, &e, &src, NULL));
        size_t i = (size_t)((struct fi_context *)e.op_context - ctx);
        FT_CHECK(i < NSIZES);
        if (i >= NSIZES)
            continue;
        FT_EQ(e.len, sizes[i]);
        FT_EQ(e.tag, otag(5, (int32_t)i));
        FT_EQ(src, f->addr[1]);
        FT_CHECK(e.flags & FI_RECV && e.flags & FI_TAGGED);
        if (i % 3 != 2) {
            FT_CHECK(e.flags & FI_REMOTE_CQ_DATA);
            FT_EQ(e.data, 1000 + i);
        } else
            FT_CHECK(!(e.flags & FI_REMOTE_CQ_DATA));
        FT_CHECK(same(buf[i], sizes[i], (unsigned)i));
    }
    barrier_progress(f);
    for (size_t i = 0; i < NSIZES; i++)
        free(buf[i]);
}

/* ---- wildcards in Open MPI's shapes; ANY_TAG never takes a negative tag; sync and ack bits ---- */
static void t_wildcards(ft *f)
{
    int32_t tags[] = {-5, 7, 3, -1, 9};
    int n = 5;
    if (f->rank == 1) {
        int done = 0;
        for (int i = 0; i < n; i++) {
            uint64_t t = otag(3, tags[i]) | (i == 2 ? O_SYNC : 0);
            int32_t v = tags[i];
            FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], t));
        }
        /* an acknowledgement-shaped message */
        int32_t v = 42;
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(3, 42) | O_ACK));
        barrier_progress(f); /* sent */
        barrier_progress(f); /* all received */
        return;
    }
    barrier_progress(f);
    struct fi_context c;
    int32_t got;
    struct fi_cq_tagged_entry e;
    fi_addr_t src;
    /* ANY_TAG, ANY_SOURCE: 7, then 3 (sent synchronous), then 9; never -5 or -1 */
    int32_t want[] = {7, 3, 9};
    for (int k = 0; k < 3; k++) {
        FT_OK(fi_trecv(f->ep, &got, sizeof got, NULL, FI_ADDR_UNSPEC, otag(3, 0), O_SYNC | O_ANY, &c));
        FT_CHECK(ft_wait(f, &e, &src, NULL));
        FT_EQ(got, want[k]);
        FT_EQ(src, f->addr[1]);
        FT_EQ(e.tag & 0xffffffffu, (uint32_t)want[k]);
        FT_EQ(!!(e.tag & O_SYNC), k == 1);
    }
    /* a directed receive from myself finds nothing: post, then cancel */
    FT_OK(fi_trecv(f->ep, &got, sizeof got, NULL, f->addr[0], otag(3, 0), O_SYNC | O_ANY, &c));
    ft_progress(f, 100);
    FT_EQ(fi_cancel(&f->ep->fid, &c), 0);
    struct fi_cq_err_entry err;
    FT_CHECK(!ft_wait(f, &e, NULL, &err));
    FT_EQ(err.err, FI_ECANCELED);
    /* exact negative tags */
    for (int k = 0; k < 2; k++) {
        int32_t t = k ? -1 : -5;
        FT_OK(fi_trecv(f->ep, &got, sizeof got, NULL, f->addr[1], otag(3, t), O_SYNC, &c));
        FT_CHECK(ft_wait(f, &e, NULL, NULL));
        FT_EQ(got, t);
    }
    /* the ack shape: exact, SYNC compared */
    FT_OK(fi_trecv(f->ep, &got, sizeof got, NULL, f->addr[1], otag(3, 42) | O_ACK, 0, &c));
    FT_CHECK(ft_wait(f, &e, NULL, NULL));
    FT_EQ(got, 42);
    barrier_progress(f);
}

/* ---- random masks against a model of libfabric's rule ---- */
typedef struct { uint64_t tag, ignore; fi_addr_t addr; int got; } mrecv;

static uint64_t rand_msg_tag(void)
{
    static const int32_t t32[] = {0, 1, 5, -3, (int32_t)0x80000000, 0x7fffffff};
    uint64_t cid = 1 + rnd() % 2;
    uint64_t t = otag(cid, t32[rnd() % 6]);
    if (rnd() % 4 == 0)
        t |= O_SYNC;
    if (rnd() % 5 == 0)
        t |= O_ACK;
    return t;
}

static void rand_recv(mrecv *r, int mpi_only, const ft *f)
{
    static const int32_t t32[] = {0, 1, 5, -3, 0x7fffffff};
    uint64_t cid = 1 + rnd() % 2;
    int any_src = rnd() % 2;
    r->addr = any_src ? FI_ADDR_UNSPEC : f->addr[rnd() % 5 == 0 ? 0 : 1];
    r->got = -1;
    if (mpi_only || rnd() % 3) {
        int any_tag = rnd() % 3 == 0;
        if (rnd() % 5 == 0) { /* ack shape */
            r->tag = otag(cid, any_tag ? 0 : t32[rnd() % 5]) | O_ACK;
            r->ignore = any_tag ? O_ANY : 0;
        } else {
            r->tag = otag(cid, any_tag ? 0 : t32[rnd() % 5]);
            r->ignore = O_SYNC | (any_tag ? O_ANY : 0);
        }
        return;
    }
    static const uint64_t masks[] = {0, ~0ull, 0xff, 0xffffffffull, 0x3ull << 32,
                                     0xfull << 30, 0x5555555555555555ull};
    r->tag = rand_msg_tag();
    r->ignore = masks[rnd() % 7];
}

static int model_match(const mrecv *r, uint64_t mtag, fi_addr_t from)
{
    return (r->addr == FI_ADDR_UNSPEC || r->addr == from) && ((r->tag ^ mtag) & ~r->ignore) == 0;
}

#define NM 300
#define NPRE 60
#define NPOST 260

static void run_masks(ft *f, int mpi_only, uint64_t seed)
{
    rng_state = seed;
    uint64_t mtag[NM];
    for (int i = 0; i < NM; i++)
        mtag[i] = rand_msg_tag();
    mrecv rv[NPRE + NPOST];
    for (int i = 0; i < NPRE + NPOST; i++)
        rand_recv(&rv[i], mpi_only, f);
    if (f->rank == 1) {
        barrier_progress(f);
        int done = 0;
        for (int i = 0; i < NM; i++) {
            uint32_t v = (uint32_t)i;
            FT_RETRY(f, &done, fi_tinjectdata(f->ep, &v, sizeof v, (uint64_t)i, f->addr[0], mtag[i]));
        }
        uint32_t fence = 0xfe;
        FT_RETRY(f, &done, fi_inject(f->ep, &fence, sizeof fence, f->addr[0]));
        barrier_progress(f);
        return;
    }
    /* the model: list matching in post and arrival order */
    int unexp[NM], nun = 0;
    for (int i = 0; i < NM; i++) {
        int hit = 0;
        for (int k = 0; k < NPRE && !hit; k++)
            if (rv[k].got < 0 && model_match(&rv[k], mtag[i], f->addr[1])) {
                rv[k].got = i;
                hit = 1;
            }
        if (!hit)
            unexp[nun++] = i;
    }
    for (int k = NPRE; k < NPRE + NPOST; k++)
        for (int u = 0; u < nun; u++)
            if (unexp[u] >= 0 && model_match(&rv[k], mtag[unexp[u]], f->addr[1])) {
                rv[k].got = unexp[u];
                unexp[u] = -1;
                break;
            }
    static uint32_t val[NPRE + NPOST];
    static struct fi_context ctx[NPRE + NPOST];
    int got[NPRE + NPOST];
    for (int k = 0; k < NPRE + NPOST; k++)
        got[k] = -2;
    for (int k = 0; k < NPRE; k++)
        FT_OK(fi_trecv(f->ep, &val[k], sizeof val[k], NULL, rv[k].addr, rv[k].tag, rv[k].ignore, &ctx[k]));
    barrier_progress(f);
    uint32_t fence;
    struct fi_context fc;
    FT_OK(fi_recv(f->ep, &fence, sizeof fence, NULL, f->addr[1], &fc));
    int ndone = 0, fenced = 0;
    struct fi_cq_tagged_entry e;
    while (!fenced) {
        FT_CHECK(ft_wait(f, &e, NULL, NULL));
        if (e.op_context == &fc) {
            fenced = 1;
            FT_CHECK(e.flags & FI_MSG);
            FT_EQ(fence, 0xfe);
            continue;
        }
        int k = (int)((struct fi_context *)e.op_context - ctx);
        got[k] = (int)val[k];
        FT_EQ(e.data, val[k]);
        ndone++;
    }
    for (int k = NPRE; k < NPRE + NPOST; k++)
        FT_OK(fi_trecv(f->ep, &val[k], sizeof val[k], NULL, rv[k].addr, rv[k].tag, rv[k].ignore, &ctx[k]));
    int expect = 0;
    for (int k = 0; k < NPRE + NPOST; k++)
        expect += rv[k].got >= 0;
    for (; ndone < expect; ndone++) {
        FT_CHECK(ft_wait(f, &e, NULL, NULL));
        int k = (int)((struct fi_context *)e.op_context - ctx);
        got[k] = (int)val[k];
        FT_EQ(e.tag, mtag[val[k]]);
    }
    int cancelled = 0;
    for (int k = 0; k < NPRE + NPOST; k++) {
        if (rv[k].got >= 0) {
            if (got[k] != rv[k].got)
                fprintf(stderr, "receive %d (tag %llx ignore %llx addr %lld): got %d, model %d\n", k,
                        (unsigned long long)rv[k].tag, (unsigned long long)rv[k].ignore,
                        (long long)rv[k].addr, got[k], rv[k].got);
            FT_EQ(got[k], rv[k].got);
        } else {
            FT_EQ(got[k], -2);
            if (got[k] == -2) {
                FT_EQ(fi_cancel(&f->ep->fid, &ctx[k]), 0);
                cancelled++;
            }
        }
    }
    for (int i = 0; i < cancelled; i++) {
        struct fi_cq_err_entry err;
        FT_CHECK(!ft_wait(f, &e, NULL, &err));
        FT_EQ(err.err, FI_ECANCELED);
    }
    barrier_progress(f);
}

/* One run per pair of endpoints: unmatched messages stay queued. */
static uint64_t g_seed;
static void t_mpi_masks(ft *f) { run_masks(f, 1, g_seed); }
static void t_mixed_masks(ft *f) { run_masks(f, 0, g_seed); }

static int masks_runs(const char *name, void (*body)(ft *f))
{
    static const uint64_t seeds[] = {12345, 777, 4242, 99};
    int bad = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char n[64];
        snprintf(n, sizeof n, "%s seed %llu", name, (unsigned long long)seeds[i]);
        g_seed = seeds[i];
        bad |= ft_run2(n, body, 60);
    }
    return bad;
}

/* Resident bytes of this process. */
static long rss_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *fp = fopen("/proc/self/statm", "r");
    if (fp) {
        if (fscanf(fp, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(fp);
    }
    return resident * sysconf(_SC_PAGESIZE);
}

/* ---- FI_PEEK, FI_CLAIM, FI_DISCARD: every field ---- */
static void t_peek(ft *f)
{
    static unsigned char big[20000], big2[20000];
    if (f->rank == 1) {
        int done = 0;
        char a[10] = "abcdefghi", c[3] = "xy";
        fill(big, sizeof big, 9);
        FT_RETRY(f, &done, fi_tsenddata(f->ep, a, sizeof a, NULL, 11, f->addr[0], otag(2, 1), NULL));
        FT_RETRY(f, &done, fi_tsenddata(f->ep, big, sizeof big, NULL, 22, f->addr[0], otag(2, 2), NULL));
        FT_RETRY(f, &done, fi_tsend(f->ep, c, sizeof c, NULL, f->addr[0], otag(2, 3), NULL));
        FT_RETRY(f, &done, fi_tsend(f->ep, big, sizeof big, NULL, f->addr[0], otag(2, 4), NULL));
        wait_sends(f, 4 - done);
        barrier_progress(f);
        return;
    }
    struct fi_context pc, rc2;
    struct fi_cq_tagged_entry e;
    struct fi_cq_err_entry err;
    fi_addr_t src;
    struct fi_msg_tagged m = {.addr = FI_ADDR_UNSPEC, .context = &pc};
    /* nothing with tag 99 */
    m.tag = otag(2, 99);
    m.ignore = O_SYNC;
    FT_OK(fi_trecvmsg(f->ep, &m, FI_PEEK | FI_COMPLETION));
    FT_CHECK(!ft_wait(f, &e, NULL, &err));
    FT_EQ(err.err, FI_ENOMSG);
    FT_CHECK(err.op_context == &pc);
    /* Receives reuse freed records: 100,000 missed peeks (MPI_Iprobe in a loop) hold
     * no memory (each kept its 300-byte record once: 33 MB). */
    long before = rss_bytes();
    for (int i = 0; i < 100000; i++) {
        FT_OK(fi_trecvmsg(f->ep, &m, FI_PEEK | FI_COMPLETION));
        FT_CHECK(!ft_wait(f, &e, NULL, &err));
        FT_EQ(err.err, FI_ENOMSG);
    }
    FT_CHECK(rss_bytes() - before < 4L << 20);
    /* peek tag 1 until it has arrived: every field */
    m.tag = otag(2, 1);
    for (int tries = 0;; tries++) {
        FT_OK(fi_trecvmsg(f->ep, &m, FI_PEEK | FI_COMPLETION));
        if (ft_wait(f, &e, &src, &err))
            break;
        FT_EQ(err.err, FI_ENOMSG);
        FT_CHECK(tries < 100000);
    }
    FT_EQ(e.len, 10);
    FT_EQ(e.tag, otag(2, 1));
    FT_EQ(e.data, 11);
    FT_CHECK(e.flags & FI_REMOTE_CQ_DATA);
    FT_CHECK(e.flags & FI_RECV);
    FT_EQ(src, f->addr[1]);
    FT_CHECK(e.op_context == &pc);
    /* peeking again finds it again (a peek leaves the message) */
    FT_OK(fi_trecvmsg(f->ep, &m, FI_PEEK | FI_COMPLETION));
    FT_CHECK(ft_wait(f, &e, &src, NULL));
    FT_EQ(e.len, 10);
    /* the rendezvous message: peek + claim with ANY_TAG (tag 1 is first: claim it, then tag 2) */
    for (int t = 1; t <= 2; t++) {
        m.tag = otag(2, t);
        m.ignore = O_SYNC;
        for (int tries = 0;; tries++) {
            FT_OK(fi_trecvmsg(f->ep, &m, FI_PEEK | FI_CLAIM | FI_COMPLETION));
            if (ft_wait(f, &e, &src, &err))
                break;
            FT_CHECK(tries < 100000);
        }
        FT_EQ(e.tag, otag(2, t));
        FT_EQ(e.len, t == 1 ? 10 : sizeof big2);
        FT_EQ(e.data, t == 1 ? 11 : 22);
        FT_EQ(src, f->addr[1]);
        /* the claimed message is gone for everyone else */
        struct fi_msg_tagged m2 = m;
        m2.context = &rc2;
        FT_OK(fi_trecvmsg(f->ep, &m2, FI_PEEK | FI_COMPLETION));
        FT_CHECK(!ft_wait(f, &e, NULL, &err));
        FT_EQ(err.err, FI_ENOMSG);
        /* the paired receive with the same context */
        struct iovec iov = {big2, sizeof big2};
        struct fi_msg_tagged mr = {.msg_iov = &iov, .iov_count = 1, .addr = 0, .tag = m.tag,
                                   .ignore = m.ignore, .context = &pc};
        memset(big2, 0, sizeof big2);
        FT_OK(fi_trecvmsg(f->ep, &mr, FI_CLAIM | FI_COMPLETION));
        FT_CHECK(ft_wait(f, &e, &src, NULL));
        FT_CHECK(e.op_context == &pc);
        FT_EQ(e.len, t == 1 ? 10 : sizeof big2);
        FT_EQ(e.data, t == 1 ? 11 : 22);
        FT_EQ(e.tag, otag(2, t));
        if (t == 1)
            FT_CHECK(!memcmp(big2, "abcdefghi", 10));
        else
            FT_CHECK(same(big2, sizeof big2, 9));
    }
    /* discard tag 3 (eager) and tag 4 (rendezvous: the sender completes) */
    for (int t = 3; t <= 4; t++) {
        m.tag = otag(2, t);
        for (int tries = 0;; tries++) {
            FT_OK(fi_trecvmsg(f->ep, &m, FI_PEEK | FI_DISCARD | FI_COMPLETION));
            if (ft_wait(f, &e, &src, &err))
                break;
            FT_CHECK(tries < 100000);
        }
        FT_EQ(e.len, t == 3 ? 3 : sizeof big);
        FT_OK(fi_trecvmsg(f->ep, &m, FI_PEEK | FI_COMPLETION));
        FT_CHECK(!ft_wait(f, &e, NULL, &err));
        FT_EQ(err.err, FI_ENOMSG);
    }
    barrier_progress(f);
}

/* ---- cancel ---- */
static void t_cancel(ft *f)
{
    if (f->rank == 1) {
        barrier_progress(f);
        int done = 0, v = 5;
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(1, 1)));
        barrier_progress(f);
        return;
    }
    int v = 0;
    struct fi_context c1, c2;
    struct fi_cq_tagged_entry e;
    struct fi_cq_err_entry err;
    FT_OK(fi_trecv(f->ep, &v, sizeof v, NULL, FI_ADDR_UNSPEC, otag(1, 1), O_SYNC, &c1));
    FT_EQ(fi_cancel(&f->ep->fid, &c1), 0);
    FT_CHECK(!ft_wait(f, &e, NULL, &err));
    FT_EQ(err.err, FI_ECANCELED);
    FT_CHECK(err.op_context == &c1);
    FT_EQ(fi_cancel(&f->ep->fid, &c1), -FI_ENOENT);
    barrier_progress(f);
    FT_OK(fi_trecv(f->ep, &v, sizeof v, NULL, FI_ADDR_UNSPEC, otag(1, 1), O_SYNC, &c2));
    FT_CHECK(ft_wait(f, &e, NULL, NULL));
    FT_CHECK(e.op_context == &c2);
    FT_EQ(v, 5);
    FT_EQ(fi_cancel(&f->ep->fid, &c2), -FI_ENOENT); /* completed: nothing to cancel */
    barrier_progress(f);
}

/* ---- unexpected depth 1, 4, 100, 10000 from one source before any receive ---- */
static void run_unexpected(ft *f, int n)
{
    if (f->rank == 1) {
        int done = 0, expect = 0;
        static unsigned char big[9000];
        fill(big, sizeof big, 3);
        for (int i = 0; i < n; i++) {
            uint32_t v = (uint32_t)i;
            if (n <= 100 && i % 10 == 9) { /* some rendezvous among them */
                FT_RETRY(f, &done, fi_tsend(f->ep, big, sizeof big, NULL, f->addr[0], otag(7, i), NULL));
                expect++;
            } else
                FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(7, i)));
        }
        barrier_progress(f); /* every message is out before any receive */
        wait_sends(f, expect - done);
        barrier_progress(f);
        return;
    }
    barrier_progress(f);
    ft_progress(f, 1000);
    static unsigned char big[9000];
    struct fi_context c;
    struct fi_cq_tagged_entry e;
    for (int i = 0; i < n; i++) {
        uint32_t v = 0xffffffff;
        int rdv = n <= 100 && i % 10 == 9;
        if (rdv)
            FT_OK(fi_trecv(f->ep, big, sizeof big, NULL, FI_ADDR_UNSPEC, otag(7, 0), O_SYNC | O_ANY, &c));
        else
            FT_OK(fi_trecv(f->ep, &v, sizeof v, NULL, f->addr[1], otag(7, 0), O_SYNC | O_ANY, &c));
        FT_CHECK(ft_wait(f, &e, NULL, NULL));
        FT_EQ(e.tag, otag(7, i));
        if (rdv)
            FT_CHECK(same(big, sizeof big, 3));
        else
            FT_EQ(v, i);
        if (ft_failed > 10)
            break;
    }
    barrier_progress(f);
}

static void t_unexpected(ft *f)
{
    run_unexpected(f, 1);
    run_unexpected(f, 4);
    run_unexpected(f, 100);
    run_unexpected(f, 10000);
}

/* ---- packed rings: many small messages per 4 KiB of ring, in order, intact ----
 * Run with FI_MPIMATCH_RING_CELLS=4 (a 16 KiB ring). Phase 1: while rank 0 is
 * not polling, rank 1 injects 1-byte messages until the ring is full; a ring
 * of 4 cells must hold well over 4 of them (packing), and rank 0 then receives
 * all of them in order. Phase 2: 3,000 messages of mixed sizes (0 B to one
 * ring cell's payload, a few rendezvous ones above it) wrap the small ring
 * many times while rank 0 receives them, sometimes late (unexpected); every
 * tag, length, CQ datum and byte is checked. */
#define PACK_N 3000
static size_t pack_size(uint64_t *st, int i)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull + (uint64_t)i;
    uint64_t r = *st >> 33;
    switch (r % 16) {
    case 13: return 4032;
    case 14: return 0;
    case 15: return 4033 + (size_t)(r >> 4) % 6000;
    default: return r % 16 < 10 ? (size_t)(r >> 4) % 65 : (size_t)(r >> 4) % 4033;
    }
}

static void t_packed(ft *f)
{
    static unsigned char buf[12000];
    struct fi_context c;
    struct fi_cq_tagged_entry e;
    int held = 0, theirs = 0;
    if (f->rank == 1) {
        unsigned char one = 0;
        for (; held < 20000; held++) {
            one = (unsigned char)held;
            ssize_t rc = fi_tinject(f->ep, &one, 1, f->addr[0], otag(2, held));
            if (rc == -FI_EAGAIN)
                break;
            FT_OK(rc);
        }
    }
    ft_xchg(f->sock, &held, &theirs, sizeof held); /* rank 0 polled nothing meanwhile */
    if (f->rank == 0) {
        held = theirs;
        FT_CHECK(held >= 150); /* one 4 KiB cell each would hold 4 */
        for (int i = 0; i < held; i++) {
            unsigned char v = 0;
            FT_OK(fi_trecv(f->ep, &v, 1, NULL, f->addr[1], otag(2, 0), O_ANY, &c));
            FT_CHECK(ft_wait(f, &e, NULL, NULL));
            FT_EQ(e.tag, otag(2, i));
            FT_EQ(e.len, 1);
            FT_EQ(v, (unsigned char)i);
            if (ft_failed > 10)
                break;
        }
    }
    barrier_progress(f);
    uint64_t st = 7;
    if (f->rank == 1) {
        int done = 0, expect = 0;
        for (int i = 0; i < PACK_N; i++) {
            size_t n = pack_size(&st, i);
            fill(buf, n, (unsigned)i);
            if (n > f->info->tx_attr->inject_size) { /* rendezvous: done before buf is reused */
                FT_RETRY(f, &done, fi_tsenddata(f->ep, buf, n, NULL, (uint64_t)i, f->addr[0],
                                                otag(3, i), NULL));
                wait_sends(f, expect + 1 - done);
                expect = done = 0;
            } else if (i % 2)
                FT_RETRY(f, &done, fi_tinjectdata(f->ep, buf, n, (uint64_t)i, f->addr[0], otag(3, i)));
            else {
                FT_RETRY(f, &done, fi_tsenddata(f->ep, buf, n, NULL, (uint64_t)i, f->addr[0],
                                                otag(3, i), NULL));
                expect++;
            }
        }
        wait_sends(f, expect - done);
        barrier_progress(f);
        return;
    }
    for (int i = 0; i < PACK_N; i++) {
        size_t n = pack_size(&st, i);
        if (i % 500 == 250)
            ft_progress(f, 300); /* let some arrive before their receive */
        memset(buf, 0xee, n + 1);
        FT_OK(fi_trecv(f->ep, buf, sizeof buf, NULL, f->addr[1], otag(3, 0), O_ANY, &c));
        FT_CHECK(ft_wait(f, &e, NULL, NULL));
        FT_EQ(e.tag, otag(3, i));
        FT_EQ(e.len, n);
        FT_EQ(e.data, i);
        FT_CHECK(same(buf, n, (unsigned)i) && buf[n] == 0xee);
        if (ft_failed > 10)
            break;
    }
    barrier_progress(f);
}

/* ---- sequence numbers across their wrap (FI_MPIMATCH_SEQ_START near 2^32) ---- */
static void t_wrap(ft *f)
{
    int other = 1 - f->rank, done = 0;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 20; i++) {
            uint32_t v = (uint32_t)(round * 100 + i);
            FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[other], otag(1, i)));
        }
        struct fi_context c;
        struct fi_cq_tagged_entry e;
        for (int i = 0; i < 20; i++) {
            uint32_t v = 0;
            FT_OK(fi_trecv(f->ep, &v, sizeof v, NULL, f->addr[other], otag(1, 0), O_SYNC | O_ANY, &c));
            FT_CHECK(ft_wait(f, &e, NULL, NULL));
            FT_EQ(v, round * 100 + i);
        }
    }
    barrier_progress(f);
}

/* ---- crossflood: a control message due while the ring it needs is full ----
 * Rank 1 sends rank 0 a rendezvous message (64 KiB); then rank 0 fills the ring
 * to rank 1 with 1-byte injects until -FI_EAGAIN, and rank 1 sleeps 300 ms
 * while rank 0 posts the receive of the rendezvous message: matching its RTS
 * makes a control message (FIN after process_vm_readv, or CTS) for the ring to
 * rank 1, which stays full until rank 1 wakes and drains it, so the message
 * waits in the connection's control queue (xfer.c) and leaves at a later
 * progress call. Every inject arrives in order, the rendezvous message
 * completes on both sides, with its bytes. */
#define CROSS_RDV 65536
static void t_crossflood(ft *f)
{
    static unsigned char big[CROSS_RDV];
    struct fi_context cs, cr, c1;
    struct fi_cq_tagged_entry e;
    int held = 0, theirs = 0;
    if (f->rank == 1) {
        fill(big, sizeof big, 41);
        FT_OK(fi_tsend(f->ep, big, sizeof big, NULL, f->addr[0], otag(4, 1), &cs));
    }
    ft_xchg(f->sock, &held, &theirs, sizeof held); /* the RTS is in rank 0's ring */
    if (f->rank == 0) {
        for (; held < 100000; held++) {
            unsigned char one = (unsigned char)held;
            ssize_t rc = fi_tinject(f->ep, &one, 1, f->addr[1], otag(5, held));
            if (rc == -FI_EAGAIN)
                break;
            FT_OK(rc);
        }
        FT_CHECK(held >= 4);
    }
    ft_xchg(f->sock, &held, &theirs, sizeof held);
    if (f->rank == 0) {
        memset(big, 0, sizeof big);
        FT_OK(fi_trecv(f->ep, big, sizeof big, NULL, f->addr[1], otag(4, 1), 0, &cr));
        FT_CHECK(ft_wait(f, &e, NULL, NULL));
        FT_CHECK(e.op_context == &cr && e.len == sizeof big);
        FT_CHECK(same(big, sizeof big, 41));
    } else {
        usleep(300000); /* rank 0 matches the RTS meanwhile; its ring to us is full */
        int send_done = 0;
        for (int i = 0; i < theirs && ft_failed <= 10; i++) {
            unsigned char v = 0xee;
            FT_OK(fi_trecv(f->ep, &v, 1, NULL, f->addr[0], otag(5, 0), O_ANY, &c1));
            FT_CHECK(ft_wait(f, &e, NULL, NULL));
            if (e.op_context == &cs) { /* the rendezvous send may complete first */
                send_done++;
                FT_CHECK(ft_wait(f, &e, NULL, NULL));
            }
            FT_CHECK(e.op_context == &c1);
            FT_EQ(e.tag, otag(5, i));
            FT_EQ(v, (unsigned char)i);
        }
        if (!send_done) {
            FT_CHECK(ft_wait(f, &e, NULL, NULL));
            FT_CHECK(e.op_context == &cs);
        }
    }
    barrier_progress(f);
}

/* ---- a flood of large unexpected messages costs headers only (statistics file) ---- */
static char stats_dir[256];

static void t_flood(ft *f)
{
    enum { N = 40, LEN = 256 * 1024 };
    if (f->rank == 1) {
        unsigned char *b = malloc(LEN);
        fill(b, LEN, 1);
        int done = 0;
        for (int i = 0; i < N; i++)
            FT_RETRY(f, &done, fi_tsend(f->ep, b, LEN, NULL, f->addr[0], otag(1, i), NULL));
        barrier_progress(f);
        wait_sends(f, N - done);
        barrier_progress(f);
        free(b);
        return;
    }
    barrier_progress(f);
    ft_progress(f, 2000);
    unsigned char *b = malloc(LEN);
    struct fi_context c;
    struct fi_cq_tagged_entry e;
    for (int i = N - 1; i >= 0; i--) { /* in reverse order, by exact tag */
        memset(b, 0, LEN);
        FT_OK(fi_trecv(f->ep, b, LEN, NULL, f->addr[1], otag(1, i), O_SYNC, &c));
        FT_CHECK(ft_wait(f, &e, NULL, NULL));
        FT_EQ(e.len, LEN);
        FT_CHECK(same(b, LEN, 1));
    }
    free(b);
    barrier_progress(f);
}

static long long json_num(const char *text, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(text, k);
    return p ? atoll(p + strlen(k)) : -1;
}

/* Each statistics file in stats_dir given to fn (its text), then removed, and the
 * directory too; the number of files. */
static int each_stats_file(void (*fn)(const char *text))
{
    DIR *d = opendir(stats_dir);
    int files = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "mpimatch-fi-", 12) || !strstr(e->d_name, ".json") ||
            strstr(e->d_name, ".tmp"))
            continue;
        char path[600];
        static char text[32768];
        memset(text, 0, sizeof text);
        snprintf(path, sizeof path, "%s/%s", stats_dir, e->d_name);
        FILE *fp = fopen(path, "r");
        size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
        if (fp)
            fclose(fp);
        files++;
        FT_CHECK(n > 0 && text[0] == '{');
        fn(text);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(stats_dir);
    return files;
}

static void flood_file(const char *text)
{
    FT_CHECK(strstr(text, "\"results\": [{\"engine\": \"rank\"") != NULL);
    FT_CHECK(strstr(text, "\"umq\": {") && strstr(text, "\"prq\": {"));
    if (json_num(text, "rdv_recv") == 40) { /* the receiver */
        FT_EQ(json_num(text, "unexpected_bytes_max"), 0); /* headers, no payload */
        FT_EQ(json_num(text, "unexpected_max"), 40);
        FT_EQ(json_num(strstr(text, "\"umq\""), "max_length"), 40);
        const char *cma = getenv("FI_MPIMATCH_CMA");
        const char *tcp = getenv("FI_MPIMATCH_FORCE_TCP");
        if (tcp && !strcmp(tcp, "all")) { /* pulled over the socket once matched */
            const char *t = strstr(text, "\"tcp\": {");
            FT_CHECK(t != NULL);
            FT_EQ(json_num(text, "reads"), 0);
            FT_CHECK(json_num(text, "segments_recv") >= 40 * (256 * 1024 / 4032));
            FT_CHECK(t && json_num(t, "cells_recv") >= 40 * (256 * 1024 / 4032));
            FT_CHECK(t && json_num(t, "bytes_recv") >= 40 * 256 * 1024);
            FT_EQ(json_num(text, "peers"), 2); /* shm block: itself and the sender */
            FT_CHECK(t && json_num(t, "peers") == 2);
        } else if (cma && !strcmp(cma, "0")) { /* segmented copy through the ring */
            FT_EQ(json_num(text, "reads"), 0);
            FT_CHECK(json_num(text, "segments_recv") >= 40 * (256 * 1024 / 4032));
        } else { /* one process_vm_readv per message */
            FT_EQ(json_num(text, "reads"), 40);
            FT_EQ(json_num(text, "segments_recv"), 0);
        }
    } else
        FT_EQ(json_num(text, "rdv_sent"), 40);
}

static int check_flood_stats(void)
{
    FT_EQ(each_stats_file(flood_file), 2);
    int ok = !ft_failed;
    printf("flood statistics: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

/* ---- polling schemes (FI_MPIMATCH_POLL): basic's traffic with statistics on, then
 * the "polling" block of both files: the scheme, the messages found on the channel
 * they came by (TCP when FI_MPIMATCH_FORCE_TCP says so), each with its discovery
 * time, and the network polled as often as the scheme says. ---- */
static int poll_receivers;

static void polling_file(const char *text)
{
    const char *scheme = getenv("FI_MPIMATCH_POLL");
    const char *tcp = getenv("FI_MPIMATCH_FORCE_TCP");
    const char *rs = getenv("FI_MPIMATCH_POLL_RATIO");
    long long ratio = rs ? atoll(rs) : 50;
    if (!scheme)
        scheme = "rr";
    const char *pb = strstr(text, "\"polling\": {");
    FT_CHECK(pb != NULL);
    if (!pb)
        return;
    char want[64];
    snprintf(want, sizeof want, "\"scheme\": \"%s\"", scheme);
    FT_CHECK(strstr(pb, want) != NULL);
    const char *shm = strstr(pb, "\"shm\": {"), *net = strstr(pb, "\"net\": {");
    FT_CHECK(shm && net);
    if (!shm || !net)
        return;
    long long shm_polls = json_num(shm, "polls"), net_polls = json_num(net, "polls");
    FT_CHECK(shm_polls > 0);
    FT_CHECK(json_num(shm, "empty_polls") <= shm_polls);
    FT_CHECK(json_num(net, "empty_polls") <= net_polls);
    const char *via = tcp ? net : shm, *other = tcp ? shm : net;
    if (json_num(via, "found") >= (long long)NSIZES) { /* rank 0, the receiver */
        poll_receivers++;
        FT_EQ(json_num(via, "discovered"), json_num(via, "found"));
        FT_CHECK(json_num(via, "discovery_max_ns") > 0);
        /* a stamp overwritten by an inline payload (16 and 24 bytes are sent) would
         * read as a time decades away */
        FT_CHECK(json_num(via, "discovery_max_ns") < 60LL * 1000000000LL);
        FT_CHECK(json_num(via, "discovery_p50_ns_le") > 0);
        FT_EQ(json_num(other, "found"), 0);
    }
    if (!tcp) /* every peer on shared memory: progress never looks at the network (the
               * listener waited for every 64th call before, a poll(2) each time) */
        FT_EQ(net_polls, 0);
    if (tcp) { /* the network is polled at the scheme's rate, once connected */
        if (!strcmp(scheme, "rr"))
            FT_CHECK(net_polls * 2 >= shm_polls);
        if (!strcmp(scheme, "static"))
            FT_CHECK(net_polls <= shm_polls / ratio + 1 && net_polls > 0);
        if (!strcmp(scheme, "dynamic"))
            FT_CHECK(net_polls <= shm_polls && net_polls > 0);
    }
    if (!strcmp(scheme, "dynamic")) {
        long long r = json_num(pb, "ratio"), h = json_num(pb, "history");
        FT_CHECK(r >= 1 && r <= h);
        FT_CHECK(json_num(pb, "ratio_max") <= h);
    }
}

static int check_polling_stats(void)
{
    poll_receivers = 0;
    FT_EQ(each_stats_file(polling_file), 2);
    FT_EQ(poll_receivers, 1);
    const char *scheme = getenv("FI_MPIMATCH_POLL");
    printf("polling statistics (%s%s): %s\n", scheme ? scheme : "rr",
           getenv("FI_MPIMATCH_FORCE_TCP") ? ", tcp" : "", ft_failed ? "FAILED" : "ok");
    return ft_failed ? 1 : 0;
}

/* ---- thresholds from a tuning file (FI_MPIMATCH_TUNING): basic's sizes (0 B to 8 MiB)
 * with shm_eager 100 and cma_min 65536 take each protocol: 0, 1, 16, 24 and 100 bytes eager,
 * 4031 to 4033 the segmented copy (4 segments), 64 KiB and up process_vm_readv. ---- */
static char tuning_file[64];

static void tuning_file_check(const char *text)
{
    const char *pb = strstr(text, "\"polling\": {");
    FT_CHECK(pb != NULL);
    if (!pb)
        return;
    FT_EQ(json_num(pb, "shm_eager"), 100);
    FT_EQ(json_num(pb, "cma_min"), 65536);
    char want[128];
    snprintf(want, sizeof want, "\"tuning\": \"%s\"", tuning_file);
    FT_CHECK(strstr(pb, want) != NULL);
    if (json_num(text, "rdv_recv") > 0) { /* the receiver */
        FT_EQ(json_num(text, "eager_recv"), 5);
        FT_EQ(json_num(text, "rdv_recv"), 6);
        FT_EQ(json_num(text, "segments_recv"), 4);
        FT_EQ(json_num(text, "reads"), 3);
    }
}

static int check_tuning_stats(void)
{
    FT_EQ(each_stats_file(tuning_file_check), 2);
    printf("tuning statistics: %s\n", ft_failed ? "FAILED" : "ok");
    return ft_failed ? 1 : 0;
}

/* ---- the statistics file's np after Open MPI's teardown: mtl ofi's del_procs
 * removes every AV entry (fi_av_remove) before the endpoint closes and writes the
 * file; np still counts the distinct peers the AV held, itself included (it was 0). */
static void t_basic_av_removed(ft *f)
{
    t_basic(f);
    barrier_progress(f);
    for (int i = 0; i < 2; i++)
        FT_OK(fi_av_remove(f->av, &f->addr[i], 1, 0));
}

static void np_file(const char *text)
{
    FT_EQ(json_num(text, "np"), 2);
}

static int check_np_stats(void)
{
    FT_EQ(each_stats_file(np_file), 2);
    printf("statistics np after fi_av_remove: %s\n", ft_failed ? "FAILED" : "ok");
    return ft_failed ? 1 : 0;
}

/* ---- snapshots on a signal (FI_MPIMATCH_DUMP) and samples (FI_MPIMATCH_STATS_INTERVAL) ----
 * Rank 0 holds an MPI_ANY_TAG receive and a tag-9 receive (another communicator); rank 1 sent a negative
 * tag (a collective's, in Open MPI) on the ANY_TAG receive's communicator, a tag on
 * another one, and a message no keyed receive can take (ACK and SYNC both set). On
 * SIGUSR2 rank 0's next progress call writes the snapshot: every element with its
 * decoded key, the engine's in its order, the keyless one from the provider's list.
 * The matches afterwards are the ones without a snapshot. */
static char dump_dir[256];

static char *read_snapshot(pid_t pid)
{
    char path[sizeof dump_dir + 320]; /* dump_dir, a 63-byte host label, a pid */
    /* mpimatch-snap-<host>-<pid>-0.json: this host's first label (mmfi_file_path) */
    char h[256] = {0};
    gethostname(h, sizeof h - 1);
    size_t i = 0;
    for (; h[i] && h[i] != '.' && i < 63; i++)
        if (!isalnum((unsigned char)h[i]) && h[i] != '_')
            h[i] = '_';
    h[i] = 0;
    snprintf(path, sizeof path, "%s/mpimatch-snap-%s-%d-0.json", dump_dir, h, (int)pid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    text[n] = 0;
    fclose(fp);
    return text;
}

static fi_addr_t insert_again(ft *f, fi_addr_t a);

static void t_dump(ft *f)
{
    int32_t v = 1;
    if (f->rank == 1) {
        int done = 0;
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(2, -16)));
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(4, 5)));
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0],
                                      otag(2, 3) | O_ACK | O_SYNC));
        barrier_progress(f); /* sent */
        barrier_progress(f); /* snapshot taken */
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(6, 9)));
        barrier_progress(f); /* all received */
        return;
    }
    barrier_progress(f);
    struct fi_context c1, c2, c3;
    int32_t a = 0, b = 0, x = 0;
    FT_OK(fi_trecv(f->ep, &a, sizeof a, NULL, f->addr[1], otag(2, 0), O_SYNC | O_ANY, &c1));
    FT_OK(fi_trecv(f->ep, &b, sizeof b, NULL, FI_ADDR_UNSPEC, otag(6, 9), O_SYNC, &c2));
    ft_progress(f, 200);
    /* rank 1 in the AV twice (as Open MPI's add_procs does): still 2 processes */
    (void)insert_again(f, f->addr[1]);
    FT_CHECK(read_snapshot(getpid()) == NULL);
    raise(SIGUSR2); /* the handler only counts it: no file yet */
    FT_CHECK(read_snapshot(getpid()) == NULL);
    ft_progress(f, 1);
    char *s = read_snapshot(getpid());
    FT_CHECK(s != NULL);
    if (s) {
        FT_CHECK(strstr(s, "\"kind\": \"snapshot\"") && strstr(s, "\"consistent\": true"));
        FT_CHECK(strstr(s, "\"rank\": 0,") && strstr(s, "\"request\": "));
        FT_CHECK(strstr(s, "\"np\": 2,") != NULL); /* distinct peers, not the AV's 3 entries */
        const char *u = strstr(s, "\"unexpected\": [");
        FT_CHECK(u != NULL);
        /* posted, in post order: ANY_TAG from rank 1 (cid 2), then tag 9 from anyone */
        const char *p1 = strstr(s, "\"in\": \"engine\", \"seq\": ");
        const char *any = strstr(s, "\"cid\": 2, \"ack\": 0, \"tag\": null, \"src\": 1");
        const char *nine = strstr(s, "\"cid\": 6, \"ack\": 0, \"tag\": 9, \"src\": null");
        FT_CHECK(p1 && any && nine && any < nine && nine < u);
        /* unexpected, in arrival order: -16 (cid 2) and 5 (cid 4) in the engine, then
         * the keyless one, which only the provider holds */
        const char *neg = u ? strstr(u, "\"cid\": 2, \"ack\": 0, \"sync\": 0, \"tag\": -16, \"src\": 1") : NULL;
        const char *five = u ? strstr(u, "\"cid\": 4, \"ack\": 0, \"sync\": 0, \"tag\": 5, \"src\": 1") : NULL;
        const char *keyless = u ? strstr(u, "{\"in\": \"provider\", \"cid\": 2, \"ack\": 1, \"sync\": 1, \"tag\": 3") : NULL;
        FT_CHECK(neg && five && keyless && neg < five && five < keyless);
        FT_CHECK(strstr(s, "\"channel\": \"") != NULL);
        FT_CHECK(strstr(s, "\"prq\": {") && strstr(s, "\"max_length\": 2"));
    }
    barrier_progress(f);
    /* the same matches as without the snapshot */
    struct fi_cq_tagged_entry e;
    fi_addr_t src;
    FT_CHECK(ft_wait(f, &e, &src, NULL));
    FT_CHECK(e.op_context == &c2);
    FT_EQ(e.tag, otag(6, 9));
    FT_EQ(fi_cancel(&f->ep->fid, &c1), 0);
    struct fi_cq_err_entry err;
    FT_CHECK(!ft_wait(f, &e, NULL, &err));
    FT_EQ(err.err, FI_ECANCELED);
    FT_OK(fi_trecv(f->ep, &x, sizeof x, NULL, f->addr[1], otag(2, -16), O_SYNC, &c3));
    FT_CHECK(ft_wait(f, &e, NULL, NULL));
    FT_EQ(e.tag, otag(2, -16));
    FT_OK(fi_trecv(f->ep, &x, sizeof x, NULL, f->addr[1], otag(4, 5), O_SYNC, &c3));
    FT_CHECK(ft_wait(f, &e, NULL, NULL));
    FT_EQ(e.tag, otag(4, 5));
    barrier_progress(f);
    /* Two more requests, the second within 50 ms of the snapshot the first one
     * makes: that one is still pending when the endpoint closes, and the close
     * serves it (check_dump_files reads "request": 3 in the last file). */
    raise(SIGUSR2);
    ft_progress(f, 1);
    raise(SIGUSR2);
}

/* ---- avdup: a peer inserted twice (Open MPI's add_procs for every intercommunicator) ----
 * Both fi_addrs name the same peer: a receive directed at either meets the peer's
 * messages, however they were keyed on arrival and whichever entry was last used
 * to send. Before the fix the connection's fi_addr followed the entry last sent
 * through, so a message that arrived before the duplicate existed (keyed by the
 * first entry) never met a receive directed at the duplicate: Open MPI's
 * MPI_Intercomm_create hung in mpi4py's test_cco_obj this way. */
static fi_addr_t insert_again(ft *f, fi_addr_t a)
{
    char name[256];
    size_t len = sizeof name;
    FT_OK(fi_av_lookup(f->av, a, name, &len));
    fi_addr_t dup = FI_ADDR_NOTAVAIL;
    FT_EQ(fi_av_insert(f->av, name, 1, &dup, 0, NULL), 1);
    FT_CHECK(dup != a && dup != FI_ADDR_NOTAVAIL);
    return dup;
}

static void t_avdup(ft *f)
{
    int32_t v = 0;
    struct fi_cq_tagged_entry e;
    fi_addr_t src;
    if (f->rank == 1) {
        struct fi_context c3;
        int32_t got = 0, done = 0;
        FT_OK(fi_trecv(f->ep, &got, sizeof got, NULL, f->addr[0], otag(3, 3), O_SYNC, &c3));
        v = 1;
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(3, 1)));
        barrier_progress(f); /* A: M1 waits at rank 0 as unexpected */
        fi_addr_t d = insert_again(f, f->addr[0]);
        v = 2;
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, d, otag(3, 2)));
        FT_CHECK(ft_wait(f, &e, &src, NULL)); /* M3, sent by rank 0 through its duplicate */
        FT_CHECK(e.op_context == &c3);
        FT_EQ(got, 3);
        barrier_progress(f); /* B */
        return;
    }
    barrier_progress(f); /* A */
    ft_progress(f, 50);
    fi_addr_t d = insert_again(f, f->addr[1]);
    int done = 0;
    v = 3;
    FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, d, otag(3, 3)));
    struct fi_context c1, c2;
    int32_t m1 = 0, m2 = 0;
    /* M1 arrived before the duplicate existed; the receive names the duplicate */
    FT_OK(fi_trecv(f->ep, &m1, sizeof m1, NULL, d, otag(3, 1), O_SYNC, &c1));
    FT_CHECK(ft_wait(f, &e, &src, NULL));
    FT_CHECK(e.op_context == &c1);
    FT_EQ(m1, 1);
    FT_CHECK(src == f->addr[1] || src == d);
    /* M2 was sent after rank 0 sent through the duplicate; the receive names the first entry */
    FT_OK(fi_trecv(f->ep, &m2, sizeof m2, NULL, f->addr[1], otag(3, 2), O_SYNC, &c2));
    FT_CHECK(ft_wait(f, &e, &src, NULL));
    FT_CHECK(e.op_context == &c2);
    FT_EQ(m2, 2);
    barrier_progress(f); /* B */
}

/* ---- lateav: messages from a peer that the receiver's AV does not have yet ----
 * Open MPI inserts a peer on another host at its first use (add_procs), so the
 * peer's first messages often arrive before the receiver has an fi_addr for it:
 * they are keyed "not in the AV". Once the AV has the peer, a receive directed
 * at it must meet them, in the order they were sent. Before the fix they stayed
 * keyed as unknown: across two hosts Open MPI's p2p all-to-all took the next
 * round's message and then hung. */
static void t_lateav(ft *f)
{
    int32_t v;
    struct fi_cq_tagged_entry e;
    fi_addr_t src = 0;
    if (f->rank == 1) {
        int done = 0;
        int32_t vals[] = {11, 12, 13, 99};
        int32_t tags[] = {1, 1, 2, 9};
        for (int i = 0; i < 4; i++) {
            v = vals[i];
            FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(6, tags[i])));
        }
        barrier_progress(f); /* A */
        barrier_progress(f); /* B */
        return;
    }
    /* the last one, by a receive from any source: the three before it are queued */
    struct fi_context c0, c[3];
    FT_OK(fi_trecv(f->ep, &v, sizeof v, NULL, FI_ADDR_UNSPEC, otag(6, 9), O_SYNC, &c0));
    FT_CHECK(ft_wait(f, &e, &src, NULL));
    FT_CHECK(e.op_context == &c0);
    FT_EQ(v, 99);
    FT_CHECK(src == FI_ADDR_NOTAVAIL);
    barrier_progress(f); /* A */
    ft_insert_peer(f);
    int32_t got[3] = {0};
    int32_t tags[] = {1, 1, 2}, want[] = {11, 12, 13};
    for (int i = 0; i < 3; i++) {
        FT_OK(fi_trecv(f->ep, &got[i], sizeof got[i], NULL, f->addr[1], otag(6, tags[i]), O_SYNC,
                       &c[i]));
        FT_CHECK(ft_wait(f, &e, &src, NULL));
        FT_CHECK(e.op_context == &c[i]);
        FT_EQ(got[i], want[i]);
        FT_CHECK(src == f->addr[1]);
    }
    barrier_progress(f); /* B */
}

/* ---- tcp_default: the TCP listener's address without FI_MPIMATCH_TCP_IFACE ----
 * It listens on every interface and gives peers the first IPv4 address of an
 * interface that is up and not loopback; an address from another host that names
 * a loopback address is refused at fi_av_insert (it would send its peers to their
 * own host: across hosts the old default, 127.0.0.1, failed as "peer died"). The
 * address layout is the provider's mmfi_addr (src/provider/mmfi.h), mirrored here. */
typedef struct {
    uint32_t magic, host;
    int32_t pid;
    uint32_t epid;
    char shm[40];
    uint32_t ip;
    uint16_t port, pad;
} addr_mirror;

static int first_up_ipv4(uint32_t *ip)
{
    struct ifaddrs *ifs = NULL;
    int found = 0;
    if (getifaddrs(&ifs) != 0)
        return 0;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK)) {
            *ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
            found = 1;
        }
    freeifaddrs(ifs);
    return found;
}

static int t_tcp_default(void)
{
    unsetenv("FI_MPIMATCH_TCP_IFACE");
    ft f;
    memset(&f, 0, sizeof f);
    FT_OK(ft_getinfo(&f.info));
    FT_OK(fi_fabric(f.info->fabric_attr, &f.fabric, NULL));
    FT_OK(fi_domain(f.fabric, f.info, &f.domain, NULL));
    struct fi_av_attr aa = {.type = FI_AV_TABLE, .count = 4};
    FT_OK(fi_av_open(f.domain, &aa, &f.av, NULL));
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_TAGGED, .size = 16};
    FT_OK(fi_cq_open(f.domain, &ca, &f.cq, NULL));
    FT_OK(fi_endpoint(f.domain, f.info, &f.ep, NULL));
    FT_OK(fi_ep_bind(f.ep, &f.av->fid, 0));
    FT_OK(fi_ep_bind(f.ep, &f.cq->fid, FI_TRANSMIT | FI_RECV));
    FT_OK(fi_enable(f.ep));
    addr_mirror a;
    size_t len = sizeof a;
    FT_OK(fi_getname(&f.ep->fid, &a, &len));
    FT_EQ(len, sizeof a);
    uint32_t want = htonl(INADDR_LOOPBACK);
    first_up_ipv4(&want);
    FT_EQ(a.ip, want);
    FT_CHECK(a.port != 0);
    /* the same address as if from another host: taken with a routable address,
     * refused with a loopback one */
    addr_mirror far = a;
    far.host ^= 0x5a5a5a5au;
    far.ip = htonl(0x0a000001u); /* 10.0.0.1 */
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    FT_EQ(fi_av_insert(f.av, &far, 1, &fa, 0, NULL), 1);
    FT_CHECK(fa != FI_ADDR_NOTAVAIL);
    far.epid += 1;
    far.ip = htonl(INADDR_LOOPBACK);
    fa = 0;
    FT_EQ(fi_av_insert(f.av, &far, 1, &fa, 0, NULL), 0);
    FT_CHECK(fa == FI_ADDR_NOTAVAIL);
    ft_close(&f);
    printf("tcp_default: %s\n", ft_failed ? "FAILED" : "ok");
    return ft_failed ? 1 : 0;
}

static int run_lateav(void)
{
    ft_lazy_av = 1;
    int rc = ft_run2("lateav", t_lateav, 60);
    ft_lazy_av = 0;
    return rc;
}

/* Call fn on every file of dir (path, name), remove it, then dir; the sum of fn's answers. */
static int drain_dir(const char *dir, int (*fn)(const char *path, const char *name))
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        n += fn(path, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return n;
}

static int is_snapshot(const char *path, const char *name)
{
    (void)path;
    return !strncmp(name, "mpimatch-snap-", 14) && !strstr(name, ".tmp");
}

/* A samples file: its header, then samples in time order (at least two). */
static int check_samples(const char *path, const char *name)
{
    if (strncmp(name, "mpimatch-samples-", 17))
        return 0;
    FILE *fp = fopen(path, "r");
    char line[1024];
    int lines = 0, head = 0;
    double last = -1, t;
    while (fp && fgets(line, sizeof line, fp)) {
        if (lines++ == 0)
            head = strstr(line, "\"kind\": \"samples\"") != NULL;
        else if (sscanf(line, "{\"t\": %lf", &t) == 1) {
            FT_CHECK(t >= last);
            last = t;
        } else
            FT_CHECK(!"a sample line");
    }
    if (fp)
        fclose(fp);
    FT_CHECK(head);
    FT_CHECK(lines >= 3);
    return 1;
}

/* After t_dump: one snapshot (rank 0's), one sample file per process; then the
 * directories go. */
/* The last snapshot's request count: rank 0 took 3 signals (t_dump). */
static int last_request(const char *path, const char *name)
{
    if (!is_snapshot(path, name))
        return 0;
    FILE *fp = fopen(path, "r");
    char text[4096] = {0};
    size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    text[n] = 0;
    if (fp)
        fclose(fp);
    const char *r = strstr(text, "\"request\": ");
    return r ? atoi(r + 11) : -1;
}

static int check_dump_files(void)
{
    DIR *d = opendir(dump_dir);
    struct dirent *e;
    int req = -1;
    while (d && (e = readdir(d))) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dump_dir, e->d_name);
        if (e->d_name[0] != '.' && is_snapshot(path, e->d_name))
            req = last_request(path, e->d_name);
    }
    if (d)
        closedir(d);
    FT_EQ(req, 3); /* the request pending at close was served */
    FT_EQ(drain_dir(dump_dir, is_snapshot), 1);
    FT_EQ(drain_dir(stats_dir, check_samples), 2);
    printf("dump files: %s\n", ft_failed ? "FAILED" : "ok");
    return ft_failed ? 1 : 0;
}

/* ---- bad settings fail at fi_getinfo / fi_domain with a message naming the variable ---- */
static int bad_case(const char *var, const char *val, const char *var2, const char *val2,
                    const char *expect, int at_domain)
{
    char path[] = "/tmp/mpimatch-fitest-XXXXXX";
    int fd = mkstemp(path);
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        dup2(fd, 2);
        setenv("FI_LOG_LEVEL", "warn", 1);
        if (!at_domain) {
            setenv(var, val, 1);
            if (var2)
                setenv(var2, val2, 1);
        }
        struct fi_info *info = NULL;
        int rc = ft_getinfo(&info);
        if (!at_domain)
            _exit(rc == 0 ? 10 : 0);
        if (rc)
            _exit(11);
        struct fid_fabric *fab;
        struct fid_domain *dom;
        if (fi_fabric(info->fabric_attr, &fab, NULL))
            _exit(12);
        setenv(var, val, 1);
        rc = fi_domain(fab, info, &dom, NULL);
        _exit(rc == 0 ? 13 : 0);
    }
    int st;
    waitpid(p, &st, 0);
    char text[4096] = {0};
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, text, sizeof text - 1);
    (void)n;
    close(fd);
    unlink(path);
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(text, expect);
    if (!ok)
        fprintf(stderr, "bad_env %s=%s: exit %d, stderr: %s\n", var, val,
                WIFEXITED(st) ? WEXITSTATUS(st) : -1, text);
    return ok;
}

static int t_bad_env(void)
{
    int ok = 1;
    ok &= bad_case("FI_MPIMATCH_ENGINE", "nope", NULL, NULL, "FI_MPIMATCH_ENGINE=\"nope\"", 0);
    ok &= bad_case("FI_MPIMATCH_EAGER", "99999999", NULL, NULL, "FI_MPIMATCH_EAGER", 0);
    ok &= bad_case("FI_MPIMATCH_EAGER", "12abc", NULL, NULL, "FI_MPIMATCH_EAGER", 0);
    ok &= bad_case("FI_MPIMATCH_CREDIT", "-1", NULL, NULL, "FI_MPIMATCH_CREDIT", 0);
    ok &= bad_case("FI_MPIMATCH_RING_CELLS", "3", NULL, NULL, "FI_MPIMATCH_RING_CELLS", 0);
    ok &= bad_case("FI_MPIMATCH_HINTS", "no_any_color", NULL, NULL, "FI_MPIMATCH_HINTS", 0);
    ok &= bad_case("FI_MPIMATCH_LAYOUT", "mpich", NULL, NULL, "FI_MPIMATCH_LAYOUT", 0);
    ok &= bad_case("FI_MPIMATCH_ENGINE", "hash", NULL, NULL, "FI_MPIMATCH_HINTS", 0);
    ok &= bad_case("FI_MPIMATCH_ENGINE", "bins", "FI_MPIMATCH_PARAMS", "bins=0",
                   "FI_MPIMATCH_PARAMS", 0);
    ok &= bad_case("FI_MPIMATCH_ENGINE", "nope", NULL, NULL, "FI_MPIMATCH_ENGINE", 1);
    ok &= bad_case("FI_MPIMATCH_FORCE_TCP", "some", NULL, NULL, "FI_MPIMATCH_FORCE_TCP", 0);
    ok &= bad_case("FI_MPIMATCH_FORCE_TCP", "1,,2", NULL, NULL, "FI_MPIMATCH_FORCE_TCP", 0);
    ok &= bad_case("FI_MPIMATCH_FORCE_TCP", "-1", NULL, NULL, "FI_MPIMATCH_FORCE_TCP", 0);
    ok &= bad_case("FI_MPIMATCH_TCP_IFACE", "nosuchif0", NULL, NULL, "FI_MPIMATCH_TCP_IFACE", 0);
    ok &= bad_case("FI_MPIMATCH_TCP_IFACE", "300.1.1.1", NULL, NULL, "FI_MPIMATCH_TCP_IFACE", 0);
    ok &= bad_case("FI_MPIMATCH_DUMP", "/nonexistent/dir", NULL, NULL, "FI_MPIMATCH_DUMP=", 0);
    ok &= bad_case("FI_MPIMATCH_DUMP", "/dev/null", NULL, NULL, "FI_MPIMATCH_DUMP=", 0);
    ok &= bad_case("FI_MPIMATCH_DUMP_SIGNAL", "KILL", NULL, NULL, "FI_MPIMATCH_DUMP_SIGNAL", 0);
    ok &= bad_case("FI_MPIMATCH_DUMP_SIGNAL", "9", NULL, NULL, "FI_MPIMATCH_DUMP_SIGNAL", 0);
    ok &= bad_case("FI_MPIMATCH_STATS_INTERVAL", "10", NULL, NULL, "needs FI_MPIMATCH_STATS", 0);
    ok &= bad_case("FI_MPIMATCH_STATS_INTERVAL", "x", "FI_MPIMATCH_STATS", "/tmp",
                   "FI_MPIMATCH_STATS_INTERVAL", 0);
    ok &= bad_case("FI_MPIMATCH_YIELD", "sometimes", NULL, NULL, "FI_MPIMATCH_YIELD", 0);
    ok &= bad_case("FI_MPIMATCH_SPIN", "1000001", NULL, NULL, "FI_MPIMATCH_SPIN", 0);
    ok &= bad_case("FI_MPIMATCH_POLL", "sometimes", NULL, NULL, "FI_MPIMATCH_POLL=", 0);
    ok &= bad_case("FI_MPIMATCH_POLL_RATIO", "0", NULL, NULL, "FI_MPIMATCH_POLL_RATIO", 0);
    ok &= bad_case("FI_MPIMATCH_POLL_RATIO", "1001", NULL, NULL, "FI_MPIMATCH_POLL_RATIO", 0);
    ok &= bad_case("FI_MPIMATCH_POLL_HISTORY", "0", NULL, NULL, "FI_MPIMATCH_POLL_HISTORY", 0);
    ok &= bad_case("FI_MPIMATCH_SHM_EAGER", "5000", NULL, NULL, "FI_MPIMATCH_SHM_EAGER", 0);
    ok &= bad_case("FI_MPIMATCH_SHM_EAGER", "2000", "FI_MPIMATCH_EAGER", "1000",
                   "FI_MPIMATCH_SHM_EAGER", 0); /* above FI_MPIMATCH_EAGER */
    ok &= bad_case("FI_MPIMATCH_CMA_MIN", "x", NULL, NULL, "FI_MPIMATCH_CMA_MIN", 0);
    ok &= bad_case("FI_MPIMATCH_TUNING", "/nonexistent/tune", NULL, NULL,
                   "FI_MPIMATCH_TUNING: /nonexistent/tune: cannot open", 0);
    {   /* a bad line names the file and the line */
        char tf[] = "/tmp/mpimatch-badtune-XXXXXX";
        int fd = mkstemp(tf);
        const char *text = "# mpimatch tune\nshm_eager = 1024\npoll = fastest\n";
        ok &= fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
        char want[128];
        snprintf(want, sizeof want, "FI_MPIMATCH_TUNING: %s:3: poll = \"fastest\"", tf);
        ok &= bad_case("FI_MPIMATCH_TUNING", tf, NULL, NULL, want, 0);
        if (fd >= 0)
            close(fd);
        unlink(tf);
    }
    printf("bad_env: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

/* ---- hints: hash runs with them; a wildcard receive is a CQ error, not a wrong match ---- */
static void t_hints(ft *f)
{
    if (f->rank == 1) {
        int done = 0, v = 8;
        FT_RETRY(f, &done, fi_tinject(f->ep, &v, sizeof v, f->addr[0], otag(1, 8)));
        barrier_progress(f);
        return;
    }
    int v = 0;
    struct fi_context c;
    struct fi_cq_tagged_entry e;
    struct fi_cq_err_entry err;
    FT_OK(fi_trecv(f->ep, &v, sizeof v, NULL, FI_ADDR_UNSPEC, otag(1, 8), O_SYNC, &c));
    FT_CHECK(!ft_wait(f, &e, NULL, &err));
    FT_EQ(err.err, FI_EINVAL);
    FT_OK(fi_trecv(f->ep, &v, sizeof v, NULL, f->addr[1], otag(1, 0), O_SYNC | O_ANY, &c));
    FT_CHECK(!ft_wait(f, &e, NULL, &err));
    FT_EQ(err.err, FI_EINVAL);
    FT_OK(fi_trecv(f->ep, &v, sizeof v, NULL, f->addr[1], otag(1, 8), O_SYNC, &c));
    FT_CHECK(ft_wait(f, &e, NULL, NULL));
    FT_EQ(v, 8);
    barrier_progress(f);
}

/* ---- a peer that dies: the survivor's receive fails, its inbox is removed ---- */
static int t_peer_death(void)
{
    /* a stale inbox of a dead process is swept by the next endpoint */
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    waitpid(gone, NULL, 0);
    char stale[128];
    snprintf(stale, sizeof stale, "/dev/shm/mpimatch-test-%d-0", (int)gone);
    FILE *sf = fopen(stale, "w");
    if (sf)
        fclose(sf);
    FT_EQ(ft_shm_count(gone), 1);
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        alarm(30);
        ft_rank = 1;
        ft f;
        ft_open(&f, 1, sv[1]);
        static unsigned char big[20000];
        FT_OK(fi_tsend(f.ep, big, sizeof big, NULL, f.addr[0], otag(1, 3), NULL));
        ft_barrier(&f); /* the rendezvous message is out */
        ft_barrier(&f); /* the survivor has seen it */
        raise(SIGKILL);
    }
    ft_rank = 0;
    alarm(60);
    ft f;
    ft_open(&f, 0, sv[0]);
    FT_EQ(ft_shm_count(gone), 0);
    int v;
    struct fi_context c, c2;
    FT_OK(fi_trecv(f.ep, &v, sizeof v, NULL, f.addr[1], otag(1, 1), O_SYNC, &c));
    FT_OK(fi_trecv(f.ep, &v, sizeof v, NULL, FI_ADDR_UNSPEC, otag(1, 2), O_SYNC, &c2));
    ft_barrier(&f);
    struct fi_context pc;
    struct fi_msg_tagged pm = {.addr = FI_ADDR_UNSPEC, .tag = otag(1, 3), .ignore = O_SYNC,
                               .context = &pc};
    struct fi_cq_tagged_entry pe;
    struct fi_cq_err_entry perr;
    for (int tries = 0;; tries++) { /* until the rendezvous header has arrived */
        FT_OK(fi_trecvmsg(f.ep, &pm, FI_PEEK | FI_COMPLETION));
        if (ft_wait(&f, &pe, NULL, &perr))
            break;
        FT_CHECK(tries < 100000);
    }
    ft_barrier(&f);
    int st;
    waitpid(child, &st, 0);
    FT_CHECK(WIFSIGNALED(st));
    double t0 = ft_now();
    struct fi_cq_tagged_entry e;
    struct fi_cq_err_entry err;
    for (int i = 0; i < 2; i++) {
        FT_CHECK(!ft_wait(&f, &e, NULL, &err));
        FT_EQ(err.err, FI_EIO);
    }
    FT_CHECK(ft_now() - t0 < 5);
    /* sending to it fails too */
    FT_EQ(fi_tinject(f.ep, &v, sizeof v, f.addr[1], otag(1, 1)), -FI_EIO);
    /* its rendezvous message, matched after its death: the payload is gone */
    static unsigned char big[20000];
    FT_OK(fi_trecv(f.ep, big, sizeof big, NULL, f.addr[1], otag(1, 3), O_SYNC, &c));
    FT_CHECK(!ft_wait(&f, &e, NULL, &err));
    FT_EQ(err.err, FI_EIO);
    FT_EQ(ft_shm_count(child), 0);
    ft_close(&f);
    FT_EQ(ft_shm_count(getpid()), 0);
    alarm(0);
    printf("peer_death: %s\n", ft_failed ? "FAILED" : "ok");
    return ft_failed ? 1 : 0;
}

/* ---- a peer that closes in order and exits: only what it alone could satisfy fails ---- */
static int t_peer_exit(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        alarm(30);
        ft_rank = 1;
        ft f;
        ft_open(&f, 1, sv[1]);
        ft_barrier(&f);
        ft_close(&f);
        _exit(0);
    }
    ft_rank = 0;
    alarm(60);
    ft f;
    ft_open(&f, 0, sv[0]);
    int v;
    struct fi_context c, c2;
    FT_OK(fi_trecv(f.ep, &v, sizeof v, NULL, f.addr[1], otag(1, 1), O_SYNC, &c));
    FT_OK(fi_trecv(f.ep, &v, sizeof v, NULL, FI_ADDR_UNSPEC, otag(1, 2), O_SYNC, &c2));
    ft_barrier(&f);
    int st;
    waitpid(child, &st, 0);
    FT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    struct fi_cq_tagged_entry e;
    struct fi_cq_err_entry err;
    FT_CHECK(!ft_wait(&f, &e, NULL, &err)); /* the directed receive */
    FT_EQ(err.err, FI_EIO);
    FT_CHECK(err.op_context == &c);
    ft_progress(&f, 20000); /* the ANY_SOURCE receive stays posted */
    FT_EQ(fi_cancel(&f.ep->fid, &c2), 0);
    FT_CHECK(!ft_wait(&f, &e, NULL, &err));
    FT_EQ(err.err, FI_ECANCELED);
    ft_close(&f);
    alarm(0);
    printf("peer_exit: %s\n", ft_failed ? "FAILED" : "ok");
    return ft_failed ? 1 : 0;
}

/* ---- FI_THREAD_SAFE: 4 threads per process share one endpoint and one CQ ---- */
typedef struct { struct fi_context ctx; _Atomic int done; } tctx;
typedef struct { ft *f; int id; } targ;

static void reap(ft *f)
{
    struct fi_cq_tagged_entry e[8];
    ssize_t n = fi_cq_read(f->cq, e, 8);
    for (ssize_t i = 0; i < n; i++)
        atomic_store(&((tctx *)e[i].op_context)->done, 1);
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        if (fi_cq_readerr(f->cq, &err, 0) == 1) {
            fprintf(stderr, "rank %d: error completion %d\n", f->rank, err.err);
            exit(2);
        }
    }
}

static void *thread_body(void *p)
{
    targ *a = p;
    ft *f = a->f;
    int other = 1 - f->rank;
    static unsigned char big[2][4][6000];
    for (int i = 0; i < 300; i++) {
        tctx rc = {.done = 0}, sc = {.done = 0};
        uint32_t v = (uint32_t)(a->id * 100000 + i), got = 0;
        int large = i % 50 == 7;
        unsigned char *rb = big[0][a->id], *sb = big[1][a->id];
        uint64_t tag = otag(20 + (uint64_t)a->id, i);
        ssize_t r;
        if (large)
            r = fi_trecv(f->ep, rb, 6000, NULL, f->addr[other], tag, O_SYNC, &rc.ctx);
        else
            r = fi_trecv(f->ep, &got, sizeof got, NULL, f->addr[other], tag, O_SYNC, &rc.ctx);
        FT_OK(r);
        if (large) {
            fill(sb, 6000, (unsigned)i);
            while ((r = fi_tsend(f->ep, sb, 6000, NULL, f->addr[other], tag, &sc.ctx)) == -FI_EAGAIN)
                reap(f);
        } else
            while ((r = fi_tsend(f->ep, &v, sizeof v, NULL, f->addr[other], tag, &sc.ctx)) == -FI_EAGAIN)
                reap(f);
        FT_OK(r);
        double end = ft_now() + 30;
        while (!atomic_load(&rc.done) || !atomic_load(&sc.done)) {
            reap(f);
            if (ft_now() > end) {
                fprintf(stderr, "rank %d thread %d: stuck at %d\n", f->rank, a->id, i);
                exit(3);
            }
        }
        if (large)
            FT_CHECK(same(rb, 6000, (unsigned)i));
        else
            FT_EQ(got, a->id * 100000 + i);
    }
    return NULL;
}

static void t_threads(ft *f)
{
    pthread_t t[4];
    targ a[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (targ){f, i};
        pthread_create(&t[i], NULL, thread_body, &a[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    barrier_progress(f);
}

/* ---- every registered engine that needs no hints: wildcards and MPI-shaped masks ---- */
static void t_engine_body(ft *f)
{
    t_wildcards(f);
    run_masks(f, 1, 2024);
    run_unexpected(f, 100);
}

static int t_engines(void)
{
    int bad = 0;
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const mm_engine_info *info = mm_engine_at(i);
        if (info->hints_required)
            continue;
        setenv("FI_MPIMATCH_ENGINE", info->name, 1);
        char name[80];
        snprintf(name, sizeof name, "engine %s", info->name);
        bad |= ft_run2(name, t_engine_body, 120);
    }
    unsetenv("FI_MPIMATCH_ENGINE");
    return bad;
}

/* A case run with FI_MPIMATCH_STATS set, then check() on the files it left. */
static int with_stats(const char *name, void (*body)(ft *f), int (*check)(void))
{
    snprintf(stats_dir, sizeof stats_dir, "/tmp/mpimatch-fistats-%d", (int)getpid());
    mkdir(stats_dir, 0700);
    setenv("FI_MPIMATCH_STATS", stats_dir, 1);
    int bad = ft_run2(name, body, 60);
    unsetenv("FI_MPIMATCH_STATS");
    return bad | check();
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int bad = 0;
#define RUN(n, call) if (!only || !strcmp(only, n)) bad |= (call)
    RUN("basic", ft_run2("basic", t_basic, 60));
    RUN("wildcards", ft_run2("wildcards", t_wildcards, 60));
    RUN("mpi_masks", masks_runs("mpi_masks", t_mpi_masks));
    RUN("mixed_masks", masks_runs("mixed_masks", t_mixed_masks));
    RUN("peek", ft_run2("peek", t_peek, 60));
    RUN("cancel", ft_run2("cancel", t_cancel, 60));
    RUN("unexpected", ft_run2("unexpected", t_unexpected, 120));
    if (!only || !strcmp(only, "packed")) {
        setenv("FI_MPIMATCH_RING_CELLS", "4", 1);
        bad |= ft_run2("packed", t_packed, 120);
        unsetenv("FI_MPIMATCH_RING_CELLS");
    }
    if (!only || !strcmp(only, "wrap")) {
        setenv("FI_MPIMATCH_SEQ_START", "4294967280", 1);
        bad |= ft_run2("wrap", t_wrap, 60);
        unsetenv("FI_MPIMATCH_SEQ_START");
    }
    RUN("flood", with_stats("flood", t_flood, check_flood_stats));
    RUN("crossflood", ft_run2("crossflood", t_crossflood, 60));
    RUN("avdup", ft_run2("avdup", t_avdup, 60));
    RUN("lateav", run_lateav());
    RUN("tcp_default", t_tcp_default());
    RUN("bad_env", t_bad_env());
    RUN("polling", with_stats("polling", t_basic, check_polling_stats));
    RUN("stats_np", with_stats("stats_np", t_basic_av_removed, check_np_stats));
    if (!only || !strcmp(only, "tuning")) {
        snprintf(tuning_file, sizeof tuning_file, "/tmp/mpimatch-tuning-%d.conf", (int)getpid());
        FILE *tf = fopen(tuning_file, "w");
        if (!tf || fputs("# thresholds\nshm_eager = 100\ncma_min = 65536\n", tf) < 0)
            bad = 1;
        if (tf)
            fclose(tf);
        setenv("FI_MPIMATCH_TUNING", tuning_file, 1);
        bad |= with_stats("tuning", t_basic, check_tuning_stats);
        unsetenv("FI_MPIMATCH_TUNING");
        unlink(tuning_file);
    }
    if (!only || !strcmp(only, "hints")) {
        setenv("FI_MPIMATCH_ENGINE", "hash", 1);
        setenv("FI_MPIMATCH_HINTS", "no_any_source,no_any_tag", 1);
        bad |= ft_run2("hints", t_hints, 60);
        unsetenv("FI_MPIMATCH_ENGINE");
        unsetenv("FI_MPIMATCH_HINTS");
    }
    RUN("peer_death", t_peer_death());
    RUN("peer_exit", t_peer_exit());
    RUN("threads", ft_run2("threads", t_threads, 120));
    RUN("engines", t_engines());
    if (!only || !strcmp(only, "dump")) {
        snprintf(dump_dir, sizeof dump_dir, "/tmp/mpimatch-fidump-%d", (int)getpid());
        snprintf(stats_dir, sizeof stats_dir, "/tmp/mpimatch-fistats-%d", (int)getpid());
        mkdir(dump_dir, 0700);
        mkdir(stats_dir, 0700);
        setenv("FI_MPIMATCH_DUMP", dump_dir, 1);
        setenv("FI_MPIMATCH_STATS", stats_dir, 1);
        setenv("FI_MPIMATCH_STATS_INTERVAL", "1", 1);
        bad |= ft_run2("dump", t_dump, 60);
        unsetenv("FI_MPIMATCH_DUMP");
        unsetenv("FI_MPIMATCH_STATS");
        unsetenv("FI_MPIMATCH_STATS_INTERVAL");
        bad |= check_dump_files();
    }
    return bad ? 1 : 0;
}
