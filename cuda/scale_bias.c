#include "scale_bias.h"

#include <string.h>

#include "grid_stride.h"

void dml_cuda_plan_scale_bias(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch)
{
    memset(launch, 0, sizeof *launch);
    launch->scale_bias = 1;
    launch->element_size = plan->element_size;
    launch->scale_bias_params.plan = *plan;
    dml_cuda_grid_stride(launch, plan->element_count, DML_CUDA_BLOCK, sm_count);
}
