/*
 * cpu_execute.c — the plan executor.
 *
 * The innermost plan dimension is a "row". An odometer walks the outer
 * coordinates, updating row base offsets incrementally, and each row (or the
 * part of it inside the range) is copied by the fastest loop its strides
 * allow: memcpy, a reversing loop, a broadcast or a strided loop. The whole
 * walk is instantiated once per element size so every element move is a
 * constant-size memcpy, i.e. one load and one store, free of alignment and
 * aliasing UB. Offsets are kept as integers and turned into pointers only
 * for elements that are really accessed.
 */
#include "cpu_execute.h"
#include "cpu_lengths.h"
#include "cpu_reverse_block.h"
#include "cpu_rows_avx2.h"
#include "cpu_rows_avx512.h"
#include "cpu_simd.h"
#include "cpu_transpose_avx512.h"

#include <stddef.h>
#include <string.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef unsigned char byte;

enum row_mode {
    ROW_GATHER,          /* plain gather */
    ROW_REVERSE_INNER,   /* reversal along the row: one length per row */
    ROW_REVERSE_OUTER,   /* reversal on an outer axis, one length per row */
    ROW_REVERSE_ELEMENT, /* reversal on an outer axis, a length per element */
};

/* Outer-coordinate odometer; offsets are of the row's element 0. */
typedef struct walk {
    int rank;
    int64_t in, out, len;
    int64_t c[DML_PLAN_MAX_RANK];
    int64_t size[DML_PLAN_MAX_RANK];
    int64_t in_stride[DML_PLAN_MAX_RANK];
    int64_t out_stride[DML_PLAN_MAX_RANK];
    int64_t len_stride[DML_PLAN_MAX_RANK];
} walk;

/* Positions the walk at flat index `index`: the only divisions of a range. */
static void walk_init(walk* w, const dml_plan* p, uint64_t index, int with_lengths)
{
    w->rank = (int)p->rank;
    w->in = p->in_offset;
    w->out = p->out_offset;
    w->len = with_lengths ? p->len_offset : 0;
    for (int d = w->rank - 1; d >= 0; d--) {
        w->size[d] = (int64_t)p->sizes[d];
        w->c[d] = (int64_t)(index % p->sizes[d]);
        index /= p->sizes[d];
        w->in_stride[d] = p->in_strides[d];
        w->out_stride[d] = p->out_strides[d];
        /* Gather plans may leave len_strides unset: never multiply them. */
        w->len_stride[d] = with_lengths ? p->len_strides[d] : 0;
        if (d != w->rank - 1) {
            w->in += w->c[d] * w->in_stride[d];
            w->out += w->c[d] * w->out_stride[d];
            w->len += w->c[d] * w->len_stride[d];
        }
    }
}

/* Steps dimension `from` by one, carrying outwards. */
static inline void walk_step(walk* w, int from)
{
    for (int d = from; d >= 0; d--) {
        w->in += w->in_stride[d];
        w->out += w->out_stride[d];
        w->len += w->len_stride[d];
        if (++w->c[d] < w->size[d])
            return;
        w->c[d] = 0;
        w->in -= w->size[d] * w->in_stride[d];
        w->out -= w->size[d] * w->out_stride[d];
        w->len -= w->size[d] * w->len_stride[d];
    }
}

static inline void walk_next_row(walk* w)
{
    walk_step(w, w->rank - 2);
}

/* Moves on `rows` rows, at most to the end of the current run of the
 * next-outer dimension. */
static inline void walk_skip_rows(walk* w, uint64_t rows)
{
    const int d = w->rank - 2;
    if ((uint64_t)(w->size[d] - w->c[d]) > rows) {
        w->c[d] += (int64_t)rows;
        w->in += (int64_t)rows * w->in_stride[d];
        w->out += (int64_t)rows * w->out_stride[d];
        w->len += (int64_t)rows * w->len_stride[d];
        return;
    }
    w->in -= w->c[d] * w->in_stride[d];
    w->out -= w->c[d] * w->out_stride[d];
    w->len -= w->c[d] * w->len_stride[d];
    w->c[d] = 0;
    walk_step(w, d - 1);
}

/* The clamped length at lengths element `index` (cpu_lengths.h). */
ALWAYS_INLINE uint64_t read_length(const byte* lengths, int64_t index, size_t LS, uint64_t axis_size)
{
    return dml_cpu_read_length(lengths, index, LS, axis_size);
}

/* Whether this thread's range streams its output (cpu_stream.h's rule),
 * set per executing thread by execute_range. */
static _Thread_local int t_stream;

/* Forward stride +2 rows take the AVX-512 loop only where it is faster than
 * the AVX2 one: outputs up to 2 MiB, and 1-byte ones up to the streaming
 * threshold (one thread's CPU time, AVX-512 against AVX2: 1 MiB 38-47 us
 * against 51-103 us; 4 MiB 1-byte 254 against 463 us, 4- and 8-byte 410-
 * 475 against 250-348 us; 16 MiB 2.7-3.1 against 2.4-2.8 ms; 64 MiB
 * streamed 8.6-10.8 against 7.1-8.3 ms). Set with t_stream. */
#define FORWARD_AVX512_MAX_BYTES ((uint64_t)2 << 20)
static _Thread_local int t_forward_avx512;

#if defined(__SSE2__)
#include <emmintrin.h>
/* memcpy with 16-byte non-temporal stores (the caller fences). */
static void stream_copy(byte* dst, const byte* src, size_t bytes)
{
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    head = head < bytes ? head : bytes;
    memcpy(dst, src, head);
    dst += head, src += head, bytes -= head;
    for (; bytes >= 64; bytes -= 64, dst += 64, src += 64) {
        __m128i a = _mm_loadu_si128((const __m128i*)src), b = _mm_loadu_si128((const __m128i*)(src + 16));
        __m128i c = _mm_loadu_si128((const __m128i*)(src + 32)), d = _mm_loadu_si128((const __m128i*)(src + 48));
        _mm_stream_si128((__m128i*)dst, a);
        _mm_stream_si128((__m128i*)(dst + 16), b);
        _mm_stream_si128((__m128i*)(dst + 32), c);
        _mm_stream_si128((__m128i*)(dst + 48), d);
    }
    memcpy(dst, src, bytes);
}
#define STREAM_FENCE() _mm_sfence()
#else
#define stream_copy(dst, src, bytes) memcpy(dst, src, bytes)
#define STREAM_FENCE() ((void)0)
#endif

void dml_cpu_stream_copy(unsigned char* dst, const unsigned char* src, size_t bytes)
{
    if (dml_cpu_stream_copy_avx512(dst, src, bytes) != bytes)
        stream_copy(dst, src, bytes);
}

void dml_cpu_stream_fence(void)
{
    STREAM_FENCE();
}

/* dst[k * ds] = src[k * ss] for k < n (strides in elements of E bytes),
 * with ordinary stores except for contiguous copies of streamed outputs. */
