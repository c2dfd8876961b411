/*
 * fill.h — host side of DML_PLAN_FILL launches (fill.c): the geometry (the
 * emulator runs fill_thread.h over it, checking every store, in
 * emulator.c). The kernel itself is fill.cu (dml_cuda_launch_fill,
 * fill_kernel.h; kernels.cu's launcher calls it).
 */
#ifndef DML_CUDA_FILL_H
#define DML_CUDA_FILL_H

#include "launch.h"

/* Rows at least this many bytes long are filled by 16-byte windows. */
#define DML_FILL_VECTOR_MIN_ROW_BYTES 32

/* Fills launch for a FILL plan: blocks of DML_CUDA_BLOCK threads, at most
 * DML_CUDA_BLOCKS_PER_SM per SM, grid-stride beyond that. */
void dml_cuda_plan_fill(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch);

#endif /* DML_CUDA_FILL_H */
