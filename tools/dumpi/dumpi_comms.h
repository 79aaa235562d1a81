/*
 * dumpi_comms.h - communicators of a DUMPI run, reconstructed across ranks.
 *
 * DUMPI names a communicator by a per-process handle and records neither
 * its group nor an id shared by its members. Our trace format needs both
 * (docs/trace-format.md, "Communicator ids"). Communicator creation is
 * collective, so the k-th creation call on communicator C is the same call
 * in every member's file: matching them rank by rank gives each new
 * communicator's members (MPI_Comm_dup: the parent's group; MPI_Comm_split:
 * the ranks with the same colour, ordered by key then parent rank;
 * MPI_Cart_create / MPI_Graph_create: the first prod(dims) / nnodes ranks,
 * reordering not modelled). Other creations (MPI_Comm_create from a group,
 * MPI_Cart_sub, intercommunicators) give an unknown communicator: records
 * on it carry the NOCOMM flag.
 */
#ifndef MM_DUMPI_COMMS_H
#define MM_DUMPI_COMMS_H

#include <stddef.h>
#include <stdint.h>

/* One creation call as one rank recorded it. */
typedef struct dc_event {
    uint16_t label;     /* DL_COMM_DUP, DL_COMM_SPLIT, ...               */
    int32_t parent;     /* handle of the parent communicator            */
    int32_t child;      /* handle of the new one (DUMPI_COMM_NULL: none) */
    int64_t color, key; /* MPI_Comm_split                               */
    int64_t nprod;      /* Cart/Graph_create: ranks kept; -1 otherwise  */
    uint64_t offset;    /* of the record, for messages                  */
} dc_event;

/* A reconstructed communicator. */
typedef struct dc_comm {
    uint64_t id;        /* trace id: lowest world rank << 32 | sequence */
    uint64_t parent;    /* parent's id; MMT_NO_PARENT for world/self    */
    int how;            /* enum mmt_comm_how                            */
    int32_t size;
    int32_t *world;     /* world ranks by comm rank; NULL: the world    */
    int32_t color;      /* split colour, else -1                        */
} dc_comm;

typedef struct dc_rank {
    dc_event *ev;
    size_t nev, cap;
    int32_t *result;    /* per event: index into comms, -1 none/unknown */
} dc_rank;

typedef struct dc_set {
    int32_t nranks;
    dc_rank *ranks;     /* nranks                                       */
    dc_comm *comms;     /* [0] world, [1 + r] self of rank r, then new  */
    size_t ncomms, cap;
    size_t unmatched;   /* creation calls left unknown because the ranks'
                           files did not agree                          */
} dc_set;

int dc_init(dc_set *s, int32_t nranks);
/* Append one rank's creation call (pass 1, in file order). 0 or -1 (memory). */
int dc_add(dc_set *s, int32_t rank, const dc_event *e);
/* Match the calls across ranks and build the communicators. 0 or -1. */
int dc_resolve(dc_set *s);
/* World rank of rank r of comm c, or -1. */
int32_t dc_world(const dc_comm *c, int32_t r);
/* Rank of world rank w in comm c, or -1. */
int32_t dc_rank_of(const dc_comm *c, int32_t w);
void dc_free(dc_set *s);

#endif /* MM_DUMPI_COMMS_H */
