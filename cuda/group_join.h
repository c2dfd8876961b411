/*
 * group_join.h — the joined-row path of a grouped launch (group_params.h,
 * row_join): a JOIN whose parts are rows of one output row, side by side
 * (part k's row is the output row's columns c_k .. c_k + w_k - 1, with
 * c_k = its output offset less part 0's). The parts alone each start their
 * output rows at any alignment, so each row has head and tail elements
 * moved one by one at both ends, and a part's warps straddle its short rows:
 * 0.82-0.93 of the sectors used with 1- to 8-byte elements for two uneven
 * halves (dmlcoalesce's inner-uneven rows). Here the warps walk whole output
 * rows instead, as one vector gather of the joined row (its params:
 * part[parts], the output side's geometry): every 16-byte output vector is
 * stored whole and aligned, only the output row's own ends are edges, and
 * each vector's lanes are read from the parts whose columns it covers, a
 * piece per part (dml_load128_needed over the part's whole input extent,
 * in_lowest .. in_highest, so that a vector across two of its rows is one
 * aligned load, not pieces: nothing outside the part's bound range is read). Shared by the grouped kernels (group.cu) and the emulator.
 */
#ifndef DML_CUDA_GROUP_JOIN_H
#define DML_CUDA_GROUP_JOIN_H

#include "gather_thread.h"
#include "group_params.h"

/* The emulator is told which part's input a load reads from, so that it
 * checks the load against that part's own bound range. */
#if defined(DML_CUDA_EMULATION) && !defined(__CUDA_ARCH__)
void dml_emulator_part(uint32_t part);
#define DML_TRACE_PART(part) dml_emulator_part(part)
#else
#define DML_TRACE_PART(part) ((void)(part))
#endif

/* The part whose columns hold output column j of the joined row: the last
 * part starting at or before it (columns increase with the part). */
DML_HD uint32_t dml_join_find_part(const dml_group_part* parts, uint32_t count, int64_t j)
{
    const int64_t base = parts[0].params.out_offset;
    uint32_t low = 0, high = count;
    while (high - low > 1) {
        const uint32_t middle = low + (high - low) / 2;
        if (parts[middle].params.out_offset - base <= j)
            low = middle;
        else
            high = middle;
    }
    return low;
}

/* Part k's input row for output row `row` (in), the extent its loads may
 * span, and the part's first column and width. */
typedef struct dml_join_source {
    const unsigned char* in; /* the part's element at output column `column` */
    dml_span span;
    int64_t column, width;
} dml_join_source;

DML_HD dml_join_source dml_join_part_row(const dml_group_part* parts, uint32_t k, uint64_t row, uint32_t element_size,
    int wide)
{
    const dml_gather_params* p = &parts[k].params;
    const dml_row r = dml_row_offsets(p, row, wide, -1);
    dml_join_source s;
    s.span.begin = p->in + parts[k].in_lowest * (int64_t)element_size;
    s.span.end = p->in + (parts[k].in_highest + 1) * (int64_t)element_size;
    s.column = p->out_offset - parts[0].params.out_offset;
    s.width = (int64_t)p->row_length;
    s.in = p->in + r.in * (int64_t)element_size;
    return s;
}

/* The joined row's vector at output column j (j + lanes <= the row): a
 * piece from each part its columns cover. */
DML_HD dml_u128 dml_join_vector(const dml_group_part* parts, uint32_t count, uint64_t row, int64_t j, uint32_t lanes,
    uint32_t element_size, int wide)
{
    dml_u128 v = { 0, 0, 0, 0 };
    for (uint32_t k = dml_join_find_part(parts, count, j); k < count; ++k) {
        const dml_join_source s = dml_join_part_row(parts, k, row, element_size, wide);
        if (s.column >= j + (int64_t)lanes)
            break;
        const int64_t first = s.column > j ? s.column - j : 0;
        const int64_t last = s.column + s.width - j < (int64_t)lanes ? s.column + s.width - j : (int64_t)lanes;
        DML_TRACE_PART(k);
        const dml_u128 piece = dml_load128_needed(s.in + (j - s.column) * (int64_t)element_size,
            (uint32_t)first * element_size, (uint32_t)last * element_size, s.span, element_size);
        /* bytes [first, last) of the piece into v */
        v = dml_merge_bytes(v, dml_merge_bytes(piece, v, (uint32_t)last * element_size), (uint32_t)first * element_size);
    }
    return v;
}

/* One item of the joined row (dml_vector_load's layout: its body vector and
 * its edge element, of the output row). */
DML_HD dml_vector_work dml_join_load(const dml_group_part* parts, uint32_t count, const dml_gather_params* joined,
    unsigned char* DML_RESTRICT out, uint64_t item, uint32_t element_size, int wide)
{
    dml_vector_work w;
    w.destination = -1;
    w.edge_destination = -1;
    w.edge = 0;
    uint64_t row, slot;
    dml_split_item(joined, item, wide, &row, &slot);
    const dml_row r = dml_row_offsets(joined, row, wide, -1);
    const dml_row_layout l = dml_layout_row(joined, out, &r, element_size, wide);
    if (slot < l.edges) {
        const int64_t j = (int64_t)(slot < l.head ? slot : slot + l.vectors * joined->lanes);
        const uint32_t k = dml_join_find_part(parts, count, j);
        const dml_join_source s = dml_join_part_row(parts, k, row, element_size, wide);
        DML_TRACE_PART(k);
        w.edge = dml_load_element(s.in + (j - s.column) * (int64_t)element_size, element_size, DML_SITE_EDGE_LOAD);
        w.edge_destination = dml_work_offset(r.out + j, wide);
    }
    if (slot < l.vectors) {
        const int64_t j = (int64_t)(l.head + slot * joined->lanes);
        w.value = dml_join_vector(parts, count, row, j, joined->lanes, element_size, wide);
        w.destination = dml_work_offset(r.out + j, wide);
    }
    return w;
}

/* A thread's grid-stride loop over the joined row's items: every load of a
 * pass before its stores, as the gather's vector path. */
DML_HD void dml_join_thread(const dml_group_part* parts, uint32_t count, const dml_gather_params* joined,
    uint64_t block, uint32_t thread, uint64_t grid, uint32_t block_dim, uint32_t element_size, int wide)
{
    unsigned char* DML_RESTRICT out = joined->out;
    const uint64_t per_block = (uint64_t)block_dim * DML_CUDA_ITEMS, stride = grid * per_block;
    for (uint64_t base = block * per_block + thread; base < joined->count; base += stride) {
        DML_TRACE_PASS();
        dml_vector_work work[DML_CUDA_ITEMS];
        DML_UNROLL
        for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
            const uint64_t item = base + (uint64_t)k * block_dim;
            work[k].destination = -1;
            work[k].edge_destination = -1;
            if (item < joined->count)
                work[k] = dml_join_load(parts, count, joined, out, item, element_size, wide);
        }
        DML_UNROLL
        for (int k = 0; k < DML_CUDA_ITEMS; ++k)
            dml_vector_store(out, &work[k], element_size);
    }
}

#endif /* DML_CUDA_GROUP_JOIN_H */
