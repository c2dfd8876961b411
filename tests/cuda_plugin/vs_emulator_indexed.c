/*
 * vs_emulator_indexed.c — the data-dependent kinds' kernels (indexed.cu) on
 * the GPU against the emulator running the same launch and against
 * tests/cuda/indexed_cases.c's naive reference (vs_emulator_indexed.h).
 */
#include "vs_emulator_indexed.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator.h"
#include "indexed_cases.h"
#include "kernels.h"
#include "launch.h"

/* A device copy of n host bytes (NULL for none), exactly n bytes. */
static int to_device(const void* host, size_t n, void** device)
{
    *device = NULL;
    if (!host)
        return 0;
    if (cudaMalloc(device, n ? n : 1) != cudaSuccess || cudaMemcpy(*device, host, n, cudaMemcpyHostToDevice) != cudaSuccess)
        return -1;
    return 0;
}

/* The case's launch on the GPU; its output into `result`. 0, or -1 (printed). */
static int run_on_gpu(const indexed_case* c, uint32_t sms, unsigned char* result)
{
    void *in = NULL, *idx = NULL, *in2 = NULL, *out = NULL;
    int failed = to_device(c->input, c->input_bytes, &in) || to_device(c->indices, c->indices_bytes, &idx) ||
        to_device(c->input2, c->input2_bytes, &in2) || to_device(c->initial, c->output_bytes, &out);
    if (!failed) {
        dml_plan_args args = indexed_case_args(c);
        args.input = in;
        args.lengths = idx;
        args.input2 = in2;
        args.output = out;
        dml_cuda_launch launch;
        dml_cuda_prepare(&c->plan, &args, sms, &launch);
        cudaError_t e = dml_cuda_launch_gather(&launch, 0);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = cudaMemcpy(result, out, c->output_bytes, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            fprintf(stderr, "%s: %s\n", c->name, cudaGetErrorString(e));
            failed = 1;
        }
    }
    cudaFree(in);
    cudaFree(idx);
    cudaFree(in2);
    cudaFree(out);
    return failed ? -1 : 0;
}

/* One case at sms SMs: emulator (and GPU) against the reference. */
static int check_case(indexed_case* c, uint32_t sms, int on_gpu, unsigned* paths)
{
    dml_cuda_launch launch;
    const dml_plan_args args = indexed_case_args(c);
    indexed_case_reset(c);
    dml_cuda_prepare(&c->plan, &args, sms, &launch);
    paths[c->plan.kind - DML_PLAN_INDEXED + (c->plan.kind == DML_PLAN_INDEXED ? 4 * launch.indexed_params.rows : 0)] |=
        1u << launch.wide;
    if (dml_cuda_emulate(&launch, NULL) != 0) {
        fprintf(stderr, "FAIL %s: emulation: %s\n", c->name, dml_cuda_emulator_violation());
        return 1;
    }
    if (memcmp(c->output, c->expected, c->output_bytes)) {
        fprintf(stderr, "FAIL %s (e %u, index32 %u, %u SMs): the emulator differs from the reference\n", c->name,
            c->plan.element_size, c->plan.index32, sms);
        return 1;
    }
    if (!on_gpu)
        return 0;
    unsigned char* gpu = malloc(c->output_bytes ? c->output_bytes : 1);
    int failed = !gpu || run_on_gpu(c, sms, gpu) != 0;
    if (!failed && memcmp(gpu, c->expected, c->output_bytes)) {
        fprintf(stderr, "FAIL %s (e %u, index32 %u, %u SMs): the GPU differs from the emulator and the reference\n",
            c->name, c->plan.element_size, c->plan.index32, sms);
        failed = 1;
    }
    free(gpu);
    return failed;
}

int vs_emulator_indexed(uint64_t seed, uint32_t sms, int on_gpu, int quick)
{
    indexed_rng r = { seed ^ 0x1DE7EDull };
    const int per_shape = quick ? 8 : 48;
    unsigned paths[5] = { 0 }; /* INDEXED flat, SCATTER, SELECT, ONE_HOT, INDEXED rows: wide bits seen */
    int failures = 0, cases = 0;
    for (int shape = 0; shape < SHAPE_COUNT; ++shape)
        for (int n = 0; n < per_shape; ++n) {
            indexed_case c;
            if (indexed_case_make(&c, (indexed_shape)shape, 1u << (n % 4), (n / 4) % 2, 4000, &r) != 0) {
                fprintf(stderr, "FAIL: out of host memory\n");
                return failures + 1;
            }
            indexed_case_reference(&c);
            failures += check_case(&c, sms, on_gpu, paths);
            if (!quick)
                failures += check_case(&c, 1, on_gpu, paths);
            indexed_case_free(&c);
            cases++;
        }
    for (int k = 0; k < 5; ++k)
        if (paths[k] != 3) {
            fprintf(stderr, "FAIL: indexed path %d reached at index widths %#x of 0x3\n", k, paths[k]);
            failures++;
        }
    printf("data-dependent kinds: %d plans at %u SMs%s%s: %d failure(s)\n", cases, sms, quick ? "" : " and at 1 SM",
        on_gpu ? ", on the GPU and in the emulator" : ", in the emulator", failures);
    return failures;
}
