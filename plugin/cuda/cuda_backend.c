/*
 * cuda_backend.c — the CUDA backend the shared core drives (core/backend.h):
 * device memory from cudaMalloc, queues that are CUDA streams (the plugin's
 * own, or the host's), and plans executed by the gather kernels
 * (cuda/launch.c decides the launch, cuda/kernels.cu enqueues it).
 *
 * cudart is linked statically and opens the driver lazily, so every entry
 * point copes with a machine without a driver or a GPU: probe reports the
 * CUDA error as the reason, and nothing else is reachable without a device.
 *
 * Calls may come from any host thread, and the current device is per thread:
 * every call that touches a device makes it current for the call's duration
 * and then gives the thread back the context it had (device_scope below), so
 * a host's own CUDA work never finds itself on another GPU. No lock is
 * needed: the runtime is thread-safe, and device and queue state are
 * immutable after creation.
 *
 * Memory: buffers come from the device's stream-ordered pool (cudaMallocAsync
 * on the device's own stream) and are zeroed on that stream, so creating and
 * releasing a buffer never waits for, or serialises with, any other stream of
 * the process. As in DirectML, the host keeps a buffer alive until the work
 * that uses it has completed; releasing it earlier is undefined.
 */
#include "cuda_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* driver types only: the driver is reached through cudart */
#include <cuda_runtime_api.h>
#include <pthread.h>

#include "core/error.h"
#include "group_kernel.h"
#include "kernels.h"
#include "launch.h"

/* ---- errors ------------------------------------------------------------- */

/* Errors after which the context is unusable (the CUDA documentation's
 * "sticky" errors, plus losing the driver or the device): the process must
 * tear the context down, so the device is reported removed. */
static int is_sticky(cudaError_t error)
{
    switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContained:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorExternalDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorCudartUnloading:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorUnknown:
        return 1;
    default:
        return 0;
    }
}

static int is_capture_error(cudaError_t error)
{
    switch (error) {
    case cudaErrorStreamCaptureUnsupported:
    case cudaErrorStreamCaptureInvalidated:
    case cudaErrorStreamCaptureMerge:
    case cudaErrorStreamCaptureUnmatched:
    case cudaErrorStreamCaptureUnjoined:
    case cudaErrorStreamCaptureIsolation:
    case cudaErrorStreamCaptureImplicit:
    case cudaErrorCapturedEvent:
    case cudaErrorStreamCaptureWrongThread:
        return 1;
    default:
        return 0;
    }
}

/*
 * Turns a failed CUDA call into a DML result and message. Out of memory is
 * DML_E_OUTOFMEMORY; an error the runtime cannot clear (a sticky one, or one
 * that cudaGetLastError leaves behind) removes the device; a stream-capture
 * violation is a call in the wrong state; anything else is an invalid
 * argument. The non-sticky error is cleared so it does not resurface later.
 */
static DML_RESULT cuda_fail(cudaError_t error, const char* what)
{
    const char* name = cudaGetErrorName(error);
    const char* text = cudaGetErrorString(error);
    (void)cudaGetLastError(); /* clears it unless it is sticky */
    if (error == cudaErrorMemoryAllocation)
        return dml_set_error(DML_E_OUTOFMEMORY, "cuda: %s: out of device memory (%s: %s)", what, name, text);
    if (is_sticky(error) || cudaPeekAtLastError() != cudaSuccess)
        return dml_set_error(DML_E_DEVICE_REMOVED, "cuda: %s: %s: %s", what, name, text);
    if (is_capture_error(error))
        return dml_set_error(DML_E_INVALID_CALL, "cuda: %s: not allowed in the stream's capture state: %s: %s", what,
            name, text);
    return dml_set_error(DML_E_INVALIDARG, "cuda: %s: %s: %s", what, name, text);
}

#define CUDA_TRY(call, what)                    \
    do {                                        \
        cudaError_t cuda_error_ = (call);       \
        if (cuda_error_ != cudaSuccess)         \
            return cuda_fail(cuda_error_, what); \
    } while (0)

/* ---- adapters ----------------------------------------------------------- */

