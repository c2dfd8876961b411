/*
 * test_fill.c — FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE through the
 * public API, against the naive reference (reference.c, written from
 * docs/operators.md):
 *
 *   random cases: both operators, every data type, ranks 1-8, packed,
 *   padded and permuted outputs (the sequence follows the logical row-major
 *   position, not memory), random value bits, the output bound with exactly
 *   its TotalTensorSizeInBytes inside a larger buffer of random bytes (the
 *   whole buffer compared, so nothing outside the output may change);
 *   special values: NaN payloads, -0.0, infinities, float16 bit patterns,
 *   integer wrap-around, a case where a fused multiply-add would differ;
 *   DirectML's documented examples; every validation rule; the operators'
 *   zero-input life cycle (initializer and execution binding with no
 *   inputs) and fills inside graphs feeding other operators.
 */
#include "harness.h"
#include "reference.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static harness H;

static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }

static const DML_TENSOR_DATA_TYPE TYPES[] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64,
};
#define TYPE_COUNT (sizeof TYPES / sizeof TYPES[0])

/* ---- one fill, checked against the reference ------------------------------ */

typedef struct fill_case {
    int sequence;
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;
    uint32_t sizes[8];
    uint32_t strides[8];
    int has_strides;
    uint64_t start, delta; /* the type's bits, in the low bytes */
    uint64_t offset;       /* binding offset inside the buffer (a multiple of 16) */
} fill_case;

static DML_SCALAR_UNION scalar_bits(uint64_t bits, uint32_t size, uint8_t junk)
{
    DML_SCALAR_UNION s;
    memset(&s, junk, sizeof s); /* the bytes the type does not use must be ignored */
    memcpy(s.Bytes, &bits, size);
    return s;
}

static void describe(const fill_case* c, char* text, size_t size)
{
    int n = snprintf(text, size, "%s %s rank %u sizes {", c->sequence ? "FILL_VALUE_SEQUENCE" : "FILL_VALUE_CONSTANT",
        h_type_name(c->type), c->rank);
    for (uint32_t i = 0; i < c->rank; ++i)
        n += snprintf(text + n, size - (size_t)n, "%s%u", i ? "," : "", c->sizes[i]);
    n += snprintf(text + n, size - (size_t)n, "} strides ");
    if (!c->has_strides)
        n += snprintf(text + n, size - (size_t)n, "NULL");
    for (uint32_t i = 0; c->has_strides && i < c->rank; ++i)
        n += snprintf(text + n, size - (size_t)n, "%s%u", i ? "," : "{", c->strides[i]);
    snprintf(text + n, size - (size_t)n, "%s start 0x%" PRIx64 " delta 0x%" PRIx64 " offset %" PRIu64,
        c->has_strides ? "}" : "", c->start, c->delta, c->offset);
}

static void fill_desc(const fill_case* c, const h_tensor* out, DML_FILL_VALUE_CONSTANT_OPERATOR_DESC* constant,
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC* sequence, DML_OPERATOR_DESC* od)
{
    uint32_t e = h_elem_size(c->type);
    if (c->sequence) {
        *sequence = (DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC){ &out->desc, c->type, scalar_bits(c->start, e, 0xA5),
            scalar_bits(c->delta, e, 0x5A) };
        *od = (DML_OPERATOR_DESC){ DML_OPERATOR_FILL_VALUE_SEQUENCE, sequence };
    } else {
        *constant = (DML_FILL_VALUE_CONSTANT_OPERATOR_DESC){ &out->desc, c->type, scalar_bits(c->start, e, 0xC3) };
        *od = (DML_OPERATOR_DESC){ DML_OPERATOR_FILL_VALUE_CONSTANT, constant };
    }
}

