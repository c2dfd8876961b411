/*
 * test_examples.c — the documented examples of docs/operators.md, with the
 * spec's exact outputs (and the same outputs through DML_OPERATOR_SLICE where it
 * can express them). The output is bound 16 bytes into a buffer pre-filled with
 * a sentinel, and the bytes around it must stay untouched.
 */
#include "harness.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define PAD 16u
#define SENTINEL 0xA5

static harness H;

static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }

static const float INPUT_3x4[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
static const float INPUT_4x4[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* Binds the inputs (each in its own buffer at offset 0) and the output at PAD in
 * a sentinel-filled buffer, runs, checks the output floats and the sentinel. */
static void run_and_check(const DML_OPERATOR_DESC* desc, uint32_t input_count, const void* const* in_data,
                          const uint64_t* in_bytes, const float* expected, uint32_t expected_count)
{
    h_bind in[3];
    for (uint32_t i = 0; i < input_count; ++i) {
        in[i].buffer = h_buffer(&H, in_bytes[i], in_data[i]);
        in[i].offset = 0;
        in[i].size = in_bytes[i];
        in[i].owned = 0;
    }
    const uint64_t out_bytes = expected_count * sizeof(float);
    const uint64_t total = PAD + out_bytes + PAD;
    uint8_t* init = malloc(total);
    uint8_t* got = malloc(total);
    ck_assert_ptr_nonnull(init);
    ck_assert_ptr_nonnull(got);
    memset(init, SENTINEL, total);
    h_bind out = { h_buffer(&H, total, init), PAD, out_bytes, 0 };

    DML_RESULT r = run_operator(&H, desc, DML_EXECUTION_FLAG_NONE, input_count, in, &out, got, total);
    ck_assert_msg(r == DML_S_OK, "run_operator failed at %s: %s: %s", H.stage, h_result_name(r), H.message);

    for (uint32_t b = 0; b < PAD; ++b) {
        ck_assert_msg(got[b] == SENTINEL, "byte %u before the output was overwritten", b);
        ck_assert_msg(got[PAD + out_bytes + b] == SENTINEL, "byte %u after the output was overwritten", b);
    }
    for (uint32_t i = 0; i < expected_count; ++i) {
        float v;
        memcpy(&v, got + PAD + i * sizeof(float), sizeof v);
        ck_assert_msg(v == expected[i], "output[%u] = %g, expected %g", i, (double)v, (double)expected[i]);
    }
    for (uint32_t i = 0; i < input_count; ++i)
        dmlRelease(in[i].buffer);
    dmlRelease(out.buffer);
    free(init);
    free(got);
}

static void reverse_example(const uint32_t* len_sizes, const void* lengths, DML_TENSOR_DATA_TYPE len_type,
                            uint32_t axis, const float* expected)
{
    static const uint32_t sizes[4] = { 1, 1, 3, 4 };
    h_tensor in, len, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    h_tensor_init(&len, len_type, 4, len_sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &in.desc, &len.desc, &out.desc, axis };
    DML_OPERATOR_DESC od = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };
    const void* data[2] = { INPUT_3x4, lengths };
    uint64_t bytes[2] = { sizeof INPUT_3x4, len.buf.TotalTensorSizeInBytes };
    run_and_check(&od, 2, data, bytes, expected, 12);
}

START_TEST(reverse_subsequences_example1)
{
    static const uint32_t len_sizes[4] = { 1, 1, 3, 1 };
    static const uint32_t lengths[3] = { 2, 4, 3 };
    static const float expected[12] = { 2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12 };
    reverse_example(len_sizes, lengths, DML_TENSOR_DATA_TYPE_UINT32, 3, expected);
}
END_TEST

START_TEST(reverse_subsequences_example2)
{
    static const uint32_t len_sizes[4] = { 1, 1, 1, 4 };
    static const uint32_t lengths[4] = { 2, 3, 1, 0 };
    static const float expected[12] = { 5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12 };
    reverse_example(len_sizes, lengths, DML_TENSOR_DATA_TYPE_UINT32, 2, expected);
}
END_TEST

START_TEST(reverse_subsequences_example1_uint64)
{
    static const uint32_t len_sizes[4] = { 1, 1, 3, 1 };
    static const uint64_t lengths[3] = { 2, 4, 3 };
    static const float expected[12] = { 2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12 };
    reverse_example(len_sizes, lengths, DML_TENSOR_DATA_TYPE_UINT64, 3, expected);
}
END_TEST

START_TEST(reverse_subsequences_example2_uint64_large_lengths)
{
    /* Example 2 with UINT64 lengths; a length above the axis size acts as the axis
     * size, and 2^32 + 3 must not be truncated to 3 (nor 2^32 to 0). */
    static const uint32_t len_sizes[4] = { 1, 1, 1, 4 };
    static const uint64_t lengths[4] = { 2, 0x100000003ull, 1, 0x100000000ull };
    static const float expected[12] = { 5, 10, 3, 12, 1, 6, 7, 8, 9, 2, 11, 4 };
    reverse_example(len_sizes, lengths, DML_TENSOR_DATA_TYPE_UINT64, 2, expected);
}
END_TEST

START_TEST(reverse_subsequences_example1_uint32_max)
{
    static const uint32_t len_sizes[4] = { 1, 1, 3, 1 };
    static const uint32_t lengths[3] = { UINT32_MAX, 0, 5 };
    static const float expected[12] = { 4, 3, 2, 1, 5, 6, 7, 8, 12, 11, 10, 9 };
    reverse_example(len_sizes, lengths, DML_TENSOR_DATA_TYPE_UINT32, 3, expected);
}
END_TEST

static void slice1_example(const int32_t* strides, const float* expected)
{
    static const uint32_t in_sizes[4] = { 1, 1, 4, 4 };
    static const uint32_t out_sizes[4] = { 1, 1, 2, 2 };
    static const uint32_t offsets[4] = { 0, 0, 0, 1 };
    static const uint32_t window[4] = { 1, 1, 4, 3 };
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    DML_SLICE1_OPERATOR_DESC s = { &in.desc, &out.desc, 4, offsets, window, strides };
    DML_OPERATOR_DESC od = { DML_OPERATOR_SLICE1, &s };
    const void* data[1] = { INPUT_4x4 };
    uint64_t bytes[1] = { sizeof INPUT_4x4 };
    run_and_check(&od, 1, data, bytes, expected, 4);
}

START_TEST(slice1_example_positive_strides)
{
    static const int32_t strides[4] = { 1, 1, 2, 2 };
    static const float expected[4] = { 2, 4, 10, 12 };
    slice1_example(strides, expected);
}
END_TEST

START_TEST(slice1_example_negative_stride)
{
    static const int32_t strides[4] = { 1, 1, -2, 2 };
    static const float expected[4] = { 14, 16, 6, 8 };
    slice1_example(strides, expected);
}
END_TEST

START_TEST(slice_example_positive_strides)
{
    /* The first SLICE1 example through DML_OPERATOR_SLICE. (The negative-stride
     * one cannot be expressed: SLICE strides are unsigned.) */
    static const uint32_t in_sizes[4] = { 1, 1, 4, 4 };
    static const uint32_t out_sizes[4] = { 1, 1, 2, 2 };
    static const uint32_t offsets[4] = { 0, 0, 0, 1 };
    static const uint32_t strides[4] = { 1, 1, 2, 2 };
    static const float expected[4] = { 2, 4, 10, 12 };
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    DML_SLICE_OPERATOR_DESC s = { &in.desc, &out.desc, 4, offsets, out_sizes, strides };
    DML_OPERATOR_DESC od = { DML_OPERATOR_SLICE, &s };
    const void* data[1] = { INPUT_4x4 };
    uint64_t bytes[1] = { sizeof INPUT_4x4 };
    run_and_check(&od, 1, data, bytes, expected, 4);
}
END_TEST

START_TEST(slice1_example_negative_stride_via_strided_input)
{
    /* The negative-stride example again, with the input described transposed
     * (strides {16,16,1,4}, data stored column-major) and the output written
     * column-major: same logical values. */
    static const uint32_t in_sizes[4] = { 1, 1, 4, 4 };
    static const uint32_t in_strides[4] = { 16, 16, 1, 4 };
    static const uint32_t out_sizes[4] = { 1, 1, 2, 2 };
    static const uint32_t out_strides[4] = { 4, 4, 1, 2 };
    static const uint32_t offsets[4] = { 0, 0, 0, 1 };
    static const uint32_t window[4] = { 1, 1, 4, 3 };
    static const int32_t strides[4] = { 1, 1, -2, 2 };
    static const float expected_column_major[4] = { 14, 6, 16, 8 };
    float column_major[16];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            column_major[c * 4 + r] = INPUT_4x4[r * 4 + c];
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, in_strides);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, out_strides);
    DML_SLICE1_OPERATOR_DESC s = { &in.desc, &out.desc, 4, offsets, window, strides };
    DML_OPERATOR_DESC od = { DML_OPERATOR_SLICE1, &s };
    const void* data[1] = { column_major };
    uint64_t bytes[1] = { sizeof column_major };
    run_and_check(&od, 1, data, bytes, expected_column_major, 4);
}
END_TEST

