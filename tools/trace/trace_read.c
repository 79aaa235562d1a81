/*
 * trace_read.c - reader and validator of trace files (trace_read.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_read.h"

/* Communicators by id: open addressing, linear probing, power-of-two size,
 * at most half full. Ids are unique in a valid trace. */
typedef struct comm_table {
    mmt_comm *slot;     /* id == 0 with used == 0 means empty */
    unsigned char *used;
    size_t cap, n;
} comm_table;

struct mmt_reader {
    FILE *f;
    char *path;
    mmt_header h;
    uint64_t nrec;        /* records read, GROUP records included       */
    uint64_t offset;      /* offset of the last record read             */
    uint64_t at_off, at_rec; /* the record errors point at              */
    uint64_t max_req;     /* largest request or message id issued       */
    int ended;            /* the END record was read                    */
    int done;             /* mmt_next returned 0 or an error            */
    comm_table comms;
    char warning[320];
};

static int fail(int code, char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(int code, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---- communicator table ---- */

static size_t comm_hash(uint64_t id, size_t cap)
{
    id ^= id >> 33;
    id *= UINT64_C(0xff51afd7ed558ccd);
    id ^= id >> 33;
    return (size_t)id & (cap - 1);
}

static mmt_comm *comm_lookup(const comm_table *t, uint64_t id)
{
    if (t->cap == 0)
        return NULL;
    for (size_t i = comm_hash(id, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (!t->used[i])
            return NULL;
        if (t->slot[i].id == id)
            return &t->slot[i];
    }
}

static int comm_grow(comm_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 16;
    mmt_comm *slot = calloc(cap, sizeof *slot);
    unsigned char *used = calloc(cap, 1);
    if (!slot || !used) {
        free(slot);
        free(used);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->used[i])
            continue;
        size_t j = comm_hash(t->slot[i].id, cap);
        while (used[j])
            j = (j + 1) & (cap - 1);
        slot[j] = t->slot[i];
        used[j] = 1;
    }
    free(t->slot);
    free(t->used);
    t->slot = slot;
    t->used = used;
    t->cap = cap;
    return 0;
}

/* Insert (the id is known to be absent). Returns the slot or NULL. */
static mmt_comm *comm_insert(comm_table *t, uint64_t id)
{
    if ((t->n + 1) * 2 > t->cap && comm_grow(t))
        return NULL;
    size_t i = comm_hash(id, t->cap);
    while (t->used[i])
        i = (i + 1) & (t->cap - 1);
    t->used[i] = 1;
    t->n++;
    memset(&t->slot[i], 0, sizeof t->slot[i]);
    t->slot[i].id = id;
    return &t->slot[i];
}

static void comm_table_free(comm_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->used[i])
            free(t->slot[i].world);
    free(t->slot);
    free(t->used);
}

const mmt_comm *mmt_comm_find(const mmt_reader *r, uint64_t id)
{
    return comm_lookup(&r->comms, id);
}

int32_t mmt_comm_world(const mmt_comm *c, int32_t rank, int remote)
{
    int32_t n = remote ? c->remote_size : c->size;
    if (rank < 0 || rank >= n)
        return -1;
    if (!c->world)
        return rank;
    return c->world[(remote ? c->size : 0) + rank];
}

/* ---- header ---- */

/* Copy a NUL-padded string field; 0 if it holds a NUL, else -1. */
static int get_str(const unsigned char *p, size_t n, char *out)
{
    if (!memchr(p, '\0', n))
        return -1;
    memcpy(out, p, n);
    return 0;
}

static int check_header(mmt_reader *r, const unsigned char *d, size_t got, char *err, size_t errlen)
{
    const char *f = r->path;
    if (got < MMT_MAGIC_LEN || memcmp(d, MMT_MAGIC, MMT_MAGIC_LEN) != 0)
        return fail(MMT_EFORMAT, err, errlen,
                    "%s: offset 0: not an mpimatch trace (no '" MMT_MAGIC "' magic)%s", f,
                    got == 0 ? ": the file is empty" : "");
    if (got < MMT_HEADER_SIZE)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %zu: truncated header (%zu of %d bytes)",
                    f, got, got, MMT_HEADER_SIZE);
    mmt_header *h = &r->h;
    h->version = le_get16(d + MMT_H_VERSION);
    if (h->version != MMT_VERSION)
        return fail(MMT_EFORMAT, err, errlen,
                    "%s: offset %d: unsupported trace version %u (this reader knows %d)", f,
                    MMT_H_VERSION, h->version, MMT_VERSION);
    if (le_get16(d + MMT_H_HDRSIZE) != MMT_HEADER_SIZE)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: header size %u, expected %d", f,
                    MMT_H_HDRSIZE, le_get16(d + MMT_H_HDRSIZE), MMT_HEADER_SIZE);
    if (le_get16(d + MMT_H_RECSIZE) != MMT_RECORD_SIZE)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: record size %u, expected %d", f,
                    MMT_H_RECSIZE, le_get16(d + MMT_H_RECSIZE), MMT_RECORD_SIZE);
    h->flags = le_get16(d + MMT_H_FLAGS);
    if (h->flags & ~(unsigned)MMT_HF_PVARS)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: unknown header flags 0x%x", f,
                    MMT_H_FLAGS, h->flags);
    h->rank = le_as_i32(le_get32(d + MMT_H_RANK));
    h->size = le_as_i32(le_get32(d + MMT_H_SIZE));
    if (h->size < 1)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: world size %d < 1", f,
                    MMT_H_SIZE, h->size);
    if (h->rank < 0 || h->rank >= h->size)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: rank %d outside 0..%d", f,
                    MMT_H_RANK, h->rank, h->size - 1);
    h->pid = le_get32(d + MMT_H_PID);
    h->clock = le_get32(d + MMT_H_CLOCK);
    if (h->clock != MMT_CLOCK_MONOTONIC)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: unknown clock %u", f,
                    MMT_H_CLOCK, h->clock);
    h->t0 = le_get64(d + MMT_H_T0);
    h->t0_real = le_get64(d + MMT_H_T0_REAL);
    h->thread_level = le_as_i32(le_get32(d + MMT_H_THREAD));
    if (h->thread_level < 0 || h->thread_level > 3)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: thread level %d outside 0..3", f,
                    MMT_H_THREAD, h->thread_level);
    if (le_get32(d + MMT_H_RSVD) != 0)
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: reserved header field is not 0",
                    f, MMT_H_RSVD);
    if (get_str(d + MMT_H_MPI, MMT_MPI_LEN, h->mpi) || h->mpi[0] == '\0')
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: bad MPI name field", f, MMT_H_MPI);
    if (get_str(d + MMT_H_LIBVER, MMT_LIBVER_LEN, h->libver))
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: unterminated library version",
                    f, MMT_H_LIBVER);
    if (get_str(d + MMT_H_HOST, MMT_HOST_LEN, h->host))
        return fail(MMT_EFORMAT, err, errlen, "%s: offset %d: unterminated host name", f,
                    MMT_H_HOST);
    return MMT_OK;
}

