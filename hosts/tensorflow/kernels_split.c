/*
 * kernels_split.c — Split, SplitV and Unpack as SPLIT. Outputs that are empty
 * along the axis are allocated but not part of the runtime operator (it has
 * no empty tensors).
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

enum { KERNEL_SPLIT = 0x500, KERNEL_UNPACK };

#define MAX_SPLIT_OUTPUTS 64

typedef struct split_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    dmltf_shape input;
    uint32_t axis, count;
    uint32_t axis_sizes[MAX_SPLIT_OUTPUTS];
} split_key;

static DML_RESULT create_split(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const split_key* key = key_bytes;
    dmltf_shape shapes[MAX_SPLIT_OUTPUTS];
    DML_BUFFER_TENSOR_DESC buffers[MAX_SPLIT_OUTPUTS], in_buffer;
    DML_TENSOR_DESC tensors[MAX_SPLIT_OUTPUTS], in;
    for (uint32_t i = 0; i < key->count; i++) {
        shapes[i] = key->input;
        shapes[i].sizes[key->axis] = key->axis_sizes[i];
        dmltf_tensor_desc(&buffers[i], &tensors[i], key->type, &shapes[i], NULL);
    }
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->input, NULL);
    DML_SPLIT_OPERATOR_DESC split = { &in, key->count, tensors, key->axis };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SPLIT, &split };
    return dmlDeviceCreateOperator(device, &desc, op);
}

typedef struct split_kernel {
    bool sized; /* SplitV: (value, size_splits, axis); Split: (axis, value) */
} split_kernel;

static void* split_create(TF_OpKernelConstruction* ctx)
{
    (void)ctx;
    return calloc(1, sizeof(split_kernel));
}

static void* split_v_create(TF_OpKernelConstruction* ctx)
{
    split_kernel* k = split_create(ctx);
    if (k)
        k->sized = true;
    return k;
}

static void split_delete(void* kernel)
{
    free(kernel);
}

/* The axis sizes of the outputs (TensorFlow's rules: equal parts for Split,
 * size_splits with at most one -1 for SplitV). */
static bool split_sizes(TF_OpKernelContext* ctx, const split_kernel* k, TF_Tensor* sizes_tensor, int64_t dim,
    int n, int64_t* sizes)
{
    if (!k->sized) {
        if (n <= 0 || dim % n) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Number of ways to split should evenly divide the split dimension, but got split_dim %lld (size = %lld) and num_split %d",
                (long long)0, (long long)dim, n);
            return false;
        }
        for (int i = 0; i < n; i++)
            sizes[i] = dim / n;
        return true;
    }
    int64_t count;
    if (!dmltf_read_host_ints(ctx, sizes_tensor, "size_splits", sizes, MAX_SPLIT_OUTPUTS, &count))
        return false;
    if (count != n) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "size_splits has %lld elements; num_split is %d", (long long)count, n);
        return false;
    }
    if (n == 1 && sizes[0] != dim) { /* TensorFlow's rule, -1 included */
        dmltf_fail(ctx, TF_INVALID_ARGUMENT,
            "If there is only one output, it must have the same size as the input. Input size: %lld output size: %lld",
            (long long)dim, (long long)sizes[0]);
        return false;
    }
    int64_t known = 0, unknown = -1;
    for (int i = 0; i < n; i++) {
        if (sizes[i] == -1 && unknown < 0)
            unknown = i;
        else if (sizes[i] < 0) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "There can only be one -1 in the input; sizes must be >= 0");
            return false;
        } else
            known += sizes[i];
    }
    if (unknown >= 0 && known <= dim)
        sizes[unknown] = dim - known;
    else if (unknown >= 0 || known != dim) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: %lld",
            (long long)known);
        return false;
    }
    return true;
}

