/*
 * prov.c - the provider entry point: fi_prov_ini, settings, fi_getinfo, fabric.
 *
 * What the provider declares (every bit of it is implemented; docs/provider.md):
 * reliable datagram endpoints (FI_EP_RDM), tagged and untagged messages
 * (FI_TAGGED | FI_MSG, with iov, msg, inject and remote-CQ-data forms),
 * FI_DIRECTED_RECV, FI_SOURCE, FI_LOCAL_COMM | FI_REMOTE_COMM, manual
 * progress, FI_THREAD_SAFE, AV table and map, 8 bytes of remote CQ data.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include "mmfi.h"
#include "tuning.h"

#define MMFI_CAPS (FI_TAGGED | FI_MSG | FI_SEND | FI_RECV | FI_DIRECTED_RECV | FI_SOURCE | \
                   FI_LOCAL_COMM | FI_REMOTE_COMM)
#define MMFI_ORDER FI_ORDER_SAS
#define MMFI_MAX_MSG ((size_t)1 << 40)
#define MMFI_CQ_DATA 8

static int getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
static void cleanup(void) { mmfi_dump_restore(); }

struct fi_provider mmfi_prov = {
    .version = MMFI_VERSION,
    .fi_version = MMFI_API,
    .name = MMFI_NAME,
    .getinfo = getinfo,
    .fabric = mmfi_fabric_open,
    .cleanup = cleanup,
};

static const struct { const char *name, *help; } params[] = {
    {"engine", "libmpimatch engine that matches every receive and message (default rank; "
               "any name `mpimatch engines` lists)"},
    {"params", "engine parameters, key=value[,key=value]"},
    {"hints", "asserted hints: no_any_source,no_any_tag (required by engines such as hash)"},
    {"eager", "largest message sent eagerly, bytes (default and maximum: one ring cell's payload)"},
    {"credit", "eager bytes one sender may have unconsumed at a receiver (default 4194304)"},
    {"ring_cells", "size of each peer ring in the shared-memory channel, in 4 KiB units (default 128, power of two)"},
    {"seq_start", "first wire sequence number (tests of the wrap; default 0)"},
    {"tcp_sndbuf", "TCP channel: SO_SNDBUF of each sending socket in bytes, 0..67108864 (tests: a small one makes the socket take part of a frame; default 0, the system's)"},
    {"cma", "1 (default): large local messages are read with process_vm_readv; 0: segmented "
            "copy through the shared-memory ring"},
    {"layout", "tag layout decoded into engine keys: ompi (Open MPI mtl ofi, default) or none"},
    {"stats", "directory: write each process's statistics there as JSON at close"},
    {"profile", "directory: each process writes every matching operation there as an event "
                "stream (mpimatch advise DIR profiles them)"},
    {"stats_interval", "milliseconds: with stats, each process also appends a sample of its "
                       "queues every interval (a time series; default 0: none)"},
    {"dump", "directory: on a signal (dump_signal) each process writes a snapshot of its "
             "queues there (`mpimatch queues DIR`)"},
    {"dump_signal", "the snapshot signal: USR2 (default; Open MPI's mpirun forwards it), USR1, "
                    "or a number"},
    {"tcp_iface", "TCP channel: interface name or IPv4 address to listen on (default: every "
                  "interface, giving peers the first one that is up and not loopback)"},
    {"force_tcp", "TCP channel for peers on this host too: all, none (default), or AV indices "
                  "(MPI ranks) a,b,c that behave as if on other hosts"},
    {"yield", "a CQ read that finds nothing FI_MPIMATCH_SPIN times in a row calls sched_yield: "
              "auto (default: when the AV holds more processes of this host than it has online "
              "processors), always, or never"},
    {"spin", "empty CQ reads in a row before each sched_yield (default 64, 0..1000000)"},
    {"poll", "channel polling scheme: rr (default: shared memory and network at every "
             "progress call), static (the network every poll_ratio-th call) or dynamic (the "
             "ratio follows the channels of the last poll_history messages)"},
    {"poll_ratio", "static polling: shared-memory polls per network poll (default 50, 1..1000)"},
    {"poll_history", "dynamic polling: messages between updates of the ratio (default 8, "
                     "1..1024)"},
    {"shm_eager", "largest eager message over shared memory (default: the tuning file's, "
                  "else FI_MPIMATCH_EAGER's value; 0..FI_MPIMATCH_EAGER)"},
    {"cma_min", "smallest rendezvous message over shared memory read with process_vm_readv; "
                "smaller ones take the segmented copy (default: the tuning file's, else 65536)"},
    {"tuning", "a file written by `mpimatch tune`: defaults for shm_eager, cma_min, poll, "
               "poll_ratio, poll_history"},
};

FI_EXT_INI
{
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        fi_param_define(&mmfi_prov, params[i].name, FI_PARAM_STRING, "%s", params[i].help);
    return &mmfi_prov;
}

uint64_t mmfi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mmfi_file_path(char *out, size_t n, const char *dir, const mmfi_addr *name, const char *what,
                    const char *ext)
{
    char h[256] = {0};
    if (gethostname(h, sizeof h - 1) != 0 || !h[0])
        strcpy(h, "host");
    size_t i = 0;
    for (; h[i] && h[i] != '.' && i < 63; i++)
        if (!isalnum((unsigned char)h[i]) && h[i] != '_')
            h[i] = '_';
    h[i] = 0;
    snprintf(out, n, "%s/mpimatch-%s-%s-%d-%u.%s", dir, what, h, (int)name->pid, name->epid, ext);
}

uint32_t mmfi_host_hash(void)
{
    char h[256] = {0};
    gethostname(h, sizeof h - 1);
    uint32_t x = 2166136261u;
    for (const char *p = h; *p; p++)
        x = (x ^ (uint8_t)*p) * 16777619u;
    return x;
}

static const char *env(const char *name)
{
    char *v = NULL;
    if (fi_param_get_str(&mmfi_prov, name, &v) != 0 || !v || !*v)
        return NULL;
    return v;
}

/* The IPv4 address of interface `name`, or with name NULL of the first
 * interface that is up and not loopback: 1 (in *ip, network order) or 0. */
