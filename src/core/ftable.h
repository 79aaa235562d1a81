/* ftable.h - a FIFO of elements per key (comm, src, tag), in a seeded hash
 * table whose 12-byte slot holds the FIFO or, while the FIFO is empty, the
 * key itself.
 *
 * A slot is a 32-bit tag word and 8 bytes. While the key has elements
 * queued (live) the tag is the key's seeded hash (29 bits, with a side bit
 * its owner may use: MM_FSLOT_SIDE) and the 8 bytes the FIFO's head element
 * (the key is then read from the head: it is the element a match takes).
 * While the FIFO is empty (idle) the slot is the key itself, laid out as
 * an mm_key with the IDLE bit set in the comm word (communicators are never
 * negative: the API refuses them): tag IDLE | comm, then src and tag. An
 * idle key needs no hash: its lookup compares the whole key (12 bytes, with
 * IDLE or'd into the comm), and the key's hash is computed again, or taken
 * from the memo, when it opens. Slots are 4-byte aligned: the head pointer
 * and the (src, tag) pair are read and written with memcpy at offset 4 (an
 * unaligned 8-byte access, as fast as an aligned one on x86-64 and arm64).
 * Sixteen slots fill three cache lines (two of the sixteen straddle a line)
 * and the slot array starts on one, so a match reads the slot's line (two
 * for one slot in eight) and the partner element's, no key entry in
 * between, and the key comparison reads nothing the match does not. The
 * FIFO is threaded through element link li: next runs from head to tail;
 * prev runs back, except that the head's prev points at the tail, so that
 * appending needs nothing but the head.
 *
 *     live slot [hash | side | head] --> e1 --next--> e2 --next--> e3 (next NULL)
 *                                       e1.prev = e3, e2.prev = e1, e3.prev = e2
 *     idle slot [IDLE | comm | src tag]
 *     empty     [MM_FSLOT_EMPTY | (any)]
 *
 * Open addressing with linear probing; an empty slot has tag
 * MM_FSLOT_EMPTY. A key whose FIFO empties keeps its slot, idle, for its next
 * use: MPI programs use the same keys round after round, and re-inserting a
 * key costs more than the match. Idle slots never make the table grow: when
 * an insertion would pass half load they are dropped first, and the table
 * doubles only if the live keys alone need it (so memory follows the live
 * keys; the table never shrinks).
 *
 * Hostile keys: the hash is mm_mshash (core/khash.h: a mixed multiply-shift)
 * with words drawn from the table's secret seed, and probe runs are bounded: an insertion that lands more than mm_ftable_max_run
 * slots from its home rebuilds the table, twice the size if it is at least
 * a quarter full, else under a new seed (derived from the old one, so a
 * fixed seed still reproduces). Every slot a lookup or insertion inspects is
 * counted (mm_ftable_take_steps), so a slow table shows in the statistics. */
#ifndef MM_CORE_FTABLE_H
#define MM_CORE_FTABLE_H

#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "core/compiler.h"
#include "core/elem.h"
#include "core/khash.h"
#include "core/mem.h"

/* The tag word orders a slot's states: live (below MM_FSLOT_LIVE: the
 * hash, 29 bits, MM_FSLOT_HASH, and bit 29, MM_FSLOT_SIDE), empty
 * (MM_FSLOT_EMPTY, 0x7F7F7F7F: above every live tag, below every idle
 * one), idle (bit 31, MM_FSLOT_IDLE, with the
 * key's comm in bits 0-30: negative as an int32). SIDE is the caller's: a
 * table that files both queue sides under one key (`hash`'s one table: a
 * key never has receives and messages queued at once) marks there which
 * side a live FIFO holds; the table keeps it (appends, rebuilds) and
 * ignores it in lookups; an idle slot has no side. Tables that never set it
 * (nm's) see the slots as before. The empty tag is what memset writes with
 * the byte 0x7F (a new table is filled so). A lookup of hash h compares the
 * tag without SIDE to h (a live slot of the key's hash: then its head's key
 * is compared), else the slot's 12 bytes to the key with IDLE in its comm
 * (an idle slot of the key: neither a live nor an empty tag has bit 31),
 * else the tag to MM_FSLOT_EMPTY (the end of the probe run). */
