/*
 * indices.c — what the data-dependent operators share: the index tensor's
 * type rule, shapes computed from several tensors and right-aligned against
 * a desc's DimensionCount (GATHER, GATHER_ND, SCATTER_ND), and the plan
 * fields that say how an index tensor is read.
 */
#include <stdio.h>

#include "op.h"

DML_RESULT dml_op_check_indices(const char* call, const char* field, const dml_tensor* indices)
{
    switch (indices->data_type) {
    case DML_TENSOR_DATA_TYPE_INT32:
    case DML_TENSOR_DATA_TYPE_INT64:
    case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_UINT64: return DML_S_OK;
    default:
        DML_OP_FAIL("%s: %s.DataType %s; must be INT32, INT64, UINT32 or UINT64", call, field,
            dml_data_type_name(indices->data_type));
    }
}

DML_RESULT dml_op_check_elements_axis(const char* call, uint32_t axis, const dml_tensor* data,
    const dml_tensor* indices)
{
    if (axis >= data->rank)
        DML_OP_FAIL("%s: Axis = %u; must be less than InputTensor.DimensionCount %u", call, axis, data->rank);
    for (uint32_t i = 0; i < data->rank; ++i)
        if (i != axis && indices->sizes[i] != data->sizes[i])
            DML_OP_FAIL("%s: IndicesTensor.Sizes[%u] = %u differs from InputTensor.Sizes[%u] = %u (they must agree "
                "on every dimension but Axis %u)", call, i, indices->sizes[i], i, data->sizes[i], axis);
    return DML_S_OK;
}

void dml_op_set_indices(dml_plan_builder* builder, const dml_tensor* indices)
{
    builder->plan.lengths_element_size = indices->element_size;
    builder->plan.index_signed = dml_data_type_is_signed(indices->data_type);
}

bool dml_op_shape_add(dml_op_shape* shape, uint32_t size, dml_plan_dim dim)
{
    if (shape->count == DML_OP_SHAPE_MAX)
        return false;
    dim.size = size;
    shape->dims[shape->count++] = dim;
    return true;
}

/* "{2,3,4}" */
static const char* format_shape(char* text, size_t capacity, const uint64_t* sizes, uint32_t count)
{
    size_t used = (size_t)snprintf(text, capacity, "{");
    for (uint32_t i = 0; i < count && used < capacity; ++i)
        used += (size_t)snprintf(text + used, capacity - used, "%s%llu", i ? "," : "", (unsigned long long)sizes[i]);
    if (used < capacity)
        snprintf(text + used, capacity - used, "}");
    return text;
}

DML_RESULT dml_op_align_shape(const char* call, const char* field, const dml_tensor* tensor, const char* rule,
    const dml_op_shape* shape, int64_t* strides)
{
    uint64_t expected[DML_OP_SHAPE_MAX], actual[DML_TENSOR_DIMENSION_COUNT_MAX1];
    for (uint32_t i = 0; i < shape->count; ++i)
        expected[i] = shape->dims[i].size;
    for (uint32_t i = 0; i < tensor->rank; ++i)
        actual[i] = tensor->sizes[i];
    /* Right-aligned: shape dim i is tensor dim i + shift; either side's
     * leading extras must be 1. */
    int64_t shift = (int64_t)tensor->rank - (int64_t)shape->count;
    bool fits = true;
    for (uint32_t i = 0; i < shape->count; ++i) {
        int64_t t = (int64_t)i + shift;
        fits = fits && (t >= 0 ? actual[t] == expected[i] : expected[i] == 1);
        strides[i] = t >= 0 ? (int64_t)tensor->strides[t] : 0;
    }
    for (int64_t t = 0; t < shift; ++t)
        fits = fits && actual[t] == 1;
    if (!fits) {
        char want[160], have[160];
        DML_OP_FAIL("%s: %s.Sizes = %s; must be %s (%s), right-aligned to its DimensionCount %u: missing "
            "dimensions are leading 1s, extra leading ones must be 1", call, field,
            format_shape(have, sizeof have, actual, tensor->rank), format_shape(want, sizeof want, expected,
            shape->count), rule, tensor->rank);
    }
    return DML_S_OK;
}

