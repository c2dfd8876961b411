/*
 * cpu_transpose_avx512.h — AVX-512 transposes for gathers whose input is a
 * transposed view (output rows contiguous, input contiguous across rows):
 * tiles of 16/E rows by one 64-byte output line per row, each built from
 * four 16-byte register transposes side by side in a 512-bit vector, so
 * every output line is written by one store (a non-temporal one when the
 * output is streamed and line-aligned).
 */
#ifndef DML_CPU_TRANSPOSE_AVX512_H
#define DML_CPU_TRANSPOSE_AVX512_H

#include <stddef.h>
#include <stdint.h>

/* Output rows a transposing call covers at most: enough that each input
 * column is read in runs of several cache lines. */
#define DML_CPU_TRANSPOSE_RUN_BYTES 512u

/* Columns a tile covers: one 64-byte output line per row. */
#define DML_CPU_TRANSPOSE_GROUP(E) (64u / (E))

/* Rows a tile covers. */
#define DML_CPU_TRANSPOSE_ROWS(E) (16u / (E))

/* out[r * os + c] = in[r + c * is] for r < rows, c < cols (elements of E =
 * 1, 2, 4 or 8 bytes; strides in elements), rows a multiple of
 * DML_CPU_TRANSPOSE_ROWS(E) and at most DML_CPU_TRANSPOSE_RUN_BYTES / E,
 * cols a multiple of DML_CPU_TRANSPOSE_GROUP(E). stream: the output may be
 * written with non-temporal stores (the caller fences). Returns 0 (nothing
 * written) where the level in use lacks AVX-512, else 1. */
int dml_cpu_transpose_avx512(unsigned char* out, int64_t os, const unsigned char* in, int64_t is, uint64_t rows,
    uint64_t cols, size_t E, int stream);

#endif /* DML_CPU_TRANSPOSE_AVX512_H */
