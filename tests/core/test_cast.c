/*
 * core/cast.h, every one of the 121 (input, output) pairs, against a
 * reference written from the spec's rules in exact integer arithmetic (no C
 * conversion, no float instruction):
 *
 *   a float is sign * m * 2^e (m, e integers); rounding to a format of p
 *   significand bits keeps the integer significand at the quantum
 *   2^max(E - p + 1, emin - p + 1), ties to even, overflow to infinity;
 *   float -> integer truncates m * 2^e and saturates, NaN -> 0;
 *   integer -> integer keeps the low bits;
 *   NaN -> float keeps the sign and the payload's top bits, quiet bit set.
 *
 * Inputs: every pattern of the 8- and 16-bit types (float16 included); for
 * the wider ones, the extremes, every tie and its neighbours one ulp away at
 * the boundaries that matter (float16 and float32 rounding, saturation
 * bounds), and random patterns.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cast.h"
#include "core/data_type.h"

typedef struct format {
    int p, ebits; /* significand bits (with the hidden one), exponent bits */
} format;

static const format F16 = { 11, 5 }, F32 = { 24, 8 };

static int bias_of(format f)
{
    return (1 << (f.ebits - 1)) - 1;
}

static uint64_t sign_bit(format f)
{
    return 1ull << (f.p + f.ebits - 1);
}

static uint64_t exponent_field_max(format f)
{
    return (1ull << f.ebits) - 1;
}

static int bit_length(uint64_t m)
{
    int n = 0;
    while (m) {
        ++n;
        m >>= 1;
    }
    return n;
}

/* m * 2^e (m < 2^64) rounded to f, ties to even; the bits, sign included. */
static uint64_t round_to(format f, int negative, uint64_t m, int e)
{
    uint64_t sign = negative ? sign_bit(f) : 0;
    if (m == 0)
        return sign;
    const int bias = bias_of(f), emin = 1 - bias;
    const int E = e + bit_length(m) - 1;
    int q = E - (f.p - 1) > emin - (f.p - 1) ? E - (f.p - 1) : emin - (f.p - 1);
    uint64_t s;
    if (e >= q) {
        s = m << (e - q); /* at most p bits */
    } else {
        int k = q - e;
        if (k > 64) {
            s = 0; /* below a quarter of the quantum */
        } else if (k == 64) {
            s = m > (1ull << 63) ? 1 : 0;
        } else {
            s = m >> k;
            uint64_t rest = m & ((1ull << (k - 1) << 1) - 1), half = 1ull << (k - 1);
            if (rest > half || (rest == half && (s & 1)))
                ++s;
        }
    }
    if (s >> f.p) { /* carried to 2^p */
        s >>= 1;
        ++q;
    }
    if (s < (1ull << (f.p - 1)))
        return sign | s; /* subnormal (q is the smallest quantum) */
    int64_t biased = (int64_t)q + (f.p - 1) + bias;
    if (biased >= (int64_t)exponent_field_max(f))
        return sign | (exponent_field_max(f) << (f.p - 1));
    return sign | ((uint64_t)biased << (f.p - 1)) | (s - (1ull << (f.p - 1)));
}

/* A value: NaN (with sign and fraction), infinity, or sign * m * 2^e. */
typedef struct value {
    int nan, inf, negative;
    uint64_t m;      /* magnitude's significand (the integer itself for integers) */
    int e;
    uint64_t fraction; /* NaN: the fraction field */
    int fraction_bits;
    int is_integer;
    uint64_t integer_bits; /* integers: the value's two's-complement bits (64) */
} value;

static value decode_float(format f, uint64_t bits)
{
    value v;
    memset(&v, 0, sizeof v);
    const int bias = bias_of(f);
    v.negative = (bits & sign_bit(f)) != 0;
    uint64_t field = (bits >> (f.p - 1)) & exponent_field_max(f), fraction = bits & ((1ull << (f.p - 1)) - 1);
    if (field == exponent_field_max(f)) {
        v.nan = fraction != 0;
        v.inf = fraction == 0;
        v.fraction = fraction;
        v.fraction_bits = f.p - 1;
    } else if (field == 0) {
        v.m = fraction;
        v.e = 1 - bias - (f.p - 1);
    } else {
        v.m = fraction | (1ull << (f.p - 1));
        v.e = (int)field - bias - (f.p - 1);
    }
    return v;
}

static value decode_integer(uint64_t bits, int size, int is_signed)
{
    value v;
    memset(&v, 0, sizeof v);
    v.is_integer = 1;
    const int width = size * 8;
    uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
    bits &= mask;
    if (is_signed && width < 64 && (bits >> (width - 1)))
        bits |= ~mask; /* sign-extend */
    v.integer_bits = bits;
    v.negative = is_signed && (int64_t)bits < 0;
    v.m = v.negative ? 0 - bits : bits;
    return v;
}

