/*
 * wrap_comm.c - start and stop (MPI_Init, MPI_Init_thread, MPI_Finalize)
 * and the calls that create and free communicators, so that every
 * communicator gets an id that all its members agree on and a group of
 * world ranks (docs/trace-format.md, "Communicator ids").
 */
#include "tracer.h"

TR_API int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        tr_start(provided);
    }
    return rc;
}

TR_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        tr_start(*provided);
    return rc;
}

TR_API int MPI_Finalize(void)
{
    tr_stop();
    return PMPI_Finalize();
}

/* Wrapper body for a call that makes *OUT from PARENT. */
#define CREATE_BODY(HOW, PARENT, OUT, COLOR, CALL)                              \
    do {                                                                        \
        if (!tr.on)                                                             \
            return CALL;                                                        \
        uint64_t t0 = tr_now();                                                 \
        int rc = CALL;                                                          \
        if (rc == MPI_SUCCESS)                                                  \
            tr_comm_created(PARENT, *(OUT), HOW, COLOR, t0);                    \
        return rc;                                                              \
    } while (0)

TR_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_DUP, comm, newcomm, MMT_NONE, PMPI_Comm_dup(comm, newcomm));
}

TR_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_DUP_WITH_INFO, comm, newcomm, MMT_NONE,
                PMPI_Comm_dup_with_info(comm, info, newcomm));
}

TR_API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_SPLIT, comm, newcomm, color == MPI_UNDEFINED ? MMT_NONE : color,
                PMPI_Comm_split(comm, color, key, newcomm));
}

TR_API int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_SPLIT_TYPE, comm, newcomm, MMT_NONE,
                PMPI_Comm_split_type(comm, type, key, info, newcomm));
}

TR_API int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_CREATE, comm, newcomm, MMT_NONE, PMPI_Comm_create(comm, group, newcomm));
}

TR_API int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_CREATE_GROUP, comm, newcomm, MMT_NONE,
                PMPI_Comm_create_group(comm, group, tag, newcomm));
}

TR_API int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                           int reorder, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_CART_CREATE, comm, newcomm, MMT_NONE,
                PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm));
}

TR_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_CART_SUB, comm, newcomm, MMT_NONE, PMPI_Cart_sub(comm, remain_dims, newcomm));
}

TR_API int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                            int reorder, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_GRAPH_CREATE, comm, newcomm, MMT_NONE,
                PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm));
}

TR_API int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                                 const int destinations[], const int weights[], MPI_Info info,
                                 int reorder, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_DIST_GRAPH_CREATE, comm, newcomm, MMT_NONE,
                PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                       reorder, newcomm));
}

TR_API int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                          const int sourceweights[], int outdegree,
                                          const int destinations[], const int destweights[],
                                          MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_DIST_GRAPH_CREATE_ADJACENT, comm, newcomm, MMT_NONE,
                PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                                destinations, destweights, info, reorder, newcomm));
}

TR_API int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader,
                                int tag, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_INTERCOMM_CREATE, local, newcomm, MMT_NONE,
                PMPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, newcomm));
}

TR_API int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *newcomm)
{
    CREATE_BODY(MMT_CM_INTERCOMM_MERGE, inter, newcomm, MMT_NONE,
                PMPI_Intercomm_merge(inter, high, newcomm));
}

/* Comm_free and Comm_disconnect: record and forget the communicator. */
static void freed(uint64_t key, uint64_t t0, int rc)
{
    uint64_t t1 = tr_now();
    if (rc != MPI_SUCCESS)
        return;
    tr_lock();
    tr_entry e;
    if (tr_table_take(&tr.comms, key, &e)) {
        mmt_record r = tr_rec(MMT_COMMFREE, t0, t1);
        tr_set_comm(&r, e.comm);
        tr_emit(&r);
        tr_comm_unref(e.comm);
    }
    tr_unlock();
}

TR_API int MPI_Comm_free(MPI_Comm *comm)
{
    if (!tr.on)
        return PMPI_Comm_free(comm);
    uint64_t key = TR_KEY(*comm), t0 = tr_now();
    int rc = PMPI_Comm_free(comm);
    freed(key, t0, rc);
    return rc;
}

TR_API int MPI_Comm_disconnect(MPI_Comm *comm)
{
    if (!tr.on)
        return PMPI_Comm_disconnect(comm);
    uint64_t key = TR_KEY(*comm), t0 = tr_now();
    int rc = PMPI_Comm_disconnect(comm);
    freed(key, t0, rc);
    return rc;
}
