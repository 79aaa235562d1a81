/*
 * dumpi_read.c - the SST DUMPI trace reader (dumpi_read.h, docs/dumpi.md).
 *
 * The file is read through one growing window (records have no length
 * field, so a record is decoded in place and the window is refilled when a
 * field would cross its end). Everything the format fixes is checked:
 * magic, index offsets, header, labels, mask bits, nanosecond fields, array
 * lengths, and that the stream ends where the index says.
 */
#include "dumpi_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define INDEX_SLOTS 8 /* magic + 7 offsets in current files */

struct dumpi_reader {
    FILE *f;
    char *path;
    uint64_t fsize;
    /* the window: buf[0] is at file offset base; the cursor is pos */
    unsigned char *buf;
    size_t cap, len, pos;
    uint64_t base;
    uint64_t end;        /* the stream may not run past this offset */
    int have_index;
    int ver[3], ver_known;
    uint64_t starttime;
    char host[256];
    uint64_t bias[2];    /* CPU, wall: seconds */
    uint64_t wrap[2], last[2]; /* 16-bit seconds unwrapping */
    int64_t *sizes;
    size_t nsizes;
    /* per-record scratch */
    int32_t *ints;
    size_t nints, capints;
    dumpi_status *st;
    size_t capst;
    uint64_t nrec;
    int done;
    char warning[512];
    /* the footer's counts by call label: calls made, calls not recorded */
    uint32_t calls[DL_ALL_FUNCTIONS + 1], ignored[DL_ALL_FUNCTIONS + 1];
    int have_footer;
    char footer_note[256];
};

static int vfail(const char *path, uint64_t off, char *err, size_t errlen, const char *fmt,
                 va_list ap)
{
    if (err && errlen) {
        int w = snprintf(err, errlen, "%s: offset %llu: ", path, (unsigned long long)off);
        if (w >= 0 && (size_t)w < errlen)
            vsnprintf(err + w, errlen - (size_t)w, fmt, ap);
    }
    return DUMPI_EFORMAT;
}

int dumpi_fail_at(const dumpi_reader *r, uint64_t off, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(r->path, off, err, errlen, fmt, ap);
    va_end(ap);
    return rc;
}

static int nomem(const dumpi_reader *r, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: out of memory", r->path);
    return DUMPI_ENOMEM;
}

/* Read n bytes at file offset off into p; 0, or -1 if the file ends. */
static int read_at(dumpi_reader *r, uint64_t off, void *p, size_t n)
{
    if (off > r->fsize || n > r->fsize - off)
        return -1;
    if (fseeko(r->f, (off_t)off, SEEK_SET) != 0 || fread(p, 1, n, r->f) != n)
        return -1;
    return 0;
}

/* The footer (libdumpi writes it at MPI_Finalize): u64 magic f007fee7,
 * then u32 call counts and u32 ignored (not recorded) counts, one per
 * call label 0..DL_ALL_FUNCTIONS. A footer that does not read so leaves
 * the counts unknown, with a note. */
static void read_footer(dumpi_reader *r, uint64_t off, uint64_t limit)
{
    enum { N = DL_ALL_FUNCTIONS + 1 };
    unsigned char p[8 + 8 * N];
    if (off + sizeof p > limit || read_at(r, off, p, sizeof p)) {
        snprintf(r->footer_note, sizeof r->footer_note,
                 "offset %llu: the footer is shorter than %zu bytes: calls not recorded unknown",
                 (unsigned long long)off, sizeof p);
        return;
    }
    if (be_get64(p) != UINT64_C(0xf007fee7)) {
        snprintf(r->footer_note, sizeof r->footer_note,
                 "offset %llu: no footer magic: calls not recorded unknown", (unsigned long long)off);
        return;
    }
    for (int i = 0; i < N; i++) {
        r->calls[i] = be_get32(p + 8 + 4 * i);
        r->ignored[i] = be_get32(p + 8 + 4 * (N + i));
    }
    r->have_footer = 1;
}

static int have_version(const dumpi_reader *r, int a, int b, int c)
{
    if (!r->ver_known)
        return 1; /* no header: the newest layout */
    if (r->ver[0] != a)
        return r->ver[0] > a;
    if (r->ver[1] != b)
        return r->ver[1] > b;
    return r->ver[2] >= c;
}

