/*
 * tuning.c - FI_MPIMATCH_TUNING=FILE: the thresholds and polling scheme that
 * `mpimatch tune` measured on this machine (docs/provider.md#thresholds). The
 * file gives defaults; a variable set in the environment wins over it.
 *
 *   # comments and blank lines
 *   shm_eager = 4032        (FI_MPIMATCH_SHM_EAGER)
 *   cma_min = 16384         (FI_MPIMATCH_CMA_MIN)
 *   poll = static           (FI_MPIMATCH_POLL: rr, static, dynamic)
 *   poll_ratio = 50         (FI_MPIMATCH_POLL_RATIO)
 *   poll_history = 8        (FI_MPIMATCH_POLL_HISTORY)
 *
 * Any other line is an error naming the file and the line; so is a key given
 * twice or a value out of the variable's range.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

const mmfi_tuning_key mmfi_tuning_keys[MMFI_TUNE_N] = {
    [MMFI_TUNE_SHM_EAGER] = {"shm_eager", 0, (uint64_t)1 << 20}, /* capped at FI_MPIMATCH_EAGER */
    [MMFI_TUNE_CMA_MIN] = {"cma_min", 0, (uint64_t)1 << 40},
    [MMFI_TUNE_POLL] = {"poll", 0, 2},
    [MMFI_TUNE_POLL_RATIO] = {"poll_ratio", 1, MMFI_POLL_RATIO_MAX},
    [MMFI_TUNE_POLL_HISTORY] = {"poll_history", 1, MMFI_POLL_HISTORY_MAX},
};

static const char *const poll_names[] = {"rr", "static", "dynamic"}; /* MMFI_POLL_* */

int mmfi_poll_scheme_parse(const char *v)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(v, poll_names[i]))
            return i;
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

int mmfi_tuning_read(const char *path, mmfi_tuning *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, errlen, "%s:%d: line longer than %zu bytes", path, lineno,
                     sizeof line - 2);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected key = value, got \"%.64s\"", path, lineno, s);
            rc = -1;
            break;
        }
        *eq = 0;
        char *key = trim(s), *val = trim(eq + 1);
        int k = -1;
        for (int i = 0; i < MMFI_TUNE_N; i++)
            if (!strcmp(key, mmfi_tuning_keys[i].name))
                k = i;
        if (k < 0) {
            snprintf(err, errlen, "%s:%d: unknown key \"%.64s\" (known: shm_eager, cma_min, "
                     "poll, poll_ratio, poll_history)", path, lineno, key);
            rc = -1;
            break;
        }
        if (t->have[k]) {
            snprintf(err, errlen, "%s:%d: \"%s\" given twice (first on line %d)", path, lineno,
                     key, t->line[k]);
            rc = -1;
            break;
        }
        const mmfi_tuning_key *d = &mmfi_tuning_keys[k];
        if (k == MMFI_TUNE_POLL) {
            int sch = mmfi_poll_scheme_parse(val);
            if (sch < 0) {
                snprintf(err, errlen, "%s:%d: poll = \"%.64s\": expected rr, static or dynamic",
                         path, lineno, val);
                rc = -1;
                break;
            }
            t->val[k] = (uint64_t)sch;
        } else {
            char *end = NULL;
            errno = 0;
            unsigned long long x = strtoull(val, &end, 10);
            if (errno || end == val || *end || val[0] == '-' || x < d->lo || x > d->hi) {
                snprintf(err, errlen, "%s:%d: %s = \"%.64s\": expected an integer from %llu to "
                         "%llu", path, lineno, key, val, (unsigned long long)d->lo,
                         (unsigned long long)d->hi);
                rc = -1;
                break;
            }
            t->val[k] = x;
        }
        t->have[k] = 1;
        t->line[k] = lineno;
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        rc = -1;
    }
    fclose(f);
    return rc;
}
