/*
 * bench_cuda.c — dmlbench --gpu-table: the operators on the "cuda" backend
 * against cudaMemcpyAsync device to device, timed the same way:
 *
 *   - both on one stream of ours (the queue's native queue), each repetition
 *     between two CUDA events; the stream is held by a host function until
 *     every repetition is enqueued, so no host-side gap (RecordDispatch's own
 *     cost included) is timed on either side;
 *   - medians of --repetitions (at least 20) after --warmup;
 *   - working sets of at least 4x the L2 cache: below that, repetitions
 *     rotate over several buffer sets (each its own input, lengths and
 *     output, and its own copy source and destination);
 *   - every case of dmlcoalesce (gather_cases.c: operators x element sizes x
 *     patterns, rows of 1024 bytes) at outputs of 64 MiB and 1 GiB.
 *
 * Bytes moved: written = the output's elements; read = the input elements
 * loaded (a broadcast row once) plus the sequence lengths. The copy moves
 * (read + written) / 2 bytes, the same traffic. fraction = copy time /
 * operator time. CSV columns are printed in the header line.
 *
 * --gpu-table tensorflow (bench_cuda_tensorflow): instead, the TensorFlow
 * plugin's ops as the runtime operators it makes of them (tf_cases.c:
 * compare_tensorflow.py's cases, float32, 64 MiB of input), the same way,
 * as a Markdown table of copy time / op time; --gpu-case NAME runs one.
 *
 * --gpu-case OPERATOR:ELEMENT_SIZE:PATTERN runs one case, its stream not held
 * (profilers serialise launches), after printing the emulator's prediction
 * for its launch: "prediction,NAME,dram_read,dram_write,ld_requests,
 * ld_sectors,st_requests,st_sectors" (tests/gpu/summarize.py compares it with
 * ncu's counters).
 */
#include "bench_cuda.h"

#include <cuda_runtime_api.h>
#include <dml/dml.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data_type.h"
#include "dmlbench.h"
#include "emulator.h"
#include "gather_cases.h"
#include "launch.h"
#include "tf_cases.h"

#define ALIGN 256
#define MIN_REPETITIONS 20
/* Everything is enqueued behind a held stream: stay well inside CUDA's
 * queue of pending work (about a thousand entries, six per repetition). */
#define MAX_REPETITIONS 100

static int cuda_ok(cudaError_t e, const char* what)
{
    if (e == cudaSuccess)
        return 1;
    fprintf(stderr, "dmlbench: %s: %s\n", what, cudaGetErrorString(e));
    return 0;
}

static int dml_ok(DML_RESULT r, const char* what)
{
    if (r == DML_S_OK)
        return 1;
    fprintf(stderr, "dmlbench: %s: 0x%08x: %s\n", what, (unsigned)r, dmlGetLastErrorMessage());
    return 0;
}

static uint64_t round_up(uint64_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

static int compare_float(const void* a, const void* b)
{
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

static double median_ms(float* samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, compare_float);
    return n % 2 ? samples[n / 2] : 0.5 * ((double)samples[n / 2 - 1] + samples[n / 2]);
}

/* The stream waits in this host function until the host has enqueued every
 * repetition. */
static void CUDART_CB hold(void* flag)
{
    while (!atomic_load((atomic_int*)flag))
        ;
}

typedef struct gpu {
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    cudaStream_t stream;
    uint64_t l2_bytes;
    int sms;
    dml_cuda_limits limits; /* as the CUDA backend reads them: the launches it plans */
    char name[256];
} gpu;

typedef struct row {
    double op_ms, copy_ms;
    uint64_t read, written;
    uint32_t sets;
    uint64_t working_set;
} row;

/* Lengths for a set, per the case's kind (gather_cases.h). */
static void fill_lengths(const gather_case* c, unsigned char* host, uint64_t bytes, uint64_t seed)
{
    uint64_t axis_size = c->in_sizes[c->axis], state = seed;
    for (uint64_t at = 0; at + c->lengths_size <= bytes; at += c->lengths_size) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = c->length_kind == GATHER_LENGTHS_FULL ? axis_size
            : c->length_kind == GATHER_LENGTHS_ZERO        ? 0
                                                           : (state >> 33) % (axis_size + 1);
        if (c->lengths_size == 8)
            memcpy(host + at, &v, 8);
        else {
            uint32_t v32 = (uint32_t)v;
            memcpy(host + at, &v32, 4);
        }
    }
}

/* What run_case binds and times: the operator, its tensors' sizes (a
 * gather's second input is its sequence lengths, filled per set from
 * lengths_case; JOIN's and SPLIT's are their parts; `fill`, when given,
 * writes each input's host bytes per set) and the bytes it moves. */
#define BENCH_TENSORS 4
typedef void (*bench_fill_fn)(const void* context, uint32_t input, unsigned char* host, uint64_t seed);
typedef struct bench_op {
    const DML_OPERATOR_DESC* desc;
    uint32_t inputs, outputs; /* at most BENCH_TENSORS each */
    uint64_t in_bytes[BENCH_TENSORS], out_bytes[BENCH_TENSORS];
    uint64_t read, written;
    const gather_case* lengths_case;
    bench_fill_fn fill;
    const void* fill_context;
} bench_op;

