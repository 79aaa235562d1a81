/*
 * coll_auto_ompi.c - which algorithm Open MPI 4.1.4 runs for a blocking
 * collective: coll/tuned's fixed decisions (ompi_coll_tuned_*_intra_dec_fixed
 * in ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, tag v4.1.4), written
 * here as data: per operation (and, for reductions, per commutativity) a
 * list of cells {comm size bound, size bound, Open MPI algorithm number},
 * transcribed from that file; coll/basic where tuned 4.1.4 leaves the
 * operation to it (coll_tuned_module.c sets gatherv, scatterv, scan, exscan
 * to NULL); libnbc for the nonblocking operations (coll_auto_nbc.c). None
 * of Open MPI's code is copied. docs/collectives.md explains how to read
 * the tables.
 */
#include "coll_rules.h"

/* One cell of a fixed decision: the first cell with n < n_lt and
 * total < s_lt (0: no bound) gives Open MPI's algorithm number alg. The
 * cells of a table are in the file's order: communicator-size bands
 * ascending, sizes ascending within a band, so the first match is the
 * file's branch. */
typedef struct ompi_cell {
    uint32_t    n_lt, s_lt;
    uint8_t     alg;
    const char *rule;
} ompi_cell;

/* Cell writers: C(n, s, a): n < n and total < s; CN: n < n, any larger
 * total; CL, CA: the last band (larger n); N2, N2ANY: the file's
 * "communicator_size == 2" band (written n < 3: a communicator of one rank
 * sends nothing). PFX names the table in the rule text. */
#define C(n, s, a)  {n, s, a, PFX "n < " #n ", total < " #s " B: algorithm " #a}
#define CN(n, a)    {n, 0, a, PFX "n < " #n ", larger total: algorithm " #a}
#define CL(s, a)    {0, s, a, PFX "larger n, total < " #s " B: algorithm " #a}
#define CA(a)       {0, 0, a, PFX "larger n, larger total: algorithm " #a}
#define N2(s, a)    {3, s, a, PFX "n == 2, total < " #s " B: algorithm " #a}
#define N2ANY(a)    {3, 0, a, PFX "n == 2, larger total: algorithm " #a}

/* The tables, from ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at
 * v4.1.4, one per ompi_coll_tuned_<op>_intra_dec_fixed (and branch of
 * ompi_op_is_commute). "total" is that function's total_dsize: the
 * datatype size times scount (alltoall: one pair's block; allgather,
 * gather, scatter: one rank's block), count (allreduce, bcast, reduce),
 * rcount (reduce_scatter_block: one rank's block), the sum of rcounts
 * (reduce_scatter: the whole vector); allgatherv compares
 * per_rank_dsize, the sum over ranks divided by n. */
