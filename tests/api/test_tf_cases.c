/*
 * test_tf_cases.c — the TensorFlow plugin's ops as dmlbench --gpu-table
 * tensorflow builds them (profiling/tf_cases.c: compare_tensorflow.py's
 * cases, the plugin's descs), at a small size on the backend under test:
 * each one created, compiled, run once on its case's inputs and compared,
 * byte for byte, with reference.c's naive operator of the same desc, and
 * the 2-D ones element by element with what the TensorFlow op means. So
 * the GPU table's operators are known to be valid, right and TensorFlow's
 * before a GPU times them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "tf_cases.h"

#define SMALL_BYTES 4096 /* compare_tensorflow.py's --small */

static harness H;

static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }

static ref_view view_of(const tf_tensor* t, uint8_t* base)
{
    const DML_BUFFER_TENSOR_DESC* b = &t->buffer;
    return (ref_view){ h_elem_size(b->DataType), b->DimensionCount, b->Sizes, b->Strides, base, b->TotalTensorSizeInBytes };
}

/* The reference result of the case's operator, from its desc. */
static void reference(const tf_case* c, ref_view* in, ref_view* out)
{
    const DML_OPERATOR_DESC* d = &c->desc;
    switch (d->Type) {
    case DML_OPERATOR_ELEMENT_WISE_IDENTITY: { /* out[c] = in[c], read through in's strides */
        uint32_t zeros[REF_MAX_RANK] = { 0 };
        int32_t ones[REF_MAX_RANK] = { 1, 1, 1, 1, 1, 1, 1, 1 };
        ref_slice1(&in[0], &out[0], zeros, in[0].sizes, ones);
        break;
    }
    case DML_OPERATOR_SLICE1: {
        const DML_SLICE1_OPERATOR_DESC* s = d->Desc;
        ref_slice1(&in[0], &out[0], s->InputWindowOffsets, s->InputWindowSizes, s->InputWindowStrides);
        break;
    }
    case DML_OPERATOR_REVERSE_SUBSEQUENCES:
        ref_reverse_subsequences(&in[0], &in[1], &out[0], ((const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC*)d->Desc)->Axis);
        break;
    case DML_OPERATOR_JOIN: ref_join(in, c->inputs, &out[0], ((const DML_JOIN_OPERATOR_DESC*)d->Desc)->Axis); break;
    case DML_OPERATOR_SPLIT: ref_split(&in[0], out, c->outputs, ((const DML_SPLIT_OPERATOR_DESC*)d->Desc)->Axis); break;
    case DML_OPERATOR_PADDING1: {
        const DML_PADDING1_OPERATOR_DESC* p = d->Desc;
        ref_padding(&in[0], &out[0], (uint32_t)p->PaddingMode, p->PaddingValue.Bytes, p->StartPadding);
        break;
    }
    case DML_OPERATOR_TILE: ref_tile(&in[0], &out[0]); break;
    case DML_OPERATOR_GATHER: {
        const DML_GATHER_OPERATOR_DESC* g = d->Desc;
        ref_gather(&in[0], &in[1], &out[0], g->Axis, g->IndexDimensions, 1);
        break;
    }
    case DML_OPERATOR_ELEMENT_WISE_IF: ref_element_wise_if(&in[0], &in[1], &in[2], &out[0]); break;
    case DML_OPERATOR_DEPTH_TO_SPACE:
        ref_depth_to_space(&in[0], &out[0], ((const DML_DEPTH_TO_SPACE_OPERATOR_DESC*)d->Desc)->BlockSize, 0);
        break;
    case DML_OPERATOR_CAST:
        ref_cast(&in[0], DML_TENSOR_DATA_TYPE_FLOAT32, &out[0], DML_TENSOR_DATA_TYPE_FLOAT16);
        break;
    case DML_OPERATOR_ONE_HOT:
        ref_one_hot(&in[0], &in[1], &out[0], ((const DML_ONE_HOT_OPERATOR_DESC*)d->Desc)->Axis,
            c->in[0].buffer.DataType == DML_TENSOR_DATA_TYPE_INT64); /* the plugin reads int64 as UINT64 */
        break;
    default: ck_abort_msg("%s: no reference for operator %d", c->name, (int)d->Type);
    }
}