static int ipv4_of(const char *name, uint32_t *ip)
{
    struct ifaddrs *ifs = NULL;
    int found = 0;
    if (getifaddrs(&ifs) != 0)
        return 0;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
            (name ? !strcmp(i->ifa_name, name)
                  : (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK))) {
            *ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
            found = 1;
        }
    freeifaddrs(ifs);
    return found;
}

static int force_tcp_setting(mmfi_settings *s);

/* FI_MPIMATCH_TCP_IFACE and FI_MPIMATCH_FORCE_TCP; 0 or -1 (warned). */
static int tcp_settings(mmfi_settings *s)
{
    const char *v = env("tcp_iface");
    struct in_addr ia;
    if (!v) {
        /* Unset: listen on every interface, and give peers the first IPv4 address of
         * an interface that is up and not loopback (loopback only if there is none).
         * A loopback address in an address that reaches another host would send its
         * peers to their own host (av.c refuses it). */
        s->tcp_ip = htonl(INADDR_ANY);
        if (!ipv4_of(NULL, &s->tcp_adv))
            s->tcp_adv = htonl(INADDR_LOOPBACK);
        return force_tcp_setting(s);
    }
    if (inet_pton(AF_INET, v, &ia) == 1)
        s->tcp_ip = ia.s_addr;
    else if (!ipv4_of(v, &s->tcp_ip)) {
        MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_TCP_IFACE=\"%s\": no such IPv4 interface or "
                  "address\n", v);
        return -1;
    }
    s->tcp_adv = s->tcp_ip;
    return force_tcp_setting(s);
}

/* FI_MPIMATCH_FORCE_TCP; 0 or -1 (warned). */
static int force_tcp_setting(mmfi_settings *s)
{
    const char *v = env("force_tcp");
    s->force_tcp = 0;
    s->nforce = 0;
    if (!v || !strcmp(v, "none"))
        return 0;
    if (!strcmp(v, "all")) {
        s->force_tcp = 1;
        return 0;
    }
    s->force_tcp = 2;
    for (const char *p = v;;) {
        char *end = NULL;
        errno = 0;
        unsigned long x = strtoul(p, &end, 10);
        if (errno || end == p || *p == '-' || x > UINT32_MAX ||
            s->nforce == sizeof s->force_list / sizeof s->force_list[0] || (*end && *end != ',')) {
            MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_FORCE_TCP=\"%s\": expected all, none or up to "
                      "64 comma-separated AV indices (MPI ranks)\n", v);
            return -1;
        }
        s->force_list[s->nforce++] = (uint32_t)x;
        if (!*end)
            return 0;
        p = end + 1;
    }
}

