/*
 * dml_tf.h — the TensorFlow PluggableDevice plugin's internal interface.
 *
 * TensorFlow loads libdml_tensorflow.so from site-packages/tensorflow-plugins
 * (or TF_PLUGGABLE_DEVICE_LIBRARY_PATH) and calls SE_InitPlugin (plugin.c: the
 * platform, one device per runtime adapter, stream_executor.c: memory,
 * streams, copies) and TF_InitKernel (kernels.c: every kernel file's
 * registration). The plugin uses the runtime's public API only (dml.h):
 *   - device memory is runtime buffers (dmlDeviceCreateBuffer); a TensorFlow
 *     pointer is found again in the allocation map (memory.c), which gives
 *     the buffer and the offset to bind;
 *   - a TensorFlow stream is a runtime command queue (a CUDA stream on the
 *     CUDA backend); events and host callbacks synchronise the queue;
 *   - a kernel compiles its operator once per shape/type/attribute set in
 *     the device's bounded cache (op_cache.c) and records it on the op's
 *     stream.
 */
#ifndef DML_TF_H
#define DML_TF_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dml/dml.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

/* The device type TensorFlow shows ("/device:DML:0"); TensorFlow's CUDA
 * devices are "GPU", so both can live in one process. */
#define DMLTF_DEVICE_TYPE "DML"
#define DMLTF_MAX_RANK DML_TENSOR_DIMENSION_COUNT_MAX1
#define DMLTF_TF_MAX_RANK 254 /* TensorFlow's own limit (TensorShape) */

typedef struct dmltf_allocation {
    uintptr_t base;
    uint64_t size;
    DMLBuffer buffer;
} dmltf_allocation;

typedef struct dmltf_cache dmltf_cache; /* op_cache.c */

/* One TensorFlow device: one runtime device on one adapter. */
typedef struct dmltf_device {
    DMLDevice device;
    DML_ADAPTER_INFO adapter;
    /* Serialises the runtime's one-thread-at-a-time objects (recorder,
     * binding tables, the cache) across TensorFlow's inter-op threads. */
    pthread_mutex_t lock;
    DMLCommandRecorder recorder;
    DMLCommandQueue copy_queue; /* for the synchronous copies, which have no stream */
    dmltf_cache* cache;
    struct SP_Stream_st* streams; /* every live stream (a list), guarded by lock */
    /* Sorted by base, guarded by map_lock. */
    pthread_rwlock_t map_lock;
    dmltf_allocation* allocations;
    size_t allocation_count, allocation_capacity;
    uint64_t bytes_in_use;
    char description[DML_ADAPTER_DESCRIPTION_SIZE + 32];
} dmltf_device;

struct SP_Stream_st {
    dmltf_device* device;
    DMLCommandQueue queue;
    struct SP_Stream_st* next;
};

/* ---- runtime.c: the runtime, loaded with dlopen ----
 * The plugin does not link libdml.so.1: TensorFlow fails its own import when
 * a plugin in tensorflow-plugins/ cannot be loaded, so a missing runtime must
 * be a message and no device (SE_InitPlugin), not a load failure. Every call
 * below goes through this table (the names are macros for its members). */
#define DMLTF_RUNTIME_FUNCTIONS(X) \
    X(dmlEnumerateAdapters) \
    X(dmlCreateDevice) \
    X(dmlRelease) \
    X(dmlGetLastErrorMessage) \
    X(dmlDeviceGetDeviceRemovedReason) \
    X(dmlDeviceCreateCommandRecorder) \
    X(dmlDeviceCreateCommandQueue) \
    X(dmlCommandQueueSynchronize) \
    X(dmlCommandQueueWriteBuffer) \
    X(dmlCommandQueueReadBuffer) \
    X(dmlDeviceCreateBuffer) \
    X(dmlBufferGetNativePointer) \
    X(dmlDeviceCreateOperator) \
    X(dmlDeviceCompileOperator) \
    X(dmlDispatchableGetBindingProperties) \
    X(dmlDeviceCreateBindingTable) \
    X(dmlBindingTableReset) \
    X(dmlBindingTableBindInputs) \
    X(dmlBindingTableBindOutputs) \
    X(dmlBindingTableBindTemporaryResource) \
    X(dmlCommandRecorderRecordDispatch) \
    X(DMLCalcBufferTensorSize)

typedef struct dmltf_runtime {
#define DMLTF_RUNTIME_MEMBER(name) __typeof__(&name) p_##name;
    DMLTF_RUNTIME_FUNCTIONS(DMLTF_RUNTIME_MEMBER)
#undef DMLTF_RUNTIME_MEMBER
} dmltf_runtime;

extern dmltf_runtime dmltf_rt;
/* Loads libdml.so.1 (through the plugin's RUNPATH) and every function; a
 * message in why when it cannot. */
bool dmltf_runtime_load(char* why, size_t why_size);

