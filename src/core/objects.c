/*
 * objects.c — reference counting, destruction, error helpers, and the plugin
 * table that exposes the core to the dispatcher.
 */
#include "objects.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DMLPluginTable dml_core_table;
const dml_backend* dml_core_backend;

bool dml_is_object(const void* p, DML_OBJECT_TYPE type)
{
    const DMLObjectHeader* header = (const DMLObjectHeader*)p;
    return header && header->Dispatch == &dml_core_table && header->Magic == DML_OBJECT_MAGIC &&
        (type == 0 || header->Type == (uint32_t)type);
}

void dml_object_init(dml_object* object, DML_OBJECT_TYPE type, dml_device* device)
{
    object->header.Dispatch = &dml_core_table;
    object->header.Magic = DML_OBJECT_MAGIC;
    object->header.Type = type;
    atomic_init(&object->refs, 1);
    object->device = device;
    object->name[0] = '\0';
    if (device)
        dml_object_add_ref(device);
}

uint32_t dml_object_add_ref(void* p)
{
    if (!dml_is_object(p, 0))
        return 0;
    return atomic_fetch_add_explicit(&((dml_object*)p)->refs, 1, memory_order_relaxed) + 1;
}

static void destroy(dml_object* object)
{
    const dml_backend* backend = dml_core_backend;
    switch ((DML_OBJECT_TYPE)object->header.Type) {
    case DML_OBJECT_TYPE_DEVICE: {
        dml_device* device = (dml_device*)object;
        backend->device_destroy(device->state);
        break;
    }
    case DML_OBJECT_TYPE_COMPILED_OPERATOR: {
        dml_compiled_destroy((dml_compiled*)object);
        break;
    }
    case DML_OBJECT_TYPE_OPERATOR_INITIALIZER: {
        dml_initializer* initializer = (dml_initializer*)object;
        for (uint32_t i = 0; i < initializer->count; ++i)
            dml_object_release(initializer->ops[i]);
        free(initializer->ops);
        break;
    }
    case DML_OBJECT_TYPE_BINDING_TABLE:
        dml_binding_table_destroy((dml_binding_table*)object);
        break;
    case DML_OBJECT_TYPE_COMMAND_QUEUE:
        backend->queue_destroy(((dml_queue*)object)->state);
        break;
    case DML_OBJECT_TYPE_BUFFER: {
        dml_buffer* buffer = (dml_buffer*)object;
        if (!buffer->wrapped)
            backend->buffer_free(object->device->state, buffer->memory);
        break;
    }
    case DML_OBJECT_TYPE_OPERATOR:
    case DML_OBJECT_TYPE_COMMAND_RECORDER:
        break;
    }
    dml_device* device = object->device;
    object->header.Magic = 0; /* a stale handle now fails the handle check instead of being used */
    free(object);
    dml_object_release(device); /* last: children are destroyed with the device's backend state */
}

uint32_t dml_object_release(void* p)
{
    if (!dml_is_object(p, 0))
        return 0;
    dml_object* object = (dml_object*)p;
    uint32_t refs = atomic_fetch_sub_explicit(&object->refs, 1, memory_order_acq_rel) - 1;
    if (refs == 0)
        destroy(object);
    return refs;
}

static DML_RESULT set_name(void* p, const char* name)
{
    if (!dml_is_object(p, 0))
        return dml_set_error(DML_E_INVALIDARG, "dmlSetName: object is not a valid DML object");
    dml_object* object = (dml_object*)p;
    snprintf(object->name, sizeof object->name, "%s", name ? name : "");
    return DML_S_OK;
}

const char* dml_object_label(const dml_object* object, char* buffer, size_t size)
{
    if (!object || !object->name[0])
        return "";
    snprintf(buffer, size, " '%s'", object->name);
    return buffer;
}

DML_RESULT dml_device_relay(const dml_device* device, DML_RESULT result)
{
    if (result < 0 && device && device->debug)
        dml_error_emit_last();
    return result;
}

DML_RESULT dml_device_fail(const dml_device* device, DML_RESULT result, const char* format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    dml_set_error(result, "%s", message);
    return dml_device_relay(device, result);
}

/* device->removed: 0 alive, 1 being removed (the reason is being written), 2 removed. */
DML_RESULT dml_device_check(const dml_device* device, const char* call)
{
    int state = atomic_load_explicit(&device->removed, memory_order_acquire);
    if (state == 0)
        return DML_S_OK;
    return dml_device_fail(device, DML_E_DEVICE_REMOVED, "%s: the device was removed: %s", call,
        state == 2 ? device->removed_reason : "an unrecoverable error on another thread");
}

DML_RESULT dml_device_remove(dml_device* device, DML_RESULT result)
{
    if (result != DML_E_DEVICE_REMOVED)
        return dml_device_relay(device, result);
    int expected = 0;
    if (atomic_compare_exchange_strong(&device->removed, &expected, 1)) {
        /* The backend's message says what happened; keep it as the reason,
         * then publish it: readers print it only once they see 2. */
        snprintf(device->removed_reason, sizeof device->removed_reason, "%s", dml_error_last());
        atomic_store_explicit(&device->removed, 2, memory_order_release);
    }
    return dml_device_relay(device, result);
}

static DML_RESULT device_adapter_info(DMLDevice handle, DML_ADAPTER_INFO* info)
{
    static const char call[] = "dmlDeviceGetAdapterInfo";
    dml_device* device = (dml_device*)handle;
    if (!dml_is_object(device, DML_OBJECT_TYPE_DEVICE))
        return dml_set_error(DML_E_INVALIDARG, "%s: device is not a valid DMLDevice", call);
    if (!info)
        return dml_device_fail(device, DML_E_INVALIDARG, "%s: info is NULL", call);
    DML_ADAPTER_INFO result;
    DML_RESULT r = device->backend->get_adapter_info(device->adapter_index, &result);
    if (r < 0)
        return dml_device_relay(device, r);
    *info = result;
    return DML_S_OK;
}

/* device.c and dispatch.c */
extern void dml_core_fill_device_entries(DMLPluginTable* table);

const DMLPluginTable* dml_core_plugin_table(const dml_backend* backend, uint32_t abi_version,
    const DMLHostServices* host)
{
    if (abi_version != DML_PLUGIN_ABI_VERSION || !backend)
        return NULL;
    dml_error_set_host(host);
    dml_core_backend = backend;
    DMLPluginTable* t = &dml_core_table;
    t->AbiVersion = DML_PLUGIN_ABI_VERSION;
    t->StructSize = sizeof(DMLPluginTable);
    t->Backend = backend->name;
    t->Probe = backend->probe;
    t->GetAdapterInfo = backend->get_adapter_info;
    t->AddRef = dml_object_add_ref;
    t->Release = dml_object_release;
    t->SetName = set_name;
    t->DeviceGetAdapterInfo = device_adapter_info;
    t->DeviceCreateBindingTable = dml_binding_table_create;
    t->BindingTableBindInputs = dml_binding_table_bind_inputs;
    t->BindingTableBindOutputs = dml_binding_table_bind_outputs;
    t->BindingTableBindTemporaryResource = dml_binding_table_bind_temporary;
    t->BindingTableBindPersistentResource = dml_binding_table_bind_persistent;
    t->BindingTableReset = dml_binding_table_reset;
    dml_core_fill_device_entries(t);
    return t;
}
