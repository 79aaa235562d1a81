/*
 * dumpi_import.h - convert an SST DUMPI run into an mpimatch trace
 * (docs/dumpi.md, docs/trace-format.md).
 */
#ifndef MM_DUMPI_IMPORT_H
#define MM_DUMPI_IMPORT_H

#include <stddef.h>

typedef struct dumpi_import_opts {
    const char *mpi;        /* written as the traces' MPI: "openmpi" or "mpich" */
    /* Called for each warning (a partial file, lossy mapping); may be NULL. */
    void (*warn)(void *ctx, const char *msg);
    void *ctx;
} dumpi_import_opts;

/* `input`: a directory holding one DUMPI run (PREFIX.meta and
 * PREFIX-NNNN.bin), or the run's .meta file. Writes OUTDIR/rank-NNNNNN.mmt
 * and OUTDIR/index.json; on error nothing is left in OUTDIR and err says
 * "FILE: offset N: reason". Returns 0 or -1. */
int dumpi_import(const char *input, const char *outdir, const dumpi_import_opts *o, char *err,
                 size_t errlen);

#endif /* MM_DUMPI_IMPORT_H */
