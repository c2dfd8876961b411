/*
 * api.c — the dml* object functions. Every object a plugin returns starts with
 * a DMLObjectHeader pointing at that plugin's table (as in the Khronos ICD
 * loader), so each function checks the handle and forwards in one line; the
 * plugin validates everything else.
 *
 * Using a released handle is undefined behaviour, as in DirectML and every
 * loader of this kind: NULL, misaligned and wrong-type handles are reported,
 * and so are released ones of a debug device, whose plugin keeps their memory
 * (DMLReleasedObject); any other stale handle may be memory reused by a new
 * object.
 */
#include "dispatcher.h"

#include <stdint.h>
#include <string.h>

#include "core/object_types.h"
#include "core/tensor.h"

#define DMLD_MASK_DEVICE (1u << DML_OBJECT_TYPE_DEVICE)
#define DMLD_MASK_OPERATOR (1u << DML_OBJECT_TYPE_OPERATOR)
#define DMLD_MASK_BINDING_TABLE (1u << DML_OBJECT_TYPE_BINDING_TABLE)
#define DMLD_MASK_COMMAND_RECORDER (1u << DML_OBJECT_TYPE_COMMAND_RECORDER)
#define DMLD_MASK_COMMAND_QUEUE (1u << DML_OBJECT_TYPE_COMMAND_QUEUE)
#define DMLD_MASK_BUFFER (1u << DML_OBJECT_TYPE_BUFFER)
#define DMLD_MASK_DISPATCHABLE ((1u << DML_OBJECT_TYPE_COMPILED_OPERATOR) | (1u << DML_OBJECT_TYPE_OPERATOR_INITIALIZER))
#define DMLD_MASK_ANY 0xFFFFFFFFu

#define DMLD_NAME_DEVICE "DMLDevice"
#define DMLD_NAME_OPERATOR "DMLOperator"
#define DMLD_NAME_BINDING_TABLE "DMLBindingTable"
#define DMLD_NAME_COMMAND_RECORDER "DMLCommandRecorder"
#define DMLD_NAME_COMMAND_QUEUE "DMLCommandQueue"
#define DMLD_NAME_BUFFER "DMLBuffer"
#define DMLD_NAME_DISPATCHABLE "DMLDispatchable (compiled operator or operator initializer)"
#define DMLD_NAME_ANY "DML object"

/* The table of a live object of an accepted type, or NULL with the message
 * set, e.g. "dmlDeviceCreateOperator: device is not a valid DMLDevice (it is a DMLBuffer)". */
static const DMLPluginTable* dispatch_of(const void* object, uint32_t accepted, const char* call,
    const char* param, const char* expected)
{
    const DMLObjectHeader* h = object;
    if (!h) {
        dmld_error(DML_E_INVALIDARG, "%s: %s is NULL, not a valid %s", call, param, expected);
        return NULL;
    }
    if ((uintptr_t)h % _Alignof(DMLObjectHeader) == 0 && h->Magic == DML_OBJECT_MAGIC_RELEASED && h->Dispatch) {
        /* Kept by a debug device for this report (DMLReleasedObject). */
        const DMLReleasedObject* released = object;
        char name[DML_OBJECT_NAME_SIZE];
        memcpy(name, released->Name, sizeof name);
        name[sizeof name - 1] = '\0';
        dmld_error(DML_E_INVALIDARG,
            "%s: %s is a released %s%s%s%s, used after its last dmlRelease (reported by the debug device)", call,
            param, dml_object_type_name(h->Type), name[0] ? " '" : "", name, name[0] ? "'" : "");
        /* Only a debug device keeps released objects, and its messages also go
         * to the callback or stderr (dml.h): the plugin never sees this call. */
        dmld_emit_last_error();
        return NULL;
    }
    if ((uintptr_t)h % _Alignof(DMLObjectHeader) != 0 || h->Magic != DML_OBJECT_MAGIC || !h->Dispatch) {
        dmld_error(DML_E_INVALIDARG, "%s: %s is not a valid %s (not a live DML object: released, or never one)",
            call, param, expected);
        return NULL;
    }
    if (h->Type < DML_OBJECT_TYPE_DEVICE || h->Type > DML_OBJECT_TYPE_BUFFER || !(accepted & (1u << h->Type))) {
        dmld_error(DML_E_INVALIDARG, "%s: %s is not a valid %s (it is a %s)", call, param, expected,
            dml_object_type_name(h->Type));
        return NULL;
    }
    return h->Dispatch;
}

/* An entry exists when the plugin's table is long enough to hold it (tables
 * only grow) and the plugin filled it in. */
