/*
 * av.c - address vectors. Table and map behave alike: the fi_addr of an
 * address is its index (a map may hand out any value; the index is one).
 * Removed indices are not reused. An address is an mmfi_addr (prov.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "mmfi.h"

static int av_close(struct fid *fid)
{
    mmfi_av *av = container_of(fid, mmfi_av, av.fid);
    if (av->refs)
        return -FI_EBUSY;
    av->dom->refs--;
    free(av->addrs);
    free(av->valid);
    free(av);
    return 0;
}

static struct fi_ops av_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = av_close,
    .bind = mmfi_no_bind,
    .control = mmfi_no_control,
    .ops_open = mmfi_no_ops_open,
};

static int same_addr(const mmfi_addr *a, const mmfi_addr *b)
{
    return a->pid == b->pid && a->epid == b->epid && a->host == b->host && !strcmp(a->shm, b->shm);
}

fi_addr_t mmfi_av_find(mmfi_av *av, const mmfi_addr *a)
{
    if (!av)
        return FI_ADDR_NOTAVAIL;
    for (size_t i = 0; i < av->count; i++)
        if (av->valid[i] && same_addr(&av->addrs[i], a))
            return (fi_addr_t)i;
    return FI_ADDR_NOTAVAIL;
}

/* Distinct endpoint addresses among the entries: the valid ones, or every
 * entry ever inserted (removed_too). An entry counts if no earlier counted
 * entry has its address. */
static size_t distinct_peers(const mmfi_av *av, int removed_too)
{
    size_t n = 0;
    for (size_t i = 0; av && i < av->count; i++) {
        if (!removed_too && !av->valid[i])
            continue;
        size_t j = 0;
        while (j < i && !((removed_too || av->valid[j]) && same_addr(&av->addrs[j], &av->addrs[i])))
            j++;
        n += j == i;
    }
    return n;
}

size_t mmfi_av_peers(mmfi_av *av)
{
    return distinct_peers(av, 0);
}

size_t mmfi_av_peers_held(mmfi_av *av)
{
    return distinct_peers(av, 1);
}

static int grow(mmfi_av *av, size_t need)
{
    if (need <= av->cap)
        return 0;
    size_t cap = av->cap ? av->cap : 64;
    while (cap < need)
        cap *= 2;
    mmfi_addr *a = realloc(av->addrs, cap * sizeof *a);
    if (!a)
        return -FI_ENOMEM;
    av->addrs = a;
    uint8_t *v = realloc(av->valid, cap);
    if (!v)
        return -FI_ENOMEM;
    memset(v + av->cap, 0, cap - av->cap);
    av->valid = v;
    av->cap = cap;
    return 0;
}

static int av_insert(struct fid_av *fav, const void *addr, size_t count, fi_addr_t *fi_addr,
                     uint64_t flags, void *context)
{
    (void)context;
    mmfi_av *av = container_of(fav, mmfi_av, av);
    if (flags & ~(uint64_t)FI_MORE)
        return -FI_EINVAL;
    pthread_mutex_lock(&av->dom->lock);
    int n = 0;
    uint32_t host = mmfi_host_hash();
    if (grow(av, av->count + count)) {
        pthread_mutex_unlock(&av->dom->lock);
        return -FI_ENOMEM;
    }
    for (size_t i = 0; i < count; i++) {
        mmfi_addr a;
        memcpy(&a, (const char *)addr + i * sizeof a, sizeof a);
        a.shm[sizeof a.shm - 1] = 0;
        int ok = a.magic == MMFI_ADDR_MAGIC;
        if (ok && a.host != host && (!a.ip || !a.port)) {
            MMFI_WARN(FI_LOG_AV, "address of pid %d is on another host and has no TCP "
                      "address\n", (int)a.pid);
            ok = 0;
        }
        if (ok && a.host != host && (ntohl(a.ip) >> 24) == 127) {
            char ip[INET_ADDRSTRLEN] = "?";
            inet_ntop(AF_INET, &a.ip, ip, sizeof ip);
            MMFI_WARN(FI_LOG_AV, "address of pid %d is on another host but its TCP channel "
                      "listens on loopback (%s) only: set FI_MPIMATCH_TCP_IFACE on every host to "
                      "an interface that reaches the others\n", (int)a.pid, ip);
            ok = 0;
        }
        if (!ok) {
            if (fi_addr)
                fi_addr[i] = FI_ADDR_NOTAVAIL;
            continue;
        }
        size_t idx = av->count++;
        av->addrs[idx] = a;
        av->valid[idx] = 1;
        if (fi_addr)
            fi_addr[i] = (fi_addr_t)idx;
        n++;
    }
    av->gen++;
    pthread_mutex_unlock(&av->dom->lock);
    return n;
}

