/*
 * scatter.c — DML_OPERATOR_SCATTER_ELEMENTS (alias SCATTER) and SCATTER_ND,
 * the mirrors of GATHER_ELEMENTS and GATHER_ND: the output is the input,
 * then each update written where its index says. Two ordered steps: a plain
 * gather copying input to output (skipped at dispatch when both are bound to
 * one range with one layout: in place), then a SCATTER plan walking the
 * updates (plan.h). Updates whose index is out of range are dropped.
 */
#include "op.h"

typedef struct scatter_params {
    uint32_t axis;  /* SCATTER_ELEMENTS */
    dml_nd_fields nd; /* SCATTER_ND */
} scatter_params;

/* Input, indices, updates and output: equal ranks, one data type, output = input. */
static DML_RESULT parse_tensors(const char* call, const DML_TENSOR_DESC* input, const DML_TENSOR_DESC* indices,
    const DML_TENSOR_DESC* updates, const DML_TENSOR_DESC* output, dml_op* op)
{
    dml_tensor* in = &op->inputs[0];
    dml_tensor* idx = &op->inputs[1];
    dml_tensor* upd = &op->inputs[2];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, input, in)) < 0 ||
        (r = dml_op_tensor(call, "IndicesTensor", false, indices, idx)) < 0 ||
        (r = dml_op_tensor(call, "UpdatesTensor", false, updates, upd)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, output, out)) < 0 ||
        (r = dml_op_check_indices(call, "IndicesTensor", idx)) < 0)
        return r;
    if (idx->rank != in->rank || upd->rank != in->rank || out->rank != in->rank)
        DML_OP_FAIL("%s: DimensionCount differs: InputTensor %u, IndicesTensor %u, UpdatesTensor %u, OutputTensor "
            "%u; must be equal", call, in->rank, idx->rank, upd->rank, out->rank);
    if (upd->data_type != in->data_type)
        DML_OP_FAIL("%s: UpdatesTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(upd->data_type), dml_data_type_name(in->data_type));
    return dml_op_check_same_shape(call, "InputTensor", in, "OutputTensor", out, true);
}

/* Step 1: output = input. */
static DML_RESULT lower_copy(const dml_op* op, dml_lowering* lowering)
{
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_GATHER, out->element_size);
    for (uint32_t i = 0; i < out->rank; ++i)
        dml_plan_builder_add(&b, (dml_plan_dim){ out->sizes[i], (int64_t)in->strides[i], (int64_t)out->strides[i],
            0, 0 });
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_IN(0), DML_OPERAND_NOTHING, DML_OPERAND_OUT(0));
}

/* Step 2: the updates, after the copy. */
static DML_RESULT lower_updates(const dml_plan_builder* b, dml_lowering* lowering)
{
    return dml_lowering_add_built(lowering, b, (dml_op_step){ .input = DML_OPERAND_IN(2),
        .lengths = DML_OPERAND_IN(1), .output = DML_OPERAND_OUT(0), .input2 = DML_OPERAND_NOTHING, .ordered = true });
}

static DML_RESULT parse_scatter_elements(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(SCATTER_ELEMENTS)";
    const DML_SCATTER_ELEMENTS_OPERATOR_DESC* d = desc;
    scatter_params* p = op->params;
    DML_RESULT r;
    if ((r = parse_tensors(call, d->InputTensor, d->IndicesTensor, d->UpdatesTensor, d->OutputTensor, op)) < 0)
        return r;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* idx = &op->inputs[1];
    if ((r = dml_op_check_elements_axis(call, d->Axis, in, idx)) < 0)
        return r;
    if ((r = dml_op_check_same_shape(call, "IndicesTensor", idx, "UpdatesTensor", &op->inputs[2], false)) < 0)
        return r;
    p->axis = d->Axis;
    return DML_S_OK;
}

