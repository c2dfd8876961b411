/*
 * padding.c — DML_OPERATOR_PADDING and DML_OPERATOR_PADDING1:
 * Output.Sizes[i] = Input.Sizes[i] + StartPadding[i] + EndPadding[i], the
 * input at offset StartPadding, the border by PaddingMode (CONSTANT: the
 * value; EDGE: the edge element; REFLECTION / SYMMETRIC: mirrored, folding
 * again past the far edge, periods 2(n - 1) and 2n; core/pad_fold.h).
 * PADDING's FLOAT value becomes the output's type by CAST's rules
 * (core/cast.h); PADDING1's is read as PaddingValueDataType, which must be
 * the output's type. Both parse into one params struct: one lowering.
 *
 * Lowering: ONE DML_PLAN_PAD plan over the whole output. Every output
 * element is written once, by a plan walked like any gather (output strides
 * decreasing, so a CUDA warp stores consecutive elements of a row and the
 * CPU writes each row as left border, interior run, right border); the
 * interior is read once. A padded dimension is folded (pad_origin =
 * -StartPadding, pad_extent = Input.Sizes); one without padding, or of a
 * single element under a mirroring mode (every coordinate reads it), is a
 * plain gather dimension, so the builder merges it with its unpadded
 * neighbours and drops it when it has one element. A padding that folds
 * nothing is a plain gather (the builder turns it into one). The other
 * shape considered, the interior as a GATHER plus border plans, would let
 * the interior fuse with producers, but writes each output row in three
 * plans, a few scattered elements each for the borders (short strided
 * stores): one pass wins for the padding of H and W that convolutions ask.
 * Pads far beyond the input are safe: the fold brings every coordinate into
 * [0, Input.Sizes), and the plan's index32 is decided over those ranges.
 */
#include "../cast.h"
#include "../pad_fold.h"
#include "op.h"

typedef struct padding_params {
    uint32_t mode; /* DML_PADDING_MODE */
    dml_scalar value; /* CONSTANT: in the output's type */
    uint32_t start[DML_TENSOR_DIMENSION_COUNT_MAX1];
    uint32_t end[DML_TENSOR_DIMENSION_COUNT_MAX1];
} padding_params;

/* The fields PADDING and PADDING1 share. */
typedef struct padding_fields {
    const DML_TENSOR_DESC *input, *output;
    DML_PADDING_MODE mode;
    UINT dimension_count;
    const UINT *start, *end;
} padding_fields;

static DML_RESULT parse_common(const char* call, const padding_fields* f, dml_op* op)
{
    padding_params* p = op->params;
    dml_tensor* in = &op->inputs[0];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, f->input, in)) < 0 ||
        (r = dml_op_tensor(call, "OutputTensor", true, f->output, out)) < 0)
        return r;
    if (f->dimension_count != in->rank || f->dimension_count != out->rank)
        DML_OP_FAIL("%s: DimensionCount = %u; must equal InputTensor's %u and OutputTensor's %u", call,
            f->dimension_count, in->rank, out->rank);
    if (!f->start || !f->end)
        DML_OP_FAIL("%s: %s is NULL; must point to DimensionCount = %u values", call,
            f->start ? "EndPadding" : "StartPadding", f->dimension_count);
    if (out->data_type != in->data_type)
        DML_OP_FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(out->data_type), dml_data_type_name(in->data_type));
    if ((uint32_t)f->mode > DML_PADDING_MODE_SYMMETRIC)
        DML_OP_FAIL("%s: PaddingMode = %u; must be DML_PADDING_MODE_CONSTANT (0), EDGE (1), REFLECTION (2) or "
            "SYMMETRIC (3)", call, (unsigned)f->mode);
    for (uint32_t i = 0; i < in->rank; ++i) {
        /* Three 32-bit values: the sum fits in 64 bits. */
        uint64_t padded = (uint64_t)in->sizes[i] + f->start[i] + f->end[i];
        if (out->sizes[i] != padded)
            DML_OP_FAIL("%s: OutputTensor.Sizes[%u] = %u; must be InputTensor.Sizes[%u] + StartPadding[%u] + "
                "EndPadding[%u] = %u + %u + %u = %llu%s", call, i, out->sizes[i], i, i, i, in->sizes[i],
                f->start[i], f->end[i], (unsigned long long)padded,
                padded > UINT32_MAX ? ", more than a 32-bit size holds" : "");
        p->start[i] = f->start[i];
        p->end[i] = f->end[i];
    }
    p->mode = (uint32_t)f->mode;
    return DML_S_OK;
}

