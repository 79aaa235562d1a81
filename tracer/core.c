/*
 * core.c - the tracer's buffer and file, communicators, start and stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer.h"

#ifndef MMTR_MPI_NAME
#error "MMTR_MPI_NAME must name the MPI this tracer is built for"
#endif

tr_state tr = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

static void warn(const char *what, const char *path, int err)
{
    fprintf(stderr, "mpimatch-trace: rank %d: %s %s: %s; tracing is off for this rank\n",
            tr.rank, what, path, strerror(err));
}

/* ---- buffer ---- */

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void tr_flush(void)
{
    if (tr.fd < 0 || tr.used == 0)
        return;
    if (write_all(tr.fd, tr.buf, tr.used)) {
        /* Disk full or similar: stop rather than write a file with a hole. */
        warn("cannot write to the trace file in", tr.dir, errno);
        close(tr.fd);
        tr.fd = -1;
        tr.on = 0;
    }
    tr.used = 0;
}

/* The record just encoded at tr.buf + tr.used is complete. */
static void commit(void)
{
    tr.used += MMT_RECORD_SIZE;
    tr.nrec++;
    if (tr.used == TR_BLOCK_RECORDS * MMT_RECORD_SIZE)
        tr_flush();
}

void tr_emit(const mmt_record *r)
{
    if (tr.fd < 0)
        return;
    mmt_encode(r, tr.buf + tr.used);
    commit();
}

/* ---- ranks, tags, bytes ---- */

int32_t tr_rank(int r)
{
    if (r == MPI_ANY_SOURCE)
        return MMT_ANY_SOURCE;
    if (r == MPI_PROC_NULL)
        return MMT_PROC_NULL;
    if (r == MPI_ROOT)
        return MMT_ROOT;
    return r;
}

int32_t tr_world(const tr_comm *c, int r)
{
    if (!c || r < 0)
        return -1;
    int32_t n = c->inter ? c->rsize : c->size;
    if (r >= n)
        return -1;
    if (!c->world)
        return r;
    return c->world[(c->inter ? c->size : 0) + r];
}

int32_t tr_tag(int tag)
{
    return tag == MPI_ANY_TAG ? MMT_ANY_TAG : tag;
}

uint64_t tr_bytes(int count, MPI_Datatype dt)
{
    int sz = 0;
    if (count <= 0 || dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &sz) != MPI_SUCCESS ||
        sz == MPI_UNDEFINED || sz < 0)
        return 0;
    return (uint64_t)count * (uint64_t)sz;
}

int tr_peer_count(MPI_Comm comm, const tr_comm *c)
{
    int n = 0;
    if (c)
        return c->inter ? c->rsize : c->size;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

uint64_t tr_set_status(mmt_record *r, const tr_comm *c, const MPI_Status *st)
{
    int n = 0;
    r->src = tr_rank(st->MPI_SOURCE);
    r->src_world = tr_world(c, st->MPI_SOURCE);
    r->rtag = tr_tag(st->MPI_TAG);
    if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED && n > 0)
        return (uint64_t)n;
    return 0;
}

/* ---- communicators ---- */

tr_comm *tr_comm_find(MPI_Comm c)
{
    tr_entry *e = tr_table_get(&tr.comms, TR_KEY(c));
    return e ? e->comm : NULL;
}

void tr_comm_unref(tr_comm *c)
{
    if (c && --c->refs == 0) {
        free(c->world);
        free(c);
    }
}

void tr_set_comm(mmt_record *r, const tr_comm *c)
{
    if (!c) {
        r->comm = MMT_COMM_UNKNOWN;
        r->flags |= MMT_F_NOCOMM;
        return;
    }
    r->comm = c->id;
    if (c->inter)
        r->flags |= MMT_F_INTER;
}

void tr_req_issued(MPI_Request req, uint64_t id, tr_comm *c, int type)
{
    if (tr_table_put(&tr.reqs, TR_KEY(req), id, c, (uint8_t)type) == 0 && c)
        c->refs++;
}

int tr_req_done(uint64_t key, tr_entry *out)
{
    tr_entry *e = tr_table_get(&tr.reqs, key);
    if (!e || e->id == 0)
        return 0;
    if (!e->tmpl)
        return tr_table_take(&tr.reqs, key, out);
    /* Persistent: it stays allocated, inactive until the next start. */
    *out = *e;
    e->id = 0;
    return 1;
}

/* World ranks of a group (n members) into out. */
static void translate(MPI_Group g, int n, int32_t *out)
{
    int *in = calloc((size_t)n + 1, sizeof *in), *w = calloc((size_t)n + 1, sizeof *w);
    if (in && w) {
        for (int i = 0; i < n; i++)
            in[i] = i;
        PMPI_Group_translate_ranks(g, n, in, tr.world_group, w);
        for (int i = 0; i < n; i++)
            out[i] = w[i] == MPI_UNDEFINED ? -1 : w[i];
    } else {
        for (int i = 0; i < n; i++)
            out[i] = -1;
    }
    free(in);
    free(w);
}

