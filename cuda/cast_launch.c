#include "cast_launch.h"

#include <string.h>

void dml_cuda_plan_cast(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch)
{
    memset(launch, 0, sizeof *launch);
    launch->cast = 1;
    launch->element_size = plan->element_size;
    launch->cast_params.plan = *plan;
    uint64_t blocks = (plan->element_count + DML_CUDA_BLOCK - 1) / DML_CUDA_BLOCK;
    uint64_t resident = (uint64_t)(sm_count ? sm_count : 1) * DML_CUDA_BLOCKS_PER_SM;
    launch->block = DML_CUDA_BLOCK;
    launch->blocks_per_sm = DML_CUDA_BLOCKS_PER_SM;
    launch->grid = (uint32_t)(blocks < resident ? blocks : resident);
}
