/*
 * kernels_slice.c — Transpose, ReverseV2, Slice, StridedSlice: each output
 * element is one input element at an affine position, so each is one
 * runtime operator: SLICE1 (a window walked with signed strides) or, for
 * Transpose, ELEMENT_WISE_IDENTITY reading the input through permuted
 * strides. Elements move as bits (a same-size unsigned type).
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

enum { KERNEL_SLICE1 = 1, KERNEL_TRANSPOSE };

/* One SLICE1: output[c] = input[start + strides * c] (docs/operators.md). */
typedef struct slice1_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    dmltf_shape input, output;
    uint32_t offsets[DMLTF_MAX_RANK], windows[DMLTF_MAX_RANK];
    int32_t strides[DMLTF_MAX_RANK];
} slice1_key;

static DML_RESULT create_slice1(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const slice1_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC in_buffer, out_buffer;
    DML_TENSOR_DESC in, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->input, NULL);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, NULL);
    DML_SLICE1_OPERATOR_DESC slice = { &in, &out, key->input.rank, key->offsets, key->windows, key->strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    return dmlDeviceCreateOperator(device, &desc, op);
}

/* A dimension of the selection: count elements from begin by stride. */
typedef struct selection {
    int64_t begin, stride, count;
} selection;

/* Runs SLICE1 over input (dims, rank) selecting sel per dimension, into a
 * new output 0 of out_dims (the selection's counts, maybe with dimensions
 * of 1 added or removed: same elements, same order). */
static void run_selection(TF_OpKernelContext* ctx, TF_Tensor* input, const int64_t* dims, int rank,
    const selection* sel, const int64_t* out_dims, int out_rank)
{
    TF_DataType type = TF_TensorType(input);
    TF_Tensor* output = dmltf_output(ctx, 0, type, out_dims, out_rank);
    if (!output)
        return;
    slice1_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_SLICE1;
    key.type = dmltf_bits_type(type);
    int64_t counts[DMLTF_MAX_RANK];
    for (int i = 0; i < rank; i++)
        counts[i] = sel[i].count;
    if (dmltf_element_count(counts, rank) > 0 && dmltf_shape_from_dims(ctx, dims, rank, &key.input) &&
        dmltf_shape_from_dims(ctx, counts, rank, &key.output)) {
        bool ok = true;
        for (int i = 0; i < rank && ok; i++) {
            int64_t stride = sel[i].count == 1 ? 1 : sel[i].stride;
            int64_t magnitude = stride < 0 ? -stride : stride;
            int64_t last = sel[i].begin + (sel[i].count - 1) * stride;
            int64_t low = stride < 0 ? last : sel[i].begin;
            if (magnitude > INT32_MAX) {
                dmltf_fail(ctx, TF_UNIMPLEMENTED, "a stride of %lld exceeds the DML device's 2^31-1",
                    (long long)stride);
                ok = false;
            }
            key.offsets[i] = (uint32_t)low;
            key.windows[i] = (uint32_t)((sel[i].count - 1) * magnitude + 1);
            key.strides[i] = (int32_t)stride;
        }
        if (rank == 0) { /* a scalar: one element, as {1} */
            key.windows[0] = 1;
            key.strides[0] = 1;
        }
        dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
        dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
        if (ok)
            dmltf_run(ctx, &key, sizeof key, create_slice1, &in, 1, &out, 1);
    }
    TF_DeleteTensor(output);
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

/* ---- Transpose ---- */

typedef struct transpose_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    dmltf_shape output;
    uint32_t input_strides[DMLTF_MAX_RANK];
} transpose_key;

