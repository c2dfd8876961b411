/*
 * vs_emulator_group.c — grouped launches for test_cuda_vs_emulator: JOINs
 * and SPLITs lowered as CompileOperator does, their parts launched as the
 * CUDA backend dispatches them (dml_cuda_run_group): two uneven parts along
 * the row, copies along the outer axis (folded into the kernel), a
 * transposed (tiled) part among vector ones, parts of both index widths,
 * and 64 parts of very different sizes (two launches); SPLITs of uneven
 * parts along the row take the flat-part path (group_split.h) with both
 * index widths, and must reach it. The emulator's
 * result is checked against a naive JOIN/SPLIT; the GPU's against the
 * emulator's, byte for byte. Every grouped kernel variant (element size x
 * index width x parameter size, dml_cuda_group_kernel_count) must be reached.
 */
#include "vs_emulator_group.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops/op.h"
#include "core/tensor.h"
#include "emulator.h"
#include "group.h"
#include "group_kernel.h"
#include "kernels.h"
#include "launch.h"

#define MAX_PARTS 64
#define RANK 3

static int failures;
static int reached[4][2][2]; /* element size (log2) x wide x large parameter */
static int flat_splits[2];    /* row_split launches per index width */

static void fail(const char* name, const char* what)
{
    fprintf(stderr, "FAIL: group %s: %s\n", name, what);
    failures++;
}

static void check_cuda(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s: %s\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
        exit(1);
    }
}

/* Where a case's launches go: the emulator or the GPU. */
typedef struct group_run {
    const dml_cuda_launch* launches;
    const dml_plan_args* args;
    int gpu;
    uint32_t grouped, singles;
    const char* name;
} group_run;

static int run_single(void* context, uint32_t index)
{
    group_run* run = context;
    dml_cuda_launch launch = run->launches[index];
    dml_cuda_bind_launch(&launch, &run->args[index]);
    run->singles++;
    if (run->gpu)
        check_cuda(dml_cuda_launch_gather(&launch, 0), "dml_cuda_launch_gather");
    else if (dml_cuda_emulate(&launch, NULL) != 0)
        fail(run->name, dml_cuda_emulator_violation());
    return 0;
}

static int run_grouped(void* context, const dml_cuda_group_launch* group)
{
    group_run* run = context;
    run->grouped++;
    const int log2e = group->element_size == 1 ? 0 : group->element_size == 2 ? 1 : group->element_size == 4 ? 2 : 3;
    reached[log2e][group->wide][group->params.parts > DML_GROUP_SMALL_PARTS] = 1;
    flat_splits[group->wide] += group->params.row_split != 0;
    if (run->gpu)
        check_cuda(dml_cuda_launch_group(group, 0), "dml_cuda_launch_group");
    else if (dml_cuda_emulate_group(group, NULL) != 0)
        fail(run->name, dml_cuda_emulator_violation());
    return 0;
}

static uint64_t element_offset(const dml_tensor* t, const uint32_t* c)
{
    uint64_t offset = 0;
    for (uint32_t d = 0; d < t->rank; ++d)
        offset += c[d] * t->strides[d];
    return offset;
}

/* The joined tensor's every element against its part's (the parts follow
 * each other along the axis); 0 when all match. */
static int mismatches(const dml_op* op, int split, uint32_t axis, unsigned char** in, unsigned char** out)
{
    const dml_tensor* whole = split ? &op->inputs[0] : &op->outputs[0];
    const uint32_t count = split ? op->output_count : op->input_count, e = whole->element_size;
    int bad = 0;
    uint32_t c[RANK];
    for (c[0] = 0; c[0] < whole->sizes[0]; ++c[0])
        for (c[1] = 0; c[1] < whole->sizes[1]; ++c[1])
            for (c[2] = 0; c[2] < whole->sizes[2]; ++c[2]) {
                uint32_t k = 0, pc[RANK] = { c[0], c[1], c[2] };
                const dml_tensor* part = split ? &op->outputs[0] : &op->inputs[0];
                while (pc[axis] >= part->sizes[axis] && k + 1 < count) {
                    pc[axis] -= part->sizes[axis];
                    part = split ? &op->outputs[++k] : &op->inputs[++k];
                }
                const unsigned char* joined = (split ? in[0] : out[0]) + element_offset(whole, c) * e;
                const unsigned char* alone = (split ? out[k] : in[k]) + element_offset(part, pc) * e;
                bad += memcmp(joined, alone, e) != 0;
            }
    return bad;
}

/* The op's tensors: host copies, and device copies when on the GPU. */
typedef struct buffers {
    unsigned char* host[2][MAX_PARTS]; /* inputs, outputs */
    unsigned char* device[2][MAX_PARTS];
} buffers;

