/*
 * dmlinfo — what the dispatcher found: every plugin file examined, the
 * adapters of the available backends, the backend a device gets by default,
 * and what that device supports. Like vulkaninfo or clinfo.
 *
 * Exit status: 0 when at least one backend is available, 1 when none is,
 * 2 when an API call fails.
 */
#include "common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE* out)
{
    fprintf(out,
        "usage: %s [--backend NAME]\n"
        "Lists the backend plugins, their adapters, and the capabilities of the\n"
        "device that dmlCreateDevice would create (or of backend NAME).\n"
        "Environment: DML_PLUGIN_PATH (extra plugin directories), DML_BACKEND.\n",
        tool_name);
}

static void print_plugins(void)
{
    uint32_t count = 0;
    tool_check(dmlEnumeratePlugins(&count, NULL), "dmlEnumeratePlugins");
    DML_PLUGIN_INFO* plugins = calloc(count ? count : 1, sizeof *plugins);
    if (!plugins)
        tool_fail("out of memory");
    tool_check(dmlEnumeratePlugins(&count, plugins), "dmlEnumeratePlugins");

    printf("Plugins (%" PRIu32 " examined):\n", count);
    for (uint32_t i = 0; i < count; i++) {
        const DML_PLUGIN_INFO* p = &plugins[i];
        printf("  %s\n", p->Path);
        printf("    backend:   %s\n", p->Backend[0] ? p->Backend : "(none)");
        printf("    loaded:    %s\n", p->Loaded ? "yes" : "no");
        if (p->Loaded) {
            printf("    available: %s\n", p->Available ? "yes" : "no");
            printf("    score:     %" PRId32 "\n", p->Score);
            printf("    adapters:  %" PRIu32 "\n", p->AdapterCount);
        }
        if (p->Reason[0])
            printf("    reason:    %s\n", p->Reason);
    }
    free(plugins);
}

static uint32_t print_adapters(void)
{
    uint32_t count = 0;
    tool_check(dmlEnumerateAdapters(&count, NULL), "dmlEnumerateAdapters");
    DML_ADAPTER_INFO* adapters = calloc(count ? count : 1, sizeof *adapters);
    if (!adapters)
        tool_fail("out of memory");
    tool_check(dmlEnumerateAdapters(&count, adapters), "dmlEnumerateAdapters");

    printf("\nAdapters (%" PRIu32 ", best backend first):\n", count);
    for (uint32_t i = 0; i < count; i++) {
        const DML_ADAPTER_INFO* a = &adapters[i];
        char level[8];
        tool_feature_level_name(a->MaxFeatureLevel, level, sizeof level);
        printf("  %s:%" PRIu32 "  %s\n", a->Backend, a->AdapterIndex, a->Description);
        printf("    memory:            %.1f MiB (%" PRIu64 " bytes)\n", (double)a->MemorySizeInBytes / (1024.0 * 1024.0),
            a->MemorySizeInBytes);
        printf("    software:          %s\n", a->IsSoftware ? "yes" : "no");
        printf("    max feature level: %s\n", level);
    }
    free(adapters);
    return count;
}

/* Informational: a failing query is printed, not fatal. */
static void print_device_capabilities(const tool_device* dev)
{
    printf("\nDevice capabilities (%s, adapter 0):\n", dev->backend);
    printf("  data types:");
    for (int i = 0; i < TOOL_DATA_TYPE_COUNT; i++) {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = { tool_data_types[i] };
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT support = { 0 };
        DML_RESULT r = dmlDeviceCheckFeatureSupport(dev->device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof query,
            &query, sizeof support, &support);
        if (DML_FAILED(r)) {
            printf(" (query failed: %s: %s)\n", tool_result_name(r), dmlGetLastErrorMessage());
            return;
        }
        printf(" %s%s", tool_data_type_name(tool_data_types[i]), support.IsSupported ? "" : "(no)");
    }
    printf("\n");

    static const DML_FEATURE_LEVEL levels[] = {
        DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
        DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
        DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
        DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4,
    };
    DML_FEATURE_QUERY_FEATURE_LEVELS query = { sizeof levels / sizeof levels[0], levels };
    DML_FEATURE_DATA_FEATURE_LEVELS support = { 0 };
    DML_RESULT r = dmlDeviceCheckFeatureSupport(dev->device, DML_FEATURE_FEATURE_LEVELS, sizeof query, &query,
        sizeof support, &support);
    if (DML_FAILED(r)) {
        printf("  max supported feature level: (query failed: %s: %s)\n", tool_result_name(r),
            dmlGetLastErrorMessage());
        return;
    }
    char level[8];
    tool_feature_level_name(support.MaxSupportedFeatureLevel, level, sizeof level);
    printf("  max supported feature level: %s\n", level);
    /* 0 only asks; backends without host threads say DML_E_NOTIMPL. */
    uint32_t threads = 0;
    if (DML_SUCCEEDED(dmlDeviceSetThreadLimit(dev->device, 0, &threads)))
        printf("  host threads per dispatch: %u (cap with DML_CPU_THREADS or dmlDeviceSetThreadLimit)\n", threads);
}

int main(int argc, char** argv)
{
    tool_name = "dmlinfo";
    const char* requested = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            requested = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return TOOL_EXIT_FAILURE;
        }
    }

    print_plugins();
    uint32_t adapters = print_adapters();

    if (adapters == 0 && !(requested && requested[0])) {
        printf("\nNo backend is available.\n");
        return 1;
    }
    tool_device dev;
    tool_device_open(&dev, requested, false);
    printf("\nSelected backend: %s (%s)\n", dev.backend, dev.why);
    printf("  adapter %u: %s\n", dev.adapter.AdapterIndex, dev.adapter.Description);
    print_device_capabilities(&dev);
    tool_device_close(&dev);
    return adapters > 0 ? 0 : 1;
}
