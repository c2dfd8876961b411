/*
 * device.c — devices and what they create: operators, compiled operators,
 * initializers, buffers, queues and recorders.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objects.h"
#include "plan_build.h"
#include "struct_size.h"
#include "trace.h"

#define DEVICE_FLAGS_ALL ((uint32_t)DML_CREATE_DEVICE_FLAG_DEBUG)
#define EXECUTION_FLAGS_ALL                                                                                  \
    ((uint32_t)(DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DISABLE_META_COMMANDS | \
        DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE))
#define DML_MAX_FEATURE_LEVEL DML_FEATURE_LEVEL_5_0

static bool is_feature_level(uint32_t level)
{
    static const uint32_t levels[] = { 0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100,
        0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400 };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; ++i)
        if (levels[i] == level)
            return true;
    return false;
}

/* Allocates and initialises an object of the given type and size. */
static void* new_object(size_t size, DML_OBJECT_TYPE type, dml_device* device)
{
    dml_object* object = calloc(1, size);
    if (object)
        dml_object_init(object, type, device);
    return object;
}

static DML_RESULT out_of_memory(const dml_device* device, const char* call)
{
    return dml_device_fail(device, DML_E_OUTOFMEMORY, "%s: out of host memory", call);
}

/* Resolves a device handle; the dispatcher checked it, but the core is also
 * called directly by tests and by other handles' owners. */
#define DEVICE_OR_FAIL(handle, call)                                                               \
    dml_device* device = (dml_device*)(handle);                                                    \
    if (!dml_is_object(device, DML_OBJECT_TYPE_DEVICE))                                            \
        return dml_invalid_handle(NULL, call, "device", "DMLDevice", device);                      \
    do {                                                                                           \
        DML_RESULT removed_ = dml_device_check(device, call);                                      \
        if (removed_ < 0)                                                                          \
            return removed_;                                                                       \
    } while (0)

static DML_RESULT create_device(const DML_DEVICE_DESC* host_desc, DMLDevice* out)
{
    static const char call[] = "dmlCreateDevice";
    const dml_backend* backend = dml_core_backend;
    if (!host_desc || !out)
        return dml_set_error(DML_E_INVALIDARG, "%s: %s is NULL", call, host_desc ? "device" : "desc");
    /* A growable struct (dml.h): the dispatcher checked it too; read this
     * build's view of it, members past the host's Size zero. */
    char problem[512];
    if (dml_struct_size_problem(host_desc->Size, DML_DEVICE_DESC_LAYOUT, "desc->", problem, sizeof problem) ||
        dml_struct_tail_problem(host_desc, DML_DEVICE_DESC_LAYOUT, "desc->", problem, sizeof problem))
        return dml_set_error(DML_E_INVALIDARG, "%s: %s", call, problem);
    DML_DEVICE_DESC copy;
    dml_struct_read(&copy, host_desc, DML_DEVICE_DESC_LAYOUT);
    const DML_DEVICE_DESC* desc = &copy;
    if ((uint32_t)desc->Flags & ~DEVICE_FLAGS_ALL)
        return dml_set_error(DML_E_INVALIDARG, "%s: desc->Flags = 0x%x has unknown bits", call, (unsigned)desc->Flags);
    uint32_t level = (uint32_t)desc->MinimumFeatureLevel;
    if (level != 0 && !is_feature_level(level))
        return dml_set_error(DML_E_INVALIDARG, "%s: desc->MinimumFeatureLevel = 0x%x is not a DML_FEATURE_LEVEL", call,
            level);
    if (level > (uint32_t)DML_MAX_FEATURE_LEVEL)
        return dml_set_error(DML_E_UNSUPPORTED,
            "%s: desc->MinimumFeatureLevel = 0x%x is above this device's highest level, DML_FEATURE_LEVEL_5_0", call,
            level);
    DML_PLUGIN_PROBE probe;
    memset(&probe, 0, sizeof probe);
    DML_RESULT r = backend->probe(&probe);
    if (r < 0 || !probe.Available)
        return dml_set_error(DML_E_UNSUPPORTED, "%s: backend '%s' has no usable device: %s", call, backend->name,
            probe.Reason);
    if (desc->AdapterIndex >= probe.AdapterCount)
        return dml_set_error(DML_E_INVALIDARG, "%s: desc->AdapterIndex = %u; backend '%s' has %u adapter(s)", call,
            desc->AdapterIndex, backend->name, probe.AdapterCount);

    dml_device* device = new_object(sizeof *device, DML_OBJECT_TYPE_DEVICE, NULL);
    if (!device)
        return out_of_memory(NULL, call);
    device->backend = backend;
    device->adapter_index = desc->AdapterIndex;
    device->debug = (desc->Flags & DML_CREATE_DEVICE_FLAG_DEBUG) != 0;
    atomic_init(&device->removed, 0);
    atomic_init(&device->quarantine, NULL);
    if ((r = backend->device_create(desc->AdapterIndex, &device->state)) < 0) {
        free(device);
        return r;
    }
    *out = (DMLDevice)device;
    return DML_S_OK;
}

