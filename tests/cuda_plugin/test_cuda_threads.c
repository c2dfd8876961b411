/*
 * test_cuda_threads.c — eight host threads share one "cuda" device, each with
 * its own cudaStream_t as its queue's native queue, its own operators,
 * tables and buffers, plus one compiled operator shared by all; they write
 * new inputs, dispatch and read back for DML_TEST_SECONDS (default 5; the GPU
 * kit runs 60), and every result is checked against a naive SLICE1
 * reference written from the operator's definition.
 *
 * Needs a GPU: exits 77 (skipped) without one. DML_TEST_BACKEND=cudaemu runs
 * the same threads on the emulated backend (no streams; the CTest test
 * cudaemu.cuda_threads), which checks this test's own logic without a GPU.
 */
#include <cuda_runtime_api.h>
#include <dml/dml.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SKIP 77
#define THREADS 8
#define VARIANTS 3

static DMLDevice g_device;
static double g_deadline;
static atomic_int g_failures;
static int g_native_streams = 1;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define FAIL(...)                                                                 \
    do {                                                                          \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                    \
        fprintf(stderr, " (%s)\n", dmlGetLastErrorMessage());                     \
        atomic_fetch_add(&g_failures, 1);                                         \
    } while (0)

/* SLICE1 over a rows x cols UINT32 tensor. */
typedef struct slice {
    UINT sizes[2], out_sizes[2], offsets[2], window[2];
    INT strides[2];
    DML_BUFFER_TENSOR_DESC in_b, out_b;
    DML_TENSOR_DESC in, out;
    DML_SLICE1_OPERATOR_DESC s;
    DML_OPERATOR_DESC d;
} slice;

/* 0: columns reversed; 1: every second column from column 1; 2: rows from 1
 * reversed and columns at stride -2. */
static void slice_init(slice* o, int variant, UINT rows, UINT cols)
{
    memset(o, 0, sizeof *o);
    o->sizes[0] = rows;
    o->sizes[1] = cols;
    static const INT strides[VARIANTS][2] = { { 1, -1 }, { 1, 2 }, { -1, -2 } };
    o->strides[0] = strides[variant][0];
    o->strides[1] = strides[variant][1];
    o->offsets[0] = variant == 2 ? 1 : 0;
    o->offsets[1] = variant == 1 ? 1 : 0;
    for (int d = 0; d < 2; d++) {
        o->window[d] = o->sizes[d] - o->offsets[d];
        UINT step = (UINT)(o->strides[d] < 0 ? -o->strides[d] : o->strides[d]);
        o->out_sizes[d] = (o->window[d] + step - 1) / step;
    }
    o->in_b = (DML_BUFFER_TENSOR_DESC) { DML_TENSOR_DATA_TYPE_UINT32, 0, 2, o->sizes, NULL, 4ull * rows * cols, 0 };
    o->out_b = (DML_BUFFER_TENSOR_DESC) { DML_TENSOR_DATA_TYPE_UINT32, 0, 2, o->out_sizes, NULL,
        4ull * o->out_sizes[0] * o->out_sizes[1], 0 };
    o->in = (DML_TENSOR_DESC) { DML_TENSOR_TYPE_BUFFER, &o->in_b };
    o->out = (DML_TENSOR_DESC) { DML_TENSOR_TYPE_BUFFER, &o->out_b };
    o->s = (DML_SLICE1_OPERATOR_DESC) { &o->in, &o->out, 2, o->offsets, o->window, o->strides };
    o->d = (DML_OPERATOR_DESC) { DML_OPERATOR_SLICE1, &o->s };
}

/* SLICE1's definition: output coordinate i on a dimension reads input
 * coordinate offset + i * stride, or, for a negative stride, counts from the
 * window's last element: offset + window - 1 - i * |stride|. */
static uint32_t expected(const slice* o, const uint32_t* in, UINT r, UINT c)
{
    UINT at[2], i[2] = { r, c };
    for (int d = 0; d < 2; d++)
        at[d] = o->strides[d] > 0 ? o->offsets[d] + i[d] * (UINT)o->strides[d]
                                  : o->offsets[d] + o->window[d] - 1 - i[d] * (UINT)(-o->strides[d]);
    return in[(size_t)at[0] * o->sizes[1] + at[1]];
}

typedef struct worker {
    int index;
    DMLCompiledOperator shared; /* the compiled operator every thread dispatches */
    const slice* shared_desc;
    long dispatches;
} worker;

static int run_one(DMLCommandQueue q, DMLCommandRecorder rec, DMLCompiledOperator co, const slice* o, DMLBuffer in,
    DMLBuffer out, uint32_t* host_in, uint32_t* host_out, uint64_t seed, int thread)
{
    size_t n = (size_t)o->sizes[0] * o->sizes[1], m = (size_t)o->out_sizes[0] * o->out_sizes[1];
    for (size_t k = 0; k < n; k++)
        host_in[k] = (uint32_t)(seed * 2654435761u + k * 40503u);
    DML_BINDING_TABLE_DESC td = { co };
    DMLBindingTable table = NULL;
    DML_BUFFER_BINDING ib = { in, 0, 4ull * n }, ob = { out, 0, 4ull * m };
    DML_BINDING_DESC id = { DML_BINDING_TYPE_BUFFER, &ib }, od = { DML_BINDING_TYPE_BUFFER, &ob };
    int ok = dmlCommandQueueWriteBuffer(q, in, 0, host_in, 4ull * n) == DML_S_OK &&
        dmlDeviceCreateBindingTable(g_device, &td, &table) == DML_S_OK &&
        dmlBindingTableBindInputs(table, 1, &id) == DML_S_OK && dmlBindingTableBindOutputs(table, 1, &od) == DML_S_OK &&
        dmlCommandRecorderRecordDispatch(rec, q, co, table) == DML_S_OK &&
        dmlCommandQueueReadBuffer(q, out, 0, host_out, 4ull * m) == DML_S_OK;
    if (table)
        dmlRelease(table);
    if (!ok) {
        FAIL("thread %d: a call failed", thread);
        return -1;
    }
    for (UINT r = 0; r < o->out_sizes[0]; r++)
        for (UINT c = 0; c < o->out_sizes[1]; c++) {
            uint32_t want = expected(o, host_in, r, c), got = host_out[(size_t)r * o->out_sizes[1] + c];
            if (got != want) {
                FAIL("thread %d: %ux%u SLICE1 strides {%d, %d}: output [%u][%u] = %u, expected %u", thread,
                    o->sizes[0], o->sizes[1], o->strides[0], o->strides[1], r, c, got, want);
                return -1;
            }
        }
    return 0;
}