#ifndef DMLTF_RUNTIME_LOADER
#define dmlEnumerateAdapters (dmltf_rt.p_dmlEnumerateAdapters)
#define dmlCreateDevice (dmltf_rt.p_dmlCreateDevice)
#define dmlRelease (dmltf_rt.p_dmlRelease)
#define dmlGetLastErrorMessage (dmltf_rt.p_dmlGetLastErrorMessage)
#define dmlDeviceGetDeviceRemovedReason (dmltf_rt.p_dmlDeviceGetDeviceRemovedReason)
#define dmlDeviceCreateCommandRecorder (dmltf_rt.p_dmlDeviceCreateCommandRecorder)
#define dmlDeviceCreateCommandQueue (dmltf_rt.p_dmlDeviceCreateCommandQueue)
#define dmlCommandQueueSynchronize (dmltf_rt.p_dmlCommandQueueSynchronize)
#define dmlCommandQueueWriteBuffer (dmltf_rt.p_dmlCommandQueueWriteBuffer)
#define dmlCommandQueueReadBuffer (dmltf_rt.p_dmlCommandQueueReadBuffer)
#define dmlDeviceCreateBuffer (dmltf_rt.p_dmlDeviceCreateBuffer)
#define dmlBufferGetNativePointer (dmltf_rt.p_dmlBufferGetNativePointer)
#define dmlDeviceCreateOperator (dmltf_rt.p_dmlDeviceCreateOperator)
#define dmlDeviceCompileOperator (dmltf_rt.p_dmlDeviceCompileOperator)
#define dmlDispatchableGetBindingProperties (dmltf_rt.p_dmlDispatchableGetBindingProperties)
#define dmlDeviceCreateBindingTable (dmltf_rt.p_dmlDeviceCreateBindingTable)
#define dmlBindingTableReset (dmltf_rt.p_dmlBindingTableReset)
#define dmlBindingTableBindInputs (dmltf_rt.p_dmlBindingTableBindInputs)
#define dmlBindingTableBindOutputs (dmltf_rt.p_dmlBindingTableBindOutputs)
#define dmlBindingTableBindTemporaryResource (dmltf_rt.p_dmlBindingTableBindTemporaryResource)
#define dmlCommandRecorderRecordDispatch (dmltf_rt.p_dmlCommandRecorderRecordDispatch)
#define DMLCalcBufferTensorSize (dmltf_rt.p_DMLCalcBufferTensorSize)
#endif

/* ---- stream_executor.c ---- */
void dmltf_fill_stream_executor(SP_StreamExecutor* se);
void dmltf_fill_timer_fns(SP_TimerFns* fns);

/* ---- plugin.c ---- */
/* A TF_Status from a failed runtime call: code, "what: runtime message". */
void dmltf_status_from_result(TF_Status* status, DML_RESULT result, const char* what);

/* ---- memory.c ---- */
DML_RESULT dmltf_memory_allocate(dmltf_device* d, uint64_t size, void** pointer);
void dmltf_memory_free(dmltf_device* d, void* pointer);
/* The buffer holding [pointer, pointer + size) and pointer's offset in it;
 * false when no allocation of this device holds the whole range. */
bool dmltf_memory_find(dmltf_device* d, const void* pointer, uint64_t size, DMLBuffer* buffer, uint64_t* offset);
void dmltf_memory_destroy(dmltf_device* d);
/* Copies in stream order on queue; each returns when the copy is complete. */
void dmltf_copy_to_device(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* src, uint64_t size,
    TF_Status* status);
void dmltf_copy_to_host(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* src, uint64_t size,
    TF_Status* status);
void dmltf_copy_on_device(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* src, uint64_t size,
    TF_Status* status);
void dmltf_fill_pattern(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* pattern, size_t pattern_size,
    uint64_t size, TF_Status* status);

/* ---- op_cache.c ---- */
/* What one dispatch binds: a device pointer and the bytes its tensor spans. */
typedef struct dmltf_binding {
    const void* data;
    uint64_t size;
} dmltf_binding;

/* Builds the operator for a cache miss from the kernel's key struct. */
typedef DML_RESULT (*dmltf_create_op_fn)(DMLDevice device, const void* key, DMLOperator* op);

dmltf_cache* dmltf_cache_create(void);
void dmltf_cache_destroy(dmltf_cache* cache);
/* Finds or compiles the operator for key (key_size bytes, compared bytewise:
 * zero the key struct before filling it; its first bytes should name the
 * kernel), binds inputs and outputs (each 16-byte aligned) and records it on
 * queue. A runtime failure becomes status. */
void dmltf_dispatch(dmltf_device* d, DMLCommandQueue queue, const void* key, size_t key_size, dmltf_create_op_fn create,
    const dmltf_binding* inputs, uint32_t input_count, const dmltf_binding* outputs, uint32_t output_count,
    TF_Status* status);

/* ---- kernels.c: helpers shared by the kernel files ---- */
/* A packed tensor as the runtime sees it: rank 1..8 (a scalar is {1}). */
typedef struct dmltf_shape {
    uint32_t rank;
    uint32_t sizes[DMLTF_MAX_RANK];
} dmltf_shape;

