/*
 * version.c — dmlGetVersion: the release and ABI version of this libdml.so,
 * asked at run time (as ONNX Runtime's OrtGetApiBase()->GetVersionString),
 * for hosts that load the runtime with dlopen or ctypes and so get no
 * symbol-version check from the loader.
 */
#include "dispatcher.h"

#include <stdio.h>
#include <string.h>

#include "core/struct_size.h"

/* Set by src/dispatcher/CMakeLists.txt from the project's version. */
#if !defined(DMLD_RUNTIME_VERSION_MAJOR) || !defined(DMLD_RUNTIME_VERSION_MINOR) || \
    !defined(DMLD_RUNTIME_VERSION_PATCH)
#error "DMLD_RUNTIME_VERSION_MAJOR/MINOR/PATCH must be defined by the build"
#endif

DML_API DML_RESULT dmlGetVersion(DML_VERSION_INFO* info)
{
    if (!info)
        return dmld_error(DML_E_INVALIDARG, "dmlGetVersion: info is NULL");
    char problem[512];
    if (dml_struct_size_problem(info->Size, DML_VERSION_INFO_LAYOUT, "info->", problem, sizeof problem))
        return dmld_error(DML_E_INVALIDARG, "dmlGetVersion: %s", problem);
    DML_VERSION_INFO version;
    memset(&version, 0, sizeof version);
    version.AbiMajor = DML_ABI_VERSION_MAJOR;
    version.AbiMinor = DML_ABI_VERSION_MINOR;
    version.PluginAbiVersion = DML_PLUGIN_ABI_VERSION;
    version.RuntimeMajor = DMLD_RUNTIME_VERSION_MAJOR;
    version.RuntimeMinor = DMLD_RUNTIME_VERSION_MINOR;
    version.RuntimePatch = DMLD_RUNTIME_VERSION_PATCH;
    snprintf(version.Runtime, sizeof version.Runtime, "%u.%u.%u", (unsigned)DMLD_RUNTIME_VERSION_MAJOR,
        (unsigned)DMLD_RUNTIME_VERSION_MINOR, (unsigned)DMLD_RUNTIME_VERSION_PATCH);
    dml_struct_write(info, &version, DML_VERSION_INFO_LAYOUT);
    return DML_S_OK;
}
