/*
 * cuda_backend.h — the CUDA backends the shared core drives (core/backend.h):
 * the GPU one (cuda_backend.c) and the host-emulated one (emu_backend.c).
 * Kept apart from the plugin entry points so tests can drive them directly.
 */
#ifndef DML_CUDA_BACKEND_H
#define DML_CUDA_BACKEND_H

#include "core/backend.h"

extern const dml_backend dml_cuda_backend;
extern const dml_backend dml_cudaemu_backend;

#endif /* DML_CUDA_BACKEND_H */
