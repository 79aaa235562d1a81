/*
 * dumpi_import.c - SST DUMPI run -> mpimatch trace (docs/dumpi.md).
 *
 * Two passes over the rank files. Pass 1 collects each rank's
 * communicator-creation calls, which dumpi_comms.c matches across ranks
 * into communicators with members and shared ids. Pass 2 reads each file
 * again and writes its trace records: communicators, point-to-point calls,
 * probes, cancels, completions with their statuses, collectives.
 */
#include "dumpi_import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dumpi_comms.h"
#include "dumpi_files.h"
#include "dumpi_read.h"
#include "json.h"
#include "outfile.h"
#include "trace_format.h"

/* ---- requests: DUMPI request handle -> our request ---- */

typedef struct req {
    uint32_t handle;     /* 0: free slot                                  */
    uint8_t  type;       /* MMT_ISEND or MMT_IRECV                        */
    uint8_t  active;     /* started and not yet completed                 */
    uint8_t  persistent; /* from MPI_*_init: survives its completions     */
    uint8_t  mode;       /* send mode                                     */
    uint64_t id;         /* our request id (active)                       */
    int32_t  comm_h;     /* communicator handle as recorded               */
    int64_t  count, dtype;
    int32_t  peer, tag;  /* as posted                                     */
} req;

typedef struct reqtab {
    req *slot;
    size_t cap, used;
} reqtab;

static size_t rt_home(const reqtab *t, uint32_t h) { return (h * 2654435761u) & (t->cap - 1); }

static req *rt_find(reqtab *t, uint32_t h)
{
    if (!t->cap || h == 0)
        return NULL;
    for (size_t i = rt_home(t, h);; i = (i + 1) & (t->cap - 1)) {
        if (t->slot[i].handle == h)
            return &t->slot[i];
        if (t->slot[i].handle == 0)
            return NULL;
    }
}

static int rt_grow(reqtab *t);

/* The entry for handle h, new (zeroed) if absent. NULL: out of memory. */
static req *rt_get(reqtab *t, uint32_t h)
{
    req *e = rt_find(t, h);
    if (e)
        return e;
    if ((t->used + 1) * 2 > t->cap && rt_grow(t))
        return NULL;
    size_t i = rt_home(t, h);
    while (t->slot[i].handle)
        i = (i + 1) & (t->cap - 1);
    memset(&t->slot[i], 0, sizeof t->slot[i]);
    t->slot[i].handle = h;
    t->used++;
    return &t->slot[i];
}

static int rt_grow(reqtab *t)
{
    reqtab n = { NULL, t->cap ? 2 * t->cap : 64, 0 };
    if (!(n.slot = calloc(n.cap, sizeof *n.slot)))
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i].handle)
            *rt_get(&n, t->slot[i].handle) = t->slot[i];
    free(t->slot);
    *t = n;
    return 0;
}

/* Remove (backward-shift deletion keeps probe chains whole). */
static void rt_del(reqtab *t, req *e)
{
    size_t i = (size_t)(e - t->slot);
    t->slot[i].handle = 0;
    t->used--;
    for (size_t j = (i + 1) & (t->cap - 1); t->slot[j].handle; j = (j + 1) & (t->cap - 1)) {
        size_t h = rt_home(t, t->slot[j].handle);
        /* move j back to i if its home is not in (i, j] */
        if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
            t->slot[i] = t->slot[j];
            t->slot[j].handle = 0;
            i = j;
        }
    }
}

/* ---- pass 2 state ---- */

typedef struct conv {
    dumpi_reader *rd;
    const dc_set *cs;
    const dc_rank *cr;
    int32_t rank, nranks;
    FILE *out;
    uint64_t nout;          /* records written                         */
    size_t nev;             /* creation calls seen                     */
    int32_t *hcomm;         /* comm handle -> index into cs->comms, -1 */
    size_t nh;
    reqtab reqs;
    uint64_t next_req;
    int time_src;           /* 2 wall, 1 cpu, 0 none (record index)    */
    uint64_t last_t;
    int saw_finalize;
    int thread_level;
    /* counts for the warnings */
    uint64_t nocomm, unsized, nostatus;
    char *err;
    size_t errlen;
} conv;

#define FAIL(cv, rec, ...) dumpi_fail_at((cv)->rd, (rec)->offset, (cv)->err, (cv)->errlen, __VA_ARGS__)

static const dc_comm *comm_of(conv *cv, int64_t h)
{
    if (h < 0 || (size_t)h >= cv->nh || cv->hcomm[h] < 0)
        return NULL;
    return &cv->cs->comms[cv->hcomm[h]];
}

static int bind_handle(conv *cv, int64_t h, int32_t ci)
{
    if (h < 0 || h > 65535)
        return 0;
    if ((size_t)h >= cv->nh) {
        size_t n = (size_t)h + 16;
        int32_t *p = realloc(cv->hcomm, n * sizeof *p);
        if (!p)
            return -1;
        for (size_t i = cv->nh; i < n; i++)
            p[i] = -1;
        cv->hcomm = p;
        cv->nh = n;
    }
    cv->hcomm[h] = ci;
    return 0;
}

static int emit(conv *cv, const mmt_record *r)
{
    unsigned char p[MMT_RECORD_SIZE];
    mmt_encode(r, p);
    if (r->t_end > cv->last_t)
        cv->last_t = r->t_end;
    if (fwrite(p, 1, sizeof p, cv->out) != sizeof p) {
        snprintf(cv->err, cv->errlen, "cannot write the trace: %s", strerror(errno));
        return -1;
    }
    cv->nout++;
    return 0;
}

