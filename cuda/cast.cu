/*
 * cast.cu — the DML_PLAN_CAST kernels: one per (input, output) type pair,
 * a thin __global__ wrapper around cast_thread.h with both types constant,
 * so core/cast.h's switches fold (the emulator runs the same thread code).
 * Built without fast math: the conversions are exact integer and IEEE
 * round-to-nearest operations, subnormals kept, as on the CPU.
 */
#include "cast_kernel.h"
#include "cast_thread.h"

namespace {

template <uint32_t IN, uint32_t IN_SIZE, uint32_t OUT, uint32_t OUT_SIZE>
__global__ void __launch_bounds__(DML_CUDA_BLOCK) dml_cast_kernel(const dml_cast_params params)
{
    dml_cast_thread(&params, IN, IN_SIZE, OUT, OUT_SIZE, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x);
}

typedef void (*cast_kernel_fn)(const dml_cast_params);

#define DML_CAST_OUT_TYPES(X, IN, IS) \
    X(IN, IS, FLOAT32, 4) X(IN, IS, FLOAT16, 2) X(IN, IS, UINT32, 4) X(IN, IS, UINT16, 2) X(IN, IS, UINT8, 1) \
    X(IN, IS, INT32, 4) X(IN, IS, INT16, 2) X(IN, IS, INT8, 1) X(IN, IS, FLOAT64, 8) X(IN, IS, UINT64, 8)   \
    X(IN, IS, INT64, 8)
#define DML_CAST_IN_TYPES(X) \
    X(FLOAT32, 4) X(FLOAT16, 2) X(UINT32, 4) X(UINT16, 2) X(UINT8, 1) X(INT32, 4) X(INT16, 2) X(INT8, 1) \
    X(FLOAT64, 8) X(UINT64, 8) X(INT64, 8)
#define DML_CAST_CASE(IN, IS, OUT, OS) \
    if (in == DML_TENSOR_DATA_TYPE_##IN && out == DML_TENSOR_DATA_TYPE_##OUT) \
        return dml_cast_kernel<DML_TENSOR_DATA_TYPE_##IN, IS, DML_TENSOR_DATA_TYPE_##OUT, OS>;
#define DML_CAST_CASES_OF(IN, IS) DML_CAST_OUT_TYPES(DML_CAST_CASE, IN, IS)

cast_kernel_fn pick(uint32_t in, uint32_t out)
{
    DML_CAST_IN_TYPES(DML_CAST_CASES_OF)
    return nullptr;
}

} // namespace

extern "C" cudaError_t dml_cuda_launch_cast(const dml_cuda_launch* launch, cudaStream_t stream)
{
    if (launch->grid == 0)
        return cudaSuccess;
    cast_kernel_fn kernel = pick(launch->cast_params.plan.in_data_type, launch->cast_params.plan.data_type);
    if (!kernel)
        return cudaErrorInvalidValue;
    void* arguments[] = { (void*)&launch->cast_params };
    return cudaLaunchKernel((const void*)kernel, dim3(launch->grid), dim3(launch->block), arguments, 0, stream);
}

extern "C" cudaError_t dml_cuda_load_cast(const dml_cuda_launch* launch)
{
    cast_kernel_fn kernel = pick(launch->cast_params.plan.in_data_type, launch->cast_params.plan.data_type);
    if (!kernel)
        return cudaErrorInvalidValue;
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, (const void*)kernel);
}
