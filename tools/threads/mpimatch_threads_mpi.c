/*
 * mpimatch_threads_mpi.c - `mpimatch-threads-mpi`: the benchmark of Schonbein
 * et al., Euro-Par 2018 (section 4.1) as an MPI program under
 * MPI_THREAD_MULTIPLE, with real messages between two processes.
 *
 * Rank 0 receives, rank 1 is the proxy for every sending neighbour, as in
 * the paper. For each case (a stencil workload spec, docs/workloads.md) the
 * generator's plan says which receiving thread posts and which sending
 * thread sends each message (tag) of one BSP phase. Per phase: T_r pthreads
 * of rank 0 post their MPI_Irecv at once, each in its own program order
 * (increasing tag); both ranks MPI_Barrier; T_s pthreads of rank 1, started
 * before the barrier and released after it, MPI_Send their messages at
 * once. Rank 0 times the drain, from its barrier's return to the return of
 * MPI_Waitall on every receive, and checks each message (its tag and its
 * payload). One warm-up phase is not counted. The MPI library matches: ob1's
 * own matching, or an mpimatch engine under the provider (docs/threads.md
 * says how to read the depths there).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen.h"
#include "gen_stencil.h"

static const char usage[] =
    "usage: mpirun -np 2 mpimatch-threads-mpi [--case SPEC]... [--phases N]\n"
    "\n"
    "The stencil benchmark of Schonbein et al. (Euro-Par 2018, section 4.1) with\n"
    "MPI_THREAD_MULTIPLE: rank 0's T_r threads pre-post the M_t receives of a phase,\n"
    "then rank 1's T_s threads send the M_t messages, all at once. Prints per case\n"
    "the drain time on rank 0 (its barrier to the last receive completed): median\n"
    "and range over the phases.\n"
    "\n"
    "  --case SPEC   a stencil workload (docs/workloads.md), repeatable; default:\n"
    "                2D 32x32 5-pt and 9-pt, 3D 4x4x4 7-pt and 27-pt\n"
    "  --phases N    measured phases per case, after one warm-up (default 10)\n"
    "\n"
    "Exit status: 0 ok, 1 a wrong or missing message or an MPI/thread failure,\n"
    "2 usage error, bad SPEC, or not 2 processes.\n";

static const char *const default_cases[] = {
    "stencil2d:lx=32,ly=32,points=5pt", "stencil2d:lx=32,ly=32,points=9pt",
    "stencil3d:lx=4,ly=4,lz=4,points=7pt", "stencil3d:lx=4,ly=4,lz=4,points=27pt",
};

typedef struct team {
    const mm_stencil  *p;
    uint32_t         **items;  /* per thread: its tags in program order */
    uint32_t          *nitems;
    int               *buf;    /* receiver: one int per message */
    MPI_Request       *req;
    pthread_barrier_t  go;     /* sender: released after MPI_Barrier */
    int                sender;
    int                failed;
    pthread_mutex_t    lock;
} team;