static void run_case(const fill_case* c, rng* r)
{
    h_tensor out;
    h_tensor_init(&out, c->type, c->rank, c->sizes, c->has_strides ? c->strides : NULL);
    const uint32_t e = h_elem_size(c->type);
    const uint64_t total = out.buf.TotalTensorSizeInBytes, size = c->offset + total + 64;
    uint8_t* before = malloc(size);
    uint8_t* got = malloc(size);
    ck_assert_ptr_nonnull(before);
    ck_assert_ptr_nonnull(got);
    for (uint64_t i = 0; i < size; ++i)
        before[i] = (uint8_t)rnext(r);
    DMLBuffer buffer = h_buffer(&H, size, before);
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant;
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sequence;
    DML_OPERATOR_DESC od;
    fill_desc(c, &out, &constant, &sequence, &od);
    h_bind bind = { buffer, c->offset, total, 0 };
    char text[512];
    describe(c, text, sizeof text);
    DML_RESULT result = run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 0, NULL, &bind, got, size);
    ck_assert_msg(result == DML_S_OK, "%s: %s failed: %s (%s)", text, H.stage, h_result_name(result), H.message);

    ref_view v = { e, c->rank, c->sizes, c->has_strides ? c->strides : NULL, before + c->offset, total };
    ref_fill(&v, (uint32_t)c->type, c->start, c->delta, c->sequence);
    const int differs = memcmp(got, before, size) != 0;
    for (uint64_t i = 0; differs && i < size; ++i)
        ck_assert_msg(got[i] == before[i], "%s: byte %" PRIu64 " (output byte %" PRId64 ", element %" PRId64
            ") is 0x%02x, expected 0x%02x", text, i, (int64_t)(i - c->offset), (int64_t)(i - c->offset) / (int64_t)e,
            got[i], before[i]);
    dmlRelease(buffer);
    free(before);
    free(got);
}

/* ---- random cases ----------------------------------------------------------- */

static uint64_t below(rng* r, uint64_t n) { return rnext(r) % n; }

/* Sizes of at most ~1500 elements, so that the emulated CUDA backend stays quick. */
static const uint32_t MAX_DIM[9] = { 0, 1500, 38, 11, 6, 4, 3, 3, 2 };

