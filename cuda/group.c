#include "group.h"

#include <stddef.h>
#include <string.h>

int dml_cuda_groupable(const dml_plan* plan)
{
    return plan->kind == DML_PLAN_GATHER;
}

/* The lowest and highest input offsets a vector gather reads: its rows
 * (row_length elements from their offset, forward) over the outer
 * dimensions; other paths leave them 0 (unused). Within the tensor's
 * offsets, so no sum overflows. */
static void input_extent(const dml_cuda_launch* l, dml_group_part* part)
{
    const dml_gather_params* p = &l->params;
    part->in_lowest = part->in_highest = 0;
    if (l->mode != DML_CUDA_MODE_VECTOR)
        return;
    int64_t low = p->in_offset, high = p->in_offset + (int64_t)p->row_length - 1;
    for (uint32_t d = 0; d < p->outer_rank; ++d) {
        const int64_t span = (int64_t)(p->outer_sizes[d] - 1) * p->in_strides[d];
        if (span < 0)
            low += span;
        else
            high += span;
    }
    part->in_lowest = low;
    part->in_highest = high;
}

/* Part n of the group from a plan's launch, bound to args; the part's
 * thread count kept in `blocks` until the group's block size is known. */
static void add_part(dml_cuda_group_launch* g, const dml_cuda_launch* l, const dml_plan_args* args)
{
    const uint32_t n = g->params.parts++;
    dml_group_part* part = &g->params.part[n];
    part->params = l->params;
    part->params.in = args->input;
    part->params.out = args->output;
    part->params.lengths = args->lengths;
    part->mode = (uint32_t)l->mode;
    part->first_block = 0;
    part->reserved = 0;
    part->blocks = l->grid * l->block; /* < 2^31: grid <= 2^16 SMs x 4 blocks, block <= 256 */
    input_extent(l, part);
    g->wide |= l->wide;
    if (l->block > g->block)
        g->block = l->block;
    if (l->mode == DML_CUDA_MODE_TILED && l->shared_bytes > g->shared_bytes)
        g->shared_bytes = l->shared_bytes;
    g->bound[n][0] = args->input;
    g->bound[n][1] = args->lengths;
    g->bound[n][2] = args->output;
    g->bound_bytes[n][0] = args->input_bytes;
    g->bound_bytes[n][1] = args->lengths_bytes;
    g->bound_bytes[n][2] = args->output_bytes;
}

/* The joined row's items (try_vectorize's rule, launch.c): a vector per
 * item, and at least as many items as the row's most edge elements. */
static uint64_t joined_row_items(uint64_t n, uint32_t lanes)
{
    const uint64_t rest = n % lanes, most_edges = rest + 1 < lanes ? rest + lanes : rest;
    const uint64_t max_edges = most_edges < n ? most_edges : n;
    return n / lanes > max_edges ? n / lanes : max_edges;
}

/* Whether the parts are a JOIN along the rows of one output: every part a
 * forward vector gather into the same output, with the same rows (outer
 * sizes and output strides), each starting where the previous one's row
 * ends. */
static int side_by_side(const dml_group_params* p)
{
    const dml_gather_params* first = &p->part[0].params;
    int64_t column = 0;
    for (uint32_t k = 0; k < p->parts; ++k) {
        const dml_gather_params* q = &p->part[k].params;
        if (p->part[k].mode != DML_CUDA_MODE_VECTOR || q->axis != -1 || q->out != first->out ||
            q->outer_rank != first->outer_rank || q->lanes != first->lanes || q->out_offset != first->out_offset + column)
            return 0;
        for (uint32_t d = 0; d < first->outer_rank; ++d)
            if (q->outer_sizes[d] != first->outer_sizes[d] || q->out_strides[d] != first->out_strides[d])
                return 0;
        column += (int64_t)q->row_length; /* < 2^63: the output holds every part's row */
    }
    return 1;
}

/* The joined-row path (group_join.h) when the parts are side by side: the
 * output row's geometry as part[parts], the grid sized as a vector gather
 * of it is (launch.c's rule: smaller blocks for launches too small to give
 * every SM two blocks). */
