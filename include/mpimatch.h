/*
 * mpimatch.h - MPI message matching engines behind one small API.
 *
 * The only public header of libmpimatch. An engine keeps a posted-receive
 * queue (PRQ) and an unexpected-message queue (UMQ) for one MPI process and
 * pairs arriving messages with posted receives under MPI's matching rules
 * (docs/semantics.md). Every engine, whatever its data structures, produces
 * exactly the same matches as the reference engine "list".
 *
 * Calls never print, never abort and never allocate per operation in steady
 * state. Every call returns a status: MM_QUEUED, MM_MATCHED or MM_NOTFOUND
 * (>= 0), or a negative MM_E* error, in which case the engine is unchanged
 * (queues and statistics; memory it obtained on the way may stay). Only
 * queueing allocates: a receive or message that finds a partner succeeds
 * even when memory is exhausted.
 *
 * An engine handle is not thread-safe unless it was created with
 * MM_CFG_THREAD_SAFE, which serialises every call with a per-engine lock, or
 * MM_CFG_CONCURRENT, which locks one shard of the keys per call.
 */
#ifndef MPIMATCH_H
#define MPIMATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MM_API __attribute__((visibility("default")))
#else
#define MM_API
#endif

/* The version of this header (CHANGELOG.md lists what each one changed).
 * CMake reads these three lines: they are the library's one version. While
 * the major version is 0, a new minor version may change the ABI: the shared
 * library's soname is libmpimatch.so.MAJOR.MINOR until 1.0, then .MAJOR. */
#define MPIMATCH_VERSION_MAJOR 0
#define MPIMATCH_VERSION_MINOR 3
#define MPIMATCH_VERSION_PATCH 0
#define MPIMATCH_VERSION (MPIMATCH_VERSION_MAJOR * 10000 + MPIMATCH_VERSION_MINOR * 100 + \
                          MPIMATCH_VERSION_PATCH)
#define MM_VERSION_STR_(x) #x
#define MM_VERSION_STR(x) MM_VERSION_STR_(x)
#define MPIMATCH_VERSION_STRING MM_VERSION_STR(MPIMATCH_VERSION_MAJOR) "." \
    MM_VERSION_STR(MPIMATCH_VERSION_MINOR) "." MM_VERSION_STR(MPIMATCH_VERSION_PATCH)

/* Wildcards. Sources are 0..nprocs-1; ANY_SOURCE is the only negative
 * source. Tags may be negative (MPI libraries use negative tags for internal
 * traffic); INT32_MIN is reserved for ANY_TAG. ANY_TAG matches tags >= 0. */
#define MM_ANY_SOURCE ((int32_t)-1)
#define MM_ANY_TAG    INT32_MIN

/* Status codes. */
enum {
    MM_QUEUED   = 0,  /* no partner: the element was queued                */
    MM_MATCHED  = 1,  /* a partner was found (and removed, except probe)   */
    MM_NOTFOUND = 2,  /* probe found nothing / cancel found nothing queued  */

    MM_EINVAL   = -1, /* bad argument (null pointer, source out of range)  */
    MM_ENOMEM   = -2, /* out of memory                                     */
    MM_EHINT    = -3, /* the operation violates an asserted hint, or the
                         engine requires hints the configuration lacks     */
    MM_ENOENGINE = -4, /* no engine by that name                            */
    MM_EPARAM   = -5, /* unknown parameter or value out of range           */
    MM_EHANDLE  = -6  /* the handle does not name a receive of this engine */
};

/* Hints (MPI 4.0 info assertions on a communicator, here per engine). */
enum {
    MM_HINT_NO_ANY_SOURCE = 1u << 0, /* mpi_assert_no_any_source */
    MM_HINT_NO_ANY_TAG    = 1u << 1  /* mpi_assert_no_any_tag    */
};

/* Configuration flags. */
enum {
    MM_CFG_THREAD_SAFE = 1u << 0, /* take a per-engine lock around every call */
    /* Concurrent callers without a global lock: the engine is split into
     * shards by (comm, source) - by (comm, source, tag) when ANY_TAG is
     * excluded - each behind its own lock. Without MM_HINT_NO_ANY_SOURCE an
     * ANY_SOURCE receive or probe locks the shards its communicator's
     * sources use (mm_concurrency_of says which design an engine gets).
     * The calls are linearizable (docs/semantics.md). */
    MM_CFG_CONCURRENT  = 1u << 1
};

