/* simd_scan.h - find the first matching key in packed key arrays, with
 * several keys compared per instruction (the `simd` engine's inner loop).
 *
 * A queue keeps its keys as three parallel int32 arrays (structure of
 * arrays): comm[i], src[i], tag[i]. A slot inside the searched range that
 * holds no live element has comm[i] == -1, which no search matches
 * (communicators are >= 0). The arrays are allocated in whole blocks of
 * MM_SIMD_BLOCK slots, so a scanner may read whole vectors from the block
 * of `from` to the block of `to - 1` without a scalar head or tail: the
 * lanes outside [from, to) may hold anything (old keys), and a scanner
 * never answers one of them.
 *
 * One pattern serves both directions and every wildcard: slot i matches iff
 *     comm[i] == comm
 *  && ((src[i] & src_mask) == src || src[i] == src_alt)
 *  && ((tag[i] & tag_mask) == tag || tag[i] == tag_alt)
 * (see mm_simd_pat_recv / mm_simd_pat_msg for how a key becomes a pattern). */
#ifndef MM_ENGINES_SIMD_SCAN_H
#define MM_ENGINES_SIMD_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include "core/elem.h"

/* Bytes of key per queued element in the packed arrays: comm, src and tag,
 * one int32 each. The design bound is 16 (four 32-bit words). */
enum { MM_SIMD_KEY_WORDS = 3 };
_Static_assert(MM_SIMD_KEY_WORDS * sizeof(int32_t) <= 16,
               "simd: at most 16 bytes of packed key per queued element");

enum { MM_SIMD_BLOCK = 16 };          /* slots per allocation block (one AVX-512 vector) */
#define MM_SIMD_NONE UINT32_MAX       /* no slot matches */

enum { MM_ISA_AUTO = 0, MM_ISA_SCALAR = 1, MM_ISA_AVX2 = 2, MM_ISA_AVX512 = 3 };

typedef struct mm_simd_pat {
    int32_t comm;
    int32_t src_mask, src, src_alt;
    int32_t tag_mask, tag, tag_alt;
} mm_simd_pat;

/* First slot i in [from, to) that matches p, or MM_SIMD_NONE. Reads the
 * arrays from the block containing from up to the block containing to - 1. */
typedef uint32_t (*mm_simd_scan_fn)(const int32_t *comm, const int32_t *src, const int32_t *tag,
                                    uint32_t from, uint32_t to, const mm_simd_pat *p);

/* For a pattern with a specific tag (tag_mask == -1: every message key, and
 * a receive key without ANY_TAG): the first slot i in [from, to) whose tag
 * alone could match p, tag[i] == tag || tag[i] == tag_alt; or MM_SIMD_NONE.
 * A candidate is verified by the caller (its comm and source, and whether
 * the slot is a hole: holes keep their old tag). Reads 4 bytes per slot
 * instead of 12. Lanes past to may be read up to the block boundary, as
 * with the full scan. */
typedef uint32_t (*mm_simd_tagscan_fn)(const int32_t *tag, uint32_t from, uint32_t to,
                                       const mm_simd_pat *p);

/* The tag scanner of an available isa (as resolved by mm_simd_scan_select). */
mm_simd_tagscan_fn mm_simd_tagscan_for(int isa);

/* The scanner for isa (MM_ISA_*; AUTO picks the widest the CPU has) in
 * *fn, and its resolved ISA in *chosen. 0, or MM_EPARAM with a message when
 * the CPU (or this build) lacks the ISA asked for. */
int mm_simd_scan_select(int isa, mm_simd_scan_fn *fn, int *chosen, char *err, size_t errlen);

const char *mm_simd_isa_name(int isa);

/* Can this CPU and build run isa (MM_ISA_SCALAR..MM_ISA_AVX512)? */
int mm_simd_isa_available(int isa);

/* A receive key (possibly with wildcards) searching queued messages, whose
 * sources are >= 0 and whose tags are never ANY_TAG (INT32_MIN). */
static inline mm_simd_pat mm_simd_pat_recv(const mm_key *k)
{
    mm_simd_pat p = {.comm = k->comm, .src_mask = -1, .src = k->src,
                     .tag_mask = -1, .tag = k->tag};
    if (k->src == MM_ANY_SOURCE)
        p.src_mask = 0, p.src = 0;          /* every source */
    if (k->tag == MM_ANY_TAG)
        p.tag_mask = INT32_MIN, p.tag = 0;  /* sign bit clear: tags >= 0 only */
    p.src_alt = p.src, p.tag_alt = p.tag;   /* no second chance */
    return p;
}

/* A message key searching queued receives, which hold ANY_SOURCE (-1) and
 * ANY_TAG (INT32_MIN) as they are: the second chance accepts them, except
 * ANY_TAG for a negative tag. */
static inline mm_simd_pat mm_simd_pat_msg(const mm_key *k)
{
    return (mm_simd_pat){.comm = k->comm, .src_mask = -1, .src = k->src, .src_alt = MM_ANY_SOURCE,
                         .tag_mask = -1, .tag = k->tag,
                         .tag_alt = k->tag >= 0 ? MM_ANY_TAG : k->tag};
}

#endif
