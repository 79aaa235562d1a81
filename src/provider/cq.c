/*
 * cq.c - completion queues. Entries are kept in the tagged format with the
 * source address beside them and copied out in the format the CQ was opened
 * with (context, msg, data, tagged). Errors wait in their own FIFO (both are
 * the library's mm_fifo, src/core/fifo.h): fi_cq_read answers -FI_EAVAIL
 * while one is pending, fi_cq_readerr takes it.
 * Reading a CQ progresses every endpoint bound to it (manual progress).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mmfi.h"

static int cq_close(struct fid *fid)
{
    mmfi_cq *cq = container_of(fid, mmfi_cq, cq.fid);
    if (cq->refs)
        return -FI_EBUSY;
    cq->dom->refs--;
    mm_fifo_destroy(&cq->ent);
    mm_fifo_destroy(&cq->err);
    free(cq);
    return 0;
}

static struct fi_ops cq_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = cq_close,
    .bind = mmfi_no_bind,
    .control = mmfi_no_control,
    .ops_open = mmfi_no_ops_open,
};

int mmfi_cq_push_err(mmfi_cq *cq, void *context, uint64_t flags, size_t len, size_t olen,
                     uint64_t data, uint64_t tag, int err)
{
    struct fi_cq_err_entry *e = mm_fifo_push(&cq->err);
    if (!e)
        return -FI_ENOMEM;
    memset(e, 0, sizeof *e);
    e->op_context = context;
    e->flags = flags;
    e->len = len;
    e->olen = olen;
    e->data = data;
    e->tag = tag;
    e->err = err;
    e->prov_errno = -err;
    return 0;
}

static size_t entry_size(enum fi_cq_format f)
{
    switch (f) {
    case FI_CQ_FORMAT_CONTEXT: return sizeof(struct fi_cq_entry);
    case FI_CQ_FORMAT_MSG:     return sizeof(struct fi_cq_msg_entry);
    case FI_CQ_FORMAT_DATA:    return sizeof(struct fi_cq_data_entry);
    default:                   return sizeof(struct fi_cq_tagged_entry);
    }
}

static void copy_out(enum fi_cq_format f, void *dst, const struct fi_cq_tagged_entry *e)
{
    switch (f) {
    case FI_CQ_FORMAT_CONTEXT: {
        struct fi_cq_entry *c = dst;
        c->op_context = e->op_context;
        break;
    }
    case FI_CQ_FORMAT_MSG: {
        struct fi_cq_msg_entry *c = dst;
        c->op_context = e->op_context;
        c->flags = e->flags;
        c->len = e->len;
        break;
    }
    case FI_CQ_FORMAT_DATA: {
        struct fi_cq_data_entry *c = dst;
        c->op_context = e->op_context;
        c->flags = e->flags;
        c->len = e->len;
        c->buf = e->buf;
        c->data = e->data;
        break;
    }
    default:
        memcpy(dst, e, sizeof *e);
    }
}

/* fi_cq_read and fi_cq_readfrom: one body, inlined into both (the idle read
 * of a waiting caller is the hottest call of all). */
MM_INLINE ssize_t cq_read_common(struct fid_cq *fcq, void *buf, size_t count,
                                 fi_addr_t *src)
{
    mmfi_cq *cq = container_of(fcq, mmfi_cq, cq);
    mmfi_lock(cq->dom);
    if (!mm_fifo_len(&cq->ent) && !mm_fifo_len(&cq->err))
        for (int i = 0; i < cq->neps; i++)
            mmfi_ep_progress(cq->eps[i]);
    ssize_t rc;
    int yield = 0;
    if (mm_fifo_len(&cq->err))
        rc = -FI_EAVAIL;
    else if (!mm_fifo_len(&cq->ent)) {
        rc = -FI_EAGAIN;
        /* A caller that waits polls here (mtl ofi's blocking send spins on its own
         * progress call, never opal_progress's yield): after the spin budget, hand
         * the processor to a peer that may share it (docs/provider.md). */
        cq->idle += cq->idle < UINT32_MAX;
        if (cq->idle > cq->dom->set.spin && cq->neps && cq->eps[0]->yield) {
            cq->eps[0]->c.yields++;
            yield = 1;
        }
    } else {
        cq->idle = 0;
        size_t k = 0, sz = entry_size(cq->format);
        for (mmfi_cqe *e; k < count && (e = mm_fifo_front(&cq->ent)); k++) {
            copy_out(cq->format, (char *)buf + k * sz, &e->e);
            if (src)
                src[k] = e->src;
            mm_fifo_pop(&cq->ent);
        }
        rc = (ssize_t)k;
    }
    if (mm_fifo_len(&cq->err))
        cq->idle = 0;
    mmfi_unlock(cq->dom);
    if (yield)
        sched_yield();
    return rc;
}

