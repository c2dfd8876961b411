/*
 * fill.cu — the DML_PLAN_FILL kernels: thin __global__ wrappers around
 * fill_thread.h (the emulator runs the same code), one per element size.
 * The values are core/fill.h's, whose device path uses __fmul_rn /
 * __fadd_rn (and the double ones), which nvcc never contracts into a fused
 * multiply-add; tests/cuda/test_sass_loads.c checks the SASS has none.
 */
#include "fill_kernel.h"
#include "fill_thread.h"

template <uint32_t E>
__global__ void __launch_bounds__(DML_CUDA_BLOCK) dml_fill_kernel(const dml_fill_params params)
{
    dml_fill_thread(&params, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x, E);
}

static const void* fill_kernel_for(uint32_t element_size)
{
    switch (element_size) {
    case 1: return (const void*)dml_fill_kernel<1>;
    case 2: return (const void*)dml_fill_kernel<2>;
    case 4: return (const void*)dml_fill_kernel<4>;
    default: return (const void*)dml_fill_kernel<8>;
    }
}

extern "C" cudaError_t dml_cuda_launch_fill(const dml_cuda_launch* launch, cudaStream_t stream)
{
    if (launch->grid == 0)
        return cudaSuccess;
    void* arguments[] = { (void*)&launch->fill_params };
    return cudaLaunchKernel(fill_kernel_for(launch->element_size), dim3(launch->grid), dim3(launch->block),
        arguments, 0, stream);
}

extern "C" cudaError_t dml_cuda_load_fill(const dml_cuda_launch* launch)
{
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, fill_kernel_for(launch->element_size));
}