static uint64_t to_float(format f, const value* v)
{
    uint64_t sign = v->negative ? sign_bit(f) : 0, inf = exponent_field_max(f) << (f.p - 1);
    if (v->nan) {
        int shift = (f.p - 1) - v->fraction_bits;
        uint64_t fraction = shift >= 0 ? v->fraction << shift : v->fraction >> -shift;
        return sign | inf | fraction | (1ull << (f.p - 2));
    }
    if (v->inf)
        return sign | inf;
    return round_to(f, v->negative, v->m, v->e);
}

static uint64_t to_integer(int size, int is_signed, const value* v)
{
    const int width = size * 8;
    const uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
    if (v->is_integer)
        return v->integer_bits & mask;
    if (v->nan)
        return 0;
    /* |truncated|, or "huge" when it exceeds 2^64. */
    int huge = v->inf;
    uint64_t t = 0;
    if (!huge && v->m) {
        if (v->e >= 0)
            huge = bit_length(v->m) + v->e > 64;
        if (!huge)
            t = v->e >= 0 ? v->m << v->e : (-v->e >= 64 ? 0 : v->m >> -v->e);
    }
    const uint64_t hi = is_signed ? (mask >> 1) : mask; /* the largest value */
    if (v->negative) {
        if (t == 0 && !huge)
            return 0;
        if (!is_signed)
            return 0;
        uint64_t lo_magnitude = hi + 1; /* 2^(width-1) */
        return (huge || t > lo_magnitude ? (0 - lo_magnitude) : (0 - t)) & mask;
    }
    return huge || t > hi ? hi : t;
}

/* The reference's view of the eleven types. */
typedef struct type_info {
    uint32_t type;
    int size, is_float, is_signed;
    format f;
} type_info;

static const type_info types[] = {
    { DML_TENSOR_DATA_TYPE_FLOAT32, 4, 1, 1, { 24, 8 } },
    { DML_TENSOR_DATA_TYPE_FLOAT16, 2, 1, 1, { 11, 5 } },
    { DML_TENSOR_DATA_TYPE_UINT32, 4, 0, 0, { 0, 0 } },
    { DML_TENSOR_DATA_TYPE_UINT16, 2, 0, 0, { 0, 0 } },
    { DML_TENSOR_DATA_TYPE_UINT8, 1, 0, 0, { 0, 0 } },
    { DML_TENSOR_DATA_TYPE_INT32, 4, 0, 1, { 0, 0 } },
    { DML_TENSOR_DATA_TYPE_INT16, 2, 0, 1, { 0, 0 } },
    { DML_TENSOR_DATA_TYPE_INT8, 1, 0, 1, { 0, 0 } },
    { DML_TENSOR_DATA_TYPE_FLOAT64, 8, 1, 1, { 53, 11 } },
    { DML_TENSOR_DATA_TYPE_UINT64, 8, 0, 0, { 0, 0 } },
    { DML_TENSOR_DATA_TYPE_INT64, 8, 0, 1, { 0, 0 } },
};
#define TYPE_COUNT (sizeof types / sizeof types[0])

static uint64_t reference(const type_info* out, const type_info* in, uint64_t bits)
{
    if (out->type == in->type)
        return bits;
    value v = in->is_float ? decode_float(in->f, bits) : decode_integer(bits, in->size, in->is_signed);
    return out->is_float ? to_float(out->f, &v) : to_integer(out->size, out->is_signed, &v);
}

/* ---- inputs ------------------------------------------------------------- */

typedef struct inputs {
    uint64_t* bits;
    size_t count, capacity;
} inputs;

static void add(inputs* in, uint64_t bits)
{
    if (in->count == in->capacity) {
        in->capacity = in->capacity ? 2 * in->capacity : 4096;
        in->bits = realloc(in->bits, in->capacity * sizeof *in->bits);
        ck_assert_ptr_nonnull(in->bits);
    }
    in->bits[in->count++] = bits;
}