/* A record of the given type with this call's times. */
static mmt_record base(conv *cv, const dumpi_rec *in, int type)
{
    mmt_record r;
    memset(&r, 0, sizeof r);
    r.type = (uint8_t)type;
    uint64_t t0, t1;
    if (cv->time_src == 2)
        t0 = in->wall0, t1 = in->wall1;
    else if (cv->time_src == 1)
        t0 = in->cpu0, t1 = in->cpu1;
    else
        t0 = t1 = in->index * 1000;
    r.t_start = t0;
    r.t_end = t1 < t0 ? t0 : t1;
    return r;
}

/* Communicator fields of r from a DUMPI handle; NULL if it is unknown. */
static const dc_comm *set_comm(conv *cv, mmt_record *r, int64_t h)
{
    const dc_comm *c = comm_of(cv, h);
    if (c) {
        r->comm = c->id;
    } else {
        r->comm = MMT_COMM_UNKNOWN;
        r->flags |= MMT_F_NOCOMM;
        cv->nocomm++;
    }
    return c;
}

/* DUMPI keeps MPI_PROC_NULL as the MPI library's own value (-1 in MPICH,
 * -2 in Open MPI) and writes MPI_ANY_SOURCE as -1, MPI_ROOT as -2. */
enum { AS_DEST, AS_SOURCE, AS_ACTUAL, AS_ROOT };

static int rank_field(conv *cv, const dumpi_rec *in, const dc_comm *c, int64_t v, int as,
                      const char *what, int32_t *out, int32_t *world)
{
    *world = -1;
    if (v < 0) {
        if (as == AS_SOURCE && v == DUMPI_ANY_SOURCE)
            *out = MMT_ANY_SOURCE;
        else if (as == AS_ROOT && v == DUMPI_ROOT)
            *out = MMT_ROOT;
        else if (v == -1 || v == -2)
            *out = MMT_PROC_NULL;
        else
            return FAIL(cv, in, "%s: %s %lld is not a rank", dumpi_call_name(in->label), what,
                        (long long)v);
        return 0;
    }
    if (c && v >= c->size)
        return FAIL(cv, in, "%s: %s %lld outside 0..%d of the communicator",
                    dumpi_call_name(in->label), what, (long long)v, c->size - 1);
    *out = (int32_t)v;
    *world = c ? dc_world(c, (int32_t)v) : -1;
    return 0;
}

static int tag_field(conv *cv, const dumpi_rec *in, int64_t v, int any_ok, int32_t *out)
{
    if (v == DUMPI_ANY_TAG && any_ok) {
        *out = MMT_ANY_TAG;
        return 0;
    }
    if (v < 0 || v > INT32_MAX)
        return FAIL(cv, in, "%s: tag %lld is not a valid tag", dumpi_call_name(in->label),
                    (long long)v);
    *out = (int32_t)v;
    return 0;
}

static int64_t bytes_of(conv *cv, int64_t count, int64_t dtype)
{
    if (count <= 0)
        return 0;
    int64_t sz = dumpi_type_size(cv->rd, dtype);
    if (sz < 0) {
        cv->unsized++;
        return 0;
    }
    return count * sz;
}

/* Element size of a collective record (its tag field): the DUMPI file's
 * size of datatype dtype, or 0 (unknown) when the file does not give it. */
static int32_t elem_of(conv *cv, int64_t dtype)
{
    int64_t sz = dumpi_type_size(cv->rd, dtype);
    return sz > 0 && sz <= INT32_MAX ? (int32_t)sz : 0;
}

static int64_t sum_ints(const dumpi_rec *in, int k)
{
    int64_t s = 0;
    if (!in->present[k])
        return 0;
    for (int64_t i = 0; i < in->v[k]; i++)
        if (in->ints[in->first[k] + (size_t)i] > 0)
            s += in->ints[in->first[k] + (size_t)i];
    return s;
}

/* The status of a receive or probe: actual source, tag and bytes into r.
 * Without a recorded status, the posted source and tag stand in unless
 * one is a wildcard (then nothing can tell the match: an error). */
static int status_into(conv *cv, const dumpi_rec *in, const dc_comm *c, const dumpi_status *st,
                       int32_t posted_src, int32_t posted_tag, int64_t cap_bytes, mmt_record *r,
                       uint64_t *received)
{
    if (!st) {
        if (posted_src == MMT_ANY_SOURCE || posted_tag == MMT_ANY_TAG)
            return FAIL(cv, in,
                        "%s: a wildcard receive or probe without its status (the trace was "
                        "recorded with statuses off): its matched source and tag are unknown",
                        dumpi_call_name(in->label));
        cv->nostatus++;
        r->src = posted_src;
        r->src_world = posted_src >= 0 && c ? dc_world(c, posted_src) : -1;
        r->rtag = posted_tag;
        *received = (uint64_t)cap_bytes;
        return 0;
    }
    int32_t s = 0, w = -1;
    if (rank_field(cv, in, c, st->source, AS_ACTUAL, "status source", &s, &w))
        return -1;
    r->src = s;
    r->src_world = w;
    if (s == MMT_PROC_NULL) {
        r->rtag = MMT_ANY_TAG;
    } else if (tag_field(cv, in, st->tag, 0, &r->rtag)) {
        return -1;
    }
    if (st->error)
        r->flags |= MMT_F_ERROR;
    *received = st->bytes > 0 ? (uint64_t)st->bytes : 0;
    return 0;
}

static const dumpi_status *status_at(const dumpi_rec *in, int k, int64_t i)
{
    if (!in->has_status || !in->present[k] || i < 0 || i >= in->v[k])
        return NULL;
    return &in->st[i];
}

/* ---- point to point ---- */

static int send_mode(uint16_t label)
{
    switch (label) {
    case DL_SSEND: case DL_ISSEND: case DL_SSEND_INIT: return MMT_MODE_SYNC;
    case DL_RSEND: case DL_IRSEND: case DL_RSEND_INIT: return MMT_MODE_READY;
    case DL_BSEND: case DL_IBSEND: case DL_BSEND_INIT: return MMT_MODE_BUFFERED;
    default: return MMT_MODE_STD;
    }
}

