/*
 * conv_coll.c - collective calls into the point-to-point transfers a real
 * MPI sends (docs/convert.md, "Collectives").
 *
 * MPI requires every member of a communicator to call its collectives in
 * the same order, so the k-th collective record on a communicator in every
 * member's file is one call. Its algorithm is the one the library of the
 * trace (or --mpi) picks for the operation, size, communicator size,
 * element size, commutativity and the ranks' hosts (mm_coll_select); its transfers (mm_coll_expand) run step by step: every
 * member starts at its own call time; in each step a rank posts the
 * receives of the step and sends its messages at its clock, and its clock
 * then moves to the latest arrival it waited for. Every transfer becomes a
 * message (kind COLL) and a receive posted by its destination at the start
 * of the step, both on the operation's negative tag (mm_coll_xfer_tag: the
 * reduce's, then the scatter's, in Open MPI's two-collective
 * reduce_scatter).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_algo.h"
#include "conv_internal.h"

/* Trace op (enum mmt_coll) -> enum mm_coll_op of the blocking call. */
static int op_of(int sub)
{
    switch (sub) {
    case MMT_C_BARRIER:   return MM_COLL_BARRIER;
    case MMT_C_BCAST:     return MM_COLL_BCAST;
    case MMT_C_REDUCE:    return MM_COLL_REDUCE;
    case MMT_C_ALLREDUCE: return MM_COLL_ALLREDUCE;
    case MMT_C_GATHER:    return MM_COLL_GATHER;
    case MMT_C_GATHERV:   return MM_COLL_GATHERV;
    case MMT_C_SCATTER:   return MM_COLL_SCATTER;
    case MMT_C_SCATTERV:  return MM_COLL_SCATTERV;
    case MMT_C_ALLGATHER: return MM_COLL_ALLGATHER;
    case MMT_C_ALLGATHERV: return MM_COLL_ALLGATHERV;
    case MMT_C_ALLTOALL:  return MM_COLL_ALLTOALL;
    case MMT_C_ALLTOALLV: case MMT_C_ALLTOALLW: return MM_COLL_ALLTOALLV;
    case MMT_C_REDUCE_SCATTER: return MM_COLL_REDUCE_SCATTER;
    case MMT_C_REDUCE_SCATTER_BLOCK: return MM_COLL_REDUCE_SCATTER_BLOCK;
    case MMT_C_SCAN:      return MM_COLL_SCAN;
    case MMT_C_EXSCAN:    return MM_COLL_EXSCAN;
    default:              return MM_COLL_NONE;
    }
}

/* The nonblocking operation: its own where mm_coll_op has one (iscatterv,
 * ireduce_scatter_block), else the family's: igather also stands for
 * igatherv, and so on (the schedules are the same, counts are taken equal). */
static int nb_op_of(int op)
{
    int nb = mm_coll_nonblocking_of(op);
    if (nb != op)
        return nb;
    int fam = mm_coll_family(op);
    return mm_coll_nonblocking_of(fam >= 0 ? fam : op);
}

typedef struct crec { uint64_t tcomm; int32_t rank; size_t k; } crec;

static int cmp_crec(const void *a, const void *b)
{
    const crec *x = a, *y = b;
    if (x->tcomm != y->tcomm)
        return x->tcomm < y->tcomm ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Bytes of the description (coll_algo.h) from the members' records (what
 * the tracer writes: docs/trace-format.md, "Bytes of collectives"). */
static uint64_t desc_bytes(int fam, int32_t n, int32_t root, const mmt_record *const *rec)
{
    uint64_t sum = 0, max = 0;
    for (int32_t i = 0; i < n; i++) {
        sum += rec[i]->bytes;
        if (rec[i]->bytes > max)
            max = rec[i]->bytes;
    }
    uint64_t nn = (uint64_t)n;
    switch (fam) {
    case MM_COLL_GATHER: case MM_COLL_ALLGATHER: return (sum + nn - 1) / nn;
    case MM_COLL_ALLTOALL: return (sum + nn * nn - 1) / (nn * nn);
    case MM_COLL_BCAST: return rec[root]->bytes;
    case MM_COLL_REDUCE: case MM_COLL_ALLREDUCE: return max;
    /* the root sends all n blocks (scatterv: its counts summed); the others
     * record 0 sent */
    case MM_COLL_SCATTER: return (rec[root]->bytes + nn - 1) / nn;
    /* every member sends the whole vector of n blocks (the sum of the
     * receive counts) */
    case MM_COLL_REDUCE_SCATTER: return (max + nn - 1) / nn;
    case MM_COLL_SCAN: case MM_COLL_EXSCAN: return max;
    default: return 0;
    }
}

