/*
 * wrap_coll.c - blocking and nonblocking collectives: one COLL or ICOLL
 * record each, with the root, the bytes this rank sends and receives
 * (docs/trace-format.md, "Bytes of collectives"), the communicator size,
 * the datatype's size (tag) and, for reductions, whether the MPI_Op is
 * commutative (src): what the selection rules of the libraries look at.
 * Completions of nonblocking ones come through wrap_wait.c.
 */
#include <limits.h>

#include "tracer.h"

#define NOROOT INT_MIN

/* This rank's rank in comm, and the size of the group counts refer to. */
typedef struct shape {
    int me, n;
} shape;

static shape shape_of(MPI_Comm comm)
{
    shape s = { 0, 0 };
    tr_lock();
    tr_comm *c = tr_comm_find(comm);
    if (c) {
        s.me = c->me;
        s.n = c->inter ? c->rsize : c->size;
    }
    tr_unlock();
    if (!c) {
        PMPI_Comm_rank(comm, &s.me);
        s.n = tr_peer_count(comm, NULL);
    }
    return s;
}

static int is_root(shape s, int root) { return root == MPI_ROOT || root == s.me; }

static uint64_t sum(const int *counts, int n, MPI_Datatype dt)
{
    uint64_t total = 0;
    for (int i = 0; counts && i < n; i++)
        total += tr_bytes(counts[i], dt);
    return total;
}

static uint64_t sumw(const int *counts, const MPI_Datatype *types, int n)
{
    uint64_t total = 0;
    for (int i = 0; counts && types && i < n; i++)
        total += tr_bytes(counts[i], types[i]);
    return total;
}

/* Size of one element of dt (0: unknown, e.g. MPI_DATATYPE_NULL). */
static uint64_t esize(MPI_Datatype dt) { return tr_bytes(1, dt); }

/* The commutativity field of a reduction: MMT_OP_COMMUTATIVE or
 * MMT_OP_NONCOMMUTATIVE; MMT_OP_UNKNOWN if MPI cannot tell. */
static int commutative(MPI_Op op)
{
    int c = 0;
    if (op == MPI_OP_NULL || PMPI_Op_commutative(op, &c) != MPI_SUCCESS)
        return MMT_OP_UNKNOWN;
    return c ? MMT_OP_COMMUTATIVE : MMT_OP_NONCOMMUTATIVE;
}

/* Record a collective (req non-NULL for a nonblocking one). */
static void coll_done(int op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd,
                      uint64_t elem, int commut, const MPI_Request *req, uint64_t t0, int rc)
{
    uint64_t t1 = tr_now();
    if (rc != MPI_SUCCESS && req)
        return;
    tr_lock();
    tr_comm *c = tr_comm_find(comm);
    mmt_record r = tr_rec(req ? MMT_ICOLL : MMT_COLL, t0, t1);
    r.sub = (uint8_t)op;
    tr_set_comm(&r, c);
    r.peer = root == NOROOT ? MMT_NONE : tr_rank(root);
    r.peer_world = root == NOROOT ? -1 : tr_world(c, root);
    r.bytes = sent;
    r.aux = recvd;
    r.n = c ? (uint32_t)c->size : 0;
    r.tag = elem <= INT32_MAX ? (int32_t)elem : 0;
    r.src = commut;
    if (rc != MPI_SUCCESS)
        r.flags |= MMT_F_ERROR;
    if (req) {
        r.req = tr.next_id++;
        tr_req_issued(*req, r.req, c, MMT_ICOLL);
    }
    tr_emit(&r);
    tr_unlock();
}

/* The wrapper body: pass through when off, else time CALL and record.
 * SENT, RECVD, ELEM (datatype size) and COMMUT (commutative(op) or
 * MMT_OP_UNKNOWN) are evaluated after the call (they read only arguments
 * and `s`, the communicator's shape). */
#define COLL_BODY(OP, ROOT, SENT, RECVD, ELEM, COMMUT, REQ, CALL)       \
    do {                                                                \
        if (!tr.on)                                                     \
            return CALL;                                                \
        uint64_t t0 = tr_now();                                         \
        int rc = CALL;                                                  \
        shape s = shape_of(comm);                                       \
        (void)s;                                                        \
        coll_done(OP, comm, ROOT, SENT, RECVD, ELEM, COMMUT, REQ, t0, rc); \
        return rc;                                                      \
    } while (0)

