#include "operator.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

#define FAIL(...) return dml_set_error(DML_E_INVALIDARG, __VA_ARGS__)

const char* dml_operator_type_name(DML_OPERATOR_TYPE type)
{
    switch (type) {
    case DML_OPERATOR_ELEMENT_WISE_IDENTITY: return "ELEMENT_WISE_IDENTITY";
    case DML_OPERATOR_SLICE: return "SLICE";
    case DML_OPERATOR_SLICE1: return "SLICE1";
    case DML_OPERATOR_REVERSE_SUBSEQUENCES: return "REVERSE_SUBSEQUENCES";
    default: return "unsupported operator";
    }
}

static DML_RESULT tensor(const char* call, const char* field, bool is_output, const DML_TENSOR_DESC* desc,
    dml_tensor* out)
{
    dml_tensor_role role = { call, field, is_output };
    return dml_tensor_from_desc(desc, &role, out);
}

static DML_RESULT reverse_subsequences(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC* d, dml_op_desc* op)
{
    static const char call[] = "dmlDeviceCreateOperator(REVERSE_SUBSEQUENCES)";
    dml_tensor* in = &op->inputs[0];
    dml_tensor* lengths = &op->inputs[1];
    DML_RESULT r;
    if ((r = tensor(call, "InputTensor", false, d->InputTensor, in)) < 0 ||
        (r = tensor(call, "SequenceLengthsTensor", false, d->SequenceLengthsTensor, lengths)) < 0 ||
        (r = tensor(call, "OutputTensor", true, d->OutputTensor, &op->output)) < 0)
        return r;
    if (lengths->rank != in->rank || op->output.rank != in->rank)
        FAIL("%s: DimensionCount differs: InputTensor %u, SequenceLengthsTensor %u, OutputTensor %u", call, in->rank,
            lengths->rank, op->output.rank);
    if (op->output.data_type != in->data_type)
        FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(op->output.data_type), dml_data_type_name(in->data_type));
    if (lengths->data_type != DML_TENSOR_DATA_TYPE_UINT32 && lengths->data_type != DML_TENSOR_DATA_TYPE_UINT64)
        FAIL("%s: SequenceLengthsTensor.DataType %s; must be UINT32 or UINT64", call,
            dml_data_type_name(lengths->data_type));
    if (d->Axis >= in->rank)
        FAIL("%s: Axis = %u; must be less than DimensionCount %u", call, d->Axis, in->rank);
    for (uint32_t i = 0; i < in->rank; ++i) {
        if (op->output.sizes[i] != in->sizes[i])
            FAIL("%s: OutputTensor.Sizes[%u] = %u differs from InputTensor.Sizes[%u] = %u", call, i,
                op->output.sizes[i], i, in->sizes[i]);
        uint32_t expected = i == d->Axis ? 1 : in->sizes[i];
        if (lengths->sizes[i] != expected)
            FAIL("%s: SequenceLengthsTensor.Sizes[%u] = %u; must be %u (the InputTensor's sizes with 1 on Axis %u)",
                call, i, lengths->sizes[i], expected, d->Axis);
    }
    op->input_count = 2;
    op->axis = d->Axis;
    return DML_S_OK;
}

/* Checks shared by SLICE and SLICE1 once the window is in SLICE1's form. */
static DML_RESULT slice_tensors(const char* call, const DML_TENSOR_DESC* input, const DML_TENSOR_DESC* output,
    uint32_t dimension_count, dml_op_desc* op)
{
    DML_RESULT r;
    if ((r = tensor(call, "InputTensor", false, input, &op->inputs[0])) < 0 ||
        (r = tensor(call, "OutputTensor", true, output, &op->output)) < 0)
        return r;
    if (dimension_count != op->inputs[0].rank || dimension_count != op->output.rank)
        FAIL("%s: DimensionCount = %u; must equal InputTensor's %u and OutputTensor's %u", call, dimension_count,
            op->inputs[0].rank, op->output.rank);
    if (op->output.data_type != op->inputs[0].data_type)
        FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(op->output.data_type), dml_data_type_name(op->inputs[0].data_type));
    op->input_count = 1;
    return DML_S_OK;
}