/* A gather case as a bench_op (d holds its desc). */
static bench_op gather_op(const gather_case* c, const gather_desc* d, const dml_plan* plan)
{
    bench_op op = { &d->desc, 1, 1, { gather_tensor_bytes(c, 0), gather_tensor_bytes(c, 1) },
        { gather_tensor_bytes(c, 2), 0 }, 0, 0, c, NULL, NULL };
    op.inputs = op.in_bytes[1] ? 2 : 1;
    op.written = plan->element_count * plan->element_size;
    op.read = (op.in_bytes[0] < op.written ? op.in_bytes[0] : op.written) + op.in_bytes[1];
    return op;
}

/* A set's tensors, one after the other: the inputs, the outputs, then the
 * copy's source and destination. */
typedef struct set_layout {
    uint64_t in_at[BENCH_TENSORS], out_at[BENCH_TENSORS], copy_at, bytes;
} set_layout;

static set_layout layout_set(const bench_op* bop, uint64_t copy_bytes)
{
    set_layout l;
    uint64_t at = 0;
    for (uint32_t i = 0; i < bop->inputs; i++) {
        l.in_at[i] = at;
        at += round_up(bop->in_bytes[i]);
    }
    for (uint32_t o = 0; o < bop->outputs; o++) {
        l.out_at[o] = at;
        at += round_up(bop->out_bytes[o]);
    }
    l.copy_at = at;
    l.bytes = at + 2 * round_up(copy_bytes);
    return l;
}

/* Writes set s's inputs that the case fills from the host (a gather's
 * lengths, or each input by its fill), through `host`, which holds the
 * largest input. */
static int upload_inputs(const bench_op* bop, unsigned char* set, const set_layout* l, unsigned char* host,
    uint64_t s)
{
    const gather_case* c = bop->lengths_case;
    if (c && bop->in_bytes[1]) {
        fill_lengths(c, host, bop->in_bytes[1], s + 1);
        return cuda_ok(cudaMemcpy(set + l->in_at[1], host, bop->in_bytes[1], cudaMemcpyHostToDevice), "lengths");
    }
    for (uint32_t i = 0; bop->fill && i < bop->inputs; i++) {
        bop->fill(bop->fill_context, i, host, s + 1);
        if (!cuda_ok(cudaMemcpy(set + l->in_at[i], host, bop->in_bytes[i], cudaMemcpyHostToDevice), "inputs"))
            return 0;
    }
    return 1;
}

