/*
 * compiled.c — what every compiled operator shares, single operator or graph:
 * its steps' backend state, its name for messages, its destruction.
 */
#include <stdlib.h>

#include "core.h"

const char* dml_compiled_kind(const dml_compiled* compiled)
{
    return compiled->op ? compiled->op->op->entry->name : "graph";
}

static void destroy_compiled(dml_object* object)
{
    dml_compiled* compiled = (dml_compiled*)object;
    const dml_backend* backend = object->device->backend;
    for (uint32_t i = 0; i < compiled->step_count; ++i)
        if (compiled->steps[i].backend_state)
            backend->compiled_destroy(compiled->steps[i].backend_state);
    dml_object_release(compiled->op);
    free(compiled->block);
}

const dml_object_class dml_compiled_class = { DML_OBJECT_TYPE_COMPILED_OPERATOR, sizeof(dml_compiled),
    destroy_compiled };

DML_RESULT dml_compiled_compile_steps(dml_device* device, dml_compiled* compiled, const char* call)
{
    const dml_backend* backend = device->backend;
    for (uint32_t i = 0; i < compiled->step_count; ++i) {
        uint32_t kind = compiled->steps[i].plan.kind;
        if (kind >= DML_PLAN_KIND_COUNT || !(backend->plan_kinds & DML_PLAN_KIND_BIT(kind)))
            return dml_device_fail(device, DML_E_NOTIMPL,
                "%s(%s): step %u needs the plan kind '%s', which the '%s' backend does not execute", call,
                dml_compiled_kind(compiled), i, dml_plan_kind_name(kind), backend->name);
    }
    if (!backend->compile)
        return DML_S_OK;
    for (uint32_t i = 0; i < compiled->step_count; ++i) {
        dml_step* step = &compiled->steps[i];
        DML_RESULT r = backend->compile(device->state, &step->plan, &step->backend_state);
        if (r < 0)
            return dml_device_remove(device, r);
    }
    return DML_S_OK;
}