/* DirectML's TILE example: Input {1,1,2,3} = [[1,2,3],[4,5,6]], Repeats
 * {1,1,3,3} -> Output {1,1,6,9}. */
static const float TILE_EXPECTED[54] = {
    1, 2, 3, 1, 2, 3, 1, 2, 3,
    4, 5, 6, 4, 5, 6, 4, 5, 6,
    1, 2, 3, 1, 2, 3, 1, 2, 3,
    4, 5, 6, 4, 5, 6, 4, 5, 6,
    1, 2, 3, 1, 2, 3, 1, 2, 3,
    4, 5, 6, 4, 5, 6, 4, 5, 6,
};

START_TEST(tile_example)
{
    static const uint32_t in_sizes[4] = { 1, 1, 2, 3 }, out_sizes[4] = { 1, 1, 6, 9 };
    static const uint32_t repeats[4] = { 1, 1, 3, 3 };
    static const float input[6] = { 1, 2, 3, 4, 5, 6 };
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    DML_TILE_OPERATOR_DESC t = { &in.desc, &out.desc, 4, repeats };
    DML_OPERATOR_DESC od = { DML_OPERATOR_TILE, &t };
    const void* data[1] = { input };
    uint64_t bytes[1] = { sizeof input };
    run_and_check(&od, 1, data, bytes, TILE_EXPECTED, 54);
}
END_TEST

