/*
 * stream.h - the in-memory event stream shared by the parsers, the writers,
 * the replay loop and the workload generators.
 *
 * A stream is an array of events in arrival order. Events enter only through
 * mm_stream_push(), which applies every semantic rule of the stream format
 * (docs/stream-format.md), so a stream built by a generator obeys the same
 * rules as one read from a file. After the last push, mm_stream_finalize()
 * fixes the number of processes and checks sources against it; writers and
 * the replay loop need a finalized stream.
 *
 * Functions return MMS_OK or a negative MMS_E* code and, on error, write a
 * one-line reason that names the place (file:line, record and offset, or
 * event number) into err (errlen bytes, always terminated).
 */
#ifndef MM_TOOLS_STREAM_H
#define MM_TOOLS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "mpimatch.h"

enum {
    MMS_OK      = 0,
    MMS_EFORMAT = -1, /* the input breaks the format or its rules     */
    MMS_ENOMEM  = -2, /* out of memory                                */
    MMS_EIO     = -3, /* reading or writing failed                    */
    MMS_ESTATE  = -4  /* API misuse, e.g. writing an unfinalized stream */
};

/* Event types; the values are the record letters of the text format, and
 * the type byte of binary records. */
enum mm_event_type {
    MM_EV_RECV   = 'R', /* post a receive                    */
    MM_EV_MSG    = 'M', /* a message arrives                 */
    MM_EV_PROBE  = 'P', /* probe                             */
    MM_EV_MPROBE = 'X', /* matched probe (removes the message) */
    MM_EV_CANCEL = 'C'  /* cancel a posted receive           */
};

typedef struct mm_event {
    uint64_t id;        /* R/M/P/X: the event's unique id; C: its R's id     */
    uint64_t bytes;     /* R/M: message size                                 */
    uint64_t t;         /* R/M: time stamp in nanoseconds (informative)      */
    uint64_t line;      /* text line, binary record number or event number,
                           1-based; where errors about this event point      */
    uint64_t ref;       /* C: index of its R event. R: 1 + index of the
                           cancel-handle slot if some C names it, else 0     */
    int32_t  comm;      /* communicator, 0..INT32_MAX; 0 for C               */
    int32_t  src;       /* source, or MM_ANY_SOURCE; 0 for C                 */
    int32_t  tag;       /* tag, or MM_ANY_TAG; 0 for C                       */
    uint32_t comm_size; /* R/M: communicator size of a collective (0: unknown) */
    uint32_t call;      /* R/M: instance of the collective call              */
    int32_t  src_resolved; /* R: actual source in the traced run (when
                              resolved & MM_RES_SRC; else 0)                  */
    int32_t  tag_resolved; /* R: actual tag in the traced run (MM_RES_TAG)    */
    uint8_t  type;      /* enum mm_event_type                                */
    uint8_t  kind;      /* MM_KIND_P2P or MM_KIND_COLL                       */
    uint8_t  coll_op;   /* enum mm_coll_op, MM_COLL_NONE unless kind is COLL */
    uint8_t  resolved;  /* R only: MM_RES_SRC | MM_RES_TAG, which of the two
                           fields above are set; replay ignores them          */
} mm_event;

/* Bits of mm_event.resolved: the R carries src_resolved= / tag_resolved=,
 * what the receive really matched in the traced run (trace conversion). */
enum { MM_RES_SRC = 1u << 0, MM_RES_TAG = 1u << 1, MM_RES_ALL = MM_RES_SRC | MM_RES_TAG };

/* Where the stream came from; decides how error locations are written. */
enum mm_stream_format { MM_FMT_MEMORY = 0, MM_FMT_TEXT = 1, MM_FMT_BINARY = 2 };

/* Where the effective number of processes came from. */
enum mm_np_origin { MM_NP_INFERRED = 0, MM_NP_DECLARED = 1, MM_NP_OVERRIDE = 2 };

typedef struct mm_stream {
    mm_event *ev;        /* events in order                                 */
    size_t    n;         /* number of events                                */
    size_t    cap;
    size_t    nslots;    /* R events that some C names (cancel handles)      */
    int32_t   np;        /* effective number of processes (after finalize)   */
    int32_t   np_decl;   /* declared by the file ('# np=' / binary header), 0 if none */
    int32_t   max_src;   /* largest concrete source, -1 if none              */
    uint8_t   np_origin; /* enum mm_np_origin                                */
    uint8_t   format;    /* enum mm_stream_format                            */
    uint8_t   finalized;
    uint8_t   bin_recsize; /* binary input: its record size (48 or 56)       */
    char     *name;      /* file name used in messages                       */
    /* id -> event index, open addressing; ids of R/M/P/X events */
    uint64_t *hkeys;
    uint32_t *hvals;     /* 1 + event index, 0 = empty slot                  */
    size_t    hcap;      /* slots, a power of two (or 0)                     */
    size_t    hcount;    /* ids stored                                       */
} mm_stream;

/* An empty stream; name (copied, may be NULL) is used in messages. */
int  mm_stream_init(mm_stream *s, const char *name, char *err, size_t errlen);
void mm_stream_free(mm_stream *s);
/* Preallocate room for n more events (optional; push grows as needed). */
int  mm_stream_reserve(mm_stream *s, size_t n, char *err, size_t errlen);

/* An event of the given type with every other field zero/empty; set the
 * fields that apply, then push it. */
mm_event mm_event_make(int type, uint64_t id, int32_t comm, int32_t src, int32_t tag);