/* Element size and commutativity of a call (docs/trace-format.md: tag and
 * src of COLL/ICOLL; 0 in traces that predate them: unknown). The members
 * name the same datatype size; the first nonzero one is taken. A reduction
 * is noncommutative when any member says so. */
static void coll_attrs(int32_t n, const mmt_record *const *rec, mm_coll_query *q)
{
    for (int32_t i = 0; i < n; i++) {
        if (!q->elem && rec[i]->tag > 0)
            q->elem = (uint32_t)rec[i]->tag;
        if (rec[i]->src == MMT_OP_NONCOMMUTATIVE)
            q->noncommutative = 1;
    }
}

typedef struct plan {
    mm_coll_desc d;
    mm_coll_xfer *x;
    size_t nx;
} plan;

/* Expand d, reusing the previous expansion when the call is the same. */
static int expand(plan *p, const mm_coll_desc *d, char *err, size_t errlen)
{
    if (p->x && memcmp(&p->d, d, sizeof *d) == 0)
        return MMS_OK;
    free(p->x);
    p->x = NULL;
    p->d = *d;
    return mm_coll_expand_array(d, &p->x, &p->nx, err, errlen);
}

typedef struct call_ctx {
    cv_conv *c;
    const mmt_comm *cm;
    uint64_t tcomm;
    int32_t comm, n;
    uint64_t *clock, *next;
    int32_t *node;                /* host index of each rank of the communicator */
    uint32_t calls[MM_COLL_OP_COUNT];
    uint32_t nbc;                 /* nonblocking collectives started so far */
    uint32_t shm[2];              /* MPICH release_gather calls so far (mm_coll_desc.shm_calls) */
    plan p;
} call_ctx;

