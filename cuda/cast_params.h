/*
 * cast_params.h — what a DML_PLAN_CAST launch carries by value: the plan
 * (the kernel walks it directly) and the bound pointers. Plain C, shared by
 * the launcher, the kernel and the emulator.
 */
#ifndef DML_CUDA_CAST_PARAMS_H
#define DML_CUDA_CAST_PARAMS_H

#include "core/plan.h"

typedef struct dml_cast_params {
    dml_plan plan;
    const void* in;
    void* out;
} dml_cast_params;

#endif /* DML_CUDA_CAST_PARAMS_H */