/* FI_MPIMATCH_DUMP (an existing, writable directory) and
 * FI_MPIMATCH_DUMP_SIGNAL; 0 or -1 (warned). */
static int dump_settings(mmfi_settings *s)
{
    const char *d = env("dump");
    s->dump_signal = SIGUSR2;
    if (d) {
        struct stat sb;
        if (strlen(d) >= sizeof s->dump_dir - 64) {
            MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_DUMP: directory name too long\n");
            return -1;
        }
        if (stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(d, W_OK | X_OK) != 0) {
            MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_DUMP=\"%s\": not a writable directory\n", d);
            return -1;
        }
        snprintf(s->dump_dir, sizeof s->dump_dir, "%s", d);
    }
    const char *v = env("dump_signal");
    if (!v)
        return 0;
    const char *n = strncmp(v, "SIG", 3) ? v : v + 3;
    char *end = NULL;
    long x = strtol(n, &end, 10);
    if (!strcmp(n, "USR1"))
        s->dump_signal = SIGUSR1;
    else if (!strcmp(n, "USR2"))
        s->dump_signal = SIGUSR2;
    else if (end != n && !*end && x >= 1 && x <= SIGRTMAX && x != SIGKILL && x != SIGSTOP &&
             x != SIGSEGV && x != SIGBUS && x != SIGFPE && x != SIGILL && x != SIGABRT)
        s->dump_signal = (int)x;
    else {
        MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_DUMP_SIGNAL=\"%s\": expected USR1, USR2 or a "
                  "signal number from 1 to %d (not KILL, STOP or a fault signal)\n", v, SIGRTMAX);
        return -1;
    }
    return 0;
}

/* An unsigned integer variable in [lo, hi]; 0 or -FI_EINVAL (warned). */
static int env_uint(const char *name, uint64_t lo, uint64_t hi, uint64_t *out)
{
    const char *v = env(name);
    if (!v)
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || end == v || *end || v[0] == '-' || x < lo || x > hi) {
        char up[32];
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof up; i++)
            up[i] = (char)toupper((unsigned char)name[i]);
        up[i] = 0;
        MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_%s=\"%s\": expected an integer from %llu to %llu\n",
                  up, v, (unsigned long long)lo, (unsigned long long)hi);
        return -FI_EINVAL;
    }
    *out = x;
    return 0;
}

/* A variable naming one of n choices (unset: the first); its index, or -FI_EINVAL (warned). */
static int env_choice(const char *name, const char *upper, const char *const *choices, int n,
                      int *out)
{
    const char *v = env(name);
    *out = 0;
    for (int i = 0; v && i < n; i++)
        if (!strcmp(v, choices[i])) {
            *out = i;
            return 0;
        }
    if (!v)
        return 0;
    char list[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? (i + 1 < n ? ", " : " or ") : "",
                 choices[i]);
    MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_%s=\"%s\": expected %s\n", upper, v, list);
    return -FI_EINVAL;
}

/* Polling and thresholds: the tuning file's values are the defaults, the
 * environment wins (docs/provider.md#polling, #thresholds). */