/* SEND or ISEND: count, dtype, dest, tag, comm handle. */
static int do_send(conv *cv, const dumpi_rec *in, int type, int mode, int64_t count,
                   int64_t dtype, int64_t dest, int64_t tag, int64_t comm, unsigned flags,
                   uint64_t reqid)
{
    mmt_record r = base(cv, in, type);
    r.sub = (uint8_t)mode;
    r.flags = (uint16_t)flags;
    const dc_comm *c = set_comm(cv, &r, comm);
    if (rank_field(cv, in, c, dest, AS_DEST, "destination", &r.peer, &r.peer_world) ||
        tag_field(cv, in, tag, 0, &r.tag))
        return -1;
    r.bytes = (uint64_t)bytes_of(cv, count, dtype);
    r.req = reqid;
    return emit(cv, &r);
}

/* RECV (with its status) or IRECV. */
static int do_recv(conv *cv, const dumpi_rec *in, int type, int64_t count, int64_t dtype,
                   int64_t src, int64_t tag, int64_t comm, const dumpi_status *st,
                   unsigned flags, uint64_t reqid)
{
    mmt_record r = base(cv, in, type);
    r.flags = (uint16_t)flags;
    const dc_comm *c = set_comm(cv, &r, comm);
    if (rank_field(cv, in, c, src, AS_SOURCE, "source", &r.peer, &r.peer_world) ||
        tag_field(cv, in, tag, 1, &r.tag))
        return -1;
    r.bytes = (uint64_t)bytes_of(cv, count, dtype);
    r.req = reqid;
    if (type == MMT_RECV && status_into(cv, in, c, st, r.peer, r.tag, (int64_t)r.bytes, &r, &r.aux))
        return -1;
    return emit(cv, &r);
}

/* Start request entry e (a new nonblocking call or MPI_Start). */
static int start_req(conv *cv, const dumpi_rec *in, req *e)
{
    e->id = ++cv->next_req;
    e->active = 1;
    if (e->type == MMT_ISEND)
        return do_send(cv, in, MMT_ISEND, e->mode, e->count, e->dtype, e->peer, e->tag, e->comm_h,
                       0, e->id);
    return do_recv(cv, in, MMT_IRECV, e->count, e->dtype, e->peer, e->tag, e->comm_h, NULL, 0,
                   e->id);
}

static int new_req(conv *cv, const dumpi_rec *in, int type, int persistent, int64_t handle)
{
    if (handle == DUMPI_REQUEST_NULL || handle <= 0 || handle > UINT32_MAX)
        return FAIL(cv, in, "%s: request handle %lld is not a request",
                    dumpi_call_name(in->label), (long long)handle);
    req *e = rt_get(&cv->reqs, (uint32_t)handle);
    if (!e) {
        snprintf(cv->err, cv->errlen, "out of memory");
        return -1;
    }
    uint32_t h = e->handle;
    memset(e, 0, sizeof *e);
    e->handle = h;
    e->type = (uint8_t)type;
    e->persistent = (uint8_t)persistent;
    e->mode = (uint8_t)send_mode(in->label);
    e->count = in->v[0];
    e->dtype = in->v[1];
    e->peer = (int32_t)in->v[2];
    e->tag = (int32_t)in->v[3];
    e->comm_h = (int32_t)in->v[4];
    return persistent ? 0 : start_req(cv, in, e);
}

/* Request `handle` completed in a Wait/Test call: n = its index in the
 * call's array, st its status (NULL: none recorded). */
static int complete(conv *cv, const dumpi_rec *in, int64_t handle, uint32_t n,
                    const dumpi_status *st)
{
    if (handle <= 0 || handle > UINT32_MAX)
        return 0;
    req *e = rt_find(&cv->reqs, (uint32_t)handle);
    if (!e || !e->active)
        return 0; /* MPI_REQUEST_NULL, or a request of a call not mapped */
    mmt_record r = base(cv, in, MMT_COMPLETE);
    r.sub = e->type;
    r.req = e->id;
    r.n = n;
    const dc_comm *c = set_comm(cv, &r, e->comm_h);
    if (e->type == MMT_IRECV) {
        if (st && st->cancelled) {
            r.flags |= MMT_F_CANCELLED;
        } else {
            int32_t ps = e->peer < 0 ? (e->peer == DUMPI_ANY_SOURCE ? MMT_ANY_SOURCE : MMT_PROC_NULL)
                                     : e->peer;
            int32_t pt = e->tag < 0 ? MMT_ANY_TAG : e->tag;
            if (status_into(cv, in, c, st, ps, pt, bytes_of(cv, e->count, e->dtype), &r, &r.bytes))
                return -1;
        }
    } else if (st && st->cancelled) {
        r.flags |= MMT_F_CANCELLED;
    }
    if (emit(cv, &r))
        return -1;
    e->active = 0;
    if (!e->persistent)
        rt_del(&cv->reqs, e);
    return 0;
}

static int64_t arr(const dumpi_rec *in, int k, int64_t i)
{
    return in->present[k] && i >= 0 && i < in->v[k] ? in->ints[in->first[k] + (size_t)i] : -1;
}