/* Packed (NULL or explicit), padded, or permuted and padded. */
static void random_layout(rng* r, fill_case* c)
{
    for (uint32_t i = 0; i < c->rank; ++i)
        c->sizes[i] = 1 + (uint32_t)below(r, MAX_DIM[c->rank]);
    int layout = (int)below(r, 4);
    c->has_strides = layout != 0;
    uint32_t order[8];
    for (uint32_t i = 0; i < c->rank; ++i)
        order[i] = i;
    if (layout == 3) /* a random permutation: order[0] is the innermost in memory */
        for (uint32_t i = c->rank; i > 1; --i) {
            uint32_t j = (uint32_t)below(r, i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    else /* row-major: the last dimension innermost */
        for (uint32_t i = 0; i < c->rank; ++i)
            order[i] = c->rank - 1 - i;
    uint32_t stride = 1;
    for (uint32_t i = 0; i < c->rank; ++i) {
        uint32_t d = order[i];
        c->strides[d] = stride;
        stride *= c->sizes[d] + (layout >= 2 ? (uint32_t)below(r, 3) : 0);
    }
}

static const uint16_t HALF_SPECIALS[] = { 0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE37, 0x0001, 0x83FF,
    0x3C00, 0xBC00, 0x7BFF, 0x0400, 0x3555 };
static const uint32_t FLOAT_SPECIALS[] = { 0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
    0xFFC12345, 0x00000001, 0x807FFFFF, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0x3DCCCCCD, 0x33800000 };
static const uint64_t DOUBLE_SPECIALS[] = { 0, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
    0x7FF8000000000000ull, 0x7FF0000000000001ull, 0xFFF8DEADBEEF0001ull, 1, 0x3FF0000000000000ull,
    0x3FB999999999999Aull, 0x7FEFFFFFFFFFFFFFull };

/* Value bits for the type: often a special value, else ordinary numbers. */
static uint64_t random_value(rng* r, DML_TENSOR_DATA_TYPE type)
{
    int special = below(r, 4) == 0;
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT16: {
        if (special)
            return HALF_SPECIALS[below(r, sizeof HALF_SPECIALS / sizeof HALF_SPECIALS[0])];
        return below(r, 2) ? (uint64_t)(rnext(r) & 0xFFFF) : 0x3C00 + below(r, 0x800) - 0x400;
    }
    case DML_TENSOR_DATA_TYPE_FLOAT32: {
        if (special)
            return FLOAT_SPECIALS[below(r, sizeof FLOAT_SPECIALS / sizeof FLOAT_SPECIALS[0])];
        float f = (float)((double)(int64_t)below(r, 2000001) / 1000.0 - 1000.0);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        return below(r, 3) ? bits : (uint32_t)rnext(r);
    }
    case DML_TENSOR_DATA_TYPE_FLOAT64: {
        if (special)
            return DOUBLE_SPECIALS[below(r, sizeof DOUBLE_SPECIALS / sizeof DOUBLE_SPECIALS[0])];
        double d = (double)(int64_t)below(r, 2000001) / 1000.0 - 1000.0;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        return below(r, 3) ? bits : rnext(r);
    }
    default: {
        uint32_t e = h_elem_size(type);
        uint64_t mask = e == 8 ? ~0ull : (1ull << (8 * e)) - 1;
        uint64_t v = special ? (below(r, 2) ? mask : mask >> 1) : below(r, 2) ? rnext(r) : below(r, 21) - 10;
        return v & mask;
    }
    }
}

static void random_case(rng* r, fill_case* c, int sequence, DML_TENSOR_DATA_TYPE type)
{
    memset(c, 0, sizeof *c);
    c->sequence = sequence;
    c->type = type;
    c->rank = 1 + (uint32_t)below(r, 8);
    random_layout(r, c);
    c->start = random_value(r, type);
    c->delta = sequence ? random_value(r, type) : 0;
    c->offset = 16 * below(r, 4);
}

START_TEST(random_fills)
{
    /* _i: one data type per iteration, both operators, several cases each. */
    rng r = { 0xF111ull * 0x9E3779B97F4A7C15ull + (uint64_t)_i };
    for (int k = 0; k < 6; ++k) {
        fill_case c;
        random_case(&r, &c, k & 1, TYPES[_i]);
        run_case(&c, &r);
    }
}
END_TEST

/* A large contiguous fill and a padded one: the CPU backend splits them over threads. */
START_TEST(large_fills)
{
    rng r = { 0x1A76Eull };
    static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT8,
        DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64 };
    for (int k = 0; k < 4; ++k) {
        fill_case c = { .sequence = k != 1, .type = types[k], .rank = 1, .sizes = { 200003 } };
        if (k == 3) { /* rows of 1000 in a pitch of 1003 */
            c.rank = 2;
            c.sizes[0] = 150;
            c.sizes[1] = 1000;
            c.strides[0] = 1003;
            c.strides[1] = 1;
            c.has_strides = 1;
        }
        c.start = random_value(&r, c.type);
        c.delta = c.sequence ? random_value(&r, c.type) : 0;
        c.offset = 16;
        run_case(&c, &r);
    }
}
END_TEST

/* ---- special values ------------------------------------------------------------ */

static void one_row(int sequence, DML_TENSOR_DATA_TYPE type, uint32_t n, uint64_t start, uint64_t delta)
{
    rng r = { n * 0x1234567ull + start };
    fill_case c = { .sequence = sequence, .type = type, .rank = 1, .sizes = { n }, .start = start, .delta = delta };
    run_case(&c, &r);
}

