/*
 * test_cuda_host_side.c — what the CUDA plugin's host side owes the host
 * process around it:
 *   - the thread's current CUDA context is the same after every dml call as
 *     before it (none stays none; another GPU stays current);
 *   - dmlDeviceWrapBuffer takes device or managed memory of the device's GPU
 *     and refuses host, page-locked or another GPU's memory;
 *   - a host stream of another GPU is refused as a queue;
 *   - creating and releasing buffers waits for no other stream: a blocking
 *     host stream held up by a host function does not hold them up;
 *   - the very first dispatch of an operator compiled under lazy module
 *     loading can be captured into a CUDA graph (kernels load at compile):
 *     a gather, and a CAST (its kernels are cast.cu's, loaded apart).
 *
 * Needs a GPU: exits 77 (skipped) without one. With --two-gpus it runs the
 * cases that need a second GPU (another GPU current, its memory, its
 * stream) instead, and exits 77 with fewer than two: CTest's
 * cuda_host_side.two_gpus.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dml/dml.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SKIP 77

static int failures;

#define CHECK(cond, ...)                                           \
    do {                                                           \
        if (!(cond)) {                                             \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);  \
            fprintf(stderr, __VA_ARGS__);                          \
            fprintf(stderr, " (%s)\n", dmlGetLastErrorMessage());  \
            failures++;                                            \
            return;                                                \
        }                                                          \
    } while (0)

#define CHECK_OK(call) CHECK((call) == DML_S_OK, "%s", #call)
#define CHECK_CUDA(call) CHECK((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cudaGetLastError()))

typedef CUresult (*ctx_get_fn)(CUcontext*);
typedef CUresult (*ctx_set_fn)(CUcontext);
static ctx_get_fn ctx_get;
static ctx_set_fn ctx_set;

static DMLDevice cuda_device(void)
{
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), "cuda", 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    return dmlCreateDevice(&dd, &device) == DML_S_OK ? device : NULL;
}

static CUcontext current_context(void)
{
    CUcontext context = NULL;
    return ctx_get(&context) == CUDA_SUCCESS ? context : (CUcontext)(uintptr_t)1;
}

/* A SLICE1 of a packed float tensor reversing the last dimension. */
static DMLCompiledOperator compile_reverse(DMLDevice device, uint32_t n)
{
    uint32_t sizes[1] = { n }, offsets[1] = { 0 };
    int32_t strides[1] = { -1 };
    DML_BUFFER_TENSOR_DESC b = { DML_TENSOR_DATA_TYPE_FLOAT32, 0, 1, sizes, NULL, 4ull * n, 0 };
    DML_TENSOR_DESC t = { DML_TENSOR_TYPE_BUFFER, &b };
    DML_SLICE1_OPERATOR_DESC slice = { &t, &t, 1, offsets, sizes, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    DMLOperator op = NULL;
    DMLCompiledOperator compiled = NULL;
    if (dmlDeviceCreateOperator(device, &desc, &op) == DML_S_OK)
        dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled);
    dmlRelease(op);
    return compiled;
}

/* A CAST of a packed float tensor to INT32. */
static DMLCompiledOperator compile_cast(DMLDevice device, uint32_t n)
{
    uint32_t sizes[1] = { n };
    DML_BUFFER_TENSOR_DESC ib = { DML_TENSOR_DATA_TYPE_FLOAT32, 0, 1, sizes, NULL, 4ull * n, 0 };
    DML_BUFFER_TENSOR_DESC ob = { DML_TENSOR_DATA_TYPE_INT32, 0, 1, sizes, NULL, 4ull * n, 0 };
    DML_TENSOR_DESC it = { DML_TENSOR_TYPE_BUFFER, &ib }, ot = { DML_TENSOR_TYPE_BUFFER, &ob };
    DML_CAST_OPERATOR_DESC cast = { &it, &ot };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_CAST, &cast };
    DMLOperator op = NULL;
    DMLCompiledOperator compiled = NULL;
    if (dmlDeviceCreateOperator(device, &desc, &op) == DML_S_OK)
        dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled);
    dmlRelease(op);
    return compiled;
}

