/*
 * cpu_simd.c — the instruction-set level the CPU executors use (cpu_simd.h).
 */
#include "cpu_simd.h"

#include <stdlib.h>
#include <string.h>

static const char* const level_names[] = {"portable", "avx2", "avx512", "avx512vbmi"};
#define LEVEL_COUNT (sizeof level_names / sizeof level_names[0])

static int detected = -1; /* the CPU's level, capped by DML_CPU_ISA; -1 until asked */
static int cap = DML_CPU_ISA_AVX512_VBMI;

static int detect(void)
{
    int level = DML_CPU_ISA_PORTABLE;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        level = DML_CPU_ISA_AVX2;
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
            && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
            level = DML_CPU_ISA_AVX512;
            if (__builtin_cpu_supports("avx512vbmi"))
                level = DML_CPU_ISA_AVX512_VBMI;
        }
    }
#endif
    const char* text = secure_getenv(DML_CPU_ISA_ENV);
    for (unsigned i = 0; text && i < LEVEL_COUNT; i++)
        if (strcmp(text, level_names[i]) == 0 && (int)i < level)
            level = (int)i;
    return level;
}

dml_cpu_isa_level dml_cpu_isa(void)
{
    int level = __atomic_load_n(&detected, __ATOMIC_RELAXED);
    if (level < 0) {
        level = detect(); /* racing threads compute the same value */
        __atomic_store_n(&detected, level, __ATOMIC_RELAXED);
    }
    const int limit = __atomic_load_n(&cap, __ATOMIC_RELAXED);
    return (dml_cpu_isa_level)(level < limit ? level : limit);
}

dml_cpu_isa_level dml_cpu_isa_cap(dml_cpu_isa_level level)
{
    return (dml_cpu_isa_level)__atomic_exchange_n(&cap, (int)level, __ATOMIC_RELAXED);
}

const char* dml_cpu_isa_name(dml_cpu_isa_level level)
{
    return (unsigned)level < LEVEL_COUNT ? level_names[level] : "unknown";
}
