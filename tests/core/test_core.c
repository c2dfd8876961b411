/*
 * Core internals: DMLCalcBufferTensorSize, output overlap detection, and plan
 * normalisation. Plans are checked two ways: their shape for the cases the
 * normalisation exists for, and their meaning, by interpreting random plans
 * naively and comparing with the spec's pseudocode evaluated on the original
 * coordinates.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/ops/op.h"
#include "core/backend.h"
#include "core/plan_build.h"

/* ---- small helpers ------------------------------------------------------ */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) /* uniform-ish in [0, n) */
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng_state >> 33) % n);
}

typedef struct tensor_spec {
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
    uint32_t sizes[8];
    uint32_t strides[8];
} tensor_spec;

static void make_tensor(tensor_spec* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides)
        memcpy(t->strides, strides, rank * sizeof *strides);
    t->buffer.DataType = type;
    t->buffer.DimensionCount = rank;
    t->buffer.Sizes = t->sizes;
    t->buffer.Strides = strides ? t->strides : NULL;
    t->buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, rank, t->sizes, t->buffer.Strides);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

/* The public helper is the dispatcher's; the core's is what it forwards to. */
uint64_t DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides)
{
    uint64_t size;
    return dml_calc_buffer_tensor_size(type, rank, sizes, strides, &size) ? size : 0;
}

/* ---- DMLCalcBufferTensorSize ------------------------------------------- */

START_TEST(calc_size_follows_the_formula)
{
    const uint32_t s4[] = { 1, 1, 3, 4 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, s4, NULL), 48);
    const uint32_t s3[] = { 3 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 1, s3, NULL), 8); /* 6 -> 8 */
    const uint32_t s5[] = { 5 };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, s5, NULL), 8);
    const uint32_t sizes[] = { 2, 3 }, strides[] = { 0, 2 }; /* last = 4 */
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT64, 2, sizes, strides), 40);
    const uint32_t huge[] = { 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF }, big_strides[] = { 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF };
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT8, 3, huge, big_strides), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT8, 3, huge, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 1, s3, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 0, s3, NULL), 0);
    ck_assert_uint_eq(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 1, NULL, NULL), 0);
}
END_TEST

/* ---- output overlap ----------------------------------------------------- */

/* Brute force: do two coordinates share an address? */
static int brute_force_overlap(uint32_t rank, const uint32_t* sizes, const uint32_t* strides)
{
    uint64_t count = 1;
    for (uint32_t i = 0; i < rank; ++i)
        count *= sizes[i];
    uint64_t* offsets = malloc(count * sizeof *offsets);
    for (uint64_t e = 0; e < count; ++e) {
        uint64_t rest = e, offset = 0;
        for (uint32_t i = rank; i-- > 0;) {
            offset += (rest % sizes[i]) * strides[i];
            rest /= sizes[i];
        }
        offsets[e] = offset;
    }
    int overlap = 0;
    for (uint64_t a = 0; a < count && !overlap; ++a)
        for (uint64_t b = a + 1; b < count && !overlap; ++b)
            overlap = offsets[a] == offsets[b];
    free(offsets);
    return overlap;
}

START_TEST(output_overlap_matches_brute_force)
{
    rng_state = 12345;
    int overlaps = 0, clean = 0;
    for (int iteration = 0; iteration < 3000; ++iteration) {
        uint32_t rank = 1 + rnd(4), sizes[4], strides[4];
        for (uint32_t i = 0; i < rank; ++i) {
            sizes[i] = 1 + rnd(4);
            strides[i] = rnd(9);
        }
        tensor_spec t;
        make_tensor(&t, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, strides);
        dml_tensor_role role = { "test", "OutputTensor", true };
        dml_tensor out;
        DML_RESULT r = dml_tensor_from_desc(&t.desc, &role, &out);
        int expected = brute_force_overlap(rank, sizes, strides);
        ck_assert_int_eq(r, expected ? DML_E_INVALIDARG : DML_S_OK);
        overlaps += expected;
        clean += !expected;
    }
    ck_assert_int_gt(overlaps, 100); /* the generator exercises both outcomes */
    ck_assert_int_gt(clean, 100);
}
END_TEST

