/*
 * plugin.c — SE_InitPlugin: the "DML" platform and its devices.
 *
 * One TensorFlow device per adapter of one runtime backend: the backend
 * DML_BACKEND names, else the best available one (the first adapter
 * dmlEnumerateAdapters lists). Mixing backends would give TensorFlow devices
 * of different speeds under one type, and the CPU backend next to GPUs only
 * competes with TensorFlow's own CPU kernels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

#define MAX_DEVICES 64

static DML_ADAPTER_INFO g_adapters[MAX_DEVICES];
static uint32_t g_adapter_count;

void dmltf_status_from_result(TF_Status* status, DML_RESULT result, const char* what)
{
    TF_Code code = TF_INTERNAL;
    if (result == DML_E_INVALIDARG)
        code = TF_INVALID_ARGUMENT;
    else if (result == DML_E_OUTOFMEMORY)
        code = TF_RESOURCE_EXHAUSTED;
    else if (result == DML_E_NOTIMPL || result == DML_E_UNSUPPORTED)
        code = TF_UNIMPLEMENTED;
    char message[1024];
    snprintf(message, sizeof message, "%s: %s", what, dmlGetLastErrorMessage());
    TF_SetStatus(status, code, message);
}

/* The adapters TensorFlow gets (see the file comment); an error message when none. */
static bool choose_adapters(char* why, size_t why_size)
{
    uint32_t count = 0;
    DML_RESULT r = dmlEnumerateAdapters(&count, NULL);
    if (DML_FAILED(r)) {
        snprintf(why, why_size, "dmlEnumerateAdapters failed: %s", dmlGetLastErrorMessage());
        return false;
    }
    if (count == 0) {
        snprintf(why, why_size, "the runtime has no available adapter (run dmlinfo to see why)");
        return false;
    }
    DML_ADAPTER_INFO* all = calloc(count, sizeof *all);
    if (!all) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < count; i++)
        all[i].Size = sizeof all[i];
    r = dmlEnumerateAdapters(&count, all);
    if (DML_FAILED(r)) {
        snprintf(why, why_size, "dmlEnumerateAdapters failed: %s", dmlGetLastErrorMessage());
        free(all);
        return false;
    }
    const char* wanted = getenv("DML_BACKEND");
    if (!wanted || !wanted[0])
        wanted = all[0].Backend;
    g_adapter_count = 0;
    for (uint32_t i = 0; i < count && g_adapter_count < MAX_DEVICES; i++)
        if (strcmp(all[i].Backend, wanted) == 0)
            g_adapters[g_adapter_count++] = all[i];
    free(all);
    if (g_adapter_count == 0) {
        snprintf(why, why_size, "DML_BACKEND=%s: the runtime has no available adapter of that backend", wanted);
        return false;
    }
    return true;
}

static void get_device_count(const SP_Platform* platform, int* count, TF_Status* status)
{
    (void)platform;
    *count = (int)g_adapter_count;
    TF_SetStatus(status, TF_OK, "");
}

static void destroy_dmltf_device(dmltf_device* d)
{
    if (!d)
        return;
    dmltf_cache_destroy(d->cache);
    dmltf_memory_destroy(d);
    dmlRelease(d->copy_queue);
    dmlRelease(d->recorder);
    dmlRelease(d->device);
    pthread_rwlock_destroy(&d->map_lock);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

static void create_device(const SP_Platform* platform, SE_CreateDeviceParams* params, TF_Status* status)
{
    (void)platform;
    int32_t ordinal = params->ordinal;
    if (ordinal < 0 || (uint32_t)ordinal >= g_adapter_count) {
        TF_SetStatus(status, TF_INVALID_ARGUMENT, "DML plugin: device ordinal out of range");
        return;
    }
    dmltf_device* d = calloc(1, sizeof *d);
    if (!d) {
        TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "DML plugin: out of memory");
        return;
    }
    pthread_mutex_init(&d->lock, NULL);
    pthread_rwlock_init(&d->map_lock, NULL);
    d->adapter = g_adapters[ordinal];
    DML_DEVICE_DESC desc = { sizeof desc, d->adapter.Backend, d->adapter.AdapterIndex, DML_CREATE_DEVICE_FLAG_NONE, 0 };
    DML_RESULT r = dmlCreateDevice(&desc, &d->device);
    if (DML_SUCCEEDED(r))
        r = dmlDeviceCreateCommandRecorder(d->device, &d->recorder);
    if (DML_SUCCEEDED(r))
        r = dmlDeviceCreateCommandQueue(d->device, NULL, &d->copy_queue);
    if (DML_FAILED(r)) {
        dmltf_status_from_result(status, r, "DML plugin: creating the runtime device");
        destroy_dmltf_device(d);
        return;
    }
    d->cache = dmltf_cache_create();
    if (!d->cache) {
        TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "DML plugin: out of memory");
        destroy_dmltf_device(d);
        return;
    }
    snprintf(d->description, sizeof d->description, "%s (%s)", d->adapter.Description, d->adapter.Backend);

    SP_Device* device = params->device;
    device->struct_size = SP_DEVICE_STRUCT_SIZE;
    device->ordinal = ordinal;
    device->device_handle = d;
    device->hardware_name = d->description;
    device->device_vendor = d->adapter.Backend;
    device->pci_bus_id = NULL;
    TF_SetStatus(status, TF_OK, "");
}

