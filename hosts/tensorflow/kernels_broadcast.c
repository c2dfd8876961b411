/*
 * kernels_broadcast.c — BroadcastTo (ELEMENT_WISE_IDENTITY reading through
 * strides of 0), Fill (FILL_VALUE_CONSTANT), Select and SelectV2
 * (ELEMENT_WISE_IF, numpy broadcasting as strides of 0). Values move as
 * bits: Fill's value is its bit pattern in the same-size unsigned type.
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

enum { KERNEL_BROADCAST = 0x400, KERNEL_FILL, KERNEL_SELECT };

/* numpy broadcasting of dims (rank) into out (out_rank): the element strides
 * reading a packed tensor of dims at each output coordinate (0 where it
 * repeats). false when dims does not broadcast to out. */
static bool broadcast_strides(const int64_t* dims, int rank, const int64_t* out, int out_rank, uint32_t* strides)
{
    if (rank > out_rank)
        return false;
    int64_t stride = 1;
    for (int j = out_rank - 1; j >= 0; j--) {
        int i = j - (out_rank - rank);
        if (i < 0) {
            strides[j] = 0;
            continue;
        }
        if (dims[i] != out[j] && dims[i] != 1)
            return false;
        strides[j] = dims[i] == 1 ? 0 : (uint32_t)stride;
        stride *= dims[i];
    }
    return stride <= UINT32_MAX;
}

/* The numpy broadcast shape of a and b (TensorFlow's BCast); false if none. */
static bool broadcast_shape(const int64_t* a, int ra, const int64_t* b, int rb, int64_t* out, int* rank)
{
    *rank = ra > rb ? ra : rb;
    for (int j = 0; j < *rank; j++) {
        int i = j - (*rank - ra), k = j - (*rank - rb);
        int64_t x = i < 0 ? 1 : a[i], y = k < 0 ? 1 : b[k];
        if (x != y && x != 1 && y != 1)
            return false;
        out[j] = x == 1 ? y : x;
    }
    return true;
}

/* ---- BroadcastTo ---- */

typedef struct broadcast_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    dmltf_shape output;
    uint32_t strides[DMLTF_MAX_RANK];
} broadcast_key;

static DML_RESULT create_broadcast(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const broadcast_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC in_buffer, out_buffer;
    DML_TENSOR_DESC in, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->output, key->strides);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity = { &in, &out, NULL };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static void broadcast_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* shape = input ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* output = NULL;
    int64_t dims[DMLTF_MAX_RANK], out_dims[DMLTF_MAX_RANK], count;
    int rank;
    if (!shape || !dmltf_tensor_dims(ctx, input, "input", dims, &rank) ||
        !dmltf_read_host_ints(ctx, shape, "shape", out_dims, DMLTF_MAX_RANK, &count))
        goto done;
    broadcast_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_BROADCAST;
    key.type = dmltf_bits_type(TF_TensorType(input));
    if (!broadcast_strides(dims, rank, out_dims, (int)count, key.strides)) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Unable to broadcast tensor of rank %d to the requested shape", rank);
        goto done;
    }
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(input), out_dims, (int)count)))
        goto done;
    if (dmltf_element_count(out_dims, (int)count) == 0 || !dmltf_shape_from_dims(ctx, out_dims, (int)count, &key.output))
        goto done;
    dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_broadcast, &in, 1, &out, 1);
done:
    TF_DeleteTensor(output);
    TF_DeleteTensor(shape);
    TF_DeleteTensor(input);
}

/* ---- Fill ---- */

typedef struct fill_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    DML_SCALAR_UNION value;
    dmltf_shape output;
} fill_key;

static DML_RESULT create_fill(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const fill_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC out_buffer;
    DML_TENSOR_DESC out;
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, NULL);
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill = { &out, key->type, key->value };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_FILL_VALUE_CONSTANT, &fill };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static void fill_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* dims_tensor = dmltf_input(ctx, 0);
    TF_Tensor* value = dims_tensor ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* output = NULL;
    int64_t dims[DMLTF_MAX_RANK], count;
    if (!value || !dmltf_read_host_ints(ctx, dims_tensor, "dims", dims, DMLTF_MAX_RANK, &count))
        goto done;
    if (TF_NumDims(dims_tensor) != 1 || TF_NumDims(value) != 0) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "dims must be a vector and value a scalar");
        goto done;
    }
    for (int64_t i = 0; i < count; i++)
        if (dims[i] < 0) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "dims[%lld] = %lld must be non-negative", (long long)i,
                (long long)dims[i]);
            goto done;
        }
    fill_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_FILL;
    key.type = dmltf_bits_type(TF_TensorType(value));
    memcpy(key.value.Bytes, TF_TensorData(value), TF_DataTypeSize(TF_TensorType(value)));
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(value), dims, (int)count)))
        goto done;
    if (dmltf_element_count(dims, (int)count) == 0 || !dmltf_shape_from_dims(ctx, dims, (int)count, &key.output))
        goto done;
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_fill, NULL, 0, &out, 1);
done:
    TF_DeleteTensor(output);
    TF_DeleteTensor(value);
    TF_DeleteTensor(dims_tensor);
}

/* ---- Select, SelectV2 ---- */

typedef struct select_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    dmltf_shape output;
    uint32_t strides[3][DMLTF_MAX_RANK]; /* condition, then, else */
} select_key;