/* Element (i, j) of a packed 2-D float32 tensor of `cols` columns, as bits. */
static uint32_t at2(const uint8_t* base, uint32_t cols, uint32_t i, uint32_t j)
{
    uint32_t v;
    memcpy(&v, base + ((uint64_t)i * cols + j) * 4, 4);
    return v;
}

/* TensorFlow's meaning of the 2-D cases, element by element (numpy's
 * indexing, not the descs): that the descs say what the op says. The
 * others are checked against the reference of their desc only. */
static void check_tf_meaning(const tf_case* c, int index, uint8_t* const* in, uint8_t* const* out)
{
    const uint32_t rows = c->in[0].sizes[0], cols = c->in[0].sizes[1];
    const int gather = index == 11; /* {1, rows, cols} as GATHER's {outer, axis, inner} */
    const uint32_t out_rows = c->out[0].sizes[gather], out_cols = c->out[0].sizes[1 + gather];
    int bad = 0;
    for (uint32_t i = 0; i < out_rows && index != 14; i++)
        for (uint32_t j = 0; j < out_cols; j++) {
            const uint32_t got = at2(out[0], out_cols, i, j);
            uint32_t want;
            switch (index) {
            case 0: want = at2(in[0], out_rows, j, i); break; /* tf.transpose: the input is [out_cols, out_rows] */
            case 2: want = at2(in[0], cols, rows - 1 - i, j); break;
            case 3: want = at2(in[0], cols, i, cols - 1 - j); break;
            case 4: want = at2(in[0], cols, i + 1, j + 1); break; /* tf.slice(t, [1, 1], ...) */
            case 5: want = at2(in[0], cols, rows - 1 - i, 2 * j); break; /* t[::-1, ::2] */
            case 7: want = j < cols ? at2(in[0], cols, i, j) : at2(in[1], cols, i, j - cols); break; /* tf.concat */
            case 10: want = at2(in[0], cols, i % rows, j); break; /* tf.tile(t, [2, 1]) */
            case 11: { /* tf.gather(t, indices) */
                int64_t row;
                memcpy(&row, in[1] + (uint64_t)i * 8, 8);
                want = at2(in[0], c->in[0].sizes[2], (uint32_t)row, j);
                break;
            }
            case 12: want = at2(in[0], out_cols, 0, j); break; /* tf.broadcast_to of one row */
            default: return;
            }
            bad += got != want;
        }
    for (uint32_t k = 0; k < c->outputs && index == 14; k++) /* tf.split(t, 4, axis=1)[k] */
        for (uint32_t i = 0; i < out_rows; i++)
            for (uint32_t j = 0; j < out_cols; j++)
                bad += at2(out[k], out_cols, i, j) != at2(in[0], cols, i, k * out_cols + j);
    ck_assert_msg(bad == 0, "%s: %d elements are not TensorFlow's", c->name, bad);
}

