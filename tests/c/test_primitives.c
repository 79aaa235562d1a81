/* Shared primitives on their own: queue order and bounded search (both
 * shapes, the head-only one against the sentinel one under churn), a
 * side's byte account (peak and longest queue) against a model, pool
 * reuse and ownership, ktable against a naive map under heavy churn, the
 * FIFO against a plain array through growth and wrap-around. */
#include <string.h>
#include "check.h"
#include "core/fifo.h"
#include "core/ktable.h"
#include "core/mem.h"
#include "engines/part.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_queue(void)
{
    mm_mem mem = {0};
    mm_pool pool;
    mm_pool_init(&pool, mm_elem_size(1), &mem);
    mm_queue q;
    mm_queue_init(&q, 0);
    CHECK(mm_queue_empty(&q));
    CHECK(mm_queue_head(&q) == NULL);
    mm_elem *e[5];
    for (int i = 0; i < 5; i++) {
        e[i] = mm_pool_get(&pool);
        e[i]->seq = (uint64_t)(i + 1) * 10;
        e[i]->key = (mm_key){1, i % 2, i};
        mm_queue_push(&q, e[i]);
    }
    CHECK_EQ(q.len, 5);
    CHECK(mm_queue_head(&q) == e[0]);
    uint64_t depth = 0;
    mm_key want = {1, 1, 3};
    CHECK(mm_queue_find(&q, &want, 0, MM_SEQ_NONE, &depth) == e[3]); /* message key: receives */
    CHECK_EQ(depth, 4);
    depth = 0;
    CHECK(mm_queue_find(&q, &want, 0, 40, &depth) == NULL); /* bound stops before e[3] (seq 40) */
    CHECK_EQ(depth, 3);
    mm_key anysrc = {1, MM_ANY_SOURCE, 4};
    depth = 0;
    CHECK(mm_queue_find(&q, &anysrc, 1, MM_SEQ_NONE, &depth) == e[4]);
    mm_queue_remove(&q, e[2]);
    mm_queue_remove(&q, e[0]);
    CHECK(mm_queue_head(&q) == e[1]);
    CHECK_EQ(q.len, 3);
    mm_queue_remove(&q, e[1]);
    mm_queue_remove(&q, e[3]);
    mm_queue_remove(&q, e[4]);
    CHECK(mm_queue_empty(&q));
    mm_pool_destroy(&pool);
    CHECK_EQ(mem.bytes, 0);
    CHECK(mem.peak > 0);
}

/* The elements of hqueue q (link li) in order into out (at most cap);
 * also checks the shape: the head's prev is the tail, every other prev
 * the element before. Returns how many. */
static size_t hqueue_list(const mm_hqueue *q, unsigned li, mm_elem **out, size_t cap)
{
    size_t n = 0;
    const mm_link *before = NULL;
    mm_hqueue_foreach(x, q, li) {
        if (before)
            CHECK(x->link[li].prev == before);
        before = &x->link[li];
        if (n < cap)
            out[n] = x;
        n++;
    }
    if (q->head)
        CHECK(q->head->prev == before); /* the tail */
    return n;
}

