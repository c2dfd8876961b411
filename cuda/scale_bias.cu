/*
 * scale_bias.cu — the DML_PLAN_SCALE_BIAS kernel: a thin __global__ wrapper
 * around scale_bias_thread.h (the emulator runs the same code).
 */
#include "scale_bias_kernel.h"
#include "scale_bias_thread.h"

__global__ void __launch_bounds__(DML_CUDA_BLOCK) dml_scale_bias_kernel(const dml_scale_bias_params params)
{
    dml_scale_bias_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x);
}

extern "C" cudaError_t dml_cuda_launch_scale_bias(const dml_cuda_launch* launch, cudaStream_t stream)
{
    if (launch->grid == 0)
        return cudaSuccess;
    void* arguments[] = { (void*)&launch->scale_bias_params };
    return cudaLaunchKernel((const void*)dml_scale_bias_kernel, dim3(launch->grid), dim3(launch->block), arguments, 0,
        stream);
}

extern "C" cudaError_t dml_cuda_load_scale_bias(void)
{
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, (const void*)dml_scale_bias_kernel);
}
