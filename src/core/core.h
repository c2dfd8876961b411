/*
 * core.h — the core's one internal header: every function one core file
 * calls in another, grouped by the file defining it. The object model's
 * types are in objects.h, operators in ops/op.h, plans in plan.h and
 * plan_build.h; no prototype is declared inside a .c file.
 */
#ifndef DML_CORE_CORE_H
#define DML_CORE_CORE_H

#include "feature_levels.h"
#include "objects.h"

/* Execution flags this runtime knows (DirectML's three). */
#define DML_EXECUTION_FLAGS_ALL                                                                              \
    ((uint32_t)(DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DISABLE_META_COMMANDS | \
        DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE))

/* ---- objects.c: the object model ---------------------------------------- */

/* The plugin's table and backend (one per copy of the core). */
extern DMLPluginTable dml_core_table;
extern const dml_backend* dml_core_backend;

/* Whether p is an object of this plugin of the given type (0: any type) that
 * the host may use. */
bool dml_is_object(const void* p, DML_OBJECT_TYPE type);

/* DML_E_INVALIDARG for a handle that failed dml_is_object: "call: param is not
 * a valid Expected", or, for a stale handle on a debug device, "call: param is
 * a released DMLBuffer 'name' ...". device: the call's device, or NULL. */
DML_RESULT dml_invalid_handle(const dml_device* device, const char* call, const char* param, const char* expected,
    const void* p);
/* The same problem as text ("is not a valid DMLBuffer", ...) for callers with
 * their own message; returns buffer. */
#define DML_HANDLE_PROBLEM_SIZE 256
const char* dml_handle_problem(const void* p, const char* expected, char* buffer, size_t size);

/* Initialises the common part; takes a reference on device. */
void dml_object_init(dml_object* object, const dml_object_class* cls, dml_device* device);
/* A zeroed, initialised object of the class, or NULL when out of memory. */
void* dml_object_new(const dml_object_class* cls, dml_device* device);
/* A device's destroy hook frees its debug quarantine with this. */
void dml_object_free_quarantine(dml_device* device);
/* References held by the core (object to object); NULL is ignored. The host's
 * go through the plugin table's AddRef and Release. */
uint32_t dml_object_add_ref(void* object);
uint32_t dml_object_release(void* object);

/* A copy of the object's name (safe while another thread sets it). */
void dml_object_name(const dml_object* object, char name[DML_OBJECT_NAME_SIZE]);

/* Sets the error message; on a DEBUG device also emits it. Returns result. */
DML_RESULT dml_device_fail(const dml_device* device, DML_RESULT result, const char* format, ...) DML_PRINTF(3, 4);
/* For results whose message is already set (validation helpers). */
DML_RESULT dml_device_relay(const dml_device* device, DML_RESULT result);
/* DML_E_DEVICE_REMOVED with its reason when the device was removed, else DML_S_OK. */
DML_RESULT dml_device_check(const dml_device* device, const char* call);
/* Marks the device removed after a backend reported DML_E_DEVICE_REMOVED. */
DML_RESULT dml_device_remove(dml_device* device, DML_RESULT result);

/* " 'name'" when the object has a name, else "": for messages. buffer:
 * at least DML_OBJECT_NAME_SIZE + 3 bytes. */
const char* dml_object_label(const dml_object* object, char* buffer, size_t size);

/* Binding tables (binding.c). */
DML_RESULT dml_binding_table_create(DMLDevice device, const DML_BINDING_TABLE_DESC* desc, DMLBindingTable* table);
DML_RESULT dml_binding_table_bind_inputs(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings);
DML_RESULT dml_binding_table_bind_outputs(DMLBindingTable table, uint32_t count, const DML_BINDING_DESC* bindings);
DML_RESULT dml_binding_table_bind_temporary(DMLBindingTable table, const DML_BINDING_DESC* binding);
DML_RESULT dml_binding_table_bind_persistent(DMLBindingTable table, const DML_BINDING_DESC* binding);
DML_RESULT dml_binding_table_reset(DMLBindingTable table, const DML_BINDING_TABLE_DESC* desc);
extern const dml_object_class dml_binding_table_class;