START_TEST(special_values)
{
    /* NaN payloads and -0.0 as constants keep their bits exactly. */
    one_row(0, DML_TENSOR_DATA_TYPE_FLOAT32, 37, 0x7FC12345, 0);
    one_row(0, DML_TENSOR_DATA_TYPE_FLOAT32, 37, 0xFF800001, 0);
    one_row(0, DML_TENSOR_DATA_TYPE_FLOAT32, 37, 0x80000000, 0);
    one_row(0, DML_TENSOR_DATA_TYPE_FLOAT64, 37, 0x7FF0000000000ABCull, 0);
    one_row(0, DML_TENSOR_DATA_TYPE_FLOAT16, 37, 0xFD01, 0);
    one_row(0, DML_TENSOR_DATA_TYPE_FLOAT16, 37, 0x8000, 0);
    /* A sequence starts at its exact start; NaN results are canonical. */
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT32, 9, 0x80000000, 0x00000000);  /* -0.0, +0.0, ... */
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT32, 9, 0x7F812345, 0x3F800000);  /* signalling NaN start */
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT32, 9, 0xFF800000, 0x7F800000);  /* -inf + k * inf: NaN */
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT64, 9, 0x8000000000000000ull, 0x8000000000000000ull);
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT64, 9, 0x3FF0000000000000ull, 0xFFF4000000000000ull);
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT16, 40, 0x7BFF, 0x5BFF);        /* overflows to infinity */
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT16, 40, 0x0001, 0x0001);        /* subnormals */
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT16, 40, 0x7C01, 0x3C00);        /* NaN start */
    /* Integers wrap. */
    one_row(1, DML_TENSOR_DATA_TYPE_UINT8, 300, 250, 3);
    one_row(1, DML_TENSOR_DATA_TYPE_INT8, 300, 0x7E, 0x01);
    one_row(1, DML_TENSOR_DATA_TYPE_INT16, 70, 0x8000, 0xFFFF);          /* -32768, then down: wraps to 32767 */
    one_row(1, DML_TENSOR_DATA_TYPE_UINT32, 70, 0xFFFFFFF0u, 1);
    one_row(1, DML_TENSOR_DATA_TYPE_INT64, 70, 0x7FFFFFFFFFFFFFF0ull, 1);
    one_row(1, DML_TENSOR_DATA_TYPE_UINT64, 70, 1, 0x8000000000000001ull);
}
END_TEST

static uint32_t float_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* start + k * delta rounded twice, not once: a contracted multiply-add
 * (fmaf) gives other bits for these values. */
START_TEST(no_fused_multiply_add)
{
    const float start = 1.0f, delta = 0.1f;
    uint32_t k = 0;
    for (uint32_t j = 1; j < 64 && !k; ++j)
        if (float_bits(fmaf((float)j, delta, start)) != float_bits(start + (float)j * delta))
            k = j;
    ck_assert_msg(k != 0, "test setup: no position where fmaf differs");
    const uint32_t n = k + 1;
    one_row(1, DML_TENSOR_DATA_TYPE_FLOAT32, n, float_bits(start), float_bits(delta));
    /* And the bits themselves, not only the reference's agreement. */
    h_tensor out;
    uint32_t sizes[1] = { n };
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC d = { &out.desc, DML_TENSOR_DATA_TYPE_FLOAT32, { .Float32 = start },
        { .Float32 = delta } };
    DML_OPERATOR_DESC od = { DML_OPERATOR_FILL_VALUE_SEQUENCE, &d };
    float got[64];
    DMLBuffer b = h_buffer(&H, out.buf.TotalTensorSizeInBytes, NULL);
    h_bind bind = { b, 0, out.buf.TotalTensorSizeInBytes, 0 };
    h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 0, NULL, &bind, got, n * 4));
    volatile float product = (float)k * delta;
    ck_assert_uint_eq(float_bits(got[k]), float_bits(start + product));
    ck_assert_uint_ne(float_bits(got[k]), float_bits(fmaf((float)k, delta, start)));
    dmlRelease(b);
}
END_TEST

/* ---- DirectML's examples ------------------------------------------------------------ */

