/*
 * dispatch.c — the execution path: RecordDispatch turns bound ranges into
 * pointers and hands the compiled plan to the backend. Everything was
 * validated at compile and bind time; here we only check that what the
 * dispatchable needs is bound. No allocation on this path.
 */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "trace.h"

DML_BINDING_PROPERTIES dml_dispatchable_binding_properties(DMLDispatchable dispatchable)
{
    DML_BINDING_PROPERTIES properties;
    memset(&properties, 0, sizeof properties);
    if (dml_is_object(dispatchable, DML_OBJECT_TYPE_COMPILED_OPERATOR)) {
        properties.PersistentResourceSize = ((const dml_compiled*)dispatchable)->persistent_size;
        properties.TemporaryResourceSize = ((const dml_compiled*)dispatchable)->temporary_size;
    } else if (!dml_is_object(dispatchable, DML_OBJECT_TYPE_OPERATOR_INITIALIZER))
        dml_invalid_handle(NULL, "dmlDispatchableGetBindingProperties", "dispatchable",
            "DMLDispatchable (DMLCompiledOperator or DMLOperatorInitializer)", dispatchable);
    return properties; /* initializers copy straight into persistent resources: no temporary */
}

/* DML_E_INVALID_CALL naming the operator and what is missing; the label is
 * formatted only here, off the dispatch path. */
static DML_RESULT unbound(const dml_device* device, const dml_compiled* compiled, const char* call, const char* what,
    int64_t index)
{
    char name[DML_OBJECT_NAME_SIZE + 4], slot[48];
    if (index < 0)
        snprintf(slot, sizeof slot, "%s", what);
    else
        snprintf(slot, sizeof slot, "%s%lld", what, (long long)index);
    return dml_device_fail(device, DML_E_INVALID_CALL, "%s(%s%s): %s is not bound", call,
        dml_compiled_kind(compiled), dml_object_label(&compiled->base, name, sizeof name), slot);
}

/* The pointer a step's source names, or NULL when that range is not bound,
 * and the bytes of the bound range from there (what the emulator checks
 * every access against; a temporary intermediate may use the rest of the
 * temporary resource). */
static const unsigned char* resolve(const dml_compiled* compiled, const dml_binding_table* table, dml_source source,
    uint64_t* bytes)
{
    *bytes = 0;
    switch (source.kind) {
    case DML_SOURCE_INPUT:
        if (compiled->owned_offsets[source.index] != DML_NOT_OWNED) {
            *bytes = compiled->inputs[source.index].total_bytes; /* its slot in the persistent resource */
            return dml_binding_pointer(&table->persistent) + compiled->owned_offsets[source.index];
        }
        if (!table->inputs[source.index].buffer)
            return NULL;
        *bytes = table->inputs[source.index].size;
        return dml_binding_pointer(&table->inputs[source.index]);
    case DML_SOURCE_OUTPUT:
        if (!table->outputs[source.index].buffer)
            return NULL;
        *bytes = table->outputs[source.index].size;
        return dml_binding_pointer(&table->outputs[source.index]);
    case DML_SOURCE_TEMPORARY:
        *bytes = table->temporary.size - source.offset; /* offset < temporary_size <= the bound size */
        return dml_binding_pointer(&table->temporary) + source.offset;
    default:
        return NULL;
    }
}

/* Checks one source of a step is bound (NONE sources need nothing). */
static DML_RESULT check_source(dml_device* device, const dml_compiled* compiled, const dml_binding_table* table,
    dml_source source, const char* call)
{
    uint64_t bytes;
    if (source.kind == DML_SOURCE_NONE || resolve(compiled, table, source, &bytes))
        return DML_S_OK;
    return unbound(device, compiled, call, source.kind == DML_SOURCE_INPUT ? "input " : "output ", source.index);
}

/* Whether a step copies a tensor onto itself (a scatter's input copy when
 * its input and output are bound to one range): nothing to run. */
static bool copies_onto_itself(const dml_plan* plan, const dml_plan_args* args)
{
    return plan->kind == DML_PLAN_GATHER && args->input == args->output && plan->in_offset == plan->out_offset &&
        memcmp(plan->in_strides, plan->out_strides, sizeof plan->in_strides) == 0;
}

/* The pointers and sizes step binds to its plan. */
static dml_plan_args bind_step(const dml_compiled* compiled, const dml_binding_table* table, const dml_step* step)
{
    dml_plan_args args;
    args.input = resolve(compiled, table, step->input, &args.input_bytes);
    args.lengths = resolve(compiled, table, step->lengths, &args.lengths_bytes);
    args.output = (void*)resolve(compiled, table, step->output, &args.output_bytes);
    args.input2 = resolve(compiled, table, step->input2, &args.input2_bytes);
    return args;
}