ALWAYS_INLINE void copy_row_cached(byte* dst, int64_t ds, const byte* src, int64_t ss, uint64_t n, size_t E)
{
    if (ds == 1) {
        if (ss == 1) {
            if (n * E <= 16) { /* a libc call would cost more than the copy */
                for (uint64_t k = 0; k < n; k++)
                    memcpy(dst + k * E, src + k * E, E);
            } else if (t_stream && n * E >= 64) {
                stream_copy(dst, src, n * E);
            } else {
                memcpy(dst, src, n * E);
            }
            return;
        }
        if (ss == -1) {
            uint64_t k = n * E >= 64 ? dml_cpu_reverse_row_avx512(dst, src, n, E) : 0;
            /* Every element size: the compiler's 16-byte loop below ran 4-
             * and 8-byte rows at 0.65x memcpy, the AVX2 one at 0.83x / 0.96x
             * (4 MiB, one thread, best of 31, 2-core AMD EPYC VM). */
            if (k == 0 && n * E >= 64)
                k = dml_cpu_reverse_row_avx2(dst, src, n, E);
            if (E == 1) { /* baseline x86-64 has no byte shuffle: reverse 8 at a time */
                for (; k + 8 <= n; k += 8) {
                    uint64_t v;
                    memcpy(&v, src - k - 7, 8);
                    v = __builtin_bswap64(v);
                    memcpy(dst + k, &v, 8);
                }
            }
            for (; k < n; k++) /* vectorised with -O3: a load, a shuffle, a store */
                memcpy(dst + k * E, src - k * E, E);
            return;
        }
        if (ss == 0) { /* broadcast */
            if (E == 1) {
                memset(dst, *src, n);
                return;
            }
            byte value[8];
            memcpy(value, src, E);
            for (uint64_t k = 0; k < n; k++)
                memcpy(dst + k * E, value, E);
            return;
        }
    }
    uint64_t k0 = 0;
    if (ds == 1 && (ss == 2 || ss == -2) && n * E >= 64) {
        if (ss < 0 || t_forward_avx512)
            k0 = dml_cpu_stride2_row_avx512(dst, src, n, E, ss < 0);
        if (k0 == 0)
            k0 = dml_cpu_stride2_row_avx2(dst, src, n, E, ss < 0);
        dst += k0 * E;
        src += (ptrdiff_t)k0 * ss * (ptrdiff_t)E;
    }
    const ptrdiff_t db = (ptrdiff_t)ds * (ptrdiff_t)E, sb = (ptrdiff_t)ss * (ptrdiff_t)E;
    if (ds == 1) { /* a constant output step: 1.9x faster than the loop below (8-byte stride +-2 without AVX2,
                      16K-256K, dmlbench vs_C 1.9 -> 1.0) */
        for (uint64_t k = 0; k < n - k0; k++)
            memcpy(dst + k * E, src + (ptrdiff_t)k * sb, E);
        return;
    }
    for (uint64_t k = 0; k < n - k0; k++)
        memcpy(dst + (ptrdiff_t)k * db, src + (ptrdiff_t)k * sb, E);
}

/* Streamed outputs (t_stream) of rows that are neither plain copies nor
 * broadcasts: each piece of the row is gathered into a buffer that stays
 * in L1, then streamed out with non-temporal stores, so every kernel above
 * writes without reading the output's cache lines first (a third of the
 * memory traffic of a gather at 64 MiB, as for memcpy). Broadcast rows,
 * which read nothing from memory, stay as they are: staged they ran 3-8%
 * slower at 64 MiB. */
#define STAGE_BYTES 4096u
#define STAGE_MIN_BYTES 256u /* shorter rows: most of their lines are partial ones */

ALWAYS_INLINE void copy_row(byte* dst, int64_t ds, const byte* src, int64_t ss, uint64_t n, size_t E)
{
    if (!t_stream || ds != 1 || ss == 1 || ss == 0 || n * E < STAGE_MIN_BYTES) {
        copy_row_cached(dst, ds, src, ss, n, E);
        return;
    }
    /* Reversed rows with AVX-512: one pass, streamed a line at a time
     * (64 MiB, one thread's CPU time, against the staged pass below: rows
     * of 16 KiB 5.0-6.3 -> 4.2-5.9 ms line-aligned, 13-16 -> 4.8-5.5 ms
     * not; rows of 1000 bytes 25-36 -> 9-11 ms, of 300 bytes 73-89 ->
     * 6-9 ms). */
    if (ss == -1 && dml_cpu_reverse_row_stream_avx512(dst, src, n, E) == n)
        return;
    _Alignas(64) byte stage[STAGE_BYTES];
    const uint64_t per = STAGE_BYTES / E, pieces = (n + per - 1) / per;
    for (uint64_t i = 0; i < pieces; i++) {
        /* Rows read downwards go piece by piece from their end, so that,
         * with kernels that read each piece upwards, the whole input is
         * read upwards (8-byte reversed rows of 8 KiB: 2.5x faster). */
        const uint64_t k = (ss < 0 ? pieces - 1 - i : i) * per;
        const uint64_t m = n - k < per ? n - k : per;
        copy_row_cached(stage, 1, src + (ptrdiff_t)k * ss * (ptrdiff_t)E, ss, m, E);
        stream_copy(dst + k * E, stage, m * E);
    }
}

/* Reversal on an outer axis whose length varies along the row. */
ALWAYS_INLINE void reverse_elements(const dml_plan* p, const walk* w, const byte* in, byte* out, const byte* lengths,
    uint64_t j0, uint64_t n, size_t E, size_t LS)
{
    const int inner = w->rank - 1, axis = p->axis;
    const int64_t is = w->in_stride[inner], os = w->out_stride[inner], ls = w->len_stride[inner];
    const int64_t as = w->in_stride[axis];
    const uint64_t a = (uint64_t)w->c[axis];
    for (uint64_t j = j0; j < j0 + n; j++) {
        const uint64_t L = read_length(lengths, w->len + (int64_t)j * ls, LS, p->axis_size);
        const int64_t shift = a < L ? (int64_t)(L - 1 - a) - (int64_t)a : 0;
        memcpy(out + (w->out + (int64_t)j * os) * (int64_t)E, in + (w->in + (int64_t)j * is + shift * as) * (int64_t)E, E);
    }
}

/* A transposed input is read a column at a time in runs of this many
 * bytes: the AVX-512 transposer's (cpu_transpose_avx512.h), else the SSE2
 * register tiles' 512 (they ran 4-byte transposes of 64 MiB 20% slower in
 * runs of 256). */
#define SSE2_TRANSPOSE_RUN_BYTES 512u

ALWAYS_INLINE uint64_t transpose_run_bytes(size_t E)
{
    return have_avx512() ? DML_CPU_TRANSPOSE_RUN_BYTES(E) : SSE2_TRANSPOSE_RUN_BYTES;
}

/* Rows whose input elements are cache lines apart but whose neighbour rows
 * are close in the input (a transpose) are copied in tiles of
 * TILE_ROWS x TILE_COLS, so each input line fetched serves several rows.
 * A transposed input whose elements are 16 to 63 bytes apart takes the
 * tiles too: their register transposes move 16 bytes a load where the
 * strided row loop moves one element (a 1-byte [16, 1024] transpose ran
 * 2x slower than a plain-C loop; dmlbench vs_C). */
