/*
 * DML_OPERATOR_CAST through the public API, on the backend under test:
 *
 *   - every (input, output) pair of the eleven types, random ranks 1-8,
 *     packed / padded / permuted / broadcast inputs and packed / padded /
 *     permuted outputs, in exact-size buffers, against reference.c's
 *     ref_cast (C's and libm's conversions, not the library's); values mix
 *     the edges of each rule (ties, saturation bounds, NaN, infinities,
 *     subnormals, integer extremes) with random patterns; bytes of the
 *     output buffer no element covers stay as they were;
 *   - every validation rule, with DirectML's message style.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

static harness H;

static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }

static uint64_t rbelow(rng* r, uint64_t n) { return rnext(r) % n; }

/* ---- values ------------------------------------------------------------- */

/* A value worth converting, as the bits of `type`: an edge of some rule or a
 * random pattern. */
static uint64_t float_edge(rng* r, uint32_t type)
{
    static const double edges[] = { 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.0, 127.5, 128.0, -128.0, -128.5,
        -129.0, 255.0, 255.5, 256.0, -1.0, -0.99, 32767.0, 32768.0, -32768.0, -32769.0, 65503.0, 65504.0, 65519.0,
        65519.99, 65520.0, 65535.0, 65536.0, 2147483520.0, 2147483647.0, 2147483648.0, -2147483648.0,
        -2147483649.0, 4294967295.0, 4294967296.0, 9223372036854774784.0, 9223372036854775808.0,
        -9223372036854775808.0, -9223372036854777856.0, 18446744073709549568.0, 18446744073709551616.0,
        16777217.0, 3.4028234663852886e38, 3.4028235677973366e38, 1e300, 6.103515625e-05, 5.960464477539063e-08,
        2.9802322387695312e-08, 2.98023223876953e-08, 1.401298464324817e-45, 7.006492321624085e-46, 1e-310 };
    double v = edges[rbelow(r, sizeof edges / sizeof edges[0])];
    if (rbelow(r, 4) == 0)
        v = (double)(int64_t)(rnext(r) >> rbelow(r, 64)) * ldexp(1, -(int)rbelow(r, 12));
    uint64_t bits = 0;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        memcpy(&bits, &v, 8);
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        bits = b;
    } else { /* float16: edges are written as bit patterns */
        static const uint16_t halves[] = { 0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x3E00, 0x4100, 0x57F8,
            0x5800, 0x5BF8, 0x5C00, 0x7BFF, 0xFBFF, 0x77FF, 0xF800, 0xD800, 0xD804, 0x7C00, 0xFC00, 0x7E00, 0x7C01,
            0xFE01, 0xB800, 0xBBFF };
        bits = halves[rbelow(r, sizeof halves / sizeof halves[0])];
    }
    return bits;
}

static uint64_t value_bits(rng* r, uint32_t type)
{
    const int is_float = type == DML_TENSOR_DATA_TYPE_FLOAT16 || type == DML_TENSOR_DATA_TYPE_FLOAT32 ||
        type == DML_TENSOR_DATA_TYPE_FLOAT64;
    switch (rbelow(r, 4)) {
    case 0: return rnext(r); /* any pattern: NaNs with payloads, huge and tiny values */
    case 1:
        if (is_float)
            return float_edge(r, type);
        return ((uint64_t)1 << rbelow(r, 64)) + (uint64_t)(int64_t)(rbelow(r, 5) - 2); /* around 2^k (unsigned: no UB at 63) */
    case 2: {
        if (!is_float)
            return 0 - ((uint64_t)1 << rbelow(r, 64)) + (uint64_t)(rbelow(r, 3) - 1); /* around -2^k, unsigned */
        return float_edge(r, type) | (rbelow(r, 2) ? 0 : (type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 0x8000 : 0));
    }
    default: return rnext(r) >> rbelow(r, 64);
    }
}

/* ---- layouts ------------------------------------------------------------ */

enum { L_NULL, L_PACKED, L_PADDED, L_PERMUTED, L_BROADCAST, L_COUNT };