static int try_row_join(dml_cuda_group_launch* g, const dml_cuda_limits* limits)
{
    dml_group_params* p = &g->params;
    if (p->parts < 2 || p->parts >= DML_GROUP_PARTS || !side_by_side(p))
        return 0;
    dml_gather_params joined = p->part[0].params;
    const uint64_t rows = joined.count / joined.row_items;
    joined.row_length = 0;
    for (uint32_t k = 0; k < p->parts; ++k)
        joined.row_length += p->part[k].params.row_length;
    joined.row_items = joined_row_items(joined.row_length, joined.lanes);
    joined.count = rows * joined.row_items; /* <= the output's elements */
    if (!g->wide) {
        if (joined.count >= (1ull << 31))
            return 0;
        joined.row_divisor = dml_divisor32_make((uint32_t)joined.row_items);
    }
    const uint64_t sms = limits->sm_count < 1 ? 1 : limits->sm_count < 65536 ? limits->sm_count : 65536;
    uint32_t block = DML_CUDA_BLOCK;
    while (block > 64 && (joined.count + (uint64_t)block * DML_CUDA_ITEMS - 1) / ((uint64_t)block * DML_CUDA_ITEMS) < 2 * sms)
        block /= 2;
    const uint64_t blocks = (joined.count + (uint64_t)block * DML_CUDA_ITEMS - 1) / ((uint64_t)block * DML_CUDA_ITEMS);
    const uint64_t resident = sms * DML_GROUP_BLOCKS_PER_SM(g->element_size, g->wide);
    const uint32_t n = p->parts;
    p->part[n].params = joined;
    p->part[n].mode = DML_CUDA_MODE_VECTOR;
    p->part[n].first_block = 0;
    p->part[n].blocks = (uint32_t)(blocks < resident ? blocks : resident);
    p->part[n].reserved = 0;
    for (int r = 0; r < 3; ++r) {
        g->bound[n][r] = g->bound[0][r];
        g->bound_bytes[n][r] = g->bound_bytes[0][r];
    }
    p->row_join = 1;
    g->block = block;
    g->grid = p->part[n].blocks;
    g->shared_bytes = 0;
    return 1;
}

/* Whether a part's output is packed: its rows follow each other, so that
 * the output is one flat range of rows x row_length elements. */
static int packed_output(const dml_gather_params* q)
{
    int64_t stride = (int64_t)q->row_length;
    for (uint32_t d = q->outer_rank; d-- > 0;) {
        if (q->out_strides[d] != stride && q->outer_sizes[d] > 1)
            return 0;
        stride *= (int64_t)q->outer_sizes[d]; /* <= the part's elements */
    }
    return 1;
}

/* Whether the parts are a SPLIT along the rows of one input whose part rows
 * are not whole vectors (so that their output rows start off alignment):
 * every part a forward vector gather from the same input, with the same
 * rows (one outer dimension: its size and input stride), each starting
 * where the previous one's row ends, each output packed. */
static int split_side_by_side(const dml_group_params* p, uint32_t element_size)
{
    const dml_gather_params* first = &p->part[0].params;
    int64_t column = 0;
    int misaligned = 0;
    for (uint32_t k = 0; k < p->parts; ++k) {
        const dml_gather_params* q = &p->part[k].params;
        if (p->part[k].mode != DML_CUDA_MODE_VECTOR || q->axis != -1 || q->in != first->in ||
            q->outer_rank != first->outer_rank || q->lanes != first->lanes || q->in_offset != first->in_offset + column ||
            !packed_output(q))
            return 0;
        for (uint32_t d = 0; d < first->outer_rank; ++d)
            if (q->outer_sizes[d] != first->outer_sizes[d] || q->in_strides[d] != first->in_strides[d])
                return 0;
        column += (int64_t)q->row_length; /* < 2^63: the input holds every part's row */
        misaligned |= q->row_length * element_size % DML_CUDA_VECTOR_BYTES != 0;
    }
    return misaligned && first->outer_rank == 1; /* what plan coalescing leaves of packed rows */
}