static int run_call(call_ctx *cc, const mmt_record *const *rec, char *err, size_t errlen)
{
    cv_conv *c = cc->c;
    int32_t n = cc->n;
    const mmt_record *r0 = rec[0];
    int nb = r0->type == MMT_ICOLL;
    uint32_t nbc = nb ? cc->nbc++ : 0;
    for (int32_t i = 1; i < n; i++)
        if (rec[i]->sub != r0->sub || rec[i]->type != r0->type) {
            c->skipped_coll++;
            return cv_warn(c, "communicator %llu.%llu: members disagree on a collective call "
                              "(%s %s at world rank %d, %s %s at world rank %d); call skipped",
                           (unsigned long long)(cc->tcomm >> 32),
                           (unsigned long long)(cc->tcomm & 0xffffffffu),
                           mmt_type_name(r0->type), mmt_coll_name(r0->sub),
                           (int)mmt_comm_world(cc->cm, 0, 0), mmt_type_name(rec[i]->type),
                           mmt_coll_name(rec[i]->sub), (int)mmt_comm_world(cc->cm, i, 0));
        }
    c->coll_calls++;
    int op = op_of(r0->sub);
    if (nb)
        op = nb_op_of(op);
    int fam = mm_coll_family(op);
    if (fam < 0 || (nb && !mm_coll_nonblocking(op)) || n > MM_COLL_MAX_N ||
        (fam == MM_COLL_ALLTOALL && n > MM_COLL_MAX_N_A2A)) {
        c->skipped_op[r0->sub < 32 ? r0->sub : 0]++;
        return MMS_OK;
    }
    int32_t root = 0;
    if (fam == MM_COLL_GATHER || fam == MM_COLL_BCAST || fam == MM_COLL_REDUCE ||
        fam == MM_COLL_SCATTER) {
        root = r0->peer;
        if (root < 0 || root >= n) {
            c->skipped_op[r0->sub]++;
            return MMS_OK;
        }
    }
    mm_coll_query q = { op, n, desc_bytes(fam, n, root, rec), 0, 0, c->lib, cc->node };
    coll_attrs(n, rec, &q);
    mm_coll_choice choice = mm_coll_select(&q);
    mm_coll_desc d = { op, choice.alg, n, root, q.bytes, q.elem, {choice.sub[0], choice.sub[1]},
                      cc->node, {cc->shm[0], cc->shm[1]} };
    /* MPICH counts the call's release_gather calls whether or not it is
     * expanded here */
    mm_coll_mpich_shm_count(&d, cc->shm);
    char why[160];
    if (mm_coll_check(&d, why, sizeof why) != MMS_OK) {
        /* the schedules refuse what the rules chose (a bug of ours, not of
         * the trace): leave the call out and say so with the reason rather
         * than fail the whole conversion */
        if (r0->sub < 32 && !c->refused_op[r0->sub]++) {
            c->refused_alg[r0->sub] = choice.alg;
            c->refused_rule[r0->sub] = choice.rule;
            snprintf(c->refused_why[r0->sub], sizeof c->refused_why[r0->sub], "%s", why);
        }
        return MMS_OK;
    }
    if (choice.substitute && r0->sub < 32 && !c->substituted_op[r0->sub]++)
        c->substituted_rule[r0->sub] = choice.rule;
    int rc = expand(&cc->p, &d, err, errlen);
    if (rc)
        return rc;
    c->coll_expanded++;
    uint32_t call = ++cc->calls[op];
    for (int32_t i = 0; i < n; i++) {
        int32_t w = mmt_comm_world(cc->cm, i, 0);
        cc->clock[i] = cv_time(&c->r[w], rec[i]->t_start);
    }
    const mm_coll_xfer *x = cc->p.x;
    size_t nx = cc->p.nx;
    for (size_t a = 0; a < nx;) {
        size_t b = a;
        while (b < nx && x[b].step == x[a].step)
            b++;
        memcpy(cc->next, cc->clock, (size_t)n * sizeof *cc->next);
        for (size_t k = a; k < b; k++) {
            int32_t sw = mmt_comm_world(cc->cm, x[k].src, 0), dw = mmt_comm_world(cc->cm, x[k].dst, 0);
            uint64_t ts = cc->clock[x[k].src];
            int32_t tag = mm_coll_xfer_tag(&x[k], nbc);
            uint64_t arr = cv_arrival(cv_link(c, sw, dw), ts, x[k].bytes);
            if (arr > cc->next[x[k].dst])
                cc->next[x[k].dst] = arr;
            cv_msg m = { .t_send = ts, .bytes = x[k].bytes, .tcomm = cc->tcomm, .src_w = sw,
                         .dst_w = dw, .src_c = x[k].src, .tag = tag, .comm = cc->comm,
                         .np = (uint32_t)n, .call = call, .kind = MM_KIND_COLL,
                         .coll_op = (uint8_t)op };
            cv_rank *dr = &c->r[dw];
            cv_ev e = { cc->clock[x[k].dst], dr->evs.n, CV_CLS_CALL,
                        mm_event_make(MM_EV_RECV, 0, cc->comm, x[k].src, tag) };
            e.ev.kind = MM_KIND_COLL;
            e.ev.coll_op = (uint8_t)op;
            e.ev.comm_size = (uint32_t)n;
            e.ev.call = call;
            e.ev.bytes = x[k].bytes;
            e.ev.t = e.t;
            if (cv_push_msg(c, &m) || cv_push_ev(&dr->evs, &e))
                goto nomem;
            c->coll_xfers++;
        }
        memcpy(cc->clock, cc->next, (size_t)n * sizeof *cc->clock);
        a = b;
    }
    return MMS_OK;
nomem:
    snprintf(err, errlen, "out of memory");
    return MMS_ENOMEM;
}