static int poll_settings(mmfi_settings *s)
{
    mmfi_tuning t;
    memset(&t, 0, sizeof t);
    const char *tf = env("tuning");
    if (tf) {
        char err[768];
        if (mmfi_tuning_read(tf, &t, err, sizeof err)) {
            MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_TUNING: %s\n", err);
            return -FI_EINVAL;
        }
        snprintf(s->tuning, sizeof s->tuning, "%s", tf);
    }
    uint64_t x;
#define TUNED(k, def) (t.have[k] ? t.val[k] : (uint64_t)(def))
    s->poll = (int)TUNED(MMFI_TUNE_POLL, MMFI_POLL_RR);
    const char *p = env("poll");
    if (p) {
        static const char *const polls[] = {"rr", "static", "dynamic"}; /* MMFI_POLL_* */
        if (env_choice("poll", "POLL", polls, 3, &s->poll))
            return -FI_EINVAL;
    }
    x = TUNED(MMFI_TUNE_POLL_RATIO, 50);
    if (env_uint("poll_ratio", 1, MMFI_POLL_RATIO_MAX, &x))
        return -FI_EINVAL;
    s->poll_ratio = (uint32_t)x;
    x = TUNED(MMFI_TUNE_POLL_HISTORY, 8);
    if (env_uint("poll_history", 1, MMFI_POLL_HISTORY_MAX, &x))
        return -FI_EINVAL;
    s->poll_history = (uint32_t)x;
    x = TUNED(MMFI_TUNE_SHM_EAGER, s->eager);
    if (x > s->eager && !env("shm_eager"))
        x = s->eager; /* the file's value, under a smaller FI_MPIMATCH_EAGER */
    if (env_uint("shm_eager", 0, s->eager, &x))
        return -FI_EINVAL;
    s->shm_eager = (size_t)x;
    /* Measured here (docs/provider.md#thresholds): process_vm_readv was at least as fast
     * as the segmented copy from 64 KiB on in every run, and not below it in all of them. */
    x = TUNED(MMFI_TUNE_CMA_MIN, MMFI_CMA_MIN_DEFAULT);
    if (env_uint("cma_min", 0, (uint64_t)1 << 40, &x))
        return -FI_EINVAL;
    s->cma_min = x;
#undef TUNED
    return 0;
}

static int parse_hints(const char *v, uint32_t *out)
{
    *out = 0;
    if (!v)
        return 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (!strcmp(t, "no_any_source") || !strcmp(t, "mpi_assert_no_any_source"))
            *out |= MM_HINT_NO_ANY_SOURCE;
        else if (!strcmp(t, "no_any_tag") || !strcmp(t, "mpi_assert_no_any_tag"))
            *out |= MM_HINT_NO_ANY_TAG;
        else {
            MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_HINTS=\"%s\": unknown hint \"%s\" "
                      "(known: no_any_source, no_any_tag)\n", v, t);
            return -FI_EINVAL;
        }
    }
    return 0;
}

/* Engine parameters "k=v,k=v" split in place into at most n strings. */
static size_t split_params(char *buf, const char **out, size_t n)
{
    size_t k = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && k < n; t = strtok_r(NULL, ",", &save))
        out[k++] = t;
    return k;
}

/* Create the engine the settings name (nprocs sources): the one place an
 * engine is made, so fi_getinfo's check and the endpoint agree. */
int mmfi_engine_create(const mmfi_settings *s, int32_t nprocs, mm_engine **out,
                       char *err, size_t errlen);
int mmfi_engine_create(const mmfi_settings *s, int32_t nprocs, mm_engine **out,
                       char *err, size_t errlen)
{
    char buf[512];
    const char *pv[32];
    const char *p = env("params");
    snprintf(buf, sizeof buf, "%s", p ? p : "");
    mm_config cfg = {.nprocs = nprocs, .hints = s->hints, .flags = 0,
                     .params = pv, .nparams = split_params(buf, pv, 32)};
    return mm_create(out, s->engine, &cfg, err, errlen);
}