/* Traffic kinds and collective operations (for per-collective engines). */
enum { MM_KIND_P2P = 0, MM_KIND_COLL = 1 };

enum mm_coll_op {
    MM_COLL_NONE = 0,
    MM_COLL_BARRIER, MM_COLL_BCAST, MM_COLL_REDUCE, MM_COLL_ALLREDUCE,
    MM_COLL_GATHER, MM_COLL_GATHERV, MM_COLL_SCATTER, MM_COLL_SCATTERV,
    MM_COLL_ALLGATHER, MM_COLL_ALLGATHERV, MM_COLL_ALLTOALL, MM_COLL_ALLTOALLV,
    MM_COLL_REDUCE_SCATTER, MM_COLL_SCAN, MM_COLL_EXSCAN,
    MM_COLL_IBARRIER, MM_COLL_IBCAST, MM_COLL_IREDUCE, MM_COLL_IALLREDUCE,
    MM_COLL_IGATHER, MM_COLL_IALLGATHER, MM_COLL_IALLTOALL,
    /* added later, so the values above keep their numbers */
    MM_COLL_ISCATTER, MM_COLL_ISCATTERV, MM_COLL_IREDUCE_SCATTER, MM_COLL_ISCAN,
    MM_COLL_IEXSCAN, MM_COLL_REDUCE_SCATTER_BLOCK, MM_COLL_IREDUCE_SCATTER_BLOCK,
    MM_COLL_OP_COUNT
};

/* The version of the library linked at run time, "MAJOR.MINOR.PATCH"; compare
 * it with MPIMATCH_VERSION_STRING, the header's, to detect a mismatch. */
MM_API const char *mm_version(void);

/* Name of a collective operation ("allreduce"), or NULL if out of range. */
MM_API const char *mm_coll_name(int op);
/* Operation for a name, or -1. */
MM_API int mm_coll_from_name(const char *name);

/* One receive or message as the caller describes it. */
typedef struct mm_entry {
    int32_t   comm;      /* communicator context id, >= 0                   */
    int32_t   src;       /* source rank, or MM_ANY_SOURCE (receives only)    */
    int32_t   tag;       /* tag, or MM_ANY_TAG (receives only)               */
    uint8_t   kind;      /* MM_KIND_P2P or MM_KIND_COLL                      */
    uint8_t   coll_op;   /* enum mm_coll_op when kind == MM_KIND_COLL        */
    uint16_t  reserved;  /* must be 0                                        */
    uint32_t  comm_size; /* communicator size of the collective (0: unknown) */
    uint32_t  call;      /* instance of the collective call                  */
    uint64_t  bytes;     /* message size                                     */
    uintptr_t cookie;    /* the caller's; returned to the partner on a match */
} mm_entry;

/* Identifies a queued receive for mm_cancel. Valid until the receive is
 * matched, cancelled or the engine destroyed; using it after a match is
 * safe (mm_cancel answers MM_NOTFOUND) as long as the engine lives. A
 * receive matched at post time gets the zero handle (also MM_NOTFOUND). */
typedef struct mm_handle {
    void    *elem;
    uint64_t seq;
} mm_handle;

/* Per-queue-side statistics. Depth counts every element compared, the
 * matched one included: a hit at the head has depth 1. */
typedef struct mm_qstats {
    uint64_t searches;   /* searches of this side                          */
    uint64_t hits;       /* searches that found a partner                  */
    uint64_t misses;     /* searches that did not                          */
    uint64_t traversed;  /* elements compared over all searches            */
    uint64_t max_depth;  /* largest single-search depth                    */
    uint64_t length;     /* elements queued now                            */
    uint64_t max_length; /* largest length seen                            */
    uint64_t queues;     /* queues (lists, bins, keyed FIFOs) allocated now */
    uint64_t max_queues; /* largest number of queues seen                  */
    uint64_t bytes;      /* this side's structures and queued elements now  */
    uint64_t peak_bytes; /* largest value of bytes                         */
    /* Added in 0.2 (hash-table engines; 0 for the others): hash-table slots
     * inspected in this side's tables, by searches and by insertions. A
     * healthy table inspects about 1-2 per operation whatever the depth
     * says; keys crowding one probe run show here. */
    uint64_t probes;     /* slots inspected over all operations            */
    uint64_t max_probes; /* most slots one operation inspected             */
} mm_qstats;

