/*
 * kernels_convert.c — Cast (CAST), Range (FILL_VALUE_SEQUENCE) and OneHot
 * (ONE_HOT): the kernels that compute values rather than move them.
 *
 * Cast is registered for the pairs of types whose conversions the runtime
 * shares with TensorFlow's CPU kernel (docs/tensorflow.md): not bool
 * (TensorFlow's x != 0) nor bfloat16 (no runtime type). Out-of-range
 * float-to-integer casts are undefined in TensorFlow's C++ and defined by
 * the runtime (docs/operators.md), so they may differ.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

enum { KERNEL_CAST = 0x700, KERNEL_RANGE, KERNEL_ONE_HOT, KERNEL_ONE_HOT_VALUES };

static const TF_DataType cast_types[] = {
    TF_FLOAT, TF_DOUBLE, TF_HALF, TF_INT8, TF_INT16, TF_INT32, TF_INT64, TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64,
};

/* ---- Cast ---- */

typedef struct cast_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE from, to;
    uint32_t count;
} cast_key;

static DML_RESULT create_cast(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const cast_key* key = key_bytes;
    dmltf_shape shape = { 1, { key->count } };
    DML_BUFFER_TENSOR_DESC in_buffer, out_buffer;
    DML_TENSOR_DESC in, out;
    dmltf_tensor_desc(&in_buffer, &in, key->from, &shape, NULL);
    dmltf_tensor_desc(&out_buffer, &out, key->to, &shape, NULL);
    DML_CAST_OPERATOR_DESC cast = { &in, &out };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_CAST, &cast };
    return dmlDeviceCreateOperator(device, &desc, op);
}

typedef struct cast_kernel {
    TF_DataType to;
    TF_Bool truncate;
} cast_kernel;

/* The pairs whose Truncate=True TensorFlow's CPU kernel honours (it zeroes
 * the source mantissa bits the destination lacks, NaNs aside, then casts:
 * cast_op.h's SPECIALIZE_CAST); for every other pair it is the plain cast.
 * No runtime operator clears bits inside a byte, so these are refused. */
static bool truncate_changes(TF_DataType from, TF_DataType to)
{
    return (from == TF_DOUBLE && (to == TF_FLOAT || to == TF_HALF)) || (from == TF_FLOAT && to == TF_HALF);
}

static void* cast_create(TF_OpKernelConstruction* ctx)
{
    cast_kernel* k = calloc(1, sizeof *k);
    TF_Status* status = TF_NewStatus();
    TF_DataType from = TF_FLOAT;
    TF_OpKernelConstruction_GetAttrType(ctx, "DstT", &k->to, status);
    if (TF_GetCode(status) == TF_OK)
        TF_OpKernelConstruction_GetAttrType(ctx, "SrcT", &from, status);
    if (TF_GetCode(status) == TF_OK && TF_OpKernelConstruction_HasAttr(ctx, "Truncate", status))
        TF_OpKernelConstruction_GetAttrBool(ctx, "Truncate", &k->truncate, status);
    if (TF_GetCode(status) == TF_OK && k->truncate && truncate_changes(from, k->to))
        TF_SetStatus(status, TF_UNIMPLEMENTED,
            "Cast with Truncate=True from float64 or float32 to a float type of fewer mantissa bits is not "
            "supported on the DML device (the attribute Truncate needs the source's low mantissa bits cleared)");
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelConstruction_Failure(ctx, status);
    TF_DeleteStatus(status);
    return k;
}

static void cast_delete(void* kernel)
{
    free(kernel);
}

static void cast_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const cast_kernel* k = kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor *output = NULL, *narrowed = NULL;
    int64_t dims[DMLTF_TF_MAX_RANK];
    if (!input)
        return;
    int rank = TF_NumDims(input);
    for (int i = 0; i < rank; i++)
        dims[i] = TF_Dim(input, i);
    int64_t count = TF_TensorElementCount(input);
    if (!(output = dmltf_output(ctx, 0, k->to, dims, rank)) || count == 0)
        goto done;
    if (count > UINT32_MAX) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "a Cast of 2^32 elements or more");
        goto done;
    }
    /* Element-wise: the shape does not matter, one flat vector. */
    cast_key key = { KERNEL_CAST, dmltf_value_type(TF_TensorType(input)), dmltf_value_type(k->to), (uint32_t)count };
    dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    if (TF_TensorType(input) == TF_DOUBLE && k->to == TF_HALF) {
        /* Eigen makes a half of a double through a float (two roundings:
         * 1 + 2^-11 + 2^-40 is 1, not the runtime's direct 1.001): so here. */
        if (!(narrowed = dmltf_device_temp(ctx, TF_FLOAT, count)))
            goto done;
        dmltf_binding middle = { TF_TensorData(narrowed), TF_TensorByteSize(narrowed) };
        key.to = DML_TENSOR_DATA_TYPE_FLOAT32;
        dmltf_run(ctx, &key, sizeof key, create_cast, &in, 1, &middle, 1);
        in = middle;
        key.from = DML_TENSOR_DATA_TYPE_FLOAT32;
        key.to = DML_TENSOR_DATA_TYPE_FLOAT16;
    }
    dmltf_run(ctx, &key, sizeof key, create_cast, &in, 1, &out, 1);
