/*
 * tile.c — DML_OPERATOR_TILE: Output[c] = Input[c mod Input.Sizes], the
 * input repeated Repeats[i] times along each dimension i. One affine gather:
 * every dimension splits in two, the repeat (Repeats[i] copies, input stride
 * 0, output stride Input.Sizes[i] * the output's stride) outside the position
 * within the input (Input.Sizes[i], both tensors' strides). The builder
 * merges what it can; a tile that still needs more than 8 dimensions runs as
 * several plans (dml_lowering_add_gather).
 */
#include "op.h"

typedef struct tile_params {
    uint32_t repeats[DML_TENSOR_DIMENSION_COUNT_MAX1];
} tile_params;

static DML_RESULT parse(const void* desc, dml_op* op)
{
    static const char call[] = "dmlDeviceCreateOperator(TILE)";
    const DML_TILE_OPERATOR_DESC* d = desc;
    tile_params* p = op->params;
    dml_tensor* in = &op->inputs[0];
    dml_tensor* out = &op->outputs[0];
    DML_RESULT r;
    if ((r = dml_op_tensor(call, "InputTensor", false, d->InputTensor, in)) < 0)
        return r;
    /* Repeats before the output, so that a repeat of 0 (an output size of 0)
     * is named as such. */
    if (d->RepeatsCount != in->rank)
        DML_OP_FAIL("%s: RepeatsCount = %u; must equal InputTensor.DimensionCount %u", call, d->RepeatsCount,
            in->rank);
    if (!d->Repeats)
        DML_OP_FAIL("%s: Repeats is NULL; must point to RepeatsCount = %u values", call, d->RepeatsCount);
    for (uint32_t i = 0; i < in->rank; ++i)
        if (d->Repeats[i] == 0)
            DML_OP_FAIL("%s: Repeats[%u] = 0; must be >= 1", call, i);
    if ((r = dml_op_tensor(call, "OutputTensor", true, d->OutputTensor, out)) < 0)
        return r;
    if (out->rank != in->rank)
        DML_OP_FAIL("%s: OutputTensor.DimensionCount %u differs from InputTensor.DimensionCount %u", call, out->rank,
            in->rank);
    if (out->data_type != in->data_type)
        DML_OP_FAIL("%s: OutputTensor.DataType %s differs from InputTensor.DataType %s", call,
            dml_data_type_name(out->data_type), dml_data_type_name(in->data_type));
    for (uint32_t i = 0; i < in->rank; ++i) {
        uint64_t tiled = (uint64_t)in->sizes[i] * d->Repeats[i]; /* < 2^64: two 32-bit factors */
        if (out->sizes[i] != tiled)
            DML_OP_FAIL("%s: OutputTensor.Sizes[%u] = %u; must be InputTensor.Sizes[%u] * Repeats[%u] = %u * %u = "
                "%llu%s", call, i, out->sizes[i], i, i, in->sizes[i], d->Repeats[i], (unsigned long long)tiled,
                tiled > UINT32_MAX ? ", more than a 32-bit size holds" : "");
        p->repeats[i] = d->Repeats[i];
    }
    return DML_S_OK;
}

static DML_RESULT lower(const dml_op* op, dml_lowering* lowering)
{
    const tile_params* p = op->params;
    const dml_tensor* in = &op->inputs[0];
    const dml_tensor* out = &op->outputs[0];
    dml_plan_builder b;
    dml_plan_builder_init(&b, DML_PLAN_GATHER, out->element_size);
    for (uint32_t i = 0; i < out->rank; ++i) {
        /* With 2 or more repeats, Input.Sizes[i] * the output's stride is at
         * most (Output.Sizes[i] - 1) * that stride, inside the validated
         * output: it fits. One repeat is a dimension of size 1 (dropped). */
        int64_t repeat_stride = p->repeats[i] > 1 ? (int64_t)in->sizes[i] * (int64_t)out->strides[i] : 0;
        dml_plan_builder_add(&b, (dml_plan_dim){ p->repeats[i], 0, repeat_stride, 0, 0 });
        dml_plan_builder_add(&b, (dml_plan_dim){ in->sizes[i], (int64_t)in->strides[i], (int64_t)out->strides[i], 0, 0 });
    }
    return dml_lowering_add_gather(lowering, &b, DML_OPERAND_IN(0), DML_OPERAND_NOTHING, DML_OPERAND_OUT(0));
}

const dml_op_entry dml_op_tile = {
    .type = DML_OPERATOR_TILE,
    .name = "TILE",
    .params_size = sizeof(tile_params),
    .inputs = 1,
    .outputs = 1,
    .parse = parse,
    .lower = lower,
};
