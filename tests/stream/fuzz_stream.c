/*
 * fuzz_stream.c - fuzz target for the stream readers and writers.
 *
 * Any input, read as text, as binary and as detected: either a clean error
 * (a message naming the input) or a stream that survives every round trip:
 * canonical text and binary both read back to the same events, and
 * text -> binary -> text is byte-identical. Built with libFuzzer
 * (-fsanitize=fuzzer) or with fuzz_driver.c, which replays a corpus and
 * seeded random mutations for ctest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Count of inputs that parsed, for the driver's report. */
unsigned long fuzz_stream_parsed;

#define REQUIRE(c)                                                                   \
    do {                                                                             \
        if (!(c)) {                                                                  \
            fprintf(stderr, "fuzz_stream: %s:%d: invariant broken: %s\n", __FILE__, \
                    __LINE__, #c);                                                   \
            abort();                                                                 \
        }                                                                            \
    } while (0)

static void same_events(const mm_stream *a, const mm_stream *b)
{
    REQUIRE(a->n == b->n);
    REQUIRE(a->np == b->np);
    REQUIRE(a->nslots == b->nslots);
    for (size_t i = 0; i < a->n; i++) {
        mm_event x = a->ev[i], y = b->ev[i];
        x.line = y.line = 0; /* text lines and record numbers differ */
        REQUIRE(memcmp(&x, &y, sizeof x) == 0);
    }
}

static void parse_ok(mm_stream *s, const mm_buf *b, int how)
{
    char err[1024];
    REQUIRE(mm_stream_init(s, "rt", err, sizeof err) == MMS_OK);
    int rc = mm_stream_parse(s, b->p ? (const void *)b->p : "", b->len, how, 0, err, sizeof err);
    if (rc != MMS_OK)
        fprintf(stderr, "fuzz_stream: round trip failed: %s\n", err);
    REQUIRE(rc == MMS_OK);
}

static void check(const uint8_t *data, size_t size, int how)
{
    char err[1024];
    mm_stream s;
    REQUIRE(mm_stream_init(&s, "fuzz", err, sizeof err) == MMS_OK);
    err[0] = '\0';
    int rc = mm_stream_parse(&s, size ? (const void *)data : "", size, how, 0, err, sizeof err);
    if (rc != MMS_OK) {
        REQUIRE(rc == MMS_EFORMAT || rc == MMS_ENOMEM);
        REQUIRE(strncmp(err, "fuzz", 4) == 0 && strlen(err) < sizeof err - 1);
        mm_stream_free(&s);
        return;
    }
    fuzz_stream_parsed++;

    mm_stream_summary sum;
    REQUIRE(mm_stream_summarize(&s, &sum) == MMS_OK);
    REQUIRE(sum.count[0] + sum.count[1] + sum.count[2] + sum.count[3] + sum.count[4] == s.n);

    mm_buf t1 = { 0 }, b1 = { 0 }, t3 = { 0 }, b2 = { 0 };
    mm_stream s2, s3;
    REQUIRE(mm_stream_write_text(&s, mm_sink_buf, &t1) == MMS_OK);
    REQUIRE(mm_stream_write_binary(&s, mm_sink_buf, &b1) == MMS_OK);

    parse_ok(&s2, &t1, MM_READ_AUTO);
    REQUIRE(s2.format == MM_FMT_TEXT);
    same_events(&s, &s2);
    parse_ok(&s3, &b1, MM_READ_AUTO);
    REQUIRE(s3.format == MM_FMT_BINARY);
    same_events(&s, &s3);

    REQUIRE(mm_stream_write_text(&s3, mm_sink_buf, &t3) == MMS_OK);
    REQUIRE(t1.len == t3.len && memcmp(t1.p, t3.p, t1.len) == 0);
    REQUIRE(mm_stream_write_binary(&s2, mm_sink_buf, &b2) == MMS_OK);
    REQUIRE(b1.len == b2.len && memcmp(b1.p, b2.p, b1.len) == 0);

    mm_buf_free(&t1);
    mm_buf_free(&b1);
    mm_buf_free(&t3);
    mm_buf_free(&b2);
    mm_stream_free(&s2);
    mm_stream_free(&s3);
    mm_stream_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size, MM_READ_AUTO);
    /* Forcing each reader reaches code the magic would route around. */
    check(data, size, MM_READ_TEXT);
    check(data, size, MM_READ_BINARY);
    return 0;
}
