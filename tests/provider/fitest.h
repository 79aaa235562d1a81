/*
 * fitest.h - two processes (fork) talking through the mpimatch provider with
 * the plain libfabric API: set-up, a control socket between the two, waits
 * on the completion queue, and checks that say what failed and where.
 */
#ifndef MM_FITEST_H
#define MM_FITEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

static int ft_failed;
static int ft_rank;

#define FT_CHECK(cond) do {                                                   \
        if (!(cond)) {                                                        \
            ft_failed++;                                                      \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", ft_rank,   \
                    __FILE__, __LINE__, #cond);                               \
        }                                                                     \
    } while (0)

#define FT_EQ(a, b) do {                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                   \
        if (a_ != b_) {                                                       \
            ft_failed++;                                                      \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s == %s (%lld != %lld)\n", \
                    ft_rank, __FILE__, __LINE__, #a, #b, a_, b_);             \
        }                                                                     \
    } while (0)

#define FT_OK(call) do {                                                      \
        long long rc_ = (long long)(call);                                    \
        if (rc_ < 0) {                                                        \
            fprintf(stderr, "rank %d: %s:%d: %s: %s\n", ft_rank, __FILE__,    \
                    __LINE__, #call, fi_strerror((int)-rc_));                 \
            exit(2);                                                          \
        }                                                                     \
    } while (0)

typedef struct ft {
    struct fi_info     *info;
    struct fid_fabric  *fabric;
    struct fid_domain  *domain;
    struct fid_av      *av;
    struct fid_cq      *cq;
    struct fid_ep      *ep;
    fi_addr_t           addr[2]; /* [rank] */
    char                peer_name[256]; /* with ft_lazy_av, rank 0's peer, not yet inserted */
    size_t              peer_len;
    int                 sock;
    int                 rank;
    /* completions read while waiting for something else (barriers) */
    struct fi_cq_tagged_entry stash[256];
    fi_addr_t           stash_src[256];
    int                 nstash;
} ft;

static inline struct fi_info *ft_hints(void)
{
    struct fi_info *h = fi_allocinfo();
    h->caps = FI_TAGGED | FI_MSG | FI_DIRECTED_RECV | FI_SOURCE;
    h->mode = FI_CONTEXT;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->cq_data_size = 8;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->tx_attr->op_flags = FI_COMPLETION;
    h->rx_attr->op_flags = FI_COMPLETION;
    h->fabric_attr->prov_name = strdup("mpimatch");
    /* FT_THREAD_DOMAIN=1: ask what Open MPI's mtl ofi asks without
     * MPI_THREAD_MULTIPLE (the provider's data path then takes no lock) */
    if (getenv("FT_THREAD_DOMAIN"))
        h->domain_attr->threading = FI_THREAD_DOMAIN;
    return h;
}

/* fi_getinfo with the standard hints: 0 or the libfabric error. */
static inline int ft_getinfo(struct fi_info **out)
{
    struct fi_info *h = ft_hints();
    int rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, out);
    fi_freeinfo(h);
    return rc;
}

static inline void ft_xchg(int sock, const void *mine, void *theirs, size_t n)
{
    if (write(sock, mine, n) != (ssize_t)n || read(sock, theirs, n) != (ssize_t)n) {
        fprintf(stderr, "rank %d: control socket: %s\n", ft_rank, strerror(errno));
        exit(2);
    }
}

static inline void ft_barrier(ft *f)
{
    char a = 1, b;
    ft_xchg(f->sock, &a, &b, 1);
}

/* Set before ft_run2: rank 0 inserts only itself into its AV at ft_open and
 * its peer later (ft_insert_peer), as Open MPI inserts a peer on another
 * host at its first use (add_procs), often after the peer's first messages. */
static int ft_lazy_av;

static inline void ft_insert_peer(ft *f)
{
    FT_EQ(fi_av_insert(f->av, f->peer_name, 1, &f->addr[1], 0, NULL), 1);
}

static inline void ft_open(ft *f, int rank, int sock)
{
    memset(f, 0, sizeof *f);
    f->rank = rank;
    f->sock = sock;
    FT_OK(ft_getinfo(&f->info));
    FT_EQ(f->info->domain_attr->threading,
          getenv("FT_THREAD_DOMAIN") ? FI_THREAD_DOMAIN : FI_THREAD_SAFE);
    FT_OK(fi_fabric(f->info->fabric_attr, &f->fabric, NULL));
    FT_OK(fi_domain(f->fabric, f->info, &f->domain, NULL));
    struct fi_av_attr aa = {.type = FI_AV_TABLE, .count = 4};
    FT_OK(fi_av_open(f->domain, &aa, &f->av, NULL));
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_TAGGED, .size = 128};
    FT_OK(fi_cq_open(f->domain, &ca, &f->cq, NULL));
    FT_OK(fi_endpoint(f->domain, f->info, &f->ep, NULL));
    FT_OK(fi_ep_bind(f->ep, &f->av->fid, 0));
    FT_OK(fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV));
    FT_OK(fi_enable(f->ep));
    char mine[256], theirs[256];
    size_t len = sizeof mine;
    FT_OK(fi_getname(&f->ep->fid, mine, &len));
    ft_xchg(sock, mine, theirs, len);
    /* Both insert rank 0's address first: fi_addr == rank on both sides. */
    FT_EQ(fi_av_insert(f->av, rank == 0 ? mine : theirs, 1, &f->addr[0], 0, NULL), 1);
    if (rank == 0 && ft_lazy_av) { /* as Open MPI does with a peer on another host */
        memcpy(f->peer_name, theirs, len);
        f->peer_len = len;
        f->addr[1] = FI_ADDR_NOTAVAIL;
        return;
    }
    FT_EQ(fi_av_insert(f->av, rank == 0 ? theirs : mine, 1, &f->addr[1], 0, NULL), 1);
}