static DML_RESULT create_transpose(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const transpose_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC in_buffer, out_buffer;
    DML_TENSOR_DESC in, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->output, key->input_strides);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->output, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity = { &in, &out, NULL };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static void transpose_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* perm_tensor = input ? dmltf_input(ctx, 1) : NULL;
    int64_t dims[DMLTF_MAX_RANK], perm[DMLTF_MAX_RANK], count;
    int rank;
    if (!perm_tensor || !dmltf_tensor_dims(ctx, input, "x", dims, &rank) ||
        !dmltf_read_host_ints(ctx, perm_tensor, "perm", perm, DMLTF_MAX_RANK, &count))
        goto done;
    if (TF_NumDims(perm_tensor) != 1 || count != rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "transpose expects a vector of size %d. But input(1) is a vector of size %lld",
            rank, (long long)count);
        goto done;
    }
    bool seen[DMLTF_MAX_RANK] = { false };
    for (int i = 0; i < rank; i++) {
        int64_t p = perm[i];
        if (p < 0 || p >= rank || seen[p]) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "%lld is %s", (long long)p,
                p < 0 || p >= rank ? "out of range" : "duplicated in perm");
            goto done;
        }
        seen[p] = true;
    }
    int64_t out_dims[DMLTF_MAX_RANK], in_strides[DMLTF_MAX_RANK];
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; i--) {
        in_strides[i] = stride;
        stride *= dims[i];
    }
    for (int i = 0; i < rank; i++)
        out_dims[i] = dims[perm[i]];
    TF_Tensor* output = dmltf_output(ctx, 0, TF_TensorType(input), out_dims, rank);
    if (!output)
        goto done;
    transpose_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_TRANSPOSE;
    key.type = dmltf_bits_type(TF_TensorType(input));
    if (dmltf_element_count(out_dims, rank) > 0 && dmltf_shape_from_dims(ctx, out_dims, rank, &key.output)) {
        bool ok = true;
        for (int i = 0; i < rank && ok; i++) {
            int64_t s = out_dims[i] == 1 ? 0 : in_strides[perm[i]];
            if (s > UINT32_MAX) {
                dmltf_fail(ctx, TF_UNIMPLEMENTED, "a stride above 2^32-1 elements");
                ok = false;
            }
            key.input_strides[i] = (uint32_t)s;
        }
        dmltf_binding in = { TF_TensorData(input), TF_TensorByteSize(input) };
        dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
        if (ok)
            dmltf_run(ctx, &key, sizeof key, create_transpose, &in, 1, &out, 1);
    }
    TF_DeleteTensor(output);
done:
    TF_DeleteTensor(perm_tensor);
    TF_DeleteTensor(input);
}

/* ---- ReverseV2 ---- */

static void reverse_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* axis_tensor = input ? dmltf_input(ctx, 1) : NULL;
    int64_t dims[DMLTF_MAX_RANK], axes[DMLTF_MAX_RANK + 1], count;
    int rank;
    if (!axis_tensor || !dmltf_tensor_dims(ctx, input, "tensor", dims, &rank))
        goto done;
    if (TF_NumDims(axis_tensor) != 1) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "'axis' must be 1-D, not rank %d", TF_NumDims(axis_tensor));
        goto done;
    }
    if (!dmltf_read_host_ints(ctx, axis_tensor, "axis", axes, DMLTF_MAX_RANK + 1, &count))
        goto done;
    selection sel[DMLTF_MAX_RANK];
    for (int i = 0; i < rank; i++)
        sel[i] = (selection){ 0, 1, dims[i] };
    for (int64_t j = 0; j < count; j++) {
        int64_t a = axes[j] < 0 ? axes[j] + rank : axes[j];
        if (a < 0 || a >= rank) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "'axis'[%lld] = %lld is out of valid range [%d, %d]", (long long)j,
                (long long)axes[j], -rank, rank - 1);
            goto done;
        }
        if (sel[a].stride < 0) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "axis %lld specified more than once", (long long)a);
            goto done;
        }
        sel[a] = (selection){ dims[a] - 1, -1, dims[a] };
    }
    run_selection(ctx, input, dims, rank, sel, dims, rank);
done:
    TF_DeleteTensor(axis_tensor);
    TF_DeleteTensor(input);
}

/* ---- Slice ---- */

static void slice_compute(void* kernel, TF_OpKernelContext* ctx)
{
    (void)kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* begin_tensor = input ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* size_tensor = begin_tensor ? dmltf_input(ctx, 2) : NULL;
    int64_t dims[DMLTF_MAX_RANK], begin[DMLTF_MAX_RANK], size[DMLTF_MAX_RANK], nb, ns;
    int rank;
    if (!size_tensor || !dmltf_tensor_dims(ctx, input, "input", dims, &rank) ||
        !dmltf_read_host_ints(ctx, begin_tensor, "begin", begin, DMLTF_MAX_RANK, &nb) ||
        !dmltf_read_host_ints(ctx, size_tensor, "size", size, DMLTF_MAX_RANK, &ns))
        goto done;
    if (nb != rank || ns != rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT,
            "Expected begin and size arguments to be 1-D tensors of size %d, but got shapes [%lld] and [%lld] instead.",
            rank, (long long)nb, (long long)ns);
        goto done;
    }
    selection sel[DMLTF_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        int64_t b = begin[i], s = size[i] == -1 ? dims[i] - b : size[i];
        if (b < 0 || b > dims[i] || s < 0 || b + s > dims[i]) {
            if (b < 0 || b > dims[i])
                dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Expected begin[%d] in [0, %lld], but got %lld", i,
                    (long long)dims[i], (long long)b);
            else
                dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Expected size[%d] in [0, %lld], but got %lld", i,
                    (long long)(dims[i] - b), (long long)size[i]);
            goto done;
        }
        sel[i] = (selection){ b, 1, s };
        size[i] = s;
    }
    run_selection(ctx, input, dims, rank, sel, size, rank);
