/*
 * gen_registry.c - the table of workload generators. A new generator: a
 * `const mm_gen mm_gen_NAME` in its own file under tools/gen/ (picked up
 * by the build), an extern line and an entry below.
 */
#include "gen.h"
#include "gen_coll.h"

extern const mm_gen mm_gen_burst, mm_gen_tags, mm_gen_shuffle, mm_gen_any;
extern const mm_gen mm_gen_pingpong;
extern const mm_gen mm_gen_reverse, mm_gen_reverse_groups;
extern const mm_gen mm_gen_stencil_naive, mm_gen_stencil2d, mm_gen_stencil3d;
extern const mm_gen mm_gen_stencil_linear;
extern const mm_gen mm_gen_random_keys;
extern const mm_gen mm_gen_collide;

static const mm_gen *const generators[] = {
    /* point-to-point microbenchmarks (papers 001, 002, 003) */
    &mm_gen_burst,
    &mm_gen_tags,
    &mm_gen_shuffle,
    &mm_gen_any,
    &mm_gen_pingpong,
    &mm_gen_reverse,
    &mm_gen_reverse_groups,
    &mm_gen_stencil_naive,
    &mm_gen_stencil2d,
    &mm_gen_stencil3d,
    &mm_gen_stencil_linear,
    &mm_gen_random_keys,
    &mm_gen_collide,
    /* collectives at one rank, expanded into point-to-point (docs/collectives.md) */
    &mm_gen_gather,
    &mm_gen_bcast,
    &mm_gen_reduce,
    &mm_gen_allreduce,
    &mm_gen_allgather,
    &mm_gen_barrier,
    &mm_gen_alltoall,
    &mm_gen_scatter,
    &mm_gen_reduce_scatter,
    &mm_gen_reduce_scatter_block,
    &mm_gen_scan,
    &mm_gen_exscan,
    /* synthetic application profiles (Ghazimirsaeed et al., ParCo 2019, figure 1) */
    &mm_gen_radix,
    &mm_gen_nbody,
    &mm_gen_miniamr,
    &mm_gen_fds,
};

size_t mm_gen_count(void)
{
    return sizeof generators / sizeof generators[0];
}

const mm_gen *mm_gen_at(size_t i)
{
    return i < mm_gen_count() ? generators[i] : NULL;
}
