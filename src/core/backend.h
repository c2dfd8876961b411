/*
 * backend.h — what a backend implements. The shared core (validation, plans,
 * the object model, bindings) is linked into every plugin and calls a backend
 * only for memory, queues and plan execution; backends never see descs.
 *
 * Every function that fails sets the error message with dml_set_error()
 * (core/error.h) before returning its code. A backend returns
 * DML_E_DEVICE_REMOVED for an unrecoverable error; the core then marks the
 * device removed and every later call on it fails with that code.
 */
#ifndef DML_CORE_BACKEND_H
#define DML_CORE_BACKEND_H

#include <dml/dml_plugin.h>

#include "plan.h"

typedef enum dml_copy_kind {
    DML_COPY_HOST_TO_DEVICE = 0,   /* complete when the call returns */
    DML_COPY_DEVICE_TO_HOST = 1,   /* complete when the call returns */
    DML_COPY_DEVICE_TO_DEVICE = 2, /* ordered on the queue, may still run when it returns */
} dml_copy_kind;

/* The most plans one queue_execute_group call takes. */
#define DML_BACKEND_GROUP_MAX 64u

typedef struct dml_backend {
    const char* name; /* "cpu", "cuda" */
    /* The plan kinds queue_execute runs (DML_PLAN_KIND_BIT of each): the
     * core refuses, with DML_E_NOTIMPL, to compile anything needing others. */
    uint32_t plan_kinds;

    DML_RESULT (*probe)(DML_PLUGIN_PROBE* probe);
    DML_RESULT (*get_adapter_info)(uint32_t adapter_index, DML_ADAPTER_INFO* info);

    /* Backend state of one device; opaque to the core. */
    DML_RESULT (*device_create)(uint32_t adapter_index, void** device_state);
    void (*device_destroy)(void* device_state);

    /* Device memory, aligned to at least 256 bytes. */
    DML_RESULT (*buffer_alloc)(void* device_state, uint64_t size, void** memory);
    void (*buffer_free)(void* device_state, void* memory);
    /* Optional: whether host-owned memory may be wrapped as a buffer of this
     * device (the CUDA backend: device or managed memory of its GPU). NULL:
     * any 16-byte-aligned pointer. */
    DML_RESULT (*buffer_check_wrap)(void* device_state, const void* memory, uint64_t size);

    /* native: NULL for a queue the backend owns, else the host's (a cudaStream_t). */
    DML_RESULT (*queue_create)(void* device_state, void* native, void** queue_state);
    void (*queue_destroy)(void* queue_state);
    DML_RESULT (*queue_copy)(void* queue_state, void* destination, const void* source, uint64_t size,
        dml_copy_kind kind);
    DML_RESULT (*queue_synchronize)(void* queue_state);

    /* Optional: the backend's own once-per-operator work on a plan (the CUDA
     * launch: mode, geometry, divisors), done by CompileOperator and kept
     * with the compiled operator. NULL entries: no such state. */
    DML_RESULT (*compile)(void* device_state, const dml_plan* plan, void** compiled_state);
    void (*compiled_destroy)(void* compiled_state);

    /* Enqueue one plan (compiled_state: what compile made, or NULL). No
     * allocation, no synchronisation on this path. */
    DML_RESULT (*queue_execute)(void* queue_state, const dml_plan* plan, const void* compiled_state,
        const dml_plan_args* args);

    /* Optional (NULL: queue_execute each): enqueues count >= 2 plans that
     * may run concurrently, as one unit of work (the CPU: one parallel
     * region; JOIN's and SPLIT's parts). They write disjoint elements and
     * none reads what another writes. The core passes at most
     * DML_BACKEND_GROUP_MAX at a time. Same rules as queue_execute. */
    DML_RESULT (*queue_execute_group)(void* queue_state, const dml_plan* const* plans,
        const void* const* compiled_states, const dml_plan_args* args, uint32_t count);

    /* Optional (NULL: queue_execute each): enqueues two plans of one
     * operator that run in this order, the second after the first has
     * finished (dml_op_step.ordered: a scatter's copy of its input to its
     * output, then its updates), so that a backend may do both in one pass
     * over the output. Same rules as queue_execute. */
    DML_RESULT (*queue_execute_ordered_pair)(void* queue_state, const dml_plan* const* plans,
        const void* const* compiled_states, const dml_plan_args* args);

    /* Optional (NULL: the backend uses no host threads for dispatches, the
     * call gives DML_E_NOTIMPL): caps the threads one device's dispatches
     * use, the caller included; max_threads 0 changes nothing. Stores the
     * count now in use in *threads_in_use (never NULL). */
    DML_RESULT (*set_thread_limit)(void* device_state, uint32_t max_threads, uint32_t* threads_in_use);
} dml_backend;

/* Implemented by the core: the plugin table for a backend. Each plugin's
 * dmlPluginGetTable returns this. */
const DMLPluginTable* dml_core_plugin_table(const dml_backend* backend, uint32_t abi_version,
    const DMLHostServices* host);

#endif /* DML_CORE_BACKEND_H */
