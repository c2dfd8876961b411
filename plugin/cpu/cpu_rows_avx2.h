/*
 * cpu_rows_avx2.h — AVX2 kernels for rows whose output is contiguous and
 * whose input walks at stride -1 or +-2 (reversed rows, every other
 * element): the AVX2 counterparts of cpu_rows_avx512.h. cpu_execute.c
 * calls them where the AVX-512 ones wrote nothing and finishes whatever they
 * leave with its portable loops.
 *
 * Each handles whole 32-byte blocks of output and returns how many elements
 * it wrote. Loads stay inside the span of elements the row reads (stride +-2
 * reads the element between two wanted ones, never one past either end), so
 * nothing outside the bound input is touched; stores stay inside the row's
 * output.
 */
#ifndef DML_CPU_ROWS_AVX2_H
#define DML_CPU_ROWS_AVX2_H

#include <stddef.h>
#include <stdint.h>

/* dst[k] = src[-k] for k < n, elements of E (1, 2, 4 or 8) bytes. Returns n
 * (the last block may overlap its neighbour), or 0 (nothing written) for
 * rows shorter than one 32-byte vector or a level below AVX2. */
uint64_t dml_cpu_reverse_row_avx2(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E);

/* dst[k] = src[2k] (backward = 0) or src[-2k] (backward = 1) for the first
 * k it returns: 0 for rows of at most 32 / E elements or a level below
 * AVX2, else fewer than n (the row's last element at least is the
 * caller's). */
uint64_t dml_cpu_stride2_row_avx2(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E,
    int backward);

#endif /* DML_CPU_ROWS_AVX2_H */