static inline void ft_close(ft *f)
{
    FT_OK(fi_close(&f->ep->fid));
    FT_OK(fi_close(&f->cq->fid));
    FT_OK(fi_close(&f->av->fid));
    FT_OK(fi_close(&f->domain->fid));
    FT_OK(fi_close(&f->fabric->fid));
    fi_freeinfo(f->info);
}

static inline double ft_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wait for one completion: 1 (entry in *e, source in *src), or 0 for an error
 * entry (in *err); exits after 30 s. */
static inline int ft_wait(ft *f, struct fi_cq_tagged_entry *e, fi_addr_t *src,
                          struct fi_cq_err_entry *err)
{
    double end = ft_now() + 30;
    fi_addr_t s;
    if (f->nstash) {
        *e = f->stash[0];
        if (src)
            *src = f->stash_src[0];
        f->nstash--;
        memmove(f->stash, f->stash + 1, (size_t)f->nstash * sizeof *f->stash);
        memmove(f->stash_src, f->stash_src + 1, (size_t)f->nstash * sizeof *f->stash_src);
        return 1;
    }
    for (;;) {
        ssize_t rc = fi_cq_readfrom(f->cq, e, 1, src ? src : &s);
        if (rc == 1)
            return 1;
        if (rc == -FI_EAVAIL) {
            struct fi_cq_err_entry tmp;
            memset(err ? err : &tmp, 0, sizeof tmp);
            FT_EQ(fi_cq_readerr(f->cq, err ? err : &tmp, 0), 1);
            return 0;
        }
        if (rc != -FI_EAGAIN) {
            fprintf(stderr, "rank %d: fi_cq_read: %s\n", f->rank, fi_strerror((int)-rc));
            exit(2);
        }
        if (ft_now() > end) {
            fprintf(stderr, "rank %d: no completion in 30 s\n", f->rank);
            exit(3);
        }
    }
}

/* Drive progress (fi_cq_read) for a while without expecting anything. */
static inline void ft_progress(ft *f, int n)
{
    struct fi_cq_tagged_entry e;
    for (int i = 0; i < n; i++) {
        ssize_t rc = fi_cq_read(f->cq, &e, 1);
        FT_CHECK(rc == -FI_EAGAIN);
    }
}

/* Retry an operation while it answers -FI_EAGAIN, progressing meanwhile;
 * completions read on the way are counted in *done (sends). */
#define FT_RETRY(f, done, call) do {                                          \
        ssize_t r_;                                                           \
        double end_ = ft_now() + 30;                                          \
        while ((r_ = (call)) == -FI_EAGAIN) {                                 \
            struct fi_cq_tagged_entry e_;                                     \
            ssize_t n_ = fi_cq_read((f)->cq, &e_, 1);                         \
            if (n_ == 1) (*(done))++;                                          \
            else if (n_ == -FI_EAVAIL) {                                      \
                struct fi_cq_err_entry ee_ = {0};                             \
                fi_cq_readerr((f)->cq, &ee_, 0);                              \
                fprintf(stderr, "rank %d: error completion %d\n", ft_rank, ee_.err); \
                exit(2);                                                      \
            }                                                                 \
            if (ft_now() > end_) { fprintf(stderr, "rank %d: EAGAIN for 30 s\n", ft_rank); exit(3); } \
        }                                                                     \
        FT_OK(r_);                                                            \
    } while (0)

/* Count entries of /dev/shm/mpimatch-*-<pid>-* (the inboxes of pid). */
static inline int ft_shm_count(pid_t pid)
{
    DIR *d = opendir("/dev/shm");
    int n = 0;
    char needle[32];
    snprintf(needle, sizeof needle, "-%d-", (int)pid);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "mpimatch-", 9) && strstr(e->d_name, needle))
            n++;
    if (d)
        closedir(d);
    return n;
}

/* Run body(f) in two processes (ranks 0 and 1); 0 when both passed. */
static inline int ft_run2(const char *name, void (*body)(ft *f), int timeout_s)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
        perror("socketpair");
        return 2;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        alarm((unsigned)timeout_s);
        close(sv[0]);
        ft_rank = 1;
        ft f;
        ft_open(&f, 1, sv[1]);
        body(&f);
        ft_close(&f);
        _exit(ft_failed ? 1 : 0);
    }
    close(sv[1]);
    ft_rank = 0;
    pid_t me = getpid();
    alarm((unsigned)timeout_s);
    ft f;
    ft_open(&f, 0, sv[0]);
    body(&f);
    ft_close(&f);
    alarm(0);
    int st = 0;
    waitpid(child, &st, 0);
    close(sv[0]);
    int ok = !ft_failed && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        fprintf(stderr, "%s: rank 1 %s %d\n", name, WIFEXITED(st) ? "exited" : "killed by signal",
                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    FT_EQ(ft_shm_count(me), 0);
    FT_EQ(ft_shm_count(child), 0);
    ok = ok && !ft_failed;
    printf("%s: %s\n", name, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

#endif
