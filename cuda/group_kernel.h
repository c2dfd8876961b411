/*
 * group_kernel.h — launching the grouped gather kernels (group.cu). Host C.
 */
#ifndef DML_CUDA_GROUP_KERNEL_H
#define DML_CUDA_GROUP_KERNEL_H

#include <cuda_runtime_api.h>

#include "group.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues the grouped launch on stream (nothing when its grid is empty):
 * one kernel launch, parameters by value (legal inside stream capture). */
cudaError_t dml_cuda_launch_group(const dml_cuda_group_launch* group, cudaStream_t stream);

/* Loads the grouped kernels of an element size into the current context
 * (modules load lazily): done when a GATHER is compiled, so that no
 * dispatch pays it and the first can be captured into a CUDA graph. */
cudaError_t dml_cuda_load_group_kernels(uint32_t element_size);

/* Number of grouped kernels compiled (for tests and reports). */
int dml_cuda_group_kernel_count(void);

#ifdef __cplusplus
}
#endif

#endif /* DML_CUDA_GROUP_KERNEL_H */