/* One case: the operator and the copy, interleaved repetition by repetition. */
static int run_case(gpu* g, const bench_cuda_options* o, const bench_op* bop, row* r)
{
    r->written = bop->written;
    r->read = bop->read;
    const uint64_t copy_bytes = (r->read + r->written) / 2;
    const set_layout layout = layout_set(bop, copy_bytes);
    const uint64_t set_bytes = layout.bytes;
    uint64_t op_bytes = 0, largest_input = 1;
    for (uint32_t i = 0; i < bop->inputs; i++) {
        op_bytes += bop->in_bytes[i];
        largest_input = bop->in_bytes[i] > largest_input ? bop->in_bytes[i] : largest_input;
    }
    for (uint32_t k = 0; k < bop->outputs; k++)
        op_bytes += bop->out_bytes[k];
    /* Enough sets that the operator's rotation and the copy's each cover 4x L2. */
    const uint64_t target = 4 * g->l2_bytes;
    uint64_t sets = (target + op_bytes - 1) / op_bytes, copy_sets = (target + 2 * copy_bytes - 1) / (2 * copy_bytes);
    if (copy_sets > sets)
        sets = copy_sets;
    if (sets < 1)
        sets = 1;
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    if (sets * set_bytes > free_bytes * 9 / 10) {
        fprintf(stderr, "dmlbench: %llu bytes do not fit in the GPU's free %zu\n",
            (unsigned long long)(sets * set_bytes), free_bytes);
        return -1;
    }
    r->sets = (uint32_t)sets;
    r->working_set = sets * op_bytes; /* the operator's rotation */

    unsigned char* memory = NULL;
    DMLBuffer buffer = NULL;
    DMLOperator op = NULL;
    DMLCompiledOperator compiled = NULL;
    DMLBindingTable* tables = calloc(sets, sizeof *tables);
    int repetitions = o->repetitions, total = o->warmup + repetitions;
    cudaEvent_t* events = calloc((size_t)total * 4, sizeof *events);
    float* op_samples = calloc((size_t)repetitions, sizeof(float));
    float* copy_samples = calloc((size_t)repetitions, sizeof(float));
    const int uploads = (bop->lengths_case && bop->in_bytes[1]) || bop->fill;
    unsigned char* host = uploads ? malloc(largest_input) : NULL;
    int ok = tables && events && op_samples && copy_samples && (!uploads || host) &&
        cuda_ok(cudaMalloc((void**)&memory, sets * set_bytes), "cudaMalloc") &&
        cuda_ok(cudaMemsetAsync(memory, 0x5A, sets * set_bytes, g->stream), "cudaMemset") &&
        /* before the inputs are copied in (our stream does not wait for the legacy one) */
        cuda_ok(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize") &&
        dml_ok(dmlDeviceWrapBuffer(g->device, memory, sets * set_bytes, &buffer), "WrapBuffer") &&
        dml_ok(dmlDeviceCreateOperator(g->device, bop->desc, &op), "CreateOperator") &&
        dml_ok(dmlDeviceCompileOperator(g->device, op, DML_EXECUTION_FLAG_NONE, &compiled), "CompileOperator");
    for (uint64_t s = 0; ok && s < sets; s++) {
        const uint64_t base = s * set_bytes;
        ok = !uploads || upload_inputs(bop, memory + base, &layout, host, s);
        DML_BINDING_TABLE_DESC td = { compiled };
        DML_BUFFER_BINDING in[BENCH_TENSORS], out[BENCH_TENSORS];
        DML_BINDING_DESC in_desc[BENCH_TENSORS], out_desc[BENCH_TENSORS];
        for (uint32_t i = 0; i < bop->inputs; i++) {
            in[i] = (DML_BUFFER_BINDING){ buffer, base + layout.in_at[i], bop->in_bytes[i] };
            in_desc[i] = (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, &in[i] };
        }
        for (uint32_t k = 0; k < bop->outputs; k++) {
            out[k] = (DML_BUFFER_BINDING){ buffer, base + layout.out_at[k], bop->out_bytes[k] };
            out_desc[k] = (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, &out[k] };
        }
        ok = ok && dml_ok(dmlDeviceCreateBindingTable(g->device, &td, &tables[s]), "CreateBindingTable") &&
            dml_ok(dmlBindingTableBindInputs(tables[s], bop->inputs, in_desc), "BindInputs") &&
            dml_ok(dmlBindingTableBindOutputs(tables[s], bop->outputs, out_desc), "BindOutputs");
    }
    for (int i = 0; ok && i < total * 4; i++)
        ok = cuda_ok(cudaEventCreate(&events[i]), "cudaEventCreate");
    ok = ok && cuda_ok(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");

    /* Everything enqueued behind the host function, then released at once;
     * not for --gpu-case, which profilers run (they serialise launches, and a
     * held stream would never drain). */
    atomic_int go = 0;
    if (!o->only)
        ok = ok && cuda_ok(cudaLaunchHostFunc(g->stream, hold, &go), "cudaLaunchHostFunc");
    for (int i = 0; ok && i < total; i++) {
        unsigned char* copy_source = memory + (uint64_t)(i % (int)sets) * set_bytes + layout.copy_at;
        ok = cuda_ok(cudaEventRecord(events[4 * i], g->stream), "cudaEventRecord") &&
            dml_ok(dmlCommandRecorderRecordDispatch(g->recorder, g->queue, compiled, tables[i % (int)sets]),
                "RecordDispatch") &&
            cuda_ok(cudaEventRecord(events[4 * i + 1], g->stream), "cudaEventRecord") &&
            cuda_ok(cudaEventRecord(events[4 * i + 2], g->stream), "cudaEventRecord") &&
            cuda_ok(cudaMemcpyAsync(copy_source + round_up(copy_bytes), copy_source, copy_bytes,
                        cudaMemcpyDeviceToDevice, g->stream),
                "cudaMemcpyAsync") &&
            cuda_ok(cudaEventRecord(events[4 * i + 3], g->stream), "cudaEventRecord");
    }
    atomic_store(&go, 1);
    ok = cuda_ok(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize") && ok;
    for (int i = o->warmup; ok && i < total; i++)
        ok = cuda_ok(cudaEventElapsedTime(&op_samples[i - o->warmup], events[4 * i], events[4 * i + 1]), "elapsed") &&
            cuda_ok(cudaEventElapsedTime(&copy_samples[i - o->warmup], events[4 * i + 2], events[4 * i + 3]),
                "elapsed");
    if (ok) {
        r->op_ms = median_ms(op_samples, repetitions);
        r->copy_ms = median_ms(copy_samples, repetitions);
    }
    for (int i = 0; events && i < total * 4; i++)
        if (events[i])
            cudaEventDestroy(events[i]);
    for (uint64_t s = 0; tables && s < sets; s++)
        if (tables[s])
            dmlRelease(tables[s]);
    if (compiled)
        dmlRelease(compiled);
    if (op)
        dmlRelease(op);
    if (buffer)
        dmlRelease(buffer);
    cudaFree(memory);
    free(tables);
    free(events);
    free(op_samples);
    free(copy_samples);
    free(host);
    return ok ? 0 : -1;
}

/* --gpu-case: the emulator's prediction for the same launch (this GPU's SM
 * count), for ncu to be compared with (tests/gpu/summarize.py): DRAM bytes
 * (every input byte once, a broadcast row once, plus lengths; every output
 * element once) and the L1 sectors and requests of the global loads and
 * stores, counted per warp instruction as the hardware does. */
static int print_prediction(const gather_case* c, const dml_plan* plan, const dml_cuda_limits* limits,
    const char* name)
{
    gather_buffers b;
    const uint32_t offsets[3] = { 0, 0, 0 };
    if (gather_buffers_alloc(c, offsets, 1, &b) < 0)
        return -1;
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_plan_launch_on(plan, limits, &launch);
    dml_cuda_bind_launch(&launch, &args);
    dml_coalescing stats;
    memset(&stats, 0, sizeof stats);
    int r = launch.is_copy ? 0 : dml_cuda_emulate(&launch, &stats);
    uint64_t written = plan->element_count * plan->element_size, in_bytes = gather_tensor_bytes(c, 0);
    printf("prediction,%s,%llu,%llu,%llu,%llu,%llu,%llu\n", name,
        (unsigned long long)((in_bytes < written ? in_bytes : written) + gather_tensor_bytes(c, 1)),
        (unsigned long long)written, (unsigned long long)(stats.load_requests + stats.length_requests),
        (unsigned long long)(stats.load_sectors + stats.length_sectors), (unsigned long long)stats.store_requests,
        (unsigned long long)stats.store_sectors);
    gather_buffers_free(&b);
    return r;
}

/* --gpu-case on a PADDING case: the same prediction for its own kernel
 * (cuda/pad.cu), over exact-size host buffers. */
static int print_pad_prediction(const built_case* c, const dml_cuda_limits* limits, const char* name)
{
    dml_plan plan;
    if (dml_plan_from_desc(&c->desc, &plan) < 0)
        return -1;
    const uint64_t in_bytes = c->in.buffer.TotalTensorSizeInBytes, out_bytes = c->out.buffer.TotalTensorSizeInBytes;
    unsigned char* in = calloc(1, in_bytes ? in_bytes : 1);
    unsigned char* out = calloc(1, out_bytes ? out_bytes : 1);
    int r = -1;
    if (in && out) {
        dml_plan_args args = { in, NULL, out, in_bytes, 0, out_bytes, NULL, 0 };
        dml_cuda_launch launch;
        dml_cuda_plan_launch_on(&plan, limits, &launch);
        dml_cuda_bind_launch(&launch, &args);
        dml_coalescing stats;
        r = dml_cuda_emulate(&launch, &stats);
        printf("prediction,%s,%llu,%llu,%llu,%llu,%llu,%llu\n", name, (unsigned long long)in_bytes,
            (unsigned long long)(plan.element_count * plan.element_size), (unsigned long long)stats.load_requests,
            (unsigned long long)stats.load_sectors, (unsigned long long)stats.store_requests,
            (unsigned long long)stats.store_sectors);
    }
    free(in);
    free(out);
    return r;
}

static const char* mode_name(const dml_cuda_launch* l)
{
    if (l->is_copy)
        return "copy";
    switch (l->mode) {
    case DML_CUDA_MODE_SCALAR: return "scalar";
    case DML_CUDA_MODE_VECTOR: return "vector";
    case DML_CUDA_MODE_VECTOR_REVERSED: return "vector-reversed";
    default: return "mode";
    }
}

/* "1x2x3"; signed_values, when given, instead of v. */
static void join(char* out, size_t size, const uint32_t* v, const int32_t* signed_values, uint32_t n)
{
    size_t at = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < n && at < size; i++)
        at += signed_values ? (size_t)snprintf(out + at, size - at, "%s%d", i ? "x" : "", signed_values[i])
                            : (size_t)snprintf(out + at, size - at, "%s%u", i ? "x" : "", v[i]);
}

static int open_gpu(gpu* g)
{
    memset(g, 0, sizeof *g);
    int device = 0, l2 = 0, per_sm = 0, per_block = 0, reserved = 0;
    struct cudaDeviceProp prop;
    if (!cuda_ok(cudaSetDevice(0), "cudaSetDevice") || !cuda_ok(cudaGetDevice(&device), "cudaGetDevice") ||
        !cuda_ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size") ||
        !cuda_ok(cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, device), "SM count") ||
        !cuda_ok(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
            "shared memory per SM") ||
        !cuda_ok(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, device),
            "shared memory per block") ||
        !cuda_ok(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device),
            "reserved shared memory per block") ||
        !cuda_ok(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties"))
        return -1;
    /* As the CUDA backend keeps them (the launcher raises what is too low). */
    g->limits = (dml_cuda_limits){ g->sms > 0 ? (uint32_t)g->sms : 1, per_sm > 0 ? (uint32_t)per_sm : 0,
        per_block > 0 ? (uint32_t)per_block : 0, reserved > 0 ? (uint32_t)reserved : 0 };
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    g->l2_bytes = (uint64_t)l2;
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), "cuda", 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    if (!cuda_ok(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "cudaStreamCreate") ||
        !dml_ok(dmlCreateDevice(&dd, &g->device), "CreateDevice") ||
        !dml_ok(dmlDeviceCreateCommandQueue(g->device, g->stream, &g->queue), "CreateCommandQueue") ||
        !dml_ok(dmlDeviceCreateCommandRecorder(g->device, &g->recorder), "CreateCommandRecorder"))
        return -1;
    return 0;
}