#define DMLD_HAS_ENTRY(t, entry) \
    (offsetof(DMLPluginTable, entry) + sizeof((t)->entry) <= (t)->StructSize && (t)->entry != NULL)

static DML_RESULT missing_entry(const DMLPluginTable* t, const char* call)
{
    return dmld_error(DML_E_NOTIMPL, "%s: backend '%s' does not implement this call", call, t->Backend);
}

/* Check `object` (of kind DEVICE, BUFFER, ...), then forward to entry(...). */
#define DMLD_FORWARD(kind, object, entry, ...)                                                                \
    do {                                                                                                      \
        const DMLPluginTable* t_ = dispatch_of(object, DMLD_MASK_##kind, __func__, #object, DMLD_NAME_##kind); \
        if (!t_)                                                                                              \
            return DML_E_INVALIDARG;                                                                          \
        if (!DMLD_HAS_ENTRY(t_, entry))                                                                       \
            return missing_entry(t_, __func__);                                                               \
        return t_->entry(__VA_ARGS__);                                                                        \
    } while (0)

/* ---- Any object --------------------------------------------------------- */

DML_API uint32_t dmlAddRef(void* object)
{
    if (!object)
        return 0;
    const DMLPluginTable* t = dispatch_of(object, DMLD_MASK_ANY, __func__, "object", DMLD_NAME_ANY);
    return t ? t->AddRef(object) : 0; /* AddRef and Release are required at load time */
}

DML_API uint32_t dmlRelease(void* object)
{
    if (!object)
        return 0;
    const DMLPluginTable* t = dispatch_of(object, DMLD_MASK_ANY, __func__, "object", DMLD_NAME_ANY);
    return t ? t->Release(object) : 0;
}

DML_API DML_RESULT dmlSetName(void* object, const char* name)
{
    DMLD_FORWARD(ANY, object, SetName, object, name);
}

/* ---- Device ------------------------------------------------------------- */

DML_API DML_RESULT dmlDeviceGetDeviceRemovedReason(DMLDevice device)
{
    DMLD_FORWARD(DEVICE, device, DeviceGetDeviceRemovedReason, device);
}

DML_API DML_RESULT dmlDeviceGetAdapterInfo(DMLDevice device, DML_ADAPTER_INFO* info)
{
    DMLD_FORWARD(DEVICE, device, DeviceGetAdapterInfo, device, info);
}

DML_API DML_RESULT dmlDeviceSetThreadLimit(DMLDevice device, uint32_t maxThreads, uint32_t* threadsInUse)
{
    DMLD_FORWARD(DEVICE, device, DeviceSetThreadLimit, device, maxThreads, threadsInUse);
}

DML_API DML_RESULT dmlDeviceCheckFeatureSupport(DMLDevice device, DML_FEATURE feature, uint32_t querySize,
    const void* query, uint32_t supportSize, void* support)
{
    DMLD_FORWARD(DEVICE, device, DeviceCheckFeatureSupport, device, feature, querySize, query, supportSize, support);
}

DML_API DML_RESULT dmlDeviceCreateOperator(DMLDevice device, const DML_OPERATOR_DESC* desc, DMLOperator* op)
{
    DMLD_FORWARD(DEVICE, device, DeviceCreateOperator, device, desc, op);
}

DML_API DML_RESULT dmlDeviceCompileGraph(DMLDevice device, const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* compiled)
{
    DMLD_FORWARD(DEVICE, device, DeviceCompileGraph, device, desc, flags, compiled);
}

DML_API DML_RESULT dmlDeviceCompileOperator(DMLDevice device, DMLOperator op, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* compiled)
{
    DMLD_FORWARD(DEVICE, device, DeviceCompileOperator, device, op, flags, compiled);
}

DML_API DML_RESULT dmlDeviceCreateOperatorInitializer(DMLDevice device, uint32_t count,
    const DMLCompiledOperator* ops, DMLOperatorInitializer* initializer)
{
    DMLD_FORWARD(DEVICE, device, DeviceCreateOperatorInitializer, device, count, ops, initializer);
}

DML_API DML_RESULT dmlDeviceCreateBindingTable(DMLDevice device, const DML_BINDING_TABLE_DESC* desc,
    DMLBindingTable* table)
{
    DMLD_FORWARD(DEVICE, device, DeviceCreateBindingTable, device, desc, table);
}

DML_API DML_RESULT dmlDeviceCreateCommandRecorder(DMLDevice device, DMLCommandRecorder* recorder)
{
    DMLD_FORWARD(DEVICE, device, DeviceCreateCommandRecorder, device, recorder);
}

DML_API DML_RESULT dmlDeviceCreateCommandQueue(DMLDevice device, void* nativeQueue, DMLCommandQueue* queue)
{
    DMLD_FORWARD(DEVICE, device, DeviceCreateCommandQueue, device, nativeQueue, queue);
}

DML_API DML_RESULT dmlDeviceCreateBuffer(DMLDevice device, uint64_t sizeInBytes, DMLBuffer* buffer)
{
    DMLD_FORWARD(DEVICE, device, DeviceCreateBuffer, device, sizeInBytes, buffer);
}

DML_API DML_RESULT dmlDeviceWrapBuffer(DMLDevice device, void* nativePointer, uint64_t sizeInBytes, DMLBuffer* buffer)
{
    DMLD_FORWARD(DEVICE, device, DeviceWrapBuffer, device, nativePointer, sizeInBytes, buffer);
}

/* ---- Dispatchables and binding tables ----------------------------------- */

DML_API DML_BINDING_PROPERTIES dmlDispatchableGetBindingProperties(DMLDispatchable dispatchable)
{
    DML_BINDING_PROPERTIES none = { 0, 0, 0 };
    const DMLPluginTable* t =
        dispatch_of(dispatchable, DMLD_MASK_DISPATCHABLE, __func__, "dispatchable", DMLD_NAME_DISPATCHABLE);
    if (!t)
        return none;
    if (!DMLD_HAS_ENTRY(t, DispatchableGetBindingProperties)) {
        missing_entry(t, __func__);
        return none;
    }
    return t->DispatchableGetBindingProperties(dispatchable);
}

DML_API DML_RESULT dmlBindingTableBindInputs(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings)
{
    DMLD_FORWARD(BINDING_TABLE, table, BindingTableBindInputs, table, count, bindings);
}

DML_API DML_RESULT dmlBindingTableBindOutputs(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings)
{
    DMLD_FORWARD(BINDING_TABLE, table, BindingTableBindOutputs, table, count, bindings);
}

DML_API DML_RESULT dmlBindingTableBindTemporaryResource(DMLBindingTable table, const DML_BINDING_DESC* binding)
{
    DMLD_FORWARD(BINDING_TABLE, table, BindingTableBindTemporaryResource, table, binding);
}

DML_API DML_RESULT dmlBindingTableBindPersistentResource(DMLBindingTable table, const DML_BINDING_DESC* binding)
{
    DMLD_FORWARD(BINDING_TABLE, table, BindingTableBindPersistentResource, table, binding);
}

DML_API DML_RESULT dmlBindingTableReset(DMLBindingTable table, const DML_BINDING_TABLE_DESC* desc)
{
    DMLD_FORWARD(BINDING_TABLE, table, BindingTableReset, table, desc);
}

/* ---- Recording, queues and buffers -------------------------------------- */

DML_API DML_RESULT dmlCommandRecorderRecordDispatch(DMLCommandRecorder recorder, DMLCommandQueue queue,
    DMLDispatchable dispatchable, DMLBindingTable bindings)
{
    DMLD_FORWARD(COMMAND_RECORDER, recorder, CommandRecorderRecordDispatch, recorder, queue, dispatchable, bindings);
}

DML_API DML_RESULT dmlCommandQueueSynchronize(DMLCommandQueue queue)
{
    DMLD_FORWARD(COMMAND_QUEUE, queue, CommandQueueSynchronize, queue);
}

DML_API DML_RESULT dmlCommandQueueWriteBuffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset,
    const void* source, uint64_t size)
{
    DMLD_FORWARD(COMMAND_QUEUE, queue, CommandQueueWriteBuffer, queue, buffer, offset, source, size);
}

DML_API DML_RESULT dmlCommandQueueReadBuffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset,
    void* destination, uint64_t size)
{
    DMLD_FORWARD(COMMAND_QUEUE, queue, CommandQueueReadBuffer, queue, buffer, offset, destination, size);
}

DML_API void* dmlBufferGetNativePointer(DMLBuffer buffer)
{
    const DMLPluginTable* t = dispatch_of(buffer, DMLD_MASK_BUFFER, __func__, "buffer", DMLD_NAME_BUFFER);
    if (!t)
        return NULL;
    if (!DMLD_HAS_ENTRY(t, BufferGetNativePointer)) {
        missing_entry(t, __func__);
        return NULL;
    }
    return t->BufferGetNativePointer(buffer);
}

/* ---- Helpers that need no backend --------------------------------------- */

DML_API uint64_t DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, uint32_t dimensionCount,
    const uint32_t* sizes, const uint32_t* strides)
{
    uint64_t size = 0;
    return dml_calc_buffer_tensor_size(dataType, dimensionCount, sizes, strides, &size) ? size : 0;
}
