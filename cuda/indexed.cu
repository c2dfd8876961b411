/*
 * indexed.cu — the data-dependent plans' kernels: thin __global__ wrappers
 * around their thread code (the emulator runs the same code), one per
 * path (INDEXED flat and rows, SCATTER, SELECT, ONE_HOT) and index width.
 */
#include "indexed_kernel.h"
#include "indexed_thread.h"
#include "scatter_thread.h"
#include "select_thread.h"

namespace {

enum path { INDEXED_FLAT, INDEXED_ROWS, SCATTER, SELECT, ONE_HOT };

template <int Wide, int Path>
__global__ void __launch_bounds__(DML_CUDA_BLOCK, DML_INDEXED_BLOCKS_PER_SM(Wide)) dml_indexed_kernel(const dml_indexed_params params)
{
    switch (Path) {
    case INDEXED_FLAT: dml_indexed_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, Wide); break;
    case INDEXED_ROWS: dml_indexed_rows_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, Wide); break;
    case SCATTER: dml_scatter_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, Wide); break;
    case SELECT: dml_select_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, Wide, 0); break;
    default: dml_select_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, Wide, 1); break;
    }
}

template <int Path>
const void* of_width(int wide)
{
    return wide ? (const void*)dml_indexed_kernel<1, Path> : (const void*)dml_indexed_kernel<0, Path>;
}

const void* pick(const dml_cuda_launch* launch)
{
    switch (launch->indexed_params.plan.kind) {
    case DML_PLAN_INDEXED:
        return launch->indexed_params.rows ? of_width<INDEXED_ROWS>(launch->wide) : of_width<INDEXED_FLAT>(launch->wide);
    case DML_PLAN_SCATTER: return of_width<SCATTER>(launch->wide);
    case DML_PLAN_SELECT: return of_width<SELECT>(launch->wide);
    case DML_PLAN_ONE_HOT: return of_width<ONE_HOT>(launch->wide);
    default: return nullptr;
    }
}

} // namespace

extern "C" cudaError_t dml_cuda_launch_indexed(const dml_cuda_launch* launch, cudaStream_t stream)
{
    if (launch->grid == 0)
        return cudaSuccess;
    const void* kernel = pick(launch);
    if (!kernel)
        return cudaErrorInvalidValue;
    void* arguments[] = { (void*)&launch->indexed_params };
    return cudaLaunchKernel(kernel, dim3(launch->grid), dim3(launch->block), arguments, 0, stream);
}

extern "C" cudaError_t dml_cuda_load_indexed(const dml_cuda_launch* launch)
{
    const void* kernel = pick(launch);
    if (!kernel)
        return cudaErrorInvalidValue;
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, kernel);
}
