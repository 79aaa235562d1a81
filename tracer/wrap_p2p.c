/*
 * wrap_p2p.c - point-to-point calls: sends, receives, probes, matched
 * probes, cancel and request free (docs/trace-format.md, record types).
 * Each wrapper times the PMPI call and appends one record (two for
 * MPI_Sendrecv[_replace]); failed nonblocking calls are not recorded.
 * Cancel and free also serve persistent requests (wrap_persist.c).
 */
#include <stdlib.h>

#include "tracer.h"

static uint16_t err_flag(int rc) { return rc == MPI_SUCCESS ? 0 : MMT_F_ERROR; }

/* The send record of a send-like call (lock held). */
mmt_record tr_send_record(int type, int mode, int dest, int tag, int count, MPI_Datatype dt,
                          const tr_comm *c, uint64_t t0, uint64_t t1)
{
    mmt_record r = tr_rec(type, t0, t1);
    r.sub = (uint8_t)mode;
    tr_set_comm(&r, c);
    r.peer = tr_rank(dest);
    r.peer_world = tr_world(c, dest);
    r.tag = tag;
    r.bytes = tr_bytes(count, dt);
    return r;
}

/* The receive-side record: source and tag as named, capacity in bytes. */
mmt_record tr_recv_record(int type, int src, int tag, int count, MPI_Datatype dt,
                          const tr_comm *c, uint64_t t0, uint64_t t1)
{
    mmt_record r = tr_rec(type, t0, t1);
    tr_set_comm(&r, c);
    r.peer = tr_rank(src);
    r.peer_world = tr_world(c, src);
    r.tag = tr_tag(tag);
    r.bytes = tr_bytes(count, dt);
    return r;
}

/* A send; `req` non-NULL for the nonblocking forms. */
static void send_done(int mode, int dest, int tag, int count, MPI_Datatype dt, MPI_Comm comm,
                      const MPI_Request *req, uint64_t t0, int rc)
{
    uint64_t t1 = tr_now();
    if (req && rc != MPI_SUCCESS)
        return;
    tr_lock();
    tr_comm *c = tr_comm_find(comm);
    mmt_record r = tr_send_record(req ? MMT_ISEND : MMT_SEND, mode, dest, tag, count, dt, c, t0, t1);
    r.flags |= err_flag(rc);
    if (req) {
        r.req = tr.next_id++;
        tr_req_issued(*req, r.req, c, MMT_ISEND);
    }
    tr_emit(&r);
    tr_p2p_tick();
    tr_unlock();
}

#define SEND_WRAPPER(NAME, INAME, MODE)                                                           \
    TR_API int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,    \
                          MPI_Comm comm)                                                     \
    {                                                                                        \
        if (!tr.on)                                                                          \
            return PMPI_##NAME(buf, count, dt, dest, tag, comm);                             \
        uint64_t t0 = tr_now();                                                              \
        int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm);                               \
        send_done(MODE, dest, tag, count, dt, comm, NULL, t0, rc);                           \
        return rc;                                                                           \
    }                                                                                        \
    TR_API int MPI_##INAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,   \
                           MPI_Comm comm, MPI_Request *req)                                  \
    {                                                                                        \
        if (!tr.on)                                                                          \
            return PMPI_##INAME(buf, count, dt, dest, tag, comm, req);                       \
        uint64_t t0 = tr_now();                                                              \
        int rc = PMPI_##INAME(buf, count, dt, dest, tag, comm, req);                         \
        send_done(MODE, dest, tag, count, dt, comm, req, t0, rc);                            \
        return rc;                                                                           \
    }

SEND_WRAPPER(Send, Isend, MMT_MODE_STD)
SEND_WRAPPER(Ssend, Issend, MMT_MODE_SYNC)
SEND_WRAPPER(Rsend, Irsend, MMT_MODE_READY)
SEND_WRAPPER(Bsend, Ibsend, MMT_MODE_BUFFERED)

