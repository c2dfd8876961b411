/*
 * pad.h — host side of DML_PLAN_PAD launches (pad.c): the geometry (the
 * emulator runs pad_thread.h over it, checking every access, in
 * emulator.c). The kernel itself is pad.cu (dml_cuda_launch_pad, which
 * kernels.cu's launcher calls).
 */
#ifndef DML_CUDA_PAD_H
#define DML_CUDA_PAD_H

#include "launch.h"

/* Fills launch for a PAD plan: the row path (pad_params.rows; a warp per
 * row segment) where rows are contiguous and DML_PAD_ROW_MIN_WIDTH wide,
 * else the flat one (a thread per element); blocks of DML_CUDA_BLOCK
 * threads, at most DML_CUDA_BLOCKS_PER_SM per SM, grid-stride beyond that;
 * 64-bit indexing unless the plan's index32. */
void dml_cuda_plan_pad(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch);

#endif /* DML_CUDA_PAD_H */
