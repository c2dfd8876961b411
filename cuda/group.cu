/*
 * group.cu — the grouped gather kernels (group.h): one launch runs the
 * parts of a JOIN or SPLIT, each block as a block of its part
 * (group_thread.h), on the part's own path (or the joined rows of a JOIN,
 * group_join.h, or the flat output of a SPLIT's part, group_split.h): the same per-thread code as the
 * gather kernels (gather_thread.h, tiled_block.h), specialised at run time
 * by the part's mode. A block's part, and so its path, is the same for all
 * its threads: no divergence, and the tiled path's barriers stay uniform.
 *
 * Specialisations: element size (every part's) x index width (64-bit when
 * any part needs it) x parameter size (DML_GROUP_SMALL_PARTS parts, or
 * DML_GROUP_PARTS). The parameter is __grid_constant__: the parts are read
 * where the launch put them, by address, never copied to local memory.
 * Register budget: DML_GROUP_BLOCKS_PER_SM (group_params.h).
 */
#include "group.h"
#include "group_join.h"
#include "group_split.h"
#include "group_kernel.h"
#include "group_thread.h"
#include "tiled_block.h"

#include <cstddef>

/* The parameter of a kernel for `Parts` parts: the first Parts parts of
 * dml_group_params, with the same layout (the launcher always passes a
 * whole dml_group_params; the launch copies sizeof(this) bytes of it). */
template <unsigned Parts>
struct dml_group_params_of {
    uint32_t parts;
    uint32_t row_join;
    uint32_t row_split;
    uint32_t reserved;
    dml_group_part part[Parts];
};

static_assert(sizeof(dml_group_params) <= DML_GROUP_PARAM_BYTES, "a kernel's parameters take at most 32764 bytes");
static_assert(sizeof(dml_group_params) + sizeof(dml_group_part) > DML_GROUP_PARAM_BYTES,
    "DML_GROUP_PARTS is the most parts that fit");
static_assert(sizeof(dml_group_params_of<DML_GROUP_PARTS>) == sizeof(dml_group_params), "same layout");
static_assert(offsetof(dml_group_params_of<DML_GROUP_SMALL_PARTS>, part) == offsetof(dml_group_params, part),
    "same layout");

template <int ElementSize, int Wide, unsigned Parts>
__global__ void __launch_bounds__(DML_CUDA_BLOCK, DML_GROUP_BLOCKS_PER_SM(ElementSize, Wide))
dml_group_kernel(const __grid_constant__ dml_group_params_of<Parts> params)
{
    extern __shared__ __align__(16) unsigned char tile[];
    if (params.row_join) {
        dml_join_thread(params.part, params.parts, &params.part[params.parts].params, blockIdx.x, threadIdx.x,
            gridDim.x, blockDim.x, ElementSize, Wide);
        return;
    }
    const dml_group_part* part = &params.part[dml_group_find_part(params.part, params.parts, blockIdx.x)];
    const uint32_t block = blockIdx.x - part->first_block;
    if (params.row_split) {
        dml_split_thread(part, block, threadIdx.x, part->blocks, blockDim.x, ElementSize, Wide);
        return;
    }
    const dml_gather_params* p = &part->params;
    switch (part->mode) {
    case DML_CUDA_MODE_TILED:
        dml_tiled_block<ElementSize, Wide>(p, block, part->blocks, tile);
        break;
    case DML_CUDA_MODE_VECTOR:
        dml_gather_thread(p, block, threadIdx.x, part->blocks, blockDim.x, ElementSize, DML_CUDA_MODE_VECTOR, Wide,
            DML_CUDA_REVERSE_NONE, -1);
        break;
    case DML_CUDA_MODE_VECTOR_REVERSED:
        dml_gather_thread(p, block, threadIdx.x, part->blocks, blockDim.x, ElementSize,
            DML_CUDA_MODE_VECTOR_REVERSED, Wide, DML_CUDA_REVERSE_NONE, -1);
        break;
    default:
        dml_gather_thread(p, block, threadIdx.x, part->blocks, blockDim.x, ElementSize, DML_CUDA_MODE_SCALAR, Wide,
            DML_CUDA_REVERSE_NONE, -1);
        break;
    }
}

namespace {

template <int E, int W>
const void* pick_parts(uint32_t parts)
{
    return parts <= DML_GROUP_SMALL_PARTS ? (const void*)dml_group_kernel<E, W, DML_GROUP_SMALL_PARTS>
                                          : (const void*)dml_group_kernel<E, W, DML_GROUP_PARTS>;
}

template <int E>
const void* pick_wide(int wide, uint32_t parts)
{
    return wide ? pick_parts<E, 1>(parts) : pick_parts<E, 0>(parts);
}

const void* pick(uint32_t element_size, int wide, uint32_t parts)
{
    switch (element_size) {
    case 1: return pick_wide<1>(wide, parts);
    case 2: return pick_wide<2>(wide, parts);
    case 4: return pick_wide<4>(wide, parts);
    default: return pick_wide<8>(wide, parts);
    }
}

} // namespace

extern "C" cudaError_t dml_cuda_launch_group(const dml_cuda_group_launch* group, cudaStream_t stream)
{
    if (group->grid == 0)
        return cudaSuccess;
    void* arguments[] = { (void*)&group->params };
    return cudaLaunchKernel(pick(group->element_size, group->wide, group->params.parts), dim3(group->grid),
        dim3(group->block), arguments, group->shared_bytes, stream);
}

extern "C" cudaError_t dml_cuda_load_group_kernels(uint32_t element_size)
{
    /* Asking for a kernel's attributes loads it (CUDA's lazy loading). */
    for (int wide = 0; wide <= 1; ++wide)
        for (uint32_t parts = DML_GROUP_SMALL_PARTS; parts <= DML_GROUP_PARTS; parts += DML_GROUP_PARTS - DML_GROUP_SMALL_PARTS) {
            cudaFuncAttributes attributes;
            const cudaError_t error = cudaFuncGetAttributes(&attributes, pick(element_size, wide, parts));
            if (error != cudaSuccess)
                return error;
        }
    return cudaSuccess;
}

extern "C" int dml_cuda_group_kernel_count(void)
{
    return 4 * 2 * 2; /* element sizes x index widths x parameter sizes */
}
