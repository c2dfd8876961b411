#include "group.h"

#include <stddef.h>
#include <string.h>

int dml_cuda_groupable(const dml_plan* plan)
{
    return plan->kind == DML_PLAN_GATHER;
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
    /* Every part as many threads as planned, in blocks of the group's size
     * (a tiled part's are already that size: 256, the largest). */
    for (uint32_t n = 0; n < group->params.parts; ++n) {
        dml_group_part* part = &group->params.part[n];
        part->blocks = (part->blocks + group->block - 1) / group->block;
        part->first_block = group->grid;
        group->grid += part->blocks; /* < 47 x 2^31 / 64 < 2^32 */
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