/* The index at the end of the file: 1 found (offsets set), 0 absent. */
static int read_index(dumpi_reader *r, uint64_t off[7])
{
    unsigned char p[INDEX_SLOTS * 8];
    if (r->fsize < DUMPI_MAGIC_LEN + sizeof p || read_at(r, r->fsize - sizeof p, p, sizeof p))
        return 0;
    /* Current files: magic, sizes, addresses, counters, header, body,
     * footer, keyval. Older ones lack the first one, two or three
     * offsets: the magic then sits later. */
    memset(off, 0, 7 * sizeof *off);
    for (int skip = 0; skip <= 3; skip++) {
        if (memcmp(p + 8 * skip, DUMPI_MAGIC, DUMPI_MAGIC_LEN) != 0)
            continue;
        for (int i = skip + 1; i < INDEX_SLOTS; i++)
            off[i - 1] = be_get64(p + 8 * i);
        return 1;
    }
    return 0;
}

static int read_header(dumpi_reader *r, uint64_t hoff, uint64_t limit, char *err, size_t errlen)
{
    unsigned char p[13];
    if (hoff + sizeof p + 2 > limit || read_at(r, hoff, p, sizeof p))
        return dumpi_fail_at(r, hoff, err, errlen, "header runs past the end of its section");
    for (int i = 0; i < 3; i++)
        r->ver[i] = p[i];
    r->ver_known = 1;
    r->starttime = be_get64(p + 3);
    unsigned char l[2];
    if (read_at(r, hoff + 11, l, 2))
        return dumpi_fail_at(r, hoff + 11, err, errlen, "header: truncated host name");
    size_t n = be_get16(l);
    if (hoff + 13 + n > limit)
        return dumpi_fail_at(r, hoff + 11, err, errlen,
                             "header: host name of %zu bytes runs past the header", n);
    size_t keep = n < sizeof r->host - 1 ? n : sizeof r->host - 1;
    if (read_at(r, hoff + 13, r->host, keep))
        return dumpi_fail_at(r, hoff + 13, err, errlen, "header: truncated host name");
    r->host[keep] = '\0';
    return DUMPI_OK;
}

static int read_sizes(dumpi_reader *r, uint64_t soff, char *err, size_t errlen)
{
    unsigned char p[4];
    if (read_at(r, soff, p, 4))
        return dumpi_fail_at(r, soff, err, errlen, "datatype size table outside the file");
    uint32_t n = be_get32(p);
    if (n > (r->fsize - soff - 4) / 4)
        return dumpi_fail_at(r, soff, err, errlen,
                             "datatype size table of %u entries runs past the end of the file", n);
    r->sizes = calloc(n ? n : 1, sizeof *r->sizes);
    if (!r->sizes)
        return nomem(r, err, errlen);
    r->nsizes = n;
    for (uint32_t i = 0; i < n; i++) {
        if (read_at(r, soff + 4 + 4 * (uint64_t)i, p, 4))
            return dumpi_fail_at(r, soff, err, errlen, "truncated datatype size table");
        r->sizes[i] = (int32_t)be_get32(p);
    }
    return DUMPI_OK;
}