/* Wait/Test families. */
static int do_completion(conv *cv, const dumpi_rec *in)
{
    switch (in->label) {
    case DL_WAIT:
        return complete(cv, in, in->v[0], 0, status_at(in, 1, 0));
    case DL_TEST:
        return in->v[1] ? complete(cv, in, in->v[0], 0, status_at(in, 2, 0)) : 0;
    case DL_WAITANY:
    case DL_TESTANY: {
        int64_t idx = in->v[2];
        if (in->label == DL_TESTANY && !in->v[3])
            return 0;
        if (idx < 0 || idx >= in->v[1])
            return 0; /* MPI_UNDEFINED: no active request */
        return complete(cv, in, arr(in, 1, idx), (uint32_t)idx,
                        status_at(in, in->label == DL_WAITANY ? 3 : 4, 0));
    }
    case DL_WAITALL:
    case DL_TESTALL: {
        int sk = in->label == DL_WAITALL ? 2 : 3;
        if (in->label == DL_TESTALL && !in->v[2])
            return 0;
        for (int64_t i = 0; i < in->v[1]; i++)
            if (complete(cv, in, arr(in, 1, i), (uint32_t)i, status_at(in, sk, i)))
                return -1;
        return 0;
    }
    case DL_WAITSOME:
    case DL_TESTSOME:
        for (int64_t j = 0; j < in->v[3]; j++) {
            int64_t idx = arr(in, 3, j);
            if (idx < 0 || idx >= in->v[1])
                return FAIL(cv, in, "%s: index %lld outside the %lld requests",
                            dumpi_call_name(in->label), (long long)idx, (long long)in->v[1]);
            if (complete(cv, in, arr(in, 1, idx), (uint32_t)idx, status_at(in, 4, j)))
                return -1;
        }
        return 0;
    default:
        return 0;
    }
}

static int do_probe(conv *cv, const dumpi_rec *in, int type)
{
    mmt_record r = base(cv, in, type);
    const dc_comm *c = set_comm(cv, &r, in->v[2]);
    if (rank_field(cv, in, c, in->v[0], AS_SOURCE, "source", &r.peer, &r.peer_world) ||
        tag_field(cv, in, in->v[1], 1, &r.tag))
        return -1;
    if (type == MMT_IPROBE) {
        if (!in->v[3])
            return emit(cv, &r);
        r.flags |= MMT_F_FOUND;
    }
    const dumpi_status *st = status_at(in, type == MMT_IPROBE ? 4 : 3, 0);
    if (status_into(cv, in, c, st, r.peer, r.tag, 0, &r, &r.bytes))
        return -1;
    return emit(cv, &r);
}

static int do_cancel_free(conv *cv, const dumpi_rec *in)
{
    int64_t h = in->v[0];
    req *e = h > 0 && h <= UINT32_MAX ? rt_find(&cv->reqs, (uint32_t)h) : NULL;
    if (!e)
        return 0;
    if (e->active) {
        mmt_record r = base(cv, in, in->label == DL_CANCEL ? MMT_CANCEL : MMT_REQFREE);
        r.req = e->id;
        if (emit(cv, &r))
            return -1;
    }
    if (in->label == DL_REQUEST_FREE)
        rt_del(&cv->reqs, e);
    return 0;
}

static int do_start(conv *cv, const dumpi_rec *in, int64_t h)
{
    req *e = h > 0 && h <= UINT32_MAX ? rt_find(&cv->reqs, (uint32_t)h) : NULL;
    if (!e || !e->persistent)
        return FAIL(cv, in, "%s: request %lld is not a persistent request",
                    dumpi_call_name(in->label), (long long)h);
    if (e->active)
        return FAIL(cv, in, "%s: persistent request %lld is already active",
                    dumpi_call_name(in->label), (long long)h);
    return start_req(cv, in, e);
}

/* ---- collectives ---- */