int mmt_open(mmt_reader **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    mmt_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = malloc(strlen(path) + 1))) {
        free(r);
        return fail(MMT_ENOMEM, err, errlen, "%s: out of memory", path);
    }
    strcpy(r->path, path);
    r->f = fopen(path, "rb");
    if (!r->f) {
        int e = errno;
        mmt_close(r);
        return fail(MMT_EIO, err, errlen, "%s: cannot open: %s", path, strerror(e));
    }
    unsigned char d[MMT_HEADER_SIZE];
    size_t got = fread(d, 1, sizeof d, r->f);
    int rc;
    if (ferror(r->f))
        rc = fail(MMT_EIO, err, errlen, "%s: offset 0: read error: %s", path, strerror(errno));
    else
        rc = check_header(r, d, got, err, errlen);
    if (rc) {
        mmt_close(r);
        return rc;
    }
    *out = r;
    return MMT_OK;
}

const mmt_header *mmt_header_of(const mmt_reader *r) { return &r->h; }
const char *mmt_path(const mmt_reader *r) { return r->path; }
uint64_t mmt_records_read(const mmt_reader *r) { return r->nrec; }
uint64_t mmt_offset(const mmt_reader *r) { return r->offset; }
const char *mmt_warning(const mmt_reader *r) { return r->warning[0] ? r->warning : NULL; }