#define TILE_ROWS 64u
#define TILE_COLS 64u

static int tiling_pays(const dml_plan* p)
{
    if (p->kind != DML_PLAN_GATHER || p->rank < 2 || p->sizes[p->rank - 1] < TILE_COLS / 2)
        return 0;
    const int64_t e = p->element_size;
    const int64_t is = p->in_strides[p->rank - 1], is2 = p->in_strides[p->rank - 2];
    const int64_t row_bytes = (is < 0 ? -is : is) * e, next_bytes = (is2 < 0 ? -is2 : is2) * e;
    const int register_tiles = is2 == 1 && p->out_strides[p->rank - 1] == 1;
    if (register_tiles && is == 2 && p->sizes[p->rank - 2] == 2)
        return 0; /* one run's even and odd elements: unzipped in one pass (copy_row_run) */
    return (row_bytes >= 64 && next_bytes > 0 && next_bytes <= 16) || (register_tiles && row_bytes >= 16);
}

/* Contiguous rows of more than 16 bytes, written with ordinary stores, are
 * memcpy calls from loops of their own, outside execute_range: inlined into
 * it, the loop kept its pointers on the stack around each call (time-major
 * batches of 512-byte rows ran 1.18x the time of a plain-C loop of memcpy
 * calls, 1.03x this way; one thread, 256 KiB, 2-core AMD EPYC VM). Strides
 * in bytes. */
static __attribute__((noinline)) void memcpy_rows(byte* out, int64_t out_step, const byte* in, int64_t in_step,
    uint64_t rows, size_t bytes)
{
    for (uint64_t r = 0; r < rows; r++)
        memcpy(out + (int64_t)r * out_step, in + (int64_t)r * in_step, bytes);
}

/* memcpy_rows for streamed outputs. Rows that lie apart in the input by
 * more than ROW_PREFETCH_GAP bytes (a SPLIT's parts of an innermost
 * dimension) lose the hardware prefetchers at each gap: their lines are
 * asked for, into L2, ROW_PREFETCH_ROWS rows ahead. 2-core AMD EPYC VM,
 * `dmlbench --case split_inner --size 64M` (rows of 512 B / 2 KiB, gaps as
 * long): 0.63-0.67x / 0.93-1.05x memcpy on 1 / 2 threads -> 0.82-0.90x /
 * 1.07-1.31x (into L1: 0.69-0.72x / 0.99-1.03x). Shorter gaps (slice_p1's
 * 64 to 256 B) keep the hardware's prefetchers and ran slower prefetched. */
#define ROW_PREFETCH_ROWS 8
#define ROW_PREFETCH_BYTES 2048
#define ROW_PREFETCH_GAP 256
static __attribute__((noinline)) void stream_rows(byte* out, int64_t out_step, const byte* in, int64_t in_step,
    uint64_t rows, size_t bytes)
{
    const int gaps = in_step > (int64_t)(bytes + ROW_PREFETCH_GAP);
    for (uint64_t r = 0; r < rows; r++) {
        if (gaps && r + ROW_PREFETCH_ROWS < rows) {
            const byte* ahead = in + (int64_t)(r + ROW_PREFETCH_ROWS) * in_step;
            for (size_t b = 0; b < bytes && b < ROW_PREFETCH_BYTES; b += 64)
                __builtin_prefetch(ahead + b, 0, 2);
        }
        dml_cpu_stream_copy(out + (int64_t)r * out_step, in + (int64_t)r * in_step, bytes);
    }
}

/* The same for a reversal on an outer axis (axis coordinate a for every
 * row) with a length per row: row r reads the row `shift` axis steps away,
 * shift = L - 1 - 2a when a < L. */
static __attribute__((noinline)) void memcpy_rows_reversed(byte* out, int64_t out_step, const byte* in,
    int64_t in_step, int64_t axis_step, const byte* lengths, int64_t length_step, size_t LS, uint64_t axis_size,
    uint64_t a, uint64_t rows, size_t bytes)
{
    for (uint64_t r = 0; r < rows; r++) {
        const int64_t ri = (int64_t)r;
        const uint64_t L = read_length(lengths + ri * length_step, 0, LS, axis_size);
        const int64_t shift = a < L ? (int64_t)(L - 1 - a) - (int64_t)a : 0;
        memcpy(out + ri * out_step, in + ri * in_step + shift * axis_step, bytes);
    }
}

/* Whether copy_row would copy a row of n elements as one memcpy. */
ALWAYS_INLINE int row_is_memcpy(int64_t is, int64_t os, uint64_t n, size_t E)
{
    return is == 1 && os == 1 && n * E > 16 && !t_stream;
}

/* out[r * n + j] = in[j * is + r] for r < rows, j < n (is in bytes): n
 * input rows interleaved into one output run, as a DEPTH_TO_SPACE's block
 * of n does ([1, 4C, H, W] -> [1, C, 2H, 2W], 4-byte, 64 MiB, 2-core VM:
 * one 2-element row at a time ran at 0.07-0.32x memcpy). */
#define ZIP_MAX_ROWS 8u
ALWAYS_INLINE void zip_rows(byte* out, const byte* in, int64_t is, uint64_t rows, uint64_t n, size_t E)
{
    uint64_t r = n == 2 ? dml_cpu_zip2_avx512(out, in, in + is, rows, E, t_stream) : 0;
    for (; r < rows; ++r)
        for (uint64_t j = 0; j < n; ++j)
            memcpy(out + (r * n + j) * E, in + (int64_t)j * is + (int64_t)(r * E), E);
}

/* `count` rows of n elements, row r from input element in + r * in_step
 * to output element out + r * out_step (row strides is, os; offsets in
 * elements of the bound tensors). Rows whose input lies at falling
 * addresses (in_step < 0) go from the last to the first, so the input is
 * read upwards, and the output downwards: read downwards, rows of 16 KiB
 * took 1.5-1.8x the time of the same rows read upwards, where writing them
 * downwards cost nothing measurable (64 MiB float32, one thread's CPU time,
 * 2-core AMD EPYC VM). */
