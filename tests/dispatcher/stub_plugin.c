/*
 * stub_plugin.c — fake backend plugins for the dispatcher tests, one source
 * built many times with different definitions (see CMakeLists.txt):
 *
 *   STUB_BACKEND      backend name (string); undefined → the table names none
 *   STUB_SCORE        probe score (default 10)
 *   STUB_ADAPTERS     adapter count (default 1)
 *   STUB_UNAVAILABLE  probe says unavailable, with STUB_REASON
 *   STUB_ABI_VERSION  AbiVersion written in the table (default the real one)
 *   STUB_STRUCT_SIZE  StructSize written in the table (default the real one)
 *   STUB_NULL_TABLE   the entry point returns NULL
 *   STUB_NO_ENTRY     the entry point is not exported
 *
 * A stub device is a real object header plus a reference count: enough for
 * selection and handle-check tests. Most entries are left NULL, which the
 * dispatcher answers with DML_E_NOTIMPL; CheckFeatureSupport reports an
 * error through the host services, and a DEBUG device emits a message.
 */
#include <dml/dml_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef STUB_SCORE
#define STUB_SCORE 10
#endif
#ifndef STUB_ADAPTERS
#define STUB_ADAPTERS 1
#endif
#ifndef STUB_ABI_VERSION
#define STUB_ABI_VERSION DML_PLUGIN_ABI_VERSION
#endif
#ifndef STUB_STRUCT_SIZE
#define STUB_STRUCT_SIZE sizeof(DMLPluginTable)
#endif
#ifdef STUB_BACKEND
#define STUB_NAME STUB_BACKEND
#else
#define STUB_NAME "unnamed"
#endif

static const DMLHostServices* g_host;

typedef struct stub_device {
    DMLObjectHeader header;
    unsigned refs;
} stub_device;

static DML_RESULT stub_probe(DML_PLUGIN_PROBE* probe)
{
#ifdef STUB_UNAVAILABLE
    /* Probes may set the thread's error; the dispatcher must hide it from the caller. */
    g_host->SetLastError("stub probe: " STUB_REASON);
    probe->Available = 0;
    probe->AdapterCount = 0;
    snprintf(probe->Reason, sizeof probe->Reason, "%s", STUB_REASON);
#else
    probe->Available = 1;
    probe->AdapterCount = STUB_ADAPTERS;
    probe->Reason[0] = '\0';
#endif
    probe->Score = STUB_SCORE;
    return DML_S_OK;
}

static DML_RESULT stub_get_adapter_info(uint32_t index, DML_ADAPTER_INFO* info)
{
    if (index >= STUB_ADAPTERS)
        return DML_E_INVALIDARG;
    memset(info, 0, sizeof *info);
    snprintf(info->Backend, sizeof info->Backend, "%s", STUB_NAME);
    info->AdapterIndex = index;
    snprintf(info->Description, sizeof info->Description, "Fake %s adapter %u", STUB_NAME, index);
    info->MemorySizeInBytes = 1u << 20;
    info->MaxFeatureLevel = DML_FEATURE_LEVEL_5_0;
    return DML_S_OK;
}

static const DMLPluginTable g_table; /* defined below; objects point at it */

static DML_RESULT stub_create_device(const DML_DEVICE_DESC* desc, DMLDevice* device)
{
    stub_device* d = calloc(1, sizeof *d);
    if (!d)
        return DML_E_OUTOFMEMORY;
    d->header.Dispatch = &g_table;
    d->header.Magic = DML_OBJECT_MAGIC;
    d->header.Type = DML_OBJECT_TYPE_DEVICE;
    d->refs = 1;
    if (desc->Flags & DML_CREATE_DEVICE_FLAG_DEBUG)
        g_host->EmitMessage(DML_MESSAGE_SEVERITY_INFO, STUB_NAME ": debug device created");
    *device = (DMLDevice)d;
    return DML_S_OK;
}

static uint32_t stub_add_ref(void* object)
{
    return ++((stub_device*)object)->refs;
}

static uint32_t stub_release(void* object)
{
    stub_device* d = object;
    unsigned refs = --d->refs;
    if (refs == 0) {
        d->header.Magic = 0;
        free(d);
    }
    return refs;
}

static DML_RESULT stub_set_name(void* object, const char* name)
{
    (void)object;
    (void)name;
    return DML_S_OK;
}

static DML_RESULT stub_check_feature_support(DMLDevice device, DML_FEATURE feature, uint32_t querySize,
    const void* query, uint32_t supportSize, void* support)
{
    (void)device, (void)feature, (void)querySize, (void)query, (void)supportSize, (void)support;
    g_host->SetLastError(STUB_NAME ": feature queries are not implemented by this stub");
    return DML_E_UNSUPPORTED;
}

static const DMLPluginTable g_table = {
    .AbiVersion = STUB_ABI_VERSION,
    .StructSize = STUB_STRUCT_SIZE,
#ifdef STUB_BACKEND
    .Backend = STUB_BACKEND,
#endif
    .Probe = stub_probe,
    .GetAdapterInfo = stub_get_adapter_info,
    .CreateDevice = stub_create_device,
    .AddRef = stub_add_ref,
    .Release = stub_release,
    .SetName = stub_set_name,
    .DeviceCheckFeatureSupport = stub_check_feature_support,
};

#ifdef STUB_NO_ENTRY
#define STUB_EXPORT
#else
#define STUB_EXPORT __attribute__((visibility("default")))
#endif

STUB_EXPORT const DMLPluginTable* dmlPluginGetTable(uint32_t abiVersion, const DMLHostServices* host);
STUB_EXPORT const DMLPluginTable* dmlPluginGetTable(uint32_t abiVersion, const DMLHostServices* host)
{
    (void)abiVersion;
    g_host = host;
#ifdef STUB_NULL_TABLE
    return NULL;
#else
    return &g_table;
#endif
}
