/* core/ftable.h's 12-byte slot: its three encodings (live: hash | SIDE and
 * the head; idle: IDLE | comm and the key's src and tag; empty: the tag
 * MM_FSLOT_EMPTY), the extreme keys (comm INT32_MAX and 0, negative
 * sources and tags, the key whose bytes are the empty marker's), idle keys
 * sharing a probe run with each other and with a key whose hash equals an
 * idle comm, the memo's hash when it opens an idle key, projected tables,
 * and rebuilds (growth) with idle slots in the table. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/ftable.h"

enum { MAXE = 4096 };

static void *pool;
static int used;

static mm_elem *new_elem(const mm_key *k)
{
    if (used == MAXE)
        abort();
    mm_elem *x = (mm_elem *)((char *)pool + (size_t)used++ * mm_elem_size(1));
    memset(x, 0, mm_elem_size(1));
    x->key = *k;
    x->seq = (uint64_t)used;
    return x;
}

/* The slot's 8 bytes as the idle key's (src, tag). */
static mm_key idle_key(const mm_fslot *s)
{
    mm_key k;
    k.comm = (int32_t)(s->tag & ~MM_FSLOT_IDLE);
    memcpy(&k.src, s->w, 8);
    return k;
}

/* Slots with each tag kind: live, idle, empty. */
static void census(const mm_ftable *t, uint32_t *live, uint32_t *idle, uint32_t *empty)
{
    *live = *idle = *empty = 0;
    for (uint32_t i = 0; i <= t->mask; i++) {
        uint32_t tag = t->slots[i].tag;
        if (tag == MM_FSLOT_EMPTY)
            ++*empty;
        else if (mm_fslot_tag_live(tag))
            ++*live;
        else if (tag & MM_FSLOT_IDLE)
            ++*idle;
    }
}

/* One key through its life in table t: new (live), joined, popped to
 * idle, found idle, reopened (by a lookup, then by the memo), popped again;
 * the encodings checked at each step. */
static void life(mm_ftable *t, const mm_key *k)
{
    const uint32_t h = mm_ftable_hash(t, k);
    CHECK(h <= MM_FSLOT_HASH);
    CHECK(mm_ftable_find(t, k, h) == NULL);
    mm_elem *a = new_elem(k), *b = new_elem(k);
    CHECK_EQ(mm_ftable_push(t, a, k, h), 1);
    CHECK_EQ(mm_ftable_push(t, b, k, h), 0);
    mm_fslot *s = mm_ftable_find(t, k, h);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ(s->tag, h); /* live: the hash, no side */
    CHECK(mm_fslot_live_head(s) == a);
    CHECK(mm_fslot_is(t, s, k));
    int closed = -1;
    CHECK(mm_ftable_pop(t, s, &closed) == a);
    CHECK_EQ(closed, 0);
    CHECK(mm_ftable_pop(t, s, &closed) == b);
    CHECK_EQ(closed, 1);
    /* idle: IDLE | comm, then src and tag, exactly */
    CHECK_EQ(s->tag, MM_FSLOT_IDLE | (uint32_t)k->comm);
    mm_key ik = idle_key(s);
    CHECK(mm_key_eq(&ik, k));
    CHECK(mm_fslot_head(s) == NULL);
    CHECK(mm_ftable_find(t, k, h) == NULL); /* no FIFO */
    uint32_t n = 0;
    CHECK(mm_ftable_lookup_t(t, k, h, &n, 1) == s); /* the idle slot */
    CHECK(mm_fslot_is(t, s, k));
    /* reopened through a lookup (mm_ftable_push does not read the memo) */
    mm_elem *c = new_elem(k);
    CHECK_EQ(mm_ftable_push(t, c, k, h), 1);
    CHECK_EQ(s->tag, h);
    CHECK(mm_fslot_live_head(s) == c);
    CHECK(mm_ftable_pop(t, s, &closed) == c);
    CHECK_EQ(closed, 1);
    /* reopened through the memo: the tag is the hash again, which the idle
     * slot did not keep (mm_ftable_memo_hash) */
    CHECK(mm_ftable_memo_is(t, k));
    mm_elem *d = new_elem(k);
    CHECK_EQ(mm_ftable_push_key(t, d, k), 1);
    CHECK_EQ(s->tag, h);
    CHECK(mm_ftable_find(t, k, h) == s);
    CHECK(mm_ftable_pop(t, s, &closed) == d);
    CHECK_EQ(closed, 1);
    CHECK_EQ(s->tag, MM_FSLOT_IDLE | (uint32_t)k->comm);
}

