/*
 * cpu_reverse_select.c — the column-block reversal's vector kernel for short
 * axes (cpu_reverse_select.h): every column of a vector reversed at once,
 * whatever its length, in about log2(T) + 1 selects per output vector.
 *
 * Output row a of column j is input row L_j - 1 - a when a < L_j, else row a.
 * Read the T input rows of a vector of columns bottom up, x[i] = row T-1-i:
 * then for a < L_j the output is x[a + (T - L_j)], the reversed column
 * shifted up by d_j = T - L_j, a distance that differs from lane to lane. A
 * barrel shifter does that in log2(P) steps (P: T rounded up to a power of
 * two): step k moves x[a + k] into x[a] in the lanes whose d has bit k set.
 * A last select per row takes the straight row a in the lanes where a >= L_j.
 * Each step's selects are independent of each other (no chain through the
 * rows), the masks come from the lengths once per vector of columns, and
 * rows past T are zeros that no kept lane reaches (a + d_j < T).
 *
 * For T = 16 that is 49 shifting selects and 16 final ones for 16 output
 * vectors: about 4 per vector, where comparing each row against each length
 * took T / 2 dependent ones (0.2x memcpy at 256 KiB in dmlbench). The lengths
 * arrive as 32-bit values and are narrowed to the element width once per
 * vector of columns (they are at most T <= 64).
 *
 * The rows are first packed into the caller's stack buffer, P - T zero rows
 * then the T input rows, some vectors of columns at a time: read in place,
 * rows a power of two apart share cache sets and evict each other before the
 * selects are done with them.
 */
#include "cpu_reverse_select.h"

#include "cpu_simd.h"

/* Helpers inlined into one instantiation per element size and P. */
#define KERNEL_512 DML_TARGET_AVX512 static inline __attribute__((always_inline))
#define KERNEL_256 DML_TARGET_AVX2 static inline __attribute__((always_inline))

/* Full unrolling keeps a column's P row vectors in registers. Sanitized
 * builds keep the loops (same results): fully unrolled, UBSan's checks took
 * clang minutes to compile this file. */
#define DML_PRAGMA(text) _Pragma(#text)
#ifdef DML_SANITIZED
#define UNROLL(n)
#else
#define UNROLL(n) DML_PRAGMA(GCC unroll n)
#endif

/* One instantiation per element size and P. */
#define SELECT_BY_P(select, b, E)                                                                  \
    ((b)->T <= 2 ? select(b, E, 2) : (b)->T <= 4 ? select(b, E, 4) : (b)->T <= 8 ? select(b, E, 8)        \
        : (b)->T <= 16 ? select(b, E, 16) : (b)->T <= 32 ? select(b, E, 32) : select(b, E, 64))

/* While row `row` of the block is packed, the row PREFETCH_ROWS further
 * down, if the block has it: the hardware's prefetchers lose track of 16 and
 * more rows read in turn (about 10% less time for 1-byte [16, 4M] on one
 * thread). Not further ahead: rows a power of two apart share cache sets, and
 * a few rows of one column fill a set. */
#define PREFETCH_ROWS 4

static inline void prefetch_ahead(const unsigned char* from, int64_t in_row, uint64_t row, uint64_t T,
    uint64_t bytes)
{
    if (row + PREFETCH_ROWS >= T)
        return;
    const unsigned char* p = from + PREFETCH_ROWS * in_row;
    for (uint64_t x = 0; x < bytes; x += 64)
        __builtin_prefetch(p + x);
}

#ifdef DML_CPU_AVX512

/* The lengths of 64 / E columns starting at column j, in lanes of E bytes. */
KERNEL_512 __m512i lengths_512(const uint32_t* L, uint64_t j, size_t E)
{
    switch (E) {
    case 1: {
        const __m128i q0 = _mm512_cvtepi32_epi8(_mm512_loadu_si512(L + j));
        const __m128i q1 = _mm512_cvtepi32_epi8(_mm512_loadu_si512(L + j + 16));
        const __m128i q2 = _mm512_cvtepi32_epi8(_mm512_loadu_si512(L + j + 32));
        const __m128i q3 = _mm512_cvtepi32_epi8(_mm512_loadu_si512(L + j + 48));
        const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(q0), q1, 1);
        const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(q2), q3, 1);
        return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    }
    case 2: {
        const __m256i lo = _mm512_cvtepi32_epi16(_mm512_loadu_si512(L + j));
        const __m256i hi = _mm512_cvtepi32_epi16(_mm512_loadu_si512(L + j + 16));
        return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    }
    case 4: return _mm512_loadu_si512(L + j);
    default: return _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i*)(const void*)(L + j)));
    }
}