void mmt_close(mmt_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    comm_table_free(&r->comms);
    free(r->path);
    free(r);
}

/* ---- records ---- */

/* Read one record. 1: got it; 0: clean end of file; 2: a partial record
 * at the end (warning set); <0: read error. */
static int read_raw(mmt_reader *r, unsigned char *p, char *err, size_t errlen)
{
    size_t got = fread(p, 1, MMT_RECORD_SIZE, r->f);
    uint64_t off = MMT_HEADER_SIZE + r->nrec * (uint64_t)MMT_RECORD_SIZE;
    if (ferror(r->f))
        return fail(MMT_EIO, err, errlen, "%s: offset %llu: read error: %s", r->path,
                    (unsigned long long)off, strerror(errno));
    if (got == 0)
        return 0;
    if (got < MMT_RECORD_SIZE) {
        snprintf(r->warning, sizeof r->warning,
                 "%s: offset %llu: partial record (%zu of %d bytes) at the end: the run did "
                 "not finish; read the %llu whole records before it",
                 r->path, (unsigned long long)off, got, MMT_RECORD_SIZE,
                 (unsigned long long)r->nrec);
        return 2;
    }
    r->offset = r->at_off = off;
    r->at_rec = ++r->nrec;
    return 1;
}

#define BAD(...) bad(r, err, errlen, __VA_ARGS__)
static int bad(const mmt_reader *r, char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int bad(const mmt_reader *r, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        int w = snprintf(err, errlen, "%s: offset %llu: record %llu: ", r->path,
                         (unsigned long long)r->at_off, (unsigned long long)r->at_rec);
        if (w >= 0 && (size_t)w < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + w, errlen - (size_t)w, fmt, ap);
            va_end(ap);
        }
    }
    return MMT_EFORMAT;
}

/* The COMM record rec was just read: read its GROUP records and enter the
 * communicator in the table. */
