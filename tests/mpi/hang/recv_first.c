/* A deadlock on purpose (docs/queues.md): two ranks each receive before they send.
 * Rank 0 waits for tag 7 from rank 1, rank 1 for tag 7 from rank 0; neither sends. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d blocking\n", rank);
    fflush(stdout);
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