/* Per-lane operations in lanes of E bytes; masks hold one bit per lane. */
KERNEL_512 __m512i set1_512(uint64_t v, size_t E)
{
    switch (E) {
    case 1: return _mm512_set1_epi8((char)v);
    case 2: return _mm512_set1_epi16((short)v);
    case 4: return _mm512_set1_epi32((int)v);
    default: return _mm512_set1_epi64((long long)v);
    }
}

KERNEL_512 __m512i sub_512(__m512i x, __m512i y, size_t E)
{
    switch (E) {
    case 1: return _mm512_sub_epi8(x, y);
    case 2: return _mm512_sub_epi16(x, y);
    case 4: return _mm512_sub_epi32(x, y);
    default: return _mm512_sub_epi64(x, y);
    }
}

KERNEL_512 __m512i add_512(__m512i x, __m512i y, size_t E)
{
    switch (E) {
    case 1: return _mm512_add_epi8(x, y);
    case 2: return _mm512_add_epi16(x, y);
    case 4: return _mm512_add_epi32(x, y);
    default: return _mm512_add_epi64(x, y);
    }
}

/* Lanes where x & y != 0. */
KERNEL_512 __mmask64 test_512(__m512i x, __m512i y, size_t E)
{
    switch (E) {
    case 1: return _mm512_test_epi8_mask(x, y);
    case 2: return _mm512_test_epi16_mask(x, y);
    case 4: return _mm512_test_epi32_mask(x, y);
    default: return _mm512_test_epi64_mask(x, y);
    }
}

/* Lanes where x > y, unsigned. */
KERNEL_512 __mmask64 greater_512(__m512i x, __m512i y, size_t E)
{
    switch (E) {
    case 1: return _mm512_cmpgt_epu8_mask(x, y);
    case 2: return _mm512_cmpgt_epu16_mask(x, y);
    case 4: return _mm512_cmpgt_epu32_mask(x, y);
    default: return _mm512_cmpgt_epu64_mask(x, y);
    }
}

/* m ? y : x, lane by lane. */
KERNEL_512 __m512i select_512(__m512i x, __mmask64 m, __m512i y, size_t E)
{
    switch (E) {
    case 1: return _mm512_mask_mov_epi8(x, m, y);
    case 2: return _mm512_mask_mov_epi16(x, (__mmask32)m, y);
    case 4: return _mm512_mask_mov_epi32(x, (__mmask16)m, y);
    default: return _mm512_mask_mov_epi64(x, (__mmask8)m, y);
    }
}

/* One vector of columns, from packed rows: P - T zero rows, then the T
 * input rows (row_bytes apart). Writes the T output rows. */
KERNEL_512 void column_512(const unsigned char* packed, uint64_t row_bytes, const uint32_t* lengths,
    unsigned char* out, int64_t out_row, uint64_t T, size_t E, unsigned P, int stream)
{
    /* x[i] = input row T - 1 - i, zeros past T */
    __m512i x[DML_CPU_SELECT_MAX_T];
UNROLL(64)
    for (unsigned i = 0; i < P; i++)
        x[i] = _mm512_load_si512(packed + (P - 1 - i) * row_bytes);
    const __m512i L = lengths_512(lengths, 0, E);
    const __m512i d = sub_512(set1_512(T, E), L, E); /* T when L = 0: no row takes it */
UNROLL(8)
    for (unsigned k = 1; k < P; k <<= 1) {
        const __mmask64 m = test_512(d, set1_512(k, E), E);
UNROLL(64)
        for (unsigned a = 0; a + k < P; a++)
            x[a] = select_512(x[a], m, x[a + k], E);
    }
    const unsigned char* straight = packed + (P - T) * row_bytes;
    const __m512i one = set1_512(1, E);
    __m512i row = _mm512_setzero_si512(); /* a in every lane */
UNROLL(64)
    for (unsigned a = 0; a < P; a++, straight += row_bytes, out += out_row) {
        if (a >= T)
            break;
        const __m512i v = select_512(_mm512_load_si512(straight), greater_512(L, row, E), x[a], E);
        row = add_512(row, one, E);
        if (stream)
            _mm512_stream_si512((void*)out, v);
        else
            _mm512_storeu_si512(out, v);
    }
}

