/*
 * element_wise_if.c — DML_OPERATOR_ELEMENT_WISE_IF: output = condition != 0
 * ? a : b, element by element, all four tensors of one shape (broadcast
 * through strides of 0). A SELECT plan (plan.h): the condition is read
 * through the plan's lengths pointer, A is its input, B its second input.
 */
#include "op.h"

static DML_RESULT parse(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(ELEMENT_WISE_IF)";
    const DML_ELEMENT_WISE_IF_OPERATOR_DESC* d = desc;
    dml_tensor* cond = &op->inputs[0];
    dml_tensor* a = &op->inputs[1];
    dml_tensor* b = &op->inputs[2];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "ConditionTensor", false, d->ConditionTensor, cond)) < 0 ||
        (r = dml_op_tensor(call, "ATensor", false, d->ATensor, a)) < 0 ||
        (r = dml_op_tensor(call, "BTensor", false, d->BTensor, b)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, d->OutputTensor, out)) < 0)
        return r;
    if (cond->data_type != DML_TENSOR_DATA_TYPE_UINT8)
        DML_OP_FAIL("%s: ConditionTensor.DataType %s; must be UINT8", call, dml_data_type_name(cond->data_type));
    if ((r = dml_op_check_same_shape(call, "OutputTensor", out, "ATensor", a, true)) < 0 ||
        (r = dml_op_check_same_shape(call, "OutputTensor", out, "BTensor", b, true)) < 0 ||
        (r = dml_op_check_same_shape(call, "OutputTensor", out, "ConditionTensor", cond, false)) < 0)
        return r;
    return DML_S_OK;
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const dml_tensor* cond = &op->inputs[0];
    const dml_tensor* a = &op->inputs[1];
    const dml_tensor* b = &op->inputs[2];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder builder;
    dml_plan_builder_init(&builder, DML_PLAN_SELECT, out->element_size);
    builder.plan.lengths_element_size = 1;
    for (uint32_t i = 0; i < out->rank; ++i)
        dml_plan_builder_add(&builder, (dml_plan_dim){ out->sizes[i], (int64_t)a->strides[i],
            (int64_t)out->strides[i], (int64_t)cond->strides[i], (int64_t)b->strides[i] });
    return dml_lowering_add_built(lowering, &builder, (dml_op_step){ .input = DML_OPERAND_IN(1),
        .lengths = DML_OPERAND_IN(0), .output = DML_OPERAND_OUT(0), .input2 = DML_OPERAND_IN(2) });
}

const dml_op_entry dml_op_element_wise_if = {
    .type = DML_OPERATOR_ELEMENT_WISE_IF,
    .name = "ELEMENT_WISE_IF",
    .params_size = 0,
    .inputs = 3,
    .outputs = 1,
    .parse = parse,
    .lower = lower,
};
