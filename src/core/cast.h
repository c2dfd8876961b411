/*
 * cast.h — converting one element between any two of the eleven data types:
 * the one definition of CAST's rules (docs/operators.md), run by the CPU
 * backend, the CUDA kernels and the emulator, and by the core for PADDING's
 * FLOAT value. DirectML leaves rounding and out-of-range values to the
 * hardware; this runtime decides, identically everywhere:
 *
 *   float → integer    truncate toward zero, saturate to the target's range,
 *                      NaN → 0 (a GPU's cvt.rzi.sat);
 *   integer → integer  keep the low bits (two's complement), as C and numpy;
 *   → float16/float32  from a wider or an integer type: rounded once, to
 *                      nearest even; overflow → ±infinity;
 *   widening floats    exact;
 *   NaN → float        NaN, sign and top payload bits kept, quiet bit set
 *                      (done on the bits, so no instruction's NaN policy
 *                      leaks in); the same type: the bits, unchanged.
 *
 * Every value passes through one of three exact carriers: int64 (signed
 * integers), uint64 (unsigned integers) or double (floats). Callers with
 * constant types get the switches folded (DML_HD is always inlined).
 */
#ifndef DML_CORE_CAST_H
#define DML_CORE_CAST_H

#include <dml/dml.h>
#include <stdint.h>
#include <string.h>

#include "half.h"
#include "hd.h"

/* One value in its carrier: is_float → f; else bits (an int64 for signed
 * sources, so that widening sign-extends). */
typedef struct dml_cast_value {
    int is_float;
    uint64_t bits;
    double f;
} dml_cast_value;

DML_HD double dml_cast_bits_to_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

DML_HD uint64_t dml_cast_double_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

DML_HD float dml_cast_bits_to_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

DML_HD uint32_t dml_cast_float_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* A float32 widened: exact; a NaN keeps sign and payload, quieted. */
DML_HD double dml_float_to_double(float f)
{
    uint32_t bits = dml_cast_float_bits(f);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        return dml_cast_bits_to_double(((uint64_t)(bits >> 31) << 63) | 0x7FF8000000000000ull |
            ((uint64_t)(bits & 0x7FFFFFu) << 29));
    return (double)f;
}

/* A double rounded once to float32 (nearest even, overflow to infinity); a
 * NaN keeps sign and top payload bits, quieted. */
