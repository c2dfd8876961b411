/*
 * cpu_reverse_select.h — the vector kernels of the column-block reversal
 * (cpu_reverse_block.c) for short axes: the columns of a vector are reversed
 * together by vector selects between the block's input rows, keyed by each
 * column's length (see the .c file).
 */
#ifndef DML_CPU_REVERSE_SELECT_H
#define DML_CPU_REVERSE_SELECT_H

#include <stddef.h>
#include <stdint.h>

/* The longest axis the select kernels take: they hold T rounded up to a
 * power of two rows of one vector (64 rows: 4 KiB, already spilled to the
 * stack), and their work per output vector grows as log2 of it. */
#define DML_CPU_SELECT_MAX_T 64u

/* The kernels' buffer for packed rows (on the caller's stack). */
#define DML_CPU_SELECT_SCRATCH_BYTES ((uint64_t)16 * 1024)

/* A block of columns with contiguous rows. */
typedef struct dml_cpu_select_block {
    const unsigned char* in;   /* input row 0, column 0 */
    int64_t in_row;            /* bytes from one input row to the next */
    unsigned char* out;        /* output row 0, column 0 */
    int64_t out_row;           /* bytes from one output row to the next */
    const uint32_t* lengths;   /* the cols columns' lengths, clamped to T */
    uint64_t T, cols;
    unsigned char* scratch;    /* DML_CPU_SELECT_SCRATCH_BYTES, 64-byte aligned */
    int stream;                /* non-temporal stores where the rows are aligned (AVX-512) */
} dml_cpu_select_block;

/* Write all T output rows of the block (T <= DML_CPU_SELECT_MAX_T) for its
 * first whole vectors of columns (64 or 32 bytes); return the columns written
 * (the caller writes the rest). The CPU must have the instruction set named. */
uint64_t dml_cpu_select_avx512(const dml_cpu_select_block* b, size_t E);
uint64_t dml_cpu_select_avx2(const dml_cpu_select_block* b, size_t E);

/* L[k] = min(lengths[k], T) for the first count contiguous lengths of LS
 * (4 or 8) bytes, in whole vectors; return the lengths done. The vector form
 * of core/plan.h's dml_plan_read_length (axis_size T, which fits in 32 bits),
 * tested against it value by value (test_cpu_execute). */
uint64_t dml_cpu_clamp_lengths_avx512(uint32_t* L, const void* lengths, uint64_t count, uint32_t T, size_t LS);
uint64_t dml_cpu_clamp_lengths_avx2(uint32_t* L, const void* lengths, uint64_t count, uint32_t T, size_t LS);

#endif /* DML_CPU_REVERSE_SELECT_H */
