/*
 * kernels_scatter.c — TensorScatterUpdate as SCATTER_ND over
 * {tuple dimensions..., inner}: a copy of the tensor with the updated rows.
 *
 * indices is host memory: checked as TensorFlow's CPU kernel checks them
 * (an index outside the tensor is InvalidArgument, where the runtime would
 * drop the update), then copied to a device temporary. Of several updates
 * to one element TensorFlow's CPU kernel keeps the last, as the runtime's
 * cpu backend does; other backends keep one of them (docs/operators.md).
 * ScatterNd is not mapped: TensorFlow adds duplicate updates.
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

enum { KERNEL_SCATTER_ND = 0x800 };

typedef struct scatter_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type, index_type;
    dmltf_shape input; /* the tuple's K dimensions, then inner */
    uint32_t count;    /* tuples */
} scatter_key;

static DML_RESULT create_scatter(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const scatter_key* key = key_bytes;
    uint32_t rank = key->input.rank, k = rank - 1;
    dmltf_shape indices = { rank, { 0 } }, updates = { rank, { 0 } };
    for (uint32_t i = 0; i < rank; i++)
        indices.sizes[i] = updates.sizes[i] = 1;
    indices.sizes[rank - 2] = key->count;
    indices.sizes[rank - 1] = k;
    updates.sizes[rank - 2] = key->count;
    updates.sizes[rank - 1] = key->input.sizes[k];
    DML_BUFFER_TENSOR_DESC buffers[4];
    DML_TENSOR_DESC in, index, update, out;
    dmltf_tensor_desc(&buffers[0], &in, key->type, &key->input, NULL);
    dmltf_tensor_desc(&buffers[1], &index, key->index_type, &indices, NULL);
    dmltf_tensor_desc(&buffers[2], &update, key->type, &updates, NULL);
    dmltf_tensor_desc(&buffers[3], &out, key->type, &key->input, NULL);
    DML_SCATTER_ND_OPERATOR_DESC scatter = { &in, &index, &update, &out, rank, 2 };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SCATTER_ND, &scatter };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static void* no_state(TF_OpKernelConstruction* ctx)
{
    (void)ctx;
    return NULL;
}

static void no_delete(void* kernel)
{
    (void)kernel;
}

/* TensorFlow's shape rule: updates = indices.shape[:-1] + tensor.shape[K:]. */
static bool check_shapes(TF_OpKernelContext* ctx, const TF_Tensor* tensor, const TF_Tensor* indices,
    const TF_Tensor* updates, int64_t k)
{
    int rank = TF_NumDims(tensor), index_rank = TF_NumDims(indices), update_rank = TF_NumDims(updates);
    bool ok = index_rank >= 1 && k >= 1 && k <= rank && update_rank == index_rank - 1 + rank - k;
    for (int i = 0; ok && i < index_rank - 1; i++)
        ok = TF_Dim(updates, i) == TF_Dim(indices, i);
    for (int i = 0; ok && i < rank - k; i++)
        ok = TF_Dim(updates, index_rank - 1 + i) == TF_Dim(tensor, (int)k + i);
    if (!ok)
        dmltf_fail(ctx, TF_INVALID_ARGUMENT,
            "Dimensions of updates must match indices.shape[:-1] + tensor.shape[indices.shape[-1]:] (index depth %lld)",
            (long long)k);
    return ok;
}

static void scatter_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* tensor = dmltf_input(ctx, 0);
    TF_Tensor* indices = tensor ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* updates = indices ? dmltf_input(ctx, 2) : NULL;
    TF_Tensor *output = NULL, *device_indices = NULL;
    int64_t dims[DMLTF_MAX_RANK];
    int rank;
    if (!updates || !dmltf_tensor_dims(ctx, tensor, "tensor", dims, &rank))
        goto done;
    int index_rank = TF_NumDims(indices);
    int64_t k = index_rank ? TF_Dim(indices, index_rank - 1) : 0;
    if (!check_shapes(ctx, tensor, indices, updates, k))
        goto done;
    int64_t n = TF_TensorElementCount(indices) / k, inner = 1;
    for (int i = (int)k; i < rank; i++)
        inner *= dims[i];
    const void* data = TF_TensorData(indices);
    bool wide = TF_TensorType(indices) == TF_INT64;
    for (int64_t t = 0; t < n; t++)
        for (int64_t c = 0; c < k; c++) {
            int64_t v = wide ? ((const int64_t*)data)[t * k + c] : ((const int32_t*)data)[t * k + c];
            if (v < 0 || v >= dims[c]) {
                dmltf_fail(ctx, TF_INVALID_ARGUMENT, "indices[%lld] = %lld (component %lld) does not index into shape",
                    (long long)t, (long long)v, (long long)c);
                goto done;
            }
        }
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(tensor), dims, rank)))
        goto done;
    SP_Stream stream = NULL;
    TF_Status* status = TF_NewStatus();
    if (dmltf_element_count(dims, rank) && (n == 0 || inner == 0)) { /* nothing updated: a copy */
        stream = TF_GetStream(ctx, status);
        if (TF_GetCode(status) == TF_OK)
            dmltf_copy_on_device(stream->device, stream->queue, TF_TensorData(output), TF_TensorData(tensor),
                TF_TensorByteSize(tensor), status);
    }
    bool copied = TF_GetCode(status) == TF_OK;
    if (!copied)
        TF_OpKernelContext_Failure(ctx, status);
    TF_DeleteStatus(status);
    if (!copied || dmltf_element_count(dims, rank) == 0 || n == 0 || inner == 0)
        goto done;
    if (k + 1 > DMLTF_MAX_RANK || n > UINT32_MAX || inner > UINT32_MAX) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "an index tuple of %lld components (the DML device takes 1 to %d) or a dimension above 2^32-1",
            (long long)k, DMLTF_MAX_RANK - 1);
        goto done;
    }
    scatter_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_SCATTER_ND;
    key.type = dmltf_bits_type(TF_TensorType(tensor));
    key.index_type = wide ? DML_TENSOR_DATA_TYPE_INT64 : DML_TENSOR_DATA_TYPE_INT32;
    key.input.rank = (uint32_t)k + 1;
    for (int i = 0; i < k; i++)
        key.input.sizes[i] = (uint32_t)dims[i];
    key.input.sizes[k] = (uint32_t)inner;
    key.count = (uint32_t)n;
    int64_t index_count = TF_TensorElementCount(indices);
    if (!(device_indices = dmltf_upload(ctx, TF_TensorType(indices), index_count, data)))
        goto done;
    dmltf_binding in[3] = { { TF_TensorData(tensor), TF_TensorByteSize(tensor) },
        { TF_TensorData(device_indices), TF_TensorByteSize(indices) },
        { TF_TensorData(updates), TF_TensorByteSize(updates) } };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_scatter, in, 3, &out, 1);
done:
    TF_DeleteTensor(device_indices);
    TF_DeleteTensor(output);
    TF_DeleteTensor(updates);
    TF_DeleteTensor(indices);
    TF_DeleteTensor(tensor);
}

void dmltf_register_scatter_kernels(void)
{
    static const char* const host_args[] = { "indices", NULL };
    dmltf_register("TensorScatterUpdate", no_state, scatter_compute, no_delete, "T", dmltf_movement_types,
        dmltf_movement_type_count, host_args);
}
