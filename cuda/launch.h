/*
 * launch.h — from a plan and the bound pointers to one CUDA launch: its
 * geometry, its specialisation, and its parameters by value. Pure host C,
 * used by the CUDA plugin and by the emulator alike, so both take the same
 * decisions (vector width, 32/64-bit indexing, grid size).
 */
#ifndef DML_CUDA_LAUNCH_H
#define DML_CUDA_LAUNCH_H

#include "core/plan.h"
#include "gather_params.h"
#include "scale_bias_params.h"

typedef struct dml_cuda_launch {
    /* The whole gather is one contiguous block: a cudaMemcpyAsync. */
    int is_copy;
    const void* copy_source;
    void* copy_destination;
    uint64_t copy_bytes;
    int64_t copy_source_offset, copy_destination_offset; /* bytes from the bound pointers */

    /* Otherwise a kernel, specialised by these (compile-time in the kernel). */
    uint32_t element_size;
    int mode;       /* dml_cuda_mode */
    int wide;       /* 64-bit indexing */
    int reverse;    /* dml_cuda_reverse: REVERSE_SUBSEQUENCES, along an outer axis or the row (0 for TILED: its kernels read it from the params) */
    int outer_rank; /* 0..2 when the kernel is specialised for it, else -1 */
    uint32_t grid;  /* blocks */
    uint32_t block; /* threads per block */
    dml_gather_params params;

    /* The bound ranges (input, lengths, output) as dispatched: host side
     * only, where the emulator checks every access against them. */
    const unsigned char* bound[3];
    uint64_t bound_bytes[3];

    /* DML_PLAN_SCALE_BIAS: its own kernel (scale_bias.cu) over this plan. */
    int scale_bias;
    dml_scale_bias_params scale_bias_params;
} dml_cuda_launch;

/* Decides everything about the launch of `plan` that does not depend on
 * where the tensors are bound, for a GPU with sm_count multiprocessors: done
 * once, when the operator is compiled. Never fails: every plan has a launch. */
void dml_cuda_plan_launch(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch);

/* Points a planned launch at the bound buffers: the only per-dispatch work. */
void dml_cuda_bind_launch(dml_cuda_launch* launch, const dml_plan_args* args);

/* Both at once, for tests and tools. */
void dml_cuda_prepare(const dml_plan* plan, const dml_plan_args* args, uint32_t sm_count, dml_cuda_launch* launch);

/* Fast division by d (1 <= d < 2^31) for dividends below 2^31. */
dml_divisor32 dml_divisor32_make(uint32_t d);

#endif /* DML_CUDA_LAUNCH_H */
