/*
 * scatter_thread.h — one CUDA thread of a DML_PLAN_SCATTER launch (the
 * scatter step of SCATTER_ELEMENTS and SCATTER_ND, after the copy of their
 * input), compiled by nvcc for the kernel (indexed.cu) and by the C
 * compiler for the emulator. A grid-stride loop over the updates in the
 * plan's order (the builder keeps the updates' order for a scatter:
 * core/plan.c), consecutive threads on consecutive updates, so the updates
 * and their indices are read coalesced; the writes go where the indices
 * say. An update any of whose index components is outside its range once
 * the negative rule is applied (dml_index_resolve, core/plan.h) is dropped:
 * neither loaded nor stored, so nothing outside the output is written.
 *
 * Distinct targets never race. Updates aimed at one element are stores of
 * one naturally aligned element each, in no defined order: the element ends
 * up holding one of them, whole (which one is unspecified, as DirectML and
 * ONNX leave it).
 */
#ifndef DML_CUDA_SCATTER_THREAD_H
#define DML_CUDA_SCATTER_THREAD_H

#include "indexed_offsets.h"

/* The output offset the update with affine output part `out` and index
 * tuple at `len` goes to; false: dropped. */
DML_HD bool dml_scatter_target(const dml_plan* plan, const void* indices, int64_t out, int64_t len, int wide,
    uint32_t instruction, int64_t* target)
{
    for (uint32_t k = 0; k < plan->index_count; ++k) {
        DML_INSTRUCTION(instruction + k);
        uint64_t position;
        const int64_t at = len + (int64_t)k * plan->index_step;
        if (!dml_index_resolve(dml_index_element(plan, indices, at), plan->index_signed, plan->index_sizes[k],
                &position))
            return false;
        if (wide)
            out += (int64_t)position * plan->index_strides[k];
        else /* position < index_sizes[k]: the term is within the plan's 32-bit reach */
            out = (int32_t)out + (int32_t)position * (int32_t)plan->index_strides[k];
    }
    *target = out;
    return true;
}

/* Instruction ids a pass's element may name: index components, then data. */
#define DML_SCATTER_IDS (DML_PLAN_MAX_RANK + 1)

DML_HD void dml_scatter_thread(const dml_indexed_params* p, uint64_t block_index, uint32_t thread_index,
    uint64_t grid_dim, uint32_t block_dim, int wide)
{
    const dml_plan* plan = &p->plan;
    const uint32_t e = plan->element_size;
    const uint64_t stride = grid_dim * block_dim;
    const unsigned char* DML_RESTRICT in = (const unsigned char*)p->in;
    unsigned char* DML_RESTRICT out = (unsigned char*)p->out;
    uint32_t pass = 0;
    for (uint64_t item = block_index * block_dim + thread_index; item < plan->element_count;
         item += stride * DML_INDEXED_GROUP, ++pass) {
        uint64_t values[DML_INDEXED_GROUP];
        int64_t targets[DML_INDEXED_GROUP];
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            const uint64_t at = item + g * stride;
            const uint32_t id = (pass * DML_INDEXED_GROUP + g) * DML_SCATTER_IDS;
            targets[g] = -1;
            values[g] = 0;
            if (at >= plan->element_count)
                continue;
            const dml_item_offsets o = dml_item_offsets_of(plan, at, wide);
            if (!dml_scatter_target(plan, p->indices, o.out, o.len, wide, id, &targets[g])) {
                targets[g] = -1;
                continue;
            }
            DML_INSTRUCTION(id + DML_PLAN_MAX_RANK);
            values[g] = dml_load_element(in + o.in * (int64_t)e, e, DML_SITE_LOAD);
        }
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            DML_INSTRUCTION((pass * DML_INDEXED_GROUP + g) * DML_SCATTER_IDS + DML_PLAN_MAX_RANK);
            if (targets[g] >= 0)
                dml_store_element(out + targets[g] * (int64_t)e, values[g], e, DML_SITE_STORE);
        }
    }
}

#endif /* DML_CUDA_SCATTER_THREAD_H */