ALWAYS_INLINE void copy_row_run(const byte* in, int64_t in_at, int64_t in_step, int64_t is, byte* out,
    int64_t out_at, int64_t out_step, int64_t os, uint64_t count, uint64_t n, size_t E)
{
    const int64_t e = (int64_t)E;
    if (in_step < 0 && count > 1) {
        in_at += (int64_t)(count - 1) * in_step;
        out_at += (int64_t)(count - 1) * out_step;
        in_step = -in_step;
        out_step = -out_step;
    }
    if (row_is_memcpy(is, os, n, E)) {
        memcpy_rows(out + out_at * e, out_step * e, in + in_at * e, in_step * e, count, n * E);
        return;
    }
    if (n >= 2 && n <= ZIP_MAX_ROWS && os == 1 && out_step == (int64_t)n && in_step == 1 && count >= 2) {
        zip_rows(out + out_at * e, in + in_at * e, is * e, count, n, E);
        return;
    }
    if (count == 2 && is == 2 && in_step == 1 && os == 1) {
        /* Two rows from the even and odd elements of one run (SPACE_TO_DEPTH's
         * block of 2, walked together: walk_interleaved), in one pass over the
         * run: 64 MiB, 2-core VM, 2 threads, 0.43-0.73x -> 0.60-1.04x memcpy
         * (1- to 8-byte; a stride-2 row loop for each row before). */
        byte* out0 = out + out_at * e;
        const uint64_t k = dml_cpu_unzip2_avx512(out0, out0 + out_step * e, in + in_at * e, n, E, t_stream);
        for (uint64_t r = 0; r < 2; r++)
            copy_row(out0 + (int64_t)r * out_step * e + (int64_t)k * e, 1, in + (in_at + (int64_t)r + 2 * (int64_t)k) * e,
                2, n - k, E);
        return;
    }
    if (t_stream && is == 1 && os == 1 && n * E >= 64) {
        stream_rows(out + out_at * e, out_step * e, in + in_at * e, in_step * e, count, n * E);
        return;
    }
    for (uint64_t r = 0; r < count; r++) {
        const int64_t ri = (int64_t)r;
        copy_row(out + (out_at + ri * out_step) * e, os, in + (in_at + ri * in_step) * e, is, n, E);
    }
}

/* `rows` full rows from the walk's position along the next-outer dimension:
 * one tight loop instead of an odometer step per (possibly short) row. */
ALWAYS_INLINE void copy_rows(const walk* w, const byte* in, byte* out, uint64_t rows, uint64_t n, size_t E)
{
    const int inner = w->rank - 1;
    copy_row_run(in, w->in, w->in_stride[inner - 1], w->in_stride[inner], out, w->out, w->out_stride[inner - 1],
        w->out_stride[inner], rows, n, E);
}

/* Same for a reversal on an outer axis with one length per row: each row
 * moves whole from the source row its length picks, without an odometer
 * step per row (time-major batches of short rows ran 1.3-1.5x slower than a
 * plain-C loop of memcpy calls; dmlbench vs_C). len_strides[axis] is 0.
 *
 * Rows along the axis itself (a composed plan's, or batch-major batches)
 * share one length: the group is two runs of rows, the reversed ones
 * (a < L, source L - 1 - a) and the straight ones, each copied as a gather
 * of rows (copy_row_run), in the order of their input addresses. Row by
 * row, the reversed run read its source rows downwards: dmlbench --graph's
 * fused plan ([256, 16, 4096] float32, rows read at stride -1, lengths 1 to
 * 16 per batch) took 7.7-8.1 ms against 5.1-5.5 for its SLICE1 alone, and
 * takes 5.1-5.6 this way (one thread's CPU time, 2-core AMD EPYC VM). */
ALWAYS_INLINE void copy_rows_reversed(const dml_plan* p, const walk* w, const byte* in, byte* out,
    const byte* lengths, uint64_t rows, uint64_t n, size_t E, size_t LS)
{
    const int inner = w->rank - 1, outer = inner - 1, axis = p->axis;
    const int64_t is = w->in_stride[inner], os = w->out_stride[inner];
    const int64_t is2 = w->in_stride[outer], os2 = w->out_stride[outer], ls2 = w->len_stride[outer];
    const int64_t as = w->in_stride[axis], e = (int64_t)E;
    if (axis == outer) {
        const uint64_t a0 = (uint64_t)w->c[axis], L = read_length(lengths, w->len, LS, p->axis_size);
        /* Rows [0, reversed) read axis positions L - 1 - a0 - r, the rest a0 + r. */
        const uint64_t reversed = L <= a0 ? 0 : L - a0 < rows ? L - a0 : rows;
        const int64_t first = (int64_t)L - 1 - 2 * (int64_t)a0; /* row 0's source, in axis steps from its own */
        const int64_t ri = (int64_t)reversed;
        if (as < 0 && reversed < rows)
            copy_row_run(in, w->in + ri * as, as, is, out, w->out + ri * os2, os2, os, rows - reversed, n, E);
        if (reversed)
            copy_row_run(in, w->in + first * as, -as, is, out, w->out, os2, os, reversed, n, E);
        if (as >= 0 && reversed < rows)
            copy_row_run(in, w->in + ri * as, as, is, out, w->out + ri * os2, os2, os, rows - reversed, n, E);
        return;
    }
    if (row_is_memcpy(is, os, n, E)) {
        memcpy_rows_reversed(out + w->out * e, os2 * e, in + w->in * e, is2 * e, as * e, lengths + w->len * (int64_t)LS,
            ls2 * (int64_t)LS, LS, p->axis_size, (uint64_t)w->c[axis], rows, n * E);
        return;
    }
    for (uint64_t r = 0; r < rows; r++) {
        const int64_t ri = (int64_t)r;
        const uint64_t L = read_length(lengths, w->len + ri * ls2, LS, p->axis_size);
        const uint64_t a = (uint64_t)w->c[axis];
        const int64_t shift = a < L ? (int64_t)(L - 1 - a) - (int64_t)a : 0;
        copy_row(out + (w->out + ri * os2) * e, os, in + (w->in + ri * is2 + shift * as) * e, is, n, E);
    }
}

#if defined(__SSE2__)
#include "cpu_transpose_rounds.h"

/* A 16/E x 16/E transpose of E-byte elements in 16-byte vectors. */
ALWAYS_INLINE void transpose_vectors(__m128i* v, size_t E)
{
    DML_TRANSPOSE_LANES(__m128i, _mm_, v, E);
}

/* out[(r * os2 + c) * E] = in[(r + c * is) * E] for a V x V tile: input
 * columns are contiguous along r (a transposed input), output rows along c. */
ALWAYS_INLINE void transpose_tile(byte* out, int64_t os2, const byte* in, int64_t is, size_t E)
{
    const unsigned V = (unsigned)(16 / E);
    __m128i v[16];
    for (unsigned c = 0; c < V; c++)
        v[c] = _mm_loadu_si128((const __m128i*)(const void*)(in + (int64_t)c * is * (int64_t)E));
    transpose_vectors(v, E);
    for (unsigned r = 0; r < V; r++)
        _mm_storeu_si128((__m128i*)(void*)(out + (int64_t)r * os2 * (int64_t)E), v[r]);
}
#endif

/* Same, in tiles (rows <= TILE_ROWS, or transpose_run_bytes(E) / E for a
 * transposed input). A transposed input (output rows
 * contiguous, input contiguous across rows) moves in V x V tiles through
 * registers; the edges, and other strides, element by element. */
