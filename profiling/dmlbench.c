/*
 * dmlbench — benchmarks of the runtime through its public API.
 *
 *   dmlbench [--backend NAME] [--case NAME[,NAME...]] [--size BYTES[,BYTES...]]
 *            [--type-size 1,2,4,8] [--repetitions N] [--warmup N] [--csv]
 *   dmlbench --overhead [--backend NAME] [--repetitions N]
 *   dmlbench --graph [--backend NAME] [--size BYTES] [--repetitions N] [--warmup N]
 *
 * Throughput mode runs a fixed set of cases (see `cases` below and
 * profiling/README.md) for element sizes 1, 2, 4 and 8 bytes and output sizes
 * 4 KiB, 64 KiB, 1 MiB, 16 MiB, 64 MiB and 256 MiB (BYTES takes K, M, G
 * suffixes). For each it reports the median time of RecordDispatch +
 * Synchronize over the repetitions after the warm-up runs, the throughput in
 * GB/s counting the bytes the operator reads plus the bytes it writes, and the
 * ratio to a plain copy of the same traffic measured in the same run: a copy
 * of (read + written) / 2 bytes — on the CPU memcpy split across as many
 * threads as the CPU backend uses (one below its parallel threshold, 256 KiB),
 * on CUDA cudaMemcpyAsync device to device timed with CUDA events.
 *
 * --overhead measures the host cost of the API on tiny tensors: CreateOperator,
 * CompileOperator and RecordDispatch (with binding) of a 4x4 SLICE1 and a 4x4
 * REVERSE_SUBSEQUENCES, as the median and 90th percentile of N repetitions,
 * beside the cost of a plain malloc/free pair measured in the same run.
 */
#include <dml/dml.h>

#include "bench_graph.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef DML_BENCH_CUDA
#include "bench_cuda.h" /* --gpu-table */
#endif
#include "plain_gather.h" /* the plain-C baseline */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int compare_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static void check(DML_RESULT r, const char* what)
{
    if (DML_FAILED(r)) {
        fprintf(stderr, "dmlbench: %s failed: %s\n", what, dmlGetLastErrorMessage());
        exit(2);
    }
}

typedef struct timing {
    double median, p90;
} timing;

static timing summarize(double* samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, compare_double);
    timing t = { samples[n / 2], samples[(n * 9) / 10] };
    return t;
}

typedef struct tensor4x4 {
    UINT sizes[2];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tensor4x4;

static void make_tensor(tensor4x4* t, DML_TENSOR_DATA_TYPE type, UINT rows, UINT columns)
{
    memset(t, 0, sizeof *t);
    t->sizes[0] = rows;
    t->sizes[1] = columns;
    t->buffer.DataType = type;
    t->buffer.DimensionCount = 2;
    t->buffer.Sizes = t->sizes;
    t->buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, 2, t->sizes, NULL);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

static void bench_operator(DMLDevice device, const char* label, const DML_OPERATOR_DESC* desc, uint32_t inputs,
    int repetitions)
{
    double* create = calloc((size_t)repetitions, sizeof(double));
    double* compile = calloc((size_t)repetitions, sizeof(double));
    double* dispatch = calloc((size_t)repetitions, sizeof(double));
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    DMLBuffer buffer;
    check(dmlDeviceCreateCommandQueue(device, NULL, &queue), "CreateCommandQueue");
    check(dmlDeviceCreateCommandRecorder(device, &recorder), "CreateCommandRecorder");
    check(dmlDeviceCreateBuffer(device, 4096, &buffer), "CreateBuffer");
    uint32_t zeros[256] = { 0 };
    check(dmlCommandQueueWriteBuffer(queue, buffer, 0, zeros, sizeof zeros), "WriteBuffer");
    for (int i = 0; i < repetitions; ++i) {
        DMLOperator op;
        DMLCompiledOperator compiled;
        double t0 = now_ns();
        check(dmlDeviceCreateOperator(device, desc, &op), "CreateOperator");
        double t1 = now_ns();
        check(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled), "CompileOperator");
        double t2 = now_ns();
        DML_BINDING_TABLE_DESC table_desc = { compiled };
        DMLBindingTable table;
        check(dmlDeviceCreateBindingTable(device, &table_desc, &table), "CreateBindingTable");
        DML_BUFFER_BINDING in[2] = { { buffer, 0, 256 }, { buffer, 256, 256 } }, out = { buffer, 1024, 256 };
        DML_BINDING_DESC in_desc[2] = { { DML_BINDING_TYPE_BUFFER, &in[0] }, { DML_BINDING_TYPE_BUFFER, &in[1] } };
        DML_BINDING_DESC out_desc = { DML_BINDING_TYPE_BUFFER, &out };
        double t3 = now_ns();
        check(dmlBindingTableBindInputs(table, inputs, in_desc), "BindInputs");
        check(dmlBindingTableBindOutputs(table, 1, &out_desc), "BindOutputs");
        check(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table), "RecordDispatch");
        double t4 = now_ns();
        create[i] = t1 - t0;
        compile[i] = t2 - t1;
        dispatch[i] = t4 - t3;
        dmlRelease(table);
        dmlRelease(compiled);
        dmlRelease(op);
    }
    check(dmlCommandQueueSynchronize(queue), "Synchronize");
    timing a = summarize(create, repetitions), b = summarize(compile, repetitions), c = summarize(dispatch, repetitions);
    printf("%-22s %10.2f %8.2f %10.2f %8.2f %14.2f %8.2f\n", label, a.median / 1e3, a.p90 / 1e3, b.median / 1e3,
        b.p90 / 1e3, c.median / 1e3, c.p90 / 1e3);
    dmlRelease(buffer);
    dmlRelease(recorder);
    dmlRelease(queue);
    free(create);
    free(compile);
    free(dispatch);
}

