/*
 * indexed.h — host side of the data-dependent plans' launches (INDEXED,
 * SCATTER, SELECT, ONE_HOT: indexed.c): the geometry. The emulator runs
 * their thread code (indexed_thread.h, scatter_thread.h, select_thread.h:
 * SELECT and ONE_HOT) over it, checking every access (emulator.c); the
 * kernels are indexed.cu (dml_cuda_launch_indexed, which kernels.cu's
 * launcher calls).
 */
#ifndef DML_CUDA_INDEXED_H
#define DML_CUDA_INDEXED_H

#include "launch.h"

/* Fills launch for a plan of one of those kinds: INDEXED takes the row path
 * (indexed_params.rows; a warp per row segment) where its innermost
 * dimension is contiguous in input and output, at least
 * DML_INDEXED_ROW_MIN_BYTES wide, with one index along it; every other plan
 * the flat path (a thread per DML_INDEXED_GROUP elements a pass). Blocks of
 * DML_CUDA_BLOCK threads, at most DML_CUDA_BLOCKS_PER_SM per SM,
 * grid-stride beyond that; 64-bit indexing unless the plan's index32. */
void dml_cuda_plan_indexed(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch);

/* Whether the launcher has an indexed.cu kernel for the plan's kind. */
int dml_cuda_is_indexed_kind(uint32_t kind);

#endif /* DML_CUDA_INDEXED_H */
