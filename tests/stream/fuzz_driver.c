/*
 * fuzz_driver.c - runs the fuzz_stream target without libFuzzer: every
 * corpus file (and its binary form), then seeded pseudo-random mutations
 * (bit flips, byte sets, inserts, deletes, duplications, splices,
 * dictionary tokens, integer overwrites). Deterministic for a given seed,
 * so a failure reproduces.
 *
 * usage: fuzz_stream [--iterations N] [--seed S] FILE...
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern unsigned long fuzz_stream_parsed;

/* About 10 s under ASan+UBSan on the project's 2-core machine. */
#define DEFAULT_ITERATIONS 400000
#define MAX_INPUT 8192
#define POOL_MAX 512

typedef struct input {
    uint8_t *p;
    size_t   n;
} input;

static input pool[POOL_MAX];
static const uint8_t *volatile current;
static volatile size_t current_len;

/* On a broken invariant (abort) or crash, save the input that caused it. */
static void save_crash(int sig)
{
    static const char path[] = "fuzz_stream-crash.bin";
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        /* Nothing useful to do about a failed write in a signal handler. */
        ssize_t w = current ? write(fd, current, current_len) : 0;
        close(fd);
        w = write(2, "fuzz_stream: input saved to fuzz_stream-crash.bin\n", 51);
        (void)w;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}
static size_t npool, nseeds;
static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* xorshift64*: small, fast, good enough to drive mutations. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static void pool_add(const uint8_t *p, size_t n, int seed)
{
    input in = { malloc(n + 1), n };
    if (!in.p) {
        fprintf(stderr, "fuzz_stream: out of memory\n");
        exit(1);
    }
    memcpy(in.p, p, n);
    if (npool < POOL_MAX) {
        pool[npool++] = in;
    } else {
        /* Keep the seeds; replace a random grown entry. */
        size_t k = nseeds + below(POOL_MAX - nseeds);
        free(pool[k].p);
        pool[k] = in;
    }
    if (seed)
        nseeds = npool;
}

static const char *const dict[] = {
    "# mpimatch stream v1\n", "# np=", "#np=3\n", "R ", "M ", "P ", "X ", "C ", " * ", " *",
    " -", "-2147483648", "-2147483647", "2147483647", "2147483646", "4294967295", "4294967296",
    "18446744073709551615", "18446744073709551616", "0", "00", " coll=", "coll=bcast",
    "coll=ialltoall", "coll=none", " bytes=", " np=", " call=", " t=", "=", "\r\n", "\n",
    "\r", "\t", "  ", "MMSTRM", "\x01\x00", "\xff\xff\xff\xff", "C 1\n", "R 1 0 0 0\n",
};

static size_t mutate(uint8_t *b, size_t n)
{
    static const uint8_t special[] = { '*', '-', ' ', '\t', '\r', '\n', 0, '#', '=', '0', '9',
                                       'R', 'M', 'P', 'X', 'C', 0xff, 0x80, 0x7f, 1 };
    switch (below(9)) {
    case 0: /* flip a bit */
        if (n)
            b[below(n)] ^= (uint8_t)(1u << below(8));
        return n;
    case 1: /* random byte */
        if (n)
            b[below(n)] = (uint8_t)rnd();
        return n;
    case 2: /* special byte */
        if (n)
            b[below(n)] = special[below(sizeof special)];
        return n;
    case 3: { /* insert 1..4 random bytes */
        size_t k = 1 + below(4), at = below(n + 1);
        if (n + k > MAX_INPUT)
            return n;
        memmove(b + at + k, b + at, n - at);
        for (size_t i = 0; i < k; i++)
            b[at + i] = (uint8_t)rnd();
        return n + k;
    }
    case 4: { /* delete a range */
        if (!n)
            return n;
        size_t at = below(n), k = 1 + below(n - at < 16 ? n - at : 16);
        memmove(b + at, b + at + k, n - at - k);
        return n - k;
    }
    case 5: { /* duplicate a range elsewhere */
        if (!n)
            return n;
        size_t from = below(n), k = 1 + below(n - from < 64 ? n - from : 64), at = below(n + 1);
        if (n + k > MAX_INPUT)
            return n;
        uint8_t tmp[64];
        memcpy(tmp, b + from, k);
        memmove(b + at + k, b + at, n - at);
        memcpy(b + at, tmp, k);
        return n + k;
    }
    case 6: { /* splice: a chunk of another input */
        const input *o = &pool[below(npool)];
        if (!o->n)
            return n;
        size_t from = below(o->n), k = 1 + below(o->n - from), at = below(n + 1);
        if (n + k > MAX_INPUT)
            return n;
        if (below(2)) { /* insert */
            memmove(b + at + k, b + at, n - at);
            memcpy(b + at, o->p + from, k);
            return n + k;
        }
        if (at + k > n) /* overwrite, growing at the end if needed */
            n = at + k;
        memcpy(b + at, o->p + from, k);
        return n;
    }
    case 7: { /* dictionary token */
        const char *t = dict[below(sizeof dict / sizeof dict[0])];
        /* "\x01\x00" is the one token that carries its NUL. */
        size_t k = strlen(t) + (t[0] == '\x01'), at = below(n + 1);
        if (n + k > MAX_INPUT)
            return n;
        memmove(b + at + k, b + at, n - at);
        memcpy(b + at, t, k);
        return n + k;
    }
    default: { /* little-endian integer overwrite (binary fields) */
        static const uint64_t vals[] = { 0, 1, 2, 3, 0xff, 0x7fffffff, 0x80000000u, 0xffffffffu,
                                         0xfffffffe, UINT64_MAX, 48, 32, 'R', 'C' };
        size_t w = below(2) ? 4 : 8;
        if (n < w)
            return n;
        size_t at = below(n - w + 1);
        /* Prefer field boundaries of the binary layout. */
        if (n > MM_BIN_HEADER_SIZE && below(2))
            at = MM_BIN_HEADER_SIZE + below((n - MM_BIN_HEADER_SIZE) / 4) * 4;
        if (at + w > n)
            return n;
        uint64_t v = vals[below(sizeof vals / sizeof vals[0])];
        for (size_t i = 0; i < w; i++)
            b[at + i] = (uint8_t)(v >> (8 * i));
        return n;
    }
    }
}