static int overhead(const char* backend, int repetitions)
{
    DML_DEVICE_DESC device_desc = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_NONE,
        DML_FEATURE_LEVEL_5_0 };
    DMLDevice device;
    check(dmlCreateDevice(&device_desc, &device), "CreateDevice");

    double* baseline = calloc((size_t)repetitions, sizeof(double));
    for (int i = 0; i < repetitions; ++i) {
        double t0 = now_ns();
        void* volatile p = malloc(2048);
        free(p);
        baseline[i] = now_ns() - t0;
    }
    timing base = summarize(baseline, repetitions);
    free(baseline);

    printf("host overhead, microseconds (median, p90 of %d)\n", repetitions);
    printf("%-22s %19s %19s %23s\n", "", "CreateOperator", "CompileOperator", "bind + RecordDispatch");
    tensor4x4 in, out, lengths;
    make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, 4);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, 4);
    UINT offsets[2] = { 0, 0 }, window[2] = { 4, 4 };
    INT strides[2] = { 1, -1 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 2, offsets, window, strides };
    DML_OPERATOR_DESC slice_desc = { DML_OPERATOR_SLICE1, &slice };
    bench_operator(device, "SLICE1 4x4 float32", &slice_desc, 1, repetitions);

    make_tensor(&lengths, DML_TENSOR_DATA_TYPE_UINT32, 4, 1);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse = { &in.desc, &lengths.desc, &out.desc, 1 };
    DML_OPERATOR_DESC reverse_desc = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &reverse };
    bench_operator(device, "REVERSE_SUBSEQ 4x4", &reverse_desc, 2, repetitions);
    printf("%-22s %10.2f %8.2f   (baseline: malloc+free of 2 KiB, same run)\n", "malloc+free", base.median / 1e3,
        base.p90 / 1e3);
    dmlRelease(device);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Throughput cases                                                         */
/* ------------------------------------------------------------------------ */

/* A tensor of rank <= 4 with explicit strides (NULL strides when packed). */
typedef struct btensor {
    UINT sizes[4], strides[4];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} btensor;

static void btensor_init(btensor* t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT* sizes, const UINT* strides)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof(UINT));
    if (strides)
        memcpy(t->strides, strides, rank * sizeof(UINT));
    t->buffer.DataType = type;
    t->buffer.DimensionCount = rank;
    t->buffer.Sizes = t->sizes;
    t->buffer.Strides = strides ? t->strides : NULL;
    t->buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, rank, t->sizes, strides ? t->strides : NULL);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

/* One built case: the desc and everything it points to. */
typedef struct built_case {
    btensor in, lengths, out;
    UINT offsets[4], window[4];
    INT slice_strides[4];
    DML_SLICE1_OPERATOR_DESC slice;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
    DML_OPERATOR_DESC desc;
    uint32_t inputs;
    uint64_t bytes_read, bytes_written;
    uint32_t* lengths_data; /* REVERSE_SUBSEQUENCES: lengths.TotalTensorSizeInBytes bytes */
} built_case;

typedef int (*case_builder)(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n);

/* Elements per output row for the row-shaped cases. */
#define ROW 1024u

static void build_reverse(built_case* c, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT* sizes, UINT axis,
    const UINT* length_strides, uint32_t (*length_of)(UINT index, UINT axis_size))
{
    UINT lsizes[4];
    memcpy(lsizes, sizes, rank * sizeof(UINT));
    lsizes[axis] = 1;
    btensor_init(&c->in, type, rank, sizes, NULL);
    btensor_init(&c->out, type, rank, sizes, NULL);
    btensor_init(&c->lengths, DML_TENSOR_DATA_TYPE_UINT32, rank, lsizes, length_strides);
    uint64_t count = c->lengths.buffer.TotalTensorSizeInBytes / 4;
    c->lengths_data = calloc(count ? count : 1, 4);
    for (uint64_t i = 0; i < count; ++i)
        c->lengths_data[i] = length_of((UINT)i, sizes[axis]);
    c->reverse = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &c->in.desc, &c->lengths.desc, &c->out.desc, axis };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_REVERSE_SUBSEQUENCES, &c->reverse };
    c->inputs = 2;
}

static uint32_t full_length(UINT index, UINT axis_size)
{
    (void)index;
    return axis_size;
}

/* Sequence batches: lengths from full down to a quarter, cycling. */
static uint32_t varied_length(UINT index, UINT axis_size)
{
    return axis_size - (UINT)((index * 7u) % (axis_size * 3u / 4u + 1u));
}

static UINT rows_of(uint64_t n, UINT row)
{
    return (UINT)(n / row ? n / row : 1);
}

static UINT row_of(uint64_t n)
{
    return n < ROW ? (UINT)n : ROW;
}

/* [R, 1024], reversed along the inner axis (every sequence full length). */
static int case_reverse_inner(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT row = row_of(n), sizes[2] = { rows_of(n, row), row };
    build_reverse(c, type, 2, sizes, 1, NULL, full_length);
    return 0;
}

/* [64, R], reversed along the outer axis, one length for all (a broadcast
 * lengths tensor): rows move whole, reversed in order. */
static int case_reverse_outer(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT outer = n >= 64 ? 64 : (UINT)n, sizes[2] = { outer, (UINT)(n / outer) }, lstrides[2] = { 0, 0 };
    build_reverse(c, type, 2, sizes, 0, lstrides, full_length);
    return 0;
}

/* [T=64, B=8, F] time-major batch, reversed along time, a length per
 * sequence (lengths [1, 8, F] with strides {0, 1, 0}: one per batch entry). */
static int case_seq_time_major(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    if (n < 512)
        return -1;
    UINT sizes[3] = { 64, 8, (UINT)(n / 512) }, lstrides[3] = { 0, 1, 0 };
    build_reverse(c, type, 3, sizes, 0, lstrides, varied_length);
    return 0;
}

/* [B=8, T=64, F] batch-major batch, reversed along time, a length per
 * sequence (lengths [8, 1, F] with strides {1, 0, 0}). */
static int case_seq_batch_major(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    if (n < 512)
        return -1;
    UINT sizes[3] = { 8, 64, (UINT)(n / 512) }, lstrides[3] = { 1, 0, 0 };
    build_reverse(c, type, 3, sizes, 1, lstrides, varied_length);
    return 0;
}

/* Sequence lengths per column, pseudo-random over 0 .. axis size + 2. */
static uint32_t random_length(UINT index, UINT axis_size)
{
    uint32_t x = index * 2654435761u;
    x ^= x >> 15;
    return x % (axis_size + 3u);
}

/* [16, C] reversed along axis 0 with a length per column (lengths [1, C]):
 * every output row reads from all 16 input rows. */
