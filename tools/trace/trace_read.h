/*
 * trace_read.h - read and validate one rank's trace file
 * (docs/trace-format.md), record by record.
 *
 *   mmt_reader *r;
 *   if (mmt_open(&r, path, err, sizeof err)) ... error in err
 *   mmt_record rec;
 *   while ((rc = mmt_next(r, &rec, err, sizeof err)) > 0) ... use rec
 *   if (rc < 0) ... error in err ("FILE: offset N: record K: reason")
 *   if (mmt_warning(r)) ... the file was cut short (a crashed run)
 *   mmt_close(r);
 *
 * Every record is checked (type, sub-type, flags, reserved bytes, times,
 * communicator and request references) before it is returned; the first
 * broken one is an error naming the file, its offset and the reason. A file
 * that ends without its END record (the run died), or in the middle of a
 * record, is not an error: the whole records are returned and mmt_warning()
 * says so. The reader keeps the communicator table so that callers can
 * translate ranks (mmt_comm_find). libc only.
 */
#ifndef MM_TRACE_READ_H
#define MM_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "trace_format.h"

enum {
    MMT_OK = 0,
    MMT_EFORMAT = -1, /* truncated header, corrupted or foreign file */
    MMT_ENOMEM = -2,
    MMT_EIO = -3      /* cannot open or read                         */
};

/* A communicator as its COMM and GROUP records describe it. */
typedef struct mmt_comm {
    uint64_t id, parent;       /* parent: MMT_NO_PARENT for world, self */
    uint8_t  how;              /* enum mmt_comm_how                     */
    uint8_t  inter;            /* an intercommunicator                  */
    uint8_t  freed;            /* a COMMFREE record named it            */
    int32_t  rank;             /* this rank's rank in it                */
    int32_t  size;             /* size of the (local) group             */
    int32_t  remote_size;      /* intercommunicators: remote group size */
    int32_t *world;            /* world ranks of the local group (size),
                                  then of the remote group; NULL when
                                  the group is the world in order       */
} mmt_comm;

typedef struct mmt_reader mmt_reader;

/* Open a trace file and check its header. Returns MMT_OK, or an MMT_E*
 * code with "FILE: offset N: reason" in err. */
int mmt_open(mmt_reader **r, const char *path, char *err, size_t errlen);
const mmt_header *mmt_header_of(const mmt_reader *r);
const char *mmt_path(const mmt_reader *r);

/* The next record (GROUP records are consumed into the communicator table
 * and not returned). Returns 1 with *rec set, 0 at the end of the trace,
 * or an MMT_E* code with "FILE: offset N: record K: reason" in err. */
int mmt_next(mmt_reader *r, mmt_record *rec, char *err, size_t errlen);

/* After mmt_next returned 0: NULL for a complete trace, or a message
 * saying where and how it was cut short. */
const char *mmt_warning(const mmt_reader *r);

/* Number of records read so far (including GROUP records), and the offset
 * of the last record returned. */
uint64_t mmt_records_read(const mmt_reader *r);
uint64_t mmt_offset(const mmt_reader *r);

/* A communicator seen so far, or NULL. */
const mmt_comm *mmt_comm_find(const mmt_reader *r, uint64_t id);
/* World rank of `rank` (local group, or remote group when remote != 0) in
 * comm, or -1 if out of range. */
int32_t mmt_comm_world(const mmt_comm *c, int32_t rank, int remote);

void mmt_close(mmt_reader *r);

/* Names for printing: "SEND", "allreduce", "split", "unexpected", "sync";
 * NULL when out of range. */
const char *mmt_type_name(int type);
const char *mmt_coll_name(int op);
const char *mmt_comm_how_name(int how);
const char *mmt_pvar_name(int pv);
const char *mmt_mode_name(int mode);

/* Communicator id as text: "LOWEST.SEQ", or "unknown". buf >= 24 bytes. */
const char *mmt_comm_str(uint64_t id, char *buf, size_t len);

#endif /* MM_TRACE_READ_H */