static DML_RESULT cuda_probe(DML_PLUGIN_PROBE* probe)
{
    memset(probe, 0, sizeof(*probe));
    probe->Score = 1000; /* above the CPU's 100 */
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        const char* what = error == cudaErrorInsufficientDriver ? "no CUDA driver"
            : error == cudaErrorNoDevice                        ? "no CUDA-capable device"
                                                                : "CUDA is unavailable";
        snprintf(probe->Reason, sizeof(probe->Reason), "%s: %s: %s", what, cudaGetErrorName(error),
            cudaGetErrorString(error));
        (void)cudaGetLastError();
        return DML_S_OK;
    }
    if (count <= 0) {
        snprintf(probe->Reason, sizeof(probe->Reason), "no CUDA-capable device");
        return DML_S_OK;
    }
    probe->Available = 1;
    probe->AdapterCount = (UINT)count;
    return DML_S_OK;
}

static DML_RESULT check_adapter(uint32_t adapter_index)
{
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        (void)cudaGetLastError();
        return dml_set_error(DML_E_UNSUPPORTED, "cuda: no usable CUDA device: %s: %s", cudaGetErrorName(error),
            cudaGetErrorString(error));
    }
    if (adapter_index >= (uint32_t)count)
        return dml_set_error(DML_E_INVALIDARG, "cuda: AdapterIndex %u is out of range (%d CUDA device%s)",
            adapter_index, count, count == 1 ? "" : "s");
    return DML_S_OK;
}

static DML_RESULT cuda_get_adapter_info(uint32_t adapter_index, DML_ADAPTER_INFO* info)
{
    DML_RESULT r = check_adapter(adapter_index);
    if (r < 0)
        return r;
    struct cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, (int)adapter_index), "cudaGetDeviceProperties");
    memset(info, 0, sizeof(*info));
    snprintf(info->Backend, sizeof(info->Backend), "cuda");
    info->AdapterIndex = adapter_index;
    snprintf(info->Description, sizeof(info->Description), "%.200s (compute capability %d.%d, %d SMs)", prop.name,
        prop.major, prop.minor, prop.multiProcessorCount);
    info->MemorySizeInBytes = (UINT64)prop.totalGlobalMem;
    info->IsSoftware = 0;
    info->MaxFeatureLevel = DML_FEATURE_LEVEL_5_0;
    return DML_S_OK;
}

/* ---- the current device -------------------------------------------------- */

/* The thread's current context is read and restored through the driver
 * (cuCtxGetCurrent/cuCtxSetCurrent, reached through cudart's entry-point
 * query, so the plugin still does not link libcuda): a thread that had no
 * context gets none back, instead of GPU 0's primary context. */
typedef CUresult (*ctx_get_fn)(CUcontext* context);
typedef CUresult (*ctx_set_fn)(CUcontext context);
static ctx_get_fn ctx_get;
static ctx_set_fn ctx_set;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

static void load_ctx_entry_points(void)
{
    void* get = NULL;
    void* set = NULL;
    enum cudaDriverEntryPointQueryResult found_get, found_set;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get, 4000, cudaEnableDefault, &found_get) == cudaSuccess &&
        cudaGetDriverEntryPointByVersion("cuCtxSetCurrent", &set, 4000, cudaEnableDefault, &found_set) == cudaSuccess &&
        found_get == cudaDriverEntryPointSuccess && found_set == cudaDriverEntryPointSuccess) {
        ctx_get = (ctx_get_fn)get;
        ctx_set = (ctx_set_fn)set;
    }
    (void)cudaGetLastError();
}

typedef struct cuda_device {
    int index;            /* CUDA device ordinal */
    dml_cuda_limits limits; /* SMs and shared memory: size the grids and tiles (cuda/launch.c) */
    CUcontext context;    /* the device's primary context */
    cudaStream_t stream;  /* the device's own: zeroing and freeing buffers */
    int pooled;           /* stream-ordered allocation is supported */
} cuda_device;

/* What the calling thread had current before a call, given back after it. */
typedef struct device_scope {
    CUcontext saved;
    int switched;
} device_scope;

static DML_RESULT enter_device(const cuda_device* device, device_scope* scope)
{
    scope->saved = NULL;
    scope->switched = 0;
    if (ctx_get(&scope->saved) != CUDA_SUCCESS)
        return dml_set_error(DML_E_DEVICE_REMOVED, "cuda: cuCtxGetCurrent failed");
    if (scope->saved == device->context)
        return DML_S_OK;
    CUDA_TRY(cudaSetDevice(device->index), "cudaSetDevice");
    scope->switched = 1;
    return DML_S_OK;
}

static void leave_device(const device_scope* scope)
{
    if (scope->switched)
        (void)ctx_set(scope->saved);
}

