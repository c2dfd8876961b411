/*
 * fill_kernel.h — enqueueing a DML_PLAN_FILL launch (fill.cu).
 */
#ifndef DML_CUDA_FILL_KERNEL_H
#define DML_CUDA_FILL_KERNEL_H

#include <cuda_runtime_api.h>

#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only a launch: parameters by value, no allocation, no synchronisation. */
cudaError_t dml_cuda_launch_fill(const dml_cuda_launch* launch, cudaStream_t stream);

/* Loads the launch's kernel into the current context (see dml_cuda_load_kernel). */
cudaError_t dml_cuda_load_fill(const dml_cuda_launch* launch);

#ifdef __cplusplus
}
#endif

#endif /* DML_CUDA_FILL_KERNEL_H */
