/*
 * gen_coll.c - collective workloads: what one rank of an n-process job sees
 * when the job calls one collective over and over (gen_coll.h,
 * docs/collectives.md). The collective is expanded into its point-to-point
 * messages (coll_algo.h) and timed by the arrival model (coll_sim.h); the
 * stream holds the observed rank's receives and the messages arriving at
 * it, every one annotated as collective traffic (kind, operation, size of
 * the communicator, call number, bytes) on the operation's negative tag.
 */
#include "gen_coll.h"

#include <stdio.h>

#include "coll_sim.h"
#include "gen_emit.h"

static const char *const lib_choices[] = {"ompi", "mpich", NULL};

/* Algorithm choices per family; index 0 is "auto". The names are those of
 * mm_coll_alg_name(). */
static const char *const gather_algs[] = {
    "auto", "linear", "direct", "binomial", "linear_sync", NULL};
static const char *const bcast_algs[] = {
    "auto", "linear", "binomial", "bmtree", "chain", "pipeline", "split_binary", "binary",
    "knomial", "scatter_allgather", "scatter_ring_allgather", NULL};
static const char *const reduce_algs[] = {
    "auto", "linear", "binomial", "chain", "pipeline", "binary", "in_order_binary",
    "rabenseifner", "rabenseifner_mpich", NULL};
static const char *const allreduce_algs[] = {
    "auto", "recursive_doubling", "ring", "linear", "nonoverlapping", "segmented_ring",
    "rabenseifner", "rabenseifner_mpich", NULL};
static const char *const allgather_algs[] = {
    "auto", "linear", "ring", "bruck", "recursive_doubling", "neighbor_exchange",
    "gather_bcast", NULL};
static const char *const barrier_algs[] = {
    "auto", "dissemination", "recursive_doubling", "linear", "tree", NULL};
static const char *const alltoall_algs[] = {
    "auto", "linear", "pairwise", "modified_bruck", "linear_sync", NULL};
static const char *const scatter_algs[] = {"auto", "linear", "binomial", "linear_nb", NULL};
static const char *const reduce_scatter_algs[] = {
    "auto", "recursive_halving", "ring", "pairwise", "nonoverlapping", "butterfly", NULL};
static const char *const reduce_scatter_block_algs[] = {
    "auto", "recursive_halving", "ring", "pairwise", "nonoverlapping", "butterfly",
    "recursive_doubling", NULL};
static const char *const scan_algs[] = {"auto", "linear", "recursive_doubling", NULL};

/* Entries of a NULL-terminated choice list, less one: the param's max. */
#define NCHOICES(list) ((int64_t)(sizeof list / sizeof *list) - 2)

enum { P_ALG, P_N, P_RANK, P_BYTES, P_CALLS, P_SKEW, P_NB, P_LIB, P_LAT, P_COMPUTE, P_ROOT };

#define COLL_PARAMS(algs, bytes_doc, bytes_def, rank_def)                                          \
    {"alg", "algorithm; auto picks as 'lib' would", 0, 0, NCHOICES(algs), algs},                   \
    {"n", "processes in the communicator", 64, 1, 65535, NULL},                                 \
    {"rank", "the rank whose matching engine the stream feeds", rank_def, 0, 65534, NULL},      \
    {"bytes", bytes_doc, bytes_def, 0, (int64_t)1 << 40, NULL},                                 \
    {"calls", "repetitions of the collective", 200, 1, 1000000, NULL},                          \
    {"skew", "largest random delay of each rank before each call, ns", 2000, 0, 1000000000000, NULL}, \
    {"nonblocking", "1: the nonblocking form (a new negative tag per call)", 0, 0, 1, NULL},   \
    {"lib", "selection rules of alg=auto: Open MPI tuned/libnbc or MPICH", 0, 0, 1, lib_choices}, \
    {"latency", "per-message latency, ns", 1000, 0, 1000000000, NULL},                          \
    {"compute", "mean computation between calls, ns", 5000, 0, 1000000000000, NULL}

#define ROOT_PARAM {"root", "root of the collective", 0, 0, 65534, NULL}