#define MM_FSLOT_IDLE  0x80000000u
#define MM_FSLOT_SIDE  0x20000000u
#define MM_FSLOT_HASH  0x1FFFFFFFu
#define MM_FSLOT_LIVE  0x40000000u /* tags below it are live              */
#define MM_FSLOT_EMPTY 0x7F7F7F7Fu /* memset(slots, 0x7F, ...)            */
#define MM_FSLOT_EMPTY_BYTE 0x7F

/* The shift that makes a multiply-shift hash a slot's 29-bit hash. */
#define MM_FTABLE_HASH_SHIFT 3

/* The most slots a table holds: 2^29, every hash bit an index bit. */
#define MM_FTABLE_MAX_CAP (1u << 29)

typedef struct mm_fslot {
    uint32_t tag;  /* MM_FSLOT_EMPTY, IDLE | comm, or hash [| SIDE] (live)  */
    uint32_t w[2]; /* live: the FIFO's head (the earliest element); idle:
                      the key's src and tag (memcpy: 4-byte aligned)      */
} mm_fslot;

_Static_assert(sizeof(mm_fslot) == 12, "an ftable slot is 12 bytes: sixteen to three cache lines");
_Static_assert(sizeof(mm_key) == 12 && offsetof(mm_key, comm) == 0 && offsetof(mm_key, src) == 4,
               "an idle slot is laid out as its key");

/* Is a slot with this tag live (a FIFO of elements)? */
static inline int mm_fslot_tag_live(uint32_t tag)
{
    return tag < MM_FSLOT_LIVE;
}

/* The head of live slot s's FIFO. */
MM_INLINE mm_elem *mm_fslot_live_head(const mm_fslot *s)
{
    mm_elem *h;
    memcpy(&h, s->w, sizeof h);
    return h;
}

MM_INLINE void mm_fslot_set_head(mm_fslot *s, mm_elem *head)
{
    memcpy(s->w, &head, sizeof head);
}

/* Make empty slot s live: tag (hash [| SIDE]), its FIFO the one element
 * head (whose links the caller has set). */
static inline void mm_fslot_set_live(mm_fslot *s, uint32_t tag, mm_elem *head)
{
    s->tag = tag;
    mm_fslot_set_head(s, head);
}

/* Make slot s idle with key k (its FIFO emptied). */
MM_INLINE void mm_fslot_set_idle(mm_fslot *s, const mm_key *k)
{
    s->tag = MM_FSLOT_IDLE | (uint32_t)k->comm;
    memcpy(s->w, &k->src, 8);
}

/* The head of used slot s's FIFO, or NULL when the key is idle. */
static inline mm_elem *mm_fslot_head(const mm_fslot *s)
{
    return mm_fslot_tag_live(s->tag) ? mm_fslot_live_head(s) : NULL;
}

/* The longest probe run an insertion accepts in a table of cap slots:
 * 8 log2(cap). Random keys at half load make runs of about 5 log2(cap) at
 * the most in a large table; keys crowding one run make runs as long as
 * their number. */
static inline uint32_t mm_ftable_max_run(uint32_t cap)
{
    return 8u * (uint32_t)__builtin_ctz(cap);
}

typedef struct mm_ftable {
    mm_fslot *slots;   /* on a cache line, inside block                  */
    void     *block;   /* the allocation (the slots and one line more)   */
    mm_fslot *last;    /* slot of the last key remembered (pushed, or
                          found by the plain lookups), whose key is
                          last_key (comm -1: none, last then a valid slot
                          all the same): the slot keeps its key until a
                          rebuild, which clears it. A pointer, not an
                          index: a memo hit loads it and has the slot    */
    mm_key    last_key; /* the key of slot last (8 bytes in: its first
                          8-byte word aligned), hash last_h              */
    uint32_t  mask;    /* capacity - 1 (a power of two)                 */
    uint32_t  count;   /* used slots: live and idle keys                 */
    uint32_t  idle;    /* keys with an empty FIFO                        */
    uint16_t  li;      /* element link of the FIFOs                      */
    uint16_t  proj;    /* MM_FTABLE_ANY_*                                */
    uint32_t  reseeds; /* rebuilds under a new seed                      */
    uint32_t  last_h;  /* the hash of last_key (an idle slot keeps none:
                          opening the memo's slot takes it from here)    */
    mm_key    keep;    /* key compare mask: the bits proj keeps (all
                          ones when proj is 0), read as 8 + 4 bytes      */
    mm_mshash hk;      /* the hash's words, drawn from seed              */
    uint64_t  seed;
    uint64_t  steps;   /* slots inspected since the last take_steps      */
    mm_mem   *mem;
} mm_ftable;