/* Step k and the step after it, which runs after it (a scatter's copy and
 * updates), through the backend's queue_execute_ordered_pair; the updates
 * alone when the copy copies onto itself. */
static DML_RESULT execute_ordered_pair(dml_queue* queue, const dml_compiled* compiled,
    const dml_binding_table* table, uint32_t k)
{
    const dml_backend* backend = queue->base.device->backend;
    const dml_plan* plans[2] = { &compiled->steps[k].plan, &compiled->steps[k + 1].plan };
    const void* states[2] = { compiled->steps[k].backend_state, compiled->steps[k + 1].backend_state };
    const dml_plan_args args[2] = { bind_step(compiled, table, &compiled->steps[k]),
        bind_step(compiled, table, &compiled->steps[k + 1]) };
    if (copies_onto_itself(plans[0], &args[0]))
        return backend->queue_execute(queue->state, plans[1], states[1], &args[1]);
    return backend->queue_execute_ordered_pair(queue->state, plans, states, args);
}

/* Runs the steps in order; everything they need is checked before the first runs. */
static DML_RESULT execute_compiled(dml_queue* queue, const dml_compiled* compiled, const dml_binding_table* table,
    const char* call)
{
    dml_device* device = queue->base.device;
    if (compiled->persistent_size && !table->persistent.buffer)
        return unbound(device, compiled, call, "the persistent resource", -1);
    if (compiled->temporary_size && !table->temporary.buffer)
        return unbound(device, compiled, call, "the temporary resource", -1);
    for (uint32_t o = 0; o < compiled->output_count; ++o)
        if (!table->outputs[o].buffer)
            return unbound(device, compiled, call, "output ", o);
    for (uint32_t k = 0; k < compiled->step_count; ++k) {
        const dml_step* step = &compiled->steps[k];
        DML_RESULT r;
        if ((r = check_source(device, compiled, table, step->input, call)) < 0 ||
            (r = check_source(device, compiled, table, step->lengths, call)) < 0 ||
            (r = check_source(device, compiled, table, step->input2, call)) < 0)
            return r;
    }
    const dml_backend* backend = device->backend;
    for (uint32_t k = 0; k < compiled->step_count;) {
        if (backend->queue_execute_ordered_pair && k + 1 < compiled->step_count &&
            compiled->steps[k + 1].after_previous) {
            DML_RESULT r = execute_ordered_pair(queue, compiled, table, k);
            if (r < 0)
                return dml_device_remove(device, r);
            k += 2;
            continue;
        }
        /* The run of steps marked with_previous after step k (up to the
         * backend's group size) goes as one group when the backend takes
         * groups; else each alone. */
        uint32_t n = 1;
        while (backend->queue_execute_group && n < DML_BACKEND_GROUP_MAX && k + n < compiled->step_count &&
            compiled->steps[k + n].with_previous)
            ++n;
        const dml_plan* plans[DML_BACKEND_GROUP_MAX];
        const void* states[DML_BACKEND_GROUP_MAX];
        dml_plan_args args[DML_BACKEND_GROUP_MAX];
        uint32_t run = 0;
        for (uint32_t g = 0; g < n; ++g) {
            const dml_step* step = &compiled->steps[k + g];
            plans[run] = &step->plan;
            states[run] = step->backend_state;
            args[run] = bind_step(compiled, table, step);
            run += !copies_onto_itself(plans[run], &args[run]);
        }
        DML_RESULT r = run > 1 ? backend->queue_execute_group(queue->state, plans, states, args, run)
            : run == 1         ? backend->queue_execute(queue->state, plans[0], states[0], &args[0])
                               : DML_S_OK;
        if (r < 0)
            return dml_device_remove(device, r);
        k += n;
    }
    return DML_S_OK;
}