int mmfi_settings_read(mmfi_settings *s)
{
    memset(s, 0, sizeof *s);
    const char *e = env("engine");
    snprintf(s->engine, sizeof s->engine, "%s", e ? e : "rank");
    if (!mm_engine_find(s->engine)) {
        char names[512] = "";
        for (size_t i = 0; i < mm_engine_count(); i++) {
            strncat(names, mm_engine_at(i)->name, sizeof names - strlen(names) - 3);
            if (i + 1 < mm_engine_count())
                strcat(names, ", ");
        }
        MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_ENGINE=\"%s\": no such engine (known: %s)\n",
                  s->engine, names);
        return -FI_EINVAL;
    }
    if (parse_hints(env("hints"), &s->hints))
        return -FI_EINVAL;
    uint64_t x;
    size_t pmax = mmfi_shm_payload_max();
    x = pmax;
    if (env_uint("eager", 0, pmax, &x))
        return -FI_EINVAL;
    s->eager = (size_t)x;
    x = 4u << 20;
    if (env_uint("credit", 0, (uint64_t)1 << 40, &x))
        return -FI_EINVAL;
    s->credit = (size_t)x;
    x = 128;
    if (env_uint("ring_cells", 4, 4096, &x))
        return -FI_EINVAL;
    if (x & (x - 1)) {
        MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_RING_CELLS=%llu: must be a power of two\n",
                  (unsigned long long)x);
        return -FI_EINVAL;
    }
    s->ring_cells = (uint32_t)x;
    x = 0;
    if (env_uint("seq_start", 0, UINT32_MAX, &x))
        return -FI_EINVAL;
    s->seq_start = (uint32_t)x;
    x = 0;
    if (env_uint("tcp_sndbuf", 0, 1u << 26, &x))
        return -FI_EINVAL;
    s->tcp_sndbuf = (uint32_t)x;
    x = 1;
    if (env_uint("cma", 0, 1, &x))
        return -FI_EINVAL;
    s->cma = (int)x;
    static const char *const layouts[] = {"ompi", "none"}; /* MMFI_LAYOUT_* */
    if (env_choice("layout", "LAYOUT", layouts, 2, &s->layout))
        return -FI_EINVAL;
    const char *pd = env("profile");
    if (pd && strlen(pd) >= sizeof s->profile_dir - 64) {
        MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_PROFILE: directory name too long\n");
        return -FI_EINVAL;
    }
    snprintf(s->profile_dir, sizeof s->profile_dir, "%s", pd ? pd : "");
    const char *d = env("stats");
    if (d && strlen(d) >= sizeof s->stats_dir - 64) {
        MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_STATS: directory name too long\n");
        return -FI_EINVAL;
    }
    snprintf(s->stats_dir, sizeof s->stats_dir, "%s", d ? d : "");
    x = 0;
    if (env_uint("stats_interval", 0, 3600000, &x))
        return -FI_EINVAL;
    s->stats_interval_ns = x * 1000000u;
    if (x && !d) {
        MMFI_WARN(FI_LOG_CORE, "FI_MPIMATCH_STATS_INTERVAL=%llu: needs FI_MPIMATCH_STATS (the "
                  "directory of the samples)\n", (unsigned long long)x);
        return -FI_EINVAL;
    }
    if (dump_settings(s))
        return -FI_EINVAL;
    if (tcp_settings(s))
        return -FI_EINVAL;
    static const char *const yields[] = {"auto", "always", "never"}; /* MMFI_YIELD_* */
    if (env_choice("yield", "YIELD", yields, 3, &s->yield))
        return -FI_EINVAL;
    x = 64;
    if (env_uint("spin", 0, 1000000, &x))
        return -FI_EINVAL;
    s->spin = (uint32_t)x;
    s->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (poll_settings(s))
        return -FI_EINVAL;
    /* The engine itself: unknown parameters, missing hints. */
    char err[256];
    mm_engine *eng = NULL;
    int rc = mmfi_engine_create(s, 2, &eng, err, sizeof err);
    if (rc < 0) {
        const char *var = rc == MM_EHINT ? "FI_MPIMATCH_HINTS" :
                          rc == MM_EPARAM ? "FI_MPIMATCH_PARAMS" : "FI_MPIMATCH_ENGINE";
        MMFI_WARN(FI_LOG_CORE, "%s: engine \"%s\" cannot be used: %s\n", var, s->engine, err);
        return -FI_EINVAL;
    }
    mm_destroy(eng);
    return 0;
}

/* ---- fi_getinfo ---- */

