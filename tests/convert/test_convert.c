/*
 * test_convert.c - mpimatch-convert's passes on hand-made traces
 * (trace_builder.h): timing of receives and arrivals, non-overtaking,
 * resolved wildcards, probes and cancels, collective expansion against
 * coll_algo, replay agreement of every engine, bad input.
 *   test_convert WORKDIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../stream/tcheck.h"
#include "coll_algo.h"
#include "convert.h"
#include "replay.h"
#include "stream.h"
#include "replay_resolved.h"
#include "trace_builder.h"

static const char *work;
static char tdir[256], odir[256];

/* Defaults: intra L=300 o=100 g=50 G=100ps; inter L=1000 o=200 g=100 G=80ps. */
static uint64_t intra(uint64_t t, uint64_t bytes) { return t + 100 + 300 + (bytes - 1) * 100 / 1000; }
static uint64_t inter(uint64_t t, uint64_t bytes) { return t + 200 + 1000 + (bytes - 1) * 80 / 1000; }

/* Convert WORK/NAME.trace into WORK/NAME.out: collective rules lib (-1:
 * the trace's), clocks lined up by clock (MM_CONV_CLOCK_*). */
static int run_with(const char *name, int lib, int clock, char *err, size_t errlen)
{
    snprintf(tdir, sizeof tdir, "%s/%s.trace", work, name);
    snprintf(odir, sizeof odir, "%s/%s.out", work, name);
    mm_conv_opts o;
    mm_conv_defaults(&o);
    o.trace_dir = tdir;
    o.out_dir = odir;
    o.clock = clock;
    if (lib >= 0)
        o.lib = lib;
    return mm_convert(&o, err, errlen);
}

static int run(const char *name, int lib, char *err, size_t errlen)
{
    return run_with(name, lib, MM_CONV_CLOCK_CAUSAL, err, errlen);
}

static int load(mm_stream *s, int32_t rank)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/rank-%06d.mms", odir, (int)rank);
    int rc = mm_stream_load(s, path, 0, err, sizeof err);
    CHECK_MSG(rc == MMS_OK, "%s", err);
    return rc;
}

static char *slurp(const char *path)
{
    char *d = NULL, err[512];
    size_t n;
    if (mm_read_file(path, &d, &n, err, sizeof err) != MMS_OK)
        return NULL;
    return d;
}

static char *index_json(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/index.json", odir);
    return slurp(path);
}

/* Every engine gives the list engine's outcomes; nothing stays queued. */
static void replay_all(const mm_stream *s, const char *what)
{
    char err[1024];
    uint32_t hints = mm_stream_hints(s, NULL, NULL);
    mm_replay r;
    CHECK(mm_replay_init(&r, s, 1, err, sizeof err) == MMR_OK);
    uint64_t ref = 0;
    int ran = 0;
    for (size_t i = 0; i < mm_engine_count(); i++) {
        const mm_engine_info *in = mm_engine_at(i);
        if (in->hints_required & ~hints)
            continue;
        mm_config cfg = { s->np, hints, 0, NULL, 0 };
        mm_replay_result res;
        int rc = mm_replay_run(&r, in, &cfg, 0, 1, &res, err, sizeof err);
        CHECK_MSG(rc == MMR_OK, "%s/%s: %s", what, in->name, err);
        if (ran++ == 0)
            ref = res.hash;
        CHECK_MSG(res.hash == ref, "%s: %s disagrees with the first engine", what, in->name);
    }
    CHECK(ran >= 2);
    mm_replay_free(&r);
    mm_resolved_report rep;
    CHECK(mm_replay_check_resolved(s, &rep, err, sizeof err) == MMS_OK);
    CHECK_MSG(rep.differ == 0 && rep.unmatched == 0, "%s: resolved differ %llu unmatched %llu", what,
              (unsigned long long)rep.differ, (unsigned long long)rep.unmatched);
    CHECK_MSG(rep.recv_pending == 0 && rep.msg_pending == 0, "%s: left queued %llu R %llu M", what,
              (unsigned long long)rep.recv_pending, (unsigned long long)rep.msg_pending);
}

/* A send/recv pair: R at the call time, M at send + o + L + (b-1)G, on
 * both link classes. */
