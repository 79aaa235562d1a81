/*
 * gen_stencil.h - the thread decompositions of Schonbein et al., Euro-Par 2018 (section 3): which
 * receiving and sending thread handles each message of one BSP phase.
 * Exposed for the unit tests that check the counts against equations 1-8.
 */
#ifndef MM_TOOLS_GEN_STENCIL_H
#define MM_TOOLS_GEN_STENCIL_H

#include <stddef.h>
#include <stdint.h>

/* How messages are given to threads:
 *   strided    message (tag) i goes to receiving thread i mod T_r and
 *              sending thread i mod T_s: the paper's benchmark (section 4.1,
 *              "tags are strided across sending and receiving threads");
 *   geometric  each boundary subdomain (thread) receives one message from
 *              every stencil neighbour outside the process's domain, sent
 *              by the thread that owns that neighbour: the model the
 *              equations count (section 3). */
enum { MM_STENCIL_STRIDED = 0, MM_STENCIL_GEOMETRIC = 1 };

typedef struct mm_stencil {
    uint32_t  nmsg;  /* M_t: messages per phase; message i has tag i */
    uint32_t  nrecv; /* T_r: receiving threads                       */
    uint32_t  nsend; /* T_s: sending threads                         */
    uint32_t *rt;    /* nmsg: receiving thread of each message       */
    uint32_t *st;    /* nmsg: sending thread of each message         */
} mm_stencil;

/* The largest M_t a plan may have (so counts fit in 32 bits with room). */
#define MM_STENCIL_MAX_MSGS ((uint64_t)1 << 28)

/* Count M_t, T_r, T_s of a decomposition without building the plan:
 * lx x ly thread subdomains (dims 2, lz must be 1; points 5 or 9) or
 * lx x ly x lz (dims 3; points 7 or 27). Only communication across the
 * process's boundary counts. Returns 0, or -1 for a bad combination. */
int  mm_stencil_count(int dims, int points, uint32_t lx, uint32_t ly, uint32_t lz,
                      uint64_t *nmsg, uint32_t *nrecv, uint32_t *nsend);
/* Build the plan (rt, st filled); returns 0, -1 for bad arguments or too
 * many messages, -2 when out of memory. */
int  mm_stencil_plan(mm_stencil *p, int dims, int points, uint32_t lx, uint32_t ly,
                     uint32_t lz, int assign);
/* The naive decomposition: `threads` threads each receive `per_thread`
 * messages (and the proxy sender uses as many threads), strided. */
int  mm_stencil_naive(mm_stencil *p, uint32_t threads, uint32_t per_thread);
void mm_stencil_free(mm_stencil *p);
/* The plan of a parsed stencil workload spec (stencil_naive, stencil2d,
 * stencil3d, stencil_linear), as its generator builds it; 0, or -1 with a
 * reason in err (not a stencil workload, too large, out of memory). */
struct mm_gen_spec;
int  mm_stencil_of_spec(mm_stencil *p, const struct mm_gen_spec *sp, char *err, size_t errlen);

#endif /* MM_TOOLS_GEN_STENCIL_H */
