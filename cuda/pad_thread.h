/*
 * pad_thread.h — one CUDA thread of a DML_PLAN_PAD launch (PADDING,
 * PADDING1) on the flat path (pad_rows_thread.h has the row path, which
 * pad.c prefers): a grid-stride loop over flat output indices, so consecutive
 * threads of a warp take consecutive elements of the plan's innermost
 * dimension, the output's contiguous one (coalesced stores by construction;
 * the interior's loads are consecutive too, a border's fold reads elements
 * the warp's neighbours read). Each element's coordinates come from its
 * index (32-bit arithmetic when the plan's index32 allows), each folded by
 * core/pad_fold.h; under CONSTANT an element outside the input is the value,
 * with no load. Compiled by nvcc for the kernel (pad.cu) and by the C
 * compiler for the emulator, so both run the same code over the same grid.
 * The emulator is told each pass (DML_INSTRUCTION), so a warp's accesses
 * are grouped by the pass that made them, also where some lanes skip a load.
 */
#ifndef DML_CUDA_PAD_THREAD_H
#define DML_CUDA_PAD_THREAD_H

#if !defined(__cplusplus)
#include <stdbool.h>
#endif

#include "core/pad_fold.h"
#include "pad_params.h"
#include "tile_thread.h" /* gather_thread.h's element accesses; DML_INSTRUCTION */

/* The input offset of output item `item` (false: CONSTANT, outside) and its
 * output offset. */
DML_HD bool dml_pad_offsets(const dml_plan* plan, uint64_t item, int wide, int64_t* src, int64_t* dst)
{
    bool inside = true;
    int64_t in = plan->in_offset, out = plan->out_offset;
    uint64_t rest = item;
    for (uint32_t d = plan->rank; d-- > 0;) {
        uint64_t c;
        if (wide) {
            c = rest % plan->sizes[d];
            rest /= plan->sizes[d];
        } else { /* index32: item and every size below 2^31 */
            const uint32_t r = (uint32_t)rest, size = (uint32_t)plan->sizes[d];
            c = r % size;
            rest = r / size;
        }
        int64_t j = (int64_t)c + plan->pad_origin[d];
        if (plan->pad_extent[d]) {
            j = dml_pad_fold(j, plan->pad_extent[d], plan->pad_mode);
            inside = inside && j >= 0;
        }
        in += j * plan->in_strides[d];
        out += (int64_t)c * plan->out_strides[d];
    }
    *src = in;
    *dst = out;
    return inside;
}

/* CONSTANT's value as dml_store_element takes it: the low e bytes. A
 * switch, not a memcpy of e bytes: a copy of runtime length went through
 * local memory (tests/cuda/test_sass_loads.c checks the SASS has none). */
DML_HD uint64_t dml_pad_fill_value(const dml_scalar* fill, uint32_t e)
{
    switch (e) {
    case 1: return fill->u8;
    case 2: return fill->u16;
    case 4: return fill->u32;
    default: return fill->u64;
    }
}

DML_HD void dml_pad_thread(const dml_pad_params* p, uint64_t block_index, uint32_t thread_index, uint64_t grid_dim,
    uint32_t block_dim, int wide)
{
    const dml_plan* plan = &p->plan;
    const uint32_t e = plan->element_size;
    const uint64_t stride = grid_dim * block_dim;
    const unsigned char* in = (const unsigned char*)p->in;
    unsigned char* out = (unsigned char*)p->out;
    const uint64_t fill = dml_pad_fill_value(&plan->fill_start, e);
    uint32_t pass = 0;
    for (uint64_t item = block_index * block_dim + thread_index; item < plan->element_count; item += stride) {
        DML_INSTRUCTION(pass++);
        int64_t src, dst;
        uint64_t value = fill;
        if (dml_pad_offsets(plan, item, wide, &src, &dst))
            value = dml_load_element(in + src * (int64_t)e, e, DML_SITE_LOAD);
        dml_store_element(out + dst * (int64_t)e, value, e, DML_SITE_STORE);
    }
}

#include "pad_rows_thread.h" /* the row path: dml_pad_rows_thread */

#endif /* DML_CUDA_PAD_THREAD_H */
