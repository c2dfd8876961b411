/* emu_plugin.c — the one symbol libdml_cudaemu.so exports. */
#include "cuda_backend.h"

__attribute__((visibility("default"))) const DMLPluginTable* dmlPluginGetTable(uint32_t abiVersion,
    const DMLHostServices* host);

__attribute__((visibility("default"))) const DMLPluginTable* dmlPluginGetTable(uint32_t abiVersion,
    const DMLHostServices* host)
{
    return dml_core_plugin_table(&dml_cudaemu_backend, abiVersion, host);
}
