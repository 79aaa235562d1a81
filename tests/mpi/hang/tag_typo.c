/* A deadlock on purpose (docs/queues.md): a tag typo. Rank 0 sends its request with
 * tag 5 and waits for the answer (tag 9); rank 1 waits for the request with tag 6. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, x = 42;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        printf("rank 0 blocking\n");
        fflush(stdout);
        MPI_Recv(&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        printf("rank 1 blocking\n");
        fflush(stdout);
        MPI_Recv(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* meant 5 */
        MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