static int load_file(const char *path)
{
    char *d, err[512];
    size_t n;
    if (mm_read_file(path, &d, &n, err, sizeof err) != MMS_OK) {
        fprintf(stderr, "fuzz_stream: %s\n", err);
        return -1;
    }
    pool_add((uint8_t *)d, n > MAX_INPUT ? MAX_INPUT : n, 1);

    /* Add the binary form of a valid text seed, so both readers get seeds. */
    mm_stream s;
    mm_stream_init(&s, path, NULL, 0);
    if (mm_stream_parse(&s, d, n, MM_READ_AUTO, 0, NULL, 0) == MMS_OK && s.format == MM_FMT_TEXT) {
        mm_buf b = { 0 };
        if (mm_stream_write_binary(&s, mm_sink_buf, &b) == MMS_OK && b.len <= MAX_INPUT)
            pool_add(b.p, b.len, 1);
        mm_buf_free(&b);
    }
    mm_stream_free(&s);
    free(d);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long iterations = DEFAULT_ITERATIONS;
    uint64_t seed = 0x6d706d61746368ULL; /* "mpmatch" */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
            iterations = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: fuzz_stream [--iterations N] [--seed S] FILE...\n");
            return 2;
        } else if (load_file(argv[i])) {
            return 2;
        }
    }
    if (npool == 0) {
        static const char fallback[] = "# mpimatch stream v1\nR 1 0 * *\nM 2 0 0 0\n";
        pool_add((const uint8_t *)fallback, sizeof fallback - 1, 1);
    }
    rng_state = seed ? seed : 1;

    signal(SIGABRT, save_crash);
    signal(SIGSEGV, save_crash);
    for (size_t i = 0; i < nseeds; i++) {
        current = pool[i].p;
        current_len = pool[i].n;
        LLVMFuzzerTestOneInput(pool[i].p, pool[i].n);
    }
    unsigned long seeds_parsed = fuzz_stream_parsed;

    static uint8_t buf[MAX_INPUT];
    size_t n = 0;
    for (unsigned long it = 0; it < iterations; it++) {
        /* Half the time mutate the last input further, else start afresh
         * from the pool; mostly one mutation, so many inputs stay valid
         * and the deeper checks run too. */
        if (below(2) == 0) {
            const input *in = &pool[below(npool)];
            memcpy(buf, in->p, in->n);
            n = in->n;
        }
        for (size_t k = below(8) ? 1 : 2 + below(3); k > 0; k--)
            n = mutate(buf, n);
        unsigned long before = fuzz_stream_parsed;
        current = buf;
        current_len = n;
        LLVMFuzzerTestOneInput(buf, n);
        /* A valid input is a good base for further mutation. */
        if (fuzz_stream_parsed > before)
            pool_add(buf, n, 0);
    }
    printf("fuzz_stream: %zu seeds (%lu valid), %lu mutations, %lu valid parses, seed %llu\n",
           nseeds, seeds_parsed, iterations, fuzz_stream_parsed, (unsigned long long)seed);
    for (size_t i = 0; i < npool; i++)
        free(pool[i].p);
    return 0;
}