/* The runtime type moving a TensorFlow type's bits unchanged (UINT8..UINT64
 * by size), or UNKNOWN. */
DML_TENSOR_DATA_TYPE dmltf_bits_type(TF_DataType type);
/* The runtime type with the same values (bool and bfloat16 have none). */
DML_TENSOR_DATA_TYPE dmltf_value_type(TF_DataType type);
/* Every TensorFlow type a data-movement kernel registers (no strings,
 * complex, resources, variants, quantized or float8 types). */
extern const TF_DataType dmltf_movement_types[];
extern const size_t dmltf_movement_type_count;

/* tensor's dims as int64 (rank <= DMLTF_MAX_RANK, else InvalidArgument). */
bool dmltf_tensor_dims(TF_OpKernelContext* ctx, const TF_Tensor* tensor, const char* what, int64_t* dims,
    int* rank);
/* dims (each < 2^32) as a runtime shape; rank 0 becomes {1}. */
bool dmltf_shape_from_dims(TF_OpKernelContext* ctx, const int64_t* dims, int rank, dmltf_shape* shape);
/* Reads a host-memory int32/int64 tensor as int64 values (at most max). */
bool dmltf_read_host_ints(TF_OpKernelContext* ctx, const TF_Tensor* tensor, const char* what, int64_t* values,
    int64_t max, int64_t* count);
/* The product of dims; -1 where a dimension is negative or the product
 * passes INT64_MAX (0 wins: any zero dimension makes it 0). */
int64_t dmltf_element_count(const int64_t* dims, int rank);
/* Fails the kernel with code and a printf message. */
void dmltf_fail(TF_OpKernelContext* ctx, TF_Code code, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
/* TF_GetInput with the failure reported; NULL on failure. */
TF_Tensor* dmltf_input(TF_OpKernelContext* ctx, int index);
/* TF_AllocateOutput with the failure reported; NULL on failure. */
TF_Tensor* dmltf_output(TF_OpKernelContext* ctx, int index, TF_DataType type, const int64_t* dims, int rank);
/* A buffer tensor desc over shape (strides NULL: packed). */
void dmltf_tensor_desc(DML_BUFFER_TENSOR_DESC* buffer, DML_TENSOR_DESC* tensor, DML_TENSOR_DATA_TYPE type,
    const dmltf_shape* shape, const uint32_t* strides);
/* Registers kernel op_name for every type of types under attribute
 * type_attr, with the host-memory arguments host_args (NULL-terminated). */
void dmltf_register(const char* op_name, void* (*create)(TF_OpKernelConstruction*),
    void (*compute)(void*, TF_OpKernelContext*), void (*destroy)(void*), const char* type_attr,
    const TF_DataType* types, size_t type_count, const char* const* host_args);

/* A device temporary of `count` elements of `type`, uninitialised; NULL
 * after reporting the failure to ctx. */
TF_Tensor* dmltf_device_temp(TF_OpKernelContext* ctx, TF_DataType type, int64_t count);

/* A device temporary of `count` elements of `type` holding the host bytes
 * (indices, lengths, values a kernel computed on the host), copied on ctx's
 * stream; NULL after reporting the failure to ctx. */
TF_Tensor* dmltf_upload(TF_OpKernelContext* ctx, TF_DataType type, int64_t count, const void* bytes);

/* Kernel states (create/destroy of dmltf_register): none, or the kernel's
 * int64 attribute "axis" (Pack, Unpack, OneHot). */
typedef struct dmltf_axis_kernel {
    int64_t axis;
} dmltf_axis_kernel;
void* dmltf_no_state(TF_OpKernelConstruction* ctx);
void* dmltf_axis_state(TF_OpKernelConstruction* ctx);
void dmltf_free_state(void* kernel); /* either of them (free(NULL) does nothing) */

/* Records and dispatches: the stream of ctx, status to ctx on failure. */
void dmltf_run(TF_OpKernelContext* ctx, const void* key, size_t key_size, dmltf_create_op_fn create,
    const dmltf_binding* inputs, uint32_t input_count, const dmltf_binding* outputs, uint32_t output_count);

/* Kernel families (one file each). */
void dmltf_register_shape_kernels(void);    /* kernels_shape.c */
void dmltf_register_slice_kernels(void);    /* kernels_slice.c */
void dmltf_register_sequence_kernels(void); /* kernels_sequence.c */
void dmltf_register_join_kernels(void);     /* kernels_join.c */
void dmltf_register_gather_kernels(void);   /* kernels_gather.c */
void dmltf_register_broadcast_kernels(void); /* kernels_broadcast.c */
void dmltf_register_split_kernels(void);    /* kernels_split.c */
void dmltf_register_space_kernels(void);    /* kernels_space.c */
void dmltf_register_convert_kernels(void);  /* kernels_convert.c */
void dmltf_register_scatter_kernels(void);  /* kernels_scatter.c */

#endif /* DML_TF_H */