#define PFX "tuned 4.1.4 allreduce (commutative): "
static const ompi_cell t_allreduce[] = {
    C(4, 8, 4), C(4, 4096, 3), C(4, 8192, 4), C(4, 16384, 3), C(4, 65536, 4), C(4, 262144, 5),
    CN(4, 6),
    C(8, 16, 4), C(8, 8192, 3), CN(8, 6),
    C(16, 8192, 3), CN(16, 6),
    C(32, 64, 5), C(32, 4096, 3), CN(32, 6),
    C(64, 128, 5), CN(64, 6),
    C(128, 262144, 3), CN(128, 6),
    C(256, 131072, 2), C(256, 262144, 3), CN(256, 6),
    C(512, 4096, 2), CN(512, 6),
    C(2048, 2048, 2), C(2048, 16384, 3), CN(2048, 6),
    C(4096, 2048, 2), C(4096, 4096, 5), C(4096, 16384, 3), CN(4096, 6),
    CL(2048, 2), CL(16384, 5), CL(32768, 3), CA(6),
};
#undef PFX
#define PFX "tuned 4.1.4 allreduce (non-commutative): "
static const ompi_cell t_allreduce_nc[] = {
    C(4, 131072, 3), CN(4, 1),
    CN(8, 3),
    C(16, 1048576, 3), CN(16, 2),
    CN(128, 3),
    C(256, 131072, 2), C(256, 524288, 3), CN(256, 2),
    C(512, 4096, 2), C(512, 524288, 3), CN(512, 2),
    CL(2048, 2), CA(3),
};
#undef PFX
#define PFX "tuned 4.1.4 alltoall: "
static const ompi_cell t_alltoall[] = {
    N2(2, 2), N2(4, 5), N2(16, 2), N2(64, 5), N2(256, 2), N2(4096, 5), N2(32768, 2), N2(262144, 4),
    N2(1048576, 5), N2ANY(2),
    C(8, 8192, 4), C(8, 16384, 1), C(8, 65536, 4), C(8, 524288, 1), C(8, 1048576, 2), CN(8, 1),
    C(16, 262144, 4), CN(16, 1),
    C(32, 4, 4), C(32, 512, 3), C(32, 8192, 4), C(32, 32768, 1), C(32, 262144, 4),
    C(32, 524288, 1), CN(32, 4),
    C(64, 512, 3), C(64, 524288, 1), CN(64, 4),
    C(128, 1024, 3), C(128, 2048, 1), C(128, 4096, 4), C(128, 262144, 1), CN(128, 2),
    C(256, 1024, 3), C(256, 2048, 4), C(256, 262144, 1), CN(256, 2),
    C(512, 1024, 3), C(512, 8192, 4), C(512, 32768, 1), CN(512, 2),
    C(1024, 512, 3), C(1024, 8192, 4), C(1024, 16384, 1), C(1024, 131072, 4), C(1024, 262144, 1),
    CN(1024, 2),
    C(2048, 512, 3), C(2048, 1024, 4), C(2048, 2048, 1), C(2048, 16384, 4), C(2048, 262144, 1),
    CN(2048, 4),
    C(4096, 1024, 3), C(4096, 4096, 4), C(4096, 8192, 1), C(4096, 131072, 4), CN(4096, 1),
    CL(2048, 3), CL(8192, 4), CL(16384, 1), CL(32768, 4), CL(65536, 1), CA(4),
};
#undef PFX
#define PFX "tuned 4.1.4 alltoallv: "
static const ompi_cell t_alltoallv[] = {
    CN(4, 2),
    CN(64, 1),
    CN(128, 2),
    CN(256, 1),
    CN(1024, 2),
    CA(1),
};
#undef PFX
#define PFX "tuned 4.1.4 barrier: "
static const ompi_cell t_barrier[] = {
    CN(4, 3),
    CN(8, 1),
    CN(64, 3),
    CN(256, 4),
    CN(512, 6),
    CN(1024, 4),
    CN(4096, 6),
    CA(4),
};
#undef PFX
#define PFX "tuned 4.1.4 bcast: "
static const ompi_cell t_bcast[] = {
    C(4, 32, 3), C(4, 256, 5), C(4, 512, 3), C(4, 1024, 7), C(4, 32768, 1), C(4, 131072, 5),
    C(4, 262144, 2), C(4, 524288, 1), C(4, 1048576, 6), CN(4, 5),
    C(8, 64, 5), C(8, 128, 6), C(8, 2048, 5), C(8, 8192, 6), C(8, 1048576, 1), CN(8, 2),
    C(16, 8, 7), C(16, 64, 5), C(16, 4096, 7), C(16, 16384, 5), C(16, 32768, 6), CN(16, 1),
    C(32, 4096, 7), C(32, 1048576, 6), CN(32, 8),
    C(64, 2048, 6), CN(64, 7),
    CN(128, 7),
    C(256, 2, 6), C(256, 16384, 5), C(256, 32768, 1), C(256, 65536, 5), CN(256, 7),
    C(1024, 16384, 7), C(1024, 32768, 4), CN(1024, 7),
    C(2048, 524288, 7), CN(2048, 8),
    C(4096, 262144, 7), CN(4096, 8),
    CL(8192, 7), CL(16384, 5), CL(262144, 7), CA(8),
};
#undef PFX
#define PFX "tuned 4.1.4 reduce (commutative): "
static const ompi_cell t_reduce[] = {
    C(4, 8, 7), C(4, 16, 4), C(4, 32, 3), C(4, 262144, 1), C(4, 524288, 3), C(4, 1048576, 2),
    CN(4, 3),
    C(8, 4096, 4), C(8, 65536, 2), C(8, 262144, 5), C(8, 524288, 1), C(8, 1048576, 5), CN(8, 1),
    C(16, 8192, 4), CN(16, 5),
    C(32, 4096, 4), CN(32, 5),
    CN(256, 5),
    C(512, 8192, 5), C(512, 16384, 6), CN(512, 5),
    CN(2048, 5),
    C(4096, 512, 5), C(4096, 1024, 6), C(4096, 8192, 5), C(4096, 16384, 6), CN(4096, 5),
    CL(16, 5), CL(32, 6), CL(1024, 5), CL(2048, 6), CL(8192, 5), CL(16384, 6), CA(5),
};
#undef PFX
#define PFX "tuned 4.1.4 reduce (non-commutative): "
static const ompi_cell t_reduce_nc[] = {
    C(4, 8, 6), CN(4, 1),
    CN(8, 1),
    C(16, 1024, 6), C(16, 8192, 1), C(16, 16384, 6), C(16, 262144, 1), CN(16, 6),
    CN(128, 6),
    C(256, 512, 6), C(256, 1024, 1), CN(256, 6),
    CA(6),
};
#undef PFX
#define PFX "tuned 4.1.4 reduce_scatter (commutative): "
static const ompi_cell t_reduce_scatter[] = {
    C(4, 65536, 3), C(4, 131072, 4), CN(4, 3),
    C(8, 8, 1), C(8, 262144, 2), CN(8, 3),
    C(32, 262144, 2), CN(32, 3),
    C(64, 64, 1), C(64, 2048, 2), C(64, 524288, 4), CN(64, 3),
    C(128, 256, 1), C(128, 512, 2), C(128, 2048, 4), C(128, 4096, 2), CN(128, 4),
    C(256, 256, 1), C(256, 512, 2), CN(256, 4),
    C(512, 256, 1), C(512, 1024, 2), CN(512, 4),
    C(1024, 512, 1), C(1024, 2048, 2), C(1024, 8192, 4), C(1024, 16384, 2), CN(1024, 4),
    C(2048, 512, 1), C(2048, 4096, 2), C(2048, 16384, 4), C(2048, 32768, 2), CN(2048, 4),
    C(4096, 512, 1), C(4096, 4096, 2), CN(4096, 4),
    CL(1024, 1), CL(8192, 2), CA(4),
};
#undef PFX
#define PFX "tuned 4.1.4 reduce_scatter (non-commutative): "
static const ompi_cell t_reduce_scatter_nc[] = {
    CA(1),
};
#undef PFX
#define PFX "tuned 4.1.4 reduce_scatter_block (commutative): "
static const ompi_cell t_reduce_scatter_block[] = {
    C(4, 4, 2), C(4, 8, 4), C(4, 16, 3), C(4, 128, 4), C(4, 256, 3), C(4, 4096, 4), C(4, 8192, 3),
    C(4, 131072, 4), CN(4, 1),
    C(8, 8, 3), C(8, 32, 2), C(8, 256, 4), C(8, 8192, 3), C(8, 16384, 4), C(8, 1048576, 3),
    CN(8, 1),
    C(16, 4, 1), C(16, 32, 3), C(16, 128, 4), C(16, 524288, 3), C(16, 4194304, 1), CN(16, 4),
    C(32, 32, 1), C(32, 524288, 3), C(32, 2097152, 1), C(32, 4194304, 3), CN(32, 4),
    CL(4, 3), CL(16, 1), CL(65536, 4), CL(262144, 1), CA(4),
};
#undef PFX
#define PFX "tuned 4.1.4 reduce_scatter_block (non-commutative): "
static const ompi_cell t_reduce_scatter_block_nc[] = {
    CA(1),
};
#undef PFX
#define PFX "tuned 4.1.4 allgather: "
static const ompi_cell t_allgather[] = {
    N2ANY(6),
    CN(32, 3),
    C(64, 1024, 3), C(64, 65536, 5), CN(64, 4),
    C(128, 512, 3), C(128, 65536, 5), CN(128, 4),
    C(256, 512, 3), C(256, 131072, 5), C(256, 524288, 4), C(256, 1048576, 5), CN(256, 4),
    C(512, 32, 3), C(512, 128, 2), C(512, 1024, 3), C(512, 131072, 5), C(512, 524288, 4),
    C(512, 1048576, 5), CN(512, 4),
    C(1024, 64, 3), C(1024, 256, 2), C(1024, 2048, 3), CN(1024, 5),
    C(2048, 4, 3), C(2048, 8, 2), C(2048, 16, 3), C(2048, 32, 2), C(2048, 256, 3), C(2048, 512, 2),
    C(2048, 4096, 3), CN(2048, 5),
    C(4096, 32, 2), C(4096, 128, 3), C(4096, 512, 2), C(4096, 4096, 3), CN(4096, 5),
    CL(2, 3), CL(8, 2), CL(16, 3), CL(512, 2), CL(4096, 3), CA(5),
};
#undef PFX
#define PFX "tuned 4.1.4 allgatherv: "
static const ompi_cell t_allgatherv[] = {
    N2(2048, 3), N2(4096, 5), N2(8192, 3), N2ANY(5),
    C(8, 256, 1), C(8, 4096, 4), C(8, 8192, 3), C(8, 16384, 4), C(8, 262144, 2), CN(8, 4),
    C(16, 1024, 1), CN(16, 2),
    C(32, 128, 1), C(32, 262144, 2), CN(32, 3),
    C(64, 256, 1), C(64, 8192, 2), CN(64, 3),
    C(128, 256, 1), C(128, 4096, 2), CN(128, 3),
    C(256, 1024, 2), C(256, 65536, 4), CN(256, 3),
    C(512, 1024, 2), CN(512, 3),
    C(1024, 512, 2), C(1024, 1024, 1), C(1024, 4096, 2), C(1024, 1048576, 4), CN(1024, 3),
    CL(4096, 2), CA(4),
};
#undef PFX
#define PFX "tuned 4.1.4 gather: "
static const ompi_cell t_gather[] = {
    C(4, 2, 3), C(4, 4, 1), C(4, 32768, 2), C(4, 65536, 1), C(4, 131072, 2), CN(4, 3),
    C(8, 1024, 2), C(8, 8192, 1), C(8, 32768, 2), C(8, 262144, 1), CN(8, 3),
    CN(256, 2),
    C(512, 2048, 2), C(512, 8192, 1), CN(512, 2),
    CA(2),
};
#undef PFX
#define PFX "tuned 4.1.4 scatter: "
static const ompi_cell t_scatter[] = {
    C(4, 2, 3), C(4, 131072, 1), C(4, 262144, 3), CN(4, 1),
    C(8, 2048, 2), C(8, 4096, 1), C(8, 8192, 2), C(8, 32768, 1), C(8, 1048576, 3), CN(8, 1),
    C(16, 16384, 2), C(16, 1048576, 3), CN(16, 1),
    C(32, 16384, 2), C(32, 32768, 1), CN(32, 3),
    C(64, 512, 2), C(64, 8192, 3), C(64, 16384, 2), CN(64, 3),
    CL(512, 2), CA(3),
};
#undef PFX
#undef C
#undef CN
#undef CL
#undef CA
#undef N2
#undef N2ANY

