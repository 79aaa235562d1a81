/*
 * gen_stencil_geom.c - enumerating the messages of one BSP phase of a
 * stencil halo exchange decomposed over threads (Schonbein et al., Euro-Par 2018, section 3).
 *
 * The process's domain is a grid of lx x ly (x lz) thread subdomains. A
 * message crosses the process boundary for every pair (inner subdomain c,
 * outer subdomain c+o) where o is a stencil offset and c+o lies outside the
 * grid: c's thread receives it, the neighbour process's thread owning c+o
 * sends it. Counting those pairs, the inner subdomains with at least one
 * and the outer subdomains with at least one gives M_t, T_r and T_s; the
 * unit tests check them against the paper's equations 1-8.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_stencil.h"

typedef struct geom {
    int64_t  lx, ly, lz;
    size_t   cells; /* of the grid grown by one layer where neighbours are */
    int      dims, noff;
    int      off[26][3];
} geom;

static int geom_init(geom *g, int dims, int points, uint32_t lx, uint32_t ly, uint32_t lz)
{
    memset(g, 0, sizeof *g);
    if (lx < 1 || ly < 1 || lz < 1 || !((dims == 2 && (points == 5 || points == 9) && lz == 1) ||
                                         (dims == 3 && (points == 7 || points == 27))))
        return -1;
    g->dims = dims;
    g->lx = lx, g->ly = ly, g->lz = lz;
    g->cells = (size_t)(g->lx + 2) * (size_t)(g->ly + 2) * (dims == 3 ? (size_t)g->lz + 2 : 1);
    int zr = dims == 3 ? 1 : 0;
    /* Offsets in a fixed order (dz, dy, dx lexicographic): the order in
     * which one subdomain's messages get their tags. */
    for (int dz = -zr; dz <= zr; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int manhattan = abs(dx) + abs(dy) + abs(dz);
                if (manhattan == 0 || (points <= 7 && manhattan != 1))
                    continue; /* 5 and 7 points: faces only; 9 and 27: all */
                g->off[g->noff][0] = dx;
                g->off[g->noff][1] = dy;
                g->off[g->noff][2] = dz;
                g->noff++;
            }
    return 0;
}

/* Walk the boundary subdomains in index order (x fastest). map has one slot
 * per cell of the grid grown by one layer on every side that has
 * neighbours (0 = not yet a sender, else sender id + 1). rt/st may be NULL
 * (counting only). */
static void walk(const geom *g, uint32_t *map, uint32_t *rt, uint32_t *st, uint64_t *nmsg,
                 uint32_t *nrecv, uint32_t *nsend)
{
    int64_t zr = g->dims == 3 ? 1 : 0;
    int64_t bx = g->lx + 2, by = g->ly + 2;
    uint64_t m = 0;
    uint32_t r = 0, s = 0;
    for (int64_t z = 0; z < g->lz; z++)
        for (int64_t y = 0; y < g->ly; y++) {
            /* In a row inside the grid in y and z, only the two ends can
             * touch the boundary: skip the interior of the row. */
            int inner_row = y > 0 && y < g->ly - 1 && (zr == 0 || (z > 0 && z < g->lz - 1));
            for (int64_t x = 0; x < g->lx; x = (inner_row && x == 0 && g->lx > 2) ? g->lx - 1 : x + 1) {
                int any = 0;
                for (int k = 0; k < g->noff; k++) {
                    int64_t nx = x + g->off[k][0], ny = y + g->off[k][1], nz = z + g->off[k][2];
                    if (nx >= 0 && nx < g->lx && ny >= 0 && ny < g->ly && nz >= 0 && nz < g->lz)
                        continue; /* a neighbour in this process: shared memory, no message */
                    size_t cell = (size_t)((nz + zr) * by * bx + (ny + 1) * bx + (nx + 1));
                    if (!map[cell])
                        map[cell] = ++s;
                    if (rt) {
                        rt[m] = r;
                        st[m] = map[cell] - 1;
                    }
                    m++;
                    any = 1;
                }
                r += (uint32_t)any;
            }
        }
    *nmsg = m;
    *nrecv = r;
    *nsend = s;
}

static uint32_t *geom_map(const geom *g)
{
    return calloc(g->cells, sizeof(uint32_t));
}

int mm_stencil_count(int dims, int points, uint32_t lx, uint32_t ly, uint32_t lz,
                     uint64_t *nmsg, uint32_t *nrecv, uint32_t *nsend)
{
    geom g;
    if (geom_init(&g, dims, points, lx, ly, lz))
        return -1;
    uint32_t *map = geom_map(&g);
    if (!map)
        return -2;
    walk(&g, map, NULL, NULL, nmsg, nrecv, nsend);
    free(map);
    return 0;
}

void mm_stencil_free(mm_stencil *p)
{
    free(p->rt);
    free(p->st);
    memset(p, 0, sizeof *p);
}

static int plan_alloc(mm_stencil *p, uint64_t nmsg)
{
    memset(p, 0, sizeof *p);
    if (nmsg > MM_STENCIL_MAX_MSGS)
        return -1;
    p->nmsg = (uint32_t)nmsg;
    p->rt = malloc((nmsg + 1) * sizeof *p->rt);
    p->st = malloc((nmsg + 1) * sizeof *p->st);
    if (!p->rt || !p->st) {
        mm_stencil_free(p);
        return -2;
    }
    return 0;
}

/* Tag i to receiving thread i mod T_r and sending thread i mod T_s. */
static void stride(mm_stencil *p)
{
    for (uint32_t i = 0; i < p->nmsg; i++) {
        p->rt[i] = i % p->nrecv;
        p->st[i] = i % p->nsend;
    }
}

int mm_stencil_plan(mm_stencil *p, int dims, int points, uint32_t lx, uint32_t ly,
                    uint32_t lz, int assign)
{
    geom g;
    uint64_t nmsg;
    uint32_t nrecv, nsend;
    memset(p, 0, sizeof *p);
    if (geom_init(&g, dims, points, lx, ly, lz))
        return -1;
    uint32_t *map = geom_map(&g);
    if (!map)
        return -2;
    walk(&g, map, NULL, NULL, &nmsg, &nrecv, &nsend);
    int rc = plan_alloc(p, nmsg);
    if (rc == 0) {
        memset(map, 0, g.cells * sizeof *map);
        walk(&g, map, p->rt, p->st, &nmsg, &p->nrecv, &p->nsend);
        if (assign == MM_STENCIL_STRIDED)
            stride(p);
    }
    free(map);
    return rc;
}

int mm_stencil_naive(mm_stencil *p, uint32_t threads, uint32_t per_thread)
{
    if (threads < 1 || per_thread < 1)
        return -1;
    int rc = plan_alloc(p, (uint64_t)threads * per_thread);
    if (rc)
        return rc;
    p->nrecv = p->nsend = threads;
    stride(p);
    return 0;
}
