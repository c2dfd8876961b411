/*
 * kernels_gather.c — GatherV2 as GATHER over {outer, axis, inner}.
 *
 * indices is declared host memory: TensorFlow's CPU kernel rejects an index
 * outside [0, axis size) with InvalidArgument, where the runtime would
 * clamp it, so the values are checked here, then copied to a device
 * temporary for the runtime to read. With batch_dims != 0, GATHER_ND1 over
 * {batch, between, axis, inner} with every dimension before the axis a
 * batch dimension: the indices {batch, I} are seen as {batch, between, I, 1}
 * with a stride of 0 on between (the same indices for each of its rows).
 * GatherNd likewise, as GATHER_ND1 over {tuple dimensions..., inner}.
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

enum { KERNEL_GATHER = 0x300, KERNEL_GATHER_ND, KERNEL_GATHER_BATCHED };

typedef struct gather_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type, index_type;
    uint32_t outer, axis_size, inner, count;
} gather_key;

static DML_RESULT create_gather(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const gather_key* key = key_bytes;
    dmltf_shape input = { 3, { key->outer, key->axis_size, key->inner } };
    dmltf_shape indices = { 3, { 1, 1, key->count } };
    dmltf_shape output = { 3, { key->outer, key->count, key->inner } };
    DML_BUFFER_TENSOR_DESC in_buffer, index_buffer, out_buffer;
    DML_TENSOR_DESC in, index, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &input, NULL);
    dmltf_tensor_desc(&index_buffer, &index, key->index_type, &indices, NULL);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &output, NULL);
    DML_GATHER_OPERATOR_DESC gather = { &in, &index, &out, 1, 1 };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_GATHER, &gather };
    return dmlDeviceCreateOperator(device, &desc, op);
}

/* outer is the batch size; between, the dimensions from the batch ones to
 * the axis (kernel KERNEL_GATHER_BATCHED). */
typedef struct batched_gather_key {
    gather_key base;
    uint32_t between;
} batched_gather_key;

static DML_RESULT create_batched_gather(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const batched_gather_key* key = key_bytes;
    const gather_key* g = &key->base;
    dmltf_shape input = { 4, { g->outer, key->between, g->axis_size, g->inner } };
    dmltf_shape indices = { 4, { g->outer, key->between, g->count, 1 } };
    dmltf_shape output = { 4, { g->outer, key->between, g->count, g->inner } };
    uint32_t index_strides[4] = { g->count, 0, 1, 1 };
    DML_BUFFER_TENSOR_DESC in_buffer, index_buffer, out_buffer;
    DML_TENSOR_DESC in, index, out;
    dmltf_tensor_desc(&in_buffer, &in, g->type, &input, NULL);
    dmltf_tensor_desc(&index_buffer, &index, g->index_type, &indices, index_strides);
    dmltf_tensor_desc(&out_buffer, &out, g->type, &output, NULL);
    DML_GATHER_ND1_OPERATOR_DESC gather = { &in, &index, &out, 4, 4, 2 };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_GATHER_ND1, &gather };
    return dmlDeviceCreateOperator(device, &desc, op);
}

typedef struct gather_kernel {
    int64_t batch_dims;
} gather_kernel;

static void* gather_create(TF_OpKernelConstruction* ctx)
{
    gather_kernel* k = calloc(1, sizeof *k);
    TF_Status* status = TF_NewStatus();
    if (k && TF_OpKernelConstruction_HasAttr(ctx, "batch_dims", status))
        TF_OpKernelConstruction_GetAttrInt64(ctx, "batch_dims", &k->batch_dims, status);
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelConstruction_Failure(ctx, status);
    TF_DeleteStatus(status);
    return k;
}

static void gather_delete(void* kernel)
{
    free(kernel);
}

/* Each index in [0, limit), as TensorFlow's CPU kernel wants. */
static bool check_indices(TF_OpKernelContext* ctx, const TF_Tensor* indices, int64_t limit)
{
    int64_t n = TF_TensorElementCount(indices);
    const void* data = TF_TensorData(indices);
    bool wide = TF_TensorType(indices) == TF_INT64;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = wide ? ((const int64_t*)data)[i] : ((const int32_t*)data)[i];
        if (v < 0 || v >= limit) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "indices[%lld] = %lld is not in [0, %lld)", (long long)i,
                (long long)v, (long long)limit);
            return false;
        }
    }
    return true;
}

