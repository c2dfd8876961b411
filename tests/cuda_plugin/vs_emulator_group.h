/*
 * vs_emulator_group.h — test_cuda_vs_emulator's grouped launches
 * (vs_emulator_group.c): JOIN's and SPLIT's parts as one launch of the
 * grouped kernels (cuda/group.cu).
 */
#ifndef DML_VS_EMULATOR_GROUP_H
#define DML_VS_EMULATOR_GROUP_H

#include <stdint.h>

/* Runs every JOIN and SPLIT case through dml_cuda_run_group in the emulator
 * (against a naive reference) and, when on_gpu, on the GPU (against the
 * emulator, byte for byte), at sms SMs and at 1, every buffer of its exact
 * size; checks the launch counts and that every grouped kernel variant was
 * reached. Returns the failures (printed). */
int vs_emulator_group(uint32_t sms, int on_gpu);

#endif /* DML_VS_EMULATOR_GROUP_H */