static void* work(void* arg)
{
    worker* w = arg;
    cudaStream_t stream = NULL;
    if (g_native_streams && cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        FAIL("thread %d: cudaStreamCreate", w->index);
        return NULL;
    }
    DMLCommandQueue q = NULL;
    DMLCommandRecorder rec = NULL;
    DMLBuffer in = NULL, out = NULL;
    slice own[VARIANTS];
    DMLOperator ops[VARIANTS] = { 0 };
    DMLCompiledOperator cos[VARIANTS] = { 0 };
    /* Sizes differ per thread: rows start at every alignment. */
    UINT rows = 48 + 8 * (UINT)w->index, cols = 1000 + 37 * (UINT)w->index;
    size_t shared = (size_t)w->shared_desc->sizes[0] * w->shared_desc->sizes[1];
    size_t max = (size_t)rows * cols > shared ? (size_t)rows * cols : shared;
    uint32_t* host_in = malloc(4 * max);
    uint32_t* host_out = malloc(4 * max);
    int ok = host_in && host_out && dmlDeviceCreateCommandQueue(g_device, stream, &q) == DML_S_OK &&
        dmlDeviceCreateCommandRecorder(g_device, &rec) == DML_S_OK &&
        dmlDeviceCreateBuffer(g_device, 4 * max, &in) == DML_S_OK &&
        dmlDeviceCreateBuffer(g_device, 4 * max, &out) == DML_S_OK;
    for (int v = 0; ok && v < VARIANTS; v++) {
        slice_init(&own[v], v, rows, cols);
        ok = dmlDeviceCreateOperator(g_device, &own[v].d, &ops[v]) == DML_S_OK &&
            dmlDeviceCompileOperator(g_device, ops[v], DML_EXECUTION_FLAG_NONE, &cos[v]) == DML_S_OK;
    }
    if (!ok)
        FAIL("thread %d: setting up", w->index);
    for (uint64_t i = 0; ok && now_s() < g_deadline; i++) {
        int v = (int)(i % (VARIANTS + 1));
        if (v == VARIANTS)
            ok = run_one(q, rec, w->shared, w->shared_desc, in, out, host_in, host_out, i * 8 + (uint64_t)w->index,
                     w->index) == 0;
        else
            ok = run_one(q, rec, cos[v], &own[v], in, out, host_in, host_out, i * 8 + (uint64_t)w->index,
                     w->index) == 0;
        w->dispatches++;
    }
    for (int v = 0; v < VARIANTS; v++) {
        if (cos[v])
            dmlRelease(cos[v]);
        if (ops[v])
            dmlRelease(ops[v]);
    }
    if (in)
        dmlRelease(in);
    if (out)
        dmlRelease(out);
    if (rec)
        dmlRelease(rec);
    if (q)
        dmlRelease(q);
    if (stream)
        cudaStreamDestroy(stream);
    free(host_in);
    free(host_out);
    return NULL;
}

int main(void)
{
    const char* backend = getenv("DML_TEST_BACKEND");
    if (!backend || !*backend)
        backend = "cuda";
    g_native_streams = strcmp(backend, "cuda") == 0;
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    if (dmlCreateDevice(&dd, &g_device) != DML_S_OK) {
        printf("SKIPPED: needs a CUDA GPU: %s\n", dmlGetLastErrorMessage());
        return SKIP;
    }
    double seconds = 5;
    const char* env = getenv("DML_TEST_SECONDS");
    if (env && *env)
        seconds = atof(env);
    slice shared;
    slice_init(&shared, 2, 256, 4096);
    DMLOperator op = NULL;
    DMLCompiledOperator co = NULL;
    if (dmlDeviceCreateOperator(g_device, &shared.d, &op) != DML_S_OK ||
        dmlDeviceCompileOperator(g_device, op, DML_EXECUTION_FLAG_NONE, &co) != DML_S_OK) {
        FAIL("the shared operator");
        return 1;
    }
    g_deadline = now_s() + seconds;
    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (worker) { i, co, &shared, 0 };
        if (pthread_create(&threads[i], NULL, work, &workers[i]) != 0) {
            FAIL("pthread_create");
            return 1;
        }
    }
    long total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        total += workers[i].dispatches;
    }
    dmlRelease(co);
    dmlRelease(op);
    dmlRelease(g_device);
    int failures = atomic_load(&g_failures);
    printf("%d threads on %s, own %s, %.0f s: %ld dispatches checked, %d failure(s)\n", THREADS, backend,
        g_native_streams ? "streams" : "queues", seconds, total, failures);
    return failures ? 1 : 0;
}