static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint64_t next_random(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* Both signs of m * 2^e in format f, and its neighbours one ulp (of f) away. */
static void add_float_around(inputs* in, format f, int negative, uint64_t m, int e)
{
    uint64_t b = round_to(f, negative, m, e);
    for (int d = -1; d <= 1; ++d) {
        uint64_t x = b + (uint64_t)(int64_t)d;
        add(in, x);
        add(in, x ^ sign_bit(f));
    }
}

/* The points where rounding to `target` decides, written in `source`: each
 * representable target value near the range's edges and at random, the tie
 * above it, and their neighbours. */
static void add_ties(inputs* in, format source, format target, int all)
{
    const uint64_t target_count = 1ull << (target.p + target.ebits - 1); /* non-negative patterns */
    for (uint64_t k = 0; k < (all ? target_count : 4096); ++k) {
        const uint64_t largest = (exponent_field_max(target) << (target.p - 1)) - 1; /* the largest finite */
        uint64_t t = all ? k : k < 1024 ? k : k < 2048 ? largest - (k - 1024) : next_random() % target_count;
        value v = decode_float(target, t);
        if (v.nan || v.inf)
            continue;
        /* t's value and the tie between t and its successor: (2m + 1) * 2^(e-1). */
        add_float_around(in, source, 0, v.m, v.e);
        add_float_around(in, source, 0, 2 * v.m + 1, v.e - 1);
    }
}

static void add_integer_edges(inputs* in, int size)
{
    const int width = size * 8;
    for (int b = 0; b < width; ++b) /* 2^b and its neighbours, both signs */
        for (int d = -2; d <= 2; ++d) {
            add(in, (1ull << b) + (uint64_t)(int64_t)d);
            add(in, 0 - ((1ull << b) + (uint64_t)(int64_t)d));
        }
    /* Ties of float16 (above 2048), float32 (above 2^24) and float64 (above 2^53). */
    const int precisions[] = { 11, 24, 53 };
    for (size_t k = 0; k < 3; ++k)
        for (int top = precisions[k]; top < width; ++top)
            for (int r = 0; r < 8; ++r) {
                uint64_t kept = (next_random() | 1ull << 63) >> (64 - precisions[k]);
                int below = top + 1 - precisions[k]; /* bits rounded away */
                uint64_t x = kept << below | (1ull << (below - 1));
                for (int d = -1; d <= 1; ++d) {
                    add(in, x + (uint64_t)(int64_t)d);
                    add(in, 0 - (x + (uint64_t)(int64_t)d));
                }
            }
    for (int i = 0; i < 20000; ++i)
        add(in, next_random() >> (next_random() % 64));
}

/* Every saturation bound of an integer target, in float format f, and one ulp around. */
static void add_saturation_bounds(inputs* in, format f)
{
    for (int width = 8; width <= 64; width *= 2) {
        add_float_around(in, f, 0, 1, width);      /* 2^w: above every unsigned */
        add_float_around(in, f, 0, 1, width - 1);  /* 2^(w-1) */
        add_float_around(in, f, 1, 1, width - 1);  /* -2^(w-1): the signed minimum */
        add_float_around(in, f, 0, width == 64 ? UINT64_MAX : (1ull << width) - 1, 0); /* no shift by 64 */
        add_float_around(in, f, 0, (1ull << (width - 1)) - 1, 0);
        add_float_around(in, f, 1, (1ull << (width - 1)) + 1, 0);
    }
    add_float_around(in, f, 0, 1, -1); /* 0.5, -0.5 */
    add_float_around(in, f, 0, 1, 0);
    add_float_around(in, f, 0, 3, -1);
}

static inputs inputs_for(const type_info* t)
{
    inputs in = { 0 };
    if (t->size <= 2) {
        for (uint64_t b = 0; b < (1ull << (8 * t->size)); ++b)
            add(&in, b);
        return in;
    }
    if (!t->is_float) {
        add_integer_edges(&in, t->size);
        return in;
    }
    const format f = t->f;
    const uint64_t inf = exponent_field_max(f) << (f.p - 1);
    const uint64_t specials[] = { 0, 1, 2, inf - 1, inf, inf + 1, inf | (1ull << (f.p - 2)), inf | 0x55,
        (1ull << (f.p - 1)) - 1, 1ull << (f.p - 1), sign_bit(f) - 1 };
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; ++k) {
        add(&in, specials[k]);
        add(&in, specials[k] | sign_bit(f));
    }
    add_ties(&in, f, F16, f.p == 24); /* every float16 tie in float32 */
    if (f.p == 53)
        add_ties(&in, f, F32, 0);
    add_saturation_bounds(&in, f);
    const uint64_t all = f.p == 53 ? ~0ull : 0xFFFFFFFFull;
    for (int i = 0; i < 100000; ++i) {
        uint64_t x = next_random() & all;
        add(&in, x);
        /* exponents near the integer ranges and the float16/float32 ones */
        int exponent = bias_of(f) + (int)(next_random() % 160) - 80;
        add(&in, (x & (sign_bit(f) | ((1ull << (f.p - 1)) - 1))) | ((uint64_t)exponent << (f.p - 1)));
    }
    return in;
}

/* ---- the test ----------------------------------------------------------- */

static uint64_t run_cast(const type_info* out, const type_info* in, uint64_t bits)
{
    unsigned char source[8], result[8];
    memcpy(source, &bits, 8); /* little-endian: the low bytes are the element */
    memset(result, 0xA5, sizeof result);
    uint64_t aligned_in, aligned_out = 0;
    memcpy(&aligned_in, source, 8);
    dml_cast_element(out->type, &aligned_out, in->type, &aligned_in);
    memcpy(result, &aligned_out, 8);
    uint64_t r = 0;
    memcpy(&r, result, (size_t)out->size);
    return r;
}

