/*
 * kernels_shape.c — Identity, Snapshot, Reshape, Squeeze, ExpandDims.
 *
 * Only the shape changes: the output shares the input's memory (TensorFlow's
 * own GPU kernels do the same), except Snapshot, which is a copy.
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

/* The output: input's memory under dims. */
static void forward_as(TF_OpKernelContext* ctx, const TF_Tensor* input, const int64_t* dims, int rank)
{
    TF_Status* status = TF_NewStatus();
    /* A scalar placeholder (TensorFlow's own C kernels do so): the bitcast
     * replaces its buffer and shape with input's memory under dims. */
    TF_Tensor* output = TF_AllocateTensor(TF_TensorType(input), dims, 0, TF_DataTypeSize(TF_TensorType(input)));
    TF_TensorBitcastFrom(input, TF_TensorType(input), output, dims, rank, status);
    if (TF_GetCode(status) == TF_OK)
        TF_SetOutput(ctx, 0, output, status);
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelContext_Failure(ctx, status);
    TF_DeleteTensor(output);
    TF_DeleteStatus(status);
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

static void identity_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    if (!input)
        return;
    TF_Status* status = TF_NewStatus();
    TF_SetOutput(ctx, 0, input, status);
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelContext_Failure(ctx, status);
    TF_DeleteStatus(status);
    TF_DeleteTensor(input);
}

static void snapshot_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    if (!input)
        return;
    int64_t dims[DMLTF_TF_MAX_RANK];
    int rank = TF_NumDims(input);
    TF_Status* status = TF_NewStatus();
    if (rank > DMLTF_TF_MAX_RANK) {
        TF_SetStatus(status, TF_UNIMPLEMENTED, "Snapshot: rank above 254");
    } else {
        for (int i = 0; i < rank; i++)
            dims[i] = TF_Dim(input, i);
        size_t bytes = TF_TensorByteSize(input);
        TF_Tensor* output = TF_AllocateOutput(ctx, 0, TF_TensorType(input), dims, rank, bytes, status);
        SP_Stream stream = TF_GetCode(status) == TF_OK ? TF_GetStream(ctx, status) : NULL;
        if (TF_GetCode(status) == TF_OK)
            dmltf_copy_on_device(stream->device, stream->queue, TF_TensorData(output), TF_TensorData(input), bytes,
                status);
        TF_DeleteTensor(output);
    }
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelContext_Failure(ctx, status);
    TF_DeleteStatus(status);
    TF_DeleteTensor(input);
}

/* TensorFlow's Reshape rules: one -1 at most, inferred from the element count. */
static void reshape_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* shape = input ? dmltf_input(ctx, 1) : NULL;
    int64_t dims[DMLTF_TF_MAX_RANK], count = 0;
    if (shape && TF_NumDims(shape) != 1)
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "shape must be a vector, not rank %d", TF_NumDims(shape));
    else if (shape && dmltf_read_host_ints(ctx, shape, "shape", dims, DMLTF_TF_MAX_RANK, &count)) {
        int64_t known = 1, unknown = -1;
        bool ok = true;
        for (int64_t i = 0; i < count && ok; i++) {
            if (dims[i] == -1 && unknown < 0)
                unknown = i;
            else if (dims[i] < 0) {
                dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Size %lld must be non-negative, not %lld", (long long)i,
                    (long long)dims[i]);
                ok = false;
            } else
                known *= dims[i];
        }
        int64_t elements = TF_TensorElementCount(input);
        if (ok && unknown >= 0) {
            if (known == 0 || elements % known) {
                dmltf_fail(ctx, TF_INVALID_ARGUMENT,
                    "Input to reshape is a tensor with %lld values, but the requested shape cannot hold it",
                    (long long)elements);
                ok = false;
            } else
                dims[unknown] = elements / known;
        } else if (ok && known != elements) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT,
                "Input to reshape is a tensor with %lld values, but the requested shape has %lld",
                (long long)elements, (long long)known);
            ok = false;
        }
        if (ok)
            forward_as(ctx, input, dims, (int)count);
    }
    TF_DeleteTensor(shape);
    TF_DeleteTensor(input);
}