int dumpi_open(dumpi_reader **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    dumpi_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        snprintf(err, errlen, "%s: out of memory", path);
        return DUMPI_ENOMEM;
    }
    r->f = fopen(path, "rb");
    if (!r->f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        dumpi_close(r);
        return DUMPI_EIO;
    }
    int rc = DUMPI_OK;
    if (fseeko(r->f, 0, SEEK_END) != 0) {
        snprintf(err, errlen, "%s: cannot seek: %s", path, strerror(errno));
        dumpi_close(r);
        return DUMPI_EIO;
    }
    r->fsize = (uint64_t)ftello(r->f);
    unsigned char m[DUMPI_MAGIC_LEN];
    if (read_at(r, 0, m, sizeof m) || memcmp(m, DUMPI_MAGIC, DUMPI_MAGIC_LEN) != 0) {
        rc = dumpi_fail_at(r, 0, err, errlen, "not a DUMPI trace (no DUMPI magic)%s",
                           r->fsize == 0 ? ": the file is empty" : "");
        goto fail;
    }
    uint64_t off[7]; /* sizes, addresses, counters, header, body, footer, keyval */
    uint64_t body = DUMPI_MAGIC_LEN;
    r->end = r->fsize;
    if (read_index(r, off)) {
        uint64_t idx = r->fsize - INDEX_SLOTS * 8;
        for (int i = 0; i < 7; i++)
            if (off[i] != 0 && (off[i] < DUMPI_MAGIC_LEN || off[i] >= idx)) {
                static const char *const what[7] = { "datatype sizes", "function addresses",
                                                     "counter labels", "header", "stream",
                                                     "footer", "key/value" };
                rc = dumpi_fail_at(r, idx, err, errlen,
                                   "index: %s offset %llu outside the file (8..%llu)", what[i],
                                   (unsigned long long)off[i], (unsigned long long)idx - 1);
                goto fail;
            }
        if (off[4] == 0 || off[3] == 0 || off[3] <= off[4] + 8) {
            rc = dumpi_fail_at(r, idx, err, errlen,
                               "index: stream offset %llu and header offset %llu are not in order",
                               (unsigned long long)off[4], (unsigned long long)off[3]);
            goto fail;
        }
        body = off[4];
        r->end = off[3]; /* the END_OF_STREAM label ends right before it */
        r->have_index = 1;
        uint64_t hlimit = off[5] > off[3] ? off[5] : idx;
        if ((rc = read_header(r, off[3], hlimit, err, errlen)))
            goto fail;
        if (r->ver[0] == 0 && (r->ver[1] < 6 || (r->ver[1] == 6 && r->ver[2] < 2))) {
            rc = dumpi_fail_at(r, off[3], err, errlen,
                               "DUMPI version %d.%d.%d is older than 0.6.2, which this reader knows",
                               r->ver[0], r->ver[1], r->ver[2]);
            goto fail;
        }
        if (off[0] && (rc = read_sizes(r, off[0], err, errlen)))
            goto fail;
        if (off[5])
            read_footer(r, off[5], idx);
    } else {
        snprintf(r->warning, sizeof r->warning,
                 "%s: offset %llu: no index at the end of the file: the run did not finish "
                 "(crashed or killed?) or the file was cut; the DUMPI version and datatype sizes "
                 "are unknown (newest layout assumed, message sizes 0)",
                 path, (unsigned long long)r->fsize);
    }
    unsigned char b[8];
    if (read_at(r, body, b, 8) || body + 8 > r->end) {
        if (r->have_index) {
            rc = dumpi_fail_at(r, body, err, errlen, "the call stream has no time biases");
            goto fail;
        }
        r->done = 1; /* nothing more: just the magic */
        snprintf(r->warning, sizeof r->warning,
                 "%s: offset %llu: the file ends before its call stream: no records",
                 path, (unsigned long long)r->fsize);
        *out = r;
        return DUMPI_OK;
    }
    r->bias[0] = be_get32(b);
    r->bias[1] = be_get32(b + 4);
    r->base = body + 8;
    if (fseeko(r->f, (off_t)r->base, SEEK_SET) != 0) {
        snprintf(err, errlen, "%s: cannot seek: %s", path, strerror(errno));
        rc = DUMPI_EIO;
        goto fail;
    }
    *out = r;
    return DUMPI_OK;
fail:
    dumpi_close(r);
    return rc;
}

/* Make n bytes available from the cursor: 1, 0 if the stream limit or
 * the file ends first, or DUMPI_ENOMEM. */
static int need(dumpi_reader *r, size_t at, size_t n)
{
    if (r->base + r->pos + at + n > r->end)
        return 0;
    if (r->pos + at + n <= r->len)
        return 1;
    if (r->pos > 0) { /* slide the window: the current record starts at 0 */
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->base += r->pos;
        r->pos = 0;
    }
    size_t want = at + n;
    if (want > r->cap) {
        size_t c = r->cap ? r->cap : 65536;
        while (c < want)
            c *= 2;
        unsigned char *nb = realloc(r->buf, c);
        if (!nb)
            return DUMPI_ENOMEM;
        r->buf = nb;
        r->cap = c;
    }
    r->len += fread(r->buf + r->len, 1, r->cap - r->len, r->f);
    return r->len >= want;
}

/* Decoding state of one record. */
typedef struct cur {
    dumpi_reader *r;
    size_t at;          /* bytes of the record consumed */
    int short_read;     /* the data ended inside the record */
    int rc;             /* an error code once something failed */
} cur;