static void test_hqueue(void)
{
    mm_mem mem = {0};
    mm_pool pool;
    mm_pool_init(&pool, mm_elem_size(2), &mem);
    mm_hqueue q;
    memset(&q, 0, sizeof q); /* all zero bytes is the empty queue */
    CHECK(mm_hqueue_empty(&q));
    CHECK(mm_hqueue_head_at(&q, 1) == NULL);
    mm_elem *e[5], *got[8];
    for (int i = 0; i < 5; i++) {
        e[i] = mm_pool_get(&pool);
        e[i]->seq = (uint64_t)(i + 1) * 10;
        e[i]->key = (mm_key){1, i % 2, i};
        mm_hqueue_push_at(&q, 1, e[i]);
    }
    CHECK_EQ(hqueue_list(&q, 1, got, 8), 5);
    for (int i = 0; i < 5; i++)
        CHECK(got[i] == e[i]);
    CHECK(mm_hqueue_head_at(&q, 1) == e[0]);
    uint64_t depth = 0;
    mm_key want = {1, 1, 3};
    CHECK(mm_hqueue_find_at(&q, 1, &want, 0, MM_SEQ_NONE, &depth) == e[3]);
    CHECK_EQ(depth, 4);
    depth = 0;
    CHECK(mm_hqueue_find_at(&q, 1, &want, 0, 40, &depth) == NULL); /* bound: before e[3] */
    CHECK_EQ(depth, 3);
    mm_key anysrc = {1, MM_ANY_SOURCE, 4};
    depth = 0;
    CHECK(mm_hqueue_find_at(&q, 1, &anysrc, 1, MM_SEQ_NONE, &depth) == e[4]);
    CHECK_EQ(depth, 5);
    mm_hqueue_remove_at(&q, 1, e[4]); /* the tail */
    CHECK_EQ(hqueue_list(&q, 1, got, 8), 4);
    CHECK(got[3] == e[3]);
    mm_hqueue_remove_at(&q, 1, e[0]); /* the head */
    CHECK(mm_hqueue_head_at(&q, 1) == e[1]);
    mm_hqueue_remove_at(&q, 1, e[2]); /* the middle */
    CHECK_EQ(hqueue_list(&q, 1, got, 8), 2);
    CHECK(got[0] == e[1] && got[1] == e[3]);
    mm_hqueue_push_at(&q, 1, e[0]); /* appended after the tail left */
    CHECK_EQ(hqueue_list(&q, 1, got, 8), 3);
    CHECK(got[2] == e[0]);
    mm_hqueue_remove_at(&q, 1, e[1]);
    mm_hqueue_remove_at(&q, 1, e[0]);
    CHECK_EQ(hqueue_list(&q, 1, got, 8), 1);
    CHECK(e[3]->link[1].prev == &e[3]->link[1]); /* alone: its own tail */
    mm_hqueue_remove_at(&q, 1, e[3]); /* the only one */
    CHECK(mm_hqueue_empty(&q));
    CHECK(e[3]->link[1].next == NULL && e[3]->link[1].prev == NULL);
    mm_hqueue_push_at(&q, 1, e[2]);
    CHECK(mm_hqueue_head_at(&q, 1) == e[2]);
    mm_hqueue_remove_at(&q, 1, e[2]);
    CHECK(mm_hqueue_empty(&q));

    /* Churn against an mm_queue of the same elements (link 0): after every
     * push or removal (of a random queued element) the same order, and the
     * same answer and depth for a random key under a random bound. */
    enum { N = 24 };
    mm_elem *x[N];
    int queued[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = mm_pool_get(&pool);
    mm_queue model;
    mm_queue_init(&model, 0);
    uint64_t seq = 0;
    for (int step = 0; step < 20000; step++) {
        int i = (int)(next_rand() % N);
        if (queued[i]) {
            mm_queue_remove_at(&model, 0, x[i]);
            mm_hqueue_remove_at(&q, 1, x[i]);
        } else {
            x[i]->seq = ++seq;
            x[i]->key = (mm_key){0, (int32_t)(next_rand() % 3), (int32_t)(next_rand() % 3)};
            mm_queue_push_at(&model, 0, x[i]);
            mm_hqueue_push_at(&q, 1, x[i]);
        }
        queued[i] = !queued[i];
        mm_elem *order[N + 1];
        size_t n = hqueue_list(&q, 1, order, N + 1), k = 0, bad = 0;
        mm_queue_foreach(y, &model)
            bad += k >= n || order[k++] != y;
        CHECK_EQ(n, model.len);
        CHECK_EQ(bad, 0);
        CHECK_EQ(mm_hqueue_empty(&q), model.len == 0);
        int32_t r = (int32_t)(next_rand() % 4);
        mm_key k2 = {0, r == 3 ? MM_ANY_SOURCE : r, (int32_t)(next_rand() % 3)};
        uint64_t bound = next_rand() % 2 ? MM_SEQ_NONE : seq - next_rand() % 16;
        uint64_t d1 = 0, d2 = 0;
        mm_elem *a = mm_queue_find_at(&model, 0, &k2, 1, bound, &d1);
        mm_elem *b = mm_hqueue_find_at(&q, 1, &k2, 1, bound, &d2);
        CHECK(a == b);
        CHECK_EQ(d1, d2);
    }
    mm_pool_destroy(&pool);
    CHECK_EQ(mem.bytes, 0);
}

static void test_match_rule(void)
{
    mm_key r = {3, MM_ANY_SOURCE, MM_ANY_TAG};
    CHECK(mm_match(&r, &(mm_key){3, 7, 0}));
    CHECK(!mm_match(&r, &(mm_key){3, 7, -1}));       /* ANY_TAG never matches negative */
    CHECK(!mm_match(&r, &(mm_key){4, 7, 0}));        /* communicators never cross */
    mm_key s = {3, 2, -5};
    CHECK(mm_match(&s, &(mm_key){3, 2, -5}));        /* negative tags match exactly */
    CHECK(!mm_match(&s, &(mm_key){3, 1, -5}));
}

/* A side's account (mem.h) against a model: the matching path counts an
 * element with ++count and calls mm_mem_count_grew only when the count
 * passes mark; the account's other bytes are charged and uncharged between
 * (a table's rebuild, a pool's slab). peak must be the most of bytes +
 * count * unit ever held and max_count the longest count, exactly, however
 * the mark was taken (the count rising to a new peak at every call, as in
 * a new engine's first round, or under a peak that shrunk bytes left). */
static void test_mem_mark(void)
{
    for (int round = 0; round < 50; round++) {
        uint64_t count = 0, max_count = 0, unit = 48 + next_rand() % 3 * 8;
        mm_mem m = {0};
        mm_mem_count(&m, &count, &max_count, unit);
        uint64_t want_peak = 0, want_max = 0;
        int bad = 0;
        for (int step = 0; step < 20000; step++) {
            uint64_t r = next_rand() % 100;
            if (r < (uint64_t)(round % 2 ? 70 : 48)) { /* an element queued */
                if (++count > m.mark)
                    mm_mem_count_grew(&m);
            } else if (r < 96) { /* one leaves */
                if (count)
                    count--;
            } else if (r < 98) {
                mm_mem_charge(&m, next_rand() % 4096);
            } else if (m.bytes) {
                mm_mem_uncharge(&m, next_rand() % (m.bytes + 1));
            }
            uint64_t total = m.bytes + count * unit;
            if (total > want_peak)
                want_peak = total;
            if (count > want_max)
                want_max = count;
            bad += m.peak != want_peak || max_count != want_max || mm_mem_total(&m) != total;
        }
        CHECK_EQ(bad, 0);
    }
}

static void test_pool(void)
{
    mm_mem mem = {0};
    mm_pool pool;
    mm_pool_init(&pool, 40, &mem);
    void *objs[5000];
    for (int i = 0; i < 5000; i++) {
        objs[i] = mm_pool_get(&pool);
        CHECK(objs[i] != NULL);
        memset(objs[i], 0xab, 40);
    }
    for (int i = 0; i < 5000; i++)
        CHECK(mm_pool_owns(&pool, objs[i]));
    int outside;
    CHECK(!mm_pool_owns(&pool, &outside));
    CHECK(!mm_pool_owns(&pool, (char *)objs[10] + 1)); /* not an object start */
    CHECK(!mm_pool_owns(&pool, NULL));
    mm_pool other;
    mm_pool_init(&other, 40, &mem);
    void *o = mm_pool_get(&other);
    CHECK(mm_pool_owns(&other, o) && !mm_pool_owns(&pool, o) && !mm_pool_owns(&other, objs[0]));
    CHECK(((uintptr_t)objs[0] & 63) == 0); /* objects keep the slab's line alignment */
    mm_pool_put(&other, o);
    mm_pool_destroy(&other);
    uint64_t bytes = mem.bytes;
    for (int i = 0; i < 5000; i++)
        mm_pool_put(&pool, objs[i]);
    for (int i = 0; i < 5000; i++)
        objs[i] = mm_pool_get(&pool);
    CHECK_EQ(mem.bytes, bytes); /* reuse, no new slabs */
    mm_pool_destroy(&pool);
    CHECK_EQ(mem.bytes, 0);
}

/* A pool's accounted bytes depend on the objects it was asked for, not on
 * where malloc put its slabs: two pools of the same gets, one of them with
 * the heap laid out differently (allocations between its slabs, so no two
 * of them share a page), report the same bytes. Before, the page set was
 * sized by the pages the slabs actually touched, so the same calls gave
 * different `bytes` and `peak_bytes` from run to run (MM_CFG_CONCURRENT
 * engines, whose 64 shards' small slabs interleave on the heap). */
static void test_pool_bytes_layout(void)
{
    for (size_t size = 24; size <= 200; size += 8) {
        mm_mem ma = {0}, mb = {0};
        mm_pool a, b;
        mm_pool_init(&a, size, &ma);
        mm_pool_init(&b, size, &mb);
        void *junk[64];
        int nj = 0;
        for (int i = 0; i < 3000; i++) {
            CHECK(mm_pool_get(&a) != NULL);
            if (!b.free && nj < 64) { /* b's next slab lands elsewhere */
                junk[nj] = malloc(1000 + 1500 * (size_t)(nj % 3));
                nj++;
            }
            CHECK(mm_pool_get(&b) != NULL);
        }
        CHECK_EQ(ma.bytes, mb.bytes);
        CHECK_EQ(ma.peak, mb.peak);
        mm_pool_destroy(&a);
        mm_pool_destroy(&b);
        while (nj > 0)
            free(junk[--nj]);
    }
}

/* ktable against a naive array of keys, with many inserts and removals so
 * that backward-shift deletion and growth are exercised. */
static void test_ktable(void)
{
    mm_mem mem = {0};
    mm_ktable t;
    CHECK(mm_ktable_init(&t, 0, 16, 0x5EEDull, &mem) == 0);
    enum { N = 3000 };
    mm_key keys[N];
    mm_kentry *ent[N];
    int live[N];
    for (int i = 0; i < N; i++) {
        /* few distinct values per field: many hash collisions of low bits */
        keys[i] = (mm_key){(int32_t)(i % 7), (int32_t)(i / 7 % 13), (int32_t)(i / 91) - 5};
        live[i] = 0;
        ent[i] = NULL;
    }
    int bad = 0;
    for (int step = 0; step < 200000; step++) {
        int i = (int)(next_rand() % N);
        uint32_t h = mm_ktable_hash(&t, &keys[i]);
        if (live[i]) {
            if (mm_ktable_find(&t, &keys[i], h) != ent[i])
                bad++;
            mm_ktable_remove(&t, ent[i]);
            live[i] = 0;
        } else {
            if (mm_ktable_find(&t, &keys[i], h) != NULL)
                bad++;
            int created;
            ent[i] = mm_ktable_get(&t, &keys[i], h, &created);
            if (!ent[i] || !created || !mm_key_eq(&ent[i]->key, &keys[i]))
                bad++;
            live[i] = 1;
        }
        if (step % 20000 == 0) {
            uint32_t count = 0;
            for (int j = 0; j < N; j++) {
                mm_kentry *f = mm_ktable_find(&t, &keys[j], mm_ktable_hash(&t, &keys[j]));
                if ((f != NULL) != live[j] || (f && f != ent[j]))
                    bad++;
                count += (uint32_t)live[j];
            }
            if (count != t.count)
                bad++;
        }
    }
    CHECK_EQ(bad, 0);
    int created;
    mm_kentry *a = mm_ktable_get(&t, &keys[0], mm_ktable_hash(&t, &keys[0]), &created);
    mm_kentry *b = mm_ktable_get(&t, &keys[0], mm_ktable_hash(&t, &keys[0]), &created);
    CHECK(a == b && !created);
    mm_ktable_destroy(&t);
    CHECK_EQ(mem.bytes, 0);
}

/* A 24-byte item (not a power of two) with a checkable payload. */
typedef struct fitem { uint64_t seq, neg; uint32_t k; uint32_t pad; } fitem;

static void test_fifo(void)
{
    mm_mem mem = {0};
    mm_fifo f;
    mm_fifo_init(&f, sizeof(fitem), 3, &mem); /* rounds up to 4 */
    CHECK(mm_fifo_front(&f) == NULL);
    CHECK_EQ(mm_fifo_len(&f), 0);
    CHECK_EQ(mem.bytes, 0); /* nothing until the first push */
    /* Against a model: random pushes and pops, so the front wanders around the
     * ring and growth copies wrapped contents (the two-piece copy). */
    enum { M = 70000 };
    static uint64_t model[M];
    size_t mh = 0, mt = 0, bad = 0, wraps = 0, grows = 0;
    uint64_t next = 1;
    for (int step = 0; step < 60000; step++) {
        int push = mt - mh < 2 || (next_rand() % 100) < (step < 30000 ? 55u : 45u);
        if (push && mt < M) {
            size_t cap = f.cap;
            fitem *it = mm_fifo_push(&f);
            CHECK(it != NULL);
            if (!it)
                break;
            if (f.cap != cap) {
                grows++;
                CHECK_EQ(f.head, 0);
            }
            it->seq = next;
            it->neg = ~next;
            it->k = (uint32_t)(next * 7);
            model[mt++] = next++;
        } else if (mt > mh) {
            fitem *it = mm_fifo_front(&f);
            if (!it || it->seq != model[mh] || it->neg != ~model[mh] || it->k != (uint32_t)(model[mh] * 7))
                bad++;
            wraps += f.head == f.cap - 1;
            mm_fifo_pop(&f);
            mh++;
        }
        CHECK_EQ(mm_fifo_len(&f), mt - mh);
        if (step % 997 == 0) /* every held item by index */
            for (size_t i = 0; i < mt - mh; i++)
                if (((fitem *)mm_fifo_at(&f, i))->seq != model[mh + i])
                    bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK(grows >= 4);
    CHECK(wraps > 0);
    CHECK((f.cap & (f.cap - 1)) == 0 && f.cap >= mm_fifo_len(&f));
    CHECK_EQ(mem.bytes, f.cap * sizeof(fitem));
    /* Out of memory while growing: push fails, the contents stay as they were. */
    while (mm_fifo_len(&f) < f.cap) {
        fitem *it = mm_fifo_push(&f);
        it->seq = model[mt++] = next++;
        it->neg = ~it->seq;
    }
    size_t full = mm_fifo_len(&f), cap = f.cap;
    mem.fail_in = 1;
    CHECK(mm_fifo_push(&f) == NULL);
    CHECK_EQ(mm_fifo_len(&f), full);
    CHECK_EQ(f.cap, cap);
    for (size_t i = 0; i < mm_fifo_len(&f); i++)
        if (((fitem *)mm_fifo_at(&f, i))->seq != model[mh + i])
            bad++;
    CHECK_EQ(bad, 0);
    CHECK(mm_fifo_push(&f) != NULL); /* the next one grows */
    mm_fifo_destroy(&f);
    CHECK_EQ(mem.bytes, 0);
    CHECK(mem.peak > 0);
}

/* part_mod (the COL queue of a rank, no division) equals % for every divisor
 * a level can have and ranks across the whole 32-bit range. */
static void test_part_mod(void)
{
    uint32_t xs[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 65535, 65536, 1u << 31,
                     (1u << 31) + 1, UINT32_MAX - 1, UINT32_MAX};
    uint64_t r = 88172645463325252ull; /* xorshift64 */
    int bad = 0;
    for (uint32_t d = 1; d <= 70000; d += d < 2048 ? 1 : 97) {
        uint64_t m = part_mod_magic(d);
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            bad += part_mod(xs[i], m, d) != xs[i] % d;
        for (int i = 0; i < 64; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            uint32_t x = (uint32_t)r;
            bad += part_mod(x, m, d) != x % d;
        }
    }
    for (uint32_t d = UINT32_MAX - 3; d != 0; d++) /* the largest divisors */
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            bad += part_mod(xs[i], part_mod_magic(d), d) != xs[i] % d;
    CHECK_EQ(bad, 0);
}

int main(void)
{
    test_part_mod();
    test_queue();
    test_hqueue();
    test_match_rule();
    test_mem_mark();
    test_pool();
    test_pool_bytes_layout();
    test_ktable();
    test_fifo();
    return check_report("test_primitives");
}
