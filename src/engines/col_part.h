/* col_part.h - queues for collective traffic on one side (paper 000,
 * section 4.1, Algorithms 1 and 2: the COL design).
 *
 *   pq                      the profiling queue, shared by all collectives
 *   allreduce: level 1  [q0 q1 ... q(nq1-1)]       element of rank r -> q[r mod nq]
 *              level 2  [q0 q1 ............ q(nq2-1)]   (nq2 > nq1)
 *   gather:    level 1  [q0 ... ]
 *   ...
 *
 * Profiling: the first call of each p = (operation, message size, communicator
 * size) puts its elements in pq and records the search depths (traversals)
 * its elements see on this side. The call is identified by its entries'
 * communicator and `call` number; the first event of p from another call
 * ends the profile (size, communicator size and call number are read from
 * the entry of the call in progress, mm_engine.coll_entry: elements do not
 * keep them). nq = ceil(average traversals) queues are "sufficient" (a search
 * then compares about one element). If nq exceeds the queues of the
 * operation's last level, a new level of nq queues is opened -- clamped to the
 * queues still allowed under the cap floor(kc * sqrt(n)) for the side (so a
 * long gather at the root gets exactly the cap: 32, 45, 64 queues at 1024,
 * 2048, 4096 processes with kc = 1, paper 000 section 5.2). New elements of
 * a profiled p go to the last level of their operation; with no level (cap
 * reached), to pq. Message size is taken by power-of-two class, since MPI
 * libraries choose collective algorithms by size ranges.
 *
 * Search (Algorithm 2): pq, then the operation's levels from the first to the
 * last. Levels are chronological (inserts go to the last level only), so the
 * first hit among an operation's levels is its earliest (empty levels are
 * skipped, drained ones before col_op.lo not even read); pq is merged by
 * sequence number. The paper searches only the searching element's own
 * operation; since an element's operation is an annotation that matching
 * ignores, we search every operation that holds elements whose tags can
 * match (a per-operation tag range, reset when it empties): with real
 * traffic, where operations use distinct tags, that is the own operation. */
#ifndef MM_ENGINES_COL_PART_H
#define MM_ENGINES_COL_PART_H

#include "engines/part.h"
#include "core/ktable.h"

typedef struct col_level {
    uint32_t nq;
    uint32_t count;  /* elements queued here: a search skips an empty level  */
    uint64_t magic;  /* part_mod_magic(nq): an element's queue, no division  */
    mm_queue q[];
} col_level;

struct col_prof;

typedef struct col_op {
    part_levels levels;         /* col_level *, oldest first                   */
    uint32_t    count;          /* elements queued in the levels               */
    uint32_t    lo;             /* levels before lo are empty (searches start here) */
    int32_t     tag_lo, tag_hi; /* tags they match (ANY_TAG: 0..INT32_MAX)     */
} col_op;

/* Profiles in use, direct-mapped by operation and size class: a call's
 * steps send pieces of several sizes (several p), so one entry per
 * operation would go back to the table at every step. */
enum { COL_PCACHE = 64 };
typedef struct col_pcache {
    mm_key           key;
    struct col_prof *prof; /* NULL: empty */
} col_pcache;

typedef struct col_side {
    part_ctx  *cx;
    uint64_t   cap;        /* floor(kc * sqrt(n))                              */
    uint64_t   allocated;  /* dedicated queues of all levels (T, Algorithm 1)  */
    mm_queue   pq;
    uint32_t   live;       /* operations with count > 0, one bit each          */
    col_op     op[MM_COLL_OP_COUNT];
    mm_ktable  prof;       /* p -> profile (aux)                               */
    col_pcache *pcache;    /* COL_PCACHE recently used profiles: no table lookup */
} col_side;

_Static_assert(MM_COLL_OP_COUNT <= 32, "one bit per collective operation in col_side.live");

int  col_init(col_side *S, part_ctx *cx, uint32_t kc);
void col_fini(col_side *S);
mm_elem *col_find(col_side *S, const mm_key *k, int recv_key, uint64_t bound, uint64_t *depth);
void col_add(col_side *S, mm_elem *x);
void col_remove(col_side *S, mm_elem *x);
/* Collective element x searched this side with `depth` compares (profiling). */
void col_searched(col_side *S, const mm_elem *x, uint64_t depth);

#endif