static int build_columns(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, uint32_t (*length_of)(UINT, UINT))
{
    if (n < 16)
        return -1;
    UINT sizes[2] = { 16, (UINT)(n / 16) };
    build_reverse(c, type, 2, sizes, 0, NULL, length_of);
    return 0;
}

static int case_columns_full(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_columns(c, t, n, full_length);
}

static int case_columns_random(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n)
{
    return build_columns(c, t, n, random_length);
}

/* SLICE1 of [R, 1024] rows out of [R, |stride| * 1024 (+64 for stride 1)] rows. */
static int build_slice(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n, int stride)
{
    UINT row = row_of(n), rows = rows_of(n, row);
    UINT a = (UINT)(stride < 0 ? -stride : stride);
    UINT in_sizes[2] = { rows, row * a + (a == 1 && stride > 0 ? 64 : 0) }, out_sizes[2] = { rows, row };
    btensor_init(&c->in, type, 2, in_sizes, NULL);
    btensor_init(&c->out, type, 2, out_sizes, NULL);
    c->offsets[0] = 0;
    c->offsets[1] = 0;
    c->window[0] = rows;
    c->window[1] = row * a;
    c->slice_strides[0] = 1;
    c->slice_strides[1] = stride;
    c->slice = (DML_SLICE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, 2, c->offsets, c->window, c->slice_strides };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &c->slice };
    c->inputs = 1;
    return 0;
}

static int case_slice_p1(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_slice(c, t, n, 1); }
static int case_slice_m1(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_slice(c, t, n, -1); }
static int case_slice_p2(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_slice(c, t, n, 2); }
static int case_slice_m2(built_case* c, DML_TENSOR_DATA_TYPE t, uint64_t n) { return build_slice(c, t, n, -2); }

/* Identity SLICE1 of a transposed view: input [A, B] with strides {1, A}. */
static int case_transpose(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT b = row_of(n), a = rows_of(n, b);
    UINT sizes[2] = { a, b }, strides[2] = { 1, a };
    btensor_init(&c->in, type, 2, sizes, strides);
    btensor_init(&c->out, type, 2, sizes, NULL);
    c->offsets[0] = c->offsets[1] = 0;
    c->window[0] = a;
    c->window[1] = b;
    c->slice_strides[0] = c->slice_strides[1] = 1;
    c->slice = (DML_SLICE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, 2, c->offsets, c->window, c->slice_strides };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &c->slice };
    c->inputs = 1;
    return 0;
}

/* Identity SLICE1 of one row broadcast to [R, 1024] (input strides {0, 1}). */
static int case_broadcast(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    UINT b = row_of(n), a = rows_of(n, b);
    UINT sizes[2] = { a, b }, strides[2] = { 0, 1 };
    btensor_init(&c->in, type, 2, sizes, strides);
    btensor_init(&c->out, type, 2, sizes, NULL);
    c->offsets[0] = c->offsets[1] = 0;
    c->window[0] = a;
    c->window[1] = b;
    c->slice_strides[0] = c->slice_strides[1] = 1;
    c->slice = (DML_SLICE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, 2, c->offsets, c->window, c->slice_strides };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &c->slice };
    c->inputs = 1;
    return 0;
}

typedef struct case_entry {
    const char* name;
    case_builder build;
    int contiguous_inner; /* innermost run contiguous (target >= 0.8x copy) */
} case_entry;

static const case_entry cases[] = {
    { "reverse_inner", case_reverse_inner, 0 },
    { "reverse_outer", case_reverse_outer, 1 },
    { "seq_time_major", case_seq_time_major, 1 },
    { "seq_batch_major", case_seq_batch_major, 1 },
    { "rs_columns_full", case_columns_full, 1 },
    { "rs_columns_random", case_columns_random, 0 },
    { "slice_p1", case_slice_p1, 1 },
    { "slice_m1", case_slice_m1, 0 },
    { "slice_p2", case_slice_p2, 0 },
    { "slice_m2", case_slice_m2, 0 },
    { "transpose", case_transpose, 0 },
    { "broadcast", case_broadcast, 1 },
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

static DML_TENSOR_DATA_TYPE type_of_size(unsigned size)
{
    switch (size) {
    case 1: return DML_TENSOR_DATA_TYPE_UINT8;
    case 2: return DML_TENSOR_DATA_TYPE_UINT16;
    case 4: return DML_TENSOR_DATA_TYPE_UINT32;
    default: return DML_TENSOR_DATA_TYPE_UINT64;
    }
}

/* ---- the copy baseline: threaded memcpy ---- */

#define MAX_COPY_THREADS 16

typedef struct copy_pool {
    unsigned threads, active; /* started; copying (the rest pass the barriers) */
    pthread_t workers[MAX_COPY_THREADS];
    pthread_barrier_t start, finish;
    unsigned char* dst;
    const unsigned char* src;
    uint64_t bytes;
    int stop;
} copy_pool;

static void copy_share(copy_pool* p, unsigned index)
{
    if (index >= p->active)
        return;
    uint64_t share = (p->bytes / p->active + 63) & ~(uint64_t)63;
    uint64_t begin = share * index;
    if (begin >= p->bytes)
        return;
    uint64_t end = begin + share < p->bytes ? begin + share : p->bytes;
    memcpy(p->dst + begin, p->src + begin, end - begin);
}

typedef struct worker_arg {
    copy_pool* pool;
    unsigned index;
} worker_arg;

static worker_arg worker_args[MAX_COPY_THREADS];

static void* copy_worker(void* arg)
{
    worker_arg* w = arg;
    for (;;) {
        pthread_barrier_wait(&w->pool->start);
        if (w->pool->stop)
            return NULL;
        copy_share(w->pool, w->index);
        pthread_barrier_wait(&w->pool->finish);
    }
}

/* The CPU backend's thread count: min(usable CPUs, 16). */
static unsigned cpu_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 && CPU_COUNT(&set) < cpus)
        cpus = CPU_COUNT(&set);
    if (cpus < 1)
        cpus = 1;
    return cpus > MAX_COPY_THREADS ? MAX_COPY_THREADS : (unsigned)cpus;
}

