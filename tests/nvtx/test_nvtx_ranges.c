/*
 * test_nvtx_ranges.c — the NVTX ranges of the shared core, seen by a tool.
 *
 * libdml_nvtx_record.so (nvtx_record.c) is loaded through
 * NVTX_INJECTION64_PATH, as Nsight Systems' own injection library would be,
 * and records every range pushed and popped. Each case runs operators
 * through the public API (CPU backend) and checks the recorded names, their
 * order and nesting: the test wraps its calls in a range of its own domain,
 * so the DML ranges must appear one level deeper, balanced.
 */
#include <check.h>
#include <dml/dml.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINES 64

static char record_path[256];
static char lines[MAX_LINES][512];
static int line_count;

static void check_ok(DML_RESULT r, const char* what)
{
    ck_assert_msg(DML_SUCCEEDED(r), "%s failed: %s", what, dmlGetLastErrorMessage());
}

/* Each case runs in its own forked child: point NVTX at the recorder there,
 * before anything initialises NVTX in this process. */
static void setup_injection(int attach)
{
    snprintf(record_path, sizeof record_path, "/tmp/dml_nvtx_record.%ld", (long)getpid());
    unlink(record_path);
    setenv("DML_NVTX_RECORD", record_path, 1);
    if (attach)
        setenv("NVTX_INJECTION64_PATH", DML_NVTX_INJECTION_LIBRARY, 1);
    else
        unsetenv("NVTX_INJECTION64_PATH");
}

static void load_record(void)
{
    line_count = 0;
    FILE* f = fopen(record_path, "r");
    if (!f)
        return;
    while (line_count < MAX_LINES && fgets(lines[line_count], sizeof lines[0], f)) {
        lines[line_count][strcspn(lines[line_count], "\n")] = '\0';
        line_count++;
    }
    fclose(f);
    unlink(record_path);
}

static void dump_record(void)
{
    for (int i = 0; i < line_count; ++i)
        fprintf(stderr, "  %s\n", lines[i]);
}

static void expect_line(int index, const char* expected)
{
    if (index >= line_count || strcmp(lines[index], expected) != 0) {
        dump_record();
        ck_abort_msg("record line %d: expected \"%s\", got \"%s\"", index, expected,
            index < line_count ? lines[index] : "(end)");
    }
}

typedef struct tensor {
    UINT sizes[4];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tensor;

static void make_tensor(tensor* t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT* sizes)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    t->buffer.DataType = type;
    t->buffer.DimensionCount = rank;
    t->buffer.Sizes = t->sizes;
    t->buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, rank, t->sizes, NULL);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

/* Create, name, compile, write, dispatch, read, inside a "step" range of the
 * test's own domain. */
static void run_operator(const DML_OPERATOR_DESC* desc, uint32_t inputs, const char* name)
{
    nvtxDomainHandle_t host = nvtxDomainCreateA("test");
    nvtxEventAttributes_t step = { 0 };
    step.version = NVTX_VERSION;
    step.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    step.messageType = NVTX_MESSAGE_TYPE_ASCII;
    step.message.ascii = "step";
    nvtxDomainRangePushEx(host, &step);

    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), "cpu", 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device;
    DMLOperator op;
    DMLCompiledOperator compiled;
    DMLBindingTable table;
    DMLBuffer buffer;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    check_ok(dmlCreateDevice(&dd, &device), "dmlCreateDevice");
    check_ok(dmlDeviceCreateOperator(device, desc, &op), "CreateOperator");
    check_ok(dmlSetName(op, name), "dmlSetName");
    check_ok(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled), "CompileOperator");
    check_ok(dmlDeviceCreateBuffer(device, 4096, &buffer), "CreateBuffer");
    check_ok(dmlSetName(buffer, "buf"), "dmlSetName");
    check_ok(dmlDeviceCreateCommandQueue(device, NULL, &queue), "CreateCommandQueue");
    check_ok(dmlDeviceCreateCommandRecorder(device, &recorder), "CreateCommandRecorder");
    uint32_t data[256] = { 0 };
    check_ok(dmlCommandQueueWriteBuffer(queue, buffer, 0, data, 1024), "WriteBuffer");
    DML_BINDING_TABLE_DESC td = { compiled };
    check_ok(dmlDeviceCreateBindingTable(device, &td, &table), "CreateBindingTable");
    DML_BUFFER_BINDING in[2] = { { buffer, 0, 256 }, { buffer, 256, 256 } }, out = { buffer, 1024, 256 };
    DML_BINDING_DESC in_desc[2] = { { DML_BINDING_TYPE_BUFFER, &in[0] }, { DML_BINDING_TYPE_BUFFER, &in[1] } };
    DML_BINDING_DESC out_desc = { DML_BINDING_TYPE_BUFFER, &out };
    check_ok(dmlBindingTableBindInputs(table, inputs, in_desc), "BindInputs");
    check_ok(dmlBindingTableBindOutputs(table, 1, &out_desc), "BindOutputs");
    check_ok(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table), "RecordDispatch");
    check_ok(dmlCommandQueueReadBuffer(queue, buffer, 1024, data, 64), "ReadBuffer");
    dmlRelease(table);
    dmlRelease(recorder);
    dmlRelease(queue);
    dmlRelease(buffer);
    dmlRelease(compiled);
    dmlRelease(op);
    dmlRelease(device);
    nvtxDomainRangePop(host);
}

