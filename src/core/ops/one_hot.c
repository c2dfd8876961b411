/*
 * one_hot.c — DML_OPERATOR_ONE_HOT: along Axis of the output, the element
 * whose coordinate equals the sequence's index is the "on" value, every
 * other the "off" value. Both values are elements of ValuesTensor, read at
 * execution: a ONE_HOT plan (plan.h) selecting between its two inputs, both
 * bound to ValuesTensor at the two values' offsets. An index out of
 * [0, Output.Sizes[Axis]) after the negative rule turns nothing on.
 */
#include "op.h"

typedef struct one_hot_params {
    uint32_t axis;
    int64_t on_offset; /* ValuesTensor's second element, in elements */
} one_hot_params;

static DML_RESULT parse(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(ONE_HOT)";
    const DML_ONE_HOT_OPERATOR_DESC* d = desc;
    one_hot_params* p = op->params;
    dml_tensor* idx = &op->inputs[0];
    dml_tensor* values = &op->inputs[1];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "IndicesTensor", false, d->IndicesTensor, idx)) < 0 ||
        (r = dml_op_tensor(call, "ValuesTensor", false, d->ValuesTensor, values)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, d->OutputTensor, out)) < 0 ||
        (r = dml_op_check_indices(call, "IndicesTensor", idx)) < 0)
        return r;
    if (values->rank != idx->rank || out->rank != idx->rank)
        DML_OP_FAIL("%s: DimensionCount differs: IndicesTensor %u, ValuesTensor %u, OutputTensor %u; must be equal",
            call, idx->rank, values->rank, out->rank);
    if (out->data_type != values->data_type)
        DML_OP_FAIL("%s: OutputTensor.DataType %s differs from ValuesTensor.DataType %s", call,
            dml_data_type_name(out->data_type), dml_data_type_name(values->data_type));
    if (d->Axis >= idx->rank)
        DML_OP_FAIL("%s: Axis = %u; must be less than IndicesTensor.DimensionCount %u", call, d->Axis, idx->rank);
    for (uint32_t i = 0; i < idx->rank; ++i) {
        if (i == d->Axis && idx->sizes[i] != 1)
            DML_OP_FAIL("%s: IndicesTensor.Sizes[%u] = %u; must be 1 on Axis %u", call, i, idx->sizes[i], d->Axis);
        if (i != d->Axis && idx->sizes[i] != out->sizes[i])
            DML_OP_FAIL("%s: OutputTensor.Sizes[%u] = %u differs from IndicesTensor.Sizes[%u] = %u (they must agree "
                "on every dimension but Axis %u)", call, i, out->sizes[i], i, idx->sizes[i], d->Axis);
    }
    /* "On" is the element after "off" along the innermost dimension of size > 1. */
    int32_t on_dim = -1;
    for (uint32_t i = 0; i < values->rank; ++i)
        if (values->sizes[i] > 1)
            on_dim = (int32_t)i;
    if (on_dim < 0)
        DML_OP_FAIL("%s: ValuesTensor has 1 element; must have at least 2 (OffValue, then OnValue)", call);
    p->axis = d->Axis;
    p->on_offset = (int64_t)values->strides[on_dim];
    return DML_S_OK;
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const one_hot_params* p = op->params;
    const dml_tensor* idx = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_ONE_HOT, out->element_size);
    dml_op_set_indices(&b, idx);
    b.plan.index_count = 1;
    b.plan.index_sizes[0] = out->sizes[p->axis];
    b.plan.in_offset = p->on_offset; /* input: on; input2: off, at the values' start */
    for (uint32_t i = 0; i < out->rank; ++i) {
        bool is_axis = i == p->axis;
        dml_plan_builder_add(&b, (dml_plan_dim){ out->sizes[i], 0, (int64_t)out->strides[i],
            is_axis ? 0 : (int64_t)idx->strides[i], 0 });
        if (is_axis)
            dml_plan_builder_mark_axis(&b);
    }
    return dml_lowering_add_built(lowering, &b, (dml_op_step){ .input = DML_OPERAND_IN(1),
        .lengths = DML_OPERAND_IN(0), .output = DML_OPERAND_OUT(0), .input2 = DML_OPERAND_IN(1) });
}

const dml_op_entry dml_op_one_hot = {
    .type = DML_OPERATOR_ONE_HOT,
    .name = "ONE_HOT",
    .params_size = sizeof(one_hot_params),
    .inputs = 2,
    .outputs = 1,
    .parse = parse,
    .lower = lower,
};