static int read_comm(mmt_reader *r, const mmt_record *rec, char *err, size_t errlen)
{
    int inter = (rec->flags & MMT_F_INTER) != 0;
    int32_t size = rec->src, rsize = rec->src_world;
    if (rec->sub > MMT_CM_MAX)
        return BAD("COMM: unknown creation kind %u", rec->sub);
    if (rec->comm == MMT_COMM_UNKNOWN)
        return BAD("COMM: the id is the reserved 'unknown' id");
    if (comm_lookup(&r->comms, rec->comm)) {
        char b[24];
        return BAD("COMM: communicator %s created twice", mmt_comm_str(rec->comm, b, sizeof b));
    }
    if (size < 1 || rsize < 0 || (rsize > 0) != inter)
        return BAD("COMM: bad group sizes %d and %d (intercommunicator: %s)", size, rsize,
                   inter ? "yes" : "no");
    if (rec->peer < 0 || rec->peer >= size)
        return BAD("COMM: own rank %d outside 0..%d", rec->peer, size - 1);
    if (rec->aux != MMT_NO_PARENT && !comm_lookup(&r->comms, rec->aux)) {
        char b[24];
        return BAD("COMM: unknown parent communicator %s", mmt_comm_str(rec->aux, b, sizeof b));
    }
    int identity = (rec->flags & MMT_F_IDENTITY) != 0;
    if (identity && (inter || size != r->h.size))
        return BAD("COMM: identity group of size %d in a world of %d", size, r->h.size);
    size_t total = (size_t)size + (size_t)rsize;
    int32_t *world = NULL;
    if (!identity) {
        world = malloc(total * sizeof *world);
        if (!world)
            return fail(MMT_ENOMEM, err, errlen, "%s: out of memory", r->path);
        unsigned char p[MMT_RECORD_SIZE];
        for (size_t have = 0; have < total;) {
            int rc = read_raw(r, p, err, errlen);
            if (rc != 1) {
                free(world);
                if (rc < 0)
                    return rc;
                /* Cut short inside the group: the COMM is dropped and the
                 * warning (or a new one) tells. */
                if (rc == 0)
                    snprintf(r->warning, sizeof r->warning,
                             "%s: offset %llu: the file ends inside the group records of a "
                             "communicator: the run did not finish; read %llu records",
                             r->path, (unsigned long long)(r->offset + MMT_RECORD_SIZE),
                             (unsigned long long)r->nrec);
                return 0;
            }
            unsigned cnt = p[MMT_R_SUB];
            size_t want = total - have < MMT_GROUP_PER_RECORD ? total - have : MMT_GROUP_PER_RECORD;
            if (p[MMT_R_TYPE] != MMT_GROUP || cnt != want || le_get16(p + MMT_R_FLAGS)) {
                free(world);
                return BAD("expected a GROUP record of %zu ranks (type %d), found type %u "
                           "with count %u", want, MMT_GROUP, p[MMT_R_TYPE], cnt);
            }
            for (unsigned i = 0; i < MMT_GROUP_PER_RECORD; i++) {
                int32_t w = le_as_i32(le_get32(p + 4 + 4 * i));
                if (i >= cnt ? w != 0 : (w < 0 || w >= r->h.size)) {
                    free(world);
                    return i >= cnt ? BAD("GROUP: unused slot %u is not 0", i)
                                    : BAD("GROUP: world rank %d outside 0..%d", w, r->h.size - 1);
                }
                if (i < cnt)
                    world[have + i] = w;
            }
            have += cnt;
        }
        /* Errors from here on are about the COMM record. */
        r->at_off = r->offset - (uint64_t)((total + MMT_GROUP_PER_RECORD - 1) / MMT_GROUP_PER_RECORD) * MMT_RECORD_SIZE;
        r->at_rec = r->nrec - (total + MMT_GROUP_PER_RECORD - 1) / MMT_GROUP_PER_RECORD;
        int32_t own = world[rec->peer];
        if (own != r->h.rank) {
            free(world);
            return BAD("COMM: own rank %d is world rank %d, not this file's rank %d",
                       rec->peer, own, r->h.rank);
        }
    } else if (rec->peer != r->h.rank) {
        return BAD("COMM: own rank %d in an identity group is not this file's rank %d",
                   rec->peer, r->h.rank);
    }
    mmt_comm *c = comm_insert(&r->comms, rec->comm);
    if (!c) {
        free(world);
        return fail(MMT_ENOMEM, err, errlen, "%s: out of memory", r->path);
    }
    c->parent = rec->aux;
    c->how = rec->sub;
    c->inter = (uint8_t)inter;
    c->rank = rec->peer;
    c->size = size;
    c->remote_size = rsize;
    c->world = world;
    return 1;
}

static int known_sub(const mmt_record *rec)
{
    switch (rec->type) {
    case MMT_SEND: case MMT_ISEND: return rec->sub <= MMT_MODE_MAX;
    case MMT_COLL: case MMT_ICOLL: return rec->sub >= 1 && rec->sub <= MMT_C_MAX;
    case MMT_COMPLETE:
        return rec->sub == MMT_ISEND || rec->sub == MMT_IRECV || rec->sub == MMT_IMRECV ||
               rec->sub == MMT_ICOLL;
    case MMT_PVAR: return rec->sub <= MMT_PV_MAX;
    case MMT_SYNC: return rec->sub <= 1;
    case MMT_COMM: return 1; /* checked in read_comm */
    default: return rec->sub == 0;
    }
}