static DMLBindingTable bind(DMLDevice device, DMLCompiledOperator op, DMLBuffer in, DMLBuffer out, uint64_t bytes)
{
    DML_BINDING_TABLE_DESC td = { op };
    DMLBindingTable table = NULL;
    if (dmlDeviceCreateBindingTable(device, &td, &table) != DML_S_OK)
        return NULL;
    DML_BUFFER_BINDING ib = { in, 0, bytes }, ob = { out, 0, bytes };
    DML_BINDING_DESC id = { DML_BINDING_TYPE_BUFFER, &ib }, od = { DML_BINDING_TYPE_BUFFER, &ob };
    if (dmlBindingTableBindInputs(table, 1, &id) != DML_S_OK || dmlBindingTableBindOutputs(table, 1, &od) != DML_S_OK) {
        dmlRelease(table);
        return NULL;
    }
    return table;
}

/* The whole object life cycle, checking the thread's context after each call. */
static void context_unchanged(CUcontext expected, const char* when)
{
    DMLDevice device = cuda_device();
    CHECK(device, "%s: dmlCreateDevice", when);
    CHECK(current_context() == expected, "%s: dmlCreateDevice changed the current context", when);
    DMLCommandQueue queue = NULL;
    DMLCommandRecorder recorder = NULL;
    DMLBuffer in = NULL, out = NULL;
    CHECK_OK(dmlDeviceCreateCommandQueue(device, NULL, &queue));
    CHECK_OK(dmlDeviceCreateCommandRecorder(device, &recorder));
    CHECK_OK(dmlDeviceCreateBuffer(device, 64, &in));
    CHECK_OK(dmlDeviceCreateBuffer(device, 64, &out));
    CHECK(current_context() == expected, "%s: creating queues and buffers changed the current context", when);
    DMLCompiledOperator op = compile_reverse(device, 16);
    CHECK(op, "%s: compile", when);
    CHECK(current_context() == expected, "%s: CompileOperator changed the current context", when);
    DMLBindingTable table = bind(device, op, in, out, 64);
    CHECK(table, "%s: bind", when);
    float x[16], y[16];
    for (int i = 0; i < 16; i++)
        x[i] = (float)i;
    CHECK_OK(dmlCommandQueueWriteBuffer(queue, in, 0, x, sizeof x));
    CHECK_OK(dmlCommandRecorderRecordDispatch(recorder, queue, op, table));
    CHECK(current_context() == expected, "%s: RecordDispatch changed the current context", when);
    CHECK_OK(dmlCommandQueueSynchronize(queue));
    CHECK_OK(dmlCommandQueueReadBuffer(queue, out, 0, y, sizeof y));
    for (int i = 0; i < 16; i++)
        CHECK(y[i] == x[15 - i], "%s: y[%d] = %g", when, i, (double)y[i]);
    dmlRelease(table);
    dmlRelease(op);
    dmlRelease(in);
    dmlRelease(out);
    dmlRelease(recorder);
    dmlRelease(queue);
    dmlRelease(device);
    CHECK(current_context() == expected, "%s: releasing changed the current context", when);
}

static void current_context_restored(void)
{
    CHECK(current_context() == NULL, "the test thread starts with a context");
    context_unchanged(NULL, "no context");
}

/* Two GPUs: GPU 1 current stays current around dml calls on GPU 0. */
static void other_gpu_stays_current(void)
{
    CHECK_CUDA(cudaSetDevice(1));
    CUcontext other = current_context();
    context_unchanged(other, "GPU 1 current");
    int now = -1;
    CHECK_CUDA(cudaGetDevice(&now));
    CHECK(now == 1, "cudaGetDevice = %d after dml calls on GPU 0, expected 1", now);
    CHECK(ctx_set(NULL) == CUDA_SUCCESS, "cuCtxSetCurrent(NULL)");
}

static void expect_refused(DMLDevice device, void* pointer, const char* what)
{
    DMLBuffer buffer = NULL;
    DML_RESULT r = dmlDeviceWrapBuffer(device, pointer, 256, &buffer);
    CHECK(r == DML_E_INVALIDARG && buffer == NULL, "wrapping %s returned 0x%08x", what, (unsigned)r);
    CHECK(strstr(dmlGetLastErrorMessage(), "dmlDeviceWrapBuffer"), "the message names the call: %s",
        dmlGetLastErrorMessage());
    printf("wrap %s: %s\n", what, dmlGetLastErrorMessage());
}