static const mm_gen_param gather_params[] = {
    COLL_PARAMS(gather_algs, "bytes each rank contributes", 64, 0), ROOT_PARAM};
static const mm_gen_param bcast_params[] = {
    COLL_PARAMS(bcast_algs, "bytes broadcast", 64, 1), ROOT_PARAM};
static const mm_gen_param reduce_params[] = {
    COLL_PARAMS(reduce_algs, "bytes of the reduced vector", 64, 0), ROOT_PARAM};
static const mm_gen_param allreduce_params[] = {
    COLL_PARAMS(allreduce_algs, "bytes of the reduced vector", 64, 0)};
static const mm_gen_param allgather_params[] = {
    COLL_PARAMS(allgather_algs, "bytes each rank contributes", 64, 0)};
static const mm_gen_param barrier_params[] = {
    COLL_PARAMS(barrier_algs, "unused: barrier messages are empty", 0, 0)};
static const mm_gen_param alltoall_params[] = {
    COLL_PARAMS(alltoall_algs, "bytes each rank sends to each other rank", 64, 0)};
static const mm_gen_param scatter_params[] = {
    COLL_PARAMS(scatter_algs, "bytes each rank receives", 64, 1), ROOT_PARAM};
static const mm_gen_param reduce_scatter_params[] = {
    COLL_PARAMS(reduce_scatter_algs, "bytes of each rank's block of the reduced vector", 64, 0)};
static const mm_gen_param reduce_scatter_block_params[] = {
    COLL_PARAMS(reduce_scatter_block_algs, "bytes of each rank's block of the reduced vector",
                64, 0)};
static const mm_gen_param scan_params[] = {
    COLL_PARAMS(scan_algs, "bytes of the reduced vector", 64, 1)};

static int run_family(const char *name, int fam, const char *const *algs, int rooted,
                      mm_stream *s, const int64_t *v, uint64_t seed, char *err, size_t errlen)
{
    int32_t n = (int32_t)v[P_N];
    int32_t root = rooted ? (int32_t)v[P_ROOT] : 0;
    if (v[P_RANK] >= n || root >= n) {
        snprintf(err, errlen, "%s: %s %lld outside 0..%ld (n=%ld)", name,
                 v[P_RANK] >= n ? "rank" : "root",
                 (long long)(v[P_RANK] >= n ? v[P_RANK] : root), (long)n - 1, (long)n);
        return MMS_EFORMAT;
    }
    int op = v[P_NB] ? mm_coll_nonblocking_of(fam) : fam;
    mm_csim_net net = {(uint64_t)v[P_LAT], 100, (uint64_t)v[P_SKEW], 0};
    mm_csim sim;
    mm_csim_plan plan;
    char why[256];
    int rc = mm_csim_init(&sim, n, (int32_t)v[P_RANK], &net, seed, why, sizeof why);
    if (rc != MMS_OK) {
        snprintf(err, errlen, "%s: %s", name, why);
        return rc;
    }
    sim.plan_max = mm_gen_plan_max((uint64_t)v[P_CALLS]);
    rc = mm_csim_plan_make(&sim, &plan, op, mm_coll_alg_from_name(algs[v[P_ALG]]),
                           (int)v[P_LIB], root, (uint64_t)v[P_BYTES], why, sizeof why);
    if (rc != MMS_OK) {
        if (plan.over)
            mm_gen_plan_over(name, why, err, errlen);
        else
            snprintf(err, errlen, "%s: %s", name, why);
        mm_csim_free(&sim);
        return rc;
    }
    uint64_t calls = (uint64_t)v[P_CALLS];
    mm_csim_cost cost = mm_csim_plan_cost(&sim, &plan);
    rc = mm_gen_check_size(name, mm_gen_muladd(calls, cost.events, 0),
                           mm_gen_muladd(calls, cost.transfers, 0), 0, "calls or n", err, errlen);
    for (uint64_t c = 0; rc == MMS_OK && c < calls; c++) {
        mm_csim_compute(&sim, (uint64_t)v[P_COMPUTE]);
        rc = mm_csim_collective(&sim, &plan, err, errlen);
    }
    if (rc == MMS_OK)
        rc = mm_csim_write(&sim, s, err, errlen);
    mm_csim_plan_free(&plan);
    mm_csim_free(&sim);
    return rc;
}