/* ---- the other kinds: PADDING, JOIN and SPLIT (the throughput table's
 * cases, throughput_cases.c), CAST (here) ---------------------------------- */

static bench_op built_op(const built_case* c)
{
    bench_op op = { &c->desc, c->inputs ? c->inputs : 1, c->outputs ? c->outputs : 1,
        { c->in.buffer.TotalTensorSizeInBytes, c->inputs == 2 ? c->lengths.buffer.TotalTensorSizeInBytes : 0 },
        { c->out.buffer.TotalTensorSizeInBytes, c->outputs == 2 ? c->out2.buffer.TotalTensorSizeInBytes : 0 },
        c->bytes_read, c->bytes_written, NULL, NULL, NULL };
    return op;
}

/* CAST of a packed [R, 1024] tensor, the output about `bytes`. */
typedef struct cast_case {
    UINT sizes[2];
    DML_BUFFER_TENSOR_DESC in_buffer, out_buffer;
    DML_TENSOR_DESC in, out;
    DML_CAST_OPERATOR_DESC cast;
    DML_OPERATOR_DESC desc;
} cast_case;

static bench_op cast_op(cast_case* c, DML_TENSOR_DATA_TYPE from, DML_TENSOR_DATA_TYPE to, uint64_t bytes)
{
    const uint32_t in_e = dml_data_type_size(from), out_e = dml_data_type_size(to);
    c->sizes[1] = 1024;
    c->sizes[0] = (UINT)(bytes / (1024ull * out_e) ? bytes / (1024ull * out_e) : 1);
    const uint64_t elements = (uint64_t)c->sizes[0] * c->sizes[1];
    c->in_buffer = (DML_BUFFER_TENSOR_DESC){ from, DML_TENSOR_FLAG_NONE, 2, c->sizes, NULL, elements * in_e, 0 };
    c->out_buffer = (DML_BUFFER_TENSOR_DESC){ to, DML_TENSOR_FLAG_NONE, 2, c->sizes, NULL, elements * out_e, 0 };
    c->in = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &c->in_buffer };
    c->out = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &c->out_buffer };
    c->cast = (DML_CAST_OPERATOR_DESC){ &c->in, &c->out };
    c->desc = (DML_OPERATOR_DESC){ DML_OPERATOR_CAST, &c->cast };
    bench_op op = { &c->desc, 1, 1, { elements * in_e, 0 }, { elements * out_e, 0 }, elements * in_e,
        elements * out_e, NULL, NULL, NULL };
    return op;
}