/* 128 bytes with 8-byte pointers: a power of two, so that an array of
 * tables (nm's eight) is indexed with a shift; the fields a call reads
 * (slots, last, count, idle, last_key, last_h) share the first cache line. */
_Static_assert(sizeof(void *) != 8 || sizeof(mm_ftable) == 128,
               "an ftable is 128 bytes (nm indexes arrays of them)");
_Static_assert(sizeof(void *) != 8 || offsetof(mm_ftable, last_h) + 4 <= 64,
               "the memo (last, last_key, last_h) is in the table's first cache line");

/* A table may file elements under a projection of their key (NewMadeleine's
 * (src,*), (*,tag), (*,*) tables): with MM_FTABLE_ANY_SRC / MM_FTABLE_ANY_TAG
 * in proj, the element's source / tag is replaced by the wildcard in the key
 * it is filed under (mm_ftable_key), and callers look up with that key. */
enum { MM_FTABLE_ANY_TAG = 1u << 0, MM_FTABLE_ANY_SRC = 1u << 1 };

/* The bytes t's slots take (its block: the slots and a cache line). */
static inline size_t mm_ftable_bytes(const mm_ftable *t)
{
    return ((size_t)t->mask + 1) * sizeof(mm_fslot) + 64;
}

/* 0, or -1 when out of memory. capacity is rounded up to a power of two >= 16. */
int  mm_ftable_init(mm_ftable *t, unsigned li, uint32_t capacity, uint64_t seed, unsigned proj,
                    mm_mem *mem);
void mm_ftable_destroy(mm_ftable *t);

/* The key x is filed under in t. */
static inline mm_key mm_ftable_key(const mm_ftable *t, const mm_key *x)
{
    mm_key k = *x;
    if (t->proj & MM_FTABLE_ANY_SRC)
        k.src = MM_ANY_SOURCE;
    if (t->proj & MM_FTABLE_ANY_TAG)
        k.tag = MM_ANY_TAG;
    return k;
}

/* Key equality as one 8-byte and one 4-byte compare, without branches. */
static inline int mm_ftable_key_eq(const mm_key *a, const mm_key *b)
{
    uint64_t a8, b8;
    uint32_t a4, b4;
    memcpy(&a8, a, 8), memcpy(&b8, b, 8);
    memcpy(&a4, (const char *)a + 8, 4), memcpy(&b4, (const char *)b + 8, 4);
    return ((a8 ^ b8) | (a4 ^ b4)) == 0;
}

/* ---- The table's operations, as inline templates ----
 *
 * The functions named mm_ftable_*_t take three compile-time arguments, so
 * that a caller that knows them gets its path compiled without the
 * generality it does not use (the `hash` engine: link 0, no projection):
 *   li      the element link of the FIFOs (t->li, passed as a constant);
 *   masked  compare keys under t's projection masks (0: t->proj is 0);
 *   n       where the slots inspected are added (a local, so that the
 *           counting stays in a register; the plain functions below add
 *           them to t->steps, for mm_ftable_take_steps).
 * The plain mm_ftable_* functions are these templates instantiated for any
 * table (nm's projected ones included). */

static inline mm_link *mm_ftable_link_t(mm_elem *x, const unsigned li)
{
    return &x->link[li];
}

static inline mm_link *mm_ftable_link(const mm_ftable *t, mm_elem *x)
{
    return mm_ftable_link_t(x, t->li);
}

/* t's key compare masks (t->keep) as a key is read: its first 8 bytes,
 * then its tag. */
MM_INLINE void mm_ftable_keep_words(const mm_ftable *t, uint64_t *m8, uint32_t *m4)
{
    memcpy(m8, &t->keep, 8), memcpy(m4, &t->keep.tag, 4);
}

/* Key compares: one 8-byte and one 4-byte compare (mm_ftable_key_eq), the
 * fields t projects away masked out under masked (so a live slot compares
 * its head's own key and an idle one keeps its last element's key
 * unprojected). a: the key at p; b: key k. */
