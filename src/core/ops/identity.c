/*
 * identity.c — DML_OPERATOR_ELEMENT_WISE_IDENTITY: a gather of the whole
 * input (the strides do the work: transposes, broadcasts, reshapes), or with
 * DML_SCALE_BIAS for float types, the scale-bias gather.
 */
#include "op.h"

typedef struct identity_params {
    bool has_scale_bias;
    float scale, bias;
} identity_params;

static DML_RESULT parse(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(ELEMENT_WISE_IDENTITY)";
    const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC* d = desc;
    identity_params* p = op->params;
    dml_tensor* in = &op->inputs[0];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, d->InputTensor, in)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, d->OutputTensor, out)) < 0 ||
        (r = dml_op_check_same_shape(call, "InputTensor", in, "OutputTensor", out, true)) < 0)
        return r;
    if (d->ScaleBias) {
        if (!dml_data_type_is_float(in->data_type))
            DML_OP_FAIL("%s: ScaleBias is not NULL with DataType %s; ScaleBias needs FLOAT32, FLOAT16 or FLOAT64",
                call, dml_data_type_name(in->data_type));
        p->has_scale_bias = true;
        p->scale = d->ScaleBias->Scale;
        p->bias = d->ScaleBias->Bias;
    }
    return DML_S_OK;
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const identity_params* p = op->params;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, p->has_scale_bias ? DML_PLAN_SCALE_BIAS : DML_PLAN_GATHER, out->element_size);
    if (p->has_scale_bias) {
        b.plan.data_type = (uint32_t)out->data_type;
        b.plan.scale = p->scale;
        b.plan.bias = p->bias;
    }
    for (uint32_t i = 0; i < out->rank; ++i)
        dml_plan_builder_add(&b, (dml_plan_dim){ out->sizes[i], (int64_t)in->strides[i], (int64_t)out->strides[i], 0, 0 });
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_IN(0), DML_OPERAND_NOTHING, DML_OPERAND_OUT(0));
}

const dml_op_entry dml_op_element_wise_identity = {
    .type = DML_OPERATOR_ELEMENT_WISE_IDENTITY,
    .name = "ELEMENT_WISE_IDENTITY",
    .params_size = sizeof(identity_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse,
    .lower = lower,
};
