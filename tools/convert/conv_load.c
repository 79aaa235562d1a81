/*
 * conv_load.c - read every rank's trace file, align their clocks, number
 * the communicators (docs/convert.md, "Input" and "Clocks").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conv_internal.h"

int cv_warn(cv_conv *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (c->o->log)
        fprintf(c->o->log, "mpimatch-convert: warning: %s\n", buf);
    if (c->nwarn == c->capwarn) {
        size_t cap = c->capwarn ? 2 * c->capwarn : 16;
        char **w = realloc(c->warn, cap * sizeof *w);
        if (!w)
            return MMS_ENOMEM;
        c->warn = w;
        c->capwarn = cap;
    }
    if (!(c->warn[c->nwarn] = strdup(buf)))
        return MMS_ENOMEM;
    c->nwarn++;
    return MMS_OK;
}

void cv_progress(const cv_conv *c, const char *what, int64_t done, int64_t total)
{
    FILE *f = c->o->progress;
    if (!f || total <= 0)
        return;
    /* only when the whole percentage changes, and at the end */
    if (done < total && done > 0 && (done * 100 / total) == ((done - 1) * 100 / total))
        return;
    int width = 30, fill = (int)(done * width / total);
    fprintf(f, "\r%-16s [%.*s%*s] %lld/%lld%s", what, fill,
            "##############################", width - fill, "", (long long)done,
            (long long)total, done >= total ? "\n" : "");
    fflush(f);
}

