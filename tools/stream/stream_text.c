/*
 * stream_text.c - the text form of the stream: parser.
 *
 * The parser works in place on the whole input (no copy, no allocation per
 * line), so line length is unlimited. Syntax is checked here; every semantic
 * rule is left to mm_stream_push so text, binary and generated streams obey
 * exactly the same rules.
 */
#include <stdio.h>
#include <string.h>

#include "stream_internal.h"

#define HEADER "# mpimatch stream v1"
#define HEADER_PREFIX "# mpimatch stream "

typedef struct tok {
    const char *p;
    size_t      n;
} tok;

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Next blank-separated token of p[0..n) from *i; 0 when none is left. */
static int next_tok(const char *p, size_t n, size_t *i, tok *t)
{
    size_t j = *i;
    while (j < n && is_blank(p[j]))
        j++;
    if (j == n) {
        *i = j;
        return 0;
    }
    t->p = p + j;
    while (j < n && !is_blank(p[j]))
        j++;
    t->n = (size_t)(p + j - t->p);
    *i = j;
    return 1;
}

enum { NUM_OK = 0, NUM_BAD = 1, NUM_BIG = 2 };

/* Decimal digits only: no sign, no spaces, no hex. */
static int parse_u64(const char *p, size_t n, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return NUM_BAD;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return NUM_BAD;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (max - d) / 10)
            return NUM_BIG;
        v = v * 10 + d;
    }
    *out = v;
    return NUM_OK;
}

/* Parser state for one input. */
typedef struct parser {
    mm_stream  *s;
    uint64_t    line;
    char       *err;
    size_t      errlen;
    uint64_t    np_line; /* line of the '# np=' comment, 0 if none yet */
} parser;

#define FAIL(ps, ...) mms_fail_at((ps)->s, (ps)->line, MMS_EFORMAT, (ps)->err, (ps)->errlen, __VA_ARGS__)

/* An unsigned field in 0..max, named `what` in messages. */
static int field_u64(parser *ps, tok t, const char *what, uint64_t max, uint64_t *out)
{
    char q[MMS_QUOTE_MAX];
    switch (parse_u64(t.p, t.n, max, out)) {
    case NUM_OK:
        return MMS_OK;
    case NUM_BIG:
        return FAIL(ps, "%s '%s' out of range 0..%llu", what,
                    mms_quote(t.p, t.n, q, sizeof q), (unsigned long long)max);
    default:
        return FAIL(ps, "bad %s '%s': expected a non-negative decimal integer", what,
                    mms_quote(t.p, t.n, q, sizeof q));
    }
}

static int field_src(parser *ps, tok t, int32_t *out)
{
    uint64_t v;
    if (t.n == 1 && t.p[0] == '*') {
        *out = MM_ANY_SOURCE;
        return MMS_OK;
    }
    /* The upper bound np - 1 is checked once np is known. */
    int rc = field_u64(ps, t, "source", INT32_MAX - 1, &v);
    *out = (int32_t)v;
    return rc;
}

static int field_tag(parser *ps, tok t, int32_t *out)
{
    char q[MMS_QUOTE_MAX];
    uint64_t mag;
    if (t.n == 1 && t.p[0] == '*') {
        *out = MM_ANY_TAG;
        return MMS_OK;
    }
    int neg = t.n > 0 && t.p[0] == '-';
    int rc = parse_u64(t.p + neg, t.n - (size_t)neg, neg ? (uint64_t)INT32_MAX + 1 : INT32_MAX, &mag);
    if (rc == NUM_BAD)
        return FAIL(ps, "bad tag '%s': expected a decimal integer or '*'",
                    mms_quote(t.p, t.n, q, sizeof q));
    if (rc == NUM_BIG)
        return FAIL(ps, "tag '%s' out of range -2147483647..2147483647",
                    mms_quote(t.p, t.n, q, sizeof q));
    if (neg && mag == (uint64_t)INT32_MAX + 1)
        return FAIL(ps, "tag -2147483648 is reserved (it is MM_ANY_TAG, written '*')");
    *out = neg ? -(int32_t)mag : (int32_t)mag;
    return MMS_OK;
}

