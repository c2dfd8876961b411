#include "fill.h"

#include <string.h>

#include "grid_stride.h"

void dml_cuda_plan_fill(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch)
{
    memset(launch, 0, sizeof *launch);
    dml_fill_params* p = &launch->fill_params;
    launch->fill = 1;
    launch->element_size = plan->element_size;
    p->plan = *plan;
    const uint32_t inner = plan->rank - 1, e = plan->element_size;
    const uint64_t row = plan->sizes[inner];
    p->vector = plan->out_strides[inner] == 1 && row * e >= DML_FILL_VECTOR_MIN_ROW_BYTES;
    if (p->vector) {
        /* A row of row * e bytes starting anywhere in a 16-byte line touches
         * at most this many lines. Rows * that fits: it is at most about
         * twice the output's bytes / 16. */
        p->windows_per_row = (row * e + 30) / 16;
        p->items = plan->element_count / row * p->windows_per_row;
    } else {
        p->items = plan->element_count;
    }
    dml_cuda_grid_stride(launch, p->items, DML_CUDA_BLOCK, sm_count);
}