MM_INLINE int mm_fslot_cmp12_t(const mm_ftable *t, const void *p, const mm_key *k,
                               const int masked)
{
    if (!masked)
        return mm_ftable_key_eq((const mm_key *)p, k);
    uint64_t a8, b8, m8;
    uint32_t a4, b4, m4;
    memcpy(&a8, p, 8), memcpy(&b8, k, 8);
    memcpy(&a4, (const char *)p + 8, 4), memcpy(&b4, (const char *)k + 8, 4);
    mm_ftable_keep_words(t, &m8, &m4);
    return (((a8 ^ b8) & m8) | ((a4 ^ b4) & m4)) == 0;
}

/* MM_FSLOT_IDLE where an 8-byte load of a key puts its comm word. */
MM_INLINE uint64_t mm_fslot_idle8(void)
{
    const uint32_t w[2] = {MM_FSLOT_IDLE, 0};
    uint64_t x;
    memcpy(&x, w, 8);
    return x;
}

/* Is k (a key filed in t: projected) the key of live slot s (its head's)? */
MM_INLINE int mm_fslot_live_is_t(const mm_ftable *t, const mm_fslot *s, const mm_key *k,
                                 const int masked)
{
    return mm_fslot_cmp12_t(t, &mm_fslot_live_head(s)->key, k, masked);
}

/* Is slot s idle with key k? The slot's 12 bytes are the key with IDLE in
 * its comm word: no live or empty slot passes (comm is never masked). The
 * key is read as the element's fill stored it (enter.h: two 8-byte words,
 * comm and src, then tag and the kind): a load of src and tag together
 * would span both stores and wait for them (a store-forwarding stall) when
 * k is a new element's key. The tags are compared first: they differ in
 * nearly every slot that is not k's, live or idle alike, so that branch is
 * predictable where one on the slot's state (whether a slot passed on a
 * probe run is live or idle) is not; so is a branch on the whole compare
 * done without one (measured: `hash`, `nm` and `auto` 2-5% slower on
 * shuffle n=4096, docs/engines.md). */
MM_INLINE int mm_fslot_idle_is_t(const mm_ftable *t, const mm_fslot *s, const mm_key *k,
                                 const int masked)
{
    uint32_t a4, b4;
    uint64_t a8, b8;
    memcpy(&a4, (const char *)s + 8, 4), memcpy(&b4, &k->tag, 4);
    memcpy(&a8, s, 8), memcpy(&b8, k, 8);
    b8 |= mm_fslot_idle8();
    if (!masked)
        return a4 == b4 && a8 == b8;
    uint64_t m8;
    uint32_t m4;
    mm_ftable_keep_words(t, &m8, &m4);
    return ((a4 ^ b4) & m4) == 0 && ((a8 ^ b8) & m8) == 0;
}

/* Is k the key of used slot s, live or idle (compared under t's
 * projection)? For the rare paths and the tests: the lookups compare a
 * slot of k's hash (mm_fslot_has_t). */
static inline int mm_fslot_is(const mm_ftable *t, const mm_fslot *s, const mm_key *k)
{
    return mm_fslot_tag_live(s->tag) ? mm_fslot_live_is_t(t, s, k, 1)
                                     : mm_fslot_idle_is_t(t, s, k, 1);
}

/* Is slot s key k's (hash h), live or idle? A live tag of hash h (SIDE
 * aside) compares the head's key; any other slot is k's only idle. */
MM_INLINE int mm_fslot_has_t(const mm_ftable *t, const mm_fslot *s, const mm_key *k, uint32_t h,
                             const int masked)
{
    const uint32_t tag = s->tag;
    if ((tag & ~MM_FSLOT_SIDE) == h)
        return mm_fslot_live_is_t(t, s, k, masked);
    return mm_fslot_idle_is_t(t, s, k, masked);
}

/* The key's hash under words hk: the top 29 bits of the multiply-shift
 * hash (tables have at most 2^29 slots), so that a live tag, with SIDE,
 * stays below MM_FSLOT_LIVE. */
static inline uint32_t mm_ftable_hash_hk(const mm_mshash *hk, const mm_key *k)
{
    return mm_mshash_key(hk, k) >> MM_FTABLE_HASH_SHIFT;
}

/* The key's hash in t. */
static inline uint32_t mm_ftable_hash(const mm_ftable *t, const mm_key *k)
{
    return mm_ftable_hash_hk(&t->hk, k);
}