static int av_insertsvc(struct fid_av *a, const char *node, const char *svc, fi_addr_t *f,
                        uint64_t fl, void *c)
{ (void)a; (void)node; (void)svc; (void)f; (void)fl; (void)c; return -FI_ENOSYS; }
static int av_insertsym(struct fid_av *a, const char *node, size_t nc, const char *svc, size_t sc,
                        fi_addr_t *f, uint64_t fl, void *c)
{ (void)a; (void)node; (void)nc; (void)svc; (void)sc; (void)f; (void)fl; (void)c; return -FI_ENOSYS; }

static int av_remove(struct fid_av *fav, fi_addr_t *fi_addr, size_t count, uint64_t flags)
{
    mmfi_av *av = container_of(fav, mmfi_av, av);
    if (flags)
        return -FI_EINVAL;
    pthread_mutex_lock(&av->dom->lock);
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        if (fi_addr[i] >= av->count || !av->valid[fi_addr[i]])
            rc = -FI_EINVAL;
        else
            av->valid[fi_addr[i]] = 0;
    }
    av->gen++;
    pthread_mutex_unlock(&av->dom->lock);
    return rc;
}

static int av_lookup(struct fid_av *fav, fi_addr_t fi_addr, void *addr, size_t *addrlen)
{
    mmfi_av *av = container_of(fav, mmfi_av, av);
    pthread_mutex_lock(&av->dom->lock);
    int rc = 0;
    if (fi_addr >= av->count || !av->valid[fi_addr])
        rc = -FI_EINVAL;
    else {
        memcpy(addr, &av->addrs[fi_addr], *addrlen < sizeof(mmfi_addr) ? *addrlen : sizeof(mmfi_addr));
        *addrlen = sizeof(mmfi_addr);
    }
    pthread_mutex_unlock(&av->dom->lock);
    return rc;
}

static const char *av_straddr(struct fid_av *fav, const void *addr, char *buf, size_t *len)
{
    (void)fav;
    mmfi_addr a;
    memcpy(&a, addr, sizeof a);
    a.shm[sizeof a.shm - 1] = 0;
    char tmp[160], ip[INET_ADDRSTRLEN] = "0.0.0.0";
    inet_ntop(AF_INET, &a.ip, ip, sizeof ip);
    int n = snprintf(tmp, sizeof tmp, "mpimatch://%08x/%d/%u/%s/%s:%u", a.host, (int)a.pid,
                     a.epid, a.shm, ip, (unsigned)ntohs(a.port));
    if (buf && *len)
        snprintf(buf, *len, "%s", tmp);
    *len = (size_t)n + 1;
    return buf;
}

static int av_set(struct fid_av *a, struct fi_av_set_attr *at, struct fid_av_set **s, void *c)
{ (void)a; (void)at; (void)s; (void)c; return -FI_ENOSYS; }

static struct fi_ops_av av_ops = {
    .size = sizeof(struct fi_ops_av),
    .insert = av_insert,
    .insertsvc = av_insertsvc,
    .insertsym = av_insertsym,
    .remove = av_remove,
    .lookup = av_lookup,
    .straddr = av_straddr,
    .av_set = av_set,
};

int mmfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr, struct fid_av **out,
                 void *context)
{
    mmfi_domain *d = container_of(domain, mmfi_domain, dom);
    if (!attr || (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_MAP &&
                  attr->type != FI_AV_TABLE))
        return -FI_EINVAL;
    if (attr->flags & (FI_EVENT | FI_READ | FI_SYMMETRIC) || attr->rx_ctx_bits || attr->name)
        return -FI_ENOSYS;
    mmfi_av *av = calloc(1, sizeof *av);
    if (!av)
        return -FI_ENOMEM;
    av->dom = d;
    av->type = attr->type == FI_AV_UNSPEC ? FI_AV_TABLE : attr->type;
    if (grow(av, attr->count ? attr->count : 64)) {
        free(av);
        return -FI_ENOMEM;
    }
    av->av.fid.fclass = FI_CLASS_AV;
    av->av.fid.context = context;
    av->av.fid.ops = &av_fi_ops;
    av->av.ops = &av_ops;
    pthread_mutex_lock(&d->lock);
    d->refs++;
    pthread_mutex_unlock(&d->lock);
    *out = &av->av;
    return 0;
}
