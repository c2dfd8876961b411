/*
 * gpu_present.c — exit status 0 when libdml_cuda.so (argv[1]) finds a usable
 * GPU, else 77 (CTest's SKIP_RETURN_CODE) after printing why: the skip
 * message of every GPU-only test (gpu_only.sh).
 */
#include <dlfcn.h>
#include <dml/dml_plugin.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s libdml_cuda.so\n", argv[0]);
        return 2;
    }
    void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!plugin) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
        return 2;
    }
    PFN_dmlPluginGetTable get = (PFN_dmlPluginGetTable)dlsym(plugin, DML_PLUGIN_ENTRY_POINT);
    const DMLPluginTable* table = get ? get(DML_PLUGIN_ABI_VERSION, NULL) : NULL;
    if (!table) {
        fprintf(stderr, "%s is not a plugin of ABI version %u\n", argv[1], DML_PLUGIN_ABI_VERSION);
        return 2;
    }
    DML_PLUGIN_PROBE probe;
    if (table->Probe(&probe) < 0 || !probe.Available) {
        printf("SKIPPED: needs a CUDA GPU: %s\n", probe.Reason[0] ? probe.Reason : "the cuda plugin is unavailable");
        return 77;
    }
    printf("CUDA plugin available: %u GPU(s)\n", probe.AdapterCount);
    return 0;
}
