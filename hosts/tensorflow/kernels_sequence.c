/*
 * kernels_sequence.c — ReverseSequence as REVERSE_SUBSEQUENCES.
 *
 * seq_lengths is declared host memory: its values are checked as
 * TensorFlow's CPU kernel checks them (0 <= length <= the sequence axis),
 * then written to a device temporary as the UINT32 lengths the runtime
 * reads, one per batch entry (stride 1 on batch_dim, 0 elsewhere).
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

typedef struct sequence_kernel {
    int64_t seq_dim, batch_dim;
} sequence_kernel;

typedef struct sequence_key {
    uint32_t kernel;
    DML_TENSOR_DATA_TYPE type;
    dmltf_shape input, lengths;
    uint32_t length_strides[DMLTF_MAX_RANK];
    uint32_t axis;
} sequence_key;

enum { KERNEL_REVERSE_SEQUENCE = 0x100 };

static DML_RESULT create_reverse_sequence(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const sequence_key* key = key_bytes;
    DML_BUFFER_TENSOR_DESC in_buffer, lengths_buffer, out_buffer;
    DML_TENSOR_DESC in, lengths, out;
    dmltf_tensor_desc(&in_buffer, &in, key->type, &key->input, NULL);
    dmltf_tensor_desc(&lengths_buffer, &lengths, DML_TENSOR_DATA_TYPE_UINT32, &key->lengths, key->length_strides);
    dmltf_tensor_desc(&out_buffer, &out, key->type, &key->input, NULL);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse = { &in, &lengths, &out, key->axis };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &reverse };
    return dmlDeviceCreateOperator(device, &desc, op);
}

static void* sequence_create(TF_OpKernelConstruction* ctx)
{
    sequence_kernel* k = calloc(1, sizeof *k);
    TF_Status* status = TF_NewStatus();
    TF_OpKernelConstruction_GetAttrInt64(ctx, "seq_dim", &k->seq_dim, status);
    if (TF_GetCode(status) == TF_OK)
        TF_OpKernelConstruction_GetAttrInt64(ctx, "batch_dim", &k->batch_dim, status);
    if (TF_GetCode(status) != TF_OK)
        TF_OpKernelConstruction_Failure(ctx, status);
    TF_DeleteStatus(status);
    return k;
}

static void sequence_delete(void* kernel)
{
    free(kernel);
}

/* TensorFlow's checks of the attributes and lengths, in its words. */
static bool check_sequence(TF_OpKernelContext* ctx, const sequence_kernel* k, const int64_t* dims, int rank,
    const TF_Tensor* lengths, const int64_t* values, int64_t count)
{
    if (k->batch_dim == k->seq_dim) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "batch_dim == seq_dim == %lld", (long long)k->seq_dim);
        return false;
    }
    if (k->seq_dim < 0 || k->seq_dim >= rank || k->batch_dim < 0 || k->batch_dim >= rank) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "seq_dim (%lld) and batch_dim (%lld) must be < input.dims() (%d)",
            (long long)k->seq_dim, (long long)k->batch_dim, rank);
        return false;
    }
    if (TF_NumDims(lengths) != 1 || count != dims[k->batch_dim]) {
        dmltf_fail(ctx, TF_INVALID_ARGUMENT, "seq_lengths must be a vector of length input.dims(batch_dim) = %lld",
            (long long)dims[k->batch_dim]);
        return false;
    }
    for (int64_t i = 0; i < count; i++) {
        if (values[i] < 0) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "seq_lens(%lld) < 0", (long long)i);
            return false;
        }
        if (values[i] > dims[k->seq_dim]) {
            dmltf_fail(ctx, TF_INVALID_ARGUMENT, "seq_lens(%lld) > input.dims(%lld)", (long long)i,
                (long long)k->seq_dim);
            return false;
        }
    }
    return true;
}

static void sequence_compute(void* kernel, TF_OpKernelContext* ctx)
{
    const sequence_kernel* k = kernel;
    TF_Tensor* input = dmltf_input(ctx, 0);
    TF_Tensor* lengths = input ? dmltf_input(ctx, 1) : NULL;
    TF_Tensor* output = NULL;
    TF_Tensor* device_lengths = NULL;
    int64_t* values = NULL;
    uint32_t* values32 = NULL;
    TF_Status* status = TF_NewStatus();
    int64_t dims[DMLTF_MAX_RANK], count = 0;
    int rank;
    if (!lengths || !dmltf_tensor_dims(ctx, input, "input", dims, &rank))
        goto done;
    int64_t n = TF_TensorElementCount(lengths);
    values = malloc((size_t)(n ? n : 1) * sizeof *values);
    values32 = malloc((size_t)(n ? n : 1) * sizeof *values32);
    if (!values || !values32) {
        dmltf_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of host memory");
        goto done;
    }
    if (!dmltf_read_host_ints(ctx, lengths, "seq_lengths", values, n, &count) ||
        !check_sequence(ctx, k, dims, rank, lengths, values, count))
        goto done;
    if (!(output = dmltf_output(ctx, 0, TF_TensorType(input), dims, rank)))
        goto done;
    if (dmltf_element_count(dims, rank) == 0)
        goto done;
    sequence_key key;
    memset(&key, 0, sizeof key);
    key.kernel = KERNEL_REVERSE_SEQUENCE;
    key.type = dmltf_bits_type(TF_TensorType(input));
    key.axis = (uint32_t)k->seq_dim;
    if (!dmltf_shape_from_dims(ctx, dims, rank, &key.input))
        goto done;
    key.lengths = key.input;
    key.lengths.sizes[k->seq_dim] = 1;
    key.length_strides[k->batch_dim] = 1;
    for (int64_t i = 0; i < count; i++)
        values32[i] = (uint32_t)values[i];
    if (!(device_lengths = dmltf_upload(ctx, TF_UINT32, count, values32)))
        goto done;
    dmltf_binding in[2] = { { TF_TensorData(input), TF_TensorByteSize(input) },
        { TF_TensorData(device_lengths), (uint64_t)count * sizeof *values32 } };
    dmltf_binding out = { TF_TensorData(output), TF_TensorByteSize(output) };
    dmltf_run(ctx, &key, sizeof key, create_reverse_sequence, in, 2, &out, 1);
done:
    TF_DeleteStatus(status);
    free(values32);
    free(values);
    TF_DeleteTensor(device_lengths);
    TF_DeleteTensor(output);
    TF_DeleteTensor(lengths);
    TF_DeleteTensor(input);
}

void dmltf_register_sequence_kernels(void)
{
    static const char* const lengths_arg[] = { "seq_lengths", NULL };
    dmltf_register("ReverseSequence", sequence_create, sequence_compute, sequence_delete, "T", dmltf_movement_types,
        dmltf_movement_type_count, lengths_arg);
}