#define LEN(t) (sizeof t / sizeof *t)

/* Open MPI's algorithm numbers (the "Algorithms:" list of each decision
 * function, and the do_this switch in coll_tuned_<op>_decision.c) as ours;
 * MM_ALG_AUTO for numbers the fixed tables never pick. */
static const int8_t m_allreduce[] = {0, MM_ALG_LINEAR, MM_ALG_NONOVERLAPPING,
    MM_ALG_RECURSIVE_DOUBLING, MM_ALG_RING, MM_ALG_SEGMENTED_RING, MM_ALG_RABENSEIFNER};
static const int8_t m_alltoall[] = {0, MM_ALG_LINEAR, MM_ALG_PAIRWISE, MM_ALG_MODIFIED_BRUCK,
    MM_ALG_LINEAR_SYNC, MM_ALG_PAIRWISE /* two_proc: one exchange, pairwise at n = 2 */};
static const int8_t m_alltoallv[] = {0, MM_ALG_LINEAR, MM_ALG_PAIRWISE};
static const int8_t m_barrier[] = {0, MM_ALG_LINEAR, MM_ALG_AUTO /* double ring */,
    MM_ALG_RECURSIVE_DOUBLING, MM_ALG_DISSEMINATION /* bruck */, MM_ALG_AUTO /* two_proc */,
    MM_ALG_TREE};
