/*
 * bench_cpu_indexed.c — informal throughput of the data-dependent executors
 * (cpu_indexed.c, cpu_select.c) on hand-built plans, as a ratio to a copy
 * of the same traffic ((bytes read + bytes written) / 2, dmlbench's rule):
 * the faster of memcpy on one thread and memcpy split over the pool's.
 *
 *   bench_cpu_indexed [MiB of output (64)] [threads (all)]
 *
 * Cases: a GATHER of rows of 256 B and 1 KiB with random int64 indices (an
 * embedding lookup), GATHER_ELEMENTS of 4-byte elements along the
 * innermost axis, ELEMENT_WISE_IF of 4-byte elements (random conditions),
 * ONE_HOT of 4-byte values along the innermost axis (depth 64), and
 * SCATTER_ND of rows and SCATTER_ELEMENTS (random targets), scatters'
 * traffic counted as the updates read and written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_execute.h"
#include "cpu_indexed.h"
#include "cpu_pool.h"
#include "cpu_select.h"

typedef unsigned char byte;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t next(uint64_t* s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 27);
}

typedef struct copy_job {
    byte* dst;
    const byte* src;
    uint64_t bytes;
    unsigned parts;
} copy_job;

static void copy_part(void* context, unsigned t)
{
    const copy_job* j = context;
    const uint64_t chunk = (j->bytes / j->parts + 63) / 64 * 64, at = (uint64_t)t * chunk;
    if (at < j->bytes)
        memcpy(j->dst + at, j->src + at, j->bytes - at < chunk ? j->bytes - at : chunk);
}

#define RUNS 9

static int compare_double(const void* a, const void* b)
{
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* Median seconds of the plan, and of both copies (the faster). */
static void measure(cpu_pool* pool, const dml_plan* p, const dml_plan_args* a, uint64_t copy_bytes, byte* dst,
    const byte* src, double* plan_s, double* copy_s)
{
    double t_plan[RUNS], t_one[RUNS], t_split[RUNS];
    copy_job j = { dst, src, copy_bytes, cpu_pool_threads(pool) };
    for (int i = 0; i < RUNS + 1; ++i) {
        double t0 = now();
        switch (p->kind) {
        case DML_PLAN_INDEXED: dml_cpu_indexed(pool, NULL, 16, p, a); break;
        case DML_PLAN_SCATTER: dml_cpu_scatter(pool, NULL, 16, p, a); break;
        default: dml_cpu_select(pool, NULL, 16, p, a); break;
        }
        double t1 = now();
        memcpy(dst, src, copy_bytes);
        double t2 = now();
        cpu_pool_run(pool, copy_part, &j, j.parts);
        double t3 = now();
        if (i > 0) {
            t_plan[i - 1] = t1 - t0;
            t_one[i - 1] = t2 - t1;
            t_split[i - 1] = t3 - t2;
        }
    }
    qsort(t_plan, RUNS, sizeof(double), compare_double);
    qsort(t_one, RUNS, sizeof(double), compare_double);
    qsort(t_split, RUNS, sizeof(double), compare_double);
    *plan_s = t_plan[RUNS / 2];
    *copy_s = t_one[RUNS / 2] < t_split[RUNS / 2] ? t_one[RUNS / 2] : t_split[RUNS / 2];
}

static void report(const char* name, cpu_pool* pool, const dml_plan* p, const dml_plan_args* a, uint64_t read,
    uint64_t written, byte* dst, const byte* src)
{
    double plan_s, copy_s;
    const uint64_t copy_bytes = (read + written) / 2;
    measure(pool, p, a, copy_bytes, dst, src, &plan_s, &copy_s);
    printf("%-34s %9.1f us %7.2f GB/s  memcpy %7.2f GB/s  ratio %.2f\n", name, plan_s * 1e6,
        (double)(read + written) / plan_s * 1e-9, 2.0 * (double)copy_bytes / copy_s * 1e-9, copy_s / plan_s);
    fflush(stdout);
}

