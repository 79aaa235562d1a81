/*
 * dumpi_files.c - find the files of one DUMPI run: PREFIX.meta (key=value
 * lines written by rank 0: numprocs, fileprefix, version, ...) and one
 * PREFIX-NNNN.bin per rank (NNNN: the world rank, at least four digits).
 */
#include "dumpi_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *dumpi_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Files that are never part of a run: macOS resource forks ("._NAME",
 * copied along on non-Apple file systems), editor backups ("NAME~") and
 * lock files (".#NAME"). */
static int not_trace_file(const char *name)
{
    size_t n = strlen(name);
    return strncmp(name, "._", 2) == 0 || strncmp(name, ".#", 2) == 0 ||
           (n > 0 && name[n - 1] == '~');
}

/* NAME = PREFIX-DIGITS.bin: the rank, or -1. */
static long bin_rank(const char *name, const char *prefix)
{
    size_t lp = strlen(prefix);
    if (strncmp(name, prefix, lp) != 0 || name[lp] != '-' || !ends_with(name, ".bin"))
        return -1;
    const char *d = name + lp + 1;
    size_t nd = strlen(d) - 4;
    if (nd < 4 || nd > 9)
        return -1;
    long r = 0;
    for (size_t i = 0; i < nd; i++) {
        if (d[i] < '0' || d[i] > '9')
            return -1;
        r = r * 10 + (d[i] - '0');
    }
    return r;
}

/* Parse the .meta file: numprocs and fileprefix are required. */
static int read_meta(dumpi_run *run, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    long lineno = 0, np = -1;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq) {
            if (line[0]) {
                snprintf(err, errlen, "%s:%ld: not a DUMPI .meta line (no '='): %.60s", path,
                         lineno, line);
                rc = -1;
                break;
            }
            continue;
        }
        *eq = '\0';
        const char *v = eq + 1;
        if (strcmp(line, "numprocs") == 0) {
            char *end;
            np = strtol(v, &end, 10);
            if (*v == '\0' || *end || np < 1 || np > 100000000) {
                snprintf(err, errlen, "%s:%ld: bad numprocs '%s'", path, lineno, v);
                rc = -1;
                break;
            }
        } else if (strcmp(line, "fileprefix") == 0) {
            const char *base = strrchr(v, '/');
            free(run->prefix);
            run->prefix = strdup(base ? base + 1 : v);
        }
    }
    fclose(f);
    if (rc)
        return rc;
    if (np < 0 || !run->prefix || !run->prefix[0]) {
        snprintf(err, errlen, "%s: not a DUMPI .meta file (no %s line)", path,
                 np < 0 ? "numprocs" : "fileprefix");
        return -1;
    }
    run->nranks = (int32_t)np;
    return 0;
}

int dumpi_find_run(dumpi_run *run, const char *input, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    struct stat st;
    if (stat(input, &st) != 0) {
        snprintf(err, errlen, "%s: %s", input, strerror(errno));
        return -1;
    }
    char *dir;
    if (S_ISDIR(st.st_mode)) {
        dir = strdup(input);
    } else {
        const char *slash = strrchr(input, '/');
        dir = slash ? strndup(input, (size_t)(slash - input) + (slash == input)) : strdup(".");
        if (!ends_with(input, ".meta")) {
            snprintf(err, errlen, "%s: give a directory holding a DUMPI run or its .meta file",
                     input);
            free(dir);
            return -1;
        }
        run->meta = strdup(input);
    }
    if (!dir)
        goto nomem;
    run->dir = dir;
    if (!run->meta) { /* find the one .meta in the directory */
        DIR *d = opendir(dir);
        if (!d) {
            snprintf(err, errlen, "%s: cannot list: %s", dir, strerror(errno));
            return -1;
        }
        struct dirent *de;
        int nmeta = 0;
        char first[2][256] = { "", "" };
        while ((de = readdir(d))) {
            if (!ends_with(de->d_name, ".meta") || not_trace_file(de->d_name))
                continue;
            if (nmeta < 2)
                snprintf(first[nmeta], sizeof first[nmeta], "%s", de->d_name);
            nmeta++;
        }
        closedir(d);
        if (nmeta == 0) {
            snprintf(err, errlen, "%s: no DUMPI run here (no PREFIX.meta file)", dir);
            return -1;
        }
        if (nmeta > 1) {
            snprintf(err, errlen,
                     "%s: %d DUMPI runs here (%s, %s, ...): name the .meta file of one", dir,
                     nmeta, first[0], first[1]);
            return -1;
        }
        if (!(run->meta = dumpi_join(dir, first[0])))
            goto nomem;
    }
    if (read_meta(run, run->meta, err, errlen))
        return -1;
    run->bin = calloc((size_t)run->nranks, sizeof *run->bin);
    if (!run->bin)
        goto nomem;
    /* PREFIX-%04d.bin, but accept any zero padding a writer used. */
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot list: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) && rc == 0) {
        long r = not_trace_file(de->d_name) ? -1 : bin_rank(de->d_name, run->prefix);
        if (r < 0)
            continue;
        if (r >= run->nranks) {
            snprintf(err, errlen, "%s/%s: rank %ld, but %s says numprocs=%d", dir, de->d_name, r,
                     run->meta, run->nranks);
            rc = -1;
        } else if (run->bin[r]) {
            snprintf(err, errlen, "%s: two files for rank %ld (%s and %s)", dir, r, run->bin[r],
                     de->d_name);
            rc = -1;
        } else if (!(run->bin[r] = dumpi_join(dir, de->d_name))) {
            rc = -2;
        }
    }
    closedir(d);
    if (rc == -2)
        goto nomem;
    if (rc)
        return -1;
    for (int32_t r = 0; r < run->nranks; r++)
        if (!run->bin[r]) {
            snprintf(err, errlen, "%s/%s-%04d.bin: missing (%s says numprocs=%d)", dir,
                     run->prefix, r, run->meta, run->nranks);
            return -1;
        }
    return 0;
nomem:
    snprintf(err, errlen, "%s: out of memory", input);
    return -1;
}

void dumpi_run_free(dumpi_run *run)
{
    if (run->bin)
        for (int32_t r = 0; r < run->nranks; r++)
            free(run->bin[r]);
    free(run->bin);
    free(run->dir);
    free(run->meta);
    free(run->prefix);
    memset(run, 0, sizeof *run);
}
