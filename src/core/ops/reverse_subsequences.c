/*
 * reverse_subsequences.c — DML_OPERATOR_REVERSE_SUBSEQUENCES: the reverse
 * gather (plan.h): along Axis, the first L = min(lengths[...], size) elements
 * of each sequence reversed, the rest copied. Lengths live in device memory
 * and are read, clamped, at execution.
 */
#include "op.h"

typedef struct reverse_params {
    uint32_t axis;
} reverse_params;

static DML_RESULT parse(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(REVERSE_SUBSEQUENCES)";
    const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC* d = desc;
    reverse_params* p = op->params;
    dml_tensor* in = &op->inputs[0];
    dml_tensor* lengths = &op->inputs[1];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, d->InputTensor, in)) < 0 ||
        (r = dml_op_tensor(call, "SequenceLengthsTensor", false, d->SequenceLengthsTensor, lengths)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, d->OutputTensor, out)) < 0)
        return r;
    if (lengths->rank != in->rank || out->rank != in->rank)
        DML_OP_FAIL("%s: DimensionCount differs: InputTensor %u, SequenceLengthsTensor %u, OutputTensor %u", call,
            in->rank, lengths->rank, out->rank);
    if (out->data_type != in->data_type)
        DML_OP_FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(out->data_type), dml_data_type_name(in->data_type));
    if (lengths->data_type != DML_TENSOR_DATA_TYPE_UINT32 && lengths->data_type != DML_TENSOR_DATA_TYPE_UINT64)
        DML_OP_FAIL("%s: SequenceLengthsTensor.DataType %s; must be UINT32 or UINT64", call,
            dml_data_type_name(lengths->data_type));
    if (d->Axis >= in->rank)
        DML_OP_FAIL("%s: Axis = %u; must be less than DimensionCount %u", call, d->Axis, in->rank);
    for (uint32_t i = 0; i < in->rank; ++i) {
        if (out->sizes[i] != in->sizes[i])
            DML_OP_FAIL("%s: OutputTensor.Sizes[%u] = %u differs from InputTensor.Sizes[%u] = %u", call, i,
                out->sizes[i], i, in->sizes[i]);
        uint32_t expected = i == d->Axis ? 1 : in->sizes[i];
        if (lengths->sizes[i] != expected)
            DML_OP_FAIL("%s: SequenceLengthsTensor.Sizes[%u] = %u; must be %u (the InputTensor's sizes with 1 on "
                "Axis %u)", call, i, lengths->sizes[i], expected, d->Axis);
    }
    p->axis = d->Axis;
    return DML_S_OK;
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const reverse_params* p = op->params;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* lengths = &op->inputs[1];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_GATHER, out->element_size);
    for (uint32_t i = 0; i < out->rank; ++i) {
        bool is_axis = i == p->axis;
        dml_plan_builder_add(&b, (dml_plan_dim){ out->sizes[i], (int64_t)in->strides[i], (int64_t)out->strides[i],
            is_axis ? 0 : (int64_t)lengths->strides[i], 0 });
        if (is_axis)
            dml_plan_builder_set_axis(&b, out->sizes[i], lengths->element_size);
    }
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_IN(0), DML_OPERAND_IN(1), DML_OPERAND_OUT(0));
}

const dml_op_entry dml_op_reverse_subsequences = {
    .type = DML_OPERATOR_REVERSE_SUBSEQUENCES,
    .name = "REVERSE_SUBSEQUENCES",
    .params_size = sizeof(reverse_params),
    .inputs = 2,
    .outputs = 1,
    .parse = parse,
    .lower = lower,
};
