/* elem.h - the queued element and the MPI match rule.
 *
 * One element is one posted receive or one unexpected message. The fixed part
 * is 32 bytes; engines append as many intrusive links as they need (most need
 * one, which makes the element 48 bytes: four fit in three 64-byte lines). */
#ifndef MM_CORE_ELEM_H
#define MM_CORE_ELEM_H

#include <stddef.h>
#include <stdint.h>
#include "mpimatch.h"
#include "core/compiler.h"

typedef struct mm_link {
    struct mm_link *next, *prev;
} mm_link;

typedef struct mm_key {
    int32_t comm, src, tag;
} mm_key;

enum {
    MM_ELEM_RECV    = 1u << 0, /* a posted receive (else a message)     */
    MM_ELEM_QUEUED  = 1u << 1, /* linked into the engine's queues        */
    MM_ELEM_NOQUEUE = 1u << 2, /* search only: the API has no pooled element
                                  for it (out of memory), see mm_may_queue */
    MM_ELEM_WILD    = 1u << 3  /* MM_CFG_CONCURRENT: one shard's copy of an
                                  ANY_SOURCE receive (shard.c); engines ignore it */
};

/* An element keeps what matching needs: after seq, the key and the kind word
 * mirror the entry's first 16 bytes (flags and slot where the entry has its
 * reserved word), then the cookie. The entry's comm_size, call and bytes
 * describe the caller's call, which the cookie names: they are not kept. The
 * collective engines read them from the call's own entry while the call runs
 * (mm_engine.coll_entry), and mm_walk reports them as 0. */
typedef struct mm_elem {
    uint64_t  seq;       /* order of the call that created it             */
    mm_key    key;
    uint8_t   kind, coll_op;
    uint8_t   flags;     /* MM_ELEM_* */
    uint8_t   slot;      /* engine-private: which queue/table holds it     */
    uintptr_t cookie;    /* the entry's                                    */
    mm_link   link[];    /* engine-defined number of links                 */
} mm_elem;

_Static_assert(sizeof(mm_elem) == 32, "element header must stay 32 bytes");
_Static_assert(sizeof(mm_entry) == 40 &&
               offsetof(mm_elem, key.comm) - 8 == offsetof(mm_entry, comm) &&
               offsetof(mm_elem, key.src) - 8 == offsetof(mm_entry, src) &&
               offsetof(mm_elem, key.tag) - 8 == offsetof(mm_entry, tag) &&
               offsetof(mm_elem, kind) - 8 == offsetof(mm_entry, kind) &&
               offsetof(mm_elem, coll_op) - 8 == offsetof(mm_entry, coll_op) &&
               offsetof(mm_elem, flags) - 8 == offsetof(mm_entry, reserved) &&
               offsetof(mm_entry, comm_size) == 16 &&
               offsetof(mm_elem, cookie) == 24,
               "an element's key and kind word are the entry's first 16 bytes, 8 bytes in; "
               "the cookie follows them");

static inline size_t mm_elem_size(unsigned nlinks)
{
    return sizeof(mm_elem) + nlinks * sizeof(mm_link);
}

static inline mm_elem *mm_elem_of(mm_link *l, unsigned li)
{
    return (mm_elem *)((char *)(l - li) - offsetof(mm_elem, link));
}

/* The MPI rule: does receive key r accept message key m?  ANY_TAG accepts
 * only tags >= 0: negative tags are an MPI library's internal traffic. */
MM_INLINE int mm_match(const mm_key *r, const mm_key *m)
{
    return r->comm == m->comm
        && (r->src == m->src || r->src == MM_ANY_SOURCE)
        && (r->tag == m->tag || (r->tag == MM_ANY_TAG && m->tag >= 0));
}

static inline int mm_key_eq(const mm_key *a, const mm_key *b)
{
    return a->comm == b->comm && a->src == b->src && a->tag == b->tag;
}

static inline int mm_key_wild(const mm_key *k)
{
    return k->src == MM_ANY_SOURCE || k->tag == MM_ANY_TAG;
}

#endif
