/*
 * cast_launch.h — host side of DML_PLAN_CAST launches (cast_launch.c): the
 * geometry. The emulator runs cast_thread.h over it (emulator.c); the
 * kernels are cast.cu (dml_cuda_launch_cast, which kernels.h's launcher calls).
 */
#ifndef DML_CUDA_CAST_LAUNCH_H
#define DML_CUDA_CAST_LAUNCH_H

#include "launch.h"

/* Fills launch for a CAST plan: blocks of DML_CUDA_BLOCK threads, at most
 * DML_CUDA_BLOCKS_PER_SM per SM, grid-stride beyond that. */
void dml_cuda_plan_cast(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch);

#endif /* DML_CUDA_CAST_LAUNCH_H */