START_TEST(inputs_may_broadcast)
{
    const uint32_t sizes[] = { 4, 4 }, strides[] = { 0, 1 };
    tensor_spec t;
    make_tensor(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, strides);
    dml_tensor_role role = { "test", "InputTensor", false };
    dml_tensor in;
    ck_assert_int_eq(dml_tensor_from_desc(&t.desc, &role, &in), DML_S_OK);
    ck_assert_uint_eq(in.strides[0], 0);
}
END_TEST

/* ---- plan shapes -------------------------------------------------------- */

static dml_plan build(const DML_OPERATOR_DESC* desc)
{
    dml_plan plan;
    DML_RESULT r = dml_plan_from_desc(desc, &plan);
    ck_assert_msg(r == DML_S_OK, "%s", dml_error_last());
    return plan;
}

START_TEST(full_window_copy_merges_to_one_dimension)
{
    const uint32_t sizes[] = { 2, 3, 4, 5 };
    tensor_spec in, out;
    make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    const uint32_t offsets[] = { 0, 0, 0, 0 };
    const int32_t strides[] = { 1, 1, 1, 1 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 4, offsets, sizes, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    dml_plan plan = build(&desc);
    ck_assert_uint_eq(plan.kind, DML_PLAN_GATHER);
    ck_assert_uint_eq(plan.rank, 1);
    ck_assert_uint_eq(plan.sizes[0], 120);
    ck_assert_int_eq(plan.in_strides[0], 1);
    ck_assert_int_eq(plan.out_strides[0], 1);
    ck_assert_uint_eq(plan.index32, 1);
}
END_TEST

START_TEST(reversal_folds_into_a_negative_stride)
{
    const uint32_t in_sizes[] = { 1, 1, 4, 4 }, window[] = { 1, 1, 4, 3 }, out_sizes[] = { 1, 1, 2, 2 };
    tensor_spec in, out;
    make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    const uint32_t offsets[] = { 0, 0, 0, 1 };
    const int32_t strides[] = { 1, 1, -2, 2 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 4, offsets, window, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    dml_plan plan = build(&desc);
    ck_assert_uint_eq(plan.rank, 2); /* unit dimensions dropped */
    ck_assert_int_eq(plan.in_offset, 3 * 4 + 1); /* row 3, column 1 */
    ck_assert_int_eq(plan.in_strides[0], -8);
    ck_assert_int_eq(plan.in_strides[1], 2);
}
END_TEST

START_TEST(permuted_output_is_walked_in_output_order)
{
    /* out[i][j] at j*3 + i: a transposed output; the plan's inner dimension
     * must be the one contiguous in the output. */
    const uint32_t sizes[] = { 3, 5 }, out_strides[] = { 1, 3 };
    tensor_spec in, out;
    make_tensor(&in, DML_TENSOR_DATA_TYPE_UINT16, 2, sizes, NULL);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_UINT16, 2, sizes, out_strides);
    const uint32_t offsets[] = { 0, 0 };
    const int32_t strides[] = { 1, 1 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 2, offsets, sizes, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    dml_plan plan = build(&desc);
    ck_assert_uint_eq(plan.rank, 2);
    ck_assert_int_eq(plan.out_strides[1], 1);
    ck_assert_int_eq(plan.in_strides[1], 5);
}
END_TEST

START_TEST(reverse_subsequences_keeps_its_axis)
{
    const uint32_t sizes[] = { 2, 3, 4, 5 }, len_sizes[] = { 2, 1, 4, 5 };
    tensor_spec in, out, len;
    make_tensor(&in, DML_TENSOR_DATA_TYPE_INT8, 4, sizes, NULL);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_INT8, 4, sizes, NULL);
    make_tensor(&len, DML_TENSOR_DATA_TYPE_UINT64, 4, len_sizes, NULL);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &in.desc, &len.desc, &out.desc, 1 };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };
    dml_plan plan = build(&desc);
    ck_assert_uint_eq(plan.kind, DML_PLAN_REVERSE_SUBSEQUENCES);
    ck_assert_uint_eq(plan.rank, 3); /* {2} {3: axis} {4*5 merged} */
    ck_assert_int_eq(plan.axis, 1);
    ck_assert_uint_eq(plan.axis_size, 3);
    ck_assert_uint_eq(plan.sizes[2], 20);
    ck_assert_int_eq(plan.len_strides[1], 0);
    ck_assert_uint_eq(plan.lengths_element_size, 8);

    /* An axis of size 1 reverses nothing: a plain gather. */
    const uint32_t sizes1[] = { 2, 1, 4, 5 };
    make_tensor(&in, DML_TENSOR_DATA_TYPE_INT8, 4, sizes1, NULL);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_INT8, 4, sizes1, NULL);
    make_tensor(&len, DML_TENSOR_DATA_TYPE_UINT32, 4, sizes1, NULL);
    plan = build(&desc);
    ck_assert_uint_eq(plan.kind, DML_PLAN_GATHER);
    ck_assert_uint_eq(plan.rank, 1);
}
END_TEST

