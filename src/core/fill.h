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

/* Device code rounds with the _rn intrinsics, host code with C's
 * operators (never contracted: -ffp-contract=off). */
#if defined(__CUDA_ARCH__)
#define DML_FILL_HOST_OR_DEVICE(host, device) device
#else
#define DML_FILL_HOST_OR_DEVICE(host, device) host
#endif

/* One floating type's steps, F the name's suffix, T the type, U its bits:
 *   dml_fill_k_to_F(k)            k rounded to nearest;
 *   dml_fill_mul_add_F(s, kf, d)  s + kf * d, two roundings;
 *   dml_fill_canonical_F(r)       r with every NaN made the canonical one (a
 *                                 select: vectorises);
 *   dml_fill_F_step(bits, d, kf)  the element whose position, rounded to T,
 *                                 is kf (kf == 0 exactly when k == 0): its
 *                                 bits. Callers that know k < 2^31 may round
 *                                 it from an int32 (the same value), which
 *                                 vectorises. */
#define DML_FILL_FLOAT_STEPS(F, T, U, NAN_BITS, K_RN, MUL_RN, ADD_RN)                            \
    DML_HD T dml_fill_k_to_##F(uint64_t k)                                                          \
    {                                                                                               \
        return DML_FILL_HOST_OR_DEVICE((T)k, K_RN(k));                                              \
    }                                                                                               \
    DML_HD T dml_fill_mul_add_##F(T start, T kf, T delta)                                           \
    {                                                                                               \
        T product = DML_FILL_HOST_OR_DEVICE(kf * delta, MUL_RN(kf, delta));                         \
        return DML_FILL_HOST_OR_DEVICE(start + product, ADD_RN(start, product));                    \
    }                                                                                               \
    DML_HD T dml_fill_canonical_##F(T r)                                                            \
    {                                                                                               \
        const U nan = NAN_BITS;                                                                     \
        T canonical;                                                                                \
        memcpy(&canonical, &nan, sizeof canonical);                                                 \
        return r != r ? canonical : r;                                                              \
    }                                                                                               \
    DML_HD U dml_fill_##F##_step(U start_bits, T delta, T kf)                                       \
    {                                                                                               \
        if (kf == (T)0)                                                                             \
            return start_bits;                                                                      \
        T start;                                                                                    \
        memcpy(&start, &start_bits, sizeof start);                                                  \
        T r = dml_fill_canonical_##F(dml_fill_mul_add_##F(start, kf, delta));                       \
        U bits;                                                                                     \
        memcpy(&bits, &r, sizeof bits);                                                             \
        return bits;                                                                                \
    }

DML_FILL_FLOAT_STEPS(f32, float, uint32_t, DML_FILL_NAN32, __ull2float_rn, __fmul_rn, __fadd_rn)
DML_FILL_FLOAT_STEPS(f64, double, uint64_t, DML_FILL_NAN64, __ull2double_rn, __dmul_rn, __dadd_rn)

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
        return dml_fill_f32_step((uint32_t)start, d, dml_fill_k_to_f32(k));
    }
    case 2: /* FLOAT16 */
        return dml_fill_f16_step((uint16_t)start, dml_half_to_float((uint16_t)start),
            dml_half_to_float((uint16_t)delta), dml_fill_k_to_f32(k));
    case 9: { /* FLOAT64 */
        double d;
        memcpy(&d, &delta, 8);
        return dml_fill_f64_step(start, d, dml_fill_k_to_f64(k));
    }
    default: /* the integers: the store keeps the type's low bytes */
        return start + k * delta;
    }
}

#endif /* DML_CORE_FILL_H */
