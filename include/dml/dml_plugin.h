/*
 * dml_plugin.h — the interface between the dispatcher (libdml.so) and the
 * backend plugins (libdml_<backend>.so).
 *
 * A plugin exports one symbol, dmlPluginGetTable, returning a versioned,
 * append-only table of function pointers. Every object a plugin hands out
 * begins with a DMLObjectHeader whose first member points at that table (as in
 * the Khronos ICD loader), so the dispatcher forwards each call in one line
 * after checking the handle, without wrapping objects.
 *
 * Rules for changing this file: entries are only ever appended to
 * DMLPluginTable; StructSize tells the dispatcher how many a plugin has. Each
 * append bumps dml.h's DML_ABI_VERSION_MINOR and records the new count as
 * DML_PLUGIN_TABLE_ENTRIES_<major>_<minor> below (a static assert checks).
 * Changing or removing an entry bumps DML_PLUGIN_ABI_VERSION, and the
 * dispatcher skips plugins of another version.
 */
#ifndef DML_DML_PLUGIN_H
#define DML_DML_PLUGIN_H

#include "dml.h"

#ifdef __cplusplus
extern "C" {
#endif

/* History: 1 the first table; 2 DML_DEVICE_DESC and DML_ADAPTER_INFO begin
 * with Size (dml.h, "Growable structs"), so a plugin built before would
 * misread them. */
#define DML_PLUGIN_ABI_VERSION 2u
#define DML_PLUGIN_ENTRY_POINT "dmlPluginGetTable"
#define DML_OBJECT_MAGIC 0x4F4C4D44u /* "DMLO" */
#define DML_OBJECT_MAGIC_RELEASED 0x524C4D44u /* "DMLR": see DMLReleasedObject */
#define DML_OBJECT_NAME_SIZE 64

typedef enum DML_OBJECT_TYPE {
    DML_OBJECT_TYPE_DEVICE = 1,
    DML_OBJECT_TYPE_OPERATOR = 2,
    DML_OBJECT_TYPE_COMPILED_OPERATOR = 3,
    DML_OBJECT_TYPE_OPERATOR_INITIALIZER = 4,
    DML_OBJECT_TYPE_BINDING_TABLE = 5,
    DML_OBJECT_TYPE_COMMAND_RECORDER = 6,
    DML_OBJECT_TYPE_COMMAND_QUEUE = 7,
    DML_OBJECT_TYPE_BUFFER = 8,
} DML_OBJECT_TYPE;

struct DMLPluginTable;

/* The first bytes of every object. Magic is DML_OBJECT_MAGIC while the host
 * may use the object and is cleared when it is destroyed. */
typedef struct DMLObjectHeader {
    const struct DMLPluginTable* Dispatch;
    uint32_t Magic;
    uint32_t Type; /* DML_OBJECT_TYPE */
} DMLObjectHeader;

/* A plugin may keep the memory of an object the host has released (a debug
 * device's quarantine) so that later uses of the stale handle can be reported.
 * Such an object begins with this: Magic DML_OBJECT_MAGIC_RELEASED, Type kept,
 * then the name it had (NUL-terminated). */
typedef struct DMLReleasedObject {
    DMLObjectHeader Header;
    char Name[DML_OBJECT_NAME_SIZE];
} DMLReleasedObject;

/* What a plugin's probe found. Probing is cheap and never crashes when the
 * hardware or its driver is missing. */
typedef struct DML_PLUGIN_PROBE {
    BOOL Available;
    UINT AdapterCount;
    INT Score; /* higher is preferred: a GPU backend scores above the CPU */
    char Reason[DML_PLUGIN_REASON_SIZE]; /* why unavailable, else "" */
} DML_PLUGIN_PROBE;

/* Services the dispatcher lends to plugins, so that every library in the
 * process shares one thread-local error message and one message callback. */
typedef struct DMLHostServices {
    uint32_t StructSize;
    void (*SetLastError)(const char* message);
    void (*EmitMessage)(DML_MESSAGE_SEVERITY severity, const char* message);
} DMLHostServices;

typedef struct DMLPluginTable {
    uint32_t AbiVersion; /* DML_PLUGIN_ABI_VERSION the plugin was built with */
    uint32_t StructSize; /* sizeof(DMLPluginTable) the plugin was built with */
    const char* Backend; /* "cpu", "cuda", ... */

    DML_RESULT (*Probe)(DML_PLUGIN_PROBE* probe);
    /* The growable structs follow dml.h's Size rules here too: the dispatcher
     * sets info->Size to its sizeof(DML_ADAPTER_INFO) and passes the host's
     * desc (already checked) as it is, so either side may be the newer. */
    DML_RESULT (*GetAdapterInfo)(uint32_t adapterIndex, DML_ADAPTER_INFO* info);
    DML_RESULT (*CreateDevice)(const DML_DEVICE_DESC* desc, DMLDevice* device);

    uint32_t (*AddRef)(void* object);
    uint32_t (*Release)(void* object);
    DML_RESULT (*SetName)(void* object, const char* name);

    DML_RESULT (*DeviceGetDeviceRemovedReason)(DMLDevice device);
    DML_RESULT (*DeviceCheckFeatureSupport)(DMLDevice device, DML_FEATURE feature, uint32_t querySize,
        const void* query, uint32_t supportSize, void* support);
    DML_RESULT (*DeviceCreateOperator)(DMLDevice device, const DML_OPERATOR_DESC* desc, DMLOperator* op);
    DML_RESULT (*DeviceCompileOperator)(DMLDevice device, DMLOperator op, DML_EXECUTION_FLAGS flags,
        DMLCompiledOperator* compiled);
    DML_RESULT (*DeviceCreateOperatorInitializer)(DMLDevice device, uint32_t count,
        const DMLCompiledOperator* ops, DMLOperatorInitializer* initializer);
    DML_BINDING_PROPERTIES (*DispatchableGetBindingProperties)(DMLDispatchable dispatchable);
    DML_RESULT (*DeviceCreateBindingTable)(DMLDevice device, const DML_BINDING_TABLE_DESC* desc,
        DMLBindingTable* table);
    DML_RESULT (*BindingTableBindInputs)(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings);
    DML_RESULT (*BindingTableBindOutputs)(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings);
    DML_RESULT (*BindingTableBindTemporaryResource)(DMLBindingTable table, const DML_BINDING_DESC* binding);
    DML_RESULT (*BindingTableBindPersistentResource)(DMLBindingTable table, const DML_BINDING_DESC* binding);
    DML_RESULT (*BindingTableReset)(DMLBindingTable table, const DML_BINDING_TABLE_DESC* desc);
    DML_RESULT (*DeviceCreateCommandRecorder)(DMLDevice device, DMLCommandRecorder* recorder);
    DML_RESULT (*DeviceCreateCommandQueue)(DMLDevice device, void* nativeQueue, DMLCommandQueue* queue);
    DML_RESULT (*CommandRecorderRecordDispatch)(DMLCommandRecorder recorder, DMLCommandQueue queue,
        DMLDispatchable dispatchable, DMLBindingTable bindings);
    DML_RESULT (*CommandQueueSynchronize)(DMLCommandQueue queue);
    DML_RESULT (*DeviceCreateBuffer)(DMLDevice device, uint64_t sizeInBytes, DMLBuffer* buffer);
    DML_RESULT (*DeviceWrapBuffer)(DMLDevice device, void* nativePointer, uint64_t sizeInBytes, DMLBuffer* buffer);
    void* (*BufferGetNativePointer)(DMLBuffer buffer);
    DML_RESULT (*CommandQueueWriteBuffer)(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset,
        const void* source, uint64_t size);
    DML_RESULT (*CommandQueueReadBuffer)(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset,
        void* destination, uint64_t size);
    /* Appended in ABI version 1 (the dispatcher checks StructSize before use). */
    DML_RESULT (*DeviceGetAdapterInfo)(DMLDevice device, DML_ADAPTER_INFO* info);
    /* Appended since (each used only when StructSize covers it). */
    DML_RESULT (*DeviceCompileGraph)(DMLDevice device, const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
        DMLCompiledOperator* compiled);
    DML_RESULT (*DeviceSetThreadLimit)(DMLDevice device, uint32_t maxThreads, uint32_t* threadsInUse);
    /* Append only. */
} DMLPluginTable;

#define DML_PLUGIN_TABLE_ENTRY_OFFSET(index) (2 * sizeof(uint32_t) + sizeof(const char*) + (index) * sizeof(void (*)(void)))

/* The smallest table the dispatcher accepts: the entries of the first release.
 * Entries appended since are used only when StructSize covers them. */
#define DML_PLUGIN_TABLE_MIN_SIZE DML_PLUGIN_TABLE_ENTRY_OFFSET(27)

#ifdef __cplusplus
#define DML_PLUGIN_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define DML_PLUGIN_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* The layout is part of the ABI: guard it. */
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLPluginTable, Probe) == DML_PLUGIN_TABLE_ENTRY_OFFSET(0), "plugin table layout");
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLPluginTable, AddRef) == DML_PLUGIN_TABLE_ENTRY_OFFSET(3), "plugin table layout");
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLPluginTable, DeviceCreateOperator) == DML_PLUGIN_TABLE_ENTRY_OFFSET(8), "plugin table layout");
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLPluginTable, CommandRecorderRecordDispatch) == DML_PLUGIN_TABLE_ENTRY_OFFSET(20), "plugin table layout");
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLPluginTable, CommandQueueReadBuffer) == DML_PLUGIN_TABLE_ENTRY_OFFSET(26), "plugin table layout");
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLPluginTable, DeviceGetAdapterInfo) == DML_PLUGIN_TABLE_ENTRY_OFFSET(27), "plugin table layout");
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLPluginTable, DeviceCompileGraph) == DML_PLUGIN_TABLE_ENTRY_OFFSET(28), "plugin table layout");
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLPluginTable, DeviceSetThreadLimit) == DML_PLUGIN_TABLE_ENTRY_OFFSET(29), "plugin table layout");

