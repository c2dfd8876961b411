/*
 * fill.h — the value of a DML_PLAN_FILL element: the one definition of
 * FILL_VALUE_CONSTANT's and FILL_VALUE_SEQUENCE's arithmetic, run by the CPU
 * backend, the CUDA kernel and the emulator, so every backend writes the same
 * bits. The element at sequence position k (plan.h) is, in data_type:
 *
 *   k = 0              ValueStart's bits, unchanged (a constant fill, and a
 *                      sequence's first element, are the value given: -0.0
 *                      and every NaN payload kept);
 *   integers           start + k * delta in uint64, truncated to the type
 *                      (two's-complement wrap; the low bits depend only on
 *                      the operands' low bits);
 *   float32            start + (float)k * delta: k rounded to float32, then
 *                      the product and the sum each rounded once;
 *   float64            the same in double;
 *   float16            the same in float32 from the widened start and delta,
 *                      rounded once to float16 at the end (half.h);
 *   a NaN result       the canonical quiet NaN 0x7FC00000 / 0x7FF8...0 /
 *                      0x7E00 (x86 and CUDA propagate different NaNs).
 *
 * The closed form, not DirectML's accumulating pseudocode (`Value +=
 * Delta`): exact where accumulation drifts, and every element independent.
 * It must not be contracted into a fused multiply-add (one rounding instead
 * of two): device code uses the _rn intrinsics, which nvcc never contracts,
 * and host code is compiled with -ffp-contract=off (the top CMakeLists.txt).
 */
#ifndef DML_CORE_FILL_H
#define DML_CORE_FILL_H

#include <stdint.h>
#include <string.h>

#include "half.h"
#include "hd.h"

#define DML_FILL_NAN16 0x7E00u
#define DML_FILL_NAN32 0x7FC00000u
#define DML_FILL_NAN64 0x7FF8000000000000ull

/* k rounded to nearest. */
DML_HD float dml_fill_k_to_float(uint64_t k)
{
#if defined(__CUDA_ARCH__)
    return __ull2float_rn(k);
#else
    return (float)k;
#endif
}

DML_HD double dml_fill_k_to_double(uint64_t k)
{
#if defined(__CUDA_ARCH__)
    return __ull2double_rn(k);
#else
    return (double)k;
#endif
}

/* start + kf * delta, two roundings. */
DML_HD float dml_fill_mul_add_f32(float start, float kf, float delta)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(start, __fmul_rn(kf, delta));
#else
    float product = kf * delta;
    return start + product;
#endif
}

DML_HD double dml_fill_mul_add_f64(double start, double kd, double delta)
{
#if defined(__CUDA_ARCH__)
    return __dadd_rn(start, __dmul_rn(kd, delta));
#else
    double product = kd * delta;
    return start + product;
#endif
}

/* A float result with every NaN made the canonical one (a select:
 * vectorises). */
DML_HD float dml_fill_canonical_f32(float r)
{
    const uint32_t nan = DML_FILL_NAN32;
    float canonical;
    memcpy(&canonical, &nan, 4);
    return r != r ? canonical : r;
}

DML_HD double dml_fill_canonical_f64(double r)
{
    const uint64_t nan = DML_FILL_NAN64;
    double canonical;
    memcpy(&canonical, &nan, 8);
    return r != r ? canonical : r;
}

/* The float32 element whose position, rounded to float32, is kf (kf == 0
 * exactly when k == 0): its bits. Callers that know k < 2^31 may round it
 * from an int32 (the same value), which vectorises. */
DML_HD uint32_t dml_fill_f32_step(uint32_t start_bits, float delta, float kf)
{
    if (kf == 0.0f)
        return start_bits;
    float start;
    memcpy(&start, &start_bits, 4);
    float r = dml_fill_canonical_f32(dml_fill_mul_add_f32(start, kf, delta));
    uint32_t bits;
    memcpy(&bits, &r, 4);
    return bits;
}

DML_HD uint64_t dml_fill_f64_step(uint64_t start_bits, double delta, double kd)
{
    if (kd == 0.0)
        return start_bits;
    double start;
    memcpy(&start, &start_bits, 8);
    double r = dml_fill_canonical_f64(dml_fill_mul_add_f64(start, kd, delta));
    uint64_t bits;
    memcpy(&bits, &r, 8);
    return bits;
}

/* float16: start and delta already widened to float32 (dml_half_to_float). */
DML_HD uint16_t dml_fill_f16_step(uint16_t start_bits, float start, float delta, float kf)
{
    if (kf == 0.0f)
        return start_bits;
    float r = dml_fill_mul_add_f32(start, kf, delta);
    return r != r ? (uint16_t)DML_FILL_NAN16 : dml_float_to_half(r);
}

/* Any data type (DML_TENSOR_DATA_TYPE's value; start and delta hold its bits
 * in their low bytes, as DML_SCALAR_UNION does): the element's bits in the
 * low bytes of the result. Callers with a constant data_type get the switch
 * folded (DML_HD is always inlined). */
DML_HD uint64_t dml_fill_value(uint32_t data_type, uint64_t start, uint64_t delta, uint64_t k)
{
    switch (data_type) {
    case 1: { /* FLOAT32 */
        float d;
        uint32_t delta32 = (uint32_t)delta;
        memcpy(&d, &delta32, 4);
        return dml_fill_f32_step((uint32_t)start, d, dml_fill_k_to_float(k));
    }
    case 2: /* FLOAT16 */
        return dml_fill_f16_step((uint16_t)start, dml_half_to_float((uint16_t)start),
            dml_half_to_float((uint16_t)delta), dml_fill_k_to_float(k));
    case 9: { /* FLOAT64 */
        double d;
        memcpy(&d, &delta, 8);
        return dml_fill_f64_step(start, d, dml_fill_k_to_double(k));
    }
    default: /* the integers: the store keeps the type's low bytes */
        return start + k * delta;
    }
}

#endif /* DML_CORE_FILL_H */