static int take(cur *c, size_t n, const unsigned char **p)
{
    int ok = need(c->r, c->at, n);
    if (ok < 0) {
        c->rc = ok;
        return -1;
    }
    if (!ok) {
        c->short_read = 1;
        return -1;
    }
    *p = c->r->buf + c->r->pos + c->at;
    c->at += n;
    return 0;
}

static int get_u(cur *c, int width, uint64_t *v)
{
    const unsigned char *p;
    if (take(c, (size_t)width, &p))
        return -1;
    *v = width == 1 ? p[0] : width == 2 ? be_get16(p) : width == 4 ? be_get32(p) : be_get64(p);
    return 0;
}

static int64_t sext(uint64_t v, int width)
{
    if (width == 8)
        return v > INT64_MAX ? -(int64_t)(~v) - 1 : (int64_t)v;
    uint64_t sign = UINT64_C(1) << (8 * width - 1);
    return (v & sign) ? (int64_t)v - (int64_t)(sign << 1) : (int64_t)v;
}

/* An array count that must fit in what is left of the stream. */
static int get_count(cur *c, size_t elem, char *err, size_t errlen, uint32_t *n)
{
    uint64_t v;
    uint64_t off = c->r->base + c->r->pos + c->at;
    if (get_u(c, 4, &v))
        return -1;
    if (v > INT32_MAX) {
        c->rc = dumpi_fail_at(c->r, off, err, errlen, "negative array length %d",
                              (int)sext(v, 4));
        return -1;
    }
    uint64_t left = c->r->end - (off + 4);
    if (elem && v > left / elem) {
        if (c->r->have_index)
            c->rc = dumpi_fail_at(c->r, off, err, errlen,
                                  "array of %llu elements runs past the end of the call stream",
                                  (unsigned long long)v);
        else
            c->short_read = 1;
        return -1;
    }
    *n = (uint32_t)v;
    return 0;
}

static int push_int(dumpi_reader *r, int32_t v)
{
    if (r->nints == r->capints) {
        size_t nc = r->capints ? 2 * r->capints : 256;
        int32_t *ni = realloc(r->ints, nc * sizeof *ni);
        if (!ni)
            return -1;
        r->ints = ni;
        r->capints = nc;
    }
    r->ints[r->nints++] = v;
    return 0;
}

/* Skip n byte strings ('s' tokens). */
static int skip_strings(cur *c, uint32_t n, char *err, size_t errlen)
{
    const unsigned char *p;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len;
        if (get_count(c, 1, err, errlen, &len) || take(c, len, &p))
            return -1;
    }
    return 0;
}