static DML_RESULT create_select(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const select_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC buffers[4];
    DML_TENSOR_DESC tensors[4];
    dmltf_tensor_desc(&buffers[0], &tensors[0], DML_TENSOR_DATA_TYPE_UINT8, &key->output, key->strides[0]);
    dmltf_tensor_desc(&buffers[1], &tensors[1], key->type, &key->output, key->strides[1]);
    dmltf_tensor_desc(&buffers[2], &tensors[2], key->type, &key->output, key->strides[2]);
    dmltf_tensor_desc(&buffers[3], &tensors[3], key->type, &key->output, NULL);
    DML_ELEMENT_WISE_IF_OPERATOR_DESC select = { &tensors[0], &tensors[1], &tensors[2], &tensors[3] };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_ELEMENT_WISE_IF, &select };
    return dmlDeviceCreateOperator(device, &desc, op);
}

typedef struct select_kernel {
    bool v2; /* numpy broadcasting; Select (v1) takes a condition of t's shape or of its first dimension */
} select_kernel;

static void* select_create(TF_OpKernelConstruction* ctx)
{
    (void)ctx;
    return calloc(1, sizeof(select_kernel));
}

static void* select_v2_create(TF_OpKernelConstruction* ctx)
{
    select_kernel* k = select_create(ctx);
    if (k)
        k->v2 = true;
    return k;
}

static void select_delete(void* kernel)
{
    free(kernel);
}

static void select_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const select_kernel* k = kernel;
    TF_Tensor* tensors[3] = { NULL, NULL, NULL };
    TF_Tensor* output = NULL;
    int64_t dims[3][DMLTF_MAX_RANK], out_dims[DMLTF_MAX_RANK], both[DMLTF_MAX_RANK];
    int ranks[3], out_rank, both_rank;
    static const char* const names[] = { "condition", "t", "e" };
    for (int i = 0; i < 3; i++)
        if (!(tensors[i] = dmltf_input(ctx, i)) || !dmltf_tensor_dims(ctx, tensors[i], names[i], dims[i], &ranks[i]))
            goto done;
    select_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_SELECT;
    key.type = dmltf_bits_type(TF_TensorType(tensors[1]));
    bool ok;
    if (k->v2) {
        ok = broadcast_shape(dims[1], ranks[1], dims[2], ranks[2], both, &both_rank) &&
            broadcast_shape(dims[0], ranks[0], both, both_rank, out_dims, &out_rank) && out_rank <= DMLTF_MAX_RANK;
        for (int i = 0; ok && i < 3; i++)
            ok = broadcast_strides(dims[i], ranks[i], out_dims, out_rank, key.strides[i]);
    } else {
        /* t and e equal; condition equal to them, or a vector over their first dimension. */
        ok = ranks[1] == ranks[2] && memcmp(dims[1], dims[2], sizeof(int64_t) * (size_t)ranks[1]) == 0;
        out_rank = ranks[1];
        memcpy(out_dims, dims[1], sizeof(int64_t) * (size_t)out_rank);
        for (int i = 1; ok && i < 3; i++)
            ok = broadcast_strides(dims[i], ranks[i], out_dims, out_rank, key.strides[i]);
        if (ok && ranks[0] == out_rank)
            ok = memcmp(dims[0], out_dims, sizeof(int64_t) * (size_t)out_rank) == 0 &&
                broadcast_strides(dims[0], ranks[0], out_dims, out_rank, key.strides[0]);
        else if (ok)
            ok = ranks[0] == 1 && out_rank > 1 && dims[0][0] == out_dims[0];
        if (ok && ranks[0] == 1 && out_rank > 1) {
            memset(key.strides[0], 0, sizeof key.strides[0]);
            key.strides[0][0] = out_dims[0] == 1 ? 0 : 1;
        }
    }
    if (!ok) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "condition, then and else shapes are not compatible for %s",
            k->v2 ? "SelectV2 (broadcasting)" : "Select");
        goto done;
    }
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(tensors[1]), out_dims, out_rank)))
        goto done;
    if (dmltf_element_count(out_dims, out_rank) == 0 || !dmltf_shape_from_dims(ctx, out_dims, out_rank, &key.output))
        goto done;
    if (out_rank == 0)
        key.strides[0][0] = key.strides[1][0] = key.strides[2][0] = 0;
    dmltf_binding in[3];
    for (int i = 0; i < 3; i++)
        in[i] = (dmltf_binding){ TF_TensorData(tensors[i]), TF_TensorByteSize(tensors[i]) };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_select, in, 3, &out, 1);
done:
    TF_DeleteTensor(output);
    for (int i = 0; i < 3; i++)
        TF_DeleteTensor(tensors[i]);
}

void dmltf_register_broadcast_kernels(void)
{
    static const char* const shape_arg[] = { "shape", NULL };
    static const char* const fill_args[] = { "dims", "value", NULL };
    const TF_DataType* types = dmltf_movement_types;
    size_t n = dmltf_movement_type_count;
    dmltf_register("BroadcastTo", dmltf_no_state, broadcast_compute, dmltf_free_state, "T", types, n, shape_arg);
    dmltf_register("Fill", dmltf_no_state, fill_compute, dmltf_free_state, "T", types, n, fill_args);
    dmltf_register("Select", select_create, select_compute, select_delete, "T", types, n, NULL);
    dmltf_register("SelectV2", select_v2_create, select_compute, select_delete, "T", types, n, NULL);
}
