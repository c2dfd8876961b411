#include "cast_launch.h"

#include <string.h>

#include "grid_stride.h"

void dml_cuda_plan_cast(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch)
{
    memset(launch, 0, sizeof *launch);
    launch->cast = 1;
    launch->element_size = plan->element_size;
    launch->cast_params.plan = *plan;
    dml_cuda_grid_stride(launch, plan->element_count, DML_CUDA_BLOCK, sm_count);
}
