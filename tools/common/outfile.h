/*
 * outfile.h - output files that appear only when complete.
 *
 * Output goes to FILE.tmp.<pid> in the same directory (so the final rename
 * stays on one file system and is atomic) and is renamed to FILE on commit.
 * Until then the temporary file is registered for removal at exit and on
 * SIGINT/SIGTERM/SIGHUP, so no error path leaves a partial file behind.
 * The path "-" means standard output (no temporary file).
 */
#ifndef MM_TOOLS_OUTFILE_H
#define MM_TOOLS_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct mm_outfile {
    const char *path;  /* final path, not owned                  */
    char       *tmp;   /* temporary path, NULL for stdout        */
    FILE       *f;     /* where to write; NULL when not open     */
} mm_outfile;

/* Open the temporary file now, so an unwritable path fails before any
 * work. Returns 0, or -1 with a message in err. */
int  mm_outfile_open(mm_outfile *o, const char *path, char *err, size_t errlen);
/* Close and rename into place. Returns 0, or -1 (the temporary file is
 * removed) with a message in err. */
int  mm_outfile_commit(mm_outfile *o, char *err, size_t errlen);
/* Discard: close and remove the temporary file. Safe to call twice and on
 * a zeroed or committed outfile. */
void mm_outfile_abort(mm_outfile *o);

#endif /* MM_TOOLS_OUTFILE_H */
