/* A deadlock on purpose (docs/queues.md): MPI_ANY_TAG meets a negative tag. Rank 0
 * waits in MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) for a message rank 1 never sends;
 * rank 1 has entered MPI_Barrier, whose message to rank 0 carries the library's
 * negative barrier tag: it sits unexpected at rank 0 (ANY_TAG takes tags >= 0 only),
 * and rank 1 waits for rank 0's half of the barrier. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d blocking\n", rank);
    fflush(stdout);
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