static void destroy_device(const SP_Platform* platform, SP_Device* device)
{
    (void)platform;
    destroy_dmltf_device(device->device_handle);
    device->device_handle = NULL;
}

static int32_t get_numa_node(const SP_Device* device)
{
    (void)device;
    return -1;
}

static int64_t get_memory_bandwidth(const SP_Device* device)
{
    (void)device;
    return 0;
}

static double get_gflops(const SP_Device* device)
{
    (void)device;
    return 0;
}

static void create_device_fns(const SP_Platform* platform, SE_CreateDeviceFnsParams* params, TF_Status* status)
{
    (void)platform;
    params->device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
    params->device_fns->get_numa_node = get_numa_node;
    params->device_fns->get_memory_bandwidth = get_memory_bandwidth;
    params->device_fns->get_gflops = get_gflops;
    TF_SetStatus(status, TF_OK, "");
}

static void destroy_device_fns(const SP_Platform* platform, SP_DeviceFns* fns)
{
    (void)platform;
    (void)fns;
}

static void destroy_stream_executor(const SP_Platform* platform, SP_StreamExecutor* executor)
{
    (void)platform;
    (void)executor;
}

static void destroy_timer_fns(const SP_Platform* platform, SP_TimerFns* fns)
{
    (void)platform;
    (void)fns;
}

static void destroy_platform(SP_Platform* platform)
{
    (void)platform;
}

static void destroy_platform_fns(SP_PlatformFns* fns)
{
    (void)fns;
}

static void create_stream_executor(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
    TF_Status* status)
{
    (void)platform;
    dmltf_fill_stream_executor(params->stream_executor);
    TF_SetStatus(status, TF_OK, "");
}

static void create_timer_fns(const SP_Platform* platform, SP_TimerFns* fns, TF_Status* status)
{
    (void)platform;
    dmltf_fill_timer_fns(fns);
    TF_SetStatus(status, TF_OK, "");
}

__attribute__((visibility("default"))) void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status)
{
    /* TensorFlow aborts the process when a plugin returns an error here, so
     * a runtime without adapters registers a platform with no devices and
     * says why: TensorFlow goes on with its own. */
    char why[512];
    if (!dmltf_runtime_load(why, sizeof why) || !choose_adapters(why, sizeof why)) {
        g_adapter_count = 0;
        fprintf(stderr, "DML plugin (libdml_tensorflow.so): no DML device: %s\n", why);
    }
    params->major_version = SE_MAJOR;
    params->minor_version = SE_MINOR;
    params->patch_version = SE_PATCH;

    SP_Platform* platform = params->platform;
    platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
    platform->name = "DML";
    platform->type = DMLTF_DEVICE_TYPE;
    platform->supports_unified_memory = 0;
    /* TensorFlow's BFC allocator sub-allocates our buffers; growth on demand,
     * since the CPU backend's "device memory" is all of the host's RAM. */
    platform->use_bfc_allocator = 1;
    platform->force_memory_growth = 1;

    SP_PlatformFns* fns = params->platform_fns;
    fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
    fns->get_device_count = get_device_count;
    fns->create_device = create_device;
    fns->destroy_device = destroy_device;
    fns->create_device_fns = create_device_fns;
    fns->destroy_device_fns = destroy_device_fns;
    fns->create_stream_executor = create_stream_executor;
    fns->destroy_stream_executor = destroy_stream_executor;
    fns->create_timer_fns = create_timer_fns;
    fns->destroy_timer_fns = destroy_timer_fns;
    params->destroy_platform = destroy_platform;
    params->destroy_platform_fns = destroy_platform_fns;
    TF_SetStatus(status, TF_OK, "");
}
