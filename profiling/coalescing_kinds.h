/*
 * coalescing_kinds.h — dmlcoalesce's CAST, JOIN, SPLIT, TILE and depth/space rows
 * (coalescing_kinds.c), printed in the table's columns.
 */
#ifndef DML_PROFILING_COALESCING_KINDS_H
#define DML_PROFILING_COALESCING_KINDS_H

#include <stdint.h>

/* CAST of a packed [R, row] tensor for each of the type pairs f32->f16,
 * f16->f32, u8->f32, f64->f32, the output about `bytes`. Returns the
 * failures (printed). */
int coalescing_cast_rows(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count);

/* JOIN of two parts into a packed [R, row] tensor, and SPLIT of one into
 * two, along the innermost axis (halves, and uneven: one element off) and
 * the outer one (halves), for 1-, 2-, 4- and 8-byte elements: every part's
 * plan emulated, their sectors summed into one row. Returns the failures
 * (printed). */
int coalescing_join_split_rows(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count);

/* TILE (a row repeated along itself; the whole tensor repeated), and
 * DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1 with block 2 in both orders, for 1-,
 * 2-, 4- and 8-byte elements. Returns the failures (printed). */
int coalescing_affine_rows(int csv, uint64_t bytes, uint32_t row_bytes, uint32_t sm_count);

#endif /* DML_PROFILING_COALESCING_KINDS_H */