done:
    TF_DeleteTensor(size_tensor);
    TF_DeleteTensor(begin_tensor);
    TF_DeleteTensor(input);
}

/* ---- StridedSlice: TensorFlow's sparse spec (masks) made dense ---- */

typedef struct strided_kernel {
    int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
} strided_kernel;

static void* strided_create(TF_OpKernelConstruction* ctx)
{
    strided_kernel* k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    static const char* const names[] = { "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
        "shrink_axis_mask" };
    int64_t* fields[] = { &k->begin_mask, &k->end_mask, &k->ellipsis_mask, &k->new_axis_mask, &k->shrink_axis_mask };
    TF_Status* status = TF_NewStatus();
    for (int i = 0; i < 5 && TF_GetCode(status) == TF_OK; i++) {
        int32_t v = 0;
        TF_OpKernelConstruction_GetAttrInt32(ctx, names[i], &v, status);
        *fields[i] = v;
    }
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelConstruction_Failure(ctx, status);
    TF_DeleteStatus(status);
    return k;
}

static void strided_delete(void* kernel)
{
    free(kernel);
}

/* Output dimension kinds of the dense spec. */
enum { FROM_INPUT = 0, NEW_AXIS = -1, SHRUNK = -2 };

/* TensorFlow's ValidateStridedSliceOp: per input dimension the selection,
 * and the output shape. false after reporting the failure. */
static bool strided_plan(TF_OpKernelContext* ctx, const strided_kernel* k, const int64_t* dims, int rank,
    const int64_t* begin, const int64_t* end, const int64_t* strides, int64_t m, selection* sel,
    int64_t* out_dims, int* out_rank)
{
    int64_t ellipsis = k->ellipsis_mask;
    if (ellipsis & (ellipsis - 1)) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
        return false;
    }
    bool ellipsis_seen = false;
    int64_t new_after_ellipsis = 0;
    for (int64_t i = 0; i < m; i++) {
        if (ellipsis_seen && (k->new_axis_mask >> i & 1))
            new_after_ellipsis++;
        if (ellipsis >> i & 1)
            ellipsis_seen = true;
    }
    int64_t sparse_count = m;
    if (!ellipsis_seen) { /* an implicit ellipsis at the end */
        ellipsis |= (int64_t)1 << m;
        sparse_count++;
    }
    /* Dense spec per input dimension. */
    int64_t d_begin[DMLTF_MAX_RANK], d_end[DMLTF_MAX_RANK], d_stride[DMLTF_MAX_RANK];
    bool d_begin_masked[DMLTF_MAX_RANK], d_end_masked[DMLTF_MAX_RANK], d_shrink[DMLTF_MAX_RANK];
    int gather[DMLTF_TF_MAX_RANK]; /* output dims: an input dimension, NEW_AXIS or SHRUNK */
    int gather_count = 0, full = 0;
    for (int64_t i = 0; i < sparse_count; i++) {
        if (ellipsis >> i & 1) {
            int64_t next = rank - (sparse_count - i) + 1 + new_after_ellipsis;
            if (next > rank)
                next = rank;
            for (; full < next; full++) {
                d_begin[full] = d_end[full] = 0;
                d_stride[full] = 1;
                d_begin_masked[full] = d_end_masked[full] = true;
                d_shrink[full] = false;
                gather[gather_count++] = full;
            }
        } else if (k->new_axis_mask >> i & 1) {
            gather[gather_count++] = NEW_AXIS;
        } else {
            if (full == rank) {
                dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Index out of range using input dim %d; input has only %d dims",
                    full, rank);
                return false;
            }
            d_begin[full] = begin[i];
            d_end[full] = end[i];
            d_stride[full] = strides[i];
            d_begin_masked[full] = k->begin_mask >> i & 1;
            d_end_masked[full] = k->end_mask >> i & 1;
            d_shrink[full] = k->shrink_axis_mask >> i & 1;
            gather[gather_count++] = d_shrink[full] ? SHRUNK : full;
            full++;
        }
        if (gather_count > DMLTF_MAX_RANK + 64) {
            dmltf_fail(ctx, TF_UNIMPLEMENTED, "too many new axes");
            return false;
        }
    }
    for (int i = 0; i < rank; i++) {
        int64_t dim = dims[i], stride = d_stride[i];
        if (stride == 0) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "strides[%d] must be non-zero", i);
            return false;
        }
        if (d_shrink[i]) {
            int64_t x = d_begin[i] < 0 ? dim + d_begin[i] : d_begin[i];
            if (stride <= 0) {
                dmltf_fail(ctx, TF_INVALID_ARGUMENT, "only stride 1 allowed on non-range indexing.");
                return false;
            }
            if (x < 0 || x >= dim) {
                dmltf_fail(ctx, TF_INVALID_ARGUMENT, "slice index %lld of dimension %d out of bounds.",
                    (long long)d_begin[i], i);
                return false;
            }
            sel[i] = (selection){ x, 1, 1 };
            continue;
        }
        int64_t lower = stride > 0 ? 0 : -1, upper = stride > 0 ? dim : dim - 1;
        int64_t b, e;
        if (d_begin_masked[i])
            b = stride > 0 ? lower : upper;
        else {
            b = d_begin[i] < 0 ? dim + d_begin[i] : d_begin[i];
            b = b < lower ? lower : b > upper ? upper : b;
        }
        if (d_end_masked[i])
            e = stride > 0 ? upper : lower;
        else {
            e = d_end[i] < 0 ? dim + d_end[i] : d_end[i];
            e = e < lower ? lower : e > upper ? upper : e;
        }
        int64_t length = e - b, count;
        if (length == 0 || ((length < 0) != (stride < 0)))
            count = 0;
        else
            count = length / stride + (length % stride != 0);
        sel[i] = (selection){ b, stride, count };
    }
    *out_rank = 0;
    for (int g = 0; g < gather_count; g++) {
        if (gather[g] == SHRUNK)
            continue;
        if (*out_rank >= DMLTF_TF_MAX_RANK) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "too many dimensions");
            return false;
        }
        out_dims[(*out_rank)++] = gather[g] == NEW_AXIS ? 1 : sel[gather[g]].count;
    }
    return true;
}

