/*
 * test_cuda_graph_capture.c — RecordDispatch inside CUDA stream capture: the
 * host's stream is the queue's native queue, dispatches are captured into a
 * graph (global capture mode: any allocation or synchronisation on the
 * dispatch path would invalidate the capture), and the graph, launched twice
 * with new inputs written between launches, gives the operators' results.
 * Also: ReadBuffer (which must synchronise) inside capture fails cleanly,
 * without removing the device.
 *
 * Needs a GPU: exits 77 (skipped) without one.
 */
#include <cuda_runtime_api.h>
#include <dml/dml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIP 77

static int failures;

#define CHECK(cond, ...)                                      \
    do {                                                      \
        if (!(cond)) {                                        \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                     \
            fprintf(stderr, " (%s)\n", dmlGetLastErrorMessage()); \
            failures++;                                       \
            return;                                           \
        }                                                     \
    } while (0)

#define CHECK_OK(call) CHECK((call) == DML_S_OK, "%s", #call)
#define CHECK_CUDA(call) CHECK((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cudaGetLastError()))

static void tensor(DML_BUFFER_TENSOR_DESC* b, DML_TENSOR_DESC* t, DML_TENSOR_DATA_TYPE type, const uint32_t* sizes,
    uint64_t bytes)
{
    memset(b, 0, sizeof *b);
    b->DataType = type;
    b->DimensionCount = 4;
    b->Sizes = sizes;
    b->TotalTensorSizeInBytes = bytes;
    t->Type = DML_TENSOR_TYPE_BUFFER;
    t->Desc = b;
}

static DMLBindingTable bind(DMLDevice device, DMLCompiledOperator op, DMLBuffer* inputs, uint64_t* input_sizes,
    uint32_t input_count, DMLBuffer output, uint64_t output_size)
{
    DML_BINDING_TABLE_DESC td = { op };
    DMLBindingTable table = NULL;
    if (dmlDeviceCreateBindingTable(device, &td, &table) != DML_S_OK)
        return NULL;
    DML_BUFFER_BINDING ib[2];
    DML_BINDING_DESC id[2];
    for (uint32_t i = 0; i < input_count; i++) {
        ib[i] = (DML_BUFFER_BINDING) { inputs[i], 0, input_sizes[i] };
        id[i] = (DML_BINDING_DESC) { DML_BINDING_TYPE_BUFFER, &ib[i] };
    }
    DML_BUFFER_BINDING ob = { output, 0, output_size };
    DML_BINDING_DESC od = { DML_BINDING_TYPE_BUFFER, &ob };
    if (dmlBindingTableBindInputs(table, input_count, id) != DML_S_OK ||
        dmlBindingTableBindOutputs(table, 1, &od) != DML_S_OK) {
        dmlRelease(table);
        return NULL;
    }
    return table;
}

