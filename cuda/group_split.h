/*
 * group_split.h — the flat-part path of a grouped launch (group_params.h,
 * row_split): a SPLIT whose parts are side by side in the rows of one input
 * and whose outputs are packed. Alone, each part walks its own short rows,
 * and when a row is not a whole number of 16-byte vectors every output row
 * starts off alignment: head and tail elements stored one by one at both
 * ends of every row (0.84-0.87 of the sectors used with 1- to 4-byte
 * elements for two uneven halves, dmlcoalesce's inner-uneven rows). The
 * mirror of the joined-row walk (group_join.h): there the written side,
 * one output row, is walked in aligned vectors and the misaligned parts
 * are read; here the written side is each part's output, which is packed,
 * so it is walked as one flat row: every 16-byte output vector is stored
 * whole and aligned, only the part's two ends are edge elements (moved one
 * by one by its first threads), and each vector's lanes are read from the
 * input rows they cover, a piece per row (dml_load128_needed over the
 * part's whole input extent, in_lowest .. in_highest: a vector across two
 * input rows' pieces is aligned loads, and nothing outside the part's bound
 * range is read). A part's params keep its rows' geometry (one outer
 * dimension, its input stride, row_length: an element's input row); the
 * launcher (group.c) rewrites row_items and row_divisor to row_length
 * (flat element -> row), axis_size to the part's output elements and count
 * to the flat row's items (at least its vectors and its edges). Shared by
 * the grouped kernels (group.cu) and the emulator.
 */
#ifndef DML_CUDA_GROUP_SPLIT_H
#define DML_CUDA_GROUP_SPLIT_H

#include "gather_thread.h"
#include "group_params.h"

/* Flat output element j of the part: its column in its input row, and
 * its input element offset (the rows run along the one outer dimension,
 * at in_strides[0]). 32-bit arithmetic with 32-bit indexing: fewer
 * registers (every offset then fits). */
DML_HD int64_t dml_split_source(const dml_gather_params* p, uint64_t j, int wide, uint64_t* column)
{
    if (!wide) {
        const uint32_t row = dml_divide32(p->row_divisor, (uint32_t)j);
        *column = (uint32_t)j - row * p->row_divisor.divisor;
        return p->in_offset + (int32_t)(row * (uint32_t)p->in_strides32[0] + (uint32_t)*column);
    }
    const uint64_t row = j / p->row_length;
    *column = j - row * p->row_length;
    return p->in_offset + (int64_t)row * p->in_strides[0] + (int64_t)*column;
}

/* The part's output vector at flat element j (j + lanes <= its elements):
 * a piece from each input row its lanes cover (one, or two where a row
 * ends inside it; more only for rows shorter than a vector). */
DML_HD dml_u128 dml_split_vector(const dml_gather_params* p, dml_span span, uint64_t j, uint32_t element_size,
    int wide)
{
    dml_u128 v = { 0, 0, 0, 0 };
    uint64_t column;
    int64_t source = dml_split_source(p, j, wide, &column); /* of lane `at` */
    const uint32_t lanes = DML_CUDA_VECTOR_BYTES / element_size; /* p->lanes, a constant once inlined */
    const int64_t next_row = wide ? p->in_strides[0] - (int64_t)p->row_length
                                  : (int64_t)(p->in_strides32[0] - (int32_t)p->row_length);
    for (uint32_t at = 0; at < lanes;) {
        /* the row's elements from lane `at` on */
        const uint64_t left = wide ? p->row_length - column : (uint32_t)p->row_length - (uint32_t)column;
        const uint32_t end = left < lanes - at ? at + (uint32_t)left : lanes;
        const dml_u128 piece = dml_load128_needed(p->in + (source - (int64_t)at) * (int64_t)element_size,
            at * element_size, end * element_size, span, element_size);
        v = dml_merge_bytes(v, dml_merge_bytes(piece, v, end * element_size), at * element_size);
        source += (int64_t)left + next_row; /* the next row's first element */
        column = 0;
        at = end;
    }
    return v;
}

/* The part's flat row: head elements up to its first aligned output vector,
 * `vectors` vectors, and edges = head + tail elements (dml_layout_row's
 * layout, of the part's whole output). */
