/*
 * dmlinfo — the runtime's version (dmlGetVersion), what the dispatcher found:
 * every plugin file examined, the adapters of the available backends, the
 * backend a device gets by default, and what that device supports. Like vulkaninfo or clinfo. --json prints the
 * same facts as one JSON object, for scripts (the Python package's tests,
 * CI logs).
 *
 * Exit status: 0 when at least one backend is available, 1 when none is,
 * 2 when an API call fails or the command line is wrong.
 */
#include "common.h"
#include "core/feature_levels.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE* out)
{
    fprintf(out,
        "usage: %s [--backend NAME] [--json]\n"
        "Prints the runtime's version, lists the backend plugins and their adapters,\n"
        "and the capabilities of the device that dmlCreateDevice would create (or of\n"
        "backend NAME).\n"
        "  --backend NAME  describe a device of backend NAME (cpu, cuda, ...)\n"
        "  --json          print one JSON object instead of text\n"
        "  --help          print this text\n"
        "Environment: DML_PLUGIN_PATH (extra plugin directories), DML_BACKEND.\n"
        "Exit status: 0 a backend is available, 1 none is, 2 an error or bad usage.\n",
        tool_name);
}

/* Everything dmlinfo reports, gathered before anything is printed, so the
 * text and the JSON forms say the same facts. */
typedef struct report {
    DML_VERSION_INFO version;
    DML_PLUGIN_INFO* plugins;
    uint32_t plugin_count;
    DML_ADAPTER_INFO* adapters;
    uint32_t adapter_count;
    bool have_device;
    tool_device dev;
    /* Capability queries are informational: a failure is reported, not fatal. */
    const char* types_error;
    bool type_supported[DML_DATA_TYPE_COUNT];
    const char* level_error;
    DML_FEATURE_LEVEL max_level;
    uint32_t threads; /* host threads per dispatch; 0: the backend has none to report */
} report;

static void* checked_calloc(uint32_t count, size_t size)
{
    void* p = calloc(count ? count : 1, size);
    if (!p)
        tool_fail("out of memory");
    return p;
}

static void gather_enumerations(report* r)
{
    r->version.Size = sizeof r->version;
    tool_check(dmlGetVersion(&r->version), "dmlGetVersion");
    tool_check(dmlEnumeratePlugins(&r->plugin_count, NULL), "dmlEnumeratePlugins");
    r->plugins = checked_calloc(r->plugin_count, sizeof *r->plugins);
    for (uint32_t i = 0; i < r->plugin_count; i++)
        r->plugins[i].Size = sizeof r->plugins[i];
    tool_check(dmlEnumeratePlugins(&r->plugin_count, r->plugins), "dmlEnumeratePlugins");
    tool_check(dmlEnumerateAdapters(&r->adapter_count, NULL), "dmlEnumerateAdapters");
    r->adapters = checked_calloc(r->adapter_count, sizeof *r->adapters);
    for (uint32_t i = 0; i < r->adapter_count; i++)
        r->adapters[i].Size = sizeof r->adapters[i];
    tool_check(dmlEnumerateAdapters(&r->adapter_count, r->adapters), "dmlEnumerateAdapters");
}

/* The message buffer is thread-local and overwritten by the next failure:
 * keep a copy. */
static const char* failure_text(DML_RESULT result)
{
    static char text[2][512];
    static int next;
    char* out = text[next++ & 1];
    snprintf(out, sizeof text[0], "%s: %s", dml_result_name(result), dmlGetLastErrorMessage());
    return out;
}

