/*
 * cast_kernel.h — enqueueing a DML_PLAN_CAST launch (cast.cu).
 */
#ifndef DML_CUDA_CAST_KERNEL_H
#define DML_CUDA_CAST_KERNEL_H

#include <cuda_runtime_api.h>

#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only a launch: parameters by value, no allocation, no synchronisation. */
cudaError_t dml_cuda_launch_cast(const dml_cuda_launch* launch, cudaStream_t stream);

/* Loads the launch's kernel into the current context (lazy loading). */
cudaError_t dml_cuda_load_cast(const dml_cuda_launch* launch);

#ifdef __cplusplus
}
#endif

#endif /* DML_CUDA_CAST_KERNEL_H */
