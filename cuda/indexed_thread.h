/*
 * indexed_thread.h — one CUDA thread of a DML_PLAN_INDEXED launch (GATHER,
 * GATHER_ELEMENTS, GATHER_ND, GATHER_ND1), compiled by nvcc for the kernel
 * (indexed.cu) and by the C compiler for the emulator, so both run the
 * same code over the same grid. Two paths (indexed.c picks one):
 *
 *   flat  a grid-stride loop over output elements, consecutive threads on
 *         consecutive elements of the plan's innermost dimension, the
 *         output's contiguous one (coalesced stores); each element reads its
 *         index tuple (GATHER_ELEMENTS: indices vary along the row, and are
 *         read as coalesced as the output is written) and then its input
 *         element. DML_INDEXED_GROUP elements a pass, all loaded before the
 *         first is stored (loads in flight).
 *   rows  the innermost dimension contiguous in input and output, its index
 *         the same along it (GATHER of rows, GATHER_ND of slices): a warp
 *         takes a segment of an output row, reads the row's index tuple once
 *         (every lane the same address: one broadcast load a component), and
 *         copies the row, now contiguous on both sides, in passes of one
 *         unit a lane: 16-byte output lines, one 16-byte load and store
 *         each, where input and output rows are equally aligned in a line,
 *         a line at a row's ends only its elements in the row; else elements.
 *
 * Every index is clamped into range by dml_index_clamp (core/plan.h), so
 * nothing outside the input is read, whatever the index tensor holds.
 * Control flow on the row path is the warp's (tasks, segments, the choice of
 * lines or elements depend only on the row), and every lane counts the same
 * instructions (DML_INSTRUCTION), so the emulator groups a warp's accesses
 * by the instruction that made them even where some lanes skip one.
 */
#ifndef DML_CUDA_INDEXED_THREAD_H
#define DML_CUDA_INDEXED_THREAD_H

#include "indexed_offsets.h"

/* Instruction ids a flat pass may name: index components (<= 8), then its
 * data accesses, per element of the group. */
#define DML_INDEXED_IDS (DML_PLAN_MAX_RANK + 1)

/* The flat path's grid-stride pass, a gather's (scatter 0: the index tuple
 * picks the source, clamped) or a scatter's (1: it picks the target; an
 * update whose tuple is out of range is neither loaded nor stored). */
DML_HD void dml_indexed_elements(const dml_indexed_params* p, uint64_t block_index, uint32_t thread_index,
    uint64_t grid_dim, uint32_t block_dim, int wide, int scatter)
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
            const uint32_t id = (pass * DML_INDEXED_GROUP + g) * DML_INDEXED_IDS;
            targets[g] = -1;
            values[g] = 0;
            if (at >= plan->element_count)
                continue;
            const dml_item_offsets o = dml_item_offsets_of(plan, at, wide);
            int64_t src = o.in, target = o.out;
            if (scatter) {
                if (!dml_scatter_target(plan, p->indices, o.out, o.len, wide, id, &target))
                    continue;
            } else {
                src = dml_indexed_source(plan, p->indices, o.in, o.len, wide, id);
            }
            DML_INSTRUCTION(id + DML_PLAN_MAX_RANK);
            values[g] = dml_load_element(in + src * (int64_t)e, e, DML_SITE_LOAD);
            targets[g] = target;
        }
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            DML_INSTRUCTION((pass * DML_INDEXED_GROUP + g) * DML_INDEXED_IDS + DML_PLAN_MAX_RANK);
            if (targets[g] >= 0)
                dml_store_element(out + targets[g] * (int64_t)e, values[g], e, DML_SITE_STORE);
        }
    }
}

DML_HD void dml_indexed_thread(const dml_indexed_params* p, uint64_t block_index, uint32_t thread_index,
    uint64_t grid_dim, uint32_t block_dim, int wide)
{
    dml_indexed_elements(p, block_index, thread_index, grid_dim, block_dim, wide, 0);
}

/* One row segment's lines [first, end) of the 16-byte output lines from
 * `line0`, copied from a row equally aligned: lane `lane`'s units. */