/* Work an adaptive engine does besides searching, in nanoseconds of a
 * monotonic clock (paper 000, Table 2 reports overhead / search time).
 * Engines without such work leave these at zero. */
typedef struct mm_overhead {
    uint64_t alloc_ns;    /* allocating queues, levels, tables             */
    uint64_t extract_ns;  /* choosing partners, clusters, switching design */
    uint64_t profile_ns;  /* profiling (counting elements per peer, etc.)  */
    uint64_t events;      /* how many timed pieces of overhead work        */
} mm_overhead;

typedef struct mm_stats {
    mm_qstats prq;       /* posted receives, searched by arrivals          */
    mm_qstats umq;       /* unexpected messages, searched by receives/probes */
    uint64_t  bytes;      /* bytes the engine holds now: both sides, shared
                             structures, and pooled elements not in use    */
    uint64_t  peak_bytes; /* largest value of bytes                         */
    uint64_t  cancels;    /* successful cancels                             */
    mm_overhead overhead; /* time outside the searches (adaptive engines)   */
} mm_stats;

typedef struct mm_config {
    int32_t             nprocs;  /* processes in the job (sources 0..nprocs-1), >= 1 */
    uint32_t            hints;   /* MM_HINT_* */
    uint32_t            flags;   /* MM_CFG_*  */
    const char *const  *params;  /* "key=value" strings, engine parameters  */
    size_t              nparams;
} mm_config;

typedef struct mm_engine mm_engine;

/* Create an engine by name. On failure *out is NULL and, when err is not
 * NULL, a one-line reason (listing valid names or parameters) is written to
 * err (at most errlen bytes, always terminated). */
MM_API int  mm_create(mm_engine **out, const char *name, const mm_config *cfg,
               char *err, size_t errlen);
MM_API void mm_destroy(mm_engine *e);

/* Post a receive. MM_MATCHED: *partner is the cookie of the earliest-arrived
 * matching message, which is removed. MM_QUEUED: the receive was queued and
 * *h identifies it (h may be NULL). */
MM_API int mm_post(mm_engine *e, const mm_entry *recv, mm_handle *h, uintptr_t *partner);

/* A message arrives (src and tag concrete). MM_MATCHED: *partner is the
 * cookie of the earliest-posted matching receive, which is removed.
 * MM_QUEUED: the message joined the unexpected queue. */
MM_API int mm_arrive(mm_engine *e, const mm_entry *msg, uintptr_t *partner);

/* Probe: MM_MATCHED with *found = cookie of the earliest-arrived matching
 * unexpected message, left queued; or MM_NOTFOUND. */
MM_API int mm_probe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found);

/* Matched probe (MPI_Mprobe): as mm_probe, and the message is removed. */
MM_API int mm_mprobe(mm_engine *e, int32_t comm, int32_t src, int32_t tag, uintptr_t *found);

/* Cancel a queued receive, in constant time: MM_MATCHED (cancelled),
 * MM_NOTFOUND (it was already matched or cancelled, or h is the zero handle
 * of a receive matched at post time) or MM_EHANDLE (h names no receive of
 * this engine; h's memory is not read to decide it). */
MM_API int mm_cancel(mm_engine *e, mm_handle h);

MM_API int  mm_get_stats(mm_engine *e, mm_stats *out);
/* Zero the counters; lengths, queue counts and bytes keep their values
 * (their maxima restart from the current values). */
MM_API void mm_reset_stats(mm_engine *e);

/* ---- Looking into the queues (debuggers, snapshots of a running or hung
 * job). Added in 0.2. ---- */
enum { MM_SIDE_PRQ = 0, MM_SIDE_UMQ = 1 };

/* One queued receive (MM_SIDE_PRQ) or unexpected message (MM_SIDE_UMQ). */
typedef struct mm_queued {
    mm_entry entry;  /* as the caller posted it or as it arrived: comm, src
                        (MM_ANY_SOURCE possible for receives), tag (MM_ANY_TAG
                        possible), kind, coll_op, cookie; reserved is 0.
                        comm_size, call and bytes are 0 (since 0.3): not kept
                        by the engine, the caller's record, named by the
                        cookie, has them */
    uint64_t seq;    /* the engine's order of calls: smaller is earlier     */
    uint32_t shard;  /* MM_CFG_CONCURRENT: the shard holding it, else 0     */
    uint32_t reserved;
} mm_queued;