static void test_encodings(void)
{
    mm_mem mem = {0};
    mm_ftable t;
    CHECK_EQ(mm_ftable_init(&t, 0, 64, 7, 0, &mem), 0);
    CHECK_EQ(sizeof(mm_fslot), 12);
    CHECK_EQ(mm_ftable_bytes(&t), 64 * 12 + 64);
    CHECK_EQ((uintptr_t)t.slots % 64, 0);
    uint32_t live, idle, empty;
    census(&t, &live, &idle, &empty);
    CHECK_EQ(empty, 64);
    const mm_key keys[] = {
        {0, 0, 0},
        {INT32_MAX, 0, 0},                  /* idle tag all ones */
        {INT32_MAX, INT32_MAX, INT32_MAX},
        {0, -1, INT32_MIN},                 /* negative source and tag */
        {5, 3, -1},                         /* negative tag (an internal one) */
        {5, 3, -2},
        {0x7F7F7F7F, 0x7F7F7F7F, 0x7F7F7F7F}, /* the empty slot's bytes */
        {0x7F7F7F7F, 0x7F7F7F7F, 0x7F7F7F7E},
        {1, INT32_MIN, INT32_MAX},
    };
    const int nk = (int)(sizeof keys / sizeof keys[0]);
    for (int i = 0; i < nk; i++)
        life(&t, &keys[i]);
    census(&t, &live, &idle, &empty);
    CHECK_EQ(live, 0);
    CHECK_EQ(idle, (uint32_t)nk);
    CHECK_EQ(t.idle, (uint32_t)nk);
    CHECK_EQ(empty, 64 - (uint32_t)nk);
    /* every key still found in its own idle slot, none in another's */
    for (int i = 0; i < nk; i++) {
        uint32_t n = 0;
        mm_fslot *s = mm_ftable_lookup_t(&t, &keys[i], mm_ftable_hash(&t, &keys[i]), &n, 1);
        CHECK(s != NULL);
        if (s) {
            mm_key ik = idle_key(s);
            CHECK(mm_key_eq(&ik, &keys[i]));
        }
    }
    /* keys one bit away from an idle one are absent */
    const mm_key near[] = {{0x7F7F7F7F, 0x7F7F7F7F, 0x7F7F7F7D},
                           {0x7F7F7F7E, 0x7F7F7F7F, 0x7F7F7F7F},
                           {0x7F7F7F7F, 0x7F7F7F7E, 0x7F7F7F7F},
                           {INT32_MAX - 1, 0, 0},
                           {5, 2, -1},
                           {0, -1, INT32_MIN + 1}};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        uint32_t n = 0;
        CHECK(mm_ftable_lookup_t(&t, &near[i], mm_ftable_hash(&t, &near[i]), &n, 1) == NULL);
    }
    mm_ftable_destroy(&t);
}

/* Keys of one home slot in a 16-slot table: idle and live keys in one
 * probe run, told apart by their full keys; and an idle key whose comm is
 * another key's hash (an idle tag must never pass the live hash compare). */
