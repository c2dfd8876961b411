/*
 * cpu_transpose_avx512.c — see cpu_transpose_avx512.h.
 *
 * A column group is the 64/E input columns one output line per row needs.
 * Its runs (rows * E bytes of each column) are first copied into a packed
 * buffer, one after the other, each read upwards: the input is read in
 * runs of several lines however far apart its columns are (columns a
 * multiple of 4 KiB apart would otherwise all fall in one L1 set, more of
 * them than it has ways), and the tiles read at constant offsets.
 */
#include "cpu_transpose_avx512.h"
#include "cpu_simd.h"

#include <string.h>

#include "cpu_transpose_rounds.h"

#ifdef DML_CPU_AVX512

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef unsigned char byte;

/* Four 16-byte-lane transposes side by side. */
DML_TARGET_AVX512 ALWAYS_INLINE void transpose_lanes(__m512i* v, size_t E)
{
    DML_TRANSPOSE_LANES(__m512i, _mm512_, v, E);
}

#define LOAD16(p) _mm_loadu_si128((const __m128i*)(const void*)(p))

/* Output rows r0 .. r0 + V, columns c0 .. c0 + 4V: vector k gathers, in
 * its lane l, 16 bytes of input column c0 + lV + k from row r0. After the
 * lanes' transposes vector k is output row r0 + k, all 4V columns. in
 * points at (r0, c0); pitch: elements between input columns. */
DML_TARGET_AVX512 ALWAYS_INLINE void tile(byte* out, int64_t os, const byte* in, int64_t pitch, size_t E, int nt)
{
    enum { MAX_V = 16 };
    const unsigned V = (unsigned)(16 / E);
    const int64_t step = pitch * (int64_t)E;
    __m512i v[MAX_V];
    for (unsigned k = 0; k < V; k++) {
        const byte* p = in + (int64_t)k * step;
        __m512i x = _mm512_castsi128_si512(LOAD16(p));
        x = _mm512_inserti32x4(x, LOAD16(p + (int64_t)V * step), 1);
        x = _mm512_inserti32x4(x, LOAD16(p + (int64_t)(2 * V) * step), 2);
        v[k] = _mm512_inserti32x4(x, LOAD16(p + (int64_t)(3 * V) * step), 3);
    }
    transpose_lanes(v, E);
    for (unsigned k = 0; k < V; k++) {
        byte* q = out + (int64_t)k * os * (int64_t)E;
        if (nt)
            _mm512_stream_si512((void*)q, v[k]);
        else
            _mm512_storeu_si512((void*)q, v[k]);
    }
}

/* Bytes between packed columns: a constant, so a tile's loads are one base
 * register plus constant offsets (with the input's own pitch a tile needs a
 * register per column and spills: 3.5x slower in cache); one line more than
 * the longest run, so a tile's lines spread over more L1 sets. */
#define PACK_PITCH(E) (DML_CPU_TRANSPOSE_RUN_BYTES(E) + 64u)
/* The pack buffer: the largest group's runs (64 / E columns of PACK_PITCH(E)). */
#define PACK_BYTES (64u * PACK_PITCH(1))
_Static_assert(32u * PACK_PITCH(2) <= PACK_BYTES && 16u * PACK_PITCH(4) <= PACK_BYTES &&
        8u * PACK_PITCH(8) <= PACK_BYTES, "every group's runs fit the pack buffer");

/* Asks for a column group's runs into L2 while the group before it is
 * transposed: the input is read in runs of a few lines 64 KiB apart, which
 * alone ran at half memcpy's pace, and L1 prefetches (or none) left the
 * reads and the tiles' work one after the other (64 MiB 1-byte: 12 ms ->
 * 9.4 ms with L2 prefetches, memcpy 7.5-8.4 ms, CPU time of one thread). */
DML_TARGET_AVX512 ALWAYS_INLINE void prefetch_group(const byte* group, int64_t is, size_t run, uint64_t G, size_t E)
{
    for (uint64_t k = 0; k < G; k++)
        for (size_t b = 0; b < run; b += 64)
            _mm_prefetch((const char*)group + (int64_t)k * is * (int64_t)E + b, _MM_HINT_T1);
}

DML_TARGET_AVX512 ALWAYS_INLINE void transpose(byte* out, int64_t os, const byte* in, int64_t is, uint64_t rows,
    uint64_t cols, size_t E, int stream)
{
    const uint64_t G = 64 / E, V = 16 / E;
    const size_t run = (size_t)rows * E; /* <= DML_CPU_TRANSPOSE_RUN_BYTES(E) */
    /* Non-temporal stores only of whole, aligned lines. */
    const int nt = stream && ((uintptr_t)out & 63) == 0 && ((uint64_t)os * E & 63) == 0;
    /* 4- and 8-byte groups have few enough columns to keep a register
     * each, and read the input where it is unless their lines share an L1
     * set (256 KiB 8-byte transposes: packing cost 1.2x). */
    const int packs = E <= 2 || ((uint64_t)(is < 0 ? -is : is) * E & 4095) == 0;
    _Alignas(64) byte pack[PACK_BYTES];
    for (uint64_t c0 = 0; c0 < cols; c0 += G) {
        const byte* src = in + (int64_t)c0 * is * (int64_t)E;
        byte* dst = out + c0 * E;
        if (c0 + G < cols)
            prefetch_group(src + (int64_t)G * is * (int64_t)E, is, run, G, E);
        if (!packs) {
            for (uint64_t r0 = 0; r0 < rows; r0 += V)
                tile(dst + (int64_t)r0 * os * (int64_t)E, os, src + r0 * E, is, E, nt);
            continue;
        }
        for (uint64_t k = 0; k < G; k++)
            memcpy(pack + k * PACK_PITCH(E), src + (int64_t)k * is * (int64_t)E, run);
        if (nt) {
            for (uint64_t r0 = 0; r0 < rows; r0 += V)
                tile(dst + (int64_t)r0 * os * (int64_t)E, os, pack + r0 * E, PACK_PITCH(E) / E, E, 1);
        } else {
            for (uint64_t r0 = 0; r0 < rows; r0 += V)
                tile(dst + (int64_t)r0 * os * (int64_t)E, os, pack + r0 * E, PACK_PITCH(E) / E, E, 0);
        }
    }
}

DML_TARGET_AVX512 static void transpose_sized(byte* out, int64_t os, const byte* in, int64_t is, uint64_t rows,
    uint64_t cols, size_t E, int stream)
{
    switch (E) {
    case 1: transpose(out, os, in, is, rows, cols, 1, stream); break;
    case 2: transpose(out, os, in, is, rows, cols, 2, stream); break;
    case 4: transpose(out, os, in, is, rows, cols, 4, stream); break;
    default: transpose(out, os, in, is, rows, cols, 8, stream); break;
    }
}

int dml_cpu_transpose_avx512(unsigned char* out, int64_t os, const unsigned char* in, int64_t is, uint64_t rows,
    uint64_t cols, size_t E, int stream)
{
    if (!have_avx512() || (E != 1 && E != 2 && E != 4 && E != 8))
        return 0;
    transpose_sized(out, os, in, is, rows, cols, E, stream);
    return 1;
}

#else

int dml_cpu_transpose_avx512(unsigned char* out, int64_t os, const unsigned char* in, int64_t is, uint64_t rows,
    uint64_t cols, size_t E, int stream)
{
    (void)out, (void)os, (void)in, (void)is, (void)rows, (void)cols, (void)E, (void)stream;
    return 0;
}

#endif