static void gather_capabilities(report* r)
{
    for (int i = 0; i < DML_DATA_TYPE_COUNT; i++) {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = { (DML_TENSOR_DATA_TYPE)(i + 1) };
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT support = { 0 };
        DML_RESULT result = dmlDeviceCheckFeatureSupport(r->dev.device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
            sizeof query, &query, sizeof support, &support);
        if (DML_FAILED(result)) {
            r->types_error = failure_text(result);
            break;
        }
        r->type_supported[i] = support.IsSupported != 0;
    }

    DML_FEATURE_QUERY_FEATURE_LEVELS query = { (UINT)DML_FEATURE_LEVEL_COUNT, dml_feature_levels };
    DML_FEATURE_DATA_FEATURE_LEVELS support = { 0 };
    DML_RESULT result = dmlDeviceCheckFeatureSupport(r->dev.device, DML_FEATURE_FEATURE_LEVELS, sizeof query,
        &query, sizeof support, &support);
    if (DML_FAILED(result))
        r->level_error = failure_text(result);
    else
        r->max_level = support.MaxSupportedFeatureLevel;
    /* 0 only asks; backends without host threads say DML_E_NOTIMPL. */
    if (DML_FAILED(dmlDeviceSetThreadLimit(r->dev.device, 0, &r->threads)))
        r->threads = 0;
}

/* ---- Text ------------------------------------------------------------------ */