static void test_pair(void)
{
    static const char *const hosts[3] = { "a", "a", "b" };
    tb b;
    char err[1024];
    tb_init(&b, 3, "openmpi", hosts);
    tb_send(&b, 0, 1, 5, 100, 1000);
    tb_recv(&b, 1, 0, 5, 0, 5, 500);
    tb_send(&b, 0, 2, 6, 100, 1100);
    tb_recv(&b, 2, 0, 6, 0, 6, 3000);
    snprintf(tdir, sizeof tdir, "%s/pair.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run("pair", -1, err, sizeof err) == MMS_OK, "%s", err);
    mm_stream s;
    if (load(&s, 1) == MMS_OK) {
        CHECK(s.n == 2 && s.np == 3);
        CHECK(s.ev[0].type == 'R' && s.ev[0].src == 0 && s.ev[0].tag == 5 && s.ev[0].t == 500 &&
              s.ev[0].comm == 0 && s.ev[0].resolved == 0);
        CHECK_MSG(s.ev[1].type == 'M' && s.ev[1].src == 0 && s.ev[1].tag == 5 && s.ev[1].bytes == 100 &&
                  s.ev[1].t == intra(1000, 100), "M t=%llu", (unsigned long long)s.ev[1].t);
        replay_all(&s, "pair/1");
        mm_stream_free(&s);
    }
    if (load(&s, 2) == MMS_OK) {
        /* inter-node: the message arrives before the receive is posted */
        CHECK(s.n == 2 && s.ev[0].type == 'M' && s.ev[0].t == inter(1100, 100) && s.ev[1].type == 'R');
        mm_stream_free(&s);
    }
    if (load(&s, 0) == MMS_OK) {
        CHECK(s.n == 0);
        mm_stream_free(&s);
    }
    char *j = index_json();
    CHECK(j && strstr(j, "\"format\": \"mpimatch-streams\"") && strstr(j, "\"ranks\": 3") &&
          strstr(j, "\"latency_ns\": 1000") && strstr(j, "\"rank-000002.mms\"") &&
          strstr(j, "\"warnings\": []"));
    free(j);
}

/* A big message then a small one: the small one arrives with the big one,
 * after it, never before. */
static void test_overtaking(void)
{
    tb b;
    char err[1024];
    tb_init(&b, 2, "openmpi", NULL);
    uint64_t r1 = tb_irecv(&b, 1, 0, 1, 10), r2 = tb_irecv(&b, 1, 0, 2, 20);
    tb_send(&b, 0, 1, 1, 1 << 20, 1000);
    tb_send(&b, 0, 1, 2, 8, 1010);
    tb_complete(&b, 1, r1, 0, 1, 0, 200000);
    tb_complete(&b, 1, r2, 0, 2, 0, 200000);
    snprintf(tdir, sizeof tdir, "%s/order.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run("order", -1, err, sizeof err) == MMS_OK, "%s", err);
    mm_stream s;
    if (load(&s, 1) == MMS_OK) {
        CHECK(s.n == 4);
        uint64_t big = intra(1000, 1 << 20);
        CHECK(s.ev[2].type == 'M' && s.ev[2].tag == 1 && s.ev[2].t == big);
        /* alone it would arrive at 1050 + 400 (gap after the first inject) */
        CHECK(s.ev[3].type == 'M' && s.ev[3].tag == 2 && s.ev[3].t == big);
        replay_all(&s, "order/1");
        mm_stream_free(&s);
    }
}

/* Wildcards are kept; what they got becomes src_resolved/tag_resolved. */
static void test_wildcards(void)
{
    tb b;
    char err[1024];
    tb_init(&b, 3, "openmpi", NULL);
    tb_send(&b, 2, 0, 7, 4, 100);
    tb_send(&b, 1, 0, 8, 4, 5000);
    tb_recv(&b, 0, MMT_ANY_SOURCE, MMT_ANY_TAG, 2, 7, 50);
    uint64_t q = tb_irecv(&b, 0, MMT_ANY_SOURCE, 8, 900);
    tb_complete(&b, 0, q, 1, 8, 0, 6000);
    snprintf(tdir, sizeof tdir, "%s/wild.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run("wild", -1, err, sizeof err) == MMS_OK, "%s", err);
    mm_stream s;
    if (load(&s, 0) == MMS_OK) {
        CHECK(s.n == 4);
        const mm_event *e = s.ev;
        CHECK(e[0].type == 'R' && e[0].src == MM_ANY_SOURCE && e[0].tag == MM_ANY_TAG &&
              e[0].resolved == MM_RES_ALL && e[0].src_resolved == 2 && e[0].tag_resolved == 7);
        CHECK(e[1].type == 'M' && e[1].src == 2);
        CHECK(e[2].type == 'R' && e[2].src == MM_ANY_SOURCE && e[2].tag == 8 &&
              e[2].resolved == MM_RES_ALL && e[2].src_resolved == 1 && e[2].tag_resolved == 8);
        CHECK(e[3].type == 'M' && e[3].src == 1);
        replay_all(&s, "wild/0");
        mm_stream_free(&s);
    }
}

/* Iprobe (not found / found), Mprobe placed at its message's arrival,
 * Improbe that found nothing as P, Cancel of an Irecv. */
static void test_probes(void)
{
    tb b;
    char err[1024];
    tb_init(&b, 2, "openmpi", NULL);
    tb_send(&b, 0, 1, 5, 8, 1000);
    tb_send(&b, 0, 1, 6, 8, 2050);
    tb_probe(&b, MMT_IPROBE, 1, 0, 5, 0, 0, 0, 100);
    tb_probe(&b, MMT_IPROBE, 1, 0, 5, 1, 0, 5, 2000);
    tb_recv(&b, 1, 0, 5, 0, 5, 2010);
    tb_probe(&b, MMT_MPROBE, 1, MMT_ANY_SOURCE, 6, 1, 0, 6, 2100);
    tb_probe(&b, MMT_IMPROBE, 1, MMT_ANY_SOURCE, MMT_ANY_TAG, 0, 0, 0, 2200);
    uint64_t q = tb_irecv(&b, 1, MMT_ANY_SOURCE, 99, 3000);
    tb_cancel(&b, 1, q, 3010);
    tb_complete(&b, 1, q, 0, 0, 1, 3020);
    snprintf(tdir, sizeof tdir, "%s/probe.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run("probe", -1, err, sizeof err) == MMS_OK, "%s", err);
    mm_stream s;
    if (load(&s, 1) == MMS_OK) {
        const mm_event *e = s.ev;
        CHECK_MSG(s.n == 9, "n=%zu", s.n);
        if (s.n == 9) {
            CHECK(e[0].type == 'P' && e[0].src == 0 && e[0].tag == 5);         /* t=100, nothing */
            CHECK(e[1].type == 'M' && e[1].tag == 5);                          /* 1409 */
            CHECK(e[2].type == 'P' && e[2].tag == 5);                          /* 2000, finds it */
            CHECK(e[3].type == 'R' && e[3].tag == 5);                          /* 2010 */
            CHECK(e[4].type == 'P' && e[4].src == MM_ANY_SOURCE && e[4].tag == MM_ANY_TAG); /* 2200 */
            CHECK(e[5].type == 'M' && e[5].tag == 6 && e[5].t == intra(2050, 8)); /* 2459 */
            CHECK(e[6].type == 'X' && e[6].src == MM_ANY_SOURCE && e[6].tag == 6); /* after it */
            CHECK(e[7].type == 'R' && e[7].tag == 99);
            CHECK(e[8].type == 'C' && e[8].id == e[7].id);
        }
        replay_all(&s, "probe/1");
        /* The X finds the message, the probe at 2000 finds the first one. */
        mm_replay r;
        mm_config cfg = { s.np, 0, 0, NULL, 0 };
        mm_replay_result res;
        CHECK(mm_replay_init(&r, &s, 1, err, sizeof err) == MMR_OK);
        CHECK(mm_replay_run(&r, mm_engine_find("list"), &cfg, 0, 1, &res, err, sizeof err) == MMR_OK);
        CHECK(res.counts.mprobe_hits == 1 && res.counts.probe_hits == 1 && res.counts.probe_misses == 2);
        mm_replay_free(&r);
        mm_stream_free(&s);
    }
}

/* Collectives on 8 ranks (two hosts of 4) expand into exactly coll_algo's
 * transfers, with COLL attributes and the operation's negative tag. The
 * algorithm is mm_coll_select's for the query the records give: element
 * size (tag), commutativity (src) and each rank's host. */
typedef struct want_coll {
    int trace_op, type, mm_op; int32_t root; uint64_t bytes, desc_bytes;
    int32_t elem, commut;
} want_coll;

static void test_collectives(int lib)
{
    enum { N = 8 };
    tb b;
    char err[1024];
    static const char *const hosts[N] = { "a", "a", "b", "b", "a", "a", "b", "b" };
    static const int32_t node[N] = { 0, 0, 1, 1, 0, 0, 1, 1 }; /* host index, first seen first */
    tb_init(&b, N, lib == MM_COLL_LIB_MPICH ? "mpich" : "openmpi", hosts);
    const want_coll calls[] = {
        { MMT_C_BCAST, MMT_COLL, MM_COLL_BCAST, 0, 64, 64, 4, 0 },
        { MMT_C_ALLREDUCE, MMT_COLL, MM_COLL_ALLREDUCE, -1, 8, 8, 8, MMT_OP_COMMUTATIVE },
        { MMT_C_GATHER, MMT_COLL, MM_COLL_GATHER, 2, 16, 16, 0, 0 },
        { MMT_C_BARRIER, MMT_ICOLL, MM_COLL_IBARRIER, -1, 0, 0, 0, 0 },
        { MMT_C_ALLREDUCE, MMT_COLL, MM_COLL_ALLREDUCE, -1, 100000, 100000, 4, MMT_OP_COMMUTATIVE },
        { MMT_C_ALLREDUCE, MMT_COLL, MM_COLL_ALLREDUCE, -1, 100000, 100000, 4, MMT_OP_NONCOMMUTATIVE },
        { MMT_C_ALLTOALL, MMT_COLL, MM_COLL_ALLTOALL, -1, 8 * 64, 64, 8, 0 },
        { MMT_C_REDUCE, MMT_COLL, MM_COLL_REDUCE, 3, 8000, 8000, 8, MMT_OP_NONCOMMUTATIVE },
    };
    const size_t ncalls = sizeof calls / sizeof calls[0];
    uint64_t t[N];
    for (size_t k = 0; k < ncalls; k++) {
        for (int i = 0; i < N; i++)
            t[i] = 10000 * (k + 1) + (uint64_t)(i * 37 % 11) * 100;
        tb_coll_elem(&b, calls[k].type, calls[k].trace_op, calls[k].root, calls[k].bytes,
                     calls[k].elem, calls[k].commut, t);
    }
    snprintf(tdir, sizeof tdir, "%s/coll%d.trace", work, lib);
    tb_write(&b, tdir, 0, 0);
    char name[32];
    snprintf(name, sizeof name, "coll%d", lib);
    CHECK_MSG(run(name, -1, err, sizeof err) == MMS_OK, "%s", err);

    /* Expected M events per rank: per call, the transfers to it. */
    mm_stream s[N];
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= load(&s[i], i) == MMS_OK;
    if (!ok)
        return;
    uint32_t nbc = 0;
    uint32_t callno[MM_COLL_OP_COUNT] = { 0 };
    uint32_t shm[2] = { 0, 0 }; /* MPICH's release_gather counters, as convert keeps them */
    size_t total = 0;
    for (size_t k = 0; k < ncalls; k++) {
        const want_coll *w = &calls[k];
        int nb = w->type == MMT_ICOLL;
        mm_coll_query qy = { w->mm_op, N, w->desc_bytes, (uint32_t)w->elem,
                            w->commut == MMT_OP_NONCOMMUTATIVE, lib, node };
        mm_coll_choice ch = mm_coll_select(&qy);
        mm_coll_desc d = { w->mm_op, ch.alg, N, w->root < 0 ? 0 : w->root, w->desc_bytes,
                           qy.elem, { ch.sub[0], ch.sub[1] }, node, { shm[0], shm[1] } };
        mm_coll_mpich_shm_count(&d, shm);
        uint32_t nbi = nb ? nbc++ : 0;
        CHECK(mm_coll_tag(w->mm_op, nbi) < 0);
        /* every rule's choice is one the schedules expand */
        char why[256];
        int expandable = mm_coll_check(&d, why, sizeof why) == MMS_OK;
        CHECK_MSG(expandable, "call %zu: %s", k, why);
        if (!expandable)
            continue;
        mm_coll_xfer *x;
        size_t nx;
        CHECK(mm_coll_expand_array(&d, &x, &nx, err, sizeof err) == MMS_OK);
        uint32_t call = ++callno[w->mm_op];
        for (int dst = 0; dst < N; dst++) {
            /* count transfers to dst in the expansion and in the stream */
            size_t want_m = 0, got_m = 0, got_r = 0;
            for (size_t q = 0; q < nx; q++)
                if (x[q].dst == dst) {
                    want_m++;
                    size_t found = 0;
                    for (size_t e = 0; e < s[dst].n; e++) {
                        const mm_event *v = &s[dst].ev[e];
                        if (v->kind == MM_KIND_COLL && v->coll_op == w->mm_op && v->call == call &&
                            v->src == x[q].src && v->tag == mm_coll_xfer_tag(&x[q], nbi) &&
                            v->bytes == x[q].bytes &&
                            v->comm_size == N && v->comm == 0)
                            found += v->type == 'M' ? 1 : 0;
                    }
                    CHECK_MSG(found >= 1, "call %zu: transfer %d->%d missing", k, x[q].src, dst);
                }
            for (size_t e = 0; e < s[dst].n; e++) {
                const mm_event *v = &s[dst].ev[e];
                if (v->kind == MM_KIND_COLL && v->coll_op == w->mm_op && v->call == call) {
                    got_m += v->type == 'M';
                    got_r += v->type == 'R';
                    /* the tag of one of its phases (MPICH's compositions:
                     * reduce, allreduce, bcast ...) */
                    int tag_ok = 0;
                    for (size_t q = 0; q < nx; q++)
                        tag_ok |= v->tag == mm_coll_xfer_tag(&x[q], nbi);
                    CHECK(tag_ok && v->comm_size == N);
                }
            }
            CHECK_MSG(got_m == want_m && got_r == want_m, "call %zu rank %d: M %zu R %zu, want %zu",
                      k, dst, got_m, got_r, want_m);
            total += want_m;
        }
        free(x);
    }
    size_t events = 0;
    for (int i = 0; i < N; i++) {
        events += s[i].n;
        char what[32];
        snprintf(what, sizeof what, "coll%d/%d", lib, i);
        replay_all(&s[i], what);
        mm_stream_free(&s[i]);
    }
    CHECK_MSG(events == 2 * total, "events %zu, transfers %zu", events, total);
    char *j = index_json();
    CHECK(j && strstr(j, lib == MM_COLL_LIB_MPICH ? "\"collective_rules\": \"mpich\""
                                                  : "\"collective_rules\": \"openmpi\""));
    CHECK_MSG(j && !strstr(j, "not expanded") && !strstr(j, "stand-in"), "%s", j ? j : "(null)");
    free(j);
}

/* Scatter(v), reduce_scatter(_block), scan, exscan and nonblocking forms on
 * 5 ranks (not a power of two), written out by hand from the libraries'
 * algorithms: every rank's collective receives, in the order the stream
 * posts them (step order), with source, tag and bytes; its arrivals are the
 * same messages. Bytes as the tracer records them: scatter's root sends
 * all 5 blocks of 16 B, the others nothing; reduce_scatter sends the whole
 * 40 B vector and receives its 8 B block; scan sends and receives 8 B. */
enum { N5 = 5, MAXRX = 4 };
typedef struct rx { int32_t src, tag; uint64_t bytes; } rx;
typedef struct new_call {
    int type, trace_op, mm_op;
    int32_t root;
    uint64_t root_sent, sent, recvd;
    rx want[2][N5][MAXRX]; /* [Open MPI, MPICH][rank]: receives in order, then {0} */
} new_call;

#define R1(s, t, b) { { s, t, b } }
#define SCAN_LINEAR(t) { {{0}}, R1(0, t, 8), R1(1, t, 8), R1(2, t, 8), R1(3, t, 8) }
/* recursive doubling: masks 1, 2, 4 on 5 ranks */
#define SCAN_RD(t) { { {1, t, 8}, {2, t, 8}, {4, t, 8} }, { {0, t, 8}, {3, t, 8} }, \
                     { {3, t, 8}, {0, t, 8} }, { {2, t, 8}, {1, t, 8} }, R1(0, t, 8) }
/* recursive halving on 5 ranks: 0 folds into 1; new ranks 1, 2, 3, 4 halve
 * (blocks {3,4} / {0,1,2}, then single blocks); 1 returns block 0 to 0 */
#define HALVING(t) { R1(1, t, 8), { {0, t, 40}, {3, t, 24}, {2, t, 16} }, \
                     { {4, t, 24}, {1, t, 8} }, { {1, t, 16}, {4, t, 8} }, \
                     { {2, t, 16}, {3, t, 8} } }
/* binomial reduce of the 40 B vector to 0, then 0 sends each block */
/* MPICH 4.0.2 on one node (the trace names no hosts): node-consecutive, so
 * ch4's scan composition alpha / MPIR iscan sched_smp (coll_mpich_comp.c):
 * the node's recursive-doubling scan, then its last rank's total to local
 * rank 0 (4->0); the blocking scan then bcasts the 4-byte "noneed" flag
 * in the node (first release_gather entry: MPIR binomial, 0->1, 0->2,
 * 0->4, 2->3; bcast tag -17) */
#define SCAN_SMP(t, bt) { { {1, t, 8}, {2, t, 8}, {4, t, 8}, {4, t, 8} }, \
                          { {0, t, 8}, {3, t, 8}, {0, bt, 4} }, \
                          { {3, t, 8}, {0, t, 8}, {0, bt, 4} }, \
                          { {2, t, 8}, {1, t, 8}, {2, bt, 4} }, { {0, t, 8}, {0, bt, 4} } }
#define REDUCE_SCATTER(tr, ts) { { {1, tr, 40}, {2, tr, 40}, {4, tr, 40} }, R1(0, ts, 8), \
                                 { {3, tr, 40}, {0, ts, 8} }, R1(0, ts, 8), R1(0, ts, 8) }
