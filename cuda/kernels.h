/*
 * kernels.h — launching the gather kernels (kernels.cu). Host C interface.
 */
#ifndef DML_CUDA_KERNELS_H
#define DML_CUDA_KERNELS_H

#include <cuda_runtime_api.h>

#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues the launch on stream: a cudaMemcpyAsync for a copy launch, else the
 * kernel specialised for the launch. Only a launch: no allocation, no
 * synchronisation, parameters by value (legal inside stream capture). */
cudaError_t dml_cuda_launch_gather(const dml_cuda_launch* launch, cudaStream_t stream);

/* Loads the kernel the launch uses into the current context (modules load
 * lazily): done at compile time, so that no dispatch pays it, and the first
 * dispatch can be captured into a CUDA graph. */
cudaError_t dml_cuda_load_kernel(const dml_cuda_launch* launch);

/* Number of distinct kernels compiled (for tests and reports). */
int dml_cuda_kernel_count(void);

#ifdef __cplusplus
}
#endif

#endif /* DML_CUDA_KERNELS_H */