static void make_strides(rng* r, uint32_t rank, const uint32_t* sizes, int is_output, uint32_t* strides,
    int* has_strides)
{
    int mode = (int)rbelow(r, is_output ? L_BROADCAST : L_COUNT);
    *has_strides = mode != L_NULL;
    uint32_t order[8];
    for (uint32_t i = 0; i < rank; ++i)
        order[i] = i;
    if (mode == L_PERMUTED)
        for (uint32_t i = rank; i > 1; --i) {
            uint32_t j = (uint32_t)rbelow(r, i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    uint64_t reach = 0;
    for (uint32_t k = rank; k-- > 0;) {
        uint32_t d = order[k];
        uint64_t s = reach + 1 + (mode == L_PADDED || mode == L_PERMUTED ? rbelow(r, 3) : 0);
        strides[d] = (uint32_t)s;
        reach += (uint64_t)(sizes[d] - 1) * s;
    }
    if (mode == L_BROADCAST)
        for (uint32_t i = 0; i < rank; ++i)
            if (rbelow(r, 100) < 40)
                strides[i] = 0;
}

/* ---- one case ----------------------------------------------------------- */

static const uint32_t MAX_DIM[9] = { 0, 300, 20, 8, 5, 4, 3, 3, 2 };

static uint64_t g_cases, g_elements;

static void run_case(rng* r, uint32_t in_type, uint32_t out_type)
{
    const uint32_t rank = 1 + (uint32_t)rbelow(r, 8);
    uint32_t sizes[8], in_strides[8], out_strides[8];
    uint64_t count = 1;
    for (uint32_t i = 0; i < rank; ++i) {
        sizes[i] = 1 + (uint32_t)rbelow(r, MAX_DIM[rank]);
        count *= sizes[i];
    }
    int in_has, out_has;
    make_strides(r, rank, sizes, 0, in_strides, &in_has);
    make_strides(r, rank, sizes, 1, out_strides, &out_has);
    h_tensor in, out;
    h_tensor_init(&in, (DML_TENSOR_DATA_TYPE)in_type, rank, sizes, in_has ? in_strides : NULL);
    h_tensor_init(&out, (DML_TENSOR_DATA_TYPE)out_type, rank, sizes, out_has ? out_strides : NULL);
    const uint32_t ie = h_elem_size((DML_TENSOR_DATA_TYPE)in_type);
    const uint64_t in_bytes = in.buf.TotalTensorSizeInBytes, out_bytes = out.buf.TotalTensorSizeInBytes;

    uint8_t* host_in = malloc(in_bytes);
    uint8_t* want = malloc(out_bytes);
    uint8_t* got = malloc(out_bytes);
    ck_assert(host_in && want && got);
    for (uint64_t b = 0; b + ie <= in_bytes; b += ie) {
        uint64_t v = value_bits(r, in_type);
        memcpy(host_in + b, &v, ie);
    }
    for (uint64_t b = in_bytes / ie * ie; b < in_bytes; ++b)
        host_in[b] = (uint8_t)rnext(r);
    memset(want, 0xCD, out_bytes);

    DMLBuffer bin = h_buffer(&H, in_bytes, host_in), bout = h_buffer(&H, out_bytes, want);
    h_bind ib = { bin, 0, in_bytes, 0 }, ob = { bout, 0, out_bytes, 0 };
    DML_CAST_OPERATOR_DESC desc = { &in.desc, &out.desc };
    DML_OPERATOR_DESC od = { DML_OPERATOR_CAST, &desc };
    DML_RESULT res = run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 1, &ib, &ob, got, out_bytes);
    ck_assert_msg(res == DML_S_OK, "%s -> %s rank %u: %s failed: %s", h_type_name((DML_TENSOR_DATA_TYPE)in_type),
        h_type_name((DML_TENSOR_DATA_TYPE)out_type), rank, H.stage, H.message);

    ref_view vi = { ie, rank, sizes, in_has ? in_strides : NULL, host_in, in_bytes };
    ref_view vo = { h_elem_size((DML_TENSOR_DATA_TYPE)out_type), rank, sizes, out_has ? out_strides : NULL, want,
        out_bytes };
    ref_cast(&vi, in_type, &vo, out_type);
    for (uint64_t b = 0; b < out_bytes; ++b)
        if (got[b] != want[b]) {
            /* the element containing byte b, for the message */
            const uint32_t oe = vo.elem_size;
            uint64_t e = b / oe * oe;
            uint64_t g = 0, w = 0;
            memcpy(&g, got + e, oe);
            memcpy(&w, want + e, oe);
            ck_abort_msg("%s -> %s rank %u: output byte %" PRIu64 " differs: element 0x%" PRIx64 ", expected 0x%" PRIx64,
                h_type_name((DML_TENSOR_DATA_TYPE)in_type), h_type_name((DML_TENSOR_DATA_TYPE)out_type), rank, b, g, w);
        }
    dmlRelease(bin);
    dmlRelease(bout);
    free(host_in);
    free(want);
    free(got);
    ++g_cases;
    g_elements += count;
}

#define CASES_PER_PAIR 10

/* _i: the input type - 1; every output type. */
START_TEST(every_pair_random)
{
    const uint32_t in_type = (uint32_t)_i + 1;
    rng r = { 0xCA57ull * 1000 + in_type };
    g_cases = g_elements = 0;
    for (uint32_t out_type = 1; out_type <= 11; ++out_type)
        for (int k = 0; k < CASES_PER_PAIR; ++k)
            run_case(&r, in_type, out_type);
    printf("every_pair_random[%s]: %" PRIu64 " cases, %" PRIu64 " elements\n",
        h_type_name((DML_TENSOR_DATA_TYPE)in_type), g_cases, g_elements);
    ck_assert_uint_gt(g_cases, 0);
}
END_TEST

/* A known table: float32 values to int8, uint8, float16 and int32, written
 * out from the rules (truncation, saturation, NaN -> 0, ties to even). */
START_TEST(float32_table)
{
    const float x[8] = { 2.7f, -2.7f, 300.0f, -300.0f, NAN, INFINITY, 65520.0f, 1.00048828125f };
    const int8_t want_i8[8] = { 2, -2, 127, -128, 0, 127, 127, 1 };
    const uint8_t want_u8[8] = { 2, 0, 255, 0, 0, 255, 255, 1 };
    const uint16_t want_f16[8] = { 0x4166, 0xC166, 0x5CB0, 0xDCB0, 0x7E00, 0x7C00, 0x7C00, 0x3C00 };
    const int32_t want_i32[8] = { 2, -2, 300, -300, 0, INT32_MAX, 65520, 1 };
    uint32_t sizes[1] = { 8 };
    const struct { uint32_t type; const void* want; uint32_t size; } outs[] = {
        { DML_TENSOR_DATA_TYPE_INT8, want_i8, 1 }, { DML_TENSOR_DATA_TYPE_UINT8, want_u8, 1 },
        { DML_TENSOR_DATA_TYPE_FLOAT16, want_f16, 2 }, { DML_TENSOR_DATA_TYPE_INT32, want_i32, 4 } };
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; ++k) {
        h_tensor in, out;
        h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
        h_tensor_init(&out, (DML_TENSOR_DATA_TYPE)outs[k].type, 1, sizes, NULL);
        DMLBuffer bin = h_buffer(&H, in.buf.TotalTensorSizeInBytes, NULL), bout = h_buffer(&H, 32, NULL);
        h_write(&H, bin, 0, x, sizeof x);
        h_bind ib = { bin, 0, in.buf.TotalTensorSizeInBytes, 0 }, ob = { bout, 0, out.buf.TotalTensorSizeInBytes, 0 };
        DML_CAST_OPERATOR_DESC desc = { &in.desc, &out.desc };
        DML_OPERATOR_DESC od = { DML_OPERATOR_CAST, &desc };
        uint8_t got[32];
        h_assert_ok(run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 1, &ib, &ob, got, out.buf.TotalTensorSizeInBytes));
        ck_assert_msg(memcmp(got, outs[k].want, 8 * outs[k].size) == 0, "FLOAT32 -> %s table",
            h_type_name((DML_TENSOR_DATA_TYPE)outs[k].type));
        dmlRelease(bin);
        dmlRelease(bout);
    }
}
END_TEST

