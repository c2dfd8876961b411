/*
 * scale_bias_params.h — what a DML_PLAN_SCALE_BIAS launch carries by value:
 * the plan itself (the kernel walks it directly) and the bound pointers.
 * Plain C, shared by the launcher, the kernel and the emulator.
 */
#ifndef DML_CUDA_SCALE_BIAS_PARAMS_H
#define DML_CUDA_SCALE_BIAS_PARAMS_H

#include "core/plan.h"

typedef struct dml_scale_bias_params {
    dml_plan plan;
    const void* in;
    void* out;
} dml_scale_bias_params;

#endif /* DML_CUDA_SCALE_BIAS_PARAMS_H */