static const int8_t m_bcast[] = {0, MM_ALG_LINEAR, MM_ALG_CHAIN, MM_ALG_PIPELINE,
    MM_ALG_SPLIT_BINARY, MM_ALG_BINARY, MM_ALG_BMTREE /* binomial: Open MPI's bmtree */,
    MM_ALG_KNOMIAL, MM_ALG_SCATTER_ALLGATHER, MM_ALG_SCATTER_RING_ALLGATHER};
static const int8_t m_reduce[] = {0, MM_ALG_LINEAR, MM_ALG_CHAIN, MM_ALG_PIPELINE,
    MM_ALG_BINARY, MM_ALG_BINOMIAL, MM_ALG_IN_ORDER_BINARY, MM_ALG_RABENSEIFNER};
static const int8_t m_reduce_scatter[] = {0, MM_ALG_NONOVERLAPPING, MM_ALG_RECURSIVE_HALVING,
    MM_ALG_RING, MM_ALG_BUTTERFLY};
static const int8_t m_reduce_scatter_block[] = {0, MM_ALG_NONOVERLAPPING /* basic_linear */,
    MM_ALG_RECURSIVE_DOUBLING, MM_ALG_RECURSIVE_HALVING, MM_ALG_BUTTERFLY};
static const int8_t m_allgather[] = {0, MM_ALG_GATHER_BCAST /* basic_linear: gather + bcast */,
    MM_ALG_BRUCK, MM_ALG_RECURSIVE_DOUBLING,
    MM_ALG_RING, MM_ALG_NEIGHBOR_EXCHANGE,
    MM_ALG_RECURSIVE_DOUBLING /* two_proc: one exchange */};