static ssize_t cq_readfrom(struct fid_cq *fcq, void *buf, size_t count, fi_addr_t *src)
{
    return cq_read_common(fcq, buf, count, src);
}

static ssize_t cq_read(struct fid_cq *fcq, void *buf, size_t count)
{
    return cq_read_common(fcq, buf, count, NULL);
}

static ssize_t cq_readerr(struct fid_cq *fcq, struct fi_cq_err_entry *buf, uint64_t flags)
{
    (void)flags;
    mmfi_cq *cq = container_of(fcq, mmfi_cq, cq);
    mmfi_lock(cq->dom);
    ssize_t rc = -FI_EAGAIN;
    struct fi_cq_err_entry *e = mm_fifo_front(&cq->err);
    if (e) {
        /* API 1.5+: err_data is the caller's buffer when err_data_size > 0; we have none. */
        void *ed = buf->err_data;
        *buf = *e;
        buf->err_data = ed;
        buf->err_data_size = 0;
        mm_fifo_pop(&cq->err);
        rc = 1;
    }
    mmfi_unlock(cq->dom);
    return rc;
}

static ssize_t cq_sread(struct fid_cq *fcq, void *buf, size_t count, const void *cond, int timeout)
{
    (void)cond;
    uint64_t end = mmfi_now_ns() + (timeout < 0 ? UINT64_MAX / 2 : (uint64_t)timeout * 1000000u);
    for (;;) {
        ssize_t rc = cq_read(fcq, buf, count);
        if (rc != -FI_EAGAIN || mmfi_now_ns() > end)
            return rc;
    }
}

static ssize_t cq_sreadfrom(struct fid_cq *fcq, void *buf, size_t count, fi_addr_t *src,
                            const void *cond, int timeout)
{
    (void)cond;
    uint64_t end = mmfi_now_ns() + (timeout < 0 ? UINT64_MAX / 2 : (uint64_t)timeout * 1000000u);
    for (;;) {
        ssize_t rc = cq_readfrom(fcq, buf, count, src);
        if (rc != -FI_EAGAIN || mmfi_now_ns() > end)
            return rc;
    }
}

static int cq_signal(struct fid_cq *fcq) { (void)fcq; return 0; }

static const char *cq_strerror(struct fid_cq *fcq, int prov_errno, const void *err_data,
                               char *buf, size_t len)
{
    (void)fcq; (void)err_data;
    const char *s = fi_strerror(prov_errno);
    if (buf && len) {
        strncpy(buf, s, len - 1);
        buf[len - 1] = 0;
        return buf;
    }
    return s;
}

static struct fi_ops_cq cq_ops = {
    .size = sizeof(struct fi_ops_cq),
    .read = cq_read,
    .readfrom = cq_readfrom,
    .readerr = cq_readerr,
    .sread = cq_sread,
    .sreadfrom = cq_sreadfrom,
    .signal = cq_signal,
    .strerror = cq_strerror,
};

int mmfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr, struct fid_cq **out,
                 void *context)
{
    mmfi_domain *d = container_of(domain, mmfi_domain, dom);
    if (!attr)
        return -FI_EINVAL;
    if (attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC)
        return -FI_ENOSYS;
    if (attr->flags & FI_AFFINITY)
        return -FI_ENOSYS;
    switch (attr->format) {
    case FI_CQ_FORMAT_UNSPEC: case FI_CQ_FORMAT_CONTEXT: case FI_CQ_FORMAT_MSG:
    case FI_CQ_FORMAT_DATA: case FI_CQ_FORMAT_TAGGED:
        break;
    default:
        return -FI_ENOSYS;
    }
    mmfi_cq *cq = calloc(1, sizeof *cq);
    if (!cq)
        return -FI_ENOMEM;
    cq->dom = d;
    mm_fifo_init(&cq->ent, sizeof(mmfi_cqe), 256, &cq->mem);
    mm_fifo_init(&cq->err, sizeof(struct fi_cq_err_entry), 16, &cq->mem);
    cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ? FI_CQ_FORMAT_TAGGED : attr->format;
    cq->cq.fid.fclass = FI_CLASS_CQ;
    cq->cq.fid.context = context;
    cq->cq.fid.ops = &cq_fi_ops;
    cq->cq.ops = &cq_ops;
    pthread_mutex_lock(&d->lock);
    d->refs++;
    pthread_mutex_unlock(&d->lock);
    *out = &cq->cq;
    return 0;
}
