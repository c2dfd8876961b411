/*
 * compiled.c — what every compiled operator shares, single operator or graph:
 * its steps' backend state, its name for messages, its destruction.
 */
#include <stdlib.h>

#include "objects.h"

const char* dml_compiled_kind(const dml_compiled* compiled)
{
    return compiled->op ? dml_operator_type_name(compiled->op->desc.type) : "graph";
}

void dml_compiled_destroy(dml_compiled* compiled)
{
    const dml_backend* backend = dml_core_backend;
    for (uint32_t i = 0; i < compiled->step_count; ++i)
        if (compiled->steps[i].backend_state)
            backend->compiled_destroy(compiled->steps[i].backend_state);
    dml_object_release(compiled->op);
    free(compiled->graph);
}

DML_RESULT dml_compiled_compile_steps(dml_device* device, dml_compiled* compiled)
{
    if (!device->backend->compile)
        return DML_S_OK;
    for (uint32_t i = 0; i < compiled->step_count; ++i) {
        dml_step* step = &compiled->steps[i];
        DML_RESULT r = device->backend->compile(device->state, &step->plan, &step->backend_state);
        if (r < 0)
            return r;
    }
    return DML_S_OK;
}
