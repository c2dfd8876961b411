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
 * every call that touches a device first makes it current (cudaSetDevice is
 * cheap when it already is). No lock is needed: the runtime is thread-safe,
 * and device and queue state are immutable after creation.
 */
#include "cuda_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/error.h"
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

/* ---- devices ------------------------------------------------------------ */

typedef struct cuda_device {
    int index;         /* CUDA device ordinal */
    uint32_t sm_count; /* sizes the grids (cuda/launch.c) */
} cuda_device;

static DML_RESULT cuda_device_create(uint32_t adapter_index, void** device_state)
{
    DML_RESULT r = check_adapter(adapter_index);
    if (r < 0)
        return r;
    int sms = 0;
    CUDA_TRY(cudaSetDevice((int)adapter_index), "cudaSetDevice");
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, (int)adapter_index),
        "cudaDeviceGetAttribute(MultiProcessorCount)");
    cuda_device* device = calloc(1, sizeof(*device));
    if (!device)
        return dml_set_error(DML_E_OUTOFMEMORY, "cuda: out of memory creating a device");
    device->index = (int)adapter_index;
    device->sm_count = sms > 0 ? (uint32_t)sms : 1;
    *device_state = device;
    return DML_S_OK;
}

static void cuda_device_destroy(void* device_state)
{
    free(device_state);
}

static DML_RESULT make_current(const cuda_device* device)
{
    CUDA_TRY(cudaSetDevice(device->index), "cudaSetDevice");
    return DML_S_OK;
}

/* ---- memory ------------------------------------------------------------- */

/* cudaMalloc memory is aligned to at least 256 bytes. Buffers start zeroed,
 * as D3D12 committed resources (and the CPU backend's buffers) do. */
static DML_RESULT cuda_buffer_alloc(void* device_state, uint64_t size, void** memory)
{
    cuda_device* device = device_state;
    DML_RESULT r = make_current(device);
    if (r < 0)
        return r;
    void* pointer = NULL;
    cudaError_t error = cudaMalloc(&pointer, (size_t)(size ? size : 1));
    if (error != cudaSuccess) {
        if (error == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            return dml_set_error(DML_E_OUTOFMEMORY,
                "cuda: cudaMalloc: out of device memory allocating a buffer of %llu bytes (%s: %s)",
                (unsigned long long)size, cudaGetErrorName(error), cudaGetErrorString(error));
        }
        return cuda_fail(error, "cudaMalloc");
    }
    /* On the legacy default stream, waited for here: the plugin's own
     * streams are non-blocking and would not wait for it. */
    error = cudaMemsetAsync(pointer, 0, (size_t)(size ? size : 1), 0);
    if (error == cudaSuccess)
        error = cudaStreamSynchronize(0);
    if (error != cudaSuccess) {
        cudaFree(pointer);
        return cuda_fail(error, "cudaMemset");
    }
    *memory = pointer;
    return DML_S_OK;
}

static void cuda_buffer_free(void* device_state, void* memory)
{
    if (!memory)
        return;
    if (make_current(device_state) < 0)
        return;
    /* cudaFree waits for the device's work in flight before releasing. Its
     * error, if any (a removed device), was reported by the call that caused it. */
    if (cudaFree(memory) != cudaSuccess)
        (void)cudaGetLastError();
}

/* ---- queues ------------------------------------------------------------- */

typedef struct cuda_queue {
    cuda_device* device;
    cudaStream_t stream;
    int owned; /* created here, destroyed with the queue */
} cuda_queue;

static DML_RESULT cuda_queue_create(void* device_state, void* native, void** queue_state)
{
    cuda_device* device = device_state;
    DML_RESULT r = make_current(device);
    if (r < 0)
        return r;
    cuda_queue* queue = calloc(1, sizeof(*queue));
    if (!queue)
        return dml_set_error(DML_E_OUTOFMEMORY, "cuda: out of memory creating a queue");
    queue->device = device;
    if (native) {
        queue->stream = (cudaStream_t)native; /* the host's: never destroyed here */
    } else {
        cudaError_t error = cudaStreamCreateWithFlags(&queue->stream, cudaStreamNonBlocking);
        if (error != cudaSuccess) {
            free(queue);
            return cuda_fail(error, "cudaStreamCreateWithFlags");
        }
        queue->owned = 1;
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
    if (queue->owned && make_current(queue->device) >= 0 && cudaStreamDestroy(queue->stream) != cudaSuccess)
        (void)cudaGetLastError();
    free(queue);
}

static DML_RESULT cuda_queue_copy(void* queue_state, void* destination, const void* source, uint64_t size,
    dml_copy_kind kind)
{
    cuda_queue* queue = queue_state;
    if (!size)
        return DML_S_OK;
    DML_RESULT r = make_current(queue->device);
    if (r < 0)
        return r;
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

static DML_RESULT cuda_queue_synchronize(void* queue_state)
{
    cuda_queue* queue = queue_state;
    DML_RESULT r = make_current(queue->device);
    if (r < 0)
        return r;
    CUDA_TRY(cudaStreamSynchronize(queue->stream), "cudaStreamSynchronize");
    return DML_S_OK;
}

/* CompileOperator: the launch (mode, geometry, divisors) is decided once. */
static DML_RESULT cuda_compile(void* device_state, const dml_plan* plan, void** compiled_state)
{
    const cuda_device* device = device_state;
    dml_cuda_launch* launch = malloc(sizeof *launch);
    if (!launch)
        return dml_set_error(DML_E_OUTOFMEMORY, "cuda: out of host memory compiling an operator");
    dml_cuda_plan_launch(plan, device->sm_count, launch);
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
    DML_RESULT r = make_current(queue->device);
    if (r < 0)
        return r;
    dml_cuda_launch launch = *(const dml_cuda_launch*)compiled_state;
    dml_cuda_bind_launch(&launch, args);
    CUDA_TRY(dml_cuda_launch_gather(&launch, queue->stream), launch.is_copy ? "cudaMemcpyAsync" : "gather kernel launch");
    return DML_S_OK;
}

const dml_backend dml_cuda_backend = {
    .name = "cuda",
    .probe = cuda_probe,
    .get_adapter_info = cuda_get_adapter_info,
    .device_create = cuda_device_create,
    .device_destroy = cuda_device_destroy,
    .buffer_alloc = cuda_buffer_alloc,
    .buffer_free = cuda_buffer_free,
    .queue_create = cuda_queue_create,
    .queue_destroy = cuda_queue_destroy,
    .queue_copy = cuda_queue_copy,
    .queue_synchronize = cuda_queue_synchronize,
    .compile = cuda_compile,
    .compiled_destroy = free,
    .queue_execute = cuda_queue_execute,
};
