/*
 * grid_stride.h — the grid of the kernels that walk their work in a
 * grid-stride loop (CAST, SCALE_BIAS, FILL, PAD): blocks of DML_CUDA_BLOCK
 * threads, enough for the work but at most DML_CUDA_BLOCKS_PER_SM per SM
 * (the loop takes the rest). Host side, shared by their launchers.
 */
#ifndef DML_CUDA_GRID_STRIDE_H
#define DML_CUDA_GRID_STRIDE_H

#include "launch.h"

/* `items` units of work, `per_block` of them per block per pass. */
static inline void dml_cuda_grid_stride(dml_cuda_launch* launch, uint64_t items, uint32_t per_block, uint32_t sm_count)
{
    const uint64_t blocks = items / per_block + (items % per_block != 0);
    const uint64_t resident = (uint64_t)(sm_count ? sm_count : 1) * DML_CUDA_BLOCKS_PER_SM;
    launch->block = DML_CUDA_BLOCK;
    launch->blocks_per_sm = DML_CUDA_BLOCKS_PER_SM;
    launch->grid = (uint32_t)(blocks < resident ? blocks : resident);
}

#endif /* DML_CUDA_GRID_STRIDE_H */