static const int8_t m_allgatherv[] = {0, MM_ALG_GATHER_BCAST /* default */, MM_ALG_BRUCK,
    MM_ALG_RING, MM_ALG_NEIGHBOR_EXCHANGE, MM_ALG_RECURSIVE_DOUBLING /* two_proc */};
static const int8_t m_gather[] = {0, MM_ALG_LINEAR, MM_ALG_BINOMIAL, MM_ALG_LINEAR_SYNC};
static const int8_t m_scatter[] = {0, MM_ALG_LINEAR, MM_ALG_BINOMIAL, MM_ALG_LINEAR_NB};

/* One decision function: its tables (commutative, non-commutative: NULL
 * when the function has one) and number map. */
typedef struct ompi_decision {
    int              op;
    const ompi_cell *t, *t_nc;
    size_t           len, len_nc;
    const int8_t    *map;
    size_t           nmap;
} ompi_decision;

#define D(op, t, m)        {op, t, NULL, LEN(t), 0, m, LEN(m)}
#define DNC(op, t, nc, m)  {op, t, nc, LEN(t), LEN(nc), m, LEN(m)}
static const ompi_decision decisions[] = {
    DNC(MM_COLL_ALLREDUCE, t_allreduce, t_allreduce_nc, m_allreduce),
    D(MM_COLL_ALLTOALL, t_alltoall, m_alltoall),
    D(MM_COLL_ALLTOALLV, t_alltoallv, m_alltoallv),
    D(MM_COLL_BARRIER, t_barrier, m_barrier),
    D(MM_COLL_BCAST, t_bcast, m_bcast),
    DNC(MM_COLL_REDUCE, t_reduce, t_reduce_nc, m_reduce),
    DNC(MM_COLL_REDUCE_SCATTER, t_reduce_scatter, t_reduce_scatter_nc, m_reduce_scatter),
    DNC(MM_COLL_REDUCE_SCATTER_BLOCK, t_reduce_scatter_block, t_reduce_scatter_block_nc,
        m_reduce_scatter_block),
    D(MM_COLL_ALLGATHER, t_allgather, m_allgather),
    D(MM_COLL_ALLGATHERV, t_allgatherv, m_allgatherv),
    D(MM_COLL_GATHER, t_gather, m_gather),
    D(MM_COLL_SCATTER, t_scatter, m_scatter),
};
#undef D
#undef DNC

/* The cell of a table that fires for (n, total). The last cell of every
 * table has no bounds, so there always is one. */
static const ompi_cell *cell_of(const ompi_cell *t, size_t len, int32_t n, uint64_t total)
{
    uint64_t un = n > 0 ? (uint64_t)n : 0;
    for (size_t i = 0; i + 1 < len; i++)
        if ((t[i].n_lt == 0 || un < t[i].n_lt) && (t[i].s_lt == 0 || total < t[i].s_lt))
            return &t[i];
    return &t[len - 1];
}

