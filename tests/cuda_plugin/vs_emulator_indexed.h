/*
 * vs_emulator_indexed.h — test_cuda_vs_emulator's data-dependent plans
 * (INDEXED, SCATTER, SELECT, ONE_HOT: vs_emulator_indexed.c): their kernels
 * (indexed.cu) have their own launches, outside the gather variants the
 * sweep counts.
 */
#ifndef DML_VS_EMULATOR_INDEXED_H
#define DML_VS_EMULATOR_INDEXED_H

#include <stdint.h>

/* Runs tests/cuda/indexed_cases.c's random cases of every shape (each
 * element size, 32- and 64-bit indexing, hostile indices) in the emulator
 * and, when on_gpu, on the GPU, at sms SMs and at 1 (quick: fewer cases),
 * every buffer of its exact size; both against the naive reference, byte
 * for byte, and every kernel path reached. Returns the failures (printed). */
int vs_emulator_indexed(uint64_t seed, uint32_t sms, int on_gpu, int quick);

#endif /* DML_VS_EMULATOR_INDEXED_H */
