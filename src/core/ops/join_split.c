/*
 * join_split.c — DML_OPERATOR_JOIN and DML_OPERATOR_SPLIT, mirrors of each
 * other: the "parts" (JOIN's inputs, SPLIT's outputs) agree with the "whole"
 * on rank, data type and every size but Axis's, and the whole's Axis size is
 * the sum of theirs; part k covers the whole's Axis positions from the sum
 * of the earlier parts' sizes.
 *
 * Each part is one plain gather between itself and its sub-range of the
 * whole, so the graph compiler fuses a part's producer (JOIN) or consumer
 * (SPLIT) into that gather, and a JOIN of gathered inputs writes each
 * straight into its sub-range.
 */
#include <stdio.h>

#include "op.h"

typedef struct join_split_params {
    uint32_t axis;
} join_split_params;

/* The desc's fields as both operators see them. */
typedef struct join_split_desc {
    const char* call;
    const char* part_field;  /* "InputTensors" or "OutputTensors" */
    const char* count_field; /* "InputCount" or "OutputCount" */
    const char* whole_field; /* "OutputTensor" or "InputTensor" */
    bool parts_are_outputs;
    uint32_t count;
    const DML_TENSOR_DESC* parts;
    const DML_TENSOR_DESC* whole;
    uint32_t axis;
} join_split_desc;

static DML_RESULT count_join(const void* desc, uint32_t* inputs, uint32_t* outputs)
{
    const DML_JOIN_OPERATOR_DESC* d = desc;
    if (d->InputCount == 0)
        DML_OP_FAIL("dmlDeviceCreateOperator(JOIN): InputCount = 0; must be >= 1");
    *inputs = d->InputCount;
    *outputs = 1;
    return DML_S_OK;
}

static DML_RESULT count_split(const void* desc, uint32_t* inputs, uint32_t* outputs)
{
    const DML_SPLIT_OPERATOR_DESC* d = desc;
    if (d->OutputCount == 0)
        DML_OP_FAIL("dmlDeviceCreateOperator(SPLIT): OutputCount = 0; must be >= 1");
    *inputs = 1;
    *outputs = d->OutputCount;
    return DML_S_OK;
}

static DML_RESULT parse_parts(const join_split_desc* d, dml_op* op)
{
    dml_tensor* parts = d->parts_are_outputs ? op->outputs : op->inputs;
    dml_tensor* whole = d->parts_are_outputs ? &op->inputs[0] : &op->outputs[0];
    join_split_params* p = op->params;
    DML_RESULT r;
    if (!d->parts)
        DML_OP_FAIL("%s: %s is NULL; must point to %s = %u descs", d->call, d->part_field, d->count_field, d->count);
    char field[48];
    for (uint32_t k = 0; k < d->count; ++k) {
        snprintf(field, sizeof field, "%s[%u]", d->part_field, k);
        if ((r = dml_op_tensor(d->call, field, d->parts_are_outputs, &d->parts[k], &parts[k])) < 0)
            return r;
    }
    if ((r = dml_op_tensor(d->call, d->whole_field, !d->parts_are_outputs, d->whole, whole)) < 0)
        return r;
    if (d->axis >= whole->rank)
        DML_OP_FAIL("%s: Axis = %u; must be less than %s.DimensionCount %u", d->call, d->axis, d->whole_field,
            whole->rank);
    uint64_t total = 0; /* at most 65536 sizes below 2^32: no overflow */
    for (uint32_t k = 0; k < d->count; ++k) {
        snprintf(field, sizeof field, "%s[%u]", d->part_field, k);
        const dml_tensor* part = &parts[k];
        if (part->rank != whole->rank)
            DML_OP_FAIL("%s: %s.DimensionCount %u differs from %s.DimensionCount %u", d->call, field, part->rank,
                d->whole_field, whole->rank);
        if (part->data_type != whole->data_type)
            DML_OP_FAIL("%s: %s.DataType %s differs from %s.DataType %s", d->call, field,
                dml_data_type_name(part->data_type), d->whole_field, dml_data_type_name(whole->data_type));
        for (uint32_t i = 0; i < whole->rank; ++i)
            if (i != d->axis && part->sizes[i] != whole->sizes[i])
                DML_OP_FAIL("%s: %s.Sizes[%u] = %u differs from %s.Sizes[%u] = %u (only Axis %u may differ)",
                    d->call, field, i, part->sizes[i], d->whole_field, i, whole->sizes[i], d->axis);
        total += part->sizes[d->axis];
    }
    if (total != whole->sizes[d->axis])
        DML_OP_FAIL("%s: %s.Sizes[%u] = %u; must be the sum of the %s' Sizes[%u], %llu", d->call, d->whole_field,
            d->axis, whole->sizes[d->axis], d->part_field, d->axis, (unsigned long long)total);
    p->axis = d->axis;
    return DML_S_OK;
}