START_TEST(tile_example_via_strided_tensors)
{
    /* The same example with the input stored column-major (strides {6,6,1,2})
     * and the output written column-major (strides {54,54,1,6}). */
    static const uint32_t in_sizes[4] = { 1, 1, 2, 3 }, in_strides[4] = { 6, 6, 1, 2 };
    static const uint32_t out_sizes[4] = { 1, 1, 6, 9 }, out_strides[4] = { 54, 54, 1, 6 };
    static const uint32_t repeats[4] = { 1, 1, 3, 3 };
    static const float input_column_major[6] = { 1, 4, 2, 5, 3, 6 };
    float expected_column_major[54];
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 9; ++c)
            expected_column_major[c * 6 + r] = TILE_EXPECTED[r * 9 + c];
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, in_strides);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, out_strides);
    DML_TILE_OPERATOR_DESC t = { &in.desc, &out.desc, 4, repeats };
    DML_OPERATOR_DESC od = { DML_OPERATOR_TILE, &t };
    const void* data[1] = { input_column_major };
    uint64_t bytes[1] = { sizeof input_column_major };
    run_and_check(&od, 1, data, bytes, expected_column_major, 54);
}
END_TEST

/* DirectML's DEPTH_TO_SPACE / DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1 examples
 * (UINT32 there; the values are exact in FLOAT32, which run_and_check reads).
 * BlockSize 2; the depth tensor {1,8,2,3} holds 9k + 3h + w in channel k; the
 * space tensor {1,2,4,6} is as DirectML prints it for each order. */
