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
#include "ops/op.h"
#include "plan.h"

#define DML_REMOVED_REASON_SIZE 256

typedef struct dml_device dml_device;
typedef struct dml_object dml_object;

/* What the object model needs of each object type: its size (a debug
 * device's quarantine poisons all of it) and how to release what it holds.
 * Each type's file defines its class; objects.c knows none of them. */
typedef struct dml_object_class {
    DML_OBJECT_TYPE type;
    size_t size;
    void (*destroy)(dml_object* object); /* NULL: holds nothing beyond its memory */
} dml_object_class;

/* Two counts: refs (every reference, the host's and other objects'; the
 * object is destroyed at 0) and host_refs (the host's, dmlAddRef/dmlRelease;
 * at 0 the host's handle is stale even while other objects still hold it).
 * On a debug device a stale handle is marked in its header
 * (DML_OBJECT_MAGIC_RELEASED) and a destroyed object is quarantined: its
 * memory is poisoned past the name and kept until the device is destroyed, so
 * that every use of a stale handle is reported (dml_invalid_handle). */
struct dml_object {
    DMLObjectHeader header;
    char name[DML_OBJECT_NAME_SIZE]; /* where DMLReleasedObject has it; written under name_lock */
    atomic_flag name_lock;           /* dmlSetName may run while other threads format the name */
    const dml_object_class* cls;
    atomic_uint refs;
    atomic_uint host_refs;
    dml_device* device;                /* held reference; NULL for the device itself */
    struct dml_object* next_released; /* the device's quarantine list, once destroyed */
};

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
    dml_op* op; /* owned */
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
    /* Emitted for the same graph node as the previous step: the two neither
     * write the same element nor read what the other writes, so a backend
     * may run them as one unit (dml_backend.queue_execute_group). */
    bool with_previous;
    dml_source input2; /* SELECT, ONE_HOT */
    /* Emitted for the same graph node and output as the previous step, and
     * runs after it (dml_op_step.ordered; dml_backend.queue_execute_ordered_pair). */
    bool after_previous;
} dml_step;

/* A compiled operator (a one-node graph) or a compiled graph: binding slots
 * (what each input and output must hold) and steps run in order. Backends
 * see only the plans. */
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
    /* The input output 0 may be bound to exactly (same buffer range): a
     * compiled scatter whose input and output tensors have one layout
     * updates in place (dml_op_entry.in_place); -1: none. */
    int32_t in_place_input;
    void* block; /* the arrays above, one allocation */
} dml_compiled;

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

/* The start of a bound range in device memory. */
static inline unsigned char* dml_binding_pointer(const dml_binding* binding)
{
    return (unsigned char*)binding->buffer->memory + binding->offset;
}

#endif /* DML_CORE_OBJECTS_H */
