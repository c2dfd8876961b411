/*
 * kernels.cu — the gather kernels: thin __global__ wrappers around the shared
 * per-thread code (gather_thread.h), one per specialisation, and the switch
 * that picks one for a launch.
 *
 * Specialisations: element size (1, 2, 4, 8) x mode (scalar, vector,
 * reversed vector) x reverse (none, REVERSE_SUBSEQUENCES along an outer axis
 * or along the row; a reversed row is never one, launch.c) x index width,
 * and for the common narrow gather the outer rank (0, 1, 2, or any); the
 * tiled transpose by element size x index width. Everything that fixes a
 * launch's path is a template parameter, so each kernel's loop holds one
 * path, whose loads all come before its stores (tests/cuda/test_sass_loads.c).
 */
#include "gather_thread.h"
#include "kernels.h"
#include "pad_kernel.h"
#include "cast_kernel.h"
#include "fill_kernel.h"
#include "indexed_kernel.h"
#include "scale_bias_kernel.h"
#include "tiled_block.h"

template <int ElementSize, int Mode, int Wide, int Reverse, int OuterRank>
__global__ void __launch_bounds__(DML_CUDA_BLOCK, DML_GATHER_BLOCKS_PER_SM(Mode, ElementSize, Wide, Reverse))
dml_gather_kernel(const dml_gather_params params)
{
    dml_gather_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, ElementSize, Mode, Wide, Reverse,
        OuterRank);
}

/* TILED: the block's tiles (tiled_block.h) over the tile's shared memory,
 * dynamic, sized by the launcher (shared_bytes). */
template <int ElementSize, int Wide>
__global__ void __launch_bounds__(DML_CUDA_BLOCK, DML_TILE_BLOCKS_PER_SM) dml_tiled_kernel(const dml_gather_params params)
{
    extern __shared__ __align__(16) unsigned char tile[];
    dml_tiled_block<ElementSize, Wide>(&params, blockIdx.x, gridDim.x, tile);
}

namespace {

typedef void (*kernel_fn)(const dml_gather_params);

template <int E, int M, int W, int R>
kernel_fn pick_rank(int outer_rank)
{
    if constexpr (!W && !R) {
        switch (outer_rank) {
        case 0: return dml_gather_kernel<E, M, W, R, 0>;
        case 1: return dml_gather_kernel<E, M, W, R, 1>;
        case 2: return dml_gather_kernel<E, M, W, R, 2>;
        default: break;
        }
    } else {
        (void)outer_rank;
    }
    return dml_gather_kernel<E, M, W, R, -1>;
}

template <int E, int M, int W>
kernel_fn pick_reverse(int reverse, int outer_rank)
{
    switch (reverse) {
    case DML_CUDA_REVERSE_NONE: return pick_rank<E, M, W, DML_CUDA_REVERSE_NONE>(outer_rank);
    case DML_CUDA_REVERSE_OUTER: return pick_rank<E, M, W, DML_CUDA_REVERSE_OUTER>(outer_rank);
    default:
        if constexpr (M == DML_CUDA_MODE_VECTOR_REVERSED)
            return nullptr; /* never planned: launch.c reverses a row's prefix on forward rows only */
        else
            return pick_rank<E, M, W, DML_CUDA_REVERSE_ROW>(outer_rank);
    }
}

template <int E, int M>
kernel_fn pick_flags(int wide, int reverse, int outer_rank)
{
    return wide ? pick_reverse<E, M, 1>(reverse, outer_rank) : pick_reverse<E, M, 0>(reverse, outer_rank);
}

template <int E>
kernel_fn pick_mode(int mode, int wide, int reverse, int outer_rank)
{
    switch (mode) {
    case DML_CUDA_MODE_TILED: return wide ? dml_tiled_kernel<E, 1> : dml_tiled_kernel<E, 0>;
    case DML_CUDA_MODE_VECTOR: return pick_flags<E, DML_CUDA_MODE_VECTOR>(wide, reverse, outer_rank);
    case DML_CUDA_MODE_VECTOR_REVERSED:
        return pick_flags<E, DML_CUDA_MODE_VECTOR_REVERSED>(wide, reverse, outer_rank);
    default: return pick_flags<E, DML_CUDA_MODE_SCALAR>(wide, reverse, outer_rank);
    }
}

kernel_fn pick(const dml_cuda_launch* l)
{
    switch (l->element_size) {
    case 1: return pick_mode<1>(l->mode, l->wide, l->reverse, l->outer_rank);
    case 2: return pick_mode<2>(l->mode, l->wide, l->reverse, l->outer_rank);
    case 4: return pick_mode<4>(l->mode, l->wide, l->reverse, l->outer_rank);
    default: return pick_mode<8>(l->mode, l->wide, l->reverse, l->outer_rank);
    }
}

} // namespace

extern "C" cudaError_t dml_cuda_launch_gather(const dml_cuda_launch* launch, cudaStream_t stream)
{
    if (launch->is_copy)
        return cudaMemcpyAsync(launch->copy_destination, launch->copy_source, launch->copy_bytes,
            cudaMemcpyDeviceToDevice, stream);
    if (launch->scale_bias)
        return dml_cuda_launch_scale_bias(launch, stream);
    if (launch->pad)
        return dml_cuda_launch_pad(launch, stream);
    if (launch->cast)
        return dml_cuda_launch_cast(launch, stream);
    if (launch->fill)
        return dml_cuda_launch_fill(launch, stream);
    if (launch->indexed)
        return dml_cuda_launch_indexed(launch, stream);
    if (launch->grid == 0)
        return cudaSuccess;
    kernel_fn kernel = pick(launch);
    if (!kernel)
        return cudaErrorInvalidValue;
    /* cudaLaunchKernel reports this launch's own status, not an earlier error. */
    void* arguments[] = { (void*)&launch->params };
    return cudaLaunchKernel((const void*)kernel, dim3(launch->grid), dim3(launch->block), arguments,
        launch->shared_bytes, stream);
}

extern "C" cudaError_t dml_cuda_load_kernel(const dml_cuda_launch* launch)
{
    if (launch->is_copy || launch->grid == 0)
        return cudaSuccess;
    if (launch->pad)
        return dml_cuda_load_pad(launch);
    if (launch->fill)
        return dml_cuda_load_fill(launch);
    if (launch->indexed)
        return dml_cuda_load_indexed(launch);
    if (launch->cast)
        return dml_cuda_load_cast(launch);
    if (launch->scale_bias)
        return dml_cuda_load_scale_bias();
    kernel_fn kernel = pick(launch);
    if (!kernel)
        return cudaErrorInvalidValue;
    /* Asking for a kernel's attributes loads it (CUDA's lazy loading). */
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, (const void*)kernel);
}

extern "C" int dml_cuda_kernel_count(void)
{
    /* 4 sizes x (scalar and vector: narrow gather at 4 ranks, wide gather, and RS along an outer axis
     * or the row at either width; reversed vector: the same less RS along the row), and tiled x 4
     * sizes x 2 index widths */
    return 4 * (2 * (4 + 1 + 2 * 2) + (4 + 1 + 2 * 1)) + 4 * 2;
}