/* 32-bit indexing is chosen on element offsets (kernels scale by the element
 * size in 64 bits): each case puts the largest element offset of one tensor,
 * or the element count, exactly at INT32_MAX (32-bit) and one past (64-bit),
 * for every element size. */
static const DML_TENSOR_DATA_TYPE every_size[] = { DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64 };
#define LAST32 0x7FFFFFFFu

/* SLICE1 copying elements 0 and `stride` of the input (input strided) or
 * into elements 0 and `stride` of the output (output strided). */
static uint32_t index32_of_strided(DML_TENSOR_DATA_TYPE type, uint32_t stride, bool output_strided)
{
    const uint32_t two[] = { 2 }, strided[] = { stride }, offsets[] = { 0 };
    const int32_t steps[] = { 1 };
    tensor_spec in, out;
    make_tensor(&in, type, 1, two, output_strided ? NULL : strided);
    make_tensor(&out, type, 1, two, output_strided ? strided : NULL);
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 1, offsets, two, steps };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    return build(&desc).index32;
}

START_TEST(index32_bounds_element_offsets_not_bytes)
{
    for (size_t t = 0; t < sizeof every_size / sizeof every_size[0]; ++t) {
        for (int side = 0; side < 2; ++side) {
            ck_assert_uint_eq(index32_of_strided(every_size[t], LAST32, side), 1);
            ck_assert_uint_eq(index32_of_strided(every_size[t], LAST32 + 1u, side), 0);
        }
    }
}
END_TEST

/* One element read at input offset `offset` (the plan's in_offset). */
START_TEST(index32_bounds_the_input_offset)
{
    for (size_t t = 0; t < sizeof every_size / sizeof every_size[0]; ++t) {
        for (uint32_t offset = LAST32; offset <= LAST32 + 1u; ++offset) {
            const uint32_t in_sizes[] = { offset + 1u }, one[] = { 1 }, offsets[] = { offset };
            const int32_t steps[] = { 1 };
            tensor_spec in, out;
            make_tensor(&in, every_size[t], 1, in_sizes, NULL);
            make_tensor(&out, every_size[t], 1, one, NULL);
            DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 1, offsets, one, steps };
            DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
            dml_plan plan = build(&desc);
            ck_assert_int_eq(plan.in_offset, (int64_t)offset);
            ck_assert_uint_eq(plan.index32, offset <= LAST32);
        }
    }
}
END_TEST

START_TEST(index32_bounds_the_element_count)
{
    for (size_t t = 0; t < sizeof every_size / sizeof every_size[0]; ++t) {
        for (uint32_t count = LAST32; count <= LAST32 + 1u; ++count) {
            const uint32_t sizes[] = { count }, offsets[] = { 0 };
            const int32_t steps[] = { 1 };
            tensor_spec in, out;
            make_tensor(&in, every_size[t], 1, sizes, NULL);
            make_tensor(&out, every_size[t], 1, sizes, NULL);
            DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 1, offsets, sizes, steps };
            DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
            dml_plan plan = build(&desc);
            ck_assert_uint_eq(plan.element_count, count);
            ck_assert_uint_eq(plan.index32, count <= LAST32);
        }
    }
}
END_TEST

/* The lengths tensor (8-byte elements) is bounded the same way. */
START_TEST(index32_bounds_the_lengths_offsets)
{
    for (uint32_t stride = LAST32; stride <= LAST32 + 1u; ++stride) {
        const uint32_t sizes[] = { 2, 2 }, len_sizes[] = { 2, 1 }, len_strides[] = { stride, 1 };
        tensor_spec in, out, len;
        make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
        make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
        make_tensor(&len, DML_TENSOR_DATA_TYPE_UINT64, 2, len_sizes, len_strides);
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &in.desc, &len.desc, &out.desc, 1 };
        DML_OPERATOR_DESC desc = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };
        dml_plan plan = build(&desc);
        ck_assert_uint_eq(plan.kind, DML_PLAN_REVERSE_SUBSEQUENCES);
        ck_assert_uint_eq(plan.index32, stride <= LAST32);
    }
}
END_TEST

