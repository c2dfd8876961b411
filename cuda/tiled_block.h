/*
 * tiled_block.h — a TILED gather's block (nvcc only): the block's tiles in
 * turn, each through shared memory, square (tile_thread.h) or staged
 * (tile_staged.h). The loop bound and the choice are the same for every
 * thread of the block, so the barriers are. Shared by the gather kernels
 * (kernels.cu) and the grouped ones (group.cu), whose tiled parts run it as
 * block `block` of a grid of `grid`.
 */
#ifndef DML_CUDA_TILED_BLOCK_H
#define DML_CUDA_TILED_BLOCK_H

#include "gather_thread.h"
#include "tile_staged.h"

template <int ElementSize, int Wide>
__device__ __forceinline__ void dml_tiled_block(const dml_gather_params* params, uint64_t block, uint64_t grid,
    unsigned char* tile)
{
    if (params->tile_staged) {
        for (uint64_t t = block; t < params->count; t += grid) {
            dml_staged_load(params, t, threadIdx.x, tile, ElementSize, Wide);
            __syncthreads();
            dml_staged_store(params, t, threadIdx.x, tile, ElementSize, Wide);
            __syncthreads();
        }
        return;
    }
    for (uint64_t t = block; t < params->count; t += grid) {
        dml_tile_load(params, t, threadIdx.x, tile, ElementSize, Wide);
        __syncthreads();
        dml_tile_store(params, t, threadIdx.x, tile, ElementSize, Wide);
        __syncthreads();
    }
}

#endif /* DML_CUDA_TILED_BLOCK_H */