/* The flat-part path (group_split.h) when the parts are a SPLIT of the
 * input's rows: each part's params rewritten to walk its packed output as
 * one row; its threads stay as planned (the flat row has at most the
 * items its rows had). */
static int try_row_split(dml_cuda_group_launch* g)
{
    dml_group_params* p = &g->params;
    if (p->parts < 2 || !split_side_by_side(p, g->element_size))
        return 0;
    for (uint32_t k = 0; k < p->parts; ++k) {
        const dml_gather_params* q = &p->part[k].params;
        const uint64_t elements = q->count / q->row_items * q->row_length; /* the packed output's */
        if (!g->wide && elements >= (1ull << 31))
            return 0;
    }
    for (uint32_t k = 0; k < p->parts; ++k) {
        dml_gather_params* q = &p->part[k].params;
        q->axis_size = q->count / q->row_items * q->row_length;
        q->count = joined_row_items(q->axis_size, q->lanes);
        q->row_items = q->row_length;
        if (!g->wide)
            q->row_divisor = dml_divisor32_make((uint32_t)q->row_length);
    }
    p->row_split = 1;
    return 1;
}

void dml_cuda_plan_group(const dml_plan* const* plans, const dml_cuda_launch* const* compiled,
    const dml_plan_args* args, uint32_t count, const dml_cuda_limits* limits, dml_cuda_group_launch* group)
{
    group->element_size = plans[0]->element_size;
    group->wide = 0;
    group->grid = 0;
    group->block = 0;
    group->shared_bytes = 0;
    memset(&group->params, 0, offsetof(dml_group_params, part));
    for (uint32_t k = 0; k < count && k < DML_GROUP_PARTS; ++k) {
        const dml_cuda_launch* l = compiled[k];
        dml_cuda_launch kernel;
        if (l->is_copy) { /* a kernel instead of a cudaMemcpyAsync: one launch for the group */
            dml_cuda_plan_kernel_on(plans[k], limits, &kernel);
            l = &kernel;
        }
        if (l->grid > 0)
            add_part(group, l, &args[k]);
    }
    if (try_row_join(group, limits))
        return;
    try_row_split(group);
    /* Every part as many threads as planned, in blocks of the group's size
     * (a tiled part's are already that size: 256, the largest). */
    for (uint32_t n = 0; n < group->params.parts; ++n) {
        dml_group_part* part = &group->params.part[n];
        part->blocks = (part->blocks + group->block - 1) / group->block;
        part->first_block = group->grid;
        group->grid += part->blocks; /* < DML_GROUP_PARTS x 2^31 / 64 < 2^32 */
    }
}

int dml_cuda_run_group(const dml_plan* const* plans, const dml_cuda_launch* const* compiled, const dml_plan_args* args,
    uint32_t count, const dml_cuda_limits* limits, dml_cuda_group_launch* scratch, dml_cuda_single_fn single,
    dml_cuda_grouped_fn grouped, void* context)
{
    for (uint32_t k = 0; k < count;) {
        uint32_t end = k;
        while (end < count && dml_cuda_groupable(plans[end]) && plans[end]->element_size == plans[k]->element_size)
            ++end;
        if (end - k < 2) {
            const int r = single(context, k);
            if (r)
                return r;
            k++;
            continue;
        }
        /* Evenly: 64 parts go as two launches of 32, not 47 and 17. */
        const uint32_t n = end - k, launches = (n + DML_GROUP_PARTS - 1) / DML_GROUP_PARTS;
        const uint32_t per_launch = (n + launches - 1) / launches;
        for (uint32_t first = k; first < end; first += per_launch) {
            const uint32_t parts = end - first < per_launch ? end - first : per_launch;
            dml_cuda_plan_group(plans + first, compiled + first, args + first, parts, limits, scratch);
            const int r = scratch->grid ? grouped(context, scratch) : 0;
            if (r)
                return r;
        }
        k = end;
    }
    return 0;
}