/* ---- plan meaning ------------------------------------------------------- */

/* Element offsets (not bytes) per output element, by the spec's pseudocode on
 * the original coordinates. lengths_value: a function of the lengths offset. */
static uint64_t lengths_value(uint64_t offset)
{
    return (offset * 7 + 3) % 6; /* 0..5: covers 0, 1, in range and above small axes */
}

typedef struct expected_reads {
    uint64_t count;
    int64_t* in;  /* by output element offset */
    uint8_t* written;
} expected_reads;

/* The operator as its desc says it (SLICE1's window, or REVERSE_SUBSEQUENCES
 * on axis), straight from the desc's arrays. */
typedef struct spec_case {
    uint32_t rank, axis;
    int reverse;
    const uint32_t *in_sizes, *in_strides, *out_sizes, *out_strides, *len_strides;
    const uint32_t *offsets, *window;
    const int32_t* steps;
} spec_case;

static void spec_reference(const spec_case* k, expected_reads* e, uint64_t out_span)
{
    e->in = calloc(out_span, sizeof *e->in);
    e->written = calloc(out_span, 1);
    uint32_t c[8] = { 0 };
    for (;;) {
        int64_t src = 0, dst = 0;
        if (k->reverse) {
            int64_t len_offset = 0;
            for (uint32_t i = 0; i < k->rank; ++i)
                if (i != k->axis)
                    len_offset += (int64_t)c[i] * (int64_t)k->len_strides[i];
            uint64_t L = lengths_value((uint64_t)len_offset);
            if (L > k->in_sizes[k->axis])
                L = k->in_sizes[k->axis];
            for (uint32_t i = 0; i < k->rank; ++i) {
                uint64_t j = c[i];
                if (i == k->axis && j < L)
                    j = L - 1 - j;
                src += (int64_t)j * (int64_t)k->in_strides[i];
            }
        } else {
            for (uint32_t i = 0; i < k->rank; ++i) {
                int64_t start = (int64_t)k->offsets[i] + (k->steps[i] < 0 ? (int64_t)k->window[i] - 1 : 0);
                src += (start + k->steps[i] * (int64_t)c[i]) * (int64_t)k->in_strides[i];
            }
        }
        for (uint32_t i = 0; i < k->rank; ++i)
            dst += (int64_t)c[i] * (int64_t)k->out_strides[i];
        ck_assert_int_lt(dst, (int64_t)out_span);
        e->in[dst] = src;
        e->written[dst] = 1;
        e->count++;
        uint32_t d = k->rank;
        while (d > 0 && ++c[d - 1] == k->out_sizes[d - 1])
            c[--d] = 0;
        if (d == 0)
            break;
    }
}

/* Interprets the plan as plan.h defines it and checks every write. */
static void check_plan(const dml_plan* plan, const expected_reads* e, uint64_t out_span)
{
    uint8_t* seen = calloc(out_span, 1);
    uint64_t c[8] = { 0 }, count = 0;
    for (;;) {
        int64_t src = plan->in_offset, dst = plan->out_offset, len = plan->len_offset;
        for (uint32_t i = 0; i < plan->rank; ++i) {
            dst += (int64_t)c[i] * plan->out_strides[i];
            len += (int64_t)c[i] * plan->len_strides[i];
        }
        uint64_t L = plan->kind == DML_PLAN_REVERSE_SUBSEQUENCES ? lengths_value((uint64_t)len) : 0;
        if (L > plan->axis_size)
            L = plan->axis_size;
        for (uint32_t i = 0; i < plan->rank; ++i) {
            uint64_t j = c[i];
            if ((int32_t)i == plan->axis && j < L)
                j = L - 1 - j;
            src += (int64_t)j * plan->in_strides[i];
        }
        ck_assert_msg(dst >= 0 && (uint64_t)dst < out_span && e->written[dst] && !seen[dst],
            "plan writes output element %lld wrongly", (long long)dst);
        ck_assert_msg(e->in[dst] == src, "output %lld: plan reads %lld, spec %lld", (long long)dst, (long long)src,
            (long long)e->in[dst]);
        seen[dst] = 1;
        count++;
        uint32_t d = plan->rank;
        while (d > 0 && ++c[d - 1] == plan->sizes[d - 1])
            c[--d] = 0;
        if (d == 0)
            break;
    }
    ck_assert_uint_eq(count, e->count);
    ck_assert_uint_eq(count, plan->element_count);
    free(seen);
}

