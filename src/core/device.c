/*
 * device.c — devices and what they create: operators, compiled operators,
 * initializers, buffers, queues and recorders.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "struct_size.h"
#include "trace.h"

#define DEVICE_FLAGS_ALL ((uint32_t)DML_CREATE_DEVICE_FLAG_DEBUG)

/* ---- the classes of the objects created here ---------------------------- */

static void destroy_device(dml_object* object)
{
    dml_device* device = (dml_device*)object;
    device->backend->device_destroy(device->state);
    dml_object_free_quarantine(device);
}

static void destroy_operator(dml_object* object)
{
    dml_op_destroy(((dml_operator*)object)->op);
}

static void destroy_initializer(dml_object* object)
{
    dml_initializer* initializer = (dml_initializer*)object;
    for (uint32_t i = 0; i < initializer->count; ++i)
        dml_object_release(initializer->ops[i]);
    free(initializer->ops);
}

static void destroy_buffer(dml_object* object)
{
    dml_buffer* buffer = (dml_buffer*)object;
    if (!buffer->wrapped)
        object->device->backend->buffer_free(object->device->state, buffer->memory);
}

static void destroy_queue(dml_object* object)
{
    object->device->backend->queue_destroy(((dml_queue*)object)->state);
}

static const dml_object_class device_class = { DML_OBJECT_TYPE_DEVICE, sizeof(dml_device), destroy_device };
static const dml_object_class operator_class = { DML_OBJECT_TYPE_OPERATOR, sizeof(dml_operator), destroy_operator };
static const dml_object_class initializer_class = { DML_OBJECT_TYPE_OPERATOR_INITIALIZER, sizeof(dml_initializer),
    destroy_initializer };
static const dml_object_class buffer_class = { DML_OBJECT_TYPE_BUFFER, sizeof(dml_buffer), destroy_buffer };
static const dml_object_class queue_class = { DML_OBJECT_TYPE_COMMAND_QUEUE, sizeof(dml_queue), destroy_queue };
static const dml_object_class recorder_class = { DML_OBJECT_TYPE_COMMAND_RECORDER, sizeof(dml_recorder), NULL };

static DML_RESULT out_of_memory(const dml_device* device, const char* call)
{
    return dml_device_fail(device, DML_E_OUTOFMEMORY, "%s: out of host memory", call);
}

/* Resolves a device handle; the dispatcher checked it, but the core is also
 * called directly by tests and by other handles' owners. */
#define DEVICE_OR_FAIL(handle, call)                                \
    dml_device* device = NULL;                                      \
    do {                                                            \
        DML_RESULT open_ = dml_device_open((handle), (call), &device); \
        if (open_ < 0)                                              \
            return open_;                                           \
    } while (0)

DML_RESULT dml_create_device(const DML_DEVICE_DESC* host_desc, DMLDevice* out)
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
    if (level != 0 && !dml_is_feature_level(level))
        return dml_set_error(DML_E_INVALIDARG, "%s: desc->MinimumFeatureLevel = 0x%x is not a DML_FEATURE_LEVEL", call,
            level);
    if (level > (uint32_t)DML_MAX_FEATURE_LEVEL)
        return dml_set_error(DML_E_UNSUPPORTED,
            "%s: desc->MinimumFeatureLevel = 0x%x is above this device's highest level, DML_FEATURE_LEVEL_"
            DML_MAX_FEATURE_LEVEL_NAME, call,
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

    dml_device* device = dml_object_new(&device_class, NULL);
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

/* The backend's adapter info, written into the caller's growable struct by
 * dml.h's Size rules; device NULL for the plugin table's GetAdapterInfo. */
static DML_RESULT adapter_info(const dml_device* device, const char* call, uint32_t adapter_index,
    DML_ADAPTER_INFO* info)
{
    if (!info)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: info is NULL", call);
    char problem[512];
    if (dml_struct_size_problem(info->Size, DML_ADAPTER_INFO_LAYOUT, "info->", problem, sizeof problem))
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: %s", call, problem);
    DML_ADAPTER_INFO result;
    memset(&result, 0, sizeof result);
    const dml_backend* backend = device ? device->backend : dml_core_backend;
    DML_RESULT r = backend->get_adapter_info(adapter_index, &result);
    if (r < 0)
        return dml_device_relay(device, r);
    dml_struct_write(info, &result, DML_ADAPTER_INFO_LAYOUT);
    return DML_S_OK;
}

DML_RESULT dml_device_get_adapter_info(DMLDevice handle, DML_ADAPTER_INFO* info)
{
    static const char call[] = "dmlDeviceGetAdapterInfo";
    dml_device* device = (dml_device*)handle;
    if (!dml_is_object(device, DML_OBJECT_TYPE_DEVICE))
        return dml_invalid_handle(NULL, call, "device", "DMLDevice", device);
    return adapter_info(device, call, device->adapter_index, info);
}

DML_RESULT dml_plugin_get_adapter_info(uint32_t adapter_index, DML_ADAPTER_INFO* info)
{
    return adapter_info(NULL, "GetAdapterInfo (plugin table)", adapter_index, info);
}

DML_RESULT dml_device_set_thread_limit(DMLDevice handle, uint32_t max_threads, uint32_t* threads_in_use)
{
    static const char call[] = "dmlDeviceSetThreadLimit";
    DEVICE_OR_FAIL(handle, call);
    if (!device->backend->set_thread_limit)
        return dml_device_fail(device, DML_E_NOTIMPL,
            "%s: the %s backend uses no host threads for dispatches, so it has no thread limit", call,
            device->backend->name);
    uint32_t in_use = 0;
    DML_RESULT r = device->backend->set_thread_limit(device->state, max_threads, &in_use);
    if (r < 0)
        return dml_device_relay(device, r);
    if (threads_in_use)
        *threads_in_use = in_use;
    return DML_S_OK;
}

DML_RESULT dml_device_get_removed_reason(DMLDevice handle)
{
    DEVICE_OR_FAIL(handle, "dmlDeviceGetDeviceRemovedReason");
    return DML_S_OK;
}

DML_RESULT dml_device_check_feature_support(DMLDevice handle, DML_FEATURE feature, uint32_t query_size,
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
            if (!dml_is_feature_level(level))
                return dml_device_fail(device, DML_E_INVALIDARG,
                    "%s(FEATURE_LEVELS): RequestedFeatureLevels[%u] = 0x%x is not a DML_FEATURE_LEVEL", call, i, level);
            if (level <= (uint32_t)DML_MAX_FEATURE_LEVEL && level > best)
                best = level;
        }
        if (!best)
            return dml_device_fail(device, DML_E_UNSUPPORTED,
                "%s(FEATURE_LEVELS): none of the requested levels is supported (highest: " DML_MAX_FEATURE_LEVEL_NAME ")",
                call);
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
    dml_op* validated;
    DML_RESULT r = dml_op_create(desc, &validated);
    if (r < 0)
        return dml_device_relay(device, r);
    dml_operator* op = dml_object_new(&operator_class, device);
    if (!op) {
        dml_op_destroy(validated);
        return out_of_memory(device, call);
    }
    op->op = validated;
    *out = (DMLOperator)op;
    return DML_S_OK;
}