static int do_coll(conv *cv, const dumpi_rec *in)
{
    int op;
    int64_t comm, root = MMT_NONE, sent = 0, recvd = 0;
    const int64_t *v = in->v;
    switch (in->label) {
    case DL_BARRIER: op = MMT_C_BARRIER; comm = v[0]; break;
    case DL_BCAST: op = MMT_C_BCAST; comm = v[3]; root = v[2]; break;
    case DL_REDUCE: op = MMT_C_REDUCE; comm = v[4]; root = v[3]; break;
    case DL_ALLREDUCE: op = MMT_C_ALLREDUCE; comm = v[3]; break;
    case DL_SCAN: op = MMT_C_SCAN; comm = v[3]; break;
    case DL_EXSCAN: op = MMT_C_EXSCAN; comm = v[3]; break;
    case DL_GATHER: op = MMT_C_GATHER; comm = v[4]; root = v[3]; break;
    case DL_GATHERV: op = MMT_C_GATHERV; comm = v[5]; root = v[4]; break;
    case DL_SCATTER: op = MMT_C_SCATTER; comm = v[4]; root = v[3]; break;
    case DL_SCATTERV: op = MMT_C_SCATTERV; comm = v[6]; root = v[5]; break;
    case DL_ALLGATHER: op = MMT_C_ALLGATHER; comm = v[4]; break;
    case DL_ALLGATHERV: op = MMT_C_ALLGATHERV; comm = v[6]; break;
    case DL_ALLTOALL: op = MMT_C_ALLTOALL; comm = v[4]; break;
    case DL_ALLTOALLV: op = MMT_C_ALLTOALLV; comm = v[7]; break;
    case DL_ALLTOALLW: op = MMT_C_ALLTOALLW; comm = v[7]; break;
    case DL_REDUCE_SCATTER: op = MMT_C_REDUCE_SCATTER; comm = v[4]; break;
    default: return 0;
    }
    mmt_record r = base(cv, in, MMT_COLL);
    r.sub = (uint8_t)op;
    const dc_comm *c = set_comm(cv, &r, comm);
    if (root == MMT_NONE) {
        r.peer = MMT_NONE;
        r.peer_world = -1;
    } else if (rank_field(cv, in, c, root, AS_ROOT, "root", &r.peer, &r.peer_world)) {
        return -1;
    }
    /* Size and own rank: from the communicator, else from the record. */
    int64_t n = c ? c->size : 0, me = c ? dc_rank_of(c, cv->rank) : -1;
    switch (in->label) {
    case DL_GATHER: case DL_SCATTER: me = v[0]; break;
    case DL_GATHERV: case DL_SCATTERV: me = v[0]; n = n ? n : v[1]; break;
    case DL_ALLGATHERV: case DL_ALLTOALLV: case DL_ALLTOALLW: case DL_REDUCE_SCATTER:
        n = n ? n : v[0];
        break;
    default: break;
    }
    int at_root = root != MMT_NONE && me == root;
    switch (in->label) {
    case DL_BCAST:
        if (at_root)
            sent = bytes_of(cv, v[0], v[1]);
        else
            recvd = bytes_of(cv, v[0], v[1]);
        break;
    case DL_REDUCE:
        sent = bytes_of(cv, v[0], v[1]);
        recvd = at_root ? sent : 0;
        break;
    case DL_ALLREDUCE: case DL_SCAN: case DL_EXSCAN:
        sent = recvd = bytes_of(cv, v[0], v[1]);
        break;
    case DL_GATHER:
        sent = bytes_of(cv, v[1], v[2]);
        recvd = at_root && in->present[5] ? bytes_of(cv, v[5] * n, v[6]) : 0;
        break;
    case DL_GATHERV:
        sent = bytes_of(cv, v[2], v[3]);
        recvd = at_root ? bytes_of(cv, sum_ints(in, 6), v[8]) : 0;
        break;
    case DL_SCATTER:
        recvd = bytes_of(cv, v[1], v[2]);
        sent = at_root && in->present[5] ? bytes_of(cv, v[5] * n, v[6]) : 0;
        break;
    case DL_SCATTERV:
        recvd = bytes_of(cv, v[3], v[4]);
        sent = at_root ? bytes_of(cv, sum_ints(in, 7), v[2]) : 0;
        break;
    case DL_ALLGATHER:
        sent = bytes_of(cv, v[0], v[1]);
        recvd = bytes_of(cv, v[2] * n, v[3]);
        break;
    case DL_ALLGATHERV:
        sent = bytes_of(cv, v[1], v[2]);
        recvd = bytes_of(cv, sum_ints(in, 3), v[5]);
        break;
    case DL_ALLTOALL:
        sent = bytes_of(cv, v[0] * n, v[1]);
        recvd = bytes_of(cv, v[2] * n, v[3]);
        break;
    case DL_ALLTOALLV:
        sent = bytes_of(cv, sum_ints(in, 1), v[3]);
        recvd = bytes_of(cv, sum_ints(in, 4), v[6]);
        break;
    case DL_ALLTOALLW:
        for (int64_t i = 0; i < v[0]; i++) {
            sent += bytes_of(cv, arr(in, 1, i), arr(in, 3, i));
            recvd += bytes_of(cv, arr(in, 4, i), arr(in, 6, i));
        }
        break;
    case DL_REDUCE_SCATTER:
        sent = bytes_of(cv, sum_ints(in, 1), v[2]);
        recvd = bytes_of(cv, me >= 0 ? arr(in, 1, me) : 0, v[2]);
        break;
    default:
        break;
    }
    r.bytes = (uint64_t)sent;
    r.aux = (uint64_t)recvd;
    r.n = n > 0 && n <= UINT32_MAX ? (uint32_t)n : 0;
    /* The send type's size, or the receive type's where the send type is
     * not significant (scatter(v) outside the root), as the tracer does;
     * alltoallw (a type per peer) and barrier: 0. Commutativity stays 0
     * (unknown): DUMPI names the MPI_Op but not whether a user-defined
     * one commutes. */
    switch (in->label) {
    case DL_BCAST: case DL_REDUCE: case DL_ALLREDUCE: case DL_SCAN: case DL_EXSCAN:
    case DL_ALLGATHER: case DL_ALLTOALL:
        r.tag = elem_of(cv, v[1]);
        break;
    case DL_GATHER: case DL_ALLGATHERV: case DL_REDUCE_SCATTER: r.tag = elem_of(cv, v[2]); break;
    case DL_GATHERV: case DL_ALLTOALLV: r.tag = elem_of(cv, v[3]); break;
    case DL_SCATTER: r.tag = elem_of(cv, at_root && in->present[6] ? v[6] : v[2]); break;
    case DL_SCATTERV: r.tag = elem_of(cv, at_root ? v[2] : v[4]); break;
    default: break;
    }
    return emit(cv, &r);
}

/* ---- communicators ---- */

static int emit_comm(conv *cv, const dumpi_rec *in, int32_t ci)
{
    const dc_comm *c = &cv->cs->comms[ci];
    mmt_record r = base(cv, in, MMT_COMM);
    r.sub = (uint8_t)c->how;
    r.comm = c->id;
    r.aux = c->parent;
    r.peer = dc_rank_of(c, cv->rank);
    r.src = c->size;
    r.tag = c->how == MMT_CM_SPLIT ? c->color : -1;
    if (!c->world)
        r.flags |= MMT_F_IDENTITY;
    if (emit(cv, &r))
        return -1;
    for (int32_t i = 0; c->world && i < c->size; i += MMT_GROUP_PER_RECORD) {
        unsigned k = (unsigned)(c->size - i < MMT_GROUP_PER_RECORD ? c->size - i : MMT_GROUP_PER_RECORD);
        unsigned char p[MMT_RECORD_SIZE];
        mmt_encode_group(c->world + i, k, p);
        if (fwrite(p, 1, sizeof p, cv->out) != sizeof p) {
            snprintf(cv->err, cv->errlen, "cannot write the trace: %s", strerror(errno));
            return -1;
        }
        cv->nout++;
    }
    return 0;
}

static int do_create(conv *cv, const dumpi_rec *in, int64_t child)
{
    if (cv->nev >= cv->cr->nev)
        return FAIL(cv, in, "internal: creation call %zu not seen in pass 1", cv->nev);
    int32_t ci = cv->cr->result[cv->nev++];
    if (bind_handle(cv, child, ci)) {
        snprintf(cv->err, cv->errlen, "out of memory");
        return -1;
    }
    return ci >= 0 ? emit_comm(cv, in, ci) : 0;
}