#define IN_PLACE(buf) ((buf) == MPI_IN_PLACE)

/* One macro makes both the blocking and the nonblocking wrapper of a
 * collective: P is its parameter list, A its argument list (macros, so
 * that they expand to comma-separated lists), SENT and RECVD the bytes,
 * ELEM the element size (the send type's; the receive type's where the
 * send type is not significant or MPI_IN_PLACE), COMMUT the reduction's
 * commutativity. */
#define COLL_PAIR(NAME, INAME, OP, P, A, ROOT, SENT, RECVD, ELEM, COMMUT)                   \
    TR_API int MPI_##NAME(P)                                                                 \
    {                                                                                        \
        COLL_BODY(OP, ROOT, SENT, RECVD, ELEM, COMMUT, NULL, PMPI_##NAME(A));                \
    }                                                                                        \
    TR_API int MPI_##INAME(P, MPI_Request *req)                                              \
    {                                                                                        \
        COLL_BODY(OP, ROOT, SENT, RECVD, ELEM, COMMUT, req, PMPI_##INAME(A, req));           \
    }

#define NOTRED MMT_OP_UNKNOWN

#define P_BARRIER MPI_Comm comm
#define A_BARRIER comm
COLL_PAIR(Barrier, Ibarrier, MMT_C_BARRIER, P_BARRIER, A_BARRIER, NOROOT, 0, 0, 0, NOTRED)

#define P_BCAST void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm
#define A_BCAST buf, count, dt, root, comm
COLL_PAIR(Bcast, Ibcast, MMT_C_BCAST, P_BCAST, A_BCAST, root,
          is_root(s, root) ? tr_bytes(count, dt) : 0, is_root(s, root) ? 0 : tr_bytes(count, dt),
          esize(dt), NOTRED)

#define P_REDUCE const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, \
                 MPI_Comm comm
#define A_REDUCE sbuf, rbuf, count, dt, op, root, comm
COLL_PAIR(Reduce, Ireduce, MMT_C_REDUCE, P_REDUCE, A_REDUCE, root, tr_bytes(count, dt),
          is_root(s, root) ? tr_bytes(count, dt) : 0, esize(dt), commutative(op))

#define P_ALLRED const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm
#define A_ALLRED sbuf, rbuf, count, dt, op, comm
COLL_PAIR(Allreduce, Iallreduce, MMT_C_ALLREDUCE, P_ALLRED, A_ALLRED, NOROOT,
          tr_bytes(count, dt), tr_bytes(count, dt), esize(dt), commutative(op))
COLL_PAIR(Scan, Iscan, MMT_C_SCAN, P_ALLRED, A_ALLRED, NOROOT, tr_bytes(count, dt),
          tr_bytes(count, dt), esize(dt), commutative(op))
COLL_PAIR(Exscan, Iexscan, MMT_C_EXSCAN, P_ALLRED, A_ALLRED, NOROOT, tr_bytes(count, dt),
          tr_bytes(count, dt), esize(dt), commutative(op))

#define P_GATHER const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
                 MPI_Datatype rtype, int root, MPI_Comm comm
#define A_GATHER sbuf, scount, stype, rbuf, rcount, rtype, root, comm
COLL_PAIR(Gather, Igather, MMT_C_GATHER, P_GATHER, A_GATHER, root,
          IN_PLACE(sbuf) ? tr_bytes(rcount, rtype) : tr_bytes(scount, stype),
          is_root(s, root) ? (uint64_t)s.n * tr_bytes(rcount, rtype) : 0,
          IN_PLACE(sbuf) ? esize(rtype) : esize(stype), NOTRED)
COLL_PAIR(Scatter, Iscatter, MMT_C_SCATTER, P_GATHER, A_GATHER, root,
          is_root(s, root) ? (uint64_t)s.n * tr_bytes(scount, stype) : 0,
          IN_PLACE(rbuf) ? tr_bytes(scount, stype) : tr_bytes(rcount, rtype),
          is_root(s, root) ? esize(stype) : esize(rtype), NOTRED)

#define P_GATHERV const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, \
                  const int rcounts[], const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm
#define A_GATHERV sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm
COLL_PAIR(Gatherv, Igatherv, MMT_C_GATHERV, P_GATHERV, A_GATHERV, root,
          IN_PLACE(sbuf) ? 0 : tr_bytes(scount, stype),
          is_root(s, root) ? sum(rcounts, s.n, rtype) : 0,
          IN_PLACE(sbuf) ? esize(rtype) : esize(stype), NOTRED)

#define P_SCATTERV const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, \
                   void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm
#define A_SCATTERV sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm
COLL_PAIR(Scatterv, Iscatterv, MMT_C_SCATTERV, P_SCATTERV, A_SCATTERV, root,
          is_root(s, root) ? sum(scounts, s.n, stype) : 0,
          IN_PLACE(rbuf) ? 0 : tr_bytes(rcount, rtype),
          is_root(s, root) ? esize(stype) : esize(rtype), NOTRED)

#define P_ALLGATHER const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
                    MPI_Datatype rtype, MPI_Comm comm
#define A_ALLGATHER sbuf, scount, stype, rbuf, rcount, rtype, comm
COLL_PAIR(Allgather, Iallgather, MMT_C_ALLGATHER, P_ALLGATHER, A_ALLGATHER, NOROOT,
          IN_PLACE(sbuf) ? tr_bytes(rcount, rtype) : tr_bytes(scount, stype),
          (uint64_t)s.n * tr_bytes(rcount, rtype), IN_PLACE(sbuf) ? esize(rtype) : esize(stype),
          NOTRED)
COLL_PAIR(Alltoall, Ialltoall, MMT_C_ALLTOALL, P_ALLGATHER, A_ALLGATHER, NOROOT,
          (uint64_t)s.n * (IN_PLACE(sbuf) ? tr_bytes(rcount, rtype) : tr_bytes(scount, stype)),
          (uint64_t)s.n * tr_bytes(rcount, rtype), IN_PLACE(sbuf) ? esize(rtype) : esize(stype),
          NOTRED)

#define P_ALLGATHERV const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, \
                     const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm
#define A_ALLGATHERV sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm
COLL_PAIR(Allgatherv, Iallgatherv, MMT_C_ALLGATHERV, P_ALLGATHERV, A_ALLGATHERV, NOROOT,
          IN_PLACE(sbuf) ? 0 : tr_bytes(scount, stype), sum(rcounts, s.n, rtype),
          IN_PLACE(sbuf) ? esize(rtype) : esize(stype), NOTRED)

#define P_ALLTOALLV const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, \
                    void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,     \
                    MPI_Comm comm
#define A_ALLTOALLV sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm
COLL_PAIR(Alltoallv, Ialltoallv, MMT_C_ALLTOALLV, P_ALLTOALLV, A_ALLTOALLV, NOROOT,
          IN_PLACE(sbuf) ? sum(rcounts, s.n, rtype) : sum(scounts, s.n, stype),
          sum(rcounts, s.n, rtype), IN_PLACE(sbuf) ? esize(rtype) : esize(stype), NOTRED)

#define P_ALLTOALLW const void *sbuf, const int scounts[], const int sdispls[],                   \
                    const MPI_Datatype stypes[], void *rbuf, const int rcounts[],                 \
                    const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm
#define A_ALLTOALLW sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm
COLL_PAIR(Alltoallw, Ialltoallw, MMT_C_ALLTOALLW, P_ALLTOALLW, A_ALLTOALLW, NOROOT,
          IN_PLACE(sbuf) ? sumw(rcounts, rtypes, s.n) : sumw(scounts, stypes, s.n),
          sumw(rcounts, rtypes, s.n), 0, NOTRED) /* a type per peer: element size unknown */

#define P_REDSCAT const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt, MPI_Op op, \
                  MPI_Comm comm
#define A_REDSCAT sbuf, rbuf, rcounts, dt, op, comm
COLL_PAIR(Reduce_scatter, Ireduce_scatter, MMT_C_REDUCE_SCATTER, P_REDSCAT, A_REDSCAT, NOROOT,
          sum(rcounts, s.n, dt), s.me < s.n ? tr_bytes(rcounts[s.me], dt) : 0, esize(dt),
          commutative(op))

#define P_REDSCATB const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op, \
                   MPI_Comm comm
#define A_REDSCATB sbuf, rbuf, rcount, dt, op, comm
COLL_PAIR(Reduce_scatter_block, Ireduce_scatter_block, MMT_C_REDUCE_SCATTER_BLOCK, P_REDSCATB,
          A_REDSCATB, NOROOT, (uint64_t)s.n * tr_bytes(rcount, dt), tr_bytes(rcount, dt), esize(dt),
          commutative(op))
