/*
 * kernels_join.c — ConcatV2 and Pack (JOIN), Pad, PadV2, MirrorPad
 * (PADDING1) and Tile (TILE). Elements move as bits; PadV2's value is its bits in the
 * same-size unsigned type, so every value, NaN payloads included, is kept.
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

enum { KERNEL_CONCAT = 0x200, KERNEL_PAD, KERNEL_TILE, KERNEL_PACK };

static void* no_state(TF_OpKernelConstruction* ctx)
{
    (void)ctx;
    return NULL;
}

static void no_delete(void* kernel)
{
    (void)kernel;
}

/* ---- ConcatV2 ---- */

#define MAX_CONCAT_INPUTS 64

typedef struct concat_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    dmltf_shape output;
    uint32_t axis, count;
    uint32_t axis_sizes[MAX_CONCAT_INPUTS];
} concat_key;

static DML_RESULT create_concat(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const concat_key* key = key_bytes;
    dmltf_shape shapes[MAX_CONCAT_INPUTS];
    DML_BUFFER_TENSOR_DESC buffers[MAX_CONCAT_INPUTS], out_buffer;
    DML_TENSOR_DESC tensors[MAX_CONCAT_INPUTS], out;
    for (uint32_t i = 0; i < key->count; i++) {
        shapes[i] = key->output;
        shapes[i].sizes[key->axis] = key->axis_sizes[i];
        dmltf_tensor_desc(&buffers[i], &tensors[i], key->type, &shapes[i], NULL);
    }
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, NULL);
    DML_JOIN_OPERATOR_DESC join = { key->count, tensors, &out, key->axis };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_JOIN, &join };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static void concat_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    int n = TF_NumInputs(ctx) - 1;
    TF_Tensor* inputs[MAX_CONCAT_INPUTS] = { NULL };
    TF_Tensor* axis_tensor = NULL;
    TF_Tensor* output = NULL;
    if (n > MAX_CONCAT_INPUTS) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "ConcatV2 of %d tensors; the DML device joins at most %d", n,
            MAX_CONCAT_INPUTS);
        return;
    }
    for (int i = 0; i < n; i++)
        if (!(inputs[i] = dmltf_input(ctx, i)))
            goto done;
    int64_t axis, count, dims[DMLTF_MAX_RANK], other[DMLTF_MAX_RANK];
    int rank, other_rank;
    if (!(axis_tensor = dmltf_input(ctx, n)) || !dmltf_read_host_ints(ctx, axis_tensor, "axis", &axis, 1, &count) ||
        !dmltf_tensor_dims(ctx, inputs[0], "values[0]", dims, &rank))
        goto done;
    if (rank == 0) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Can't concatenate scalars (use tf.stack instead)");
        goto done;
    }
    if (axis < -rank || axis >= rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld",
            -rank, rank, (long long)axis);
        goto done;
    }
    if (axis < 0)
        axis += rank;
    concat_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_CONCAT;
    key.type = dmltf_bits_type(TF_TensorType(inputs[0]));
    key.axis = (uint32_t)axis;
    dmltf_binding bindings[MAX_CONCAT_INPUTS];
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (!dmltf_tensor_dims(ctx, inputs[i], "values", other, &other_rank))
            goto done;
        bool same = other_rank == rank;
        for (int d = 0; same && d < rank; d++)
            same = d == axis || other[d] == dims[d];
        if (!same) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT,
                "ConcatOp : Dimension mismatch: values[0] and values[%d] differ outside dimension %lld", i,
                (long long)axis);
            goto done;
        }
        total += other[axis];
        if (other[axis] == 0)
            continue; /* adds nothing; the runtime has no empty tensors */
        if (other[axis] > UINT32_MAX) {
            dmltf_fail(ctx, TF_UNIMPLEMENTED, "a dimension above 2^32-1");
            goto done;
        }
        bindings[key.count] = (dmltf_binding){ TF_TensorData(inputs[i]), TF_TensorByteSize(inputs[i]) };
        key.axis_sizes[key.count++] = (uint32_t)other[axis];
    }
    dims[axis] = total;
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(inputs[0]), dims, rank)))
        goto done;
    if (dmltf_element_count(dims, rank) == 0 || !dmltf_shape_from_dims(ctx, dims, rank, &key.output))
        goto done;
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_concat, bindings, key.count, &out, 1);
done:
    TF_DeleteTensor(output);
    TF_DeleteTensor(axis_tensor);
    for (int i = 0; i < n; i++)
        TF_DeleteTensor(inputs[i]);
}

