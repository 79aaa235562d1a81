/*
 * domain.c - the domain: settings checked again (fi_domain fails on a bad
 * variable, naming it), the lock every call takes, and the factory of AVs,
 * CQs and endpoints. Calls the provider does not offer answer -FI_ENOSYS.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "mmfi.h"

int mmfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{ (void)fid; (void)bfid; (void)flags; return -FI_ENOSYS; }
int mmfi_no_control(struct fid *fid, int command, void *arg)
{ (void)fid; (void)command; (void)arg; return -FI_ENOSYS; }
int mmfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops, void *context)
{ (void)fid; (void)name; (void)flags; (void)ops; (void)context; return -FI_ENOSYS; }

static int domain_close(struct fid *fid)
{
    mmfi_domain *d = container_of(fid, mmfi_domain, dom.fid);
    if (d->refs)
        return -FI_EBUSY;
    pthread_mutex_destroy(&d->lock);
    free(d);
    return 0;
}

static struct fi_ops domain_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = domain_close,
    .bind = mmfi_no_bind,
    .control = mmfi_no_control,
    .ops_open = mmfi_no_ops_open,
};

static int no_sep(struct fid_domain *d, struct fi_info *i, struct fid_ep **e, void *c)
{ (void)d; (void)i; (void)e; (void)c; return -FI_ENOSYS; }
static int no_cntr(struct fid_domain *d, struct fi_cntr_attr *a, struct fid_cntr **c, void *x)
{ (void)d; (void)a; (void)c; (void)x; return -FI_ENOSYS; }
static int no_poll(struct fid_domain *d, struct fi_poll_attr *a, struct fid_poll **p)
{ (void)d; (void)a; (void)p; return -FI_ENOSYS; }
static int no_stx(struct fid_domain *d, struct fi_tx_attr *a, struct fid_stx **s, void *c)
{ (void)d; (void)a; (void)s; (void)c; return -FI_ENOSYS; }
static int no_srx(struct fid_domain *d, struct fi_rx_attr *a, struct fid_ep **e, void *c)
{ (void)d; (void)a; (void)e; (void)c; return -FI_ENOSYS; }
static int no_qatomic(struct fid_domain *d, enum fi_datatype t, enum fi_op o,
                      struct fi_atomic_attr *a, uint64_t f)
{ (void)d; (void)t; (void)o; (void)a; (void)f; return -FI_ENOSYS; }
static int no_qcoll(struct fid_domain *d, enum fi_collective_op o, struct fi_collective_attr *a,
                    uint64_t f)
{ (void)d; (void)o; (void)a; (void)f; return -FI_ENOSYS; }
static int endpoint2(struct fid_domain *d, struct fi_info *i, struct fid_ep **e, uint64_t f, void *c)
{ (void)f; return mmfi_ep_open(d, i, e, c); }

static struct fi_ops_domain domain_ops = {
    .size = sizeof(struct fi_ops_domain),
    .av_open = mmfi_av_open,
    .cq_open = mmfi_cq_open,
    .endpoint = mmfi_ep_open,
    .scalable_ep = no_sep,
    .cntr_open = no_cntr,
    .poll_open = no_poll,
    .stx_ctx = no_stx,
    .srx_ctx = no_srx,
    .query_atomic = no_qatomic,
    .query_collective = no_qcoll,
    .endpoint2 = endpoint2,
};

static int no_reg(struct fid *f, const void *b, size_t l, uint64_t a, uint64_t o, uint64_t k,
                  uint64_t fl, struct fid_mr **mr, void *c)
{ (void)f; (void)b; (void)l; (void)a; (void)o; (void)k; (void)fl; (void)mr; (void)c; return -FI_ENOSYS; }
static int no_regv(struct fid *f, const struct iovec *iov, size_t n, uint64_t a, uint64_t o,
                   uint64_t k, uint64_t fl, struct fid_mr **mr, void *c)
{ (void)f; (void)iov; (void)n; (void)a; (void)o; (void)k; (void)fl; (void)mr; (void)c; return -FI_ENOSYS; }
static int no_regattr(struct fid *f, const struct fi_mr_attr *a, uint64_t fl, struct fid_mr **mr)
{ (void)f; (void)a; (void)fl; (void)mr; return -FI_ENOSYS; }

static struct fi_ops_mr mr_ops = {
    .size = sizeof(struct fi_ops_mr),
    .reg = no_reg,
    .regv = no_regv,
    .regattr = no_regattr,
};

int mmfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
                     struct fid_domain **dom, void *context)
{
    if (info && info->domain_attr && info->domain_attr->name &&
        strcmp(info->domain_attr->name, MMFI_NAME))
        return -FI_EINVAL;
    mmfi_domain *d = calloc(1, sizeof *d);
    if (!d)
        return -FI_ENOMEM;
    int rc = mmfi_settings_read(&d->set);
    if (rc) {
        free(d);
        return rc;
    }
    pthread_mutex_init(&d->lock, NULL);
    d->locking = !(info && info->domain_attr && info->domain_attr->threading == FI_THREAD_DOMAIN);
    d->fab = container_of(fabric, mmfi_fabric, fabric);
    d->cq_data_size = 8;
    d->dom.fid.fclass = FI_CLASS_DOMAIN;
    d->dom.fid.context = context;
    d->dom.fid.ops = &domain_fi_ops;
    d->dom.ops = &domain_ops;
    d->dom.mr = &mr_ops;
    *dom = &d->dom;
    return 0;
}
