/*
 * scale_bias.h — ELEMENT_WISE_IDENTITY's ScaleBias on one element, shared by
 * the CPU backend and the CUDA per-thread code (nvcc and the emulator), so
 * every backend rounds the same way:
 *
 *   float32: fmaf(x, Scale, Bias), one rounding;
 *   float16: widened to float32 exactly, fmaf, rounded once to float16
 *            (round to nearest, ties to even; overflow to infinity, NaN kept);
 *   float64: fma(x, (double)Scale, (double)Bias).
 *
 * Plain C; the functions are host-and-device under nvcc.
 */
#ifndef DML_CORE_SCALE_BIAS_H
#define DML_CORE_SCALE_BIAS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define DML_SB_FN static __host__ __device__ __forceinline__
#else
#define DML_SB_FN static inline
#endif

/* The float16 bit pattern, widened exactly. */
DML_SB_FN float dml_half_to_float(uint16_t h)
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
DML_SB_FN uint16_t dml_float_to_half(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint32_t sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7FFFFFFFu;
    if (magnitude >= 0x7F800000u) /* infinity, or NaN kept quiet with its top payload bits */
        return (uint16_t)(sign | 0x7C00u | (magnitude > 0x7F800000u ? 0x200u | ((magnitude >> 13) & 0x3FFu) : 0));
    if (magnitude >= 0x477FF000u) /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7C00u);
    if (magnitude < 0x38800000u) { /* below the smallest normal half: a subnormal (or zero) */
        if (magnitude < 0x33000000u) /* below half the smallest subnormal: rounds to zero */
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

/* One element: source and destination hold `data_type` (FLOAT32 1, FLOAT16 2, FLOAT64 9). */
DML_SB_FN void dml_scale_bias_element(uint32_t data_type, float scale, float bias, const unsigned char* source,
    unsigned char* destination)
{
    if (data_type == 1) {
        float x;
        memcpy(&x, source, 4);
        x = fmaf(x, scale, bias);
        memcpy(destination, &x, 4);
    } else if (data_type == 2) {
        uint16_t h;
        memcpy(&h, source, 2);
        h = dml_float_to_half(fmaf(dml_half_to_float(h), scale, bias));
        memcpy(destination, &h, 2);
    } else {
        double x;
        memcpy(&x, source, 8);
        x = fma(x, (double)scale, (double)bias);
        memcpy(destination, &x, 8);
    }
}

/* The element offsets (of input and output) of flat output index `item`
 * (row-major over plan->sizes) of a SCALE_BIAS plan. */
#define DML_SCALE_BIAS_OFFSETS(plan, item, in_pos, out_pos)                    \
    do {                                                                       \
        uint64_t rest_ = (item);                                               \
        (in_pos) = (plan)->in_offset;                                          \
        (out_pos) = (plan)->out_offset;                                        \
        for (uint32_t d_ = (plan)->rank; d_-- > 0;) {                          \
            uint64_t c_ = rest_ % (plan)->sizes[d_];                           \
            rest_ /= (plan)->sizes[d_];                                        \
            (in_pos) += (int64_t)c_ * (plan)->in_strides[d_];                  \
            (out_pos) += (int64_t)c_ * (plan)->out_strides[d_];                \
        }                                                                      \
    } while (0)

#endif /* DML_CORE_SCALE_BIAS_H */
