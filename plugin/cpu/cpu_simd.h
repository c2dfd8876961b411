/*
 * cpu_simd.h — whether this x86-64 CPU has AVX2, asked once per executor
 * file at run time (the executors keep portable loops for the rest).
 */
#ifndef DML_CPU_SIMD_H
#define DML_CPU_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DML_CPU_AVX2 1

static inline int have_avx2(void)
{
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

#endif /* DML_CPU_SIMD_H */