static void run_op(const DML_OPERATOR_DESC* desc, const char* name, int split, uint32_t axis, uint32_t sms,
    int wide_odd, uint32_t launches_expected, int on_gpu)
{
    dml_op* op = NULL;
    dml_lowering lowering;
    memset(&lowering, 0, sizeof lowering);
    if (dml_op_create(desc, &op) < 0 || dml_op_lower(op, "vs_emulator_group", &lowering) < 0 ||
        lowering.count > MAX_PARTS) {
        fail(name, "cannot lower");
        dml_op_destroy(op);
        return;
    }
    buffers b;
    memset(&b, 0, sizeof b);
    const uint32_t counts[2] = { op->input_count, op->output_count };
    for (int side = 0; side < 2; ++side)
        for (uint32_t i = 0; i < counts[side]; ++i) {
            const uint64_t bytes = side ? op->outputs[i].total_bytes : op->inputs[i].total_bytes;
            b.host[side][i] = malloc(bytes);
            if (!b.host[side][i])
                abort();
            for (uint64_t j = 0; j < bytes; ++j)
                b.host[side][i][j] = side ? 0xA5 : (unsigned char)(j * 131 + i * 17 + 1);
            if (on_gpu) {
                check_cuda(cudaMalloc((void**)&b.device[side][i], bytes), "cudaMalloc");
                check_cuda(cudaMemcpy(b.device[side][i], b.host[side][i], bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
            }
        }
    const dml_cuda_limits limits = dml_cuda_h100_limits(sms);
    const dml_plan* plans[MAX_PARTS];
    const dml_cuda_launch* compiled[MAX_PARTS];
    dml_cuda_launch* launches = calloc(MAX_PARTS, sizeof *launches);
    dml_plan_args host_args[MAX_PARTS], device_args[MAX_PARTS];
    dml_cuda_group_launch* scratch = malloc(sizeof *scratch);
    if (!launches || !scratch)
        abort();
    for (uint32_t s = 0; s < lowering.count; ++s) {
        dml_op_step* step = &lowering.steps[s];
        if (wide_odd && s % 2)
            step->plan.index32 = 0;
        plans[s] = &step->plan;
        dml_cuda_plan_launch_on(&step->plan, &limits, &launches[s]);
        compiled[s] = &launches[s];
        const uint32_t i = step->input.index, o = step->output.index;
        host_args[s] = (dml_plan_args){ b.host[0][i], NULL, b.host[1][o], op->inputs[i].total_bytes, 0,
            op->outputs[o].total_bytes, NULL, 0 };
        device_args[s] = (dml_plan_args){ b.device[0][i], NULL, b.device[1][o], op->inputs[i].total_bytes, 0,
            op->outputs[o].total_bytes, NULL, 0 };
    }
    group_run run = { launches, host_args, 0, 0, 0, name };
    dml_cuda_run_group(plans, compiled, host_args, lowering.count, &limits, scratch, run_single, run_grouped, &run);
    if (run.grouped != launches_expected || run.singles != 0)
        fail(name, "not the expected number of grouped launches");
    if (mismatches(op, split, axis, b.host[0], b.host[1]))
        fail(name, "the emulator differs from the reference");
    if (on_gpu) {
        group_run gpu = { launches, device_args, 1, 0, 0, name };
        dml_cuda_run_group(plans, compiled, device_args, lowering.count, &limits, scratch, run_single, run_grouped,
            &gpu);
        check_cuda(cudaDeviceSynchronize(), "the grouped launches");
        for (uint32_t o = 0; o < op->output_count; ++o) {
            const uint64_t bytes = op->outputs[o].total_bytes;
            unsigned char* got = malloc(bytes);
            if (!got)
                abort();
            check_cuda(cudaMemcpy(got, b.device[1][o], bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
            if (memcmp(got, b.host[1][o], bytes) != 0)
                fail(name, "the GPU differs from the emulator");
            free(got);
        }
    }
    for (int side = 0; side < 2; ++side)
        for (uint32_t i = 0; i < MAX_PARTS; ++i) {
            free(b.host[side][i]);
            if (b.device[side][i])
                cudaFree(b.device[side][i]);
        }
    free(scratch);
    free(launches);
    dml_lowering_free(&lowering);
    dml_op_destroy(op);
}

typedef struct tensor_spec {
    uint32_t sizes[RANK], strides[RANK];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tensor_spec;

static void tensor_init(tensor_spec* t, DML_TENSOR_DATA_TYPE type, const uint32_t* sizes, const uint32_t* strides)
{
    memcpy(t->sizes, sizes, sizeof t->sizes);
    if (strides)
        memcpy(t->strides, strides, sizeof t->strides);
    uint64_t bytes = 0;
    if (!dml_calc_buffer_tensor_size(type, RANK, t->sizes, strides ? t->strides : NULL, &bytes))
        abort();
    t->buffer = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, RANK, t->sizes, strides ? t->strides : NULL,
        bytes, 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

/* A JOIN or SPLIT of `count` parts along axis of [rows, *, depth] (axis 1)
 * or [*, rows, depth] (axis 0); part k transposed (its last two dimensions'
 * strides swapped) when k % 3 == 1 and `transpose`. */
static void join_split(DML_TENSOR_DATA_TYPE type, const char* name, int split, uint32_t axis, uint32_t count,
    const uint32_t* widths, uint32_t rows, uint32_t depth, int transpose, int wide_odd, uint32_t launches,
    uint32_t sms, int on_gpu)
{
    static tensor_spec parts[MAX_PARTS];
    tensor_spec whole;
    DML_TENSOR_DESC descs[MAX_PARTS];
    uint32_t total = 0;
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t sizes[RANK] = { rows, rows, depth };
        sizes[axis] = widths[k];
        total += widths[k];
        const uint32_t swapped[RANK] = { sizes[1] * sizes[2], 1, sizes[1] };
        tensor_init(&parts[k], type, sizes, transpose && k % 3 == 1 ? swapped : NULL);
        descs[k] = parts[k].desc;
    }
    uint32_t sizes[RANK] = { rows, rows, depth };
    sizes[axis] = total;
    tensor_init(&whole, type, sizes, NULL);
    DML_JOIN_OPERATOR_DESC join = { count, descs, &whole.desc, axis };
    DML_SPLIT_OPERATOR_DESC cut = { &whole.desc, count, descs, axis };
    DML_OPERATOR_DESC od = { split ? DML_OPERATOR_SPLIT : DML_OPERATOR_JOIN, split ? (const void*)&cut : &join };
    char text[96];
    snprintf(text, sizeof text, "%s %s of %u parts, type %d, %u SMs", name, split ? "SPLIT" : "JOIN", count, (int)type,
        sms);
    run_op(&od, text, split, axis, sms, wide_odd, launches, on_gpu);
}

int vs_emulator_group(uint32_t sms, int on_gpu)
{
    static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT64 };
    uint32_t many[MAX_PARTS], seed = 2024;
    for (uint32_t k = 0; k < MAX_PARTS; ++k) {
        seed = seed * 1103515245u + 12345u;
        many[k] = k % 16 == 5 ? 300 + (seed >> 16) % 700 : 1 + (seed >> 16) % 8;
    }
    const uint32_t uneven[2] = { 999, 1001 }, outer[3] = { 50, 3, 77 }, tiled[3] = { 40, 48, 33 },
                   mixed[4] = { 17, 1000, 3, 64 };
    failures = 0;
    memset(reached, 0, sizeof reached);
    memset(flat_splits, 0, sizeof flat_splits);
    for (size_t t = 0; t < sizeof types / sizeof *types; ++t)
        for (int split = 0; split <= 1; ++split)
            for (uint32_t s = sms; s >= 1; s = s > 1 ? 1 : 0) {
                join_split(types[t], "uneven", split, 1, 2, uneven, 300, 1, 0, 0, 1, s, on_gpu);
                join_split(types[t], "uneven, deep, wide", split, 1, 2, uneven, 30, 3, 0, 1, 1, s, on_gpu);
                join_split(types[t], "outer copies", split, 0, 3, outer, 64, 5, 0, 0, 1, s, on_gpu);
                join_split(types[t], "tiled part", split, 1, 3, tiled, 9, 70, 1, 0, 1, s, on_gpu);
                join_split(types[t], "mixed widths", split, 1, 4, mixed, 40, 3, 0, 1, 1, s, on_gpu);
                join_split(types[t], "64 parts", split, 1, MAX_PARTS, many, 20, 3, 0, 0, 2, s, on_gpu);
                join_split(types[t], "64 parts, mixed widths", split, 1, MAX_PARTS, many, 7, 2, 1, 1, 2, s, on_gpu);
            }
    int variants = 0;
    for (int e = 0; e < 4; ++e)
        for (int w = 0; w < 2; ++w)
            for (int large = 0; large < 2; ++large)
                variants += reached[e][w][large];
    printf("grouped kernel variants reached: %d of %d\n", variants, dml_cuda_group_kernel_count());
    printf("flat SPLIT launches (group_split.h): %d with 32-bit indexing, %d with 64-bit\n", flat_splits[0],
        flat_splits[1]);
    if (!flat_splits[0] || !flat_splits[1])
        fail("flat splits", "the flat-part path was not reached with both index widths");
    if (variants != dml_cuda_group_kernel_count())
        fail("variants", "a grouped kernel variant was never reached");
    return failures;
}
