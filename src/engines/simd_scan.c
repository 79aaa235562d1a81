/* simd_scan.c - the scanners behind simd_scan.h: plain C, AVX2 (8 keys per
 * compare) and AVX-512F (16 keys per compare).
 *
 * The vector scanners are compiled with GCC/Clang target attributes, so the
 * library builds with plain -std=c11 and no -march flag, and one binary runs
 * everywhere: the CPU is asked once, when an engine is created, which of them
 * it can run (__builtin_cpu_supports). */
#include <stdio.h>
#include "mpimatch.h"
#include "engines/simd_scan.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define MM_SIMD_X86 1
#include <immintrin.h>
#else
#define MM_SIMD_X86 0
#endif

static inline int slot_matches(const int32_t *comm, const int32_t *src, const int32_t *tag,
                               uint32_t i, const mm_simd_pat *p)
{
    return comm[i] == p->comm
        && ((src[i] & p->src_mask) == p->src || src[i] == p->src_alt)
        && ((tag[i] & p->tag_mask) == p->tag || tag[i] == p->tag_alt);
}

static uint32_t scan_scalar(const int32_t *comm, const int32_t *src, const int32_t *tag,
                            uint32_t from, uint32_t to, const mm_simd_pat *p)
{
    for (uint32_t i = from; i < to; i++)
        if (slot_matches(comm, src, tag, i, p))
            return i;
    return MM_SIMD_NONE;
}

static uint32_t tagscan_scalar(const int32_t *tag, uint32_t from, uint32_t to,
                               const mm_simd_pat *p)
{
    for (uint32_t i = from; i < to; i++)
        if (tag[i] == p->tag || tag[i] == p->tag_alt)
            return i;
    return MM_SIMD_NONE;
}

/* A vector block's match bits to an answer: lanes below from (first block)
 * are dropped; a lane at or past to is a hole and cannot be set. */
static inline uint32_t first_hit(uint32_t bits, uint32_t base, uint32_t from, uint32_t to)
{
    if (base < from)
        bits &= ~0u << (from - base);
    if (!bits)
        return MM_SIMD_NONE;
    uint32_t i = base + (uint32_t)__builtin_ctz(bits);
    return i < to ? i : MM_SIMD_NONE;
}

/* The same for up to 64 lanes. */
static inline uint32_t first_hit64(uint64_t bits, uint32_t base, uint32_t from, uint32_t to)
{
    if (base < from)
        bits &= ~0ull << (from - base);
    if (!bits)
        return MM_SIMD_NONE;
    uint32_t i = base + (uint32_t)__builtin_ctzll(bits);
    return i < to ? i : MM_SIMD_NONE;
}

#if MM_SIMD_X86
__attribute__((target("avx2")))
static uint32_t scan_avx2(const int32_t *comm, const int32_t *src, const int32_t *tag,
                          uint32_t from, uint32_t to, const mm_simd_pat *p)
{
    const __m256i c = _mm256_set1_epi32(p->comm);
    const __m256i sm = _mm256_set1_epi32(p->src_mask), s = _mm256_set1_epi32(p->src),
                  s2 = _mm256_set1_epi32(p->src_alt);
    const __m256i tm = _mm256_set1_epi32(p->tag_mask), t = _mm256_set1_epi32(p->tag),
                  t2 = _mm256_set1_epi32(p->tag_alt);
    for (uint32_t i = from & ~7u; i < to; i += 8) {
        __m256i vc = _mm256_loadu_si256((const __m256i *)(const void *)(comm + i));
        __m256i vs = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        __m256i vt = _mm256_loadu_si256((const __m256i *)(const void *)(tag + i));
        __m256i ok_s = _mm256_or_si256(_mm256_cmpeq_epi32(_mm256_and_si256(vs, sm), s),
                                       _mm256_cmpeq_epi32(vs, s2));
        __m256i ok_t = _mm256_or_si256(_mm256_cmpeq_epi32(_mm256_and_si256(vt, tm), t),
                                       _mm256_cmpeq_epi32(vt, t2));
        __m256i ok = _mm256_and_si256(_mm256_cmpeq_epi32(vc, c), _mm256_and_si256(ok_s, ok_t));
        uint32_t bits = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(ok));
        if (bits) {
            uint32_t hit = first_hit(bits, i, from, to);
            if (hit != MM_SIMD_NONE)
                return hit;
        }
    }
    return MM_SIMD_NONE;
}

