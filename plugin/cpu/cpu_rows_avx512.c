/*
 * cpu_rows_avx512.c — see cpu_rows_avx512.h.
 *
 * One 64-byte vector of output per step: a load (two for stride +-2) and
 * one permute by a constant index vector (vpermb/vpermt2b for bytes with
 * VBMI; vpermw, vpermd, vpermq and their two-source forms otherwise).
 */
#include "cpu_rows_avx512.h"

#include <string.h>

#include "cpu_simd.h"

#ifdef DML_CPU_AVX512

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef unsigned char byte;

/* Rows that read their input downwards (reversed, stride -2) are walked
 * from their end, so that the input is read upwards: the hardware
 * prefetcher falls behind downward walks (the AVX2 stride -2 loop measured
 * this first for rows under a page; cpu_rows_avx2.c). */

/* Lane i holds i, in lanes of E bytes. */
DML_TARGET_AVX512 ALWAYS_INLINE __m512i lane_iota(size_t E)
{
    const __m512i bytes = _mm512_set_epi64(0x3f3e3d3c3b3a3938LL, 0x3736353433323130LL, 0x2f2e2d2c2b2a2928LL,
        0x2726252423222120LL, 0x1f1e1d1c1b1a1918LL, 0x1716151413121110LL, 0x0f0e0d0c0b0a0908LL, 0x0706050403020100LL);
    if (E == 1)
        return bytes;
    if (E == 2)
        return _mm512_cvtepu8_epi16(_mm512_castsi512_si256(bytes));
    if (E == 4)
        return _mm512_cvtepu8_epi32(_mm512_castsi512_si128(bytes));
    return _mm512_cvtepu8_epi64(_mm512_castsi512_si128(bytes));
}

DML_TARGET_AVX512 ALWAYS_INLINE __m512i lane_set1(int x, size_t E)
{
    if (E == 1)
        return _mm512_set1_epi8((char)x);
    if (E == 2)
        return _mm512_set1_epi16((short)x);
    if (E == 4)
        return _mm512_set1_epi32(x);
    return _mm512_set1_epi64(x);
}

DML_TARGET_AVX512 ALWAYS_INLINE __m512i lane_add(__m512i a, __m512i b, size_t E)
{
    if (E == 1)
        return _mm512_add_epi8(a, b);
    if (E == 2)
        return _mm512_add_epi16(a, b);
    if (E == 4)
        return _mm512_add_epi32(a, b);
    return _mm512_add_epi64(a, b);
}

DML_TARGET_AVX512 ALWAYS_INLINE __m512i lane_sub(__m512i a, __m512i b, size_t E)
{
    if (E == 1)
        return _mm512_sub_epi8(a, b);
    if (E == 2)
        return _mm512_sub_epi16(a, b);
    if (E == 4)
        return _mm512_sub_epi32(a, b);
    return _mm512_sub_epi64(a, b);
}

/* a + 1 in the lanes where i >= x. */
DML_TARGET_AVX512 ALWAYS_INLINE __m512i lane_inc_where_ge(__m512i a, __m512i i, int x, size_t E)
{
    const __m512i one = lane_set1(1, E), limit = lane_set1(x, E);
    if (E == 1)
        return _mm512_mask_add_epi8(a, _mm512_cmpge_epu8_mask(i, limit), a, one);
    if (E == 2)
        return _mm512_mask_add_epi16(a, _mm512_cmpge_epu16_mask(i, limit), a, one);
    if (E == 4)
        return _mm512_mask_add_epi32(a, _mm512_cmpge_epu32_mask(i, limit), a, one);
    return _mm512_mask_add_epi64(a, _mm512_cmpge_epu64_mask(i, limit), a, one);
}

/* Output lane i of a reversed vector takes input lane V - 1 - i. */
DML_TARGET_AVX512 ALWAYS_INLINE __m512i reverse_index(size_t E)
{
    return lane_sub(lane_set1((int)(64 / E) - 1, E), lane_iota(E), E);
}