/* Random strides: packed, padded, broadcast or permuted. */
static void random_layout(uint32_t rank, const uint32_t* sizes, uint32_t* strides, int allow_broadcast)
{
    uint32_t order[8];
    for (uint32_t i = 0; i < rank; ++i)
        order[i] = i;
    if (rnd(3) == 0) /* permute */
        for (uint32_t i = rank; i > 1; --i) {
            uint32_t j = rnd(i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    uint32_t stride = 1 + rnd(2);
    for (uint32_t k = rank; k-- > 0;) {
        uint32_t i = order[k];
        strides[i] = allow_broadcast && rnd(6) == 0 ? 0 : stride;
        stride = stride * sizes[i] + rnd(2);
    }
}

START_TEST(random_plans_mean_what_the_spec_says)
{
    rng_state = 987654321u + (uint64_t)_i;
    for (int iteration = 0; iteration < 400; ++iteration) {
        uint32_t rank = 1 + rnd(6), in_sizes[8], out_sizes[8], in_strides[8], out_strides[8];
        uint32_t offsets[8], window[8];
        int32_t steps[8];
        int reverse = rnd(2);
        uint32_t axis = rnd(rank);
        for (uint32_t i = 0; i < rank; ++i) {
            in_sizes[i] = 1 + rnd(5);
            if (reverse) {
                out_sizes[i] = in_sizes[i];
            } else {
                offsets[i] = rnd(in_sizes[i]);
                window[i] = 1 + rnd(in_sizes[i] - offsets[i]);
                steps[i] = (int32_t)(1 + rnd(3)) * (rnd(2) ? 1 : -1);
                uint32_t reach = 1 + (window[i] - 1) / (uint32_t)abs(steps[i]);
                out_sizes[i] = 1 + rnd(reach);
            }
        }
        random_layout(rank, in_sizes, in_strides, 1);
        random_layout(rank, out_sizes, out_strides, 0);
        uint32_t len_strides[8] = { 0 };
        tensor_spec in, out, len;
        make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, rank, in_sizes, in_strides);
        make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, rank, out_sizes, out_strides);
        DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, rank, offsets, window, steps };
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &in.desc, &len.desc, &out.desc, axis };
        DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
        if (reverse) {
            uint32_t len_sizes[8];
            memcpy(len_sizes, in_sizes, sizeof len_sizes);
            len_sizes[axis] = 1;
            random_layout(rank, len_sizes, len_strides, 1);
            make_tensor(&len, DML_TENSOR_DATA_TYPE_UINT32, rank, len_sizes, len_strides);
            desc = (DML_OPERATOR_DESC){ DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };
        }
        dml_plan plan;
        ck_assert_msg(dml_plan_from_desc(&desc, &plan) == DML_S_OK, "%s", dml_error_last());
        ck_assert_uint_ge(plan.rank, 1);
        ck_assert_uint_le(plan.rank, rank);
        uint64_t span = out.buffer.TotalTensorSizeInBytes / 4;
        expected_reads e = { 0 };
        spec_case k = { rank, axis, reverse, in_sizes, in_strides, out_sizes, out_strides, len_strides, offsets,
            window, steps };
        spec_reference(&k, &e, span);
        check_plan(&plan, &e, span);
        free(e.in);
        free(e.written);
    }
}
END_TEST

/* A TILE-like gather of 16 dimensions that cannot merge: (repeat, size) per
 * input dimension, the repeat reading with stride 0. It runs as several
 * plans (plan_build.h); together they write every output element once,
 * reading what the builder's dimensions say. */