/* One token of the layout (not a =PQ prefix). */
static int token(cur *c, char t, dumpi_rec *rec, int k, char *err, size_t errlen)
{
    dumpi_reader *r = c->r;
    const unsigned char *p;
    uint64_t u;
    uint32_t n;
    switch (t) {
    case '1': case '2': case '4': case '8':
        if (get_u(c, t - '0', &u))
            return -1;
        rec->v[k] = sext(u, t - '0');
        return 0;
    case 'J': case 'K':
        if (!have_version(r, 0, 6, t == 'J' ? 9 : 8)) {
            if (get_u(c, 4, &u))
                return -1;
            rec->v[k] = 1;
            rec->first[k] = r->nints;
            if (push_int(r, (int32_t)sext(u, 4)))
                return c->rc = DUMPI_ENOMEM, -1;
            return 0;
        }
        /* fall through */
    case 'a': case 'w': case 'y': {
        int w = t == 'w' ? 2 : t == 'y' ? 1 : 4;
        if (get_count(c, (size_t)w, err, errlen, &n))
            return -1;
        rec->v[k] = n;
        rec->first[k] = r->nints;
        for (uint32_t i = 0; i < n; i++) {
            if (get_u(c, w, &u))
                return -1;
            if (push_int(r, (int32_t)sext(u, w)))
                return c->rc = DUMPI_ENOMEM, -1;
        }
        return 0;
    }
    case 's':
        if (get_count(c, 1, err, errlen, &n) || take(c, n, &p))
            return -1;
        rec->v[k] = n;
        return 0;
    case 'S':
        if (get_count(c, 4, err, errlen, &n) || skip_strings(c, n, err, errlen))
            return -1;
        rec->v[k] = n;
        return 0;
    case 'I':
        if (get_count(c, 4, err, errlen, &n))
            return -1;
        if (!have_version(r, 0, 6, 2) && get_u(c, 4, &u))
            return -1;
        if (skip_strings(c, n, err, errlen))
            return -1;
        rec->v[k] = n;
        return 0;
    case 'T': case 'A':
        if (get_count(c, 4, err, errlen, &n))
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t m;
            if (get_count(c, t == 'A' ? 4 : 4, err, errlen, &m))
                return -1;
            if (t == 'A' ? take(c, (size_t)m * 4, &p) : skip_strings(c, m, err, errlen))
                return -1;
        }
        rec->v[k] = n;
        return 0;
    case 't': {
        if (!(rec->mask & DUMPI_M_STATUS))
            return 0;
        size_t each = have_version(r, 0, 6, 3) ? 14 : 10;
        if (get_count(c, each, err, errlen, &n))
            return -1;
        if (n > r->capst) {
            dumpi_status *ns = realloc(r->st, n * sizeof *ns);
            if (!ns)
                return c->rc = DUMPI_ENOMEM, -1;
            r->st = ns;
            r->capst = n;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (take(c, each, &p))
                return -1;
            dumpi_status *s = &r->st[i];
            s->bytes = (int32_t)sext(be_get32(p), 4);
            s->source = (int32_t)sext(be_get32(p + 4), 4);
            s->cancelled = p[8];
            s->error = p[9];
            s->tag = each == 14 ? (int32_t)sext(be_get32(p + 10), 4) : DUMPI_ANY_TAG;
        }
        rec->v[k] = n;
        rec->has_status = 1;
        return 0;
    }
    default:
        c->rc = dumpi_fail_at(r, rec->offset, err, errlen, "internal: bad layout token '%c'", t);
        return -1;
    }
}

/* Times: u16 seconds since the bias (unwrapped: they roll over every
 * 18 hours) and u32 nanoseconds. */
static int get_time(cur *c, int clock, uint64_t *ns, char *err, size_t errlen)
{
    uint64_t s, n;
    uint64_t off = c->r->base + c->r->pos + c->at;
    if (get_u(c, 2, &s) || get_u(c, 4, &n))
        return -1;
    if (n >= 1000000000u) {
        c->rc = dumpi_fail_at(c->r, off + 2, err, errlen,
                              "nanoseconds field %llu is not below 10^9", (unsigned long long)n);
        return -1;
    }
    dumpi_reader *r = c->r;
    uint64_t full = r->wrap[clock] * 65536 + s;
    if (full + 32768 < r->last[clock]) {
        r->wrap[clock]++;
        full += 65536;
    }
    r->last[clock] = full;
    *ns = (full + r->bias[clock]) * UINT64_C(1000000000) + n;
    return 0;
}

static int decode(cur *c, dumpi_rec *rec, char *err, size_t errlen)
{
    dumpi_reader *r = c->r;
    uint64_t u;
    if (get_u(c, 2, &u))
        return -1;
    rec->label = (uint16_t)u;
    if (rec->label == DL_END_OF_STREAM)
        return 0;
    if (rec->label > DUMPI_LABEL_MAX || !dumpi_calls[rec->label].name) {
        c->rc = dumpi_fail_at(r, rec->offset, err, errlen, "unknown call label %u", rec->label);
        return -1;
    }
    if (get_u(c, 1, &u))
        return -1;
    rec->mask = (uint8_t)u;
    if (rec->mask & ~DUMPI_M_KNOWN) {
        c->rc = dumpi_fail_at(r, rec->offset + 2, err, errlen, "%s: unknown option bits 0x%02x",
                              dumpi_calls[rec->label].name, rec->mask & ~DUMPI_M_KNOWN);
        return -1;
    }
    if ((rec->mask & DUMPI_M_THREAD) && get_u(c, 2, &u))
        return -1;
    rec->thread = (rec->mask & DUMPI_M_THREAD) ? (uint16_t)u : 0;
    if ((rec->mask & DUMPI_M_CPU) &&
        (get_time(c, 0, &rec->cpu0, err, errlen) || get_time(c, 0, &rec->cpu1, err, errlen)))
        return -1;
    if ((rec->mask & DUMPI_M_WALL) &&
        (get_time(c, 1, &rec->wall0, err, errlen) || get_time(c, 1, &rec->wall1, err, errlen)))
        return -1;
    if (rec->mask & DUMPI_M_PERF) {
        const unsigned char *p;
        if (get_u(c, 1, &u) || take(c, (size_t)u * 16, &p))
            return -1;
    }
    const char *l = dumpi_calls[rec->label].layout;
    int k = 0;
    while (*l) {
        int present = 1;
        if (*l == '=') {
            int a = l[1] <= '9' ? l[1] - '0' : l[1] - 'a' + 10;
            int b = l[2] <= '9' ? l[2] - '0' : l[2] - 'a' + 10;
            present = rec->v[a] == rec->v[b];
            l += 3;
        }
        rec->present[k] = (uint8_t)present;
        if (present && token(c, *l, rec, k, err, errlen))
            return -1;
        k++;
        l++;
    }
    rec->ntok = k;
    return 0;
}