/* Stride +-2 picks every other element of two loads, a = p[0 .. V) and
 * b = p[V .. 2V) (concatenated: index j is p[j]), p the lowest element the
 * block reads. Forward, p = src + 2k and lane i takes p[2i]. Backward,
 * p = src - 2(k + V - 1) - 1 and lane i takes src[-2(k + i)] = p[2V - 1 - 2i].
 *
 * The block at the row's far end (k = n - V) would read one element past
 * the row's span that way (forward p[2V - 1], backward p[0]); it loads
 * a = p[0 .. V) and b = p[V - 1 .. 2V - 1) from p = src + 2k (backward
 * p = src - 2(k + V - 1)) instead: forward lane i takes index 2i below V/2
 * and 2i + 1 above; backward 2V - 1 - 2i below V/2 and 2V - 2 - 2i above. */
DML_TARGET_AVX512 ALWAYS_INLINE __m512i stride2_index(size_t E, int backward, int last)
{
    const int V = (int)(64 / E);
    const __m512i i = lane_iota(E), twice = lane_add(i, i, E);
    const __m512i upper_half = last ? lane_inc_where_ge(lane_set1(0, E), i, V / 2, E) : lane_set1(0, E);
    if (!backward)
        return lane_add(twice, upper_half, E);
    return lane_sub(lane_sub(lane_set1(2 * V - 1, E), twice, E), upper_half, E);
}

DML_TARGET_AVX512 ALWAYS_INLINE __m512i permute(__m512i index, __m512i v, size_t E)
{
    if (E == 1) { /* without VBMI: bytes reversed inside 16-byte lanes, then the lanes */
        const __m512i in_lane = _mm512_sub_epi8(_mm512_set1_epi8(15),
            _mm512_and_si512(lane_iota(1), _mm512_set1_epi8(15)));
        (void)index;
        v = _mm512_shuffle_epi8(v, in_lane);
        return _mm512_shuffle_i64x2(v, v, _MM_SHUFFLE(0, 1, 2, 3));
    }
    if (E == 2)
        return _mm512_permutexvar_epi16(index, v);
    if (E == 4)
        return _mm512_permutexvar_epi32(index, v);
    return _mm512_permutexvar_epi64(index, v);
}

DML_TARGET_AVX512_VBMI ALWAYS_INLINE __m512i permute_vbmi(__m512i index, __m512i v, size_t E)
{
    return E == 1 ? _mm512_permutexvar_epi8(index, v) : permute(index, v, E);
}

/* Only reached for E > 1 (1-byte stride +-2 needs VBMI). */
DML_TARGET_AVX512 ALWAYS_INLINE __m512i permute2(__m512i a, __m512i index, __m512i b, size_t E)
{
    if (E == 2)
        return _mm512_permutex2var_epi16(a, index, b);
    if (E == 4)
        return _mm512_permutex2var_epi32(a, index, b);
    return _mm512_permutex2var_epi64(a, index, b);
}

DML_TARGET_AVX512_VBMI ALWAYS_INLINE __m512i permute2_vbmi(__m512i a, __m512i index, __m512i b, size_t E)
{
    return E == 1 ? _mm512_permutex2var_epi8(a, index, b) : permute2(a, index, b, E);
}





/* Forward stride +2 asks for the input 512 bytes ahead into L2: with
 * aligned 64-byte loads alone it ran 1.7x slower than stride -2 at 64 MiB
 * (whose loads straddle lines and so reach the next line early); an L1
 * prefetch 256 bytes ahead recovered most of that, this one a little more
 * (64 MiB, one thread's CPU time: 1-byte 12.9-14.6 -> 10.3-11.0 ms; the
 * AVX2 loop, which cpu_execute.c takes there now, 7.1-8.3 ms). The
 * backward loop needs none. Never beyond the row's span. */
#define PREFETCH_BYTES 512

#define LOAD(p) _mm512_loadu_si512((const void*)(p))
#define STORE(p, v) _mm512_storeu_si512((void*)(p), (v))

/* Blocks of V elements at k = n - V, n - 2V, .. and an overlapping last
 * one at 0 (walk_down), or at 0, V, .. and an overlapping last one at
 * n - V. n >= V. */
#define FOR_EACH_BLOCK(k, n, V, walk_down, BODY)                    \
    do {                                                            \
        if (walk_down) {                                            \
            for (uint64_t k = (n) - (V);; k = k > (V) ? k - (V) : 0) { \
                BODY;                                               \
                if (k == 0)                                         \
                    break;                                          \
            }                                                       \
        } else {                                                    \
            uint64_t k = 0;                                         \
            for (; k + (V) <= (n); k += (V)) {                      \
                BODY;                                               \
            }                                                       \
            if (k < (n)) {                                          \
                k = (n) - (V);                                      \
                BODY;                                               \
            }                                                       \
        }                                                           \
    } while (0)