/* Checks of the communicator, peer and tag of a record that names them.
 * `live`: the communicator must not have been freed. */
static int check_comm(mmt_reader *r, const mmt_record *rec, int live, const mmt_comm **out,
                      char *err, size_t errlen)
{
    char b[24];
    *out = NULL;
    if (rec->flags & MMT_F_NOCOMM) {
        if (rec->comm != MMT_COMM_UNKNOWN)
            return BAD("%s: NOCOMM flag with communicator %s", mmt_type_name(rec->type),
                       mmt_comm_str(rec->comm, b, sizeof b));
        return 0;
    }
    const mmt_comm *c = comm_lookup(&r->comms, rec->comm);
    if (!c)
        return BAD("%s: unknown communicator %s", mmt_type_name(rec->type),
                   mmt_comm_str(rec->comm, b, sizeof b));
    if (live && c->freed)
        return BAD("%s: communicator %s used after it was freed", mmt_type_name(rec->type),
                   mmt_comm_str(rec->comm, b, sizeof b));
    if (((rec->flags & MMT_F_INTER) != 0) != (c->inter != 0))
        return BAD("%s: the INTER flag disagrees with communicator %s",
                   mmt_type_name(rec->type), mmt_comm_str(rec->comm, b, sizeof b));
    *out = c;
    return 0;
}

/* A rank field: `what` names it. Allowed specials are given as a mask:
 * 1 ANY_SOURCE, 2 PROC_NULL, 4 ROOT, 8 NONE. */
static int check_rank(mmt_reader *r, const mmt_comm *c, int32_t v, int32_t vw, unsigned specials,
                      const char *what, char *err, size_t errlen)
{
    if (v == MMT_ANY_SOURCE && (specials & 1u))
        return 0;
    if (v == MMT_PROC_NULL && (specials & 2u))
        return 0;
    if (v == MMT_ROOT && (specials & 4u))
        return 0;
    if (v == MMT_NONE && (specials & 8u))
        return 0;
    if (v < 0)
        return BAD("%s %d is not a rank", what, v);
    if (c) {
        int32_t n = c->inter ? c->remote_size : c->size;
        if (v >= n)
            return BAD("%s %d outside 0..%d of the communicator", what, v, n - 1);
        if (vw != mmt_comm_world(c, v, c->inter))
            return BAD("%s %d is world rank %d, not %d", what, v, mmt_comm_world(c, v, c->inter), vw);
    }
    return 0;
}

static int check_tag(mmt_reader *r, int32_t tag, int any_ok, const char *what, char *err,
                     size_t errlen)
{
    if (tag >= 0 || (any_ok && tag == MMT_ANY_TAG))
        return 0;
    return BAD("%s %d is not a valid tag", what, tag);
}

static int check_req(mmt_reader *r, const mmt_record *rec, int issue, char *err, size_t errlen)
{
    if (rec->req == 0)
        return BAD("%s: request id 0", mmt_type_name(rec->type));
    if (issue) {
        if (rec->req > r->max_req)
            r->max_req = rec->req;
    } else if (rec->req > r->max_req) {
        return BAD("%s: request %llu was never issued", mmt_type_name(rec->type),
                   (unsigned long long)rec->req);
    }
    return 0;
}