/* The fixed decision of q->op as (Open MPI number, rule), or NULL when
 * tuned has none for the operation. */
static const ompi_decision *decision_of(int op)
{
    for (size_t i = 0; i < LEN(decisions); i++)
        if (decisions[i].op == op)
            return &decisions[i];
    return NULL;
}

/* total_dsize of the decision function, from mm_coll_desc.bytes. */
static uint64_t total_of(const mm_coll_query *q)
{
    return q->op == MM_COLL_REDUCE_SCATTER ? mm_coll_times_n(q->bytes, q->n) : q->bytes;
}

static uint64_t count_of(const mm_coll_query *q, uint64_t bytes)
{
    return bytes / (q->elem ? q->elem : 8);
}

static mm_coll_choice choose(int alg, const char *rule)
{
    mm_coll_choice c = {alg, {0, 0}, rule, 0};
    return c;
}

static mm_coll_choice decide(const mm_coll_query *q);

/* The decision of one phase of a composite algorithm: a call of op with
 * the same communicator and operator, bytes as mm_coll_desc.bytes and
 * element size elem. */
static int phase(const mm_coll_query *q, int op, uint64_t bytes, uint32_t elem)
{
    mm_coll_query p = *q;
    p.op = op;
    p.bytes = bytes;
    p.elem = elem;
    return decide(&p).alg;
}

/* What coll/base runs for algorithm alg of the table: several algorithms
 * of ompi/mca/coll/base (v4.1.4) hand the call to another one when they
 * cannot run it, and composite ones call two collectives whose algorithms
 * go to choice.sub. */
static mm_coll_choice run_as(const mm_coll_query *q, int alg, const char *rule)
{
    int32_t n = q->n;
    uint64_t count = count_of(q, q->bytes);
    uint64_t pof2 = n > 0 ? (uint64_t)mm_pof2_floor(n) : 1;
    uint32_t elem = q->elem ? q->elem : 8;
    mm_coll_choice c = choose(alg, rule);
    switch (q->op) {
    case MM_COLL_ALLREDUCE:
        if (alg == MM_ALG_SEGMENTED_RING)   /* segsize 0: segcount = count < n*count */
            return run_as(q, MM_ALG_RING, "tuned 4.1.4 allreduce: segmented ring with segment "
                          "size 0 runs the ring (coll_base_allreduce.c)");
        if (alg == MM_ALG_RING && count < (uint64_t)n)
            return choose(MM_ALG_RECURSIVE_DOUBLING, "tuned 4.1.4 allreduce: ring with count < n "
                          "runs recursive doubling (coll_base_allreduce.c)");
        if (alg == MM_ALG_RABENSEIFNER && (count < pof2 || q->noncommutative))
            return run_as(q, MM_ALG_LINEAR, "tuned 4.1.4 allreduce: Rabenseifner with count < "
                          "pof2(n) or a non-commutative op runs basic linear (coll_base_allreduce.c)");
        if (alg == MM_ALG_LINEAR) {          /* basic linear reduce to 0, basic linear bcast */
            c.sub[0] = MM_ALG_LINEAR;
            c.sub[1] = MM_ALG_LINEAR;
        } else if (alg == MM_ALG_NONOVERLAPPING) { /* reduce to 0, bcast from 0: comm->c_coll */
            c.sub[0] = phase(q, MM_COLL_REDUCE, q->bytes, elem);
            c.sub[1] = phase(q, MM_COLL_BCAST, q->bytes, elem);
        }
        return c;
    case MM_COLL_REDUCE:
        if (alg == MM_ALG_RABENSEIFNER && (pof2 < 2 || count < pof2 || q->noncommutative))
            return choose(MM_ALG_LINEAR, "tuned 4.1.4 reduce: Rabenseifner with count < pof2(n) "
                          "runs basic linear (coll_base_reduce.c)");
        return c;
    case MM_COLL_BCAST:
        if ((alg == MM_ALG_SCATTER_ALLGATHER || alg == MM_ALG_SCATTER_RING_ALLGATHER) &&
            count < (uint64_t)n)
            return choose(MM_ALG_LINEAR, "tuned 4.1.4 bcast: scatter-allgather with count < n "
                          "runs basic linear (coll_base_bcast.c)");
        if (alg == MM_ALG_SPLIT_BINARY && count < 2)
            return choose(MM_ALG_PIPELINE, "tuned 4.1.4 bcast: split binary tree with count < 2 "
                          "runs a chain of one (coll_base_bcast.c)");
        return c;
    case MM_COLL_ALLGATHER:
    case MM_COLL_ALLGATHERV:
        if (alg == MM_ALG_RECURSIVE_DOUBLING && n > 2 && !mm_is_pof2(n))
            return choose(MM_ALG_BRUCK, "tuned 4.1.4 allgather: recursive doubling with n not a "
                          "power of two runs bruck (coll_base_allgather.c)");
        if (alg == MM_ALG_NEIGHBOR_EXCHANGE && n % 2)
            return choose(MM_ALG_RING, "tuned 4.1.4 allgather(v): neighbor exchange with n odd "
                          "runs the ring (coll_base_allgather(v).c)");
        if (alg == MM_ALG_GATHER_BCAST) {    /* gatherv to 0 (coll/basic), then a bcast of
                                                one element holding all n blocks */
            uint64_t all = mm_coll_times_n(q->bytes, n);
            c.sub[0] = MM_ALG_LINEAR;
            c.sub[1] = phase(q, MM_COLL_BCAST, all, all > UINT32_MAX ? UINT32_MAX : (uint32_t)all);
        }
        return c;
    case MM_COLL_REDUCE_SCATTER:            /* nonoverlapping: reduce of the whole vector to
                                               0 (c_coll: tuned), scatterv (coll/basic) */
        if (alg == MM_ALG_NONOVERLAPPING) {
            c.sub[0] = phase(q, MM_COLL_REDUCE, total_of(q), elem);
            c.sub[1] = MM_ALG_LINEAR;
        }
        return c;
    case MM_COLL_REDUCE_SCATTER_BLOCK:      /* basic linear: reduce of n blocks to 0 and
                                               scatter, both through c_coll (tuned) */
        if (alg == MM_ALG_RECURSIVE_DOUBLING && count * (uint64_t)n > INT32_MAX)
            return run_as(q, MM_ALG_NONOVERLAPPING, "tuned 4.1.4 reduce_scatter_block: "
                          "recursive doubling with n*count > INT_MAX runs basic linear");
        if (alg == MM_ALG_NONOVERLAPPING) {
            c.sub[0] = phase(q, MM_COLL_REDUCE, mm_coll_times_n(q->bytes, n), elem);
            c.sub[1] = phase(q, MM_COLL_SCATTER, q->bytes, elem);
        }
        return c;
    default:
        return c;
    }
}

