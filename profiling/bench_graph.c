/*
 * bench_graph.c — `dmlbench --graph`: a chain of three gathers compiled as one
 * graph (fused into one pass) against the same three operators compiled and
 * dispatched one by one (three passes, intermediates in buffers), in the
 * same run, on the same input.
 *
 * The chain, over BYTES of float32 (default 64 MiB), viewed as R x C with
 * C = 4096: ELEMENT_WISE_IDENTITY (a reshape to R/16 x 16 x C, as ONNX
 * Reshape), SLICE1 (every row reversed: stride -1 on the last axis) and
 * REVERSE_SUBSEQUENCES (axis 1, one length per batch, broadcast over the
 * columns with stride 0, as hosts map ONNX ReverseSequence; lengths vary
 * 1..16). Reported: the median
 * time of RecordDispatch + Synchronize of each over the repetitions after the
 * warm-up runs, and separate / fused.
 */
#include "bench_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double graph_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void must(DML_RESULT r, const char* what)
{
    if (DML_FAILED(r)) {
        fprintf(stderr, "dmlbench --graph: %s failed: %s\n", what, dmlGetLastErrorMessage());
        exit(2);
    }
}

typedef struct gtensor {
    UINT sizes[3];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} gtensor;

static void gtensor_init(gtensor* t, UINT rank, const UINT* sizes)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    uint64_t n = 4;
    for (UINT i = 0; i < rank; ++i)
        n *= sizes[i];
    t->buffer = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, rank, t->sizes, NULL, n, 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

static DML_BINDING_DESC bind_range(DML_BUFFER_BINDING* b, DMLBuffer buffer, uint64_t offset, uint64_t size)
{
    *b = (DML_BUFFER_BINDING){ buffer, offset, size };
    return (DML_BINDING_DESC){ DML_BINDING_TYPE_BUFFER, b };
}

