/*
 * dumpi_format.h - what this reader knows of the SST DUMPI trace format
 * (docs/dumpi.md): constants, call labels, and the argument layouts of the
 * calls in a compact notation of our own.
 *
 * A DUMPI trace file (one per rank, PREFIX-NNNN.bin) is big-endian:
 *
 *   0      8 bytes magic ff aa dd 'D' 'U' 'M' 'P' 'I'
 *   8      the call stream: u32 CPU-time bias, u32 wall-time bias (seconds),
 *          then one record per profiled call, ended by the label
 *          DUMPI_END_OF_STREAM (u16)
 *   ...    header (version, start time, host, user, mesh), footer (call
 *          counts), key/value pairs, counter labels, datatype sizes,
 *          function addresses
 *   end-64 the index: magic, then the offsets of the datatype sizes,
 *          function addresses, counter labels, header, stream, footer and
 *          key/values (u64 each); older files have fewer leading entries.
 *
 * A record: u16 label, u8 mask (which optional parts follow), u16 thread
 * (when mask bit 6), CPU and wall times (u16 seconds since the bias, u32
 * nanoseconds, at entry and at exit; mask bits 2 and 3), performance
 * counters (mask bit 7: u8 count, count pairs of u64), then the call's
 * arguments as its layout says.
 */
#ifndef MM_DUMPI_FORMAT_H
#define MM_DUMPI_FORMAT_H

#include <stdint.h>

#define DUMPI_MAGIC_LEN 8
#define DUMPI_MAGIC "\xff\xaa\xdd" "DUMPI" /* 8 bytes, no NUL */
#define DUMPI_FOOTER_MAGIC UINT64_C(0xf007fee7)

/* Record mask bits. */
enum {
    DUMPI_M_STATUS = 0x03, /* statuses are stored (either bit)        */
    DUMPI_M_CPU = 0x04,    /* CPU times at entry and exit             */
    DUMPI_M_WALL = 0x08,   /* wall times at entry and exit            */
    DUMPI_M_THREAD = 0x40, /* a u16 thread index                      */
    DUMPI_M_PERF = 0x80,   /* performance counters                    */
    DUMPI_M_KNOWN = 0xcf
};

/* Call labels this importer maps (the full list is dumpi_calls[]). */
enum dumpi_label {
    DL_SEND = 0, DL_RECV = 1, DL_BSEND = 3, DL_SSEND = 4, DL_RSEND = 5,
    DL_ISEND = 8, DL_IBSEND = 9, DL_ISSEND = 10, DL_IRSEND = 11, DL_IRECV = 12,
    DL_WAIT = 13, DL_TEST = 14, DL_REQUEST_FREE = 15, DL_WAITANY = 16, DL_TESTANY = 17,
    DL_WAITALL = 18, DL_TESTALL = 19, DL_WAITSOME = 20, DL_TESTSOME = 21,
    DL_IPROBE = 22, DL_PROBE = 23, DL_CANCEL = 24,
    DL_SEND_INIT = 26, DL_BSEND_INIT = 27, DL_SSEND_INIT = 28, DL_RSEND_INIT = 29,
    DL_RECV_INIT = 30, DL_START = 31, DL_STARTALL = 32,
    DL_SENDRECV = 33, DL_SENDRECV_REPLACE = 34,
    DL_BARRIER = 52, DL_BCAST = 53, DL_GATHER = 54, DL_GATHERV = 55, DL_SCATTER = 56,
    DL_SCATTERV = 57, DL_ALLGATHER = 58, DL_ALLGATHERV = 59, DL_ALLTOALL = 60,
    DL_ALLTOALLV = 61, DL_REDUCE = 62, DL_ALLREDUCE = 65, DL_REDUCE_SCATTER = 66,
    DL_SCAN = 67,
    DL_COMM_SIZE = 81, DL_COMM_RANK = 82, DL_COMM_DUP = 84, DL_COMM_CREATE = 85,
    DL_COMM_SPLIT = 86, DL_COMM_FREE = 87, DL_INTERCOMM_CREATE = 91,
    DL_INTERCOMM_MERGE = 92, DL_CART_CREATE = 99, DL_GRAPH_CREATE = 101,
    DL_CART_SUB = 111, DL_INIT = 124, DL_FINALIZE = 125, DL_COMM_DISCONNECT = 132,
    DL_ALLTOALLW = 155, DL_EXSCAN = 156, DL_INIT_THREAD = 171,
    DL_ALL_FUNCTIONS = 290, /* a sentinel, never on the stream */
    DL_END_OF_STREAM = 293,
    DUMPI_LABEL_MAX = 293
};

/* DUMPI's own values for predefined objects and specials. */
enum {
    DUMPI_ANY_SOURCE = -1, DUMPI_ROOT = -2, DUMPI_ANY_TAG = -1,
    DUMPI_COMM_NULL = 1, DUMPI_COMM_WORLD = 2, DUMPI_COMM_SELF = 3,
    DUMPI_REQUEST_NULL = 1
};

/*
 * The layout of one call's arguments, a string of tokens:
 *   1 2 4 8  a big-endian integer of that many bytes (a scalar)
 *   a        u32 n, then n int32        w   u32 n, then n int16
 *   y        u32 n, then n int8         s   u32 n, then n chars
 *   S        u32 n, then n 's'          T   u32 n, then n 'S'
 *   A        u32 n, then n 'a'
 *   t        statuses, only when the record's mask has a status bit: u32 n,
 *            then n times {i32 bytes, i32 source, u8 cancelled, u8 error,
 *            i32 tag (version >= 0.6.3)}
 *   I        MPI_Init's argv: u32 n, a second u32 n before version 0.6.2,
 *            then n 's'
 *   J        'a' from version 0.6.9, a single int32 before
 *   K        'a' from version 0.6.8, a single int32 before
 *   =PQ      the next token is present only when scalar tokens P and Q
 *            (hex digits, counted from 0) are equal (e.g. rank == root)
 * Token numbers count every token except the =PQ prefixes.
 */
typedef struct dumpi_call {
    const char *name;   /* "MPI_Send"; NULL: not a call label            */
    const char *layout; /* "" for calls without arguments               */
} dumpi_call;

extern const dumpi_call dumpi_calls[DUMPI_LABEL_MAX + 1];

/* Big-endian reads from a byte buffer. */
static inline uint16_t be_get16(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t be_get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline uint64_t be_get64(const unsigned char *p)
{
    return (uint64_t)be_get32(p) << 32 | be_get32(p + 4);
}

#endif /* MM_DUMPI_FORMAT_H */
