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
 * Plain C; the functions are host-and-device under nvcc (DML_HD, hd.h); the
 * float16 conversions are half.h's.
 */
#ifndef DML_CORE_SCALE_BIAS_H
#define DML_CORE_SCALE_BIAS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "half.h"

/* One element: source and destination hold `data_type` (FLOAT32 1, FLOAT16 2, FLOAT64 9). */
DML_HD void dml_scale_bias_element(uint32_t data_type, float scale, float bias, const unsigned char* source,
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