typedef struct member {
    team    *tm;
    uint32_t id;
} member;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void *member_run(void *arg)
{
    member *m = arg;
    team *tm = m->tm;
    int bad = 0;
    if (tm->sender)
        pthread_barrier_wait(&tm->go);
    for (uint32_t k = 0; k < tm->nitems[m->id]; k++) {
        uint32_t i = tm->items[m->id][k];
        int v = (int)i;
        if (tm->sender)
            bad |= MPI_Send(&v, 1, MPI_INT, 0, (int)i, MPI_COMM_WORLD) != MPI_SUCCESS;
        else
            bad |= MPI_Irecv(&tm->buf[i], 1, MPI_INT, 1, (int)i, MPI_COMM_WORLD,
                             &tm->req[i]) != MPI_SUCCESS;
    }
    if (bad) {
        pthread_mutex_lock(&tm->lock);
        tm->failed = 1;
        pthread_mutex_unlock(&tm->lock);
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Start the team's threads (small stacks: thousands of senders). */
static int start(team *tm, uint32_t n, pthread_t *tid, member *mb)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (uint32_t t = 0; t < n; t++) {
        mb[t] = (member){tm, t};
        if (pthread_create(&tid[t], &attr, member_run, &mb[t]) != 0) {
            pthread_attr_destroy(&attr);
            return (int)t;
        }
    }
    pthread_attr_destroy(&attr);
    return (int)n;
}

/* One case: rank 0 prints its line. Returns 0, or 1 on a failure. */
static int run_case(const char *spec, uint32_t phases, int rank)
{
    mm_gen_spec sp;
    mm_stencil p;
    char err[256];
    if (mm_gen_parse(spec, &sp, err, sizeof err) != 0 ||
        mm_stencil_of_spec(&p, &sp, err, sizeof err) != 0) {
        if (rank == 0)
            fprintf(stderr, "mpimatch-threads-mpi: --case %s: %s\n", spec, err);
        return 2;
    }
    team tm;
    memset(&tm, 0, sizeof tm);
    tm.p = &p;
    tm.sender = rank == 1;
    uint32_t nth = tm.sender ? p.nsend : p.nrecv;
    const uint32_t *who = tm.sender ? p.st : p.rt;
    tm.items = calloc(nth, sizeof *tm.items);
    tm.nitems = calloc(nth, sizeof *tm.nitems);
    uint32_t *store = malloc((size_t)p.nmsg * sizeof *store + 1);
    tm.buf = malloc((size_t)p.nmsg * sizeof *tm.buf + 1);
    tm.req = malloc((size_t)p.nmsg * sizeof *tm.req + 1);
    pthread_t *tid = calloc(nth, sizeof *tid);
    member *mb = calloc(nth, sizeof *mb);
    double *drain = calloc(phases + 1, sizeof *drain);
    int rc = 0;
    if (!tm.items || !tm.nitems || !store || !tm.buf || !tm.req || !tid || !mb || !drain) {
        fprintf(stderr, "mpimatch-threads-mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (uint32_t i = 0; i < p.nmsg; i++)
        tm.nitems[who[i]]++;
    size_t off = 0;
    for (uint32_t t = 0; t < nth; t++) {
        tm.items[t] = store + off;
        off += tm.nitems[t];
        tm.nitems[t] = 0;
    }
    for (uint32_t i = 0; i < p.nmsg; i++)
        tm.items[who[i]][tm.nitems[who[i]]++] = i; /* increasing tag: program order */
    pthread_mutex_init(&tm.lock, NULL);
    unsigned long wrong = 0;
    for (uint32_t ph = 0; ph <= phases; ph++) {
        if (tm.sender)
            pthread_barrier_init(&tm.go, NULL, nth + 1);
        for (uint32_t i = 0; i < p.nmsg; i++)
            tm.buf[i] = -1;
        int started = start(&tm, nth, tid, mb);
        if ((uint32_t)started != nth) {
            fprintf(stderr, "mpimatch-threads-mpi: rank %d: cannot start thread %d of %u\n",
                    rank, started, nth);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (!tm.sender) /* every receive pre-posted before the barrier */
            for (uint32_t t = 0; t < nth; t++)
                pthread_join(tid[t], NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_us();
        if (tm.sender) {
            pthread_barrier_wait(&tm.go);
            for (uint32_t t = 0; t < nth; t++)
                pthread_join(tid[t], NULL);
            pthread_barrier_destroy(&tm.go);
        } else {
            MPI_Status *stv = malloc((size_t)p.nmsg * sizeof *stv + 1);
            if (!stv || MPI_Waitall((int)p.nmsg, tm.req, stv) != MPI_SUCCESS)
                tm.failed = 1;
            drain[ph] = now_us() - t0;
            for (uint32_t i = 0; stv && i < p.nmsg; i++)
                wrong += tm.buf[i] != (int)i || stv[i].MPI_TAG != (int)i ||
                         stv[i].MPI_SOURCE != 1;
            free(stv);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int bad = tm.failed || wrong, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(drain + 1, phases, sizeof *drain, cmp_double); /* drain[0]: the warm-up */
        double med = phases % 2 ? drain[1 + phases / 2]
                                : (drain[phases / 2] + drain[1 + phases / 2]) / 2;
        printf("%-40s M_t %6u  T_r %5u  T_s %5u  drain median %10.1f us  (%.1f-%.1f)%s\n",
               spec, p.nmsg, p.nrecv, p.nsend, med, drain[1], drain[phases],
               any ? "  FAILED" : "");
        if (wrong)
            fprintf(stderr, "mpimatch-threads-mpi: %s: %lu wrong or missing messages\n", spec,
                    wrong);
        fflush(stdout);
    }
    rc = any ? 1 : 0;
    pthread_mutex_destroy(&tm.lock);
    free(tm.items);
    free(tm.nitems);
    free(store);
    free(tm.buf);
    free(tm.req);
    free(tid);
    free(mb);
    free(drain);
    mm_stencil_free(&p);
    return rc;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, size = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *cases[64];
    int ncase = 0;
    long phases = 10;
    int usage_error = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--case") == 0 && i + 1 < argc && ncase < 64) {
            cases[ncase++] = argv[++i];
        } else if (strcmp(argv[i], "--phases") == 0 && i + 1 < argc) {
            char *end;
            phases = strtol(argv[++i], &end, 10);
            usage_error |= *end != '\0' || phases < 1 || phases > 100000;
        } else if (strcmp(argv[i], "--help") == 0) {
            if (rank == 0)
                fputs(usage, stdout);
            MPI_Finalize();
            return 0;
        } else {
            usage_error = 1;
        }
    }
    if (usage_error || size != 2 || provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) {
            if (size != 2)
                fprintf(stderr, "mpimatch-threads-mpi: needs exactly 2 processes, has %d\n",
                        size);
            else if (provided < MPI_THREAD_MULTIPLE)
                fprintf(stderr, "mpimatch-threads-mpi: the MPI library gives thread level %d, "
                                "not MPI_THREAD_MULTIPLE\n", provided);
            else
                fputs(usage, stderr);
        }
        MPI_Finalize();
        return 2;
    }
    if (!ncase)
        for (size_t i = 0; i < sizeof default_cases / sizeof default_cases[0]; i++)
            cases[ncase++] = default_cases[i];
    int status = 0;
    for (int c = 0; c < ncase && status != 2; c++) {
        int rc = run_case(cases[c], (uint32_t)phases, rank);
        if (rc > status)
            status = rc;
    }
    MPI_Finalize();
    return status;
}
