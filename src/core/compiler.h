/* compiler.h - the annotations the matching path uses, in one place.
 *
 * MM_INLINE      a helper on the matching path that must not cost a call
 *                (the compiler's heuristics decline some that are worth it);
 * MM_LIKELY(c)   branch hints: the common case of a test on the matching
 * MM_UNLIKELY(c) path (errors, growth, out of memory are the rare ones);
 * MM_COLD        a function only the rare paths call (set-up, growth);
 * MM_OPAQUE(v)   v, an integer in a register, is something the compiler may
 *                not see through: it cannot merge the load that produced it
 *                with a neighbouring one into one wider load (enter.h).
 * With a compiler that lacks them they expand to plain C. */
#ifndef MM_CORE_COMPILER_H
#define MM_CORE_COMPILER_H

#if defined(__GNUC__) || defined(__clang__)
/* Forced only when optimizing: at -O0 gcc cannot inline an always_inline
 * function that a template (enter.h) receives as a function pointer and
 * calls ("indirect function call with a yet undetermined callee"), so a
 * Debug build would not compile; unoptimized code gains nothing by it. */
#if defined(__OPTIMIZE__)
#define MM_INLINE      static inline __attribute__((always_inline))
#else
#define MM_INLINE      static inline
#endif
#define MM_LIKELY(c)   __builtin_expect(!!(c), 1)
#define MM_UNLIKELY(c) __builtin_expect(!!(c), 0)
#define MM_COLD        __attribute__((cold, noinline))
#define MM_NOINLINE    __attribute__((noinline))
#define MM_OPAQUE(v)   __asm__("" : "+r"(v))
#else
#define MM_INLINE      static inline
#define MM_LIKELY(c)   (c)
#define MM_UNLIKELY(c) (c)
#define MM_COLD
#define MM_NOINLINE
#define MM_OPAQUE(v)   ((void)0)
#endif

#endif
