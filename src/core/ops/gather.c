/*
 * gather.c — DML_OPERATOR_GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1:
 * gathers whose position on some input dimensions is read from an index
 * tensor at execution (plan.h's DML_PLAN_INDEXED). Every other dimension is
 * affine, so the builder merges them as in any gather: a GATHER of rows is a
 * plan whose innermost dimension is the row and whose index is read once
 * per row. Indices are clamped into range (plan.h).
 */
#include "op.h"

typedef struct gather_params {
    uint32_t axis, index_dims;      /* GATHER, GATHER_ELEMENTS */
    dml_nd_fields nd;               /* GATHER_ND, GATHER_ND1 */
} gather_params;

/* The three tensors every gather has: data, indices, output of the data's type. */
static DML_RESULT parse_tensors(const char* call, const DML_TENSOR_DESC* input, const DML_TENSOR_DESC* indices,
    const DML_TENSOR_DESC* output, dml_op* op)
{
    dml_tensor* in = &op->inputs[0];
    dml_tensor* idx = &op->inputs[1];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, input, in)) < 0 ||
        (r = dml_op_tensor(call, "IndicesTensor", false, indices, idx)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, output, out)) < 0 ||
        (r = dml_op_check_indices(call, "IndicesTensor", idx)) < 0)
        return r;
    if (idx->rank != in->rank || out->rank != in->rank)
        DML_OP_FAIL("%s: DimensionCount differs: InputTensor %u, IndicesTensor %u, OutputTensor %u; must be equal",
            call, in->rank, idx->rank, out->rank);
    if (out->data_type != in->data_type)
        DML_OP_FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(out->data_type), dml_data_type_name(in->data_type));
    return DML_S_OK;
}

/* GATHER's output shape: the input's dimensions before Axis, the indices'
 * last IndexDimensions, the input's after Axis. */
static void gather_shape(const dml_op* op, const gather_params* p, dml_op_shape* shape)
{
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* idx = &op->inputs[1];
    shape->count = 0;
    for (uint32_t i = 0; i < p->axis; ++i)
        dml_op_shape_add(shape, in->sizes[i], (dml_plan_dim){ 0, (int64_t)in->strides[i], 0, 0, 0 });
    for (uint32_t j = in->rank - p->index_dims; j < in->rank; ++j)
        dml_op_shape_add(shape, idx->sizes[j], (dml_plan_dim){ 0, 0, 0, (int64_t)idx->strides[j], 0 });
    for (uint32_t i = p->axis + 1; i < in->rank; ++i)
        dml_op_shape_add(shape, in->sizes[i], (dml_plan_dim){ 0, (int64_t)in->strides[i], 0, 0, 0 });
}

static DML_RESULT parse_gather(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(GATHER)";
    const DML_GATHER_OPERATOR_DESC* d = desc;
    gather_params* p = op->params;
    DML_RESULT r;
    if ((r = parse_tensors(call, d->InputTensor, d->IndicesTensor, d->OutputTensor, op)) < 0)
        return r;
    const dml_tensor* in = &op->inputs[0];
    if (d->Axis >= in->rank)
        DML_OP_FAIL("%s: Axis = %u; must be less than InputTensor.DimensionCount %u", call, d->Axis, in->rank);
    if (d->IndexDimensions > in->rank)
        DML_OP_FAIL("%s: IndexDimensions = %u; must be at most IndicesTensor.DimensionCount %u", call,
            d->IndexDimensions, in->rank);
    if ((r = dml_op_check_leading_ones(call, "IndicesTensor", &op->inputs[1], "IndexDimensions",
             d->IndexDimensions)) < 0)
        return r;
    p->axis = d->Axis;
    p->index_dims = d->IndexDimensions;
    dml_op_shape shape;
    int64_t strides[DML_OP_SHAPE_MAX];
    gather_shape(op, p, &shape);
    return dml_op_align_shape(call, "OutputTensor", &op->outputs[0],
        "InputTensor.Sizes before Axis, IndicesTensor's last IndexDimensions sizes, InputTensor.Sizes after Axis",
        &shape, strides);
}

/* The indexed gather over shape (its out strides from `strides`), reading
 * one index or tuple per output element as the builder's plan says. */
static DML_RESULT lower_shape(const dml_plan_builder* base, const dml_op_shape* shape, const int64_t* out_strides,
    dml_lowering* lowering)
{
    dml_plan_builder b = *base;
    for (uint32_t i = 0; i < shape->count; ++i) {
        dml_plan_dim dim = shape->dims[i];
        dim.out_stride = out_strides[i];
        dml_plan_builder_add(&b, dim); /* at most DML_OP_SHAPE_MAX < DML_PLAN_WORK_RANK */
    }
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_IN(0), DML_OPERAND_IN(1), DML_OPERAND_OUT(0));
}

static DML_RESULT lower_gather(const dml_op* op, dml_lowering* lowering)
{
    const gather_params* p = op->params;
    const dml_tensor* in = &op->inputs[0];
    dml_op_shape shape;
    int64_t strides[DML_OP_SHAPE_MAX];
    gather_shape(op, p, &shape);
    DML_RESULT r = dml_op_align_shape(lowering->call, "OutputTensor", &op->outputs[0], "", &shape, strides);
    if (r < 0)
        return r; /* validated by parse */
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_INDEXED, in->element_size);
    dml_op_set_indices(&b, &op->inputs[1]);
    b.plan.index_count = 1;
    b.plan.index_sizes[0] = in->sizes[p->axis];
    b.plan.index_strides[0] = (int64_t)in->strides[p->axis];
    return lower_shape(&b, &shape, strides, lowering);
}