static int do_free(conv *cv, const dumpi_rec *in)
{
    const dc_comm *c = comm_of(cv, in->v[0]);
    if (c) {
        mmt_record r = base(cv, in, MMT_COMMFREE);
        r.comm = c->id;
        if (emit(cv, &r))
            return -1;
    }
    return bind_handle(cv, in->v[0], -1);
}

/* Handle of the communicator a creation call makes, or -1 if it is no
 * creation call. */
static int64_t created(const dumpi_rec *in)
{
    switch (in->label) {
    case DL_COMM_DUP: return in->v[1];
    case DL_COMM_SPLIT: return in->v[3];
    case DL_COMM_CREATE: return in->v[2];
    case DL_CART_CREATE: return in->v[5];
    case DL_GRAPH_CREATE: return in->v[6];
    case DL_CART_SUB: return in->v[3];
    case DL_INTERCOMM_CREATE: return in->v[5];
    case DL_INTERCOMM_MERGE: return in->v[2];
    default: return -1;
    }
}

/* ---- one record ---- */

static int convert(conv *cv, const dumpi_rec *in)
{
    const int64_t *v = in->v;
    int64_t child = created(in);
    if (child >= 0)
        return do_create(cv, in, child);
    switch (in->label) {
    case DL_SEND: case DL_BSEND: case DL_SSEND: case DL_RSEND:
        return do_send(cv, in, MMT_SEND, send_mode(in->label), v[0], v[1], v[2], v[3], v[4], 0, 0);
    case DL_ISEND: case DL_IBSEND: case DL_ISSEND: case DL_IRSEND:
        return new_req(cv, in, MMT_ISEND, 0, v[5]);
    case DL_SEND_INIT: case DL_BSEND_INIT: case DL_SSEND_INIT: case DL_RSEND_INIT:
        return new_req(cv, in, MMT_ISEND, 1, v[5]);
    case DL_IRECV:
        return new_req(cv, in, MMT_IRECV, 0, v[5]);
    case DL_RECV_INIT:
        return new_req(cv, in, MMT_IRECV, 1, v[5]);
    case DL_RECV:
        return do_recv(cv, in, MMT_RECV, v[0], v[1], v[2], v[3], v[4], status_at(in, 5, 0), 0, 0);
    case DL_SENDRECV:
        return do_send(cv, in, MMT_SEND, MMT_MODE_STD, v[0], v[1], v[2], v[3], v[8],
                       MMT_F_SENDRECV, 0) ||
               do_recv(cv, in, MMT_RECV, v[4], v[5], v[6], v[7], v[8], status_at(in, 9, 0),
                       MMT_F_SENDRECV, 0);
    case DL_SENDRECV_REPLACE:
        return do_send(cv, in, MMT_SEND, MMT_MODE_STD, v[0], v[1], v[2], v[3], v[6],
                       MMT_F_SENDRECV | MMT_F_REPLACE, 0) ||
               do_recv(cv, in, MMT_RECV, v[0], v[1], v[4], v[5], v[6], status_at(in, 7, 0),
                       MMT_F_SENDRECV | MMT_F_REPLACE, 0);
    case DL_START:
        return do_start(cv, in, v[0]);
    case DL_STARTALL:
        for (int64_t i = 0; i < v[0] && i < v[1]; i++)
            if (do_start(cv, in, arr(in, 1, i)))
                return -1;
        return 0;
    case DL_WAIT: case DL_TEST: case DL_WAITANY: case DL_TESTANY: case DL_WAITALL:
    case DL_TESTALL: case DL_WAITSOME: case DL_TESTSOME:
        return do_completion(cv, in);
    case DL_PROBE:
        return do_probe(cv, in, MMT_PROBE);
    case DL_IPROBE:
        return do_probe(cv, in, MMT_IPROBE);
    case DL_CANCEL: case DL_REQUEST_FREE:
        return do_cancel_free(cv, in);
    case DL_COMM_FREE: case DL_COMM_DISCONNECT:
        return do_free(cv, in);
    case DL_INIT_THREAD:
        cv->thread_level = v[2] >= 1 && v[2] <= 4 ? (int)v[2] - 1 : 0;
        return 0;
    case DL_FINALIZE:
        cv->saw_finalize = 1;
        return 0;
    default:
        return do_coll(cv, in);
    }
}

/* ---- driver ---- */