/* Open MPI 4.1.4, blocking operations. */
static mm_coll_choice decide(const mm_coll_query *q)
{
    const ompi_decision *d = decision_of(q->op);
    if (d) {
        int nc = q->noncommutative && d->t_nc;
        const ompi_cell *cell = nc ? cell_of(d->t_nc, d->len_nc, q->n, total_of(q))
                                   : cell_of(d->t, d->len, q->n, total_of(q));
        return run_as(q, cell->alg < d->nmap ? d->map[cell->alg] : MM_ALG_AUTO, cell->rule);
    }
    switch (q->op) {
    /* coll/basic 4.1.4 (mca_coll_basic_*_intra) */
    case MM_COLL_GATHERV:
        return choose(MM_ALG_LINEAR, "basic 4.1.4 gatherv: the root receives from each rank in "
                      "turn (tuned has no gatherv)");
    case MM_COLL_SCATTERV:
        return choose(MM_ALG_LINEAR, "basic 4.1.4 scatterv: linear (tuned has no scatterv)");
    case MM_COLL_SCAN:
        return choose(MM_ALG_LINEAR, "basic 4.1.4 scan: linear chain (tuned has no scan)");
    case MM_COLL_EXSCAN:
        return choose(MM_ALG_LINEAR, "basic 4.1.4 exscan: linear chain (tuned has no exscan)");
    default:
        return choose(MM_ALG_AUTO, "no expansion for this operation");
    }
}

mm_coll_choice mm_coll_auto_ompi(const mm_coll_query *q)
{
    mm_coll_choice nbc;
    if (mm_coll_nonblocking(q->op) && mm_coll_auto_libnbc(q, &nbc))
        return nbc;
    return decide(q);
}