KERNEL_512 uint64_t select_avx512(const dml_cpu_select_block* b, size_t E, unsigned P)
{
    const uint64_t T = b->T, vectors = b->cols * E / 64;
    const uint64_t chunk = DML_CPU_SELECT_SCRATCH_BYTES / (P * 64); /* vectors packed at once */
    const int stream = b->stream && ((uintptr_t)b->out & 63) == 0 && (b->out_row & 63) == 0;
    for (uint64_t v0 = 0; v0 < vectors; v0 += chunk) {
        const uint64_t n = vectors - v0 < chunk ? vectors - v0 : chunk, row_bytes = n * 64;
        for (uint64_t r = 0; r < P; r++) {
            unsigned char* to = b->scratch + r * row_bytes;
            if (r < P - T) {
                for (uint64_t x = 0; x < row_bytes; x += 64)
                    _mm512_store_si512(to + x, _mm512_setzero_si512());
                continue;
            }
            const uint64_t row = r - (P - T);
            const unsigned char* from = b->in + (int64_t)row * b->in_row + v0 * 64;
            prefetch_ahead(from, b->in_row, row, b->T, row_bytes);
            for (uint64_t x = 0; x < row_bytes; x += 64)
                _mm512_store_si512(to + x, _mm512_loadu_si512(from + x));
        }
        for (uint64_t v = 0; v < n; v++) /* stream as a constant: one loop each */
            if (stream)
                column_512(b->scratch + v * 64, row_bytes, b->lengths + (v0 + v) * 64 / E, b->out + (v0 + v) * 64,
                    b->out_row, T, E, P, 1);
            else
                column_512(b->scratch + v * 64, row_bytes, b->lengths + (v0 + v) * 64 / E, b->out + (v0 + v) * 64,
                    b->out_row, T, E, P, 0);
    }
    return vectors * 64 / E;
}

DML_TARGET_AVX512 uint64_t dml_cpu_select_avx512(const dml_cpu_select_block* b, size_t E)
{
    switch (E) {
    case 1: return SELECT_BY_P(select_avx512, b, 1);
    case 2: return SELECT_BY_P(select_avx512, b, 2);
    case 4: return SELECT_BY_P(select_avx512, b, 4);
    case 8: return SELECT_BY_P(select_avx512, b, 8);
    default: return 0;
    }
}

DML_TARGET_AVX512 uint64_t dml_cpu_clamp_lengths_avx512(uint32_t* L, const void* lengths, uint64_t count, uint32_t T,
    size_t LS)
{
    uint64_t k = 0;
    if (LS == 4) {
        const __m512i limit = _mm512_set1_epi32((int)T);
        for (; k + 16 <= count; k += 16)
            _mm512_storeu_si512(L + k, _mm512_min_epu32(_mm512_loadu_si512((const uint32_t*)lengths + k), limit));
    } else {
        const __m512i limit = _mm512_set1_epi64((long long)T);
        for (; k + 8 <= count; k += 8)
            _mm256_storeu_si256((__m256i*)(void*)(L + k),
                _mm512_cvtepi64_epi32(_mm512_min_epu64(_mm512_loadu_si512((const uint64_t*)lengths + k), limit)));
    }
    return k;
}
#endif

#ifdef DML_CPU_AVX2

/* The lengths of 32 / E columns starting at column j, in lanes of E bytes
 * (the values fit: at most 64). */
