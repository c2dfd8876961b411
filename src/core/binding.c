/*
 * binding.c — binding tables: every rule on bound ranges is checked here, at
 * bind time, so that RecordDispatch only has to check that what it needs is
 * bound. A failed bind changes nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* What a table slot expects: the tensor bound there (or a persistent resource). */
typedef struct slot {
    uint64_t required_size;
    uint32_t alignment;
    bool owned;     /* OWNED_BY_DML input: bound to the initializer, not at execution */
} slot;

typedef struct context {
    dml_binding_table* table;
    const char* call;
    char label[128]; /* "SLICE1 'name'" or "initializer" */
} context;

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

static slot input_slot(const dml_compiled* compiled, uint32_t i)
{
    const dml_tensor* t = &compiled->inputs[i];
    slot s = { t->total_bytes, max_u32(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, t->base_alignment),
        (t->flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0 };
    return s;
}

static bool is_initializer(const dml_binding_table* table)
{
    return table->dispatchable->header.Type == DML_OBJECT_TYPE_OPERATOR_INITIALIZER;
}

static DML_RESULT fail(const context* c, DML_RESULT result, const char* format, ...) DML_PRINTF(3, 4);
static DML_RESULT fail(const context* c, DML_RESULT result, const char* format, ...)
{
    char detail[768];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    return dml_device_fail(c->table->base.device, result, "%s(%s): %s", c->call, c->label, detail);
}

static DML_RESULT open_context(DMLBindingTable handle, const char* call, context* c)
{
    dml_binding_table* table = (dml_binding_table*)handle;
    if (!dml_is_object(table, DML_OBJECT_TYPE_BINDING_TABLE))
        return dml_invalid_handle(NULL, call, "table", "DMLBindingTable", table);
    DML_RESULT r = dml_device_check(table->base.device, call);
    if (r < 0)
        return r;
    c->table = table;
    c->call = call;
    char name[DML_OBJECT_NAME_SIZE + 4], table_name[DML_OBJECT_NAME_SIZE + 4];
    const dml_object* d = table->dispatchable;
    const char* type = is_initializer(table) ? "initializer" : dml_compiled_kind((const dml_compiled*)d);
    const char* table_label = dml_object_label(&table->base, table_name, sizeof table_name);
    snprintf(c->label, sizeof c->label, "%s%s%s%s", type, dml_object_label(d, name, sizeof name),
        table_label[0] ? ", table" : "", table_label);
    return DML_S_OK;
}

/* Checks one DML_BUFFER_BINDING against what its slot expects. */
static DML_RESULT check_buffer(const context* c, const char* field, const DML_BUFFER_BINDING* b, slot s,
    dml_binding* out)
{
    if (!b)
        return fail(c, DML_E_INVALIDARG, "%s.Desc is NULL", field);
    const dml_buffer* buffer = (const dml_buffer*)b->Buffer;
    if (!dml_is_object(buffer, DML_OBJECT_TYPE_BUFFER)) {
        char problem[DML_HANDLE_PROBLEM_SIZE];
        return fail(c, DML_E_INVALIDARG, "%s.Buffer %s", field,
            dml_handle_problem(buffer, "DMLBuffer", problem, sizeof problem));
    }
    if (buffer->base.device != c->table->base.device)
        return fail(c, DML_E_INVALIDARG, "%s.Buffer belongs to another device", field);
    uint64_t end;
    if (__builtin_add_overflow(b->Offset, b->SizeInBytes, &end) || end > buffer->size)
        return fail(c, DML_E_INVALIDARG, "%s: Offset %llu + SizeInBytes %llu exceeds the buffer's %llu bytes", field,
            (unsigned long long)b->Offset, (unsigned long long)b->SizeInBytes, (unsigned long long)buffer->size);
    if (b->SizeInBytes < s.required_size)
        return fail(c, DML_E_INVALIDARG, "%s.SizeInBytes = %llu is less than the %llu bytes required", field,
            (unsigned long long)b->SizeInBytes, (unsigned long long)s.required_size);
    if (b->Offset % s.alignment)
        return fail(c, DML_E_INVALIDARG, "%s.Offset = %llu is not a multiple of %u", field,
            (unsigned long long)b->Offset, s.alignment);
    out->buffer = (dml_buffer*)buffer;
    out->offset = b->Offset;
    out->size = b->SizeInBytes;
    return DML_S_OK;
}

/* Address ranges, so that two wrapped buffers over the same memory count too. */
static bool intersect(const dml_binding* a, const dml_binding* b)
{
    if (!a->buffer || !b->buffer)
        return false;
    uintptr_t a0 = (uintptr_t)dml_binding_pointer(a), b0 = (uintptr_t)dml_binding_pointer(b);
    return a0 < b0 + b->size && b0 < a0 + a->size;
}

/* Outputs may intersect no input, no persistent resource read at execution,
 * and no other output; except that output 0 may be bound to exactly input
 * in_place's range (dml_compiled.in_place_input; -1: none). */
static DML_RESULT check_overlap(const context* c, const dml_binding* inputs, uint32_t input_count,
    const dml_binding* persistent, const dml_binding* outputs, uint32_t output_count, int32_t in_place)
{
    for (uint32_t o = 0; o < output_count; ++o) {
        for (uint32_t i = 0; i < input_count; ++i) {
            bool same_range = outputs[o].buffer && inputs[i].buffer &&
                dml_binding_pointer(&outputs[o]) == dml_binding_pointer(&inputs[i]) &&
                outputs[o].size == inputs[i].size;
            if (o == 0 && (int32_t)i == in_place && same_range)
                continue;
            if (intersect(&outputs[o], &inputs[i]))
                return fail(c, DML_E_INVALIDARG, "output %u's range intersects input %u's range%s", o, i,
                    o == 0 && (int32_t)i == in_place ? " (in place, the two ranges must be the same)" : "");
        }
        if (persistent && intersect(&outputs[o], persistent))
            return fail(c, DML_E_INVALIDARG, "output %u's range intersects the persistent resource", o);
        for (uint32_t p = 0; p < o; ++p)
            if (intersect(&outputs[o], &outputs[p]))
                return fail(c, DML_E_INVALIDARG, "output %u's range intersects output %u's range", o, p);
    }
    return DML_S_OK;
}

/* The temporary resource (a compiled graph's intermediates) is written during
 * execution: it may intersect no input, output or persistent resource. */
static DML_RESULT check_temporary(const context* c, const dml_binding* temporary, const dml_binding* inputs,
    uint32_t input_count, const dml_binding* persistent, const dml_binding* outputs, uint32_t output_count)
{
    for (uint32_t i = 0; i < input_count; ++i)
        if (intersect(temporary, &inputs[i]))
            return fail(c, DML_E_INVALIDARG, "the temporary resource intersects input %u's range", i);
    for (uint32_t o = 0; o < output_count; ++o)
        if (intersect(temporary, &outputs[o]))
            return fail(c, DML_E_INVALIDARG, "the temporary resource intersects output %u's range", o);
    if (persistent && intersect(temporary, persistent))
        return fail(c, DML_E_INVALIDARG, "the temporary resource intersects the persistent resource");
    return DML_S_OK;
}

/* Replaces bindings[0..count) with fresh ones, moving buffer references. */
static void commit(dml_binding* bindings, const dml_binding* fresh, uint32_t count)
{
    for (uint32_t i = 0; i < count; ++i)
        dml_object_add_ref(fresh[i].buffer);
    for (uint32_t i = 0; i < count; ++i) {
        dml_object_release(bindings[i].buffer);
        bindings[i] = fresh[i];
    }
}

static void unbind_all(dml_binding_table* table)
{
    static const dml_binding none;
    for (uint32_t i = 0; i < table->input_count; ++i) {
        dml_object_release(table->inputs[i].buffer);
        table->inputs[i] = none;
    }
    for (uint32_t i = 0; i < table->output_count; ++i) {
        dml_object_release(table->outputs[i].buffer);
        table->outputs[i] = none;
    }
    dml_object_release(table->persistent.buffer);
    dml_object_release(table->temporary.buffer);
    table->persistent = none;
    table->temporary = none;
}

static const dml_initializer* initializer_of(const dml_binding_table* table)
{
    return (const dml_initializer*)table->dispatchable;
}

static const dml_compiled* compiled_of(const dml_binding_table* table)
{
    return (const dml_compiled*)table->dispatchable;
}

/* Compiled operator inputs: one BUFFER (or NONE) per operator input. */
static DML_RESULT parse_operator_inputs(const context* c, const DML_BINDING_DESC* bindings, dml_binding* fresh)
{
    const dml_compiled* compiled = compiled_of(c->table);
    for (uint32_t i = 0; i < compiled->input_count; ++i) {
        char field[32];
        snprintf(field, sizeof field, "bindings[%u]", i);
        slot s = input_slot(compiled, i);
        if (bindings[i].Type == DML_BINDING_TYPE_NONE)
            continue;
        if (bindings[i].Type != DML_BINDING_TYPE_BUFFER)
            return fail(c, DML_E_INVALIDARG, "%s.Type = %d; must be DML_BINDING_TYPE_BUFFER or NONE", field,
                (int)bindings[i].Type);
        if (s.owned)
            return fail(c, DML_E_INVALIDARG,
                "%s: input %u is OWNED_BY_DML; bind it to the initializer and bind NONE here", field, i);
        DML_RESULT r = check_buffer(c, field, (const DML_BUFFER_BINDING*)bindings[i].Desc, s, &fresh[i]);
        if (r < 0)
            return r;
    }
    return DML_S_OK;
}

/* Initializer inputs: per operator, NONE or a BUFFER_ARRAY with one entry per
 * operator input, of which only the OWNED_BY_DML ones are read. */
static DML_RESULT parse_initializer_inputs(const context* c, const DML_BINDING_DESC* bindings, dml_binding* fresh)
{
    const dml_initializer* init = initializer_of(c->table);
    uint32_t base = 0;
    for (uint32_t k = 0; k < init->count; ++k) {
        const dml_compiled* op = init->ops[k];
        const DML_BINDING_DESC* b = &bindings[k];
        if (b->Type == DML_BINDING_TYPE_BUFFER_ARRAY) {
            const DML_BUFFER_ARRAY_BINDING* array = (const DML_BUFFER_ARRAY_BINDING*)b->Desc;
            if (!array)
                return fail(c, DML_E_INVALIDARG, "bindings[%u].Desc is NULL", k);
            if (array->BindingCount != op->input_count)
                return fail(c, DML_E_INVALIDARG, "bindings[%u].BindingCount = %u; operator %u has %u inputs", k,
                    array->BindingCount, k, op->input_count);
            if (!array->Bindings && array->BindingCount) /* an operator without inputs has none to point at */
                return fail(c, DML_E_INVALIDARG, "bindings[%u].Bindings is NULL", k);
            for (uint32_t i = 0; i < op->input_count; ++i) {
                slot s = input_slot(op, i);
                if (!s.owned || !array->Bindings[i].Buffer)
                    continue; /* only owned inputs are copied at initialization */
                char field[48];
                snprintf(field, sizeof field, "bindings[%u].Bindings[%u]", k, i);
                DML_RESULT r = check_buffer(c, field, &array->Bindings[i], s, &fresh[base + i]);
                if (r < 0)
                    return r;
            }
        } else if (b->Type != DML_BINDING_TYPE_NONE) {
            return fail(c, DML_E_INVALIDARG, "bindings[%u].Type = %d; must be DML_BINDING_TYPE_BUFFER_ARRAY or NONE",
                k, (int)b->Type);
        }
        base += op->input_count;
    }
    return DML_S_OK;
}

/* Outputs: a compiled operator's output tensor, or each initialized
 * operator's persistent resource. */
static DML_RESULT parse_outputs(const context* c, const DML_BINDING_DESC* bindings, dml_binding* fresh)
{
    bool init = is_initializer(c->table);
    for (uint32_t k = 0; k < c->table->output_count; ++k) {
        char field[32];
        snprintf(field, sizeof field, "bindings[%u]", k);
        if (bindings[k].Type == DML_BINDING_TYPE_NONE)
            continue;
        if (bindings[k].Type != DML_BINDING_TYPE_BUFFER)
            return fail(c, DML_E_INVALIDARG, "%s.Type = %d; must be DML_BINDING_TYPE_BUFFER or NONE", field,
                (int)bindings[k].Type);
        slot s;
        if (init) {
            uint64_t persistent = initializer_of(c->table)->ops[k]->persistent_size;
            if (!persistent)
                return fail(c, DML_E_INVALIDARG, "%s: operator %u has no persistent resource; bind NONE", field, k);
            s = (slot){ persistent, DML_PERSISTENT_BUFFER_ALIGNMENT, false };
        } else {
            const dml_tensor* t = &compiled_of(c->table)->outputs[k];
            s = (slot){ t->total_bytes, max_u32(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, t->base_alignment), false };
        }
        DML_RESULT r = check_buffer(c, field, (const DML_BUFFER_BINDING*)bindings[k].Desc, s, &fresh[k]);
        if (r < 0)
            return r;
    }
    return DML_S_OK;
}

/* Scratch for a bind: tables are small; initializers of many operators spill to the heap. */
#define SCRATCH_BINDINGS 8

static DML_RESULT bind(DMLBindingTable handle, uint32_t count, const DML_BINDING_DESC* bindings, bool outputs,
    const char* call)
{
    context c;
    DML_RESULT r = open_context(handle, call, &c);
    if (r < 0)
        return r;
    dml_binding_table* table = c.table;
    uint32_t expected = outputs ? table->output_count
                                : (is_initializer(table) ? initializer_of(table)->count : table->input_count);
    if (count != expected)
        return fail(&c, DML_E_INVALIDARG, "count = %u; must be %u", count, expected);
    if (count && !bindings)
        return fail(&c, DML_E_INVALIDARG, "bindings is NULL with count = %u", count);

    uint32_t slots = outputs ? table->output_count : table->input_count;
    dml_binding scratch[SCRATCH_BINDINGS];
    dml_binding* fresh = slots <= SCRATCH_BINDINGS ? scratch : calloc(slots, sizeof *fresh);
    if (!fresh)
        return fail(&c, DML_E_OUTOFMEMORY, "out of host memory");
    memset(fresh, 0, slots * sizeof *fresh);
    if (outputs)
        r = parse_outputs(&c, bindings, fresh);
    else if (is_initializer(table))
        r = parse_initializer_inputs(&c, bindings, fresh);
    else
        r = parse_operator_inputs(&c, bindings, fresh);
    if (r >= 0) {
        const dml_binding* persistent = is_initializer(table) ? NULL : &table->persistent;
        int32_t in_place = is_initializer(table) ? -1 : compiled_of(table)->in_place_input;
        r = outputs ? check_overlap(&c, table->inputs, table->input_count, persistent, fresh, slots, in_place)
                    : check_overlap(&c, fresh, slots, NULL, table->outputs, table->output_count, in_place);
        if (r >= 0 && !is_initializer(table))
            r = outputs ? check_temporary(&c, &table->temporary, NULL, 0, NULL, fresh, slots)
                        : check_temporary(&c, &table->temporary, fresh, slots, NULL, NULL, 0);
    }
    if (r >= 0)
        commit(outputs ? table->outputs : table->inputs, fresh, slots);
    if (fresh != scratch)
        free(fresh);
    return r;
}

DML_RESULT dml_binding_table_bind_inputs(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings)
{
    return bind(table, count, bindings, false, "dmlBindingTableBindInputs");
}

DML_RESULT dml_binding_table_bind_outputs(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings)
{
    return bind(table, count, bindings, true, "dmlBindingTableBindOutputs");
}

/* NULL or NONE unbinds; a BUFFER needs a resource of the reported size. */
static DML_RESULT bind_resource(DMLBindingTable handle, const DML_BINDING_DESC* binding, bool persistent,
    const char* call)
{
    context c;
    DML_RESULT r = open_context(handle, call, &c);
    if (r < 0)
        return r;
    dml_binding_table* table = c.table;
    dml_binding fresh = { 0 };
    if (binding && binding->Type != DML_BINDING_TYPE_NONE) {
        if (binding->Type != DML_BINDING_TYPE_BUFFER)
            return fail(&c, DML_E_INVALIDARG, "binding->Type = %d; must be DML_BINDING_TYPE_BUFFER or NONE",
                (int)binding->Type);
        uint64_t size = is_initializer(table) ? 0
            : persistent                      ? compiled_of(table)->persistent_size
                                              : compiled_of(table)->temporary_size;
        if (!size)
            return fail(&c, DML_E_INVALIDARG, "the dispatchable needs no %s resource (size 0); bind NONE",
                persistent ? "persistent" : "temporary");
        slot s = { size, persistent ? DML_PERSISTENT_BUFFER_ALIGNMENT : DML_TEMPORARY_BUFFER_ALIGNMENT, false };
        if ((r = check_buffer(&c, "binding", (const DML_BUFFER_BINDING*)binding->Desc, s, &fresh)) < 0)
            return r;
        if (persistent && (r = check_overlap(&c, NULL, 0, &fresh, table->outputs, table->output_count, -1)) >= 0)
            r = check_temporary(&c, &table->temporary, NULL, 0, &fresh, NULL, 0);
        else if (!persistent)
            r = check_temporary(&c, &fresh, table->inputs, table->input_count, &table->persistent, table->outputs,
                table->output_count);
        if (r < 0)
            return r;
    }
    commit(persistent ? &table->persistent : &table->temporary, &fresh, 1);
    return DML_S_OK;
}

DML_RESULT dml_binding_table_bind_temporary(DMLBindingTable table, const DML_BINDING_DESC* binding)
{
    return bind_resource(table, binding, false, "dmlBindingTableBindTemporaryResource");
}

DML_RESULT dml_binding_table_bind_persistent(DMLBindingTable table, const DML_BINDING_DESC* binding)
{
    return bind_resource(table, binding, true, "dmlBindingTableBindPersistentResource");
}

/* The slots a dispatchable has, and a check that it is one of this device. */
static DML_RESULT dispatchable_slots(const dml_device* device, const char* call, DMLDispatchable d,
    uint32_t* inputs, uint32_t* outputs)
{
    if (dml_is_object(d, DML_OBJECT_TYPE_COMPILED_OPERATOR)) {
        *inputs = ((const dml_compiled*)d)->input_count;
        *outputs = ((const dml_compiled*)d)->output_count;
    } else if (dml_is_object(d, DML_OBJECT_TYPE_OPERATOR_INITIALIZER)) {
        const dml_initializer* init = (const dml_initializer*)d;
        uint64_t total = 0; /* up to 65536 per compiled graph, over up to 2^32 - 1 operators */
        for (uint32_t k = 0; k < init->count; ++k)
            total += init->ops[k]->input_count;
        if (total > UINT32_MAX)
            return dml_device_fail(device, DML_E_INVALIDARG,
                "%s: desc->Dispatchable is an initializer of %u operators with %llu inputs in all; a binding table "
                "holds at most 2^32 - 1", call, init->count, (unsigned long long)total);
        *inputs = (uint32_t)total;
        *outputs = init->count;
    } else {
        return dml_invalid_handle(device, call, "desc->Dispatchable",
            "DMLDispatchable (DMLCompiledOperator or DMLOperatorInitializer)", d);
    }
    if (((const dml_object*)d)->device != device)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: desc->Dispatchable belongs to another device", call);
    return DML_S_OK;
}

/* Allocates the slot arrays for a dispatchable (one block). */
static DML_RESULT allocate_slots(const dml_device* device, const char* call, DMLDispatchable d,
    uint32_t* inputs, uint32_t* outputs, dml_binding** block)
{
    DML_RESULT r = dispatchable_slots(device, call, d, inputs, outputs);
    if (r < 0)
        return r;
    *block = calloc((size_t)*inputs + *outputs, sizeof **block);
    if (!*block)
        return dml_device_fail(device, DML_E_OUTOFMEMORY, "%s: out of host memory", call);
    return DML_S_OK;
}

DML_RESULT dml_binding_table_create(DMLDevice handle, const DML_BINDING_TABLE_DESC* desc, DMLBindingTable* out)
{
    static const char call[] = "dmlDeviceCreateBindingTable";
    dml_device* device;
    DML_RESULT r = dml_device_open(handle, call, &device);
    if (r < 0)
        return r;
    if (!desc || !out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: %s is NULL", call, desc ? "table" : "desc");
    uint32_t inputs, outputs;
    dml_binding* block;
    if ((r = allocate_slots(device, call, desc->Dispatchable, &inputs, &outputs, &block)) < 0)
        return r;
    dml_binding_table* table = dml_object_new(&dml_binding_table_class, device);
    if (!table) {
        free(block);
        return dml_device_fail(device, DML_E_OUTOFMEMORY, "%s: out of host memory", call);
    }
    table->dispatchable = (dml_object*)desc->Dispatchable;
    dml_object_add_ref(table->dispatchable);
    table->input_count = inputs;
    table->output_count = outputs;
    table->inputs = block;
    table->outputs = block + inputs;
    *out = (DMLBindingTable)table;
    return DML_S_OK;
}

DML_RESULT dml_binding_table_reset(DMLBindingTable handle, const DML_BINDING_TABLE_DESC* desc)
{
    static const char call[] = "dmlBindingTableReset";
    context c;
    DML_RESULT r = open_context(handle, call, &c);
    if (r < 0)
        return r;
    dml_binding_table* table = c.table;
    if (!desc) {
        unbind_all(table);
        return DML_S_OK;
    }
    uint32_t inputs, outputs;
    dml_binding* block;
    if ((r = allocate_slots(table->base.device, call, desc->Dispatchable, &inputs, &outputs, &block)) < 0)
        return r;
    dml_object_add_ref(desc->Dispatchable);
    unbind_all(table);
    dml_object_release(table->dispatchable);
    free(table->inputs);
    table->dispatchable = (dml_object*)desc->Dispatchable;
    table->input_count = inputs;
    table->output_count = outputs;
    table->inputs = block;
    table->outputs = block + inputs;
    return DML_S_OK;
}

static void destroy_binding_table(dml_object* object)
{
    dml_binding_table* table = (dml_binding_table*)object;
    unbind_all(table);
    dml_object_release(table->dispatchable);
    free(table->inputs);
}

const dml_object_class dml_binding_table_class = { DML_OBJECT_TYPE_BINDING_TABLE, sizeof(dml_binding_table),
    destroy_binding_table };