static struct fi_info *make_info(const struct fi_info *hints, const mmfi_settings *s)
{
    struct fi_info *fi = fi_allocinfo();
    if (!fi)
        return NULL;
    fi->caps = MMFI_CAPS;
    fi->mode = 0;
    fi->addr_format = FI_FORMAT_UNSPEC;
    fi->src_addrlen = 0;
    fi->tx_attr->caps = MMFI_CAPS & ~(FI_RECV | FI_DIRECTED_RECV | FI_SOURCE);
    fi->tx_attr->op_flags = hints && hints->tx_attr ? hints->tx_attr->op_flags & FI_COMPLETION : 0;
    fi->tx_attr->msg_order = MMFI_ORDER;
    fi->tx_attr->comp_order = FI_ORDER_NONE;
    fi->tx_attr->inject_size = s->eager;
    fi->tx_attr->size = 1u << 16;
    fi->tx_attr->iov_limit = MMFI_IOV_MAX;
    fi->tx_attr->rma_iov_limit = 0;
    fi->rx_attr->caps = MMFI_CAPS & ~FI_SEND;
    fi->rx_attr->op_flags = hints && hints->rx_attr ? hints->rx_attr->op_flags & FI_COMPLETION : 0;
    fi->rx_attr->msg_order = MMFI_ORDER;
    fi->rx_attr->comp_order = FI_ORDER_NONE;
    fi->rx_attr->total_buffered_recv = 0;
    fi->rx_attr->size = 1u << 16;
    fi->rx_attr->iov_limit = MMFI_IOV_MAX;
    fi->ep_attr->type = FI_EP_RDM;
    fi->ep_attr->protocol = FI_PROTO_UNSPEC;
    fi->ep_attr->protocol_version = 1;
    fi->ep_attr->max_msg_size = MMFI_MAX_MSG;
    fi->ep_attr->msg_prefix_size = 0;
    fi->ep_attr->max_order_raw_size = 0;
    fi->ep_attr->max_order_war_size = 0;
    fi->ep_attr->max_order_waw_size = 0;
    fi->ep_attr->mem_tag_format = UINT64_MAX;
    fi->ep_attr->tx_ctx_cnt = 1;
    fi->ep_attr->rx_ctx_cnt = 1;
    struct fi_domain_attr *d = fi->domain_attr;
    d->name = strdup(MMFI_NAME);
    /* FI_THREAD_DOMAIN when asked (the data path then takes no lock, domain.c),
     * else FI_THREAD_SAFE, which satisfies every other level */
    d->threading = hints && hints->domain_attr && hints->domain_attr->threading == FI_THREAD_DOMAIN
                   ? FI_THREAD_DOMAIN : FI_THREAD_SAFE;
    d->control_progress = FI_PROGRESS_MANUAL;
    d->data_progress = FI_PROGRESS_MANUAL;
    d->resource_mgmt = FI_RM_ENABLED;
    d->av_type = hints && hints->domain_attr && hints->domain_attr->av_type != FI_AV_UNSPEC
                 ? hints->domain_attr->av_type : FI_AV_UNSPEC;
    d->mr_mode = 0;
    d->mr_key_size = 0;
    d->cq_data_size = MMFI_CQ_DATA;
    d->cq_cnt = 256;
    d->ep_cnt = 256;
    d->tx_ctx_cnt = 256;
    d->rx_ctx_cnt = 256;
    d->max_ep_tx_ctx = 1;
    d->max_ep_rx_ctx = 1;
    d->max_ep_stx_ctx = 0;
    d->max_ep_srx_ctx = 0;
    d->cntr_cnt = 0;
    d->mr_iov_limit = 1;
    d->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
    d->mode = 0;
    d->max_err_data = 0;
    d->mr_cnt = 0;
    fi->fabric_attr->name = strdup(MMFI_NAME);
    fi->fabric_attr->prov_version = MMFI_VERSION;
    fi->fabric_attr->api_version = MMFI_API;
    if (!d->name || !fi->fabric_attr->name) {
        fi_freeinfo(fi);
        return NULL;
    }
    return fi;
}

/* Does the provider satisfy the hints? A reason on stderr-free FI_INFO log when not. */
static int hints_ok(const struct fi_info *h)
{
    if (!h)
        return 1;
#define NO(why) do { FI_INFO(&mmfi_prov, FI_LOG_CORE, "hints not supported: %s\n", why); return 0; } while (0)
    if (h->caps & ~(uint64_t)MMFI_CAPS)
        NO("capabilities (mpimatch offers FI_TAGGED, FI_MSG, FI_DIRECTED_RECV, FI_SOURCE)");
    if (h->addr_format != FI_FORMAT_UNSPEC)
        NO("address format");
    if (h->ep_attr) {
        if (h->ep_attr->type != FI_EP_UNSPEC && h->ep_attr->type != FI_EP_RDM)
            NO("endpoint type (only FI_EP_RDM)");
        if (h->ep_attr->max_msg_size > MMFI_MAX_MSG)
            NO("max_msg_size");
        if (h->ep_attr->tx_ctx_cnt > 1 || h->ep_attr->rx_ctx_cnt > 1)
            if (h->ep_attr->tx_ctx_cnt != FI_SHARED_CONTEXT && h->ep_attr->rx_ctx_cnt != FI_SHARED_CONTEXT)
                NO("scalable endpoints");
    }
    if (h->domain_attr) {
        const struct fi_domain_attr *d = h->domain_attr;
        if (d->name && strcmp(d->name, MMFI_NAME))
            NO("domain name");
        if (d->data_progress == FI_PROGRESS_AUTO || d->control_progress == FI_PROGRESS_AUTO)
            NO("automatic progress (mpimatch progresses in fi_cq_read and every call)");
        if (d->av_type != FI_AV_UNSPEC && d->av_type != FI_AV_MAP && d->av_type != FI_AV_TABLE)
            NO("address vector type");
        if (d->cq_data_size > MMFI_CQ_DATA)
            NO("cq_data_size above 8");
        if (d->mr_mode & (FI_MR_BASIC | FI_MR_SCALABLE) && h->caps & (FI_RMA | FI_ATOMIC))
            NO("memory registration");
    }
    if (h->fabric_attr && h->fabric_attr->name && strcmp(h->fabric_attr->name, MMFI_NAME))
        NO("fabric name");
    if (h->tx_attr && (h->tx_attr->msg_order & ~MMFI_ORDER))
        NO("transmit ordering");
    if (h->rx_attr && (h->rx_attr->msg_order & ~MMFI_ORDER))
        NO("receive ordering");
    if (h->tx_attr && h->tx_attr->inject_size > mmfi_shm_payload_max())
        NO("inject size");
    if (h->tx_attr && h->tx_attr->iov_limit > MMFI_IOV_MAX)
        NO("iov limit");
    if (h->rx_attr && h->rx_attr->total_buffered_recv)
        NO("buffered receives");
#undef NO
    return 1;
}

