/*
 * cast_thread.h — one CUDA thread of a DML_PLAN_CAST launch: a grid-stride
 * loop over flat output indices, each element converted by core/cast.h.
 * Consecutive threads take consecutive flat indices, so a warp walks
 * consecutive elements of the plan's innermost dimension, the one whose
 * output stride is smallest (plan.h): its stores, and its loads wherever the
 * input runs the same way, are coalesced by construction. One element per
 * access, never a vector: nothing is touched beyond the element itself.
 *
 * Offsets come from the flat index by division, in 32 bits when the plan
 * says every offset fits (index32), else in 64. The kernel (cast.cu) passes
 * the two types as constants, so the conversion folds to its pair's code;
 * the emulator (emulator.c) runs the same function with the plan's types.
 */
#ifndef DML_CUDA_CAST_THREAD_H
#define DML_CUDA_CAST_THREAD_H

#include "cast_params.h"
#include "core/cast.h"

#if defined(DML_CUDA_EMULATION) && !defined(__CUDA_ARCH__)
#define DML_CAST_ACCESS(is_store, address, bytes) \
    DML_TRACE((is_store) ? DML_SITE_STORE : DML_SITE_LOAD, is_store, address, bytes)
#else
#define DML_CAST_ACCESS(is_store, address, bytes) ((void)0)
#endif

/* The offsets (in elements) of flat index `item`. */
DML_HD void dml_cast_offsets(const dml_plan* plan, uint64_t item, int64_t* src, int64_t* dst)
{
    if (plan->index32) { /* every offset and the count fit int32 */
        uint32_t rest = (uint32_t)item;
        int32_t in = (int32_t)plan->in_offset, out = (int32_t)plan->out_offset;
        for (uint32_t d = plan->rank; d-- > 0;) {
            const uint32_t size = (uint32_t)plan->sizes[d], c = rest % size;
            rest /= size;
            in += (int32_t)c * (int32_t)plan->in_strides[d];
            out += (int32_t)c * (int32_t)plan->out_strides[d];
        }
        *src = in;
        *dst = out;
        return;
    }
    uint64_t rest = item;
    int64_t in = plan->in_offset, out = plan->out_offset;
    for (uint32_t d = plan->rank; d-- > 0;) {
        const uint64_t c = rest % plan->sizes[d];
        rest /= plan->sizes[d];
        in += (int64_t)c * plan->in_strides[d];
        out += (int64_t)c * plan->out_strides[d];
    }
    *src = in;
    *dst = out;
}

DML_HD void dml_cast_thread(const dml_cast_params* p, uint32_t in_type, uint32_t in_size, uint32_t out_type,
    uint32_t out_size, uint64_t block_index, uint32_t thread_index, uint64_t grid_dim, uint32_t block_dim)
{
    const dml_plan* plan = &p->plan;
    const uint64_t stride = grid_dim * block_dim;
    for (uint64_t item = block_index * block_dim + thread_index; item < plan->element_count; item += stride) {
        int64_t src, dst;
        dml_cast_offsets(plan, item, &src, &dst);
        const unsigned char* from = (const unsigned char*)p->in + src * (int64_t)in_size;
        unsigned char* to = (unsigned char*)p->out + dst * (int64_t)out_size;
        DML_CAST_ACCESS(0, from, in_size);
        DML_CAST_ACCESS(1, to, out_size);
        dml_cast_element(out_type, to, in_type, from);
    }
}

#endif /* DML_CUDA_CAST_THREAD_H */