/* One case: built, run on the backend, compared. */
static void check_case(int index)
{
    tf_case* c = malloc(sizeof *c);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(tf_case_build(c, index, SMALL_BYTES), 0);
    uint8_t *host[TF_CASE_INPUTS] = { NULL }, *want[TF_CASE_OUTPUTS] = { NULL }, *got[TF_CASE_OUTPUTS] = { NULL };
    h_bind in[TF_CASE_INPUTS], out[TF_CASE_OUTPUTS];
    ref_view in_view[TF_CASE_INPUTS], out_view[TF_CASE_OUTPUTS];
    void* dsts[TF_CASE_OUTPUTS];
    uint64_t dst_sizes[TF_CASE_OUTPUTS];
    for (uint32_t i = 0; i < c->inputs; i++) {
        const uint64_t bytes = c->in[i].buffer.TotalTensorSizeInBytes;
        host[i] = malloc(bytes);
        ck_assert_ptr_nonnull(host[i]);
        tf_case_fill(c, i, host[i], (uint64_t)index + 1);
        in[i] = (h_bind){ h_buffer(&H, bytes, host[i]), 0, bytes, 0 };
        in_view[i] = view_of(&c->in[i], host[i]);
    }
    for (uint32_t o = 0; o < c->outputs; o++) {
        const uint64_t bytes = c->out[o].buffer.TotalTensorSizeInBytes;
        want[o] = calloc(1, bytes);
        got[o] = malloc(bytes);
        ck_assert(want[o] && got[o]);
        out[o] = (h_bind){ h_buffer(&H, bytes, NULL), 0, bytes, 0 };
        out_view[o] = view_of(&c->out[o], want[o]);
        dsts[o] = got[o];
        dst_sizes[o] = bytes;
    }
    const DML_RESULT r = run_operator_outputs(&H, &c->desc, DML_EXECUTION_FLAG_NONE, c->inputs, in, c->outputs, out,
        dsts, dst_sizes);
    ck_assert_msg(r == DML_S_OK, "%s (%s): %s at %s: %s", c->name, c->operator_name, h_result_name(r), H.stage,
        H.message);
    reference(c, in_view, out_view);
    for (uint32_t o = 0; o < c->outputs; o++)
        ck_assert_msg(memcmp(got[o], want[o], dst_sizes[o]) == 0, "%s (%s): output %u differs from the reference",
            c->name, c->operator_name, o);
    check_tf_meaning(c, index, host, got);
    ck_assert_uint_gt(c->read, 0);
    ck_assert_uint_gt(c->written, 0);
    for (uint32_t i = 0; i < c->inputs; i++) {
        dmlRelease(in[i].buffer);
        free(host[i]);
    }
    for (uint32_t o = 0; o < c->outputs; o++) {
        dmlRelease(out[o].buffer);
        free(want[o]);
        free(got[o]);
    }
    free(c);
}

/* Every case in one test: one device for all (the suite also runs under
 * valgrind in CI, where creating a device per case costs the most). */
START_TEST(tf_cases_match_the_reference)
{
    for (int k = 0; k < tf_case_count(); k++)
        check_case(k);
}
END_TEST

/* At the table's size the cases keep compare_tensorflow.py's shapes. */
START_TEST(table_shapes_are_the_scripts)
{
    tf_case* c = malloc(sizeof *c);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(tf_case_build(c, 0, 64u << 20), 0); /* Transpose 2-D of [4096, 4096] */
    ck_assert_uint_eq(c->out[0].sizes[0], 4096);
    ck_assert_uint_eq(c->out[0].sizes[1], 4096);
    ck_assert_uint_eq(c->read, 64u << 20);
    ck_assert_int_eq(tf_case_build(c, 1, 64u << 20), 0); /* Transpose 3-D of [256, 256, 256] */
    ck_assert_uint_eq(c->in[0].buffer.DimensionCount, 3);
    ck_assert_uint_eq(c->in[0].strides[0], 1);
    ck_assert_uint_eq(c->in[0].strides[1], 65536);
    ck_assert_int_eq(tf_case_build(c, 15, 64u << 20), 0); /* DepthToSpace of [1, 256, 4096, 16] (NHWC) */
    ck_assert_uint_eq(c->in[0].sizes[1], 16);
    ck_assert_uint_eq(c->in[0].sizes[2], 256);
    ck_assert_uint_eq(c->in[0].sizes[3], 4096);
    ck_assert_int_eq(tf_case_build(c, tf_case_count(), 1024), -1);
    free(c);
}
END_TEST

int main(void)
{
    printf("test_api_tf_cases: backend %s\n", h_backend());
    fflush(stdout);
    Suite* s = suite_create("tf_cases");
    TCase* tc = tcase_create("cases");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, tf_cases_match_the_reference);
    tcase_add_test(tc, table_shapes_are_the_scripts);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