/* ---- validation ----------------------------------------------------------- */

static void expect_invalid(const DML_CAST_OPERATOR_DESC* d, const char* needle)
{
    DML_OPERATOR_DESC od = { DML_OPERATOR_CAST, d };
    DMLOperator op = NULL;
    DML_RESULT r = dmlDeviceCreateOperator(H.device, &od, &op);
    ck_assert_msg(r == DML_E_INVALIDARG, "expected DML_E_INVALIDARG for '%s', got %s", needle, h_result_name(r));
    ck_assert_ptr_null(op);
    const char* message = dmlGetLastErrorMessage();
    ck_assert_msg(strstr(message, "dmlDeviceCreateOperator(CAST)") && strstr(message, needle),
        "message '%s' lacks '%s'", message, needle);
}

START_TEST(validation)
{
    uint32_t s23[2] = { 2, 3 }, s24[2] = { 2, 4 }, s231[3] = { 2, 3, 1 };
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, s23, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_INT8, 2, s23, NULL);
    DML_CAST_OPERATOR_DESC d = { &in.desc, &out.desc };
    DML_OPERATOR_DESC od = { DML_OPERATOR_CAST, &d };
    DMLOperator op = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od, &op)); /* the baseline is valid */
    dmlRelease(op);

    d = (DML_CAST_OPERATOR_DESC){ NULL, &out.desc };
    expect_invalid(&d, "InputTensor");
    d = (DML_CAST_OPERATOR_DESC){ &in.desc, NULL };
    expect_invalid(&d, "OutputTensor");

    h_tensor bad;
    h_tensor_init(&bad, DML_TENSOR_DATA_TYPE_INT8, 3, s231, NULL);
    d = (DML_CAST_OPERATOR_DESC){ &in.desc, &bad.desc };
    expect_invalid(&d, "OutputTensor.DimensionCount 3 differs from InputTensor.DimensionCount 2");
    h_tensor_init(&bad, DML_TENSOR_DATA_TYPE_INT8, 2, s24, NULL);
    d = (DML_CAST_OPERATOR_DESC){ &in.desc, &bad.desc };
    expect_invalid(&d, "OutputTensor.Sizes[1] = 4 differs from InputTensor.Sizes[1] = 3");

    h_tensor_init(&bad, DML_TENSOR_DATA_TYPE_UNKNOWN, 2, s23, NULL);
    bad.buf.TotalTensorSizeInBytes = 64;
    d = (DML_CAST_OPERATOR_DESC){ &bad.desc, &out.desc };
    expect_invalid(&d, "InputTensor.DataType");
    d = (DML_CAST_OPERATOR_DESC){ &in.desc, &bad.desc };
    expect_invalid(&d, "OutputTensor.DataType");
    bad.buf.DataType = (DML_TENSOR_DATA_TYPE)12; /* past the eleven */
    expect_invalid(&d, "OutputTensor.DataType");

    /* a tensor rule checked for both: too small a TotalTensorSizeInBytes */
    h_tensor_init(&bad, DML_TENSOR_DATA_TYPE_INT8, 2, s23, NULL);
    bad.buf.TotalTensorSizeInBytes = 4;
    d = (DML_CAST_OPERATOR_DESC){ &in.desc, &bad.desc };
    expect_invalid(&d, "OutputTensor.TotalTensorSizeInBytes");
    /* an input aliasing itself is fine (broadcast); an output may not */
    uint32_t zero[2] = { 0, 1 };
    h_tensor_init(&bad, DML_TENSOR_DATA_TYPE_INT8, 2, s23, zero);
    d = (DML_CAST_OPERATOR_DESC){ &in.desc, &bad.desc };
    expect_invalid(&d, "OutputTensor");
}
END_TEST

static Suite* cast_suite(void)
{
    Suite* s = suite_create("cast");
    TCase* tc = tcase_create("cast");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_pair_random, 0, 11);
    tcase_add_test(tc, float32_table);
    tcase_add_test(tc, validation);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner* sr = srunner_create(cast_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