static void copy_pool_start(copy_pool* p)
{
    memset(p, 0, sizeof *p);
    p->threads = cpu_threads();
    pthread_barrier_init(&p->start, NULL, p->threads);
    pthread_barrier_init(&p->finish, NULL, p->threads);
    for (unsigned i = 1; i < p->threads; ++i) {
        worker_args[i] = (worker_arg){ p, i };
        pthread_create(&p->workers[i], NULL, copy_worker, &worker_args[i]);
    }
}

static void copy_pool_stop(copy_pool* p)
{
    p->stop = 1;
    pthread_barrier_wait(&p->start);
    for (unsigned i = 1; i < p->threads; ++i)
        pthread_join(p->workers[i], NULL);
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->finish);
}

/* memcpy of `bytes` split over `threads` of the pool's threads. */
static void copy_pool_copy(copy_pool* p, void* dst, const void* src, uint64_t bytes, unsigned threads)
{
    if (threads < 2 || p->threads < 2) {
        memcpy(dst, src, bytes);
        return;
    }
    p->active = threads < p->threads ? threads : p->threads;
    p->dst = dst;
    p->src = src;
    p->bytes = bytes;
    pthread_barrier_wait(&p->start);
    copy_share(p, 0);
    pthread_barrier_wait(&p->finish);
}

/* ---- the copy baseline on CUDA: cudaMemcpyAsync device to device ---- */

#ifdef DML_BENCH_CUDA
typedef int (*cuda_malloc_fn)(void**, size_t);
typedef int (*cuda_free_fn)(void*);
typedef int (*cuda_memcpy_async_fn)(void*, const void*, size_t, int, void*);
typedef int (*cuda_event_create_fn)(void**);
typedef int (*cuda_event_destroy_fn)(void*);
typedef int (*cuda_event_record_fn)(void*, void*);
typedef int (*cuda_event_synchronize_fn)(void*);
typedef int (*cuda_event_elapsed_fn)(float*, void*, void*);

/* Median milliseconds of a device-to-device copy of `bytes`, or -1 when
 * libcudart or a GPU is missing. */
