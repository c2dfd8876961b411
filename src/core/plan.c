#include <stdbool.h>
#include <string.h>

#include "plan_build.h"

/* One dimension of the gather while it is being normalised. */
typedef struct dim {
    uint64_t size;
    int64_t in_stride, out_stride, len_stride;
    bool is_axis;
    int64_t in2_stride;  /* SELECT, ONE_HOT */
    int64_t pad_origin;  /* PAD: see dml_plan_builder_add_fold */
    uint64_t pad_extent; /* PAD: 0 when not folded */
} dim;

/* Drops dimensions of size 1; a reversal axis of size 1 reverses nothing
 * unless its lengths clamp to more (a composed plan's axis may walk part of
 * the reversed one: plan_compose.c). */
static uint32_t drop_unit_dims(dim* dims, uint32_t rank, uint64_t axis_size)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < rank; ++i)
        if (dims[i].size > 1 || (dims[i].is_axis && axis_size > 1) || dims[i].pad_extent)
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
 * tensor stays affine across both; never across the reversal axis nor a
 * PAD fold. */
static uint32_t merge_dims(dim* dims, uint32_t rank)
{
    if (rank == 0)
        return 0;
    uint32_t n = 1; /* dims[n - 1] is the innermost merged so far, walking outward */
    dim merged[DML_PLAN_WORK_RANK];
    merged[0] = dims[rank - 1];
    for (uint32_t k = rank - 1; k-- > 0;) {
        dim* inner = &merged[n - 1];
        const dim* outer = &dims[k];
        int64_t s = (int64_t)inner->size;
        if (!inner->is_axis && !outer->is_axis && !inner->pad_extent && !outer->pad_extent &&
            continues(outer->in_stride, inner->in_stride, s) &&
            continues(outer->out_stride, inner->out_stride, s) && continues(outer->len_stride, inner->len_stride, s) &&
            continues(outer->in2_stride, inner->in2_stride, s)) {
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
 * base, plus `extra` (what indices add), fits in int32, so kernels may index
 * in 32 bits. Kernels compute element offsets in 32 bits and turn them into
 * byte addresses in 64 bits (offset * element size on an int64), so the
 * bound is on elements, not bytes. */
static bool fits_int32_plus(const dml_plan* plan, int64_t base, const int64_t* strides, uint64_t extra)
{
    uint64_t reach = abs64(base);
    if (__builtin_add_overflow(reach, extra, &reach))
        return false;
    for (uint32_t i = 0; i < plan->rank; ++i) {
        uint64_t term;
        if (__builtin_mul_overflow(plan->sizes[i] - 1, abs64(strides[i]), &term) ||
            __builtin_add_overflow(reach, term, &reach))
            return false;
    }
    return reach <= INT32_MAX;
}

/* Whether every unfolded PAD coordinate c + pad_origin fits in int32. */
static bool pad_origins_fit_int32(const dml_plan* plan)
{
    for (uint32_t i = 0; i < plan->rank; ++i) {
        int64_t first = plan->pad_origin[i], last;
        if (__builtin_add_overflow(first, (int64_t)(plan->sizes[i] - 1), &last) || first < INT32_MIN ||
            last > INT32_MAX)
            return false;
    }
    return true;
}

static bool fits_int32(const dml_plan* plan, int64_t base, const int64_t* strides)
{
    return fits_int32_plus(plan, base, strides, 0);
}

/* How far the index terms reach in the tensor they offset (the input of
 * INDEXED, the output of SCATTER): sum of (index_sizes[k] - 1) *
 * |index_strides[k]|; UINT64_MAX on overflow. */
static uint64_t index_reach(const dml_plan* plan)
{
    uint64_t reach = 0, term;
    for (uint32_t k = 0; k < plan->index_count && k < DML_PLAN_MAX_RANK; ++k)
        if (__builtin_mul_overflow(plan->index_sizes[k] - 1, abs64(plan->index_strides[k]), &term) ||
            __builtin_add_overflow(reach, term, &reach))
            return UINT64_MAX;
    return reach;
}

/* Whether a plan's offsets all fit in int32 (plan.h's index32). */
static bool plan_fits_int32(const dml_plan* plan, const dml_plan* reach)
{
    uint32_t kind = plan->kind;
    uint64_t in_extra = kind == DML_PLAN_INDEXED ? index_reach(plan) : 0;
    uint64_t out_extra = kind == DML_PLAN_SCATTER ? index_reach(plan) : 0;
    uint64_t len_extra = 0;
    if ((kind == DML_PLAN_INDEXED || kind == DML_PLAN_SCATTER) && plan->index_count > 1 &&
        __builtin_mul_overflow((uint64_t)(plan->index_count - 1), abs64(plan->index_step), &len_extra))
        return false;
    return plan->element_count <= INT32_MAX && pad_origins_fit_int32(plan) &&
        fits_int32_plus(reach, plan->in_offset, plan->in_strides, in_extra) &&
        fits_int32_plus(plan, plan->out_offset, plan->out_strides, out_extra) &&
        (!dml_plan_reads_lengths(kind) || fits_int32_plus(plan, plan->len_offset, plan->len_strides, len_extra)) &&
        (!dml_plan_reads_input2(kind) || fits_int32(plan, plan->in2_offset, plan->in2_strides));
}

/* Sorts, drops and merges dims[0..rank) into plan's dimensions; false when
 * more than DML_PLAN_MAX_RANK remain. plan's other fields are kept. */
static bool normalize_into(dml_plan* plan, dim* dims, uint32_t rank)
{
    rank = drop_unit_dims(dims, rank, plan->axis_size);
    if (plan->kind != DML_PLAN_SCATTER) /* a scatter keeps its updates' order (plan.h) */
        sort_by_output_stride(dims, rank);
    rank = merge_dims(dims, rank);
    if (rank > DML_PLAN_MAX_RANK)
        return false;

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
    memset(plan->in2_strides, 0, sizeof plan->in2_strides);
    memset(plan->pad_origin, 0, sizeof plan->pad_origin);
    memset(plan->pad_extent, 0, sizeof plan->pad_extent);
    plan->rank = rank;
    plan->element_count = 1;
    for (uint32_t i = 0; i < rank; ++i) {
        plan->sizes[i] = dims[i].size;
        plan->in_strides[i] = dims[i].in_stride;
        plan->out_strides[i] = dims[i].out_stride;
        plan->len_strides[i] = dims[i].len_stride;
        plan->in2_strides[i] = dims[i].in2_stride;
        plan->pad_origin[i] = dims[i].pad_origin;
        plan->pad_extent[i] = dims[i].pad_extent;
        plan->element_count *= dims[i].size;
        if (dims[i].is_axis) { /* a reversal, or ONE_HOT's depth */
            plan->kind = kind;
            plan->axis = (int32_t)i;
        }
    }
    bool folds = false; /* a PAD stays one only while a fold does: else it is a plain gather */
    for (uint32_t i = 0; i < rank; ++i)
        folds = folds || dims[i].pad_extent;
    if (plan->kind == DML_PLAN_PAD && !folds) {
        plan->kind = DML_PLAN_GATHER;
        plan->pad_mode = 0;
        memset(&plan->fill_start, 0, sizeof plan->fill_start);
    }
    if (kind == DML_PLAN_ONE_HOT) /* stays one without its axis: the depth was 1 (plan.h) */
        plan->kind = kind;
    if (!dml_plan_reads_lengths(plan->kind)) {
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
    /* A PAD fold reads coordinates [0, pad_extent) of its dimension. */
    for (uint32_t i = 0; i < rank; ++i)
        if (plan->pad_extent[i])
            reach.sizes[i] = plan->pad_extent[i];
    plan->index32 = plan_fits_int32(plan, &reach);
    return true;
}

void dml_plan_normalize(dml_plan* plan)
{
    dim dims[DML_PLAN_MAX_RANK];
    uint32_t rank = plan->rank;
    for (uint32_t i = 0; i < rank; ++i)
        dims[i] = (dim){ plan->sizes[i], plan->in_strides[i], plan->out_strides[i], plan->len_strides[i],
            (plan->kind == DML_PLAN_REVERSE_SUBSEQUENCES || plan->kind == DML_PLAN_ONE_HOT) && (int32_t)i == plan->axis,
            plan->in2_strides[i], plan->pad_origin[i], plan->pad_extent[i] };
    normalize_into(plan, dims, rank); /* merging never adds dimensions */
}

void dml_plan_builder_init(dml_plan_builder* builder, dml_plan_kind kind, uint32_t element_size)
{
    memset(builder, 0, sizeof *builder);
    builder->plan.kind = (uint32_t)kind;
    builder->plan.element_size = element_size;
    builder->plan.axis = -1;
    builder->axis = -1;
}

bool dml_plan_builder_add(dml_plan_builder* builder, dml_plan_dim d)
{
    if (builder->rank == DML_PLAN_WORK_RANK)
        return false;
    builder->dims[builder->rank++] = d;
    return true;
}

bool dml_plan_builder_add_fold(dml_plan_builder* builder, dml_plan_dim d, int64_t origin, uint64_t extent)
{
    if (!dml_plan_builder_add(builder, d))
        return false;
    builder->pad_origin[builder->rank - 1] = origin;
    builder->pad_extent[builder->rank - 1] = extent;
    return true;
}

void dml_plan_builder_mark_axis(dml_plan_builder* builder)
{
    builder->axis = (int32_t)builder->rank - 1;
}

void dml_plan_builder_set_axis(dml_plan_builder* builder, uint64_t axis_size, uint32_t lengths_element_size)
{
    dml_plan_builder_mark_axis(builder);
    builder->plan.kind = DML_PLAN_REVERSE_SUBSEQUENCES;
    builder->plan.axis_size = axis_size;
    builder->plan.lengths_element_size = lengths_element_size;
}

bool dml_plan_builder_finish(const dml_plan_builder* builder, dml_plan* plan)
{
    dim dims[DML_PLAN_WORK_RANK];
    for (uint32_t i = 0; i < builder->rank; ++i) {
        const dml_plan_dim* d = &builder->dims[i];
        dims[i] = (dim){ d->size, d->in_stride, d->out_stride, d->len_stride, (int32_t)i == builder->axis,
            d->in2_stride, builder->pad_origin[i], builder->pad_extent[i] };
    }
    dml_plan result = builder->plan;
    if (!normalize_into(&result, dims, builder->rank))
        return false;
    *plan = result;
    return true;
}

/* The builder's dimensions dropped, sorted and merged, however many remain. */
static uint32_t merged_dims(const dml_plan_builder* builder, dim* dims)
{
    for (uint32_t i = 0; i < builder->rank; ++i) {
        const dml_plan_dim* d = &builder->dims[i];
        dims[i] = (dim){ d->size, d->in_stride, d->out_stride, d->len_stride, (int32_t)i == builder->axis,
            d->in2_stride, builder->pad_origin[i], builder->pad_extent[i] };
    }
    uint32_t rank = drop_unit_dims(dims, builder->rank, builder->plan.axis_size);
    if (builder->plan.kind != DML_PLAN_SCATTER) /* a scatter keeps its updates' order (plan.h) */
        sort_by_output_stride(dims, rank);
    return merge_dims(dims, rank);
}

/* Which merged dimensions are enumerated when too many remain: the smallest,
 * never the innermost (the one a warp walks) nor the reversal axis. Returns
 * how many (0 when the gather fits) and their indices, outermost first. */
static uint32_t peeled_dims(const dim* dims, uint32_t rank, uint32_t* peel)
{
    if (rank <= DML_PLAN_MAX_RANK)
        return 0;
    uint32_t count = rank - DML_PLAN_MAX_RANK, candidates = 0, order[DML_PLAN_WORK_RANK];
    for (uint32_t i = 0; i + 1 < rank; ++i)
        if (!dims[i].is_axis && !dims[i].pad_extent)
            order[candidates++] = i;
    if (count > candidates) /* only PAD folds left to peel: never described (dml_plan_builder_add_fold) */
        count = candidates;
    for (uint32_t i = 1; i < candidates; ++i) /* stable, by size */
        for (uint32_t j = i; j > 0 && dims[order[j - 1]].size > dims[order[j]].size; --j) {
            uint32_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (uint32_t i = 0; i < count; ++i)
        peel[i] = order[i];
    for (uint32_t i = 1; i < count; ++i) /* back to outermost first */
        for (uint32_t j = i; j > 0 && peel[j - 1] > peel[j]; --j) {
            uint32_t t = peel[j];
            peel[j] = peel[j - 1];
            peel[j - 1] = t;
        }
    return count;
}

uint64_t dml_plan_builder_plan_count(const dml_plan_builder* builder)
{
    dim dims[DML_PLAN_WORK_RANK];
    uint32_t peel[DML_PLAN_WORK_RANK];
    uint32_t rank = merged_dims(builder, dims), count = peeled_dims(dims, rank, peel);
    uint64_t plans = 1;
    for (uint32_t i = 0; i < count; ++i)
        if (__builtin_mul_overflow(plans, dims[peel[i]].size, &plans))
            return UINT64_MAX;
    return plans;
}

void dml_plan_builder_plan(const dml_plan_builder* builder, uint64_t index, dml_plan* plan)
{
    dim dims[DML_PLAN_WORK_RANK], kept[DML_PLAN_WORK_RANK];
    uint32_t peel[DML_PLAN_WORK_RANK];
    uint32_t rank = merged_dims(builder, dims), count = peeled_dims(dims, rank, peel), n = 0;
    dml_plan result = builder->plan;
    /* index in mixed radix over the peeled sizes, the innermost fastest; each
     * coordinate moves into the offsets (inside the tensors: no overflow). */
    for (uint32_t i = count; i-- > 0;) {
        const dim* d = &dims[peel[i]];
        int64_t coordinate = (int64_t)(index % d->size);
        index /= d->size;
        result.in_offset += coordinate * d->in_stride;
        result.out_offset += coordinate * d->out_stride;
        result.len_offset += coordinate * d->len_stride;
        result.in2_offset += coordinate * d->in2_stride;
    }
    for (uint32_t i = 0, k = 0; i < rank; ++i) {
        if (k < count && peel[k] == i)
            ++k;
        else
            kept[n++] = dims[i];
    }
    normalize_into(&result, kept, n); /* n <= DML_PLAN_MAX_RANK */
    *plan = result;
}

const char* dml_plan_kind_name(uint32_t kind)
{
    static const char* const names[DML_PLAN_KIND_COUNT] = {
        [DML_PLAN_GATHER] = "gather",
        [DML_PLAN_REVERSE_SUBSEQUENCES] = "reverse-gather",
        [DML_PLAN_SCALE_BIAS] = "scale-bias gather",
        [DML_PLAN_CAST] = "cast gather",
        [DML_PLAN_FILL] = "fill",
        [DML_PLAN_PAD] = "pad gather",
        [DML_PLAN_INDEXED] = "indexed gather",
        [DML_PLAN_SCATTER] = "scatter",
        [DML_PLAN_SELECT] = "select",
        [DML_PLAN_ONE_HOT] = "one-hot",
    };
    return kind < DML_PLAN_KIND_COUNT && names[kind] ? names[kind] : "unknown plan kind";
}