/* The device behind a handle: DML_E_INVALIDARG for anything but a device
 * (naming a released one), DML_E_DEVICE_REMOVED for a removed one. */
DML_RESULT dml_device_open(DMLDevice handle, const char* call, dml_device** device);

/* The host's references and names (the plugin table's AddRef, Release, SetName). */
uint32_t dml_host_add_ref(void* object);
uint32_t dml_host_release(void* object);
DML_RESULT dml_set_name(void* object, const char* name);

/* ---- device.c: devices and what they create ------------------------------ */

DML_RESULT dml_create_device(const DML_DEVICE_DESC* desc, DMLDevice* device);
DML_RESULT dml_device_get_removed_reason(DMLDevice device);
DML_RESULT dml_device_get_adapter_info(DMLDevice device, DML_ADAPTER_INFO* info);
/* The plugin table's GetAdapterInfo: the backend's, by dml.h's Size rules. */
DML_RESULT dml_plugin_get_adapter_info(uint32_t adapter_index, DML_ADAPTER_INFO* info);
DML_RESULT dml_device_set_thread_limit(DMLDevice device, uint32_t max_threads, uint32_t* threads_in_use);
DML_RESULT dml_device_check_feature_support(DMLDevice device, DML_FEATURE feature, uint32_t query_size,
    const void* query, uint32_t support_size, void* support);
DML_RESULT dml_create_operator(DMLDevice device, const DML_OPERATOR_DESC* desc, DMLOperator* op);
DML_RESULT dml_compile_operator(DMLDevice device, DMLOperator op, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* compiled);
DML_RESULT dml_create_operator_initializer(DMLDevice device, uint32_t count, const DMLCompiledOperator* ops,
    DMLOperatorInitializer* initializer);
DML_RESULT dml_create_buffer(DMLDevice device, uint64_t size, DMLBuffer* buffer);
DML_RESULT dml_wrap_buffer(DMLDevice device, void* memory, uint64_t size, DMLBuffer* buffer);
void* dml_buffer_native_pointer(DMLBuffer buffer);
DML_RESULT dml_create_command_queue(DMLDevice device, void* native, DMLCommandQueue* queue);
DML_RESULT dml_create_command_recorder(DMLDevice device, DMLCommandRecorder* recorder);

/* ---- graph.c: compiling graphs, and single operators as one-node graphs --- */

DML_RESULT dml_compile_graph(DMLDevice device, const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
    DMLCompiledOperator* compiled);
/* CompileOperator's path: op as the one node of a graph whose inputs and
 * outputs are op's, in order. The compiled operator holds a reference on op. */
DML_RESULT dml_compile_single(dml_device* device, dml_operator* op, const char* call, dml_compiled** compiled);

/* ---- compiled.c ---------------------------------------------------------- */

extern const dml_object_class dml_compiled_class;
/* "SLICE1", "graph", ... for messages. */
const char* dml_compiled_kind(const dml_compiled* compiled);
/* Checks the backend executes every step's plan kind (DML_E_NOTIMPL naming
 * it), then runs the backend's compile hook on every step. */
DML_RESULT dml_compiled_compile_steps(dml_device* device, dml_compiled* compiled, const char* call);

/* ---- dispatch.c: recording and queues ------------------------------------ */

DML_BINDING_PROPERTIES dml_dispatchable_binding_properties(DMLDispatchable dispatchable);
DML_RESULT dml_record_dispatch(DMLCommandRecorder recorder, DMLCommandQueue queue, DMLDispatchable dispatchable,
    DMLBindingTable bindings);
DML_RESULT dml_queue_synchronize(DMLCommandQueue queue);
DML_RESULT dml_queue_write_buffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset, const void* source,
    uint64_t size);
DML_RESULT dml_queue_read_buffer(DMLCommandQueue queue, DMLBuffer buffer, uint64_t offset, void* destination,
    uint64_t size);

#endif /* DML_CORE_CORE_H */