static DML_RESULT slice1(const DML_SLICE1_OPERATOR_DESC* d, dml_op_desc* op)
{
    static const char call[] = "dmlDeviceCreateOperator(SLICE1)";
    DML_RESULT r = slice_tensors(call, d->InputTensor, d->OutputTensor, d->DimensionCount, op);
    if (r < 0)
        return r;
    if (!d->InputWindowOffsets || !d->InputWindowSizes || !d->InputWindowStrides)
        FAIL("%s: InputWindowOffsets, InputWindowSizes and InputWindowStrides must not be NULL", call);
    for (uint32_t i = 0; i < d->DimensionCount; ++i) {
        uint64_t offset = d->InputWindowOffsets[i], size = d->InputWindowSizes[i];
        int64_t stride = d->InputWindowStrides[i];
        if (size == 0)
            FAIL("%s: InputWindowSizes[%u] = 0; must be >= 1", call, i);
        if (offset + size > op->inputs[0].sizes[i])
            FAIL("%s: InputWindowOffsets[%u] + InputWindowSizes[%u] = %llu exceeds InputTensor.Sizes[%u] = %u", call,
                i, i, (unsigned long long)(offset + size), i, op->inputs[0].sizes[i]);
        if (stride == 0)
            FAIL("%s: InputWindowStrides[%u] = 0; must be non-zero", call, i);
        uint64_t reachable = 1 + (size - 1) / (uint64_t)(stride < 0 ? -stride : stride);
        if (op->output.sizes[i] > reachable)
            FAIL("%s: OutputTensor.Sizes[%u] = %u exceeds 1 + (InputWindowSizes[%u] - 1) / |InputWindowStrides[%u]| "
                 "= %llu", call, i, op->output.sizes[i], i, i, (unsigned long long)reachable);
        op->window_offsets[i] = (uint32_t)offset;
        op->window_sizes[i] = (uint32_t)size;
        op->window_strides[i] = stride;
    }
    return DML_S_OK;
}

static DML_RESULT slice(const DML_SLICE_OPERATOR_DESC* d, dml_op_desc* op)
{
    static const char call[] = "dmlDeviceCreateOperator(SLICE)";
    DML_RESULT r = slice_tensors(call, d->InputTensor, d->OutputTensor, d->DimensionCount, op);
    if (r < 0)
        return r;
    if (!d->Offsets || !d->Sizes || !d->Strides)
        FAIL("%s: Offsets, Sizes and Strides must not be NULL", call);
    for (uint32_t i = 0; i < d->DimensionCount; ++i) {
        if (d->Sizes[i] != op->output.sizes[i])
            FAIL("%s: Sizes[%u] = %u differs from OutputTensor.Sizes[%u] = %u", call, i, d->Sizes[i], i,
                op->output.sizes[i]);
        if (d->Strides[i] == 0)
            FAIL("%s: Strides[%u] = 0; must be >= 1", call, i);
        /* < 2^64: a 32-bit offset plus a product of two 32-bit numbers */
        uint64_t last = d->Offsets[i] + (uint64_t)(d->Sizes[i] - 1) * d->Strides[i];
        if (last >= op->inputs[0].sizes[i])
            FAIL("%s: Offsets[%u] + (Sizes[%u] - 1) * Strides[%u] = %llu must be less than InputTensor.Sizes[%u] = %u",
                call, i, i, i, (unsigned long long)last, i, op->inputs[0].sizes[i]);
        /* SLICE1's window: exactly the elements read, so it fits in the input. */
        op->window_offsets[i] = d->Offsets[i];
        op->window_sizes[i] = (uint32_t)(last - d->Offsets[i] + 1);
        op->window_strides[i] = d->Sizes[i] == 1 ? 1 : (int64_t)d->Strides[i];
    }
    return DML_S_OK;
}