static void test_one_run(void)
{
    mm_mem mem = {0};
    mm_ftable t;
    CHECK_EQ(mm_ftable_init(&t, 0, 16, 99, 0, &mem), 0);
    const mm_key a = {3, 4, 5};
    const uint32_t ha = mm_ftable_hash(&t, &a), home = ha & t.mask;
    /* b: comm = a's hash, same home slot; c, d: same home, differing from
     * b only in the tag / the source */
    mm_key b = {(int32_t)ha, 0, 0}, c, d;
    for (int32_t tag = 0;; tag++) {
        b.tag = tag;
        if ((mm_ftable_hash(&t, &b) & t.mask) == home)
            break;
    }
    c = b, d = b;
    for (int32_t tag = b.tag + 1;; tag++) {
        c.tag = tag;
        if ((mm_ftable_hash(&t, &c) & t.mask) == home)
            break;
    }
    for (int32_t src = 1;; src++) {
        d.src = src;
        if ((mm_ftable_hash(&t, &d) & t.mask) == home)
            break;
    }
    const mm_key *ks[] = {&b, &c, &d};
    mm_fslot *sl[3];
    for (int i = 0; i < 3; i++) {
        mm_elem *x = new_elem(ks[i]);
        CHECK_EQ(mm_ftable_push(&t, x, ks[i], mm_ftable_hash(&t, ks[i])), 1);
        sl[i] = mm_ftable_find(&t, ks[i], mm_ftable_hash(&t, ks[i]));
        CHECK(sl[i] == &t.slots[(home + (uint32_t)i) & t.mask]);
    }
    int closed;
    mm_ftable_pop(&t, sl[0], &closed); /* b idle, at a's home slot */
    mm_ftable_pop(&t, sl[1], &closed); /* c idle */
    CHECK_EQ(sl[0]->tag, MM_FSLOT_IDLE | ha);
    /* a's lookup passes b's idle slot (its comm bits are a's hash), c's
     * idle one, d's live one, and ends empty */
    uint32_t n = 0;
    CHECK(mm_ftable_lookup_t(&t, &a, ha, &n, 0) == NULL);
    CHECK_EQ(n, 4);
    mm_elem *xa = new_elem(&a);
    CHECK_EQ(mm_ftable_push(&t, xa, &a, ha), 1);
    mm_fslot *sa = mm_ftable_find(&t, &a, ha);
    CHECK(sa == &t.slots[(home + 3) & t.mask]);
    CHECK(sa && mm_fslot_live_head(sa) == xa);
    /* each of b, c, d found at its own slot, in both lookups */
    for (int i = 0; i < 3; i++) {
        n = 0;
        CHECK(mm_ftable_lookup_t(&t, ks[i], mm_ftable_hash(&t, ks[i]), &n, 0) == sl[i]);
        n = 0;
        CHECK(mm_ftable_lookup_t(&t, ks[i], mm_ftable_hash(&t, ks[i]), &n, 1) == sl[i]);
        CHECK(mm_ftable_home_has_t(&t, sl[0], ks[i], mm_ftable_hash(&t, ks[i]), 0) == (i == 0));
    }
    CHECK(!mm_ftable_home_has_t(&t, sl[0], &a, ha, 0));
    mm_ftable_destroy(&t);
}

/* A projected table (nm's (src,*) and (*,*)): live keys are compared at
 * their head's own key under the mask, idle ones in the slot, kept
 * unprojected. */
static void test_projected(void)
{
    mm_mem mem = {0};
    mm_ftable t;
    CHECK_EQ(mm_ftable_init(&t, 0, 16, 5, MM_FTABLE_ANY_TAG, &mem), 0);
    const mm_key m1 = {2, 7, 100}, m2 = {2, 7, -3}, other = {2, 8, 100};
    const mm_key k = mm_ftable_key(&t, &m1); /* (2, 7, *) */
    CHECK_EQ(k.tag, MM_ANY_TAG);
    const uint32_t h = mm_ftable_hash(&t, &k);
    mm_elem *x1 = new_elem(&m1), *x2 = new_elem(&m2);
    CHECK_EQ(mm_ftable_push(&t, x1, &k, h), 1);
    CHECK_EQ(mm_ftable_push(&t, x2, &k, h), 0);
    mm_fslot *s = mm_ftable_find(&t, &k, h);
    CHECK(s && mm_fslot_live_head(s) == x1);
    int closed;
    mm_ftable_pop(&t, s, &closed);
    mm_ftable_pop(&t, s, &closed);
    CHECK_EQ(closed, 1);
    /* idle with the last element's own key (tag -3) */
    CHECK_EQ(s->tag, MM_FSLOT_IDLE | 2u);
    mm_key ik = idle_key(s);
    CHECK(mm_key_eq(&ik, &m2));
    uint32_t n = 0;
    CHECK(mm_ftable_lookup_t(&t, &k, h, &n, 1) == s);
    const mm_key ko = mm_ftable_key(&t, &other);
    n = 0;
    CHECK(mm_ftable_lookup_t(&t, &ko, mm_ftable_hash(&t, &ko), &n, 1) != s);
    mm_ftable_destroy(&t);
}