/* All calls on one communicator: recs[0..m) are its records, by rank. */
static int one_comm(cv_conv *c, const crec *cr, size_t m, char *err, size_t errlen)
{
    uint64_t tcomm = cr[0].tcomm;
    const mmt_comm *cm = mmt_comm_find(c->r[cr[0].rank].rd, tcomm);
    int32_t comm = cv_comm_id(c, tcomm);
    if (tcomm == MMT_COMM_UNKNOWN || !cm || comm < 0 || cm->inter) {
        c->skipped_coll += m;
        return cv_warn(c, "%zu collective records on %s communicator not expanded", m,
                       cm && cm->inter ? "an intercommunicator" : "an unknown");
    }
    int32_t n = cm->size;
    /* Per member: where its records start in cr and how many there are. */
    size_t *start = calloc((size_t)n, sizeof *start), *count = calloc((size_t)n, sizeof *count);
    const mmt_record **rec = malloc((size_t)n * sizeof *rec);
    call_ctx cc = { .c = c, .cm = cm, .tcomm = tcomm, .comm = comm, .n = n };
    cc.clock = malloc((size_t)n * sizeof *cc.clock);
    cc.next = malloc((size_t)n * sizeof *cc.next);
    cc.node = malloc((size_t)n * sizeof *cc.node);
    int rc = MMS_OK;
    if (!start || !count || !rec || !cc.clock || !cc.next || !cc.node) {
        snprintf(err, errlen, "out of memory");
        rc = MMS_ENOMEM;
        goto out;
    }
    size_t ncalls = SIZE_MAX, most = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t w = mmt_comm_world(cm, i, 0);
        cc.node[i] = c->r[w].node; /* the host its trace header names */
        size_t a = 0;
        while (a < m && cr[a].rank < w)
            a++;
        size_t b = a;
        while (b < m && cr[b].rank == w)
            b++;
        start[i] = a;
        count[i] = b - a;
        if (count[i] < ncalls)
            ncalls = count[i];
        if (count[i] > most)
            most = count[i];
    }
    if (most > ncalls) {
        c->skipped_coll += m - ncalls * (size_t)n;
        if ((rc = cv_warn(c, "communicator %llu.%llu: members recorded %zu to %zu collective "
                             "calls (a partial trace?); the first %zu are expanded",
                          (unsigned long long)(tcomm >> 32), (unsigned long long)(tcomm & 0xffffffffu),
                          ncalls, most, ncalls)))
            goto out;
    }
    for (size_t k = 0; k < ncalls; k++) {
        for (int32_t i = 0; i < n; i++) {
            const crec *x = &cr[start[i] + k];
            rec[i] = &c->r[x->rank].rec[x->k];
        }
        if ((rc = run_call(&cc, rec, err, errlen)))
            goto out;
    }
out:
    free(start);
    free(count);
    free(rec);
    free(cc.clock);
    free(cc.next);
    free(cc.node);
    free(cc.p.x);
    return rc;
}

int cv_coll(cv_conv *c, char *err, size_t errlen)
{
    size_t m = 0;
    for (int32_t w = 0; w < c->n; w++)
        for (size_t k = 0; k < c->r[w].nrec; k++)
            m += c->r[w].rec[k].type == MMT_COLL || c->r[w].rec[k].type == MMT_ICOLL;
    crec *cr = malloc((m ? m : 1) * sizeof *cr);
    if (!cr) {
        snprintf(err, errlen, "out of memory");
        return MMS_ENOMEM;
    }
    m = 0;
    for (int32_t w = 0; w < c->n; w++)
        for (size_t k = 0; k < c->r[w].nrec; k++) {
            const mmt_record *x = &c->r[w].rec[k];
            if (x->type == MMT_COLL || x->type == MMT_ICOLL)
                cr[m++] = (crec){ (x->flags & MMT_F_NOCOMM) ? MMT_COMM_UNKNOWN : x->comm, w, k };
        }
    if (m)
        qsort(cr, m, sizeof *cr, cmp_crec);
    int rc = MMS_OK;
    for (size_t a = 0; a < m && rc == MMS_OK;) {
        size_t b = a;
        while (b < m && cr[b].tcomm == cr[a].tcomm)
            b++;
        rc = one_comm(c, cr + a, b - a, err, errlen);
        a = b;
    }
    free(cr);
    return rc;
}