/* Record a communicator and enter it in the table (lock held). */
static void emit_comm(MPI_Comm handle, tr_comm *c, int how, int color, int32_t my, uint64_t parent,
                      uint64_t t0, uint64_t t1)
{
    mmt_record r = tr_rec(MMT_COMM, t0, t1);
    r.sub = (uint8_t)how;
    r.comm = c->id;
    r.aux = parent;
    r.peer = my;
    r.tag = color;
    r.src = c->size;
    r.src_world = c->rsize;
    if (c->inter)
        r.flags |= MMT_F_INTER;
    if (!c->world)
        r.flags |= MMT_F_IDENTITY;
    tr_emit(&r);
    size_t total = (size_t)c->size + (size_t)c->rsize;
    for (size_t i = 0; c->world && i < total; i += MMT_GROUP_PER_RECORD) {
        unsigned k = (unsigned)(total - i < MMT_GROUP_PER_RECORD ? total - i : MMT_GROUP_PER_RECORD);
        if (tr.fd >= 0) {
            mmt_encode_group(c->world + i, k, tr.buf + tr.used);
            commit();
        }
    }
    if (tr_table_put(&tr.comms, TR_KEY(handle), c->id, c, MMT_COMM) != 0)
        tr_comm_unref(c);
}

/* Agree on the sequence number and lowest world rank with the other
 * members (docs/trace-format.md, "Communicator ids"). */
static uint64_t agree_id(MPI_Comm newc, int inter)
{
    tr_lock();
    long long mine[2] = { (long long)tr.next_seq, -(long long)tr.rank };
    tr_unlock();
    long long r1[2], r2[2];
    PMPI_Allreduce(mine, r1, 2, MPI_LONG_LONG, MPI_MAX, newc);
    if (inter) {
        /* Over an intercommunicator the result is the remote group's; a
         * second round brings back our own group's, and the larger of the
         * two is the same on both sides. */
        PMPI_Allreduce(r1, r2, 2, MPI_LONG_LONG, MPI_MAX, newc);
        for (int i = 0; i < 2; i++)
            if (r2[i] > r1[i])
                r1[i] = r2[i];
        if (mine[0] > r1[0])
            r1[0] = mine[0];
        if (mine[1] > r1[1])
            r1[1] = mine[1];
    }
    tr_lock();
    if ((uint64_t)r1[0] + 1 > tr.next_seq)
        tr.next_seq = (uint32_t)(r1[0] + 1);
    tr_unlock();
    return (uint64_t)(-r1[1]) << 32 | (uint64_t)(uint32_t)r1[0];
}

static tr_comm *describe(MPI_Comm c, int *my)
{
    tr_comm *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->refs = 1;
    PMPI_Comm_test_inter(c, &d->inter);
    PMPI_Comm_size(c, &d->size);
    PMPI_Comm_rank(c, my);
    d->me = *my;
    if (d->inter)
        PMPI_Comm_remote_size(c, &d->rsize);
    d->world = malloc(((size_t)d->size + (size_t)d->rsize) * sizeof *d->world);
    if (!d->world) {
        free(d);
        return NULL;
    }
    MPI_Group g;
    PMPI_Comm_group(c, &g);
    translate(g, d->size, d->world);
    PMPI_Group_free(&g);
    if (d->inter) {
        PMPI_Comm_remote_group(c, &g);
        translate(g, d->rsize, d->world + d->size);
        PMPI_Group_free(&g);
    }
    int identity = !d->inter && d->size == tr.size;
    for (int i = 0; identity && i < d->size; i++)
        identity = d->world[i] == i;
    if (identity) {
        free(d->world);
        d->world = NULL;
    }
    return d;
}

void tr_comm_created(MPI_Comm parent, MPI_Comm newc, int how, int color, uint64_t t0)
{
    if (!tr.on || newc == MPI_COMM_NULL)
        return;
    int my = 0;
    tr_comm *d = describe(newc, &my);
    if (!d)
        return;
    d->id = agree_id(newc, d->inter);
    uint64_t t1 = tr_now();
    tr_lock();
    tr_comm *p = parent == MPI_COMM_NULL ? NULL : tr_comm_find(parent);
    emit_comm(newc, d, how, color, my, p ? p->id : MMT_NO_PARENT, t0, t1);
    tr_unlock();
}

/* ---- start and stop ---- */

static void mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(path, 0777);
        *p = '/';
    }
    mkdir(path, 0777);
}

static int thread_level(int provided)
{
    if (provided == MPI_THREAD_MULTIPLE)
        return 3;
    if (provided == MPI_THREAD_SERIALIZED)
        return 2;
    return provided == MPI_THREAD_FUNNELED ? 1 : 0;
}

