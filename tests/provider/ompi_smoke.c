/*
 * ompi_smoke.c - an unmodified MPI program for the provider's smoke runs
 * (tests/provider/run_ompi.sh): a ring of messages from 0 B to 16 MiB,
 * synchronous sends small and large, MPI_ANY_SOURCE / MPI_ANY_TAG, matched
 * probe + receive, cancel, three collectives, and, under
 * MPI_THREAD_MULTIPLE, 4 threads each running its own ring. Any np >= 1.
 * Prints "ompi_smoke: ok np=N" on rank 0; names the failing check otherwise.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, np;

#define CHK(c) do {                                                            \
        if (!(c)) {                                                            \
            fprintf(stderr, "ompi_smoke: rank %d line %d: %s\n", rank, __LINE__, #c); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

static void *ring_thread(void *arg)
{
    int id = (int)(long)arg, right = (rank + 1) % np, left = (rank + np - 1) % np;
    for (int i = 0; i < 200; i++) {
        int v = rank * 1000 + i, got = -1;
        MPI_Request r;
        MPI_Irecv(&got, 1, MPI_INT, left, 100 + id, MPI_COMM_WORLD, &r);
        MPI_Send(&v, 1, MPI_INT, right, 100 + id, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHK(got == left * 1000 + i);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int right = (rank + 1) % np, left = (rank + np - 1) % np;
    for (size_t n = 0; n <= (16u << 20); n = n ? n * 4 : 1) {
        char *a = malloc(n + 1), *b = malloc(n + 1);
        CHK(a && b);
        for (size_t i = 0; i < n; i++)
            a[i] = (char)(i * 7 + (size_t)rank);
        MPI_Status st;
        MPI_Sendrecv(a, (int)n, MPI_CHAR, right, 1, b, (int)n, MPI_CHAR, left, 1, MPI_COMM_WORLD, &st);
        int cnt;
        MPI_Get_count(&st, MPI_CHAR, &cnt);
        CHK((size_t)cnt == n && st.MPI_SOURCE == left);
        for (size_t i = 0; i < n; i++)
            CHK(b[i] == (char)(i * 7 + (size_t)left));
        free(a);
        free(b);
    }
    int v = rank, got = -1, flag;
    MPI_Status st;
    MPI_Request r;
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r);
    MPI_Ssend(&v, 1, MPI_INT, right, 7, MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    CHK(got == left && st.MPI_SOURCE == left && st.MPI_TAG == 7);
    static char big[1 << 20];
    MPI_Irecv(big, sizeof big, MPI_CHAR, left, 8, MPI_COMM_WORLD, &r);
    MPI_Ssend(big, sizeof big, MPI_CHAR, right, 8, MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    v = rank * 10;
    MPI_Isend(&v, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &r);
    MPI_Message m;
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHK(cnt == 1 && st.MPI_SOURCE == left && st.MPI_TAG == 9);
    MPI_Mrecv(&got, 1, MPI_INT, &m, &st);
    CHK(got == left * 10);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, &st);
    CHK(!flag);
    MPI_Irecv(&got, 1, MPI_INT, left, 12345, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    CHK(flag);
    double x = rank, s = 0;
    MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHK(s == np * (np - 1) / 2.0);
    int *aa = malloc(sizeof(int) * (size_t)np * 1000), *bb = malloc(sizeof(int) * (size_t)np * 1000);
    for (int i = 0; i < np * 1000; i++)
        aa[i] = rank * 100000 + i;
    MPI_Alltoall(aa, 1000, MPI_INT, bb, 1000, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < np; p++)
        CHK(bb[p * 1000] == p * 100000 + rank * 1000);
    free(aa);
    free(bb);
    static char bc[4 << 20];
    if (rank == 0)
        memset(bc, 3, sizeof bc);
    MPI_Bcast(bc, sizeof bc, MPI_CHAR, 0, MPI_COMM_WORLD);
    CHK(bc[0] == 3 && bc[sizeof bc - 1] == 3);
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t t[4];
        for (long i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, ring_thread, (void *)i);
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ompi_smoke: ok np=%d threads=%d\n", np, provided == MPI_THREAD_MULTIPLE ? 4 : 0);
    MPI_Finalize();
    return 0;
}
