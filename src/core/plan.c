#include <stdbool.h>
#include <string.h>

#include "plan_build.h"

/* One dimension of the gather while it is being normalised. */
typedef struct dim {
    uint64_t size;
    int64_t in_stride, out_stride, len_stride;
    bool is_axis;
} dim;

/* The gather as the spec defines it, one dimension per tensor dimension. */
static uint32_t describe(const dml_op_desc* op, dim* dims, int64_t* in_offset)
{
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->output;
    *in_offset = 0;
    for (uint32_t i = 0; i < out->rank; ++i) {
        dim* d = &dims[i];
        memset(d, 0, sizeof *d);
        d->size = out->sizes[i];
        d->out_stride = (int64_t)out->strides[i];
        if (op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
            d->in_stride = (int64_t)in->strides[i];
            d->is_axis = i == op->axis;
            d->len_stride = d->is_axis ? 0 : (int64_t)op->inputs[1].strides[i];
        } else {
            /* SLICE1: CopyStart walks back from the window's end for negative strides. */
            int64_t start = op->window_offsets[i] + (op->window_strides[i] < 0 ? op->window_sizes[i] - 1 : 0);
            *in_offset += start * (int64_t)in->strides[i];
            /* Reached only inside the input, so the product fits (sizes of 1 are dropped). */
            d->in_stride = d->size > 1 ? op->window_strides[i] * (int64_t)in->strides[i] : 0;
        }
    }
    return out->rank;
}

/* Drops dimensions of size 1; a reversal axis of size 1 reverses nothing
 * unless its lengths clamp to more (a composed plan's axis may walk part of
 * the reversed one: plan_compose.c). */
static uint32_t drop_unit_dims(dim* dims, uint32_t rank, uint64_t axis_size)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < rank; ++i)
        if (dims[i].size > 1 || (dims[i].is_axis && axis_size > 1))
            dims[n++] = dims[i];
    return n;
}

/* Output strides decreasing, so the innermost dimension is the one whose
 * consecutive elements are adjacent in the output (coalesced stores). Stable;
 * output strides of dimensions larger than 1 are distinct (no aliasing). */
static void sort_by_output_stride(dim* dims, uint32_t rank)
{
    for (uint32_t i = 1; i < rank; ++i) {
        dim d = dims[i];
        uint32_t j = i;
        for (; j > 0 && dims[j - 1].out_stride < d.out_stride; --j)
            dims[j] = dims[j - 1];
        dims[j] = d;
    }
}

/* Whether stepping the outer dimension equals stepping the inner one `size` times. */
static bool continues(int64_t outer_stride, int64_t inner_stride, int64_t size)
{
    int64_t product;
    return !__builtin_mul_overflow(inner_stride, size, &product) && product == outer_stride;
}

/* Merges an outer dimension into the inner one next to it wherever every
 * tensor stays affine across both; never across the reversal axis. */
static uint32_t merge_dims(dim* dims, uint32_t rank)
{
    if (rank == 0)
        return 0;
    uint32_t n = 1; /* dims[n - 1] is the innermost merged so far, walking outward */
    dim merged[DML_PLAN_MAX_RANK];
    merged[0] = dims[rank - 1];
    for (uint32_t k = rank - 1; k-- > 0;) {
        dim* inner = &merged[n - 1];
        const dim* outer = &dims[k];
        int64_t s = (int64_t)inner->size;
        if (!inner->is_axis && !outer->is_axis && continues(outer->in_stride, inner->in_stride, s) &&
            continues(outer->out_stride, inner->out_stride, s) && continues(outer->len_stride, inner->len_stride, s)) {
            inner->size *= outer->size;
        } else {
            merged[n++] = *outer;
        }
    }
    for (uint32_t i = 0; i < n; ++i) /* back to outermost first */
        dims[i] = merged[n - 1 - i];
    return n;
}

