/*
 * test_cuda_plugin_load.c — libdml_cuda.so loads and probes cleanly whether
 * or not the machine has a CUDA driver and GPU, and the dispatcher treats it
 * accordingly: unavailable with the CUDA error as the reason (the CPU is
 * selected, forcing "cuda" gives DML_E_UNSUPPORTED with that reason), or
 * available and preferred.
 *
 * What to expect is decided independently of the plugin: the driver API
 * (libcuda.so.1, opened here with dlopen) is asked for its device count.
 *
 * Discovery happens once per process: Check runs each case in a forked child
 * (forced below), which makes its first dml call itself.
 */
#include <check.h>
#include <dlfcn.h>
#include <dml/dml_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DML_CUDA_PLUGIN
#error "DML_CUDA_PLUGIN (the path of libdml_cuda.so) must be defined"
#endif

/* Devices the driver sees: -1 without a driver (no libcuda.so.1, or cuInit
 * fails), else cuDeviceGetCount's count. */
static int driver_device_count(void)
{
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda)
        return -1;
    typedef int (*init_fn)(unsigned);
    typedef int (*count_fn)(int*);
    init_fn cu_init = (init_fn)dlsym(cuda, "cuInit");
    count_fn cu_count = (count_fn)dlsym(cuda, "cuDeviceGetCount");
    int count = -1;
    if (cu_init && cu_count) {
        int r = cu_init(0);
        if (r == 0) {
            if (cu_count(&count) != 0)
                count = -1;
        } else if (r == 100) { /* CUDA_ERROR_NO_DEVICE */
            count = 0;
        }
    }
    /* libcuda is not unloaded: it does not support it well. */
    return count;
}

static void isolate(void)
{
    unsetenv("DML_BACKEND");
    unsetenv("DML_PLUGIN_PATH");
}

START_TEST(plugin_probes_without_crashing)
{
    isolate();
    void* plugin = dlopen(DML_CUDA_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(plugin != NULL, "dlopen(%s): %s", DML_CUDA_PLUGIN, dlerror());
    PFN_dmlPluginGetTable get = (PFN_dmlPluginGetTable)dlsym(plugin, DML_PLUGIN_ENTRY_POINT);
    ck_assert_msg(get != NULL, "no %s in the plugin", DML_PLUGIN_ENTRY_POINT);
    ck_assert_ptr_null(get(DML_PLUGIN_ABI_VERSION + 1, NULL)); /* another ABI: refused */
    const DMLPluginTable* table = get(DML_PLUGIN_ABI_VERSION, NULL);
    ck_assert_ptr_nonnull(table);
    ck_assert_uint_eq(table->AbiVersion, DML_PLUGIN_ABI_VERSION);
    ck_assert_str_eq(table->Backend, "cuda");

    DML_PLUGIN_PROBE probe;
    memset(&probe, 0x5A, sizeof probe);
    ck_assert_int_eq(table->Probe(&probe), DML_S_OK);
    ck_assert_msg(memchr(probe.Reason, '\0', sizeof probe.Reason) != NULL, "Reason not terminated");
    ck_assert_int_eq(probe.Score, 1000);
    int devices = driver_device_count();
    printf("driver devices: %d; probe: Available %d, AdapterCount %u, Reason \"%s\"\n", devices, probe.Available,
        probe.AdapterCount, probe.Reason);
    if (devices > 0) {
        ck_assert_int_eq(probe.Available, 1);
        ck_assert_uint_eq(probe.AdapterCount, (unsigned)devices);
        ck_assert_str_eq(probe.Reason, "");
        DML_ADAPTER_INFO info = { .Size = sizeof info };
        ck_assert_int_eq(table->GetAdapterInfo(0, &info), DML_S_OK);
        ck_assert_str_eq(info.Backend, "cuda");
        ck_assert_ptr_nonnull(strstr(info.Description, "compute capability"));
        ck_assert_int_eq(info.IsSoftware, 0);
        ck_assert_int_eq(info.MaxFeatureLevel, DML_FEATURE_LEVEL_5_0);
        ck_assert_uint_gt(info.MemorySizeInBytes, 0);
        ck_assert_int_lt(table->GetAdapterInfo((uint32_t)devices, &info), 0);
    } else {
        ck_assert_int_eq(probe.Available, 0);
        ck_assert_uint_eq(probe.AdapterCount, 0);
        ck_assert_msg(probe.Reason[0] != '\0', "unavailable without a reason");
        if (devices < 0)
            ck_assert_msg(strstr(probe.Reason, "no CUDA driver") || strstr(probe.Reason, "CUDA"),
                "reason \"%s\" does not name the missing driver", probe.Reason);
        else
            ck_assert_msg(strstr(probe.Reason, "no CUDA-capable device"), "reason \"%s\"", probe.Reason);
        /* a second probe says the same, and still does not crash */
        DML_PLUGIN_PROBE again;
        ck_assert_int_eq(table->Probe(&again), DML_S_OK);
        ck_assert_str_eq(again.Reason, probe.Reason);
    }
    dlclose(plugin);
}
END_TEST

static DML_PLUGIN_INFO cuda_plugin_info(void)
{
    uint32_t count = 0;
    ck_assert_int_eq(dmlEnumeratePlugins(&count, NULL), DML_S_OK);
    DML_PLUGIN_INFO* all = calloc(count + 1, sizeof *all);
    ck_assert_ptr_nonnull(all);
    for (uint32_t i = 0; i <= count; i++)
        all[i].Size = sizeof all[i];
    ck_assert_int_eq(dmlEnumeratePlugins(&count, all), DML_S_OK);
    DML_PLUGIN_INFO found;
    memset(&found, 0, sizeof found);
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(all[i].Backend, "cuda") == 0)
            found = all[i];
    free(all);
    ck_assert_msg(found.Backend[0], "dmlEnumeratePlugins does not list a \"cuda\" plugin");
    return found;
}

