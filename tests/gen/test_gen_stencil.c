/*
 * test_gen_stencil.c - the stencil decompositions of paper 003: message and
 * thread counts from enumerating the geometry equal the paper's equations
 * 2-4 and 6-8 and the numbers quoted in its section 4.2; the generated
 * streams post and match every message once per phase in the order the
 * scheduler gives.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_stencil.h"
#include "gen_check.h"
#include "tcheck.h"

typedef struct counts {
    uint64_t m;
    uint32_t tr, ts;
} counts;

static counts count(int dims, int points, uint32_t lx, uint32_t ly, uint32_t lz)
{
    counts c = { 0, 0, 0 };
    CHECK(mm_stencil_count(dims, points, lx, ly, lz, &c.m, &c.tr, &c.ts) == 0);
    return c;
}

/* Equations 2-4 (9-point) and 6-8 (27-point) for every size 2..7, and the
 * 5-point and 7-point analogues (faces only, omitted in the paper). */
static void test_equations(void)
{
    for (int64_t x = 2; x <= 7; x++)
        for (int64_t y = 2; y <= 7; y++) {
            counts c = count(2, 9, (uint32_t)x, (uint32_t)y, 1);
            CHECK_MSG(c.m == (uint64_t)(6 * x + 6 * y - 4), "eq. 2 at %lldx%lld", (long long)x, (long long)y);
            CHECK_MSG(c.tr == 2 * x + 2 * y - 4, "eq. 3 at %lldx%lld", (long long)x, (long long)y);
            CHECK_MSG(c.ts == 2 * x + 2 * y + 4, "eq. 4 at %lldx%lld", (long long)x, (long long)y);
            c = count(2, 5, (uint32_t)x, (uint32_t)y, 1);
            CHECK(c.m == (uint64_t)(2 * x + 2 * y) && c.tr == 2 * x + 2 * y - 4 &&
                  c.ts == 2 * x + 2 * y);
            for (int64_t z = 2; z <= 7; z++) {
                int64_t pairs = x * y + x * z + y * z, sum = x + y + z;
                c = count(3, 27, (uint32_t)x, (uint32_t)y, (uint32_t)z);
                CHECK_MSG(c.m == (uint64_t)(2 * 9 * pairs - 4 * 3 * sum + 8), "eq. 6 at %lldx%lldx%lld",
                          (long long)x, (long long)y, (long long)z);
                CHECK_MSG(c.tr == 2 * pairs - 4 * sum + 8, "eq. 7");
                CHECK_MSG(c.ts == 2 * pairs + 4 * sum + 8, "eq. 8");
                c = count(3, 7, (uint32_t)x, (uint32_t)y, (uint32_t)z);
                CHECK(c.m == (uint64_t)(2 * pairs) && c.tr == 2 * pairs - 4 * sum + 8 &&
                      c.ts == 2 * pairs);
            }
        }
}

/* The numbers the paper quotes in section 4.2 and figures 2-4. */
static void test_paper_numbers(void)
{
    counts c = count(2, 5, 32, 32, 1);
    CHECK(c.tr == 124 && c.m == 128); /* "124 receiving threads and 128 total messages" */
    c = count(3, 7, 8, 8, 4);
    CHECK(c.tr == 184 && c.m == 256); /* 8x8x4: T_r = 184, 7-point M_t = 256 */
    c = count(3, 27, 8, 8, 4);
    CHECK(c.m == 2072 && c.ts == 344); /* 27-point M_t = 2072, "T_s = 344" */
    c = count(3, 7, 4, 4, 4);
    CHECK(c.tr == 56 && c.m == 96); /* 4x4x4: 56 threads, 7-point M_t = 96 */
    c = count(3, 27, 4, 4, 4);
    CHECK(c.m == 728);
    c = count(3, 7, 1, 1, 256);
    CHECK(c.tr == 256); /* 1x1x256: T_r = 256 */
    c = count(3, 7, 1, 1, 128);
    CHECK(c.ts == 514); /* figure 4: 7-point senders at z = 128 */
    c = count(3, 27, 1, 1, 32);
    CHECK(c.ts == 274); /* figure 4: 27-point senders at z = 32 */
    /* Equation 6 also holds at L = 1 (linear z): 24 lz + 2. Equation 7
     * does not (the paper's L >= 2 caveat): every thread receives. */
    c = count(3, 27, 1, 1, 256);
    CHECK(c.m == 24 * 256 + 2 && c.tr == 256 && c.ts == 8 * 256 + 18);
    c = count(3, 7, 1, 1, 256);
    CHECK(c.m == 4 * 256 + 2);
    /* Bad combinations. */
    uint64_t m;
    uint32_t tr, ts;
    CHECK(mm_stencil_count(2, 7, 4, 4, 1, &m, &tr, &ts) == -1);
    CHECK(mm_stencil_count(2, 9, 4, 4, 2, &m, &tr, &ts) == -1);
    CHECK(mm_stencil_count(3, 9, 4, 4, 4, &m, &tr, &ts) == -1);
    CHECK(mm_stencil_count(3, 27, 0, 4, 4, &m, &tr, &ts) == -1);
}

/* Per-thread counts: a strided plan spreads tags evenly; a geometric one
 * gives each boundary subdomain one message per outside neighbour. */
