/*
 * hd.h — DML_HD, the qualifier of a function that runs on the host and, under
 * nvcc, on the device too: the code shared by the CPU backend, the CUDA
 * kernels (kernels.cu, scale_bias.cu) and the host emulator (cuda/emulator.c),
 * so that every one of them executes the same logic.
 *
 * Always inlined: the kernels' per-thread code relies on the compiler folding
 * the constants its callers pass.
 */
#ifndef DML_CORE_HD_H
#define DML_CORE_HD_H

#if defined(__CUDACC__)
#define DML_HD static __host__ __device__ __forceinline__
#else
#define DML_HD static inline __attribute__((always_inline))
#endif

#endif /* DML_CORE_HD_H */