#define REVERSE_ROW(PERMUTE)                                                                                  \
    do {                                                                                                      \
        const uint64_t V = 64 / E;                                                                            \
        if (n < V)                                                                                            \
            return 0;                                                                                         \
        const __m512i index = reverse_index(E);                                                               \
        FOR_EACH_BLOCK(k, n, V, 1,                                              \
            STORE(dst + k * E, PERMUTE(index, LOAD(src - (k + V - 1) * E), E)));                              \
        return n;                                                                                             \
    } while (0)

/* The same with non-temporal stores for the 64-byte lines of the row's
 * output: blocks as above, from the row's end, but at line boundaries. The
 * partial lines at either end (a whole vector at k = n - V or 0, masked to
 * them) and the whole lines next to them are stored, not streamed: on the
 * 2-core AMD EPYC VM, a line streamed next to one stored made rows of 300
 * bytes take 10x the time (64 MiB, one thread's CPU time: 76-83 ms with
 * every whole line streamed, as the staged copy's 16-byte streams ran too,
 * 7-8 ms this way; rows of 16 KiB 4-5 ms). */
#define REVERSE_ROW_STREAM(PERMUTE)                                                                           \
    do {                                                                                                      \
        const uint64_t V = 64 / E;                                                                            \
        if (n < V || ((uintptr_t)dst & (E - 1)))                                                              \
            return 0;                                                                                         \
        const __m512i index = reverse_index(E);                                                               \
        const uint64_t head = ((64 - ((uintptr_t)dst & 63)) & 63) / E; /* elements before the first line */  \
        const uint64_t lines = (n - head) / V, tail = head + lines * V;                                       \
        if (tail < n) {                                                                                       \
            const uint64_t k = n - V, skip = (tail - k) * E; /* bytes of the block in whole lines */         \
            _mm512_mask_storeu_epi8(dst + k * E, (__mmask64)(~(uint64_t)0 << skip),                           \
                PERMUTE(index, LOAD(src - (k + V - 1) * E), E));                                              \
        }                                                                                                     \
        for (uint64_t i = lines; i > 0; i--) {                                                                \
            const uint64_t k = head + (i - 1) * V;                                                            \
            const __m512i v = PERMUTE(index, LOAD(src - (k + V - 1) * E), E);                                 \
            if ((i == lines && tail < n) || (i == 1 && head))                                                 \
                STORE(dst + k * E, v);                                                                        \
            else                                                                                              \
                _mm512_stream_si512((void*)(dst + k * E), v);                                                 \
        }                                                                                                     \
        if (head)                                                                                             \
            _mm512_mask_storeu_epi8(dst, (__mmask64)(~(uint64_t)0 >> (64 - head * E)),                        \
                PERMUTE(index, LOAD(src - (V - 1) * E), E));                                                  \
        return n;                                                                                             \
    } while (0)

#define STRIDE2_ROW(PERMUTE2)                                                                                 \
    do {                                                                                                      \
        const uint64_t V = 64 / E;                                                                            \
        if (n < V)                                                                                            \
            return 0;                                                                                         \
        const __m512i index = stride2_index(E, backward, 0), last_index = stride2_index(E, backward, 1);      \
        const uint64_t last = n - V; /* the block at the far end of the row's input */                      \
        const byte* last_read = backward ? src : src + 2 * (n - 1) * E;                                       \
        FOR_EACH_BLOCK(k, n, V, backward, {                                                                   \
            if (k == last) {                                                                                  \
                const byte* p = backward ? src - 2 * (k + V - 1) * E : src + 2 * k * E;                       \
                STORE(dst + k * E, PERMUTE2(LOAD(p), last_index, LOAD(p + (V - 1) * E), E));                  \
            } else {                                                                                          \
                const byte* p = backward ? src - (2 * (k + V - 1) + 1) * E : src + 2 * k * E;                 \
                if (!backward && p + PREFETCH_BYTES <= last_read)                                             \
                    _mm_prefetch((const char*)p + PREFETCH_BYTES, _MM_HINT_T1);                               \
                STORE(dst + k * E, PERMUTE2(LOAD(p), index, LOAD(p + 64), E));                                \
            }                                                                                                 \
        });                                                                                                   \
        return n;                                                                                             \
    } while (0)

