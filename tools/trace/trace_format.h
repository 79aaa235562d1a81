/*
 * trace_format.h - the on-disk layout of an mpimatch trace file
 * (docs/trace-format.md), shared by the writer (the PMPI tracer,
 * tracer/) and the reader (trace_read.c).
 *
 * A trace file is one rank's record of its MPI calls: a 256-byte header,
 * then fixed-size 80-byte records, every integer little-endian whatever the
 * host. Fixed-size records make every record's offset computable (errors
 * name it) and let a file cut short by a crash be read up to its last whole
 * record. Header only: static inline encoders and decoders, no state.
 */
#ifndef MM_TRACE_FORMAT_H
#define MM_TRACE_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "le.h"

#define MMT_MAGIC       "MMTRACE"  /* 7 characters and a NUL: 8 bytes */
#define MMT_MAGIC_LEN   8
#define MMT_VERSION     1
#define MMT_HEADER_SIZE 256
#define MMT_RECORD_SIZE 80
#define MMT_GROUP_PER_RECORD 19    /* world ranks in one GROUP record */

/* Header field offsets. */
enum {
    MMT_H_MAGIC = 0, MMT_H_VERSION = 8, MMT_H_HDRSIZE = 10, MMT_H_RECSIZE = 12,
    MMT_H_FLAGS = 14, MMT_H_RANK = 16, MMT_H_SIZE = 20, MMT_H_PID = 24,
    MMT_H_CLOCK = 28, MMT_H_T0 = 32, MMT_H_T0_REAL = 40, MMT_H_THREAD = 48,
    MMT_H_RSVD = 52, MMT_H_MPI = 56, MMT_H_LIBVER = 88, MMT_H_HOST = 192
};
enum { MMT_MPI_LEN = 32, MMT_LIBVER_LEN = 104, MMT_HOST_LEN = 64 };

/* Header flags. */
enum {
    MMT_HF_PVARS = 1u << 0  /* MPI_T queue-length samples (PVAR records) follow */
};

/* Clocks (header field clock). */
enum { MMT_CLOCK_MONOTONIC = 1 };

/* Record field offsets. */
enum {
    MMT_R_TYPE = 0, MMT_R_SUB = 1, MMT_R_FLAGS = 2, MMT_R_PEER = 4, MMT_R_TAG = 8,
    MMT_R_PEERW = 12, MMT_R_SRC = 16, MMT_R_SRCW = 20, MMT_R_RTAG = 24, MMT_R_N = 28,
    MMT_R_T0 = 32, MMT_R_T1 = 40, MMT_R_COMM = 48, MMT_R_BYTES = 56, MMT_R_REQ = 64,
    MMT_R_AUX = 72
};

/* Record types (byte 0). Values are part of the format: never renumber. */
enum mmt_type {
    MMT_SEND = 1,      /* blocking send; sub = enum mmt_send_mode               */
    MMT_ISEND = 2,     /* nonblocking send; sub = mode; req                      */
    MMT_RECV = 3,      /* blocking receive; peer/tag as posted, src/rtag actual  */
    MMT_IRECV = 4,     /* nonblocking receive posted; req                        */
    MMT_PROBE = 5,     /* MPI_Probe; src/rtag/bytes of the message found         */
    MMT_IPROBE = 6,    /* MPI_Iprobe; FOUND flag, then src/rtag/bytes            */
    MMT_MPROBE = 7,    /* MPI_Mprobe; req = message id                           */
    MMT_IMPROBE = 8,   /* MPI_Improbe; FOUND flag, req = message id if found     */
    MMT_MRECV = 9,     /* MPI_Mrecv; aux = message id; src/rtag/bytes actual     */
    MMT_IMRECV = 10,   /* MPI_Imrecv; aux = message id; req                      */
    MMT_CANCEL = 11,   /* MPI_Cancel; req = the request cancelled                */
    MMT_COMPLETE = 12, /* a request completed in Wait or Test; sub = its type    */
    MMT_REQFREE = 13,  /* MPI_Request_free of a pending request; req             */
    MMT_COLL = 14,     /* blocking collective; sub = enum mmt_coll               */
    MMT_ICOLL = 15,    /* nonblocking collective started; sub = op; req          */
    MMT_COMM = 16,     /* a communicator created; GROUP records follow           */
    MMT_GROUP = 17,    /* world ranks of the preceding COMM's group(s)           */
    MMT_COMMFREE = 18, /* MPI_Comm_free / MPI_Comm_disconnect                    */
    MMT_PVAR = 19,     /* MPI_T sample; sub = enum mmt_pvar, aux = value         */
    MMT_SYNC = 20,     /* clock sync point after a barrier; aux = realtime ns    */
    MMT_END = 21,      /* last record, written by MPI_Finalize; aux = count      */
    MMT_TYPE_MAX = 21
};

/* Send modes (sub of SEND and ISEND). */
enum mmt_send_mode { MMT_MODE_STD = 0, MMT_MODE_SYNC = 1, MMT_MODE_READY = 2,
                     MMT_MODE_BUFFERED = 3, MMT_MODE_MAX = 3 };

