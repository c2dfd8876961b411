/*
 * kernels_space.c — DepthToSpace and SpaceToDepth as DEPTH_TO_SPACE /
 * SPACE_TO_DEPTH, whose DEPTH_COLUMN_ROW order is TensorFlow's channel order
 * in both of its formats: an NHWC tensor (the format of TensorFlow's CPU
 * kernels) is described to the runtime as {N, C, H, W} through its strides,
 * an NCHW one (TensorFlow's GPU kernels) is the runtime's own layout.
 * NCHW_VECT_C (int8 vectors of 4 channels) is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

enum { KERNEL_DEPTH_TO_SPACE = 0x600, KERNEL_SPACE_TO_DEPTH };

typedef struct space_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    uint32_t block;
    dmltf_shape input, output; /* NCHW sizes */
    uint32_t in_strides[4], out_strides[4];
} space_key;

static DML_RESULT create_space(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const space_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC in_buffer, out_buffer;
    DML_TENSOR_DESC in, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->input, key->in_strides);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, key->out_strides);
    DML_DEPTH_TO_SPACE_OPERATOR_DESC d2s = { &in, &out, key->block };
    DML_SPACE_TO_DEPTH_OPERATOR_DESC s2d = { &in, &out, key->block };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_DEPTH_TO_SPACE, &d2s };
    if (key->kernel == KERNEL_SPACE_TO_DEPTH)
        desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SPACE_TO_DEPTH, &s2d };
    return dmlDeviceCreateOperator(device, &desc, op);
}

typedef struct space_kernel {
    uint32_t kernel;
    int64_t block;
    bool nchw;
} space_kernel;

static void* space_create_kind(TF_OpKernelConstruction* ctx, uint32_t kind)
{
    space_kernel* k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->kernel = kind;
    TF_Status* status = TF_NewStatus();
    TF_OpKernelConstruction_GetAttrInt64(ctx, "block_size", &k->block, status);
    char format[16] = "";
    if (TF_GetCode(status) == TF_OK)
        TF_OpKernelConstruction_GetAttrString(ctx, "data_format", format, sizeof format - 1, status);
    k->nchw = strcmp(format, "NCHW") == 0;
    if (TF_GetCode(status) == TF_OK && strcmp(format, "NHWC") != 0 && !k->nchw)
        TF_SetStatus(status, TF_UNIMPLEMENTED, "data_format NCHW_VECT_C is not supported on the DML device (NHWC and NCHW are)");
    if (TF_GetCode(status) == TF_OK && (k->block < 2 || k->block > UINT32_MAX))
        TF_SetStatus(status, TF_INVALID_ARGUMENT, "Block size should be > 1");
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelConstruction_Failure(ctx, status);
    TF_DeleteStatus(status);
    return k;
}

static void* depth_to_space_create(TF_OpKernelConstruction* ctx)
{
    return space_create_kind(ctx, KERNEL_DEPTH_TO_SPACE);
}

static void* space_to_depth_create(TF_OpKernelConstruction* ctx)
{
    return space_create_kind(ctx, KERNEL_SPACE_TO_DEPTH);
}

static void space_delete(void* kernel)
{
    free(kernel);
}

/* A tensor of logical sizes d = {N, H, W, C} laid out NHWC or NCHW, as the
 * runtime's NCHW sizes and strides. */
static bool describe(const int64_t* d, bool nchw, dmltf_shape* shape, uint32_t* strides)
{
    if (d[0] * d[1] * d[2] * d[3] > UINT32_MAX)
        return false;
    *shape = (dmltf_shape){ 4, { (uint32_t)d[0], (uint32_t)d[3], (uint32_t)d[1], (uint32_t)d[2] } };
    strides[0] = (uint32_t)(d[1] * d[2] * d[3]);
    strides[1] = nchw ? (uint32_t)(d[1] * d[2]) : 1;
    strides[2] = (uint32_t)(d[2] * (nchw ? 1 : d[3]));
    strides[3] = nchw ? 1 : (uint32_t)d[3];
    return true;
}

static void space_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const space_kernel* k = kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* output = NULL;
    int64_t given[DMLTF_MAX_RANK], dims[4], out[4], out_given[4], b = k->block;
    int rank;
    if (!input || !dmltf_tensor_dims(ctx, input, "input", given, &rank))
        goto done;
    if (rank != 4) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Input rank should be: 4 instead of: %d", rank);
        goto done;
    }
    /* dims: {N, H, W, C} whatever the layout. */
    for (int i = 0; i < 4; i++)
        dims[i] = k->nchw ? given[i == 0 ? 0 : i == 3 ? 1 : i + 1] : given[i];
    if (k->kernel == KERNEL_DEPTH_TO_SPACE) {
        if (dims[3] % (b * b)) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Input depth dimension %lld should be divisible by: %lld",
                (long long)dims[3], (long long)(b * b));
            goto done;
        }
        out[0] = dims[0], out[1] = dims[1] * b, out[2] = dims[2] * b, out[3] = dims[3] / (b * b);
    } else {
        if (dims[1] % b || dims[2] % b) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Image width %lld and height %lld should be divisible by block_size: %lld",
                (long long)dims[2], (long long)dims[1], (long long)b);
            goto done;
        }
        out[0] = dims[0], out[1] = dims[1] / b, out[2] = dims[2] / b, out[3] = dims[3] * b * b;
    }
    for (int i = 0; i < 4; i++)
        out_given[i] = k->nchw ? out[i == 0 ? 0 : i == 1 ? 3 : i - 1] : out[i];
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(input), out_given, 4)) || dmltf_element_count(out, 4) == 0)
        goto done;
    space_key key;
    memset(&key, 0, sizeof key);
    key.kernel = k->kernel;
    key.type = dmltf_bits_type(TF_TensorType(input));
    key.block = (uint32_t)b;
    if (!describe(dims, k->nchw, &key.input, key.in_strides) || !describe(out, k->nchw, &key.output, key.out_strides)) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "a tensor of 2^32 elements or more");
        goto done;
    }
    dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
    dmltf_binding outb = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_space, &in, 1, &outb, 1);
done:
    TF_DeleteTensor(output);
    TF_DeleteTensor(input);
}

void dmltf_register_space_kernels(void)
{
    const TF_DataType* types = dmltf_movement_types;
    size_t n = dmltf_movement_type_count;
    dmltf_register("DepthToSpace", depth_to_space_create, space_compute, space_delete, "T", types, n, NULL);
    dmltf_register("SpaceToDepth", space_to_depth_create, space_compute, space_delete, "T", types, n, NULL);
}
