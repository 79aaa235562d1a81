/*
 * outfile.h - output files that appear only when complete.
 *
 * A regular file (or one that does not exist yet) is written to
 * FILE.tmp.<pid> in the same directory (so the final rename stays on one file
 * system and is atomic) and renamed to FILE on commit. Until then the
 * temporary file is registered for removal at exit and on
 * SIGINT/SIGTERM/SIGHUP/SIGPIPE (unless ignored), so no error path leaves a
 * partial file behind; cli_init ignores SIGXFSZ, so a file size limit is a
 * write error (EFBIG) like a full disk.
 * A symlink is followed: the file it points to is replaced, the link stays.
 *
 * What is not a regular file is written straight through, never replaced
 * (renaming over /dev/null, as root, would turn it into a regular file): a
 * character or block device, a FIFO, a socket, and the names of the standard
 * streams (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), which are
 * opened for appending so that what the process already wrote there stays.
 * The path "-" means standard output itself. Python's writer
 * (python/mpimatch/atomic.py) behaves the same way.
 */
#ifndef MM_TOOLS_OUTFILE_H
#define MM_TOOLS_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct mm_outfile {
    const char *path;  /* final path, not owned                  */
    char       *tmp;   /* temporary path; NULL for stdout and
                          write-through                          */
    char       *target;/* what tmp is renamed to (path, or the
                          file a symlink at path points to)      */
    FILE       *f;     /* where to write; NULL when not open     */
    int         through; /* f is a write-through file we opened  */
} mm_outfile;

/* Open the temporary file now, so an unwritable path fails before any
 * work. Returns 0, or -1 with a message in err. */
int  mm_outfile_open(mm_outfile *o, const char *path, char *err, size_t errlen);
/* Close and rename into place (write-through: flush and close). Returns 0,
 * or -1 (the temporary file is removed) with a message in err, also when
 * a write failed earlier (a full disk, /dev/full). */
int  mm_outfile_commit(mm_outfile *o, char *err, size_t errlen);
/* A write to o->f failed (call it at once, while errno tells why): put
 * "cannot write 'PATH': reason" (or "error writing standard output:
 * reason") in err and discard as mm_outfile_abort does. Returns -1. */
int  mm_outfile_fail(mm_outfile *o, char *err, size_t errlen);
/* Discard: close and remove the temporary file (write-through: close; what
 * was written stays). Safe to call twice and on a zeroed or committed
 * outfile. */
void mm_outfile_abort(mm_outfile *o);
/* Is path written straight through (see above) rather than renamed over? */
int  mm_outfile_writes_through(const char *path);

#endif /* MM_TOOLS_OUTFILE_H */