static DML_RESULT get_device_removed_reason(DMLDevice handle)
{
    DEVICE_OR_FAIL(handle, "dmlDeviceGetDeviceRemovedReason");
    return DML_S_OK;
}

static DML_RESULT check_feature_support(DMLDevice handle, DML_FEATURE feature, uint32_t query_size,
    const void* query, uint32_t support_size, void* support)
{
    static const char call[] = "dmlDeviceCheckFeatureSupport";
    DEVICE_OR_FAIL(handle, call);
    switch (feature) {
    case DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT: {
        if (!query || query_size != sizeof(DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT) || !support ||
            support_size != sizeof(DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT))
            return dml_device_fail(device, DML_E_INVALIDARG,
                "%s(TENSOR_DATA_TYPE_SUPPORT): query and support must be the feature's structs with their sizes", call);
        DML_TENSOR_DATA_TYPE type = ((const DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT*)query)->DataType;
        if (!dml_data_type_size(type))
            return dml_device_fail(device, DML_E_INVALIDARG,
                "%s(TENSOR_DATA_TYPE_SUPPORT): DataType = %d is not a DML_TENSOR_DATA_TYPE", call, (int)type);
        ((DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT*)support)->IsSupported = 1; /* data movement only */
        return DML_S_OK;
    }
    case DML_FEATURE_FEATURE_LEVELS: {
        const DML_FEATURE_QUERY_FEATURE_LEVELS* levels = (const DML_FEATURE_QUERY_FEATURE_LEVELS*)query;
        if (!query || query_size != sizeof *levels || !support ||
            support_size != sizeof(DML_FEATURE_DATA_FEATURE_LEVELS) || levels->RequestedFeatureLevelCount == 0 ||
            !levels->RequestedFeatureLevels)
            return dml_device_fail(device, DML_E_INVALIDARG,
                "%s(FEATURE_LEVELS): query must list at least one level, with the feature's struct sizes", call);
        uint32_t best = 0;
        for (uint32_t i = 0; i < levels->RequestedFeatureLevelCount; ++i) {
            uint32_t level = (uint32_t)levels->RequestedFeatureLevels[i];
            if (!is_feature_level(level))
                return dml_device_fail(device, DML_E_INVALIDARG,
                    "%s(FEATURE_LEVELS): RequestedFeatureLevels[%u] = 0x%x is not a DML_FEATURE_LEVEL", call, i, level);
            if (level <= (uint32_t)DML_MAX_FEATURE_LEVEL && level > best)
                best = level;
        }
        if (!best)
            return dml_device_fail(device, DML_E_UNSUPPORTED,
                "%s(FEATURE_LEVELS): none of the requested levels is supported (highest: 5_0)", call);
        ((DML_FEATURE_DATA_FEATURE_LEVELS*)support)->MaxSupportedFeatureLevel = (DML_FEATURE_LEVEL)best;
        return DML_S_OK;
    }
    default:
        return dml_device_fail(device, DML_E_UNSUPPORTED, "%s: feature %d is not a known DML_FEATURE", call,
            (int)feature);
    }
}

static DML_RESULT create_operator_untraced(DMLDevice handle, const DML_OPERATOR_DESC* desc, DMLOperator* out)
{
    static const char call[] = "dmlDeviceCreateOperator";
    DEVICE_OR_FAIL(handle, call);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: op is NULL", call);
    dml_op_desc validated;
    DML_RESULT r = dml_operator_from_desc(desc, &validated);
    if (r < 0)
        return dml_device_relay(device, r);
    dml_operator* op = new_object(sizeof *op, DML_OBJECT_TYPE_OPERATOR, device);
    if (!op)
        return out_of_memory(device, call);
    op->desc = validated;
    *out = (DMLOperator)op;
    return DML_S_OK;
}

/* The desc is not validated yet when the range starts: it is named by the
 * operator type only (shapes are read after validation, see CompileOperator). */