/* The desc is not validated yet when the range starts: it is named by the
 * operator type only (shapes are read after validation, see CompileOperator). */
DML_RESULT dml_create_operator(DMLDevice handle, const DML_OPERATOR_DESC* desc, DMLOperator* out)
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
    const char* type = op->op->entry->name;
    if (op->base.device != device)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s(%s%s): op was created by another device", call, type,
            label);
    if ((uint32_t)flags & ~DML_EXECUTION_FLAGS_ALL)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s(%s%s): flags = 0x%x has unknown bits", call, type, label,
            (unsigned)flags);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s(%s%s): compiled is NULL", call, type, label);

    dml_compiled* compiled;
    DML_RESULT r = dml_compile_single(device, op, call, &compiled);
    if (r < 0)
        return r;
    *out = (DMLCompiledOperator)compiled;
    return DML_S_OK;
}

DML_RESULT dml_compile_operator(DMLDevice handle, DMLOperator op_handle, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* out)
{
#ifdef DML_HAVE_NVTX
    if (dml_trace_active()) {
        const dml_operator* op = (const dml_operator*)op_handle;
        if (dml_is_object(op, DML_OBJECT_TYPE_OPERATOR)) {
            char name[DML_OBJECT_NAME_SIZE];
            dml_object_name(&op->base, name);
            dml_trace_push_operator("CompileOperator", op->op, name);
        }
        else
            dml_trace_push("CompileOperator (invalid operator)");
    }
#endif
    DML_RESULT r = compile_operator_untraced(handle, op_handle, flags, out);
    DML_TRACE_POP();
    return r;
}

DML_RESULT dml_create_operator_initializer(DMLDevice handle, uint32_t count, const DMLCompiledOperator* ops,
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
    dml_initializer* initializer = dml_object_new(&initializer_class, device);
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

DML_RESULT dml_create_buffer(DMLDevice handle, uint64_t size, DMLBuffer* out)
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
    dml_buffer* buffer = dml_object_new(&buffer_class, device);
    if (!buffer) {
        device->backend->buffer_free(device->state, memory);
        return out_of_memory(device, call);
    }
    buffer->memory = memory;
    buffer->size = size;
    *out = (DMLBuffer)buffer;
    return DML_S_OK;
}

DML_RESULT dml_wrap_buffer(DMLDevice handle, void* memory, uint64_t size, DMLBuffer* out)
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
    dml_buffer* buffer = dml_object_new(&buffer_class, device);
    if (!buffer)
        return out_of_memory(device, call);
    buffer->memory = memory;
    buffer->size = size;
    buffer->wrapped = true;
    *out = (DMLBuffer)buffer;
    return DML_S_OK;
}

void* dml_buffer_native_pointer(DMLBuffer handle)
{
    dml_buffer* buffer = (dml_buffer*)handle;
    if (!dml_is_object(buffer, DML_OBJECT_TYPE_BUFFER)) {
        dml_invalid_handle(NULL, "dmlBufferGetNativePointer", "buffer", "DMLBuffer", buffer);
        return NULL;
    }
    return buffer->memory;
}

DML_RESULT dml_create_command_queue(DMLDevice handle, void* native, DMLCommandQueue* out)
{
    static const char call[] = "dmlDeviceCreateCommandQueue";
    DEVICE_OR_FAIL(handle, call);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: queue is NULL", call);
    void* state = NULL;
    DML_RESULT r = device->backend->queue_create(device->state, native, &state);
    if (r < 0)
        return dml_device_remove(device, r);
    dml_queue* queue = dml_object_new(&queue_class, device);
    if (!queue) {
        device->backend->queue_destroy(state);
        return out_of_memory(device, call);
    }
    queue->state = state;
    *out = (DMLCommandQueue)queue;
    return DML_S_OK;
}

DML_RESULT dml_create_command_recorder(DMLDevice handle, DMLCommandRecorder* out)
{
    static const char call[] = "dmlDeviceCreateCommandRecorder";
    DEVICE_OR_FAIL(handle, call);
    if (!out)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: recorder is NULL", call);
    dml_recorder* recorder = dml_object_new(&recorder_class, device);
    if (!recorder)
        return out_of_memory(device, call);
    *out = (DMLCommandRecorder)recorder;
    return DML_S_OK;
}

