/*
 * host_example.c — a host program written only from docs/contract.md and
 * operators.md, built against an installed (and moved) tree by
 * install_test.sh: with pkg-config, and with find_package(dml).
 *
 * Runs the SLICE1 example with strides {1,1,-2,2} on the "cpu" backend,
 * checks the output, and checks that a broken desc gives DML_E_INVALIDARG.
 */
#include <dml/dml.h>
#include <stdio.h>
#include <string.h>

static int g_failed;

#define CHECK(call)                                                                          \
    do {                                                                                     \
        DML_RESULT r_ = (call);                                                              \
        if (DML_FAILED(r_)) {                                                                \
            fprintf(stderr, "%s failed: 0x%08X: %s\n", #call, (unsigned)r_, dmlGetLastErrorMessage()); \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

int main(void)
{
    DML_DEVICE_DESC device_desc = { sizeof(DML_DEVICE_DESC), "cpu", 0, DML_CREATE_DEVICE_FLAG_NONE,
        DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    CHECK(dmlCreateDevice(&device_desc, &device));

    /* Input {1,1,4,4} = 1..16; window offsets {0,0,0,1}, sizes {1,1,4,3}. */
    const UINT in_sizes[4] = { 1, 1, 4, 4 }, out_sizes[4] = { 1, 1, 2, 2 };
    const UINT offsets[4] = { 0, 0, 0, 1 }, window[4] = { 1, 1, 4, 3 };
    const INT strides[4] = { 1, 1, -2, 2 };
    float input[16], output[4] = { 0 };
    for (int i = 0; i < 16; i++)
        input[i] = (float)(i + 1);
    UINT64 in_bytes = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL);
    UINT64 out_bytes = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    if (in_bytes != 64 || out_bytes != 16) {
        fprintf(stderr, "DMLCalcBufferTensorSize: %llu, %llu\n", (unsigned long long)in_bytes,
            (unsigned long long)out_bytes);
        return 1;
    }

    DML_BUFFER_TENSOR_DESC in_buffer = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL, in_bytes, 0 };
    DML_BUFFER_TENSOR_DESC out_buffer = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, out_sizes, NULL, out_bytes, 0 };
    DML_TENSOR_DESC in_desc = { DML_TENSOR_TYPE_BUFFER, &in_buffer };
    DML_TENSOR_DESC out_desc = { DML_TENSOR_TYPE_BUFFER, &out_buffer };
    DML_SLICE1_OPERATOR_DESC slice = { &in_desc, &out_desc, 4, offsets, window, strides };
    DML_OPERATOR_DESC op_desc = { DML_OPERATOR_SLICE1, &slice };

    DMLOperator op = NULL;
    DMLCompiledOperator compiled = NULL;
    DMLOperatorInitializer initializer = NULL;
    DMLBindingTable table = NULL;
    DMLCommandRecorder recorder = NULL;
    DMLCommandQueue queue = NULL;
    DMLBuffer in_mem = NULL, out_mem = NULL;
    CHECK(dmlDeviceCreateOperator(device, &op_desc, &op));
    CHECK(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled));
    CHECK(dmlDeviceCreateOperatorInitializer(device, 1, &compiled, &initializer));
    CHECK(dmlDeviceCreateCommandRecorder(device, &recorder));
    CHECK(dmlDeviceCreateCommandQueue(device, NULL, &queue));

    /* The operator owns no tensor: its initializer needs no bindings. */
    DML_BINDING_TABLE_DESC table_desc = { initializer };
    CHECK(dmlDeviceCreateBindingTable(device, &table_desc, &table));
    CHECK(dmlCommandRecorderRecordDispatch(recorder, queue, initializer, table));

    CHECK(dmlDeviceCreateBuffer(device, in_bytes, &in_mem));
    CHECK(dmlDeviceCreateBuffer(device, out_bytes, &out_mem));
    CHECK(dmlCommandQueueWriteBuffer(queue, in_mem, 0, input, sizeof input));
    DML_BUFFER_BINDING in_binding = { in_mem, 0, in_bytes }, out_binding = { out_mem, 0, out_bytes };
    DML_BINDING_DESC in_bind = { DML_BINDING_TYPE_BUFFER, &in_binding };
    DML_BINDING_DESC out_bind = { DML_BINDING_TYPE_BUFFER, &out_binding };
    table_desc.Dispatchable = compiled;
    CHECK(dmlBindingTableReset(table, &table_desc));
    CHECK(dmlBindingTableBindInputs(table, 1, &in_bind));
    CHECK(dmlBindingTableBindOutputs(table, 1, &out_bind));
    CHECK(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table));
    CHECK(dmlCommandQueueReadBuffer(queue, out_mem, 0, output, sizeof output));

    const float expected[4] = { 14, 16, 6, 8 };
    if (memcmp(output, expected, sizeof expected) != 0) {
        fprintf(stderr, "SLICE1 output %g %g %g %g, expected 14 16 6 8\n", (double)output[0], (double)output[1],
            (double)output[2], (double)output[3]);
        g_failed = 1;
    }

    /* A window past the input's end is DML_E_INVALIDARG, with a message. */
    const UINT bad_offsets[4] = { 0, 0, 1, 1 };
    slice.InputWindowOffsets = bad_offsets;
    DMLOperator bad = NULL;
    DML_RESULT r = dmlDeviceCreateOperator(device, &op_desc, &bad);
    if (r != DML_E_INVALIDARG || bad != NULL || dmlGetLastErrorMessage()[0] == '\0') {
        fprintf(stderr, "bad window: 0x%08X, expected DML_E_INVALIDARG\n", (unsigned)r);
        g_failed = 1;
    }

    dmlRelease(out_mem);
    dmlRelease(in_mem);
    dmlRelease(table);
    dmlRelease(queue);
    dmlRelease(recorder);
    dmlRelease(initializer);
    dmlRelease(compiled);
    dmlRelease(op);
    dmlRelease(device);
    printf("host_example: %s\n", g_failed ? "FAILED" : "SLICE1 {1,1,-2,2} -> 14 16 6 8, bad window rejected: OK");
    return g_failed;
}