static void test_plans(void)
{
    mm_stencil p;
    CHECK(mm_stencil_plan(&p, 2, 9, 4, 4, 1, MM_STENCIL_GEOMETRIC) == 0);
    CHECK(p.nmsg == 44 && p.nrecv == 12 && p.nsend == 20);
    uint32_t rc[12] = { 0 }, sc[20] = { 0 }, hist[6] = { 0 };
    for (uint32_t i = 0; i < p.nmsg; i++) {
        rc[p.rt[i]]++;
        sc[p.st[i]]++;
    }
    for (int t = 0; t < 12; t++)
        hist[rc[t] < 6 ? rc[t] : 0]++;
    CHECK(hist[5] == 4 && hist[3] == 8); /* corners receive 5, edges 3 */
    memset(hist, 0, sizeof hist);
    for (int t = 0; t < 20; t++)
        hist[sc[t] < 6 ? sc[t] : 0]++;
    CHECK(hist[1] == 4 && hist[2] == 8 && hist[3] == 8); /* outer corners 1, ends 2, middles 3 */
    /* Thread 0 is the corner (0,0): its messages are the first tags. */
    CHECK(p.rt[0] == 0 && p.rt[4] == 0 && p.rt[5] == 1);
    mm_stencil_free(&p);

    CHECK(mm_stencil_plan(&p, 3, 27, 8, 8, 4, MM_STENCIL_STRIDED) == 0);
    CHECK(p.nmsg == 2072 && p.nrecv == 184 && p.nsend == 344);
    int ok = 1;
    for (uint32_t i = 0; i < p.nmsg; i++)
        ok &= p.rt[i] == i % 184 && p.st[i] == i % 344;
    CHECK(ok);
    mm_stencil_free(&p);

    CHECK(mm_stencil_naive(&p, 16, 26) == 0);
    CHECK(p.nmsg == 416 && p.nrecv == 16 && p.nsend == 16);
    mm_stencil_free(&p);
}

/* Each phase: m receives whose tags are a permutation of 0..m-1, then m
 * messages likewise, all with peer 1. Returns whether phase 0 and 1 post
 * in different orders. */
static int check_phases(const mm_stream *s, uint32_t m, uint32_t phases)
{
    CHECK(s->n == 2 * (size_t)m * phases && s->np == 2);
    uint8_t *seen = malloc(m);
    int ok = 1;
    for (uint32_t ph = 0; ph < phases; ph++)
        for (int half = 0; half < 2; half++) {
            const mm_event *e = s->ev + ((size_t)ph * 2 + (size_t)half) * m;
            memset(seen, 0, m);
            for (uint32_t k = 0; k < m; k++) {
                ok &= e[k].type == (half ? MM_EV_MSG : MM_EV_RECV) && e[k].src == 1 &&
                      e[k].tag >= 0 && (uint32_t)e[k].tag < m;
                if (ok)
                    ok &= !seen[e[k].tag]++;
            }
        }
    CHECK(ok);
    free(seen);
    int differ = 0;
    for (uint32_t k = 0; phases > 1 && k < m; k++)
        differ |= s->ev[k].tag != s->ev[2 * (size_t)m + k].tag;
    return differ;
}

static void test_streams(void)
{
    mm_stream s = build("stencil3d:lx=4,ly=4,lz=4,points=27pt,phases=3");
    CHECK(check_phases(&s, 728, 3)); /* random: every phase its own order */
    mm_stream_free(&s);

    /* Round robin over strided tags posts tags in order on both sides. */
    s = build("stencil2d:lx=8,ly=5,points=9pt,sched=roundrobin,phases=2");
    CHECK(!check_phases(&s, 6 * 8 + 6 * 5 - 4, 2));
    int ok = 1;
    for (size_t i = 0; i < s.n; i++)
        ok &= s.ev[i].tag == (int32_t)(i % 74);
    CHECK(ok);
    mm_stream_free(&s);

    /* Sequential strided: thread 0's tags 0, T_r, 2T_r, ... come first. */
    s = build("stencil_linear:lz=10,points=7pt,sched=sequential,phases=1");
    check_phases(&s, 42, 1);
    CHECK(s.ev[0].tag == 0 && s.ev[1].tag == 10 && s.ev[2].tag == 20 && s.ev[3].tag == 30 &&
          s.ev[4].tag == 40 && s.ev[5].tag == 1);
    /* The senders: T_s = 42, one message each, so tags come in order. */
    CHECK(s.ev[42].tag == 0 && s.ev[43].tag == 1);
    mm_stream_free(&s);

    /* Sequential geometric: the corner subdomain (0,0,0) of a 27-point
     * stencil has 19 outside neighbours, its tags 0..18. */
    s = build("stencil3d:lx=3,ly=3,lz=3,assign=geometric,sched=sequential,phases=1");
    uint64_t m;
    uint32_t tr, ts;
    mm_stencil_count(3, 27, 3, 3, 3, &m, &tr, &ts);
    check_phases(&s, (uint32_t)m, 1);
    ok = 1;
    for (int k = 0; k < 20; k++)
        ok &= s.ev[k].tag == k;
    CHECK(ok);
    mm_stream_free(&s);

    /* Naive: 4 threads of 3 receives, strided. */
    s = build("stencil_naive:threads=4,msgs=3,sched=sequential,phases=1");
    check_phases(&s, 12, 1);
    const int32_t seq[12] = { 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11 };
    ok = 1;
    for (int k = 0; k < 12; k++)
        ok &= s.ev[k].tag == seq[k] && s.ev[12 + k].tag == seq[k];
    CHECK(ok);
    mm_stream_free(&s);

    /* Invalid sizes are caught by the ranges. */
    char err[512];
    mm_gen_spec sp;
    CHECK(mm_gen_parse("stencil3d:lx=0", &sp, err, sizeof err) == MMS_EFORMAT);
    CHECK(mm_gen_parse("stencil2d:lx=1025", &sp, err, sizeof err) == MMS_EFORMAT);
}

int main(void)
{
    test_equations();
    test_paper_numbers();
    test_plans();
    test_streams();
    return TC_DONE();
}