static void expect_wrapped(DMLDevice device, void* pointer, const char* what)
{
    DMLBuffer buffer = NULL;
    CHECK(dmlDeviceWrapBuffer(device, pointer, 256, &buffer) == DML_S_OK && buffer, "wrapping %s", what);
    CHECK(dmlBufferGetNativePointer(buffer) == pointer, "%s: native pointer", what);
    dmlRelease(buffer);
}

static void wrap_checks_memory(void)
{
    DMLDevice device = cuda_device();
    CHECK(device, "dmlCreateDevice");
    void* host = aligned_alloc(256, 256);
    void *pinned = NULL, *on_device = NULL, *managed = NULL;
    CHECK(host, "aligned_alloc");
    CHECK_CUDA(cudaMallocHost(&pinned, 256));
    CHECK_CUDA(cudaMalloc(&on_device, 256));
    CHECK_CUDA(cudaMallocManaged(&managed, 256, cudaMemAttachGlobal));
    expect_refused(device, host, "malloc'd host memory");
    expect_refused(device, pinned, "cudaMallocHost memory");
    expect_wrapped(device, on_device, "cudaMalloc memory");
    expect_wrapped(device, managed, "cudaMallocManaged memory");
    cudaFree(managed);
    cudaFree(on_device);
    cudaFreeHost(pinned);
    free(host);
    dmlRelease(device);
}

/* Two GPUs: another GPU's memory is refused. */
static void foreign_memory_refused(void)
{
    DMLDevice device = cuda_device();
    CHECK(device, "dmlCreateDevice");
    void* foreign = NULL;
    CHECK_CUDA(cudaSetDevice(1));
    CHECK_CUDA(cudaMalloc(&foreign, 256));
    CHECK_CUDA(cudaSetDevice(0));
    expect_refused(device, foreign, "another GPU's memory");
    cudaFree(foreign);
    dmlRelease(device);
}

/* Two GPUs: a stream of another GPU is refused as a queue. */
static void foreign_stream_refused(void)
{
    DMLDevice device = cuda_device();
    CHECK(device, "dmlCreateDevice");
    cudaStream_t stream = NULL;
    CHECK_CUDA(cudaSetDevice(1));
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaSetDevice(0));
    DMLCommandQueue queue = NULL;
    DML_RESULT r = dmlDeviceCreateCommandQueue(device, stream, &queue);
    CHECK(r == DML_E_INVALIDARG && !queue, "a stream of GPU 1 as a queue of GPU 0 returned 0x%08x", (unsigned)r);
    printf("foreign stream: %s\n", dmlGetLastErrorMessage());
    cudaStreamDestroy(stream);
    dmlRelease(device);
}

/* A host function that holds its (blocking) stream until released, or gives
 * up after a few seconds so that a regression fails instead of hanging. */
static atomic_int released, gave_up;

static void CUDART_CB hold(void* unused)
{
    (void)unused;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!atomic_load(&released)) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 5) {
            atomic_store(&gave_up, 1);
            return;
        }
    }
}

static void buffers_wait_for_no_other_stream(void)
{
    DMLDevice device = cuda_device();
    CHECK(device, "dmlCreateDevice");
    CHECK_CUDA(cudaSetDevice(0));
    cudaStream_t blocking = NULL;
    CHECK_CUDA(cudaStreamCreate(&blocking)); /* synchronises with the legacy default stream */
    atomic_store(&released, 0);
    atomic_store(&gave_up, 0);
    CHECK_CUDA(cudaLaunchHostFunc(blocking, hold, NULL));
    DMLBuffer buffers[4] = { NULL };
    for (int i = 0; i < 4; i++)
        CHECK_OK(dmlDeviceCreateBuffer(device, (uint64_t)1 << (10 + 4 * i), &buffers[i]));
    for (int i = 0; i < 4; i++)
        dmlRelease(buffers[i]);
    int late = atomic_load(&gave_up);
    atomic_store(&released, 1);
    CHECK_CUDA(cudaStreamSynchronize(blocking));
    CHECK(!late, "creating or releasing a buffer waited for another stream");
    cudaStreamDestroy(blocking);
    dmlRelease(device);
}