/* Append a copy of *ev after checking every rule that does not depend on
 * the number of processes: field ranges, wildcards only where allowed,
 * attributes only on R/M, unique ids, a C naming an earlier R. A C's ref and
 * an R's slot are computed here; a line of 0 becomes the event number. On
 * error the stream is unchanged and err names the event's location. */
int  mm_stream_push(mm_stream *s, const mm_event *ev, char *err, size_t errlen);

/* Fix the number of processes: np_override if > 0, else the declared one,
 * else 1 + the largest source (at least 1). Then check every source against
 * it, reporting the first event out of range. Pushing again clears the
 * finalized state. */
int  mm_stream_finalize(mm_stream *s, int32_t np_override, char *err, size_t errlen);

/* Index of the R/M/P/X event with this id, or -1. */
long long mm_stream_find(const mm_stream *s, uint64_t id);

/* "file:17: ", "file: record 3 (offset 128): " or "file: event 3: " for an
 * event's line field; returns the length (snprintf semantics). */
int  mm_stream_where(const mm_stream *s, uint64_t line, char *buf, size_t len);
/* "line", "record" or "event": what an event's line field counts. */
const char *mm_stream_unit(const mm_stream *s);

/* ---- Reading ---- */

enum { MM_READ_AUTO = 0, MM_READ_TEXT = 1, MM_READ_BINARY = 2 };

/* Parse a whole input held in memory into an empty initialized stream and
 * finalize it with np_override. MM_READ_AUTO picks binary when the data
 * starts with the binary magic, text otherwise. */
int  mm_stream_parse(mm_stream *s, const void *data, size_t len, int how,
                     int32_t np_override, char *err, size_t errlen);
int  mm_stream_parse_text(mm_stream *s, const char *data, size_t len,
                          char *err, size_t errlen);
int  mm_stream_parse_binary(mm_stream *s, const unsigned char *data, size_t len,
                            char *err, size_t errlen);

/* Read a file ("-" is standard input) completely into memory; *data is
 * malloc'd (free it), NUL-terminated for convenience, *len excludes the NUL. */
int  mm_read_file(const char *path, char **data, size_t *len, char *err, size_t errlen);
/* mm_read_file + mm_stream_init + mm_stream_parse, named after path. */
int  mm_stream_load(mm_stream *s, const char *path, int32_t np_override,
                    char *err, size_t errlen);

/* ---- Writing (finalized streams only) ---- */

/* Output goes through a sink: returns 0 on success, nonzero on failure. */
typedef int (*mm_sink_fn)(void *ctx, const void *data, size_t len);
int  mm_sink_file(void *ctx, const void *data, size_t len); /* ctx: FILE*  */

/* A growable memory buffer usable as a sink context (mm_sink_buf). */
typedef struct mm_buf { unsigned char *p; size_t len, cap; } mm_buf;
int  mm_sink_buf(void *ctx, const void *data, size_t len);
void mm_buf_free(mm_buf *b);

/* The canonical text form (docs/stream-format.md): header, '# np=', one
 * record per event with fields and attributes in a fixed order. */
int  mm_stream_write_text(const mm_stream *s, mm_sink_fn sink, void *ctx);
/* Format one event as a canonical text line without the newline; returns
 * the length (snprintf semantics, a buffer of 224 bytes always suffices). */
int  mm_event_format_text(const mm_event *e, char *buf, size_t len);
int  mm_stream_write_binary(const mm_stream *s, mm_sink_fn sink, void *ctx);

/* ---- Binary layout constants (docs/stream-format.md) ---- */
#define MM_BIN_MAGIC        "MMSTRM"
#define MM_BIN_MAGIC_LEN    6
#define MM_BIN_VERSION      1   /* records without resolved attributes   */
#define MM_BIN_VERSION2     2   /* records with src/tag_resolved          */
#define MM_BIN_HEADER_SIZE  32
#define MM_BIN_RECORD_SIZE  48  /* version 1                              */
#define MM_BIN_RECORD_SIZE2 56  /* version 2: + src_resolved, tag_resolved */

/* ---- Summary (mpimatch-stream check, hint inference) ---- */

typedef struct mm_stream_summary {
    uint64_t count[5];          /* R, M, P, X, C                            */
    uint64_t comms;             /* distinct communicators                   */
    uint64_t recv_any_source;   /* R with ANY_SOURCE                        */
    uint64_t recv_any_tag;      /* R with ANY_TAG                           */
    uint64_t recv_any_both;     /* R with both                              */
    uint64_t probe_wild;        /* P/X with any wildcard                    */
    uint64_t negative_tags;     /* events with a concrete tag < 0           */
    uint64_t coll;              /* R/M collective elements                  */
    uint64_t first_any_source;  /* line of the first R/P/X with ANY_SOURCE, 0 if none */
    uint64_t first_any_tag;     /* line of the first R/P/X with ANY_TAG, 0 if none */
} mm_stream_summary;

/* Index of a type in mm_stream_summary.count, or -1. */
int  mm_event_type_index(int type);
/* Fill *sum; counting communicators allocates (MMS_ENOMEM possible). */
int  mm_stream_summarize(const mm_stream *s, mm_stream_summary *sum);
/* The hints (MM_HINT_*) that the stream satisfies: no R/P/X with
 * ANY_SOURCE, none with ANY_TAG. first_any_source / first_any_tag (may be
 * NULL) receive the line of the first event that violates each, or 0. */
uint32_t mm_stream_hints(const mm_stream *s, uint64_t *first_any_source, uint64_t *first_any_tag);

#endif /* MM_TOOLS_STREAM_H */
