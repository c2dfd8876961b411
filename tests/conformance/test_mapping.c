/*
 * test_mapping.c — the ONNX -> DML mapping arithmetic (onnx_to_dml.c) and the
 * TensorProto reader (tensorproto.c), without a device: ONNX Slice rules with
 * INT64 extremes, negative values, clamping and defaults; ReverseSequence's
 * broadcast lengths desc; the data-type table; protobuf wire-format corners.
 */
#include "onnx_to_dml.h"
#include "tensorproto.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void axis(int64_t dim, int64_t s, int64_t e, int64_t st, int64_t first, uint64_t count)
{
    int64_t f = -7;
    uint64_t c = 77;
    ck_assert_int_eq(otd_slice_axis(dim, s, e, st, &f, &c), OTD_OK);
    ck_assert_msg(c == count, "dim %lld start %lld end %lld step %lld: count %llu, expected %llu",
                  (long long)dim, (long long)s, (long long)e, (long long)st, (unsigned long long)c,
                  (unsigned long long)count);
    if (count)
        ck_assert_msg(f == first, "dim %lld start %lld end %lld step %lld: first %lld, expected %lld",
                      (long long)dim, (long long)s, (long long)e, (long long)st, (long long)f,
                      (long long)first);
}

START_TEST(slice_axis_rules)
{
    axis(10, 0, 10, 1, 0, 10);
    axis(10, 0, INT64_MAX, 1, 0, 10);
    axis(10, INT64_MIN, INT64_MAX, 1, 0, 10);
    axis(10, INT64_MAX, INT64_MIN, -1, 9, 10);       /* reverse everything */
    axis(10, -1, INT64_MIN, -1, 9, 10);
    axis(10, -1, -1000, -1, 9, 10);                 /* test_slice_neg_steps style */
    axis(10, INT64_MAX, INT64_MIN, INT64_MIN, 9, 1);
    axis(10, INT64_MIN, INT64_MAX, INT64_MAX, 0, 1);
    axis(10, 0, 1, INT64_MAX, 0, 1);
    axis(10, 20, 1000, 1, 0, 0);                    /* start clamped to dim */
    axis(10, -20, -15, 1, 0, 0);
    axis(10, 1000, 1000, -1, 9, 0);
    axis(10, 1, 8, 3, 1, 3);                        /* 1,4,7 */
    axis(10, 8, 1, -3, 8, 3);                       /* 8,5,2 */
    axis(10, 8, 2, -3, 8, 2);                       /* 8,5 */
    axis(10, -3, -1, 1, 7, 2);
    axis(10, 5, 5, 1, 5, 0);
    axis(10, 5, 4, 1, 5, 0);
    axis(10, 4, 5, -1, 4, 0);
    axis(0, 0, INT64_MAX, 1, 0, 0);
    axis(0, INT64_MAX, INT64_MIN, -1, 0, 0);
    axis(1, 0, 1, 1, 0, 1);
    axis(1, -1, INT64_MIN, -1, 0, 1);
    axis(4294967295LL, 0, INT64_MAX, 2, 0, 2147483648ULL);
    int64_t f;
    uint64_t c;
    ck_assert_int_eq(otd_slice_axis(10, 0, 10, 0, &f, &c), OTD_INVALID);
}
END_TEST