/* Do tables a and b hash alike (the same seed)? */
static inline int mm_ftable_same_hash(const mm_ftable *a, const mm_ftable *b)
{
    return a->seed == b->seed;
}

/* Slots inspected since the last call (for mm_qstats.probes), and reset. */
static inline uint64_t mm_ftable_take_steps(mm_ftable *t)
{
    uint64_t s = t->steps;
    t->steps = 0;
    return s;
}

/* Remember slot s as the one of key k, hash h (SIDE ignored) (the memo of
 * mm_ftable_memo). */
MM_INLINE void mm_ftable_remember(mm_ftable *t, const mm_fslot *s, const mm_key *k, uint32_t h)
{
    t->last = (mm_fslot *)s;
    t->last_key = *k;
    t->last_h = h & MM_FSLOT_HASH;
}

/* The slot of key k (hash h = mm_ftable_hash(t, k)), live or idle, or NULL,
 * for a caller that has already inspected the first skip slots of k's probe
 * run (neither k's nor empty: mm_ftable_home_slot); the slots inspected,
 * those skip included, are added to *n. The memo is left alone. */
MM_INLINE mm_fslot *mm_ftable_lookup_from_t(const mm_ftable *t, const mm_key *k, uint32_t h,
                                            const uint32_t skip, uint32_t *n, const int masked)
{
    uint32_t i = (h + skip) & t->mask;
    for (uint32_t c = 1 + skip;; c++, i = (i + 1) & t->mask) {
        mm_fslot *s = &t->slots[i];
        uint32_t tag = s->tag;
        if ((tag & ~MM_FSLOT_SIDE) == h) { /* live, of k's hash */
            if (mm_fslot_live_is_t(t, s, k, masked)) {
                *n += c;
                return s;
            }
        } else {
            if (mm_fslot_idle_is_t(t, s, k, masked)) { /* k's, idle */
                *n += c;
                return s;
            }
            if (tag == MM_FSLOT_EMPTY) { /* (an empty slot's 8 bytes may be k's) */
                *n += c;
                return NULL;
            }
        }
    }
}

/* The slot of key k (hash h = mm_ftable_hash(t, k)), live or idle, or NULL;
 * the slots inspected are added to *n. The memo is left alone. */
MM_INLINE mm_fslot *mm_ftable_lookup_t(const mm_ftable *t, const mm_key *k, uint32_t h,
                                       uint32_t *n, const int masked)
{
    return mm_ftable_lookup_from_t(t, k, h, 0, n, masked);
}

/* The first step of mm_ftable_lookup_t alone, for a caller that does the
 * rest itself when it must: key k's home slot (hash h), which the whole
 * lookup counts as 1 slot inspected when it ends there, and whether it is
 * k's (mm_ftable_home_has_t). No loop, no answer to decode: the caller's
 * three outcomes (k's slot, k absent behind an empty slot, the rest of the
 * probe run to look at) are its own branches on the slot's tag. */
MM_INLINE mm_fslot *mm_ftable_home_slot(const mm_ftable *t, uint32_t h)
{
    return &t->slots[h & t->mask];
}

MM_INLINE int mm_ftable_home_has_t(const mm_ftable *t, const mm_fslot *s, const mm_key *k,
                                   uint32_t h, const int masked)
{
    return mm_fslot_has_t(t, s, k, h, masked);
}

/* mm_ftable_lookup_t for any table, counting in t->steps, and remembering a
 * slot found. */
static inline mm_fslot *mm_ftable_slot(mm_ftable *t, const mm_key *k, uint32_t h)
{
    uint32_t n = 0;
    mm_fslot *s = mm_ftable_lookup_t(t, k, h, &n, 1);
    t->steps += n;
    if (s)
        mm_ftable_remember(t, s, k, h);
    return s;
}

/* The slot of key k if its FIFO is not empty (its head is the earliest
 * element queued under k), or NULL. */
static inline mm_fslot *mm_ftable_find(mm_ftable *t, const mm_key *k, uint32_t h)
{
    if (t->count == t->idle) /* one side empty is the common case: no probe */
        return NULL;
    mm_fslot *s = mm_ftable_slot(t, k, h);
    return s && mm_fslot_head(s) ? s : NULL;
}