/* One instantiation per element size, so the index vectors are constants. */
DML_TARGET_AVX512 ALWAYS_INLINE uint64_t reverse_row(byte* dst, const byte* src, uint64_t n, size_t E)
{
    REVERSE_ROW(permute);
}

DML_TARGET_AVX512_VBMI ALWAYS_INLINE uint64_t reverse_row_vbmi(byte* dst, const byte* src, uint64_t n, size_t E)
{
    REVERSE_ROW(permute_vbmi);
}

DML_TARGET_AVX512 ALWAYS_INLINE uint64_t reverse_row_stream(byte* dst, const byte* src, uint64_t n, size_t E)
{
    REVERSE_ROW_STREAM(permute);
}

DML_TARGET_AVX512_VBMI ALWAYS_INLINE uint64_t reverse_row_stream_vbmi(byte* dst, const byte* src, uint64_t n,
    size_t E)
{
    REVERSE_ROW_STREAM(permute_vbmi);
}

DML_TARGET_AVX512 ALWAYS_INLINE uint64_t stride2_row(byte* dst, const byte* src, uint64_t n, size_t E, int backward)
{
    STRIDE2_ROW(permute2);
}

DML_TARGET_AVX512_VBMI ALWAYS_INLINE uint64_t stride2_row_vbmi(byte* dst, const byte* src, uint64_t n, size_t E,
    int backward)
{
    STRIDE2_ROW(permute2_vbmi);
}

DML_TARGET_AVX512 static uint64_t reverse_avx512(byte* dst, const byte* src, uint64_t n, size_t E)
{
    switch (E) {
    case 1: return reverse_row(dst, src, n, 1);
    case 2: return reverse_row(dst, src, n, 2);
    case 4: return reverse_row(dst, src, n, 4);
    case 8: return reverse_row(dst, src, n, 8);
    default: return 0;
    }
}

DML_TARGET_AVX512_VBMI static uint64_t reverse_bytes_vbmi(byte* dst, const byte* src, uint64_t n)
{
    return reverse_row_vbmi(dst, src, n, 1);
}

DML_TARGET_AVX512 static uint64_t reverse_stream_avx512(byte* dst, const byte* src, uint64_t n, size_t E)
{
    switch (E) {
    case 1: return reverse_row_stream(dst, src, n, 1);
    case 2: return reverse_row_stream(dst, src, n, 2);
    case 4: return reverse_row_stream(dst, src, n, 4);
    case 8: return reverse_row_stream(dst, src, n, 8);
    default: return 0;
    }
}

DML_TARGET_AVX512_VBMI static uint64_t reverse_stream_bytes_vbmi(byte* dst, const byte* src, uint64_t n)
{
    return reverse_row_stream_vbmi(dst, src, n, 1);
}

DML_TARGET_AVX512 static uint64_t stride2_avx512(byte* dst, const byte* src, uint64_t n, size_t E, int backward)
{
    switch (E) {
    case 2: return stride2_row(dst, src, n, 2, backward);
    case 4: return stride2_row(dst, src, n, 4, backward);
    case 8: return stride2_row(dst, src, n, 8, backward);
    default: return 0;
    }
}

DML_TARGET_AVX512_VBMI static uint64_t stride2_bytes_vbmi(byte* dst, const byte* src, uint64_t n, int backward)
{
    return stride2_row_vbmi(dst, src, n, 1, backward);
}

/* ---- two rows zipped (a DEPTH_TO_SPACE's block of 2) ------------------- */

/* The permute indices of output vector `half` (0 or 1): lane k takes row
 * k % 2's element k / 2 + half * V / 2, as two-source permute lanes (below
 * V = 64 / E: the first row's vector, from V: the second's). Shifts of
 * 16-bit lanes serve byte lanes too: k < 64, so the bit a byte's shift
 * takes from its neighbour is masked off, and (k % 2) << 6 stays in it. */