/* Collective operations (sub of COLL and ICOLL). */
enum mmt_coll {
    MMT_C_BARRIER = 1, MMT_C_BCAST, MMT_C_REDUCE, MMT_C_ALLREDUCE, MMT_C_GATHER,
    MMT_C_GATHERV, MMT_C_SCATTER, MMT_C_SCATTERV, MMT_C_ALLGATHER, MMT_C_ALLGATHERV,
    MMT_C_ALLTOALL, MMT_C_ALLTOALLV, MMT_C_ALLTOALLW, MMT_C_REDUCE_SCATTER,
    MMT_C_REDUCE_SCATTER_BLOCK, MMT_C_SCAN, MMT_C_EXSCAN,
    MMT_C_MAX = MMT_C_EXSCAN
};

/* Commutativity of a collective's reduction (the src field of COLL and
 * ICOLL; the tag field holds the datatype's size, 0 = unknown). 0 also in
 * traces written before these fields existed. */
enum mmt_op_commut { MMT_OP_UNKNOWN = 0, MMT_OP_COMMUTATIVE = 1, MMT_OP_NONCOMMUTATIVE = 2 };

/* How a communicator was made (sub of COMM). */
enum mmt_comm_how {
    MMT_CM_WORLD = 0, MMT_CM_SELF, MMT_CM_DUP, MMT_CM_DUP_WITH_INFO, MMT_CM_SPLIT,
    MMT_CM_SPLIT_TYPE, MMT_CM_CREATE, MMT_CM_CREATE_GROUP, MMT_CM_CART_CREATE,
    MMT_CM_CART_SUB, MMT_CM_GRAPH_CREATE, MMT_CM_DIST_GRAPH_CREATE,
    MMT_CM_DIST_GRAPH_CREATE_ADJACENT, MMT_CM_INTERCOMM_CREATE, MMT_CM_INTERCOMM_MERGE,
    MMT_CM_MAX = MMT_CM_INTERCOMM_MERGE
};

/* MPI_T performance variables (sub of PVAR). */
enum mmt_pvar { MMT_PV_UNEXPECTED = 0, MMT_PV_POSTED = 1, MMT_PV_MAX = 1 };

/* Record flags (bytes 2-3). */
enum {
    MMT_F_FOUND     = 1u << 0, /* IPROBE/IMPROBE found a message                   */
    MMT_F_CANCELLED = 1u << 1, /* COMPLETE: the request was cancelled              */
    MMT_F_SENDRECV  = 1u << 2, /* SEND/RECV: the two halves of one MPI_Sendrecv    */
    MMT_F_REPLACE   = 1u << 3, /* ... of MPI_Sendrecv_replace                      */
    MMT_F_ERROR     = 1u << 4, /* the call or the status reported an error         */
    MMT_F_INTER     = 1u << 5, /* intercommunicator: peers are in the remote group */
    MMT_F_NOCOMM    = 1u << 6, /* the communicator was not seen created: comm is
                                  MMT_COMM_UNKNOWN and peer_world is -1            */
    MMT_F_IDENTITY  = 1u << 7, /* COMM: the group is the world in order; no GROUP
                                  records follow                                   */
    MMT_F_ALL       = (1u << 8) - 1
};

/* Special ranks and tags (MPI's constants differ between implementations;
 * the tracer writes these). */
enum { MMT_ANY_SOURCE = -1, MMT_PROC_NULL = -2, MMT_ROOT = -3, MMT_ANY_TAG = -1,
       MMT_NONE = -1 /* no such field (e.g. root of allreduce) */ };

/* Communicator ids: (lowest world rank in the group) << 32 | sequence. */
#define MMT_COMM_WORLD_ID  UINT64_C(0)
#define MMT_COMM_UNKNOWN   UINT64_MAX
#define MMT_NO_PARENT      UINT64_MAX

/* One record, decoded. Which fields mean something depends on the type
 * (docs/trace-format.md); unused ones are 0 on disk. */
typedef struct mmt_record {
    uint8_t  type, sub;
    uint16_t flags;
    int32_t  peer;        /* peer (rank in comm) or root, as the call named it   */
    int32_t  tag;         /* tag as the call named it                            */
    int32_t  peer_world;  /* world rank of peer, -1 if none or unknown           */
    int32_t  src;         /* actual source (rank in comm), from the status       */
    int32_t  src_world;   /* world rank of the actual source                     */
    int32_t  rtag;        /* actual tag, from the status                         */
    uint32_t n;           /* type-specific count (docs/trace-format.md)          */
    uint64_t t_start;     /* ns, monotonic: the call was entered                 */
    uint64_t t_end;       /* ns, monotonic: the call returned                    */
    uint64_t comm;        /* communicator id                                     */
    uint64_t bytes;       /* bytes (type-specific)                               */
    uint64_t req;         /* request or message id                               */
    uint64_t aux;         /* type-specific                                       */
} mmt_record;

