/*
 * stream_internal.h - helpers shared by the stream sources, not part of the
 * stream API.
 */
#ifndef MM_TOOLS_STREAM_INTERNAL_H
#define MM_TOOLS_STREAM_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "stream.h"

#if defined(__GNUC__)
#define MMS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MMS_PRINTF(f, a)
#endif

/* Write "<where of line><reason>" into err and return code. A line of 0
 * means no event: only "<name>: " is prefixed. */
int mms_fail_at(const mm_stream *s, uint64_t line, int code, char *err,
                size_t errlen, const char *fmt, ...) MMS_PRINTF(6, 7);

/* Write a plain message into err (may be NULL) and return code. */
int mms_fail(int code, char *err, size_t errlen, const char *fmt, ...) MMS_PRINTF(4, 5);

/* Quote n bytes of untrusted input for a message: printable ASCII kept,
 * anything else as \xNN, cut to a short length with "..." so a huge or
 * binary token cannot flood the terminal. Returns out. */
const char *mms_quote(const char *p, size_t n, char *out, size_t outlen);
#define MMS_QUOTE_MAX 64 /* a buffer of this size always suffices */

#endif /* MM_TOOLS_STREAM_INTERNAL_H */