/* TensorFlow's checks of batch_dims, which becomes non-negative. */
static bool check_batch_dims(TF_OpKernelContext* ctx, const TF_Tensor* params, const TF_Tensor* indices, int64_t axis,
    int64_t* batch_dims)
{
    int index_rank = TF_NumDims(indices), rank = TF_NumDims(params);
    if (*batch_dims < -index_rank || *batch_dims > index_rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Expected batch_dims in the range [%d, %d], but got %lld", -index_rank,
            index_rank, (long long)*batch_dims);
        return false;
    }
    if (*batch_dims < 0)
        *batch_dims += index_rank;
    if (*batch_dims >= rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "batch_dims (%lld) must be less than rank(params) (%d).",
            (long long)*batch_dims, rank);
        return false;
    }
    if (axis < *batch_dims) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "batch_dims (%lld) must be less than or equal to axis (%lld).",
            (long long)*batch_dims, (long long)axis);
        return false;
    }
    for (int i = 0; i < *batch_dims; i++)
        if (TF_Dim(params, i) != TF_Dim(indices, i)) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "params.shape[%d]: %lld should be equal to indices.shape[%d]: %lld", i,
                (long long)TF_Dim(params, i), i, (long long)TF_Dim(indices, i));
            return false;
        }
    return true;
}

static void gather_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const gather_kernel* k = kernel;
    TF_Tensor* params = dmltf_input(ctx, 0);
    TF_Tensor* indices = params ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* axis_tensor = indices ? dmltf_input(ctx, 2) : NULL;
    TF_Tensor* output = NULL;
    TF_Tensor* device_indices = NULL;
    int64_t dims[DMLTF_TF_MAX_RANK], out_dims[DMLTF_TF_MAX_RANK], axis, count;
    if (!axis_tensor || !dmltf_read_host_ints(ctx, axis_tensor, "axis", &axis, 1, &count))
        goto done;
    int rank = TF_NumDims(params), index_rank = TF_NumDims(indices);
    if (axis < -rank || axis >= rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Expected axis in the range [%d, %d), but got %lld", -rank, rank,
            (long long)axis);
        goto done;
    }
    if (axis < 0)
        axis += rank;
    int64_t batch_dims = k->batch_dims;
    if (batch_dims != 0 && !check_batch_dims(ctx, params, indices, axis, &batch_dims))
        goto done;
    if (rank + index_rank - batch_dims - 1 > DMLTF_TF_MAX_RANK) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "the output would have more than %d dimensions", DMLTF_TF_MAX_RANK);
        goto done;
    }
    /* outer: the batch dimensions, between: those after them to the axis. */
    int64_t outer = 1, between = 1, inner = 1, out_rank = 0;
    for (int i = 0; i < rank; i++) {
        dims[i] = TF_Dim(params, i);
        if (i < batch_dims)
            outer *= dims[i];
        else if (i < axis)
            between *= dims[i];
        else if (i > axis)
            inner *= dims[i];
    }
    for (int i = 0; i < axis; i++)
        out_dims[out_rank++] = dims[i];
    for (int i = (int)batch_dims; i < index_rank; i++)
        out_dims[out_rank++] = TF_Dim(indices, i);
    for (int i = (int)axis + 1; i < rank; i++)
        out_dims[out_rank++] = dims[i];
    if (!check_indices(ctx, indices, dims[axis]))
        goto done;
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(params), out_dims, (int)out_rank)))
        goto done;
    int64_t n = TF_TensorElementCount(indices);
    if (dmltf_element_count(out_dims, (int)out_rank) == 0)
        goto done;
    int64_t per_batch = outer ? n / outer : 0; /* indices of one batch */
    if (outer > UINT32_MAX || between > UINT32_MAX || inner > UINT32_MAX || dims[axis] > UINT32_MAX ||
        n > UINT32_MAX) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "a gather with a dimension above 2^32-1");
        goto done;
    }
    batched_gather_key key;
    memset(&key, 0, sizeof key);
    key.base.kernel = batch_dims ? KERNEL_GATHER_BATCHED : KERNEL_GATHER;
    key.base.type = dmltf_bits_type(TF_TensorType(params));
    key.base.index_type = TF_TensorType(indices) == TF_INT64 ? DML_TENSOR_DATA_TYPE_INT64 : DML_TENSOR_DATA_TYPE_INT32;
    key.base.outer = (uint32_t)(batch_dims ? outer : outer * between);
    key.base.axis_size = (uint32_t)dims[axis];
    key.base.inner = (uint32_t)inner;
    key.base.count = (uint32_t)(batch_dims ? per_batch : n);
    key.between = (uint32_t)between;
    if (!(device_indices = dmltf_upload(ctx, TF_TensorType(indices), n, TF_TensorData(indices))))
        goto done;
    dmltf_binding in[2] = { { TF_TensorData(params), TF_TensorByteSize(params) },
        { TF_TensorData(device_indices), TF_TensorByteSize(indices) } };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    if (batch_dims)
        dmltf_run(ctx, &key, sizeof key, create_batched_gather, in, 2, &out, 1);
    else
        dmltf_run(ctx, &key.base, sizeof key.base, create_gather, in, 2, &out, 1);
done:
    TF_DeleteTensor(device_indices);
    TF_DeleteTensor(output);
    TF_DeleteTensor(axis_tensor);
    TF_DeleteTensor(indices);
    TF_DeleteTensor(params);
}

/* ---- GatherNd ---- */