/* Copies each operator's OWNED_BY_DML inputs into its persistent resource. */
static DML_RESULT execute_initializer(dml_queue* queue, const dml_initializer* init, const dml_binding_table* table,
    const char* call)
{
    dml_device* device = queue->base.device;
    uint32_t base = 0;
    for (uint32_t k = 0; k < init->count; ++k) { /* check everything before copying anything */
        const dml_compiled* compiled = init->ops[k];
        if (compiled->persistent_size && !table->outputs[k].buffer)
            return dml_device_fail(device, DML_E_INVALID_CALL,
                "%s(initializer): the persistent resource of operator %u (output %u) is not bound", call, k, k);
        for (uint32_t i = 0; i < compiled->input_count; ++i)
            if (compiled->owned_offsets[i] != DML_NOT_OWNED && !table->inputs[base + i].buffer)
                return dml_device_fail(device, DML_E_INVALID_CALL,
                    "%s(initializer): OWNED_BY_DML input %u of operator %u is not bound", call, i, k);
        base += compiled->input_count;
    }
    base = 0;
    for (uint32_t k = 0; k < init->count; ++k) {
        const dml_compiled* compiled = init->ops[k];
        for (uint32_t i = 0; i < compiled->input_count; ++i) {
            if (compiled->owned_offsets[i] == DML_NOT_OWNED)
                continue;
            DML_RESULT r = device->backend->queue_copy(queue->state,
                dml_binding_pointer(&table->outputs[k]) + compiled->owned_offsets[i],
                dml_binding_pointer(&table->inputs[base + i]), compiled->inputs[i].total_bytes,
                DML_COPY_DEVICE_TO_DEVICE);
            if (r < 0)
                return dml_device_remove(device, r);
        }
        base += compiled->input_count;
    }
    return DML_S_OK;
}

static DML_RESULT record_dispatch_untraced(DMLCommandRecorder recorder_handle, DMLCommandQueue queue_handle,
    DMLDispatchable dispatchable, DMLBindingTable table_handle)
{
    static const char call[] = "dmlCommandRecorderRecordDispatch";
    dml_recorder* recorder = (dml_recorder*)recorder_handle;
    dml_queue* queue = (dml_queue*)queue_handle;
    dml_binding_table* table = (dml_binding_table*)table_handle;
    if (!dml_is_object(recorder, DML_OBJECT_TYPE_COMMAND_RECORDER))
        return dml_invalid_handle(NULL, call, "recorder", "DMLCommandRecorder", recorder);
    dml_device* device = recorder->base.device;
    DML_RESULT r = dml_device_check(device, call);
    if (r < 0)
        return r;
    if (!dml_is_object(queue, DML_OBJECT_TYPE_COMMAND_QUEUE))
        return dml_invalid_handle(device, call, "queue", "DMLCommandQueue", queue);
    if (queue->base.device != device)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: queue is not a DMLCommandQueue of the recorder's device",
            call);
    if (!dml_is_object(dispatchable, DML_OBJECT_TYPE_COMPILED_OPERATOR) &&
        !dml_is_object(dispatchable, DML_OBJECT_TYPE_OPERATOR_INITIALIZER))
        return dml_invalid_handle(device, call, "dispatchable",
            "DMLDispatchable (DMLCompiledOperator or DMLOperatorInitializer)", dispatchable);
    if (!dml_is_object(table, DML_OBJECT_TYPE_BINDING_TABLE))
        return dml_invalid_handle(device, call, "bindings", "DMLBindingTable", table);
    if (table->base.device != device)
        return dml_device_fail(device, DML_E_INVALIDARG,
            "%s: bindings is not a DMLBindingTable of the recorder's device", call);
    if ((void*)table->dispatchable != dispatchable)
        return dml_device_fail(device, DML_E_INVALIDARG,
            "%s: bindings was created (or reset) for another dispatchable", call);
    if (dml_is_object(dispatchable, DML_OBJECT_TYPE_COMPILED_OPERATOR))
        return execute_compiled(queue, (const dml_compiled*)dispatchable, table, call);
    return execute_initializer(queue, (const dml_initializer*)dispatchable, table, call);
}

DML_RESULT dml_record_dispatch(DMLCommandRecorder recorder, DMLCommandQueue queue, DMLDispatchable dispatchable,
    DMLBindingTable table)
{
#ifdef DML_HAVE_NVTX
    if (dml_trace_active()) {
        if (dml_is_object(dispatchable, DML_OBJECT_TYPE_COMPILED_OPERATOR)) {
            const dml_compiled* compiled = (const dml_compiled*)dispatchable;
            /* The compiled operator's name, else its operator's. */
            if (compiled->op) {
                char name[DML_OBJECT_NAME_SIZE];
                dml_object_name(&compiled->base, name);
                if (!name[0])
                    dml_object_name(&compiled->op->base, name);
                dml_trace_push_operator("RecordDispatch", compiled->op->op, name);
            } else {
                dml_trace_push("RecordDispatch graph");
            }
        } else if (dml_is_object(dispatchable, DML_OBJECT_TYPE_OPERATOR_INITIALIZER)) {
            const dml_initializer* init = (const dml_initializer*)dispatchable;
            char message[DML_OBJECT_NAME_SIZE + 64], name[DML_OBJECT_NAME_SIZE + 4];
            snprintf(message, sizeof message, "RecordDispatch initializer%s (%u operators)",
                dml_object_label(&init->base, name, sizeof name), init->count);
            dml_trace_push(message);
        } else {
            dml_trace_push("RecordDispatch (invalid dispatchable)");
        }
    }
#endif
    DML_RESULT r = record_dispatch_untraced(recorder, queue, dispatchable, table);
    DML_TRACE_POP();
    return r;
}