/* cast: a CAST float -> int32 (else a SLICE1 reversal) never dispatched
 * before in this process. */
static void first_dispatch_captured(int cast)
{
    DMLDevice device = cuda_device();
    CHECK(device, "dmlCreateDevice");
    cudaStream_t stream = NULL;
    CHECK_CUDA(cudaSetDevice(0));
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    DMLCommandQueue queue = NULL;
    DMLCommandRecorder recorder = NULL;
    DMLBuffer in = NULL, out = NULL;
    CHECK_OK(dmlDeviceCreateCommandQueue(device, stream, &queue));
    CHECK_OK(dmlDeviceCreateCommandRecorder(device, &recorder));
    CHECK_OK(dmlDeviceCreateBuffer(device, 4096, &in));
    CHECK_OK(dmlDeviceCreateBuffer(device, 4096, &out));
    DMLCompiledOperator op = cast ? compile_cast(device, 1024) : compile_reverse(device, 1024);
    CHECK(op, "compile");
    DMLBindingTable table = bind(device, op, in, out, 4096);
    CHECK(table, "bind");
    float x[1024], y[1024];
    int32_t z[1024];
    for (int i = 0; i < 1024; i++)
        x[i] = (float)i;
    CHECK_OK(dmlCommandQueueWriteBuffer(queue, in, 0, x, sizeof x));
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    DML_RESULT d = dmlCommandRecorderRecordDispatch(recorder, queue, op, table);
    cudaGraph_t graph = NULL;
    cudaError_t end = cudaStreamEndCapture(stream, &graph);
    CHECK(d == DML_S_OK, "the first RecordDispatch inside capture returned 0x%08x", (unsigned)d);
    CHECK(end == cudaSuccess && graph, "cudaStreamEndCapture: %s", cudaGetErrorString(end));
    cudaGraphExec_t exec = NULL;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    if (cast) {
        CHECK_OK(dmlCommandQueueReadBuffer(queue, out, 0, z, sizeof z));
        for (int i = 0; i < 1024; i++)
            CHECK(z[i] == i, "CAST: z[%d] = %d", i, (int)z[i]);
    } else {
        CHECK_OK(dmlCommandQueueReadBuffer(queue, out, 0, y, sizeof y));
        for (int i = 0; i < 1024; i++)
            CHECK(y[i] == x[1023 - i], "y[%d] = %g", i, (double)y[i]);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    dmlRelease(table);
    dmlRelease(op);
    dmlRelease(in);
    dmlRelease(out);
    dmlRelease(recorder);
    dmlRelease(queue);
    cudaStreamDestroy(stream);
    dmlRelease(device);
}

int main(int argc, char** argv)
{
    int two_gpus = argc > 1 && strcmp(argv[1], "--two-gpus") == 0;
    unsetenv("DML_BACKEND");
    unsetenv("DML_PLUGIN_PATH");
    setenv("CUDA_MODULE_LOADING", "LAZY", 1); /* before the first CUDA call of the process */
    int gpus = 0;
    cudaError_t e = cudaGetDeviceCount(&gpus);
    if (e != cudaSuccess || gpus == 0) {
        printf("SKIPPED: needs a CUDA GPU: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA-capable device");
        return SKIP;
    }
    if (two_gpus && gpus < 2) {
        printf("SKIPPED: needs two CUDA GPUs (this machine has %d)\n", gpus);
        return SKIP;
    }
    void *get = NULL, *set = NULL;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get, 4000, cudaEnableDefault, NULL) != cudaSuccess ||
        cudaGetDriverEntryPointByVersion("cuCtxSetCurrent", &set, 4000, cudaEnableDefault, NULL) != cudaSuccess) {
        printf("FAILED: no cuCtxGetCurrent/cuCtxSetCurrent\n");
        return 1;
    }
    ctx_get = (ctx_get_fn)get;
    ctx_set = (ctx_set_fn)set;
    current_context_restored(); /* first: the thread has no context yet */
    if (two_gpus) {
        other_gpu_stays_current();
        foreign_memory_refused();
        foreign_stream_refused();
    } else {
        wrap_checks_memory();
        buffers_wait_for_no_other_stream();
        first_dispatch_captured(0);
        first_dispatch_captured(1);
    }
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
