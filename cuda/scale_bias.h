/*
 * scale_bias.h — host side of DML_PLAN_SCALE_BIAS launches (scale_bias.c):
 * the geometry (the emulator runs scale_bias_thread.h over it, checking
 * every access, in emulator.c). The kernel itself is scale_bias.cu (dml_cuda_launch_scale_bias, kernels.h's
 * launcher calls it).
 */
#ifndef DML_CUDA_SCALE_BIAS_H
#define DML_CUDA_SCALE_BIAS_H

#include "launch.h"

/* Fills launch for a SCALE_BIAS plan: blocks of DML_CUDA_BLOCK threads, at
 * most DML_CUDA_BLOCKS_PER_SM per SM, grid-stride beyond that. */
void dml_cuda_plan_scale_bias(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch);

#endif /* DML_CUDA_SCALE_BIAS_H */