DML_RESULT dml_queue_synchronize(DMLCommandQueue handle)
{
    static const char call[] = "dmlCommandQueueSynchronize";
    dml_queue* queue = (dml_queue*)handle;
    if (!dml_is_object(queue, DML_OBJECT_TYPE_COMMAND_QUEUE))
        return dml_invalid_handle(NULL, call, "queue", "DMLCommandQueue", queue);
    dml_device* device = queue->base.device;
    DML_RESULT r = dml_device_check(device, call);
    if (r < 0)
        return r;
    return dml_device_remove(device, device->backend->queue_synchronize(queue->state));
}

/* WriteBuffer and ReadBuffer: host memory to or from a buffer range, ordered
 * after the queue's earlier work and complete on return. */
static DML_RESULT transfer_untraced(DMLCommandQueue handle, DMLBuffer buffer_handle, uint64_t offset, void* host,
    uint64_t size, dml_copy_kind kind, const char* call)
{
    dml_queue* queue = (dml_queue*)handle;
    dml_buffer* buffer = (dml_buffer*)buffer_handle;
    if (!dml_is_object(queue, DML_OBJECT_TYPE_COMMAND_QUEUE))
        return dml_invalid_handle(NULL, call, "queue", "DMLCommandQueue", queue);
    dml_device* device = queue->base.device;
    DML_RESULT r = dml_device_check(device, call);
    if (r < 0)
        return r;
    if (!dml_is_object(buffer, DML_OBJECT_TYPE_BUFFER))
        return dml_invalid_handle(device, call, "buffer", "DMLBuffer", buffer);
    if (buffer->base.device != device)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: buffer is not a DMLBuffer of the queue's device", call);
    uint64_t end;
    if (__builtin_add_overflow(offset, size, &end) || end > buffer->size)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: offset %llu + size %llu exceeds the buffer's %llu bytes",
            call, (unsigned long long)offset, (unsigned long long)size, (unsigned long long)buffer->size);
    if (size == 0)
        return DML_S_OK;
    if (!host)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: %s is NULL", call,
            kind == DML_COPY_HOST_TO_DEVICE ? "source" : "destination");
    unsigned char* memory = (unsigned char*)buffer->memory + offset;
    r = kind == DML_COPY_HOST_TO_DEVICE ? device->backend->queue_copy(queue->state, memory, host, size, kind)
                                        : device->backend->queue_copy(queue->state, host, memory, size, kind);
    return dml_device_remove(device, r);
}

static DML_RESULT transfer(DMLCommandQueue handle, DMLBuffer buffer_handle, uint64_t offset, void* host,
    uint64_t size, dml_copy_kind kind, const char* call)
{
#ifdef DML_HAVE_NVTX
    if (dml_trace_active()) {
        const dml_buffer* buffer = (const dml_buffer*)buffer_handle;
        char name[DML_OBJECT_NAME_SIZE] = "";
        if (dml_is_object(buffer, DML_OBJECT_TYPE_BUFFER))
            dml_object_name(&buffer->base, name);
        dml_trace_push_transfer(kind == DML_COPY_HOST_TO_DEVICE ? "WriteBuffer" : "ReadBuffer", name, offset, size);
    }
#endif
    DML_RESULT r = transfer_untraced(handle, buffer_handle, offset, host, size, kind, call);
    DML_TRACE_POP();
    return r;
}

DML_RESULT dml_queue_write_buffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset, const void* source,
    uint64_t size)
{
    return transfer(queue, buffer, offset, (void*)source, size, DML_COPY_HOST_TO_DEVICE, "dmlCommandQueueWriteBuffer");
}

DML_RESULT dml_queue_read_buffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset, void* destination,
    uint64_t size)
{
    return transfer(queue, buffer, offset, destination, size, DML_COPY_DEVICE_TO_HOST, "dmlCommandQueueReadBuffer");
}
