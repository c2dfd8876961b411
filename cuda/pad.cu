/*
 * pad.cu — the DML_PLAN_PAD kernels: thin __global__ wrappers around
 * pad_thread.h (the emulator runs the same code), one per index width and
 * path (flat, rows: pad.c decides).
 */
#include "pad_kernel.h"
#include "pad_thread.h"

template <int Wide, int Rows>
__global__ void __launch_bounds__(DML_CUDA_BLOCK) dml_pad_kernel(const dml_pad_params params)
{
    if (Rows)
        dml_pad_rows_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, Wide);
    else
        dml_pad_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, Wide);
}

static const void* pad_kernel(const dml_cuda_launch* launch)
{
    if (launch->pad_params.rows)
        return launch->wide ? (const void*)dml_pad_kernel<1, 1> : (const void*)dml_pad_kernel<0, 1>;
    return launch->wide ? (const void*)dml_pad_kernel<1, 0> : (const void*)dml_pad_kernel<0, 0>;
}

extern "C" cudaError_t dml_cuda_launch_pad(const dml_cuda_launch* launch, cudaStream_t stream)
{
    if (launch->grid == 0)
        return cudaSuccess;
    void* arguments[] = { (void*)&launch->pad_params };
    return cudaLaunchKernel(pad_kernel(launch), dim3(launch->grid), dim3(launch->block), arguments, 0, stream);
}

extern "C" cudaError_t dml_cuda_load_pad(const dml_cuda_launch* launch)
{
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, pad_kernel(launch));
}
