/*
 * trace_builder.h - hand-made traces for the converter tests: one growable
 * buffer per rank, written as a trace directory (docs/trace-format.md)
 * with the format's own encoders.
 */
#ifndef MM_TEST_TRACE_BUILDER_H
#define MM_TEST_TRACE_BUILDER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace_format.h"

#define TB_MAX_RANKS 16

typedef struct tb_rank {
    unsigned char *buf;
    size_t len, cap;
    unsigned nrec;
    uint64_t nreq;
} tb_rank;

typedef struct tb {
    int32_t n;
    tb_rank r[TB_MAX_RANKS];
    const char *host[TB_MAX_RANKS];
} tb;

static unsigned char *tb_room(tb_rank *r, size_t n)
{
    if (r->len + n > r->cap) {
        r->cap = (r->len + n) * 2;
        r->buf = realloc(r->buf, r->cap);
        if (!r->buf)
            abort();
    }
    unsigned char *p = r->buf + r->len;
    r->len += n;
    return p;
}

static mmt_record tb_rec(int type, int sub, uint64_t t)
{
    mmt_record x;
    memset(&x, 0, sizeof x);
    x.type = (uint8_t)type;
    x.sub = (uint8_t)sub;
    x.t_start = t;
    x.t_end = t + 10;
    return x;
}

static void tb_add(tb *b, int32_t rank, const mmt_record *x)
{
    mmt_encode(x, tb_room(&b->r[rank], MMT_RECORD_SIZE));
    b->r[rank].nrec++;
}

/* n ranks, each with a header, MPI_COMM_WORLD and its MPI_COMM_SELF. Ranks
 * are on host "node0" unless hosts says otherwise. */
static void tb_init(tb *b, int32_t n, const char *mpi, const char *const *hosts)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    for (int32_t i = 0; i < n; i++) {
        mmt_header h;
        memset(&h, 0, sizeof h);
        h.rank = i;
        h.size = n;
        h.pid = 100 + (uint32_t)i;
        h.clock = MMT_CLOCK_MONOTONIC;
        strcpy(h.mpi, mpi);
        strcpy(h.libver, "Test MPI");
        strcpy(h.host, hosts ? hosts[i] : "node0");
        mmt_encode_header(&h, tb_room(&b->r[i], MMT_HEADER_SIZE));
        mmt_record x = tb_rec(MMT_COMM, MMT_CM_WORLD, 0);
        x.comm = MMT_COMM_WORLD_ID;
        x.peer = i;
        x.tag = MMT_NONE;
        x.src = n;
        x.aux = MMT_NO_PARENT;
        x.flags = MMT_F_IDENTITY;
        tb_add(b, i, &x);
        x = tb_rec(MMT_COMM, MMT_CM_SELF, 0);
        x.comm = (uint64_t)i << 32 | 1;
        x.peer = 0;
        x.tag = MMT_NONE;
        x.src = 1;
        x.aux = MMT_NO_PARENT;
        tb_add(b, i, &x);
        int32_t self = i;
        mmt_encode_group(&self, 1, tb_room(&b->r[i], MMT_RECORD_SIZE));
        b->r[i].nrec++;
    }
}

/* Point-to-point records on MPI_COMM_WORLD (ranks are world ranks). */
static void tb_send(tb *b, int32_t from, int32_t to, int32_t tag, uint64_t bytes, uint64_t t)
{
    mmt_record x = tb_rec(MMT_SEND, MMT_MODE_STD, t);
    x.peer = x.peer_world = to;
    x.tag = tag;
    x.bytes = bytes;
    tb_add(b, from, &x);
}

/* A blocking receive as posted (src/tag may be MMT_ANY_*) and what it got. */
static void tb_recv(tb *b, int32_t at, int32_t src, int32_t tag, int32_t got_src, int32_t got_tag,
                    uint64_t t)
{
    mmt_record x = tb_rec(MMT_RECV, 0, t);
    x.peer = src;
    x.peer_world = src >= 0 ? src : -1;
    x.tag = tag;
    x.bytes = 64;
    x.src = x.src_world = got_src;
    x.rtag = got_tag;
    x.aux = 8;
    tb_add(b, at, &x);
}

/* MPI_Irecv; returns the request id. */
static uint64_t tb_irecv(tb *b, int32_t at, int32_t src, int32_t tag, uint64_t t)
{
    mmt_record x = tb_rec(MMT_IRECV, 0, t);
    x.peer = src;
    x.peer_world = src >= 0 ? src : -1;
    x.tag = tag;
    x.bytes = 64;
    x.req = ++b->r[at].nreq;
    tb_add(b, at, &x);
    return x.req;
}

