/*
 * slice.c — DML_OPERATOR_SLICE and DML_OPERATOR_SLICE1. SLICE's window
 * (Offsets, Sizes, Strides >= 1) is validated in its own terms, then stored
 * in SLICE1's (offsets, window sizes, signed strides): one lowering.
 */
#include "op.h"

typedef struct slice_params {
    uint32_t window_offsets[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t window_sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    int64_t window_strides[DML_TENSOR_DIMENSION_COUNT_MAX1]; /* SLICE's may exceed INT32_MAX */
} slice_params;

/* Checks shared by SLICE and SLICE1, before the window. */
static DML_RESULT slice_tensors(const char* call, const DML_TENSOR_DESC* input, const DML_TENSOR_DESC* output,
    uint32_t dimension_count, dml_op* op)
{
    dml_tensor* in = &op->inputs[0];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, input, in)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, output, out)) < 0)
        return r;
    if (dimension_count != in->rank || dimension_count != out->rank)
        DML_OP_FAIL("%s: DimensionCount = %u; must equal InputTensor's %u and OutputTensor's %u", call,
            dimension_count, in->rank, out->rank);
    if (out->data_type != in->data_type)
        DML_OP_FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(out->data_type), dml_data_type_name(in->data_type));
    return DML_S_OK;
}

static DML_RESULT parse_slice1(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(SLICE1)";
    const DML_SLICE1_OPERATOR_DESC* d = desc;
    slice_params* p = op->params;
    DML_RESULT r = slice_tensors(call, d->InputTensor, d->OutputTensor, d->DimensionCount, op);
    if (r < 0)
        return r;
    if (!d->InputWindowOffsets || !d->InputWindowSizes || !d->InputWindowStrides)
        DML_OP_FAIL("%s: InputWindowOffsets, InputWindowSizes and InputWindowStrides must not be NULL", call);
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    for (uint32_t i = 0; i < d->DimensionCount; ++i) {
        uint64_t offset = d->InputWindowOffsets[i], size = d->InputWindowSizes[i];
        int64_t stride = d->InputWindowStrides[i];
        if (size == 0)
            DML_OP_FAIL("%s: InputWindowSizes[%u] = 0; must be >= 1", call, i);
        if (offset + size > in->sizes[i])
            DML_OP_FAIL("%s: InputWindowOffsets[%u] + InputWindowSizes[%u] = %llu exceeds InputTensor.Sizes[%u] = %u",
                call, i, i, (unsigned long long)(offset + size), i, in->sizes[i]);
        if (stride == 0)
            DML_OP_FAIL("%s: InputWindowStrides[%u] = 0; must be non-zero", call, i);
        uint64_t reachable = 1 + (size - 1) / (uint64_t)(stride < 0 ? -stride : stride);
        if (out->sizes[i] > reachable)
            DML_OP_FAIL("%s: OutputTensor.Sizes[%u] = %u exceeds 1 + (InputWindowSizes[%u] - 1) / "
                "|InputWindowStrides[%u]| = %llu", call, i, out->sizes[i], i, i, (unsigned long long)reachable);
        p->window_offsets[i] = (uint32_t)offset;
        p->window_sizes[i] = (uint32_t)size;
        p->window_strides[i] = stride;
    }
    return DML_S_OK;
}

static DML_RESULT parse_slice(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(SLICE)";
    const DML_SLICE_OPERATOR_DESC* d = desc;
    slice_params* p = op->params;
    DML_RESULT r = slice_tensors(call, d->InputTensor, d->OutputTensor, d->DimensionCount, op);
    if (r < 0)
        return r;
    if (!d->Offsets || !d->Sizes || !d->Strides)
        DML_OP_FAIL("%s: Offsets, Sizes and Strides must not be NULL", call);
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    for (uint32_t i = 0; i < d->DimensionCount; ++i) {
        if (d->Sizes[i] != out->sizes[i])
            DML_OP_FAIL("%s: Sizes[%u] = %u differs from OutputTensor.Sizes[%u] = %u", call, i, d->Sizes[i], i,
                out->sizes[i]);
        if (d->Strides[i] == 0)
            DML_OP_FAIL("%s: Strides[%u] = 0; must be >= 1", call, i);
        /* < 2^64: a 32-bit offset plus a product of two 32-bit numbers */
        uint64_t last = d->Offsets[i] + (uint64_t)(d->Sizes[i] - 1) * d->Strides[i];
        if (last >= in->sizes[i])
            DML_OP_FAIL("%s: Offsets[%u] + (Sizes[%u] - 1) * Strides[%u] = %llu must be less than "
                "InputTensor.Sizes[%u] = %u", call, i, i, i, (unsigned long long)last, i, in->sizes[i]);
        /* SLICE1's window: exactly the elements read, so it fits in the input. */
        p->window_offsets[i] = d->Offsets[i];
        p->window_sizes[i] = (uint32_t)(last - d->Offsets[i] + 1);
        p->window_strides[i] = d->Sizes[i] == 1 ? 1 : (int64_t)d->Strides[i];
    }
    return DML_S_OK;
}

/* out[c] = in[start + c * window_stride] per dimension; a negative stride
 * starts at the window's end (SLICE1's CopyStart). */
static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const slice_params* p = op->params;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_GATHER, out->element_size);
    for (uint32_t i = 0; i < out->rank; ++i) {
        int64_t start = p->window_offsets[i] + (p->window_strides[i] < 0 ? p->window_sizes[i] - 1 : 0);
        b.plan.in_offset += start * (int64_t)in->strides[i];
        /* Reached only inside the input, so the product fits (sizes of 1 are dropped). */
        int64_t in_stride = out->sizes[i] > 1 ? p->window_strides[i] * (int64_t)in->strides[i] : 0;
        dml_plan_builder_add(&b, (dml_plan_dim){ out->sizes[i], in_stride, (int64_t)out->strides[i], 0, 0 });
    }
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_IN(0), DML_OPERAND_NOTHING, DML_OPERAND_OUT(0));
}

const dml_op_entry dml_op_slice = {
    .type = DML_OPERATOR_SLICE,
    .name = "SLICE",
    .params_size = sizeof(slice_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse_slice,
    .lower = lower,
};

const dml_op_entry dml_op_slice1 = {
    .type = DML_OPERATOR_SLICE1,
    .name = "SLICE1",
    .params_size = sizeof(slice_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse_slice1,
    .lower = lower,
};