static double cuda_copy_ms(uint64_t bytes, int warmup, int repetitions)
{
    static void* lib;
    if (!lib)
        lib = dlopen("libcudart.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libcudart.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return -1;
    cuda_malloc_fn cmalloc = (cuda_malloc_fn)dlsym(lib, "cudaMalloc");
    cuda_free_fn cfree = (cuda_free_fn)dlsym(lib, "cudaFree");
    cuda_memcpy_async_fn ccopy = (cuda_memcpy_async_fn)dlsym(lib, "cudaMemcpyAsync");
    cuda_event_create_fn ecreate = (cuda_event_create_fn)dlsym(lib, "cudaEventCreate");
    cuda_event_destroy_fn edestroy = (cuda_event_destroy_fn)dlsym(lib, "cudaEventDestroy");
    cuda_event_record_fn erecord = (cuda_event_record_fn)dlsym(lib, "cudaEventRecord");
    cuda_event_synchronize_fn esync = (cuda_event_synchronize_fn)dlsym(lib, "cudaEventSynchronize");
    cuda_event_elapsed_fn elapsed = (cuda_event_elapsed_fn)dlsym(lib, "cudaEventElapsedTime");
    if (!cmalloc || !cfree || !ccopy || !ecreate || !edestroy || !erecord || !esync || !elapsed)
        return -1;
    void *src = NULL, *dst = NULL, *e0 = NULL, *e1 = NULL;
    if (cmalloc(&src, bytes) || cmalloc(&dst, bytes) || ecreate(&e0) || ecreate(&e1)) {
        if (src)
            cfree(src);
        if (dst)
            cfree(dst);
        return -1;
    }
    enum { DEVICE_TO_DEVICE = 3 };
    double* samples = calloc((size_t)repetitions, sizeof(double));
    for (int i = 0; i < warmup + repetitions; ++i) {
        float ms = 0;
        erecord(e0, NULL);
        ccopy(dst, src, bytes, DEVICE_TO_DEVICE, NULL);
        erecord(e1, NULL);
        esync(e1);
        elapsed(&ms, e0, e1);
        if (i >= warmup)
            samples[i - warmup] = ms;
    }
    double median = summarize(samples, repetitions).median;
    free(samples);
    edestroy(e0);
    edestroy(e1);
    cfree(src);
    cfree(dst);
    return median;
}
#endif

/* ---- running a case ---- */

static int on_cuda_backend(const char* backend)
{
    return backend && !strncmp(backend, "cuda", 4) && strcmp(backend, "cudaemu") != 0;
}

typedef struct bench_options {
    const char* backend;
    int repetitions, warmup, csv;
    unsigned threads; /* the CPU backend's thread cap for this row (dmlDeviceSetThreadLimit); 0: not set */
} bench_options;

typedef struct result {
    double seconds, copy_seconds;
    double plain_seconds; /* the best plain-C loop (plain_gather.h); <= 0: not measured */
    uint64_t bytes_read, bytes_written;
} result;

/* Sizes up to which the plain-C baseline runs. */
#define PLAIN_MAX_BYTES ((uint64_t)4 << 20)

/* The tensor's strides in elements, packed ones when it has none. */
static void strides_of(const btensor* t, int64_t* strides)
{
    int64_t packed = 1;
    for (int d = (int)t->buffer.DimensionCount - 1; d >= 0; --d) {
        strides[d] = t->buffer.Strides ? (int64_t)t->strides[d] : packed;
        packed *= t->sizes[d];
    }
}

/* The case as the plain-C loops see it (plain_gather.h), from its desc. */
static void plain_of(const built_case* c, unsigned element_size, plain_gather* g)
{
    memset(g, 0, sizeof *g);
    g->rank = c->out.buffer.DimensionCount;
    g->element_size = element_size;
    g->reverse_axis = -1;
    int64_t in_strides[4];
    strides_of(&c->in, in_strides);
    for (unsigned d = 0; d < g->rank; ++d) {
        g->sizes[d] = c->out.sizes[d];
        g->in_strides[d] = in_strides[d];
    }
    if (c->desc.Type == DML_OPERATOR_SLICE1) {
        /* Output[c] = Input[start + stride * c], start at the window's far
         * end for a negative stride. */
        for (unsigned d = 0; d < g->rank; ++d) {
            const int64_t step = c->slice_strides[d];
            const int64_t start = (int64_t)c->offsets[d] + (step < 0 ? (int64_t)c->window[d] - 1 : 0);
            g->in_offset += start * in_strides[d];
            g->in_strides[d] = step * in_strides[d];
        }
    } else {
        g->reverse_axis = (int)c->reverse.Axis;
        strides_of(&c->lengths, g->len_strides);
        g->lengths = c->lengths_data;
    }
}

/* The plain-C baselines of a case (plain_gather.h): a naive per-element
 * loop and, where it applies, a per-row memcpy loop, over buffers of their
 * own. Their runs are timed inside the operator's repetition loop, like the
 * copy baseline's, so that all three see the same machine state (timed one
 * after the other, a busy spell of the VM fell on one and not the others). */
typedef struct plain_bench {
    plain_gather g;
    unsigned char *in, *out, *expected;
    uint64_t out_bytes;
    int has_rows;
    double *naive_samples, *rows_samples;
} plain_bench;

static int naive_loop(const plain_gather* g, void* out, const void* in)
{
    plain_gather_naive(g, out, in);
    return 1;
}

/* Nanoseconds of one run of the loop after an untimed one (as the operator
 * is timed). */
static double time_loop(int (*loop)(const plain_gather*, void*, const void*), const plain_bench* b)
{
    loop(&b->g, b->out, b->in);
    const double t0 = now_ns();
    loop(&b->g, b->out, b->in);
    return now_ns() - t0;
}

static void plain_free(plain_bench* b)
{
    free(b->in);
    free(b->out);
    free(b->expected);
    free(b->naive_samples);
    free(b->rows_samples);
    memset(b, 0, sizeof *b);
}

/* Allocates and fills the baselines' buffers; 0 when memory is short (the
 * case is then reported without vs_C). */
static int plain_prepare(plain_bench* b, const built_case* c, unsigned element_size, int repetitions)
{
    memset(b, 0, sizeof *b);
    const uint64_t in_bytes = c->in.buffer.TotalTensorSizeInBytes;
    b->out_bytes = c->out.buffer.TotalTensorSizeInBytes;
    b->in = malloc(in_bytes ? in_bytes : 1);
    b->out = calloc(b->out_bytes ? b->out_bytes : 1, 1);
    b->expected = malloc(b->out_bytes ? b->out_bytes : 1);
    b->naive_samples = calloc((size_t)repetitions, sizeof(double));
    b->rows_samples = calloc((size_t)repetitions, sizeof(double));
    if (!b->in || !b->out || !b->expected || !b->naive_samples || !b->rows_samples) {
        plain_free(b);
        return 0;
    }
    for (uint64_t i = 0; i < in_bytes; ++i) /* run_case's input pattern */
        b->in[i] = (unsigned char)((i % (16u << 20)) * 131u + 7u);
    plain_of(c, element_size, &b->g);
    b->has_rows = plain_gather_rows(&b->g, b->out, b->in);
    return 1;
}

/* One repetition of the baselines (sample i when i >= 0). */
static void plain_repeat(plain_bench* b, int i)
{
    const double naive = time_loop(naive_loop, b);
    const double rows = b->has_rows ? time_loop(plain_gather_rows, b) : 0;
    if (i >= 0) {
        b->naive_samples[i] = naive;
        b->rows_samples[i] = rows;
    }
}

/* The best plain-C loop's median seconds, after checking that both loops
 * and the operator wrote the same bytes: a wrong baseline, or a wrong
 * operator, would make the ratio meaningless. */
static double plain_seconds(plain_bench* b, DMLCommandQueue queue, DMLBuffer buffer, uint64_t out_at, int repetitions)
{
    check(dmlCommandQueueReadBuffer(queue, buffer, out_at, b->expected, b->out_bytes), "ReadBuffer");
    if (b->has_rows) {
        if (memcmp(b->out, b->expected, b->out_bytes) != 0) {
            fprintf(stderr, "dmlbench: the operator's output differs from the per-row memcpy loop's\n");
            exit(1);
        }
        memset(b->out, 0, b->out_bytes);
    }
    plain_gather_naive(&b->g, b->out, b->in);
    if (memcmp(b->out, b->expected, b->out_bytes) != 0) {
        fprintf(stderr, "dmlbench: the operator's output differs from the plain-C loop's\n");
        exit(1);
    }
    const double naive = summarize(b->naive_samples, repetitions).median;
    const double rows = b->has_rows ? summarize(b->rows_samples, repetitions).median : 0;
    return (rows > 0 && rows < naive ? rows : naive) * 1e-9;
}

static int run_case(DMLDevice device, DMLCommandQueue queue, DMLCommandRecorder recorder, copy_pool* pool,
    const bench_options* o, const case_entry* entry, unsigned element_size, uint64_t bytes, result* res)
{
    built_case c;
    memset(&c, 0, sizeof c);
    DML_TENSOR_DATA_TYPE type = type_of_size(element_size);
    uint64_t n = bytes / element_size;
    if (n == 0 || entry->build(&c, type, n) != 0) {
        free(c.lengths_data);
        return -1;
    }
    uint64_t out_elements = 1;
    for (UINT i = 0; i < c.out.buffer.DimensionCount; ++i)
        out_elements *= c.out.sizes[i];
    c.bytes_written = out_elements * element_size;
    /* Bytes read: every element the operator loads, once (a broadcast row once). */
    c.bytes_read = entry->build == case_broadcast ? c.in.sizes[1] * (uint64_t)element_size : c.bytes_written;
    if (c.inputs == 2)
        c.bytes_read += c.lengths.buffer.TotalTensorSizeInBytes;

    const uint64_t in_bytes = (c.in.buffer.TotalTensorSizeInBytes + 255) & ~(uint64_t)255;
    const uint64_t len_bytes = c.inputs == 2 ? (c.lengths.buffer.TotalTensorSizeInBytes + 255) & ~(uint64_t)255 : 0;
    const uint64_t out_bytes = c.out.buffer.TotalTensorSizeInBytes;
    DMLBuffer buffer;
    DMLOperator op;
    DMLCompiledOperator compiled;
    DMLBindingTable table;
    check(dmlDeviceCreateBuffer(device, in_bytes + len_bytes + out_bytes, &buffer), "CreateBuffer");
    dmlSetName(buffer, entry->name);
    /* Input: a byte pattern, written in 16 MiB pieces. */
    {
        const uint64_t piece = 16u << 20;
        unsigned char* host = malloc(piece);
        for (uint64_t i = 0; i < piece; ++i)
            host[i] = (unsigned char)(i * 131u + 7u);
        for (uint64_t at = 0; at < in_bytes; at += piece)
            check(dmlCommandQueueWriteBuffer(queue, buffer, at, host, in_bytes - at < piece ? in_bytes - at : piece),
                "WriteBuffer");
        free(host);
    }
    if (c.inputs == 2)
        check(dmlCommandQueueWriteBuffer(queue, buffer, in_bytes, c.lengths_data,
                  c.lengths.buffer.TotalTensorSizeInBytes),
            "WriteBuffer");
    check(dmlDeviceCreateOperator(device, &c.desc, &op), "CreateOperator");
    dmlSetName(op, entry->name);
    check(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled), "CompileOperator");
    DML_BINDING_TABLE_DESC td = { compiled };
    check(dmlDeviceCreateBindingTable(device, &td, &table), "CreateBindingTable");
    DML_BUFFER_BINDING in[2] = { { buffer, 0, c.in.buffer.TotalTensorSizeInBytes },
        { buffer, in_bytes, c.lengths.buffer.TotalTensorSizeInBytes } };
    DML_BUFFER_BINDING out = { buffer, in_bytes + len_bytes, out_bytes };
    DML_BINDING_DESC in_desc[2] = { { DML_BINDING_TYPE_BUFFER, &in[0] }, { DML_BINDING_TYPE_BUFFER, &in[1] } };
    DML_BINDING_DESC out_desc = { DML_BINDING_TYPE_BUFFER, &out };
    check(dmlBindingTableBindInputs(table, c.inputs, in_desc), "BindInputs");
    check(dmlBindingTableBindOutputs(table, 1, &out_desc), "BindOutputs");

    /* The copy baseline, same traffic: (read + written) / 2 bytes each way.
     * On the CPU its repetitions alternate with the operator's, so both see
     * the same machine state (frequency, neighbours), and it is the faster
     * of memcpy on one thread and memcpy split over the row's threads (below
     * a few hundred KiB waking threads costs more than it saves). */
    const uint64_t copy_bytes = (c.bytes_read + c.bytes_written) / 2;
    const int on_cuda = on_cuda_backend(o->backend);
    unsigned char *src = NULL, *dst = NULL;
    if (!on_cuda) {
        src = malloc(copy_bytes);
        dst = malloc(copy_bytes);
        if (src && dst) {
            memset(src, 1, copy_bytes);
            memset(dst, 2, copy_bytes);
        }
    }
    const unsigned copy_threads = o->threads ? o->threads : pool->threads;
    /* Small gathers only: the goal is for them, and the naive loop of a
     * large one would cost more bench time than the table. */
    plain_bench plain;
    const int with_plain = !on_cuda && bytes <= PLAIN_MAX_BYTES && plain_prepare(&plain, &c, element_size,
        o->repetitions);
    double* samples = calloc((size_t)o->repetitions, sizeof(double));
    double* copy_samples = calloc((size_t)o->repetitions, sizeof(double));
    double* single_samples = calloc((size_t)o->repetitions, sizeof(double));
    /* Each timed run follows an untimed run of the same work: interleaved,
     * the copies would evict the operator's data (and it theirs) from a
     * shared L3 at sizes of a few MiB, and the timed run would read from
     * memory where a host's repeated dispatch reads from cache. */
    for (int i = 0; i < o->warmup + o->repetitions; ++i) {
        check(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table), "RecordDispatch");
        check(dmlCommandQueueSynchronize(queue), "Synchronize");
        double t0 = now_ns();
        check(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table), "RecordDispatch");
        check(dmlCommandQueueSynchronize(queue), "Synchronize");
        const double op_ns = now_ns() - t0;
        double threaded_ns = 0, single_ns = 0;
        if (src && dst) {
            copy_pool_copy(pool, dst, src, copy_bytes, copy_threads);
            t0 = now_ns();
            copy_pool_copy(pool, dst, src, copy_bytes, copy_threads);
            threaded_ns = now_ns() - t0;
            memcpy(dst, src, copy_bytes);
            t0 = now_ns();
            memcpy(dst, src, copy_bytes);
            single_ns = now_ns() - t0;
        }
        if (with_plain)
            plain_repeat(&plain, i - o->warmup);
        if (i >= o->warmup) {
            samples[i - o->warmup] = op_ns;
            copy_samples[i - o->warmup] = threaded_ns;
            single_samples[i - o->warmup] = single_ns;
        }
    }
    res->seconds = summarize(samples, o->repetitions).median * 1e-9;
    if (src && dst) {
        const double threaded = summarize(copy_samples, o->repetitions).median;
        const double single = summarize(single_samples, o->repetitions).median;
        res->copy_seconds = (threaded < single ? threaded : single) * 1e-9;
    } else {
        res->copy_seconds = -1;
    }
    free(src);
    free(dst);
    free(copy_samples);
    free(single_samples);
    if (on_cuda) {
#ifdef DML_BENCH_CUDA
        double ms = cuda_copy_ms(copy_bytes, o->warmup, o->repetitions);
        res->copy_seconds = ms < 0 ? -1 : ms * 1e-3;
#endif
    }
    res->plain_seconds = 0;
    if (with_plain) {
        res->plain_seconds = plain_seconds(&plain, queue, buffer, in_bytes + len_bytes, o->repetitions);
        plain_free(&plain);
    }
    res->bytes_read = c.bytes_read;
    res->bytes_written = c.bytes_written;
    free(samples);
    dmlRelease(table);
    dmlRelease(compiled);
    dmlRelease(op);
    dmlRelease(buffer);
    free(c.lengths_data);
    return 0;
}

