/*
 * scale_bias_thread.h — one CUDA thread of a DML_PLAN_SCALE_BIAS launch: a
 * grid-stride loop over flat output indices, each element's offsets from its
 * index (64-bit), transformed by core/scale_bias.h. Compiled by nvcc for the
 * kernel (scale_bias.cu) and by the C compiler for the emulator, so both run
 * the same code over the same grid.
 */
#ifndef DML_CUDA_SCALE_BIAS_THREAD_H
#define DML_CUDA_SCALE_BIAS_THREAD_H

#include "core/scale_bias.h"
#include "scale_bias_params.h"

/* In the emulator (emulator.c includes gather_thread.h first), every element
 * read and written is checked against the bound ranges like the gathers'. */
#if defined(DML_CUDA_EMULATION) && !defined(__CUDA_ARCH__)
#define DML_SB_ACCESS(is_store, address, bytes) \
    DML_TRACE((is_store) ? DML_SITE_STORE : DML_SITE_LOAD, is_store, address, bytes)
#else
#define DML_SB_ACCESS(is_store, address, bytes) ((void)0)
#endif

DML_HD void dml_scale_bias_thread(const dml_scale_bias_params* p, uint64_t block_index, uint32_t thread_index,
    uint64_t grid_dim, uint32_t block_dim)
{
    const dml_plan* plan = &p->plan;
    const int64_t e = plan->element_size;
    const uint64_t stride = grid_dim * block_dim;
    for (uint64_t item = block_index * block_dim + thread_index; item < plan->element_count; item += stride) {
        int64_t src, dst;
        DML_SCALE_BIAS_OFFSETS(plan, item, src, dst);
        const unsigned char* from = (const unsigned char*)p->in + src * e;
        unsigned char* to = (unsigned char*)p->out + dst * e;
        DML_SB_ACCESS(0, from, (unsigned)e);
        DML_SB_ACCESS(1, to, (unsigned)e);
        dml_scale_bias_element(plan->data_type, plan->scale, plan->bias, from, to);
    }
}

#endif /* DML_CUDA_SCALE_BIAS_THREAD_H */