done:
    TF_DeleteTensor(narrowed);
    TF_DeleteTensor(output);
    TF_DeleteTensor(input);
}

/* ---- Range ---- */

typedef struct range_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    DML_SCALAR_UNION start, delta;
    uint32_t count;
} range_key;

static DML_RESULT create_range(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const range_key* key = key_bytes;
    dmltf_shape shape = { 1, { key->count } };
    DML_BUFFER_TENSOR_DESC out_buffer;
    DML_TENSOR_DESC out;
    dmltf_tensor_desc(&out_buffer, &out, key->type, &shape, NULL);
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC fill = { &out, key->type, key->start, key->delta };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_FILL_VALUE_SEQUENCE, &fill };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static double scalar_as_double(const TF_Tensor* t)
{
    const void* p = TF_TensorData(t);
    switch (TF_TensorType(t)) {
    case TF_FLOAT: return *(const float*)p;
    case TF_DOUBLE: return *(const double*)p;
    case TF_INT64: return (double)*(const int64_t*)p;
    case TF_INT32: return *(const int32_t*)p;
    default: return 0;
    }
}

/* TensorFlow's RangeOp checks and size, then FILL_VALUE_SEQUENCE: element
 * k = start + k * delta in the output type (TensorFlow's CPU functor too). */
static void range_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* t[3] = { NULL, NULL, NULL };
    TF_Tensor* output = NULL;
    for (int i = 0; i < 3; i++)
        if (!(t[i] = dmltf_input(ctx, i)))
            goto done;
    for (int i = 0; i < 3; i++)
        if (TF_TensorElementCount(t[i]) != 1) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "%s must be a scalar", i == 0 ? "start" : i == 1 ? "limit" : "delta");
            goto done;
        }
    TF_DataType type = TF_TensorType(t[0]);
    double start = scalar_as_double(t[0]), limit = scalar_as_double(t[1]), delta = scalar_as_double(t[2]);
    if (delta == 0) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Requires delta != 0: %g", delta);
        goto done;
    }
    if (delta > 0 ? start > limit : start < limit) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Requires start %s limit when delta %s 0: %g/%g", delta > 0 ? "<=" : ">=",
            delta > 0 ? ">" : "<", start, limit);
        goto done;
    }
    int64_t size;
    if (type == TF_INT64 || type == TF_INT32) {
        /* Exact: int64 values above 2^53 are not doubles. */
        int64_t s, l, d;
        if (type == TF_INT64)
            s = *(const int64_t*)TF_TensorData(t[0]), l = *(const int64_t*)TF_TensorData(t[1]),
            d = *(const int64_t*)TF_TensorData(t[2]);
        else
            s = *(const int32_t*)TF_TensorData(t[0]), l = *(const int32_t*)TF_TensorData(t[1]),
            d = *(const int32_t*)TF_TensorData(t[2]);
        /* In uint64: |limit - start| and |delta| overflow no int64. */
        uint64_t span = l > s ? (uint64_t)l - (uint64_t)s : (uint64_t)s - (uint64_t)l;
        uint64_t step = d > 0 ? (uint64_t)d : 0 - (uint64_t)d;
        uint64_t n = span / step + (span % step != 0);
        if (n > INT64_MAX) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Requires ((limit - start) / delta) <= 2^63");
            goto done;
        }
        size = (int64_t)n;
    } else {
        double n = type == TF_FLOAT ? ceil(fabs(((float)limit - (float)start) / (float)delta))
                                    : ceil(fabs((limit - start) / delta));
        if (!(n < 9.2e18)) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Requires ((limit - start) / delta) <= 2^63");
            goto done;
        }
        size = (int64_t)n;
    }
    if (!(output = dmltf_output(ctx, 0, type, &size, 1)) || size == 0)
        goto done;
    if (size > UINT32_MAX) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "a Range of 2^32 elements or more");
        goto done;
    }
    range_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_RANGE;
    key.type = dmltf_value_type(type);
    key.count = (uint32_t)size;
    memcpy(key.start.Bytes, TF_TensorData(t[0]), TF_DataTypeSize(type));
    memcpy(key.delta.Bytes, TF_TensorData(t[2]), TF_DataTypeSize(type));
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_range, NULL, 0, &out, 1);
done:
    TF_DeleteTensor(output);
    for (int i = 0; i < 3; i++)
        TF_DeleteTensor(t[i]);
}

