/* registry.c - the built-in engines, by name. An engine that is not
 * implemented is not listed. */
#include <string.h>
#include "engine.h"

static const mm_engine_def *const engines[] = {
    &mm_engine_list,
    &mm_engine_rank,
    &mm_engine_bins,
    &mm_engine_hash,
    &mm_engine_nm,
    &mm_engine_kmeans,
    &mm_engine_adaptive,
    &mm_engine_simd,
    &mm_engine_auto,
    &mm_engine_pnp,
    &mm_engine_col_pnp,
    &mm_engine_col_ll,
    &mm_engine_ll_pnp,
};

#define NENGINES (sizeof engines / sizeof engines[0])

const char *mm_version(void)
{
    return MPIMATCH_VERSION_STRING;
}

size_t mm_engine_count(void)
{
    return NENGINES;
}

const mm_engine_info *mm_engine_at(size_t i)
{
    return i < NENGINES ? &engines[i]->info : NULL;
}

const mm_engine_def *mm_engine_def_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NENGINES; i++)
        if (strcmp(engines[i]->info.name, name) == 0)
            return engines[i];
    return NULL;
}

const mm_engine_def *mm_engine_def_of(const mm_engine_info *info)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (&engines[i]->info == info)
            return engines[i];
    return NULL;
}

const mm_engine_info *mm_engine_find(const char *name)
{
    const mm_engine_def *d = mm_engine_def_find(name);
    return d ? &d->info : NULL;
}

static const char *const coll_names[MM_COLL_OP_COUNT] = {
    [MM_COLL_NONE] = "none",
    [MM_COLL_BARRIER] = "barrier", [MM_COLL_BCAST] = "bcast",
    [MM_COLL_REDUCE] = "reduce", [MM_COLL_ALLREDUCE] = "allreduce",
    [MM_COLL_GATHER] = "gather", [MM_COLL_GATHERV] = "gatherv",
    [MM_COLL_SCATTER] = "scatter", [MM_COLL_SCATTERV] = "scatterv",
    [MM_COLL_ALLGATHER] = "allgather", [MM_COLL_ALLGATHERV] = "allgatherv",
    [MM_COLL_ALLTOALL] = "alltoall", [MM_COLL_ALLTOALLV] = "alltoallv",
    [MM_COLL_REDUCE_SCATTER] = "reduce_scatter", [MM_COLL_SCAN] = "scan",
    [MM_COLL_EXSCAN] = "exscan", [MM_COLL_IBARRIER] = "ibarrier",
    [MM_COLL_IBCAST] = "ibcast", [MM_COLL_IREDUCE] = "ireduce",
    [MM_COLL_IALLREDUCE] = "iallreduce", [MM_COLL_IGATHER] = "igather",
    [MM_COLL_IALLGATHER] = "iallgather", [MM_COLL_IALLTOALL] = "ialltoall",
    [MM_COLL_ISCATTER] = "iscatter", [MM_COLL_ISCATTERV] = "iscatterv",
    [MM_COLL_IREDUCE_SCATTER] = "ireduce_scatter", [MM_COLL_ISCAN] = "iscan",
    [MM_COLL_IEXSCAN] = "iexscan", [MM_COLL_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
    [MM_COLL_IREDUCE_SCATTER_BLOCK] = "ireduce_scatter_block",
};

const char *mm_coll_name(int op)
{
    return op >= 0 && op < MM_COLL_OP_COUNT ? coll_names[op] : NULL;
}

int mm_coll_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int i = 1; i < MM_COLL_OP_COUNT; i++)
        if (strcmp(coll_names[i], name) == 0)
            return i;
    return -1;
}
