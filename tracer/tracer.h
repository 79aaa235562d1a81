/*
 * tracer.h - internals of libmpimatch-trace.so, the PMPI tracer
 * (docs/trace-format.md, "The tracer").
 *
 * The wrappers (wrap_*.c) call the PMPI function, time it with the
 * monotonic clock, and append one record to a per-rank buffer (core.c)
 * that is written to DIR/rank-NNNNNN.mmt in blocks. Requests, matched-probe
 * messages and communicators are found through one open-addressing table
 * keyed by the bits of their MPI handle (table.c); that works for Open MPI
 * (pointers) and MPICH (integers) alike.
 *
 * Locking: under MPI_THREAD_MULTIPLE every use of the buffer or the tables
 * is inside tr_lock()/tr_unlock(), never across a blocking MPI call; at
 * lower thread levels those are no-ops.
 */
#ifndef MM_TRACER_H
#define MM_TRACER_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "trace_format.h"

#define TR_HIDDEN __attribute__((visibility("hidden")))
#define TR_API __attribute__((visibility("default"))) /* the MPI_ wrappers */

/* A communicator the tracer saw created. Kept alive while requests on it
 * are pending (refs), so completions can translate their source. */
typedef struct tr_comm {
    uint64_t id;
    int32_t size, rsize; /* local and remote group sizes            */
    int inter;
    int32_t me;          /* this rank's rank in it                   */
    int32_t *world;      /* local then remote world ranks; NULL: identity */
    int refs;            /* the comm table's one, plus pending requests */
} tr_comm;

/* Handle-keyed table entry. */
typedef struct tr_entry {
    uint64_t key;        /* the handle's bits                        */
    uint64_t id;         /* request or message id (0: an inactive
                            persistent request)                      */
    tr_comm *comm;       /* its communicator (NULL: unknown)         */
    mmt_record *tmpl;    /* persistent request: the ISEND or IRECV
                            record each start emits (owned by the
                            entry); NULL for every other handle      */
    uint8_t  used, type; /* type: the record type that issued it     */
} tr_entry;

typedef struct tr_table {
    tr_entry *e;
    size_t cap, n;       /* cap a power of two, n <= cap / 2         */
} tr_table;

/* Enter or overwrite key's entry, with no template (an overwritten
 * entry's template is freed). */
int  tr_table_put(tr_table *t, uint64_t key, uint64_t id, tr_comm *comm, uint8_t type) TR_HIDDEN;
tr_entry *tr_table_get(const tr_table *t, uint64_t key) TR_HIDDEN;
/* Remove and return the entry (copied into *out, which then owns its
 * template); 0 if absent. */
int  tr_table_take(tr_table *t, uint64_t key, tr_entry *out) TR_HIDDEN;

/* The tracer's state (one per process). */
typedef struct tr_state {
    volatile int on;     /* between MPI_Init and MPI_Finalize, file open */
    int mt;              /* MPI_THREAD_MULTIPLE: take the lock          */
    int rank, size;
    int fd;
    unsigned char *buf;
    size_t used;         /* bytes in buf                                */
    uint64_t nrec;       /* records written or buffered                 */
    uint64_t next_id;    /* request and message ids                     */
    uint32_t next_seq;   /* communicator sequence numbers               */
    tr_table reqs, msgs, comms;
    tr_comm *world, *self;
    MPI_Group world_group;
    unsigned pvar_every, pvar_count;
    char dir[4096];
    pthread_mutex_t lock;
} tr_state;

extern tr_state tr TR_HIDDEN;

#define TR_BLOCK_RECORDS 819 /* 65,520 bytes per write */

static inline uint64_t tr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void tr_lock(void)
{
    if (tr.mt)
        pthread_mutex_lock(&tr.lock);
}
static inline void tr_unlock(void)
{
    if (tr.mt)
        pthread_mutex_unlock(&tr.lock);
}

/* The bits of a handle (pointer or integer) as a table key. */
#define TR_KEY(h) tr_key(&(h), sizeof(h))
static inline uint64_t tr_key(const void *h, size_t n)
{
    uint64_t k = 0;
    memcpy(&k, h, n < sizeof k ? n : sizeof k);
    return k;
}