/* The table's entry count in each ABI version (dml.h's DML_ABI_VERSION_MAJOR
 * and _MINOR): an appended entry comes with a minor bump and a line here, and
 * a minor bump without one does not compile. */
#define DML_PLUGIN_TABLE_ENTRIES_1_0 30
#define DML_PLUGIN_TABLE_ENTRIES_1_1 30 /* dmlGetVersion is the dispatcher's own */
#define DML_PLUGIN_TABLE_ENTRIES_OF_(major, minor) DML_PLUGIN_TABLE_ENTRIES_##major##_##minor
#define DML_PLUGIN_TABLE_ENTRIES_OF(major, minor) DML_PLUGIN_TABLE_ENTRIES_OF_(major, minor)
#define DML_PLUGIN_TABLE_ENTRIES DML_PLUGIN_TABLE_ENTRIES_OF(DML_ABI_VERSION_MAJOR, DML_ABI_VERSION_MINOR)
DML_PLUGIN_STATIC_ASSERT(sizeof(DMLPluginTable) == DML_PLUGIN_TABLE_ENTRY_OFFSET(DML_PLUGIN_TABLE_ENTRIES),
    "DMLPluginTable has another entry count than DML_PLUGIN_TABLE_ENTRIES_<major>_<minor> records for this "
    "DML_ABI_VERSION: an appended entry bumps DML_ABI_VERSION_MINOR (dml.h) and records its count here");
DML_PLUGIN_STATIC_ASSERT(offsetof(DMLObjectHeader, Dispatch) == 0, "dispatch pointer first");

/* The one exported symbol of a plugin. Returns NULL when the plugin cannot
 * serve abiVersion. host stays valid for the life of the process. */
typedef const DMLPluginTable* (*PFN_dmlPluginGetTable)(uint32_t abiVersion, const DMLHostServices* host);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DML_DML_PLUGIN_H */
