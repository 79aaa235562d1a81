/*
 * convert.h - trace to matching streams (docs/convert.md).
 *
 * mm_convert() reads a trace directory of libmpimatch-trace.so
 * (docs/trace-format.md) and writes one event stream per rank
 * (docs/stream-format.md): what that rank's matching engine would see.
 * Receives, probes and cancels happen at their call times; a message
 * arrives at its send time plus a LogGP-style network time (intra-node or
 * inter-node parameters) and never overtakes an earlier message of the same
 * sender to the same receiver; collectives are expanded into the
 * point-to-point transfers of the algorithm the trace's MPI would pick
 * (tools/coll/coll_algo.h).
 */
#ifndef MM_TOOLS_CONVERT_H
#define MM_TOOLS_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One link class of the LogGP model (Alexandrov et al., SPAA 1995). */
typedef struct mm_loggp {
    uint64_t latency_ns;  /* L: wire time of a message                    */
    uint64_t overhead_ns; /* o: sender CPU time before the message leaves  */
    uint64_t gap_ns;      /* g: least time between two messages a sender
                             puts on the wire                              */
    uint64_t ps_per_byte; /* G: picoseconds per byte after the first       */
} mm_loggp;

enum { MM_CONV_LIB_TRACE = -1 }; /* take the selection rules from the trace */

/* How hosts' clocks are lined up (docs/convert.md, "Clocks"). */
enum {
    MM_CONV_CLOCK_CAUSAL = 0, /* trace alignment corrected by message causality */
    MM_CONV_CLOCK_TRACE,      /* the SYNC record after MPI_Init's barrier      */
    MM_CONV_CLOCK_FIRST       /* the first record of each host's first rank   */
};

typedef struct mm_conv_opts {
    const char *trace_dir, *out_dir;
    mm_loggp    intra, inter;   /* same host / different hosts             */
    int         lib;            /* MM_COLL_LIB_OMPI, _MPICH or MM_CONV_LIB_TRACE */
    int         clock;          /* MM_CONV_CLOCK_*                         */
    int         text;           /* also write rank-NNNNNN.txt              */
    const uint8_t *want;        /* NULL: every rank; else want[r] (r < nwant) */
    int32_t     nwant;
    FILE       *log;            /* warnings as they happen (may be NULL)   */
    FILE       *info;           /* the clock alignment found (may be NULL) */
    FILE       *progress;       /* a progress bar (may be NULL)            */
} mm_conv_opts;

/* Documented defaults (docs/convert.md). */
void mm_conv_defaults(mm_conv_opts *o);

/* A write to an opened output failed (a full disk): mm_convert's status. */
#define MM_CONV_EWRITE (-16)

/* Convert. Returns 0, or MMS_EFORMAT (bad trace, message names the file and
 * offset), MMS_EIO (cannot read the trace or create the output),
 * MM_CONV_EWRITE (writing an output failed), MMS_ENOMEM, with the reason
 * in err. The output directory is created first; on an error no
 * stream or index file is left behind (each is written atomically; files of
 * ranks written before the error are removed). */
int mm_convert(const mm_conv_opts *o, char *err, size_t errlen);

#endif /* MM_TOOLS_CONVERT_H */