/* The slot of key k, live or idle, if it is the last key remembered
 * (mm_ftable_remember), else NULL: no hash computed, and only the table's own copy of
 * the key compared (no slot or element read to say no). Runs of the same
 * key (a burst of receives, then of their messages) take this path. A hit
 * counts one slot inspected in *n. */
MM_INLINE int mm_ftable_memo_is(const mm_ftable *t, const mm_key *k)
{
    return mm_ftable_key_eq(&t->last_key, k);
}

/* The remembered slot (of a key mm_ftable_memo_is accepted): never NULL;
 * its key's hash is mm_ftable_memo_hash. */
MM_INLINE mm_fslot *mm_ftable_memo_slot(const mm_ftable *t)
{
    return t->last;
}

MM_INLINE uint32_t mm_ftable_memo_hash(const mm_ftable *t)
{
    return t->last_h;
}

MM_INLINE mm_fslot *mm_ftable_memo_t(mm_ftable *t, const mm_key *k, uint32_t *n)
{
    if (!mm_ftable_memo_is(t, k))
        return NULL;
    *n += 1;
    return mm_ftable_memo_slot(t);
}

static inline mm_fslot *mm_ftable_memo(mm_ftable *t, const mm_key *k)
{
    uint32_t n = 0;
    mm_fslot *s = mm_ftable_memo_t(t, k, &n);
    t->steps += n;
    return s;
}

/* Insert a new key k whose FIFO is x alone (k absent; x's link already
 * set: next NULL, prev itself), and remember its slot. Adds the slots
 * inspected to *n. 0, or -1 when out of memory (the table unchanged). h is
 * the key's hash, with the FIFO's side (MM_FSLOT_SIDE) or'd in by a table
 * that marks sides (the slot's tag: bit 29 lies outside every slot index). */
int mm_ftable_insert_n(mm_ftable *t, const mm_key *k, mm_elem *x, uint32_t h, uint32_t *n);

/* No slot known (mm_ftable_insert_at). */
#define MM_FTABLE_NO_SLOT 0xFFFFFFFFu

/* mm_ftable_insert_n for a key whose lookup (mm_ftable_lookup_t, hash h)
 * has just ended on the empty slot at, which it inspected and counted: the
 * key takes that slot without walking its probe run again, unless the
 * table must first grow or shed its idle keys (then it is placed anew, and
 * the new run counted). at MM_FTABLE_NO_SLOT: no lookup was made. */
int mm_ftable_insert_at(mm_ftable *t, const mm_key *k, mm_elem *x, uint32_t h, uint32_t at,
                        uint32_t *n);

/* The empty slot where a lookup of hash h that inspected n slots and found
 * nothing ended (n counted from 0 for that lookup). */
static inline uint32_t mm_ftable_miss_slot(const mm_ftable *t, uint32_t h, uint32_t n)
{
    return (h + n - 1) & t->mask;
}

static inline int mm_ftable_insert(mm_ftable *t, const mm_key *k, mm_elem *x, uint32_t h)
{
    uint32_t n = 0;
    int rc = mm_ftable_insert_n(t, k, x, h, &n);
    t->steps += n;
    return rc;
}

/* Append x to the FIFO of slot s (live or idle) of a key of hash h. 1 when
 * that opened it, its tag then h with the FIFO's side (0 or MM_FSLOT_SIDE);
 * joining a live FIFO leaves its side as it is (the caller's: a live FIFO
 * of the other side is a match, never an append). */
MM_INLINE void mm_ftable_open_t(mm_ftable *t, mm_fslot *s, mm_elem *x, const unsigned li,
                                const uint32_t side, uint32_t h);
MM_INLINE void mm_ftable_join_t(mm_fslot *s, mm_elem *x, const unsigned li);

MM_INLINE int mm_ftable_append_side_t(mm_ftable *t, mm_fslot *s, mm_elem *x, const unsigned li,
                                      const uint32_t side, uint32_t h)
{
    if (!mm_fslot_tag_live(s->tag)) {
        mm_ftable_open_t(t, s, x, li, side, h);
        return 1;
    }
    mm_ftable_join_t(s, x, li);
    return 0;
}

/* Set a new element's link l to next and prev with one 16-byte store (with
 * SSE2) instead of two: the append's path is bound by its stores more than
 * by its instructions (`hash` on burst, docs/engines.md). */