/* ---- OneHot ----
 * Everything but depth (which decides the shape) stays on the device: the
 * [off, on] pair ONE_HOT reads is JOINed from the two scalars, and the
 * indices are bound as the unsigned type of their width. The runtime counts
 * a negative signed index from the end, TensorFlow makes it all "off"; read
 * as unsigned, a negative value is 2^31 or more, which the runtime never
 * wraps and which is out of range for every depth (an int32): all "off",
 * TensorFlow's rule. 8-bit indices (ONE_HOT takes 32 and 64 bits) are
 * widened on the device by CAST to INT32, sign included, then read the same
 * way. */

typedef struct one_hot_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type, index_type;
    dmltf_shape output;
    uint32_t axis;
} one_hot_key;

static DML_RESULT create_one_hot(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const one_hot_key* key = key_bytes;
    dmltf_shape indices = key->output, values = { key->output.rank, { 0 } };
    indices.sizes[key->axis] = 1;
    for (uint32_t i = 0; i < values.rank; i++)
        values.sizes[i] = i + 1 == values.rank ? 2 : 1;
    DML_BUFFER_TENSOR_DESC index_buffer, value_buffer, out_buffer;
    DML_TENSOR_DESC index, value, out;
    dmltf_tensor_desc(&index_buffer, &index, key->index_type, &indices, NULL);
    dmltf_tensor_desc(&value_buffer, &value, key->type, &values, NULL);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, NULL);
    DML_ONE_HOT_OPERATOR_DESC one_hot = { &index, &value, &out, key->axis };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_ONE_HOT, &one_hot };
    return dmlDeviceCreateOperator(device, &desc, op);
}

typedef struct pair_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
} pair_key;

/* [first, second] from two one-element tensors. */
static DML_RESULT create_pair(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const pair_key* key = key_bytes;
    dmltf_shape one = { 1, { 1 } }, two = { 1, { 2 } };
    DML_BUFFER_TENSOR_DESC in_buffers[2], out_buffer;
    DML_TENSOR_DESC in[2], out;
    for (int i = 0; i < 2; i++)
        dmltf_tensor_desc(&in_buffers[i], &in[i], key->type, &one, NULL);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &two, NULL);
    DML_JOIN_OPERATOR_DESC join = { 2, in, &out, 0 };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_JOIN, &join };
    return dmlDeviceCreateOperator(device, &desc, op);
}

/* The [off, on] pair ONE_HOT reads, JOINed on the device. */
static TF_Tensor* one_hot_values(TF_OpKernelContext* ctx, const TF_Tensor* on, const TF_Tensor* off)
{
    TF_DataType type = TF_TensorType(on);
    if (TF_NumDims(on) != 0 || TF_NumDims(off) != 0) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "%s must be a scalar, but got: %d-D",
            TF_NumDims(on) != 0 ? "on_value" : "off_value", TF_NumDims(TF_NumDims(on) != 0 ? on : off));
        return NULL;
    }
    TF_Tensor* values = dmltf_device_temp(ctx, type, 2);
    if (!values)
        return NULL;
    size_t size = TF_DataTypeSize(type);
    pair_key key = { KERNEL_ONE_HOT_VALUES, dmltf_bits_type(type) };
    dmltf_binding in[2] = { { TF_TensorData(off), size }, { TF_TensorData(on), size } };
    dmltf_binding out = { TF_TensorData(values), 2 * size };
    dmltf_run(ctx, &key, sizeof key, create_pair, in, 2, &out, 1);
    return values;
}

/* 8-bit indices as INT32 (sign extended) in a device temporary. */
static TF_Tensor* widen_indices(TF_OpKernelContext* ctx, const TF_Tensor* indices)
{
    int64_t n = TF_TensorElementCount(indices);
    if (n > UINT32_MAX) {
        dmltf_fail(ctx, TF_UNIMPLEMENTED, "OneHot of 2^32 8-bit indices or more");
        return NULL;
    }
    TF_Tensor* wide = dmltf_device_temp(ctx, TF_INT32, n);
    if (!wide)
        return NULL;
    cast_key key = { KERNEL_CAST, dmltf_value_type(TF_TensorType(indices)), DML_TENSOR_DATA_TYPE_INT32, (uint32_t)n };
    dmltf_binding in = { TF_TensorData(indices), TF_TensorByteSize(indices) };
    dmltf_binding out = { TF_TensorData(wide), TF_TensorByteSize(wide) };
    dmltf_run(ctx, &key, sizeof key, create_cast, &in, 1, &out, 1);
    return wide;
}