static int getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info)
{
    (void)node; (void)service; (void)flags;
    *info = NULL;
    if (FI_VERSION_LT(version, FI_VERSION(1, 5)))
        return -FI_ENODATA;
    mmfi_settings s;
    if (mmfi_settings_read(&s))
        return -FI_EINVAL;
    if (!hints_ok(hints))
        return -FI_ENODATA;
    struct fi_info *fi = make_info(hints, &s);
    if (!fi)
        return -FI_ENOMEM;
    if (hints && hints->caps)
        fi->caps = (hints->caps & MMFI_CAPS) | (MMFI_CAPS & (FI_LOCAL_COMM | FI_REMOTE_COMM));
    *info = fi;
    return 0;
}

/* ---- fabric ---- */

static int fabric_close(struct fid *fid)
{
    free(container_of(fid, mmfi_fabric, fabric.fid));
    return 0;
}

static struct fi_ops fabric_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = fabric_close,
    .bind = mmfi_no_bind,
    .control = mmfi_no_control,
    .ops_open = mmfi_no_ops_open,
};

static int no_pep(struct fid_fabric *f, struct fi_info *i, struct fid_pep **p, void *c)
{ (void)f; (void)i; (void)p; (void)c; return -FI_ENOSYS; }
static int no_eq(struct fid_fabric *f, struct fi_eq_attr *a, struct fid_eq **e, void *c)
{ (void)f; (void)a; (void)e; (void)c; return -FI_ENOSYS; }
static int no_wait(struct fid_fabric *f, struct fi_wait_attr *a, struct fid_wait **w)
{ (void)f; (void)a; (void)w; return -FI_ENOSYS; }
static int no_trywait(struct fid_fabric *f, struct fid **fids, int n)
{ (void)f; (void)fids; (void)n; return -FI_ENOSYS; }
static int domain2(struct fid_fabric *f, struct fi_info *i, struct fid_domain **d, uint64_t fl,
                   void *c)
{ (void)fl; return mmfi_domain_open(f, i, d, c); }

static struct fi_ops_fabric fabric_ops = {
    .size = sizeof(struct fi_ops_fabric),
    .domain = mmfi_domain_open,
    .passive_ep = no_pep,
    .eq_open = no_eq,
    .wait_open = no_wait,
    .trywait = no_trywait,
    .domain2 = domain2,
};

int mmfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (attr && attr->name && strcmp(attr->name, MMFI_NAME))
        return -FI_ENODATA;
    mmfi_fabric *f = calloc(1, sizeof *f);
    if (!f)
        return -FI_ENOMEM;
    f->fabric.fid.fclass = FI_CLASS_FABRIC;
    f->fabric.fid.context = context;
    f->fabric.fid.ops = &fabric_fi_ops;
    f->fabric.ops = &fabric_ops;
    f->fabric.api_version = MMFI_API;
    *fabric = &f->fabric;
    return 0;
}
