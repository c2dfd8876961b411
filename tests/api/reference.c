/* reference.c — see reference.h. Written from the spec's pseudocode only. */
#include "reference.h"

#include <dml/dml.h>
#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ref_fail(const char* what)
{
    fprintf(stderr, "reference: internal error (test bug): %s\n", what);
    abort();
}

void ref_packed_strides(uint32_t rank, const uint32_t* sizes, uint32_t* strides)
{
    uint64_t running = 1;
    for (uint32_t k = rank; k-- > 0;) {
        strides[k] = (uint32_t)running;
        running *= sizes[k];
    }
}

uint64_t ref_calc_buffer_tensor_size(uint32_t elem_size, uint32_t rank,
                                     const uint32_t* sizes, const uint32_t* strides)
{
    if (rank < 1 || rank > REF_MAX_RANK || sizes == NULL)
        return 0;
    if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8)
        return 0;
    uint64_t last = 0;
    if (strides == NULL) {
        uint64_t count = 1;
        for (uint32_t i = 0; i < rank; ++i) {
            if (sizes[i] == 0)
                return 0;
            if (__builtin_mul_overflow(count, (uint64_t)sizes[i], &count))
                return 0;
        }
        last = count - 1;
    } else {
        for (uint32_t i = 0; i < rank; ++i) {
            if (sizes[i] == 0)
                return 0;
            uint64_t term;
            if (__builtin_mul_overflow((uint64_t)(sizes[i] - 1), (uint64_t)strides[i], &term))
                return 0;
            if (__builtin_add_overflow(last, term, &last))
                return 0;
        }
    }
    uint64_t bits, count;
    if (__builtin_add_overflow(last, (uint64_t)1, &count))
        return 0;
    if (__builtin_mul_overflow(count, (uint64_t)elem_size * 8u, &bits))
        return 0;
    if (__builtin_add_overflow(bits, (uint64_t)7, &bits))
        return 0;
    uint64_t bytes = bits / 8;
    if (__builtin_add_overflow(bytes, (uint64_t)3, &bytes))
        return 0;
    return bytes & ~(uint64_t)3;
}

/* Byte offset of coordinate c in view v (checked). */
static uint64_t ref_offset(const ref_view* v, const uint64_t* c)
{
    uint32_t packed[REF_MAX_RANK];
    const uint32_t* strides = v->strides;
    if (strides == NULL) {
        ref_packed_strides(v->rank, v->sizes, packed);
        strides = packed;
    }
    uint64_t element = 0;
    for (uint32_t i = 0; i < v->rank; ++i) {
        if (c[i] >= v->sizes[i])
            ref_fail("coordinate outside the tensor");
        element += c[i] * (uint64_t)strides[i];
    }
    uint64_t byte = element * v->elem_size;
    if (byte + v->elem_size > v->range)
        ref_fail("element outside the bound range");
    return byte;
}

/* Odometer over out->sizes: returns 0 when it wraps around. */
static int ref_next(const ref_view* out, uint64_t* c)
{
    for (uint32_t k = out->rank; k-- > 0;) {
        if (++c[k] < out->sizes[k])
            return 1;
        c[k] = 0;
    }
    return 0;
}

static void ref_copy(const ref_view* in, const uint64_t* ic, const ref_view* out, const uint64_t* oc)
{
    if (in->elem_size != out->elem_size)
        ref_fail("element sizes differ");
    memcpy(out->base + ref_offset(out, oc), in->base + ref_offset(in, ic), out->elem_size);
}