DML_RESULT dml_op_check_leading_ones(const char* call, const char* field, const dml_tensor* tensor,
    const char* count_field, uint32_t count)
{
    for (uint32_t i = 0; i + count < tensor->rank; ++i)
        if (tensor->sizes[i] != 1)
            DML_OP_FAIL("%s: %s.Sizes[%u] = %u; must be 1 (%s = %u leaves the first %u dimensions as leading 1s)",
                call, field, i, tensor->sizes[i], count_field, count, tensor->rank - count);
    return DML_S_OK;
}

DML_RESULT dml_op_nd_layout(const char* call, const dml_nd_fields* f, const dml_tensor* data,
    const dml_tensor* indices, dml_nd_layout* nd)
{
    const uint32_t rank = data->rank;
    if (indices->rank != rank)
        DML_OP_FAIL("%s: %s.DimensionCount %u differs from %s.DimensionCount %u", call, f->indices, indices->rank,
            f->data, rank);
    if (f->data_dims < 1 || f->data_dims > rank)
        DML_OP_FAIL("%s: InputDimensionCount = %u; must be in [1, %s.DimensionCount %u]", call, f->data_dims,
            f->data, rank);
    if (f->index_dims < 1 || f->index_dims > rank)
        DML_OP_FAIL("%s: IndicesDimensionCount = %u; must be in [1, %s.DimensionCount %u]", call, f->index_dims,
            f->indices, rank);
    DML_RESULT r;
    if ((r = dml_op_check_leading_ones(call, f->data, data, "InputDimensionCount", f->data_dims)) < 0 ||
        (r = dml_op_check_leading_ones(call, f->indices, indices, "IndicesDimensionCount", f->index_dims)) < 0)
        return r;
    if (f->batch_dims >= f->index_dims || f->batch_dims >= f->data_dims)
        DML_OP_FAIL("%s: BatchDimensionCount = %u; must be less than IndicesDimensionCount %u and "
            "InputDimensionCount %u", call, f->batch_dims, f->index_dims, f->data_dims);
    nd->data_first = rank - f->data_dims;
    nd->indices_first = rank - f->index_dims;
    nd->batch = f->batch_dims;
    nd->tuple = indices->sizes[rank - 1];
    if (nd->tuple > f->data_dims - f->batch_dims)
        DML_OP_FAIL("%s: %s.Sizes[%u] = %u (the index tuple's length); must be at most InputDimensionCount %u - "
            "BatchDimensionCount %u = %u", call, f->indices, rank - 1, nd->tuple, f->data_dims, f->batch_dims,
            f->data_dims - f->batch_dims);
    for (uint32_t j = 0; j < nd->batch; ++j)
        if (indices->sizes[nd->indices_first + j] != data->sizes[nd->data_first + j])
            DML_OP_FAIL("%s: batch dimension %u: %s.Sizes[%u] = %u differs from %s.Sizes[%u] = %u", call, j,
                f->indices, nd->indices_first + j, indices->sizes[nd->indices_first + j], f->data,
                nd->data_first + j, data->sizes[nd->data_first + j]);
    /* The addressed shape: batch and the indices' other dimensions (their
     * strides along the data and the indices), then the data's dimensions
     * after the tuple's. */
    dml_op_shape* s = &nd->shape;
    s->count = 0;
    for (uint32_t j = nd->indices_first; j + 1 < rank; ++j) {
        bool is_batch = j - nd->indices_first < nd->batch;
        int64_t data_stride = is_batch ? (int64_t)data->strides[nd->data_first + (j - nd->indices_first)] : 0;
        dml_op_shape_add(s, indices->sizes[j], (dml_plan_dim){ 0, data_stride, 0, (int64_t)indices->strides[j], 0 });
    }
    for (uint32_t i = nd->data_first + nd->batch + nd->tuple; i < rank; ++i)
        dml_op_shape_add(s, data->sizes[i], (dml_plan_dim){ 0, (int64_t)data->strides[i], 0, 0, 0 });
    return DML_S_OK; /* at most (rank - 1) + rank dimensions: DML_OP_SHAPE_MAX */
}

void dml_op_set_tuple(dml_plan_builder* builder, const dml_nd_layout* nd, const dml_tensor* data,
    const dml_tensor* indices)
{
    dml_plan* plan = &builder->plan;
    plan->index_count = nd->tuple;
    plan->index_step = (int64_t)indices->strides[indices->rank - 1];
    for (uint32_t k = 0; k < nd->tuple; ++k) {
        uint32_t i = nd->data_first + nd->batch + k;
        plan->index_sizes[k] = data->sizes[i];
        plan->index_strides[k] = (int64_t)data->strides[i];
    }
}
