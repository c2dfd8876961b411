/*
 * indexed_kernel.h — enqueueing a launch of a data-dependent plan (INDEXED,
 * SCATTER, SELECT, ONE_HOT: indexed.cu).
 */
#ifndef DML_CUDA_INDEXED_KERNEL_H
#define DML_CUDA_INDEXED_KERNEL_H

#include <cuda_runtime_api.h>

#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only a launch: parameters by value, no allocation, no synchronisation. */
cudaError_t dml_cuda_launch_indexed(const dml_cuda_launch* launch, cudaStream_t stream);

/* Loads the launch's kernel into the current context (lazy loading). */
cudaError_t dml_cuda_load_indexed(const dml_cuda_launch* launch);

#ifdef __cplusplus
}
#endif

#endif /* DML_CUDA_INDEXED_KERNEL_H */
