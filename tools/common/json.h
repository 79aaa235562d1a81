/*
 * json.h - a tiny streaming JSON writer (objects, arrays, strings, numbers)
 * with correct string escaping. Output is indented, two spaces per level.
 */
#ifndef MM_TOOLS_JSON_H
#define MM_TOOLS_JSON_H

#include <stdint.h>
#include <stdio.h>

#define MMJ_MAX_DEPTH 32

typedef struct mmj {
    FILE *f;
    int   depth;
    int   after_key;               /* a key was written, its value comes next */
    int   bad;                     /* misuse (nesting, value without key)      */
    unsigned char has_items[MMJ_MAX_DEPTH];
    unsigned char in_obj[MMJ_MAX_DEPTH]; /* level is an object, not an array */
} mmj;

void mmj_init(mmj *j, FILE *f);
void mmj_obj(mmj *j);
void mmj_obj_end(mmj *j);
void mmj_arr(mmj *j);
void mmj_arr_end(mmj *j);
void mmj_key(mmj *j, const char *key);
void mmj_str(mmj *j, const char *s);   /* NULL writes null */
void mmj_u64(mmj *j, uint64_t v);
void mmj_i64(mmj *j, int64_t v);
void mmj_num(mmj *j, double v);        /* NaN and infinities write null */
void mmj_bool(mmj *j, int v);
void mmj_null(mmj *j);
/* Ends the document with a newline. Returns 0 if it is complete and was
 * written without error, -1 otherwise. */
int  mmj_finish(mmj *j);

/* key + value in one call */
void mmj_kstr(mmj *j, const char *key, const char *s);
void mmj_ku64(mmj *j, const char *key, uint64_t v);
void mmj_ki64(mmj *j, const char *key, int64_t v);
void mmj_knum(mmj *j, const char *key, double v);

#endif /* MM_TOOLS_JSON_H */