ALWAYS_INLINE void copy_tiles(const walk* w, const byte* in, byte* out, uint64_t rows, uint64_t n, size_t E)
{
    const int inner = w->rank - 1;
    const int64_t is = w->in_stride[inner], os = w->out_stride[inner];
    const int64_t is2 = w->in_stride[inner - 1], os2 = w->out_stride[inner - 1], e = (int64_t)E;
    uint64_t j_start = 0;
    if (os == 1 && is2 == 1 && rows >= DML_CPU_TRANSPOSE_ROWS(E) && n >= DML_CPU_TRANSPOSE_GROUP(E)) {
        /* AVX-512: whole tiles in one call (cpu_transpose_avx512.c), the
         * rows below the last tile element by element, the columns right
         * of the last group by the loops below. */
        const uint64_t tile_rows = rows / DML_CPU_TRANSPOSE_ROWS(E) * DML_CPU_TRANSPOSE_ROWS(E);
        const uint64_t tile_cols = n / DML_CPU_TRANSPOSE_GROUP(E) * DML_CPU_TRANSPOSE_GROUP(E);
        if (dml_cpu_transpose_avx512(out + w->out * e, os2, in + w->in * e, is, tile_rows, tile_cols, E, t_stream)) {
            for (uint64_t r = tile_rows; r < rows; r++)
                copy_row(out + (w->out + (int64_t)r * os2) * e, 1, in + (w->in + (int64_t)r) * e, is, tile_cols, E);
            j_start = tile_cols;
        }
    }
    for (uint64_t j = j_start; j < n; j += TILE_COLS) {
        const uint64_t cols = n - j < TILE_COLS ? n - j : TILE_COLS;
        uint64_t r0 = 0;
#if defined(__SSE2__)
        const uint64_t V = 16 / E;
        if (os == 1 && is2 == 1 && rows >= V && cols >= V) {
            /* In blocks of one cache line each way (64 / E rows and
             * columns): the block's input and output lines are used up
             * before the next block's, even when rows are a power of two
             * apart and all map to one cache set. */
            const uint64_t full_cols = cols / V * V, full_rows = rows / V * V, B = 64 / E;
            /* Input columns a multiple of 32 KiB apart share L2 sets (an L2
             * of 512 KiB, 8 ways, has a 64 KiB set period; most x86 L2s
             * have at least 32 KiB). */
            const int packs = ((uint64_t)is * E) % ((uint64_t)32 << 10) == 0;
            const int64_t ji = (int64_t)j;
            for (uint64_t rb = 0; rb < full_rows; rb += B)
                for (uint64_t cb = 0; cb < full_cols; cb += B) {
                    const uint64_t r_end = rb + B < full_rows ? rb + B : full_rows;
                    const uint64_t c_end = cb + B < full_cols ? cb + B : full_cols;
                    /* Inside a block, measured (4 MiB [4096, 1024] in
                     * cache): 1- and 2-byte tiles column group by column
                     * group (1.4x, 2x faster), 4- and 8-byte row group by
                     * row group (1.6x faster for 4 bytes). */
                    if (E <= 2 && packs) {
                        /* The column group's V input lines, one per column,
                         * all map to one L1 and one L2 set: more of them
                         * than ways. Each is copied whole into a packed
                         * buffer once, and the tiles read from there
                         * (64 MiB [65536, 1024] 1-byte: 0.19-0.20 -> 0.24-
                         * 0.26 of memcpy, 2-byte 0.27 -> 0.32; at 4 MiB,
                         * columns 4 KiB apart, packing lost 1.3x). */
                        byte pack[16 * 64];
                        const size_t span = (size_t)(r_end - rb) * E;
                        for (uint64_t c = cb; c < c_end; c += V) {
                            for (uint64_t k = 0; k < V; k++)
                                memcpy(pack + k * 64,
                                    in + (w->in + (int64_t)rb + (ji + (int64_t)(c + k)) * is) * e, span);
                            for (uint64_t r = rb; r < r_end; r += V)
                                transpose_tile(out + (w->out + (int64_t)r * os2 + ji + (int64_t)c) * e, os2,
                                    pack + (r - rb) * E, (int64_t)(64 / E), E);
                        }
                    } else if (E <= 2) {
                        for (uint64_t c = cb; c < c_end; c += V)
                            for (uint64_t r = rb; r < r_end; r += V)
                                transpose_tile(out + (w->out + (int64_t)r * os2 + ji + (int64_t)c) * e, os2,
                                    in + (w->in + (int64_t)r + (ji + (int64_t)c) * is) * e, is, E);
                    } else {
                        for (uint64_t r = rb; r < r_end; r += V)
                            for (uint64_t c = cb; c < c_end; c += V)
                                transpose_tile(out + (w->out + (int64_t)r * os2 + ji + (int64_t)c) * e, os2,
                                    in + (w->in + (int64_t)r + (ji + (int64_t)c) * is) * e, is, E);
                    }
                }
            for (uint64_t r = 0; r < full_rows && full_cols < cols; r++)
                copy_row(out + (w->out + (int64_t)r * os2 + ji + (int64_t)full_cols) * e, 1,
                    in + (w->in + (int64_t)r + (ji + (int64_t)full_cols) * is) * e, is, cols - full_cols, E);
            r0 = full_rows;
        }
#endif
        for (uint64_t r = r0; r < rows; r++) {
            const int64_t ri = (int64_t)r, ji = (int64_t)j;
            copy_row(out + (w->out + ri * os2 + ji * os) * e, os, in + (w->in + ri * is2 + ji * is) * e, is, cols, E);
        }
    }
}

