/*
 * le.h - little-endian integers in byte buffers, whatever the host: the
 * binary stream format and the trace format share these.
 */
#ifndef MM_TOOLS_LE_H
#define MM_TOOLS_LE_H

#include <stdint.h>

static inline void le_put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static inline void le_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static inline void le_put64(unsigned char *p, uint64_t v)
{
    le_put32(p, (uint32_t)v);
    le_put32(p + 4, (uint32_t)(v >> 32));
}
static inline uint16_t le_get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t le_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t le_get64(const unsigned char *p)
{
    return le_get32(p) | (uint64_t)le_get32(p + 4) << 32;
}
/* Two's complement reinterpretation without implementation-defined casts. */
static inline int32_t le_as_i32(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

#endif /* MM_TOOLS_LE_H */