TR_API int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                    MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Recv(buf, count, dt, src, tag, comm, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = tr_now();
    int rc = PMPI_Recv(buf, count, dt, src, tag, comm, st);
    uint64_t t1 = tr_now();
    tr_lock();
    tr_comm *c = tr_comm_find(comm);
    mmt_record r = tr_recv_record(MMT_RECV, src, tag, count, dt, c, t0, t1);
    r.flags |= err_flag(rc);
    if (rc == MPI_SUCCESS)
        r.aux = tr_set_status(&r, c, st);
    tr_emit(&r);
    tr_p2p_tick();
    tr_unlock();
    return rc;
}

TR_API int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                     MPI_Request *req)
{
    if (!tr.on)
        return PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    uint64_t t0 = tr_now();
    int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    uint64_t t1 = tr_now();
    if (rc != MPI_SUCCESS)
        return rc;
    tr_lock();
    tr_comm *c = tr_comm_find(comm);
    mmt_record r = tr_recv_record(MMT_IRECV, src, tag, count, dt, c, t0, t1);
    r.req = tr.next_id++;
    tr_req_issued(*req, r.req, c, MMT_IRECV);
    tr_emit(&r);
    tr_p2p_tick();
    tr_unlock();
    return rc;
}

/* The two halves of a Sendrecv, with the same times. */
static void sendrecv_done(int dest, int stag, int scount, MPI_Datatype stype, int src, int rtag,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm, const MPI_Status *st,
                          uint16_t flags, uint64_t t0, int rc)
{
    uint64_t t1 = tr_now();
    tr_lock();
    tr_comm *c = tr_comm_find(comm);
    mmt_record r = tr_send_record(MMT_SEND, MMT_MODE_STD, dest, stag, scount, stype, c, t0, t1);
    r.flags |= flags | err_flag(rc);
    tr_emit(&r);
    r = tr_recv_record(MMT_RECV, src, rtag, rcount, rtype, c, t0, t1);
    r.flags |= flags | err_flag(rc);
    if (rc == MPI_SUCCESS)
        r.aux = tr_set_status(&r, c, st);
    tr_emit(&r);
    tr_p2p_tick();
    tr_unlock();
}

TR_API int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                        void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag,
                        MPI_Comm comm, MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
                             comm, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = tr_now();
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
                           comm, st);
    sendrecv_done(dest, stag, scount, stype, src, rtag, rcount, rtype, comm, st,
                  MMT_F_SENDRECV, t0, rc);
    return rc;
}

TR_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag,
                                int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = tr_now();
    int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, st);
    sendrecv_done(dest, stag, count, dt, src, rtag, count, dt, comm, st,
                  MMT_F_SENDRECV | MMT_F_REPLACE, t0, rc);
    return rc;
}

/* Probes: found says whether a message was found (always for the blocking
 * forms); msg non-NULL for the matched forms. */
static void probe_done(int type, int src, int tag, MPI_Comm comm, int found,
                       const MPI_Message *msg, const MPI_Status *st, uint64_t t0, int rc)
{
    uint64_t t1 = tr_now();
    tr_lock();
    tr_comm *c = tr_comm_find(comm);
    mmt_record r = tr_recv_record(type, src, tag, 0, MPI_DATATYPE_NULL, c, t0, t1);
    r.flags |= err_flag(rc);
    if (type == MMT_IPROBE || type == MMT_IMPROBE)
        r.flags |= found ? MMT_F_FOUND : 0;
    if (rc == MPI_SUCCESS && found) {
        r.bytes = tr_set_status(&r, c, st);
        if (msg) {
            r.req = tr.next_id++;
            if (tr_table_put(&tr.msgs, TR_KEY(*msg), r.req, c, (uint8_t)type) == 0 && c)
                c->refs++;
        }
    }
    if (rc == MPI_SUCCESS || !msg)
        tr_emit(&r);
    tr_p2p_tick();
    tr_unlock();
}

TR_API int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Probe(src, tag, comm, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = tr_now();
    int rc = PMPI_Probe(src, tag, comm, st);
    probe_done(MMT_PROBE, src, tag, comm, 1, NULL, st, t0, rc);
    return rc;
}