ALWAYS_INLINE void execute_range(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end, size_t E,
    int stream)
{
    const byte* in = args->input;
    byte* out = args->output;
    const byte* lengths = args->lengths;
    const int inner = (int)p->rank - 1;
    const uint64_t n = p->sizes[inner];
    const int64_t is = p->in_strides[inner], os = p->out_strides[inner];
    const int64_t e = (int64_t)E;

    enum row_mode mode = ROW_GATHER;
    if (p->kind == DML_PLAN_REVERSE_SUBSEQUENCES) {
        if (p->axis == inner)
            mode = ROW_REVERSE_INNER;
        else if (p->len_strides[inner] == 0)
            mode = ROW_REVERSE_OUTER;
        else
            mode = ROW_REVERSE_ELEMENT;
    }
    const size_t LS = p->lengths_element_size;
    const int64_t as = mode == ROW_GATHER ? 0 : p->in_strides[p->axis];

    const int tiled = tiling_pays(p);
    /* Transposed inputs (tiled: rank >= 2) read each column in runs of
     * several lines. */
    const uint64_t tile_rows = tiled && p->in_strides[inner - 1] == 1 && os == 1
        ? transpose_run_bytes(E) / E : TILE_ROWS;
    const int blocked = mode == ROW_REVERSE_ELEMENT && dml_cpu_reverse_block_applies(p);
    t_stream = stream;
    t_forward_avx512 = !t_stream && (E == 1 || p->element_count * E <= FORWARD_AVX512_MAX_BYTES);

    walk w;
    walk_init(&w, p, begin, mode != ROW_GATHER);
    uint64_t j0 = (uint64_t)w.c[inner], left = end - begin;
    for (;;) {
        if ((mode == ROW_GATHER || mode == ROW_REVERSE_OUTER) && inner > 0 && j0 == 0 && left >= 2 * n) {
            /* A group of full rows along the next-outer dimension. */
            uint64_t rows = left / n, run = (uint64_t)(w.size[inner - 1] - w.c[inner - 1]);
            rows = rows < run ? rows : run;
            if (tiled && rows > tile_rows)
                rows = tile_rows;
            if (rows >= 2) {
                if (mode == ROW_REVERSE_OUTER && LS == 8)
                    copy_rows_reversed(p, &w, in, out, lengths, rows, n, E, 8);
                else if (mode == ROW_REVERSE_OUTER)
                    copy_rows_reversed(p, &w, in, out, lengths, rows, n, E, 4);
                else if (tiled)
                    copy_tiles(&w, in, out, rows, n, E);
                else
                    copy_rows(&w, in, out, rows, n, E);
                left -= rows * n;
                if (left == 0)
                    break;
                walk_skip_rows(&w, rows);
                continue;
            }
        }
        if (blocked && j0 == 0 && left >= n) {
            /* Whole rows of the axis: in column blocks (cpu_reverse_block.c). */
            const int ax = inner - 1;
            const uint64_t a = (uint64_t)w.c[ax], run = p->axis_size - a;
            const uint64_t rows = left / n < run ? left / n : run;
            const dml_cpu_block_origin origin = { w.in - w.c[ax] * w.in_stride[ax],
                w.out - w.c[ax] * w.out_stride[ax], w.len };
            dml_cpu_reverse_block(p, args, &origin, a, a + rows, 0, n, t_stream);
            left -= rows * n;
            if (left == 0)
                break;
            walk_skip_rows(&w, rows);
            continue;
        }
        const uint64_t count = n - j0 < left ? n - j0 : left;
        const uint64_t jend = j0 + count;
        byte* dst = out + (w.out + (int64_t)j0 * os) * e;
        switch (mode) {
        case ROW_GATHER:
            copy_row(dst, os, in + (w.in + (int64_t)j0 * is) * e, is, count, E);
            break;
        case ROW_REVERSE_INNER: {
            /* [0, L) come reversed, [L, n) straight. */
            const uint64_t L = LS == 8 ? read_length(lengths, w.len, 8, p->axis_size)
                                       : read_length(lengths, w.len, 4, p->axis_size);
            if (j0 < L) {
                const uint64_t stop = L < jend ? L : jend;
                copy_row(dst, os, in + (w.in + (int64_t)(L - 1 - j0) * is) * e, -is, stop - j0, E);
            }
            if (L < jend) {
                const uint64_t start = L > j0 ? L : j0;
                copy_row(out + (w.out + (int64_t)start * os) * e, os, in + (w.in + (int64_t)start * is) * e, is,
                    jend - start, E);
            }
            break;
        }
        case ROW_REVERSE_OUTER: {
            /* One length for the row: the whole row comes from one source row. */
            const uint64_t L = LS == 8 ? read_length(lengths, w.len, 8, p->axis_size)
                                       : read_length(lengths, w.len, 4, p->axis_size);
            const uint64_t a = (uint64_t)w.c[p->axis];
            const int64_t shift = a < L ? (int64_t)(L - 1 - a) - (int64_t)a : 0;
            copy_row(dst, os, in + (w.in + shift * as + (int64_t)j0 * is) * e, is, count, E);
            break;
        }
        case ROW_REVERSE_ELEMENT:
            if (LS == 8)
                reverse_elements(p, &w, in, out, lengths, j0, count, E, 8);
            else
                reverse_elements(p, &w, in, out, lengths, j0, count, E, 4);
            break;
        }
        left -= count;
        if (left == 0)
            break;
        j0 = 0;
        walk_next_row(&w);
    }
    if (t_stream) /* non-temporal stores are visible to other threads after the fence */
        STREAM_FENCE();
}

/* One instantiation per element size. */
#define DEFINE_EXECUTE(E)                                                                                   \
    static void execute_range_##E(const dml_plan* p, const dml_plan_args* a, uint64_t begin, uint64_t end, \
        int stream)                                                                                         \
    {                                                                                                       \
        execute_range(p, a, begin, end, E, stream);                                                         \
    }
DEFINE_EXECUTE(1)
DEFINE_EXECUTE(2)
DEFINE_EXECUTE(4)
DEFINE_EXECUTE(8)

/* A range of a plan whose dispatch streams its output or not (`stream`:
 * decided once for the whole dispatch, a group's plans together). */
static void execute_range_of(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end,
    int stream)
{
    if (begin >= end)
        return;
    switch (plan->element_size) {
    case 1: execute_range_1(plan, args, begin, end, stream); break;
    case 2: execute_range_2(plan, args, begin, end, stream); break;
    case 4: execute_range_4(plan, args, begin, end, stream); break;
    case 8: execute_range_8(plan, args, begin, end, stream); break;
    default: break;
    }
}

void dml_cpu_execute_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    execute_range_of(plan, args, begin, end, dml_cpu_plan_streams(plan, args));
}

typedef struct split {
    const dml_plan* plan;
    const dml_plan_args* args;
    uint64_t chunk; /* flat output elements per task, or columns (by_columns) */
    int by_columns;
    int stream; /* dml_cpu_plan_streams */
} split;

/* Tasks of column ranges, for plans whose rows read each other's input
 * (cpu_reverse_block.h): the groups' columns, numbered group by group. */
static void execute_columns(const split* s, unsigned task)
{
    const dml_plan* p = s->plan;
    const uint64_t n = p->sizes[p->rank - 1], units = p->element_count / p->axis_size;
    const int stream = s->stream;
    uint64_t u = (uint64_t)task * s->chunk;
    const uint64_t end = units - u < s->chunk ? units : u + s->chunk;
    while (u < end) {
        const uint64_t group = u / n, j = u % n, j_end = n - j < end - u ? n : j + (end - u);
        walk w;
        walk_init(&w, p, group * p->axis_size * n, 1);
        const dml_cpu_block_origin origin = { w.in, w.out, w.len };
        dml_cpu_reverse_block(p, s->args, &origin, 0, p->axis_size, j, j_end, stream);
        u += j_end - j;
    }
}

static void execute_chunk(void* context, unsigned task)
{
    const split* s = context;
    if (s->by_columns) {
        execute_columns(s, task);
        return;
    }
    const uint64_t begin = (uint64_t)task * s->chunk;
    const uint64_t end = s->plan->element_count - begin < s->chunk ? s->plan->element_count : begin + s->chunk;
    execute_range_of(s->plan, s->args, begin, end, s->stream);
}

unsigned dml_cpu_execute_threads(const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan)
{
    const dml_cpu_cost_model fallback = dml_cpu_cost_default();
    return dml_cpu_cost_threads(model ? model : &fallback, plan->element_count * plan->element_size, max_threads);
}

#define INTERLEAVED_MAX 8u

/* After walk_interleaved: a dimension of <= 8 whose input stride is the
 * group's input run (SPACE_TO_DEPTH's block rows: the run below the one
 * the group splits) moves just outside the group, so the input is read in
 * address order. Walked outside, each sweep read every other run: the
 * hardware prefetchers ran past each run's end into the skipped one. */