static void split_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const split_kernel* k = kernel;
    int n = TF_NumOutputs(ctx);
    int value_index = k->sized ? 0 : 1, axis_index = k->sized ? 2 : 0;
    TF_Tensor* input = dmltf_input(ctx, value_index);
    TF_Tensor* axis_tensor = input ? dmltf_input(ctx, axis_index) : NULL;
    TF_Tensor* sizes_tensor = axis_tensor && k->sized ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* outputs[MAX_SPLIT_OUTPUTS] = { NULL };
    int64_t dims[DMLTF_MAX_RANK], sizes[MAX_SPLIT_OUTPUTS], axis, count;
    int rank;
    if (!axis_tensor || (k->sized && !sizes_tensor) || !dmltf_tensor_dims(ctx, input, "value", dims, &rank) ||
        !dmltf_read_host_ints(ctx, axis_tensor, "split_dim", &axis, 1, &count))
        goto done;
    if (n > MAX_SPLIT_OUTPUTS) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "a split into %d tensors; the DML device splits into at most %d", n,
            MAX_SPLIT_OUTPUTS);
        goto done;
    }
    if (axis < -rank || axis >= rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "-input rank(-%d) <= split_dim < input rank (%d), but got %lld", rank, rank,
            (long long)axis);
        goto done;
    }
    if (axis < 0)
        axis += rank;
    if (!split_sizes(ctx, k, sizes_tensor, dims[axis], n, sizes))
        goto done;
    split_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_SPLIT;
    key.type = dmltf_bits_type(TF_TensorType(input));
    key.axis = (uint32_t)axis;
    dmltf_binding bindings[MAX_SPLIT_OUTPUTS];
    for (int i = 0; i < n; i++) {
        int64_t out_dims[DMLTF_MAX_RANK];
        memcpy(out_dims, dims, sizeof(int64_t) * (size_t)rank);
        out_dims[axis] = sizes[i];
        if (!(outputs[i] = dmltf_output(ctx, i, TF_TensorType(input), out_dims, rank)))
            goto done;
        if (dmltf_element_count(out_dims, rank) == 0)
            continue;
        bindings[key.count] = (dmltf_binding){ TF_TensorData(outputs[i]), TF_TensorByteSize(outputs[i]) };
        key.axis_sizes[key.count++] = (uint32_t)sizes[i];
    }
    if (key.count == 0 || !dmltf_shape_from_dims(ctx, dims, rank, &key.input))
        goto done;
    dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
    dmltf_run(ctx, &key, sizeof key, create_split, &in, 1, bindings, key.count);
done:
    for (int i = 0; i < n && i < MAX_SPLIT_OUTPUTS; i++)
        TF_DeleteTensor(outputs[i]);
    TF_DeleteTensor(sizes_tensor);
    TF_DeleteTensor(axis_tensor);
    TF_DeleteTensor(input);
}

/* ---- Unpack: a SPLIT into parts of 1 along axis, seen without it ---- */

static void unpack_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const dmltf_axis_kernel* k = kernel;
    int n = TF_NumOutputs(ctx);
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* outputs[MAX_SPLIT_OUTPUTS] = { NULL };
    int64_t dims[DMLTF_MAX_RANK], out[DMLTF_MAX_RANK];
    int rank;
    if (!input || !dmltf_tensor_dims(ctx, input, "value", dims, &rank))
        goto done;
    int64_t axis = k->axis < 0 ? k->axis + rank : k->axis;
    if (axis < 0 || axis >= rank || n > MAX_SPLIT_OUTPUTS || dims[axis] != n) {
        dmltf_fail(ctx, n > MAX_SPLIT_OUTPUTS ? TF_UNIMPLEMENTED : TF_INVALID_ARGUMENT,
            "axis = %lld not in [%d, %d), or num = %d differs from the axis' size (at most %d outputs)",
            (long long)k->axis, -rank, rank, n, MAX_SPLIT_OUTPUTS);
        goto done;
    }
    for (int i = 0, j = 0; i < rank; i++)
        if (i != axis)
            out[j++] = dims[i];
    split_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_UNPACK;
    key.type = dmltf_bits_type(TF_TensorType(input));
    key.axis = (uint32_t)axis;
    key.count = (uint32_t)n;
    dmltf_binding bindings[MAX_SPLIT_OUTPUTS];
    for (int i = 0; i < n; i++) {
        if (!(outputs[i] = dmltf_output(ctx, i, TF_TensorType(input), out, rank - 1)))
            goto done;
        key.axis_sizes[i] = 1;
        bindings[i] = (dmltf_binding){ TF_TensorData(outputs[i]), TF_TensorByteSize(outputs[i]) };
    }
    if (n == 0 || dmltf_element_count(dims, rank) == 0 || !dmltf_shape_from_dims(ctx, dims, rank, &key.input))
        goto done;
    dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
    dmltf_run(ctx, &key, sizeof key, create_split, &in, 1, bindings, key.count);
done:
    for (int i = 0; i < n && i < MAX_SPLIT_OUTPUTS; i++)
        TF_DeleteTensor(outputs[i]);
    TF_DeleteTensor(input);
}

void dmltf_register_split_kernels(void)
{
    static const char* const split_args[] = { "split_dim", NULL };
    static const char* const split_v_args[] = { "size_splits", "split_dim", NULL };
    const TF_DataType* types = dmltf_movement_types;
    size_t n = dmltf_movement_type_count;
    dmltf_register("Split", split_create, split_compute, split_delete, "T", types, n, split_args);
    dmltf_register("SplitV", split_v_create, split_compute, split_delete, "T", types, n, split_v_args);
    /* Not int32, as Pack (kernels_join.c). */
    dmltf_register("Unpack", dmltf_axis_state, unpack_compute, dmltf_free_state, "T", types, n - 1, NULL);
}