DML_TARGET_AVX512 ALWAYS_INLINE __m512i zip2_lanes(int half, size_t E)
{
    const int V = (int)(64 / E), log2_v = E == 1 ? 6 : E == 2 ? 5 : E == 4 ? 4 : 3;
    const __m512i k = lane_iota(E), odd = _mm512_and_si512(k, lane_set1(1, E));
    __m512i pair, second;
    if (E <= 2) {
        pair = _mm512_srli_epi16(k, 1);
        pair = E == 1 ? _mm512_and_si512(pair, _mm512_set1_epi8(0x7f)) : pair;
        second = _mm512_slli_epi16(odd, (unsigned)log2_v);
    } else if (E == 4) {
        pair = _mm512_srli_epi32(k, 1);
        second = _mm512_slli_epi32(odd, (unsigned)log2_v);
    } else {
        pair = _mm512_srli_epi64(k, 1);
        second = _mm512_slli_epi64(odd, (unsigned)log2_v);
    }
    return lane_add(lane_add(pair, second, E), lane_set1(half * V / 2, E), E);
}

/* Streamed outputs (dst on a line: every store a whole line) with
 * non-temporal stores; the caller fences. */
#define ZIP2_ROWS(PERMUTE2)                                                      \
    do {                                                                         \
        const uint64_t V = 64 / E;                                               \
        const __m512i lo = zip2_lanes(0, E), hi = zip2_lanes(1, E);              \
        uint64_t r = 0;                                                          \
        if (stream && ((uintptr_t)dst & 63) == 0) {                              \
            for (; r + V <= rows; r += V) {                                      \
                const __m512i x = LOAD(a + r * E), y = LOAD(b + r * E);          \
                _mm512_stream_si512((void*)(dst + 2 * r * E), PERMUTE2(x, lo, y, E)); \
                _mm512_stream_si512((void*)(dst + 2 * r * E + 64), PERMUTE2(x, hi, y, E)); \
            }                                                                    \
            return r;                                                            \
        }                                                                        \
        for (; r + V <= rows; r += V) {                                          \
            const __m512i x = LOAD(a + r * E), y = LOAD(b + r * E);              \
            STORE(dst + 2 * r * E, PERMUTE2(x, lo, y, E));                       \
            STORE(dst + 2 * r * E + 64, PERMUTE2(x, hi, y, E));                  \
        }                                                                        \
        return r;                                                                \
    } while (0)

DML_TARGET_AVX512 ALWAYS_INLINE uint64_t zip2_avx512(byte* dst, const byte* a, const byte* b, uint64_t rows, size_t E,
    int stream)
{
    ZIP2_ROWS(permute2);
}

/* One instantiation per element size (E constant in the loop). */
DML_TARGET_AVX512 static uint64_t zip2_2(byte* dst, const byte* a, const byte* b, uint64_t rows, int stream)
{
    return zip2_avx512(dst, a, b, rows, 2, stream);
}
DML_TARGET_AVX512 static uint64_t zip2_4(byte* dst, const byte* a, const byte* b, uint64_t rows, int stream)
{
    return zip2_avx512(dst, a, b, rows, 4, stream);
}
DML_TARGET_AVX512 static uint64_t zip2_8(byte* dst, const byte* a, const byte* b, uint64_t rows, int stream)
{
    return zip2_avx512(dst, a, b, rows, 8, stream);
}

DML_TARGET_AVX512_VBMI static uint64_t zip2_bytes_vbmi(byte* dst, const byte* a, const byte* b, uint64_t rows,
    int stream)
{
    const size_t E = 1;
    ZIP2_ROWS(permute2_vbmi);
}

uint64_t dml_cpu_zip2_avx512(unsigned char* dst, const unsigned char* a, const unsigned char* b, uint64_t rows,
    size_t E, int stream)
{
    if (!have_avx512())
        return 0;
    switch (E) {
    case 1: return have_avx512_vbmi() ? zip2_bytes_vbmi(dst, a, b, rows, stream) : 0;
    case 2: return zip2_2(dst, a, b, rows, stream);
    case 4: return zip2_4(dst, a, b, rows, stream);
    case 8: return zip2_8(dst, a, b, rows, stream);
    default: return 0;
    }
}

/* ---- one row unzipped into two (a SPACE_TO_DEPTH's block of 2) --------- */

/* Lane k of output row j takes lane 2k + j of the pair of input vectors
 * (two-source permute lanes: below V the first vector, from V the second). */