MM_INLINE void mm_ftable_link_set(mm_link *l, mm_link *next, mm_link *prev)
{
#if defined(__SSE2__)
    _mm_storeu_si128((__m128i *)(void *)l,
                     _mm_set_epi64x((long long)(uintptr_t)prev, (long long)(uintptr_t)next));
#else
    l->next = next;
    l->prev = prev;
#endif
}

/* The two cases of mm_ftable_append_side_t, for a caller that has told them
 * apart already (from the slot's tag, as `hash` does in the compare that
 * also finds its partner): open idle slot s, of a key of hash h, with x
 * alone (the FIFO's side marked in the tag), or append x to live slot s's
 * FIFO. */
MM_INLINE void mm_ftable_open_t(mm_ftable *t, mm_fslot *s, mm_elem *x, const unsigned li,
                                const uint32_t side, uint32_t h)
{
    mm_link *l = mm_ftable_link_t(x, li);
    mm_ftable_link_set(l, NULL, l);
    mm_fslot_set_live(s, (h & MM_FSLOT_HASH) | side, x);
    t->idle--;
}

MM_INLINE void mm_ftable_join_t(mm_fslot *s, mm_elem *x, const unsigned li)
{
    mm_link *l = mm_ftable_link_t(x, li);
    mm_link *hl = mm_ftable_link_t(mm_fslot_live_head(s), li);
    mm_link *tail = hl->prev;
    mm_ftable_link_set(l, NULL, tail);
    tail->next = l;
    hl->prev = l;
}

MM_INLINE int mm_ftable_append_t(mm_ftable *t, mm_fslot *s, mm_elem *x, const unsigned li,
                                 uint32_t h)
{
    return mm_ftable_append_side_t(t, s, x, li, 0, h);
}

static inline int mm_ftable_append(mm_ftable *t, mm_fslot *s, mm_elem *x, uint32_t h)
{
    return mm_ftable_append_t(t, s, x, t->li, h);
}

/* Append x, filed under key k = mm_ftable_key(t, &x->key) with hash h, to
 * its FIFO, and remember the key's slot. 1 when that opened the FIFO, 0
 * when it joined one, -1 when out of memory (nothing changed). */
MM_INLINE int mm_ftable_push_t(mm_ftable *t, mm_elem *x, const mm_key *k, uint32_t h,
                               uint32_t *n, const unsigned li, const int masked)
{
    uint32_t at = MM_FTABLE_NO_SLOT, n0 = *n;
    if (t->count) {
        mm_fslot *s = mm_ftable_lookup_t(t, k, h, n, masked);
        if (s) {
            mm_ftable_remember(t, s, k, h);
            return mm_ftable_append_t(t, s, x, li, h);
        }
        at = mm_ftable_miss_slot(t, h, *n - n0);
    }
    mm_link *l = mm_ftable_link_t(x, li);
    l->next = NULL;
    l->prev = l;
    return mm_ftable_insert_at(t, k, x, h, at, n) == 0 ? 1 : -1;
}

static inline int mm_ftable_push(mm_ftable *t, mm_elem *x, const mm_key *k, uint32_t h)
{
    uint32_t n = 0;
    int rc = mm_ftable_push_t(t, x, k, h, &n, t->li, 1);
    t->steps += n;
    return rc;
}

/* mm_ftable_push, hashing k only when it is not the last key used. */
static inline int mm_ftable_push_key(mm_ftable *t, mm_elem *x, const mm_key *k)
{
    mm_fslot *s = t->count ? mm_ftable_memo(t, k) : NULL;
    if (s)
        return mm_ftable_append(t, s, x, mm_ftable_memo_hash(t));
    return mm_ftable_push(t, x, k, mm_ftable_hash(t, k));
}

/* The live slot of key k, or NULL: the last key used, else a lookup
 * (hashing k). */
static inline mm_fslot *mm_ftable_find_key(mm_ftable *t, const mm_key *k)
{
    if (t->count == t->idle)
        return NULL;
    mm_fslot *s = mm_ftable_memo(t, k);
    if (!s)
        s = mm_ftable_slot(t, k, mm_ftable_hash(t, k));
    return s && mm_fslot_head(s) ? s : NULL;
}

/* Take the head of live slot s's FIFO (returned). *closed tells whether
 * that emptied the FIFO: the key stays, idle, in the slot (the element's
 * own key, which mm_fslot_is compares under t's projection; the element is
 * the one the caller reads anyway). */
