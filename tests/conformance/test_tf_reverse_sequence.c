/*
 * test_tf_reverse_sequence.c — TensorFlow's reverse_sequence test cases
 * (tensorflow/python/kernel_tests/array_ops/reverse_sequence_op_test.py) run
 * through the same host mapping as ONNX ReverseSequence (onnx_to_dml.c, with
 * TF's "any two distinct axes" rule) on "cpu" and "cudaemu".
 *
 * _testBasic: x = 1..24 reshaped (3,2,4,1,1) and transposed [2,1,0,3,4] to
 * (4,2,3,1,1); seq_axis 0, batch_axis 2, seq_lengths [3,0,4]; for every DML data
 * type and both TF length types (int32 -> UINT32 lengths, int64 -> UINT64). The
 * expected output is computed here from TF's documented semantics
 *   out[.., i (seq), .., b (batch), ..] = in[.., L_b - 1 - i, .., b, ..] if i < L_b else in
 * and also checked against TF's literal truth table.
 *
 * testInvalidArguments and the kernel's seq_lens checks: what TF rejects, what the
 * mapping and DML do. One disagreement, by design (operators.md: "A length above
 * the axis size acts as the axis size"): TF rejects seq_lens(b) > dims(seq_axis)
 * (and negative lengths); DML clamps. Those cases assert DML's behaviour and print
 * "tf-disagreement: ...".
 */
#include "conf_runner.h"
#include "onnx_to_dml.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const g_backends[] = { "cpu", "cudaemu" };
static const DML_TENSOR_DATA_TYPE g_types[] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64,
};
#define NTYPES (int)(sizeof g_types / sizeof g_types[0])

/* A small non-negative integer v (< 2048) in `type`'s representation. */
static void store(DML_TENSOR_DATA_TYPE type, uint32_t v, uint8_t* p)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case DML_TENSOR_DATA_TYPE_FLOAT64: { double f = (double)v; memcpy(p, &f, 8); break; }
    case DML_TENSOR_DATA_TYPE_FLOAT16: {
        uint16_t h = 0;
        if (v) {
            int e = 0;
            while ((v >> (e + 1)) != 0)
                ++e;
            h = (uint16_t)(((e + 15) << 10) | ((v << (10 - e)) & 0x3ff));
        }
        memcpy(p, &h, 2);
        break;
    }
    case DML_TENSOR_DATA_TYPE_UINT8: case DML_TENSOR_DATA_TYPE_INT8: p[0] = (uint8_t)v; break;
    case DML_TENSOR_DATA_TYPE_UINT16: case DML_TENSOR_DATA_TYPE_INT16: {
        uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break;
    }
    case DML_TENSOR_DATA_TYPE_UINT32: case DML_TENSOR_DATA_TYPE_INT32: {
        uint32_t x = v; memcpy(p, &x, 4); break;
    }
    default: { uint64_t x = v; memcpy(p, &x, 8); break; }
    }
}

/* TF's x: shape (4,2,3,1,1), x[i][j][k] = x_orig[k][j][i] = 1 + 8k + 4j + i. */
static uint32_t tf_x(int i, int j, int k)
{
    return (uint32_t)(1 + 8 * k + 4 * j + i);
}

/* TF's truth_orig (3,2,4), transposed the same way. */
static const uint32_t tf_truth_orig[3][2][4] = {
    { { 3, 2, 1, 4 }, { 7, 6, 5, 8 } },
    { { 9, 10, 11, 12 }, { 13, 14, 15, 16 } },
    { { 20, 19, 18, 17 }, { 24, 23, 22, 21 } },
};

static const int64_t tf_dims[5] = { 4, 2, 3, 1, 1 };

