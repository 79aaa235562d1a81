/*
 * dumpi_read.h - read one SST DUMPI trace file (docs/dumpi.md) record by
 * record, checking its structure. libc only.
 *
 *   dumpi_reader *r;
 *   if (dumpi_open(&r, path, err, sizeof err)) ... error in err
 *   dumpi_rec rec;
 *   while ((rc = dumpi_next(r, &rec, err, sizeof err)) > 0) ... use rec
 *   if (rc < 0) ... "FILE: offset N: reason"
 *   if (dumpi_warning(r)) ... the file was cut short
 *   dumpi_close(r);
 *
 * A complete file ends with its index; the reader checks the index, the
 * header and the datatype sizes, and that the call stream ends exactly
 * where the header begins. A file without an index (the run died before
 * writing it) is read from its stream up to the last whole record, and
 * dumpi_warning() says so. Anything else that does not fit the format is
 * an error naming the file, the offset and the reason.
 */
#ifndef MM_DUMPI_READ_H
#define MM_DUMPI_READ_H

#include <stddef.h>
#include <stdint.h>

#include "dumpi_format.h"

enum { DUMPI_OK = 0, DUMPI_EFORMAT = -1, DUMPI_ENOMEM = -2, DUMPI_EIO = -3 };

#define DUMPI_MAX_TOKENS 16

typedef struct dumpi_status {
    int32_t bytes, source, tag;
    uint8_t cancelled, error;
} dumpi_status;

/* One record, decoded. Token i of the call's layout (dumpi_format.h) is
 * v[i] for a scalar (sign-extended from its width) or the element count of
 * an array; present[i] is 0 for a conditional token that is absent. The
 * elements of 'a', 'w' and 'y' arrays are ints + first[i]; the statuses of
 * a 't' token are st[0..v[i]-1] (none when the mask has no status bit:
 * has_status 0). */
typedef struct dumpi_rec {
    uint16_t label;
    uint8_t  mask;
    uint16_t thread;
    uint64_t offset;         /* of the label in the file             */
    uint64_t index;          /* 0-based record number                */
    uint64_t cpu0, cpu1;     /* ns; 0 unless mask has DUMPI_M_CPU    */
    uint64_t wall0, wall1;   /* ns; 0 unless mask has DUMPI_M_WALL   */
    int      ntok;
    int64_t  v[DUMPI_MAX_TOKENS];
    uint8_t  present[DUMPI_MAX_TOKENS];
    size_t   first[DUMPI_MAX_TOKENS];
    const int32_t *ints;
    const dumpi_status *st;
    int      has_status;
} dumpi_rec;

typedef struct dumpi_reader dumpi_reader;

int dumpi_open(dumpi_reader **r, const char *path, char *err, size_t errlen);

/* 1 with *rec set (valid until the next call), 0 at the end of the
 * stream, or DUMPI_E* with "FILE: offset N: reason" in err. */
int dumpi_next(dumpi_reader *r, dumpi_rec *rec, char *err, size_t errlen);

/* After dumpi_next returned 0: NULL for a complete file, else why it is
 * incomplete and how far it was read. */
const char *dumpi_warning(const dumpi_reader *r);

const char *dumpi_path(const dumpi_reader *r);
/* The file's DUMPI version (from its header); known 0 when the file has
 * no index (then the newest layout is assumed). */
int dumpi_version(const dumpi_reader *r, int v[3]);
/* Start time (seconds, from the header; 0 if unknown) and host name. */
uint64_t dumpi_start_time(const dumpi_reader *r);
const char *dumpi_host(const dumpi_reader *r);
/* Size in bytes of DUMPI datatype dt from the file's size table, or -1. */
int64_t dumpi_type_size(const dumpi_reader *r, int64_t dt);

/* Format "FILE: offset N: reason" into err for the caller's own checks. */
int dumpi_fail_at(const dumpi_reader *r, uint64_t offset, char *err, size_t errlen,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

void dumpi_close(dumpi_reader *r);

/* The footer's counts, by call label 0..DL_ALL_FUNCTIONS: calls made and
 * calls made but not recorded (dumpi.conf's "ignore"/"off" settings).
 * Returns 1 if the file has a footer that reads, else 0 with *note saying
 * why (NULL: the file has no index). */
int dumpi_footer(const dumpi_reader *r, const uint32_t **calls, const uint32_t **ignored,
                 const char **note);

/* Name of a call label ("MPI_Send"), or NULL. */
const char *dumpi_call_name(int label);

#endif /* MM_DUMPI_READ_H */