DML_HD float dml_double_to_float(double d)
{
    uint64_t bits = dml_cast_double_bits(d);
    if ((bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull)
        return dml_cast_bits_to_float((uint32_t)(bits >> 63) << 31 | 0x7FC00000u |
            (uint32_t)((bits >> 29) & 0x7FFFFFu));
    return (float)d;
}

/* A double rounded once to float16 (nearest even; through float32 would
 * round twice). */
DML_HD uint16_t dml_double_to_half(double d)
{
    uint64_t bits = dml_cast_double_bits(d);
    uint16_t sign = (uint16_t)((bits >> 48) & 0x8000u);
    uint64_t magnitude = bits & 0x7FFFFFFFFFFFFFFFull;
    if (magnitude >= 0x7FF0000000000000ull) /* infinity, or NaN kept quiet with its top payload bits */
        return (uint16_t)(sign | 0x7C00u |
            (magnitude > 0x7FF0000000000000ull ? 0x200u | (uint16_t)((magnitude >> 42) & 0x3FFu) : 0));
    if (magnitude >= 0x40EFFE0000000000ull) /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7C00u);
    if (magnitude < 0x3F10000000000000ull) {  /* below 2^-14: a subnormal half, or zero */
        if (magnitude <= 0x3E60000000000000ull) /* at most 2^-25, half the smallest subnormal: to (even) zero */
            return sign;
        uint32_t exponent = (uint32_t)(magnitude >> 52);          /* 1023-25 < exponent < 1023-14 */
        uint64_t mantissa = (magnitude & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull;
        uint32_t shift = 1023 + 52 - 24 - exponent;               /* units of 2^-24: 43 .. 53 */
        uint64_t value = mantissa >> shift, rest = mantissa & ((1ull << shift) - 1), half = 1ull << (shift - 1);
        if (rest > half || (rest == half && (value & 1)))
            ++value;
        return (uint16_t)(sign | value);
    }
    uint64_t value = (magnitude >> 42) - ((uint64_t)(1023 - 15) << 10), rest = magnitude & 0x3FFFFFFFFFFull;
    if (rest > 0x20000000000ull || (rest == 0x20000000000ull && (value & 1)))
        ++value; /* may carry into the exponent: still right */
    return (uint16_t)(sign | value);
}

/* A float16 widened to double: exact; a NaN keeps sign and payload, quieted. */
DML_HD double dml_half_to_double(uint16_t h)
{
    return dml_float_to_double(dml_half_to_float(h));
}

DML_HD dml_cast_value dml_cast_load(uint32_t type, const void* in)
{
    dml_cast_value v = { 0, 0, 0.0 };
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: v.is_float = 1; v.f = dml_float_to_double(*(const float*)in); break;
    case DML_TENSOR_DATA_TYPE_FLOAT16: v.is_float = 1; v.f = dml_half_to_double(*(const uint16_t*)in); break;
    case DML_TENSOR_DATA_TYPE_FLOAT64: v.is_float = 1; v.f = *(const double*)in; break;
    case DML_TENSOR_DATA_TYPE_UINT8: v.bits = *(const uint8_t*)in; break;
    case DML_TENSOR_DATA_TYPE_UINT16: v.bits = *(const uint16_t*)in; break;
    case DML_TENSOR_DATA_TYPE_UINT32: v.bits = *(const uint32_t*)in; break;
    case DML_TENSOR_DATA_TYPE_UINT64: v.bits = *(const uint64_t*)in; break;
    case DML_TENSOR_DATA_TYPE_INT8: v.bits = (uint64_t)(int64_t)*(const int8_t*)in; break;
    case DML_TENSOR_DATA_TYPE_INT16: v.bits = (uint64_t)(int64_t)*(const int16_t*)in; break;
    case DML_TENSOR_DATA_TYPE_INT32: v.bits = (uint64_t)(int64_t)*(const int32_t*)in; break;
    case DML_TENSOR_DATA_TYPE_INT64: v.bits = (uint64_t)*(const int64_t*)in; break;
    default: break;
    }
    return v;
}

/* A float truncated toward zero into [lo, hi] (as the low bits of a uint64),
 * NaN → 0. below/above: the nearest doubles outside the range whose
 * truncation would leave it (lo - 1 and hi + 1, exact for every target). */
DML_HD uint64_t dml_cast_float_to_integer(double f, double below, double above, int64_t lo, uint64_t hi,
    int is_unsigned64)
{
    if (f != f)
        return 0;
    if (f >= above)
        return hi;
    if (f <= below)
        return (uint64_t)lo;
    if (is_unsigned64)
        return (uint64_t)f; /* in [0, 2^64) */
    return (uint64_t)(int64_t)f;
}

/* The carrier's value as an integer of `type` (low bits; saturated from floats). */
DML_HD uint64_t dml_cast_integer_bits(uint32_t type, const dml_cast_value* v)
{
    if (!v->is_float)
        return v->bits;
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT8: return dml_cast_float_to_integer(v->f, -1.0, 256.0, 0, UINT8_MAX, 0);
    case DML_TENSOR_DATA_TYPE_UINT16: return dml_cast_float_to_integer(v->f, -1.0, 65536.0, 0, UINT16_MAX, 0);
    case DML_TENSOR_DATA_TYPE_UINT32: return dml_cast_float_to_integer(v->f, -1.0, 4294967296.0, 0, UINT32_MAX, 0);
    case DML_TENSOR_DATA_TYPE_UINT64:
        return dml_cast_float_to_integer(v->f, -1.0, 18446744073709551616.0, 0, UINT64_MAX, 1);
    case DML_TENSOR_DATA_TYPE_INT8: return dml_cast_float_to_integer(v->f, -129.0, 128.0, INT8_MIN, INT8_MAX, 0);
    case DML_TENSOR_DATA_TYPE_INT16:
        return dml_cast_float_to_integer(v->f, -32769.0, 32768.0, INT16_MIN, INT16_MAX, 0);
    case DML_TENSOR_DATA_TYPE_INT32:
        return dml_cast_float_to_integer(v->f, -2147483649.0, 2147483648.0, INT32_MIN, INT32_MAX, 0);
    default: /* INT64: -2^63 - 2048 is the double below -2^63 */
        return dml_cast_float_to_integer(v->f, -9223372036854777856.0, 9223372036854775808.0, INT64_MIN,
            INT64_MAX, 0);
    }
}