/* Runs the TF basic case; lengths given as int64 values, passed as UINT32 or UINT64. */
static void run_basic(const char* backend, DML_TENSOR_DATA_TYPE type, int len32,
                      const int64_t lens[3], uint32_t out_values[4][2][3])
{
    char err[512];
    otd_reverse_sequence m;
    ck_assert_int_eq(otd_map_reverse_sequence(5, tf_dims, 0, 2, 3, 0, &m, err, sizeof err), OTD_OK);
    /* The broadcast lengths tensor: sizes (1,2,3,1,1), strides (0,0,1,0,0). */
    ck_assert_uint_eq(m.axis, 0);
    const uint32_t ls[5] = { 1, 2, 3, 1, 1 }, lst[5] = { 0, 0, 1, 0, 0 };
    ck_assert_mem_eq(m.lengths_sizes, ls, sizeof ls);
    ck_assert_mem_eq(m.lengths_strides, lst, sizeof lst);
    uint32_t l32[3];
    if (len32) {
        m.lengths_type = DML_TENSOR_DATA_TYPE_UINT32;
        for (int b = 0; b < 3; ++b)
            l32[b] = (uint32_t)lens[b];
    }
    uint32_t es = conf_elem_size(type);
    uint8_t in[24 * 8], out[24 * 8];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k)
                store(type, tf_x(i, j, k), in + ((i * 2 + j) * 3 + k) * es);
    memset(out, 0xAB, sizeof out);
    conf_device d;
    DML_RESULT r = conf_device_open(&d, backend);
    ck_assert_msg(DML_SUCCEEDED(r), "%s", d.message);
    r = conf_reverse_sequence(&d, type, &m, in, len32 ? (const void*)l32 : (const void*)lens, out);
    ck_assert_msg(DML_SUCCEEDED(r), "%s: 0x%08x %s", backend, (unsigned)r, d.message);
    conf_device_close(&d);
    /* Decode: the output must be a permutation of the input values along axis 0. */
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k) {
                const uint8_t* p = out + ((i * 2 + j) * 3 + k) * es;
                uint32_t found = 0;
                uint8_t tmp[8];
                for (uint32_t v = 1; v <= 24 && !found; ++v) {
                    store(type, v, tmp);
                    if (!memcmp(tmp, p, es))
                        found = v;
                }
                ck_assert_msg(found, "%s %u: output (%d,%d,%d) is not an input value", backend,
                              (unsigned)type, i, j, k);
                out_values[i][j][k] = found;
            }
}

/* _testBasic for every type x {int32, int64} lengths x {cpu, cudaemu}. */
START_TEST(tf_basic)
{
    const char* backend = g_backends[_i % 2];
    int len32 = (_i / 2) % 2;
    DML_TENSOR_DATA_TYPE type = g_types[_i / 4];
    const int64_t lens[3] = { 3, 0, 4 };
    uint32_t got[4][2][3];
    run_basic(backend, type, len32, lens, got);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k) {
                int64_t L = lens[k];
                int src = (i < L) ? (int)(L - 1 - i) : i; /* TF semantics */
                ck_assert_uint_eq(got[i][j][k], tf_x(src, j, k));
                ck_assert_uint_eq(got[i][j][k], tf_truth_orig[k][j][i]); /* TF's own table */
            }
    printf("tf reverse_sequence basic [%s] type %u lengths %s: pass\n", backend, (unsigned)type,
           len32 ? "int32->UINT32" : "int64->UINT64");
    fflush(stdout);
}
END_TEST

/* testInvalidArguments: x (32,2,3). Each is rejected by TF; the mapping rejects it too. */
START_TEST(tf_invalid_mapping)
{
    const int64_t dims[3] = { 32, 2, 3 };
    char err[256];
    otd_reverse_sequence m;
    /* Batch size mismatched between input and seq_lengths ([2,2] vs 32). */
    ck_assert_int_eq(otd_map_reverse_sequence(3, dims, 1, 0, 2, 0, &m, err, sizeof err), OTD_INVALID);
    /* seq_axis out of bounds. */
    ck_assert_int_eq(otd_map_reverse_sequence(3, dims, 3, 0, 32, 0, &m, err, sizeof err), OTD_INVALID);
    /* batch_axis out of bounds. */
    ck_assert_int_eq(otd_map_reverse_sequence(3, dims, 0, 3, 32, 0, &m, err, sizeof err), OTD_INVALID);
    /* batch_dim == seq_dim == 0. */
    ck_assert_int_eq(otd_map_reverse_sequence(3, dims, 0, 0, 32, 0, &m, err, sizeof err), OTD_INVALID);
    ck_assert_ptr_nonnull(strstr(err, "time_axis == batch_axis"));
    printf("tf invalid arguments (batch mismatch, seq_axis OOB, batch_axis OOB, seq==batch): "
           "rejected by the mapping, as TF rejects them: agree\n");
    fflush(stdout);
}
END_TEST

