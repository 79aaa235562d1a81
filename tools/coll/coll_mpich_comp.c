/*
 * coll_mpich_comp.c - MPICH 4.0.2's node-aware ch4 compositions as
 * transfers (MM_ALG_MPICH_COMPOSITION). Sources, read at tag v4.0.2 (not
 * copied): maint/tuning/coll/ch4/generic.json (which composition),
 * maint/tuning/coll/ch4/posix_generic.json (release_gather for bcast,
 * barrier, commutative reduce and allreduce), src/mpid/ch4/src/
 * ch4_coll_impl.h (MPIDI_<Op>_intra_composition_alpha/beta/gamma),
 * maint/tuning/coll/mpir/generic.json and src/mpi/coll/{ibcast,ireduce,
 * iscan}/<op>_intra_sched_smp.c (the nonblocking ones on parent communicators),
 * src/mpid/ch4/shm/posix/posix_coll_release_gather.h (the call counter
 * and MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD = 5), src/mpi/comm/commutil.c
 * (MPIR_Comm_create_subcomms) and src/util/mpir_localproc.c
 * (MPIR_Find_local, MPIR_Find_external).
 *
 * Sub-communicators. A node's communicator holds its ranks in ascending
 * order (local rank 0 = its lowest rank, the node root); it exists when
 * the node holds two or more ranks. The node-roots communicator holds the
 * node roots in ascending order (node index k = internode rank k). Every
 * phase on them is an MPIR algorithm chosen by mpir/generic.json for the
 * sub-communicator's size and the call's bytes (mm_coll_select, node
 * layout unknown: the flat rules), expanded and mapped to real ranks, or,
 * on a node's communicator, POSIX release_gather: shared memory, no
 * message at all, so such a phase emits nothing and no queue matches it.
 *
 * Steps: the stages of a composition run one after the other (each rank
 * finishes a stage's phase before it starts the next); a stage's phases
 * (one per node) run side by side and the stage lasts as long as its
 * longest phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_pof2.h"
#include "coll_mpich_comp.h"
#include "stream.h"

/* ---- node layout ---- */

typedef struct layout {
    int32_t n, m;     /* ranks, nodes                                        */
    int32_t *nodeof;  /* node index of each rank (nodes ordered by their root) */
    int32_t *lrank;   /* rank in its node's communicator                     */
    int32_t *first;   /* m+1: members[first[k] .. first[k+1]) are node k's   */
    int32_t *members; /* n ranks, node by node, ascending                    */
    int32_t *roots;   /* m: roots[k] = members[first[k]]                     */
} layout;

static const int32_t *sort_node; /* qsort has no context argument */