static DML_RESULT parse_padding(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(PADDING)";
    const DML_PADDING_OPERATOR_DESC* d = desc;
    padding_fields f = { d->InputTensor, d->OutputTensor, d->PaddingMode, d->DimensionCount, d->StartPadding,
        d->EndPadding };
    DML_RESULT r = parse_common(call, &f, op);
    if (r < 0)
        return r;
    padding_params* p = op->params;
    FLOAT value = d->PaddingValue;
    dml_cast_element(op->outputs[0].data_type, p->value.bytes, DML_TENSOR_DATA_TYPE_FLOAT32, &value);
    return DML_S_OK;
}

static DML_RESULT parse_padding1(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(PADDING1)";
    const DML_PADDING1_OPERATOR_DESC* d = desc;
    padding_fields f = { d->InputTensor, d->OutputTensor, d->PaddingMode, d->DimensionCount, d->StartPadding,
        d->EndPadding };
    DML_RESULT r = parse_common(call, &f, op);
    if (r < 0)
        return r;
    const dml_tensor* out = &op->outputs[0];
    if (d->PaddingValueDataType != out->data_type)
        DML_OP_FAIL("%s: PaddingValueDataType %s (%d) differs from OutputTensor.DataType %s; they must be equal",
            call, dml_data_type_name(d->PaddingValueDataType), (int)d->PaddingValueDataType,
            dml_data_type_name(out->data_type));
    padding_params* p = op->params;
    /* The type's own bytes (a FLOAT16 is its bits in Bytes[0..1]); the rest are ignored. */
    memcpy(p->value.bytes, d->PaddingValue.Bytes, out->element_size);
    return DML_S_OK;
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const padding_params* p = op->params;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_PAD, out->element_size);
    b.plan.pad_mode = p->mode;
    if (p->mode == DML_PADDING_MODE_CONSTANT)
        b.plan.fill_start = p->value;
    for (uint32_t i = 0; i < out->rank; ++i) {
        dml_plan_dim d = { out->sizes[i], (int64_t)in->strides[i], (int64_t)out->strides[i], 0, 0 };
        if (!p->start[i] && !p->end[i]) {
            dml_plan_builder_add(&b, d);
        } else if (p->mode != DML_PADDING_MODE_CONSTANT && in->sizes[i] == 1) {
            d.in_stride = 0; /* every coordinate reads the one element */
            dml_plan_builder_add(&b, d);
        } else {
            dml_plan_builder_add_fold(&b, d, -(int64_t)p->start[i], in->sizes[i]);
        }
    }
    dml_plan plan;
    if (!dml_plan_builder_finish(&b, &plan)) /* at most 8 dimensions described */
        return dml_set_error(DML_E_NOTIMPL, "%s: the padding does not fit one plan", lowering->call);
    return dml_lowering_add(lowering, &plan, DML_OPERAND_IN(0), DML_OPERAND_NOTHING, DML_OPERAND_OUT(0));
}

const dml_op_entry dml_op_padding = {
    .type = DML_OPERATOR_PADDING,
    .name = "PADDING",
    .params_size = sizeof(padding_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse_padding,
    .lower = lower,
};

const dml_op_entry dml_op_padding1 = {
    .type = DML_OPERATOR_PADDING1,
    .name = "PADDING1",
    .params_size = sizeof(padding_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse_padding1,
    .lower = lower,
};
