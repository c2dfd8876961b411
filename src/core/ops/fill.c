/*
 * fill.c — DML_OPERATOR_FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE: no
 * input; every element is Value, or ValueStart + k * ValueDelta at its
 * row-major position k (core/fill.h computes it, identically on every
 * backend). Both lower to one DML_PLAN_FILL: a "gather" whose input
 * position is the sequence position (the output's logical row-major strides
 * for a sequence, 0 for a constant), so the builder drops, orders and merges
 * dimensions as for any gather, and a padded output still takes the
 * positions of its logical elements, not of its memory.
 */
#include <string.h>

#include "op.h"

typedef struct fill_params {
    DML_TENSOR_DATA_TYPE data_type;
    bool sequence;
    dml_scalar start, delta;
} fill_params;

/* The output, and ValueDataType equal to its data type. */
static DML_RESULT parse_common(const char* call, const DML_TENSOR_DESC* output, DML_TENSOR_DATA_TYPE value_type,
    dml_op* op)
{
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r = dml_op_tensor(call, "OutputTensor", true, output, out);
    if (r < 0)
        return r;
    if (dml_data_type_size(value_type) == 0)
        DML_OP_FAIL("%s: ValueDataType = %d is not a valid DML_TENSOR_DATA_TYPE", call, (int)value_type);
    if (value_type != out->data_type)
        DML_OP_FAIL("%s: ValueDataType %s differs from OutputTensor.DataType %s; they must match", call,
            dml_data_type_name(value_type), dml_data_type_name(out->data_type));
    fill_params* p = op->params;
    p->data_type = value_type;
    return DML_S_OK;
}

/* The value's bytes of its type; the rest of the union is ignored. */
static dml_scalar scalar_of(const DML_SCALAR_UNION* value, uint32_t size)
{
    dml_scalar s;
    memset(&s, 0, sizeof s);
    memcpy(s.bytes, value->Bytes, size);
    return s;
}

static DML_RESULT parse_constant(const void* desc, dml_op* op)
{
    const DML_FILL_VALUE_CONSTANT_OPERATOR_DESC* d = desc;
    DML_RESULT r = parse_common("dmlDeviceCreateOperator(FILL_VALUE_CONSTANT)", d->OutputTensor, d->ValueDataType, op);
    if (r < 0)
        return r;
    fill_params* p = op->params;
    p->start = scalar_of(&d->Value, op->outputs[0].element_size);
    return DML_S_OK;
}

static DML_RESULT parse_sequence(const void* desc, dml_op* op)
{
    const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC* d = desc;
    DML_RESULT r = parse_common("dmlDeviceCreateOperator(FILL_VALUE_SEQUENCE)", d->OutputTensor, d->ValueDataType, op);
    if (r < 0)
        return r;
    fill_params* p = op->params;
    p->sequence = true;
    p->start = scalar_of(&d->ValueStart, op->outputs[0].element_size);
    p->delta = scalar_of(&d->ValueDelta, op->outputs[0].element_size);
    return DML_S_OK;
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const fill_params* p = op->params;
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_FILL, out->element_size);
    b.plan.data_type = (uint32_t)p->data_type;
    b.plan.fill_start = p->start;
    b.plan.fill_delta = p->delta;
    /* Logical row-major strides: the element count is at most the output's
     * bytes (outputs do not alias), below 2^63, so they fit. */
    int64_t position[DML_TENSOR_DIMENSION_COUNT_MAX1];
    int64_t stride = 1;
    for (uint32_t i = out->rank; i-- > 0;) {
        position[i] = p->sequence ? stride : 0;
        stride *= (int64_t)out->sizes[i];
    }
    for (uint32_t i = 0; i < out->rank; ++i)
        dml_plan_builder_add(&b, (dml_plan_dim){ out->sizes[i], position[i], (int64_t)out->strides[i], 0, 0 });
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_NOTHING, DML_OPERAND_NOTHING, DML_OPERAND_OUT(0));
}

const dml_op_entry dml_op_fill_value_constant = {
    .type = DML_OPERATOR_FILL_VALUE_CONSTANT,
    .name = "FILL_VALUE_CONSTANT",
    .params_size = sizeof(fill_params),
    .inputs = 0,
    .outputs = 1,
    .parse = parse_constant,
    .lower = lower,
};

const dml_op_entry dml_op_fill_value_sequence = {
    .type = DML_OPERATOR_FILL_VALUE_SEQUENCE,
    .name = "FILL_VALUE_SEQUENCE",
    .params_size = sizeof(fill_params),
    .inputs = 0,
    .outputs = 1,
    .parse = parse_sequence,
    .lower = lower,
};
