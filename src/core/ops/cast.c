/*
 * cast.c — DML_OPERATOR_CAST: every element converted from the input's data
 * type to the output's, by core/cast.h's rules (docs/operators.md). Any of
 * the eleven types to any; the two tensors share rank and sizes, their
 * strides are free (a transposing or broadcasting cast is one plan).
 *
 * One DML_PLAN_CAST gather. A conversion that keeps every bit (the same
 * type, or signed and unsigned integers of one width, which wrap to the
 * same bits) is a plain gather instead: the fastest copy on every backend,
 * and one that fuses with any gather around it.
 */
#include "../data_type.h"
#include "op.h"

static DML_RESULT parse(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(CAST)";
    const DML_CAST_OPERATOR_DESC* d = desc;
    dml_tensor* in = &op->inputs[0];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, d->InputTensor, in)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, d->OutputTensor, out)) < 0 ||
        (r = dml_op_check_same_shape(call, "InputTensor", in, "OutputTensor", out, false)) < 0)
        return r;
    return DML_S_OK;
}

/* Whether converting keeps the bits: the same type, or two integers of one width. */
static bool keeps_bits(const dml_tensor* in, const dml_tensor* out)
{
    return in->data_type == out->data_type || (in->element_size == out->element_size &&
        !dml_data_type_is_float(in->data_type) && !dml_data_type_is_float(out->data_type));
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    if (keeps_bits(in, out)) {
        dml_plan_builder_init(&b, DML_PLAN_GATHER, out->element_size);
    } else {
        dml_plan_builder_init(&b, DML_PLAN_CAST, out->element_size);
        b.plan.data_type = (uint32_t)out->data_type;
        b.plan.in_data_type = (uint32_t)in->data_type;
        b.plan.in_element_size = in->element_size;
    }
    for (uint32_t i = 0; i < out->rank; ++i)
        dml_plan_builder_add(&b, (dml_plan_dim){ out->sizes[i], (int64_t)in->strides[i], (int64_t)out->strides[i], 0, 0 });
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_IN(0), DML_OPERAND_NOTHING, DML_OPERAND_OUT(0));
}

const dml_op_entry dml_op_cast = {
    .type = DML_OPERATOR_CAST,
    .name = "CAST",
    .params_size = 0,
    .inputs = 1,
    .outputs = 1,
    .parse = parse,
    .lower = lower,
};