START_TEST(slice1_ranges)
{
    setup_injection(1);
    tensor in, out;
    const UINT in_sizes[4] = { 1, 1, 4, 4 }, out_sizes[4] = { 1, 1, 2, 2 };
    make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes);
    UINT offsets[4] = { 0, 0, 0, 1 }, window[4] = { 1, 1, 4, 3 };
    INT strides[4] = { 1, 1, -2, 2 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 4, offsets, window, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    run_operator(&desc, 1, "myop");
    load_record();
    const char* expected[] = {
        "push test 0 step",
        "push DML 1 CreateOperator SLICE1",
        "pop DML 1",
        "push DML 1 CompileOperator SLICE1 'myop' float32 [1,1,4,4]->[1,1,2,2]",
        "pop DML 1",
        "push DML 1 WriteBuffer 'buf' 1024 bytes at 0",
        "pop DML 1",
        "push DML 1 RecordDispatch SLICE1 'myop' float32 [1,1,4,4]->[1,1,2,2]",
        "pop DML 1",
        "push DML 1 ReadBuffer 'buf' 64 bytes at 1024",
        "pop DML 1",
        "pop test 0",
    };
    const int n = (int)(sizeof expected / sizeof expected[0]);
    for (int i = 0; i < n; ++i)
        expect_line(i, expected[i]);
    if (line_count != n)
        dump_record();
    ck_assert_int_eq(line_count, n);
}
END_TEST

START_TEST(reverse_subsequences_ranges)
{
    setup_injection(1);
    tensor in, lengths, out;
    const UINT sizes[2] = { 3, 5 }, lengths_sizes[2] = { 1, 5 };
    make_tensor(&in, DML_TENSOR_DATA_TYPE_UINT16, 2, sizes);
    make_tensor(&lengths, DML_TENSOR_DATA_TYPE_UINT32, 2, lengths_sizes);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_UINT16, 2, sizes);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse = { &in.desc, &lengths.desc, &out.desc, 0 };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &reverse };
    run_operator(&desc, 2, "rev");
    load_record();
    expect_line(1, "push DML 1 CreateOperator REVERSE_SUBSEQUENCES");
    expect_line(3, "push DML 1 CompileOperator REVERSE_SUBSEQUENCES 'rev' uint16 [3,5],[1,5]->[3,5]");
    expect_line(7, "push DML 1 RecordDispatch REVERSE_SUBSEQUENCES 'rev' uint16 [3,5],[1,5]->[3,5]");
    ck_assert_int_eq(line_count, 12);
}
END_TEST

/* A failing call still closes its range. */
START_TEST(failed_calls_are_balanced)
{
    setup_injection(1);
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), "cpu", 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device;
    DMLOperator op;
    check_ok(dmlCreateDevice(&dd, &device), "dmlCreateDevice");
    DML_OPERATOR_DESC bad = { DML_OPERATOR_SLICE1, NULL };
    ck_assert(DML_FAILED(dmlDeviceCreateOperator(device, &bad, &op)));
    dmlRelease(device);
    load_record();
    expect_line(0, "push DML 0 CreateOperator SLICE1");
    expect_line(1, "pop DML 0");
    ck_assert_int_eq(line_count, 2);
}
END_TEST

/* Without a tool nothing is recorded (and no message is formatted). */
START_TEST(no_tool_no_ranges)
{
    setup_injection(0);
    tensor in, out;
    const UINT sizes[2] = { 4, 4 };
    make_tensor(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes);
    make_tensor(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes);
    UINT offsets[2] = { 0, 0 }, window[2] = { 4, 4 };
    INT strides[2] = { 1, -1 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 2, offsets, window, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    run_operator(&desc, 1, "quiet");
    load_record();
    ck_assert_int_eq(line_count, 0);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("nvtx");
    TCase* t = tcase_create("ranges");
    tcase_add_test(t, slice1_ranges);
    tcase_add_test(t, reverse_subsequences_ranges);
    tcase_add_test(t, failed_calls_are_balanced);
    tcase_add_test(t, no_tool_no_ranges);
    suite_add_tcase(s, t);
    SRunner* r = srunner_create(s);
    srunner_set_fork_status(r, CK_FORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
