/*
 * cpu_rows_avx512.h — AVX-512 kernels for rows whose output is contiguous
 * and whose input walks at stride -1 or +-2 (reversed rows, every other
 * element). cpu_execute.c picks them at run time (cpu_simd.h) and finishes
 * whatever they leave with the AVX2 kernels (cpu_rows_avx2.h) and its
 * portable loops.
 *
 * Every load stays inside the span of elements the row reads, so nothing
 * outside the bound input is touched; stores stay inside the row's output.
 */
#ifndef DML_CPU_ROWS_AVX512_H
#define DML_CPU_ROWS_AVX512_H

#include <stddef.h>
#include <stdint.h>

/* dst[k] = src[-k] for k < n, elements of E (1, 2, 4 or 8) bytes. Returns n,
 * or 0 (nothing written) for rows shorter than one 64-byte vector or where
 * the level in use lacks what E needs. */
uint64_t dml_cpu_reverse_row_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E);

/* The same, the 64-byte lines wholly inside the row's output written with
 * non-temporal stores (the caller fences), the partial lines at its ends
 * with ordinary ones. */
uint64_t dml_cpu_reverse_row_stream_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E);

/* dst[k] = src[2k] (backward = 0) or src[-2k] (backward = 1) for k < n.
 * Returns n, or 0 (nothing written) as above. */
uint64_t dml_cpu_stride2_row_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E,
    int backward);

/* memcpy whose whole 64-byte lines of dst are written with 64-byte
 * non-temporal stores (the caller fences), the partial lines at its ends
 * with ordinary ones. Returns bytes, or 0 (nothing written) where the
 * level in use lacks AVX-512. */
uint64_t dml_cpu_stream_copy_avx512(unsigned char* dst, const unsigned char* src, uint64_t bytes);

/* Writes a thread's output through whole-line non-temporal stores, wherever
 * its pieces fall: bytes put into a 64-byte line collect in `pending` until
 * the line is whole (one non-temporal store; the caller fences) or a piece
 * goes to another line (a masked ordinary store of just the bytes put, as
 * for lines shared with another thread's range). Runs of whole lines stream
 * straight from their source. So rows that end mid-line, one after the
 * other (a padded image's), write every line once, whole, with no read of
 * it first. Loads are masked to the bytes put: none touches another byte.
 * Only where the level in use has AVX-512. */
typedef struct dml_cpu_line_writer {
    _Alignas(64) unsigned char pending[64];
    unsigned char* line; /* the pending line, NULL when none */
    uint64_t have;       /* its bytes put, a bit each */
} dml_cpu_line_writer;

/* dst[k] = src[k] for k < bytes, through the writer (w->line NULL to begin). */
void dml_cpu_line_writer_put(dml_cpu_line_writer* w, unsigned char* dst, const unsigned char* src, uint64_t bytes);

/* Stores the pending line's bytes; the writer is empty after. */
void dml_cpu_line_writer_flush(dml_cpu_line_writer* w);

/* dst[2r + j] = (j ? b : a)[r] for r below the returned count, elements of
 * E bytes: two rows interleaved, a 64-byte vector of each a step, stored
 * non-temporally when `stream` and dst starts a line (the caller fences).
 * Returns the rows done (a multiple of 64 / E, at most `rows`), 0 where the
 * level in use lacks AVX-512 (or VBMI, for bytes). */
uint64_t dml_cpu_zip2_avx512(unsigned char* dst, const unsigned char* a, const unsigned char* b, uint64_t rows,
    size_t E, int stream);

/* Its inverse: dst0[k] = src[2k], dst1[k] = src[2k + 1] for k below the
 * returned count (a multiple of 64 / E, at most n; the loads stay inside
 * src's 2n elements), streamed when `stream` and both rows start lines;
 * 0 without AVX-512 (or VBMI, for bytes). */
uint64_t dml_cpu_unzip2_avx512(unsigned char* dst0, unsigned char* dst1, const unsigned char* src, uint64_t n,
    size_t E, int stream);

#endif /* DML_CPU_ROWS_AVX512_H */