/* An integer carrier as a double, rounded once (nearest even). */
DML_HD double dml_cast_integer_to_double(const dml_cast_value* v, int is_signed)
{
    return is_signed ? (double)(int64_t)v->bits : (double)v->bits;
}

DML_HD int dml_cast_type_is_signed_integer(uint32_t type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16 ||
        type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

/* A 64-bit magnitude rounded once to float32. Not (float)m: the rounding
 * is the same, but a magnitude beyond 2^53 first loses its bits below 2^11
 * into a sticky bit, which keeps every tie and every rounding decision (the
 * float keeps 24 bits, so the rounding point lies at 2^30 or above) and
 * makes the double exact: tools that emulate the 64-bit conversion through a
 * double (valgrind) then round once too. */
DML_HD float dml_cast_magnitude_to_float(uint64_t m)
{
    if (m >> 53)
        return (float)((double)((m >> 11) | ((m & 0x7FFu) != 0)) * 2048.0);
    return (float)(double)m;
}

DML_HD void dml_cast_store(uint32_t type, void* out, const dml_cast_value* v, int source_signed)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT64:
        *(double*)out = v->is_float ? v->f : dml_cast_integer_to_double(v, source_signed);
        return;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
        if (v->is_float)
            *(float*)out = dml_double_to_float(v->f);
        else { /* one rounding from the integer itself */
            int negative = source_signed && (int64_t)v->bits < 0;
            float magnitude = dml_cast_magnitude_to_float(negative ? 0 - v->bits : v->bits);
            *(float*)out = negative ? -magnitude : magnitude;
        }
        return;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
        if (v->is_float) {
            *(uint16_t*)out = dml_double_to_half(v->f);
        } else {
            /* Every integer a finite float16 can round to is below 65520 in
             * magnitude, exact in float32; beyond, infinity. */
            int negative = source_signed && (int64_t)v->bits < 0;
            uint64_t magnitude = negative ? 0 - v->bits : v->bits;
            *(uint16_t*)out = magnitude >= 65520u ? (uint16_t)(negative ? 0xFC00u : 0x7C00u)
                                                  : dml_float_to_half(negative ? -(float)magnitude : (float)magnitude);
        }
        return;
    default:
        break;
    }
    uint64_t bits = dml_cast_integer_bits(type, v);
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT8: case DML_TENSOR_DATA_TYPE_INT8: *(uint8_t*)out = (uint8_t)bits; break;
    case DML_TENSOR_DATA_TYPE_UINT16: case DML_TENSOR_DATA_TYPE_INT16: *(uint16_t*)out = (uint16_t)bits; break;
    case DML_TENSOR_DATA_TYPE_UINT32: case DML_TENSOR_DATA_TYPE_INT32: *(uint32_t*)out = (uint32_t)bits; break;
    default: *(uint64_t*)out = bits; break;
    }
}

/* ---- shorter exact forms of common pairs ---------------------------------
 * The same results as the carriers above (tests/core/test_cast.c checks both
 * against one reference), in forms that fold to a few branch-free,
 * vectorisable instructions when the types are constants. */

/* A float16 widened to float32: exact; a NaN keeps sign and payload, quieted.
 * Branch-free: a subnormal is its integer significand times 2^-24 (exact, and
 * a normal float32, so flushing modes do not touch it). */
DML_HD float dml_cast_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, magnitude = h & 0x7FFFu;
    uint32_t normal = (magnitude << 13) + ((uint32_t)(127 - 15) << 23);
    if (magnitude >= 0x7C00u) /* infinity or NaN: the top exponent */
        normal += (uint32_t)(128 - 16) << 23;
    if (magnitude > 0x7C00u) /* NaN: quiet */
        normal |= 0x400000u;
    uint32_t bits = magnitude < 0x400u ? dml_cast_float_bits((float)magnitude * 5.9604644775390625e-8f) : normal;
    return dml_cast_bits_to_float(sign | bits);
}

/* All ones when c (0 or 1), else 0: selects by masks, which compilers keep
 * branch-free where they turn ?: into branches. */
DML_HD uint32_t dml_cast_mask(int c)
{
    return 0u - (uint32_t)c;
}