/* Return nonzero to stop the walk. */
typedef int (*mm_walk_fn)(const mm_queued *q, void *arg);

/* Call fn once for every element queued on one side of e, in the order
 * matching considers them: receives in post order, messages in arrival order
 * (ascending seq). Every engine gives the same walk for the same calls
 * (under MM_CFG_CONCURRENT: with ANY_SOURCE allowed, in one order over all
 * shards, each pending ANY_SOURCE receive once; with the no_any_source hint,
 * shard by shard, each in that order, as elements of different shards can
 * never compete for one partner). The elements are
 * copied under the engine's lock first and fn runs without it, so fn may call
 * into the engine (what it changes is not seen by this walk). Nothing in the
 * engine changes: queues, order and statistics stay as they are. Unlike the
 * matching calls this one allocates (one array of the side's length, freed
 * before it returns). 0; MM_EINVAL (e or fn NULL, side not MM_SIDE_*), or
 * MM_ENOMEM (fn not called). */
MM_API int mm_walk(mm_engine *e, int side, mm_walk_fn fn, void *arg);

MM_API const char *mm_engine_name(const mm_engine *e);
/* The value e runs with for integer parameter i of its mm_engine_info
 * (the caller's "key=value", or the default): 0, or MM_EINVAL (no engine,
 * i out of range, or a file parameter). */
MM_API int mm_get_param(const mm_engine *e, size_t i, int64_t *value);
MM_API const char *mm_strerror(int status);

/* ---- Registry: which engines exist and what they take. ---- */
enum { MM_PARAM_INT = 0, MM_PARAM_FILE = 1 };

typedef struct mm_param_info {
    const char *name;
    const char *doc;
    int64_t     def;      /* default value (MM_PARAM_INT)                 */
    int64_t     min, max; /* allowed range, inclusive (MM_PARAM_INT)       */
    int         type;     /* MM_PARAM_INT, or MM_PARAM_FILE: a path, given
                             as key=path, read by the engine at creation;
                             no default (the engine says when it is needed) */
} mm_param_info;

typedef struct mm_engine_info {
    const char          *name;
    const char          *summary;    /* one line: the design              */
    const char          *origin;     /* where the design comes from       */
    uint32_t             hints_required; /* MM_HINT_* the engine needs     */
    const mm_param_info *params;     /* nparams entries                    */
    size_t               nparams;
} mm_engine_info;

MM_API size_t                mm_engine_count(void);
MM_API const mm_engine_info *mm_engine_at(size_t i);          /* NULL past the end */
MM_API const mm_engine_info *mm_engine_find(const char *name); /* NULL if unknown   */

/* As mm_create, for an engine already looked up (info from mm_engine_at or
 * mm_engine_find): a caller that creates the same engine many times resolves
 * its name once. info not of the registry: as an unknown name. */
MM_API int  mm_create_from(mm_engine **out, const mm_engine_info *info, const mm_config *cfg,
                    char *err, size_t errlen);

/* ---- MM_CFG_CONCURRENT: how an engine runs under concurrent callers ---- */
enum {
    MM_SHARD_BY_SOURCE = 1, /* shards by (comm, source)                        */
    MM_SHARD_BY_TAG    = 2  /* shards by (comm, source, tag): no ANY_TAG       */
};
enum {
    MM_WILD_NONE   = 0, /* ANY_SOURCE excluded by the hint: no call spans shards */
    MM_WILD_SHARDS = 1  /* an ANY_SOURCE receive or probe locks the shards of its
                           communicator's sources, in order; other calls one   */
};
typedef struct mm_concurrency {
    uint32_t shards;    /* locks the keys are spread over; 1 would serialise  */
    uint32_t key;       /* MM_SHARD_BY_*                                      */
    uint32_t wildcards; /* MM_WILD_*                                          */
} mm_concurrency;

/* What MM_CFG_CONCURRENT makes of engine info under hints (MM_HINT_*):
 * 0, MM_EHINT (the engine cannot be created with these hints) or MM_EINVAL
 * (info not of the registry, unknown hint bits, out NULL). The answer is the
 * one mm_create uses, not a description of it. */
MM_API int mm_concurrency_of(const mm_engine_info *info, uint32_t hints, mm_concurrency *out);

#ifdef __cplusplus
}
#endif
#endif /* MPIMATCH_H */