KERNEL_256 __m256i lengths_256(const uint32_t* L, uint64_t j, size_t E)
{
    const __m256i* v = (const __m256i*)(const void*)(L + j);
    switch (E) {
    case 1: {
        /* The packs work within 128-bit halves: bytes come out as 0-3 8-11
         * 16-19 24-27 | 4-7 12-15 20-23 28-31, put back in order by dwords. */
        const __m256i ab = _mm256_packus_epi32(_mm256_loadu_si256(v), _mm256_loadu_si256(v + 1));
        const __m256i cd = _mm256_packus_epi32(_mm256_loadu_si256(v + 2), _mm256_loadu_si256(v + 3));
        return _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    }
    case 2: {
        const __m256i ab = _mm256_packus_epi32(_mm256_loadu_si256(v), _mm256_loadu_si256(v + 1));
        return _mm256_permute4x64_epi64(ab, 0xD8); /* quadwords 0 2 1 3 */
    }
    case 4: return _mm256_loadu_si256(v);
    default: return _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i*)(const void*)(L + j)));
    }
}

KERNEL_256 __m256i set1_256(uint64_t v, size_t E)
{
    switch (E) {
    case 1: return _mm256_set1_epi8((char)v);
    case 2: return _mm256_set1_epi16((short)v);
    case 4: return _mm256_set1_epi32((int)v);
    default: return _mm256_set1_epi64x((long long)v);
    }
}

KERNEL_256 __m256i sub_256(__m256i x, __m256i y, size_t E)
{
    switch (E) {
    case 1: return _mm256_sub_epi8(x, y);
    case 2: return _mm256_sub_epi16(x, y);
    case 4: return _mm256_sub_epi32(x, y);
    default: return _mm256_sub_epi64(x, y);
    }
}

KERNEL_256 __m256i add_256(__m256i x, __m256i y, size_t E)
{
    switch (E) {
    case 1: return _mm256_add_epi8(x, y);
    case 2: return _mm256_add_epi16(x, y);
    case 4: return _mm256_add_epi32(x, y);
    default: return _mm256_add_epi64(x, y);
    }
}

KERNEL_256 __m256i equal_256(__m256i x, __m256i y, size_t E)
{
    switch (E) {
    case 1: return _mm256_cmpeq_epi8(x, y);
    case 2: return _mm256_cmpeq_epi16(x, y);
    case 4: return _mm256_cmpeq_epi32(x, y);
    default: return _mm256_cmpeq_epi64(x, y);
    }
}

/* Lanes where x > y (signed: the values are at most 64). */
KERNEL_256 __m256i greater_256(__m256i x, __m256i y, size_t E)
{
    switch (E) {
    case 1: return _mm256_cmpgt_epi8(x, y);
    case 2: return _mm256_cmpgt_epi16(x, y);
    case 4: return _mm256_cmpgt_epi32(x, y);
    default: return _mm256_cmpgt_epi64(x, y);
    }
}

/* As column_512, with all-ones lanes for masks, and without non-temporal
 * stores: a 32-byte one fills half a line, and the other half comes only
 * after T other rows' stores, so the write-combining buffers flush partial
 * lines (a [16, 4M] reversal on one thread took 1.8x the time of plain
 * stores). */
KERNEL_256 void column_256(const unsigned char* packed, uint64_t row_bytes, const uint32_t* lengths,
    unsigned char* out, int64_t out_row, uint64_t T, size_t E, unsigned P)
{
    __m256i x[DML_CPU_SELECT_MAX_T];
UNROLL(64)
    for (unsigned i = 0; i < P; i++)
        x[i] = _mm256_load_si256((const __m256i*)(const void*)(packed + (P - 1 - i) * row_bytes));
    const __m256i L = lengths_256(lengths, 0, E);
    const __m256i d = sub_256(set1_256(T, E), L, E);
UNROLL(8)
    for (unsigned k = 1; k < P; k <<= 1) {
        const __m256i bit = set1_256(k, E);
        const __m256i m = equal_256(_mm256_and_si256(d, bit), bit, E);
UNROLL(64)
        for (unsigned a = 0; a + k < P; a++)
            x[a] = _mm256_blendv_epi8(x[a], x[a + k], m);
    }
    const unsigned char* straight = packed + (P - T) * row_bytes;
    const __m256i one = set1_256(1, E);
    __m256i row = _mm256_setzero_si256(); /* a in every lane */
UNROLL(64)
    for (unsigned a = 0; a < P; a++, straight += row_bytes, out += out_row) {
        if (a >= T)
            break;
        const __m256i v = _mm256_blendv_epi8(_mm256_load_si256((const __m256i*)(const void*)straight), x[a],
            greater_256(L, row, E));
        row = add_256(row, one, E);
        _mm256_storeu_si256((__m256i*)(void*)out, v);
    }
}

