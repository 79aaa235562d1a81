/*
 * convert.c - mm_convert(): the passes of the converter in order
 * (docs/convert.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "coll_algo.h"
#include "conv_internal.h"

/* Defaults and where they come from: docs/convert.md, "Parameters". */
void mm_conv_defaults(mm_conv_opts *o)
{
    memset(o, 0, sizeof *o);
    o->intra = (mm_loggp){ .latency_ns = 300, .overhead_ns = 100, .gap_ns = 50, .ps_per_byte = 100 };
    o->inter = (mm_loggp){ .latency_ns = 1000, .overhead_ns = 200, .gap_ns = 100, .ps_per_byte = 80 };
    o->lib = MM_CONV_LIB_TRACE;
}

/* Create the output directory (one level, like mkdir); an existing
 * directory is fine. *made: whether this call created it. */
static int make_dir(const char *dir, int *made, char *err, size_t errlen)
{
    struct stat st;
    *made = 0;
    if (mkdir(dir, 0777) == 0) {
        *made = 1;
        return MMS_OK;
    }
    int e = errno;
    if (e == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return MMS_OK;
    snprintf(err, errlen, "%s: cannot create the output directory: %s", dir,
             e == EEXIST ? "a file of that name exists" : strerror(e));
    return MMS_EIO;
}

/* Does dir hold an SST DUMPI run and no trace? 1: a .meta file, 2: a .bin
 * file, 0: neither or a trace (rank-000000.mmt) is there. */
static int dumpi_run_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int what = 0, trace = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (strcmp(de->d_name, "rank-000000.mmt") == 0)
            trace = 1;
        else if (de->d_name[0] != '.' && n > 5 && strcmp(de->d_name + n - 5, ".meta") == 0)
            what = 1;
        else if (!what && de->d_name[0] != '.' && n > 4 && strcmp(de->d_name + n - 4, ".bin") == 0)
            what = 2;
    }
    closedir(d);
    return trace ? 0 : what;
}

int mm_convert(const mm_conv_opts *o, char *err, size_t errlen)
{
    cv_conv c;
    memset(&c, 0, sizeof c);
    c.o = o;
    size_t *order = NULL;
    if (errlen)
        err[0] = '\0';
    /* Both directories are checked before anything is read or written. */
    struct stat st;
    int found = stat(o->trace_dir, &st) == 0;
    if (!found || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a trace directory (%s)", o->trace_dir,
                 found ? "not a directory" : strerror(errno));
        return MMS_EIO;
    }
    if ((found = dumpi_run_in(o->trace_dir))) {
        snprintf(err, errlen, "%s: an SST DUMPI run (%s files), not a trace of "
                 "libmpimatch-trace.so: import it first with `mpimatch import dumpi %s --out "
                 "TRACE_DIR` (docs/dumpi.md), then convert TRACE_DIR",
                 o->trace_dir, found == 1 ? ".meta" : ".bin", o->trace_dir);
        return MMS_EFORMAT;
    }
    int made;
    int rc = make_dir(o->out_dir, &made, err, errlen);
    if (rc)
        return rc;
    if ((rc = cv_load(&c, err, errlen)))
        goto out;
    cv_clock_print(&c, o->info);
    if ((rc = cv_partial_note(&c)))
        goto out;
    if (o->lib != MM_CONV_LIB_TRACE) {
        c.lib = o->lib;
    } else if (strcmp(c.mpi, "mpich") == 0) {
        c.lib = MM_COLL_LIB_MPICH;
    } else {
        c.lib = MM_COLL_LIB_OMPI;
        if (strcmp(c.mpi, "openmpi") != 0 &&
            (rc = cv_warn(&c, "MPI '%s' of the trace unknown: Open MPI's collective rules used", c.mpi)))
            goto out;
    }
    if ((rc = cv_p2p(&c, err, errlen)) || (rc = cv_coll(&c, err, errlen)) ||
        (rc = cv_model(&c, &order, err, errlen)) || (rc = cv_pair(&c, err, errlen)) ||
        (rc = cv_write(&c, order, err, errlen)))
        goto out;
out:
    if (rc && made)
        rmdir(o->out_dir); /* an output directory this call made stays only with output */
    if (rc == MMS_ENOMEM && !err[0])
        snprintf(err, errlen, "out of memory");
    free(order);
    cv_free(&c);
    return rc;
}