static uint64_t check_tile_like_gather(const uint32_t* sizes, const uint32_t* repeats)
{
    uint64_t in_strides[8], out_strides[8], in_count = 1, out_count = 1;
    for (uint32_t i = 8; i-- > 0;) {
        in_strides[i] = in_count;
        out_strides[i] = out_count;
        in_count *= sizes[i];
        out_count *= (uint64_t)sizes[i] * repeats[i];
    }
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_GATHER, 4);
    for (uint32_t i = 0; i < 8; ++i) {
        ck_assert(dml_plan_builder_add(&b, (dml_plan_dim){ repeats[i], 0, (int64_t)(out_strides[i] * sizes[i]), 0, 0 }));
        ck_assert(dml_plan_builder_add(&b, (dml_plan_dim){ sizes[i], (int64_t)in_strides[i], (int64_t)out_strides[i], 0, 0 }));
    }
    uint64_t plans = dml_plan_builder_plan_count(&b);
    ck_assert_uint_ge(plans, 1);
    int64_t* read = malloc(out_count * sizeof *read);
    uint8_t* seen = calloc(out_count, 1);
    for (uint64_t k = 0; k < plans; ++k) {
        dml_plan plan;
        dml_plan_builder_plan(&b, k, &plan);
        ck_assert_uint_le(plan.rank, DML_PLAN_MAX_RANK);
        uint64_t c[8] = { 0 };
        for (uint64_t e = 0; e < plan.element_count; ++e) {
            int64_t src = plan.in_offset, dst = plan.out_offset;
            for (uint32_t i = 0; i < plan.rank; ++i) {
                src += (int64_t)c[i] * plan.in_strides[i];
                dst += (int64_t)c[i] * plan.out_strides[i];
            }
            ck_assert_msg(dst >= 0 && (uint64_t)dst < out_count && !seen[dst], "plan %llu writes %lld twice or "
                "outside", (unsigned long long)k, (long long)dst);
            seen[dst] = 1;
            read[dst] = src;
            uint32_t d = plan.rank;
            while (d > 0 && ++c[d - 1] == plan.sizes[d - 1])
                c[--d] = 0;
        }
    }
    /* The reference: output coordinate o reads input coordinate o mod sizes. */
    for (uint64_t o = 0; o < out_count; ++o) {
        ck_assert_msg(seen[o], "output element %llu is never written", (unsigned long long)o);
        uint64_t rest = o;
        int64_t src = 0;
        for (uint32_t i = 8; i-- > 0;) {
            uint64_t extent = (uint64_t)sizes[i] * repeats[i], coordinate = rest % extent;
            rest /= extent;
            src += (int64_t)((coordinate % sizes[i]) * in_strides[i]);
        }
        ck_assert_int_eq(read[o], src);
    }
    free(read);
    free(seen);
    return plans;
}

START_TEST(gathers_beyond_eight_dimensions_run_as_several_plans)
{
    rng_state = 424242u + (uint64_t)_i;
    uint32_t sizes[8], repeats[8];
    uint64_t out_count = 1;
    for (uint32_t i = 0; i < 8; ++i) {
        sizes[i] = 1 + rnd(3);
        repeats[i] = 1 + rnd(3);
        out_count *= (uint64_t)sizes[i] * repeats[i];
    }
    const char* quick = getenv("DML_TEST_QUICK"); /* valgrind runs: small ones only */
    if (out_count <= (quick && *quick == '1' ? 1u << 12 : 1u << 16)) /* another seed covers the shape */
        check_tile_like_gather(sizes, repeats);
}
END_TEST

/* Ten dimensions of 2 that cannot merge: the two outermost smallest are enumerated. */
START_TEST(ten_unmergeable_dimensions_take_4_plans)
{
    const uint32_t twos[8] = { 2, 2, 2, 2, 2, 1, 1, 1 };
    ck_assert_uint_eq(check_tile_like_gather(twos, twos), 4);
}
END_TEST

/* A TILE of 8 dimensions, each 3 repeated 3 times: 16 dimensions that do not
 * merge, 3^8 = 6561 plans to enumerate, more than the cap: refused, named. */
START_TEST(too_many_enumerated_plans_are_refused)
{
    const uint32_t in_sizes[8] = { 3, 3, 3, 3, 3, 3, 3, 3 }, out_sizes[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
    const uint32_t repeats[8] = { 3, 3, 3, 3, 3, 3, 3, 3 };
    tensor_spec in, out;
    make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 8, in_sizes, NULL);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 8, out_sizes, NULL);
    DML_TILE_OPERATOR_DESC tile = { &in.desc, &out.desc, 8, repeats };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_TILE, &tile };
    dml_op* op = NULL;
    ck_assert_int_eq(dml_op_create(&desc, &op), DML_S_OK);
    dml_lowering lowering;
    ck_assert_int_eq(dml_op_lower(op, "dmlDeviceCompileOperator", &lowering), DML_E_NOTIMPL);
    ck_assert_uint_eq(lowering.count, 0);
    const char* message = dml_error_last();
    ck_assert_msg(strstr(message, "dmlDeviceCompileOperator(TILE)") && strstr(message, "4096"), "%s", message);
    dml_op_destroy(op);
}
END_TEST

