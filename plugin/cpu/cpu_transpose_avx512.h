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

/* Output rows a transposing call covers at most, as bytes of each input
 * column: enough that each column is read in runs of several cache lines,
 * few enough that a group's runs (64 / E columns, packed) stay in L1. 1- to
 * 4-byte columns in runs of 256 bytes, 8-byte ones (8 to a group) of 512
 * (64 MiB on one thread, 2-core AMD EPYC VM, against 512 for every size:
 * 1-byte 0.67-0.75 -> 0.82 of memcpy, 2-byte 0.76-0.79 -> 0.94-1.01; 8-byte
 * columns ran 5% slower in runs of 256). */
#define DML_CPU_TRANSPOSE_RUN_BYTES(E) ((E) == 8 ? 512u : 256u)

/* Columns a tile covers: one 64-byte output line per row. */
#define DML_CPU_TRANSPOSE_GROUP(E) (64u / (E))

/* Rows a tile covers. */
#define DML_CPU_TRANSPOSE_ROWS(E) (16u / (E))

/* out[r * os + c] = in[r + c * is] for r < rows, c < cols (elements of E =
 * 1, 2, 4 or 8 bytes; strides in elements), rows a multiple of
 * DML_CPU_TRANSPOSE_ROWS(E) and at most DML_CPU_TRANSPOSE_RUN_BYTES(E) / E,
 * cols a multiple of DML_CPU_TRANSPOSE_GROUP(E). stream: the output may be
 * written with non-temporal stores (the caller fences). Returns 0 (nothing
 * written) where the level in use lacks AVX-512, else 1. */
int dml_cpu_transpose_avx512(unsigned char* out, int64_t os, const unsigned char* in, int64_t is, uint64_t rows,
    uint64_t cols, size_t E, int stream);

#endif /* DML_CPU_TRANSPOSE_AVX512_H */
