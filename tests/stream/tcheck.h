/*
 * tcheck.h - minimal assertions for the stream tests: count failures, keep
 * going, print file:line and the failed expression, exit nonzero at the end.
 */
#ifndef MM_TCHECK_H
#define MM_TCHECK_H

#include <stdio.h>
#include <string.h>

static int tc_failures, tc_checks;

#define CHECK(cond)                                                              \
    do {                                                                         \
        tc_checks++;                                                             \
        if (!(cond)) {                                                           \
            tc_failures++;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

#define CHECK_MSG(cond, ...)                                                     \
    do {                                                                         \
        tc_checks++;                                                             \
        if (!(cond)) {                                                           \
            tc_failures++;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

/* "N passed, N failed" is the closing line CI reads. */
#define TC_DONE()                                                                \
    (printf("%d passed, %d failed\n", tc_checks - tc_failures, tc_failures),     \
     tc_failures ? 1 : 0)

#endif /* MM_TCHECK_H */
