/* fixtures.h - streams shared by the stream tests. */
#ifndef MM_TEST_STREAM_FIXTURES_H
#define MM_TEST_STREAM_FIXTURES_H

/* Canonical text touching every record type, both wildcards, negative and
 * extreme values, and every attribute: the text writer must reproduce it
 * byte for byte, and the binary form must round-trip to it. */
#define FIXTURE_CANONICAL                                                       \
    "# mpimatch stream v1\n"                                                    \
    "# np=8\n"                                                                  \
    "R 10 3 * * coll=allreduce bytes=64 np=8 call=2 t=1000\n"                   \
    "M 11 3 7 -5\n"                                                             \
    "R 12 0 2 *\n"                                                              \
    "P 13 0 * 5\n"                                                              \
    "X 14 2147483647 7 2147483647\n"                                            \
    "C 10\n"                                                                    \
    "R 18446744073709551615 0 0 -2147483647 bytes=18446744073709551615\n"       \
    "C 10\n"                                                                    \
    "M 0 0 1 0 coll=ialltoall np=4294967295 call=4294967295\n"

/* Receives with the resolved source and tag of trace conversion: written
 * as binary version 2 (56-byte records). */
#define FIXTURE_RESOLVED                                                        \
    "# mpimatch stream v1\n"                                                    \
    "# np=4\n"                                                                  \
    "R 1 0 * * bytes=8 t=5 src_resolved=3 tag_resolved=7\n"                     \
    "R 2 1 2 * tag_resolved=2147483647\n"                                       \
    "R 3 0 * 9 src_resolved=0\n"                                                \
    "M 4 0 3 7 bytes=8\n"                                                       \
    "C 2\n"

#endif