static uint64_t abs64(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* Whether every element offset of a tensor walked with these strides from
 * base fits in int32, so kernels may index in 32 bits. Kernels compute element
 * offsets in 32 bits and turn them into byte addresses in 64 bits (offset *
 * element size on an int64), so the bound is on elements, not bytes. */
static bool fits_int32(const dml_plan* plan, int64_t base, const int64_t* strides)
{
    uint64_t reach = abs64(base);
    for (uint32_t i = 0; i < plan->rank; ++i) {
        uint64_t term;
        if (__builtin_mul_overflow(plan->sizes[i] - 1, abs64(strides[i]), &term) ||
            __builtin_add_overflow(reach, term, &reach))
            return false;
    }
    return reach <= INT32_MAX;
}

void dml_plan_normalize(dml_plan* plan)
{
    dim dims[DML_PLAN_MAX_RANK];
    uint32_t rank = plan->rank;
    for (uint32_t i = 0; i < rank; ++i)
        dims[i] = (dim){ plan->sizes[i], plan->in_strides[i], plan->out_strides[i], plan->len_strides[i],
            plan->kind == DML_PLAN_REVERSE_SUBSEQUENCES && (int32_t)i == plan->axis };
    rank = drop_unit_dims(dims, rank, plan->axis_size);
    sort_by_output_stride(dims, rank);
    rank = merge_dims(dims, rank);

    uint32_t kind = plan->kind;
    if (kind == DML_PLAN_REVERSE_SUBSEQUENCES) /* stays one only while its axis does */
        plan->kind = DML_PLAN_GATHER;
    plan->axis = -1;
    if (rank == 0) { /* a single element */
        dims[0] = (dim){ .size = 1 };
        rank = 1;
    }
    memset(plan->sizes, 0, sizeof plan->sizes);
    memset(plan->in_strides, 0, sizeof plan->in_strides);
    memset(plan->out_strides, 0, sizeof plan->out_strides);
    memset(plan->len_strides, 0, sizeof plan->len_strides);
    plan->rank = rank;
    plan->element_count = 1;
    for (uint32_t i = 0; i < rank; ++i) {
        plan->sizes[i] = dims[i].size;
        plan->in_strides[i] = dims[i].in_stride;
        plan->out_strides[i] = dims[i].out_stride;
        plan->len_strides[i] = dims[i].len_stride;
        plan->element_count *= dims[i].size;
        if (dims[i].is_axis) {
            plan->kind = kind;
            plan->axis = (int32_t)i;
        }
    }
    if (plan->kind != DML_PLAN_REVERSE_SUBSEQUENCES) {
        memset(plan->len_strides, 0, sizeof plan->len_strides);
        plan->len_offset = 0;
        plan->axis_size = 0;
        plan->lengths_element_size = 0;
    }
    /* A composed reversal may read its axis beyond the coordinates it walks (up
     * to axis_size - 1): the input's reach is taken over axis_size there. */
    dml_plan reach = *plan;
    if (plan->kind == DML_PLAN_REVERSE_SUBSEQUENCES && plan->axis_size > reach.sizes[plan->axis])
        reach.sizes[plan->axis] = plan->axis_size;
    plan->index32 = plan->element_count <= INT32_MAX &&
        fits_int32(&reach, plan->in_offset, plan->in_strides) &&
        fits_int32(plan, plan->out_offset, plan->out_strides) &&
        (plan->kind != DML_PLAN_REVERSE_SUBSEQUENCES ||
            fits_int32(plan, plan->len_offset, plan->len_strides));
}

void dml_plan_build(const dml_op_desc* op, dml_plan* plan)
{
    dim dims[DML_PLAN_MAX_RANK];
    int64_t in_offset;
    uint32_t rank = describe(op, dims, &in_offset);

    memset(plan, 0, sizeof *plan);
    plan->kind = DML_PLAN_GATHER;
    plan->axis = -1;
    plan->element_size = op->output.element_size;
    plan->in_offset = in_offset;
    plan->rank = rank;
    for (uint32_t i = 0; i < rank; ++i) {
        plan->sizes[i] = dims[i].size;
        plan->in_strides[i] = dims[i].in_stride;
        plan->out_strides[i] = dims[i].out_stride;
        plan->len_strides[i] = dims[i].len_stride;
        if (dims[i].is_axis) {
            plan->kind = DML_PLAN_REVERSE_SUBSEQUENCES;
            plan->axis = (int32_t)i;
            plan->axis_size = dims[i].size;
            plan->lengths_element_size = op->inputs[1].element_size;
        }
    }
    if (op->has_scale_bias) {
        plan->kind = DML_PLAN_SCALE_BIAS;
        plan->data_type = (uint32_t)op->output.data_type;
        plan->scale = op->scale;
        plan->bias = op->bias;
    }
    dml_plan_normalize(plan);
}