/* "2x1024" */
static void shape_text(char* out, size_t size, const DML_TENSOR_DESC* t)
{
    const DML_BUFFER_TENSOR_DESC* b = t->Desc;
    join(out, size, b->Sizes, NULL, b->DimensionCount);
}

/* One row of the other kinds, in the table's columns (launch: the kind's
 * kernel, its geometry left blank). */
static void print_kind_row(const gpu* g, const bench_cuda_options* o, const char* op_name, uint32_t e,
    const char* pattern, uint64_t size, const char* kernel, const DML_TENSOR_DESC* in, const DML_TENSOR_DESC* out,
    const row* r)
{
    double traffic = (double)(r->read + r->written);
    double gbps = traffic / (r->op_ms * 1e-3) * 1e-9, copy_gbps = traffic / (r->copy_ms * 1e-3) * 1e-9;
    if (o->csv) {
        char in_sizes[96], out_sizes[96];
        shape_text(in_sizes, sizeof in_sizes, in);
        shape_text(out_sizes, sizeof out_sizes, out);
        printf("%s,%s,%u,%s,%llu,%llu,%llu,%u,%llu,%s,-,0,0,%.3f,%.2f,%.3f,%.2f,%.4f,%u,%s,,%s,,,,,-1,\n", g->name,
            op_name, e, pattern, (unsigned long long)size, (unsigned long long)r->written,
            (unsigned long long)r->read, r->sets, (unsigned long long)r->working_set, kernel, r->op_ms * 1e3, gbps,
            r->copy_ms * 1e3, copy_gbps, r->copy_ms / r->op_ms, ((const DML_BUFFER_TENSOR_DESC*)out->Desc)->DimensionCount,
            in_sizes, out_sizes);
    } else {
        char size_text[16];
        snprintf(size_text, sizeof size_text, "%lluM", (unsigned long long)(size >> 20));
        printf("%-20s %4u %-16s %6s %4u %-16s %10.1f %9.1f %9.1f %6.3f\n", op_name, e, pattern, size_text, r->sets,
            kernel, r->op_ms * 1e3, gbps, copy_gbps, r->copy_ms / r->op_ms);
    }
    fflush(stdout);
}

/* Times one case of the other kinds unless --gpu-case names another;
 * returns 1 when it failed, and counts it in *ran when it ran. */
static int run_kind_case(gpu* g, const bench_cuda_options* o, const bench_op* op, const char* op_name, uint32_t e,
    const char* pattern, uint64_t size, const char* kernel, const DML_TENSOR_DESC* in, const DML_TENSOR_DESC* out,
    int* ran)
{
    char name[96];
    snprintf(name, sizeof name, "%s:%u:%s", op_name, e, pattern);
    if (o->only && strcmp(o->only, name) != 0)
        return 0;
    row r;
    if (run_case(g, o, op, &r) < 0) {
        fprintf(stderr, "dmlbench: %s at %llu bytes failed\n", name, (unsigned long long)size);
        return 1;
    }
    (*ran)++;
    print_kind_row(g, o, op_name, e, pattern, size, kernel, in, out, &r);
    return 0;
}

/* PADDING in each mode, JOIN and SPLIT of two halves along the inner and the
 * outer axis, TILE, DEPTH_TO_SPACE1 and SPACE_TO_DEPTH1 (throughput_cases.c's
 * shapes), for each element size; CAST f32->f16, f16->f32, u8->f32,
 * f64->f32 (element size: the output's). Returns the failures. */