/* The checks that depend on the type. Returns 0 or an error code. */
static int check_record(mmt_reader *r, const mmt_record *rec, char *err, size_t errlen)
{
    const mmt_comm *c;
    int rc = 0;
    unsigned any = 1u, pnull = 2u;
    int found = (rec->flags & MMT_F_FOUND) != 0;
    switch (rec->type) {
    case MMT_SEND:
    case MMT_ISEND:
        if ((rc = check_comm(r, rec, 1, &c, err, errlen)) ||
            (rc = check_rank(r, c, rec->peer, rec->peer_world, pnull, "destination", err, errlen)) ||
            (rc = check_tag(r, rec->tag, 0, "tag", err, errlen)))
            return rc;
        return rec->type == MMT_ISEND ? check_req(r, rec, 1, err, errlen) : 0;
    case MMT_RECV:
    case MMT_IRECV:
    case MMT_PROBE:
    case MMT_IPROBE:
    case MMT_MPROBE:
    case MMT_IMPROBE:
        if ((rc = check_comm(r, rec, 1, &c, err, errlen)) ||
            (rc = check_rank(r, c, rec->peer, rec->peer_world, any | pnull, "source", err, errlen)) ||
            (rc = check_tag(r, rec->tag, 1, "tag", err, errlen)))
            return rc;
        if (rec->type == MMT_IRECV || rec->type == MMT_MPROBE ||
            (rec->type == MMT_IMPROBE && found))
            if ((rc = check_req(r, rec, 1, err, errlen)))
                return rc;
        if (rec->type == MMT_IRECV)
            return 0;
        if ((rec->type == MMT_IPROBE || rec->type == MMT_IMPROBE) && !found)
            return 0;
        return check_rank(r, c, rec->src, rec->src_world, pnull, "actual source", err, errlen);
    case MMT_MRECV:
    case MMT_IMRECV:
        if ((rc = check_comm(r, rec, 0, &c, err, errlen)))
            return rc;
        if (rec->aux == 0 || rec->aux > r->max_req)
            return BAD("%s: message %llu was never probed", mmt_type_name(rec->type),
                       (unsigned long long)rec->aux);
        return rec->type == MMT_IMRECV ? check_req(r, rec, 1, err, errlen) : 0;
    case MMT_CANCEL:
    case MMT_REQFREE:
        return check_req(r, rec, 0, err, errlen);
    case MMT_COMPLETE:
        if ((rc = check_req(r, rec, 0, err, errlen)) || (rc = check_comm(r, rec, 0, &c, err, errlen)))
            return rc;
        if ((rec->sub == MMT_IRECV || rec->sub == MMT_IMRECV) && !(rec->flags & MMT_F_CANCELLED))
            return check_rank(r, c, rec->src, rec->src_world, pnull, "actual source", err, errlen);
        return 0;
    case MMT_COLL:
    case MMT_ICOLL:
        if ((rc = check_comm(r, rec, 1, &c, err, errlen)) ||
            (rc = check_rank(r, c, rec->peer, rec->peer_world, pnull | 4u | 8u, "root", err, errlen)))
            return rc;
        if (rec->tag < 0)
            return BAD("%s: negative element size %d", mmt_type_name(rec->type), rec->tag);
        if (rec->src < MMT_OP_UNKNOWN || rec->src > MMT_OP_NONCOMMUTATIVE)
            return BAD("%s: commutativity %d is not 0, 1 or 2", mmt_type_name(rec->type), rec->src);
        return rec->type == MMT_ICOLL ? check_req(r, rec, 1, err, errlen) : 0;
    case MMT_COMMFREE:
        if ((rc = check_comm(r, rec, 1, &c, err, errlen)))
            return rc;
        if (c)
            comm_lookup(&r->comms, rec->comm)->freed = 1;
        return 0;
    default:
        return 0;
    }
}