static int write_header(int provided, int pvars, uint64_t t0)
{
    mmt_header h;
    memset(&h, 0, sizeof h);
    h.flags = pvars ? MMT_HF_PVARS : 0;
    h.rank = tr.rank;
    h.size = tr.size;
    h.pid = (uint32_t)getpid();
    h.clock = MMT_CLOCK_MONOTONIC;
    h.t0 = t0;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    h.t0_real = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    h.thread_level = thread_level(provided);
    snprintf(h.mpi, sizeof h.mpi, "%s", MMTR_MPI_NAME);
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (PMPI_Get_library_version(ver, &len) == MPI_SUCCESS) {
        ver[strcspn(ver, "\n")] = '\0';
        snprintf(h.libver, sizeof h.libver, "%.*s", (int)sizeof h.libver - 1, ver);
    }
    gethostname(h.host, sizeof h.host - 1);
    unsigned char p[MMT_HEADER_SIZE];
    mmt_encode_header(&h, p);
    return write_all(tr.fd, p, sizeof p);
}

/* A SYNC record right after a barrier on the world (lock not needed:
 * called from MPI_Init and MPI_Finalize). */
static void sync_point(int sub)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    uint64_t t = tr_now();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    mmt_record r = tr_rec(MMT_SYNC, t, t);
    r.sub = (uint8_t)sub;
    r.aux = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    tr_emit(&r);
}

static void at_exit(void)
{
    /* exit() without MPI_Finalize: keep what is buffered (no END). */
    if (tr.on) {
        tr_lock();
        tr_flush();
        tr_unlock();
    }
}

static void builtin_comm(MPI_Comm handle, int how, uint64_t id, uint64_t t)
{
    int my = 0;
    tr_comm *d = describe(handle, &my);
    if (!d)
        return;
    d->id = id;
    emit_comm(handle, d, how, MMT_NONE, my, MMT_NO_PARENT, t, t);
    if (how == MMT_CM_WORLD)
        tr.world = d;
    else
        tr.self = d;
}

void tr_start(int provided)
{
    uint64_t t0 = tr_now();
    PMPI_Comm_rank(MPI_COMM_WORLD, &tr.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &tr.size);
    PMPI_Comm_group(MPI_COMM_WORLD, &tr.world_group);
    tr.mt = provided == MPI_THREAD_MULTIPLE;
    const char *dir = getenv("MPIMATCH_TRACE_DIR");
    snprintf(tr.dir, sizeof tr.dir, "%s", dir && *dir ? dir : "mpimatch-trace");
    mkdirs(tr.dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/rank-%06d.mmt", tr.dir, tr.rank);
    tr.buf = malloc(TR_BLOCK_RECORDS * MMT_RECORD_SIZE);
    tr.fd = tr.buf ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    if (tr.fd < 0) {
        warn("cannot create", path, tr.buf ? errno : ENOMEM);
        return;
    }
    const char *every = getenv("MPIMATCH_TRACE_PVAR_EVERY");
    tr.pvar_every = every && *every ? (unsigned)strtoul(every, NULL, 10) : 64;
    int pvars = tr.pvar_every ? tr_pvar_init(provided) : 0;
    if (!pvars)
        tr.pvar_every = 0;
    if (write_header(provided, pvars, t0)) {
        warn("cannot write", path, errno);
        close(tr.fd);
        tr.fd = -1;
        return;
    }
    tr.next_id = 1;
    tr.next_seq = 2;
    tr.on = 1;
    builtin_comm(MPI_COMM_WORLD, MMT_CM_WORLD, MMT_COMM_WORLD_ID, t0);
    builtin_comm(MPI_COMM_SELF, MMT_CM_SELF, (uint64_t)tr.rank << 32 | 1, t0);
    sync_point(0);
    if (pvars)
        tr_pvar_sample();
    atexit(at_exit);
}

/* Rank 0 lists the files in DIR/index.json (written to a temporary file
 * and renamed, so a reader never sees half of it). */
static void write_index(int pvars)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/index.json", tr.dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        warn("cannot create", tmp, errno);
        return;
    }
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    ver[0] = '\0';
    PMPI_Get_library_version(ver, &len);
    ver[strcspn(ver, "\n")] = '\0';
    for (char *p = ver; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = ' ';
    fprintf(f, "{\"format\": \"mpimatch-trace\", \"version\": %d, \"ranks\": %d, \"mpi\": \"%s\",\n"
               " \"library\": \"%s\", \"pvars\": %s,\n \"files\": [",
            MMT_VERSION, tr.size, MMTR_MPI_NAME, ver, pvars ? "true" : "false");
    for (int i = 0; i < tr.size; i++)
        fprintf(f, "%s\"rank-%06d.mmt\"", i ? ", " : "", i);
    fprintf(f, "]}\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        warn("cannot write", path, errno);
        unlink(tmp);
    }
}

void tr_stop(void)
{
    if (!tr.on)
        return;
    sync_point(1);
    tr_lock();
    int pvars = tr.pvar_every != 0;
    if (pvars)
        tr_pvar_sample();
    uint64_t t = tr_now();
    mmt_record r = tr_rec(MMT_END, t, t);
    r.aux = tr.nrec;
    tr_emit(&r);
    tr_flush();
    if (tr.fd >= 0)
        close(tr.fd);
    tr.fd = -1;
    tr.on = 0;
    tr_unlock();
    tr_pvar_fini();
    if (tr.rank == 0)
        write_index(pvars);
    PMPI_Group_free(&tr.world_group);
}
