/*
 * objects.h — the object model shared by every plugin: what each handle
 * points at. Every object starts with DMLObjectHeader (dispatch table first),
 * then a reference count and the device it keeps alive.
 */
#ifndef DML_CORE_OBJECTS_H
#define DML_CORE_OBJECTS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "backend.h"
#include "error.h"
#include "operator.h"
#include "plan.h"

#define DML_REMOVED_REASON_SIZE 256

typedef struct dml_device dml_device;

/* Two counts: refs (every reference, the host's and other objects'; the
 * object is destroyed at 0) and host_refs (the host's, dmlAddRef/dmlRelease;
 * at 0 the host's handle is stale even while other objects still hold it).
 * On a debug device a stale handle is marked in its header
 * (DML_OBJECT_MAGIC_RELEASED) and a destroyed object is quarantined: its
 * memory is poisoned past the name and kept until the device is destroyed, so
 * that every use of a stale handle is reported (dml_invalid_handle). */
typedef struct dml_object {
    DMLObjectHeader header;
    char name[DML_OBJECT_NAME_SIZE]; /* where DMLReleasedObject has it; written under name_lock */
    atomic_flag name_lock;           /* dmlSetName may run while other threads format the name */
    atomic_uint refs;
    atomic_uint host_refs;
    dml_device* device;                /* held reference; NULL for the device itself */
    struct dml_object* next_released; /* the device's quarantine list, once destroyed */
} dml_object;

struct dml_device {
    dml_object base;
    const dml_backend* backend;
    void* state;
    uint32_t adapter_index;
    bool debug;
    atomic_int removed; /* 0 alive; 1 being removed; 2 removed, removed_reason set */
    char removed_reason[DML_REMOVED_REASON_SIZE];
    _Atomic(dml_object*) quarantine; /* debug: destroyed objects, freed with the device */
};

typedef struct dml_operator {
    dml_object base;
    dml_op_desc desc;
} dml_operator;

#define DML_NOT_OWNED UINT64_MAX

/* Where one pointer of a step comes from at dispatch. */
typedef enum dml_source_kind {
    DML_SOURCE_NONE = 0,      /* not used by the plan */
    DML_SOURCE_INPUT = 1,     /* input `index` (its copy in the persistent resource when owned) */
    DML_SOURCE_OUTPUT = 2,    /* output `index` */
    DML_SOURCE_TEMPORARY = 3, /* the temporary resource, `offset` bytes in */
} dml_source_kind;

typedef struct dml_source {
    uint32_t kind; /* dml_source_kind */
    uint32_t index;
    uint64_t offset;
} dml_source;

/* One plan of a compiled operator and where its pointers come from. */
typedef struct dml_step {
    dml_plan plan;
    void* backend_state; /* the backend's compile of the plan, or NULL */
    dml_source input, lengths, output;
} dml_step;

/* A compiled operator or a compiled graph: binding slots (what each input and
 * output must hold) and steps run in order. Backends see only the plans. */
typedef struct dml_compiled {
    dml_object base;
    dml_operator* op; /* held reference; NULL for a compiled graph */
    uint32_t input_count, output_count;
    const dml_tensor* inputs;  /* per input slot; all zero for an unused graph input */
    const dml_tensor* outputs; /* per output slot */
    uint64_t* owned_offsets;   /* per input: in the persistent resource, or DML_NOT_OWNED */
    uint32_t step_count;
    dml_step* steps;
    uint64_t persistent_size;
    uint64_t temporary_size;
    /* A single operator's storage; a graph allocates its arrays in `graph`. */
    dml_step single_step;
    uint64_t single_owned[DML_OP_MAX_INPUTS];
    void* graph;
} dml_compiled;

/* "SLICE1", "graph", ... for messages. */
const char* dml_compiled_kind(const dml_compiled* compiled);
/* Releases what a compiled operator holds (objects.c calls it on destroy). */
void dml_compiled_destroy(dml_compiled* compiled);
/* Runs the backend's compile hook on every step; DML_S_OK when it has none. */
DML_RESULT dml_compiled_compile_steps(dml_device* device, dml_compiled* compiled);

typedef struct dml_initializer {
    dml_object base;
    uint32_t count;
    dml_compiled** ops; /* held references */
} dml_initializer;

typedef struct dml_buffer {
    dml_object base;
    void* memory;
    uint64_t size;
    bool wrapped; /* host-owned memory: never freed here */
} dml_buffer;

typedef struct dml_queue {
    dml_object base;
    void* state;
} dml_queue;

typedef struct dml_recorder {
    dml_object base;
} dml_recorder;

typedef struct dml_binding {
    dml_buffer* buffer; /* held reference; NULL when unbound */
    uint64_t offset;
    uint64_t size;
} dml_binding;

typedef struct dml_binding_table {
    dml_object base;
    dml_object* dispatchable; /* held reference: a dml_compiled or dml_initializer */
    uint32_t input_count;     /* initializer: every op's inputs, op after op */
    uint32_t output_count;
    dml_binding* inputs;
    dml_binding* outputs;
    dml_binding persistent;
    dml_binding temporary;
} dml_binding_table;

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
void dml_object_init(dml_object* object, DML_OBJECT_TYPE type, dml_device* device);
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
void dml_binding_table_destroy(dml_binding_table* table);

/* The start of a bound range in device memory. */
static inline unsigned char* dml_binding_pointer(const dml_binding* binding)
{
    return (unsigned char*)binding->buffer->memory + binding->offset;
}

#endif /* DML_CORE_OBJECTS_H */