static DML_RESULT create_operator(DMLDevice handle, const DML_OPERATOR_DESC* desc, DMLOperator* out)
{
#ifdef DML_HAVE_NVTX
    if (dml_trace_active()) {
        char message[64];
        snprintf(message, sizeof message, "CreateOperator %s", desc ? dml_operator_type_name(desc->Type) : "(null)");
        dml_trace_push(message);
    }
#endif
    DML_RESULT r = create_operator_untraced(handle, desc, out);
    DML_TRACE_POP();
    return r;
}

/* The refusal of an operator whose OWNED_BY_DML inputs, each rounded up to
 * 256 bytes, add up to more than 2^64 - 1 bytes of persistent resource. */
static DML_RESULT persistent_overflow(const dml_device* device, const char* call, const char* type,
    const char* label, const dml_op_desc* desc)
{
    char inputs[128] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < desc->input_count && used < sizeof inputs; ++i)
        if (desc->inputs[i].flags & DML_TENSOR_FLAG_OWNED_BY_DML)
            used += (size_t)snprintf(inputs + used, sizeof inputs - used, "%sinput %u (%llu bytes)", used ? ", " : "",
                i, (unsigned long long)desc->inputs[i].total_bytes);
    return dml_device_fail(device, DML_E_INVALIDARG,
        "%s(%s%s): the OWNED_BY_DML inputs' TotalTensorSizeInBytes, each rounded up to %d bytes, add up to more "
        "than 2^64 - 1 bytes of persistent resource: %s", call, type, label, DML_PERSISTENT_BUFFER_ALIGNMENT, inputs);
}

static DML_RESULT compile_operator_untraced(DMLDevice handle, DMLOperator op_handle, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* out)
{
    static const char call[] = "dmlDeviceCompileOperator";
    DEVICE_OR_FAIL(handle, call);
    dml_operator* op = (dml_operator*)op_handle;
    if (!dml_is_object(op, DML_OBJECT_TYPE_OPERATOR))
        return dml_invalid_handle(device, call, "op", "DMLOperator", op);
    char name[DML_OBJECT_NAME_SIZE + 4];
    const char* label = dml_object_label(&op->base, name, sizeof name);
    const char* type = dml_operator_type_name(op->desc.type);
    if (op->base.device != device)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s(%s%s): op was created by another device", call, type,
            label);
    if ((uint32_t)flags & ~EXECUTION_FLAGS_ALL)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s(%s%s): flags = 0x%x has unknown bits", call, type, label,
            (unsigned)flags);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s(%s%s): compiled is NULL", call, type, label);

    dml_compiled* compiled = new_object(sizeof *compiled, DML_OBJECT_TYPE_COMPILED_OPERATOR, device);
    if (!compiled)
        return out_of_memory(device, call);
    dml_object_add_ref(op);
    compiled->op = op;
    compiled->input_count = op->desc.input_count;
    compiled->output_count = 1;
    compiled->inputs = op->desc.inputs;
    compiled->outputs = &op->desc.output;
    compiled->owned_offsets = compiled->single_owned;
    compiled->step_count = 1;
    compiled->steps = &compiled->single_step;
    dml_step* step = &compiled->single_step;
    dml_plan_build(&op->desc, &step->plan);
    step->input = (dml_source){ DML_SOURCE_INPUT, 0, 0 };
    step->lengths = op->desc.input_count > 1 ? (dml_source){ DML_SOURCE_INPUT, 1, 0 } : (dml_source){ 0, 0, 0 };
    step->output = (dml_source){ DML_SOURCE_OUTPUT, 0, 0 };
    DML_RESULT r = dml_compiled_compile_steps(device, compiled);
    if (r < 0) {
        dml_object_release(compiled);
        return dml_device_remove(device, r);
    }
    /* OWNED_BY_DML inputs live in the persistent resource, each 256-byte
     * aligned. TotalTensorSizeInBytes is the host's (any value >= the
     * tensor's minimum), so both the rounding and the sum are checked. */
    uint64_t persistent = 0;
    for (uint32_t i = 0; i < DML_OP_MAX_INPUTS; ++i) {
        compiled->owned_offsets[i] = DML_NOT_OWNED;
        if (i < op->desc.input_count && (op->desc.inputs[i].flags & DML_TENSOR_FLAG_OWNED_BY_DML)) {
            compiled->owned_offsets[i] = persistent;
            uint64_t aligned;
            if (__builtin_add_overflow(op->desc.inputs[i].total_bytes, DML_PERSISTENT_BUFFER_ALIGNMENT - 1, &aligned) ||
                __builtin_add_overflow(persistent, aligned & ~(uint64_t)(DML_PERSISTENT_BUFFER_ALIGNMENT - 1),
                    &persistent)) {
                dml_object_release(compiled);
                return persistent_overflow(device, call, type, label, &op->desc);
            }
        }
    }
    compiled->persistent_size = persistent;
    *out = (DMLCompiledOperator)compiled;
    return DML_S_OK;
}

