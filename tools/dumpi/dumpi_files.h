/*
 * dumpi_files.h - the files of one SST DUMPI run.
 */
#ifndef MM_DUMPI_FILES_H
#define MM_DUMPI_FILES_H

#include <stddef.h>
#include <stdint.h>

typedef struct dumpi_run {
    char *dir, *meta, *prefix;
    int32_t nranks;  /* numprocs from the .meta file            */
    char **bin;      /* bin[r]: the trace file of world rank r */
} dumpi_run;

/* `input`: a directory with exactly one PREFIX.meta, or a .meta file.
 * Every rank's file must be there. 0, or -1 with a message in err. */
int dumpi_find_run(dumpi_run *run, const char *input, char *err, size_t errlen);
void dumpi_run_free(dumpi_run *run);
/* "DIR/NAME", malloc'd (NULL: out of memory). */
char *dumpi_join(const char *dir, const char *name);

#endif /* MM_DUMPI_FILES_H */