START_TEST(slice_windows)
{
    const int64_t dims[4] = { 1, 1, 4, 4 };
    char err[256];
    otd_slice s;
    /* operators.md example 2 expressed in ONNX: dim 2 backwards from 3 by 2, dim 3 from 1 by 2. */
    const int64_t starts[2] = { -1, 1 }, ends[2] = { INT64_MIN, 4 }, axes[2] = { -2, 3 },
                  steps[2] = { -2, 2 };
    ck_assert_int_eq(otd_map_slice(4, dims, 2, starts, ends, axes, steps, &s, err, sizeof err), OTD_OK);
    const uint32_t osz[4] = { 1, 1, 2, 2 }, off[4] = { 0, 0, 1, 1 }, win[4] = { 1, 1, 3, 3 };
    const int32_t str[4] = { 1, 1, -2, 2 };
    ck_assert_mem_eq(s.output_sizes, osz, sizeof osz);
    ck_assert_mem_eq(s.offsets, off, sizeof off);
    ck_assert_mem_eq(s.window_sizes, win, sizeof win);
    ck_assert_mem_eq(s.strides, str, sizeof str);

    /* Default axes (0..n-1) and steps; untouched axes are whole. */
    const int64_t st2[1] = { 1 }, en2[1] = { 2 };
    ck_assert_int_eq(otd_map_slice(4, dims, 1, st2, en2, NULL, NULL, &s, err, sizeof err), OTD_EMPTY);
    ck_assert_uint_eq(s.output_sizes[0], 0);
    ck_assert_uint_eq(s.output_sizes[3], 4);

    /* A huge step with one element left becomes window 1, stride 1. */
    const int64_t st3[1] = { 2 }, en3[1] = { INT64_MAX }, ax3[1] = { 3 }, sp3[1] = { INT64_MAX };
    ck_assert_int_eq(otd_map_slice(4, dims, 1, st3, en3, ax3, sp3, &s, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(s.output_sizes[3], 1);
    ck_assert_uint_eq(s.offsets[3], 2);
    ck_assert_uint_eq(s.window_sizes[3], 1);
    ck_assert_int_eq(s.strides[3], 1);

    /* Invalid by ONNX: repeated axis, axis out of range, zero step, more entries than rank. */
    const int64_t two_s[2] = { 0, 0 }, two_e[2] = { 1, 1 }, rep[2] = { 1, -3 }, oob[1] = { 4 },
                  zero[1] = { 0 };
    ck_assert_int_eq(otd_map_slice(4, dims, 2, two_s, two_e, rep, NULL, &s, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_slice(4, dims, 1, two_s, two_e, oob, NULL, &s, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_slice(4, dims, 1, two_s, two_e, NULL, zero, &s, err, sizeof err), OTD_INVALID);
    const int64_t five[5] = { 0 };
    ck_assert_int_eq(otd_map_slice(4, dims, 5, five, five, NULL, NULL, &s, err, sizeof err), OTD_INVALID);
    /* Rank 9 is beyond DirectML. */
    const int64_t d9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    ck_assert_int_eq(otd_map_slice(9, d9, 0, NULL, NULL, NULL, NULL, &s, err, sizeof err),
                     OTD_UNREPRESENTABLE);
}
END_TEST

START_TEST(reverse_sequence_desc)
{
    const int64_t dims[4] = { 2, 3, 4, 5 };
    char err[256];
    otd_reverse_sequence m;
    ck_assert_int_eq(otd_map_reverse_sequence(4, dims, 0, 1, 3, 1, &m, err, sizeof err), OTD_OK);
    const uint32_t ls[4] = { 1, 3, 4, 5 }, lst[4] = { 0, 1, 0, 0 };
    ck_assert_uint_eq(m.axis, 0);
    ck_assert_int_eq(m.lengths_type, DML_TENSOR_DATA_TYPE_UINT64);
    ck_assert_mem_eq(m.lengths_sizes, ls, sizeof ls);
    ck_assert_mem_eq(m.lengths_strides, lst, sizeof lst);
    ck_assert_int_eq(otd_map_reverse_sequence(4, dims, 1, 0, 2, 1, &m, err, sizeof err), OTD_OK);
    const uint32_t ls2[4] = { 2, 1, 4, 5 }, lst2[4] = { 1, 0, 0, 0 };
    ck_assert_mem_eq(m.lengths_sizes, ls2, sizeof ls2);
    ck_assert_mem_eq(m.lengths_strides, lst2, sizeof lst2);
    /* ONNX allows only axes 0 and 1; TF any distinct axes. */
    ck_assert_int_eq(otd_map_reverse_sequence(4, dims, 2, 0, 2, 1, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_reverse_sequence(4, dims, 2, 0, 2, 0, &m, err, sizeof err), OTD_OK);
    ck_assert_int_eq(otd_map_reverse_sequence(4, dims, 0, 1, 2, 1, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_reverse_sequence(4, dims, 1, 1, 3, 1, &m, err, sizeof err), OTD_INVALID);
    const int64_t d1[1] = { 3 };
    ck_assert_int_eq(otd_map_reverse_sequence(1, d1, 0, 0, 3, 1, &m, err, sizeof err), OTD_INVALID);
    const int64_t dz[2] = { 0, 3 };
    ck_assert_int_eq(otd_map_reverse_sequence(2, dz, 0, 1, 3, 1, &m, err, sizeof err), OTD_EMPTY);
}
END_TEST

START_TEST(pad_desc)
{
    const int64_t dims[3] = { 2, 1, 3 };
    char err[256];
    otd_pad m;
    const int64_t pads[6] = { 0, 2, 1, 1, 0, 4 };
    ck_assert_int_eq(otd_map_pad(3, dims, 6, pads, 0, NULL, "reflect", &m, err, sizeof err), OTD_OK);
    const uint32_t start[3] = { 0, 2, 1 }, end[3] = { 1, 0, 4 }, out[3] = { 3, 3, 8 };
    ck_assert_int_eq(m.mode, DML_PADDING_MODE_REFLECTION);
    ck_assert_mem_eq(m.start, start, sizeof start);
    ck_assert_mem_eq(m.end, end, sizeof end);
    ck_assert_mem_eq(m.output_sizes, out, sizeof out);
    ck_assert_int_eq(otd_map_pad(3, dims, 6, pads, 0, NULL, NULL, &m, err, sizeof err), OTD_OK);
    ck_assert_int_eq(m.mode, DML_PADDING_MODE_CONSTANT);
    ck_assert_int_eq(otd_map_pad(3, dims, 6, pads, 0, NULL, "edge", &m, err, sizeof err), OTD_OK);
    ck_assert_int_eq(m.mode, DML_PADDING_MODE_EDGE);
    /* axes (opset 18): pads for those axes only, negative axes from the end */
    const int64_t axes[1] = { -1 }, axis_pads[2] = { 3, 5 };
    ck_assert_int_eq(otd_map_pad(3, dims, 2, axis_pads, 1, axes, "constant", &m, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(m.start[2], 3);
    ck_assert_uint_eq(m.end[2], 5);
    ck_assert_uint_eq(m.start[0] + m.end[0] + m.start[1] + m.end[1], 0);
    const int64_t repeated[2] = { 0, -3 };
    ck_assert_int_eq(otd_map_pad(3, dims, 4, pads, 2, repeated, NULL, &m, err, sizeof err), OTD_INVALID);
    /* wrong counts, unknown modes: invalid; wrap and negative pads: unsupported */
    ck_assert_int_eq(otd_map_pad(3, dims, 5, pads, 0, NULL, NULL, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_pad(3, dims, 6, pads, 0, NULL, "mirror", &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_pad(3, dims, 6, pads, 0, NULL, "wrap", &m, err, sizeof err), OTD_UNREPRESENTABLE);
    const int64_t crop[6] = { 0, 0, -1, 0, 0, 0 };
    ck_assert_int_eq(otd_map_pad(3, dims, 6, crop, 0, NULL, NULL, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    const int64_t big[6] = { 0, 0, 0x100000000ll, 0, 0, 0 };
    ck_assert_int_eq(otd_map_pad(3, dims, 6, big, 0, NULL, NULL, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    const int64_t dz[3] = { 2, 0, 3 }, none[6] = { 0 };
    ck_assert_int_eq(otd_map_pad(3, dz, 6, none, 0, NULL, NULL, &m, err, sizeof err), OTD_EMPTY);
    ck_assert_int_eq(otd_map_pad(3, dz, 6, pads, 0, NULL, NULL, &m, err, sizeof err), OTD_UNREPRESENTABLE);
}
END_TEST

START_TEST(tile_desc)
{
    const int64_t dims[3] = { 2, 1, 3 };
    char err[256];
    otd_tile m;
    const int64_t reps[3] = { 1, 4, 2 };
    ck_assert_int_eq(otd_map_tile(3, dims, 3, reps, &m, err, sizeof err), OTD_OK);
    const uint32_t r[3] = { 1, 4, 2 }, out[3] = { 2, 4, 6 };
    ck_assert_uint_eq(m.rank, 3);
    ck_assert_mem_eq(m.repeats, r, sizeof r);
    ck_assert_mem_eq(m.output_sizes, out, sizeof out);
    /* one repeat per dimension, none negative */
    ck_assert_int_eq(otd_map_tile(3, dims, 2, reps, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_tile(3, dims, 4, reps, &m, err, sizeof err), OTD_INVALID);
    const int64_t negative[3] = { 1, -1, 1 };
    ck_assert_int_eq(otd_map_tile(3, dims, 3, negative, &m, err, sizeof err), OTD_INVALID);
    /* a repeat of 0 is an empty output: nothing to dispatch */
    const int64_t zero[3] = { 1, 0, 1 };
    ck_assert_int_eq(otd_map_tile(3, dims, 3, zero, &m, err, sizeof err), OTD_EMPTY);
    ck_assert_uint_eq(m.output_sizes[1], 0);
    /* an output dimension beyond UINT32, or a product beyond 64 bits */
    const int64_t big[3] = { 1, 0x100000000ll, 1 }, huge[3] = { INT64_MAX, 1, 1 };
    ck_assert_int_eq(otd_map_tile(3, dims, 3, big, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    ck_assert_int_eq(otd_map_tile(3, dims, 3, huge, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    const int64_t fits[3] = { 0x7FFFFFFF, 1, 1 };
    ck_assert_int_eq(otd_map_tile(3, dims, 3, fits, &m, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(m.output_sizes[0], 0xFFFFFFFEu);
}
END_TEST

START_TEST(depth_space_desc)
{
    char err[256];
    otd_depth_space m;
    const int64_t depth[4] = { 1, 8, 2, 3 }, space[4] = { 1, 2, 4, 6 };
    ck_assert_int_eq(otd_map_depth_space(1, 4, depth, 2, NULL, &m, err, sizeof err), OTD_OK);
    const uint32_t s[4] = { 1, 2, 4, 6 }, d[4] = { 1, 8, 2, 3 };
    ck_assert_mem_eq(m.output_sizes, s, sizeof s);
    ck_assert_uint_eq(m.block, 2);
    ck_assert_int_eq(m.order, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
    ck_assert_int_eq(otd_map_depth_space(1, 4, depth, 2, "DCR", &m, err, sizeof err), OTD_OK);
    ck_assert_int_eq(m.order, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
    ck_assert_int_eq(otd_map_depth_space(1, 4, depth, 2, "CRD", &m, err, sizeof err), OTD_OK);
    ck_assert_int_eq(m.order, DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH);
    ck_assert_int_eq(otd_map_depth_space(1, 4, depth, 2, "crd", &m, err, sizeof err), OTD_INVALID);
    /* SpaceToDepth: DCR always; mode ignored */
    ck_assert_int_eq(otd_map_depth_space(0, 4, space, 2, NULL, &m, err, sizeof err), OTD_OK);
    ck_assert_mem_eq(m.output_sizes, d, sizeof d);
    ck_assert_int_eq(m.order, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
    /* rules */
    ck_assert_int_eq(otd_map_depth_space(1, 3, depth, 2, NULL, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_depth_space(1, 4, depth, 0, NULL, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_depth_space(1, 4, depth, 3, NULL, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_depth_space(0, 4, space, 4, NULL, &m, err, sizeof err), OTD_INVALID);
    const int64_t empty[4] = { 0, 8, 2, 3 }, big[4] = { 1, 4, 0x80000000ll, 1 };
    ck_assert_int_eq(otd_map_depth_space(1, 4, empty, 2, NULL, &m, err, sizeof err), OTD_EMPTY);
    ck_assert_int_eq(otd_map_depth_space(1, 4, big, 2, NULL, &m, err, sizeof err), OTD_UNREPRESENTABLE);
}
END_TEST

START_TEST(concat_desc)
{
    char err[256];
    otd_join_split m;
    const int64_t a[3] = { 2, 1, 3 }, b[3] = { 2, 4, 3 }, c[3] = { 2, 0, 3 };
    const int64_t* dims[3] = { a, b, c };
    const uint32_t ranks[3] = { 3, 3, 3 };
    ck_assert_int_eq(otd_map_concat(3, ranks, dims, -2, &m, err, sizeof err), OTD_OK);
    const uint32_t whole[3] = { 2, 5, 3 }, parts[3] = { 1, 4, 0 };
    ck_assert_uint_eq(m.axis, 1);
    ck_assert_uint_eq(m.part_count, 3);
    ck_assert_mem_eq(m.whole_sizes, whole, sizeof whole);
    ck_assert_mem_eq(m.part_axis_sizes, parts, sizeof parts);
    /* the axis in [-rank, rank); other dimensions and ranks agree */
    ck_assert_int_eq(otd_map_concat(3, ranks, dims, 3, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_concat(3, ranks, dims, -4, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_concat(3, ranks, dims, 0, &m, err, sizeof err), OTD_INVALID);
    const uint32_t mixed[3] = { 3, 2, 3 };
    ck_assert_int_eq(otd_map_concat(3, mixed, dims, 1, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_concat(0, ranks, dims, 1, &m, err, sizeof err), OTD_INVALID);
    /* only empty inputs: nothing to dispatch */
    const int64_t* empties[2] = { c, c };
    ck_assert_int_eq(otd_map_concat(2, ranks, empties, 1, &m, err, sizeof err), OTD_EMPTY);
    /* an axis size beyond UINT32 */
    const int64_t big[1] = { 0xFFFFFFFFll };
    const int64_t* bigs[2] = { big, big };
    const uint32_t ones[2] = { 1, 1 };
    ck_assert_int_eq(otd_map_concat(2, ones, bigs, 0, &m, err, sizeof err), OTD_UNREPRESENTABLE);
}
END_TEST

START_TEST(split_desc)
{
    char err[256];
    otd_join_split m;
    const int64_t dims[2] = { 3, 7 };
    const int64_t split[3] = { 2, 0, 5 };
    ck_assert_int_eq(otd_map_split(2, dims, -1, 3, split, 3, 0, &m, err, sizeof err), OTD_OK);
    const uint32_t parts[3] = { 2, 0, 5 };
    ck_assert_uint_eq(m.axis, 1);
    ck_assert_uint_eq(m.part_count, 3);
    ck_assert_mem_eq(m.part_axis_sizes, parts, sizeof parts);
    /* 'split': one value per output, none negative, summing to the axis size */
    ck_assert_int_eq(otd_map_split(2, dims, 1, 2, split, 3, 0, &m, err, sizeof err), OTD_INVALID);
    const int64_t short_sum[3] = { 2, 0, 4 }, negative[3] = { 8, -1, 0 };
    ck_assert_int_eq(otd_map_split(2, dims, 1, 3, short_sum, 3, 0, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_split(2, dims, 1, 3, negative, 3, 0, &m, err, sizeof err), OTD_INVALID);
    /* absent: equal parts, which must divide */
    ck_assert_int_eq(otd_map_split(2, dims, 0, 3, NULL, 0, 0, &m, err, sizeof err), OTD_OK);
    const uint32_t ones[3] = { 1, 1, 1 };
    ck_assert_mem_eq(m.part_axis_sizes, ones, sizeof ones);
    ck_assert_int_eq(otd_map_split(2, dims, 1, 3, NULL, 0, 0, &m, err, sizeof err), OTD_INVALID);
    /* num_outputs (opset 18): ceil parts, the last what remains */
    ck_assert_int_eq(otd_map_split(2, dims, 1, 3, NULL, 0, 3, &m, err, sizeof err), OTD_OK);
    const uint32_t uneven[3] = { 3, 3, 1 };
    ck_assert_mem_eq(m.part_axis_sizes, uneven, sizeof uneven);
    ck_assert_int_eq(otd_map_split(2, dims, 1, 2, NULL, 0, 3, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_split(2, dims, 1, 3, split, 3, 3, &m, err, sizeof err), OTD_INVALID);
    const int64_t six[1] = { 6 }, five[1] = { 5 };
    ck_assert_int_eq(otd_map_split(1, six, 0, 4, NULL, 0, 4, &m, err, sizeof err), OTD_OK); /* 2, 2, 2, 0 */
    ck_assert_uint_eq(m.part_axis_sizes[3], 0);
    ck_assert_int_eq(otd_map_split(1, five, 0, 4, NULL, 0, 4, &m, err, sizeof err), OTD_INVALID); /* 2 * 3 > 5 */
    /* axis, outputs, empty input */
    ck_assert_int_eq(otd_map_split(2, dims, 2, 1, NULL, 0, 0, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_split(2, dims, 1, 0, NULL, 0, 0, &m, err, sizeof err), OTD_INVALID);
    const int64_t empty[2] = { 0, 7 };
    ck_assert_int_eq(otd_map_split(2, empty, 1, 1, NULL, 0, 0, &m, err, sizeof err), OTD_EMPTY);
}
END_TEST

/* Range's element count (ONNX: max(ceil((limit - start) / delta), 0)),
 * ConstantOfShape's value and shape, Expand's broadcast. */
START_TEST(fill_and_expand_desc)
{
    char err[256];
    otd_fill f;
    int32_t s = 10, l = 4, d = -3; /* 10, 7: two elements */
    ck_assert_int_eq(otd_map_range(TP_INT32, &s, &l, &d, &f, err, sizeof err), OTD_OK);
    ck_assert(f.sequence && f.type == DML_TENSOR_DATA_TYPE_INT32 && f.rank == 1 && f.output_sizes[0] == 2);
    ck_assert_int_eq(f.start.Int32, 10);
    ck_assert_int_eq(f.delta.Int32, -3);
    l = 10;
    ck_assert_int_eq(otd_map_range(TP_INT32, &s, &l, &d, &f, err, sizeof err), OTD_EMPTY);
    d = 0;
    ck_assert_int_eq(otd_map_range(TP_INT32, &s, &l, &d, &f, err, sizeof err), OTD_INVALID);
    int64_t s64 = INT64_MIN, l64 = INT64_MAX, d64 = INT64_MAX; /* a span above 2^63: still exact */
    ck_assert_int_eq(otd_map_range(TP_INT64, &s64, &l64, &d64, &f, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(f.output_sizes[0], 3);
    float fs = 0.0f, fl = 1.0f, fd = 0.3f; /* ceil(3.33) = 4 */
    ck_assert_int_eq(otd_map_range(TP_FLOAT, &fs, &fl, &fd, &f, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(f.output_sizes[0], 4);
    ck_assert_int_eq(otd_map_range(TP_UINT8, &fs, &fl, &fd, &f, err, sizeof err), OTD_INVALID);

    int64_t shape[3] = { 2, 3, 4 };
    uint16_t half_one = 0x3C00;
    ck_assert_int_eq(otd_map_constant_of_shape(3, shape, TP_FLOAT16, &half_one, &f, err, sizeof err), OTD_OK);
    ck_assert(!f.sequence && f.type == DML_TENSOR_DATA_TYPE_FLOAT16 && f.rank == 3 && f.output_sizes[2] == 4);
    ck_assert_uint_eq(f.start.UInt16, 0x3C00);
    ck_assert_int_eq(otd_map_constant_of_shape(0, shape, TP_FLOAT, NULL, &f, err, sizeof err), OTD_OK); /* scalar */
    ck_assert(f.rank == 1 && f.output_sizes[0] == 1 && f.type == DML_TENSOR_DATA_TYPE_FLOAT32 && f.start.UInt32 == 0);
    shape[1] = 0;
    ck_assert_int_eq(otd_map_constant_of_shape(3, shape, TP_FLOAT, NULL, &f, err, sizeof err), OTD_EMPTY);
    shape[1] = -1;
    ck_assert_int_eq(otd_map_constant_of_shape(3, shape, TP_FLOAT, NULL, &f, err, sizeof err), OTD_INVALID);

    otd_expand e;
    int64_t dims[2] = { 3, 1 }, to[3] = { 2, 1, 6 };
    ck_assert_int_eq(otd_map_expand(2, dims, 3, to, &e, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(e.rank, 3);
    ck_assert(e.output_sizes[0] == 2 && e.output_sizes[1] == 3 && e.output_sizes[2] == 6);
    ck_assert(e.input_strides[0] == 0 && e.input_strides[1] == 1 && e.input_strides[2] == 0);
    ck_assert_uint_eq(e.input_elements, 3);
    to[2] = 5;
    dims[1] = 4;
    ck_assert_int_eq(otd_map_expand(2, dims, 3, to, &e, err, sizeof err), OTD_INVALID);
}
END_TEST

/* Cast / CastLike: the eleven types and BOOL in; BOOL out, STRING and
 * BFLOAT16 (16) unrepresentable; a scalar as {1}; empty inputs; and which
 * elements ONNX leaves undefined (float -> integer: NaN, infinite, out of
 * range after truncation). */
START_TEST(cast_desc)
{
    char err[256];
    otd_cast m;
    const int64_t dims[3] = { 2, 3, 4 };
    ck_assert_int_eq(otd_map_cast(3, dims, TP_FLOAT, TP_FLOAT16, &m, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(m.rank, 3);
    ck_assert_uint_eq(m.sizes[2], 4);
    ck_assert_int_eq(m.input_type, DML_TENSOR_DATA_TYPE_FLOAT32);
    ck_assert_int_eq(m.output_type, DML_TENSOR_DATA_TYPE_FLOAT16);
    ck_assert_int_eq(otd_map_cast(0, NULL, TP_BOOL, TP_INT64, &m, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(m.rank, 1);
    ck_assert_uint_eq(m.sizes[0], 1);
    ck_assert_int_eq(m.input_type, DML_TENSOR_DATA_TYPE_UINT8);
    ck_assert_int_eq(otd_map_cast(3, dims, TP_FLOAT, TP_BOOL, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    ck_assert_ptr_nonnull(strstr(err, "BOOL"));
    ck_assert_int_eq(otd_map_cast(3, dims, TP_STRING, TP_FLOAT, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    ck_assert_int_eq(otd_map_cast(3, dims, TP_FLOAT, TP_BFLOAT16, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    const int64_t empty[2] = { 3, 0 };
    ck_assert_int_eq(otd_map_cast(2, empty, TP_INT8, TP_FLOAT, &m, err, sizeof err), OTD_EMPTY);

    ck_assert_int_eq(otd_map_cast(3, dims, TP_FLOAT, TP_INT8, &m, err, sizeof err), OTD_OK);
    const float defined[] = { 127.9f, -128.9f, -0.0f, 0.5f };
    const float undefined[] = { 128.0f, -129.0f, NAN, INFINITY, -INFINITY, 1e30f };
    for (size_t i = 0; i < sizeof defined / sizeof *defined; ++i)
        ck_assert_msg(!otd_cast_onnx_undefined(&m, &defined[i]), "%g", (double)defined[i]);
    for (size_t i = 0; i < sizeof undefined / sizeof *undefined; ++i)
        ck_assert_msg(otd_cast_onnx_undefined(&m, &undefined[i]), "%g", (double)undefined[i]);
    ck_assert_int_eq(otd_map_cast(3, dims, TP_DOUBLE, TP_UINT64, &m, err, sizeof err), OTD_OK);
    const double d[] = { -0.99, 18446744073709549568.0, -1.0, 18446744073709551616.0 };
    ck_assert(!otd_cast_onnx_undefined(&m, &d[0]) && !otd_cast_onnx_undefined(&m, &d[1]));
    ck_assert(otd_cast_onnx_undefined(&m, &d[2]) && otd_cast_onnx_undefined(&m, &d[3]));
    ck_assert_int_eq(otd_map_cast(3, dims, TP_FLOAT16, TP_UINT8, &m, err, sizeof err), OTD_OK);
    const uint16_t h[] = { 0x5BF8 /* 255 */, 0x5C00 /* 256 */, 0x7E00 /* NaN */, 0xBBFF /* -0.9995 */ };
    ck_assert(!otd_cast_onnx_undefined(&m, &h[0]) && otd_cast_onnx_undefined(&m, &h[1]));
    ck_assert(otd_cast_onnx_undefined(&m, &h[2]) && !otd_cast_onnx_undefined(&m, &h[3]));
    ck_assert_int_eq(otd_map_cast(3, dims, TP_INT64, TP_UINT8, &m, err, sizeof err), OTD_OK);
    const int64_t wide = 1000; /* integers wrap, as ONNX says */
    ck_assert(!otd_cast_onnx_undefined(&m, &wide));
    ck_assert_int_eq(otd_map_cast(3, dims, TP_DOUBLE, TP_FLOAT16, &m, err, sizeof err), OTD_OK);
    const double big = 1e300;
    ck_assert(!otd_cast_onnx_undefined(&m, &big));
}
END_TEST

static void sizes_are(const otd_indexed_tensor* t, uint32_t rank, const uint32_t* want)
{
    for (uint32_t i = 0; i < rank; ++i)
        ck_assert_msg(t->sizes[i] == want[i], "sizes[%u] = %u, expected %u", i, t->sizes[i], want[i]);
}

START_TEST(gather_desc)
{
    char err[256];
    otd_indexed m;
    /* data {5,4,3}, indices {2,6}, axis -2: R = r + q - 1 = 4, right-aligned. */
    const int64_t data[3] = { 5, 4, 3 }, idx[2] = { 2, 6 };
    ck_assert_int_eq(otd_map_gather(3, data, 2, idx, -2, TP_FLOAT, TP_INT64, &m, err, sizeof err), OTD_OK);
    ck_assert_int_eq(m.op, DML_OPERATOR_GATHER);
    ck_assert_uint_eq(m.rank, 4);
    ck_assert_uint_eq(m.axis, 2);
    ck_assert_uint_eq(m.index_dimensions, 2);
    sizes_are(&m.inputs[0], 4, (const uint32_t[]){ 1, 5, 4, 3 });
    sizes_are(&m.inputs[1], 4, (const uint32_t[]){ 1, 1, 2, 6 });
    sizes_are(&m.output, 4, (const uint32_t[]){ 5, 2, 6, 3 });
    ck_assert_uint_eq(m.onnx_rank, 4);
    ck_assert_int_eq(m.inputs[1].type, DML_TENSOR_DATA_TYPE_INT64);
    /* A scalar index: the axis disappears; the ONNX output is a scalar for 1-D data. */
    const int64_t d1[1] = { 4 };
    ck_assert_int_eq(otd_map_gather(1, d1, 0, NULL, 0, TP_INT8, TP_INT32, &m, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(m.rank, 1);
    ck_assert_uint_eq(m.index_dimensions, 0);
    ck_assert_uint_eq(m.onnx_rank, 0);
    ck_assert_uint_eq(m.output.sizes[0], 1);
    ck_assert_uint_eq(m.inputs[1].elements, 1);
    /* Rank 5 data and rank 5 indices need 9 dimensions. */
    const int64_t d5[5] = { 2, 2, 2, 2, 2 };
    ck_assert_int_eq(otd_map_gather(5, d5, 5, d5, 0, TP_FLOAT, TP_INT64, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    ck_assert_int_eq(otd_map_gather(3, data, 2, idx, 3, TP_FLOAT, TP_INT64, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_gather(3, data, 2, idx, 0, TP_FLOAT, TP_FLOAT, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_gather(3, data, 2, idx, 0, TP_STRING, TP_INT64, &m, err, sizeof err),
                     OTD_UNREPRESENTABLE);
    /* Empty indices: an empty output; empty data with indices: nothing DirectML can bind. */
    const int64_t none[2] = { 2, 0 }, empty_data[1] = { 0 };
    ck_assert_int_eq(otd_map_gather(3, data, 2, none, 0, TP_FLOAT, TP_INT64, &m, err, sizeof err), OTD_EMPTY);
    ck_assert_int_eq(otd_map_gather(1, empty_data, 2, idx, 0, TP_FLOAT, TP_INT64, &m, err, sizeof err),
                     OTD_UNREPRESENTABLE);
}
END_TEST

START_TEST(gather_elements_nd_desc)
{
    char err[256];
    otd_indexed m;
    /* Indices smaller than the data off the axis: a sub-view with the data's strides. */
    const int64_t data[2] = { 3, 4 }, idx[2] = { 2, 5 }, big[2] = { 4, 1 };
    ck_assert_int_eq(otd_map_gather_elements(2, data, 2, idx, 1, TP_UINT16, TP_INT32, &m, err, sizeof err), OTD_OK);
    sizes_are(&m.inputs[0], 2, (const uint32_t[]){ 2, 4 });
    ck_assert(m.inputs[0].strided);
    ck_assert_uint_eq(m.inputs[0].strides[0], 4);
    ck_assert_uint_eq(m.inputs[0].strides[1], 1);
    ck_assert_uint_eq(m.inputs[0].elements, 12);
    sizes_are(&m.output, 2, (const uint32_t[]){ 2, 5 });
    ck_assert_int_eq(otd_map_gather_elements(2, data, 2, big, 1, TP_UINT16, TP_INT32, &m, err, sizeof err),
                     OTD_INVALID);
    ck_assert_int_eq(otd_map_gather_elements(2, data, 1, idx, 1, TP_UINT16, TP_INT32, &m, err, sizeof err),
                     OTD_INVALID);
    /* GatherND, batch_dims 1: data {2,3,4}, indices {2,5,2} -> {2,5}. */
    const int64_t nd_data[3] = { 2, 3, 4 }, nd_idx[3] = { 2, 5, 2 }, nd_long[3] = { 2, 5, 3 }, nd_batch[3] = { 3, 5, 1 };
    ck_assert_int_eq(otd_map_gather_nd(3, nd_data, 3, nd_idx, 1, TP_DOUBLE, TP_INT64, &m, err, sizeof err), OTD_OK);
    ck_assert_int_eq(m.op, DML_OPERATOR_GATHER_ND1);
    ck_assert_uint_eq(m.rank, 3);
    ck_assert_uint_eq(m.input_dimension_count, 3);
    ck_assert_uint_eq(m.indices_dimension_count, 3);
    ck_assert_uint_eq(m.batch_dimension_count, 1);
    sizes_are(&m.output, 3, (const uint32_t[]){ 1, 2, 5 });
    ck_assert_uint_eq(m.onnx_rank, 2);
    ck_assert_int_eq(otd_map_gather_nd(3, nd_data, 3, nd_long, 1, TP_DOUBLE, TP_INT64, &m, err, sizeof err),
                     OTD_INVALID);
    ck_assert_int_eq(otd_map_gather_nd(3, nd_data, 3, nd_batch, 1, TP_DOUBLE, TP_INT64, &m, err, sizeof err),
                     OTD_INVALID);
    ck_assert_int_eq(otd_map_gather_nd(3, nd_data, 3, nd_idx, 3, TP_DOUBLE, TP_INT64, &m, err, sizeof err),
                     OTD_INVALID);
    ck_assert_int_eq(otd_map_gather_nd(3, nd_data, 3, nd_idx, 0, TP_DOUBLE, TP_INT32, &m, err, sizeof err),
                     OTD_INVALID); /* ONNX: INT64 only */
    /* A full tuple: a rank-1 output of the tuples' count. */
    const int64_t full[2] = { 7, 3 };
    ck_assert_int_eq(otd_map_gather_nd(3, nd_data, 2, full, 0, TP_DOUBLE, TP_INT64, &m, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(m.onnx_rank, 1);
    sizes_are(&m.output, 3, (const uint32_t[]){ 1, 1, 7 });
}
END_TEST

START_TEST(scatter_desc)
{
    char err[256];
    otd_indexed m;
    const int64_t data[2] = { 3, 4 }, idx[2] = { 2, 5 }, same[2] = { 3, 2 };
    ck_assert_int_eq(otd_map_scatter_elements(2, data, 2, same, 2, same, 1, NULL, TP_FLOAT, TP_INT64, TP_FLOAT, &m,
                                              err, sizeof err), OTD_OK);
    ck_assert(!m.prefill_output);
    ck_assert_uint_eq(m.input_count, 3);
    sizes_are(&m.output, 2, (const uint32_t[]){ 3, 4 });
    /* Indices smaller than the data: input and output are one sub-view over a prefilled output. */
    const int64_t small[2] = { 2, 2 };
    ck_assert_int_eq(otd_map_scatter_elements(2, data, 2, small, 2, small, 1, "none", TP_FLOAT, TP_INT64, TP_FLOAT,
                                              &m, err, sizeof err), OTD_OK);
    ck_assert(m.prefill_output);
    sizes_are(&m.inputs[0], 2, (const uint32_t[]){ 2, 4 });
    sizes_are(&m.output, 2, (const uint32_t[]){ 2, 4 });
    ck_assert_uint_eq(m.output.strides[0], 4);
    ck_assert_uint_eq(m.output.elements, 12);
    ck_assert_uint_eq(m.onnx_dims[0], 3);
    /* The axis may hold more updates than the data (several to one element); no other dimension may. */
    ck_assert_int_eq(otd_map_scatter_elements(2, data, 2, idx, 2, idx, 1, NULL, TP_FLOAT, TP_INT64, TP_FLOAT, &m,
                                              err, sizeof err), OTD_OK);
    const int64_t tall[2] = { 4, 2 };
    ck_assert_int_eq(otd_map_scatter_elements(2, data, 2, tall, 2, tall, 1, NULL, TP_FLOAT, TP_INT64, TP_FLOAT, &m,
                                              err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_scatter_elements(2, data, 2, same, 2, same, 1, "add", TP_FLOAT, TP_INT64, TP_FLOAT, &m,
                                              err, sizeof err), OTD_UNREPRESENTABLE);
    ck_assert_int_eq(otd_map_scatter_elements(2, data, 2, same, 2, same, 1, "sum", TP_FLOAT, TP_INT64, TP_FLOAT, &m,
                                              err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_scatter_elements(2, data, 2, same, 2, same, 1, NULL, TP_FLOAT, TP_INT64, TP_DOUBLE, &m,
                                              err, sizeof err), OTD_INVALID);
    /* ScatterND: data {4,5,6}, indices {3,2}, updates {3,6}. */
    const int64_t nd[3] = { 4, 5, 6 }, nidx[2] = { 3, 2 }, upd[2] = { 3, 6 }, bad[2] = { 3, 5 };
    ck_assert_int_eq(otd_map_scatter_nd(3, nd, 2, nidx, 2, upd, NULL, TP_INT8, TP_INT64, TP_INT8, &m, err, sizeof err),
                     OTD_OK);
    ck_assert_uint_eq(m.rank, 3);
    sizes_are(&m.inputs[1], 3, (const uint32_t[]){ 1, 3, 2 });
    sizes_are(&m.inputs[2], 3, (const uint32_t[]){ 1, 3, 6 });
    ck_assert_uint_eq(m.input_dimension_count, 3);
    ck_assert_uint_eq(m.indices_dimension_count, 2);
    ck_assert_int_eq(otd_map_scatter_nd(3, nd, 2, nidx, 2, bad, NULL, TP_INT8, TP_INT64, TP_INT8, &m, err, sizeof err),
                     OTD_INVALID);
    ck_assert_int_eq(otd_map_scatter_nd(3, nd, 2, nidx, 2, upd, "mul", TP_INT8, TP_INT64, TP_INT8, &m, err,
                                        sizeof err), OTD_UNREPRESENTABLE);
}
END_TEST

START_TEST(one_hot_where_desc)
{
    char err[256];
    otd_indexed m;
    const int64_t idx[2] = { 2, 3 };
    ck_assert_int_eq(otd_map_one_hot(2, idx, 5, 2, -1, TP_FLOAT, TP_INT32, &m, err, sizeof err), OTD_OK);
    ck_assert(m.convert_indices);
    ck_assert_int_eq(m.inputs[0].type, DML_TENSOR_DATA_TYPE_INT64);
    ck_assert_uint_eq(m.axis, 2);
    sizes_are(&m.inputs[0], 3, (const uint32_t[]){ 2, 3, 1 });
    sizes_are(&m.inputs[1], 3, (const uint32_t[]){ 1, 1, 2 });
    sizes_are(&m.output, 3, (const uint32_t[]){ 2, 3, 5 });
    ck_assert_int_eq(m.output.type, DML_TENSOR_DATA_TYPE_INT32);
    ck_assert_int_eq(otd_map_one_hot(2, idx, 5, 2, 0, TP_INT64, TP_FLOAT, &m, err, sizeof err), OTD_OK);
    ck_assert(!m.convert_indices);
    sizes_are(&m.inputs[0], 3, (const uint32_t[]){ 1, 2, 3 });
    sizes_are(&m.output, 3, (const uint32_t[]){ 5, 2, 3 });
    ck_assert_int_eq(otd_map_one_hot(2, idx, 5, 2, 3, TP_INT64, TP_FLOAT, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_one_hot(2, idx, 0, 2, 0, TP_INT64, TP_FLOAT, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_one_hot(2, idx, 5, 3, 0, TP_INT64, TP_FLOAT, &m, err, sizeof err), OTD_INVALID);
    ck_assert_int_eq(otd_map_one_hot(0, NULL, 5, 2, 0, TP_INT64, TP_FLOAT, &m, err, sizeof err), OTD_INVALID);
    const int64_t r8[8] = { 1, 1, 1, 1, 1, 1, 1, 2 };
    ck_assert_int_eq(otd_map_one_hot(8, r8, 5, 2, 0, TP_INT64, TP_FLOAT, &m, err, sizeof err), OTD_UNREPRESENTABLE);
    /* Host conversion of index types DirectML's ONE_HOT lacks. */
    const float f[3] = { 2.7f, -2.7f, NAN };
    const uint64_t big = UINT64_MAX;
    const int8_t neg = -3;
    ck_assert_int_eq(otd_one_hot_index(TP_FLOAT, &f[0]), 2);
    ck_assert_int_eq(otd_one_hot_index(TP_FLOAT, &f[1]), -2);
    ck_assert_int_eq(otd_one_hot_index(TP_FLOAT, &f[2]), INT64_MAX);
    ck_assert_int_eq(otd_one_hot_index(TP_UINT64, &big), INT64_MAX);
    ck_assert_int_eq(otd_one_hot_index(TP_INT8, &neg), -3);

    /* Where: condition {3,1}, X {4}, Y a scalar -> {3,4}, strides 0 where each broadcasts. */
    const int64_t c[2] = { 3, 1 }, x[1] = { 4 }, bad[1] = { 2 };
    const uint32_t ranks[3] = { 2, 1, 0 };
    const int64_t* dims[3] = { c, x, NULL };
    const int32_t types[3] = { TP_BOOL, TP_DOUBLE, TP_DOUBLE };
    ck_assert_int_eq(otd_map_where(ranks, dims, types, &m, err, sizeof err), OTD_OK);
    ck_assert_int_eq(m.op, DML_OPERATOR_ELEMENT_WISE_IF);
    ck_assert_int_eq(m.inputs[0].type, DML_TENSOR_DATA_TYPE_UINT8);
    sizes_are(&m.output, 2, (const uint32_t[]){ 3, 4 });
    for (uint32_t t = 0; t < 3; ++t)
        sizes_are(&m.inputs[t], 2, (const uint32_t[]){ 3, 4 });
    ck_assert_uint_eq(m.inputs[0].strides[0], 1);
    ck_assert_uint_eq(m.inputs[0].strides[1], 0);
    ck_assert_uint_eq(m.inputs[1].strides[0], 0);
    ck_assert_uint_eq(m.inputs[1].strides[1], 1);
    ck_assert_uint_eq(m.inputs[2].strides[0], 0);
    ck_assert_uint_eq(m.inputs[2].strides[1], 0);
    ck_assert_uint_eq(m.inputs[2].elements, 1);
    const int64_t* bad_dims[3] = { c, bad, x };
    const uint32_t bad_ranks[3] = { 2, 1, 1 };
    ck_assert_int_eq(otd_map_where(bad_ranks, bad_dims, types, &m, err, sizeof err), OTD_INVALID);
    const int32_t int_cond[3] = { TP_INT32, TP_DOUBLE, TP_DOUBLE };
    ck_assert_int_eq(otd_map_where(ranks, dims, int_cond, &m, err, sizeof err), OTD_INVALID);
    /* All scalars: one element, rank 1 in DirectML, 0 in ONNX. */
    const uint32_t scalars[3] = { 0, 0, 0 };
    ck_assert_int_eq(otd_map_where(scalars, dims, types, &m, err, sizeof err), OTD_OK);
    ck_assert_uint_eq(m.rank, 1);
    ck_assert_uint_eq(m.onnx_rank, 0);
}
END_TEST

START_TEST(dtype_table)
{
    static const struct { int32_t onnx; DML_TENSOR_DATA_TYPE dml; } t[] = {
        { TP_FLOAT, DML_TENSOR_DATA_TYPE_FLOAT32 }, { TP_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT16 },
        { TP_DOUBLE, DML_TENSOR_DATA_TYPE_FLOAT64 }, { TP_INT8, DML_TENSOR_DATA_TYPE_INT8 },
        { TP_INT16, DML_TENSOR_DATA_TYPE_INT16 }, { TP_INT32, DML_TENSOR_DATA_TYPE_INT32 },
        { TP_INT64, DML_TENSOR_DATA_TYPE_INT64 }, { TP_UINT8, DML_TENSOR_DATA_TYPE_UINT8 },
        { TP_UINT16, DML_TENSOR_DATA_TYPE_UINT16 }, { TP_UINT32, DML_TENSOR_DATA_TYPE_UINT32 },
        { TP_UINT64, DML_TENSOR_DATA_TYPE_UINT64 }, { TP_BOOL, DML_TENSOR_DATA_TYPE_UINT8 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
        DML_TENSOR_DATA_TYPE d = DML_TENSOR_DATA_TYPE_UNKNOWN;
        ck_assert_int_eq(otd_map_dtype(t[i].onnx, &d), OTD_OK);
        ck_assert_int_eq(d, t[i].dml);
    }
    DML_TENSOR_DATA_TYPE d;
    ck_assert_int_eq(otd_map_dtype(TP_STRING, &d), OTD_UNREPRESENTABLE);
    ck_assert_int_eq(otd_map_dtype(16 /* BFLOAT16 */, &d), OTD_UNREPRESENTABLE);
}
END_TEST

START_TEST(tensorproto_wire)
{
    char err[256];
    tp_tensor t;
    /* dims 2,3 unpacked; data_type INT64; int64_data packed {1,-1,300,0,5,6}. */
    const uint8_t a[] = { 0x08, 2, 0x08, 3, 0x10, 7, 0x3a, 16, 1,
                          0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                          0xac, 0x02, 0, 5, 6 };
    ck_assert_int_eq(tp_parse_tensor(a, sizeof a, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.rank, 2);
    ck_assert_uint_eq(t.count, 6);
    ck_assert_int_eq(tp_get_i64(&t, 1), -1);
    ck_assert_int_eq(tp_get_i64(&t, 2), 300);
    tp_tensor_free(&t);
    /* dims packed {2}; FLOAT; float_data unpacked (fixed32 each); a name (field 8). */
    const uint8_t b[] = { 0x0a, 1, 2, 0x10, 1, 0x25, 0, 0, 0x80, 0x3f, 0x25, 0, 0, 0, 0x40,
                          0x42, 1, 'x' };
    ck_assert_int_eq(tp_parse_tensor(b, sizeof b, &t, err, sizeof err), 0);
    float f[2];
    memcpy(f, t.data, sizeof f);
    ck_assert(f[0] == 1.0f && f[1] == 2.0f);
    ck_assert_str_eq(t.name, "x");
    tp_tensor_free(&t);
    /* raw_data INT32 scalar (no dims). */
    const uint8_t c[] = { 0x10, 6, 0x4a, 4, 0xfe, 0xff, 0xff, 0xff };
    ck_assert_int_eq(tp_parse_tensor(c, sizeof c, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.rank, 0);
    ck_assert_int_eq(tp_get_i64(&t, 0), -2);
    tp_tensor_free(&t);
    /* raw_data of the wrong length; truncated varint. */
    const uint8_t d[] = { 0x08, 2, 0x10, 6, 0x4a, 4, 0, 0, 0, 0 };
    ck_assert_int_eq(tp_parse_tensor(d, sizeof d, &t, err, sizeof err), -1);
    const uint8_t e[] = { 0x08, 0x80 };
    ck_assert_int_eq(tp_parse_tensor(e, sizeof e, &t, err, sizeof err), -1);
    /* UINT64 via uint64_data (field 11), DOUBLE via double_data (field 10, packed). */
    const uint8_t g[] = { 0x08, 1, 0x10, 13, 0x58, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    ck_assert_int_eq(tp_parse_tensor(g, sizeof g, &t, err, sizeof err), 0);
    ck_assert_int_eq(tp_get_i64(&t, 0), -1);
    tp_tensor_free(&t);
    const uint8_t h[] = { 0x08, 1, 0x10, 11, 0x52, 8, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f };
    ck_assert_int_eq(tp_parse_tensor(h, sizeof h, &t, err, sizeof err), 0);
    double dv;
    memcpy(&dv, t.data, 8);
    ck_assert(dv == 1.0);
    tp_tensor_free(&t);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("conformance_mapping");
    TCase* tc = tcase_create("mapping");
    tcase_add_test(tc, slice_axis_rules);
    tcase_add_test(tc, slice_windows);
    tcase_add_test(tc, reverse_sequence_desc);
    tcase_add_test(tc, tile_desc);
    tcase_add_test(tc, pad_desc);
    tcase_add_test(tc, depth_space_desc);
    tcase_add_test(tc, concat_desc);
    tcase_add_test(tc, split_desc);
    tcase_add_test(tc, fill_and_expand_desc);
    tcase_add_test(tc, cast_desc);
    tcase_add_test(tc, gather_desc);
    tcase_add_test(tc, gather_elements_nd_desc);
    tcase_add_test(tc, scatter_desc);
    tcase_add_test(tc, one_hot_where_desc);
    tcase_add_test(tc, dtype_table);
    tcase_add_test(tc, tensorproto_wire);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
