/*
 * fill_params.h — what a DML_PLAN_FILL launch carries by value: the plan
 * (the kernel walks it directly), the output pointer and the work split.
 * Plain C, shared by the launcher, the kernel and the emulator.
 */
#ifndef DML_CUDA_FILL_PARAMS_H
#define DML_CUDA_FILL_PARAMS_H

#include "core/plan.h"

typedef struct dml_fill_params {
    dml_plan plan;
    void* out;
    /* vector: the innermost dimension is contiguous (output stride 1) and a
     * work item is one 16-byte-aligned window of a row, windows_per_row of
     * them per row (enough for the row at any alignment); else a work item
     * is one element. items: rows * windows_per_row, or element_count. */
    uint32_t vector;
    uint32_t reserved;
    uint64_t windows_per_row;
    uint64_t items;
} dml_fill_params;

#endif /* DML_CUDA_FILL_PARAMS_H */