KERNEL_256 uint64_t select_avx2(const dml_cpu_select_block* b, size_t E, unsigned P)
{
    const uint64_t T = b->T, vectors = b->cols * E / 32;
    const uint64_t chunk = DML_CPU_SELECT_SCRATCH_BYTES / (P * 32);
    for (uint64_t v0 = 0; v0 < vectors; v0 += chunk) { /* as select_avx512 */
        const uint64_t n = vectors - v0 < chunk ? vectors - v0 : chunk, row_bytes = n * 32;
        for (uint64_t r = 0; r < P; r++) {
            unsigned char* to = b->scratch + r * row_bytes;
            const unsigned char* from = b->in + (int64_t)(r - (P - T)) * b->in_row + v0 * 32;
            if (r >= P - T)
                prefetch_ahead(from, b->in_row, r - (P - T), T, row_bytes);
            for (uint64_t x = 0; x < row_bytes; x += 32)
                _mm256_store_si256((__m256i*)(void*)(to + x),
                    r < P - T ? _mm256_setzero_si256() : _mm256_loadu_si256((const __m256i*)(const void*)(from + x)));
        }
        for (uint64_t v = 0; v < n; v++)
            column_256(b->scratch + v * 32, row_bytes, b->lengths + (v0 + v) * 32 / E, b->out + (v0 + v) * 32,
                b->out_row, T, E, P);
    }
    return vectors * 32 / E;
}

DML_TARGET_AVX2 uint64_t dml_cpu_select_avx2(const dml_cpu_select_block* b, size_t E)
{
    switch (E) {
    case 1: return SELECT_BY_P(select_avx2, b, 1);
    case 2: return SELECT_BY_P(select_avx2, b, 2);
    case 4: return SELECT_BY_P(select_avx2, b, 4);
    case 8: return SELECT_BY_P(select_avx2, b, 8);
    default: return 0;
    }
}

DML_TARGET_AVX2 uint64_t dml_cpu_clamp_lengths_avx2(uint32_t* L, const void* lengths, uint64_t count, uint32_t T,
    size_t LS)
{
    uint64_t k = 0;
    if (LS == 4) {
        const __m256i limit = _mm256_set1_epi32((int)T);
        for (; k + 8 <= count; k += 8) {
            const __m256i v = _mm256_loadu_si256((const __m256i*)(const void*)((const uint32_t*)lengths + k));
            _mm256_storeu_si256((__m256i*)(void*)(L + k), _mm256_min_epu32(v, limit));
        }
    } else {
        /* No unsigned 64-bit compare: flip the sign bits and compare signed. */
        const __m256i sign = _mm256_set1_epi64x(INT64_MIN), limit = _mm256_set1_epi64x((long long)T);
        const __m256i limit_flipped = _mm256_xor_si256(limit, sign);
        const __m256i low_dwords = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
        for (; k + 4 <= count; k += 4) {
            const __m256i v = _mm256_loadu_si256((const __m256i*)(const void*)((const uint64_t*)lengths + k));
            const __m256i over = _mm256_cmpgt_epi64(_mm256_xor_si256(v, sign), limit_flipped);
            const __m256i clamped = _mm256_permutevar8x32_epi32(_mm256_blendv_epi8(v, limit, over), low_dwords);
            _mm_storeu_si128((__m128i*)(void*)(L + k), _mm256_castsi256_si128(clamped));
        }
    }
    return k;
}
#endif