static void print_text(const report* r)
{
    printf("Runtime %s (ABI %u.%u, plugin ABI %u)\n\n", r->version.Runtime, r->version.AbiMajor,
        r->version.AbiMinor, r->version.PluginAbiVersion);
    printf("Plugins (%" PRIu32 " examined):\n", r->plugin_count);
    for (uint32_t i = 0; i < r->plugin_count; i++) {
        const DML_PLUGIN_INFO* p = &r->plugins[i];
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

    printf("\nAdapters (%" PRIu32 ", best backend first):\n", r->adapter_count);
    for (uint32_t i = 0; i < r->adapter_count; i++) {
        const DML_ADAPTER_INFO* a = &r->adapters[i];
        char level[8];
        tool_feature_level_name(a->MaxFeatureLevel, level, sizeof level);
        printf("  %s:%" PRIu32 "  %s\n", a->Backend, a->AdapterIndex, a->Description);
        printf("    memory:            %.1f MiB (%" PRIu64 " bytes)\n",
            (double)a->MemorySizeInBytes / (1024.0 * 1024.0), a->MemorySizeInBytes);
        printf("    software:          %s\n", a->IsSoftware ? "yes" : "no");
        printf("    max feature level: %s\n", level);
    }

    if (!r->have_device) {
        printf("\nNo backend is available.\n");
        return;
    }
    printf("\nSelected backend: %s (%s)\n", r->dev.backend, r->dev.why);
    printf("  adapter %u: %s\n", r->dev.adapter.AdapterIndex, r->dev.adapter.Description);
    printf("\nDevice capabilities (%s, adapter 0):\n", r->dev.backend);
    printf("  data types:");
    if (r->types_error) {
        printf(" (query failed: %s)\n", r->types_error);
    } else {
        for (int i = 0; i < DML_DATA_TYPE_COUNT; i++)
            printf(" %s%s", dml_data_type_short_name((DML_TENSOR_DATA_TYPE)(i + 1)), r->type_supported[i] ? "" : "(no)");
        printf("\n");
    }
    if (r->level_error) {
        printf("  max supported feature level: (query failed: %s)\n", r->level_error);
    } else {
        char level[8];
        tool_feature_level_name(r->max_level, level, sizeof level);
        printf("  max supported feature level: %s\n", level);
    }
    if (r->threads)
        printf("  host threads per dispatch: %u (cap with DML_CPU_THREADS or dmlDeviceSetThreadLimit)\n", r->threads);
}

/* ---- JSON ------------------------------------------------------------------ */

/* A JSON string: quotes, backslashes and control bytes escaped; other bytes
 * (paths, adapter names) pass through unchanged. */
static void json_string(const char* s)
{
    putchar('"');
    for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void json_key_string(const char* key, const char* value, bool last)
{
    printf("\"%s\": ", key);
    json_string(value);
    printf(last ? "" : ", ");
}

static void json_level(DML_FEATURE_LEVEL value)
{
    char level[8];
    tool_feature_level_name(value, level, sizeof level);
    json_string(level);
}

static void print_json(const report* r)
{
    printf("{\n  \"version\": {");
    json_key_string("runtime", r->version.Runtime, false);
    printf("\"abi\": \"%u.%u\", \"plugin_abi\": %u},\n", r->version.AbiMajor, r->version.AbiMinor,
        r->version.PluginAbiVersion);
    printf("  \"plugins\": [");
    for (uint32_t i = 0; i < r->plugin_count; i++) {
        const DML_PLUGIN_INFO* p = &r->plugins[i];
        printf("%s\n    {", i ? "," : "");
        json_key_string("path", p->Path, false);
        json_key_string("backend", p->Backend, false);
        printf("\"loaded\": %s, \"available\": %s, \"score\": %" PRId32 ", \"adapters\": %" PRIu32 ", ",
            p->Loaded ? "true" : "false", p->Available ? "true" : "false", p->Score, p->AdapterCount);
        json_key_string("reason", p->Reason, true);
        printf("}");
    }
    printf("\n  ],\n  \"adapters\": [");
    for (uint32_t i = 0; i < r->adapter_count; i++) {
        const DML_ADAPTER_INFO* a = &r->adapters[i];
        printf("%s\n    {", i ? "," : "");
        json_key_string("backend", a->Backend, false);
        printf("\"index\": %" PRIu32 ", ", a->AdapterIndex);
        json_key_string("description", a->Description, false);
        printf("\"memory_bytes\": %" PRIu64 ", \"software\": %s, \"max_feature_level\": ", a->MemorySizeInBytes,
            a->IsSoftware ? "true" : "false");
        json_level(a->MaxFeatureLevel);
        printf("}");
    }
    printf("\n  ],\n  \"selected\": ");
    if (!r->have_device) {
        printf("null\n}\n");
        return;
    }
    printf("{\n    ");
    json_key_string("backend", r->dev.backend, false);
    json_key_string("reason", r->dev.why, false);
    printf("\"adapter\": %u, ", r->dev.adapter.AdapterIndex);
    json_key_string("description", r->dev.adapter.Description, false);
    printf("\n    \"data_types\": ");
    if (r->types_error) {
        printf("{\"error\": ");
        json_string(r->types_error);
        printf("}");
    } else {
        printf("{");
        for (int i = 0; i < DML_DATA_TYPE_COUNT; i++)
            printf("%s\"%s\": %s", i ? ", " : "", dml_data_type_short_name((DML_TENSOR_DATA_TYPE)(i + 1)),
                r->type_supported[i] ? "true" : "false");
        printf("}");
    }
    printf(",\n    \"max_feature_level\": ");
    if (r->level_error) {
        printf("{\"error\": ");
        json_string(r->level_error);
        printf("}");
    } else {
        json_level(r->max_level);
    }
    if (r->threads)
        printf(",\n    \"host_threads\": %" PRIu32, r->threads);
    printf("\n  }\n}\n");
}

int main(int argc, char** argv)
{
    tool_name = "dmlinfo";
    const char* requested = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--backend") == 0) {
            if (i + 1 >= argc)
                tool_fail("--backend needs a value (try --help)");
            requested = argv[++i];
        } else {
            tool_fail("unknown option '%s' (try --help)", argv[i]);
        }
    }

    report r = { 0 };
    gather_enumerations(&r);
    /* With no adapter at all, only a forced backend can still explain itself
     * (dmlCreateDevice says why it is unavailable). */
    if (r.adapter_count > 0 || (requested && requested[0])) {
        tool_device_open(&r.dev, requested, false);
        r.have_device = true;
        gather_capabilities(&r);
    }
    if (json)
        print_json(&r);
    else
        print_text(&r);
    if (r.have_device)
        tool_device_close(&r.dev);
    free(r.plugins);
    free(r.adapters);
    return r.adapter_count > 0 ? 0 : 1;
}
