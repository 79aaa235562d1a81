/* kmeans_clusters.c - the cluster file reader (format in kmeans_clusters.h
 * and docs/clustering.md). Runs once, at engine creation: plain stdio. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpimatch.h"
#include "engines/kmeans_clusters.h"

enum { MAX_TOKENS = 3, LINE_MAX_LEN = 512 };

typedef struct reader {
    const char *path;
    FILE       *f;
    uint64_t    line;
    char       *err;
    size_t      errlen;
    /* header */
    int         have_magic, have_np, have_k;
    uint32_t    k;
    int32_t     np;
    /* the section being read */
    int64_t     section;       /* receiver of the open section, -1 before any */
    int64_t     listed;        /* peers listed in it so far */
    uint64_t    section_line;
    uint8_t    *seen;          /* [np]: peer listed in the open section */
    /* the wanted section */
    int64_t     want;
    int         found;
    uint16_t   *map;
} reader;

static int fail(reader *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(reader *r, int code, const char *fmt, ...)
{
    if (r->err && r->errlen) {
        int n = r->line ? snprintf(r->err, r->errlen, "cluster file %s:%" PRIu64 ": ", r->path, r->line)
                        : snprintf(r->err, r->errlen, "cluster file %s: ", r->path);
        if (n >= 0 && (size_t)n < r->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return code;
}

/* Strict decimal integer in [lo, hi]. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Split a line (comments removed) into at most MAX_TOKENS words; returns how
 * many there were (MAX_TOKENS + 1 if more). */
static int tokenize(char *s, char **tok)
{
    char *hash = strchr(s, '#');
    if (hash)
        *hash = '\0';
    int n = 0;
    char *save = NULL;
    for (char *p = strtok_r(s, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == MAX_TOKENS)
            return MAX_TOKENS + 1;
        tok[n++] = p;
    }
    return n;
}

/* The open section must list every peer once. */
static int close_section(reader *r)
{
    if (r->section < 0 || r->listed == r->np)
        return 0;
    int32_t missing = 0;
    while (missing < r->np && r->seen[missing])
        missing++;
    return fail(r, MM_EPARAM, "receiver %" PRId64 " (line %" PRIu64 ") lists %" PRId64
                " of the %" PRId32 " peers; peer %" PRId32 " is missing (truncated file?)",
                r->section, r->section_line, r->listed, r->np, missing);
}

static int header_line(reader *r, char **tok, int n)
{
    int64_t v;
    if (!r->have_magic) {
        if (n < 1 || strcmp(tok[0], MM_CLUSTERS_MAGIC) != 0)
            return fail(r, MM_EPARAM, "not a cluster file: expected '%s %d' as the first line",
                        MM_CLUSTERS_MAGIC, MM_CLUSTERS_VERSION);
        if (n != 2 || parse_int(tok[1], 0, INT32_MAX, &v))
            return fail(r, MM_EPARAM, "expected '%s VERSION'", MM_CLUSTERS_MAGIC);
        if (v != MM_CLUSTERS_VERSION)
            return fail(r, MM_EPARAM, "cluster file version %" PRId64 " is not supported "
                        "(this library reads version %d)", v, MM_CLUSTERS_VERSION);
        r->have_magic = 1;
        return 0;
    }
    if (!r->have_np) {
        if (n != 2 || strcmp(tok[0], "np") != 0 || parse_int(tok[1], 1, INT32_MAX, &v))
            return fail(r, MM_EPARAM, "expected 'np N' (N >= 1) as the second line");
        if (v != r->np)
            return fail(r, MM_EPARAM, "the file is for np %" PRId64 " but the engine has "
                        "nprocs %" PRId32 ": cluster the profile of this run's process count",
                        v, r->np);
        r->have_np = 1;
        return 0;
    }
    int64_t maxk = r->np < MM_CLUSTERS_MAX_K ? r->np : MM_CLUSTERS_MAX_K;
    if (n != 2 || strcmp(tok[0], "k") != 0 || parse_int(tok[1], 1, maxk, &v))
        return fail(r, MM_EPARAM, "expected 'k K' with K from 1 to %" PRId64 " as the third line",
                    maxk);
    r->k = (uint32_t)v;
    r->have_k = 1;
    return 0;
}

static int section_line(reader *r, char **tok, int n)
{
    int64_t v;
    if (n != 2 || parse_int(tok[1], 0, INT32_MAX, &v))
        return fail(r, MM_EPARAM, "expected 'receiver R' with R >= 0");
    int rc = close_section(r);
    if (rc)
        return rc;
    if (v <= r->section)
        return fail(r, MM_EPARAM, "receiver %" PRId64 " after receiver %" PRId64
                    ": sections must come in increasing receiver order, each once", v, r->section);
    r->section = v;
    r->section_line = r->line;
    r->listed = 0;
    memset(r->seen, 0, (size_t)r->np);
    if (v == r->want)
        r->found = 1;
    return 0;
}

static int peer_line(reader *r, char **tok, int n)
{
    int64_t peer, c;
    if (n != 2)
        return fail(r, MM_EPARAM, "expected 'peer cluster' or 'receiver R'");
    if (r->section < 0)
        return fail(r, MM_EPARAM, "a 'peer cluster' line before any 'receiver R' line");
    if (parse_int(tok[0], 0, r->np - 1, &peer))
        return fail(r, MM_EPARAM, "peer '%s' is not from 0 to %" PRId32, tok[0], r->np - 1);
    if (parse_int(tok[1], 0, (int64_t)r->k - 1, &c))
        return fail(r, MM_EPARAM, "cluster '%s' of peer %" PRId64 " is not from 0 to %" PRIu32
                    " (k %" PRIu32 ")", tok[1], peer, r->k - 1, r->k);
    if (r->seen[peer])
        return fail(r, MM_EPARAM, "peer %" PRId64 " is listed twice for receiver %" PRId64,
                    peer, r->section);
    r->seen[peer] = 1;
    r->listed++;
    if (r->section == r->want)
        r->map[peer] = (uint16_t)c;
    return 0;
}

static int read_lines(reader *r)
{
    char buf[LINE_MAX_LEN];
    while (fgets(buf, sizeof buf, r->f)) {
        r->line++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n' && !feof(r->f))
            return fail(r, MM_EPARAM, "line longer than %d characters", LINE_MAX_LEN - 2);
        char *tok[MAX_TOKENS];
        int n = tokenize(buf, tok);
        if (n == 0)
            continue;
        if (n > 2)
            return fail(r, MM_EPARAM, "too many fields on the line");
        int rc;
        if (!r->have_k)
            rc = header_line(r, tok, n);
        else if (strcmp(tok[0], "receiver") == 0)
            rc = section_line(r, tok, n);
        else
            rc = peer_line(r, tok, n);
        if (rc)
            return rc;
    }
    if (ferror(r->f))
        return fail(r, MM_EPARAM, "read error: %s", strerror(errno));
    r->line = 0; /* what follows is about the whole file */
    if (!r->have_k)
        return fail(r, MM_EPARAM, "truncated: the header ('%s %d', 'np N', 'k K') is incomplete",
                    MM_CLUSTERS_MAGIC, MM_CLUSTERS_VERSION);
    int rc = close_section(r);
    if (rc)
        return rc;
    if (!r->found)
        return fail(r, MM_EPARAM, "no section 'receiver %" PRId64 "' (set the engine's receiver "
                    "parameter to one the file has)", r->want);
    return 0;
}

int mm_clusters_load(const char *path, int32_t nprocs, int64_t receiver,
                     uint16_t *map, uint32_t *k, char *err, size_t errlen)
{
    reader r = {.path = path, .np = nprocs, .section = -1, .want = receiver, .map = map,
                .err = err, .errlen = errlen};
    r.f = fopen(path, "r");
    if (!r.f)
        return fail(&r, MM_EPARAM, "cannot open: %s", strerror(errno));
    r.seen = calloc((size_t)nprocs, 1);
    if (!r.seen) {
        fclose(r.f);
        return fail(&r, MM_ENOMEM, "out of memory for %" PRId32 " peers", nprocs);
    }
    int rc = read_lines(&r);
    free(r.seen);
    fclose(r.f);
    if (rc == 0)
        *k = r.k;
    return rc;
}
