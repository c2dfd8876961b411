/* cpu_plugin.c — the one symbol libdml_cpu.so exports. */
#include "cpu_backend.h"

__attribute__((visibility("default"))) const DMLPluginTable* dmlPluginGetTable(uint32_t abiVersion,
    const DMLHostServices* host);

__attribute__((visibility("default"))) const DMLPluginTable* dmlPluginGetTable(uint32_t abiVersion,
    const DMLHostServices* host)
{
    return dml_core_plugin_table(&dml_cpu_backend, abiVersion, host);
}
