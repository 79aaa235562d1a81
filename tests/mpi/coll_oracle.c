/*
 * coll_oracle.c - the collective oracle's MPI program (python/mpimatch/oracle.py,
 * docs/collectives.md "Checking against Open MPI"): makes one collective
 * call on MPI_COMM_WORLD and nothing else, so that Open MPI's pml
 * monitoring, written at MPI_Finalize, holds exactly that call's messages
 * ("I" lines: negative tags, the library's internal messages):
 *
 *   mpirun --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 1 \
 *          --mca pml_monitoring_filename DIR/prof -np N mm_coll_oracle OP:COUNT:ELEM:ROOT
 *   e.g. bcast:512:8:0, iallreduce:100:1:0
 *
 * COUNT elements of ELEM bytes (1: MPI_UINT8_T, 8: MPI_DOUBLE; reductions
 * use MPI_SUM) with the meaning of mpimatch-coll's --bytes: each rank's
 * block for (all)gather(v), scatter(v) and reduce_scatter(_block), each
 * (src, dst) block for alltoall(v), the vector otherwise. Nonblocking
 * operations are started and waited for with MPI_Wait.
 *
 * One call per run: Open MPI 4.1.4 does not register the
 * pml_monitoring_flush MPI_T variable that would dump the counts per phase
 * (MPI_T_pvar_get_index answers MPI_T_ERR_INVALID_NAME), so the counts of
 * several calls could not be told apart. Exit status 2 on bad arguments.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct call {
    char op[32];
    long count, elem, root;
} call;

static int rank, size;

static int parse_call(const char *s, call *c)
{
    const char *colon = strchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof c->op)
        return -1;
    memcpy(c->op, s, (size_t)(colon - s));
    c->op[colon - s] = '\0';
    char tail;
    if (sscanf(colon + 1, "%ld:%ld:%ld%c", &c->count, &c->elem, &c->root, &tail) != 3)
        return -1;
    if (c->count < 0 || c->count > (1L << 24) || (c->elem != 1 && c->elem != 8) ||
        c->root < 0 || c->root >= size)
        return -1;
    return 0;
}

/* Runs call c; 0, or -1 for an unknown operation. */
static int run_call(const call *c, char *sb, char *rb, int *counts, int *displs)
{
    int k = (int)c->count, root = (int)c->root;
    MPI_Datatype t = c->elem == 8 ? MPI_DOUBLE : MPI_UINT8_T;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int i = 0; i < size; i++) {
        counts[i] = k;
        displs[i] = i * k;
    }
    const char *op = c->op;
    int nb = op[0] == 'i';
    const char *base = nb ? op + 1 : op;
#define IS(x) (strcmp(base, x) == 0)
    if (IS("barrier"))
        nb ? MPI_Ibarrier(w, &rq) : MPI_Barrier(w);
    else if (IS("bcast"))
        nb ? MPI_Ibcast(sb, k, t, root, w, &rq) : MPI_Bcast(sb, k, t, root, w);
    else if (IS("reduce"))
        nb ? MPI_Ireduce(sb, rb, k, t, MPI_SUM, root, w, &rq)
           : MPI_Reduce(sb, rb, k, t, MPI_SUM, root, w);
    else if (IS("allreduce"))
        nb ? MPI_Iallreduce(sb, rb, k, t, MPI_SUM, w, &rq)
           : MPI_Allreduce(sb, rb, k, t, MPI_SUM, w);
    else if (IS("gather"))
        nb ? MPI_Igather(sb, k, t, rb, k, t, root, w, &rq)
           : MPI_Gather(sb, k, t, rb, k, t, root, w);
    else if (IS("gatherv"))
        nb ? MPI_Igatherv(sb, k, t, rb, counts, displs, t, root, w, &rq)
           : MPI_Gatherv(sb, k, t, rb, counts, displs, t, root, w);
    else if (IS("scatter"))
        nb ? MPI_Iscatter(sb, k, t, rb, k, t, root, w, &rq)
           : MPI_Scatter(sb, k, t, rb, k, t, root, w);
    else if (IS("scatterv"))
        nb ? MPI_Iscatterv(sb, counts, displs, t, rb, k, t, root, w, &rq)
           : MPI_Scatterv(sb, counts, displs, t, rb, k, t, root, w);
    else if (IS("allgather"))
        nb ? MPI_Iallgather(sb, k, t, rb, k, t, w, &rq) : MPI_Allgather(sb, k, t, rb, k, t, w);
    else if (IS("allgatherv"))
        nb ? MPI_Iallgatherv(sb, k, t, rb, counts, displs, t, w, &rq)
           : MPI_Allgatherv(sb, k, t, rb, counts, displs, t, w);
    else if (IS("alltoall"))
        nb ? MPI_Ialltoall(sb, k, t, rb, k, t, w, &rq) : MPI_Alltoall(sb, k, t, rb, k, t, w);
    else if (IS("alltoallv"))
        nb ? MPI_Ialltoallv(sb, counts, displs, t, rb, counts, displs, t, w, &rq)
           : MPI_Alltoallv(sb, counts, displs, t, rb, counts, displs, t, w);
    else if (IS("reduce_scatter"))
        nb ? MPI_Ireduce_scatter(sb, rb, counts, t, MPI_SUM, w, &rq)
           : MPI_Reduce_scatter(sb, rb, counts, t, MPI_SUM, w);
    else if (IS("reduce_scatter_block"))
        nb ? MPI_Ireduce_scatter_block(sb, rb, k, t, MPI_SUM, w, &rq)
           : MPI_Reduce_scatter_block(sb, rb, k, t, MPI_SUM, w);
    else if (IS("scan"))
        nb ? MPI_Iscan(sb, rb, k, t, MPI_SUM, w, &rq) : MPI_Scan(sb, rb, k, t, MPI_SUM, w);
    else if (IS("exscan"))
        nb ? MPI_Iexscan(sb, rb, k, t, MPI_SUM, w, &rq) : MPI_Exscan(sb, rb, k, t, MPI_SUM, w);
    else
        return -1;
#undef IS
    if (nb)
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    call c;
    if (argc != 2 || parse_call(argv[1], &c)) {
        if (rank == 0)
            fprintf(stderr, "usage: mm_coll_oracle OP:COUNT:ELEM:ROOT (ELEM 1 or 8, "
                    "ROOT < %d)\n", size);
        MPI_Finalize();
        return 2;
    }
    long most = c.count * c.elem * size;
    char *sb = calloc((size_t)most + 1, 1), *rb = calloc((size_t)most + 1, 1);
    int *counts = calloc((size_t)size, sizeof *counts), *displs = calloc((size_t)size, sizeof *displs);
    if (!sb || !rb || !counts || !displs) {
        fprintf(stderr, "mm_coll_oracle: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rc = 0;
    if (run_call(&c, sb, rb, counts, displs)) {
        if (rank == 0)
            fprintf(stderr, "mm_coll_oracle: unknown operation '%s'\n", c.op);
        rc = 2;
    }
    free(sb);
    free(rb);
    free(counts);
    free(displs);
    MPI_Finalize();
    return rc;
}