static void plan_init(dml_plan* p, uint32_t kind, uint32_t e, uint32_t rank)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->element_size = e;
    p->rank = rank;
    p->axis = -1;
}

int main(int argc, char** argv)
{
    const uint64_t mib = argc > 1 ? (uint64_t)atoi(argv[1]) : 64;
    const unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : cpu_pool_default_threads();
    const uint64_t bytes = mib << 20;
    byte* in = aligned_alloc(4096, bytes);
    byte* in2 = aligned_alloc(4096, bytes);
    byte* out = aligned_alloc(4096, bytes);
    /* The copy baseline's buffers: up to 2.5 x the output's bytes each way ((read + written) / 2 of
     * gather_elements: its input, 8-byte indices and output). */
    const uint64_t copy_max = bytes * 5 / 2;
    byte* src = aligned_alloc(4096, copy_max);
    byte* dst = aligned_alloc(4096, copy_max);
    uint64_t* idx = aligned_alloc(4096, bytes * 2); /* int64 indices: up to one per 4-byte element */
    if (!in || !in2 || !out || !src || !dst || !idx)
        return 1;
    memset(in, 1, bytes);
    memset(in2, 3, bytes);
    memset(out, 2, bytes);
    memset(src, 1, copy_max);
    memset(dst, 2, copy_max);
    cpu_pool* pool = cpu_pool_create(threads);
    printf("%llu MiB output, %u threads\n", (unsigned long long)mib, cpu_pool_threads(pool));
    uint64_t seed = 1;
    dml_plan p;

    /* GATHER of rows: out[i, :] = table[idx[i], :], the table as big as the output. */
    static const uint32_t row_bytes[] = { 256, 1024 };
    for (int k = 0; k < 2; ++k) {
        const uint64_t row = row_bytes[k] / 4, rows = bytes / row_bytes[k];
        for (uint64_t i = 0; i < rows; ++i)
            idx[i] = next(&seed) % rows;
        plan_init(&p, DML_PLAN_INDEXED, 4, 2);
        p.sizes[0] = rows;
        p.sizes[1] = row;
        p.element_count = rows * row;
        p.out_strides[0] = (int64_t)row;
        p.out_strides[1] = 1;
        p.in_strides[1] = 1;
        p.len_strides[0] = 1;
        p.lengths_element_size = 8;
        p.index_signed = 1;
        p.index_count = 1;
        p.index_sizes[0] = rows;
        p.index_strides[0] = (int64_t)row;
        dml_plan_args a = { in, idx, out, bytes, rows * 8, bytes, NULL, 0 };
        char name[64];
        snprintf(name, sizeof name, "gather rows %u B, int64", row_bytes[k]);
        report(name, pool, &p, &a, bytes + rows * 8, bytes, dst, src);
    }

    /* GATHER_ELEMENTS along the innermost axis of [R, 1024] float32, int64 indices. */
    {
        const uint64_t row = 1024, rows = bytes / 4 / row, n = rows * row;
        for (uint64_t i = 0; i < n; ++i)
            idx[i] = next(&seed) % row;
        plan_init(&p, DML_PLAN_INDEXED, 4, 2);
        p.sizes[0] = rows;
        p.sizes[1] = row;
        p.element_count = n;
        p.out_strides[0] = (int64_t)row;
        p.out_strides[1] = 1;
        p.in_strides[0] = (int64_t)row;
        p.len_strides[0] = (int64_t)row;
        p.len_strides[1] = 1;
        p.lengths_element_size = 8;
        p.index_signed = 1;
        p.index_count = 1;
        p.index_sizes[0] = row;
        p.index_strides[0] = 1;
        dml_plan_args a = { in, idx, out, bytes, n * 8, bytes, NULL, 0 };
        report("gather_elements 4 B, int64", pool, &p, &a, bytes + n * 8, bytes, dst, src);
    }

    /* ELEMENT_WISE_IF of float32, conditions random bytes. */
    {
        const uint64_t n = bytes / 4;
        byte* cond = (byte*)idx;
        for (uint64_t i = 0; i < n; ++i)
            cond[i] = (byte)(next(&seed) & 1);
        plan_init(&p, DML_PLAN_SELECT, 4, 1);
        p.sizes[0] = p.element_count = n;
        p.out_strides[0] = p.in_strides[0] = p.in2_strides[0] = p.len_strides[0] = 1;
        p.lengths_element_size = 1;
        dml_plan_args a = { in, cond, out, bytes, n, bytes, in2, bytes };
        report("element_wise_if 4 B", pool, &p, &a, 2 * bytes + n, bytes, dst, src);
    }

    /* ONE_HOT of [N, 64] float32, the depth innermost, values broadcast. */
    {
        const uint64_t depth = 64, rows = bytes / 4 / depth;
        for (uint64_t i = 0; i < rows; ++i)
            idx[i] = next(&seed) % depth;
        plan_init(&p, DML_PLAN_ONE_HOT, 4, 2);
        p.axis = 1;
        p.sizes[0] = rows;
        p.sizes[1] = depth;
        p.element_count = rows * depth;
        p.out_strides[0] = (int64_t)depth;
        p.out_strides[1] = 1;
        p.len_strides[0] = 1;
        p.in2_offset = 1;
        p.lengths_element_size = 8;
        p.index_signed = 1;
        p.index_count = 1;
        p.index_sizes[0] = depth;
        dml_plan_args a = { in, idx, out, 8, rows * 8, bytes, in, 8 };
        report("one_hot depth 64, 4 B", pool, &p, &a, rows * 8, bytes, dst, src);
    }

    /* SCATTER_ND of 1 KiB rows into a table as big as the updates (random rows, duplicates included). */
    {
        const uint64_t row = 256, rows = bytes / 1024;
        for (uint64_t i = 0; i < rows; ++i)
            idx[i] = next(&seed) % rows;
        plan_init(&p, DML_PLAN_SCATTER, 4, 2);
        p.sizes[0] = rows;
        p.sizes[1] = row;
        p.element_count = rows * row;
        p.in_strides[0] = (int64_t)row;
        p.in_strides[1] = 1;
        p.out_strides[1] = 1;
        p.len_strides[0] = 1;
        p.lengths_element_size = 8;
        p.index_signed = 1;
        p.index_count = 1;
        p.index_sizes[0] = rows;
        p.index_strides[0] = (int64_t)row;
        dml_plan_args a = { in, idx, out, bytes, rows * 8, bytes, NULL, 0 };
        report("scatter_nd rows 1 KiB, int64", pool, &p, &a, bytes + rows * 8, bytes, dst, src);
    }

    /* SCATTER_ELEMENTS along the innermost axis of [R, 1024] float32, int64 indices. */
    {
        const uint64_t row = 1024, rows = bytes / 4 / row, n = rows * row;
        for (uint64_t i = 0; i < n; ++i)
            idx[i] = next(&seed) % row;
        plan_init(&p, DML_PLAN_SCATTER, 4, 2);
        p.sizes[0] = rows;
        p.sizes[1] = row;
        p.element_count = n;
        p.in_strides[0] = (int64_t)row;
        p.in_strides[1] = 1;
        p.out_strides[0] = (int64_t)row;
        p.len_strides[0] = (int64_t)row;
        p.len_strides[1] = 1;
        p.lengths_element_size = 8;
        p.index_signed = 1;
        p.index_count = 1;
        p.index_sizes[0] = row;
        p.index_strides[0] = 1;
        dml_plan_args a = { in, idx, out, bytes, n * 8, bytes, NULL, 0 };
        report("scatter_elements 4 B, int64", pool, &p, &a, bytes + n * 8, bytes, dst, src);
    }
    cpu_pool_destroy(pool);
    free(in);
    free(in2);
    free(out);
    free(src);
    free(dst);
    free(idx);
    return 0;
}
