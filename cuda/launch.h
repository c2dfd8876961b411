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
#include "pad_params.h"
#include "cast_params.h"
#include "fill_params.h"
#include "scale_bias_params.h"
#include "indexed_params.h"

/* What the launcher needs to know of the GPU: its SMs and their shared
 * memory (cudaDeviceGetAttribute: MultiProcessorCount,
 * MaxSharedMemoryPerMultiprocessor, MaxSharedMemoryPerBlock without opting
 * in, ReservedSharedMemoryPerBlock: what the system takes from an SM for
 * each resident block). */
typedef struct dml_cuda_limits {
    uint32_t sm_count;
    uint32_t shared_per_sm;
    uint32_t shared_per_block;
    uint32_t shared_reserved_per_block;
} dml_cuda_limits;

/* Tiled launches (a transpose through shared memory): the launcher sizes a
 * block's dynamic shared memory to its tile, at most
 * DML_TILE_MAX_SHARED_BYTES (what every GPU gives a block without opting in,
 * so no cudaFuncSetAttribute is needed), and picks a staged tile's length
 * along the input rows with the grid in view (launch.c, staged_pieces): cut
 * shorter, down to dml_tile_shortest_row, to give every resident block a
 * tile; then to fill whole waves to within DML_TILE_WAVE_SLACK percent,
 * searching up to DML_TILE_WAVE_SEARCH tile lengths.
 * DML_TILE_MIN_ROW_BYTES, 1 KiB: a tile row is never cut shorter than that
 * when shared memory holds twice as much (rows starting at any alignment
 * load at 0.978 of their sectors in dmlcoalesce's 1048-byte tile rows,
 * 4-byte elements with --row-bytes 1000, against 0.949 in its 524-byte
 * ones, 2-byte elements). */
/* The plan kinds the launcher has kernels for (the CUDA and emulated backends declare them). */
#define DML_CUDA_PLAN_KINDS                                                                            \
    (DML_PLAN_KIND_BIT(DML_PLAN_GATHER) | DML_PLAN_KIND_BIT(DML_PLAN_REVERSE_SUBSEQUENCES) |         \
        DML_PLAN_KIND_BIT(DML_PLAN_SCALE_BIAS) | DML_PLAN_KIND_BIT(DML_PLAN_PAD) |         \
        DML_PLAN_KIND_BIT(DML_PLAN_CAST) |                   \
        DML_PLAN_KIND_BIT(DML_PLAN_FILL) | DML_PLAN_KIND_BIT(DML_PLAN_INDEXED) |                            \
        DML_PLAN_KIND_BIT(DML_PLAN_SCATTER) | DML_PLAN_KIND_BIT(DML_PLAN_SELECT) |                          \
        DML_PLAN_KIND_BIT(DML_PLAN_ONE_HOT))

#define DML_TILE_MAX_SHARED_BYTES (48 * 1024)
#define DML_TILE_MIN_ROW_BYTES 1024
/* A flat load's input per tile (launch.c, flat_load_inner): from any
 * alignment it loads at >= 0.99 of its sectors. */
#define DML_TILE_FLAT_LOAD_BYTES 4096
#define DML_TILE_WAVE_SLACK 3
#define DML_TILE_WAVE_SEARCH 1024

/* The fewest elements (of e bytes) a staged tile row may be cut to, when
 * the longest a block's shared memory holds is `most` elements. */
uint64_t dml_tile_shortest_row(uint64_t most, uint32_t e);

/* An H100 SXM's, with sm_count SMs: 228 KiB of shared memory per SM, 48 KiB
 * per block (227 KiB if a kernel opts in; the launcher never does), 1 KiB
 * reserved per block. The emulator's, and the sm_count-only calls'. */
dml_cuda_limits dml_cuda_h100_limits(uint32_t sm_count);

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
    uint32_t shared_bytes;  /* dynamic shared memory per block (TILED: the tile's; else 0) */
    uint32_t blocks_per_sm; /* resident blocks per SM the grid is sized to */
    dml_gather_params params;

    /* The bound ranges (input, lengths, output, input2) as dispatched: host
     * side only, where the emulator checks every access against them. */
    const unsigned char* bound[4];
    uint64_t bound_bytes[4];

    /* DML_PLAN_SCALE_BIAS: its own kernel (scale_bias.cu) over this plan. */
    int scale_bias;
    dml_scale_bias_params scale_bias_params;

    /* DML_PLAN_PAD: its own kernel (pad.cu) over this plan; wide above. */
    int pad;
    dml_pad_params pad_params;
    /* DML_PLAN_CAST: its own kernels (cast.cu) over this plan. */
    int cast;
    dml_cast_params cast_params;
    /* DML_PLAN_FILL: its own kernels (fill.cu) over these. */
    int fill;
    dml_fill_params fill_params;
    /* DML_PLAN_INDEXED, SCATTER, SELECT, ONE_HOT: their own kernels
     * (indexed.cu) over this plan; wide above. */
    int indexed;
    dml_indexed_params indexed_params;
} dml_cuda_launch;

/* Decides everything about the launch of `plan` that does not depend on
 * where the tensors are bound, for a GPU with these limits: done once, when
 * the operator is compiled. Never fails: every plan has a launch. */
void dml_cuda_plan_launch_on(const dml_plan* plan, const dml_cuda_limits* limits, dml_cuda_launch* launch);

/* The same, but a kernel even where the plan is a plain copy (a grouped
 * launch's part: group.h). */
void dml_cuda_plan_kernel_on(const dml_plan* plan, const dml_cuda_limits* limits, dml_cuda_launch* launch);

/* The same for an H100-like GPU (dml_cuda_h100_limits) of sm_count SMs. */
void dml_cuda_plan_launch(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch);

/* Points a planned launch at the bound buffers: the only per-dispatch work. */
void dml_cuda_bind_launch(dml_cuda_launch* launch, const dml_plan_args* args);

/* Both at once, for tests and tools (an H100-like GPU of sm_count SMs). */
void dml_cuda_prepare(const dml_plan* plan, const dml_plan_args* args, uint32_t sm_count, dml_cuda_launch* launch);

/* Fast division by d (1 <= d < 2^31) for dividends below 2^31. */
dml_divisor32 dml_divisor32_make(uint32_t d);

#endif /* DML_CUDA_LAUNCH_H */
