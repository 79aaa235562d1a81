/*
 * cma.c - the kernel-assisted copy channel: a matched rendezvous message is
 * read straight from the sender's buffer with process_vm_readv(2) (one copy,
 * no ring), then the sender is told it is done (W_FIN). The RTS carries the
 * sender's iov. When the kernel or the container forbids it (EPERM under
 * Yama ptrace_scope or seccomp, ENOSYS), the endpoint says so once and
 * falls back to the segmented copy through the shared-memory ring for good.
 * FI_MPIMATCH_CMA=0 turns it off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "mmfi.h"

/* Move an iov cursor (v, *i) forward by k bytes. */
static void advance(struct iovec *v, size_t *i, size_t k)
{
    while (k) {
        size_t s = v[*i].iov_len < k ? v[*i].iov_len : k;
        v[*i].iov_base = (char *)v[*i].iov_base + s;
        v[*i].iov_len -= s;
        k -= s;
        if (!v[*i].iov_len)
            (*i)++;
    }
}

/* Read want bytes of the sender's iov (rv) into r's buffer. 0, or -errno. */
int mmfi_cma_read(mmfi_ep *ep, pid_t pid, const mmfi_rec *r, const struct iovec *rv, size_t rn,
                  uint64_t want)
{
    struct iovec lv[MMFI_IOV_MAX], rem[MMFI_IOV_MAX];
    size_t ln = 0;
    uint64_t left = want;
    for (size_t i = 0; i < r->iov_count && left; i++) {
        size_t n = r->iov[i].iov_len < left ? r->iov[i].iov_len : (size_t)left;
        if (!n)
            continue;
        lv[ln].iov_base = r->iov[i].iov_base;
        lv[ln++].iov_len = n;
        left -= n;
    }
    memcpy(rem, rv, rn * sizeof *rv);
    uint64_t done = 0;
    size_t li = 0, ri = 0;
    while (done < want) {
        ssize_t n = process_vm_readv(pid, lv + li, (unsigned long)(ln - li), rem + ri,
                                     (unsigned long)(rn - ri), 0);
        if (n < 0)
            return -errno;
        if (n == 0)
            return -EFAULT;
        done += (uint64_t)n;
        ep->c.cma_bytes += (uint64_t)n;
        /* a partial read: advance both sides past n bytes */
        advance(lv, &li, (size_t)n);
        advance(rem, &ri, (size_t)n);
    }
    ep->c.cma_reads++;
    return 0;
}