void ref_reverse_subsequences(const ref_view* input, const ref_view* lengths,
                              const ref_view* output, uint32_t axis)
{
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t ic[REF_MAX_RANK], lc[REF_MAX_RANK];
    if (axis >= output->rank)
        ref_fail("axis");
    do {
        memcpy(lc, c, sizeof lc);
        lc[axis] = 0;
        uint64_t L;
        const uint8_t* p = lengths->base + ref_offset(lengths, lc);
        if (lengths->elem_size == 4) {
            uint32_t v;
            memcpy(&v, p, 4);
            L = v;
        } else {
            memcpy(&L, p, 8);
        }
        if (L > input->sizes[axis])
            L = input->sizes[axis];
        uint64_t j = c[axis];
        memcpy(ic, c, sizeof ic);
        ic[axis] = (j < L) ? L - 1 - j : j;
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

void ref_slice1(const ref_view* input, const ref_view* output, const uint32_t* offsets,
                const uint32_t* window_sizes, const int32_t* strides)
{
    int64_t start[REF_MAX_RANK];
    for (uint32_t i = 0; i < output->rank; ++i) {
        start[i] = (int64_t)offsets[i];
        if (strides[i] < 0)
            start[i] += (int64_t)window_sizes[i] - 1;
    }
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t ic[REF_MAX_RANK];
    do {
        for (uint32_t i = 0; i < output->rank; ++i) {
            int64_t step, coord;
            if (__builtin_mul_overflow((int64_t)strides[i], (int64_t)c[i], &step) ||
                __builtin_add_overflow(start[i], step, &coord))
                ref_fail("slice1 coordinate overflow");
            if (coord < 0 || (uint64_t)coord >= input->sizes[i])
                ref_fail("slice1 reads outside the input");
            ic[i] = (uint64_t)coord;
        }
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

void ref_slice(const ref_view* input, const ref_view* output, const uint32_t* offsets,
               const uint32_t* strides)
{
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t ic[REF_MAX_RANK];
    do {
        for (uint32_t i = 0; i < output->rank; ++i) {
            ic[i] = (uint64_t)offsets[i] + (uint64_t)strides[i] * c[i];
            if (ic[i] >= input->sizes[i])
                ref_fail("slice reads outside the input");
        }
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

void ref_tile(const ref_view* input, const ref_view* output)
{
    if (input->rank != output->rank)
        ref_fail("tile ranks differ");
    for (uint32_t i = 0; i < output->rank; ++i)
        if (output->sizes[i] % input->sizes[i] != 0)
            ref_fail("tile output size not a multiple of the input's");
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t ic[REF_MAX_RANK];
    do {
        for (uint32_t i = 0; i < output->rank; ++i)
            ic[i] = c[i] % input->sizes[i];
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

/* j walked back into [0, n) one bounce at a time (-1: CONSTANT, outside). */
static int64_t ref_pad_coordinate(int64_t j, int64_t n, uint32_t mode)
{
    if (mode == 0)
        return j < 0 || j >= n ? -1 : j;
    if (mode == 1)
        return j < 0 ? 0 : j >= n ? n - 1 : j;
    if (n == 1)
        return 0;
    while (j < 0 || j >= n) {
        if (j < 0) /* the edge element is 0: REFLECTION skips it on the way back, SYMMETRIC repeats it */
            j = mode == 2 ? -j : -j - 1;
        else
            j = mode == 2 ? 2 * (n - 1) - j : 2 * n - 1 - j;
    }
    return j;
}

void ref_padding(const ref_view* input, const ref_view* output, uint32_t mode, const void* value,
                 const uint32_t* start)
{
    if (input->rank != output->rank || input->elem_size != output->elem_size)
        ref_fail("padding ranks or element sizes differ");
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t ic[REF_MAX_RANK];
    do {
        int inside = 1;
        for (uint32_t i = 0; i < output->rank; ++i) {
            int64_t j = ref_pad_coordinate((int64_t)c[i] - (int64_t)start[i], input->sizes[i], mode);
            inside = inside && j >= 0;
            ic[i] = (uint64_t)(j < 0 ? 0 : j);
        }
        if (inside)
            ref_copy(input, ic, output, c);
        else
            memcpy(output->base + ref_offset(output, c), value, output->elem_size);
    } while (ref_next(output, c));
}

void ref_depth_to_space(const ref_view* input, const ref_view* output, uint32_t block, int crd)
{
    if (input->rank != 4 || output->rank != 4)
        ref_fail("depth_to_space ranks not 4");
    const uint64_t b = block, cs = output->sizes[1];
    if (input->sizes[1] != cs * b * b || output->sizes[2] != input->sizes[2] * b ||
        output->sizes[3] != input->sizes[3] * b || output->sizes[0] != input->sizes[0])
        ref_fail("depth_to_space sizes");
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t ic[REF_MAX_RANK];
    do {
        /* out[n, c, h*B+i, w*B+j] */
        const uint64_t h = c[2] / b, i = c[2] % b, w = c[3] / b, j = c[3] % b;
        ic[0] = c[0];
        ic[1] = crd ? c[1] * b * b + i * b + j : (i * b + j) * cs + c[1];
        ic[2] = h;
        ic[3] = w;
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

void ref_space_to_depth(const ref_view* input, const ref_view* output, uint32_t block, int crd)
{
    if (input->rank != 4 || output->rank != 4)
        ref_fail("space_to_depth ranks not 4");
    const uint64_t b = block, cs = input->sizes[1];
    if (output->sizes[1] != cs * b * b || input->sizes[2] != output->sizes[2] * b ||
        input->sizes[3] != output->sizes[3] * b || output->sizes[0] != input->sizes[0])
        ref_fail("space_to_depth sizes");
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t ic[REF_MAX_RANK];
    do {
        /* out[n, k, h, w] with k = (i*B + j)*C' + c (DCR) or c*B*B + i*B + j (CRD) */
        uint64_t ch, i, j;
        if (crd) {
            ch = c[1] / (b * b);
            i = c[1] % (b * b) / b;
            j = c[1] % b;
        } else {
            ch = c[1] % cs;
            i = c[1] / cs / b;
            j = c[1] / cs % b;
        }
        ic[0] = c[0];
        ic[1] = ch;
        ic[2] = c[2] * b + i;
        ic[3] = c[3] * b + j;
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

void ref_output_mask(const ref_view* output, uint8_t* mask)
{
    uint64_t c[REF_MAX_RANK] = { 0 };
    do {
        memset(mask + ref_offset(output, c), 1, output->elem_size);
    } while (ref_next(output, c));
}

/* Which part holds whole-coordinate `position` on the axis, and where in it. */
static uint32_t ref_part_of(const ref_view* parts, uint32_t count, uint32_t axis, uint64_t position,
                            uint64_t* within)
{
    for (uint32_t k = 0; k < count; ++k) {
        if (position < parts[k].sizes[axis]) {
            *within = position;
            return k;
        }
        position -= parts[k].sizes[axis];
    }
    ref_fail("join/split position past the parts");
    return 0;
}

void ref_join(const ref_view* inputs, uint32_t count, const ref_view* output, uint32_t axis)
{
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t ic[REF_MAX_RANK];
    do {
        memcpy(ic, c, sizeof ic);
        uint32_t k = ref_part_of(inputs, count, axis, c[axis], &ic[axis]);
        ref_copy(&inputs[k], ic, output, c);
    } while (ref_next(output, c));
}

void ref_split(const ref_view* input, const ref_view* outputs, uint32_t count, uint32_t axis)
{
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t oc[REF_MAX_RANK];
    do {
        memcpy(oc, c, sizeof oc);
        uint32_t k = ref_part_of(outputs, count, axis, c[axis], &oc[axis]);
        ref_copy(input, c, &outputs[k], oc);
    } while (ref_next(input, c));
}
/* ---- CAST ------------------------------------------------------------------ */

/* An element as the conversion sees it: an integer (its 64-bit two's
 * complement, and whether the type was signed), a float's exact value in a
 * double, or a NaN (sign, fraction field and its width). */
typedef struct ref_number {
    int is_integer, is_signed, is_nan, negative;
    uint64_t bits;
    double value;
    uint64_t fraction;
    int fraction_bits;
} ref_number;

static int ref_type_is_float(uint32_t t)
{
    return t == DML_TENSOR_DATA_TYPE_FLOAT16 || t == DML_TENSOR_DATA_TYPE_FLOAT32 || t == DML_TENSOR_DATA_TYPE_FLOAT64;
}

static int ref_type_is_signed(uint32_t t)
{
    return t == DML_TENSOR_DATA_TYPE_INT8 || t == DML_TENSOR_DATA_TYPE_INT16 || t == DML_TENSOR_DATA_TYPE_INT32 ||
        t == DML_TENSOR_DATA_TYPE_INT64;
}

static uint32_t ref_type_bits(uint32_t t)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_INT8: case DML_TENSOR_DATA_TYPE_UINT8: return 8;
    case DML_TENSOR_DATA_TYPE_INT16: case DML_TENSOR_DATA_TYPE_UINT16: case DML_TENSOR_DATA_TYPE_FLOAT16: return 16;
    case DML_TENSOR_DATA_TYPE_INT32: case DML_TENSOR_DATA_TYPE_UINT32: case DML_TENSOR_DATA_TYPE_FLOAT32: return 32;
    default: return 64;
    }
}

static ref_number ref_load(uint32_t type, const void* p)
{
    ref_number n;
    memset(&n, 0, sizeof n);
    uint64_t raw = 0;
    const uint32_t width = ref_type_bits(type);
    memcpy(&raw, p, width / 8);
    if (!ref_type_is_float(type)) {
        n.is_integer = 1;
        n.is_signed = ref_type_is_signed(type);
        if (n.is_signed && width < 64 && (raw >> (width - 1)) & 1)
            raw |= ~0ull << width;
        n.bits = raw;
        return n;
    }
    n.negative = (int)(raw >> (width - 1));
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
        int exponent = (int)(raw >> 10) & 31, mantissa = (int)(raw & 1023);
        n.is_nan = exponent == 31 && mantissa;
        n.fraction = (uint64_t)mantissa, n.fraction_bits = 10;
        double magnitude = exponent == 31 ? INFINITY
            : exponent == 0              ? ldexp(mantissa, -24)
                                         : ldexp(1024 + mantissa, exponent - 25);
        n.value = n.negative ? -magnitude : magnitude;
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float f;
        memcpy(&f, p, 4);
        n.is_nan = isnan(f);
        n.fraction = raw & 0x7FFFFF, n.fraction_bits = 23;
        n.value = f;
    } else {
        memcpy(&n.value, p, 8);
        n.is_nan = isnan(n.value);
        n.fraction = raw & 0xFFFFFFFFFFFFFull, n.fraction_bits = 52;
    }
    return n;
}

/* A NaN in a float type of `width` bits with `fraction_bits`: sign, the top of
 * the payload, quiet. */
static uint64_t ref_nan(const ref_number* n, uint32_t width, int fraction_bits)
{
    int shift = fraction_bits - n->fraction_bits;
    uint64_t fraction = shift >= 0 ? n->fraction << shift : n->fraction >> -shift;
    uint64_t exponent = ((1ull << (width - 1 - (uint32_t)fraction_bits)) - 1) << fraction_bits;
    return ((uint64_t)n->negative << (width - 1)) | exponent | (1ull << (fraction_bits - 1)) | fraction;
}

/* A double rounded to float16 (nearest, ties to even, with rint). */
static uint16_t ref_round_half(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (a >= 65520.0)
        return sign | 0x7C00;
    if (a < ldexp(1, -14)) /* subnormal: a count of 2^-24 (1024 is the smallest normal) */
        return sign | (uint16_t)rint(ldexp(a, 24));
    int e;
    frexp(a, &e);
    int exponent = e - 1;
    double m = rint(ldexp(a, 10 - exponent)); /* in [1024, 2048] */
    if (m == 2048.0) {
        m = 1024.0;
        ++exponent;
    }
    return sign | (uint16_t)((exponent + 15) << 10) | (uint16_t)(m - 1024.0);
}

static uint64_t ref_to_integer(const ref_number* n, uint32_t type)
{
    const uint32_t width = ref_type_bits(type);
    const uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
    if (n->is_integer)
        return n->bits & mask;
    if (n->is_nan)
        return 0;
    double t = trunc(n->value);
    if (ref_type_is_signed(type)) {
        const double limit = ldexp(1, (int)width - 1);
        if (t >= limit)
            return mask >> 1;
        if (t < -limit)
            return (mask >> 1) + 1;
        return (uint64_t)(int64_t)t & mask;
    }
    if (t >= ldexp(1, (int)width))
        return mask;
    if (t < 0)
        return 0;
    return (uint64_t)t;
}

/* An integer rounded to float32 by integer arithmetic: keep its top 24 bits,
 * round the rest to nearest, ties to even (C's conversion of a 64-bit
 * integer rounds twice under valgrind, which goes through a double). */
static float ref_integer_to_float(const ref_number* n)
{
    int negative = n->is_signed && (int64_t)n->bits < 0;
    uint64_t m = negative ? 0 - n->bits : n->bits;
    int length = 0;
    while (length < 64 && (m >> length))
        ++length;
    float f;
    if (length <= 24) {
        f = (float)(uint32_t)m; /* exact */
    } else {
        int k = length - 24;
        uint64_t q = m >> k, rest = m & ((1ull << k) - 1), half = 1ull << (k - 1);
        if (rest > half || (rest == half && (q & 1)))
            ++q; /* up to 2^24: still exact */
        f = ldexpf((float)(uint32_t)q, k);
    }
    return negative ? -f : f;
}

void ref_cast_element(uint32_t out_type, void* out, uint32_t in_type, const void* in)
{
    const uint32_t width = ref_type_bits(out_type);
    if (out_type == in_type) {
        memcpy(out, in, width / 8);
        return;
    }
    ref_number n = ref_load(in_type, in);
    uint64_t result;
    if (!ref_type_is_float(out_type)) {
        result = ref_to_integer(&n, out_type);
    } else if (n.is_nan) {
        result = ref_nan(&n, width, width == 16 ? 10 : width == 32 ? 23 : 52);
    } else if (out_type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        double d = !n.is_integer ? n.value : n.is_signed ? (double)(int64_t)n.bits : (double)n.bits;
        memcpy(&result, &d, 8);
    } else if (out_type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float f = !n.is_integer ? (float)n.value : ref_integer_to_float(&n);
        uint32_t b;
        memcpy(&b, &f, 4);
        result = b;
    } else {
        double v = n.value;
        if (n.is_integer) { /* exact in a double below 65520; beyond, infinity either way */
            int negative = n.is_signed && (int64_t)n.bits < 0;
            uint64_t magnitude = negative ? 0 - n.bits : n.bits;
            v = magnitude >= 65520 ? 65520.0 : (double)magnitude;
            v = negative ? -v : v;
        }
        result = ref_round_half(v);
    }
    memcpy(out, &result, width / 8); /* little-endian: the low bytes */
}

void ref_cast(const ref_view* input, uint32_t in_type, const ref_view* output, uint32_t out_type)
{
    if (input->rank != output->rank)
        ref_fail("cast ranks differ");
    for (uint32_t i = 0; i < output->rank; ++i)
        if (input->sizes[i] != output->sizes[i])
            ref_fail("cast sizes differ");
    if (input->elem_size != ref_type_bits(in_type) / 8 || output->elem_size != ref_type_bits(out_type) / 8)
        ref_fail("cast element sizes");
    uint64_t c[REF_MAX_RANK] = { 0 };
    do {
        ref_cast_element(out_type, output->base + ref_offset(output, c), in_type, input->base + ref_offset(input, c));
    } while (ref_next(output, c));
}

/* ---- FILL_VALUE_CONSTANT / FILL_VALUE_SEQUENCE ------------------------------
 * Written from docs/operators.md, by other means than the runtime: a float32
 * product or sum is computed exactly enough in double and rounded once to
 * float32 (double rounding is innocuous for + and * when 53 >= 2 * 24 + 2),
 * and float16 is the compiler's _Float16. */

#define REF_NAN16 0x7E00u
#define REF_NAN32 0x7FC00000u
#define REF_NAN64 0x7FF8000000000000ull

static uint32_t ref_f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static float ref_bits_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* start + (float)k * delta, each operation rounded to float32. */
static float ref_f32_sequence(float start, float delta, uint64_t k)
{
    volatile float kf = (float)k;
    volatile float product = (float)((double)kf * (double)delta);
    return (float)((double)start + (double)product);
}

static uint64_t ref_fill_bits(uint32_t data_type, uint64_t start, uint64_t delta, uint64_t k)
{
    if (k == 0)
        return start;
    switch (data_type) {
    case 1: { /* FLOAT32 */
        float r = ref_f32_sequence(ref_bits_f32((uint32_t)start), ref_bits_f32((uint32_t)delta), k);
        return r != r ? REF_NAN32 : ref_f32_bits(r);
    }
    case 2: { /* FLOAT16: in float32, rounded once to float16 */
#if defined(__FLT16_MAX__)
        _Float16 hs, hd;
        uint16_t s16 = (uint16_t)start, d16 = (uint16_t)delta;
        memcpy(&hs, &s16, 2);
        memcpy(&hd, &d16, 2);
        float r = ref_f32_sequence((float)hs, (float)hd, k);
        if (r != r)
            return REF_NAN16;
        _Float16 h = (_Float16)r;
        uint16_t bits;
        memcpy(&bits, &h, 2);
        return bits;
#else
        ref_fail("no _Float16 in this compiler: float16 sequences cannot be checked");
        return 0;
#endif
    }
    case 9: { /* FLOAT64 */
        double s, d;
        memcpy(&s, &start, 8);
        memcpy(&d, &delta, 8);
        volatile double kd = (double)k;
        volatile double product = kd * d;
        volatile double r = s + product;
        double result = r;
        if (result != result)
            return REF_NAN64;
        uint64_t bits;
        memcpy(&bits, &result, 8);
        return bits;
    }
    default: { /* integers: the mathematical value modulo 2^bits */
        unsigned __int128 v = (unsigned __int128)start + (unsigned __int128)k * delta;
        return (uint64_t)v;
    }
    }
}

uint64_t ref_fill_value(uint32_t data_type, uint64_t start, uint64_t delta, uint64_t k)
{
    return ref_fill_bits(data_type, start, delta, k);
}

void ref_fill(const ref_view* output, uint32_t data_type, uint64_t start, uint64_t delta, int sequence)
{
    uint64_t c[REF_MAX_RANK] = { 0 };
    uint64_t k = 0; /* the element's position in row-major order of the logical sizes */
    do {
        uint64_t bits = ref_fill_bits(data_type, start, delta, sequence ? k : 0);
        memcpy(output->base + ref_offset(output, c), &bits, output->elem_size); /* little-endian low bytes */
        ++k;
    } while (ref_next(output, c));
}

/* ---- data-dependent operators -------------------------------------------- */

/* The index element at coord, as a mathematical integer. */
__extension__ typedef __int128 ref_i128;

static ref_i128 ref_index_value(const ref_view* indices, const uint64_t* coord, int idx_signed)
{
    const uint8_t* p = indices->base + ref_offset(indices, coord);
    if (indices->elem_size == 4) {
        uint32_t u;
        memcpy(&u, p, 4);
        return idx_signed ? (ref_i128)(int32_t)u : (ref_i128)u;
    }
    if (indices->elem_size != 8)
        ref_fail("index element size");
    uint64_t u;
    memcpy(&u, p, 8);
    return idx_signed ? (ref_i128)(int64_t)u : (ref_i128)u;
}

/* The value with the negative rule applied once: may still be outside [0, n). */
static ref_i128 ref_index_from_end(ref_i128 v, uint64_t n)
{
    return v < 0 ? v + (ref_i128)n : v;
}

int ref_index_position(const ref_view* indices, const uint64_t* coord, int idx_signed, uint64_t n, uint64_t* pos)
{
    ref_i128 p = ref_index_from_end(ref_index_value(indices, coord, idx_signed), n);
    if (p < 0 || p >= (ref_i128)n)
        return 0;
    *pos = (uint64_t)p;
    return 1;
}

/* A gather's position: out-of-range values clamped to the nearer end. */
static uint64_t ref_index_clamped(const ref_view* indices, const uint64_t* coord, int idx_signed, uint64_t n)
{
    ref_i128 p = ref_index_from_end(ref_index_value(indices, coord, idx_signed), n);
    return p < 0 ? 0 : p >= (ref_i128)n ? n - 1 : (uint64_t)p;
}

/* The coordinates of a meaningful shape of `count` dimensions right-aligned
 * against a tensor coordinate c of `rank` dimensions: e[i] = c[i + rank -
 * count], 0 where that falls before c. */
static void ref_align(const uint64_t* c, uint32_t rank, uint32_t count, uint64_t* e)
{
    for (uint32_t i = 0; i < count; ++i) {
        int64_t j = (int64_t)i + (int64_t)rank - (int64_t)count;
        e[i] = j >= 0 ? c[j] : 0;
    }
}

void ref_gather(const ref_view* input, const ref_view* indices, const ref_view* output, uint32_t axis,
                uint32_t index_dims, int idx_signed)
{
    const uint32_t R = input->rank, M = R - 1 + index_dims;
    if (axis >= R || index_dims > R || indices->rank != R || output->rank != R)
        ref_fail("gather arguments");
    uint64_t c[REF_MAX_RANK] = { 0 }, e[2 * REF_MAX_RANK], ic[REF_MAX_RANK], xc[REF_MAX_RANK];
    do {
        ref_align(c, R, M, e);
        memset(xc, 0, sizeof xc);
        for (uint32_t k = 0; k < index_dims; ++k)
            xc[R - index_dims + k] = e[axis + k];
        for (uint32_t j = 0; j < R; ++j)
            ic[j] = j < axis ? e[j] : j > axis ? e[j + index_dims - 1] : 0;
        ic[axis] = ref_index_clamped(indices, xc, idx_signed, input->sizes[axis]);
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

void ref_gather_elements(const ref_view* input, const ref_view* indices, const ref_view* output, uint32_t axis,
                         int idx_signed)
{
    uint64_t c[REF_MAX_RANK] = { 0 }, ic[REF_MAX_RANK];
    if (axis >= input->rank)
        ref_fail("gather_elements axis");
    do {
        memcpy(ic, c, sizeof ic);
        ic[axis] = ref_index_clamped(indices, c, idx_signed, input->sizes[axis]);
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

/* GATHER_ND's and SCATTER_ND's shared geometry. */
typedef struct ref_nd {
    uint32_t R, data_first, idx_first, batch, q, M;
} ref_nd;

static ref_nd ref_nd_geometry(const ref_view* data, const ref_view* indices, uint32_t data_dims,
                              uint32_t indices_dims, uint32_t batch)
{
    ref_nd g;
    g.R = data->rank;
    if (indices->rank != g.R || data_dims < 1 || data_dims > g.R || indices_dims < 1 || indices_dims > g.R)
        ref_fail("nd arguments");
    g.data_first = g.R - data_dims;
    g.idx_first = g.R - indices_dims;
    g.batch = batch;
    g.q = indices->sizes[g.R - 1];
    if (batch + g.q > data_dims || batch >= indices_dims)
        ref_fail("nd tuple");
    g.M = (indices_dims - 1) + (data_dims - batch - g.q);
    return g;
}

/* For meaningful coordinate e: the data coordinate it addresses (0 when a
 * tuple component is out of range and clamp is 0: returns 0). */
static int ref_nd_address(const ref_nd* g, const ref_view* data, const ref_view* indices, const uint64_t* e,
                          int idx_signed, int clamp, uint64_t* dc)
{
    uint64_t xc[REF_MAX_RANK] = { 0 };
    memset(dc, 0, REF_MAX_RANK * sizeof *dc);
    const uint32_t lead = g->R - 1 - g->idx_first; /* meaningful index dimensions but the tuple's */
    for (uint32_t j = 0; j < lead; ++j)
        xc[g->idx_first + j] = e[j];
    for (uint32_t b = 0; b < g->batch; ++b)
        dc[g->data_first + b] = e[b];
    for (uint32_t k = 0; k < g->q; ++k) {
        xc[g->R - 1] = k;
        const uint32_t d = g->data_first + g->batch + k;
        if (clamp)
            dc[d] = ref_index_clamped(indices, xc, idx_signed, data->sizes[d]);
        else if (!ref_index_position(indices, xc, idx_signed, data->sizes[d], &dc[d]))
            return 0;
    }
    for (uint32_t d = g->data_first + g->batch + g->q; d < g->R; ++d)
        dc[d] = e[lead + (d - (g->data_first + g->batch + g->q))];
    return 1;
}

void ref_gather_nd(const ref_view* input, const ref_view* indices, const ref_view* output, uint32_t input_dims,
                   uint32_t indices_dims, uint32_t batch_dims, int idx_signed)
{
    const ref_nd g = ref_nd_geometry(input, indices, input_dims, indices_dims, batch_dims);
    uint64_t c[REF_MAX_RANK] = { 0 }, e[2 * REF_MAX_RANK], ic[REF_MAX_RANK];
    do {
        ref_align(c, g.R, g.M, e);
        ref_nd_address(&g, input, indices, e, idx_signed, 1, ic);
        ref_copy(input, ic, output, c);
    } while (ref_next(output, c));
}

/* output = input, element by element. */
static void ref_copy_all(const ref_view* input, const ref_view* output)
{
    uint64_t c[REF_MAX_RANK] = { 0 };
    do
        ref_copy(input, c, output, c);
    while (ref_next(output, c));
}

void ref_scatter_elements(const ref_view* input, const ref_view* indices, const ref_view* updates,
                          const ref_view* output, uint32_t axis, int idx_signed, uint64_t* targets)
{
    if (axis >= output->rank)
        ref_fail("scatter_elements axis");
    ref_copy_all(input, output);
    uint64_t c[REF_MAX_RANK] = { 0 }, oc[REF_MAX_RANK], n = 0;
    do {
        memcpy(oc, c, sizeof oc);
        uint64_t target = UINT64_MAX;
        if (ref_index_position(indices, c, idx_signed, output->sizes[axis], &oc[axis])) {
            ref_copy(updates, c, output, oc);
            target = ref_offset(output, oc);
        }
        if (targets)
            targets[n] = target;
        ++n;
    } while (ref_next(updates, c));
}

void ref_scatter_nd(const ref_view* input, const ref_view* indices, const ref_view* updates,
                    const ref_view* output, uint32_t input_dims, uint32_t indices_dims, int idx_signed,
                    uint64_t* targets)
{
    const ref_nd g = ref_nd_geometry(output, indices, input_dims, indices_dims, 0);
    ref_copy_all(input, output);
    uint64_t c[REF_MAX_RANK] = { 0 }, e[2 * REF_MAX_RANK], oc[REF_MAX_RANK], n = 0;
    do {
        ref_align(c, g.R, g.M, e);
        uint64_t target = UINT64_MAX;
        if (ref_nd_address(&g, output, indices, e, idx_signed, 0, oc)) {
            ref_copy(updates, c, output, oc);
            target = ref_offset(output, oc);
        }
        if (targets)
            targets[n] = target;
        ++n;
    } while (ref_next(updates, c));
}

void ref_one_hot(const ref_view* indices, const ref_view* values, const ref_view* output, uint32_t axis,
                 int idx_signed)
{
    uint64_t off_c[REF_MAX_RANK] = { 0 }, on_c[REF_MAX_RANK] = { 0 };
    int inner = -1;
    for (uint32_t i = 0; i < values->rank; ++i)
        if (values->sizes[i] > 1)
            inner = (int)i;
    if (inner < 0 || axis >= output->rank)
        ref_fail("one_hot arguments");
    on_c[inner] = 1;
    uint64_t c[REF_MAX_RANK] = { 0 }, xc[REF_MAX_RANK];
    do {
        memcpy(xc, c, sizeof xc);
        xc[axis] = 0;
        uint64_t pos;
        int on = ref_index_position(indices, xc, idx_signed, output->sizes[axis], &pos) && pos == c[axis];
        ref_copy(values, on ? on_c : off_c, output, c);
    } while (ref_next(output, c));
}

void ref_element_wise_if(const ref_view* condition, const ref_view* a, const ref_view* b, const ref_view* output)
{
    uint64_t c[REF_MAX_RANK] = { 0 };
    if (condition->elem_size != 1)
        ref_fail("condition element size");
    do {
        ref_copy(condition->base[ref_offset(condition, c)] ? a : b, c, output, c);
    } while (ref_next(output, c));
}
