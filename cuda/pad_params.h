/*
 * pad_params.h — what a DML_PLAN_PAD launch carries by value: the plan
 * itself (the kernel walks it directly), the bound pointers, and the row
 * path's geometry (pad.c decides it; the kernel and the emulator only read
 * it). Plain C, shared by the launcher, the kernel and the emulator.
 */
#ifndef DML_CUDA_PAD_PARAMS_H
#define DML_CUDA_PAD_PARAMS_H

#include "core/plan.h"

/* Output elements per pass of a warp on the row path: one per lane. */
#define DML_PAD_WINDOW 32
/* The narrowest rows the row path takes: a row costs it about one sector
 * more than its bytes at each end (its first and last passes are partial),
 * against the flat path's one more per warp of loads (a misaligned run), so
 * it moves fewer sectors from two windows on. */
#define DML_PAD_ROW_MIN_WIDTH (2 * DML_PAD_WINDOW)

typedef struct dml_pad_params {
    dml_plan plan;
    const void* in;
    void* out;
    /* The row path (pad_thread.h): rows of `width` output elements (the
     * plan's innermost dimension, contiguous in both tensors), those in
     * [interior_begin, interior_end) copied from the input row through
     * aligned windows; each warp takes segments of at most segment_passes
     * passes, segments_per_row per row, tasks = rows * segments_per_row.
     * rows = 0: the flat path, one element per thread. */
    uint32_t rows;
    uint32_t segment_passes;
    uint64_t width, interior_begin, interior_end;
    uint64_t segments_per_row, tasks;
} dml_pad_params;

#endif /* DML_CUDA_PAD_PARAMS_H */