static int run_other_kinds(gpu* g, const bench_cuda_options* o, uint64_t size, const int* use_size, int* ran)
{
    static const struct {
        const char* entry;
        const char* op_name;
        const char* pattern;
        const char* kernel;
    } built[] = {
        { "pad_constant", "PADDING", "constant", "pad" }, { "pad_edge", "PADDING", "edge", "pad" },
        { "pad_reflect", "PADDING", "reflection", "pad" }, { "pad_symmetric", "PADDING", "symmetric", "pad" },
        { "join_inner", "JOIN", "inner", "group" }, { "join_outer", "JOIN", "outer", "group" },
        { "split_inner", "SPLIT", "inner", "group" }, { "split_outer", "SPLIT", "outer", "group" },
        { "tile", "TILE", "2x2", "gather" }, { "depth_to_space", "DEPTH_TO_SPACE1", "dcr-2", "gather" },
        { "space_to_depth", "SPACE_TO_DEPTH1", "dcr-2", "gather" },
    };
    int failures = 0;
    for (size_t k = 0; k < sizeof built / sizeof *built; k++)
        for (uint32_t e = 1; e <= 8; e *= 2) {
            const case_entry* entry = NULL;
            for (int i = 0; i < BENCH_CASE_COUNT; i++)
                if (!strcmp(bench_cases[i].name, built[k].entry))
                    entry = &bench_cases[i];
            built_case c;
            if (!use_size[e] || !entry || build_case(&c, entry, e, size) < 0)
                continue;
            const bench_op op = built_op(&c);
            char name[96];
            snprintf(name, sizeof name, "%s:%u:%s", built[k].op_name, e, built[k].pattern);
            if (o->only && !strcmp(o->only, name) && !strcmp(built[k].op_name, "PADDING") && print_pad_prediction(&c, &g->limits, name) < 0) {
                fprintf(stderr, "dmlbench: %s: the emulator's prediction failed\n", name);
                failures++;
            }
            failures += run_kind_case(g, o, &op, built[k].op_name, e, built[k].pattern, size, built[k].kernel,
                &c.in.desc, &c.out.desc, ran);
            free(c.lengths_data);
        }
    static const DML_TENSOR_DATA_TYPE casts[][2] = {
        { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16 },
        { DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT32 },
        { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT32 },
        { DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32 },
    };
    for (size_t k = 0; k < sizeof casts / sizeof *casts; k++) {
        const uint32_t e = dml_data_type_size(casts[k][1]);
        if (!use_size[e])
            continue;
        cast_case c;
        const bench_op op = cast_op(&c, casts[k][0], casts[k][1], size);
        char pattern[40];
        snprintf(pattern, sizeof pattern, "%s-%s", dml_data_type_short_name(casts[k][0]),
            dml_data_type_short_name(casts[k][1]));
        failures += run_kind_case(g, o, &op, "CAST", e, pattern, size, "cast", &c.in, &c.out, ran);
    }
    return failures;
}

/* ---- --gpu-table tensorflow: the TensorFlow plugin's ops (tf_cases.c) ---- */

static void fill_tf_input(const void* context, uint32_t input, unsigned char* host, uint64_t seed)
{
    tf_case_fill(context, input, host, seed);
}

static bench_op tf_op(const tf_case* c)
{
    bench_op op;
    memset(&op, 0, sizeof op);
    op.desc = &c->desc;
    op.inputs = c->inputs;
    op.outputs = c->outputs;
    for (uint32_t i = 0; i < c->inputs; i++)
        op.in_bytes[i] = c->in[i].buffer.TotalTensorSizeInBytes;
    for (uint32_t k = 0; k < c->outputs; k++)
        op.out_bytes[k] = c->out[k].buffer.TotalTensorSizeInBytes;
    op.read = c->read;
    op.written = c->written;
    op.fill = fill_tf_input;
    op.fill_context = c;
    return op;
}

/* compare_tensorflow.py's cases at `bytes` of input, each against
 * cudaMemcpyAsync of its traffic: a Markdown table (or CSV rows) and the
 * geometric mean of copy time / op time. Returns the failures. */
static int run_tensorflow_cases(gpu* g, const bench_cuda_options* o, uint64_t bytes, int* ran)
{
    tf_case* c = malloc(sizeof *c);
    if (!c)
        return 1;
    if (!o->csv)
        printf("\n%llu MiB of float32 input (compare_tensorflow.py's shapes); copy/op above 1: faster than the copy\n\n"
               "| op | runtime operator | MiB moved | op µs | cudaMemcpyAsync µs | copy/op |\n"
               "| --- | --- | ---: | ---: | ---: | ---: |\n",
            (unsigned long long)(bytes >> 20));
    int failures = 0, timed = 0;
    double log_sum = 0;
    for (int k = 0; k < tf_case_count(); k++) {
        tf_case_build(c, k, bytes);
        if (o->only && strcmp(o->only, c->name) != 0)
            continue;
        const bench_op op = tf_op(c);
        row r;
        if (run_case(g, o, &op, &r) < 0) {
            fprintf(stderr, "dmlbench: %s (%s) at %llu bytes failed\n", c->name, c->operator_name,
                (unsigned long long)bytes);
            failures++;
            continue;
        }
        (*ran)++;
        timed++;
        const double fraction = r.copy_ms / r.op_ms;
        log_sum += log(fraction);
        if (o->csv)
            printf("%s,%s,%s,%llu,%llu,%llu,%u,%.3f,%.3f,%.4f\n", g->name, c->name, c->operator_name,
                (unsigned long long)bytes, (unsigned long long)r.read, (unsigned long long)r.written, r.sets,
                r.op_ms * 1e3, r.copy_ms * 1e3, fraction);
        else
            printf("| %s | %s | %.1f | %.1f | %.1f | %.2f |\n", c->name, c->operator_name,
                (double)(r.read + r.written) / (1 << 20), r.op_ms * 1e3, r.copy_ms * 1e3, fraction);
        fflush(stdout);
    }
    if (!o->csv && timed)
        printf("\ngeometric mean copy/op at %llu MiB: %.2f over %d ops\n", (unsigned long long)(bytes >> 20),
            exp(log_sum / timed), timed);
    free(c);
    return failures;
}

