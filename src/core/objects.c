/*
 * objects.c — the object model: handles, reference counting, destruction
 * through each object's class, the debug device's quarantine, names and
 * the error helpers every call uses.
 */
#include "core.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object_types.h"

/* This copy of the core's table and backend: every handle points at the
 * table first (plugin_table.c fills both). */
DMLPluginTable dml_core_table;
const dml_backend* dml_core_backend;

_Static_assert(offsetof(dml_object, name) == offsetof(DMLReleasedObject, Name),
    "a quarantined object keeps its name where DMLReleasedObject has it");

/* What a quarantined object's memory holds past its header and name. */
#define DML_POISON_BYTE 0xDB

bool dml_is_object(const void* p, DML_OBJECT_TYPE type)
{
    const DMLObjectHeader* header = (const DMLObjectHeader*)p;
    return header && header->Dispatch == &dml_core_table && header->Magic == DML_OBJECT_MAGIC &&
        (type == 0 || header->Type == (uint32_t)type);
}

const char* dml_handle_problem(const void* p, const char* expected, char* buffer, size_t size)
{
    const DMLReleasedObject* released = (const DMLReleasedObject*)p;
    if (!p)
        snprintf(buffer, size, "is NULL, not a valid %s", expected);
    else if (released->Header.Dispatch == &dml_core_table && released->Header.Magic == DML_OBJECT_MAGIC_RELEASED) {
        char name[DML_OBJECT_NAME_SIZE];
        memcpy(name, released->Name, sizeof name);
        name[sizeof name - 1] = '\0';
        snprintf(buffer, size, "is a released %s%s%s%s, used after its last dmlRelease (reported by the debug device)",
            dml_object_type_name(released->Header.Type), name[0] ? " '" : "", name, name[0] ? "'" : "");
    } else
        snprintf(buffer, size, "is not a valid %s", expected);
    return buffer;
}

DML_RESULT dml_invalid_handle(const dml_device* device, const char* call, const char* param, const char* expected,
    const void* p)
{
    char problem[DML_HANDLE_PROBLEM_SIZE];
    return dml_device_fail(device, DML_E_INVALIDARG, "%s: %s %s", call, param,
        dml_handle_problem(p, expected, problem, sizeof problem));
}

void dml_object_init(dml_object* object, const dml_object_class* cls, dml_device* device)
{
    object->header.Dispatch = &dml_core_table;
    object->header.Magic = DML_OBJECT_MAGIC;
    object->header.Type = cls->type;
    object->cls = cls;
    object->name[0] = '\0';
    atomic_flag_clear(&object->name_lock);
    atomic_init(&object->refs, 1);
    atomic_init(&object->host_refs, 1);
    object->device = device;
    object->next_released = NULL;
    if (device)
        dml_object_add_ref(device);
}

void* dml_object_new(const dml_object_class* cls, dml_device* device)
{
    dml_object* object = calloc(1, cls->size);
    if (object)
        dml_object_init(object, cls, device);
    return object;
}

uint32_t dml_object_add_ref(void* p)
{
    if (!p)
        return 0;
    return atomic_fetch_add_explicit(&((dml_object*)p)->refs, 1, memory_order_relaxed) + 1;
}

static bool is_debug(const dml_object* object)
{
    const dml_device* device = object->header.Type == DML_OBJECT_TYPE_DEVICE ? (const dml_device*)object
                                                                              : object->device;
    return device->debug;
}

/* A debug device keeps what its objects leave: header (marked released) and
 * name for the messages about stale handles, the rest poisoned, and the memory
 * never reused while the device lives. */
static void quarantine(dml_object* object, dml_device* device)
{
    size_t kept = offsetof(dml_object, name_lock);
    memset((unsigned char*)object + kept, DML_POISON_BYTE, object->cls->size - kept);
    object->header.Magic = DML_OBJECT_MAGIC_RELEASED;
    dml_object* head = atomic_load_explicit(&device->quarantine, memory_order_relaxed);
    do
        object->next_released = head;
    while (!atomic_compare_exchange_weak_explicit(&device->quarantine, &head, object, memory_order_release,
        memory_order_relaxed));
}