TR_API int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Iprobe(src, tag, comm, flag, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = tr_now();
    int rc = PMPI_Iprobe(src, tag, comm, flag, st);
    probe_done(MMT_IPROBE, src, tag, comm, *flag, NULL, st, t0, rc);
    return rc;
}

TR_API int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Mprobe(src, tag, comm, msg, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = tr_now();
    int rc = PMPI_Mprobe(src, tag, comm, msg, st);
    probe_done(MMT_MPROBE, src, tag, comm, 1, msg, st, t0, rc);
    return rc;
}

TR_API int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                       MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Improbe(src, tag, comm, flag, msg, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = tr_now();
    int rc = PMPI_Improbe(src, tag, comm, flag, msg, st);
    probe_done(MMT_IMPROBE, src, tag, comm, *flag, msg, st, t0, rc);
    return rc;
}

/* Mrecv and Imrecv: the message handle was looked up (key) before the
 * call reset it. Not recorded when the message was not seen probed. */
static void mrecv_done(uint64_t key, const MPI_Status *st, const MPI_Request *req, uint64_t t0,
                       int rc)
{
    uint64_t t1 = tr_now();
    tr_lock();
    tr_entry m;
    if (tr_table_take(&tr.msgs, key, &m)) {
        mmt_record r = tr_rec(req ? MMT_IMRECV : MMT_MRECV, t0, t1);
        tr_set_comm(&r, m.comm);
        r.aux = m.id;
        r.flags |= err_flag(rc);
        if (req) {
            r.req = tr.next_id++;
            tr_req_issued(*req, r.req, m.comm, MMT_IMRECV);
        } else if (rc == MPI_SUCCESS) {
            r.bytes = tr_set_status(&r, m.comm, st);
        }
        if (!req || rc == MPI_SUCCESS)
            tr_emit(&r);
        tr_comm_unref(m.comm);
        tr_p2p_tick();
    }
    tr_unlock();
}

TR_API int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *status)
{
    if (!tr.on)
        return PMPI_Mrecv(buf, count, dt, msg, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t key = TR_KEY(*msg), t0 = tr_now();
    int rc = PMPI_Mrecv(buf, count, dt, msg, st);
    mrecv_done(key, st, NULL, t0, rc);
    return rc;
}

TR_API int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
    if (!tr.on)
        return PMPI_Imrecv(buf, count, dt, msg, req);
    uint64_t key = TR_KEY(*msg), t0 = tr_now();
    int rc = PMPI_Imrecv(buf, count, dt, msg, req);
    mrecv_done(key, NULL, req, t0, rc);
    return rc;
}

TR_API int MPI_Cancel(MPI_Request *req)
{
    if (!tr.on)
        return PMPI_Cancel(req);
    uint64_t key = TR_KEY(*req), t0 = tr_now();
    int rc = PMPI_Cancel(req);
    uint64_t t1 = tr_now();
    tr_lock();
    tr_entry *e = tr_table_get(&tr.reqs, key);
    if (e && e->id) { /* not an inactive persistent request */
        mmt_record r = tr_rec(MMT_CANCEL, t0, t1);
        r.req = e->id;
        r.flags |= err_flag(rc);
        tr_emit(&r);
    }
    tr_unlock();
    return rc;
}

TR_API int MPI_Request_free(MPI_Request *req)
{
    if (!tr.on)
        return PMPI_Request_free(req);
    uint64_t key = TR_KEY(*req), t0 = tr_now();
    int rc = PMPI_Request_free(req);
    uint64_t t1 = tr_now();
    tr_lock();
    tr_entry e;
    if (rc == MPI_SUCCESS && tr_table_take(&tr.reqs, key, &e)) {
        if (e.id) { /* pending; an inactive persistent request is not */
            mmt_record r = tr_rec(MMT_REQFREE, t0, t1);
            r.req = e.id;
            tr_emit(&r);
        }
        free(e.tmpl);
        tr_comm_unref(e.comm);
    }
    tr_unlock();
    return rc;
}