START_TEST(directml_examples)
{
    uint32_t sizes[4] = { 1, 1, 2, 4 };
    h_tensor out;
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    DMLBuffer b = h_buffer(&H, 64, NULL);
    h_bind bind = { b, 0, out.buf.TotalTensorSizeInBytes, 0 };

    /* FILL_VALUE_CONSTANT: Value 13.0, {1,1,2,4} FLOAT32: eight 13.0f. */
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC c = { &out.desc, DML_TENSOR_DATA_TYPE_FLOAT32, { .Float32 = 13.0f } };
    DML_OPERATOR_DESC od = { DML_OPERATOR_FILL_VALUE_CONSTANT, &c };
    float f[8];
    h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 0, NULL, &bind, f, sizeof f));
    for (int i = 0; i < 8; ++i)
        ck_assert_float_eq(f[i], 13.0f);

    /* FILL_VALUE_SEQUENCE example 1: start 3, delta 2, {1,1,1,3} FLOAT32: 3, 5, 7. */
    uint32_t s1[4] = { 1, 1, 1, 3 };
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, s1, NULL);
    bind.size = out.buf.TotalTensorSizeInBytes;
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC s = { &out.desc, DML_TENSOR_DATA_TYPE_FLOAT32, { .Float32 = 3.0f },
        { .Float32 = 2.0f } };
    od = (DML_OPERATOR_DESC){ DML_OPERATOR_FILL_VALUE_SEQUENCE, &s };
    h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 0, NULL, &bind, f, 12));
    ck_assert_float_eq(f[0], 3.0f);
    ck_assert_float_eq(f[1], 5.0f);
    ck_assert_float_eq(f[2], 7.0f);

    /* Example 2: start 10, delta -2 as UINT8, {1,1,2,2}: 10, 8, 6, 4. */
    uint32_t s2[4] = { 1, 1, 2, 2 };
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT8, 4, s2, NULL);
    bind.size = out.buf.TotalTensorSizeInBytes;
    s = (DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC){ &out.desc, DML_TENSOR_DATA_TYPE_UINT8, { .UInt8 = 10 },
        { .UInt8 = (uint8_t)-2 } };
    uint8_t u[4];
    h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 0, NULL, &bind, u, 4));
    ck_assert_uint_eq(u[0], 10);
    ck_assert_uint_eq(u[1], 8);
    ck_assert_uint_eq(u[2], 6);
    ck_assert_uint_eq(u[3], 4);
    dmlRelease(b);
}
END_TEST

/* ---- validation ----------------------------------------------------------------------- */

static void expect_invalid(const DML_OPERATOR_DESC* od, const char* needle, const char* what)
{
    DMLOperator op = NULL;
    DML_RESULT r = dmlDeviceCreateOperator(H.device, od, &op);
    if (op)
        dmlRelease(op);
    ck_assert_msg(r == DML_E_INVALIDARG, "%s: returned %s, expected DML_E_INVALIDARG", what, h_result_name(r));
    ck_assert_ptr_null(op);
    const char* m = dmlGetLastErrorMessage();
    ck_assert_msg(strstr(m, needle) != NULL, "%s: message \"%s\" does not contain \"%s\"", what, m, needle);
}

/* Every rule, for both operators (sequence 0 and 1). */
static void validation_of(int sequence)
{
    const char* name = sequence ? "FILL_VALUE_SEQUENCE" : "FILL_VALUE_CONSTANT";
    char call[96];
    snprintf(call, sizeof call, "dmlDeviceCreateOperator(%s)", name);
    uint32_t sizes[3] = { 2, 3, 4 };
    h_tensor out;
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_INT32, 3, sizes, NULL);
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC c = { &out.desc, DML_TENSOR_DATA_TYPE_INT32, { .Int32 = 1 } };
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC s = { &out.desc, DML_TENSOR_DATA_TYPE_INT32, { .Int32 = 1 },
        { .Int32 = 2 } };
    DML_OPERATOR_DESC od = { sequence ? DML_OPERATOR_FILL_VALUE_SEQUENCE : DML_OPERATOR_FILL_VALUE_CONSTANT,
        sequence ? (const void*)&s : (const void*)&c };