static uint64_t parse_size(const char* text)
{
    char* end;
    double value = strtod(text, &end);
    switch (*end) {
    case 'k': case 'K': value *= 1024; break;
    case 'm': case 'M': value *= 1024 * 1024; break;
    case 'g': case 'G': value *= 1024.0 * 1024 * 1024; break;
    default: break;
    }
    return (uint64_t)value;
}

static void format_size(char* out, size_t size, uint64_t bytes)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(out, size, "%lluM", (unsigned long long)(bytes >> 20));
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, size, "%lluK", (unsigned long long)(bytes >> 10));
    else
        snprintf(out, size, "%llu", (unsigned long long)bytes);
}

/* The machine line of a table: the adapter, and the copy bandwidth the
 * ratios are relative to, at 64 MiB on 1 .. N threads (bytes read + written). */
static void print_machine(DMLDevice device, copy_pool* pool, int csv)
{
    DML_ADAPTER_INFO info;
    memset(&info, 0, sizeof info);
    info.Size = sizeof info;
    dmlDeviceGetAdapterInfo(device, &info);
    const uint64_t bytes = 64u << 20;
    unsigned char* src = malloc(bytes);
    unsigned char* dst = malloc(bytes);
    if (!src || !dst) {
        free(src);
        free(dst);
        return;
    }
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    printf("%smachine: %s, %ld CPUs online; memcpy of 64 MiB, GB/s read + written:", csv ? "# " : "",
        info.Description, sysconf(_SC_NPROCESSORS_ONLN));
    for (unsigned k = 1; k <= pool->threads; ++k) {
        double samples[7];
        for (int i = 0; i < 8; ++i) {
            double t0 = now_ns();
            copy_pool_copy(pool, dst, src, bytes, k);
            if (i > 0)
                samples[i - 1] = now_ns() - t0;
        }
        printf(" %u thread%s %.1f", k, k == 1 ? "" : "s", 2.0 * (double)bytes / summarize(samples, 7).median);
    }
    printf("\n");
    free(src);
    free(dst);
}