/* Append a record (lock held). Flushes a full block. */
void tr_emit(const mmt_record *r) TR_HIDDEN;
/* Write what is buffered (lock held). */
void tr_flush(void) TR_HIDDEN;
/* A zeroed record of `type` with both times. */
static inline mmt_record tr_rec(int type, uint64_t t0, uint64_t t1)
{
    mmt_record r;
    memset(&r, 0, sizeof r);
    r.type = (uint8_t)type;
    r.t_start = t0;
    r.t_end = t1;
    return r;
}

/* Communicators (lock held for find). */
tr_comm *tr_comm_find(MPI_Comm c) TR_HIDDEN;
void tr_comm_unref(tr_comm *c) TR_HIDDEN;
/* Set comm, flags (NOCOMM, INTER) of r from c (NULL: unknown). */
void tr_set_comm(mmt_record *r, const tr_comm *c) TR_HIDDEN;
/* A rank as the trace writes it (specials normalized) and its world rank
 * in c (the remote group for an intercommunicator). */
int32_t tr_rank(int r) TR_HIDDEN;
int32_t tr_world(const tr_comm *c, int r) TR_HIDDEN;
int32_t tr_tag(int tag) TR_HIDDEN;
/* Size of the group that ranks in c name (remote for intercomms). */
int tr_peer_count(MPI_Comm comm, const tr_comm *c) TR_HIDDEN;
/* count elements of dt in bytes. */
uint64_t tr_bytes(int count, MPI_Datatype dt) TR_HIDDEN;
/* Fill src, src_world and rtag from a status; returns the bytes received. */
uint64_t tr_set_status(mmt_record *r, const tr_comm *c, const MPI_Status *st) TR_HIDDEN;

/* A communicator was created by `how` from parent (MPI_COMM_NULL: none):
 * agree on its id, record COMM and GROUP records, enter it in the table.
 * Called outside the lock, by every member. */
void tr_comm_created(MPI_Comm parent, MPI_Comm newc, int how, int color, uint64_t t0) TR_HIDDEN;

/* Register a nonblocking request (lock held). */
void tr_req_issued(MPI_Request req, uint64_t id, tr_comm *c, int type) TR_HIDDEN;
/* The request with key completed (lock held): its entry into *out and 1,
 * or 0 when the tracer did not issue it or it is an inactive persistent
 * request. An ordinary request leaves the table (the caller drops its
 * communicator reference); a persistent one stays, inactive, with its
 * reference, until MPI_Request_free. */
int  tr_req_done(uint64_t key, tr_entry *out) TR_HIDDEN;

/* The record of a send-like call and the receive-side record (source and
 * tag as named, capacity in bytes) of a receive or probe (wrap_p2p.c). */
mmt_record tr_send_record(int type, int mode, int dest, int tag, int count, MPI_Datatype dt,
                          const tr_comm *c, uint64_t t0, uint64_t t1) TR_HIDDEN;
mmt_record tr_recv_record(int type, int src, int tag, int count, MPI_Datatype dt,
                          const tr_comm *c, uint64_t t0, uint64_t t1) TR_HIDDEN;

/* Start and stop (MPI_Init*, MPI_Finalize). */
void tr_start(int provided) TR_HIDDEN;
void tr_stop(void) TR_HIDDEN;

/* MPI_T queue-length sampling (pvars.c). */
int  tr_pvar_init(int provided) TR_HIDDEN;   /* 1 if the pvars exist */
void tr_pvar_sample(void) TR_HIDDEN;          /* lock held */
void tr_pvar_fini(void) TR_HIDDEN;
/* Count a point-to-point call; sample every pvar_every (lock held). */
static inline void tr_p2p_tick(void)
{
    if (tr.pvar_every && ++tr.pvar_count >= tr.pvar_every) {
        tr.pvar_count = 0;
        tr_pvar_sample();
    }
}

#endif /* MM_TRACER_H */