static void capture(void)
{
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), "cuda", 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    CHECK_OK(dmlCreateDevice(&dd, &device));
    cudaStream_t stream = NULL;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    DMLCommandQueue queue = NULL;
    DMLCommandRecorder recorder = NULL;
    CHECK_OK(dmlDeviceCreateCommandQueue(device, stream, &queue));
    CHECK_OK(dmlDeviceCreateCommandRecorder(device, &recorder));

    /* SLICE1 (operators.md): {1,1,4,4} FLOAT32, offsets {0,0,0,1}, window {1,1,4,3},
     * strides {1,1,-2,2} -> [[14,16],[6,8]] */
    static const uint32_t in_sizes[4] = { 1, 1, 4, 4 }, out_sizes[4] = { 1, 1, 2, 2 };
    static const uint32_t offsets[4] = { 0, 0, 0, 1 }, window[4] = { 1, 1, 4, 3 };
    static const int32_t strides[4] = { 1, 1, -2, 2 };
    DML_BUFFER_TENSOR_DESC bi, bo;
    DML_TENSOR_DESC ti, to;
    tensor(&bi, &ti, DML_TENSOR_DATA_TYPE_FLOAT32, in_sizes, 64);
    tensor(&bo, &to, DML_TENSOR_DATA_TYPE_FLOAT32, out_sizes, 16);
    DML_SLICE1_OPERATOR_DESC slice = { &ti, &to, 4, offsets, window, strides };
    DML_OPERATOR_DESC slice_desc = { DML_OPERATOR_SLICE1, &slice };

    /* REVERSE_SUBSEQUENCES (operators.md example 1), axis 3, lengths {2,4,3} */
    static const uint32_t rs_sizes[4] = { 1, 1, 3, 4 }, len_sizes[4] = { 1, 1, 3, 1 };
    DML_BUFFER_TENSOR_DESC bri, brl, bro;
    DML_TENSOR_DESC tri, trl, tro;
    tensor(&bri, &tri, DML_TENSOR_DATA_TYPE_FLOAT32, rs_sizes, 48);
    tensor(&brl, &trl, DML_TENSOR_DATA_TYPE_UINT32, len_sizes, 12);
    tensor(&bro, &tro, DML_TENSOR_DATA_TYPE_FLOAT32, rs_sizes, 48);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &tri, &trl, &tro, 3 };
    DML_OPERATOR_DESC rs_desc = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };

    DMLOperator ops[2] = { NULL, NULL };
    DMLCompiledOperator compiled[2] = { NULL, NULL };
    CHECK_OK(dmlDeviceCreateOperator(device, &slice_desc, &ops[0]));
    CHECK_OK(dmlDeviceCreateOperator(device, &rs_desc, &ops[1]));
    for (int i = 0; i < 2; i++)
        CHECK_OK(dmlDeviceCompileOperator(device, ops[i], DML_EXECUTION_FLAG_NONE, &compiled[i]));

    DMLBuffer s_in = NULL, s_out = NULL, r_in = NULL, r_len = NULL, r_out = NULL;
    CHECK_OK(dmlDeviceCreateBuffer(device, 64, &s_in));
    CHECK_OK(dmlDeviceCreateBuffer(device, 16, &s_out));
    CHECK_OK(dmlDeviceCreateBuffer(device, 48, &r_in));
    CHECK_OK(dmlDeviceCreateBuffer(device, 16, &r_len));
    CHECK_OK(dmlDeviceCreateBuffer(device, 48, &r_out));
    DMLBuffer slice_inputs[1] = { s_in }, rs_inputs[2] = { r_in, r_len };
    uint64_t slice_sizes[1] = { 64 }, rs_in_sizes[2] = { 48, 16 };
    DMLBindingTable t0 = bind(device, compiled[0], slice_inputs, slice_sizes, 1, s_out, 16);
    DMLBindingTable t1 = bind(device, compiled[1], rs_inputs, rs_in_sizes, 2, r_out, 48);
    CHECK(t0 && t1, "binding tables");

    float input[16];
    for (int i = 0; i < 16; i++)
        input[i] = (float)(i + 1);
    uint32_t lengths[4] = { 2, 4, 3, 0 };
    CHECK_OK(dmlCommandQueueWriteBuffer(queue, s_in, 0, input, sizeof input));
    CHECK_OK(dmlCommandQueueWriteBuffer(queue, r_in, 0, input, 48));
    CHECK_OK(dmlCommandQueueWriteBuffer(queue, r_len, 0, lengths, sizeof lengths));

    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    DML_RESULT d0 = dmlCommandRecorderRecordDispatch(recorder, queue, compiled[0], t0);
    DML_RESULT d1 = dmlCommandRecorderRecordDispatch(recorder, queue, compiled[1], t1);
    cudaGraph_t graph = NULL;
    cudaError_t end = cudaStreamEndCapture(stream, &graph);
    CHECK(d0 == DML_S_OK && d1 == DML_S_OK, "RecordDispatch inside capture: 0x%08x 0x%08x", (unsigned)d0,
        (unsigned)d1);
    CHECK(end == cudaSuccess && graph, "cudaStreamEndCapture: %s", cudaGetErrorString(end));
    size_t nodes = 0;
    CHECK_CUDA(cudaGraphGetNodes(graph, NULL, &nodes));
    CHECK(nodes == 2, "the graph has %zu nodes, expected 2 (one per dispatch)", nodes);
    cudaGraphExec_t exec = NULL;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

    for (int round = 0; round < 2; round++) {
        if (round == 1) { /* new inputs, same graph */
            for (int i = 0; i < 16; i++)
                input[i] = (float)(100 + i);
            CHECK_OK(dmlCommandQueueWriteBuffer(queue, s_in, 0, input, sizeof input));
            CHECK_OK(dmlCommandQueueWriteBuffer(queue, r_in, 0, input, 48));
        }
        CHECK_CUDA(cudaGraphLaunch(exec, stream));
        float s[4], r[12];
        CHECK_OK(dmlCommandQueueReadBuffer(queue, s_out, 0, s, sizeof s)); /* ordered after the graph */
        CHECK_OK(dmlCommandQueueReadBuffer(queue, r_out, 0, r, sizeof r));
        float base = round == 0 ? 1.0f : 100.0f;
        const int slice_expected[4] = { 13, 15, 5, 7 }; /* element indices of 14,16,6,8 */
        const int rs_expected[12] = { 1, 0, 2, 3, 7, 6, 5, 4, 10, 9, 8, 11 };
        for (int i = 0; i < 4; i++)
            CHECK(s[i] == base + (float)slice_expected[i], "round %d: slice[%d] = %g", round, i, (double)s[i]);
        for (int i = 0; i < 12; i++)
            CHECK(r[i] == base + (float)rs_expected[i], "round %d: reverse[%d] = %g", round, i, (double)r[i]);
    }

    /* ReadBuffer must synchronise: inside capture it fails, and cleanly. */
    float scratch[4];
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    DML_RESULT read = dmlCommandQueueReadBuffer(queue, s_out, 0, scratch, sizeof scratch);
    char message[512];
    snprintf(message, sizeof message, "%s", dmlGetLastErrorMessage());
    cudaGraph_t broken = NULL;
    cudaStreamEndCapture(stream, &broken); /* invalidated: an error, and no graph */
    (void)cudaGetLastError();
    if (broken)
        cudaGraphDestroy(broken);
    CHECK(read < 0 && read != DML_E_DEVICE_REMOVED, "ReadBuffer inside capture returned 0x%08x", (unsigned)read);
    printf("ReadBuffer inside capture: 0x%08x: %s\n", (unsigned)read, message);
    CHECK_OK(dmlDeviceGetDeviceRemovedReason(device));
    float s[4];
    CHECK_OK(dmlCommandQueueReadBuffer(queue, s_out, 0, s, sizeof s)); /* usable again after the capture */

    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    dmlRelease(t0);
    dmlRelease(t1);
    for (int i = 0; i < 2; i++) {
        dmlRelease(compiled[i]);
        dmlRelease(ops[i]);
    }
    dmlRelease(s_in);
    dmlRelease(s_out);
    dmlRelease(r_in);
    dmlRelease(r_len);
    dmlRelease(r_out);
    dmlRelease(recorder);
    dmlRelease(queue); /* the stream stays the host's */
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaStreamDestroy(stream));
    dmlRelease(device);
}

int main(void)
{
    unsetenv("DML_BACKEND");
    unsetenv("DML_PLUGIN_PATH");
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        printf("SKIPPED: needs a CUDA GPU: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA-capable device");
        return SKIP;
    }
    capture();
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
