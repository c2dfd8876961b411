/*
 * cpu_transpose_rounds.h — in-register transposes of V x V elements in
 * 16-byte lanes, shared by the SSE2 tiles (cpu_execute.c: __m128i, prefix
 * _mm_) and the AVX-512 line tiles (cpu_transpose_avx512.c: __m512i, prefix
 * _mm512_, four 16-byte lanes side by side). Include after <immintrin.h>
 * and <string.h>.
 */
#ifndef DML_CPU_TRANSPOSE_ROUNDS_H
#define DML_CPU_TRANSPOSE_ROUNDS_H

/* One round: inside groups of 2d vectors, vector i pairs with i + d and
 * their unpacked low and high halves become vectors 2i and 2i + 1. Rounds
 * with d = 1, 2, .. V/2 (unpacking E, 2E, .. 8 bytes) leave in vector k
 * element k of every input vector, in order. V and d are constants wherever
 * this is inlined. */
#define DML_TRANSPOSE_ROUND(vector_type, v, V, d, lo, hi)               \
    do {                                                                \
        vector_type t_[V];                                              \
        for (unsigned g_ = 0; g_ < (V); g_ += 2 * (d))                  \
            for (unsigned i_ = 0; i_ < (d); i_++) {                     \
                t_[g_ + 2 * i_] = lo(v[g_ + i_], v[g_ + i_ + (d)]);     \
                t_[g_ + 2 * i_ + 1] = hi(v[g_ + i_], v[g_ + i_ + (d)]); \
            }                                                           \
        memcpy(v, t_, sizeof t_);                                       \
    } while (0)

/* The rounds for E-byte elements: 16/E vectors of 16/E elements per lane. */
#define DML_TRANSPOSE_LANES(vector_type, mm, v, E)                                          \
    do {                                                                                    \
        if ((E) == 1) {                                                                     \
            DML_TRANSPOSE_ROUND(vector_type, v, 16, 1, mm##unpacklo_epi8, mm##unpackhi_epi8);   \
            DML_TRANSPOSE_ROUND(vector_type, v, 16, 2, mm##unpacklo_epi16, mm##unpackhi_epi16); \
            DML_TRANSPOSE_ROUND(vector_type, v, 16, 4, mm##unpacklo_epi32, mm##unpackhi_epi32); \
            DML_TRANSPOSE_ROUND(vector_type, v, 16, 8, mm##unpacklo_epi64, mm##unpackhi_epi64); \
        } else if ((E) == 2) {                                                              \
            DML_TRANSPOSE_ROUND(vector_type, v, 8, 1, mm##unpacklo_epi16, mm##unpackhi_epi16);  \
            DML_TRANSPOSE_ROUND(vector_type, v, 8, 2, mm##unpacklo_epi32, mm##unpackhi_epi32);  \
            DML_TRANSPOSE_ROUND(vector_type, v, 8, 4, mm##unpacklo_epi64, mm##unpackhi_epi64);  \
        } else if ((E) == 4) {                                                              \
            DML_TRANSPOSE_ROUND(vector_type, v, 4, 1, mm##unpacklo_epi32, mm##unpackhi_epi32);  \
            DML_TRANSPOSE_ROUND(vector_type, v, 4, 2, mm##unpacklo_epi64, mm##unpackhi_epi64);  \
        } else {                                                                            \
            DML_TRANSPOSE_ROUND(vector_type, v, 2, 1, mm##unpacklo_epi64, mm##unpackhi_epi64);  \
        }                                                                                   \
    } while (0)

#endif /* DML_CPU_TRANSPOSE_ROUNDS_H */
