#include "pad.h"

#include <string.h>

#include "grid_stride.h"

/* Passes a row segment takes at most: long enough that the window a
 * segment loads before its first pass (shared with the previous segment)
 * is a small part of its loads, short enough that a long row still spreads
 * over many warps. */
#define PAD_SEGMENT_PASSES 64

/* The row path needs rows contiguous in both tensors, DML_PAD_ROW_MIN_WIDTH
 * wide at least, with an interior (elements whose innermost coordinate
 * needs no fold). */
static void plan_rows(const dml_plan* plan, dml_pad_params* p)
{
    if (plan->rank == 0)
        return;
    const uint32_t last = plan->rank - 1;
    const uint64_t width = plan->sizes[last];
    if (plan->in_strides[last] != 1 || plan->out_strides[last] != 1 || width < DML_PAD_ROW_MIN_WIDTH)
        return;
    uint64_t begin = 0, end = width;
    if (plan->pad_extent[last]) { /* c is interior where 0 <= c + origin < extent */
        const int64_t origin = plan->pad_origin[last], extent = (int64_t)plan->pad_extent[last];
        const int64_t first = -origin, past = extent - origin, w = (int64_t)width;
        begin = first <= 0 ? 0 : first >= w ? width : (uint64_t)first;
        end = past <= (int64_t)begin ? begin : past >= w ? width : (uint64_t)past;
    }
    if (begin == end)
        return;
    /* A row starts anywhere in a window: its passes are at most this many. */
    const uint64_t passes = (width + 2 * DML_PAD_WINDOW - 2) / DML_PAD_WINDOW;
    p->rows = 1;
    p->segment_passes = passes < PAD_SEGMENT_PASSES ? (uint32_t)passes : PAD_SEGMENT_PASSES;
    p->width = width;
    p->interior_begin = begin;
    p->interior_end = end;
    p->segments_per_row = (passes + p->segment_passes - 1) / p->segment_passes;
    p->tasks = plan->element_count / width * p->segments_per_row;
}

void dml_cuda_plan_pad(const dml_plan* plan, uint32_t sm_count, dml_cuda_launch* launch)
{
    memset(launch, 0, sizeof *launch);
    launch->pad = 1;
    launch->wide = !plan->index32;
    launch->element_size = plan->element_size;
    launch->pad_params.plan = *plan;
    plan_rows(plan, &launch->pad_params);
    if (launch->pad_params.rows) /* a warp per task */
        dml_cuda_grid_stride(launch, launch->pad_params.tasks, DML_CUDA_BLOCK / DML_PAD_WINDOW, sm_count);
    else /* a thread per element */
        dml_cuda_grid_stride(launch, plan->element_count, DML_CUDA_BLOCK, sm_count);
}