static int attr_coll(parser *ps, tok v, mm_event *e)
{
    char name[32], q[MMS_QUOTE_MAX];
    int op = -1;
    if (v.n < sizeof name) {
        memcpy(name, v.p, v.n);
        name[v.n] = '\0';
        op = mm_coll_from_name(name);
    }
    if (op <= MM_COLL_NONE || op >= MM_COLL_OP_COUNT) {
        /* List the valid names: there are few and they are easy to misspell. */
        char known[512];
        size_t k = 0;
        known[0] = '\0';
        for (int i = MM_COLL_NONE + 1; i < MM_COLL_OP_COUNT && k < sizeof known; i++) {
            const char *nm = mm_coll_name(i);
            int w = snprintf(known + k, sizeof known - k, "%s%s", k ? ", " : "", nm ? nm : "?");
            if (w > 0)
                k += (size_t)w;
        }
        return FAIL(ps, "unknown collective '%s' (known: %s)", mms_quote(v.p, v.n, q, sizeof q), known);
    }
    e->kind = MM_KIND_COLL;
    e->coll_op = (uint8_t)op;
    return MMS_OK;
}

static const char *const attr_names[] = { "coll", "bytes", "np", "call", "t", "src_resolved",
                                          "tag_resolved" };
#define NATTR (sizeof attr_names / sizeof attr_names[0])

static int parse_attr(parser *ps, tok a, mm_event *e, unsigned *seen)
{
    char q[MMS_QUOTE_MAX];
    const char *eq = memchr(a.p, '=', a.n);
    if (!eq || eq == a.p)
        return FAIL(ps, "malformed attribute '%s' (expected key=value)", mms_quote(a.p, a.n, q, sizeof q));
    tok k = { a.p, (size_t)(eq - a.p) };
    tok v = { eq + 1, a.n - k.n - 1 };
    size_t which = NATTR;
    for (size_t i = 0; i < NATTR; i++)
        if (strlen(attr_names[i]) == k.n && memcmp(attr_names[i], k.p, k.n) == 0)
            which = i;
    if (which == NATTR)
        return FAIL(ps, "unknown attribute '%s' (known: coll, bytes, np, call, t, src_resolved, "
                    "tag_resolved)",
                    mms_quote(k.p, k.n, q, sizeof q));
    if (*seen & (1u << which))
        return FAIL(ps, "duplicate attribute '%s'", attr_names[which]);
    *seen |= 1u << which;

    uint64_t x;
    int rc;
    switch (which) {
    case 0:
        return attr_coll(ps, v, e);
    case 1:
        return field_u64(ps, v, "bytes", UINT64_MAX, &e->bytes);
    case 2:
        rc = field_u64(ps, v, "np", UINT32_MAX, &x);
        e->comm_size = (uint32_t)x;
        return rc;
    case 3:
        rc = field_u64(ps, v, "call", UINT32_MAX, &x);
        e->call = (uint32_t)x;
        return rc;
    case 4:
        return field_u64(ps, v, "t", UINT64_MAX, &e->t);
    case 5:
        e->resolved |= MM_RES_SRC;
        return field_src(ps, v, &e->src_resolved);
    default:
        e->resolved |= MM_RES_TAG;
        return field_tag(ps, v, &e->tag_resolved);
    }
}

static int parse_record(parser *ps, const char *p, size_t n)
{
    static const char *const field_names[] = { "<id>", "<comm>", "<src>", "<tag>" };
    char q[MMS_QUOTE_MAX];
    size_t i = 0;
    tok t[5] = { { NULL, 0 } }, extra;
    if (!next_tok(p, n, &i, &t[0])) /* cannot happen: the caller saw a non-blank */
        return MMS_OK;
    char type = t[0].n == 1 ? t[0].p[0] : '\0';
    if (type != 'R' && type != 'M' && type != 'P' && type != 'X' && type != 'C')
        return FAIL(ps, "unknown record type '%s' (expected R, M, P, X or C)",
                    mms_quote(t[0].p, t[0].n, q, sizeof q));

    size_t nfields = type == 'C' ? 1 : 4;
    for (size_t f = 0; f < nfields; f++)
        if (!next_tok(p, n, &i, &t[f + 1])) {
            if (type == 'C')
                return FAIL(ps, "malformed line: C needs <id>");
            return FAIL(ps, "malformed line: %c needs <id> <comm> <src> <tag>; %s is missing",
                        type, field_names[f]);
        }

    mm_event e = mm_event_make(type, 0, 0, 0, 0);
    e.line = ps->line;
    uint64_t comm;
    int rc = field_u64(ps, t[1], "id", UINT64_MAX, &e.id);
    if (rc)
        return rc;
    if (type != 'C') {
        if ((rc = field_u64(ps, t[2], "communicator", INT32_MAX, &comm)) ||
            (rc = field_src(ps, t[3], &e.src)) ||
            (rc = field_tag(ps, t[4], &e.tag)))
            return rc;
        e.comm = (int32_t)comm;
    }

    unsigned seen = 0;
    while (next_tok(p, n, &i, &extra)) {
        if (type == 'C')
            return FAIL(ps, "C takes only an id; unexpected '%s'", mms_quote(extra.p, extra.n, q, sizeof q));
        if (type == 'P' || type == 'X')
            return FAIL(ps, "%c takes no attributes; unexpected '%s'", type,
                        mms_quote(extra.p, extra.n, q, sizeof q));
        if ((rc = parse_attr(ps, extra, &e, &seen)))
            return rc;
    }
    return mm_stream_push(ps->s, &e, ps->err, ps->errlen);
}