DML_HD void dml_indexed_copy_lines(const unsigned char* DML_RESTRICT in_row, unsigned char* DML_RESTRICT out_row,
    uint64_t row_bytes, uint64_t line0, uint64_t first, uint64_t end, uint32_t lane, uint32_t e,
    uint32_t* instruction)
{
    const uint64_t begin = (uint64_t)(uintptr_t)out_row, finish = begin + row_bytes;
    for (uint64_t base = first; base < end; base += DML_INDEXED_WARP * DML_INDEXED_GROUP) {
        dml_u128 v[DML_INDEXED_GROUP];
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            DML_INSTRUCTION(*instruction + g);
            const uint64_t line = line0 + (base + g * DML_INDEXED_WARP + lane) * DML_CUDA_VECTOR_BYTES;
            v[g].x = v[g].y = v[g].z = v[g].w = 0;
            if (base + g * DML_INDEXED_WARP + lane < end && line >= begin && line + DML_CUDA_VECTOR_BYTES <= finish) {
                const unsigned char* source = in_row + (line - begin);
                DML_TRACE(DML_SITE_LOAD, 0, source, DML_CUDA_VECTOR_BYTES);
                v[g] = dml_load128(source);
            }
        }
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            DML_INSTRUCTION(*instruction + g);
            const uint64_t line = line0 + (base + g * DML_INDEXED_WARP + lane) * DML_CUDA_VECTOR_BYTES;
            if (base + g * DML_INDEXED_WARP + lane >= end)
                continue;
            if (line >= begin && line + DML_CUDA_VECTOR_BYTES <= finish) {
                unsigned char* target = out_row + (line - begin);
                DML_TRACE(DML_SITE_STORE, 1, target, DML_CUDA_VECTOR_BYTES);
                dml_store128(target, v[g]);
                continue;
            }
            /* a line at an end of the row: its elements inside the row */
            const uint64_t from = line > begin ? line : begin;
            const uint64_t to = line + DML_CUDA_VECTOR_BYTES < finish ? line + DML_CUDA_VECTOR_BYTES : finish;
            for (uint64_t a = from; a < to; a += e) {
                const uint64_t value = dml_load_element(in_row + (a - begin), e, DML_SITE_EDGE_LOAD);
                dml_store_element(out_row + (a - begin), value, e, DML_SITE_EDGE_STORE);
            }
        }
        *instruction += DML_INDEXED_GROUP;
    }
}

/* The same segment's elements, rows not equally aligned: consecutive lanes
 * on consecutive elements [from, to). */
DML_HD void dml_indexed_copy_elements(const unsigned char* DML_RESTRICT in_row, unsigned char* DML_RESTRICT out_row,
    uint64_t from, uint64_t to, uint32_t lane, uint32_t e, uint32_t* instruction)
{
    for (uint64_t base = from; base < to; base += DML_INDEXED_WARP * DML_INDEXED_GROUP) {
        uint64_t v[DML_INDEXED_GROUP];
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            DML_INSTRUCTION(*instruction + g);
            const uint64_t j = base + g * DML_INDEXED_WARP + lane;
            v[g] = j < to ? dml_load_element(in_row + j * e, e, DML_SITE_LOAD) : 0;
        }
        DML_UNROLL
        for (uint32_t g = 0; g < DML_INDEXED_GROUP; ++g) {
            DML_INSTRUCTION(*instruction + g);
            const uint64_t j = base + g * DML_INDEXED_WARP + lane;
            if (j < to)
                dml_store_element(out_row + j * e, v[g], e, DML_SITE_STORE);
        }
        *instruction += DML_INDEXED_GROUP;
    }
}

DML_HD void dml_indexed_rows_thread(const dml_indexed_params* p, uint64_t block_index, uint32_t thread_index,
    uint64_t grid_dim, uint32_t block_dim, int wide)
{
    const dml_plan* plan = &p->plan;
    const uint32_t e = plan->element_size, lane = thread_index % DML_INDEXED_WARP;
    const uint32_t warps_per_block = block_dim / DML_INDEXED_WARP;
    const uint64_t warps = grid_dim * warps_per_block, row_bytes = p->width * e;
    uint32_t instruction = 0;
    for (uint64_t task = block_index * warps_per_block + thread_index / DML_INDEXED_WARP; task < p->tasks;
         task += warps) {
        /* index32: tasks, like elements, below 2^31 (no 64-bit division) */
        const uint64_t row = wide ? task / p->segments_per_row : (uint32_t)task / (uint32_t)p->segments_per_row;
        const uint64_t segment = task - row * p->segments_per_row;
        const dml_item_offsets o = dml_item_offsets_of(plan, row * p->width, wide);
        unsigned char* out_row = (unsigned char*)p->out + o.out * (int64_t)e;
        const uint64_t begin = (uint64_t)(uintptr_t)out_row, line0 = begin / DML_CUDA_VECTOR_BYTES * DML_CUDA_VECTOR_BYTES;
        const uint64_t lines = (begin + row_bytes - line0 + DML_CUDA_VECTOR_BYTES - 1) / DML_CUDA_VECTOR_BYTES;
        const uint64_t first = segment * p->segment_lines;
        if (first >= lines)
            continue;
        const uint64_t end = first + p->segment_lines < lines ? first + p->segment_lines : lines;
        const int64_t src = dml_indexed_source(plan, p->indices, o.in, o.len, wide, instruction);
        instruction += DML_PLAN_MAX_RANK;
        const unsigned char* in_row = (const unsigned char*)p->in + src * (int64_t)e;
        if (((uint64_t)(uintptr_t)in_row - begin) % DML_CUDA_VECTOR_BYTES == 0) {
            dml_indexed_copy_lines(in_row, out_row, row_bytes, line0, first, end, lane, e, &instruction);
        } else {
            /* the segment's lines hold elements [from, to) of the row */
            const uint64_t lo = line0 + first * DML_CUDA_VECTOR_BYTES, hi = line0 + end * DML_CUDA_VECTOR_BYTES;
            const uint64_t from = lo > begin ? (lo - begin) / e : 0;
            const uint64_t to = (hi - begin) / e < p->width ? (hi - begin) / e : p->width;
            dml_indexed_copy_elements(in_row, out_row, from, to, lane, e, &instruction);
        }
    }
}

#endif /* DML_CUDA_INDEXED_THREAD_H */
