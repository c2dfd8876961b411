/*
 * kernels.c — TF_InitKernel and what every kernel file shares: types,
 * shapes, host-memory arguments, failures, registration.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dml_tf.h"

/* int32 included: unlike its GPUs, TensorFlow gives a PluggableDevice's
 * kernels their int32 tensors in device memory (the tests check it). It is
 * last, so that the first count - 1 types are all but int32 (Pack, Unpack). */
const TF_DataType dmltf_movement_types[] = {
    TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT64,
    TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL, TF_INT32,
};
const size_t dmltf_movement_type_count = sizeof dmltf_movement_types / sizeof dmltf_movement_types[0];

DML_TENSOR_DATA_TYPE dmltf_bits_type(TF_DataType type)
{
    switch (type) {
    case TF_INT8: case TF_UINT8: case TF_BOOL:
        return DML_TENSOR_DATA_TYPE_UINT8;
    case TF_INT16: case TF_UINT16: case TF_HALF: case TF_BFLOAT16:
        return DML_TENSOR_DATA_TYPE_UINT16;
    case TF_INT32: case TF_UINT32: case TF_FLOAT:
        return DML_TENSOR_DATA_TYPE_UINT32;
    case TF_INT64: case TF_UINT64: case TF_DOUBLE:
        return DML_TENSOR_DATA_TYPE_UINT64;
    default:
        return DML_TENSOR_DATA_TYPE_UNKNOWN;
    }
}

DML_TENSOR_DATA_TYPE dmltf_value_type(TF_DataType type)
{
    switch (type) {
    case TF_FLOAT: return DML_TENSOR_DATA_TYPE_FLOAT32;
    case TF_DOUBLE: return DML_TENSOR_DATA_TYPE_FLOAT64;
    case TF_HALF: return DML_TENSOR_DATA_TYPE_FLOAT16;
    case TF_INT8: return DML_TENSOR_DATA_TYPE_INT8;
    case TF_INT16: return DML_TENSOR_DATA_TYPE_INT16;
    case TF_INT32: return DML_TENSOR_DATA_TYPE_INT32;
    case TF_INT64: return DML_TENSOR_DATA_TYPE_INT64;
    case TF_UINT8: return DML_TENSOR_DATA_TYPE_UINT8;
    case TF_UINT16: return DML_TENSOR_DATA_TYPE_UINT16;
    case TF_UINT32: return DML_TENSOR_DATA_TYPE_UINT32;
    case TF_UINT64: return DML_TENSOR_DATA_TYPE_UINT64;
    default: return DML_TENSOR_DATA_TYPE_UNKNOWN;
    }
}

void dmltf_fail(TF_OpKernelContext* ctx, TF_Code code, const char* format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    TF_Status* status = TF_NewStatus();
    TF_SetStatus(status, code, message);
    TF_OpKernelContext_Failure(ctx, status);
    TF_DeleteStatus(status);
}

/* The tensor a TensorFlow call made, or NULL after reporting its failed
 * status to ctx; status is deleted either way. */
static TF_Tensor* checked(TF_OpKernelContext* ctx, TF_Status* status, TF_Tensor* tensor)
{
    if (TF_GetCode(status) != TF_OK) {
        TF_OpKernelContext_Failure(ctx, status);
        TF_DeleteTensor(tensor);
        tensor = NULL;
    }
    TF_DeleteStatus(status);
    return tensor;
}

TF_Tensor* dmltf_input(TF_OpKernelContext* ctx, int index)
{
    TF_Tensor* tensor = NULL;
    TF_Status* status = TF_NewStatus();
    TF_GetInput(ctx, index, &tensor, status);
    return checked(ctx, status, tensor);
}

TF_Tensor* dmltf_output(TF_OpKernelContext* ctx, int index, TF_DataType type, const int64_t* dims, int rank)
{
    const int64_t count = dmltf_element_count(dims, rank);
    const size_t element = TF_DataTypeSize(type);
    if (count < 0 || (element && (uint64_t)count > SIZE_MAX / element)) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "output %d: shape of more than 2^63 elements or bytes", index);
        return NULL;
    }
    TF_Status* status = TF_NewStatus();
    TF_Tensor* tensor = TF_AllocateOutput(ctx, index, type, dims, rank, (size_t)count * element, status);
    return checked(ctx, status, tensor);
}

int64_t dmltf_element_count(const int64_t* dims, int rank)
{
    int64_t count = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return -1;
        if (dims[i] == 0)
            return 0;
        if (count > INT64_MAX / dims[i])
            count = -1; /* overflowed; a later 0 still makes the count 0 */
        else if (count >= 0)
            count *= dims[i];
    }
    return count;
}

bool dmltf_tensor_dims(TF_OpKernelContext* ctx, const TF_Tensor* tensor, const char* what, int64_t* dims, int* rank)
{
    *rank = TF_NumDims(tensor);
    if (*rank > DMLTF_MAX_RANK) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "%s has rank %d; the DML device supports at most %d", what, *rank,
            DMLTF_MAX_RANK);
        return false;
    }
    for (int i = 0; i < *rank; i++)
        dims[i] = TF_Dim(tensor, i);
    return true;
}

bool dmltf_shape_from_dims(TF_OpKernelContext* ctx, const int64_t* dims, int rank, dmltf_shape* shape)
{
    memset(shape, 0, sizeof *shape);
    if (rank == 0) {
        shape->rank = 1;
        shape->sizes[0] = 1;
        return true;
    }
    shape->rank = (uint32_t)rank;
    for (int i = 0; i < rank; i++) {
        if (dims[i] > UINT32_MAX) {
            dmltf_fail(ctx, TF_UNIMPLEMENTED, "dimension %d of size %lld exceeds the DML device's 2^32-1", i,
                (long long)dims[i]);
            return false;
        }
        shape->sizes[i] = (uint32_t)dims[i];
    }
    return true;
}