static void tb_complete(tb *b, int32_t at, uint64_t req, int32_t got_src, int32_t got_tag,
                        int cancelled, uint64_t t)
{
    mmt_record x = tb_rec(MMT_COMPLETE, MMT_IRECV, t);
    x.req = req;
    if (!cancelled) {
        x.src = x.src_world = got_src;
        x.rtag = got_tag;
        x.bytes = 8;
    }
    x.flags = cancelled ? MMT_F_CANCELLED : 0;
    tb_add(b, at, &x);
}

/* PROBE/IPROBE/MPROBE/IMPROBE: found (src/tag of the message) or not. */
static void tb_probe(tb *b, int type, int32_t at, int32_t src, int32_t tag, int found,
                     int32_t got_src, int32_t got_tag, uint64_t t)
{
    mmt_record x = tb_rec(type, 0, t);
    x.peer = src;
    x.peer_world = src >= 0 ? src : -1;
    x.tag = tag;
    if (found) {
        x.flags = (type == MMT_IPROBE || type == MMT_IMPROBE) ? MMT_F_FOUND : 0;
        x.src = x.src_world = got_src;
        x.rtag = got_tag;
        x.bytes = 8;
        if (type == MMT_MPROBE || type == MMT_IMPROBE)
            x.req = ++b->r[at].nreq;
    }
    tb_add(b, at, &x);
}

static void tb_cancel(tb *b, int32_t at, uint64_t req, uint64_t t)
{
    mmt_record x = tb_rec(MMT_CANCEL, 0, t);
    x.req = req;
    tb_add(b, at, &x);
}

/* A collective on MPI_COMM_WORLD at every rank: root or -1, bytes per
 * rank, start time per rank t[i]. */
/* A collective on the world at times t[]: rank i sent sent[i] and received
 * recvd[i] bytes, as the tracer counts them (docs/trace-format.md). */
static void tb_coll_attr(tb *b, int type, int op, int32_t root, const uint64_t *sent,
                         const uint64_t *recvd, int32_t elem, int32_t commut, const uint64_t *t)
{
    for (int32_t i = 0; i < b->n; i++) {
        mmt_record x = tb_rec(type, op, t[i]);
        x.tag = elem;   /* datatype size, 0: unknown           */
        x.src = commut; /* enum mmt_op_commut                  */
        x.comm = MMT_COMM_WORLD_ID;
        x.peer = root;
        x.peer_world = root;
        x.n = (uint32_t)b->n;
        x.bytes = sent[i];
        x.aux = recvd[i];
        if (type == MMT_ICOLL)
            x.req = ++b->r[i].nreq;
        tb_add(b, i, &x);
    }
}

/* A collective recorded as traces written before element sizes and
 * commutativity were recorded (both 0). */
static void tb_coll_sr(tb *b, int type, int op, int32_t root, const uint64_t *sent,
                       const uint64_t *recvd, const uint64_t *t)
{
    tb_coll_attr(b, type, op, root, sent, recvd, 0, MMT_OP_UNKNOWN, t);
}

/* With `bytes` sent and received by every rank, element size elem. */
static void tb_coll_elem(tb *b, int type, int op, int32_t root, uint64_t bytes, int32_t elem,
                         int32_t commut, const uint64_t *t)
{
    uint64_t v[TB_MAX_RANKS];
    for (int32_t i = 0; i < b->n; i++)
        v[i] = bytes;
    tb_coll_attr(b, type, op, root, v, v, elem, commut, t);
}

/* The same with element size and commutativity unknown. */
static void tb_coll(tb *b, int type, int op, int32_t root, uint64_t bytes, const uint64_t *t)
{
    tb_coll_elem(b, type, op, root, bytes, 0, MMT_OP_UNKNOWN, t);
}

/* Write DIR/rank-NNNNNN.mmt (with END unless no_end) and DIR/index.json
 * (unless no_index). */
static void tb_write(tb *b, const char *dir, int no_end, int no_index)
{
    char path[1024];
    mkdir(dir, 0777);
    for (int32_t i = 0; i < b->n; i++) {
        if (!no_end) {
            mmt_record x = tb_rec(MMT_END, 0, 1000000000);
            x.aux = b->r[i].nrec;
            tb_add(b, i, &x);
        }
        snprintf(path, sizeof path, "%s/rank-%06d.mmt", dir, (int)i);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b->r[i].buf, 1, b->r[i].len, f) != b->r[i].len || fclose(f)) {
            perror(path);
            exit(2);
        }
        free(b->r[i].buf);
        b->r[i].buf = NULL;
    }
    snprintf(path, sizeof path, "%s/index.json", dir);
    if (no_index) {
        remove(path);
        return;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fprintf(f, "{\"format\": \"mpimatch-trace\", \"version\": 1, \"ranks\": %d}\n", (int)b->n);
    fclose(f);
}

#endif /* MM_TEST_TRACE_BUILDER_H */