/* Stored as SLICE1 over the whole input with unit strides: a gather. */
static DML_RESULT identity(const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC* d, dml_op_desc* op)
{
    static const char call[] = "dmlDeviceCreateOperator(ELEMENT_WISE_IDENTITY)";
    dml_tensor* in = &op->inputs[0];
    DML_RESULT r;
    if ((r = tensor(call, "InputTensor", false, d->InputTensor, in)) < 0 ||
        (r = tensor(call, "OutputTensor", true, d->OutputTensor, &op->output)) < 0)
        return r;
    if (op->output.rank != in->rank)
        FAIL("%s: OutputTensor.DimensionCount %u differs from InputTensor.DimensionCount %u", call, op->output.rank,
            in->rank);
    if (op->output.data_type != in->data_type)
        FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(op->output.data_type), dml_data_type_name(in->data_type));
    for (uint32_t i = 0; i < in->rank; ++i) {
        if (op->output.sizes[i] != in->sizes[i])
            FAIL("%s: OutputTensor.Sizes[%u] = %u differs from InputTensor.Sizes[%u] = %u", call, i,
                op->output.sizes[i], i, in->sizes[i]);
        op->window_offsets[i] = 0;
        op->window_sizes[i] = in->sizes[i];
        op->window_strides[i] = 1;
    }
    if (d->ScaleBias) {
        if (!dml_data_type_is_float(in->data_type))
            FAIL("%s: ScaleBias is not NULL with DataType %s; ScaleBias needs FLOAT32, FLOAT16 or FLOAT64", call,
                dml_data_type_name(in->data_type));
        op->has_scale_bias = true;
        op->scale = d->ScaleBias->Scale;
        op->bias = d->ScaleBias->Bias;
    }
    op->input_count = 1;
    return DML_S_OK;
}

DML_RESULT dml_operator_from_desc(const DML_OPERATOR_DESC* desc, dml_op_desc* out)
{
    static const char call[] = "dmlDeviceCreateOperator";
    if (!desc)
        FAIL("%s: desc is NULL", call);
    if (desc->Type <= DML_OPERATOR_INVALID || (uint32_t)desc->Type > (uint32_t)DML_OPERATOR_TYPE_LAST)
        FAIL("%s: desc->Type = %d is not a DML_OPERATOR_TYPE", call, (int)desc->Type);
    if (desc->Type != DML_OPERATOR_SLICE && desc->Type != DML_OPERATOR_SLICE1 &&
        desc->Type != DML_OPERATOR_REVERSE_SUBSEQUENCES && desc->Type != DML_OPERATOR_ELEMENT_WISE_IDENTITY)
        return dml_set_error(DML_E_NOTIMPL,
            "%s: DML_OPERATOR_TYPE %d is a DirectML operator this runtime does not implement "
            "(implemented: ELEMENT_WISE_IDENTITY, SLICE, REVERSE_SUBSEQUENCES, SLICE1)", call, (int)desc->Type);
    if (!desc->Desc)
        FAIL("%s(%s): desc->Desc is NULL", call, dml_operator_type_name(desc->Type));

    dml_op_desc op;
    memset(&op, 0, sizeof op);
    op.type = desc->Type;
    DML_RESULT r;
    switch (desc->Type) {
    case DML_OPERATOR_SLICE: r = slice((const DML_SLICE_OPERATOR_DESC*)desc->Desc, &op); break;
    case DML_OPERATOR_SLICE1: r = slice1((const DML_SLICE1_OPERATOR_DESC*)desc->Desc, &op); break;
    case DML_OPERATOR_ELEMENT_WISE_IDENTITY:
        r = identity((const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC*)desc->Desc, &op);
        break;
    default: r = reverse_subsequences((const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC*)desc->Desc, &op); break;
    }
    if (r >= 0)
        *out = op;
    return r;
}