bool dmltf_read_host_ints(TF_OpKernelContext* ctx, const TF_Tensor* tensor, const char* what, int64_t* values,
    int64_t max, int64_t* count)
{
    TF_DataType type = TF_TensorType(tensor);
    int64_t n = TF_TensorElementCount(tensor);
    if (type != TF_INT32 && type != TF_INT64) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "%s must be int32 or int64", what);
        return false;
    }
    if (n > max) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "%s has %lld elements; at most %lld", what, (long long)n,
            (long long)max);
        return false;
    }
    const void* data = TF_TensorData(tensor);
    for (int64_t i = 0; i < n; i++)
        values[i] = type == TF_INT32 ? ((const int32_t*)data)[i] : ((const int64_t*)data)[i];
    *count = n;
    return true;
}

void dmltf_tensor_desc(DML_BUFFER_TENSOR_DESC* buffer, DML_TENSOR_DESC* tensor, DML_TENSOR_DATA_TYPE type,
    const dmltf_shape* shape, const uint32_t* strides)
{
    memset(buffer, 0, sizeof *buffer);
    buffer->DataType = type;
    buffer->DimensionCount = shape->rank;
    buffer->Sizes = shape->sizes;
    buffer->Strides = strides;
    buffer->TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, shape->rank, shape->sizes, strides);
    tensor->Type = DML_TENSOR_TYPE_BUFFER;
    tensor->Desc = buffer;
}

TF_Tensor* dmltf_device_temp(TF_OpKernelContext* ctx, TF_DataType type, int64_t count)
{
    TF_Status* status = TF_NewStatus();
    TF_AllocatorAttributes on_device = { TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE, 0 };
    TF_Tensor* t = TF_AllocateTemp(ctx, type, &count, 1, &on_device, status);
    return checked(ctx, status, t);
}

TF_Tensor* dmltf_upload(TF_OpKernelContext* ctx, TF_DataType type, int64_t count, const void* bytes)
{
    TF_Tensor* t = dmltf_device_temp(ctx, type, count);
    if (!t)
        return NULL;
    TF_Status* status = TF_NewStatus();
    SP_Stream stream = TF_GetStream(ctx, status);
    if (TF_GetCode(status) == TF_OK)
        dmltf_copy_to_device(stream->device, stream->queue, TF_TensorData(t), bytes,
            (uint64_t)count * TF_DataTypeSize(type), status);
    return checked(ctx, status, t);
}

void* dmltf_no_state(TF_OpKernelConstruction* ctx)
{
    (void)ctx;
    return NULL;
}

void* dmltf_axis_state(TF_OpKernelConstruction* ctx)
{
    dmltf_axis_kernel* k = calloc(1, sizeof *k);
    TF_Status* status = TF_NewStatus();
    if (k)
        TF_OpKernelConstruction_GetAttrInt64(ctx, "axis", &k->axis, status);
    else
        TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "DML plugin: out of host memory");
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelConstruction_Failure(ctx, status);
    TF_DeleteStatus(status);
    return k;
}

void dmltf_free_state(void* kernel)
{
    free(kernel);
}

void dmltf_register(const char* op_name, void* (*create)(TF_OpKernelConstruction*),
    void (*compute)(void*, TF_OpKernelContext*), void (*destroy)(void*), const char* type_attr,
    const TF_DataType* types, size_t type_count, const char* const* host_args)
{
    TF_Status* status = TF_NewStatus();
    for (size_t t = 0; t < (type_attr ? type_count : 1); t++) {
        TF_KernelBuilder* builder = TF_NewKernelBuilder(op_name, DMLTF_DEVICE_TYPE, create, compute, destroy);
        if (type_attr)
            TF_KernelBuilder_TypeConstraint(builder, type_attr, types[t], status);
        for (const char* const* arg = host_args; arg && *arg; arg++)
            TF_KernelBuilder_HostMemory(builder, *arg);
        if (TF_GetCode(status) == TF_OK)
            TF_RegisterKernelBuilder(op_name, builder, status);
        else
            TF_DeleteKernelBuilder(builder);
        if (TF_GetCode(status) != TF_OK) {
            fprintf(stderr, "DML plugin: registering %s failed: %s\n", op_name, TF_Message(status));
            TF_SetStatus(status, TF_OK, "");
        }
    }
    TF_DeleteStatus(status);
}

void dmltf_run(TF_OpKernelContext* ctx, const void* key, size_t key_size, dmltf_create_op_fn create,
    const dmltf_binding* inputs, uint32_t input_count, const dmltf_binding* outputs, uint32_t output_count)
{
    TF_Status* status = TF_NewStatus();
    SP_Stream stream = TF_GetStream(ctx, status);
    if (TF_GetCode(status) == TF_OK)
        dmltf_dispatch(stream->device, stream->queue, key, key_size, create, inputs, input_count, outputs,
            output_count, status);
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelContext_Failure(ctx, status);
    TF_DeleteStatus(status);
}

__attribute__((visibility("default"))) void TF_InitKernel(void)
{
    dmltf_register_shape_kernels();
    dmltf_register_slice_kernels();
    dmltf_register_sequence_kernels();
    dmltf_register_join_kernels();
    dmltf_register_gather_kernels();
    dmltf_register_broadcast_kernels();
    dmltf_register_split_kernels();
    dmltf_register_space_kernels();
    dmltf_register_convert_kernels();
    dmltf_register_scatter_kernels();
}