/* Grow *p (elements of size sz) to hold at least need; 0 or MMS_ENOMEM. */
static int grow(void **p, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    if (n > SIZE_MAX / sz)
        return MMS_ENOMEM;
    void *q = realloc(*p, n * sz);
    if (!q)
        return MMS_ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

int cv_push_ev(cv_evs *e, const cv_ev *x)
{
    if (grow((void **)&e->v, &e->cap, e->n + 1, sizeof *e->v))
        return MMS_ENOMEM;
    e->v[e->n++] = *x;
    return MMS_OK;
}

int cv_push_msg(cv_conv *c, const cv_msg *m)
{
    if (grow((void **)&c->msg, &c->capmsg, c->nmsg + 1, sizeof *c->msg))
        return MMS_ENOMEM;
    c->msg[c->nmsg++] = *m;
    return MMS_OK;
}

static int fail(int code, char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(int code, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

static char *path_of(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Open rank i's file and read all its records (GROUP records go into the
 * reader's communicator table). */
static int load_rank(cv_conv *c, int32_t i, char *err, size_t errlen)
{
    cv_rank *r = &c->r[i];
    char name[32];
    snprintf(name, sizeof name, "rank-%06d.mmt", (int)i);
    if (!(r->path = path_of(c->o->trace_dir, name)))
        return fail(MMS_ENOMEM, err, errlen, "out of memory");
    int rc = mmt_open(&r->rd, r->path, err, errlen);
    if (rc != MMT_OK)
        return rc == MMT_ENOMEM ? MMS_ENOMEM : rc == MMT_EIO ? MMS_EIO : MMS_EFORMAT;
    r->h = *mmt_header_of(r->rd);
    size_t cap = 0;
    mmt_record rec;
    while ((rc = mmt_next(r->rd, &rec, err, errlen)) > 0) {
        if (grow((void **)&r->rec, &cap, r->nrec + 1, sizeof rec))
            return fail(MMS_ENOMEM, err, errlen, "out of memory");
        r->rec[r->nrec++] = rec;
    }
    if (rc < 0)
        return rc == MMT_ENOMEM ? MMS_ENOMEM : rc == MMT_EIO ? MMS_EIO : MMS_EFORMAT;
    const char *w = mmt_warning(r->rd);
    c->cut_short += w != NULL;
    if (w && cv_warn(c, "%s (converted up to its last whole record)", w))
        return fail(MMS_ENOMEM, err, errlen, "out of memory");
    return MMS_OK;
}

/* Ranks on one host share CLOCK_MONOTONIC. The trace's alignment lines
 * hosts up on the SYNC record every rank writes right after the barrier in
 * MPI_Init (t0 of the header when a file has none); --clock first-record on
 * the first record of each host's first rank. --clock causal (the default)
 * then corrects that by message causality (conv_clock.c). Last, all times
 * are shifted so that the earliest MPI_Init return is 0. */
static int align(cv_conv *c, char *err, size_t errlen)
{
    int32_t nodes = 0;
    if (!(c->dom = calloc((size_t)c->n, sizeof *c->dom)))
        return MMS_ENOMEM;
    for (int32_t i = 0; i < c->n; i++) {
        cv_rank *r = &c->r[i];
        uint64_t b = r->h.t0;
        if (c->o->clock == MM_CONV_CLOCK_FIRST) {
            if (r->nrec)
                b = r->rec[0].t_start;
        } else {
            for (size_t k = 0; k < r->nrec; k++)
                if (r->rec[k].type == MMT_SYNC && r->rec[k].sub == 0) {
                    b = r->rec[k].t_start;
                    break;
                }
        }
        r->node = -1;
        for (int32_t j = 0; j < i && r->node < 0; j++)
            if (strncmp(c->r[j].h.host, r->h.host, sizeof r->h.host) == 0)
                r->node = c->r[j].node;
        if (r->node < 0) {
            r->node = nodes++;
            c->dom[r->node].rank = i;
            c->dom[r->node].base = (int64_t)b;
        }
    }
    c->ndom = nodes;
    for (int32_t d = nodes - 1; d >= 0; d--)
        c->dom[d].base -= c->dom[0].base;
    for (int32_t i = 0; i < c->n; i++)
        c->r[i].shift = c->dom[c->r[i].node].base;
    int rc = cv_clock(c, err, errlen);
    if (rc)
        return rc;
    int64_t lowest = INT64_MAX;
    for (int32_t i = 0; i < c->n; i++) {
        cv_rank *r = &c->r[i];
        int64_t t0 = (int64_t)r->h.t0 - r->shift;
        if (r->rate != 0)
            t0 -= (int64_t)(r->rate * (double)((int64_t)r->h.t0 - r->rbase));
        if (t0 < lowest)
            lowest = t0;
    }
    for (int32_t i = 0; i < c->n; i++)
        c->r[i].shift += lowest;
    return MMS_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Stream ids: the trace's communicator ids in increasing order, so
 * MPI_COMM_WORLD (0.0) is 0 and the numbering depends only on the trace. */
static int number_comms(cv_conv *c, char *err, size_t errlen)
{
    size_t cap = 0;
    for (int32_t i = 0; i < c->n; i++)
        for (size_t k = 0; k < c->r[i].nrec; k++) {
            const mmt_record *x = &c->r[i].rec[k];
            if (x->type != MMT_COMM)
                continue;
            if (grow((void **)&c->comm_ids, &cap, c->ncomm + 1, sizeof *c->comm_ids))
                return fail(MMS_ENOMEM, err, errlen, "out of memory");
            c->comm_ids[c->ncomm++] = x->comm;
        }
    if (c->ncomm)
        qsort(c->comm_ids, c->ncomm, sizeof *c->comm_ids, cmp_u64);
    size_t u = 0;
    for (size_t k = 0; k < c->ncomm; k++)
        if (u == 0 || c->comm_ids[u - 1] != c->comm_ids[k])
            c->comm_ids[u++] = c->comm_ids[k];
    c->ncomm = u;
    if (u > (size_t)INT32_MAX)
        return fail(MMS_EFORMAT, err, errlen, "%s: too many communicators (%zu)", c->o->trace_dir, u);
    return MMS_OK;
}

int32_t cv_comm_id(const cv_conv *c, uint64_t tcomm)
{
    size_t lo = 0, hi = c->ncomm;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->comm_ids[mid] < tcomm)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->ncomm && c->comm_ids[lo] == tcomm ? (int32_t)lo : -1;
}

/* The calls the trace's source did not record: the flat object
 * "not_recorded": {"MPI_Isend": 84, ...} that `mpimatch import dumpi`
 * writes in the trace's index.json (docs/dumpi.md). Anything else there is
 * not read; an object that does not read so is a warning. */
static int read_not_recorded(cv_conv *c, const char *idx)
{
    char *d = NULL, e[256];
    size_t len;
    if (mm_read_file(idx, &d, &len, e, sizeof e) != MMS_OK)
        return cv_warn(c, "%s", e);
    const char *p = strstr(d, "\"not_recorded\":");
    int rc = MMS_OK;
    if (!p)
        goto out;
    p = strchr(p, '{');
    for (p = p ? p + 1 : NULL; p;) {
        while (*p == ' ' || *p == '\n' || *p == ',')
            p++;
        if (*p == '}')
            goto out;
        const char *q = *p == '"' ? strchr(p + 1, '"') : NULL;
        char *end = NULL;
        if (!q || q[1] != ':' || q - p - 1 > 63)
            break;
        unsigned long long v = strtoull(q + 2, &end, 10);
        if (end == q + 2)
            break;
        char **nn = realloc(c->nr_name, (c->n_nr + 1) * sizeof *nn);
        if (nn)
            c->nr_name = nn;
        uint64_t *nc = realloc(c->nr_count, (c->n_nr + 1) * sizeof *nc);
        if (nc)
            c->nr_count = nc;
        if (!nn || !nc || !(c->nr_name[c->n_nr] = strndup(p + 1, (size_t)(q - p - 1)))) {
            rc = MMS_ENOMEM;
            goto out;
        }
        c->nr_count[c->n_nr++] = v;
        p = end;
    }
    rc = cv_warn(c, "%s: \"not_recorded\" does not read as {\"CALL\": COUNT, ...}: the calls "
                    "the source did not record are unknown", idx);
out:
    free(d);
    return rc;
}

int cv_load(cv_conv *c, char *err, size_t errlen)
{
    const char *dir = c->o->trace_dir;
    struct stat st;
    char *idx = path_of(dir, "index.json");
    if (!idx)
        return fail(MMS_ENOMEM, err, errlen, "out of memory");
    c->has_index = stat(idx, &st) == 0;
    if (!c->has_index &&
        cv_warn(c, "%s: missing (the run did not reach MPI_Finalize?); rank files found by their "
                   "names rank-NNNNNN.mmt", idx)) {
        free(idx);
        return fail(MMS_ENOMEM, err, errlen, "out of memory");
    }
    if (c->has_index && read_not_recorded(c, idx)) {
        free(idx);
        return fail(MMS_ENOMEM, err, errlen, "out of memory");
    }
    free(idx);

    /* Rank 0's header gives the world size; every file must agree. */
    c->n = 1;
    if (!(c->r = calloc(1, sizeof *c->r)))
        return fail(MMS_ENOMEM, err, errlen, "out of memory");
    int rc = load_rank(c, 0, err, errlen);
    if (rc)
        return rc;
    int32_t n = c->r[0].h.size;
    cv_rank *r = realloc(c->r, (size_t)n * sizeof *r);
    if (!r)
        return fail(MMS_ENOMEM, err, errlen, "out of memory");
    memset(r + 1, 0, (size_t)(n - 1) * sizeof *r);
    c->r = r;
    c->n = n;
    for (int32_t i = 1; i < n; i++) {
        cv_progress(c, "reading trace", i, n);
        /* c->n counts the loaded ranks so cv_free frees exactly those */
        if ((rc = load_rank(c, i, err, errlen)))
            return rc;
    }
    cv_progress(c, "reading trace", n, n);
    memcpy(c->mpi, c->r[0].h.mpi, sizeof c->mpi);
    c->mpi[sizeof c->mpi - 1] = '\0';
    for (int32_t i = 0; i < n; i++) {
        const mmt_header *h = &c->r[i].h;
        if (h->rank != i)
            return fail(MMS_EFORMAT, err, errlen, "%s: offset %d: rank %d in the header, but the "
                        "file name says %d", c->r[i].path, MMT_H_RANK, (int)h->rank, (int)i);
        if (h->size != n)
            return fail(MMS_EFORMAT, err, errlen, "%s: offset %d: world size %d, but %s says %d",
                        c->r[i].path, MMT_H_SIZE, (int)h->size, c->r[0].path, (int)n);
        if (strncmp(h->mpi, c->mpi, sizeof c->mpi) != 0)
            return fail(MMS_EFORMAT, err, errlen, "%s: offset %d: MPI '%s', but %s says '%s'",
                        c->r[i].path, MMT_H_MPI, h->mpi, c->r[0].path, c->mpi);
    }
    if ((rc = align(c, err, errlen)))
        return rc == MMS_ENOMEM ? fail(MMS_ENOMEM, err, errlen, "out of memory") : rc;
    return number_comms(c, err, errlen);
}

void cv_free(cv_conv *c)
{
    for (int32_t i = 0; c->r && i < c->n; i++) {
        cv_rank *r = &c->r[i];
        if (r->rd)
            mmt_close(r->rd);
        free(r->path);
        free(r->rec);
        free(r->evs.v);
        free(r->ops);
    }
    free(c->r);
    free(c->comm_ids);
    free(c->msg);
    free(c->dom);
    for (size_t i = 0; i < c->n_nr; i++)
        free(c->nr_name[i]);
    free(c->nr_name);
    free(c->nr_count);
    for (size_t i = 0; i < c->nwarn; i++)
        free(c->warn[i]);
    free(c->warn);
    memset(c, 0, sizeof *c);
}
