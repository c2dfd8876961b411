/*
 * vs_emulator_kinds.h — test_cuda_vs_emulator's CAST and PAD plans
 * (vs_emulator_kinds.c): their kernels (cast.cu, pad.cu) have their own
 * launches, outside the gather variants the sweep counts.
 */
#ifndef DML_VS_EMULATOR_KINDS_H
#define DML_VS_EMULATOR_KINDS_H

#include <stdint.h>

#include "cpu_test_util.h"

/* Runs every CAST and PAD plan in the emulator and, when on_gpu, on the GPU
 * (with `guard` sentinel bytes each side of the output; 0: exact-size
 * allocations), each with 32- and 64-bit indexing at sms SMs and at 1, or
 * (quick, for compute-sanitizer) once, the index width and SM count
 * alternating from plan to plan; both against a naive reference, byte for
 * byte. Returns the failures (printed). */
int vs_emulator_kinds(rng* r, uint32_t sms, int on_gpu, size_t guard, int quick);

#endif /* DML_VS_EMULATOR_KINDS_H */