int dumpi_next(dumpi_reader *r, dumpi_rec *rec, char *err, size_t errlen)
{
    if (r->done)
        return 0;
    memset(rec, 0, sizeof *rec);
    r->nints = 0;
    rec->offset = r->base + r->pos;
    rec->index = r->nrec;
    cur c = { r, 0, 0, 0 };
    uint64_t save_wrap[2] = { r->wrap[0], r->wrap[1] };
    uint64_t save_last[2] = { r->last[0], r->last[1] };
    if (decode(&c, rec, err, errlen)) {
        r->done = 1;
        if (c.rc)
            return c.rc;
        /* The data ended inside this record. */
        r->wrap[0] = save_wrap[0], r->wrap[1] = save_wrap[1];
        r->last[0] = save_last[0], r->last[1] = save_last[1];
        if (r->have_index)
            return dumpi_fail_at(r, rec->offset, err, errlen,
                                 "record %llu runs past the end of the call stream (the header "
                                 "starts at offset %llu)",
                                 (unsigned long long)rec->index, (unsigned long long)r->end);
        snprintf(r->warning, sizeof r->warning,
                 "%s: offset %llu: the file ends inside record %llu (no index: the run did not "
                 "finish or the file was cut); read the %llu whole records before it",
                 r->path, (unsigned long long)rec->offset, (unsigned long long)rec->index,
                 (unsigned long long)rec->index);
        return 0;
    }
    r->pos += c.at;
    if (rec->label == DL_END_OF_STREAM) {
        r->done = 1;
        uint64_t at = r->base + r->pos;
        if (r->have_index && at != r->end)
            return dumpi_fail_at(r, rec->offset, err, errlen,
                                 "the call stream ends at offset %llu, but the index puts the "
                                 "header at %llu",
                                 (unsigned long long)at, (unsigned long long)r->end);
        return 0;
    }
    rec->ints = r->ints;
    rec->st = r->st;
    r->nrec++;
    return 1;
}

const char *dumpi_warning(const dumpi_reader *r) { return r->warning[0] ? r->warning : NULL; }
const char *dumpi_path(const dumpi_reader *r) { return r->path; }
uint64_t dumpi_start_time(const dumpi_reader *r) { return r->starttime; }
const char *dumpi_host(const dumpi_reader *r) { return r->host; }

int dumpi_version(const dumpi_reader *r, int v[3])
{
    for (int i = 0; i < 3; i++)
        v[i] = r->ver[i];
    return r->ver_known;
}

int64_t dumpi_type_size(const dumpi_reader *r, int64_t dt)
{
    if (dt < 0 || (uint64_t)dt >= r->nsizes || r->sizes[dt] <= 0)
        return -1;
    return r->sizes[dt];
}

int dumpi_footer(const dumpi_reader *r, const uint32_t **calls, const uint32_t **ignored,
                 const char **note)
{
    *calls = r->calls;
    *ignored = r->ignored;
    *note = r->footer_note[0] ? r->footer_note : NULL;
    return r->have_footer;
}

const char *dumpi_call_name(int label)
{
    return label >= 0 && label <= DUMPI_LABEL_MAX ? dumpi_calls[label].name : NULL;
}

void dumpi_close(dumpi_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    free(r->path);
    free(r->buf);
    free(r->sizes);
    free(r->ints);
    free(r->st);
    free(r);
}
