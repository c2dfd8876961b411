/*
 * coalescing_indexed.h — dmlcoalesce's rows for the data-dependent plan
 * kinds (coalescing_indexed.c): GATHER of rows, GATHER_ELEMENTS,
 * ELEMENT_WISE_IF, ONE_HOT and SCATTER of rows, in the table's columns.
 */
#ifndef DML_PROFILING_COALESCING_INDEXED_H
#define DML_PROFILING_COALESCING_INDEXED_H

#include <stdint.h>

/* Each row's plan as its operator lowers it (hand-made here: the plans are
 * core/plan.h's), its launch emulated over 64-byte aligned buffers of the
 * tensors' exact sizes, about `bytes` of output, FLOAT32 data and INT32
 * indices. Returns the failures (printed). */
int coalescing_indexed_rows(int csv, uint64_t bytes, uint32_t sm_count);

#endif /* DML_PROFILING_COALESCING_INDEXED_H */
