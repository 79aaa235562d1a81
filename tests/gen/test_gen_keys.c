/*
 * test_gen_keys.c - random_keys (paper 002, Table I): keys in the paper's
 * ranges, distinct within a round, each phase a permutation of the other,
 * the phase order, and the four matching paths it produces (every engine
 * that runs it gives the same classification: n events per path per round
 * of that kind, two segments a round).
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "replay.h"
#include "replay_paths.h"
#include "gen_check.h"
#include "tcheck.h"

static uint64_t code_of(const mm_event *e)
{
    return ((uint64_t)e->comm * 101 + (uint64_t)e->tag) * 501 + (uint64_t)e->src;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Round r of s (n keys): its first phase has type `first`, keys in range and
 * distinct, and the second phase holds the same keys in another order. */
static void check_round(const mm_stream *s, uint32_t n, uint32_t r, int first)
{
    const mm_event *a = &s->ev[(size_t)2 * n * r], *b = a + n;
    uint64_t *ka = malloc(n * sizeof *ka), *kb = malloc(n * sizeof *kb);
    if (!ka || !kb) {
        CHECK(0);
        free(ka);
        free(kb);
        return;
    }
    int second = first == MM_EV_RECV ? MM_EV_MSG : MM_EV_RECV;
    for (uint32_t k = 0; k < n; k++) {
        CHECK_MSG(a[k].type == first && b[k].type == second, "round %u event %u", r, k);
        CHECK(a[k].comm >= 0 && a[k].comm <= 100 && a[k].tag >= 0 && a[k].tag <= 100);
        CHECK(a[k].src >= 0 && a[k].src <= 500);
        ka[k] = code_of(&a[k]);
        kb[k] = code_of(&b[k]);
    }
    qsort(ka, n, sizeof *ka, cmp_u64);
    qsort(kb, n, sizeof *kb, cmp_u64);
    for (uint32_t k = 0; k < n; k++) {
        CHECK_MSG(ka[k] == kb[k], "round %u: the phases hold different keys", r);
        CHECK_MSG(k == 0 || ka[k] != ka[k - 1], "round %u: a key drawn twice", r);
    }
    free(ka);
    free(kb);
}

static void test_shapes(void)
{
    mm_stream s = build("random_keys:n=500,rounds=4");
    CHECK(s.n == 4000 && s.np == 501 && s.np_origin == MM_NP_DECLARED);
    CHECK(mm_stream_hints(&s, NULL, NULL) == (MM_HINT_NO_ANY_SOURCE | MM_HINT_NO_ANY_TAG));
    for (uint32_t r = 0; r < 4; r++)
        check_round(&s, 500, r, r % 2 == 0 ? MM_EV_RECV : MM_EV_MSG);
    /* The order of the second phase is not the first's. */
    int moved = 0;
    for (uint32_t k = 0; k < 500; k++)
        moved |= code_of(&s.ev[k]) != code_of(&s.ev[500 + k]);
    CHECK(moved);
    mm_stream_free(&s);

    s = build("random_keys:n=64,rounds=3,order=recv_first");
    for (uint32_t r = 0; r < 3; r++)
        check_round(&s, 64, r, MM_EV_RECV);
    mm_stream_free(&s);
    s = build("random_keys:n=64,rounds=3,order=msg_first");
    for (uint32_t r = 0; r < 3; r++)
        check_round(&s, 64, r, MM_EV_MSG);
    mm_stream_free(&s);

    /* A small key space: still distinct; too small: refused. */
    s = build("random_keys:n=4,rounds=20,comm_max=0,tag_max=1,src_max=3");
    CHECK(s.np == 4);
    mm_stream_free(&s);
    char err[512];
    CHECK(mm_gen_build("random_keys:n=5,comm_max=0,tag_max=1,src_max=3", &s, err, sizeof err) ==
          MMS_EFORMAT);
    CHECK_MSG(strstr(err, "give 8 keys") != NULL, "%s", err);
}

/* Every engine: the same four paths, n * rounds / 2 events each, and two
 * segments per round. */
static void test_paths(void)
{
    mm_stream s = build("random_keys:n=256,rounds=4");
    char err[1024];
    mm_replay r;
    mm_paths p;
    mm_config cfg = { s.np, mm_stream_hints(&s, NULL, NULL), 0, NULL, 0 };
    CHECK(mm_replay_init(&r, &s, 1, err, sizeof err) == MMR_OK);
    CHECK(mm_paths_init(&p, &s, 1, err, sizeof err) == MMR_OK);
    for (size_t k = 0; k < mm_engine_count(); k++) {
        const char *name = mm_engine_at(k)->name;
        mm_replay_result res;
        CHECK_MSG(mm_replay_run(&r, mm_engine_at(k), &cfg, 0, 1, &res, err, sizeof err) == MMR_OK, "%s: %s",
                  name, err);
        mm_paths_classify(&p, r.out);
        uint64_t count[MM_PATH_COUNT] = { 0 };
        for (size_t i = 0; i < s.n; i++)
            count[p.cls[i]]++;
        CHECK_MSG(p.nseg == 8, "%s: %zu segments", name, p.nseg);
        for (int c = MM_PATH_FAIL_RECV; c <= MM_PATH_SUCCESS_SEND; c++)
            CHECK_MSG(count[c] == 512, "%s: %s %llu", name, mm_path_name(c),
                      (unsigned long long)count[c]);
        static const int order[] = { MM_PATH_FAIL_RECV, MM_PATH_SUCCESS_SEND, MM_PATH_FAIL_SEND,
                                     MM_PATH_SUCCESS_RECV };
        for (size_t g = 0; g < p.nseg; g++)
            CHECK(p.seg_path[g] == order[g % 4] && p.seg_start[g] == 256 * g);
    }
    mm_paths_free(&p);
    mm_replay_free(&r);
    mm_stream_free(&s);
}

int main(void)
{
    test_shapes();
    test_paths();
    return TC_DONE();
}