#define SCATTER_BINOMIAL_2(t) { R1(4, t, 16), R1(2, t, 16), {{0}}, R1(2, t, 16), R1(2, t, 32) }
/* Open MPI 4.1.4 recursive-doubling reduce_scatter_block on 5 ranks, 8 B
 * blocks: 0<->1, 2<->3 swap 4 blocks, 0<->2, 1<->3 3 blocks, 0->4 block 4
 * and 4->0 blocks 0-3; then 0 passes 4's message on to 2, and 0, 2 to 1, 3 */
#define RSB_RD(t) { { {1, t, 32}, {2, t, 24}, {4, t, 32} }, \
                    { {0, t, 32}, {3, t, 24}, {0, t, 32} }, \
                    { {3, t, 32}, {0, t, 24}, {0, t, 32} }, \
                    { {2, t, 32}, {1, t, 24}, {2, t, 32} }, R1(0, t, 8) }
#define FROM_ROOT(root, t) { R1(root == 0 ? -1 : root, t, 16), R1(root == 1 ? -1 : root, t, 16), \
                             R1(root == 2 ? -1 : root, t, 16), R1(root == 3 ? -1 : root, t, 16), \
                             R1(root == 4 ? -1 : root, t, 16) }

static const new_call new_calls[] = {
    /* Open MPI basic linear scan / exscan; MPICH scan: SCAN_SMP; exscan
     * recursive doubling */
    { MMT_COLL, MMT_C_SCAN, MM_COLL_SCAN, -1, 8, 8, 8, { SCAN_LINEAR(-24), SCAN_SMP(-24, -17) } },
    { MMT_COLL, MMT_C_EXSCAN, MM_COLL_EXSCAN, -1, 8, 8, 8, { SCAN_LINEAR(-18), SCAN_RD(-18) } },
    /* scatter from 2: binomial in both (Open MPI 4.1.4 tuned: n < 8 and
     * block < 2048 B): 2->1 (block 1), 2->4 (blocks 4, 0), then 2->3 and 4->0 */
    { MMT_COLL, MMT_C_SCATTER, MM_COLL_SCATTER, 2, 80, 0, 16,
      { SCATTER_BINOMIAL_2(-25), SCATTER_BINOMIAL_2(-25) } },
    /* Open MPI 4.1.4: recursive doubling (n < 8, block < 32 B); MPICH halving */
    { MMT_COLL, MMT_C_REDUCE_SCATTER_BLOCK, MM_COLL_REDUCE_SCATTER_BLOCK, -1, 40, 40, 8,
      { RSB_RD(-23), HALVING(-23) } },
    { MMT_COLL, MMT_C_REDUCE_SCATTER, MM_COLL_REDUCE_SCATTER, -1, 40, 40, 8,
      { HALVING(-22), HALVING(-22) } },
    /* nonblocking: tags -27, -28, -29 from the counter */
    { MMT_ICOLL, MMT_C_SCAN, MM_COLL_ISCAN, -1, 8, 8, 8, { SCAN_LINEAR(-27), SCAN_SMP(-27, 0) } },
    { MMT_ICOLL, MMT_C_SCATTERV, MM_COLL_ISCATTERV, 0, 80, 0, 16,
      { FROM_ROOT(0, -28), FROM_ROOT(0, -28) } },
    { MMT_ICOLL, MMT_C_REDUCE_SCATTER, MM_COLL_IREDUCE_SCATTER, -1, 40, 40, 8,
      { REDUCE_SCATTER(-29, -29), HALVING(-29) } },
};
#define NNEW (sizeof new_calls / sizeof new_calls[0])

