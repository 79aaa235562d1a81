/* elem.h - the queued element and the MPI match rule.
 *
 * One element is one posted receive or one unexpected message. The fixed part
 * is 48 bytes; engines append as many intrusive links as they need (most need
 * one, which makes the element exactly one 64-byte cache line). */
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

/* After seq, the fields mirror mm_entry's (flags and slot where the entry
 * has its reserved word), so the API fills an element with one 40-byte copy. */
typedef struct mm_elem {
    uint64_t  seq;       /* order of the call that created it             */
    mm_key    key;
    uint8_t   kind, coll_op;
    uint8_t   flags;     /* MM_ELEM_* */
    uint8_t   slot;      /* engine-private: which queue/table holds it     */
    uint32_t  comm_size, call;
    uint64_t  bytes;
    uintptr_t cookie;
    mm_link   link[];    /* engine-defined number of links                 */
} mm_elem;

_Static_assert(sizeof(mm_elem) == 48, "element header must stay 48 bytes");
_Static_assert(sizeof(mm_entry) == 40 &&
               offsetof(mm_elem, key.comm) - 8 == offsetof(mm_entry, comm) &&
               offsetof(mm_elem, key.src) - 8 == offsetof(mm_entry, src) &&
               offsetof(mm_elem, key.tag) - 8 == offsetof(mm_entry, tag) &&
               offsetof(mm_elem, kind) - 8 == offsetof(mm_entry, kind) &&
               offsetof(mm_elem, coll_op) - 8 == offsetof(mm_entry, coll_op) &&
               offsetof(mm_elem, flags) - 8 == offsetof(mm_entry, reserved) &&
               offsetof(mm_elem, comm_size) - 8 == offsetof(mm_entry, comm_size) &&
               offsetof(mm_elem, call) - 8 == offsetof(mm_entry, call) &&
               offsetof(mm_elem, bytes) - 8 == offsetof(mm_entry, bytes) &&
               offsetof(mm_elem, cookie) - 8 == offsetof(mm_entry, cookie),
               "an element is its entry, 8 bytes in");

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
