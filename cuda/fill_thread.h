/*
 * fill_thread.h — one CUDA thread of a DML_PLAN_FILL launch, compiled by
 * nvcc for the kernel (fill.cu) and by the C compiler for the emulator, so
 * both run the same code over the same grid. Values come from core/fill.h.
 *
 * A grid-stride loop over work items, consecutive threads on consecutive
 * items, so a warp's stores are coalesced by construction:
 *
 *   vector   (the innermost dimension contiguous) item = one 16-byte-aligned
 *            window of a row: a window inside the row is one 16-byte store
 *            of its 16 / e elements; a window at a row's ends stores the
 *            part of the row it holds in the fewest aligned pieces (nothing
 *            outside the row, which may be preceded or followed by other
 *            data);
 *   scalar   item = one element, stored alone.
 *
 * Element sizes are compile-time constants (the kernel specialises on them;
 * DML_HD is always inlined).
 */
#ifndef DML_CUDA_FILL_THREAD_H
#define DML_CUDA_FILL_THREAD_H

#include "core/fill.h"
#include "fill_params.h"
#include "gather_thread.h" /* stores, DML_TRACE, DML_UNROLL */

/* The element offset of row `row`'s element 0 (rows: the outer dimensions,
 * row-major) and its sequence position. */
DML_HD void dml_fill_row_start(const dml_plan* plan, uint64_t row, int64_t* k, int64_t* o)
{
    *k = plan->in_offset;
    *o = plan->out_offset;
    for (uint32_t d = plan->rank - 1; d-- > 0;) {
        uint64_t c = row % plan->sizes[d];
        row /= plan->sizes[d];
        *k += (int64_t)c * plan->in_strides[d];
        *o += (int64_t)c * plan->out_strides[d];
    }
}

DML_HD void dml_fill_store(unsigned char* address, uint64_t value, uint32_t e, int site)
{
    DML_TRACE(site, 1, address, e);
    switch (e) {
    case 1: dml_store8(address, value); break;
    case 2: dml_store16(address, value); break;
    case 4: dml_store32(address, value); break;
    default: dml_store64(address, value); break;
    }
}

DML_HD uint64_t dml_fill_at(const dml_plan* plan, int64_t k)
{
    return dml_fill_value(plan->data_type, plan->fill_start.u64, plan->fill_delta.u64, (uint64_t)k);
}

/* Bytes [x, x + size) of a packed 16-byte line (size 1, 2, 4 or 8, x a multiple of it). */
DML_HD uint64_t dml_fill_line_bytes(const uint32_t* word, uint32_t x, uint32_t size)
{
    if (size == 8)
        return (uint64_t)word[x / 4] | (uint64_t)word[x / 4 + 1] << 32;
    return (word[x / 4] >> (8 * (x % 4))) & (uint32_t)(~0ull >> (64 - 8 * size));
}

/* Window `w` of row `row`: its elements' values packed into a 16-byte line,
 * stored whole when the window lies inside the row; at a row's ends, the
 * part inside the row in the fewest naturally aligned pieces (8, 4, 2, 1
 * bytes), nothing outside it. */
DML_HD void dml_fill_window(const dml_fill_params* p, uint64_t row, uint64_t w, uint32_t e)
{
    const dml_plan* plan = &p->plan;
    const uint32_t inner = plan->rank - 1, per = 16 / e;
    const int64_t n = (int64_t)plan->sizes[inner], ks = plan->in_strides[inner];
    int64_t k, o;
    dml_fill_row_start(plan, row, &k, &o);
    unsigned char* start = (unsigned char*)p->out + o * (int64_t)e;
    const int64_t misalign = (int64_t)((uintptr_t)start % 16) / (int64_t)e; /* elements before start in its line */
    const int64_t first = (int64_t)w * per - misalign;                      /* the window's first element */
    if (first >= n)
        return; /* past the row: windows_per_row is enough for the worst alignment */
    const uint32_t lo = first < 0 ? (uint32_t)-first : 0, hi = first + per > n ? (uint32_t)(n - first) : per;
    uint32_t word[4] = { 0, 0, 0, 0 };
    DML_UNROLL
    for (uint32_t j = 0; j < per; ++j) {
        if (j < lo || j >= hi)
            continue;
        uint64_t v = dml_fill_at(plan, k + (first + (int64_t)j) * ks);
        const uint32_t byte = j * e;
        word[byte / 4] |= (uint32_t)(v & (~0ull >> (64 - 8 * e))) << (8 * (byte % 4));
        if (e == 8)
            word[byte / 4 + 1] = (uint32_t)(v >> 32);
    }
    unsigned char* line = start + first * (int64_t)e;
    if (lo == 0 && hi == per) {
        dml_u128 vector = { word[0], word[1], word[2], word[3] };
        DML_TRACE(DML_SITE_STORE, 1, line, 16);
        dml_store128(line, vector);
        return;
    }
    for (uint32_t x = lo * e, end = hi * e; x < end;) {
        uint32_t size = 8;
        while (size > e && (x % size || x + size > end))
            size /= 2;
        dml_fill_store(line + x, dml_fill_line_bytes(word, x, size), size, DML_SITE_EDGE_STORE);
        x += size;
    }
}

DML_HD void dml_fill_element(const dml_fill_params* p, uint64_t item, uint32_t e)
{
    const dml_plan* plan = &p->plan;
    int64_t k = plan->in_offset, o = plan->out_offset;
    for (uint32_t d = plan->rank; d-- > 0;) {
        uint64_t c = item % plan->sizes[d];
        item /= plan->sizes[d];
        k += (int64_t)c * plan->in_strides[d];
        o += (int64_t)c * plan->out_strides[d];
    }
    dml_fill_store((unsigned char*)p->out + o * (int64_t)e, dml_fill_at(plan, k), e, DML_SITE_STORE);
}

DML_HD void dml_fill_thread(const dml_fill_params* p, uint64_t block_index, uint32_t thread_index, uint64_t grid_dim,
    uint32_t block_dim, uint32_t e)
{
    const uint64_t stride = grid_dim * block_dim;
    for (uint64_t item = block_index * block_dim + thread_index; item < p->items; item += stride) {
        DML_TRACE_PASS();
        if (!p->vector)
            dml_fill_element(p, item, e);
        else if (p->items == p->windows_per_row) /* one row: no division */
            dml_fill_window(p, 0, item, e);
        else
            dml_fill_window(p, item / p->windows_per_row, item % p->windows_per_row, e);
    }
}

#endif /* DML_CUDA_FILL_THREAD_H */
