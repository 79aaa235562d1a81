/*
 * json.c - the JSON writer. Strings are assumed UTF-8; bytes that are not
 * valid UTF-8 (a file name can hold anything) become U+FFFD so the output
 * is always valid JSON.
 */
#include <inttypes.h>
#include <math.h>

#include "json.h"

void mmj_init(mmj *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->after_key = 0;
    j->bad = 0;
    j->has_items[0] = 0;
    j->in_obj[0] = 0;
}

static void indent(mmj *j)
{
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

/* Separator and indentation before a value or key at the current level. */
static void before_item(mmj *j, int is_key)
{
    /* In an object a key must precede each value; arrays take no keys. */
    if (is_key ? !j->in_obj[j->depth] || j->after_key
               : (j->in_obj[j->depth] && !j->after_key) || (j->depth == 0 && j->has_items[0]))
        j->bad = 1;
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0) {
        if (j->has_items[j->depth])
            fputc(',', j->f);
        indent(j);
    }
    j->has_items[j->depth] = 1;
}

static void open_level(mmj *j, char c)
{
    before_item(j, 0);
    fputc(c, j->f);
    if (j->depth + 1 >= MMJ_MAX_DEPTH) {
        j->bad = 1;
        return;
    }
    j->depth++;
    j->has_items[j->depth] = 0;
    j->in_obj[j->depth] = c == '{';
}

static void close_level(mmj *j, char c)
{
    if (j->depth == 0 || j->after_key) {
        j->bad = 1;
        return;
    }
    int had = j->has_items[j->depth];
    j->depth--;
    if (had)
        indent(j);
    fputc(c, j->f);
}

void mmj_obj(mmj *j) { open_level(j, '{'); }
void mmj_obj_end(mmj *j) { close_level(j, '}'); }
void mmj_arr(mmj *j) { open_level(j, '['); }
void mmj_arr_end(mmj *j) { close_level(j, ']'); }

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* Reject overlong forms, surrogates and values past U+10FFFF. */
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static void write_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    while (*s) {
        unsigned c = *s;
        int n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", f);
            s++;
        } else if (n > 1) {
            fwrite(s, 1, (size_t)n, f);
            s += n;
        } else {
            switch (c) {
            case '"':  fputs("\\\"", f); break;
            case '\\': fputs("\\\\", f); break;
            case '\n': fputs("\\n", f); break;
            case '\r': fputs("\\r", f); break;
            case '\t': fputs("\\t", f); break;
            case '\b': fputs("\\b", f); break;
            case '\f': fputs("\\f", f); break;
            default:
                if (c < 0x20 || c == 0x7f)
                    fprintf(f, "\\u%04x", c);
                else
                    fputc((int)c, f);
            }
            s++;
        }
    }
    fputc('"', f);
}

void mmj_key(mmj *j, const char *key)
{
    before_item(j, 1);
    write_string(j->f, key);
    fputs(": ", j->f);
    j->after_key = 1;
}

void mmj_str(mmj *j, const char *s)
{
    before_item(j, 0);
    if (s)
        write_string(j->f, s);
    else
        fputs("null", j->f);
}

void mmj_u64(mmj *j, uint64_t v)
{
    before_item(j, 0);
    fprintf(j->f, "%" PRIu64, v);
}

void mmj_i64(mmj *j, int64_t v)
{
    before_item(j, 0);
    fprintf(j->f, "%" PRId64, v);
}

void mmj_num(mmj *j, double v)
{
    before_item(j, 0);
    if (isfinite(v))
        fprintf(j->f, "%.10g", v);
    else
        fputs("null", j->f);
}

void mmj_bool(mmj *j, int v)
{
    before_item(j, 0);
    fputs(v ? "true" : "false", j->f);
}

void mmj_null(mmj *j)
{
    before_item(j, 0);
    fputs("null", j->f);
}

int mmj_finish(mmj *j)
{
    fputc('\n', j->f);
    return j->bad || j->depth != 0 || j->after_key || ferror(j->f) ? -1 : 0;
}

void mmj_kstr(mmj *j, const char *key, const char *s) { mmj_key(j, key); mmj_str(j, s); }
void mmj_ku64(mmj *j, const char *key, uint64_t v) { mmj_key(j, key); mmj_u64(j, v); }
void mmj_ki64(mmj *j, const char *key, int64_t v) { mmj_key(j, key); mmj_i64(j, v); }
void mmj_knum(mmj *j, const char *key, double v) { mmj_key(j, key); mmj_num(j, v); }