#define SET(field, value) (sequence ? (void)(s.field = (value)) : (void)(c.field = (value)))
    DMLOperator op = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od, &op));
    dmlRelease(op);

    /* ValueDataType must be a data type, and the output's. */
    SET(ValueDataType, DML_TENSOR_DATA_TYPE_FLOAT32);
    expect_invalid(&od, "ValueDataType FLOAT32 differs from OutputTensor.DataType INT32", name);
    SET(ValueDataType, DML_TENSOR_DATA_TYPE_UNKNOWN);
    expect_invalid(&od, "ValueDataType = 0 is not a valid DML_TENSOR_DATA_TYPE", name);
    SET(ValueDataType, (DML_TENSOR_DATA_TYPE)12);
    expect_invalid(&od, "ValueDataType = 12 is not a valid DML_TENSOR_DATA_TYPE", name);
    SET(ValueDataType, DML_TENSOR_DATA_TYPE_INT32);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), call));

    /* The output tensor's own rules. */
    SET(OutputTensor, NULL);
    expect_invalid(&od, "OutputTensor is NULL", name);
    SET(OutputTensor, &out.desc);
    out.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    expect_invalid(&od, "OutputTensor.Flags has DML_TENSOR_FLAG_OWNED_BY_DML", name);
    out.buf.Flags = DML_TENSOR_FLAG_NONE;
    out.buf.DimensionCount = 9;
    expect_invalid(&od, "OutputTensor.DimensionCount = 9", name);
    out.buf.DimensionCount = 0;
    expect_invalid(&od, "OutputTensor.DimensionCount = 0", name);
    out.buf.DimensionCount = 3;
    out.sizes[1] = 0;
    expect_invalid(&od, "OutputTensor.Sizes[1] = 0", name);
    out.sizes[1] = 3;
    uint32_t aliasing[3] = { 12, 0, 1 }; /* a fill writes every element: no two may share an address */
    out.buf.Strides = aliasing;
    expect_invalid(&od, "OutputTensor.Strides", name);
    out.buf.Strides = NULL;
    out.buf.TotalTensorSizeInBytes = 92;
    expect_invalid(&od, "OutputTensor.TotalTensorSizeInBytes = 92 is less than", name);
    out.buf.TotalTensorSizeInBytes = 96;
    out.buf.DataType = (DML_TENSOR_DATA_TYPE)99;
    expect_invalid(&od, "OutputTensor.DataType = 99", name);
    out.buf.DataType = DML_TENSOR_DATA_TYPE_INT32;
    od.Desc = NULL;
    expect_invalid(&od, "desc->Desc is NULL", name);
#undef SET
}

START_TEST(validation_constant) { validation_of(0); }
END_TEST

START_TEST(validation_sequence) { validation_of(1); }
END_TEST

/* ---- no inputs: the whole life cycle ---------------------------------------------------- */

static DML_BINDING_DESC buffer_desc(DML_BUFFER_BINDING* b)
{
    return (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, b };
}

START_TEST(zero_input_life_cycle)
{
    uint32_t sizes[2] = { 3, 5 };
    h_tensor out;
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_INT16, 2, sizes, NULL);
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC d = { &out.desc, DML_TENSOR_DATA_TYPE_INT16, { .Int16 = -7 },
        { .Int16 = 3 } };
    DML_OPERATOR_DESC od = { DML_OPERATOR_FILL_VALUE_SEQUENCE, &d };
    DMLOperator op;
    DMLCompiledOperator compiled;
    DMLOperatorInitializer init;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od, &op));
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &compiled));
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(compiled);
    ck_assert_uint_eq(p.PersistentResourceSize, 0);
    ck_assert_uint_eq(p.TemporaryResourceSize, 0);

    /* The initializer: its inputs are one empty BUFFER_ARRAY (or NONE). */
    h_assert_ok(dmlDeviceCreateOperatorInitializer(H.device, 1, &compiled, &init));
    DMLBindingTable table;
    DML_BINDING_TABLE_DESC td = { init };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    DML_BUFFER_ARRAY_BINDING none = { 0, NULL };
    DML_BINDING_DESC array = { DML_BINDING_TYPE_BUFFER_ARRAY, &none };
    h_assert_ok(dmlBindingTableBindInputs(table, 1, &array));
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, init, table));
    dmlRelease(table);

    /* Execution: zero inputs bound (count 0, bindings NULL); one is refused. */
    td.Dispatchable = compiled;
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    h_assert_ok(dmlBindingTableBindInputs(table, 0, NULL));
    DMLBuffer b = h_buffer(&H, 64, NULL);
    DML_BUFFER_BINDING bb = { b, 0, out.buf.TotalTensorSizeInBytes };
    DML_BINDING_DESC one = buffer_desc(&bb);
    h_assert_result(dmlBindingTableBindInputs(table, 1, &one), DML_E_INVALIDARG);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "count = 1; must be 0"));
    /* Nothing bound yet: the output is missing. */
    h_assert_result(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, compiled, table), DML_E_INVALID_CALL);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "output 0 is not bound"));
    h_assert_ok(dmlBindingTableBindOutputs(table, 1, &one));
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, compiled, table));
    int16_t v[15];
    h_read(&H, b, 0, v, sizeof v);
    for (int i = 0; i < 15; ++i)
        ck_assert_int_eq(v[i], -7 + 3 * i);
    dmlRelease(b);
    dmlRelease(table);
    dmlRelease(init);
    dmlRelease(compiled);
    dmlRelease(op);
}
END_TEST