static const uint32_t DS_DEPTH_SIZES[4] = { 1, 8, 2, 3 }, DS_SPACE_SIZES[4] = { 1, 2, 4, 6 };
static const float DS_DEPTH[48] = {
     0,  1,  2,  3,  4,  5,    9, 10, 11, 12, 13, 14,   18, 19, 20, 21, 22, 23,   27, 28, 29, 30, 31, 32,
    36, 37, 38, 39, 40, 41,   45, 46, 47, 48, 49, 50,   54, 55, 56, 57, 58, 59,   63, 64, 65, 66, 67, 68,
};
static const float DS_SPACE_DCR[48] = {
     0, 18,  1, 19,  2, 20,
    36, 54, 37, 55, 38, 56,
     3, 21,  4, 22,  5, 23,
    39, 57, 40, 58, 41, 59,

     9, 27, 10, 28, 11, 29,
    45, 63, 46, 64, 47, 65,
    12, 30, 13, 31, 14, 32,
    48, 66, 49, 67, 50, 68,
};
static const float DS_SPACE_CRD[48] = {
     0,  9,  1, 10,  2, 11,
    18, 27, 19, 28, 20, 29,
     3, 12,  4, 13,  5, 14,
    21, 30, 22, 31, 23, 32,

    36, 45, 37, 46, 38, 47,
    54, 63, 55, 64, 56, 65,
    39, 48, 40, 49, 41, 50,
    57, 66, 58, 67, 59, 68,
};

/* version: 0 the DML_*_OPERATOR_DESC (DEPTH_COLUMN_ROW), 1 the *1 desc. */
static void depth_space_example(int to_space, int version, DML_DEPTH_SPACE_ORDER order)
{
    const float* space = order == DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH ? DS_SPACE_CRD : DS_SPACE_DCR;
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, to_space ? DS_DEPTH_SIZES : DS_SPACE_SIZES, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, to_space ? DS_SPACE_SIZES : DS_DEPTH_SIZES, NULL);
    DML_DEPTH_TO_SPACE_OPERATOR_DESC v0 = { &in.desc, &out.desc, 2 };
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC v1 = { &in.desc, &out.desc, 2, order };
    DML_OPERATOR_DESC od;
    if (to_space)
        od.Type = version ? DML_OPERATOR_DEPTH_TO_SPACE1 : DML_OPERATOR_DEPTH_TO_SPACE;
    else
        od.Type = version ? DML_OPERATOR_SPACE_TO_DEPTH1 : DML_OPERATOR_SPACE_TO_DEPTH;
    od.Desc = version ? (const void*)&v1 : (const void*)&v0; /* the SPACE_TO_DEPTH descs have the same layouts */
    const void* data[1] = { to_space ? DS_DEPTH : space };
    uint64_t bytes[1] = { sizeof DS_DEPTH };
    run_and_check(&od, 1, data, bytes, to_space ? space : DS_DEPTH, 48);
}