/* ---- Pack: a JOIN of the inputs seen with a dimension of 1 at axis ---- */

static void pack_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const dmltf_axis_kernel* k = kernel;
    int n = TF_NumInputs(ctx);
    TF_Tensor* inputs[MAX_CONCAT_INPUTS] = { NULL };
    TF_Tensor* output = NULL;
    if (n > MAX_CONCAT_INPUTS) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "Pack of %d tensors; the DML device joins at most %d", n, MAX_CONCAT_INPUTS);
        return;
    }
    int64_t dims[DMLTF_MAX_RANK], out[DMLTF_MAX_RANK];
    int rank;
    for (int i = 0; i < n; i++)
        if (!(inputs[i] = dmltf_input(ctx, i)))
            goto done;
    if (!dmltf_tensor_dims(ctx, inputs[0], "values[0]", dims, &rank))
        goto done;
    int64_t axis = k->axis < 0 ? k->axis + rank + 1 : k->axis;
    if (axis < 0 || axis > rank || rank + 1 > DMLTF_MAX_RANK) {
        dmltf_fail(ctx, axis < 0 || axis > rank ? TF_INVALID_ARGUMENT : TF_UNIMPLEMENTED,
            "axis = %lld not in [%d, %d) (the DML device packs tensors of rank up to %d)", (long long)k->axis,
            -rank - 1, rank + 1, DMLTF_MAX_RANK - 1);
        goto done;
    }
    for (int i = 1; i < n; i++) {
        bool same = TF_NumDims(inputs[i]) == rank;
        for (int d = 0; same && d < rank; d++)
            same = TF_Dim(inputs[i], d) == dims[d];
        if (!same) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Shapes of all inputs must match: values[0] and values[%d] differ", i);
            goto done;
        }
    }
    for (int i = 0, j = 0; i <= rank; i++)
        out[i] = i == axis ? n : dims[j++];
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(inputs[0]), out, rank + 1)) ||
        dmltf_element_count(out, rank + 1) == 0)
        goto done;
    concat_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_PACK;
    key.type = dmltf_bits_type(TF_TensorType(inputs[0]));
    key.axis = (uint32_t)axis;
    key.count = (uint32_t)n;
    if (!dmltf_shape_from_dims(ctx, out, rank + 1, &key.output))
        goto done;
    dmltf_binding bindings[MAX_CONCAT_INPUTS];
    for (int i = 0; i < n; i++) {
        key.axis_sizes[i] = 1;
        bindings[i] = (dmltf_binding){ TF_TensorData(inputs[i]), TF_TensorByteSize(inputs[i]) };
    }
    dmltf_binding outb = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_concat, bindings, key.count, &outb, 1);
done:
    TF_DeleteTensor(output);
    for (int i = 0; i < n; i++)
        TF_DeleteTensor(inputs[i]);
}

/* ---- Pad, PadV2, MirrorPad ---- */

typedef struct pad_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    DML_PADDING_MODE mode;
    DML_SCALAR_UNION value;
    dmltf_shape input, output;
    uint32_t start[DMLTF_MAX_RANK], end[DMLTF_MAX_RANK];
} pad_key;

static DML_RESULT create_pad(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const pad_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC in_buffer, out_buffer;
    DML_TENSOR_DESC in, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->input, NULL);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, NULL);
    DML_PADDING1_OPERATOR_DESC pad = { &in, &out, key->mode, key->type, key->value, key->input.rank, key->start,
        key->end };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_PADDING1, &pad };
    return dmlDeviceCreateOperator(device, &desc, op);
}

typedef struct pad_kernel {
    DML_PADDING_MODE mode;
    bool has_value; /* PadV2 */
} pad_kernel;

