/*
 * plain_gather.h — the plain-C loops a host would write instead of calling
 * the runtime, dmlbench's baseline for small gathers (issue 12: a small
 * gather must run within 1.2x of the best of them).
 *
 * Written from the operator definitions, independently of the CPU
 * executor: a naive loop over output elements, and, where every output row
 * comes from one contiguous input run, a loop of one memcpy per row.
 */
#ifndef DML_PLAIN_GATHER_H
#define DML_PLAIN_GATHER_H

#include <stddef.h>
#include <stdint.h>

#define PLAIN_MAX_RANK 4

/* out[c] (packed, rank dims of sizes) = in[in_offset + sum c[d] * in_strides[d]]
 * in elements; with reverse_axis >= 0 the coordinate on that axis is first
 * reversed inside the first L = min(lengths[sum c[d] * len_strides[d], d !=
 * reverse_axis], sizes[reverse_axis]) entries (REVERSE_SUBSEQUENCES). */
typedef struct plain_gather {
    unsigned rank;
    size_t element_size; /* 1, 2, 4 or 8 */
    uint64_t sizes[PLAIN_MAX_RANK];
    int64_t in_strides[PLAIN_MAX_RANK];
    int64_t in_offset;
    int reverse_axis; /* -1: a plain gather */
    int64_t len_strides[PLAIN_MAX_RANK];
    const uint32_t* lengths;
} plain_gather;

/* One element at a time. */
void plain_gather_naive(const plain_gather* g, void* out, const void* in);

/* One memcpy per output row; returns 0 (and does nothing) when a row is not
 * one contiguous input run (inner stride not 1, or a reversal along or a
 * length varying along the row). */
int plain_gather_rows(const plain_gather* g, void* out, const void* in);

#endif
