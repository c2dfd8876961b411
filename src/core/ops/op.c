/*
 * op.c — what every operator shares: creating a validated dml_op from a desc
 * through its table entry, lowering it, and the helpers operator files use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"

static const char create_call[] = "dmlDeviceCreateOperator";

DML_RESULT dml_op_create(const DML_OPERATOR_DESC* desc, dml_op** out)
{
    if (!desc)
        DML_OP_FAIL("%s: desc is NULL", create_call);
    if (desc->Type <= DML_OPERATOR_INVALID || (uint32_t)desc->Type > (uint32_t)DML_OPERATOR_TYPE_LAST)
        DML_OP_FAIL("%s: desc->Type = %d is not a DML_OPERATOR_TYPE", create_call, (int)desc->Type);
    const dml_op_entry* entry = dml_op_find(desc->Type);
    if (!entry)
        return dml_op_not_implemented(create_call, desc->Type);
    if (!desc->Desc)
        DML_OP_FAIL("%s(%s): desc->Desc is NULL", create_call, entry->name);

    uint32_t inputs = entry->inputs, outputs = entry->outputs;
    if (entry->count) {
        DML_RESULT r = entry->count(desc->Desc, &inputs, &outputs);
        if (r < 0)
            return r;
        if (inputs > DML_OP_MAX_TENSORS || outputs > DML_OP_MAX_TENSORS)
            DML_OP_FAIL("%s(%s): %u inputs and %u outputs; this runtime takes at most %u of each", create_call,
                entry->name, inputs, outputs, DML_OP_MAX_TENSORS);
    }
    /* One block: the op, its tensors, its parameters (8-byte aligned). Counts
     * are capped, so the size cannot overflow. */
    size_t tensors = ((size_t)inputs + outputs) * sizeof(dml_tensor);
    size_t params = (entry->params_size + 7) & ~(size_t)7;
    size_t head = (sizeof(dml_op) + 7) & ~(size_t)7;
    unsigned char* block = calloc(1, head + params + tensors);
    if (!block)
        return dml_set_error(DML_E_OUTOFMEMORY, "%s(%s): out of host memory", create_call, entry->name);
    dml_op* op = (dml_op*)(void*)block;
    op->entry = entry;
    op->input_count = inputs;
    op->output_count = outputs;
    op->params = block + head;
    op->inputs = (dml_tensor*)(void*)(block + head + params);
    op->outputs = op->inputs + inputs;
    DML_RESULT r = entry->parse(desc->Desc, op);
    if (r < 0) {
        free(block);
        return r;
    }
    *out = op;
    return DML_S_OK;
}

void dml_op_destroy(dml_op* op)
{
    free(op);
}

DML_RESULT dml_lowering_add(dml_lowering* lowering, const dml_plan* plan, dml_operand input, dml_operand lengths,
    dml_operand output)
{
    return dml_lowering_add_step(lowering, &(dml_op_step){ *plan, input, lengths, output, DML_OPERAND_NOTHING, false });
}

DML_RESULT dml_lowering_add_step(dml_lowering* lowering, const dml_op_step* step)
{
    if (lowering->count == lowering->capacity) {
        uint32_t capacity = lowering->capacity ? 2 * lowering->capacity : 4;
        dml_op_step* steps = realloc(lowering->steps, capacity * sizeof *steps);
        if (!steps)
            return dml_set_error(DML_E_OUTOFMEMORY, "%s: out of host memory", lowering->call);
        lowering->steps = steps;
        lowering->capacity = capacity;
    }
    lowering->steps[lowering->count++] = *step;
    return DML_S_OK;
}

DML_RESULT dml_lowering_add_gather(dml_lowering* lowering, const dml_plan_builder* builder, dml_operand input,
    dml_operand lengths, dml_operand output)
{
    return dml_lowering_add_built(lowering, builder,
        (dml_op_step){ .input = input, .lengths = lengths, .output = output, .input2 = DML_OPERAND_NOTHING });
}

DML_RESULT dml_lowering_add_built(dml_lowering* lowering, const dml_plan_builder* builder, dml_op_step operands)
{
    uint64_t plans = dml_plan_builder_plan_count(builder);
    if (plans > DML_OP_MAX_PEELED_PLANS)
        return dml_set_error(DML_E_NOTIMPL,
            "%s: the gather needs more than %u dimensions after merging, and enumerating the extra ones takes "
            "more than %u plans", lowering->call, DML_PLAN_MAX_RANK, DML_OP_MAX_PEELED_PLANS);
    for (uint64_t k = 0; k < plans; ++k) {
        dml_plan_builder_plan(builder, k, &operands.plan);
        DML_RESULT r = dml_lowering_add_step(lowering, &operands);
        if (r < 0)
            return r;
    }
    return DML_S_OK;
}

void dml_lowering_free(dml_lowering* lowering)
{
    free(lowering->steps);
    lowering->steps = NULL;
    lowering->count = lowering->capacity = 0;
}

DML_RESULT dml_op_lower(const dml_op* op, const char* call, dml_lowering* lowering)
{
    memset(lowering, 0, sizeof *lowering);
    snprintf(lowering->call, sizeof lowering->call, "%s(%s)", call, op->entry->name);
    DML_RESULT r = op->entry->lower(op, lowering);
    if (r < 0)
        dml_lowering_free(lowering);
    return r;
}

DML_RESULT dml_plan_from_desc(const DML_OPERATOR_DESC* desc, dml_plan* plan)
{
    dml_op* op;
    DML_RESULT r = dml_op_create(desc, &op);
    if (r < 0)
        return r;
    dml_lowering lowering;
    r = dml_op_lower(op, "dml_plan_from_desc", &lowering);
    if (r >= 0 && lowering.count != 1)
        r = dml_set_error(DML_E_NOTIMPL, "dml_plan_from_desc(%s): the operator lowers to %u plans, not one",
            op->entry->name, lowering.count);
    if (r >= 0)
        *plan = lowering.steps[0].plan;
    dml_lowering_free(&lowering);
    dml_op_destroy(op);
    return r;
}