/* Growth with idle keys in the table: they are dropped, the live ones
 * keep their FIFOs and sides; then a table full of idle keys sheds them
 * instead of growing. */
static void test_rebuild(void)
{
    mm_mem mem = {0};
    mm_ftable t;
    CHECK_EQ(mm_ftable_init(&t, 0, 16, 3, 0, &mem), 0);
    enum { NK = 8 };
    mm_key k[3 * NK];
    mm_elem *x[3 * NK];
    for (int i = 0; i < 3 * NK; i++) {
        k[i] = (mm_key){i % 3, i - NK, -i}; /* negative tags, some sources */
        x[i] = NULL;
    }
    /* NK keys: half live (messages: side), half idle */
    for (int i = 0; i < NK; i++) {
        x[i] = new_elem(&k[i]);
        uint32_t h = mm_ftable_hash(&t, &k[i]), nn = 0;
        mm_link *l = mm_ftable_link_t(x[i], 0);
        l->next = NULL, l->prev = l;
        CHECK_EQ(mm_ftable_insert_n(&t, &k[i], x[i], h | MM_FSLOT_SIDE, &nn), 0);
        if (i % 2) {
            int closed;
            mm_ftable_pop(&t, mm_ftable_find(&t, &k[i], h), &closed);
            CHECK_EQ(closed, 1);
            x[i] = NULL;
        }
    }
    CHECK_EQ(t.mask + 1, 16);
    CHECK_EQ(t.count, NK);
    CHECK_EQ(t.idle, NK / 2);
    /* one more key passes half load: the idle ones go, the table stays 16 */
    x[NK] = new_elem(&k[NK]);
    CHECK_EQ(mm_ftable_push(&t, x[NK], &k[NK], mm_ftable_hash(&t, &k[NK])), 1);
    CHECK_EQ(t.mask + 1, 16);
    CHECK_EQ(t.idle, 0);
    CHECK_EQ(t.count, NK / 2 + 1);
    /* more live keys: the table doubles */
    for (int i = NK + 1; i < 3 * NK; i++) {
        x[i] = new_elem(&k[i]);
        CHECK_EQ(mm_ftable_push(&t, x[i], &k[i], mm_ftable_hash(&t, &k[i])), 1);
    }
    CHECK(t.mask + 1 >= 64);
    uint32_t live, idle, empty;
    census(&t, &live, &idle, &empty);
    CHECK_EQ(live, t.count);
    CHECK_EQ(idle, 0);
    CHECK_EQ(live + empty, t.mask + 1);
    for (int i = 0; i < 3 * NK; i++) {
        uint32_t h = mm_ftable_hash(&t, &k[i]), n = 0;
        mm_fslot *s = mm_ftable_lookup_t(&t, &k[i], h, &n, 1);
        if (!x[i]) {
            CHECK(s == NULL); /* dropped */
            continue;
        }
        CHECK(s && mm_fslot_live_head(s) == x[i]);
        if (s) /* the side kept through the rebuilds (the first NK were messages) */
            CHECK_EQ(s->tag, h | (i < NK ? MM_FSLOT_SIDE : 0));
    }
    mm_ftable_destroy(&t);
}

int main(void)
{
    pool = calloc(MAXE, mm_elem_size(1));
    if (!pool)
        abort();
    test_encodings();
    test_one_run();
    test_projected();
    test_rebuild();
    free(pool);
    return check_report("test_ftable");
}