/* A float32 rounded once to float16: dml_float_to_half's results bit for
 * bit (tests/core/test_cast_half.c), without its branches, so that a loop of
 * them vectorises: every case is computed and one is selected by masks.
 * Signed compares on the magnitude (below 2^31) keep to what SSE2 has. */
DML_HD uint16_t dml_cast_float_to_half(float f)
{
    uint32_t bits = dml_cast_float_bits(f);
    int32_t magnitude = (int32_t)(bits & 0x7FFFFFFFu);
    uint32_t m = (uint32_t)magnitude, sign = (bits >> 16) & 0x8000u;
    uint32_t is_nan = dml_cast_mask(magnitude > 0x7F800000), is_big = dml_cast_mask(magnitude >= 0x477FF000);
    uint32_t is_small = dml_cast_mask(magnitude < 0x38800000);
    /* Normal halves: the 13 dropped bits rounded to nearest even on the bits
     * (the carry may reach the exponent: still right). */
    uint32_t normal = (m + 0xFFFu + ((m >> 13) & 1u) - ((uint32_t)(127 - 15) << 23)) >> 13;
    /* Subnormal halves and zero: adding 0.5 puts units of 2^-24 at the bottom
     * of the sum's mantissa, rounded to nearest even by the addition; only
     * magnitudes below 2^-14 enter it (no NaN, no overflow). */
    float small = dml_cast_bits_to_float(m & is_small);
    uint32_t subnormal = dml_cast_float_bits(small + 0.5f) - 0x3F000000u;
    uint32_t finite = (subnormal & is_small) | (normal & ~is_small);
    /* From 65520 (rounds up to 2^16) and infinity: 0x7C00; a NaN stays quiet
     * with the top of its payload. */
    uint32_t special = 0x7C00u | (is_nan & (0x200u | ((m >> 13) & 0x3FFu)));
    return (uint16_t)(sign | (special & is_big) | (finite & ~is_big));
}

/* A float truncated toward zero into [lo, above) of an integer type no wider
 * than int32 (lo and above exact in the float type), NaN -> 0. */
#define DML_CAST_TRUNCATE_SATURATE(f, lo, above, lo_int, hi_int) \
    ((f) != (f) ? 0 : (f) >= (above) ? (hi_int) : (f) < (lo) ? (lo_int) : (int32_t)(f))

/* Whether a type is one of those targets (integers that fit int32). */
DML_HD int dml_cast_type_fits_int32(uint32_t type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16 ||
        type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_UINT8 || type == DML_TENSOR_DATA_TYPE_UINT16;
}

/* A float32 or float64 into such a target, as bits of int32. */
#define DML_CAST_SATURATE_INTO(type, f, T)                                                                       \
    ((type) == DML_TENSOR_DATA_TYPE_INT8 ? DML_CAST_TRUNCATE_SATURATE(f, (T)-128, (T)128, INT8_MIN, INT8_MAX)     \
    : (type) == DML_TENSOR_DATA_TYPE_UINT8 ? DML_CAST_TRUNCATE_SATURATE(f, (T)0, (T)256, 0, UINT8_MAX)           \
    : (type) == DML_TENSOR_DATA_TYPE_INT16 ? DML_CAST_TRUNCATE_SATURATE(f, (T)-32768, (T)32768, INT16_MIN, INT16_MAX) \
    : (type) == DML_TENSOR_DATA_TYPE_UINT16 ? DML_CAST_TRUNCATE_SATURATE(f, (T)0, (T)65536, 0, UINT16_MAX)       \
    : DML_CAST_TRUNCATE_SATURATE(f, (T)-2147483648.0, (T)2147483648.0, INT32_MIN, INT32_MAX))

DML_HD void dml_cast_store_int32(uint32_t type, void* out, int32_t value)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_INT8: case DML_TENSOR_DATA_TYPE_UINT8: *(uint8_t*)out = (uint8_t)value; break;
    case DML_TENSOR_DATA_TYPE_INT16: case DML_TENSOR_DATA_TYPE_UINT16: *(uint16_t*)out = (uint16_t)value; break;
    default: *(int32_t*)out = value; break;
    }
}