static DML_RESULT compile_operator(DMLDevice handle, DMLOperator op_handle, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* out)
{
#ifdef DML_HAVE_NVTX
    if (dml_trace_active()) {
        const dml_operator* op = (const dml_operator*)op_handle;
        if (dml_is_object(op, DML_OBJECT_TYPE_OPERATOR)) {
            char name[DML_OBJECT_NAME_SIZE];
            dml_object_name(&op->base, name);
            dml_trace_push_operator("CompileOperator", &op->desc, name);
        }
        else
            dml_trace_push("CompileOperator (invalid operator)");
    }
#endif
    DML_RESULT r = compile_operator_untraced(handle, op_handle, flags, out);
    DML_TRACE_POP();
    return r;
}

static DML_RESULT create_operator_initializer(DMLDevice handle, uint32_t count, const DMLCompiledOperator* ops,
    DMLOperatorInitializer* out)
{
    static const char call[] = "dmlDeviceCreateOperatorInitializer";
    DEVICE_OR_FAIL(handle, call);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: initializer is NULL", call);
    if (count && !ops)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: ops is NULL with count = %u", call, count);
    for (uint32_t i = 0; i < count; ++i) {
        const dml_compiled* compiled = (const dml_compiled*)ops[i];
        if (!dml_is_object(compiled, DML_OBJECT_TYPE_COMPILED_OPERATOR)) {
            char param[24];
            snprintf(param, sizeof param, "ops[%u]", i);
            return dml_invalid_handle(device, call, param, "DMLCompiledOperator", compiled);
        }
        if (compiled->base.device != device)
            return dml_device_fail(device, DML_E_INVALIDARG, "%s: ops[%u] was compiled by another device", call, i);
    }
    dml_initializer* initializer = new_object(sizeof *initializer, DML_OBJECT_TYPE_OPERATOR_INITIALIZER, device);
    dml_compiled** held = count ? calloc(count, sizeof *held) : NULL;
    if (!initializer || (count && !held)) {
        free(held);
        dml_object_release(initializer);
        return out_of_memory(device, call);
    }
    for (uint32_t i = 0; i < count; ++i) {
        held[i] = (dml_compiled*)ops[i];
        dml_object_add_ref(held[i]);
    }
    initializer->count = count;
    initializer->ops = held;
    *out = (DMLOperatorInitializer)initializer;
    return DML_S_OK;
}

static DML_RESULT create_buffer(DMLDevice handle, uint64_t size, DMLBuffer* out)
{
    static const char call[] = "dmlDeviceCreateBuffer";
    DEVICE_OR_FAIL(handle, call);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: buffer is NULL", call);
    if (size == 0)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: sizeInBytes = 0; must be >= 1", call);
    /* No tensor reaches past 2^63 - 1 bytes (validated), and no allocator can
     * give more: refused here, so backends never round such a size. */
    if (size > (uint64_t)INT64_MAX)
        return dml_device_fail(device, DML_E_OUTOFMEMORY, "%s: sizeInBytes = %llu exceeds 2^63 - 1 bytes", call,
            (unsigned long long)size);
    void* memory = NULL;
    DML_RESULT r = device->backend->buffer_alloc(device->state, size, &memory);
    if (r < 0)
        return dml_device_remove(device, r);
    dml_buffer* buffer = new_object(sizeof *buffer, DML_OBJECT_TYPE_BUFFER, device);
    if (!buffer) {
        device->backend->buffer_free(device->state, memory);
        return out_of_memory(device, call);
    }
    buffer->memory = memory;
    buffer->size = size;
    *out = (DMLBuffer)buffer;
    return DML_S_OK;
}

