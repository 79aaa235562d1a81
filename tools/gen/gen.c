/*
 * gen.c - workload specs: parsing "NAME[:key=value,...]", the canonical
 * form, and running a generator into a finalized stream.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"
#include "stream_internal.h"

/* A message built piece by piece into err: appends stop quietly at the end
 * of the buffer (snprintf semantics keep it terminated). */
typedef struct msgbuf {
    char  *p;
    size_t len, pos;
} msgbuf;

static void add(msgbuf *m, const char *fmt, ...) MMS_PRINTF(2, 3);
static void add(msgbuf *m, const char *fmt, ...)
{
    if (!m->p || m->len == 0 || m->pos >= m->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->p + m->pos, m->len - m->pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        m->pos += (size_t)n < m->len - m->pos ? (size_t)n : m->len - m->pos - 1;
}

static msgbuf msg_start(char *err, size_t errlen, const char *spec, size_t speclen)
{
    msgbuf m = { err, errlen, 0 };
    char q[MMS_QUOTE_MAX];
    if (err && errlen)
        err[0] = '\0';
    add(&m, "workload '%s': ", mms_quote(spec, speclen, q, sizeof q));
    return m;
}

static void add_generators(msgbuf *m)
{
    for (size_t i = 0; i < mm_gen_count(); i++)
        add(m, "%s%s", i ? ", " : "", mm_gen_at(i)->name);
}

static void add_params(msgbuf *m, const mm_gen *g)
{
    for (size_t k = 0; k < g->nparams; k++)
        add(m, "%s, ", g->params[k].name);
    add(m, "seed");
}

static void add_choices(msgbuf *m, const mm_gen_param *p)
{
    for (size_t c = 0; p->choices[c]; c++)
        add(m, "%s%s", c ? ", " : "", p->choices[c]);
}

/* Strict decimal digits (nothing else, at least one) up to lim. */
static int parse_digits(const char *s, size_t n, uint64_t lim, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* The same with an optional '-'. */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
    int neg = n > 0 && s[0] == '-';
    uint64_t v;
    if (parse_digits(s + neg, n - (size_t)neg, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &v))
        return -1;
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}

const mm_gen *mm_gen_find_n(const char *name, size_t len)
{
    for (size_t i = 0; i < mm_gen_count(); i++) {
        const mm_gen *g = mm_gen_at(i);
        if (strlen(g->name) == len && memcmp(g->name, name, len) == 0)
            return g;
    }
    return NULL;
}

const mm_gen *mm_gen_find(const char *name)
{
    return mm_gen_find_n(name, strlen(name));
}

/* Set one "key=value" item; returns 0 or MMS_EFORMAT after writing why. */
static int set_item(mm_gen_spec *out, const char *item, size_t n, uint8_t *given, msgbuf *m)
{
    char q[MMS_QUOTE_MAX], qv[MMS_QUOTE_MAX];
    const mm_gen *g = out->gen;
    const char *eq = memchr(item, '=', n);
    if (n == 0) {
        add(m, "empty parameter (expected %s:key=value,...)", g->name);
        return MMS_EFORMAT;
    }
    if (!eq || eq == item) {
        add(m, "'%s' is not key=value (parameters: ", mms_quote(item, n, q, sizeof q));
        add_params(m, g);
        add(m, ")");
        return MMS_EFORMAT;
    }
    size_t klen = (size_t)(eq - item), vlen = n - klen - 1;
    const char *val = eq + 1;
    size_t k;
    for (k = 0; k < g->nparams; k++)
        if (strlen(g->params[k].name) == klen && memcmp(g->params[k].name, item, klen) == 0)
            break;
    int is_seed = k == g->nparams && klen == 4 && memcmp(item, "seed", 4) == 0;
    if (k == g->nparams && !is_seed) {
        add(m, "%s has no parameter '%s' (parameters: ", g->name, mms_quote(item, klen, q, sizeof q));
        add_params(m, g);
        add(m, ")");
        return MMS_EFORMAT;
    }
    if (given[k]) {
        add(m, "parameter '%.*s' given twice", (int)klen, item);
        return MMS_EFORMAT;
    }
    given[k] = 1;
    mms_quote(val, vlen, qv, sizeof qv);
    if (is_seed) {
        if (parse_digits(val, vlen, UINT64_MAX, &out->seed) == 0)
            return MMS_OK;
        add(m, "seed='%s' is not an integer in 0..%" PRIu64, qv, UINT64_MAX);
        return MMS_EFORMAT;
    }
    const mm_gen_param *p = &g->params[k];
    if (p->choices) {
        for (size_t c = 0; p->choices[c]; c++)
            if (strlen(p->choices[c]) == vlen && memcmp(p->choices[c], val, vlen) == 0) {
                out->v[k] = (int64_t)c;
                return MMS_OK;
            }
        add(m, "%s='%s' is not one of: ", p->name, qv);
        add_choices(m, p);
        return MMS_EFORMAT;
    }
    int64_t x;
    if (parse_i64(val, vlen, &x) != 0) {
        add(m, "%s='%s' is not an integer (range %" PRId64 "..%" PRId64 ")", p->name, qv, p->min,
            p->max);
        return MMS_EFORMAT;
    }
    if (x < p->min || x > p->max) {
        add(m, "%s=%" PRId64 " is out of range %" PRId64 "..%" PRId64, p->name, x, p->min, p->max);
        return MMS_EFORMAT;
    }
    out->v[k] = x;
    return MMS_OK;
}

int mm_gen_parse(const char *spec, mm_gen_spec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(spec);
    msgbuf m = msg_start(err, errlen, spec, len);
    const char *colon = memchr(spec, ':', len);
    size_t nlen = colon ? (size_t)(colon - spec) : len;
    out->gen = mm_gen_find_n(spec, nlen);
    if (!out->gen) {
        char q[MMS_QUOTE_MAX];
        if (nlen == 0)
            add(&m, "no generator name (generators: ");
        else
            add(&m, "unknown generator '%s' (generators: ", mms_quote(spec, nlen, q, sizeof q));
        add_generators(&m);
        add(&m, ")");
        return MMS_EFORMAT;
    }
    const mm_gen *g = out->gen;
    if (g->nparams > MM_GEN_MAX_PARAMS) { /* a registry bug, not user input */
        add(&m, "generator %s has more than %d parameters", g->name, MM_GEN_MAX_PARAMS);
        return MMS_ESTATE;
    }
    for (size_t k = 0; k < g->nparams; k++)
        out->v[k] = g->params[k].def;
    out->seed = 1;
    if (!colon)
        return MMS_OK;

    uint8_t given[MM_GEN_MAX_PARAMS + 1] = { 0 }; /* the last slot is the seed */
    const char *p = colon + 1, *end = spec + len;
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
        if (set_item(out, p, n, given, &m) != MMS_OK) {
            out->gen = NULL;
            return MMS_EFORMAT;
        }
        if (!comma)
            return MMS_OK;
        p = comma + 1;
    }
}

