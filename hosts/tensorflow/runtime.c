/*
 * runtime.c — libdml.so.1, opened at run time (dml_tf.h says why).
 */
#define DMLTF_RUNTIME_LOADER
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dml_tf.h"

dmltf_runtime dmltf_rt;

bool dmltf_runtime_load(char* why, size_t why_size)
{
    static void* library;
    if (library)
        return true;
    /* dlopen searches this plugin's RUNPATH: $ORIGIN/../dml/lib (the dml
     * wheel), $ORIGIN/.. (the build tree), then the system's paths. */
    void* handle = dlopen("libdml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(why, why_size, "cannot load the runtime: %s (install the dml wheel: pip install ./python)", dlerror());
        return false;
    }
    dmltf_runtime table;
    memset(&table, 0, sizeof table);
#define DMLTF_RUNTIME_RESOLVE(name)                                                              \
    if (!(*(void**)&table.p_##name = dlsym(handle, #name))) {                                    \
        snprintf(why, why_size, "the runtime libdml.so.1 lacks %s: too old for this plugin", #name); \
        dlclose(handle);                                                                         \
        return false;                                                                            \
    }
    DMLTF_RUNTIME_FUNCTIONS(DMLTF_RUNTIME_RESOLVE)
#undef DMLTF_RUNTIME_RESOLVE
    dmltf_rt = table;
    library = handle;
    return true;
}
