/*
 * indexed_offsets.h — what the data-dependent kinds' thread code shares
 * (indexed_thread.h, scatter_thread.h, select_thread.h):
 * an output item's offsets in every tensor of the plan, and the index
 * tuples read from device memory (a gather's source, a scatter's target), each load traced (the emulator checks
 * it against the lengths range before it is made) and interpreted by
 * core/plan.h's dml_index_load / dml_index_resolve / dml_index_clamp, the
 * one definition of the index rules. 32-bit arithmetic when the plan's
 * index32 says every offset fits (wide = 0).
 */
#ifndef DML_CUDA_INDEXED_OFFSETS_H
#define DML_CUDA_INDEXED_OFFSETS_H

#include "indexed_params.h"
#include "tile_thread.h" /* gather_thread.h's element accesses; DML_INSTRUCTION */

typedef struct dml_item_offsets {
    int64_t in, out, len, in2;
    uint64_t axis_coordinate; /* the coordinate on plan->axis (0 without one) */
} dml_item_offsets;

/* The offsets of flat item `item` (row-major over the plan's sizes). */
DML_HD dml_item_offsets dml_item_offsets_of(const dml_plan* plan, uint64_t item, int wide)
{
    dml_item_offsets o = { plan->in_offset, plan->out_offset, plan->len_offset, plan->in2_offset, 0 };
    if (wide) {
        uint64_t rest = item;
        for (uint32_t d = plan->rank; d-- > 0;) {
            const uint64_t q = rest / plan->sizes[d];
            const int64_t c = (int64_t)(rest - q * plan->sizes[d]);
            rest = q;
            if ((int32_t)d == plan->axis)
                o.axis_coordinate = (uint64_t)c;
            o.in += c * plan->in_strides[d];
            o.out += c * plan->out_strides[d];
            o.len += c * plan->len_strides[d];
            o.in2 += c * plan->in2_strides[d];
        }
        return o;
    }
    /* index32: the item, every size and every partial offset below 2^31 */
    uint32_t rest = (uint32_t)item;
    int32_t in = (int32_t)o.in, out = (int32_t)o.out, len = (int32_t)o.len, in2 = (int32_t)o.in2;
    for (uint32_t d = plan->rank; d-- > 0;) {
        const uint32_t size = (uint32_t)plan->sizes[d], q = rest / size;
        const int32_t c = (int32_t)(rest - q * size);
        rest = q;
        if ((int32_t)d == plan->axis)
            o.axis_coordinate = (uint64_t)c;
        in += c * (int32_t)plan->in_strides[d];
        out += c * (int32_t)plan->out_strides[d];
        len += c * (int32_t)plan->len_strides[d];
        in2 += c * (int32_t)plan->in2_strides[d];
    }
    o.in = in;
    o.out = out;
    o.len = len;
    o.in2 = in2;
    return o;
}

/* Index element `at` (in elements of the index tensor), as 64 bits. */
DML_HD uint64_t dml_index_element(const dml_plan* plan, const void* indices, int64_t at)
{
    const uint32_t s = plan->lengths_element_size;
    DML_TRACE(DML_SITE_LENGTH, 0, (const unsigned char*)indices + at * (int64_t)s, s);
    return dml_index_load(indices, at, s, plan->index_signed);
}

/* INDEXED: the input offset of an item whose affine part is `in` and whose
 * index tuple starts at `len`: each component clamped into range
 * (dml_index_clamp), so nothing outside the input is read. `instruction`
 * names the component loads for the emulator. */
DML_HD int64_t dml_indexed_source(const dml_plan* plan, const void* indices, int64_t in, int64_t len, int wide,
    uint32_t instruction)
{
    for (uint32_t k = 0; k < plan->index_count; ++k) {
        DML_INSTRUCTION(instruction + k);
        const int64_t at = len + (int64_t)k * plan->index_step;
        const uint64_t position =
            dml_index_clamp(dml_index_element(plan, indices, at), plan->index_signed, plan->index_sizes[k]);
        if (wide)
            in += (int64_t)position * plan->index_strides[k];
        else /* position < index_sizes[k]: the term is within the plan's 32-bit reach */
            in = (int32_t)in + (int32_t)position * (int32_t)plan->index_strides[k];
    }
    return in;
}

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

#endif /* DML_CUDA_INDEXED_OFFSETS_H */