/* An integer of at most 32 bits, exactly (int64 holds every one). */
DML_HD int64_t dml_cast_load_small_integer(uint32_t type, const void* in)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT8: return *(const uint8_t*)in;
    case DML_TENSOR_DATA_TYPE_UINT16: return *(const uint16_t*)in;
    case DML_TENSOR_DATA_TYPE_UINT32: return *(const uint32_t*)in;
    case DML_TENSOR_DATA_TYPE_INT8: return *(const int8_t*)in;
    case DML_TENSOR_DATA_TYPE_INT16: return *(const int16_t*)in;
    default: return *(const int32_t*)in;
    }
}

DML_HD int dml_cast_type_is_small_integer(uint32_t type)
{
    return dml_cast_type_fits_int32(type) || type == DML_TENSOR_DATA_TYPE_UINT32;
}

/* Converts by a shorter form when the pair has one; 0 when it has none. */
DML_HD int dml_cast_direct(uint32_t out_type, void* out, uint32_t in_type, const void* in)
{
    const uint32_t F32 = DML_TENSOR_DATA_TYPE_FLOAT32, F16 = DML_TENSOR_DATA_TYPE_FLOAT16,
                   F64 = DML_TENSOR_DATA_TYPE_FLOAT64;
    if (in_type == F32 && out_type == F16) { /* one rounding, as through double */
        *(uint16_t*)out = dml_cast_float_to_half(*(const float*)in);
        return 1;
    }
    if (in_type == F16 && out_type == F32) {
        *(float*)out = dml_cast_half_to_float(*(const uint16_t*)in);
        return 1;
    }
    if ((in_type == F32 || in_type == F16) && dml_cast_type_fits_int32(out_type)) {
        float f = in_type == F32 ? *(const float*)in : dml_cast_half_to_float(*(const uint16_t*)in);
        dml_cast_store_int32(out_type, out, DML_CAST_SATURATE_INTO(out_type, f, float));
        return 1;
    }
    if (in_type == F64 && dml_cast_type_fits_int32(out_type)) {
        double d = *(const double*)in;
        dml_cast_store_int32(out_type, out, DML_CAST_SATURATE_INTO(out_type, d, double));
        return 1;
    }
    if (dml_cast_type_is_small_integer(in_type)) {
        int64_t v = dml_cast_load_small_integer(in_type, in);
        if (out_type == F32) { /* one rounding: int32 and uint32 convert directly */
            *(float*)out = in_type == DML_TENSOR_DATA_TYPE_UINT32 ? (float)(uint32_t)v : (float)(int32_t)v;
            return 1;
        }
        if (out_type == F64) {
            *(double*)out = in_type == DML_TENSOR_DATA_TYPE_UINT32 ? (double)(uint32_t)v : (double)(int32_t)v;
            return 1;
        }
        if (out_type == F16 && in_type != DML_TENSOR_DATA_TYPE_UINT32 && in_type != DML_TENSOR_DATA_TYPE_INT32) {
            *(uint16_t*)out = dml_cast_float_to_half((float)(int32_t)v); /* exact in float32: one rounding */
            return 1;
        }
    }
    return 0;
}

/* Converts the element at `in` (in_type) into `out` (out_type). The same
 * type copies the bits. Unaligned pointers are the caller's concern (tensor
 * ranges are element-aligned). */
DML_HD void dml_cast_element(uint32_t out_type, void* out, uint32_t in_type, const void* in)
{
    if (out_type == in_type) {
        switch (in_type) {
        case DML_TENSOR_DATA_TYPE_UINT8: case DML_TENSOR_DATA_TYPE_INT8: *(uint8_t*)out = *(const uint8_t*)in; break;
        case DML_TENSOR_DATA_TYPE_UINT16: case DML_TENSOR_DATA_TYPE_INT16: case DML_TENSOR_DATA_TYPE_FLOAT16:
            *(uint16_t*)out = *(const uint16_t*)in;
            break;
        case DML_TENSOR_DATA_TYPE_UINT32: case DML_TENSOR_DATA_TYPE_INT32: case DML_TENSOR_DATA_TYPE_FLOAT32:
            *(uint32_t*)out = *(const uint32_t*)in;
            break;
        default: *(uint64_t*)out = *(const uint64_t*)in; break;
        }
        return;
    }
    if (dml_cast_direct(out_type, out, in_type, in))
        return;
    dml_cast_value v = dml_cast_load(in_type, in);
    dml_cast_store(out_type, out, &v, dml_cast_type_is_signed_integer(in_type));
}

#endif /* DML_CORE_CAST_H */
