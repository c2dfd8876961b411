/*
 * stub_probe.c — minimal plugins for test_plugins.c (the approach of
 * tests/dispatcher/stub_plugin.c, with the cases that suite lacks):
 *   STUB_BACKEND        backend name (string)
 *   STUB_PROBE_FAIL     Probe returns a failure code and sets a message
 *   STUB_ZERO_ADAPTERS  Probe says available with 0 adapters
 *   STUB_LONG_NAME      the table's backend name is longer than DML_BACKEND_NAME_SIZE
 *   STUB_NO_PROBE       the table has no Probe entry
 */
#include <dml/dml_plugin.h>
#include <stdlib.h>
#include <string.h>

static const DMLHostServices* g_host;
static const DMLPluginTable g_table;

typedef struct stub_device {
    DMLObjectHeader header;
    unsigned refs;
} stub_device;

__attribute__((unused)) static DML_RESULT stub_probe(DML_PLUGIN_PROBE* probe)
{
#if defined(STUB_PROBE_FAIL)
    g_host->SetLastError("stub: the probe crashed into a wall");
    probe->Available = 1; /* ignored: the call failed */
    probe->AdapterCount = 1;
    probe->Score = 1 << 30;
    return DML_E_DEVICE_REMOVED;
#elif defined(STUB_ZERO_ADAPTERS)
    probe->Available = 1;
    probe->AdapterCount = 0;
    probe->Score = 1 << 30;
    return DML_S_OK;
#else
    probe->Available = 1;
    probe->AdapterCount = 1;
    probe->Score = 7;
    return DML_S_OK;
#endif
}

static DML_RESULT stub_get_adapter_info(uint32_t index, DML_ADAPTER_INFO* info)
{
    if (index != 0)
        return DML_E_INVALIDARG;
    memset(info, 0, sizeof *info);
    info->MaxFeatureLevel = DML_FEATURE_LEVEL_5_0;
    return DML_S_OK;
}

static DML_RESULT stub_create_device(const DML_DEVICE_DESC* desc, DMLDevice* device)
{
    (void)desc;
    stub_device* d = calloc(1, sizeof *d);
    if (!d)
        return DML_E_OUTOFMEMORY;
    d->header.Dispatch = &g_table;
    d->header.Magic = DML_OBJECT_MAGIC;
    d->header.Type = DML_OBJECT_TYPE_DEVICE;
    d->refs = 1;
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

static const DMLPluginTable g_table = {
    .AbiVersion = DML_PLUGIN_ABI_VERSION,
    .StructSize = sizeof(DMLPluginTable),
#ifdef STUB_LONG_NAME
    .Backend = "a-backend-name-that-is-far-too-long-for-the-field",
#else
    .Backend = STUB_BACKEND,
#endif
#ifndef STUB_NO_PROBE
    .Probe = stub_probe,
#endif
    .GetAdapterInfo = stub_get_adapter_info,
    .CreateDevice = stub_create_device,
    .AddRef = stub_add_ref,
    .Release = stub_release,
};

__attribute__((visibility("default"))) const DMLPluginTable* dmlPluginGetTable(uint32_t abiVersion,
    const DMLHostServices* host);
__attribute__((visibility("default"))) const DMLPluginTable* dmlPluginGetTable(uint32_t abiVersion,
    const DMLHostServices* host)
{
    (void)abiVersion;
    g_host = host;
    return &g_table;
}