static DML_RESULT parse_gather_elements(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(GATHER_ELEMENTS)";
    const DML_GATHER_ELEMENTS_OPERATOR_DESC* d = desc;
    gather_params* p = op->params;
    DML_RESULT r;
    if ((r = parse_tensors(call, d->InputTensor, d->IndicesTensor, d->OutputTensor, op)) < 0)
        return r;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* idx = &op->inputs[1];
    if ((r = dml_op_check_elements_axis(call, d->Axis, in, idx)) < 0)
        return r;
    if ((r = dml_op_check_same_shape(call, "IndicesTensor", idx, "OutputTensor", &op->outputs[0], false)) < 0)
        return r;
    p->axis = d->Axis;
    return DML_S_OK;
}

static DML_RESULT lower_gather_elements(const dml_op* op, dml_lowering* lowering)
{
    const gather_params* p = op->params;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* idx = &op->inputs[1];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_INDEXED, in->element_size);
    dml_op_set_indices(&b, idx);
    b.plan.index_count = 1;
    b.plan.index_sizes[0] = in->sizes[p->axis];
    b.plan.index_strides[0] = (int64_t)in->strides[p->axis];
    for (uint32_t i = 0; i < out->rank; ++i)
        dml_plan_builder_add(&b, (dml_plan_dim){ out->sizes[i], i == p->axis ? 0 : (int64_t)in->strides[i],
            (int64_t)out->strides[i], (int64_t)idx->strides[i], 0 });
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_IN(0), DML_OPERAND_IN(1), DML_OPERAND_OUT(0));
}

static DML_RESULT parse_nd(const char* call, const DML_TENSOR_DESC* input, const DML_TENSOR_DESC* indices,
    const DML_TENSOR_DESC* output, dml_nd_fields fields, dml_op* op)
{
    gather_params* p = op->params;
    DML_RESULT r;
    if ((r = parse_tensors(call, input, indices, output, op)) < 0)
        return r;
    dml_nd_layout nd;
    int64_t strides[DML_OP_SHAPE_MAX];
    if ((r = dml_op_nd_layout(call, &fields, &op->inputs[0], &op->inputs[1], &nd)) < 0 ||
        (r = dml_op_align_shape(call, "OutputTensor", &op->outputs[0],
             "IndicesTensor's meaningful sizes but the last, then InputTensor's after the batch and tuple dimensions",
             &nd.shape, strides)) < 0)
        return r;
    p->nd = fields;
    return DML_S_OK;
}

static DML_RESULT parse_gather_nd(const void* desc, dml_op* op)
{
    const DML_GATHER_ND_OPERATOR_DESC* d = desc;
    return parse_nd("dmlDeviceCreateOperator(GATHER_ND)", d->InputTensor, d->IndicesTensor, d->OutputTensor,
        (dml_nd_fields){ "InputTensor", "IndicesTensor", d->InputDimensionCount, d->IndicesDimensionCount, 0 }, op);
}

static DML_RESULT parse_gather_nd1(const void* desc, dml_op* op)
{
    const DML_GATHER_ND1_OPERATOR_DESC* d = desc;
    return parse_nd("dmlDeviceCreateOperator(GATHER_ND1)", d->InputTensor, d->IndicesTensor, d->OutputTensor,
        (dml_nd_fields){ "InputTensor", "IndicesTensor", d->InputDimensionCount, d->IndicesDimensionCount,
            d->BatchDimensionCount }, op);
}

static DML_RESULT lower_nd(const dml_op* op, dml_lowering* lowering)
{
    const gather_params* p = op->params;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* idx = &op->inputs[1];
    dml_nd_layout nd;
    int64_t strides[DML_OP_SHAPE_MAX];
    DML_RESULT r;
    if ((r = dml_op_nd_layout(lowering->call, &p->nd, in, idx, &nd)) < 0 ||
        (r = dml_op_align_shape(lowering->call, "OutputTensor", &op->outputs[0], "", &nd.shape, strides)) < 0)
        return r; /* validated by parse */
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_INDEXED, in->element_size);
    dml_op_set_indices(&b, idx);
    dml_op_set_tuple(&b, &nd, in, idx);
    return lower_shape(&b, &nd.shape, strides, lowering);
}

const dml_op_entry dml_op_gather = {
    .type = DML_OPERATOR_GATHER,
    .name = "GATHER",
    .params_size = sizeof(gather_params),
    .inputs = 2,
    .outputs = 1,
    .parse = parse_gather,
    .lower = lower_gather,
};

const dml_op_entry dml_op_gather_elements = {
    .type = DML_OPERATOR_GATHER_ELEMENTS,
    .name = "GATHER_ELEMENTS",
    .params_size = sizeof(gather_params),
    .inputs = 2,
    .outputs = 1,
    .parse = parse_gather_elements,
    .lower = lower_gather_elements,
};

const dml_op_entry dml_op_gather_nd = {
    .type = DML_OPERATOR_GATHER_ND,
    .name = "GATHER_ND",
    .params_size = sizeof(gather_params),
    .inputs = 2,
    .outputs = 1,
    .parse = parse_gather_nd,
    .lower = lower_nd,
};

const dml_op_entry dml_op_gather_nd1 = {
    .type = DML_OPERATOR_GATHER_ND1,
    .name = "GATHER_ND1",
    .params_size = sizeof(gather_params),
    .inputs = 2,
    .outputs = 1,
    .parse = parse_gather_nd1,
    .lower = lower_nd,
};