static void walk_runs_together(dml_plan* p)
{
    const uint32_t inner = p->rank - 1, group = inner - 1;
    int64_t run;
    if (group < 1 || __builtin_mul_overflow(p->in_strides[inner], (int64_t)p->sizes[inner], &run))
        return;
    for (uint32_t k = 0; k + 1 < group; ++k) {
        if (p->sizes[k] < 2 || p->sizes[k] > INTERLEAVED_MAX || p->in_strides[k] != run)
            continue;
        const dml_plan moved = *p;
        for (uint32_t d = k; d + 1 < group; ++d) { /* k moves to group - 1, the ones after it up by one */
            p->sizes[d] = moved.sizes[d + 1];
            p->in_strides[d] = moved.in_strides[d + 1];
            p->out_strides[d] = moved.out_strides[d + 1];
            p->len_strides[d] = moved.len_strides[d + 1];
        }
        p->sizes[group - 1] = moved.sizes[k];
        p->in_strides[group - 1] = moved.in_strides[k];
        p->out_strides[group - 1] = moved.out_strides[k];
        p->len_strides[group - 1] = moved.len_strides[k];
        return;
    }
}

/* A gather whose output rows each take every n-th input element, the n
 * rows of a group from one run of the input (a SPACE_TO_DEPTH's block of n:
 * a dimension of n <= 8 whose input stride times n is the innermost
 * dimension's), walks that dimension just outside the rows: the group's
 * rows then read their input lines while they are in L1, instead of in n
 * sweeps over the whole input, each dropping n - 1 of every n elements it
 * loads ([1, C, 2H, 1024] -> [1, 4C, H, 512], 64 MiB, 2-core VM: 0.18-0.48x
 * memcpy in output order, 0.30-0.86x so; with walk_runs_together and the
 * unzip, 1.23-1.56x). Outputs that stay in the caches walk so only blocks
 * of 2, the one-pass unzip (copy_row_run): 256 KiB to 4 MiB, 1- to 8-byte,
 * 0.45-0.65x -> 0.62-0.91x memcpy; larger blocks there were not measured.
 * Any walk order writes each element once. */
static int walk_interleaved(const dml_plan* p, int stream, dml_plan* order)
{
    const uint32_t inner = p->rank - 1;
    if (p->kind != DML_PLAN_GATHER || p->rank < 3 || p->out_strides[inner] != 1 || p->in_strides[inner] < 2)
        return 0;
    const uint64_t max_block = stream ? INTERLEAVED_MAX : 2;
    for (uint32_t k = 0; k + 2 <= inner; ++k) {
        int64_t span;
        if (p->sizes[k] < 2 || p->sizes[k] > max_block || p->in_strides[k] <= 0 ||
            __builtin_mul_overflow(p->in_strides[k], (int64_t)p->sizes[k], &span) || span != p->in_strides[inner])
            continue;
        *order = *p;
        for (uint32_t d = k; d + 2 <= inner; ++d) { /* k moves to inner - 1, the ones after it up by one */
            order->sizes[d] = p->sizes[d + 1];
            order->in_strides[d] = p->in_strides[d + 1];
            order->out_strides[d] = p->out_strides[d + 1];
            order->len_strides[d] = p->len_strides[d + 1];
        }
        order->sizes[inner - 1] = p->sizes[k];
        order->in_strides[inner - 1] = p->in_strides[k];
        order->out_strides[inner - 1] = p->out_strides[k];
        order->len_strides[inner - 1] = p->len_strides[k];
        walk_runs_together(order);
        return 1;
    }
    return 0;
}

unsigned dml_cpu_execute(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    const int stream = dml_cpu_plan_streams(plan, args);
    dml_plan reordered;
    if (walk_interleaved(plan, stream, &reordered))
        plan = &reordered;
    const uint64_t count = plan->element_count;
    const unsigned available = cpu_pool_threads(pool) < max_threads ? cpu_pool_threads(pool) : max_threads;
    const unsigned threads = dml_cpu_execute_threads(model, available, plan);
    if (threads < 2) {
        execute_range_of(plan, args, 0, count, stream);
        return 1;
    }
    split s = { plan, args, 0, 0, stream };
    uint64_t units = count;
    if (plan->kind == DML_PLAN_REVERSE_SUBSEQUENCES && (plan->element_size == 1 || plan->element_size == 2 ||
            plan->element_size == 4 || plan->element_size == 8) && dml_cpu_reverse_block_applies(plan)) {
        /* Every row of a group reads every input row: split the columns. */
        s.by_columns = 1;
        units = count / plan->axis_size;
        s.chunk = (units + threads - 1) / threads;
        s.chunk = (s.chunk + 63) / 64 * 64; /* whole cache lines of 1-byte columns */
    } else {
        s.chunk = (count + threads - 1) / threads;
        /* Cut at whole rows where that costs little balance (long memcpy runs,
         * fewer partial rows), else at 64 elements (whole cache lines). */
        const uint64_t row = plan->sizes[plan->rank - 1];
        const uint64_t grain = row <= s.chunk / 8 ? row : 64;
        s.chunk = (s.chunk + grain - 1) / grain * grain;
    }
    cpu_pool_run(pool, execute_chunk, &s, (unsigned)((units + s.chunk - 1) / s.chunk));
    return threads;
}

typedef struct range_split {
    const dml_plan* plan;
    const dml_plan_args* args;
    dml_cpu_range_fn fn;
    uint64_t chunk;
    int streamed; /* the output streams: staged (dml_cpu_run_range_staged), or by fn itself */
    int staged;
} range_split;

/* Whether flat output index i is element out_offset + i of the output
 * (its strides row-major over the sizes, no padding). */
static int output_is_dense(const dml_plan* p)
{
    uint64_t stride = 1;
    for (uint32_t d = p->rank; d-- > 0; stride *= p->sizes[d])
        if (p->out_strides[d] != (int64_t)stride)
            return 0;
    return 1;
}

/* Streamed dense outputs: fn writes pieces of the range into a buffer that
 * stays in L1 (a copy of the plan whose out_offset puts the piece's first
 * element at the buffer's start), and each piece is streamed out with
 * non-temporal stores, as the gathers' rows are (copy_row): the executors
 * keep their ordinary loops and none reads the output's lines first. Pieces
 * after the first start on 64-byte lines of the output. */
#define RANGE_STAGE_BYTES 8192u

/* Whether every element of the plan has the same value (a constant fill):
 * its pieces, each starting on an element, are then the same bytes. */
static int output_is_constant(const dml_plan* p)
{
    if (p->kind != DML_PLAN_FILL)
        return 0;
    for (uint32_t d = 0; d < p->rank; ++d)
        if (p->in_strides[d] != 0)
            return 0;
    return 1;
}