/* ---- fills in graphs ---------------------------------------------------------------------- */

/* One graph: node 0 a fill, node 1 `consumer` reading it; graph output 0 is
 * the consumer's output, graph output 1 (when two_outputs) the fill's. No
 * graph inputs. Returns the temporary resource size it needs. */
static uint64_t run_graph(DMLOperator fill, DMLOperator consumer, int two_outputs, DMLBuffer out0, uint64_t size0,
    DMLBuffer out1, uint64_t size1)
{
    DML_OPERATOR_GRAPH_NODE_DESC n0 = { fill, "fill" }, n1 = { consumer, "consumer" };
    DML_GRAPH_NODE_DESC nodes[2] = { { DML_GRAPH_NODE_TYPE_OPERATOR, &n0 }, { DML_GRAPH_NODE_TYPE_OPERATOR, &n1 } };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC mid = { 0, 0, 1, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 1, 0, 0, NULL }, o1 = { 0, 0, 1, NULL };
    DML_GRAPH_EDGE_DESC mids[1] = { { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &mid } };
    DML_GRAPH_EDGE_DESC outs[2] = { { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 }, { DML_GRAPH_EDGE_TYPE_OUTPUT, &o1 } };
    uint32_t outputs = two_outputs ? 2 : 1;
    DML_GRAPH_DESC g = { 0, outputs, 2, nodes, 0, NULL, outputs, outs, 1, mids };
    DMLCompiledOperator compiled;
    h_assert_ok(dmlDeviceCompileGraph(H.device, &g, DML_EXECUTION_FLAG_NONE, &compiled));
    DML_BINDING_PROPERTIES p = dmlDispatchableGetBindingProperties(compiled);
    DMLBindingTable table;
    DML_BINDING_TABLE_DESC td = { compiled };
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &table));
    h_assert_ok(dmlBindingTableBindInputs(table, 0, NULL));
    DML_BUFFER_BINDING bb[2] = { { out0, 0, size0 }, { out1, 0, size1 } };
    DML_BINDING_DESC bd[2] = { buffer_desc(&bb[0]), buffer_desc(&bb[1]) };
    h_assert_ok(dmlBindingTableBindOutputs(table, outputs, bd));
    DMLBuffer temporary = NULL;
    if (p.TemporaryResourceSize) {
        temporary = h_buffer(&H, p.TemporaryResourceSize, NULL);
        DML_BUFFER_BINDING t = { temporary, 0, p.TemporaryResourceSize };
        DML_BINDING_DESC td1 = buffer_desc(&t);
        h_assert_ok(dmlBindingTableBindTemporaryResource(table, &td1));
    }
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, compiled, table));
    if (temporary)
        dmlRelease(temporary);
    dmlRelease(table);
    dmlRelease(compiled);
    return p.TemporaryResourceSize;
}