static int by_node_rank(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    if (sort_node[x] != sort_node[y])
        return sort_node[x] < sort_node[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static void layout_free(layout *l)
{
    free(l->nodeof);
    l->nodeof = NULL;
}

/* MPIR_Find_local / MPIR_Find_external on node[]: 0, or -1 out of memory. */
static int layout_build(layout *l, int32_t n, const int32_t *node)
{
    memset(l, 0, sizeof *l);
    int32_t *buf = malloc(((size_t)5 * n + 2) * sizeof *buf);
    if (!buf)
        return -1;
    l->n = n;
    l->nodeof = buf;
    l->lrank = buf + n;
    l->members = buf + 2 * (size_t)n;
    int32_t *byid = buf + 3 * (size_t)n, *start = buf + 4 * (size_t)n; /* n+1 */
    for (int32_t i = 0; i < n; i++)
        byid[i] = i;
    sort_node = node;
    qsort(byid, (size_t)n, sizeof *byid, by_node_rank);
    /* groups of equal node id, each in ascending rank order */
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++)
        if (i == 0 || node[byid[i]] != node[byid[i - 1]])
            start[m++] = i;
    start[m] = n;
    int32_t *first = malloc(((size_t)3 * m + 2) * sizeof *first);
    if (!first) {
        free(buf);
        l->nodeof = NULL;
        return -1;
    }
    int32_t *gofk = first + 2 * (size_t)m + 1; /* the group of node index k */
    /* node index = order of the nodes' lowest ranks (MPIR_Find_external
     * scans the ranks upwards and adds a node at its first rank) */
    for (int32_t i = 0; i < n; i++)
        l->nodeof[i] = 0;
    for (int32_t g = 0; g < m; g++)
        l->nodeof[byid[start[g]]] = 1 + g;
    int32_t k = 0, pos = 0;
    for (int32_t r = 0; r < n; r++)
        if (l->nodeof[r] > 0)
            gofk[k++] = l->nodeof[r] - 1;
    for (k = 0; k < m; k++) {
        int32_t g = gofk[k];
        first[k] = pos;
        for (int32_t i = start[g]; i < start[g + 1]; i++, pos++) {
            int32_t r = byid[i];
            l->members[pos] = r;
            l->nodeof[r] = k;
            l->lrank[r] = i - start[g];
        }
    }
    first[m] = n;
    l->first = first;
    l->roots = first + m + 1;
    for (k = 0; k < m; k++)
        l->roots[k] = l->members[first[k]];
    l->m = m;
    return 0;
}

static void layout_release(layout *l)
{
    if (l->nodeof)
        free(l->first);
    layout_free(l);
}

static int32_t node_size(const layout *l, int32_t k) { return l->first[k + 1] - l->first[k]; }

/* MPII_Comm_is_node_consecutive: parent, and every node's ranks form one
 * run (node k holds the k-th run). */
static int consecutive(const layout *l)
{
    int c = l->m < l->n;
    for (int32_t k = 0; k < l->m && c; k++)
        c = l->members[l->first[k + 1] - 1] - l->members[l->first[k]] == node_size(l, k) - 1;
    return c;
}

/* ---- which composition (ch4/generic.json) ---- */

/* COMP_SMP: not a ch4 composition but MPIR's sched_smp algorithm, which
 * mpir/generic.json picks for ibcast, ireduce (commutative) and iscan on
 * a parent communicator: the same kind of phases on the node and
 * node-roots communicators, every one a point-to-point schedule. */
enum { COMP_ALPHA = 1, COMP_BETA, COMP_GAMMA, COMP_SMP };

static int one_node(int32_t n, const int32_t *node)
{
    for (int32_t i = 1; i < n; i++)
        if (node[i] != node[0])
            return 0;
    return n > 1;
}

/* The composition MPICH runs for a commutative call on a parent
 * communicator; COMP_GAMMA for bcast and reduce is the flat MPIR
 * algorithm on the communicator. */
static int which(int op, int32_t n, uint64_t bytes, const int32_t *node)
{
    if (mm_coll_nonblocking(op))
        return COMP_SMP;
    switch (mm_coll_family(op)) {
    case MM_COLL_BCAST:
        if (n < 8)
            return COMP_ALPHA;
        if (mm_is_pof2(n))
            return bytes < 12288 ? COMP_ALPHA : bytes < 524288 ? COMP_BETA : COMP_GAMMA;
        return bytes < 12288 ? COMP_ALPHA : COMP_GAMMA;
    case MM_COLL_REDUCE:
        return bytes <= 2048 ? COMP_BETA : COMP_ALPHA;
    case MM_COLL_ALLREDUCE:
        return one_node(n, node) ? COMP_GAMMA : COMP_ALPHA;
    case MM_COLL_SCAN: /* is_node_consecutive=yes (else beta: MPIR, not here) */
        return COMP_ALPHA;
    default: /* barrier */
        return COMP_ALPHA;
    }
}

/* ---- phases ---- */

enum { PH_MPIR, PH_SHM, PH_SEND };
#define NSTAGES 6 /* scan's; the others use 0..2 */
#define GRP_ROOTS (-1) /* the node-roots communicator */
#define GRP_ALL   (-2) /* the communicator itself     */

typedef struct phase {
    int     kind;    /* PH_*                                                   */
    int     stage;
    int     op;      /* blocking family op of the phase                        */
    int     tag_op;  /* the tag its messages carry (MPIR_<OP>_TAG in MPICH)    */
    int32_t grp;     /* node index, GRP_ROOTS or GRP_ALL                       */
    int32_t root;    /* in grp; PH_SEND: the real source                       */
    int32_t dst;     /* PH_SEND: the real destination                          */
    uint64_t bytes;
    int     sync;    /* barrier: messages only say "arrived" (the 1-byte bcast too) */
    mm_coll_desc sub; /* PH_MPIR: the MPIR algorithm on grp                    */
} phase;

typedef struct plan {
    layout  L;
    phase  *ph;
    int     nph;
    int     comp;
    int     bumps[2]; /* release_gather calls counted: node comms, comm itself */
    const mm_coll_model *m; /* the model, for the MPIR phases */
} plan;

static int32_t grp_size(const plan *p, int32_t grp)
{
    return grp == GRP_ALL ? p->L.n : grp == GRP_ROOTS ? p->L.m : node_size(&p->L, grp);
}

static int32_t grp_real(const plan *p, int32_t grp, int32_t r)
{
    return grp == GRP_ALL ? r : grp == GRP_ROOTS ? p->L.roots[r] : p->L.members[p->L.first[grp] + r];
}

/* A new phase of stage on grp (PH_SEND: root = source, see add_send). */
static phase *add_phase(plan *p, int kind, int stage, int op, int tag_op, int32_t grp,
                        int32_t root, uint64_t bytes, int is_sync)
{
    phase *f = &p->ph[p->nph++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->stage = stage;
    f->op = op;
    f->tag_op = tag_op;
    f->grp = grp;
    f->root = root;
    f->bytes = bytes;
    f->sync = is_sync;
    return f;
}

static void add_mpir(plan *p, const mm_coll_desc *d, int stage, int op, int tag_op, int32_t grp,
                     int32_t root, uint64_t bytes, int is_sync)
{
    phase *f = add_phase(p, PH_MPIR, stage, op, tag_op, grp, root, bytes, is_sync);
    uint32_t elem = is_sync ? 1 : d->elem;
    mm_coll_query q = {op, grp_size(p, grp), bytes, elem, 0, MM_COLL_LIB_MPICH, NULL};
    mm_coll_choice c = p->m->select(&q);
    mm_coll_desc s = {op, c.alg, q.n, root, bytes, elem, {c.sub[0], c.sub[1]}, NULL, {0, 0}};
    f->sub = s;
}

/* A phase on a node communicator (grp >= 0) or on the communicator itself
 * (allreduce on one node) through MPIDI_POSIX_mpi_<op>: release_gather,
 * whose ord-th call of this call brings the counter to before + ord; below
 * the threshold MPIR's algorithm on that communicator. */
static void add_posix(plan *p, const mm_coll_desc *d, int stage, int op, int tag_op, int32_t grp,
                      int32_t root, uint64_t bytes, int is_sync, uint32_t ord)
{
    uint32_t before = d->shm_calls[grp == GRP_ALL ? 1 : 0];
    if (before + ord < MM_MPICH_NUM_COLLS_THRESHOLD)
        add_mpir(p, d, stage, op, tag_op, grp, root, bytes, is_sync);
    else /* shared memory: no tag, no message */
        add_phase(p, PH_SHM, stage, op, MM_COLL_NONE, grp, root, bytes, is_sync);
}

static void add_send(plan *p, int stage, int tag_op, int32_t src, int32_t dst, uint64_t bytes)
{
    add_phase(p, PH_SEND, stage, 0, tag_op, 0, src, bytes, 0)->dst = dst;
}

/* MPIR's sched_smp algorithms (src/mpi/coll/<op>/<op>_intra_sched_smp.c):
 * every phase is MPIR_<Op>_intra_sched_auto on a sub-communicator (the
 * flat mpir/generic.json rules for its size) or one MPIR_Sched_send /
 * recv, and MPIR_SCHED_BARRIER orders them. kR: the root's node. */
static int plan_smp(plan *p, const mm_coll_desc *d, int32_t kR)
{
    const layout *L = &p->L;
    int op = d->op;
    int32_t R = d->root;
    uint64_t B = d->bytes;
    if (mm_coll_family(op) == MM_COLL_BCAST) {
        /* ibcast: the root, if not its node's local rank 0, sends it the
         * vector on the node communicator (even an empty one: MPI_Ibcast
         * has no count-0 return); ibcast among the node roots from the
         * root's node; ibcast from local rank 0 in every node, the
         * root's included */
        if (L->lrank[R] != 0)
            add_send(p, 0, op, R, L->roots[kR], B);
        add_mpir(p, d, 1, op, op, GRP_ROOTS, kR, B, 0);
        for (int32_t k = 0; k < L->m; k++)
            if (node_size(L, k) > 1)
                add_mpir(p, d, 2, op, op, k, 0, B, 0);
        return 0;
    }
    /* ireduce (commutative; count 0 returned before): reduce to local
     * rank 0 in every node but the root's, among the node roots to the
     * root's node, then in the root's node to the root */
    for (int32_t k = 0; k < L->m; k++)
        if (node_size(L, k) > 1 && k != kR)
            add_mpir(p, d, 0, op, op, k, 0, B, 0);
    add_mpir(p, d, 1, op, op, GRP_ROOTS, kR, B, 0);
    if (node_size(L, kR) > 1)
        add_mpir(p, d, 2, op, op, kR, L->lrank[R], B, 0);
    return 0;
}

/* Scan on node-consecutive ranks: ch4's MPIDI_Scan_intra_composition_alpha
 * (ch4_coll_impl.h) and MPIR_Iscan_intra_sched_smp (iscan_intra_sched_smp.c)
 * send the same: scan in every node (MPIDI_POSIX_mpi_scan is MPIR_Scan_impl:
 * point-to-point, not a release_gather entry; the nonblocking one
 * sched_auto); the node's last rank sends its result, the node's total, to
 * local rank 0; scan of those totals among the node roots; node root k
 * sends its prefix to node root k+1 (MPIC_Send / MPIR_Sched_send before the
 * receive from k-1: modelled as one step, eager); then the prefix goes to
 * every rank of the nodes but the first. Blocking: first a bcast of the
 * 4-byte "noneed" flag in every node (release_gather entry +1), then, in
 * the nodes but the first, the prefix (entry +2), both MPIR_BCAST_TAG;
 * nonblocking: MPIR_Ibcast_intra_sched_auto of the prefix in the nodes but
 * the first, in the iscan's schedule. */
static int plan_scan(plan *p, const mm_coll_desc *d)
{
    const layout *L = &p->L;
    int op = d->op, nb = mm_coll_nonblocking(op);
    uint64_t B = d->bytes;
    for (int32_t k = 0; k < L->m; k++)
        if (node_size(L, k) > 1) {
            add_mpir(p, d, 0, op, op, k, 0, B, 0);
            add_send(p, 1, op, L->members[L->first[k + 1] - 1], L->roots[k], B);
        }
    add_mpir(p, d, 2, op, op, GRP_ROOTS, 0, B, 0);
    for (int32_t k = 0; k + 1 < L->m; k++)
        add_send(p, 3, op, L->roots[k], L->roots[k + 1], B);
    for (int32_t k = 0; k < L->m; k++) {
        if (node_size(L, k) < 2)
            continue;
        if (!nb)
            add_posix(p, d, 4, MM_COLL_BCAST, MM_COLL_BCAST, k, 0, 4, 1, 1);
        if (k > 0 && nb)
            add_mpir(p, d, 5, MM_COLL_IBCAST, op, k, 0, B, 0);
        else if (k > 0)
            add_posix(p, d, 5, MM_COLL_BCAST, MM_COLL_BCAST, k, 0, B, 0, 2);
    }
    /* the first node's counter: +1 (the others' +2, see
     * mm_coll_mpich_shm_count) */
    p->bumps[0] = !nb;
    return 0;
}

/* The phases of d's composition, read off ch4_coll_impl.h. */
static int plan_build(plan *p, const mm_coll_model *m, const mm_coll_desc *d)
{
    memset(p, 0, sizeof *p);
    p->m = m;
    if (layout_build(&p->L, d->n, d->node))
        return -1;
    const layout *L = &p->L;
    p->ph = malloc(((size_t)5 * L->m + 4) * sizeof *p->ph);
    if (!p->ph) {
        layout_release(&p->L);
        return -1;
    }
    int fam = mm_coll_family(d->op);
    uint64_t B = d->bytes;
    p->comp = which(d->op, d->n, B, d->node);
    int32_t R = d->root, kR = fam == MM_COLL_BCAST || fam == MM_COLL_REDUCE ? L->nodeof[R] : 0;
    /* count 0: MPI_Reduce returns at once (src/binding/c/coll_api.txt);
     * bcast and reduce release_gather return before they count the call,
     * and MPIR's binomial bcast sends nothing (bcast_intra_binomial.c);
     * allreduce release_gather counts it all the same */
    int data = B > 0;
    /* count 0: MPI_Reduce, MPI_Ireduce, MPI_Scan and MPI_Iscan return at
     * once (src/binding/c/coll_api.txt) */
    if ((fam == MM_COLL_REDUCE || fam == MM_COLL_SCAN) && !data)
        return 0;
    if (fam == MM_COLL_SCAN)
        return plan_scan(p, d);
    if (p->comp == COMP_SMP)
        return plan_smp(p, d, kR);
    switch (fam) {
    case MM_COLL_BCAST:
        if (p->comp == COMP_ALPHA) {
            /* the root, if not its node's root, sends it the vector
             * (MPIC_Send on the node communicator); bcast among the node
             * roots; bcast from local rank 0 in every node */
            if (L->lrank[R] != 0)
                add_send(p, 0, MM_COLL_BCAST, R, L->roots[kR], B);
            if (data)
                add_mpir(p, d, 1, MM_COLL_BCAST, MM_COLL_BCAST, GRP_ROOTS, kR, B, 0);
            for (int32_t k = 0; k < L->m && data; k++)
                if (node_size(L, k) > 1)
                    add_posix(p, d, 2, MM_COLL_BCAST, MM_COLL_BCAST, k, 0, B, 0, 1);
        } else { /* beta: in the root's node first, unless the root is its node's root */
            if (node_size(L, kR) > 1 && L->lrank[R] > 0 && data)
                add_posix(p, d, 0, MM_COLL_BCAST, MM_COLL_BCAST, kR, L->lrank[R], B, 0, 1);
            if (data)
                add_mpir(p, d, 1, MM_COLL_BCAST, MM_COLL_BCAST, GRP_ROOTS, kR, B, 0);
            for (int32_t k = 0; k < L->m && data; k++)
                if (node_size(L, k) > 1 && !(k == kR && L->lrank[R] > 0))
                    add_posix(p, d, 2, MM_COLL_BCAST, MM_COLL_BCAST, k, 0, B, 0, 1);
        }
        p->bumps[0] = data;
        break;
    case MM_COLL_REDUCE:
        if (p->comp == COMP_ALPHA) {
            /* reduce to local rank 0 in every node, among the node roots to
             * internode rank 0 (rank 0's node: rank 0), then rank 0 sends
             * the result to the root (MPIC_Send on the communicator) */
            for (int32_t k = 0; k < L->m && data; k++)
                if (node_size(L, k) > 1)
                    add_posix(p, d, 0, MM_COLL_REDUCE, MM_COLL_REDUCE, k, 0, B, 0, 1);
            add_mpir(p, d, 1, MM_COLL_REDUCE, MM_COLL_REDUCE, GRP_ROOTS, 0, B, 0);
            if (R != 0)
                add_send(p, 2, MM_COLL_REDUCE, 0, R, B);
        } else {
            /* beta: reduce in every node but the root's, among the node
             * roots to the root's node, then in the root's node to the root */
            for (int32_t k = 0; k < L->m && data; k++)
                if (node_size(L, k) > 1 && k != kR)
                    add_posix(p, d, 0, MM_COLL_REDUCE, MM_COLL_REDUCE, k, 0, B, 0, 1);
            add_mpir(p, d, 1, MM_COLL_REDUCE, MM_COLL_REDUCE, GRP_ROOTS, kR, B, 0);
            if (node_size(L, kR) > 1 && data)
                add_posix(p, d, 2, MM_COLL_REDUCE, MM_COLL_REDUCE, kR, L->lrank[R], B, 0, 1);
        }
        p->bumps[0] = data;
        break;
    case MM_COLL_ALLREDUCE:
        if (p->comp == COMP_GAMMA) {
            /* all ranks on one node: MPIDI_POSIX_mpi_allreduce on the
             * communicator itself (its own counter) */
            add_posix(p, d, 0, MM_COLL_ALLREDUCE, MM_COLL_ALLREDUCE, GRP_ALL, 0, B, 0, 1);
            p->bumps[1] = 1;
            break;
        }
        /* alpha: reduce to local rank 0, allreduce among the node roots,
         * bcast from local rank 0 */
        for (int32_t k = 0; k < L->m && data; k++)
            if (node_size(L, k) > 1)
                add_posix(p, d, 0, MM_COLL_REDUCE, MM_COLL_REDUCE, k, 0, B, 0, 1);
        add_mpir(p, d, 1, MM_COLL_ALLREDUCE, MM_COLL_ALLREDUCE, GRP_ROOTS, 0, B, 0);
        for (int32_t k = 0; k < L->m && data; k++)
            if (node_size(L, k) > 1)
                add_posix(p, d, 2, MM_COLL_BCAST, MM_COLL_BCAST, k, 0, B, 0, 2);
        p->bumps[0] = 2 * data;
        break;
    default: /* barrier alpha: barrier in every node, among the node roots,
              * then a 1-byte bcast from local rank 0 in every node */
        for (int32_t k = 0; k < L->m; k++)
            if (node_size(L, k) > 1)
                add_posix(p, d, 0, MM_COLL_BARRIER, MM_COLL_BARRIER, k, 0, 0, 1, 1);
        add_mpir(p, d, 1, MM_COLL_BARRIER, MM_COLL_BARRIER, GRP_ROOTS, 0, 0, 1);
        for (int32_t k = 0; k < L->m; k++)
            if (node_size(L, k) > 1)
                add_posix(p, d, 2, MM_COLL_BCAST, MM_COLL_BCAST, k, 0, 1, 1, 2);
        p->bumps[0] = 2;
    }
    return 0;
}

static void plan_free(plan *p)
{
    free(p->ph);
    layout_release(&p->L);
}

/* ---- the vector's pieces: the union of the phases' cuts ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Offsets where a piece starts, sorted, unique, ending with bytes: *nb
 * pieces. NULL when nothing cuts (or out of memory: *nb 0). */
static uint64_t *cuts(const plan *p, const mm_coll_desc *d, uint32_t *nb)
{
    size_t total = 2;
    *nb = 1;
    /* barrier: no data; scan: its two blocks, result and partial sum, as
     * MPIR's recursive doubling (no phase cuts the vector) */
    if (mm_coll_family(d->op) == MM_COLL_BARRIER || mm_coll_family(d->op) == MM_COLL_SCAN)
        return NULL;
    for (int i = 0; i < p->nph; i++)
        if (p->ph[i].kind == PH_MPIR) {
            uint32_t k = p->m->nblocks(&p->ph[i].sub);
            if (k > 1)
                total += k;
        }
    if (total == 2)
        return NULL;
    uint64_t *off = malloc(total * sizeof *off);
    if (!off) {
        *nb = 0;
        return NULL;
    }
    size_t c = 0;
    off[c++] = 0;
    off[c++] = d->bytes;
    for (int i = 0; i < p->nph; i++) {
        const mm_coll_desc *s = &p->ph[i].sub;
        if (p->ph[i].kind != PH_MPIR || p->m->nblocks(s) < 2)
            continue;
        uint64_t at = 0;
        for (uint32_t b = 0; b < p->m->nblocks(s); b++) {
            off[c++] = at;
            at += p->m->block_bytes(s, b);
        }
    }
    qsort(off, c, sizeof *off, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < c; i++)
        if (u == 0 || off[i] != off[u - 1])
            off[u++] = off[i];
    *nb = (uint32_t)(u - 1);
    return off;
}

/* the piece that starts at byte o (o in off) */
static uint32_t piece_at(const uint64_t *off, uint32_t nb, uint64_t o)
{
    uint32_t lo = 0, hi = nb;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (off[mid] < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t mm_coll_mpich_comp_pieces(const mm_coll_model *m, const mm_coll_desc *d)
{
    plan p;
    if (!d->node || plan_build(&p, m, d))
        return 0;
    uint32_t nb;
    uint64_t *off = cuts(&p, d, &nb);
    free(off);
    plan_free(&p);
    return off && nb > 1 ? nb : 0;
}

uint64_t mm_coll_mpich_comp_piece_bytes(const mm_coll_model *m, const mm_coll_desc *d,
                                        uint32_t b)
{
    plan p;
    if (!d->node || plan_build(&p, m, d))
        return 0;
    uint32_t nb;
    uint64_t *off = cuts(&p, d, &nb);
    uint64_t v = off && b < nb ? off[b + 1] - off[b] : d->bytes;
    free(off);
    plan_free(&p);
    return v;
}

/* ---- emission ---- */

typedef struct sx { mm_coll_xfer x; uint64_t seq; } sx;

typedef struct ectx {
    plan          *p;
    const phase   *f;
    const mm_coll_desc *d;
    const uint64_t *off; /* the composite's piece offsets (NULL: one block) */
    uint32_t       nb;    /* the composite's pieces                         */
    uint64_t      *soff;  /* the phase's own piece offsets                  */
    uint32_t       snb;
    uint32_t       base;  /* first step of the stage                        */
    uint32_t       len;   /* steps the phase took                           */
    sx            *v;
    size_t         n, cap;
    int            rc;
} ectx;

static int push(ectx *c, const mm_coll_xfer *x)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        sx *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return MMS_ENOMEM;
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n].x = *x;
    c->v[c->n].seq = c->n;
    c->n++;
    return 0;
}

/* The composite pieces a sub-call transfer's pieces blk .. blk+nblk-1 cover. */
static void map_blocks(const ectx *c, uint32_t blk, uint32_t nblk, uint32_t *cb, uint32_t *cn)
{
    if (c->snb < 2 || !c->off || nblk >= c->snb) { /* the whole vector */
        *cb = 0;
        *cn = c->nb;
        return;
    }
    uint32_t a = piece_at(c->off, c->nb, c->soff[blk]);
    uint32_t e = piece_at(c->off, c->nb, c->soff[(blk + nblk) % c->snb]);
    *cb = a;
    *cn = (e + c->nb - a) % c->nb;
}

static uint64_t comp_bytes(const ectx *c, uint32_t cb, uint32_t cn)
{
    if (!c->off)
        return cn ? c->d->bytes : 0;
    uint64_t s = 0;
    for (uint32_t i = 0; i < cn; i++) {
        uint32_t b = (cb + i) % c->nb;
        s += c->off[b + 1] - c->off[b];
    }
    return s;
}

static int sub_put(void *ctx, const mm_coll_xfer *sxr)
{
    ectx *c = ctx;
    const phase *f = c->f;
    mm_coll_xfer x = *sxr;
    x.src = grp_real(c->p, f->grp, sxr->src);
    x.dst = grp_real(c->p, f->grp, sxr->dst);
    x.step = c->base + sxr->step;
    x.tag_op = (uint8_t)f->tag_op;
    if (sxr->step + 1 > c->len)
        c->len = sxr->step + 1;
    if (f->sync) { /* barrier phases; the 1-byte bcast keeps its byte */
        x.mode = MM_XFER_SYNC;
        x.blk = 0;
        x.nblk = 1; /* the barrier's one (empty) block: who has arrived */
        x.bytes = f->op == MM_COLL_BARRIER ? 0 : sxr->bytes;
    } else if (x.mode != MM_XFER_SYNC && mm_coll_family(c->d->op) == MM_COLL_SCAN) {
        x.bytes = c->d->bytes; /* the scan's blocks; an ibcast of the prefix: block 0 */
        if (mm_coll_family(f->op) != MM_COLL_SCAN) {
            x.blk = 0;
            x.nblk = 1;
        }
    } else if (x.mode != MM_XFER_SYNC) {
        uint32_t cb, cn;
        map_blocks(c, sxr->blk, sxr->nblk, &cb, &cn);
        if (cn == 0 && sxr->bytes > 0) /* every piece but empty ones: all */
            cn = c->nb;
        x.blk = cb;
        x.nblk = cn;
        x.bytes = comp_bytes(c, cb, cn);
    }
    return push(c, &x);
}

static void pseudo(ectx *c, uint32_t step, int32_t src, int32_t dst, int mode)
{
    mm_coll_xfer x;
    memset(&x, 0, sizeof x);
    x.step = step;
    x.src = src;
    x.dst = dst;
    x.mode = (uint8_t)mode;
    x.tag_op = MM_COLL_NONE;
    x.nblk = mode == MM_XFER_SYNC ? 1 : c->nb;
    x.bytes = mode == MM_XFER_SYNC ? 0 : c->d->bytes;
    if (!c->rc)
        c->rc = push(c, &x);
}

/* What release_gather delivers, as pseudo transfers: bcast from the root;
 * reduce to the root; barrier and allreduce gather to local rank 0, then
 * release from it. */
static void shm_phase(ectx *c, int with_shm)
{
    const phase *f = c->f;
    int32_t s = grp_size(c->p, f->grp);
    int gather = f->op != MM_COLL_BCAST, release = f->op != MM_COLL_REDUCE;
    c->len = (uint32_t)(gather + release);
    if (!with_shm)
        return;
    int32_t top = grp_real(c->p, f->grp, f->root);
    for (int32_t i = 0; i < s && gather; i++)
        if (i != f->root)
            pseudo(c, c->base, grp_real(c->p, f->grp, i), top,
                   f->sync ? MM_XFER_SYNC : MM_XFER_REDUCE);
    for (int32_t i = 0; i < s && release; i++)
        if (i != f->root)
            pseudo(c, c->base + (uint32_t)gather, top, grp_real(c->p, f->grp, i),
                   f->sync ? MM_XFER_SYNC : MM_XFER_COPY);
}

static int by_step(const void *a, const void *b)
{
    const sx *x = a, *y = b;
    if (x->x.step != y->x.step)
        return x->x.step < y->x.step ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int emit_all(const mm_coll_model *m, const mm_coll_desc *d, mm_coll_emit_fn fn,
                    void *fctx, int with_shm)
{
    plan p;
    if (plan_build(&p, m, d))
        return MMS_ENOMEM;
    ectx c;
    memset(&c, 0, sizeof c);
    c.p = &p;
    c.d = d;
    c.off = cuts(&p, d, &c.nb);
    if (!c.nb) {
        plan_free(&p);
        return MMS_ENOMEM;
    }
    for (int stage = 0; stage < NSTAGES && !c.rc; stage++) {
        uint32_t longest = 0;
        for (int i = 0; i < p.nph && !c.rc; i++) {
            const phase *f = &p.ph[i];
            if (f->stage != stage)
                continue;
            c.f = f;
            c.len = 0;
            if (f->kind == PH_SEND) {
                mm_coll_xfer x;
                memset(&x, 0, sizeof x);
                x.step = c.base;
                x.src = f->root;
                x.dst = f->dst;
                x.nblk = c.nb;
                x.bytes = f->bytes;
                x.mode = MM_XFER_COPY;
                x.tag_op = (uint8_t)f->tag_op;
                c.rc = push(&c, &x);
                c.len = 1;
            } else if (f->kind == PH_SHM) {
                shm_phase(&c, with_shm);
            } else {
                c.snb = m->nblocks(&f->sub);
                c.soff = NULL;
                if (c.snb > 1 && c.off) {
                    c.soff = malloc(((size_t)c.snb + 1) * sizeof *c.soff);
                    if (!c.soff) {
                        c.rc = MMS_ENOMEM;
                        break;
                    }
                    c.soff[0] = 0;
                    for (uint32_t b = 0; b < c.snb; b++)
                        c.soff[b + 1] = c.soff[b] + m->block_bytes(&f->sub, b);
                    c.soff[c.snb] = 0; /* blk + nblk == snb wraps to offset 0 */
                }
                char err[160];
                int rc = m->expand(&f->sub, sub_put, &c, err, sizeof err);
                free(c.soff);
                if (rc)
                    c.rc = rc;
            }
            if (c.len > longest)
                longest = c.len;
        }
        c.base += longest;
    }
    if (c.n) /* qsort wants an array, even of 0 elements */
        qsort(c.v, c.n, sizeof *c.v, by_step);
    for (size_t i = 0; i < c.n && !c.rc; i++)
        c.rc = fn(fctx, &c.v[i].x);
    free(c.v);
    free((void *)c.off);
    plan_free(&p);
    return c.rc;
}

void mm_coll_mpich_comp_emit(mm_coll_emitter *e, int with_shm)
{
    if (!e->rc)
        e->rc = emit_all(e->m, e->d, e->fn, e->ctx, with_shm);
}

int mm_coll_mpich_comp_expand_shm(const mm_coll_model *m, const mm_coll_desc *d,
                                  mm_coll_emit_fn fn, void *ctx, char *err, size_t errlen)
{
    int rc = m->check(d, err, errlen);
    return rc != MMS_OK ? rc : emit_all(m, d, fn, ctx, 1);
}

/* ---- checks, counters, selection ---- */

int mm_coll_mpich_parent(int32_t n, const int32_t *node)
{
    if (!node || n < 2)
        return 0;
    layout L;
    if (layout_build(&L, n, node))
        return 0;
    int parent = L.m < n;
    layout_release(&L);
    return parent;
}

static int scan_consecutive(int32_t n, const int32_t *node)
{
    layout L;
    if (!node || n < 2 || layout_build(&L, n, node))
        return 0;
    int c = consecutive(&L);
    layout_release(&L);
    return c;
}

int mm_coll_mpich_comp_check(const mm_coll_model *m, const mm_coll_desc *d, char *err,
                             size_t errlen)
{
    if (d->alg != MM_ALG_MPICH_COMPOSITION)
        return MMS_OK;
    if (mm_coll_nonblocking(d->op) && d->op != MM_COLL_IBCAST && d->op != MM_COLL_IREDUCE &&
        d->op != MM_COLL_ISCAN) {
        snprintf(err, errlen, "MPICH has no ch4 composition or sched_smp algorithm for %s",
                 mm_coll_name(d->op));
        return MMS_EFORMAT;
    }
    if (!mm_coll_mpich_parent(d->n, d->node)) {
        snprintf(err, errlen, "mpich_composition needs the node of each rank, some node "
                 "holding two or more (a parent communicator)");
        return MMS_EFORMAT;
    }
    if (mm_coll_family(d->op) == MM_COLL_SCAN && !scan_consecutive(d->n, d->node)) {
        snprintf(err, errlen, "MPICH's %s on nodes whose ranks are not consecutive is MPIR's "
                 "recursive doubling, not mpich_composition", mm_coll_name(d->op));
        return MMS_EFORMAT;
    }
    if (d->n > 1 && mm_coll_family(d->op) != MM_COLL_ALLREDUCE && which(d->op, d->n, d->bytes, d->node) == COMP_GAMMA) {
        snprintf(err, errlen, "MPICH runs %s composition gamma here: the flat MPIR algorithm, "
                 "not mpich_composition", mm_coll_name(d->op));
        return MMS_EFORMAT;
    }
    plan p;
    if (plan_build(&p, m, d)) {
        snprintf(err, errlen, "out of memory planning the composition");
        return MMS_ENOMEM;
    }
    int rc = MMS_OK;
    for (int i = 0; i < p.nph && rc == MMS_OK; i++)
        if (p.ph[i].kind == PH_MPIR) {
            char why[200];
            if (m->check(&p.ph[i].sub, why, sizeof why) != MMS_OK) {
                snprintf(err, errlen, "%s phase on %d ranks: %s", mm_coll_name(p.ph[i].op),
                         (int)p.ph[i].sub.n, why);
                rc = MMS_EFORMAT;
            }
        }
    plan_free(&p);
    return rc;
}

void mm_coll_mpich_comp_shm_count(const mm_coll_model *m, const mm_coll_desc *d,
                                  uint32_t shm_calls[2])
{
    plan p;
    if (d->alg != MM_ALG_MPICH_COMPOSITION || !d->node || plan_build(&p, m, d))
        return;
    shm_calls[0] += (uint32_t)p.bumps[0];
    shm_calls[1] += (uint32_t)p.bumps[1];
    plan_free(&p);
}

static const char *const rules[][3] = {
    [MM_COLL_BCAST] = {
        "mpich 4.0.2 ch4/generic.json: parent: bcast composition alpha: root to its node root, "
        "MPIR bcast among node roots, bcast in each node (release_gather from the 5th call)",
        "mpich 4.0.2 ch4/generic.json: parent, pow2, < 524288 B: bcast composition beta: bcast "
        "in the root's node, MPIR bcast among node roots, in the other nodes (release_gather "
        "from the 5th call)",
        "mpich 4.0.2 ch4/generic.json: parent: bcast composition gamma: MPIR bcast on the "
        "communicator"},
    [MM_COLL_REDUCE] = {
        "mpich 4.0.2 ch4/generic.json: parent, commutative: reduce composition alpha: reduce in "
        "each node, MPIR reduce among node roots to rank 0, rank 0 sends to the root",
        "mpich 4.0.2 ch4/generic.json: parent, commutative, <= 2048 B: reduce composition beta: "
        "reduce in the other nodes, MPIR reduce among node roots, in the root's node",
        "mpich 4.0.2 ch4/generic.json: parent, noncommutative: reduce composition gamma: MPIR "
        "reduce on the communicator"},
    [MM_COLL_ALLREDUCE] = {
        "mpich 4.0.2 ch4/generic.json: parent, commutative: allreduce composition alpha: reduce "
        "in each node, MPIR allreduce among node roots, bcast in each node (release_gather "
        "from the 5th call)",
        "mpich 4.0.2 ch4/generic.json: parent, noncommutative: allreduce composition beta: MPIR "
        "allreduce on the communicator",
        "mpich 4.0.2 ch4/generic.json: comm_size=node_comm_size: allreduce composition gamma: "
        "posix allreduce on the communicator (release_gather from the 5th call; "
        "noncommutative: MPIR)"},
    [MM_COLL_BARRIER] = {
        "mpich 4.0.2 ch4/generic.json: parent: barrier composition alpha: barrier in each node, "
        "MPIR barrier among node roots, 1-byte bcast in each node (release_gather from the "
        "5th call)", NULL, NULL},
};


/* mpir/generic.json on a parent communicator, ibcast and ireduce. */
static int smp_select(const mm_coll_query *q, mm_coll_choice flat, mm_coll_choice *c)
{
    *c = flat;
    if (q->op == MM_COLL_IREDUCE && q->noncommutative) {
        c->rule = "mpich 4.0.2 mpir/generic.json: ireduce, parent, is_commutative=no: "
                  "sched_binomial (rooted at 0, then 0 to the root)";
        return 1;
    }
    if (q->op == MM_COLL_ISCAN && !scan_consecutive(q->n, q->node)) {
        c->rule = "mpich 4.0.2 mpir/generic.json: iscan, parent: sched_smp, not node-consecutive "
                  "(MPII_Comm_is_node_consecutive): sched_recursive_doubling";
        return 1;
    }
    if (q->op != MM_COLL_IBCAST && q->op != MM_COLL_IREDUCE && q->op != MM_COLL_ISCAN)
        return 0;
    c->alg = MM_ALG_MPICH_COMPOSITION;
    c->sub[0] = c->sub[1] = 0;
    c->substitute = 0;
    c->rule = q->op == MM_COLL_IBCAST
        ? "mpich 4.0.2 mpir/generic.json: ibcast, parent: sched_smp: root to its node's local "
          "rank 0, ibcast among node roots, ibcast in each node (point-to-point schedules)"
        : q->op == MM_COLL_IREDUCE
        ? "mpich 4.0.2 mpir/generic.json: ireduce, parent, commutative: sched_smp: ireduce in "
          "the other nodes, among node roots, in the root's node (point-to-point schedules)"
        : "mpich 4.0.2 mpir/generic.json: iscan, parent, node-consecutive: sched_smp: iscan in "
          "each node, node totals to the node roots, iscan among them, prefix to the next node "
          "root, ibcast in the other nodes (point-to-point schedules)";
    return 1;
}

int mm_coll_mpich_comp_select(const mm_coll_query *q, mm_coll_choice flat, mm_coll_choice *c)
{
    int fam = mm_coll_family(q->op);
    if (mm_coll_nonblocking(q->op) && mm_coll_mpich_parent(q->n, q->node))
        return smp_select(q, flat, c);
    if (mm_coll_nonblocking(q->op) || !mm_coll_mpich_parent(q->n, q->node) ||
        (fam != MM_COLL_BCAST && fam != MM_COLL_REDUCE && fam != MM_COLL_ALLREDUCE &&
         fam != MM_COLL_BARRIER && fam != MM_COLL_SCAN))
        return 0;
    if (fam == MM_COLL_SCAN) { /* is_node_consecutive=no: beta, MPIR's; flat's rule */
        if (!scan_consecutive(q->n, q->node))
            return 0;
        *c = flat;
        c->alg = MM_ALG_MPICH_COMPOSITION;
        c->sub[0] = c->sub[1] = 0;
        c->substitute = 0;
        c->rule = "mpich 4.0.2 ch4/generic.json: is_node_consecutive=yes: scan composition "
                  "alpha: MPIR scan in each node, node totals to the node roots, MPIR scan among "
                  "them, prefix to the next node root, 4-byte flag bcast in each node and the "
                  "prefix bcast in the others (release_gather from the 5th call)";
        return 1;
    }
    int comp = which(q->op, q->n, q->bytes, q->node);
    if (q->noncommutative && fam == MM_COLL_REDUCE)
        comp = COMP_GAMMA;
    if (q->noncommutative && fam == MM_COLL_ALLREDUCE && comp == COMP_ALPHA)
        comp = COMP_BETA;
    *c = flat;
    c->rule = rules[fam][comp - 1];
    /* flat MPIR on the communicator: reduce/bcast gamma, allreduce beta,
     * and allreduce gamma for a noncommutative op (posix has no
     * release_gather for it and falls back to MPIR on the communicator) */
    if ((comp == COMP_GAMMA && fam != MM_COLL_ALLREDUCE) || (fam == MM_COLL_ALLREDUCE &&
        (comp == COMP_BETA || q->noncommutative)))
        return 1;
    c->alg = MM_ALG_MPICH_COMPOSITION;
    c->rule = rules[fam][comp - 1];
    c->sub[0] = c->sub[1] = 0;
    c->substitute = 0; /* every phase is an MPIR algorithm implemented here */
    return 1;
}
