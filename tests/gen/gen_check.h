/*
 * gen_check.h - shared by the generator tests: build a workload or stop.
 */
#ifndef MM_TEST_GEN_CHECK_H
#define MM_TEST_GEN_CHECK_H

#include <stdlib.h>

#include "gen.h"
#include "tcheck.h"

/* The stream of spec; a failure is reported and ends the test (nothing
 * after it could run). */
static mm_stream build(const char *spec)
{
    mm_stream s;
    char err[1024];
    int rc = mm_gen_build(spec, &s, err, sizeof err);
    CHECK_MSG(rc == MMS_OK, "%s: %s", spec, err);
    if (rc != MMS_OK)
        exit(TC_DONE());
    return s;
}

#endif /* MM_TEST_GEN_CHECK_H */
