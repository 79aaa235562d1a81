/*
 * gen_coll.h - the collective workloads and the application profiles
 * (docs/collectives.md), for the generator registry (gen_registry.c).
 *
 * Collectives at one rank of an n-process job: gather, bcast, reduce,
 * allreduce, allgather, barrier, alltoall, scatter, reduce_scatter,
 * reduce_scatter_block, scan, exscan (gen_coll.c). Application
 * profiles of Ghazimirsaeed et al., ParCo 2019, Fig. 1, all synthetic: radix, nbody, miniamr, fds
 * (gen_apps.c).
 */
#ifndef MM_TOOLS_GEN_COLL_H
#define MM_TOOLS_GEN_COLL_H

#include "gen.h"

extern const mm_gen mm_gen_gather;
extern const mm_gen mm_gen_bcast;
extern const mm_gen mm_gen_reduce;
extern const mm_gen mm_gen_allreduce;
extern const mm_gen mm_gen_allgather;
extern const mm_gen mm_gen_barrier;
extern const mm_gen mm_gen_alltoall;
extern const mm_gen mm_gen_scatter;
extern const mm_gen mm_gen_reduce_scatter;
extern const mm_gen mm_gen_reduce_scatter_block;
extern const mm_gen mm_gen_scan;
extern const mm_gen mm_gen_exscan;

extern const mm_gen mm_gen_radix;
extern const mm_gen mm_gen_nbody;
extern const mm_gen mm_gen_miniamr;
extern const mm_gen mm_gen_fds;

#endif /* MM_TOOLS_GEN_COLL_H */
