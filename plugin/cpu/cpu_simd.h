/*
 * cpu_simd.h — which vector instruction sets the executors may use: the
 * widest this x86-64 CPU has, asked once, capped by DML_CPU_ISA (tools,
 * benchmarks) or dml_cpu_isa_cap (tests, so that every path runs on a CPU
 * that would otherwise always take the widest). The executors keep portable
 * loops for the rest, and for other architectures.
 */
#ifndef DML_CPU_SIMD_H
#define DML_CPU_SIMD_H

/* Ordered: each level includes the ones below it. */
typedef enum dml_cpu_isa_level {
    DML_CPU_ISA_PORTABLE = 0,
    DML_CPU_ISA_AVX2 = 1,
    DML_CPU_ISA_AVX512 = 2,      /* AVX-512 F, BW, DQ and VL */
    DML_CPU_ISA_AVX512_VBMI = 3, /* and VBMI (byte permutes) */
} dml_cpu_isa_level;

/* The environment variable a tool sets to cap the level: portable, avx2,
 * avx512 or avx512vbmi. Other values are ignored (the widest is used). */
#define DML_CPU_ISA_ENV "DML_CPU_ISA"

/* The level in use: the CPU's, capped by DML_CPU_ISA and dml_cpu_isa_cap. */
dml_cpu_isa_level dml_cpu_isa(void);

/* Caps the level for the whole process (tests); DML_CPU_ISA_AVX512_VBMI
 * lifts the cap. Returns the previous cap. Not for use while dispatches run. */
dml_cpu_isa_level dml_cpu_isa_cap(dml_cpu_isa_level cap);

/* The name DML_CPU_ISA uses for a level. */
const char* dml_cpu_isa_name(dml_cpu_isa_level level);

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DML_CPU_AVX2 1
#define DML_CPU_AVX512 1
/* For functions built for these levels: __attribute__((target(...))). */
#define DML_TARGET_AVX2 __attribute__((target("avx2")))
#define DML_TARGET_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512vl")))
#define DML_TARGET_AVX512_VBMI __attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi")))
#endif

static inline int have_avx2(void)
{
    return dml_cpu_isa() >= DML_CPU_ISA_AVX2;
}

static inline int have_avx512(void)
{
    return dml_cpu_isa() >= DML_CPU_ISA_AVX512;
}

static inline int have_avx512_vbmi(void)
{
    return dml_cpu_isa() >= DML_CPU_ISA_AVX512_VBMI;
}

#endif /* DML_CPU_SIMD_H */