#define UNZIP2_ROW(PERMUTE2)                                                                       \
    do {                                                                                           \
        const uint64_t V = 64 / E;                                                                 \
        if (n < V)                                                                                 \
            return 0;                                                                              \
        const __m512i lanes = lane_iota(E), even = lane_add(lanes, lanes, E);                      \
        const __m512i odd = lane_add(even, lane_set1(1, E), E);                                    \
        const int streamed = stream && (((uintptr_t)dst0 | (uintptr_t)dst1) & 63) == 0;            \
        uint64_t k = 0;                                                                            \
        for (; k + V <= n; k += V) {                                                               \
            const __m512i x = LOAD(src + 2 * k * E), y = LOAD(src + 2 * k * E + 64);               \
            if (streamed) {                                                                        \
                _mm512_stream_si512((void*)(dst0 + k * E), PERMUTE2(x, even, y, E));               \
                _mm512_stream_si512((void*)(dst1 + k * E), PERMUTE2(x, odd, y, E));                \
            } else {                                                                               \
                STORE(dst0 + k * E, PERMUTE2(x, even, y, E));                                      \
                STORE(dst1 + k * E, PERMUTE2(x, odd, y, E));                                       \
            }                                                                                      \
        }                                                                                          \
        return k;                                                                                  \
    } while (0)

DML_TARGET_AVX512 ALWAYS_INLINE uint64_t unzip2_avx512(byte* dst0, byte* dst1, const byte* src, uint64_t n, size_t E,
    int stream)
{
    UNZIP2_ROW(permute2);
}
DML_TARGET_AVX512 static uint64_t unzip2_2(byte* dst0, byte* dst1, const byte* src, uint64_t n, int stream)
{
    return unzip2_avx512(dst0, dst1, src, n, 2, stream);
}
DML_TARGET_AVX512 static uint64_t unzip2_4(byte* dst0, byte* dst1, const byte* src, uint64_t n, int stream)
{
    return unzip2_avx512(dst0, dst1, src, n, 4, stream);
}
DML_TARGET_AVX512 static uint64_t unzip2_8(byte* dst0, byte* dst1, const byte* src, uint64_t n, int stream)
{
    return unzip2_avx512(dst0, dst1, src, n, 8, stream);
}
DML_TARGET_AVX512_VBMI static uint64_t unzip2_bytes_vbmi(byte* dst0, byte* dst1, const byte* src, uint64_t n,
    int stream)
{
    const size_t E = 1;
    UNZIP2_ROW(permute2_vbmi);
}

uint64_t dml_cpu_unzip2_avx512(unsigned char* dst0, unsigned char* dst1, const unsigned char* src, uint64_t n,
    size_t E, int stream)
{
    if (!have_avx512())
        return 0;
    switch (E) {
    case 1: return have_avx512_vbmi() ? unzip2_bytes_vbmi(dst0, dst1, src, n, stream) : 0;
    case 2: return unzip2_2(dst0, dst1, src, n, stream);
    case 4: return unzip2_4(dst0, dst1, src, n, stream);
    case 8: return unzip2_8(dst0, dst1, src, n, stream);
    default: return 0;
    }
}

/* `lines` whole 64-byte lines, one 64-byte non-temporal store each. */
DML_TARGET_AVX512 static void stream_lines(byte* dst, const byte* src, uint64_t lines)
{
    for (uint64_t k = 0; k < lines; ++k)
        _mm512_stream_si512((void*)(dst + 64 * k), _mm512_loadu_si512(src + 64 * k));
}

uint64_t dml_cpu_stream_copy_avx512(unsigned char* dst, const unsigned char* src, uint64_t bytes)
{
    if (!have_avx512())
        return 0;
    const uint64_t head = (64 - ((uintptr_t)dst & 63)) & 63;
    if (head >= bytes) {
        memcpy(dst, src, bytes);
        return bytes;
    }
    const uint64_t lines = (bytes - head) / 64, tail = head + lines * 64;
    if (head) /* rows of whole lines (a gather's 256-byte rows) skip the libc calls */
        memcpy(dst, src, head);
    stream_lines(dst + head, src + head, lines);
    if (bytes > tail)
        memcpy(dst + tail, src + tail, bytes - tail);
    return bytes;
}

