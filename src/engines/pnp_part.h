/* pnp_part.h - partner/non-partner queues for one side (paper 000, section
 * 4.2; Ghazimirsaeed, Grant, Afsahi, ref. [4] there).
 *
 *   base queue            all elements until the first extraction
 *   level 0: NP0 + D(p)   for the partners extracted from the base queue
 *   level 1: NP1 + D(p)   for the partners extracted from NP0
 *   ...
 *   wild                  ANY_SOURCE receives (PRQ side only)
 *
 * Elements of a non-partner go to the newest shared queue (the base queue,
 * then NP of the last level). When that queue reaches theta elements, the
 * processes (source ranks, whatever the communicator) with more than the
 * average number of its elements -- the average over all n processes --
 * become partners: each gets a dedicated queue D(p), and a new level with a
 * new NP queue begins. A
 * ktable maps a partner to its dedicated queue (the entry's FIFO) and its
 * level of partnership L (the entry's aux). Dedicated queues are capped at
 * floor(kp * sqrt(n)) for the side; at the cap, extraction stops and every
 * non-partner keeps using the last shared queue.
 *
 * Search for rank s, the paper's order: the base queue, NP0 .. NP(L-1), D(s)
 * for a partner of level L; the base queue and every NP for a non-partner.
 * These queues hold s's elements in chronological order (each was s's only
 * destination for a stretch of time), so the first hit is the earliest.
 * The paper does not treat ANY_SOURCE: a wildcard receive waits in `wild`,
 * searched after s's queues and bounded by the first hit's sequence number;
 * an ANY_SOURCE receive searches every queue, each bounded by the best hit. */
#ifndef MM_ENGINES_PNP_PART_H
#define MM_ENGINES_PNP_PART_H

#include "engines/part.h"
#include "core/ktable.h"

typedef struct pnp_side {
    part_ctx   *cx;
    uint32_t    theta;
    uint32_t    wait;      /* shared inserts to wait for after a failed extraction */
    uint32_t    since;     /* shared inserts since the last extraction attempt     */
    int         capped;    /* no more dedicated queues: stop extracting            */
    uint64_t    cap;       /* floor(kp * sqrt(n))                                  */
    mm_queue    base;
    mm_queue    wild;      /* ANY_SOURCE receives                                  */
    part_levels levels;    /* pnp_level *: the NP queue of each level              */
    uint32_t    lo;        /* NP queues of the levels before lo are empty (drained) */
    mm_ktable   partners;  /* (0, src, 0) -> dedicated FIFO, aux = level           */
    mm_kentry **plist;     /* the partners, for ANY_SOURCE searches                */
    uint32_t    npartners, plist_cap;
} pnp_side;

/* 0 or MM_ENOMEM. prq: this is the posted-receive side (has a wild queue). */
int  pnp_init(pnp_side *S, part_ctx *cx, uint32_t theta, uint32_t kp, int prq);
void pnp_fini(pnp_side *S);
mm_elem *pnp_find(pnp_side *S, const mm_key *k, int recv_key, uint64_t bound, uint64_t *depth);
void pnp_add(pnp_side *S, mm_elem *x);
void pnp_remove(pnp_side *S, mm_elem *x);

#endif