static double median_of(double* v, int n)
{
    for (int i = 1; i < n; ++i) /* insertion sort: n is small */
        for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_graph(const char* backend, uint64_t bytes, int repetitions, int warmup)
{
    const UINT C = 4096, S = 16;
    uint64_t rows = bytes / 4 / C;
    rows -= rows % S;
    if (rows == 0 || rows > UINT32_MAX) {
        fprintf(stderr, "dmlbench --graph: --size must be at least %u bytes\n", 4 * C * S);
        return 2;
    }
    const UINT R = (UINT)rows, B = R / S;
    uint64_t data_bytes = (uint64_t)R * C * 4;
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    must(dmlCreateDevice(&dd, &device), "dmlCreateDevice");
    must(dmlDeviceCreateCommandQueue(device, NULL, &queue), "CreateCommandQueue");
    must(dmlDeviceCreateCommandRecorder(device, &recorder), "CreateCommandRecorder");
    DML_ADAPTER_INFO adapter = { .Size = sizeof adapter };
    must(dmlDeviceGetAdapterInfo(device, &adapter), "GetAdapterInfo");

    /* The three operators. */
    UINT flat[2] = { R, C }, shaped[3] = { B, S, C }, len_sizes[3] = { B, 1, C };
    gtensor id_in, id_out, s_in, s_out, r_in, r_len, r_out;
    gtensor_init(&id_in, 2, flat);
    gtensor_init(&id_out, 2, flat);
    /* The reshape: the identity's output is read as B x S x C (same bytes). */
    gtensor_init(&s_in, 3, shaped);
    gtensor_init(&s_out, 3, shaped);
    gtensor_init(&r_in, 3, shaped);
    gtensor_init(&r_out, 3, shaped);
    gtensor_init(&r_len, 3, len_sizes);
    static const UINT per_batch[3] = { 1, 0, 0 }; /* one length per batch, broadcast */
    r_len.buffer.DataType = DML_TENSOR_DATA_TYPE_UINT32;
    r_len.buffer.Strides = per_batch;
    r_len.buffer.TotalTensorSizeInBytes = ((uint64_t)B * 4 + 3) & ~(uint64_t)3;
    UINT offsets[3] = { 0, 0, 0 }, window[3] = { B, S, C };
    INT strides[3] = { 1, 1, -1 };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &id_in.desc, &id_out.desc, NULL };
    DML_SLICE1_OPERATOR_DESC s1 = { &s_in.desc, &s_out.desc, 3, offsets, window, strides };
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &r_in.desc, &r_len.desc, &r_out.desc, 1 };
    DML_OPERATOR_DESC ods[3] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, { DML_OPERATOR_SLICE1, &s1 },
        { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs } };
    DMLOperator ops[3];
    DMLCompiledOperator single[3], fused;
    for (int k = 0; k < 3; ++k) {
        must(dmlDeviceCreateOperator(device, &ods[k], &ops[k]), "CreateOperator");
        must(dmlDeviceCompileOperator(device, ops[k], DML_EXECUTION_FLAG_NONE, &single[k]), "CompileOperator");
    }
    DML_OPERATOR_GRAPH_NODE_DESC on[3] = { { ops[0], "reshape" }, { ops[1], "reverse rows" }, { ops[2], "reverse" } };
    DML_GRAPH_NODE_DESC nodes[3] = { { DML_GRAPH_NODE_TYPE_OPERATOR, &on[0] }, { DML_GRAPH_NODE_TYPE_OPERATOR, &on[1] },
        { DML_GRAPH_NODE_TYPE_OPERATOR, &on[2] } };
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 0, 0, NULL }, i1 = { 1, 2, 1, NULL };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC m0 = { 0, 0, 1, 0, NULL }, m1 = { 1, 0, 2, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 2, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie[2] = { { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, { DML_GRAPH_EDGE_TYPE_INPUT, &i1 } };
    DML_GRAPH_EDGE_DESC me[2] = { { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m0 }, { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m1 } };
    DML_GRAPH_EDGE_DESC oe[1] = { { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 } };
    DML_GRAPH_DESC gd = { 2, 1, 3, nodes, 2, ie, 1, oe, 2, me };
    must(dmlDeviceCompileGraph(device, &gd, DML_EXECUTION_FLAG_NONE, &fused), "CompileGraph");
    DML_BINDING_PROPERTIES props = dmlDispatchableGetBindingProperties(fused);

    /* One buffer: input | lengths | intermediate 1 | intermediate 2 | output. */
    uint64_t len_bytes = ((uint64_t)B * 4 + 255) & ~(uint64_t)255;
    uint64_t at_in = 0, at_len = data_bytes, at_m1 = at_len + len_bytes, at_m2 = at_m1 + data_bytes,
             at_out = at_m2 + data_bytes, total = at_out + data_bytes;
    DMLBuffer buffer;
    must(dmlDeviceCreateBuffer(device, total, &buffer), "CreateBuffer");
    {
        uint32_t* lengths = malloc(len_bytes);
        for (uint64_t i = 0; i < len_bytes / 4; ++i)
            lengths[i] = 1 + (uint32_t)(i % S);
        must(dmlCommandQueueWriteBuffer(queue, buffer, at_len, lengths, (uint64_t)B * 4), "WriteBuffer");
        free(lengths);
        const uint64_t piece = 16u << 20;
        unsigned char* host = malloc(piece);
        for (uint64_t i = 0; i < piece; ++i)
            host[i] = (unsigned char)(i * 131u + 7u);
        for (uint64_t at = 0; at < data_bytes; at += piece)
            must(dmlCommandQueueWriteBuffer(queue, buffer, at_in + at, host,
                     data_bytes - at < piece ? data_bytes - at : piece), "WriteBuffer");
        free(host);
    }
    DML_BUFFER_BINDING bb[3];
    DML_BINDING_DESC bd[3];
    DMLBindingTable tables[3], fused_table;
    uint64_t ins[3] = { at_in, at_m1, at_m2 }, outs[3] = { at_m1, at_m2, at_out };
    for (int k = 0; k < 3; ++k) {
        DML_BINDING_TABLE_DESC td = { single[k] };
        must(dmlDeviceCreateBindingTable(device, &td, &tables[k]), "CreateBindingTable");
        bd[0] = bind_range(&bb[0], buffer, ins[k], data_bytes);
        bd[1] = bind_range(&bb[1], buffer, at_len, (uint64_t)B * 4);
        must(dmlBindingTableBindInputs(tables[k], k == 2 ? 2 : 1, bd), "BindInputs");
        bd[0] = bind_range(&bb[0], buffer, outs[k], data_bytes);
        must(dmlBindingTableBindOutputs(tables[k], 1, bd), "BindOutputs");
    }
    DML_BINDING_TABLE_DESC ftd = { fused };
    must(dmlDeviceCreateBindingTable(device, &ftd, &fused_table), "CreateBindingTable");
    bd[0] = bind_range(&bb[0], buffer, at_in, data_bytes);
    bd[1] = bind_range(&bb[1], buffer, at_len, (uint64_t)B * 4);
    must(dmlBindingTableBindInputs(fused_table, 2, bd), "BindInputs");
    bd[0] = bind_range(&bb[0], buffer, at_out, data_bytes);
    must(dmlBindingTableBindOutputs(fused_table, 1, bd), "BindOutputs");

    double* separate_ns = calloc((size_t)repetitions, sizeof(double));
    double* fused_ns = calloc((size_t)repetitions, sizeof(double));
    for (int rep = -warmup; rep < repetitions; ++rep) { /* interleaved: both see the same machine load */
        double t0 = graph_now_ns();
        for (int k = 0; k < 3; ++k)
            must(dmlCommandRecorderRecordDispatch(recorder, queue, single[k], tables[k]), "RecordDispatch");
        must(dmlCommandQueueSynchronize(queue), "Synchronize");
        double t1 = graph_now_ns();
        must(dmlCommandRecorderRecordDispatch(recorder, queue, fused, fused_table), "RecordDispatch");
        must(dmlCommandQueueSynchronize(queue), "Synchronize");
        double t2 = graph_now_ns();
        if (rep >= 0) {
            separate_ns[rep] = t1 - t0;
            fused_ns[rep] = t2 - t1;
        }
    }
    /* Both must have written the same output: compare 1 MiB at the start. */
    {
        uint64_t check_bytes = data_bytes < (1u << 20) ? data_bytes : (1u << 20);
        unsigned char* a = malloc(check_bytes);
        unsigned char* b = malloc(check_bytes);
        must(dmlCommandQueueReadBuffer(queue, buffer, at_out, a, check_bytes), "ReadBuffer");
        must(dmlCommandRecorderRecordDispatch(recorder, queue, single[2], tables[2]), "RecordDispatch");
        must(dmlCommandQueueReadBuffer(queue, buffer, at_out, b, check_bytes), "ReadBuffer");
        if (memcmp(a, b, check_bytes) != 0) {
            fprintf(stderr, "dmlbench --graph: the fused and separate outputs differ\n");
            return 1;
        }
        free(a);
        free(b);
    }
    double separate = median_of(separate_ns, repetitions), one = median_of(fused_ns, repetitions);
    printf("backend %s (%s), %d repetitions after %d warm-up\n", adapter.Backend, adapter.Description, repetitions,
        warmup);
    printf("chain of 3 gathers (IDENTITY reshape -> SLICE1 reversed rows -> REVERSE_SUBSEQUENCES), %llu MiB float32,"
           " fused temporary resource %llu bytes\n",
        (unsigned long long)(data_bytes >> 20), (unsigned long long)props.TemporaryResourceSize);
    printf("  separate (3 dispatches): %10.1f us\n", separate / 1e3);
    printf("  fused (1 graph):         %10.1f us\n", one / 1e3);
    printf("  separate / fused:        %10.2fx\n", separate / one);
    free(separate_ns);
    free(fused_ns);
    for (int k = 0; k < 3; ++k) {
        dmlRelease(tables[k]);
        dmlRelease(single[k]);
        dmlRelease(ops[k]);
    }
    dmlRelease(fused_table);
    dmlRelease(fused);
    dmlRelease(buffer);
    dmlRelease(recorder);
    dmlRelease(queue);
    dmlRelease(device);
    return 0;
}