/* '# np=<n>' declares the number of processes; other comments are ignored. */
static int parse_comment(parser *ps, const char *p, size_t n)
{
    size_t i = 1;
    while (i < n && is_blank(p[i]))
        i++;
    if (n - i < 3 || memcmp(p + i, "np=", 3) != 0)
        return MMS_OK;
    tok v = { p + i + 3, n - i - 3 };
    uint64_t np;
    char q[MMS_QUOTE_MAX];
    if (ps->np_line)
        return FAIL(ps, "duplicate '# np=' line (first at line %llu)", (unsigned long long)ps->np_line);
    int num = parse_u64(v.p, v.n, INT32_MAX, &np);
    if (num == NUM_BIG || (num == NUM_OK && np == 0))
        return FAIL(ps, "np '%s' out of range 1..%d", mms_quote(v.p, v.n, q, sizeof q), INT32_MAX);
    if (num != NUM_OK)
        return FAIL(ps, "bad np '%s': expected a positive decimal integer",
                    mms_quote(v.p, v.n, q, sizeof q));
    ps->np_line = ps->line;
    ps->s->np_decl = (int32_t)np;
    return MMS_OK;
}

static int parse_header(parser *ps, const char *p, size_t n)
{
    char q[MMS_QUOTE_MAX];
    size_t hl = sizeof HEADER - 1, pl = sizeof HEADER_PREFIX - 1;
    if (n == hl && memcmp(p, HEADER, hl) == 0)
        return MMS_OK;
    const char *cr = memchr(p, '\r', n);
    if (cr && cr + 1 < p + n) /* a CR inside the line, not a CRLF's */
        return FAIL(ps, "the lines end in CR only (classic Mac OS line endings); a stream's lines "
                        "end in LF or CRLF (convert with: tr '\\r' '\\n')");
    if (n > pl && memcmp(p, HEADER_PREFIX, pl) == 0)
        return FAIL(ps, "unsupported stream version '%s' (this reader knows v1)",
                    mms_quote(p + pl, n - pl, q, sizeof q));
    return FAIL(ps, "missing header: the first line must be '" HEADER "'");
}

int mm_stream_parse_text(mm_stream *s, const char *data, size_t len, char *err, size_t errlen)
{
    parser ps = { s, 1, err, errlen, 0 };
    s->format = MM_FMT_TEXT;
    if (len == 0)
        return FAIL(&ps, "empty file: missing header '" HEADER "'");

    size_t pos = 0;
    for (ps.line = 1; pos < len; ps.line++) {
        const char *p = data + pos;
        const char *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        pos += n + (nl != NULL);

        const char *nul = memchr(p, '\0', n);
        if (nul)
            return FAIL(&ps, "NUL byte at column %zu", (size_t)(nul - p) + 1);
        /* Trailing blanks and the CR of CRLF line ends carry no meaning. */
        while (n > 0 && (is_blank(p[n - 1]) || p[n - 1] == '\r'))
            n--;

        int rc = MMS_OK;
        if (ps.line == 1) {
            rc = parse_header(&ps, p, n);
        } else {
            while (n > 0 && is_blank(*p)) {
                p++;
                n--;
            }
            if (n == 0)
                continue;
            rc = p[0] == '#' ? parse_comment(&ps, p, n) : parse_record(&ps, p, n);
        }
        if (rc)
            return rc;
    }
    return MMS_OK;
}
