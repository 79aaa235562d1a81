/* check.h - the smallest test harness that says what failed and where. */
#ifndef MM_TEST_CHECK_H
#define MM_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed, check_failed;

#define CHECK(cond) do {                                                     \
        if (cond) {                                                          \
            check_passed++;                                                  \
        } else {                                                             \
            check_failed++;                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                    \
    } while (0)

#define CHECK_EQ(a, b) do {                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);                  \
        if (a_ == b_) {                                                      \
            check_passed++;                                                  \
        } else {                                                             \
            check_failed++;                                                  \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", \
                    __FILE__, __LINE__, #a, #b, a_, b_);                     \
        }                                                                    \
    } while (0)

/* The tests' random numbers: xorshift64 on a nonzero state. */
static inline uint64_t check_xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline int check_report(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
