/*
 * wrap_persist.c - persistent point-to-point requests: MPI_Send_init,
 * Bsend_init, Ssend_init, Rsend_init, Recv_init, MPI_Start, Startall
 * (docs/trace-format.md, "Persistent requests").
 *
 * Creating one posts nothing, so nothing is recorded then: the request's
 * entry in the request table (id 0: inactive) keeps the ISEND or IRECV
 * record that every start emits, built once from the init call's
 * arguments (the datatype may be freed before the request is started).
 * Each start takes a new request id, so a trace of a persistent request
 * reads exactly like the same Isend or Irecv issued once per start: its
 * COMPLETE (wrap_wait.c, tr_req_done), CANCEL and REQFREE (wrap_p2p.c) name
 * that start's id. Completion makes the entry inactive again;
 * MPI_Request_free removes it.
 */
#include <stdlib.h>

#include "tracer.h"

/* A persistent request was created with this record as its template
 * (lock held). Out of memory: the request is simply not traced. */
static void remember(MPI_Request req, const mmt_record *tmpl, tr_comm *c)
{
    mmt_record *t = malloc(sizeof *t);
    if (!t)
        return;
    *t = *tmpl;
    tr_req_issued(req, 0, c, tmpl->type);
    tr_entry *e = tr_table_get(&tr.reqs, TR_KEY(req));
    if (e)
        e->tmpl = t;
    else
        free(t);
}

/* After an init call: type MMT_ISEND (mode) or MMT_IRECV. */
static void init_done(int rc, int type, int mode, int peer, int tag, int count, MPI_Datatype dt,
                      MPI_Comm comm, const MPI_Request *req)
{
    if (rc != MPI_SUCCESS)
        return;
    tr_lock();
    tr_comm *c = tr_comm_find(comm);
    mmt_record r = type == MMT_ISEND
                       ? tr_send_record(type, mode, peer, tag, count, dt, c, 0, 0)
                       : tr_recv_record(type, peer, tag, count, dt, c, 0, 0);
    remember(*req, &r, c);
    tr_unlock();
}

#define SEND_INIT_WRAPPER(NAME, MODE)                                                          \
    TR_API int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,  \
                          MPI_Comm comm, MPI_Request *req)                                 \
    {                                                                                      \
        int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm, req);                        \
        if (tr.on)                                                                         \
            init_done(rc, MMT_ISEND, MODE, dest, tag, count, dt, comm, req);               \
        return rc;                                                                         \
    }

SEND_INIT_WRAPPER(Send_init, MMT_MODE_STD)
SEND_INIT_WRAPPER(Ssend_init, MMT_MODE_SYNC)
SEND_INIT_WRAPPER(Rsend_init, MMT_MODE_READY)
SEND_INIT_WRAPPER(Bsend_init, MMT_MODE_BUFFERED)

TR_API int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                         MPI_Request *req)
{
    int rc = PMPI_Recv_init(buf, count, dt, src, tag, comm, req);
    if (tr.on)
        init_done(rc, MMT_IRECV, 0, src, tag, count, dt, comm, req);
    return rc;
}

/* Record the starts of n requests, all with the call's times. Requests
 * the tracer did not see created (persistent collectives, partitioned
 * ones, untraced) are skipped. */
static void started(int n, const MPI_Request *reqs, uint64_t t0)
{
    uint64_t t1 = tr_now();
    tr_lock();
    for (int i = 0; i < n; i++) {
        tr_entry *e = tr_table_get(&tr.reqs, TR_KEY(reqs[i]));
        if (!e || !e->tmpl)
            continue;
        mmt_record r = *e->tmpl;
        r.t_start = t0;
        r.t_end = t1;
        r.req = e->id = tr.next_id++;
        tr_emit(&r);
        tr_p2p_tick();
    }
    tr_unlock();
}

TR_API int MPI_Start(MPI_Request *req)
{
    if (!tr.on)
        return PMPI_Start(req);
    uint64_t t0 = tr_now();
    int rc = PMPI_Start(req);
    if (rc == MPI_SUCCESS)
        started(1, req, t0);
    return rc;
}

TR_API int MPI_Startall(int n, MPI_Request reqs[])
{
    if (!tr.on)
        return PMPI_Startall(n, reqs);
    uint64_t t0 = tr_now();
    int rc = PMPI_Startall(n, reqs);
    if (rc == MPI_SUCCESS)
        started(n, reqs, t0);
    return rc;
}
