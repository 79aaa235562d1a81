/*
 * truncate.c - a message longer than its receive, np 2..8 (pairs r, r^1).
 * With MPI_ERRORS_RETURN on a duplicate of the world: 8 ints into room for
 * 2 and 1000 ints into room for 10 (eager sizes) complete with error class
 * MPI_ERR_TRUNCATE, and the next message on the same pair is received
 * intact. (A rendezvous-size truncation is left out: under ob1/vader with
 * single-copy (CMA) it overruns the receive buffer, docs/conformance.md.)
 */
#include "conformance.h"

static int truncated(MPI_Comm comm, int peer, int sent, int room, int tag)
{
    int *out = xmalloc(sizeof(int) * (size_t)sent), *in = xmalloc(sizeof(int) * (size_t)room);
    for (int i = 0; i < sent; i++)
        out[i] = i;
    MPI_Request r;
    MPI_Status st;
    int cls = -1, err;
    MPI_Irecv(in, room, MPI_INT, peer, tag, comm, &r);
    MPI_Send(out, sent, MPI_INT, peer, tag, comm);
    err = MPI_Wait(&r, &st);
    MPI_Error_class(err != MPI_SUCCESS ? err : st.MPI_ERROR, &cls);
    EXPECT(cls == MPI_ERR_TRUNCATE);
    free(out);
    free(in);
    return cls == MPI_ERR_TRUNCATE;
}

int main(int argc, char **argv)
{
    int rc = conf_start("truncate", &argc, &argv, 1, 64, -1, NULL);
    if (rc)
        return rc;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int peer = rank ^ 1;
    if (peer < size) {
        int a = truncated(comm, peer, 8, 2, 1);
        int b = truncated(comm, peer, 1000, 10, 2);
        int x = rank, y = -1;
        MPI_Status st;
        MPI_Sendrecv(&x, 1, MPI_INT, peer, 3, &y, 1, MPI_INT, peer, 3, comm, &st);
        EXPECT(y == peer);
        record("truncate small=%d large=%d next=%d", a, b, y);
    }
    MPI_Comm_free(&comm);
    return conf_finish();
}