static void warnf(const dumpi_import_opts *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warnf(const dumpi_import_opts *o, const char *fmt, ...)
{
    if (!o->warn)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->warn(o->ctx, msg);
}

/* Pass 1 on one file: its creation calls, and which clock it has. */
static int pass1(dc_set *cs, int32_t rank, const char *path, int *time_src, char *err, size_t errlen)
{
    dumpi_reader *rd;
    int rc = dumpi_open(&rd, path, err, errlen);
    if (rc)
        return -1;
    dumpi_rec in;
    *time_src = -1;
    while ((rc = dumpi_next(rd, &in, err, errlen)) > 0) {
        int ts = (in.mask & DUMPI_M_WALL) ? 2 : (in.mask & DUMPI_M_CPU) ? 1 : 0;
        if (*time_src < 0 || ts < *time_src)
            *time_src = ts;
        dc_event e = { in.label, -1, created(&in), 0, 0, -1, in.offset };
        if (e.child < 0 || (int64_t)e.child != created(&in))
            continue;
        switch (in.label) {
        case DL_COMM_DUP: e.parent = (int32_t)in.v[0]; break;
        case DL_COMM_SPLIT: e.parent = (int32_t)in.v[0]; e.color = in.v[1]; e.key = in.v[2]; break;
        case DL_COMM_CREATE: e.parent = (int32_t)in.v[0]; break;
        case DL_CART_CREATE: {
            e.parent = (int32_t)in.v[0];
            int64_t p = 1;
            for (int64_t i = 0; i < in.v[2] && p <= INT32_MAX; i++)
                p *= in.ints[in.first[2] + (size_t)i];
            e.nprod = p;
            break;
        }
        case DL_GRAPH_CREATE: e.parent = (int32_t)in.v[1]; e.nprod = in.v[2]; break;
        case DL_CART_SUB: e.parent = (int32_t)in.v[1]; break;
        default: e.parent = (int32_t)in.v[0]; break;
        }
        if (dc_add(cs, rank, &e)) {
            snprintf(err, errlen, "%s: out of memory", path);
            rc = -1;
            break;
        }
    }
    if (*time_src < 0)
        *time_src = 0;
    dumpi_close(rd);
    return rc < 0 ? -1 : 0;
}

static int write_header(FILE *f, const dumpi_reader *rd, int32_t rank, int32_t n, const char *mpi,
                        uint64_t t0, int thread_level)
{
    mmt_header h;
    memset(&h, 0, sizeof h);
    h.rank = rank;
    h.size = n;
    h.clock = MMT_CLOCK_MONOTONIC;
    h.t0 = t0;
    h.t0_real = dumpi_start_time(rd) * UINT64_C(1000000000);
    h.thread_level = thread_level;
    snprintf(h.mpi, sizeof h.mpi, "%s", mpi);
    int v[3];
    if (dumpi_version(rd, v))
        snprintf(h.libver, sizeof h.libver, "imported from SST DUMPI %d.%d.%d", v[0], v[1], v[2]);
    else
        snprintf(h.libver, sizeof h.libver, "imported from SST DUMPI (version unknown)");
    snprintf(h.host, sizeof h.host, "%s", dumpi_host(rd));
    unsigned char p[MMT_HEADER_SIZE];
    mmt_encode_header(&h, p);
    return fseeko(f, 0, SEEK_SET) == 0 && fwrite(p, 1, sizeof p, f) == sizeof p ? 0 : -1;
}

/* Pass 2 on one file: write OUT (already open). */
/* The footers' counts summed over the ranks (docs/dumpi.md, "Partial traces"). */
typedef struct footer_sum {
    uint64_t calls[DL_ALL_FUNCTIONS + 1], ignored[DL_ALL_FUNCTIONS + 1];
    int32_t  with, without; /* ranks whose footer read, did not */
} footer_sum;

static void add_footer(footer_sum *fs, const dumpi_reader *rd, const dumpi_import_opts *o)
{
    const uint32_t *calls, *ignored;
    const char *note;
    if (!dumpi_footer(rd, &calls, &ignored, &note)) {
        if (note && fs->without == 0)
            warnf(o, "%s: %s", dumpi_path(rd), note);
        fs->without++;
        return;
    }
    fs->with++;
    for (int i = 0; i <= DL_ALL_FUNCTIONS; i++) {
        fs->calls[i] += calls[i];
        fs->ignored[i] += ignored[i];
    }
}

static int pass2(const dc_set *cs, int32_t rank, const char *path, FILE *out, const char *mpi,
                 int time_src, const dumpi_import_opts *o, footer_sum *fs, char *err,
                 size_t errlen)
{
    conv cv;
    memset(&cv, 0, sizeof cv);
    cv.cs = cs;
    cv.cr = &cs->ranks[rank];
    cv.rank = rank;
    cv.nranks = cs->nranks;
    cv.out = out;
    cv.time_src = time_src;
    cv.err = err;
    cv.errlen = errlen;
    int rc = dumpi_open(&cv.rd, path, err, errlen);
    if (rc)
        return -1;
    unsigned char zero[MMT_HEADER_SIZE] = { 0 };
    rc = -1;
    if (fwrite(zero, 1, sizeof zero, out) != sizeof zero ||
        bind_handle(&cv, DUMPI_COMM_WORLD, 0) || bind_handle(&cv, DUMPI_COMM_SELF, 1 + rank)) {
        snprintf(err, errlen, "cannot write the trace: %s", strerror(errno));
        goto out;
    }
    dumpi_rec in;
    int first = 1, r;
    uint64_t t0 = 0;
    while ((r = dumpi_next(cv.rd, &in, err, errlen)) > 0) {
        if (first) { /* world and self exist from the start */
            mmt_record b = base(&cv, &in, MMT_COMM);
            t0 = b.t_start;
            if (emit_comm(&cv, &in, 0) || emit_comm(&cv, &in, 1 + rank))
                goto out;
            first = 0;
        }
        if (convert(&cv, &in))
            goto out;
    }
    if (r < 0)
        goto out;
    add_footer(fs, cv.rd, o);
    const char *w = dumpi_warning(cv.rd);
    if (w)
        warnf(o, "%s", w);
    else {
        mmt_record end;
        memset(&end, 0, sizeof end);
        end.type = MMT_END;
        end.t_start = end.t_end = cv.last_t;
        end.aux = cv.nout;
        if (emit(&cv, &end))
            goto out;
    }
    if (cv.unsized)
        warnf(o, "%s: %llu message sizes use a datatype whose size the file does not give: "
                 "counted as 0 bytes", path, (unsigned long long)cv.unsized);
    if (cv.nocomm)
        warnf(o, "%s: %llu records are on communicators whose members are unknown (made by "
                 "calls not reconstructed, docs/dumpi.md): they carry the NOCOMM flag",
              path, (unsigned long long)cv.nocomm);
    if (cv.nostatus)
        warnf(o, "%s: %llu receives without a recorded status: posted source and tag used",
              path, (unsigned long long)cv.nostatus);
    if (write_header(out, cv.rd, rank, cs->nranks, mpi, t0, cv.thread_level) || fflush(out)) {
        snprintf(err, errlen, "cannot write the trace: %s", strerror(errno));
        goto out;
    }
    rc = 0;
out:
    dumpi_close(cv.rd);
    free(cv.hcomm);
    free(cv.reqs.slot);
    return rc;
}

/* One warning listing every call the footers say was not recorded. */
static void warn_unrecorded(const footer_sum *fs, const dumpi_run *run, const dumpi_import_opts *o)
{
    char buf[2048];
    size_t n = 0;
    uint64_t total = 0;
    for (int i = 0; i <= DL_ALL_FUNCTIONS; i++) {
        if (!fs->ignored[i])
            continue;
        total += fs->ignored[i];
        const char *name = dumpi_call_name(i);
        int w = snprintf(buf + n, sizeof buf - n, "%s%s %llu of %llu", n ? ", " : "",
                         name ? name : "?", (unsigned long long)fs->ignored[i],
                         (unsigned long long)(fs->calls[i] > fs->ignored[i] ? fs->calls[i]
                                                                           : fs->ignored[i]));
        if (w < 0 || (size_t)w >= sizeof buf - n) {
            snprintf(buf + sizeof buf - 6, 6, ", ...");
            break;
        }
        n += (size_t)w;
    }
    if (total)
        warnf(o, "%s: PARTIAL TRACE: the DUMPI footers list %llu calls made but not recorded "
                 "(dumpi.conf): %s; the streams lack their messages and receives",
              run->meta, (unsigned long long)total, buf);
}

static int write_index(const char *outdir, const dumpi_run *run, const char *mpi,
                       const footer_sum *fs, char *err, size_t errlen)
{
    char *path = dumpi_join(outdir, "index.json");
    if (!path) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    mm_outfile of = { 0 };
    int rc = -1;
    if (mm_outfile_open(&of, path, err, errlen))
        goto out;
    mmj j;
    mmj_init(&j, of.f);
    mmj_obj(&j);
    mmj_kstr(&j, "format", "mpimatch-trace");
    mmj_ku64(&j, "version", MMT_VERSION);
    mmj_ku64(&j, "ranks", (uint64_t)run->nranks);
    mmj_kstr(&j, "mpi", mpi);
    mmj_kstr(&j, "library", "imported from SST DUMPI");
    mmj_key(&j, "pvars");
    mmj_bool(&j, 0);
    mmj_key(&j, "files");
    mmj_arr(&j);
    for (int32_t r = 0; r < run->nranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank-%06d.mmt", r);
        mmj_str(&j, name);
    }
    mmj_arr_end(&j);
    mmj_key(&j, "imported");
    mmj_obj(&j);
    mmj_kstr(&j, "format", "dumpi");
    mmj_kstr(&j, "meta", run->meta);
    uint64_t total = 0;
    for (int i = 0; i <= DL_ALL_FUNCTIONS; i++)
        total += fs->ignored[i];
    mmj_key(&j, "partial");
    mmj_bool(&j, total > 0);
    mmj_ki64(&j, "footers_read", fs->with);
    mmj_ki64(&j, "footers_missing", fs->without);
    mmj_key(&j, "not_recorded");
    mmj_obj(&j);
    for (int i = 0; i <= DL_ALL_FUNCTIONS; i++)
        if (fs->ignored[i]) {
            const char *name = dumpi_call_name(i);
            mmj_ku64(&j, name ? name : "?", fs->ignored[i]);
        }
    mmj_obj_end(&j);
    mmj_obj_end(&j);
    mmj_obj_end(&j);
    if (mmj_finish(&j)) {
        mm_outfile_fail(&of, err, errlen);
        goto out;
    }
    rc = mm_outfile_commit(&of, err, errlen);
out:
    free(path);
    return rc;
}

int dumpi_import(const char *input, const char *outdir, const dumpi_import_opts *o, char *err,
                 size_t errlen)
{
    dumpi_run run;
    if (dumpi_find_run(&run, input, err, errlen)) {
        dumpi_run_free(&run); /* what it found before failing */
        return -1;
    }
    dc_set cs;
    char **done = NULL;
    int32_t ndone = 0;
    int rc = -1;
    int *tsrc = calloc((size_t)run.nranks, sizeof *tsrc);
    footer_sum *fs = calloc(1, sizeof *fs);
    done = calloc((size_t)run.nranks, sizeof *done);
    if (dc_init(&cs, run.nranks) || !tsrc || !done || !fs) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int32_t r = 0; r < run.nranks; r++)
        if (pass1(&cs, r, run.bin[r], &tsrc[r], err, errlen))
            goto out;
    if (dc_resolve(&cs)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (cs.unmatched)
        warnf(o, "%s: %zu communicator creations could not be matched across the ranks' files: "
                 "those communicators are unknown (NOCOMM)", run.meta, cs.unmatched);
    for (int32_t r = 0; r < run.nranks; r++)
        if (tsrc[r] < 2) {
            warnf(o, "%s: no wall-clock times recorded (dumpi.conf timestamps): %s", run.bin[r],
                  tsrc[r] == 1 ? "CPU times used" : "times are record numbers (1 us apart)");
            break;
        }
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create: %s", outdir, strerror(errno));
        goto out;
    }
    for (int32_t r = 0; r < run.nranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank-%06d.mmt", r);
        char *path = dumpi_join(outdir, name);
        if (!path) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        mm_outfile of = { 0 };
        if (mm_outfile_open(&of, path, err, errlen) ||
            pass2(&cs, r, run.bin[r], of.f, o->mpi, tsrc[r], o, fs, err, errlen) ||
            mm_outfile_commit(&of, err, errlen)) {
            mm_outfile_abort(&of);
            free(path);
            goto out;
        }
        done[ndone++] = path;
    }
    warn_unrecorded(fs, &run, o);
    if (write_index(outdir, &run, o->mpi, fs, err, errlen))
        goto out;
    rc = 0;
out:
    for (int32_t i = 0; i < ndone; i++) {
        if (rc)
            unlink(done[i]); /* no partial output: the trace is all or nothing */
        free(done[i]);
    }
    free(done);
    free(tsrc);
    free(fs);
    dc_free(&cs);
    dumpi_run_free(&run);
    return rc;
}
