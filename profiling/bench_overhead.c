/*
 * bench_overhead.c — `dmlbench --overhead`: the host cost of the API on tiny
 * tensors. CreateOperator, CompileOperator and RecordDispatch (with binding)
 * of a 4x4 SLICE1 and a 4x4 REVERSE_SUBSEQUENCES, as the median and 90th
 * percentile of N repetitions, beside the cost of a plain malloc/free pair
 * measured in the same run.
 */
#include "dmlbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int bench_overhead(const char* backend, int repetitions)
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