static int throughput(bench_options* o, const char* case_list, const char* size_list, const char* type_list,
    const char* thread_list)
{
    uint64_t sizes[32];
    int size_count = 0;
    if (size_list) {
        char* copy = strdup(size_list);
        for (char* tok = strtok(copy, ","); tok && size_count < 32; tok = strtok(NULL, ","))
            sizes[size_count++] = parse_size(tok);
        free(copy);
    } else {
        const uint64_t defaults[] = { 4u << 10, 64u << 10, 1u << 20, 16u << 20, 64u << 20, 256u << 20 };
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; ++i)
            sizes[size_count++] = defaults[i];
    }
    unsigned types[4] = { 1, 2, 4, 8 };
    int type_count = 4;
    if (type_list) {
        type_count = 0;
        char* copy = strdup(type_list);
        for (char* tok = strtok(copy, ","); tok && type_count < 4; tok = strtok(NULL, ",")) {
            unsigned t = (unsigned)atoi(tok);
            if (t == 1 || t == 2 || t == 4 || t == 8)
                types[type_count++] = t;
        }
        free(copy);
    }
    int selected[CASE_COUNT];
    for (size_t i = 0; i < CASE_COUNT; ++i)
        selected[i] = case_list == NULL;
    if (case_list) {
        char* copy = strdup(case_list);
        for (char* tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
            size_t i = 0;
            while (i < CASE_COUNT && strcmp(cases[i].name, tok) != 0)
                ++i;
            if (i == CASE_COUNT) {
                fprintf(stderr, "dmlbench: unknown case '%s'; cases:", tok);
                for (size_t k = 0; k < CASE_COUNT; ++k)
                    fprintf(stderr, " %s", cases[k].name);
                fprintf(stderr, "\n");
                free(copy);
                return 2;
            }
            selected[i] = 1;
        }
        free(copy);
    }

    DML_DEVICE_DESC device_desc = { sizeof(DML_DEVICE_DESC), o->backend, 0, DML_CREATE_DEVICE_FLAG_NONE,
        DML_FEATURE_LEVEL_5_0 };
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    check(dmlCreateDevice(&device_desc, &device), "CreateDevice");
    check(dmlDeviceCreateCommandQueue(device, NULL, &queue), "CreateCommandQueue");
    check(dmlDeviceCreateCommandRecorder(device, &recorder), "CreateCommandRecorder");
    copy_pool pool;
    copy_pool_start(&pool);
    /* Thread caps: "all" is 1 .. the backend's count; none given: the
     * backend's default (rows say 0 when the backend has no cap). */
    unsigned caps[MAX_COPY_THREADS];
    int cap_count = 0;
    uint32_t in_use = 0;
    const int cappable = DML_SUCCEEDED(dmlDeviceSetThreadLimit(device, 0, &in_use));
    if (thread_list && cappable && !strcmp(thread_list, "all")) {
        for (unsigned k = 1; k <= in_use && cap_count < MAX_COPY_THREADS; ++k)
            caps[cap_count++] = k;
    } else if (thread_list && cappable) {
        char* copy = strdup(thread_list);
        for (char* tok = strtok(copy, ","); tok && cap_count < MAX_COPY_THREADS; tok = strtok(NULL, ","))
            if (atoi(tok) > 0)
                caps[cap_count++] = (unsigned)atoi(tok);
        free(copy);
    }
    if (cap_count == 0)
        caps[cap_count++] = 0;
    const char* backend = o->backend ? o->backend : "default";
    if (!on_cuda_backend(o->backend))
        print_machine(device, &pool, o->csv);
    if (o->csv)
        printf("backend,case,element_size,bytes,threads,median_us,gbps,copy_gbps,ratio,plain_c_ratio\n");
    else
        printf("dmlbench: backend %s, median of %d after %d warm-up; copy baseline: the faster of memcpy on 1 thread\n"
               "and memcpy split over the row's threads (thr), same run; vs_C: time over the best plain-C loop's\n"
               "(a naive per-element loop, a per-row memcpy loop; sizes <= 4 MiB), same run (goal <= 1.2 at <= 256K)\n"
               "%-17s %4s %6s %3s %12s %9s %9s %7s %6s\n",
            backend, o->repetitions, o->warmup, "case", "elem", "size", "thr", "median_us", "GB/s", "copyGB/s",
            "ratio", "vs_C");
    for (size_t k = 0; k < CASE_COUNT; ++k) {
        if (!selected[k])
            continue;
        for (int t = 0; t < type_count; ++t) {
            for (int s = 0; s < size_count; ++s)
                for (int h = 0; h < cap_count; ++h) {
                result r;
                o->threads = caps[h] ? caps[h] : in_use; /* 0: the backend's own count (0 on CUDA) */
                if (caps[h])
                    check(dmlDeviceSetThreadLimit(device, caps[h], &o->threads), "SetThreadLimit");
                if (run_case(device, queue, recorder, &pool, o, &cases[k], types[t], sizes[s], &r) != 0)
                    continue;
                const double traffic = (double)(r.bytes_read + r.bytes_written);
                const double gbps = traffic / r.seconds * 1e-9;
                const double copy_gbps = r.copy_seconds > 0 ? traffic / r.copy_seconds * 1e-9 : 0;
                const double ratio = copy_gbps > 0 ? gbps / copy_gbps : 0;
                char size_text[32];
                format_size(size_text, sizeof size_text, sizes[s]);
                const double vs_c = r.plain_seconds > 0 ? r.seconds / r.plain_seconds : 0;
                char vs_c_text[16] = "-";
                if (vs_c > 0)
                    snprintf(vs_c_text, sizeof vs_c_text, "%.2f", vs_c);
                if (o->csv)
                    printf("%s,%s,%u,%llu,%u,%.3f,%.3f,%.3f,%.3f,%s\n", backend, cases[k].name, types[t],
                        (unsigned long long)sizes[s], o->threads, r.seconds * 1e6, gbps, copy_gbps, ratio,
                        vs_c > 0 ? vs_c_text : "");
                else if (copy_gbps > 0)
                    printf("%-17s %4u %6s %3u %12.1f %9.2f %9.2f %7.2f %6s\n", cases[k].name, types[t], size_text,
                        o->threads, r.seconds * 1e6, gbps, copy_gbps, ratio, vs_c_text);
                else
                    printf("%-17s %4u %6s %3u %12.1f %9.2f %9s %7s %6s\n", cases[k].name, types[t], size_text,
                        o->threads, r.seconds * 1e6, gbps, "n/a", "n/a", vs_c_text);
                fflush(stdout);
            }
        }
    }
    copy_pool_stop(&pool);
    dmlRelease(recorder);
    dmlRelease(queue);
    dmlRelease(device);
    return 0;
}

