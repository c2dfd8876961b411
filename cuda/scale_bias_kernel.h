/*
 * scale_bias_kernel.h — enqueueing a DML_PLAN_SCALE_BIAS launch (scale_bias.cu).
 */
#ifndef DML_CUDA_SCALE_BIAS_KERNEL_H
#define DML_CUDA_SCALE_BIAS_KERNEL_H

#include <cuda_runtime_api.h>

#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only a launch: parameters by value, no allocation, no synchronisation. */
cudaError_t dml_cuda_launch_scale_bias(const dml_cuda_launch* launch, cudaStream_t stream);

/* Loads the kernel into the current context (lazy loading). */
cudaError_t dml_cuda_load_scale_bias(void);

#ifdef __cplusplus
}
#endif

#endif /* DML_CUDA_SCALE_BIAS_KERNEL_H */