static void* pad_create(TF_OpKernelConstruction* ctx)
{
    pad_kernel* k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->mode = DML_PADDING_MODE_CONSTANT;
    TF_Status* status = TF_NewStatus();
    if (TF_OpKernelConstruction_HasAttr(ctx, "mode", status)) { /* MirrorPad */
        char mode[16] = "";
        TF_OpKernelConstruction_GetAttrString(ctx, "mode", mode, sizeof mode - 1, status);
        if (TF_GetCode(status) != TF_OK)
            TF_OpKernelConstruction_Failure(ctx, status);
        k->mode = strncmp(mode, "SYMMETRIC", 9) == 0 ? DML_PADDING_MODE_SYMMETRIC : DML_PADDING_MODE_REFLECTION;
    }
    TF_DeleteStatus(status);
    return k;
}

static void* pad_v2_create(TF_OpKernelConstruction* ctx)
{
    pad_kernel* k = pad_create(ctx);
    if (k)
        k->has_value = true;
    return k;
}

static void pad_delete(void* kernel)
{
    free(kernel);
}

static void pad_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const pad_kernel* k = kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* paddings = input ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* value = paddings && k->has_value ? dmltf_input(ctx, 2) : NULL;
    TF_Tensor* output = NULL;
    int64_t dims[DMLTF_MAX_RANK], pads[2 * DMLTF_MAX_RANK], out_dims[DMLTF_MAX_RANK], count;
    int rank;
    if (!paddings || (k->has_value && !value) || !dmltf_tensor_dims(ctx, input, "input", dims, &rank) ||
        !dmltf_read_host_ints(ctx, paddings, "paddings", pads, 2 * DMLTF_MAX_RANK, &count))
        goto done;
    if (TF_NumDims(paddings) != 2 || count != 2 * rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "paddings must be a matrix with 2 columns and %d rows", rank);
        goto done;
    }
    pad_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_PAD;
    key.type = dmltf_bits_type(TF_TensorType(input));
    key.mode = k->mode;
    if (value) {
        if (TF_TensorElementCount(value) != 1) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "constant_values must be a scalar");
            goto done;
        }
        memcpy(key.value.Bytes, TF_TensorData(value), TF_DataTypeSize(TF_TensorType(value)));
    }
    /* TensorFlow's MirrorPad limits: REFLECT pads < size, SYMMETRIC <= size. */
    int64_t limit_offset = k->mode == DML_PADDING_MODE_REFLECTION ? 1 : 0;
    for (int i = 0; i < rank; i++) {
        int64_t before = pads[2 * i], after = pads[2 * i + 1];
        if (before < 0 || after < 0) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Paddings must be non-negative: %lld %lld", (long long)before,
                (long long)after);
            goto done;
        }
        if (k->mode != DML_PADDING_MODE_CONSTANT &&
            (before > dims[i] - limit_offset || after > dims[i] - limit_offset)) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "paddings must be no greater than the dimension size: %lld, %lld greater than %lld",
                (long long)before, (long long)after, (long long)(dims[i] - limit_offset));
            goto done;
        }
        if (before > UINT32_MAX || after > UINT32_MAX) {
            dmltf_fail(ctx, TF_UNIMPLEMENTED, "a padding above 2^32-1");
            goto done;
        }
        out_dims[i] = dims[i] + before + after;
        key.start[i] = (uint32_t)before;
        key.end[i] = (uint32_t)after;
    }
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(input), out_dims, rank)))
        goto done;
    if (dmltf_element_count(out_dims, rank) == 0)
        goto done;
    if (dmltf_element_count(dims, rank) == 0) {
        /* Nothing to pad: all padding value (CONSTANT only: mirror pads of an empty dimension are 0). */
        SP_Stream stream;
        TF_Status* status = TF_NewStatus();
        stream = TF_GetStream(ctx, status);
        if (TF_GetCode(status) == TF_OK)
            dmltf_fill_pattern(stream->device, stream->queue, TF_TensorData(output), key.value.Bytes,
                TF_DataTypeSize(TF_TensorType(input)), TF_TensorByteSize(output), status);
        if (TF_GetCode(status) != TF_OK)
            TF_OpKernelContext_Failure(ctx, status);
        TF_DeleteStatus(status);
        goto done;
    }
    if (!dmltf_shape_from_dims(ctx, dims, rank, &key.input) || !dmltf_shape_from_dims(ctx, out_dims, rank, &key.output))
        goto done;
    if (rank == 0)
        key.start[0] = key.end[0] = 0;
    dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_pad, &in, 1, &out, 1);