int mm_gen_format(const mm_gen_spec *sp, char *buf, size_t len)
{
    msgbuf m = { buf, len, 0 };
    size_t total = 0;
    int n;
    /* Count the full length like snprintf, even if buf is too small. */
#define PUT(...)                                                    \
    do {                                                            \
        n = snprintf(NULL, 0, __VA_ARGS__);                         \
        total += (size_t)(n > 0 ? n : 0);                           \
        add(&m, __VA_ARGS__);                                       \
    } while (0)
    if (buf && len)
        buf[0] = '\0';
    PUT("%s:", sp->gen->name);
    for (size_t k = 0; k < sp->gen->nparams; k++) {
        const mm_gen_param *p = &sp->gen->params[k];
        if (p->choices)
            PUT("%s=%s,", p->name, p->choices[sp->v[k]]);
        else
            PUT("%s=%" PRId64 ",", p->name, sp->v[k]);
    }
    PUT("seed=%" PRIu64, sp->seed);
#undef PUT
    return (int)total;
}

int mm_gen_run(const mm_gen_spec *sp, mm_stream *s, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    int rc = sp->gen->run(s, sp->v, sp->seed, err, errlen);
    if (rc != MMS_OK)
        return rc;
    return mm_stream_finalize(s, 0, err, errlen);
}

int mm_gen_build_parsed(const mm_gen_spec *sp, mm_stream *s, char *err, size_t errlen)
{
    char name[MM_GEN_SPEC_MAX];
    if (mm_gen_format(sp, name, sizeof name) >= (int)sizeof name)
        return mms_fail(MMS_ESTATE, err, errlen, "canonical spec of %s too long", sp->gen->name);
    int rc = mm_stream_init(s, name, err, errlen);
    if (rc == MMS_OK)
        rc = mm_gen_run(sp, s, err, errlen);
    if (rc != MMS_OK) {
        /* Name the workload in front of the generator's reason. */
        char why[512];
        snprintf(why, sizeof why, "%s", err ? err : "");
        mms_fail(rc, err, errlen, "workload '%s': %s", name, why);
        mm_stream_free(s);
    }
    return rc;
}

int mm_gen_build(const char *spec, mm_stream *s, char *err, size_t errlen)
{
    mm_gen_spec sp;
    int rc = mm_gen_parse(spec, &sp, err, errlen);
    if (rc != MMS_OK) {
        mm_stream_init(s, NULL, NULL, 0); /* leave s empty and freeable */
        return rc;
    }
    return mm_gen_build_parsed(&sp, s, err, errlen);
}