/* The same invalid shapes pushed to DML directly: DML's own validation agrees. */
START_TEST(tf_invalid_dml)
{
    const char* backend = g_backends[_i];
    conf_device d;
    DML_RESULT r = conf_device_open(&d, backend);
    ck_assert_msg(DML_SUCCEEDED(r), "%s", d.message);
    uint32_t in_sizes[3] = { 32, 2, 3 };
    DML_BUFFER_TENSOR_DESC bi = { DML_TENSOR_DATA_TYPE_FLOAT32, 0, 3, in_sizes, NULL, 32 * 2 * 3 * 4, 0 };
    DML_TENSOR_DESC ti = { DML_TENSOR_TYPE_BUFFER, &bi };
    /* Lengths for a batch of 2 along axis 0 while the input's is 32. */
    uint32_t l_sizes[3] = { 2, 1, 3 }, l_strides[3] = { 1, 0, 0 };
    DML_BUFFER_TENSOR_DESC bl = { DML_TENSOR_DATA_TYPE_UINT64, 0, 3, l_sizes, l_strides, 16, 0 };
    DML_TENSOR_DESC tl = { DML_TENSOR_TYPE_BUFFER, &bl };
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &ti, &tl, &ti, 1 };
    DML_OPERATOR_DESC od = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };
    DMLOperator op = NULL;
    ck_assert_int_eq(dmlDeviceCreateOperator(d.device, &od, &op), DML_E_INVALIDARG);
    ck_assert_ptr_null(op);
    /* seq_axis out of bounds: Axis 3 on a rank-3 input. */
    uint32_t l2_sizes[3] = { 32, 2, 3 }, l2_strides[3] = { 1, 0, 0 };
    bl.Sizes = l2_sizes;
    bl.Strides = l2_strides;
    bl.TotalTensorSizeInBytes = 32 * 8;
    rs.Axis = 3;
    ck_assert_int_eq(dmlDeviceCreateOperator(d.device, &od, &op), DML_E_INVALIDARG);
    ck_assert_ptr_null(op);
    conf_device_close(&d);
}
END_TEST

/* TF's kernel: "seq_lens(b) > input.dims(seq_dim)" is InvalidArgument. DML clamps
 * (operators.md). Assert DML's behaviour: lengths [3,0,5] == lengths [3,0,4]. */
START_TEST(tf_length_above_dim)
{
    const char* backend = g_backends[_i % 2];
    int len32 = _i / 2;
    const int64_t big[3] = { 3, 0, 5 }, clamped[3] = { 3, 0, 4 };
    uint32_t a[4][2][3], b[4][2][3];
    run_basic(backend, DML_TENSOR_DATA_TYPE_INT32, len32, big, a);
    run_basic(backend, DML_TENSOR_DATA_TYPE_INT32, len32, clamped, b);
    ck_assert_mem_eq(a, b, sizeof a);
    printf("tf-disagreement [%s] seq_lengths [3,0,5] with dims(seq_axis)=4: TF InvalidArgument "
           "(seq_lens(2) > input.dims(0)); DML clamps to 4 (full reversal), per operators.md\n",
           backend);
    fflush(stdout);
}
END_TEST

/* TF's kernel also rejects negative lengths. Through the mapping (INT64 bits read as
 * UINT64) -1 is 2^64-1, clamped to the axis size. */
START_TEST(tf_negative_length)
{
    const char* backend = g_backends[_i];
    const int64_t neg[3] = { 3, 0, -1 }, full[3] = { 3, 0, 4 };
    uint32_t a[4][2][3], b[4][2][3];
    run_basic(backend, DML_TENSOR_DATA_TYPE_FLOAT32, 0, neg, a);
    run_basic(backend, DML_TENSOR_DATA_TYPE_FLOAT32, 0, full, b);
    ck_assert_mem_eq(a, b, sizeof a);
    printf("tf-disagreement [%s] seq_lengths [3,0,-1]: TF InvalidArgument (negative length); "
           "mapped INT64 -1 reads as UINT64 2^64-1 and DML clamps it to 4 (full reversal)\n", backend);
    fflush(stdout);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("conformance_tf_reverse_sequence");
    TCase* tc = tcase_create("tf");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, tf_basic, 0, NTYPES * 4);
    tcase_add_test(tc, tf_invalid_mapping);
    tcase_add_loop_test(tc, tf_invalid_dml, 0, 2);
    tcase_add_loop_test(tc, tf_length_above_dim, 0, 4);
    tcase_add_loop_test(tc, tf_negative_length, 0, 2);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