START_TEST(every_pair_matches_the_exact_reference)
{
    const type_info* in = &types[_i];
    inputs values = inputs_for(in);
    const uint64_t in_mask = in->size == 8 ? ~0ull : (1ull << (8 * in->size)) - 1;
    for (size_t o = 0; o < TYPE_COUNT; ++o) {
        const type_info* out = &types[o];
        unsigned failures = 0;
        for (size_t k = 0; k < values.count && failures < 5; ++k) {
            uint64_t bits = values.bits[k] & in_mask;
            uint64_t got = run_cast(out, in, bits), want = reference(out, in, bits);
            if (got != want) {
                fprintf(stderr, "%s -> %s: 0x%llx gave 0x%llx, expected 0x%llx\n",
                    dml_data_type_name((DML_TENSOR_DATA_TYPE)in->type), dml_data_type_name((DML_TENSOR_DATA_TYPE)out->type),
                    (unsigned long long)bits, (unsigned long long)got, (unsigned long long)want);
                ++failures;
            }
        }
        ck_assert_msg(failures == 0, "%s -> %s differs from the reference",
            dml_data_type_name((DML_TENSOR_DATA_TYPE)in->type), dml_data_type_name((DML_TENSOR_DATA_TYPE)out->type));
    }
    free(values.bits);
}
END_TEST

/* A few values written out, so that the reference itself is pinned. */
START_TEST(reference_pins)
{
    const type_info *f32 = &types[0], *f16 = &types[1], *u8 = &types[4], *i32 = &types[5], *i8 = &types[7],
                    *f64 = &types[8], *u64 = &types[9], *i64 = &types[10];
    ck_assert_uint_eq(reference(i32, f32, 0x4F000000), 0x7FFFFFFF);          /* 2^31 saturates */
    ck_assert_uint_eq(reference(i32, f32, 0xCF000000), 0x80000000);          /* -2^31 is exact */
    ck_assert_uint_eq(reference(i32, f32, 0x7FC00000), 0);                   /* NaN */
    ck_assert_uint_eq(reference(u8, f32, 0xBF000000), 0);                    /* -0.5 */
    ck_assert_uint_eq(reference(u8, f32, 0x437F8000), 255);                  /* 255.5 */
    ck_assert_uint_eq(reference(i8, f32, 0xC3010000), 0x80);                 /* -129 */
    ck_assert_uint_eq(reference(i8, i32, 0x12345680), 0x80);                 /* low bits */
    ck_assert_uint_eq(reference(f16, f32, 0x477FF000), 0x7C00);              /* 65520: infinity */
    ck_assert_uint_eq(reference(f16, f32, 0x477FEFFF), 0x7BFF);              /* below: 65504 */
    ck_assert_uint_eq(reference(f16, f32, 0x33000000), 0x0000);              /* 2^-25: tie to 0 */
    ck_assert_uint_eq(reference(f16, f32, 0x33000001), 0x0001);
    ck_assert_uint_eq(reference(f16, f32, 0x7F800001), 0x7E00);              /* sNaN quieted */
    ck_assert_uint_eq(reference(f32, f16, 0x7C01), 0x7FC02000);
    ck_assert_uint_eq(reference(f32, f64, 0x3FF0000010000000ull), 0x3F800000); /* tie to even */
    ck_assert_uint_eq(reference(f32, f64, 0x3FF0000030000000ull), 0x3F800002);
    ck_assert_uint_eq(reference(f32, i64, (uint64_t)16777217), 0x4B800000);  /* 2^24 + 1: tie to even */
    ck_assert_uint_eq(reference(f16, u64, ~0ull), 0x7C00);
    ck_assert_uint_eq(reference(f32, u64, ~0ull), 0x5F800000);               /* 2^64 */
    ck_assert_uint_eq(reference(f64, i64, 0x8000000000000000ull), 0xC3E0000000000000ull);
    ck_assert_uint_eq(reference(i64, f64, 0x43E0000000000000ull), 0x7FFFFFFFFFFFFFFFull);
    ck_assert_uint_eq(reference(u64, f64, 0x43EFFFFFFFFFFFFFull), 0xFFFFFFFFFFFFF800ull);
    ck_assert_uint_eq(reference(f16, f64, 0x3E70000000000001ull), 0x0001); /* just above 2^-25 */
    ck_assert_uint_eq(reference(f16, i8, 0x80), 0xD800);                  /* -128 */
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cast");
    TCase* tc = tcase_create("rules");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, reference_pins);
    tcase_add_loop_test(tc, every_pair_matches_the_exact_reference, 0, (int)TYPE_COUNT);
    suite_add_tcase(s, tc);
    SRunner* r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