DML_TARGET_AVX512 void dml_cpu_line_writer_flush(dml_cpu_line_writer* w)
{
    if (w->line)
        _mm512_mask_storeu_epi8(w->line, (__mmask64)w->have, _mm512_load_si512(w->pending));
    w->line = NULL;
    w->have = 0;
}

DML_TARGET_AVX512 void dml_cpu_line_writer_put(dml_cpu_line_writer* w, unsigned char* dst, const unsigned char* src,
    uint64_t bytes)
{
    while (bytes) {
        const uintptr_t off = (uintptr_t)dst & 63;
        unsigned char* line = (unsigned char*)((uintptr_t)dst - off);
        if (line != w->line) {
            dml_cpu_line_writer_flush(w);
            if (off == 0 && bytes >= 64) {
                const uint64_t lines = bytes / 64;
                stream_lines(dst, src, lines);
                dst += 64 * lines, src += 64 * lines, bytes -= 64 * lines;
                continue;
            }
            w->line = line;
        }
        const uint64_t take = bytes < 64 - off ? bytes : 64 - off;
        const __mmask64 m = (__mmask64)((take == 64 ? ~(uint64_t)0 : ((uint64_t)1 << take) - 1) << off);
        /* lane i holds src[i - off]: the address off bytes below src, its
         * lanes outside m never loaded */
        const void* from = (const void*)((uintptr_t)src - off);
        const __m512i v = _mm512_mask_mov_epi8(_mm512_load_si512(w->pending), m, _mm512_maskz_loadu_epi8(m, from));
        w->have |= (uint64_t)m;
        dst += take, src += take, bytes -= take;
        if (w->have == ~(uint64_t)0) {
            _mm512_stream_si512((void*)line, v);
            w->line = NULL;
            w->have = 0;
        } else {
            _mm512_store_si512(w->pending, v);
        }
    }
}

uint64_t dml_cpu_reverse_row_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E)
{
    if (!have_avx512())
        return 0;
    if (E == 1 && have_avx512_vbmi())
        return reverse_bytes_vbmi(dst, src, n);
    return reverse_avx512(dst, src, n, E);
}

uint64_t dml_cpu_reverse_row_stream_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E)
{
    if (!have_avx512())
        return 0;
    if (E == 1 && have_avx512_vbmi())
        return reverse_stream_bytes_vbmi(dst, src, n);
    return reverse_stream_avx512(dst, src, n, E);
}

uint64_t dml_cpu_stride2_row_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E, int backward)
{
    if (!have_avx512())
        return 0;
    if (E == 1)
        return have_avx512_vbmi() ? stride2_bytes_vbmi(dst, src, n, backward) : 0;
    return stride2_avx512(dst, src, n, E, backward);
}

#else

uint64_t dml_cpu_stream_copy_avx512(unsigned char* dst, const unsigned char* src, uint64_t bytes)
{
    (void)dst, (void)src, (void)bytes;
    return 0;
}

void dml_cpu_line_writer_put(dml_cpu_line_writer* w, unsigned char* dst, const unsigned char* src, uint64_t bytes)
{
    (void)w;
    memcpy(dst, src, bytes);
}

void dml_cpu_line_writer_flush(dml_cpu_line_writer* w)
{
    w->line = NULL;
    w->have = 0;
}

uint64_t dml_cpu_zip2_avx512(unsigned char* dst, const unsigned char* a, const unsigned char* b, uint64_t rows,
    size_t E, int stream)
{
    (void)dst, (void)a, (void)b, (void)rows, (void)E, (void)stream;
    return 0;
}

uint64_t dml_cpu_unzip2_avx512(unsigned char* dst0, unsigned char* dst1, const unsigned char* src, uint64_t n,
    size_t E, int stream)
{
    (void)dst0, (void)dst1, (void)src, (void)n, (void)E, (void)stream;
    return 0;
}

uint64_t dml_cpu_reverse_row_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E)
{
    (void)dst, (void)src, (void)n, (void)E;
    return 0;
}

uint64_t dml_cpu_reverse_row_stream_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E)
{
    (void)dst, (void)src, (void)n, (void)E;
    return 0;
}

uint64_t dml_cpu_stride2_row_avx512(unsigned char* dst, const unsigned char* src, uint64_t n, size_t E, int backward)
{
    (void)dst, (void)src, (void)n, (void)E, (void)backward;
    return 0;
}

#endif