START_TEST(depth_to_space_example)
{
    depth_space_example(1, 0, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
}
END_TEST

START_TEST(depth_to_space1_examples)
{
    depth_space_example(1, 1, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
    depth_space_example(1, 1, DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH);
}
END_TEST

START_TEST(space_to_depth_example)
{
    depth_space_example(0, 0, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
}
END_TEST

START_TEST(space_to_depth1_examples)
{
    depth_space_example(0, 1, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
    depth_space_example(0, 1, DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH);
}
END_TEST

START_TEST(depth_to_space_example_via_strided_tensors)
{
    /* DEPTH_TO_SPACE1 (DCR) with the input stored {N, H, W, C} (strides
     * {48, 1, 24, 8}) and the output written column-major within each
     * channel (strides {48, 24, 1, 4}). */
    static const uint32_t in_strides[4] = { 48, 1, 24, 8 }, out_strides[4] = { 48, 24, 1, 4 };
    float input[48], expected[48];
    for (int k = 0; k < 8; ++k)
        for (int h = 0; h < 2; ++h)
            for (int w = 0; w < 3; ++w)
                input[h * 24 + w * 8 + k] = DS_DEPTH[k * 6 + h * 3 + w];
    for (int c = 0; c < 2; ++c)
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 6; ++x)
                expected[c * 24 + x * 4 + y] = DS_SPACE_DCR[c * 24 + y * 6 + x];
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, DS_DEPTH_SIZES, in_strides);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, DS_SPACE_SIZES, out_strides);
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d = { &in.desc, &out.desc, 2, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW };
    DML_OPERATOR_DESC od = { DML_OPERATOR_DEPTH_TO_SPACE1, &d };
    const void* data[1] = { input };
    uint64_t bytes[1] = { sizeof input };
    run_and_check(&od, 1, data, bytes, expected, 48);
}
END_TEST

START_TEST(calc_buffer_tensor_size_examples)
{
    /* The spec's formula, by hand. */
    static const uint32_t s4[4] = { 1, 1, 3, 4 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, s4, NULL), 48);
    static const uint32_t s1[1] = { 3 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, s1, NULL), 4);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 1, s1, NULL), 8);
    static const uint32_t s5[1] = { 5 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT8, 1, s5, NULL), 8);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT64, 1, s5, NULL), 40);
    /* strides: last = (2-1)*7 + (3-1)*2 = 11 -> 12 elements * 2 bytes = 24 */
    static const uint32_t sz[2] = { 2, 3 }, st[2] = { 7, 2 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT16, 2, sz, st), 24);
    /* broadcast: last = 0 -> 1 element, rounded up to 4 bytes */
    static const uint32_t bz[2] = { 0, 0 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, sz, bz), 4);
    /* invalid arguments and overflow give 0 */
    static const uint32_t zero[2] = { 2, 0 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, zero, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 1, s5, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 0, s5, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 9, s5, NULL), 0);
    static const uint32_t big[8] = { 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
                                     0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 8, big, big), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 8, big, NULL), 0);
}
END_TEST

static Suite* examples_suite(void)
{
    Suite* s = suite_create("examples");
    TCase* tc = tcase_create("operators.md");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, reverse_subsequences_example1);
    tcase_add_test(tc, reverse_subsequences_example2);
    tcase_add_test(tc, reverse_subsequences_example1_uint64);
    tcase_add_test(tc, reverse_subsequences_example2_uint64_large_lengths);
    tcase_add_test(tc, reverse_subsequences_example1_uint32_max);
    tcase_add_test(tc, slice1_example_positive_strides);
    tcase_add_test(tc, slice1_example_negative_stride);
    tcase_add_test(tc, slice_example_positive_strides);
    tcase_add_test(tc, slice1_example_negative_stride_via_strided_input);
    tcase_add_test(tc, tile_example);
    tcase_add_test(tc, tile_example_via_strided_tensors);
    tcase_add_test(tc, depth_to_space_example);
    tcase_add_test(tc, depth_to_space1_examples);
    tcase_add_test(tc, space_to_depth_example);
    tcase_add_test(tc, space_to_depth1_examples);
    tcase_add_test(tc, depth_to_space_example_via_strided_tensors);
    suite_add_tcase(s, tc);
    TCase* calc = tcase_create("DMLCalcBufferTensorSize");
    tcase_add_test(calc, calc_buffer_tensor_size_examples);
    suite_add_tcase(s, calc);
    return s;
}

int main(void)
{
    SRunner* sr = srunner_create(examples_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
