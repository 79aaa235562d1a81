/*
 * mpi_check.h - what the project's MPI test programs (ring_probe.c,
 * persistent.c) share: EXPECT, which counts and names a failed check, and
 * the start and end of a 4-process run that prints "NAME: ok" on rank 0
 * when every rank's checks passed.
 */
#ifndef MM_MPI_CHECK_H
#define MM_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static const char *check_name;
static int rank, size, failures;

#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s: rank %d: line %d: %s\n", check_name, rank, __LINE__, #cond); \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

/* MPI_Init; 0, or the exit status when the run does not have 4 processes. */
static int check_start(const char *name, int *argc, char ***argv)
{
    check_name = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size == 4)
        return 0;
    if (rank == 0)
        fprintf(stderr, "%s: run with 4 processes, not %d\n", name, size);
    MPI_Finalize();
    return 2;
}

/* Each phase, then a barrier on the world. */
static void check_phases(void (*const phase[])(void), size_t n)
{
    for (size_t i = 0; i < n; i++) {
        phase[i]();
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* Sum the failures over the ranks (an allreduce), MPI_Finalize; the exit status. */
static int check_finish(void)
{
    int bad = 0;
    MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && bad == 0)
        printf("%s: ok\n", check_name);
    MPI_Finalize();
    return bad ? 1 : 0;
}

#endif /* MM_MPI_CHECK_H */
