/* core/ftable.h without SSE2: mm_ftable_link_set's portable path (two
 * stores) must compile and set the same links as the 16-byte store that
 * every other build of the header takes on x86-64 (branch hash13h). This
 * file undefines __SSE2__ before any include, so the header's inline
 * functions here take the portable path; the library (ftable.c) is the
 * usual one. A FIFO is opened, joined, popped and removed through the
 * inline functions that call mm_ftable_link_set, both sides marked. */
#undef __SSE2__
#include <stdlib.h>
#include "check.h"
#include "core/ftable.h"
#if defined(__SSE2__)
#error "__SSE2__ still defined: this test would not cover the portable path"
#endif

enum { NE = 5 };

static mm_elem *elem_at(void *base, int i)
{
    return (mm_elem *)((char *)base + (size_t)i * mm_elem_size(1));
}

int main(void)
{
    /* the store itself */
    mm_link a = {0}, b = {0}, c = {0};
    mm_ftable_link_set(&a, &b, &c);
    CHECK(a.next == &b);
    CHECK(a.prev == &c);
    mm_ftable_link_set(&a, NULL, &a);
    CHECK(a.next == NULL);
    CHECK(a.prev == &a);

    mm_mem mem = {0};
    mm_ftable t;
    CHECK_EQ(mm_ftable_init(&t, 0, 16, 12345, 0, &mem), 0);
    void *el = calloc(NE + 1, mm_elem_size(1));
    if (!el)
        abort();
    const mm_key k = {1, 2, 3};
    for (int i = 0; i <= NE; i++) {
        elem_at(el, i)->key = k;
        elem_at(el, i)->seq = (uint64_t)i + 1;
    }
    /* a new key (out of line), then joins (inline: mm_ftable_join_t) */
    uint32_t h = mm_ftable_hash(&t, &k), n = 0;
    mm_link *l0 = mm_ftable_link_t(elem_at(el, 0), 0);
    l0->next = NULL;
    l0->prev = l0;
    CHECK_EQ(mm_ftable_insert_n(&t, &k, elem_at(el, 0), h | MM_FSLOT_SIDE, &n), 0);
    mm_fslot *s = mm_ftable_find(&t, &k, h);
    CHECK(s != NULL);
    if (!s)
        return 1;
    CHECK_EQ(s->tag & MM_FSLOT_SIDE, MM_FSLOT_SIDE);
    for (int i = 1; i < NE; i++)
        CHECK_EQ(mm_ftable_append_side_t(&t, s, elem_at(el, i), 0, 0, h), 0);
    CHECK_EQ(s->tag & MM_FSLOT_SIDE, MM_FSLOT_SIDE); /* a join keeps the side */
    /* the links: a chain from the head, the head's prev the tail */
    mm_link *hl = mm_ftable_link_t(mm_fslot_live_head(s), 0);
    CHECK(hl->prev == mm_ftable_link_t(elem_at(el, NE - 1), 0));
    for (int i = 0; i < NE; i++) {
        mm_link *li = mm_ftable_link_t(elem_at(el, i), 0);
        CHECK(li->next == (i + 1 < NE ? mm_ftable_link_t(elem_at(el, i + 1), 0) : NULL));
        if (i > 0)
            CHECK(li->prev == mm_ftable_link_t(elem_at(el, i - 1), 0));
    }
    /* remove a middle element (the list must be consistent), pop the rest in order */
    CHECK_EQ(mm_ftable_remove(&t, elem_at(el, 2), &k), 0);
    const int order[] = {0, 1, 3, 4};
    for (int j = 0; j < 4; j++) {
        int closed = -1;
        mm_elem *x = mm_ftable_pop_t(&t, s, &closed, 0);
        CHECK(x == elem_at(el, order[j]));
        CHECK_EQ(closed, j == 3);
    }
    CHECK(s->tag & MM_FSLOT_IDLE);
    /* the idle key reopened on the other side (inline: mm_ftable_open_t) */
    CHECK_EQ(mm_ftable_append_side_t(&t, s, elem_at(el, NE), 0, 0, h), 1);
    CHECK_EQ(s->tag, h); /* live, no side */
    mm_link *ln = mm_ftable_link_t(elem_at(el, NE), 0);
    CHECK(ln->next == NULL);
    CHECK(ln->prev == ln);
    CHECK(mm_ftable_find(&t, &k, h) == s);
    mm_ftable_destroy(&t);
    free(el);
    return check_report("test_ftable_nosse2");
}