static DML_RESULT wrap_buffer(DMLDevice handle, void* memory, uint64_t size, DMLBuffer* out)
{
    static const char call[] = "dmlDeviceWrapBuffer";
    DEVICE_OR_FAIL(handle, call);
    if (!out || !memory)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: %s is NULL", call, out ? "nativePointer" : "buffer");
    if (size == 0)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: sizeInBytes = 0; must be >= 1", call);
    if ((uintptr_t)memory % DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)
        return dml_device_fail(device, DML_E_INVALIDARG,
            "%s: nativePointer %p is not 16-byte aligned (binding offsets are relative to it)", call, memory);
    if ((uintptr_t)memory + size < (uintptr_t)memory || size > UINTPTR_MAX)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: nativePointer + sizeInBytes overflows", call);
    if (device->backend->buffer_check_wrap) {
        DML_RESULT r = device->backend->buffer_check_wrap(device->state, memory, size);
        if (r < 0)
            return dml_device_relay(device, r);
    }
    dml_buffer* buffer = new_object(sizeof *buffer, DML_OBJECT_TYPE_BUFFER, device);
    if (!buffer)
        return out_of_memory(device, call);
    buffer->memory = memory;
    buffer->size = size;
    buffer->wrapped = true;
    *out = (DMLBuffer)buffer;
    return DML_S_OK;
}

static void* buffer_native_pointer(DMLBuffer handle)
{
    dml_buffer* buffer = (dml_buffer*)handle;
    if (!dml_is_object(buffer, DML_OBJECT_TYPE_BUFFER)) {
        dml_invalid_handle(NULL, "dmlBufferGetNativePointer", "buffer", "DMLBuffer", buffer);
        return NULL;
    }
    return buffer->memory;
}

static DML_RESULT create_command_queue(DMLDevice handle, void* native, DMLCommandQueue* out)
{
    static const char call[] = "dmlDeviceCreateCommandQueue";
    DEVICE_OR_FAIL(handle, call);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: queue is NULL", call);
    void* state = NULL;
    DML_RESULT r = device->backend->queue_create(device->state, native, &state);
    if (r < 0)
        return dml_device_remove(device, r);
    dml_queue* queue = new_object(sizeof *queue, DML_OBJECT_TYPE_COMMAND_QUEUE, device);
    if (!queue) {
        device->backend->queue_destroy(state);
        return out_of_memory(device, call);
    }
    queue->state = state;
    *out = (DMLCommandQueue)queue;
    return DML_S_OK;
}

static DML_RESULT create_command_recorder(DMLDevice handle, DMLCommandRecorder* out)
{
    static const char call[] = "dmlDeviceCreateCommandRecorder";
    DEVICE_OR_FAIL(handle, call);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: recorder is NULL", call);
    dml_recorder* recorder = new_object(sizeof *recorder, DML_OBJECT_TYPE_COMMAND_RECORDER, device);
    if (!recorder)
        return out_of_memory(device, call);
    *out = (DMLCommandRecorder)recorder;
    return DML_S_OK;
}

/* dispatch.c */
DML_BINDING_PROPERTIES dml_dispatchable_binding_properties(DMLDispatchable dispatchable);
DML_RESULT dml_record_dispatch(DMLCommandRecorder recorder, DMLCommandQueue queue, DMLDispatchable dispatchable,
    DMLBindingTable bindings);
DML_RESULT dml_queue_synchronize(DMLCommandQueue queue);
DML_RESULT dml_queue_write_buffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset, const void* source,
    uint64_t size);
DML_RESULT dml_queue_read_buffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset, void* destination,
    uint64_t size);

/* graph.c */
DML_RESULT dml_compile_graph(DMLDevice device, const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* compiled);

void dml_core_fill_device_entries(DMLPluginTable* t);
void dml_core_fill_device_entries(DMLPluginTable* t)
{
    t->CreateDevice = create_device;
    t->DeviceGetDeviceRemovedReason = get_device_removed_reason;
    t->DeviceCheckFeatureSupport = check_feature_support;
    t->DeviceCreateOperator = create_operator;
    t->DeviceCompileOperator = compile_operator;
    t->DeviceCompileGraph = dml_compile_graph;
    t->DeviceCreateOperatorInitializer = create_operator_initializer;
    t->DispatchableGetBindingProperties = dml_dispatchable_binding_properties;
    t->DeviceCreateCommandRecorder = create_command_recorder;
    t->DeviceCreateCommandQueue = create_command_queue;
    t->CommandRecorderRecordDispatch = dml_record_dispatch;
    t->CommandQueueSynchronize = dml_queue_synchronize;
    t->DeviceCreateBuffer = create_buffer;
    t->DeviceWrapBuffer = wrap_buffer;
    t->BufferGetNativePointer = buffer_native_pointer;
    t->CommandQueueWriteBuffer = dml_queue_write_buffer;
    t->CommandQueueReadBuffer = dml_queue_read_buffer;
}