static void usage(FILE* out)
{
    fprintf(out,
        "usage: dmlbench [--backend NAME] [--case NAME,...] [--size BYTES,...] [--type-size 1,2,4,8]\n"
        "                [--threads N,...|all] [--repetitions N] [--warmup N] [--csv]\n"
        "       dmlbench --cpu-table [options]   (= --backend cpu --size 256K,4M,64M --threads all)\n"
        "       dmlbench --overhead [--backend NAME] [--repetitions N]\n"
        "       dmlbench --graph [--backend NAME] [--size BYTES] [--repetitions N] [--warmup N]\n"
        "       dmlbench --gpu-table [--gpu-case OPERATOR:ELEMENT_SIZE:PATTERN] [--size 64M,1G] [--type-size ...]\n"
        "                [--repetitions N (20..)] [--warmup N] [--csv]   (profiling/bench_cuda.c)\n"
        "Times each case as GB/s and as a ratio to a copy of the same bytes measured in\n"
        "the same run; --overhead times the host cost of the API calls.\n"
        "cases:");
    for (size_t k = 0; k < CASE_COUNT; ++k)
        fprintf(out, " %s", cases[k].name);
    fprintf(out, "\n");
}

/* A wrong command line: say what was wrong, then the usage, exit status 2. */
static int bad_usage(const char* what, const char* arg)
{
    fprintf(stderr, "dmlbench: %s '%s' (try --help)\n", what, arg);
    usage(stderr);
    return 2;
}

int main(int argc, char** argv)
{
    bench_options o = { NULL, -1, 2, 0, 0 };
    const char *case_list = NULL, *size_list = NULL, *type_list = NULL, *thread_list = NULL, *gpu_case = NULL;
    int mode_overhead = 0, mode_gpu = 0, mode_graph = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--overhead"))
            mode_overhead = 1;
        else if (!strcmp(argv[i], "--graph"))
            mode_graph = 1;
        else if (!strcmp(argv[i], "--gpu-table"))
            mode_gpu = 1;
        else if (!strcmp(argv[i], "--gpu-case") && i + 1 < argc)
            mode_gpu = 1, gpu_case = argv[++i];
        else if (!strcmp(argv[i], "--csv"))
            o.csv = 1;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            o.backend = argv[++i];
        else if (!strcmp(argv[i], "--repetitions") && i + 1 < argc)
            o.repetitions = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
            o.warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--case") && i + 1 < argc)
            case_list = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size_list = argv[++i];
        else if (!strcmp(argv[i], "--type-size") && i + 1 < argc)
            type_list = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            thread_list = argv[++i];
        else if (!strcmp(argv[i], "--cpu-table")) {
            /* The CPU table of profiling/README.md: later options override. */
            o.backend = "cpu";
            size_list = "256K,4M,64M";
            thread_list = "all";
        } else
            return bad_usage("unknown option, or an option without its value:", argv[i]);
    }
    if (mode_gpu) {
#ifdef DML_BENCH_CUDA
        bench_cuda_options g = { gpu_case, size_list, type_list, o.repetitions == -1 ? 20 : o.repetitions, o.warmup,
            o.csv };
        return bench_cuda_table(&g);
#else
        fprintf(stderr, "dmlbench: --gpu-table needs a build with the CUDA toolkit\n");
        return 2;
#endif
    }
    if (o.repetitions == -1)
        o.repetitions = mode_overhead ? 10000 : 11;
    if (o.repetitions < 1 || o.warmup < 0)
        return bad_usage("out of range (--repetitions >= 1, --warmup >= 0):",
            o.repetitions < 1 ? "--repetitions" : "--warmup");
    if (mode_overhead)
        return overhead(o.backend, o.repetitions);
    if (mode_graph)
        return bench_graph(o.backend, size_list ? parse_size(size_list) : (uint64_t)64 << 20, o.repetitions, o.warmup);
    return throughput(&o, case_list, size_list, type_list, thread_list);
}