done:
    TF_DeleteTensor(output);
    TF_DeleteTensor(value);
    TF_DeleteTensor(paddings);
    TF_DeleteTensor(input);
}

/* ---- Tile ---- */

typedef struct tile_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    dmltf_shape input, output;
    uint32_t repeats[DMLTF_MAX_RANK];
} tile_key;

static DML_RESULT create_tile(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const tile_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC in_buffer, out_buffer;
    DML_TENSOR_DESC in, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->input, NULL);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, NULL);
    DML_TILE_OPERATOR_DESC tile = { &in, &out, key->input.rank, key->repeats };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_TILE, &tile };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static void tile_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* multiples = input ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* output = NULL;
    int64_t dims[DMLTF_MAX_RANK], repeats[DMLTF_MAX_RANK], out_dims[DMLTF_MAX_RANK], count;
    int rank;
    if (!multiples || !dmltf_tensor_dims(ctx, input, "input", dims, &rank) ||
        !dmltf_read_host_ints(ctx, multiples, "multiples", repeats, DMLTF_MAX_RANK, &count))
        goto done;
    if (count != rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Expected multiples argument to be a vector of length %d but got length %lld",
            rank, (long long)count);
        goto done;
    }
    tile_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_TILE;
    key.type = dmltf_bits_type(TF_TensorType(input));
    for (int i = 0; i < rank; i++) {
        if (repeats[i] < 0) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Expected multiples[%d] >= 0, but got %lld", i, (long long)repeats[i]);
            goto done;
        }
        if (repeats[i] > 0 && dims[i] > INT64_MAX / repeats[i]) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "dimension %d times multiples[%d] = %lld is more than 2^63", i, i,
                (long long)repeats[i]);
            goto done;
        }
        out_dims[i] = dims[i] * repeats[i];
        key.repeats[i] = (uint32_t)repeats[i];
    }
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(input), out_dims, rank)))
        goto done;
    if (dmltf_element_count(out_dims, rank) == 0 || !dmltf_shape_from_dims(ctx, dims, rank, &key.input) ||
        !dmltf_shape_from_dims(ctx, out_dims, rank, &key.output))
        goto done;
    if (rank == 0)
        key.repeats[0] = 1;
    dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_tile, &in, 1, &out, 1);
done:
    TF_DeleteTensor(output);
    TF_DeleteTensor(multiples);
    TF_DeleteTensor(input);
}

void dmltf_register_join_kernels(void)
{
    static const char* const axis_arg[] = { "axis", NULL };
    static const char* const pad_args[] = { "paddings", NULL };
    static const char* const pad_v2_args[] = { "paddings", "constant_values", NULL };
    static const char* const tile_args[] = { "multiples", NULL };
    const TF_DataType* types = dmltf_movement_types;
    size_t n = dmltf_movement_type_count;
    dmltf_register("ConcatV2", no_state, concat_compute, no_delete, "T", types, n, axis_arg);
    dmltf_register("Pad", pad_create, pad_compute, pad_delete, "T", types, n, pad_args);
    dmltf_register("PadV2", pad_v2_create, pad_compute, pad_delete, "T", types, n, pad_v2_args);
    dmltf_register("MirrorPad", pad_create, pad_compute, pad_delete, "T", types, n, pad_args);
    dmltf_register("Tile", no_state, tile_compute, no_delete, "T", types, n, tile_args);
    /* Not int32: TensorFlow builds shapes with int32 Packs of host scalars,
     * which its CPU kernel serves without copies to and from the device. */
    dmltf_register("Pack", dmltf_axis_state, pack_compute, dmltf_free_state, "T", types, n - 1, NULL);
}