#define GEN_COLL(NAME, FAM, ALGS, ROOTED, PARAMS, SUMMARY, ORIGIN)                          \
    static int run_##NAME(mm_stream *s, const int64_t *v, uint64_t seed, char *err,        \
                          size_t errlen)                                                   \
    {                                                                                      \
        return run_family(#NAME, FAM, ALGS, ROOTED, s, v, seed, err, errlen);              \
    }                                                                                      \
    const mm_gen mm_gen_##NAME = {#NAME, SUMMARY, ORIGIN, 0, PARAMS,                       \
                                  sizeof PARAMS / sizeof *PARAMS, run_##NAME}

GEN_COLL(gather, MM_COLL_GATHER, gather_algs, 1, gather_params,
         "repeated MPI_Gather seen at one rank: with rank = root the n-1 message hot spot",
         "Ghazimirsaeed et al., ParCo 2019, sec. 5.2 (Fig. 5a) and 5.3.1 (FDS rank 0)");
GEN_COLL(bcast, MM_COLL_BCAST, bcast_algs, 1, bcast_params,
         "repeated MPI_Bcast seen at one rank",
         "Ghazimirsaeed et al., ParCo 2019, sec. 5.4 (Nbody, MiniAMR use MPI_Bcast)");
GEN_COLL(reduce, MM_COLL_REDUCE, reduce_algs, 1, reduce_params,
         "repeated MPI_Reduce seen at one rank",
         "Ghazimirsaeed et al., ParCo 2019, sec. 5.4 (Radix, Nbody, MiniAMR use MPI_Reduce)");
GEN_COLL(allreduce, MM_COLL_ALLREDUCE, allreduce_algs, 0, allreduce_params,
         "repeated MPI_Allreduce seen at one rank",
         "Ghazimirsaeed et al., ParCo 2019, sec. 5.2 (Fig. 5b)");
GEN_COLL(allgather, MM_COLL_ALLGATHER, allgather_algs, 0, allgather_params,
         "repeated MPI_Allgather / MPI_Iallgather (nonblocking=1) seen at one rank",
         "Ghazimirsaeed et al., ParCo 2019, sec. 5.2 (Fig. 5c, MPI_Iallgather)");
GEN_COLL(barrier, MM_COLL_BARRIER, barrier_algs, 0, barrier_params,
         "repeated MPI_Barrier seen at one rank (empty messages)",
         "collective microbenchmark (docs/collectives.md)");
GEN_COLL(alltoall, MM_COLL_ALLTOALL, alltoall_algs, 0, alltoall_params,
         "repeated MPI_Alltoall seen at one rank",
         "collective microbenchmark (docs/collectives.md)");
GEN_COLL(scatter, MM_COLL_SCATTER, scatter_algs, 1, scatter_params,
         "repeated MPI_Scatter / MPI_Iscatter (nonblocking=1) seen at one rank",
         "collective microbenchmark (docs/collectives.md)");
GEN_COLL(reduce_scatter, MM_COLL_REDUCE_SCATTER, reduce_scatter_algs, 0, reduce_scatter_params,
         "repeated MPI_Reduce_scatter (equal counts) seen at one rank",
         "Ghazimirsaeed et al., ParCo 2019, sec. 5.4 (Radix uses MPI_Reduce_scatter)");
GEN_COLL(reduce_scatter_block, MM_COLL_REDUCE_SCATTER_BLOCK, reduce_scatter_block_algs, 0,
         reduce_scatter_block_params, "repeated MPI_Reduce_scatter_block seen at one rank",
         "collective microbenchmark (docs/collectives.md)");
GEN_COLL(scan, MM_COLL_SCAN, scan_algs, 0, scan_params,
         "repeated MPI_Scan seen at one rank",
         "collective microbenchmark (docs/collectives.md; LAMMPS calls MPI_Scan)");
GEN_COLL(exscan, MM_COLL_EXSCAN, scan_algs, 0, scan_params,
         "repeated MPI_Exscan seen at one rank",
         "collective microbenchmark (docs/collectives.md)");