typedef struct gather_nd_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type, index_type;
    dmltf_shape input; /* the tuple's K dimensions, then inner */
    uint32_t count;    /* tuples */
} gather_nd_key;

static DML_RESULT create_gather_nd(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const gather_nd_key* key = key_bytes;
    uint32_t rank = key->input.rank, k = rank - 1;
    dmltf_shape indices = { rank, { 0 } }, output = { rank, { 0 } };
    for (uint32_t i = 0; i < rank; i++)
        indices.sizes[i] = output.sizes[i] = 1;
    indices.sizes[rank - 2] = key->count;
    indices.sizes[rank - 1] = k;
    output.sizes[rank - 2] = key->count;
    output.sizes[rank - 1] = key->input.sizes[k];
    DML_BUFFER_TENSOR_DESC in_buffer, index_buffer, out_buffer;
    DML_TENSOR_DESC in, index, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->input, NULL);
    dmltf_tensor_desc(&index_buffer, &index, key->index_type, &indices, NULL);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &output, NULL);
    DML_GATHER_ND1_OPERATOR_DESC gather = { &in, &index, &out, rank, 2, 0 };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_GATHER_ND1, &gather };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static void gather_nd_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* params = dmltf_input(ctx, 0);
    TF_Tensor* indices = params ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor *output = NULL, *device_indices = NULL;
    int64_t out_dims[DMLTF_TF_MAX_RANK];
    if (!indices)
        goto done;
    int rank = TF_NumDims(params), index_rank = TF_NumDims(indices);
    int64_t k = index_rank ? TF_Dim(indices, index_rank - 1) : 0;
    if (index_rank < 1 || k > rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "index innermost dimension length must be <= params rank; saw: %lld vs. %d",
            (long long)k, rank);
        goto done;
    }
    int out_rank = 0;
    for (int i = 0; i < index_rank - 1; i++)
        out_dims[out_rank++] = TF_Dim(indices, i);
    int64_t inner = 1, n = dmltf_element_count(out_dims, out_rank);
    for (int i = (int)k; i < rank; i++)
        inner *= out_dims[out_rank++] = TF_Dim(params, i);
    /* Every tuple inside params, as TensorFlow's CPU kernel checks. */
    const void* data = TF_TensorData(indices);
    bool wide = TF_TensorType(indices) == TF_INT64;
    for (int64_t t = 0; t < n; t++)
        for (int64_t c = 0; c < k; c++) {
            int64_t v = wide ? ((const int64_t*)data)[t * k + c] : ((const int32_t*)data)[t * k + c];
            if (v < 0 || v >= TF_Dim(params, (int)c)) {
                dmltf_fail(ctx, TF_INVALID_ARGUMENT, "indices[%lld] = %lld (component %lld) does not index into param shape",
                    (long long)t, (long long)v, (long long)c);
                goto done;
            }
        }
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(params), out_dims, out_rank)) || n * inner == 0)
        goto done;
    if (k == 0 || k + 1 > DMLTF_MAX_RANK || n > UINT32_MAX || inner > UINT32_MAX) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "GatherNd with an index tuple of %lld components (the DML device takes 1 to %d) or a dimension above 2^32-1",
            (long long)k, DMLTF_MAX_RANK - 1);
        goto done;
    }
    gather_nd_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_GATHER_ND;
    key.type = dmltf_bits_type(TF_TensorType(params));
    key.index_type = wide ? DML_TENSOR_DATA_TYPE_INT64 : DML_TENSOR_DATA_TYPE_INT32;
    key.input.rank = (uint32_t)k + 1;
    for (int i = 0; i < k; i++)
        key.input.sizes[i] = (uint32_t)TF_Dim(params, i);
    key.input.sizes[k] = (uint32_t)inner;
    key.count = (uint32_t)n;
    int64_t index_count = TF_TensorElementCount(indices);
    if (!(device_indices = dmltf_upload(ctx, TF_TensorType(indices), index_count, data)))
        goto done;
    dmltf_binding in[2] = { { TF_TensorData(params), TF_TensorByteSize(params) },
        { TF_TensorData(device_indices), TF_TensorByteSize(indices) } };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_gather_nd, in, 2, &out, 1);
done:
    TF_DeleteTensor(device_indices);
    TF_DeleteTensor(output);
    TF_DeleteTensor(indices);
    TF_DeleteTensor(params);
}

void dmltf_register_gather_kernels(void)
{
    static const char* const host_args[] = { "indices", "axis", NULL };
    static const char* const nd_args[] = { "indices", NULL };
    dmltf_register("GatherV2", gather_create, gather_compute, gather_delete, "Tparams", dmltf_movement_types,
        dmltf_movement_type_count, host_args);
    dmltf_register("GatherNd", dmltf_no_state, gather_nd_compute, dmltf_free_state, "Tparams", dmltf_movement_types,
        dmltf_movement_type_count, nd_args);
}