static const char* backend_of(void* object)
{
    return ((DMLObjectHeader*)object)->Dispatch->Backend;
}

START_TEST(dispatcher_lists_and_selects)
{
    isolate();
    DML_PLUGIN_INFO info = cuda_plugin_info();
    ck_assert_int_eq(info.Loaded, 1);
    ck_assert_int_eq(info.Score, 1000);
    int devices = driver_device_count();
    DMLDevice device = NULL;
    DML_DEVICE_DESC best = { sizeof(DML_DEVICE_DESC), NULL, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DML_DEVICE_DESC cuda = { sizeof(DML_DEVICE_DESC), "cuda", 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    if (devices > 0) {
        ck_assert_int_eq(info.Available, 1);
        ck_assert_int_eq(dmlCreateDevice(&best, &device), DML_S_OK);
        ck_assert_str_eq(backend_of(device), "cuda"); /* the GPU over the CPU */
        dmlRelease(device);
        ck_assert_int_eq(dmlCreateDevice(&cuda, &device), DML_S_OK);
        dmlRelease(device);
        return;
    }
    ck_assert_int_eq(info.Available, 0);
    ck_assert_msg(info.Reason[0], "the cuda plugin is unavailable without a reason");
    printf("cuda plugin: %s\n", info.Reason);

    ck_assert_int_eq(dmlCreateDevice(&best, &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "cpu");
    dmlRelease(device);

    device = NULL;
    ck_assert_int_eq(dmlCreateDevice(&cuda, &device), DML_E_UNSUPPORTED);
    ck_assert_ptr_null(device);
    const char* message = dmlGetLastErrorMessage();
    ck_assert_msg(strstr(message, info.Reason) != NULL, "message \"%s\" does not give the reason \"%s\"", message,
        info.Reason);

    /* no cuda adapter is enumerated */
    uint32_t count = 0;
    ck_assert_int_eq(dmlEnumerateAdapters(&count, NULL), DML_S_OK);
    DML_ADAPTER_INFO* adapters = calloc(count + 1, sizeof *adapters);
    ck_assert_ptr_nonnull(adapters);
    for (uint32_t i = 0; i <= count; i++)
        adapters[i].Size = sizeof adapters[i];
    ck_assert_int_eq(dmlEnumerateAdapters(&count, adapters), DML_S_OK);
    for (uint32_t i = 0; i < count; i++)
        ck_assert_str_ne(adapters[i].Backend, "cuda");
    free(adapters);
}
END_TEST

START_TEST(cudaemu_is_listed_but_never_preferred)
{
    isolate();
    setenv("DML_CUDAEMU_SMS", "7", 1); /* before discovery */
    uint32_t count = 0;
    ck_assert_int_eq(dmlEnumeratePlugins(&count, NULL), DML_S_OK);
    DML_PLUGIN_INFO* all = calloc(count + 1, sizeof *all);
    ck_assert_ptr_nonnull(all);
    for (uint32_t i = 0; i <= count; i++)
        all[i].Size = sizeof all[i];
    ck_assert_int_eq(dmlEnumeratePlugins(&count, all), DML_S_OK);
    int found = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(all[i].Backend, "cudaemu") != 0)
            continue;
        found = 1;
        ck_assert_int_eq(all[i].Loaded, 1);
        ck_assert_int_eq(all[i].Available, 1);
        ck_assert_int_eq(all[i].Score, 10);
    }
    free(all);
    ck_assert_msg(found, "libdml_cudaemu.so not found in the build tree's plugin directory");
    DMLDevice device = NULL;
    DML_DEVICE_DESC best = { sizeof(DML_DEVICE_DESC), NULL, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    ck_assert_int_eq(dmlCreateDevice(&best, &device), DML_S_OK);
    ck_assert_str_ne(backend_of(device), "cudaemu");
    dmlRelease(device);

    DML_DEVICE_DESC emu = { sizeof(DML_DEVICE_DESC), "cudaemu", 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    ck_assert_int_eq(dmlCreateDevice(&emu, &device), DML_S_OK);
    ck_assert_str_eq(backend_of(device), "cudaemu");
    DMLCommandQueue queue = NULL;
    int native = 0;
    ck_assert_int_eq(dmlDeviceCreateCommandQueue(device, &native, &queue), DML_E_INVALIDARG); /* no native queues */
    dmlRelease(device);
    DML_ADAPTER_INFO adapters[16];
    for (int i = 0; i < 16; i++)
        adapters[i].Size = sizeof adapters[i];
    count = 16;
    ck_assert_int_eq(dmlEnumerateAdapters(&count, adapters), DML_S_OK);
    found = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(adapters[i].Backend, "cudaemu") == 0) {
            found = 1;
            ck_assert_str_eq(adapters[i].Description, "CUDA emulator on the host (7 virtual SMs)");
            ck_assert_int_eq(adapters[i].IsSoftware, 1);
        }
    }
    ck_assert(found);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cuda_plugin_load");
    TCase* tc = tcase_create("load");
    tcase_add_test(tc, plugin_probes_without_crashing);
    tcase_add_test(tc, dispatcher_lists_and_selects);
    tcase_add_test(tc, cudaemu_is_listed_but_never_preferred);
    suite_add_tcase(s, tc);
    SRunner* runner = srunner_create(s);
    srunner_set_fork_status(runner, CK_FORK); /* one discovery per case */
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