static DML_RESULT lower_scatter_elements(const dml_op* op, dml_lowering* lowering)
{
    const scatter_params* p = op->params;
    const dml_tensor* idx = &op->inputs[1];
    const dml_tensor* upd = &op->inputs[2];
    const dml_tensor* out = &op->outputs[0];
    DML_RESULT r = lower_copy(op, lowering);
    if (r < 0)
        return r;
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_SCATTER, out->element_size);
    dml_op_set_indices(&b, idx);
    b.plan.index_count = 1;
    b.plan.index_sizes[0] = out->sizes[p->axis];
    b.plan.index_strides[0] = (int64_t)out->strides[p->axis];
    for (uint32_t i = 0; i < upd->rank; ++i)
        dml_plan_builder_add(&b, (dml_plan_dim){ upd->sizes[i], (int64_t)upd->strides[i],
            i == p->axis ? 0 : (int64_t)out->strides[i], (int64_t)idx->strides[i], 0 });
    return lower_updates(&b, lowering);
}

static const char nd_rule[] =
    "IndicesTensor's meaningful sizes but the last, then InputTensor's after the tuple's dimensions";

static DML_RESULT parse_scatter_nd(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(SCATTER_ND)";
    const DML_SCATTER_ND_OPERATOR_DESC* d = desc;
    scatter_params* p = op->params;
    DML_RESULT r;
    if ((r = parse_tensors(call, d->InputTensor, d->IndicesTensor, d->UpdatesTensor, d->OutputTensor, op)) < 0)
        return r;
    p->nd = (dml_nd_fields){ "InputTensor", "IndicesTensor", d->InputDimensionCount, d->IndicesDimensionCount, 0 };
    dml_nd_layout nd;
    int64_t strides[DML_OP_SHAPE_MAX];
    if ((r = dml_op_nd_layout(call, &p->nd, &op->inputs[0], &op->inputs[1], &nd)) < 0)
        return r;
    return dml_op_align_shape(call, "UpdatesTensor", &op->inputs[2], nd_rule, &nd.shape, strides);
}

static DML_RESULT lower_scatter_nd(const dml_op* op, dml_lowering* lowering)
{
    const scatter_params* p = op->params;
    const dml_tensor* idx = &op->inputs[1];
    const dml_tensor* upd = &op->inputs[2];
    const dml_tensor* out = &op->outputs[0];
    /* The layout over the output (the input's sizes, the output's strides):
     * its data strides are where the updates land. */
    dml_nd_layout nd;
    int64_t strides[DML_OP_SHAPE_MAX];
    DML_RESULT r;
    if ((r = dml_op_nd_layout(lowering->call, &p->nd, out, idx, &nd)) < 0 ||
        (r = dml_op_align_shape(lowering->call, "UpdatesTensor", upd, nd_rule, &nd.shape, strides)) < 0 ||
        (r = lower_copy(op, lowering)) < 0)
        return r; /* the first two validated by parse */
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_SCATTER, out->element_size);
    dml_op_set_indices(&b, idx);
    dml_op_set_tuple(&b, &nd, out, idx);
    for (uint32_t i = 0; i < nd.shape.count; ++i) {
        dml_plan_dim dim = nd.shape.dims[i];
        dml_plan_builder_add(&b, (dml_plan_dim){ dim.size, strides[i], dim.in_stride, dim.len_stride, 0 });
    }
    return lower_updates(&b, lowering);
}

const dml_op_entry dml_op_scatter_elements = {
    .type = DML_OPERATOR_SCATTER_ELEMENTS,
    .name = "SCATTER_ELEMENTS",
    .params_size = sizeof(scatter_params),
    .inputs = 3,
    .outputs = 1,
    .parse = parse_scatter_elements,
    .lower = lower_scatter_elements,
    .in_place = true,
};

const dml_op_entry dml_op_scatter_nd = {
    .type = DML_OPERATOR_SCATTER_ND,
    .name = "SCATTER_ND",
    .params_size = sizeof(scatter_params),
    .inputs = 3,
    .outputs = 1,
    .parse = parse_scatter_nd,
    .lower = lower_scatter_nd,
    .in_place = true,
};