static DML_RESULT parse_join(const void* desc, dml_op* op)
{
    const DML_JOIN_OPERATOR_DESC* d = desc;
    join_split_desc j = { "dmlDeviceCreateOperator(JOIN)", "InputTensors", "InputCount", "OutputTensor", false,
        d->InputCount, d->InputTensors, d->OutputTensor, d->Axis };
    return parse_parts(&j, op);
}

static DML_RESULT parse_split(const void* desc, dml_op* op)
{
    const DML_SPLIT_OPERATOR_DESC* d = desc;
    join_split_desc s = { "dmlDeviceCreateOperator(SPLIT)", "OutputTensors", "OutputCount", "InputTensor", true,
        d->OutputCount, d->OutputTensors, d->InputTensor, d->Axis };
    return parse_parts(&s, op);
}

/* One gather per part, between the part and its sub-range of the whole. */
static DML_RESULT lower_parts(const dml_op* op, dml_lowering* lowering, bool parts_are_outputs)
{
    const join_split_params* p = op->params;
    const dml_tensor* parts = parts_are_outputs ? op->outputs : op->inputs;
    const dml_tensor* whole = parts_are_outputs ? &op->inputs[0] : &op->outputs[0];
    uint32_t count = parts_are_outputs ? op->output_count : op->input_count;
    uint64_t start = 0;
    for (uint32_t k = 0; k < count; ++k) {
        const dml_tensor* part = &parts[k];
        const dml_tensor* in = parts_are_outputs ? whole : part;
        const dml_tensor* out = parts_are_outputs ? part : whole;
        dml_plan_builder b;
        dml_plan_builder_init(&b, DML_PLAN_GATHER, out->element_size);
        /* start < the whole's Axis size: the offset is inside the validated whole. */
        int64_t offset = (int64_t)start * (int64_t)whole->strides[p->axis];
        if (parts_are_outputs)
            b.plan.in_offset = offset;
        else
            b.plan.out_offset = offset;
        for (uint32_t i = 0; i < part->rank; ++i)
            dml_plan_builder_add(&b, (dml_plan_dim){ part->sizes[i], (int64_t)in->strides[i],
                (int64_t)out->strides[i], 0, 0 });
        dml_operand whole_operand = parts_are_outputs ? DML_OPERAND_IN(0) : DML_OPERAND_OUT(0);
        dml_operand part_operand = parts_are_outputs ? DML_OPERAND_OUT(k) : DML_OPERAND_IN(k);
        DML_RESULT r = dml_lowering_add_gather(lowering, &b, parts_are_outputs ? whole_operand : part_operand,
            DML_OPERAND_NOTHING, parts_are_outputs ? part_operand : whole_operand);
        if (r < 0)
            return r;
        start += part->sizes[p->axis];
    }
    return DML_S_OK;
}

static DML_RESULT lower_join(const dml_op* op, dml_lowering* lowering)
{
    return lower_parts(op, lowering, false);
}

static DML_RESULT lower_split(const dml_op* op, dml_lowering* lowering)
{
    return lower_parts(op, lowering, true);
}

const dml_op_entry dml_op_join = {
    .type = DML_OPERATOR_JOIN,
    .name = "JOIN",
    .params_size = sizeof(join_split_params),
    .count = count_join,
    .parse = parse_join,
    .lower = lower_join,
};

const dml_op_entry dml_op_split = {
    .type = DML_OPERATOR_SPLIT,
    .name = "SPLIT",
    .params_size = sizeof(join_split_params),
    .count = count_split,
    .parse = parse_split,
    .lower = lower_split,
};