/* ---- plan kinds a backend declares ------------------------------------ */

/* A backend that executes plain gathers only: enough to create a device and compile. */
static DML_RESULT fake_probe(DML_PLUGIN_PROBE* probe)
{
    probe->Available = 1;
    probe->AdapterCount = 1;
    return DML_S_OK;
}

static DML_RESULT fake_device_create(uint32_t adapter, void** state)
{
    (void)adapter;
    *state = NULL;
    return DML_S_OK;
}

static void fake_device_destroy(void* state)
{
    (void)state;
}

static const dml_backend gathers_only = {
    .name = "gathers-only",
    .plan_kinds = DML_PLAN_KIND_BIT(DML_PLAN_GATHER),
    .probe = fake_probe,
    .device_create = fake_device_create,
    .device_destroy = fake_device_destroy,
};

START_TEST(compiles_refuse_plan_kinds_the_backend_lacks)
{
    const DMLPluginTable* t = dml_core_plugin_table(&gathers_only, DML_PLUGIN_ABI_VERSION, NULL);
    ck_assert_ptr_nonnull(t);
    DML_DEVICE_DESC dd = { .Size = sizeof dd };
    DMLDevice device = NULL;
    ck_assert_int_eq(t->CreateDevice(&dd, &device), DML_S_OK);
    const uint32_t sizes[2] = { 2, 3 };
    tensor_spec in, out;
    make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    DML_SCALE_BIAS scale_bias = { 2.0f, 1.0f };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC plain = { &in.desc, &out.desc, NULL };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC scaled = { &in.desc, &out.desc, &scale_bias };
    DML_OPERATOR_DESC plain_desc = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &plain };
    DML_OPERATOR_DESC scaled_desc = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &scaled };
    DMLOperator op = NULL;
    DMLCompiledOperator compiled = NULL;

    ck_assert_int_eq(t->DeviceCreateOperator(device, &plain_desc, &op), DML_S_OK);
    ck_assert_int_eq(t->DeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled), DML_S_OK);
    t->Release(compiled);
    t->Release(op);

    compiled = NULL;
    ck_assert_int_eq(t->DeviceCreateOperator(device, &scaled_desc, &op), DML_S_OK);
    ck_assert_int_eq(t->DeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled), DML_E_NOTIMPL);
    ck_assert_ptr_null(compiled);
    const char* message = dml_error_last();
    ck_assert_msg(strstr(message, "dmlDeviceCompileOperator(ELEMENT_WISE_IDENTITY)") &&
            strstr(message, "scale-bias gather") && strstr(message, "'gathers-only'"), "%s", message);
    t->Release(op);
    t->Release(device);
}
END_TEST

static Suite* core_suite(void)
{
    Suite* s = suite_create("core");
    TCase* tensors = tcase_create("tensors");
    tcase_add_test(tensors, calc_size_follows_the_formula);
    tcase_add_test(tensors, output_overlap_matches_brute_force);
    tcase_add_test(tensors, inputs_may_broadcast);
    suite_add_tcase(s, tensors);
    TCase* plans = tcase_create("plans");
    tcase_add_test(plans, full_window_copy_merges_to_one_dimension);
    tcase_add_test(plans, reversal_folds_into_a_negative_stride);
    tcase_add_test(plans, permuted_output_is_walked_in_output_order);
    tcase_add_test(plans, reverse_subsequences_keeps_its_axis);
    tcase_add_test(plans, index32_bounds_element_offsets_not_bytes);
    tcase_add_test(plans, index32_bounds_the_input_offset);
    tcase_add_test(plans, index32_bounds_the_element_count);
    tcase_add_test(plans, index32_bounds_the_lengths_offsets);
    tcase_add_loop_test(plans, random_plans_mean_what_the_spec_says, 0, 8);
    tcase_add_loop_test(plans, gathers_beyond_eight_dimensions_run_as_several_plans, 0, 32);
    tcase_add_test(plans, ten_unmergeable_dimensions_take_4_plans);
    tcase_add_test(plans, too_many_enumerated_plans_are_refused);
    suite_add_tcase(s, plans);
    TCase* backends = tcase_create("backends");
    tcase_add_test(backends, compiles_refuse_plan_kinds_the_backend_lacks);
    suite_add_tcase(s, backends);
    return s;
}

int main(void)
{
    SRunner* runner = srunner_create(core_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