MM_INLINE mm_elem *mm_ftable_pop_t(mm_ftable *t, mm_fslot *s, int *closed, const unsigned li)
{
    mm_elem *x = mm_fslot_live_head(s);
    mm_link *l = mm_ftable_link_t(x, li);
    mm_link *n = l->next;
    if (n) {
        n->prev = l->prev;
        mm_fslot_set_head(s, mm_elem_of(n, li));
        *closed = 0;
    } else {
        mm_fslot_set_idle(s, &x->key); /* (the hash and the side go) */
        t->idle++;
        *closed = 1;
    }
    l->next = l->prev = NULL;
    return x;
}

static inline mm_elem *mm_ftable_pop(mm_ftable *t, mm_fslot *s, int *closed)
{
    return mm_ftable_pop_t(t, s, closed, t->li);
}

/* The head of key k's FIFO (hash h), or NULL: taken off the FIFO when
 * remove (*closed: that emptied it), else left queued (*closed = 0). */
static inline mm_elem *mm_ftable_take(mm_ftable *t, const mm_key *k, uint32_t h, int remove,
                                      int *closed)
{
    mm_fslot *s = mm_ftable_find(t, k, h);
    *closed = 0;
    if (!s)
        return NULL;
    return remove ? mm_ftable_pop(t, s, closed) : mm_fslot_live_head(s);
}

/* Unlink x, filed under key k = mm_ftable_key(t, &x->key), from its FIFO,
 * wherever it is. Returns 1 when that emptied the FIFO. A middle element
 * is unlinked in O(1) without hashing; the head or the tail needs the slot. */
static inline int mm_ftable_remove(mm_ftable *t, mm_elem *x, const mm_key *k)
{
    mm_link *l = mm_ftable_link(t, x);
    int is_head = l->prev->next != l; /* the head's prev is the tail, whose next is NULL */
    if (!is_head && l->next) {
        l->prev->next = l->next;
        l->next->prev = l->prev;
        l->next = l->prev = NULL;
        return 0;
    }
    mm_fslot *s = mm_ftable_find_key(t, k);
    int closed;
    if (is_head) {
        mm_ftable_pop(t, s, &closed);
        return closed;
    }
    /* the tail, behind a head */
    mm_ftable_link(t, mm_fslot_live_head(s))->prev = l->prev;
    l->prev->next = NULL;
    l->next = l->prev = NULL;
    return 0;
}

/* ---- Bulk insertion ----
 *
 * A structure that moves its queued elements into t (auto's switch from
 * its list into hash) files a whole list queue at once: the elements from
 * link `first` (the queue's links are link from_li) up to, not including,
 * the sentinel at address end (never read: its memory may be another
 * structure's by then), appended in that order to their keys' FIFOs (link
 * t->li; a FIFO opened gets side, MM_FSLOT_SIDE or 0, in its tag), as
 * mm_ftable_push of each in turn would, with the same probe runs. What the
 * per-element path does besides is left out: the memo (not read, and set
 * only by an insertion that grows or rebuilds the table), the statistics
 * (returned in *out, for the caller to record once: slots inspected in all
 * and by the worst element, FIFOs opened), and the out-of-line insertion
 * (a new key takes the empty slot its lookup ended on, written in place;
 * only a table that must grow first, or a probe run past the bound, takes
 * mm_ftable_insert_at, whose rebuild or re-seed then applies as ever).
 * Each element's next link is read before it is relinked (from_li may be
 * t->li). (Hashing keys some elements ahead to prefetch their home slots
 * measured no faster: the move follows the allocation that emptied the
 * slots, which are in cache, and cost more instructions.)
 * 0, or -1 when the table had to grow and could not (out of memory): the
 * elements before the one that failed are filed, it (its link t->li reset)
 * and the rest are not; a table with room for them all (at most half full
 * after: (count + n) * 2 <= capacity) never grows. */
typedef struct mm_ftable_filled {
    uint64_t probes;     /* slots inspected                              */
    uint64_t max_probes; /* the most by one element                      */
    uint64_t opened;     /* FIFOs opened (new keys, and idle ones)        */
} mm_ftable_filled;

int mm_ftable_fill(mm_ftable *t, mm_link *first, const mm_link *end, unsigned from_li,
                   uint32_t side, mm_ftable_filled *out);

#endif