/* ---- devices ------------------------------------------------------------ */

static DML_RESULT create_current(cuda_device* device)
{
    int sms = 0, pools = 0, per_sm = 0, per_block = 0, reserved = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device->index),
        "cudaDeviceGetAttribute(MultiProcessorCount)");
    CUDA_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device->index),
        "cudaDeviceGetAttribute(MaxSharedMemoryPerMultiprocessor)");
    CUDA_TRY(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, device->index),
        "cudaDeviceGetAttribute(MaxSharedMemoryPerBlock)");
    CUDA_TRY(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device->index),
        "cudaDeviceGetAttribute(ReservedSharedMemoryPerBlock)");
    CUDA_TRY(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device->index),
        "cudaDeviceGetAttribute(MemoryPoolsSupported)");
    if (ctx_get(&device->context) != CUDA_SUCCESS || !device->context)
        return dml_set_error(DML_E_UNSUPPORTED, "cuda: no context on device %d after cudaSetDevice", device->index);
    CUDA_TRY(cudaStreamCreateWithFlags(&device->stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    device->limits.sm_count = sms > 0 ? (uint32_t)sms : 1;
    device->limits.shared_per_sm = per_sm > 0 ? (uint32_t)per_sm : 0; /* the launcher raises what is too low */
    device->limits.shared_per_block = per_block > 0 ? (uint32_t)per_block : 0;
    device->limits.shared_reserved_per_block = reserved > 0 ? (uint32_t)reserved : 0;
    device->pooled = pools != 0;
    return DML_S_OK;
}

static DML_RESULT cuda_device_create(uint32_t adapter_index, void** device_state)
{
    DML_RESULT r = check_adapter(adapter_index);
    if (r < 0)
        return r;
    pthread_once(&ctx_once, load_ctx_entry_points);
    if (!ctx_get || !ctx_set)
        return dml_set_error(DML_E_UNSUPPORTED, "cuda: the driver does not provide cuCtxGetCurrent/cuCtxSetCurrent");
    cuda_device* device = calloc(1, sizeof(*device));
    if (!device)
        return dml_set_error(DML_E_OUTOFMEMORY, "cuda: out of memory creating a device");
    device->index = (int)adapter_index;
    CUcontext saved = NULL;
    if (ctx_get(&saved) != CUDA_SUCCESS) {
        free(device);
        return dml_set_error(DML_E_DEVICE_REMOVED, "cuda: cuCtxGetCurrent failed");
    }
    cudaError_t error = cudaSetDevice(device->index);
    r = error == cudaSuccess ? create_current(device) : cuda_fail(error, "cudaSetDevice");
    (void)ctx_set(saved);
    if (r < 0) {
        free(device);
        return r;
    }
    *device_state = device;
    return DML_S_OK;
}

static void cuda_device_destroy(void* device_state)
{
    cuda_device* device = device_state;
    device_scope scope;
    if (enter_device(device, &scope) >= 0) {
        /* Frees still in flight on the device's stream complete first. */
        if (cudaStreamSynchronize(device->stream) != cudaSuccess || cudaStreamDestroy(device->stream) != cudaSuccess)
            (void)cudaGetLastError();
        leave_device(&scope);
    }
    free(device);
}

/* ---- memory ------------------------------------------------------------- */

/* Device memory is aligned to at least 256 bytes. Buffers start zeroed, as
 * D3D12 committed resources (and the CPU backend's buffers) do: the memset
 * runs on the device's own stream and only that stream is waited for. */
static DML_RESULT alloc_current(cuda_device* device, uint64_t size, void** memory)
{
    size_t bytes = (size_t)(size ? size : 1);
    void* pointer = NULL;
    cudaError_t error = device->pooled ? cudaMallocAsync(&pointer, bytes, device->stream) : cudaMalloc(&pointer, bytes);
    if (error == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return dml_set_error(DML_E_OUTOFMEMORY,
            "cuda: out of device memory allocating a buffer of %llu bytes (%s: %s)", (unsigned long long)size,
            cudaGetErrorName(error), cudaGetErrorString(error));
    }
    if (error != cudaSuccess)
        return cuda_fail(error, device->pooled ? "cudaMallocAsync" : "cudaMalloc");
    error = cudaMemsetAsync(pointer, 0, bytes, device->stream);
    if (error == cudaSuccess)
        error = cudaStreamSynchronize(device->stream);
    if (error != cudaSuccess) {
        DML_RESULT r = cuda_fail(error, "cudaMemsetAsync");
        if (device->pooled ? cudaFreeAsync(pointer, device->stream) : cudaFree(pointer))
            (void)cudaGetLastError();
        return r;
    }
    *memory = pointer;
    return DML_S_OK;
}

static DML_RESULT cuda_buffer_alloc(void* device_state, uint64_t size, void** memory)
{
    cuda_device* device = device_state;
    if (size > SIZE_MAX)
        return dml_set_error(DML_E_OUTOFMEMORY, "cuda: a buffer of %llu bytes exceeds the address space",
            (unsigned long long)size);
    device_scope scope;
    DML_RESULT r = enter_device(device, &scope);
    if (r < 0)
        return r;
    r = alloc_current(device, size, memory);
    leave_device(&scope);
    return r;
}

/* Stream-ordered on the device's stream: returns at once and blocks no other
 * stream (the host has let the work using the buffer finish: the rule above).
 * Without memory pools, cudaFree waits for the whole device. Its error, if
 * any (a removed device), was reported by the call that caused it. */
static void cuda_buffer_free(void* device_state, void* memory)
{
    cuda_device* device = device_state;
    device_scope scope;
    if (!memory || enter_device(device, &scope) < 0)
        return;
    if ((device->pooled ? cudaFreeAsync(memory, device->stream) : cudaFree(memory)) != cudaSuccess)
        (void)cudaGetLastError();
    leave_device(&scope);
}

/* dmlDeviceWrapBuffer: device memory of this device, or managed memory. */
static DML_RESULT cuda_buffer_check_wrap(void* device_state, const void* memory, uint64_t size)
{
    (void)size; /* cudart cannot tell an allocation's extent: the host vouches for it */
    cuda_device* device = device_state;
    device_scope scope;
    DML_RESULT r = enter_device(device, &scope);
    if (r < 0)
        return r;
    struct cudaPointerAttributes attributes;
    cudaError_t error = cudaPointerGetAttributes(&attributes, memory);
    leave_device(&scope);
    if (error != cudaSuccess)
        return cuda_fail(error, "dmlDeviceWrapBuffer: cudaPointerGetAttributes");
    switch (attributes.type) {
    case cudaMemoryTypeManaged:
        return DML_S_OK;
    case cudaMemoryTypeDevice:
        if (attributes.device == device->index)
            return DML_S_OK;
        return dml_set_error(DML_E_INVALIDARG,
            "dmlDeviceWrapBuffer: nativePointer %p is memory of CUDA device %d; this device is CUDA device %d",
            memory, attributes.device, device->index);
    case cudaMemoryTypeHost:
        return dml_set_error(DML_E_INVALIDARG,
            "dmlDeviceWrapBuffer: nativePointer %p is page-locked host memory; the CUDA backend wraps device or "
            "managed memory (cudaMalloc, cudaMallocAsync, cudaMallocManaged)",
            memory);
    default:
        return dml_set_error(DML_E_INVALIDARG,
            "dmlDeviceWrapBuffer: nativePointer %p is not memory CUDA knows (host memory?); the CUDA backend wraps "
            "device or managed memory (cudaMalloc, cudaMallocAsync, cudaMallocManaged)",
            memory);
    }
}

/* ---- queues ------------------------------------------------------------- */

typedef struct cuda_queue {
    cuda_device* device;
    cudaStream_t stream;
    int owned; /* created here, destroyed with the queue */
} cuda_queue;

/* A host stream must belong to this device: work on another GPU's stream
 * would run there, on pointers of this one. */
static DML_RESULT adopt_stream(const cuda_device* device, cudaStream_t stream)
{
    int owner = -1;
    CUDA_TRY(cudaStreamGetDevice(stream, &owner), "dmlDeviceCreateCommandQueue: cudaStreamGetDevice(nativeQueue)");
    if (owner != device->index)
        return dml_set_error(DML_E_INVALIDARG,
            "dmlDeviceCreateCommandQueue: nativeQueue is a stream of CUDA device %d; this device is CUDA device %d",
            owner, device->index);
    return DML_S_OK;
}

static DML_RESULT queue_create_current(cuda_device* device, void* native, cuda_queue* queue)
{
    queue->device = device;
    if (native) {
        DML_RESULT r = adopt_stream(device, (cudaStream_t)native);
        if (r < 0)
            return r;
        queue->stream = (cudaStream_t)native; /* the host's: never destroyed here */
        return DML_S_OK;
    }
    CUDA_TRY(cudaStreamCreateWithFlags(&queue->stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    queue->owned = 1;
    return DML_S_OK;
}

static DML_RESULT cuda_queue_create(void* device_state, void* native, void** queue_state)
{
    cuda_device* device = device_state;
    cuda_queue* queue = calloc(1, sizeof(*queue));
    if (!queue)
        return dml_set_error(DML_E_OUTOFMEMORY, "cuda: out of memory creating a queue");
    device_scope scope;
    DML_RESULT r = enter_device(device, &scope);
    if (r >= 0) {
        r = queue_create_current(device, native, queue);
        leave_device(&scope);
    }
    if (r < 0) {
        free(queue);
        return r;
    }
    *queue_state = queue;
    return DML_S_OK;
}

static void cuda_queue_destroy(void* queue_state)
{
    cuda_queue* queue = queue_state;
    if (!queue)
        return;
    /* Work still queued completes; cudaStreamDestroy releases the stream then. */
    device_scope scope;
    if (queue->owned && enter_device(queue->device, &scope) >= 0) {
        if (cudaStreamDestroy(queue->stream) != cudaSuccess)
            (void)cudaGetLastError();
        leave_device(&scope);
    }
    free(queue);
}

static DML_RESULT copy_current(cuda_queue* queue, void* destination, const void* source, uint64_t size,
    dml_copy_kind kind)
{
    switch (kind) {
    case DML_COPY_HOST_TO_DEVICE:
    case DML_COPY_DEVICE_TO_HOST:
        /* Ordered after the stream's earlier work; complete on return. */
        CUDA_TRY(cudaMemcpyAsync(destination, source, (size_t)size,
                     kind == DML_COPY_HOST_TO_DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, queue->stream),
            kind == DML_COPY_HOST_TO_DEVICE ? "cudaMemcpyAsync(host to device)" : "cudaMemcpyAsync(device to host)");
        CUDA_TRY(cudaStreamSynchronize(queue->stream), "cudaStreamSynchronize");
        return DML_S_OK;
    case DML_COPY_DEVICE_TO_DEVICE:
        CUDA_TRY(cudaMemcpyAsync(destination, source, (size_t)size, cudaMemcpyDeviceToDevice, queue->stream),
            "cudaMemcpyAsync(device to device)");
        return DML_S_OK;
    }
    return dml_set_error(DML_E_INVALIDARG, "cuda: unknown copy kind %d", (int)kind);
}

static DML_RESULT cuda_queue_copy(void* queue_state, void* destination, const void* source, uint64_t size,
    dml_copy_kind kind)
{
    cuda_queue* queue = queue_state;
    if (!size)
        return DML_S_OK;
    if (size > SIZE_MAX)
        return dml_set_error(DML_E_INVALIDARG, "cuda: a copy of %llu bytes exceeds the address space",
            (unsigned long long)size);
    device_scope scope;
    DML_RESULT r = enter_device(queue->device, &scope);
    if (r < 0)
        return r;
    r = copy_current(queue, destination, source, size, kind);
    leave_device(&scope);
    return r;
}

static DML_RESULT cuda_queue_synchronize(void* queue_state)
{
    cuda_queue* queue = queue_state;
    device_scope scope;
    DML_RESULT r = enter_device(queue->device, &scope);
    if (r < 0)
        return r;
    cudaError_t error = cudaStreamSynchronize(queue->stream);
    leave_device(&scope);
    return error == cudaSuccess ? DML_S_OK : cuda_fail(error, "cudaStreamSynchronize");
}

/* CompileOperator: the launch (mode, geometry, divisors) is decided once, and
 * the kernel it uses is loaded now (CUDA loads modules lazily), so the first
 * dispatch neither pays the load nor breaks a stream capture. */
static DML_RESULT cuda_compile(void* device_state, const dml_plan* plan, void** compiled_state)
{
    const cuda_device* device = device_state;
    dml_cuda_launch* launch = malloc(sizeof *launch);
    if (!launch)
        return dml_set_error(DML_E_OUTOFMEMORY, "cuda: out of host memory compiling an operator");
    dml_cuda_plan_launch_on(plan, &device->limits, launch);
    device_scope scope;
    DML_RESULT r = enter_device(device, &scope);
    if (r >= 0) {
        cudaError_t error = dml_cuda_load_kernel(launch);
        /* A GATHER may be dispatched as a part of a grouped launch too. */
        if (error == cudaSuccess && dml_cuda_groupable(plan))
            error = dml_cuda_load_group_kernels(plan->element_size);
        leave_device(&scope);
        if (error != cudaSuccess)
            r = cuda_fail(error, "loading the gather kernel");
    }
    if (r < 0) {
        free(launch);
        return r;
    }
    *compiled_state = launch;
    return DML_S_OK;
}

/* The dispatch path: the compiled launch pointed at the bound buffers, on the
 * stack, and enqueued. No allocation, no synchronisation, so it is legal
 * inside stream capture. */
static DML_RESULT cuda_queue_execute(void* queue_state, const dml_plan* plan, const void* compiled_state,
    const dml_plan_args* args)
{
    (void)plan;
    cuda_queue* queue = queue_state;
    device_scope scope;
    DML_RESULT r = enter_device(queue->device, &scope);
    if (r < 0)
        return r;
    dml_cuda_launch launch = *(const dml_cuda_launch*)compiled_state;
    dml_cuda_bind_launch(&launch, args);
    cudaError_t error = dml_cuda_launch_gather(&launch, queue->stream);
    leave_device(&scope);
    return error == cudaSuccess ? DML_S_OK
                                : cuda_fail(error, launch.is_copy ? "cudaMemcpyAsync" : "gather kernel launch");
}

/* A dispatch group (JOIN's or SPLIT's parts) as grouped launches
 * (cuda/group.h): one launch for up to DML_GROUP_PARTS parts. */
typedef struct cuda_group_run {
    cuda_queue* queue;
    const dml_plan* const* plans;
    const void* const* compiled_states;
    const dml_plan_args* args;
    cudaError_t error;
    const char* what;
} cuda_group_run;

static int cuda_run_single(void* context, uint32_t index)
{
    cuda_group_run* run = context;
    dml_cuda_launch launch = *(const dml_cuda_launch*)run->compiled_states[index];
    dml_cuda_bind_launch(&launch, &run->args[index]);
    run->error = dml_cuda_launch_gather(&launch, run->queue->stream);
    run->what = launch.is_copy ? "cudaMemcpyAsync" : "gather kernel launch";
    return run->error != cudaSuccess;
}

static int cuda_run_grouped(void* context, const dml_cuda_group_launch* group)
{
    cuda_group_run* run = context;
    run->error = dml_cuda_launch_group(group, run->queue->stream);
    run->what = "grouped gather kernel launch";
    return run->error != cudaSuccess;
}

/* The grouped launch is built on the stack (36 KiB, its 32 KiB of
 * parameters included): no allocation on the dispatch path, and any
 * number of threads may dispatch at once. */
static DML_RESULT cuda_queue_execute_group(void* queue_state, const dml_plan* const* plans,
    const void* const* compiled_states, const dml_plan_args* args, uint32_t count)
{
    cuda_queue* queue = queue_state;
    device_scope scope;
    DML_RESULT r = enter_device(queue->device, &scope);
    if (r < 0)
        return r;
    dml_cuda_group_launch group;
    cuda_group_run run = { queue, plans, compiled_states, args, cudaSuccess, "" };
    dml_cuda_run_group(plans, (const dml_cuda_launch* const*)compiled_states, args, count, &queue->device->limits,
        &group, cuda_run_single, cuda_run_grouped, &run);
    leave_device(&scope);
    return run.error == cudaSuccess ? DML_S_OK : cuda_fail(run.error, run.what);
}

const dml_backend dml_cuda_backend = {
    .name = "cuda",
    .plan_kinds = DML_CUDA_PLAN_KINDS,
    .probe = cuda_probe,
    .get_adapter_info = cuda_get_adapter_info,
    .device_create = cuda_device_create,
    .device_destroy = cuda_device_destroy,
    .buffer_alloc = cuda_buffer_alloc,
    .buffer_free = cuda_buffer_free,
    .buffer_check_wrap = cuda_buffer_check_wrap,
    .queue_create = cuda_queue_create,
    .queue_destroy = cuda_queue_destroy,
    .queue_copy = cuda_queue_copy,
    .queue_synchronize = cuda_queue_synchronize,
    .compile = cuda_compile,
    .compiled_destroy = free,
    .queue_execute = cuda_queue_execute,
    .queue_execute_group = cuda_queue_execute_group,
};