DML_HD dml_row_layout dml_split_layout(const dml_gather_params* p, uint32_t element_size, int wide)
{
    const uint32_t lanes = DML_CUDA_VECTOR_BYTES / element_size;
    const uintptr_t first = (uintptr_t)(p->out + p->out_offset * (int64_t)element_size);
    const uint32_t head = (uint32_t)(((DML_CUDA_VECTOR_BYTES - first % DML_CUDA_VECTOR_BYTES) % DML_CUDA_VECTOR_BYTES) /
        element_size);
    dml_row_layout l;
    if (!wide) { /* 32-bit arithmetic: fewer registers */
        const uint32_t elements = (uint32_t)p->axis_size, h = head < elements ? head : elements;
        const uint32_t vectors = (elements - h) / lanes;
        l.head = h;
        l.vectors = vectors;
        l.edges = elements - vectors * lanes;
        return l;
    }
    l.head = head < p->axis_size ? head : p->axis_size;
    l.vectors = (p->axis_size - l.head) / lanes;
    l.edges = p->axis_size - l.vectors * lanes;
    return l;
}

/* The part's edge elements (head and tail: fewer than two vectors' worth),
 * one by each of its first threads, on their own before the vectors: so
 * the vectors' passes carry only their vectors from loads to stores (the
 * fewest registers, and no spill in the grouped kernels, whose other paths
 * share the register budget). */
DML_HD void dml_split_edges(const dml_gather_params* p, const dml_row_layout* l, uint64_t edge,
    uint32_t element_size, int wide)
{
    if (edge >= l->edges)
        return;
    DML_TRACE_PASS();
    const uint64_t j = edge < l->head ? edge : edge + l->vectors * (DML_CUDA_VECTOR_BYTES / element_size);
    uint64_t column;
    const int64_t source = dml_split_source(p, j, wide, &column);
    const uint64_t value = dml_load_element(p->in + source * (int64_t)element_size, element_size, DML_SITE_EDGE_LOAD);
    dml_store_element(p->out + (p->out_offset + (int64_t)j) * (int64_t)element_size, value, element_size,
        DML_SITE_EDGE_STORE);
}

/* A thread of the part (block and grid: the part's): its edge element if
 * it has one, then its grid-stride loop over the flat row's vectors, each
 * pass loading its DML_CUDA_ITEMS vectors before storing them. */
DML_HD void dml_split_thread(const dml_group_part* part, uint64_t block, uint32_t thread, uint64_t grid,
    uint32_t block_dim, uint32_t element_size, int wide)
{
    const dml_gather_params* p = &part->params;
    unsigned char* DML_RESTRICT out = p->out;
    const uint32_t lanes = DML_CUDA_VECTOR_BYTES / element_size;
    const dml_row_layout l = dml_split_layout(p, element_size, wide);
    dml_split_edges(p, &l, block * block_dim + thread, element_size, wide);
    dml_span span;
    span.begin = p->in + part->in_lowest * (int64_t)element_size;
    span.end = p->in + (part->in_highest + 1) * (int64_t)element_size;
    const uint64_t per_block = (uint64_t)block_dim * DML_CUDA_ITEMS, stride = grid * per_block;
    for (uint64_t base = block * per_block + thread; base < l.vectors; base += stride) {
        DML_TRACE_PASS();
        dml_u128 value[DML_CUDA_ITEMS];
        DML_UNROLL
        for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
            const uint64_t item = base + (uint64_t)k * block_dim;
            if (item < l.vectors)
                value[k] = dml_split_vector(p, span, l.head + item * lanes, element_size, wide);
        }
        DML_UNROLL
        for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
            const uint64_t item = base + (uint64_t)k * block_dim;
            if (item < l.vectors) {
                unsigned char* destination = out + (p->out_offset + (int64_t)(l.head + item * lanes)) * (int64_t)element_size;
                DML_TRACE(DML_SITE_STORE, 1, destination, DML_CUDA_VECTOR_BYTES);
                dml_store128(destination, value[k]);
            }
        }
    }
}

#endif /* DML_CUDA_GROUP_SPLIT_H */