static inline void mmt_encode(const mmt_record *r, unsigned char *p)
{
    p[MMT_R_TYPE] = r->type;
    p[MMT_R_SUB] = r->sub;
    le_put16(p + MMT_R_FLAGS, r->flags);
    le_put32(p + MMT_R_PEER, (uint32_t)r->peer);
    le_put32(p + MMT_R_TAG, (uint32_t)r->tag);
    le_put32(p + MMT_R_PEERW, (uint32_t)r->peer_world);
    le_put32(p + MMT_R_SRC, (uint32_t)r->src);
    le_put32(p + MMT_R_SRCW, (uint32_t)r->src_world);
    le_put32(p + MMT_R_RTAG, (uint32_t)r->rtag);
    le_put32(p + MMT_R_N, r->n);
    le_put64(p + MMT_R_T0, r->t_start);
    le_put64(p + MMT_R_T1, r->t_end);
    le_put64(p + MMT_R_COMM, r->comm);
    le_put64(p + MMT_R_BYTES, r->bytes);
    le_put64(p + MMT_R_REQ, r->req);
    le_put64(p + MMT_R_AUX, r->aux);
}

static inline void mmt_decode(const unsigned char *p, mmt_record *r)
{
    r->type = p[MMT_R_TYPE];
    r->sub = p[MMT_R_SUB];
    r->flags = le_get16(p + MMT_R_FLAGS);
    r->peer = le_as_i32(le_get32(p + MMT_R_PEER));
    r->tag = le_as_i32(le_get32(p + MMT_R_TAG));
    r->peer_world = le_as_i32(le_get32(p + MMT_R_PEERW));
    r->src = le_as_i32(le_get32(p + MMT_R_SRC));
    r->src_world = le_as_i32(le_get32(p + MMT_R_SRCW));
    r->rtag = le_as_i32(le_get32(p + MMT_R_RTAG));
    r->n = le_get32(p + MMT_R_N);
    r->t_start = le_get64(p + MMT_R_T0);
    r->t_end = le_get64(p + MMT_R_T1);
    r->comm = le_get64(p + MMT_R_COMM);
    r->bytes = le_get64(p + MMT_R_BYTES);
    r->req = le_get64(p + MMT_R_REQ);
    r->aux = le_get64(p + MMT_R_AUX);
}

/* The header, decoded. */
typedef struct mmt_header {
    uint16_t version, flags;
    int32_t  rank, size;       /* world rank and size                   */
    uint32_t pid, clock;       /* clock: enum MMT_CLOCK_*               */
    uint64_t t0, t0_real;      /* monotonic and realtime ns at MPI_Init */
    int32_t  thread_level;     /* MPI_Init_thread's provided level, as
                                  0 single, 1 funneled, 2 serialized,
                                  3 multiple                            */
    char mpi[MMT_MPI_LEN];         /* "openmpi" or "mpich"              */
    char libver[MMT_LIBVER_LEN];   /* MPI_Get_library_version, 1st line */
    char host[MMT_HOST_LEN];
} mmt_header;

/* Copy a string into a zeroed field of n bytes, leaving at least one NUL. */
static inline void mmt_put_str(unsigned char *p, const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n && s[i]; i++)
        p[i] = (unsigned char)s[i];
}

/* Encode a header (strings are cut to their fields, NUL-padded). */
static inline void mmt_encode_header(const mmt_header *h, unsigned char *p)
{
    memset(p, 0, MMT_HEADER_SIZE);
    memcpy(p + MMT_H_MAGIC, MMT_MAGIC, MMT_MAGIC_LEN);
    le_put16(p + MMT_H_VERSION, MMT_VERSION);
    le_put16(p + MMT_H_HDRSIZE, MMT_HEADER_SIZE);
    le_put16(p + MMT_H_RECSIZE, MMT_RECORD_SIZE);
    le_put16(p + MMT_H_FLAGS, h->flags);
    le_put32(p + MMT_H_RANK, (uint32_t)h->rank);
    le_put32(p + MMT_H_SIZE, (uint32_t)h->size);
    le_put32(p + MMT_H_PID, h->pid);
    le_put32(p + MMT_H_CLOCK, h->clock);
    le_put64(p + MMT_H_T0, h->t0);
    le_put64(p + MMT_H_T0_REAL, h->t0_real);
    le_put32(p + MMT_H_THREAD, (uint32_t)h->thread_level);
    mmt_put_str(p + MMT_H_MPI, h->mpi, MMT_MPI_LEN);
    mmt_put_str(p + MMT_H_LIBVER, h->libver, MMT_LIBVER_LEN);
    mmt_put_str(p + MMT_H_HOST, h->host, MMT_HOST_LEN);
}

/* GROUP records: byte 0 type, byte 1 count (1..19), bytes 2-3 zero, then
 * count world ranks as int32 from offset 4; unused slots are zero. */
static inline void mmt_encode_group(const int32_t *ranks, unsigned count, unsigned char *p)
{
    memset(p, 0, MMT_RECORD_SIZE);
    p[MMT_R_TYPE] = MMT_GROUP;
    p[MMT_R_SUB] = (unsigned char)count;
    for (unsigned i = 0; i < count; i++)
        le_put32(p + 4 + 4 * i, (uint32_t)ranks[i]);
}

#endif /* MM_TRACE_FORMAT_H */
