/*
 * cli.c - helpers shared by the command-line tools.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char *cli_prog = "mpimatch";

static int stdout_reported;

void cli_stdout_reported(void)
{
    stdout_reported = 1;
}

static void check_stdout(void)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int saved = errno;
    if ((!bad && !ferror(stdout)) || stdout_reported)
        return;
    /* The reason is known when this flush failed; an earlier failed write
     * (the tool flushed itself) left only the error flag. */
    if (bad && saved)
        fprintf(stderr, "%s: error writing standard output: %s\n", cli_prog, strerror(saved));
    else
        fprintf(stderr, "%s: error writing standard output\n", cli_prog);
    _exit(CLI_FAIL);
}

int cli_flush_stdout(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    int saved = errno;
    fprintf(stderr, "%s: error writing standard output%s%s\n", cli_prog, saved ? ": " : "",
            saved ? strerror(saved) : "");
    stdout_reported = 1;
    return CLI_FAIL;
}

void cli_init(const char *prog)
{
    cli_prog = prog;
    atexit(check_stdout);
    /* Over a file size limit (ulimit -f) a write fails with EFBIG, which the
     * tools report (status 1, temporary files removed), instead of SIGXFSZ
     * killing the process with its temporary output left behind. */
    signal(SIGXFSZ, SIG_IGN);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout); /* keep stdout and stderr in order on a terminal */
    fprintf(stderr, "%s: ", cli_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_error("option %s needs a value (try --help)", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
    int neg = s[0] == '-';
    const char *p = s + neg;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (*p == '\0')
        return -1;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (lim - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    int64_t x;
    if (neg)
        x = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        x = (int64_t)v;
    if (x < min || x > max)
        return -1;
    *out = x;
    return 0;
}

int cli_opt_int(int argc, char **argv, int *i, const char *name, int64_t min, int64_t max,
                int64_t *out)
{
    const char *v;
    int r = cli_opt(argc, argv, i, name, &v);
    if (r <= 0)
        return r;
    if (cli_int(v, min, max, out)) {
        cli_error("%s: '%s' is not an integer in %" PRId64 "..%" PRId64, name, v, min, max);
        return -1;
    }
    return 1;
}