static void test_new_collectives(int lib)
{
    tb b;
    char err[1024], name[32];
    int li = lib == MM_COLL_LIB_MPICH;
    tb_init(&b, N5, li ? "mpich" : "openmpi", NULL);
    for (size_t k = 0; k < NNEW; k++) {
        const new_call *c = &new_calls[k];
        uint64_t t[N5], sent[N5], recvd[N5];
        for (int i = 0; i < N5; i++) {
            t[i] = 100000 * (k + 1) + (uint64_t)(i * 37 % 11) * 100;
            sent[i] = i == c->root ? c->root_sent : c->sent;
            recvd[i] = c->recvd;
        }
        tb_coll_sr(&b, c->type, c->trace_op, c->root, sent, recvd, t);
    }
    snprintf(name, sizeof name, "newcoll%d", lib);
    snprintf(tdir, sizeof tdir, "%s/%s.trace", work, name);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run(name, -1, err, sizeof err) == MMS_OK, "%s", err);
    for (int r = 0; r < N5; r++) {
        mm_stream s;
        if (load(&s, r) != MMS_OK)
            continue;
        size_t e = 0, want_total = 0;
        for (size_t k = 0; k < NNEW; k++) {
            const new_call *c = &new_calls[k];
            const rx *w = c->want[li][r];
            size_t nw = 0;
            while (nw < MAXRX && w[nw].tag != 0 && w[nw].src >= 0)
                nw++;
            want_total += nw;
            /* this call's receives, in stream order, and its arrivals */
            size_t got_r = 0, got_m = 0;
            int m_ok = 1;
            for (; e < s.n && s.ev[e].coll_op == c->mm_op; e++) {
                const mm_event *v = &s.ev[e];
                CHECK(v->kind == MM_KIND_COLL && v->comm_size == N5 && v->call == 1 && v->comm == 0);
                if (v->type == 'R') {
                    CHECK_MSG(got_r < nw && v->src == w[got_r].src && v->tag == w[got_r].tag &&
                                  v->bytes == w[got_r].bytes,
                              "lib %d %s rank %d receive %zu: src %d tag %d bytes %llu", lib,
                              mm_coll_name(c->mm_op), r, got_r, v->src, v->tag,
                              (unsigned long long)v->bytes);
                    got_r++;
                } else {
                    int found = 0;
                    for (size_t q = 0; q < nw; q++)
                        found |= v->src == w[q].src && v->tag == w[q].tag && v->bytes == w[q].bytes;
                    m_ok &= found;
                    got_m++;
                }
            }
            CHECK_MSG(got_r == nw && got_m == nw && m_ok, "lib %d %s rank %d: %zu R %zu M, want %zu",
                      lib, mm_coll_name(c->mm_op), r, got_r, got_m, nw);
        }
        CHECK_MSG(e == s.n && s.n == 2 * want_total, "lib %d rank %d: %zu of %zu events checked",
                  lib, r, e, s.n);
        char what[32];
        snprintf(what, sizeof what, "newcoll%d/%d", lib, r);
        replay_all(&s, what);
        mm_stream_free(&s);
    }
    char *j = index_json();
    /* every call expanded (Open MPI 4.1.4's recursive-doubling
     * reduce_scatter_block too) */
    CHECK_MSG(j && strstr(j, "not expanded") == NULL &&
                  strstr(j, "\"collective_calls_expanded\": 8"),
              "%s", j ? j : "(null)");
    /* no stand-in: MPICH's SMP scans are expanded as they run */
    CHECK_MSG(j && strstr(j, "stand-in") == NULL, "%s", j ? j : "(null)");
    free(j);
}