/* The tag scanners take 64 slots (256 bytes, four cache lines) per
 * iteration while they fit, with one branch on the merged candidate bits:
 * the loop is bound by loads and by that branch. */
__attribute__((target("avx2"), always_inline))
static inline __m256i tag_eq256(const int32_t *v, __m256i t, __m256i t2, const int two)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)v);
    __m256i ok = _mm256_cmpeq_epi32(a, t);
    return two ? _mm256_or_si256(ok, _mm256_cmpeq_epi32(a, t2)) : ok;
}

__attribute__((target("avx2")))
static inline uint64_t lanes256(__m256i ok)
{
    return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(ok));
}

/* two: compare with tag_alt as well (a message's pattern, whose tag_alt is
 * ANY_TAG); a receive's pattern has tag_alt == tag and needs one compare
 * per vector. Instantiated both ways (always_inline, constant two). The
 * 64-slot step ORs the eight compare results and tests them once; the
 * 64-bit candidate word is built only when some lane is set. */
__attribute__((target("avx2"), always_inline))
static inline uint32_t tagscan_avx2_of(const int32_t *tag, uint32_t from, uint32_t to,
                                       const mm_simd_pat *p, const int two)
{
    const __m256i t = _mm256_set1_epi32(p->tag), t2 = _mm256_set1_epi32(p->tag_alt);
    uint32_t i = from & ~7u;
    for (; i + 56 < to; i += 64) {
        __m256i ok[8], any = _mm256_setzero_si256();
        for (uint32_t j = 0; j < 8; j++) {
            ok[j] = tag_eq256(tag + i + 8 * j, t, t2, two);
            any = _mm256_or_si256(any, ok[j]);
        }
        if (!_mm256_testz_si256(any, any)) {
            uint64_t bits = 0;
            for (uint32_t j = 0; j < 8; j++)
                bits |= lanes256(ok[j]) << (8 * j);
            uint32_t hit = first_hit64(bits, i, from, to);
            if (hit != MM_SIMD_NONE)
                return hit;
        }
    }
    for (; i < to; i += 8) {
        uint32_t hit = first_hit64(lanes256(tag_eq256(tag + i, t, t2, two)), i, from, to);
        if (hit != MM_SIMD_NONE)
            return hit;
    }
    return MM_SIMD_NONE;
}

__attribute__((target("avx2")))
static uint32_t tagscan_avx2(const int32_t *tag, uint32_t from, uint32_t to, const mm_simd_pat *p)
{
    return p->tag_alt == p->tag ? tagscan_avx2_of(tag, from, to, p, 0)
                                : tagscan_avx2_of(tag, from, to, p, 1);
}

__attribute__((target("avx512f")))
static inline __mmask16 tag_lanes512(const int32_t *v, __m512i t, __m512i t2)
{
    __m512i a = _mm512_loadu_si512((const void *)v);
    return _mm512_kor(_mm512_cmpeq_epi32_mask(a, t), _mm512_cmpeq_epi32_mask(a, t2));
}

__attribute__((target("avx512f")))
static inline __mmask16 tag_lanes512_one(const int32_t *v, __m512i t)
{
    return _mm512_cmpeq_epi32_mask(_mm512_loadu_si512((const void *)v), t);
}

/* The 64-slot step tests the four masks merged in mask registers (one
 * kortest), and builds the 64-bit candidate word only when some lane is set. */
__attribute__((target("avx512f"), always_inline))
static inline uint32_t tagscan_avx512_of(const int32_t *tag, uint32_t from, uint32_t to,
                                         const mm_simd_pat *p, const int two)
{
    const __m512i t = _mm512_set1_epi32(p->tag), t2 = _mm512_set1_epi32(two ? p->tag_alt : p->tag);
#define MM_LANES512(v) (two ? tag_lanes512(v, t, t2) : tag_lanes512_one(v, t))
    uint32_t i = from & ~15u;
    for (; i + 48 < to; i += 64) {
        __mmask16 k0 = MM_LANES512(tag + i), k1 = MM_LANES512(tag + i + 16),
                  k2 = MM_LANES512(tag + i + 32), k3 = MM_LANES512(tag + i + 48);
        if (!_mm512_kortestz(_mm512_kor(k0, k1), _mm512_kor(k2, k3))) {
            uint64_t bits = (uint64_t)k0 | (uint64_t)k1 << 16 | (uint64_t)k2 << 32
                          | (uint64_t)k3 << 48;
            uint32_t hit = first_hit64(bits, i, from, to);
            if (hit != MM_SIMD_NONE)
                return hit;
        }
    }
    for (; i < to; i += 16) {
        uint32_t hit = first_hit64((uint64_t)MM_LANES512(tag + i), i, from, to);
        if (hit != MM_SIMD_NONE)
            return hit;
    }
#undef MM_LANES512
    return MM_SIMD_NONE;
}