int bench_cuda_tensorflow(const bench_cuda_options* o)
{
    if (o->repetitions < MIN_REPETITIONS || o->repetitions + o->warmup > MAX_REPETITIONS) {
        fprintf(stderr, "dmlbench --gpu-table: --repetitions %d, --warmup %d: at least %d repetitions, at most %d in all\n",
            o->repetitions, o->warmup, MIN_REPETITIONS, MAX_REPETITIONS);
        return 2;
    }
    gpu g;
    if (open_gpu(&g) < 0) {
        fprintf(stderr, "dmlbench --gpu-table tensorflow: needs a CUDA GPU and the cuda backend\n");
        return 1;
    }
    if (o->csv)
        printf("gpu,op,operator,input_bytes,read_bytes,written_bytes,sets,median_us,copy_median_us,fraction_of_copy\n");
    else
        printf("dmlbench --gpu-table tensorflow: %s, %d SMs, L2 %llu MiB; the TensorFlow plugin's ops as its runtime "
               "operators, medians of %d after %d warm-up; CUDA events on one stream; working sets >= 4x L2\n",
            g.name, g.sms, (unsigned long long)(g.l2_bytes >> 20), o->repetitions, o->warmup);
    int failures = 0, ran = 0;
    char* list = strdup(o->sizes ? o->sizes : "64M");
    for (char* t = strtok(list, ","); t; t = strtok(NULL, ","))
        failures += run_tensorflow_cases(&g, o, parse_size(t), &ran);
    free(list);
    dmlRelease(g.recorder);
    dmlRelease(g.queue);
    dmlRelease(g.device);
    cudaStreamDestroy(g.stream);
    if (o->only && ran == 0) {
        fprintf(stderr, "dmlbench: no TensorFlow case named %s (compare_tensorflow.py's names)\n", o->only);
        return 2;
    }
    return failures ? 1 : 0;
}