int mmt_next(mmt_reader *r, mmt_record *rec, char *err, size_t errlen)
{
    if (r->done)
        return 0;
    for (;;) {
        unsigned char p[MMT_RECORD_SIZE];
        int rc = read_raw(r, p, err, errlen);
        if (rc != 1) {
            r->done = 1;
            if (rc == 0 && !r->ended)
                snprintf(r->warning, sizeof r->warning,
                         "%s: offset %llu: no END record after %llu records: the run did not "
                         "finish (crashed or killed?); all of them were read",
                         r->path, (unsigned long long)(MMT_HEADER_SIZE + r->nrec * MMT_RECORD_SIZE),
                         (unsigned long long)r->nrec);
            return rc < 0 ? rc : 0;
        }
        r->done = 1; /* until this record passes its checks */
        if (r->ended)
            return BAD("a record after the END record");
        mmt_decode(p, rec);
        if (rec->type == 0 || rec->type > MMT_TYPE_MAX)
            return BAD("unknown record type %u", rec->type);
        if (rec->type == MMT_GROUP)
            return BAD("a GROUP record that follows no COMM record");
        if (rec->flags & ~(unsigned)MMT_F_ALL)
            return BAD("%s: unknown flags 0x%x", mmt_type_name(rec->type), rec->flags);
        if (!known_sub(rec))
            return BAD("%s: bad sub-type %u", mmt_type_name(rec->type), rec->sub);
        if (rec->t_end < rec->t_start)
            return BAD("%s: ends (%llu ns) before it starts (%llu ns)", mmt_type_name(rec->type),
                       (unsigned long long)rec->t_end, (unsigned long long)rec->t_start);
        if (rec->type == MMT_END) {
            if (rec->aux != r->nrec - 1)
                return BAD("END: counts %llu records, the file has %llu before it",
                           (unsigned long long)rec->aux, (unsigned long long)(r->nrec - 1));
            r->ended = 1;
            r->done = 0;
            return 1;
        }
        if (rec->type == MMT_COMM) {
            rc = read_comm(r, rec, err, errlen);
            if (rc <= 0)
                return rc;
            r->done = 0;
            return 1;
        }
        if ((rc = check_record(r, rec, err, errlen)))
            return rc;
        r->done = 0;
        return 1;
    }
}

/* ---- names ---- */

static const char *const type_names[MMT_TYPE_MAX + 1] = {
    NULL, "SEND", "ISEND", "RECV", "IRECV", "PROBE", "IPROBE", "MPROBE", "IMPROBE", "MRECV",
    "IMRECV", "CANCEL", "COMPLETE", "REQFREE", "COLL", "ICOLL", "COMM", "GROUP", "COMMFREE",
    "PVAR", "SYNC", "END"
};
static const char *const coll_names[MMT_C_MAX + 1] = {
    NULL, "barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce_scatter",
    "reduce_scatter_block", "scan", "exscan"
};
static const char *const how_names[MMT_CM_MAX + 1] = {
    "world", "self", "dup", "dup_with_info", "split", "split_type", "create", "create_group",
    "cart_create", "cart_sub", "graph_create", "dist_graph_create",
    "dist_graph_create_adjacent", "intercomm_create", "intercomm_merge"
};
static const char *const pvar_names[MMT_PV_MAX + 1] = { "unexpected", "posted" };
static const char *const mode_names[MMT_MODE_MAX + 1] = { "standard", "sync", "ready", "buffered" };

#define NAME_AT(table, i) ((i) >= 0 && (size_t)(i) < sizeof table / sizeof table[0] ? table[i] : NULL)
const char *mmt_type_name(int type) { return NAME_AT(type_names, type); }
const char *mmt_coll_name(int op) { return NAME_AT(coll_names, op); }
const char *mmt_comm_how_name(int how) { return NAME_AT(how_names, how); }
const char *mmt_pvar_name(int pv) { return NAME_AT(pvar_names, pv); }
const char *mmt_mode_name(int mode) { return NAME_AT(mode_names, mode); }

const char *mmt_comm_str(uint64_t id, char *buf, size_t len)
{
    if (id == MMT_COMM_UNKNOWN)
        snprintf(buf, len, "unknown");
    else
        snprintf(buf, len, "%lu.%lu", (unsigned long)(id >> 32), (unsigned long)(id & 0xffffffffu));
    return buf;
}
