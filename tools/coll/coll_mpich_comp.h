/*
 * coll_mpich_comp.h - MPICH 4.0.2's node-aware ch4 compositions
 * (MM_ALG_MPICH_COMPOSITION, coll_mpich_comp.c): bcast, reduce, allreduce,
 * barrier and (node-consecutive) scan on a "parent" communicator (some
 * node holds two or more of its ranks) run phases on each node's
 * communicator and on the communicator of the node roots; so do MPIR's
 * sched_smp ibcast, ireduce and iscan there, every phase a point-to-point
 * schedule. Internal to tools/gen; coll_algo.c and coll_auto_mpich.c call
 * it. docs/collectives.md, "MPICH 4.0.2
 * compositions", says what MPICH does and cites the source.
 */
#ifndef MM_TOOLS_COLL_MPICH_COMP_H
#define MM_TOOLS_COLL_MPICH_COMP_H

#include "coll_emit.h"

/* MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD's default (posix_coll_release_gather.h):
 * the release_gather call that brings a POSIX communicator's counter to
 * this value and every later one go through shared memory; the ones
 * before run MPIR's point-to-point algorithms. */
#define MM_MPICH_NUM_COLLS_THRESHOLD 5

/* 1 if some node of node[0..n-1] holds two or more ranks (MPICH makes the
 * node and node-roots communicators: comm_hierarchy=parent). */
int mm_coll_mpich_parent(int32_t n, const int32_t *node);

/* MPICH's choice for a call on a parent communicator (q->node set): *c
 * and 1 when a composition with a node phase runs (c->alg is
 * MM_ALG_MPICH_COMPOSITION), or when ch4 runs the flat MPIR algorithm on
 * the communicator (c = flat with the composition's rule); 0 when the
 * operation has no ch4 composition and flat's rule stands. */
int mm_coll_mpich_comp_select(const mm_coll_query *q, mm_coll_choice flat, mm_coll_choice *c);

/* mm_coll_check's part for MM_ALG_MPICH_COMPOSITION. */
int mm_coll_mpich_comp_check(const mm_coll_model *m, const mm_coll_desc *d, char *err,
                             size_t errlen);
/* The vector's pieces: the union of the cuts of the phases whose MPIR
 * algorithm cuts it (Rabenseifner, ...); 0 when none does (one block). */
uint32_t mm_coll_mpich_comp_pieces(const mm_coll_model *m, const mm_coll_desc *d);
uint64_t mm_coll_mpich_comp_piece_bytes(const mm_coll_model *m, const mm_coll_desc *d,
                                        uint32_t b);

/* Emit the composition's transfers (e->d passes mm_coll_check). With
 * with_shm, the shared-memory phases are emitted too, as pseudo transfers
 * with tag_op MM_COLL_NONE (what release_gather delivers, for the
 * data-flow test); without, they emit nothing: no queue ever sees them. */
void mm_coll_mpich_comp_emit(mm_coll_emitter *e, int with_shm);
/* mm_coll_expand with the shared-memory pseudo transfers (tests: through
 * mm_coll_expand_shm, coll_algo.h). */
int mm_coll_mpich_comp_expand_shm(const mm_coll_model *m, const mm_coll_desc *d,
                                  mm_coll_emit_fn fn, void *ctx, char *err, size_t errlen);
/* mm_coll_mpich_shm_count (coll_algo.h). */
void mm_coll_mpich_comp_shm_count(const mm_coll_model *m, const mm_coll_desc *d,
                                  uint32_t shm_calls[2]);

#endif /* MM_TOOLS_COLL_MPICH_COMP_H */