/* What is still not expanded: a call the members disagree on, and the calls
 * past the shortest member's record of a partial trace. Counted and warned
 * about, not faked. */
static void test_unexpanded(void)
{
    tb b;
    char err[1024];
    uint64_t t[4] = { 100, 100, 100, 100 };
    tb_init(&b, 4, "openmpi", NULL);
    tb_coll(&b, MMT_COLL, MMT_C_SCAN, -1, 8, t);
    for (int i = 0; i < 4; i++)
        t[i] = 10000;
    int32_t sub[4] = { MMT_C_SCAN, MMT_C_EXSCAN, MMT_C_SCAN, MMT_C_SCAN };
    for (int32_t i = 0; i < 4; i++) {
        mmt_record x = tb_rec(MMT_COLL, sub[i], t[i]);
        x.peer = x.peer_world = -1;
        x.n = 4;
        x.bytes = x.aux = 8;
        tb_add(&b, i, &x);
    }
    for (int32_t i = 0; i < 3; i++) { /* rank 3's third call is missing */
        mmt_record x = tb_rec(MMT_COLL, MMT_C_SCAN, 20000);
        x.peer = x.peer_world = -1;
        x.n = 4;
        x.bytes = x.aux = 8;
        tb_add(&b, i, &x);
    }
    snprintf(tdir, sizeof tdir, "%s/unexp.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run("unexp", -1, err, sizeof err) == MMS_OK, "%s", err);
    char *j = index_json();
    CHECK_MSG(j && strstr(j, "\"collective_calls_expanded\": 1,") &&
                  strstr(j, "members disagree on a collective call (COLL scan at world rank 0, "
                            "COLL exscan at world rank 1); call skipped") &&
                  strstr(j, "members recorded 2 to 3 collective calls (a partial trace?); the "
                            "first 2 are expanded"),
              "%s", j ? j : "(null)");
    free(j);
    mm_stream s;
    if (load(&s, 3) == MMS_OK) { /* the first scan only: one message from rank 2 */
        CHECK(s.n == 2 && s.ev[0].src == 2 && s.ev[0].tag == -24 && s.ev[1].src == 2);
        mm_stream_free(&s);
    }
}

/* An ibcast under Open MPI 4.1.4: libnbc's own schedules (linear up to 4
 * ranks, its binomial tree above) at any size: expanded exactly, no
 * stand-in to report. */
static void test_substituted(void)
{
    static const struct { uint64_t bytes; int warned; } cases[] = { {4096, 0}, {64, 0} };
    for (size_t k = 0; k < 2; k++) {
        tb b;
        char err[1024];
        uint64_t t[4] = { 100, 100, 100, 100 };
        tb_init(&b, 4, "openmpi", NULL);
        tb_coll(&b, MMT_ICOLL, MMT_C_BCAST, 0, cases[k].bytes, t);
        char name[16];
        snprintf(name, sizeof name, "bcast%zu", k);
        snprintf(tdir, sizeof tdir, "%s/%s.trace", work, name);
        tb_write(&b, tdir, 0, 0);
        CHECK_MSG(run(name, -1, err, sizeof err) == MMS_OK, "%s", err);
        char *j = index_json();
        CHECK(j && (strstr(j, "1 bcast calls expanded with a stand-in schedule") != NULL) ==
                       cases[k].warned);
        CHECK(j && !strstr(j, "stand-in"));
        free(j);
    }
}

/* Bad input: a truncated trace converts up to its last record with a
 * warning; a corrupted header is an error naming file and offset; a missing
 * index.json is a warning; an output directory that cannot be made fails
 * before anything is written. */
static void test_bad_input(void)
{
    tb b;
    char err[1024], path[1024];
    tb_init(&b, 2, "openmpi", NULL);
    tb_send(&b, 0, 1, 5, 8, 1000);
    tb_recv(&b, 1, 0, 5, 0, 5, 500);
    tb_send(&b, 0, 1, 6, 8, 2000);
    snprintf(tdir, sizeof tdir, "%s/cut.trace", work);
    tb_write(&b, tdir, 1, 0);
    /* cut rank 0 inside its last record: the second send is lost */
    snprintf(path, sizeof path, "%s/rank-000000.mmt", tdir);
    CHECK(truncate(path, MMT_HEADER_SIZE + 5 * MMT_RECORD_SIZE - 30) == 0);
    CHECK_MSG(run("cut", -1, err, sizeof err) == MMS_OK, "%s", err);
    char *j = index_json();
    CHECK_MSG(j && strstr(j, "rank-000000.mmt") && strstr(j, "converted up to its last whole record"),
              "%s", j ? j : "(null)");
    free(j);
    mm_stream s;
    if (load(&s, 1) == MMS_OK) {
        CHECK(s.n == 2 && s.ev[0].type == 'R' && s.ev[1].type == 'M');
        mm_stream_free(&s);
    }

    /* corrupted header */
    tb_init(&b, 2, "openmpi", NULL);
    snprintf(tdir, sizeof tdir, "%s/bad.trace", work);
    tb_write(&b, tdir, 0, 0);
    snprintf(path, sizeof path, "%s/rank-000001.mmt", tdir);
    FILE *f = fopen(path, "r+b");
    CHECK(f && fwrite("XX", 1, 2, f) == 2 && fclose(f) == 0);
    CHECK(run("bad", -1, err, sizeof err) == MMS_EFORMAT);
    CHECK_MSG(strstr(err, "rank-000001.mmt: offset 0: not an mpimatch trace"), "%s", err);
    snprintf(path, sizeof path, "%s/index.json", odir);
    CHECK(access(path, F_OK) != 0);

    /* missing index.json */
    tb_init(&b, 2, "openmpi", NULL);
    tb_send(&b, 0, 1, 5, 8, 1000);
    tb_recv(&b, 1, 0, 5, 0, 5, 500);
    snprintf(tdir, sizeof tdir, "%s/noindex.trace", work);
    tb_write(&b, tdir, 0, 1);
    CHECK_MSG(run("noindex", -1, err, sizeof err) == MMS_OK, "%s", err);
    j = index_json();
    CHECK(j && strstr(j, "index.json: missing") && strstr(j, "rank files found by their names"));
    free(j);

    /* a rank file missing */
    snprintf(path, sizeof path, "%s/rank-000001.mmt", tdir);
    CHECK(remove(path) == 0);
    CHECK(run("noindex", -1, err, sizeof err) != MMS_OK);
    CHECK_MSG(strstr(err, "rank-000001.mmt"), "%s", err);

    /* an output directory that cannot be created */
    mm_conv_opts o;
    mm_conv_defaults(&o);
    snprintf(tdir, sizeof tdir, "%s/wild.trace", work);
    snprintf(odir, sizeof odir, "%s/no/such/dir", work);
    o.trace_dir = tdir;
    o.out_dir = odir;
    CHECK(mm_convert(&o, err, sizeof err) == MMS_EIO);
    CHECK_MSG(strstr(err, "cannot create the output directory"), "%s", err);

    /* a trace directory that does not exist: nothing is created */
    snprintf(tdir, sizeof tdir, "%s/no-such-trace", work);
    snprintf(odir, sizeof odir, "%s/never", work);
    CHECK(mm_convert(&o, err, sizeof err) == MMS_EIO);
    CHECK_MSG(strstr(err, "no-such-trace: not a trace directory"), "%s", err);
    CHECK(access(odir, F_OK) != 0);
}

/* ---- clocks (conv_clock.c): hosts a (ranks 0, 1) and b (ranks 2, 3) ---- */

static const char *const ab_hosts[4] = { "a", "a", "b", "b" };

static int run_clock(const char *name, int clock, char *err, size_t errlen)
{
    return run_with(name, -1, clock, err, errlen);
}

/* The number after "key": that follows anchor in index.json (NAN if none). */
static double jnum(const char *j, const char *anchor, const char *key)
{
    const char *p = j ? strstr(j, anchor) : NULL;
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    p = p ? strstr(p, k) : NULL;
    return p ? strtod(p + strlen(k), NULL) : NAN;
}

#define HOST_B "\"host\": \"b\""

/* Every stream replays with nothing left queued and every engine agrees. */
static void replay_ranks(int32_t n, const char *what)
{
    for (int32_t r = 0; r < n; r++) {
        mm_stream s;
        if (load(&s, r) != MMS_OK)
            continue;
        if (s.n)
            replay_all(&s, what);
        mm_stream_free(&s);
    }
}

/* Host b's clock is OFF ahead; a ping-pong between the hosts with one-way
 * times of 1.5-2.4 us (a to b) and 1.8-2.5 us (b to a). Causality allows
 * b's offset in [OFF - min(b to a), OFF + min(a to b)]: the converter takes
 * the middle, reports the window, and no message arrives before it was
 * sent; --clock trace keeps offset 0 and says how many do. */
static void test_clock_skew(void)
{
    const int64_t OFF = 40000123;
    tb b;
    char err[1024];
    tb_init(&b, 4, "openmpi", ab_hosts);
    int64_t min_ab = INT64_MAX, min_ba = INT64_MAX;
    for (int k = 0; k < 20; k++) {
        int64_t T = 1000000 + (int64_t)k * 100000;
        int64_t lab = 1500 + (k * 37) % 900, lba = 1800 + (k * 53) % 700;
        int32_t a = k % 2, bb = 2 + (k / 2) % 2;
        min_ab = lab < min_ab ? lab : min_ab;
        min_ba = lba < min_ba ? lba : min_ba;
        tb_send(&b, a, bb, k, 8, (uint64_t)T);
        tb_recv(&b, bb, a, k, a, k, (uint64_t)(T + OFF + lab - 10)); /* ends at T + lab */
        tb_send(&b, bb, a, k, 8, (uint64_t)(T + OFF + lab + 500));
        tb_recv(&b, a, bb, k, bb, k, (uint64_t)(T + lab + 500 + lba - 10));
    }
    snprintf(tdir, sizeof tdir, "%s/skew.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run_clock("skew", MM_CONV_CLOCK_CAUSAL, err, sizeof err) == MMS_OK, "%s", err);
    char *j = index_json();
    int64_t lo = OFF - min_ba, hi = OFF + min_ab;
    CHECK_MSG(j && strstr(j, "\"result\": \"causal\""), "%s", j ? j : "no index.json");
    CHECK_MSG(jnum(j, HOST_B, "offset_ns") == (double)(lo + (hi - lo) / 2), "offset %.0f, window "
              "[%lld, %lld]", jnum(j, HOST_B, "offset_ns"), (long long)lo, (long long)hi);
    CHECK(jnum(j, HOST_B, "uncertainty_ns") == (double)(hi - lo));
    CHECK(jnum(j, HOST_B, "correction_ns") == jnum(j, HOST_B, "offset_ns"));
    CHECK(jnum(j, "received_before_sent", "trace_alignment") == 20);
    CHECK(jnum(j, "received_before_sent", "converted") == 0);
    CHECK(jnum(j, "\"clock\"", "messages_between_hosts") == 40);
    free(j);
    replay_ranks(4, "skew");
    /* the trace's alignment: offset 0, half the messages received before sent */
    CHECK_MSG(run_clock("skew", MM_CONV_CLOCK_TRACE, err, sizeof err) == MMS_OK, "%s", err);
    j = index_json();
    CHECK(j && strstr(j, "\"mode\": \"trace\"") && jnum(j, HOST_B, "offset_ns") == 0 &&
          jnum(j, "received_before_sent", "converted") == 20);
    free(j);
}

/* Host b's clock runs 10 ppm fast for 0.8 s (8 us, more than the window of
 * any one offset): offset + rate are fitted, every message is received
 * after it was sent, and the fitted correction stays within the one-way
 * times of the true offset over the whole run. */
static void test_clock_drift(void)
{
    const double RHO = 10e-6;
    const int64_t OFF = 50000000;
    tb b;
    char err[1024];
    tb_init(&b, 4, "openmpi", ab_hosts);
#define B_CLOCK(t) ((t) + OFF + (int64_t)((double)(t) * RHO))
    for (int k = 0; k < 200; k++) {
        int64_t T = 1000000 + (int64_t)k * 4000000;
        int64_t lab = 1500 + (k * 37) % 900, lba = 1800 + (k * 53) % 700;
        int32_t a = k % 2, bb = 2 + (k / 2) % 2;
        tb_send(&b, a, bb, k, 8, (uint64_t)T);
        tb_recv(&b, bb, a, k, a, k, (uint64_t)(B_CLOCK(T + lab) - 10));
        tb_send(&b, bb, a, k, 8, (uint64_t)B_CLOCK(T + lab + 500));
        tb_recv(&b, a, bb, k, bb, k, (uint64_t)(T + lab + 500 + lba - 10));
    }
    snprintf(tdir, sizeof tdir, "%s/drift.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run_clock("drift", MM_CONV_CLOCK_CAUSAL, err, sizeof err) == MMS_OK, "%s", err);
    char *j = index_json();
    CHECK_MSG(j && strstr(j, "\"result\": \"causal-drift\""), "%s", j ? j : "no index.json");
    CHECK(jnum(j, "received_before_sent", "converted") == 0);
    double ppm = jnum(j, HOST_B, "drift_ppm"), corr = jnum(j, HOST_B, "correction_ns");
    CHECK_MSG(ppm > 9 && ppm < 11, "drift %.3f ppm", ppm);
    for (int64_t T = 0; T <= 800000000; T += 100000000) {
        double u = (double)B_CLOCK(T), truth = u - (double)T, got = corr + ppm * 1e-6 * u;
        CHECK_MSG(fabs(got - truth) <= 1500, "at %lld ns: correction %.0f, true %.0f",
                  (long long)T, got, truth);
    }
#undef B_CLOCK
    free(j);
    replay_ranks(4, "drift");
}

/* Messages only within each host: nothing bounds the hosts' offset, the
 * trace's alignment is kept, and a warning says so. */
static void test_clock_no_cross(void)
{
    tb b;
    char err[1024];
    tb_init(&b, 4, "openmpi", ab_hosts);
    tb_send(&b, 0, 1, 1, 8, 1000);
    tb_recv(&b, 1, 0, 1, 0, 1, 900000);
    tb_send(&b, 2, 3, 1, 8, 5000000);
    tb_recv(&b, 3, 2, 1, 2, 1, 100);
    snprintf(tdir, sizeof tdir, "%s/nocross.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run_clock("nocross", MM_CONV_CLOCK_CAUSAL, err, sizeof err) == MMS_OK, "%s", err);
    char *j = index_json();
    CHECK_MSG(j && strstr(j, "\"result\": \"no-messages\"") &&
              strstr(j, "no matched messages between hosts") && jnum(j, HOST_B, "offset_ns") == 0 &&
              strstr(j, "\"uncertainty_ns\": null"), "%s", j ? j : "no index.json");
    free(j);
}

/* A broken trace: messages each way received 1 ms before they were sent,
 * at the same times. No offset or drift fits: the trace's alignment is
 * kept, with a warning counting the messages still received before sent. */
static void test_clock_inconsistent(void)
{
    tb b;
    char err[1024];
    tb_init(&b, 4, "openmpi", ab_hosts);
    for (int k = 0; k < 16; k++) {
        uint64_t T = 5000000 + (uint64_t)k * 100000;
        tb_send(&b, 0, 2, k, 8, T);
        tb_recv(&b, 2, 0, k, 0, k, T - 1000000);
        tb_send(&b, 2, 0, k, 8, T + 10);
        tb_recv(&b, 0, 2, k, 2, k, T - 999990 + 20);
    }
    snprintf(tdir, sizeof tdir, "%s/broken.trace", work);
    tb_write(&b, tdir, 0, 0);
    CHECK_MSG(run_clock("broken", MM_CONV_CLOCK_CAUSAL, err, sizeof err) == MMS_OK, "%s", err);
    char *j = index_json();
    CHECK_MSG(j && strstr(j, "\"result\": \"inconsistent\"") &&
              strstr(j, "would still be received before they were sent") &&
              jnum(j, HOST_B, "offset_ns") == 0 && jnum(j, "received_before_sent", "converted") == 32 &&
              jnum(j, "received_before_sent", "best_fit") == 16, "%s", j ? j : "no index.json");
    free(j);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_convert WORKDIR\n");
        return 2;
    }
    work = argv[1];
    mkdir(work, 0777);
    test_pair();
    test_overtaking();
    test_wildcards();
    test_probes();
    test_collectives(MM_COLL_LIB_OMPI);
    test_collectives(MM_COLL_LIB_MPICH);
    test_new_collectives(MM_COLL_LIB_OMPI);
    test_new_collectives(MM_COLL_LIB_MPICH);
    test_unexpanded();
    test_substituted();
    test_bad_input();
    test_clock_skew();
    test_clock_drift();
    test_clock_no_cross();
    test_clock_inconsistent();
    return TC_DONE();
}