int bench_cuda_table(const bench_cuda_options* o)
{
    if (o->repetitions < MIN_REPETITIONS || o->repetitions + o->warmup > MAX_REPETITIONS) {
        fprintf(stderr, "dmlbench --gpu-table: --repetitions %d, --warmup %d: at least %d repetitions, at most %d in all\n",
            o->repetitions, o->warmup, MIN_REPETITIONS, MAX_REPETITIONS);
        return 2;
    }
    uint64_t sizes[8];
    int size_count = 0;
    char* list = strdup(o->sizes ? o->sizes : "64M,1G");
    for (char* t = strtok(list, ","); t && size_count < 8; t = strtok(NULL, ","))
        sizes[size_count++] = parse_size(t);
    free(list);
    int use_size[9] = { 0 };
    list = strdup(o->types ? o->types : "1,2,4,8");
    for (char* t = strtok(list, ","); t; t = strtok(NULL, ","))
        if (atoi(t) >= 1 && atoi(t) <= 8)
            use_size[atoi(t)] = 1;
    free(list);

    gpu g;
    if (open_gpu(&g) < 0) {
        fprintf(stderr, "dmlbench --gpu-table: needs a CUDA GPU and the cuda backend\n");
        return 1;
    }
    if (o->csv)
        printf("gpu,operator,element_size,pattern,size,out_bytes,read_bytes,sets,working_set,mode,index_bits,grid,"
               "block,median_us,gbps,copy_median_us,copy_gbps,fraction_of_copy,rank,in_sizes,in_strides,out_sizes,"
               "out_strides,offsets,window_sizes,window_strides,axis,lengths\n");
    else
        printf("dmlbench --gpu-table: %s, %d SMs, L2 %llu MiB; medians of %d after %d warm-up; CUDA events on one "
               "stream; working sets >= 4x L2\n%-20s %4s %-16s %6s %4s %-16s %10s %9s %9s %6s\n",
            g.name, g.sms, (unsigned long long)(g.l2_bytes >> 20), o->repetitions, o->warmup, "operator", "elem",
            "pattern", "size", "sets", "launch", "median_us", "GB/s", "copyGB/s", "frac");
    static const DML_OPERATOR_TYPE types[] = { DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE,
        DML_OPERATOR_REVERSE_SUBSEQUENCES };
    int failures = 0, ran = 0;
    for (int s = 0; s < size_count; s++)
        for (size_t t = 0; t < sizeof types / sizeof *types; t++)
            for (uint32_t e = 1; e <= 8; e *= 2)
                for (int pattern = 0; pattern < PATTERN_COUNT; pattern++) {
                    gather_case c;
                    if (!use_size[e] || !gather_pattern_case(types[t], e, pattern, sizes[s], 1024, &c))
                        continue;
                    char name[96];
                    snprintf(name, sizeof name, "%s:%u:%s", gather_operator_name(c.type), e,
                        gather_pattern_name(pattern));
                    if (o->only && strcmp(o->only, name) != 0)
                        continue;
                    dml_plan plan;
                    if (gather_case_compile(&c, &plan) < 0) {
                        fprintf(stderr, "dmlbench: %s: does not compile\n", name);
                        failures++;
                        continue;
                    }
                    /* The launch the plugin makes (for the table's launch column). */
                    dml_cuda_launch launch;
                    dml_cuda_plan_launch_on(&plan, &g.limits, &launch);
                    if (o->only && print_prediction(&c, &plan, &g.limits, name) < 0) {
                        fprintf(stderr, "dmlbench: %s: the emulator's prediction failed\n", name);
                        failures++;
                    }
                    gather_desc d;
                    gather_case_desc(&c, &d);
                    const bench_op bop = gather_op(&c, &d, &plan);
                    row r;
                    if (run_case(&g, o, &bop, &r) < 0) {
                        fprintf(stderr, "dmlbench: %s at %llu bytes failed\n", name, (unsigned long long)sizes[s]);
                        failures++;
                        continue;
                    }
                    ran++;
                    double traffic = (double)(r.read + r.written);
                    double gbps = traffic / (r.op_ms * 1e-3) * 1e-9, copy_gbps = traffic / (r.copy_ms * 1e-3) * 1e-9;
                    const char* bits = launch.is_copy ? "-" : launch.wide ? "64" : "32";
                    if (o->csv) {
                        char in_sizes[96], in_strides[96], out_sizes[96], out_strides[96], offsets[96], windows[96],
                            wstrides[96];
                        /* A packed tensor's strides follow its sizes (patterns resize packed inputs). */
                        uint32_t packed_in[GATHER_MAX_RANK], packed_out[GATHER_MAX_RANK];
                        gather_packed_strides(c.rank, c.in_sizes, packed_in);
                        gather_packed_strides(c.rank, c.out_sizes, packed_out);
                        join(in_sizes, sizeof in_sizes, c.in_sizes, NULL, c.rank);
                        join(in_strides, sizeof in_strides, c.in_packed ? packed_in : c.in_strides, NULL, c.rank);
                        join(out_sizes, sizeof out_sizes, c.out_sizes, NULL, c.rank);
                        join(out_strides, sizeof out_strides, c.out_packed ? packed_out : c.out_strides, NULL, c.rank);
                        join(offsets, sizeof offsets, c.offsets, NULL, c.rank);
                        join(windows, sizeof windows, c.type == DML_OPERATOR_SLICE1 ? c.window_sizes : c.out_sizes,
                            NULL, c.rank);
                        join(wstrides, sizeof wstrides, c.slice_strides,
                            c.type == DML_OPERATOR_SLICE1 ? c.window_strides : NULL, c.rank);
                        const char* lengths = c.type != DML_OPERATOR_REVERSE_SUBSEQUENCES ? ""
                            : c.length_kind == GATHER_LENGTHS_FULL                      ? "full"
                            : c.length_kind == GATHER_LENGTHS_ZERO                      ? "zero"
                                                                                        : "random";
                        printf("%s,%s,%u,%s,%llu,%llu,%llu,%u,%llu,%s,%s,%u,%u,%.3f,%.2f,%.3f,%.2f,%.4f,%u,%s,%s,%s,%s,"
                               "%s,%s,%s,%d,%s\n",
                            g.name, gather_operator_name(c.type), e, gather_pattern_name(pattern),
                            (unsigned long long)sizes[s], (unsigned long long)r.written, (unsigned long long)r.read,
                            r.sets, (unsigned long long)r.working_set, mode_name(&launch), bits, launch.grid,
                            launch.block, r.op_ms * 1e3, gbps, r.copy_ms * 1e3, copy_gbps, r.copy_ms / r.op_ms, c.rank,
                            in_sizes, in_strides, out_sizes, out_strides, offsets, windows, wstrides,
                            c.type == DML_OPERATOR_REVERSE_SUBSEQUENCES ? (int)c.axis : -1, lengths);
                    } else {
                        char launch_text[64], size_text[16];
                        snprintf(launch_text, sizeof launch_text, "%s/%s", mode_name(&launch), bits);
                        snprintf(size_text, sizeof size_text, "%lluM", (unsigned long long)(sizes[s] >> 20));
                        printf("%-20s %4u %-16s %6s %4u %-16s %10.1f %9.1f %9.1f %6.3f\n", gather_operator_name(c.type),
                            e, gather_pattern_name(pattern), size_text, r.sets, launch_text, r.op_ms * 1e3, gbps,
                            copy_gbps, r.copy_ms / r.op_ms);
                    }
                    fflush(stdout);
                }
    for (int s = 0; s < size_count; s++)
        failures += run_other_kinds(&g, o, sizes[s], use_size, &ran);
    dmlRelease(g.recorder);
    dmlRelease(g.queue);
    dmlRelease(g.device);
    cudaStreamDestroy(g.stream);
    if (o->only && ran == 0) {
        fprintf(stderr, "dmlbench: no case named %s (OPERATOR:ELEMENT_SIZE:PATTERN, as dmlcoalesce names them)\n", o->only);
        return 2;
    }
    return failures ? 1 : 0;
}
