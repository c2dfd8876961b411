#include "indexed.h"

#include <string.h>

#include "grid_stride.h"

int dml_cuda_is_indexed_kind(uint32_t kind)
{
    return kind == DML_PLAN_INDEXED || kind == DML_PLAN_SCATTER || kind == DML_PLAN_SELECT ||
        kind == DML_PLAN_ONE_HOT;
}

/* INDEXED's row path: rows contiguous on both sides, wide enough, read at
 * one index tuple each (len_stride 0 along them). */
static void plan_rows(const dml_plan* plan, dml_indexed_params* p)
{
    const uint32_t inner = plan->rank - 1;
    const uint64_t width = plan->sizes[inner];
    if (plan->kind != DML_PLAN_INDEXED || plan->in_strides[inner] != 1 || plan->out_strides[inner] != 1 ||
        plan->len_strides[inner] != 0 || width * plan->element_size < DML_INDEXED_ROW_MIN_BYTES)
        return;
    /* A row starting anywhere in a line touches at most this many lines. */
    const uint64_t lines = (width * plan->element_size + 2 * DML_CUDA_VECTOR_BYTES - 2) / DML_CUDA_VECTOR_BYTES;
    const uint64_t most = (uint64_t)DML_INDEXED_WARP * DML_INDEXED_GROUP * DML_INDEXED_SEGMENT_PASSES;
    p->rows = 1;
    p->width = width;
    p->segment_lines = (uint32_t)(lines < most ? lines : most);
    p->segments_per_row = (lines + p->segment_lines - 1) / p->segment_lines;
    p->tasks = plan->element_count / width * p->segments_per_row;
}

/* dml_cuda_grid_stride's grid, at most DML_INDEXED_BLOCKS_PER_SM blocks per SM. */
static void grid(dml_cuda_launch* launch, uint64_t items, uint32_t per_block, uint32_t sm_count)
{
    dml_cuda_grid_stride(launch, items, per_block, sm_count);
    launch->blocks_per_sm = DML_INDEXED_BLOCKS_PER_SM(launch->wide);
    const uint64_t resident = (uint64_t)(sm_count ? sm_count : 1) * launch->blocks_per_sm;
    if (launch->grid > resident)
        launch->grid = (uint32_t)resident;
}

void dml_cuda_plan_indexed(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch)
{
    memset(launch, 0, sizeof *launch);
    launch->indexed = 1;
    launch->wide = !plan->index32;
    launch->element_size = plan->element_size;
    launch->indexed_params.plan = *plan;
    plan_rows(plan, &launch->indexed_params);
    if (launch->indexed_params.rows) /* a warp per task */
        grid(launch, launch->indexed_params.tasks, DML_CUDA_BLOCK / DML_INDEXED_WARP, sm_count);
    else /* a thread per DML_INDEXED_GROUP elements */
        grid(launch, (plan->element_count + DML_INDEXED_GROUP - 1) / DML_INDEXED_GROUP,
            DML_CUDA_BLOCK, sm_count);
}