__attribute__((target("avx512f")))
static uint32_t tagscan_avx512(const int32_t *tag, uint32_t from, uint32_t to,
                               const mm_simd_pat *p)
{
    return p->tag_alt == p->tag ? tagscan_avx512_of(tag, from, to, p, 0)
                                : tagscan_avx512_of(tag, from, to, p, 1);
}

__attribute__((target("avx512f")))
static uint32_t scan_avx512(const int32_t *comm, const int32_t *src, const int32_t *tag,
                            uint32_t from, uint32_t to, const mm_simd_pat *p)
{
    const __m512i c = _mm512_set1_epi32(p->comm);
    const __m512i sm = _mm512_set1_epi32(p->src_mask), s = _mm512_set1_epi32(p->src),
                  s2 = _mm512_set1_epi32(p->src_alt);
    const __m512i tm = _mm512_set1_epi32(p->tag_mask), t = _mm512_set1_epi32(p->tag),
                  t2 = _mm512_set1_epi32(p->tag_alt);
    for (uint32_t i = from & ~15u; i < to; i += 16) {
        __m512i vc = _mm512_loadu_si512((const void *)(comm + i));
        __m512i vs = _mm512_loadu_si512((const void *)(src + i));
        __m512i vt = _mm512_loadu_si512((const void *)(tag + i));
        /* each compare only in the lanes still alive */
        __mmask16 k = _mm512_cmpeq_epi32_mask(vc, c);
        k = _mm512_mask_cmpeq_epi32_mask(k, _mm512_and_si512(vs, sm), s)
          | _mm512_mask_cmpeq_epi32_mask(k, vs, s2);
        k = _mm512_mask_cmpeq_epi32_mask(k, _mm512_and_si512(vt, tm), t)
          | _mm512_mask_cmpeq_epi32_mask(k, vt, t2);
        if (k) {
            uint32_t hit = first_hit((uint32_t)k, i, from, to);
            if (hit != MM_SIMD_NONE)
                return hit;
        }
    }
    return MM_SIMD_NONE;
}
#endif

const char *mm_simd_isa_name(int isa)
{
    switch (isa) {
    case MM_ISA_SCALAR: return "scalar";
    case MM_ISA_AVX2:   return "avx2";
    case MM_ISA_AVX512: return "avx512f";
    default:            return "auto";
    }
}

int mm_simd_isa_available(int isa)
{
    if (isa == MM_ISA_SCALAR)
        return 1;
#if MM_SIMD_X86
    __builtin_cpu_init();
    if (isa == MM_ISA_AVX2)
        return __builtin_cpu_supports("avx2");
    if (isa == MM_ISA_AVX512)
        return __builtin_cpu_supports("avx512f");
#endif
    return 0;
}

mm_simd_tagscan_fn mm_simd_tagscan_for(int isa)
{
#if MM_SIMD_X86
    if (isa == MM_ISA_AVX512)
        return tagscan_avx512;
    if (isa == MM_ISA_AVX2)
        return tagscan_avx2;
#else
    (void)isa;
#endif
    return tagscan_scalar;
}

int mm_simd_scan_select(int isa, mm_simd_scan_fn *fn, int *chosen, char *err, size_t errlen)
{
    int best = MM_ISA_AVX512;
    while (!mm_simd_isa_available(best))
        best--;
    if (isa == MM_ISA_AUTO)
        isa = best;
    if (!mm_simd_isa_available(isa)) {
        if (err && errlen)
            snprintf(err, errlen, "engine 'simd': isa=%d (%s) is not available on this %s; "
                     "isa=0 picks the widest available (here %s)", isa, mm_simd_isa_name(isa),
                     MM_SIMD_X86 ? "CPU" : "build (not x86 with GCC or Clang)",
                     mm_simd_isa_name(best));
        return MM_EPARAM;
    }
    *chosen = isa;
#if MM_SIMD_X86
    if (isa == MM_ISA_AVX512) {
        *fn = scan_avx512;
        return 0;
    }
    if (isa == MM_ISA_AVX2) {
        *fn = scan_avx2;
        return 0;
    }
#endif
    *fn = scan_scalar;
    return 0;
}
