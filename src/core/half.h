/*
 * half.h — float16 (IEEE binary16) to and from float32, the one definition
 * used by the CPU backend, the CUDA kernels and emulator (through
 * scale_bias.h), and the tools:
 *
 *   dml_half_to_float: exact (every float16 is a float32); a NaN keeps its
 *                      sign and payload, shifted into the payload's top bits;
 *   dml_float_to_half: rounded once, to nearest, ties to even; overflow to
 *                      infinity; a NaN keeps its sign and the top 10 bits of
 *                      its payload, and is quiet (a signalling NaN is quieted,
 *                      as IEEE 754 conversion does: the quiet bit set).
 *
 * Plain C; host-and-device under nvcc. tests/core/test_half.c pins both.
 */
#ifndef DML_CORE_HALF_H
#define DML_CORE_HALF_H

#include <stdint.h>
#include <string.h>

#include "hd.h"

/* The float16 bit pattern, widened exactly. */
DML_HD float dml_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF, bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13); /* infinity or NaN (payload kept) */
    } else if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            int shift = 0;
            while (!(mantissa & 0x400)) {
                mantissa <<= 1;
                ++shift;
            }
            bits = sign | ((uint32_t)(127 - 15 + 1 - shift) << 23) | ((mantissa & 0x3FF) << 13);
        }
    } else {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Rounds a float32 to float16 once: nearest, ties to even. */
DML_HD uint16_t dml_float_to_half(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint32_t sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7FFFFFFFu;
    if (magnitude >= 0x7F800000u) /* infinity, or NaN kept quiet with its top payload bits */
        return (uint16_t)(sign | 0x7C00u | (magnitude > 0x7F800000u ? 0x200u | ((magnitude >> 13) & 0x3FFu) : 0));
    if (magnitude >= 0x477FF000u) /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7C00u);
    if (magnitude < 0x38800000u) { /* below the smallest normal half: a subnormal (or zero) */
        if (magnitude <= 0x33000000u) /* at most half the smallest subnormal: rounds (to even) to zero */
            return (uint16_t)sign;
        uint32_t exponent = magnitude >> 23, mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
        uint32_t shift = 126 - exponent; /* so that the result is in units of 2^-24 */
        uint32_t value = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (value & 1)))
            ++value;
        return (uint16_t)(sign | value);
    }
    uint32_t value = ((magnitude >> 13) - ((127 - 15) << 10)), rest = magnitude & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (value & 1)))
        ++value; /* may carry into the exponent: still right */
    return (uint16_t)(sign | value);
}

#endif /* DML_CORE_HALF_H */