typedef struct squeeze_kernel {
    int64_t* axes;
    int count;
} squeeze_kernel;

static void* squeeze_create(TF_OpKernelConstruction* ctx)
{
    squeeze_kernel* k = calloc(1, sizeof *k);
    TF_Status* status = TF_NewStatus();
    int32_t list_size = 0, total_size = 0;
    TF_OpKernelConstruction_GetAttrSize(ctx, "squeeze_dims", &list_size, &total_size, status);
    if (k && TF_GetCode(status) == TF_OK && list_size > 0) {
        k->axes = calloc((size_t)list_size, sizeof *k->axes);
        if (k->axes) {
            TF_OpKernelConstruction_GetAttrInt64List(ctx, "squeeze_dims", k->axes, list_size, status);
            k->count = list_size;
        }
    }
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelConstruction_Failure(ctx, status);
    TF_DeleteStatus(status);
    return k;
}

static void squeeze_delete(void* kernel)
{
    squeeze_kernel* k = kernel;
    if (k)
        free(k->axes);
    free(k);
}

static void squeeze_compute(void* kernel, TF_OpKernelContext* ctx)
{
    squeeze_kernel* k = kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    if (!input)
        return;
    int rank = TF_NumDims(input);
    bool wanted[DMLTF_TF_MAX_RANK] = { false };
    bool ok = rank <= DMLTF_TF_MAX_RANK;
    for (int i = 0; ok && i < k->count; i++) {
        int64_t axis = k->axes[i] < 0 ? k->axes[i] + rank : k->axes[i];
        if (axis < 0 || axis >= rank) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Tried to squeeze dim index %lld for tensor with %d dimensions.",
                (long long)k->axes[i], rank);
            ok = false;
        } else if (TF_Dim(input, (int)axis) != 1) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Can not squeeze dim[%lld], expected a dimension of 1, got %lld",
                (long long)axis, (long long)TF_Dim(input, (int)axis));
            ok = false;
        } else
            wanted[axis] = true;
    }
    int64_t dims[DMLTF_TF_MAX_RANK];
    int out_rank = 0;
    for (int i = 0; ok && i < rank; i++) {
        int64_t n = TF_Dim(input, i);
        if (!(k->count ? wanted[i] : n == 1))
            dims[out_rank++] = n;
    }
    if (ok)
        forward_as(ctx, input, dims, out_rank);
    TF_DeleteTensor(input);
}

static void expand_dims_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* dim = input ? dmltf_input(ctx, 1) : NULL;
    int64_t axis, count;
    if (dim && TF_TensorElementCount(dim) != 1)
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "'dim' must be a tensor with a single value");
    else if (dim && dmltf_read_host_ints(ctx, dim, "dim", &axis, 1, &count)) {
        int rank = TF_NumDims(input);
        if (axis < -1 - rank || axis > rank || rank >= DMLTF_TF_MAX_RANK)
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Tried to expand dim index %lld for tensor with %d dimensions.",
                (long long)axis, rank);
        else {
            if (axis < 0)
                axis += rank + 1;
            int64_t dims[DMLTF_TF_MAX_RANK];
            for (int i = 0, j = 0; i <= rank; i++)
                dims[i] = i == axis ? 1 : TF_Dim(input, j++);
            forward_as(ctx, input, dims, rank + 1);
        }
    }
    TF_DeleteTensor(dim);
    TF_DeleteTensor(input);
}

void dmltf_register_shape_kernels(void)
{
    static const char* const shape_arg[] = { "shape", NULL };
    static const char* const dim_arg[] = { "dim", NULL };
    const TF_DataType* types = dmltf_movement_types;
    size_t n = dmltf_movement_type_count;
    dmltf_register("Identity", no_state, identity_compute, no_delete, "T", types, n, NULL);
    dmltf_register("Snapshot", no_state, snapshot_compute, no_delete, "T", types, n, NULL);
    dmltf_register("Reshape", no_state, reshape_compute, no_delete, "T", types, n, shape_arg);
    dmltf_register("Squeeze", squeeze_create, squeeze_compute, squeeze_delete, "T", types, n, NULL);
    dmltf_register("ExpandDims", no_state, expand_dims_compute, no_delete, "T", types, n, dim_arg);
}
