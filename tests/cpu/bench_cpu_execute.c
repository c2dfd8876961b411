/*
 * bench_cpu_execute.c — informal throughput of the executor against memcpy
 * of the same bytes: bench_cpu_execute [MiB] [threads].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_execute.h"
#include "cpu_pool.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of several runs, in GB/s of output written. */
static double measure(cpu_pool* pool, const dml_plan* plan, const dml_plan_args* args, size_t bytes)
{
    double best = 1e30;
    for (int i = 0; i < 7; i++) {
        double t0 = now();
        if (plan)
            dml_cpu_execute(pool, NULL, 16, plan, args);
        else
            memcpy(args->output, args->input, bytes);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return (double)bytes / best * 1e-9;
}

int main(int argc, char** argv)
{
    size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64;
    unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : cpu_pool_default_threads();
    size_t bytes = mib << 20;
    unsigned char* in = aligned_alloc(4096, bytes);
    unsigned char* out = aligned_alloc(4096, bytes);
    uint32_t* lengths = aligned_alloc(4096, bytes / 4); /* plenty */
    if (!in || !out || !lengths)
        return 1;
    memset(in, 1, bytes);
    memset(out, 2, bytes);
    cpu_pool* pool = cpu_pool_create(threads);
    printf("%zu MiB, %u threads (pool %u)\n", mib, threads, cpu_pool_threads(pool));

    dml_plan_args args = { in, lengths, out, bytes, bytes / 4, bytes, NULL, 0 };
    printf("%-44s %7.2f GB/s\n", "memcpy (1 thread)", measure(NULL, NULL, &args, bytes));

    static const uint32_t esizes[] = { 1, 2, 4, 8 };
    for (int e = 0; e < 4; e++) {
        uint32_t es = esizes[e];
        uint64_t n = bytes / es, row = 4096;
        for (uint64_t i = 0; i < n / row; i++)
            lengths[i] = (uint32_t)(i * 37 % (row + 1));
        dml_plan contiguous = { .kind = DML_PLAN_GATHER, .rank = 1, .element_size = es, .axis = -1,
            .element_count = n, .sizes = { n }, .in_strides = { 1 }, .out_strides = { 1 } };
        dml_plan reversed = { .kind = DML_PLAN_GATHER, .rank = 2, .element_size = es, .axis = -1,
            .element_count = n, .in_offset = (int64_t)row - 1, .sizes = { n / row, row },
            .in_strides = { (int64_t)row, -1 }, .out_strides = { (int64_t)row, 1 } };
        dml_plan strided = { .kind = DML_PLAN_GATHER, .rank = 2, .element_size = es, .axis = -1,
            .element_count = n, .sizes = { row, n / row }, .in_strides = { 1, (int64_t)row },
            .out_strides = { (int64_t)(n / row), 1 } }; /* transpose */
        dml_plan short_rows = { .kind = DML_PLAN_GATHER, .rank = 2, .element_size = es, .axis = -1,
            .element_count = n / 2, .sizes = { n / 6, 3 }, .in_strides = { 6, 1 }, .out_strides = { 3, 1 } };
        dml_plan rs_inner = reversed;
        rs_inner.kind = DML_PLAN_REVERSE_SUBSEQUENCES;
        rs_inner.axis = 1;
        rs_inner.axis_size = row;
        rs_inner.lengths_element_size = 4;
        rs_inner.in_offset = 0;
        rs_inner.in_strides[1] = 1;
        rs_inner.len_strides[0] = 1;
        dml_plan rs_outer = rs_inner; /* reverse rows of a matrix, one length per column */
        rs_outer.sizes[0] = row;
        rs_outer.sizes[1] = n / row;
        rs_outer.axis = 0;
        rs_outer.in_strides[0] = (int64_t)(n / row);
        rs_outer.out_strides[0] = (int64_t)(n / row);
        rs_outer.len_strides[0] = 0;
        rs_outer.len_strides[1] = 1;
        for (uint64_t i = 0; i < n / row; i++)
            lengths[i] = (uint32_t)(i * 37 % (row + 1));
        const struct { const char* name; dml_plan* plan; } cases[] = {
            { "contiguous gather", &contiguous },
            { "reversed rows of 4096", &reversed },
            { "transpose 4096 x n", &strided },
            { "rows of 3 (half of rows of 6)", &short_rows },
            { "reverse_subsequences inner axis", &rs_inner },
            { "reverse_subsequences outer axis, per-elem L", &rs_outer },
        };
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
            char name[96];
            snprintf(name, sizeof(name), "%s, %u-byte", cases[c].name, es);
            size_t written = cases[c].plan->element_count * es;
            printf("%-44s %7.2f GB/s 1 thread, %7.2f GB/s pool\n", name, measure(NULL, cases[c].plan, &args, written),
                measure(pool, cases[c].plan, &args, written));
        }
    }
    cpu_pool_destroy(pool);
    free(lengths);
    free(out);
    free(in);
    return 0;
}