static void one_hot_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const dmltf_axis_kernel* k = kernel;
    TF_Tensor* t[4] = { NULL, NULL, NULL, NULL }; /* indices, depth, on_value, off_value */
    TF_Tensor *output = NULL, *wide = NULL, *values = NULL;
    int64_t dims[DMLTF_MAX_RANK], out_dims[DMLTF_MAX_RANK], depth, count;
    int rank;
    for (int i = 0; i < 4; i++)
        if (!(t[i] = dmltf_input(ctx, i)))
            goto done;
    if (TF_NumDims(t[1]) != 0) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "depth must be a scalar, but got: %d-D", TF_NumDims(t[1]));
        goto done;
    }
    if (!dmltf_tensor_dims(ctx, t[0], "indices", dims, &rank) || !dmltf_read_host_ints(ctx, t[1], "depth", &depth, 1, &count))
        goto done;
    if (depth < 0) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "depth must be non-negative, got: %lld", (long long)depth);
        goto done;
    }
    int64_t axis = k->axis == -1 ? rank : k->axis;
    if (axis < 0 || axis > rank || rank + 1 > DMLTF_MAX_RANK) {
        dmltf_fail(ctx, axis < 0 || axis > rank ? TF_INVALID_ARGUMENT : TF_UNIMPLEMENTED,
            "Expected axis to be -1 or between [0, %d).  But received: %lld", rank + 1, (long long)k->axis);
        goto done;
    }
    for (int i = 0, j = 0; i <= rank; i++)
        out_dims[i] = i == axis ? depth : dims[j++];
    TF_DataType type = TF_TensorType(t[2]);
    if (!(values = one_hot_values(ctx, t[2], t[3])))
        goto done;
    if (!(output = dmltf_output(ctx, 0, type, out_dims, rank + 1)) || dmltf_element_count(out_dims, rank + 1) == 0)
        goto done;
    one_hot_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_ONE_HOT;
    key.type = dmltf_bits_type(type);
    key.axis = (uint32_t)axis;
    if (!dmltf_shape_from_dims(ctx, out_dims, rank + 1, &key.output))
        goto done;
    const TF_Tensor* indices = t[0];
    if (TF_DataTypeSize(TF_TensorType(indices)) == 1) {
        if (!(wide = widen_indices(ctx, indices)))
            goto done;
        indices = wide;
    }
    key.index_type = TF_DataTypeSize(TF_TensorType(indices)) == 4 ? DML_TENSOR_DATA_TYPE_UINT32
                                                                 : DML_TENSOR_DATA_TYPE_UINT64;
    dmltf_binding in[2] = { { TF_TensorData(indices), TF_TensorByteSize(indices) },
        { TF_TensorData(values), TF_TensorByteSize(values) } };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_one_hot, in, 2, &out, 1);
done:
    TF_DeleteTensor(values);
    TF_DeleteTensor(wide);
    TF_DeleteTensor(output);
    for (int i = 0; i < 4; i++)
        TF_DeleteTensor(t[i]);
}

void dmltf_register_convert_kernels(void)
{
    TF_Status* status = TF_NewStatus();
    size_t n = sizeof cast_types / sizeof cast_types[0];
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            TF_KernelBuilder* builder = TF_NewKernelBuilder("Cast", DMLTF_DEVICE_TYPE, cast_create, cast_compute,
                cast_delete);
            TF_KernelBuilder_TypeConstraint(builder, "SrcT", cast_types[a], status);
            if (TF_GetCode(status) == TF_OK)
                TF_KernelBuilder_TypeConstraint(builder, "DstT", cast_types[b], status);
            if (TF_GetCode(status) == TF_OK)
                TF_RegisterKernelBuilder("Cast", builder, status);
            else
                TF_DeleteKernelBuilder(builder);
            if (TF_GetCode(status) != TF_OK) {
                fprintf(stderr, "DML plugin: registering Cast failed: %s\n", TF_Message(status));
                TF_SetStatus(status, TF_OK, "");
            }
        }
    TF_DeleteStatus(status);
    static const TF_DataType range_types[] = { TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64 };
    static const char* const range_args[] = { "start", "limit", "delta", NULL };
    dmltf_register("Range", dmltf_no_state, range_compute, dmltf_free_state, "Tidx", range_types, 4, range_args);
    static const char* const one_hot_args[] = { "depth", NULL };
    dmltf_register("OneHot", dmltf_axis_state, one_hot_compute, dmltf_free_state, "T", dmltf_movement_types,
        dmltf_movement_type_count, one_hot_args);
}