void dml_cpu_run_range_staged(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end,
    dml_cpu_range_fn fn)
{
    if (!output_is_dense(p)) {
        fn(p, args, begin, end);
        return;
    }
    _Alignas(64) byte stage[RANGE_STAGE_BYTES];
    const uint64_t E = p->element_size;
    dml_plan piece = *p;
    dml_plan_args staged = *args;
    staged.output = stage;
    staged.output_bytes = sizeof stage;
    byte* out = (byte*)args->output + (p->out_offset + (int64_t)begin) * (int64_t)E;
    const int constant = output_is_constant(p);
    uint64_t written = 0; /* constant plans: the elements the buffer holds already */
    for (uint64_t at = begin; at < end;) {
        /* up to the next line (a multiple of E: bindings are 16-byte aligned); a whole buffer from a line,
         * or should the output ever sit off its element alignment, so that every piece makes progress */
        const uint64_t to_line = (64 - ((uintptr_t)out & 63)) & 63;
        uint64_t n = (to_line >= E ? to_line : RANGE_STAGE_BYTES) / E;
        n = n < end - at ? n : end - at;
        if (!constant || n > written) {
            piece.out_offset = -(int64_t)at;
            fn(&piece, &staged, at, at + n);
            written = n;
        }
        dml_cpu_stream_copy(out, stage, n * E);
        out += n * E;
        at += n;
    }
    STREAM_FENCE(); /* non-temporal stores are visible to other threads after the fence */
}

static void run_range(const range_split* s, uint64_t begin, uint64_t end)
{
    if (s->staged) {
        dml_cpu_run_range_staged(s->plan, s->args, begin, end, s->fn);
        return;
    }
    s->fn(s->plan, s->args, begin, end);
    if (s->streamed)
        STREAM_FENCE(); /* fn's own non-temporal stores */
}

static void run_range_chunk(void* context, unsigned task)
{
    const range_split* s = context;
    const uint64_t begin = (uint64_t)task * s->chunk, count = s->plan->element_count;
    run_range(s, begin, count - begin < s->chunk ? count : begin + s->chunk);
}

/* Whether a plan's dense output goes out through the L1 buffer and
 * non-temporal stores. Not an indexed gather's: its rows come from random
 * places, and staging them costs more than the stores save (GATHER of
 * 256-byte rows at 64 MiB: 8.7 ms streamed, 7.5 ms not; 1 KiB rows even). */
static int output_streams(const dml_plan* plan, const dml_plan_args* args)
{
    return plan->kind != DML_PLAN_INDEXED && dml_cpu_plan_streams(plan, args) && output_is_dense(plan);
}

static unsigned run_split(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* plan, const dml_plan_args* args, uint64_t bytes, dml_cpu_range_fn fn, int fn_streams)
{
    const uint64_t count = plan->element_count;
    const unsigned available = cpu_pool_threads(pool) < max_threads ? cpu_pool_threads(pool) : max_threads;
    const dml_cpu_cost_model fallback = dml_cpu_cost_default();
    const unsigned threads = dml_cpu_cost_threads(model ? model : &fallback, bytes, available ? available : 1);
    range_split s = { plan, args, fn, (count + threads - 1) / threads, 0, 0 };
    s.streamed = fn_streams ? dml_cpu_plan_streams(plan, args) : output_streams(plan, args);
    s.staged = s.streamed && !fn_streams;
    if (threads < 2 || count < threads) {
        run_range(&s, 0, count);
        return 1;
    }
    const uint64_t row = plan->sizes[plan->rank - 1], line = 64 / plan->element_size;
    const uint64_t grain = row <= s.chunk / 8 ? row : line;
    s.chunk = (s.chunk + grain - 1) / grain * grain;
    cpu_pool_run(pool, run_range_chunk, &s, (unsigned)((count + s.chunk - 1) / s.chunk));
    return threads;
}

unsigned dml_cpu_run_split(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* plan, const dml_plan_args* args, uint64_t bytes, dml_cpu_range_fn fn)
{
    return run_split(pool, model, max_threads, plan, args, bytes, fn, 0);
}

unsigned dml_cpu_run_split_streaming(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* plan, const dml_plan_args* args, uint64_t bytes, dml_cpu_range_fn fn)
{
    return run_split(pool, model, max_threads, plan, args, bytes, fn, 1);
}

/* The plans of a group cover the same outer positions of one tensor (JOIN's
 * parts write sub-ranges of the output's rows, SPLIT's read sub-ranges of
 * the input's), so a group runs in slices: slice t is the same fraction
 * [t/T, (t+1)/T) of every plan. A slice touches the rows it shares across
 * the plans while they are in cache (run one plan after another, an
 * innermost SPLIT would stream its input from memory once per part), and
 * slices are the tasks the threads share. */
#define GROUP_SLICE_BYTES ((uint64_t)256 << 10)
#define GROUP_MAX_SLICES 4096u

typedef struct group_split {
    const dml_plan* const* plans;
    const dml_plan_args* args;
    uint32_t count;
    unsigned slices;
    int stream; /* the group's traffic together (dml_cpu_streams) */
} group_split;

/* Where slice t of n elements begins: a whole number of 64-element runs
 * (cache lines) from the start, n itself for t = slices. */
static uint64_t slice_begin(uint64_t n, unsigned t, unsigned slices)
{
    if (t >= slices)
        return n;
    uint64_t begin = (uint64_t)((unsigned __int128)n * t / slices);
    return begin / 64 * 64;
}

static void execute_group_slice(void* context, unsigned task)
{
    const group_split* g = context;
    for (uint32_t i = 0; i < g->count; ++i) {
        const uint64_t n = g->plans[i]->element_count;
        execute_range_of(g->plans[i], &g->args[i], slice_begin(n, task, g->slices),
            slice_begin(n, task + 1, g->slices), g->stream);
    }
}

unsigned dml_cpu_execute_group(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* const* plans, const dml_plan_args* args, uint32_t count)
{
    uint64_t bytes = 0, read = 0;
    for (uint32_t i = 0; i < count; ++i) { /* each plan's bytes fit its bound output: the sum cannot wrap */
        uint64_t plan_read;
        bytes += dml_cpu_plan_traffic(plans[i], &args[i], &plan_read);
        read = dml_cpu_add_saturated(read, plan_read);
    }
    const dml_cpu_cost_model fallback = dml_cpu_cost_default();
    const unsigned available = cpu_pool_threads(pool) < max_threads ? cpu_pool_threads(pool) : max_threads;
    const unsigned threads = dml_cpu_cost_threads(model ? model : &fallback, bytes, available);
    uint64_t slices = (bytes + GROUP_SLICE_BYTES - 1) / GROUP_SLICE_BYTES;
    slices = slices < threads ? threads : slices > GROUP_MAX_SLICES ? GROUP_MAX_SLICES : slices;
    group_split g = { plans, args, count, (unsigned)(slices ? slices : 1), dml_cpu_streams(bytes, read) };
    if (threads < 2) {
        for (unsigned t = 0; t < g.slices; ++t)
            execute_group_slice(&g, t);
        return 1;
    }
    cpu_pool_run(pool, execute_group_slice, &g, g.slices);
    return threads;
}
