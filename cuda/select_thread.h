/*
 * select_thread.h — one CUDA thread of a DML_PLAN_SELECT (ELEMENT_WISE_IF)
 * or DML_PLAN_ONE_HOT launch, compiled by nvcc for the kernel (indexed.cu)
 * and by the C compiler for the emulator. Element-wise over the output: a
 * grid-stride loop, consecutive threads on consecutive elements of the
 * plan's innermost dimension (coalesced stores, and loads wherever the
 * inputs are contiguous too). Each element takes the input's element (A,
 * or ONE_HOT's "on": ValuesTensor's second) or the second input's (B, or
 * "off": ValuesTensor's first); only the element taken is loaded. What
 * decides:
 *   SELECT: the condition byte (the plan's lengths tensor, UINT8), non-zero
 *     taking A;
 *   ONE_HOT: the index of the element's sequence (len_strides are 0 along
 *     the depth, so a warp's lanes mostly read one index: a broadcast),
 *     resolved against the depth (index_sizes[0]) by the negative rule
 *     (dml_index_resolve, core/plan.h), "on" where it is the element's
 *     coordinate on the depth axis (plan->axis; 0 when the depth, 1, was
 *     dropped). An index outside the depth gives an all-"off" sequence.
 * DML_INDEXED_GROUP elements a pass, loaded before the first is stored.
 */
#ifndef DML_CUDA_SELECT_THREAD_H
#define DML_CUDA_SELECT_THREAD_H

#include "indexed_offsets.h"

DML_HD void dml_select_thread(const dml_indexed_params* p, uint64_t block_index, uint32_t thread_index,
    uint64_t grid_dim, uint32_t block_dim, int wide, int one_hot)
{
    const dml_plan* plan = &p->plan;
    const uint32_t e = plan->element_size;
    const uint64_t stride = grid_dim * block_dim;
    const unsigned char* DML_RESTRICT in = (const unsigned char*)p->in;
    const unsigned char* DML_RESTRICT in2 = (const unsigned char*)p->in2;
    unsigned char* DML_RESTRICT out = (unsigned char*)p->out;
    uint32_t pass = 0;
    for (uint64_t item = block_index * block_dim + thread_index; item < plan->element_count;
         item += stride * DML_INDEXED_GROUP, ++pass) {
        uint64_t values[DML_INDEXED_GROUP];
        int64_t targets[DML_INDEXED_GROUP];
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            const uint64_t at = item + g * stride;
            DML_INSTRUCTION(pass * DML_INDEXED_GROUP + g);
            targets[g] = -1;
            values[g] = 0;
            if (at >= plan->element_count)
                continue;
            const dml_item_offsets o = dml_item_offsets_of(plan, at, wide);
            bool take_in;
            if (one_hot) {
                uint64_t position;
                take_in = dml_index_resolve(dml_index_element(plan, p->indices, o.len), plan->index_signed,
                              plan->index_sizes[0], &position) &&
                    position == o.axis_coordinate;
            } else {
                take_in = dml_load_element((const unsigned char*)p->indices + o.len, 1, DML_SITE_LENGTH) != 0;
            }
            if (take_in)
                values[g] = dml_load_element(in + o.in * (int64_t)e, e, DML_SITE_LOAD);
            else
                values[g] = dml_load_element(in2 + o.in2 * (int64_t)e, e, DML_SITE_LOAD2);
            targets[g] = o.out;
        }
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            DML_INSTRUCTION(pass * DML_INDEXED_GROUP + g);
            if (targets[g] >= 0)
                dml_store_element(out + targets[g] * (int64_t)e, values[g], e, DML_SITE_STORE);
        }
    }
}

#endif /* DML_CUDA_SELECT_THREAD_H */