static void strided_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const strided_kernel* k = kernel;
    TF_Tensor* tensors[4] = { NULL, NULL, NULL, NULL };
    for (int i = 0; i < 4; i++)
        if (!(tensors[i] = dmltf_input(ctx, i)))
            goto done;
    int64_t dims[DMLTF_MAX_RANK], spec[3][32], counts[3];
    int rank;
    if (!dmltf_tensor_dims(ctx, tensors[0], "input", dims, &rank))
        goto done;
    static const char* const names[] = { "begin", "end", "strides" };
    for (int i = 0; i < 3; i++)
        /* At most 32 entries: the masks are 32-bit attributes. */
        if (!dmltf_read_host_ints(ctx, tensors[i + 1], names[i], spec[i], 32, &counts[i]))
            goto done;
    if (counts[0] != counts[1] || counts[0] != counts[2]) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "Expected begin, end, and strides to be 1D equal size tensors");
        goto done;
    }
    selection sel[DMLTF_MAX_RANK];
    int64_t out_dims[DMLTF_TF_MAX_RANK];
    int out_rank;
    if (strided_plan(ctx, k, dims, rank, spec[0], spec[1], spec[2], counts[0], sel, out_dims, &out_rank))
        run_selection(ctx, tensors[0], dims, rank, sel, out_dims, out_rank);
done:
    for (int i = 0; i < 4; i++)
        TF_DeleteTensor(tensors[i]);
}

void dmltf_register_slice_kernels(void)
{
    static const char* const perm_arg[] = { "perm", NULL };
    static const char* const axis_arg[] = { "axis", NULL };
    static const char* const slice_args[] = { "begin", "size", NULL };
    static const char* const strided_args[] = { "begin", "end", "strides", NULL };
    const TF_DataType* types = dmltf_movement_types;
    size_t n = dmltf_movement_type_count;
    dmltf_register("Transpose", no_state, transpose_compute, no_delete, "T", types, n, perm_arg);
    dmltf_register("ReverseV2", no_state, reverse_compute, no_delete, "T", types, n, axis_arg);
    dmltf_register("Slice", no_state, slice_compute, no_delete, "T", types, n, slice_args);
    dmltf_register("StridedSlice", strided_create, strided_compute, strided_delete, "T", types, n, strided_args);
}