/* A float32 sequence {3,4} read transposed by ELEMENT_WISE_IDENTITY, and
 * tiled by TILE: both fuse into the fill (no temporary), and the fill's
 * own output, when the graph also returns it, stays the sequence. */
START_TEST(fill_feeding_operators)
{
    uint32_t fs[2] = { 3, 4 }, ts[2] = { 4, 3 }, t_strides[2] = { 1, 4 };
    h_tensor fill_out, id_in, id_out;
    h_tensor_init(&fill_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, fs, NULL);
    h_tensor_init(&id_in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, ts, t_strides);
    id_in.buf.TotalTensorSizeInBytes = fill_out.buf.TotalTensorSizeInBytes;
    h_tensor_init(&id_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, ts, NULL);
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC fd = { &fill_out.desc, DML_TENSOR_DATA_TYPE_FLOAT32, { .Float32 = 0.5f },
        { .Float32 = 1.0f } };
    DML_OPERATOR_DESC fod = { DML_OPERATOR_FILL_VALUE_SEQUENCE, &fd };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC idd = { &id_in.desc, &id_out.desc, NULL };
    DML_OPERATOR_DESC iod = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &idd };
    DMLOperator fill, identity, tile;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &fod, &fill));
    h_assert_ok(dmlDeviceCreateOperator(H.device, &iod, &identity));
    DMLBuffer a = h_buffer(&H, 256, NULL), b = h_buffer(&H, 256, NULL);
    for (int two = 0; two < 2; ++two) {
        uint64_t temporary = run_graph(fill, identity, two, a, id_out.buf.TotalTensorSizeInBytes, b,
            fill_out.buf.TotalTensorSizeInBytes);
        if (!two)
            ck_assert_uint_eq(temporary, 0); /* fused: nothing materialised */
        float v[12], w[12];
        h_read(&H, a, 0, v, sizeof v);
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 3; ++j)
                ck_assert_float_eq(v[i * 3 + j], 0.5f + (float)(j * 4 + i));
        if (two) {
            h_read(&H, b, 0, w, sizeof w);
            for (int i = 0; i < 12; ++i)
                ck_assert_float_eq(w[i], 0.5f + (float)i);
        }
    }

    /* TILE {3,4} -> {6,4}: rows 0-2 twice. */
    uint32_t tiled[2] = { 6, 4 }, repeats[2] = { 2, 1 };
    h_tensor tile_out;
    h_tensor_init(&tile_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, tiled, NULL);
    DML_TILE_OPERATOR_DESC tdsc = { &fill_out.desc, &tile_out.desc, 2, repeats };
    DML_OPERATOR_DESC tod = { DML_OPERATOR_TILE, &tdsc };
    h_assert_ok(dmlDeviceCreateOperator(H.device, &tod, &tile));
    ck_assert_uint_eq(run_graph(fill, tile, 0, a, tile_out.buf.TotalTensorSizeInBytes, b, 0), 0);
    float t[24];
    h_read(&H, a, 0, t, sizeof t);
    for (int i = 0; i < 24; ++i)
        ck_assert_float_eq(t[i], 0.5f + (float)(i % 12));
    dmlRelease(a);
    dmlRelease(b);
    dmlRelease(tile);
    dmlRelease(identity);
    dmlRelease(fill);
}
END_TEST

static Suite* fill_suite(void)
{
    Suite* s = suite_create("fill");
    TCase* tc = tcase_create("fill");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, random_fills, 0, (int)TYPE_COUNT);
    tcase_add_test(tc, large_fills);
    tcase_add_test(tc, special_values);
    tcase_add_test(tc, no_fused_multiply_add);
    tcase_add_test(tc, directml_examples);
    tcase_add_test(tc, validation_constant);
    tcase_add_test(tc, validation_sequence);
    tcase_add_test(tc, zero_input_life_cycle);
    tcase_add_test(tc, fill_feeding_operators);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner* sr = srunner_create(fill_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