void dml_object_free_quarantine(dml_device* device)
{
    dml_object* object = atomic_load_explicit(&device->quarantine, memory_order_acquire);
    while (object) {
        dml_object* next = object->next_released;
        free(object);
        object = next;
    }
}

static void destroy(dml_object* object)
{
    if (object->cls->destroy)
        object->cls->destroy(object);
    dml_device* device = object->device;
    if (device && device->debug) {
        quarantine(object, device);
    } else {
        /* Without the debug flag a stale handle is undefined behaviour; clearing
         * the magic only catches a use before the memory is reused. */
        object->header.Magic = 0;
        free(object);
    }
    dml_object_release(device); /* last: children are destroyed with the device's backend state */
}

uint32_t dml_object_release(void* p)
{
    if (!p)
        return 0;
    dml_object* object = (dml_object*)p;
    uint32_t refs = atomic_fetch_sub_explicit(&object->refs, 1, memory_order_acq_rel) - 1;
    if (refs == 0)
        destroy(object);
    return refs;
}

/* dmlAddRef and dmlRelease: the host's references. */
uint32_t dml_host_add_ref(void* p)
{
    if (!dml_is_object(p, 0)) {
        dml_invalid_handle(NULL, "dmlAddRef", "object", "DML object", p);
        return 0;
    }
    dml_object* object = (dml_object*)p;
    atomic_fetch_add_explicit(&object->host_refs, 1, memory_order_relaxed);
    return dml_object_add_ref(object);
}

uint32_t dml_host_release(void* p)
{
    if (!dml_is_object(p, 0)) {
        dml_invalid_handle(NULL, "dmlRelease", "object", "DML object", p);
        return 0;
    }
    dml_object* object = (dml_object*)p;
    unsigned host = atomic_load_explicit(&object->host_refs, memory_order_relaxed);
    do {
        if (host == 0) { /* other objects still hold it; the host has no reference left to drop */
            dml_set_error(DML_E_INVALIDARG, "dmlRelease: the %s was released more times than it was referenced",
                dml_object_type_name(object->header.Type));
            return 0;
        }
    } while (!atomic_compare_exchange_weak_explicit(&object->host_refs, &host, host - 1, memory_order_relaxed,
        memory_order_relaxed));
    if (host == 1 && is_debug(object))
        object->header.Magic = DML_OBJECT_MAGIC_RELEASED; /* the host's handle is stale from now on */
    return dml_object_release(object);
}

static void lock_name(const dml_object* object)
{
    while (atomic_flag_test_and_set_explicit((atomic_flag*)&object->name_lock, memory_order_acquire))
        ;
}

static void unlock_name(const dml_object* object)
{
    atomic_flag_clear_explicit((atomic_flag*)&object->name_lock, memory_order_release);
}

DML_RESULT dml_set_name(void* p, const char* name)
{
    if (!dml_is_object(p, 0))
        return dml_invalid_handle(NULL, "dmlSetName", "object", "DML object", p);
    dml_object* object = (dml_object*)p;
    char copy[DML_OBJECT_NAME_SIZE];
    snprintf(copy, sizeof copy, "%s", name ? name : ""); /* the host's string is read outside the lock */
    lock_name(object);
    memcpy(object->name, copy, sizeof copy);
    unlock_name(object);
    return DML_S_OK;
}

void dml_object_name(const dml_object* object, char name[DML_OBJECT_NAME_SIZE])
{
    lock_name(object);
    memcpy(name, object->name, DML_OBJECT_NAME_SIZE);
    unlock_name(object);
    name[DML_OBJECT_NAME_SIZE - 1] = '\0';
}

const char* dml_object_label(const dml_object* object, char* buffer, size_t size)
{
    if (!object)
        return "";
    char name[DML_OBJECT_NAME_SIZE];
    dml_object_name(object, name);
    if (!name[0])
        return "";
    snprintf(buffer, size, " '%s'", name);
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

DML_RESULT dml_device_open(DMLDevice handle, const char* call, dml_device** device)
{
    dml_device* d = (dml_device*)handle;
    if (!dml_is_object(d, DML_OBJECT_TYPE_DEVICE))
        return dml_invalid_handle(NULL, call, "device", "DMLDevice", d);
    DML_RESULT r = dml_device_check(d, call);
    if (r < 0)
        return r;
    *device = d;
    return DML_S_OK;
}

