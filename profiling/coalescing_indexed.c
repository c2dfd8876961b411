/*
 * coalescing_indexed.c — dmlcoalesce's rows for INDEXED, SCATTER, SELECT
 * and ONE_HOT launches (cuda/indexed.cu's kernels, emulated):
 *
 *   GATHER           rows-256B, rows-1KiB: a table of 64 rows, indices
 *                    (i * 7) % 64 (rows out of order), the row path;
 *   GATHER_ELEMENTS  local: [R, 64] along the inner axis, each index swapped
 *                    within its group of 8; random: a pseudo-random
 *                    permutation of the 64 (loads as scattered as the data);
 *   ELEMENT_WISE_IF  half: a condition alternating in runs of 128 bytes of
 *                    output; random: each element's a coin (each input then
 *                    loads about half of each sector it touches);
 *   ONE_HOT          depth 16 on the inner axis;
 *   GATHER_ND        rows-1KiB-2d: 1 KiB rows of an [8, 8, W] table picked
 *                    by 2-tuples (i * 7 % 64 spelled out), the row path;
 *   SCATTER_ND       rows-1KiB: 1 KiB rows of updates into a table, each
 *                    row's index a permutation of the rows; rows-1KiB-2d:
 *                    the same rows into an [8, 8, W] table by 2-tuples;
 *   SCATTER_ELEMENTS axis0-rowwise: [R, 256] updates along axis 0, one
 *                    index per element, equal along each row (a KV-cache
 *                    update as ONNX's ScatterElements spells it).
 */
#include "coalescing_indexed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator.h"
#include "launch.h"

typedef enum fill { FILL_ROWS, FILL_TUPLES, FILL_ROWWISE, FILL_LOCAL, FILL_RANDOM, FILL_RUNS, FILL_COINS } fill;

/* FILL_ROWWISE's elements per row: one index value for each. */
#define ROWWISE_ELEMENTS 256u

static unsigned char* aligned(uint64_t bytes)
{
    unsigned char* p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p)
        memset(p, 0x3C, bytes);
    return p;
}

static uint32_t hash(uint64_t i)
{
    uint64_t z = i * 0x9E3779B97F4A7C15ull;
    return (uint32_t)((z ^ (z >> 29)) >> 16);
}

/* Index (INT32) or condition (UINT8) values of the pattern; n the bound. */
static void fill_indices(unsigned char* p, uint64_t bytes, fill f, uint32_t n)
{
    if (f == FILL_RUNS || f == FILL_COINS) {
        for (uint64_t i = 0; i < bytes; ++i)
            p[i] = f == FILL_RUNS ? (unsigned char)(i / 32 % 2) : (unsigned char)(hash(i) & 1);
        return;
    }
    for (uint64_t i = 0; i < bytes / 4; ++i) {
        const uint32_t j = (uint32_t)(i % n);
        /* FILL_TUPLES: 2-tuples (r / 8, r % 8) of the row r = k * 7 % 64 */
        const uint64_t k = f == FILL_TUPLES ? i / 2 : f == FILL_ROWWISE ? i / ROWWISE_ELEMENTS : i;
        const uint32_t r = (uint32_t)(k * 7 % (f == FILL_TUPLES ? 64 : n));
        int32_t v = f == FILL_ROWS || f == FILL_ROWWISE ? (int32_t)r
            : f == FILL_TUPLES                          ? (int32_t)(i % 2 ? r % 8 : r / 8)
            : f == FILL_LOCAL                           ? (int32_t)((j ^ 5) % n)
                                                        : (int32_t)((j * 37 + hash(i / n)) % n);
        memcpy(p + i * 4, &v, 4);
    }
}

static uint64_t reach(const dml_plan* p, int64_t offset, const int64_t* strides, uint64_t extra)
{
    uint64_t last = (uint64_t)offset + extra;
    for (uint32_t d = 0; d < p->rank; ++d)
        last += (p->sizes[d] - 1) * (uint64_t)strides[d];
    return last + 1;
}

static int row(int csv, const char* op, const char* pattern, dml_plan* p, fill f, uint32_t sm_count)
{
    p->element_count = 1;
    for (uint32_t d = 0; d < p->rank; ++d)
        p->element_count *= p->sizes[d];
    p->index32 = 1;
    const uint32_t e = p->element_size;
    uint64_t tuple_extra = 0; /* the farthest an index tuple moves its element */
    for (uint32_t k = 0; k < p->index_count; ++k)
        tuple_extra += (p->index_sizes[k] - 1) * (uint64_t)p->index_strides[k];
    const uint64_t index_extra = p->kind == DML_PLAN_INDEXED ? tuple_extra : 0;
    const uint64_t out_extra = p->kind == DML_PLAN_SCATTER ? tuple_extra : 0;
    const uint64_t in_bytes = reach(p, p->in_offset, p->in_strides, index_extra) * e;
    const uint64_t out_bytes = reach(p, p->out_offset, p->out_strides, out_extra) * e;
    const uint64_t tuple_tail = p->index_count > 1 ? (p->index_count - 1) * (uint64_t)p->index_step : 0;
    const uint64_t len_bytes = reach(p, p->len_offset, p->len_strides, tuple_tail) * p->lengths_element_size;
    const uint64_t in2_bytes = dml_plan_reads_input2(p->kind) ? reach(p, p->in2_offset, p->in2_strides, 0) * e : 0;
    unsigned char *in = aligned(in_bytes), *idx = aligned(len_bytes), *out = aligned(out_bytes),
                  *in2 = in2_bytes ? aligned(in2_bytes) : NULL;
    int failed = !in || !idx || !out || (in2_bytes && !in2);
    if (!failed) {
        fill_indices(idx, len_bytes, f, (uint32_t)p->index_sizes[0]);
        const dml_plan_args args = { in, idx, out, in_bytes, len_bytes, out_bytes, in2, in2_bytes };
        dml_cuda_launch launch;
        dml_cuda_prepare(p, &args, sm_count, &launch);
        dml_coalescing s;
        const int result = dml_cuda_emulate(&launch, &s);
        if (result < 0) {
            fprintf(stderr, "dmlcoalesce: %s %s: %s\n", op, pattern,
                result == DML_EMULATE_VIOLATION ? dml_cuda_emulator_violation() : "tracing ran out of memory");
            failed = 1;
        } else {
            const double load = dml_coalescing_load_efficiency(&s), store = dml_coalescing_store_efficiency(&s);
            const char* kind = launch.indexed_params.rows ? "indexed-rows" : "indexed";
            if (csv)
                printf("%s,%u,%s,%llu,%s,%s,%u,%u,%.4f,%.4f,%llu,%llu,0,,,,,0,0,0,0,0\n", op, e, pattern,
                    (unsigned long long)out_bytes, kind, launch.wide ? "64" : "32", launch.grid, launch.block, load,
                    store, (unsigned long long)s.load_requests, (unsigned long long)s.store_requests);
            else {
                char what[64];
                snprintf(what, sizeof what, "%s/%s %ux%u", kind, launch.wide ? "64" : "32", launch.grid, launch.block);
                printf("%-20s %4u %-16s %9llu  %-27s %6.3f %6.3f %8llu %8llu %8u %6s\n", op, e, pattern,
                    (unsigned long long)out_bytes, what, load, store, (unsigned long long)s.load_requests,
                    (unsigned long long)s.store_requests, (unsigned)s.length_requests, "-");
            }
        }
    }
    free(in);
    free(idx);
    free(out);
    free(in2);
    return failed;
}

static dml_plan base(uint32_t kind, uint32_t index_size)
{
    dml_plan p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.axis = -1;
    p.element_size = 4;
    p.lengths_element_size = index_size;
    p.index_signed = index_size != 1;
    p.index_count = index_size != 1;
    p.index_step = 1;
    return p;
}

int coalescing_indexed_rows(int csv, uint64_t bytes, uint32_t sm_count)
{
    int failures = 0;
    const uint64_t elements = bytes / 4;
    for (uint64_t row_bytes = 256; row_bytes <= 1024; row_bytes *= 4) { /* GATHER of rows */
        dml_plan p = base(DML_PLAN_INDEXED, 4);
        p.rank = 2;
        p.sizes[1] = row_bytes / 4;
        p.sizes[0] = elements / p.sizes[1];
        p.index_sizes[0] = 64;
        p.index_strides[0] = (int64_t)p.sizes[1];
        p.in_strides[1] = 1;
        p.out_strides[0] = (int64_t)p.sizes[1];
        p.out_strides[1] = 1;
        p.len_strides[0] = 1;
        failures += row(csv, "GATHER", row_bytes == 256 ? "rows-256B" : "rows-1KiB", &p, FILL_ROWS, sm_count);
    }
    for (int random = 0; random <= 1; ++random) { /* GATHER_ELEMENTS along [R, 64]'s inner axis */
        dml_plan p = base(DML_PLAN_INDEXED, 4);
        p.rank = 2;
        p.sizes[1] = 64;
        p.sizes[0] = elements / 64;
        p.index_sizes[0] = 64;
        p.index_strides[0] = 1;
        p.in_strides[0] = 64;
        p.out_strides[0] = p.len_strides[0] = 64;
        p.out_strides[1] = p.len_strides[1] = 1;
        failures += row(csv, "GATHER_ELEMENTS", random ? "inner-random" : "inner-local", &p,
            random ? FILL_RANDOM : FILL_LOCAL, sm_count);
    }
    for (int coins = 0; coins <= 1; ++coins) { /* ELEMENT_WISE_IF, all packed */
        dml_plan p = base(DML_PLAN_SELECT, 1);
        p.rank = 1;
        p.sizes[0] = elements;
        p.in_strides[0] = p.in2_strides[0] = p.out_strides[0] = p.len_strides[0] = 1;
        failures += row(csv, "ELEMENT_WISE_IF", coins ? "random" : "runs-128B", &p, coins ? FILL_COINS : FILL_RUNS,
            sm_count);
    }
    { /* ONE_HOT: [R] indices into [R, 16] */
        dml_plan p = base(DML_PLAN_ONE_HOT, 4);
        p.rank = 2;
        p.axis = 1;
        p.sizes[1] = 16;
        p.sizes[0] = elements / 16;
        p.index_sizes[0] = 16;
        p.out_strides[0] = 16;
        p.out_strides[1] = 1;
        p.len_strides[0] = 1;
        p.in_offset = 1; /* on; off at 0 */
        failures += row(csv, "ONE_HOT", "depth16-inner", &p, FILL_LOCAL, sm_count);
    }
    { /* GATHER_ND: 1 KiB rows of an [8, 8, 256] table by 2-tuples */
        dml_plan p = base(DML_PLAN_INDEXED, 4);
        p.rank = 2;
        p.sizes[1] = 256;
        p.sizes[0] = elements / 256;
        p.index_count = 2;
        p.index_sizes[0] = p.index_sizes[1] = 8;
        p.index_strides[0] = 8 * 256;
        p.index_strides[1] = 256;
        p.in_strides[1] = 1;
        p.out_strides[0] = 256;
        p.out_strides[1] = 1;
        p.len_strides[0] = 2;
        failures += row(csv, "GATHER_ND", "rows-1KiB-2d", &p, FILL_TUPLES, sm_count);
    }
    for (int tuples = 0; tuples <= 1; ++tuples) { /* SCATTER_ND of 1 KiB rows, by 1- and 2-tuples */
        dml_plan p = base(DML_PLAN_SCATTER, 4);
        p.rank = 2;
        p.sizes[1] = 256;
        p.sizes[0] = tuples ? 64 : elements / 256;
        if (tuples) {
            p.index_count = 2;
            p.index_sizes[0] = p.index_sizes[1] = 8;
            p.index_strides[0] = 8 * 256;
            p.index_strides[1] = 256;
            p.len_strides[0] = 2;
        } else {
            p.index_sizes[0] = p.sizes[0];
            p.index_strides[0] = 256;
            p.len_strides[0] = 1;
        }
        p.in_strides[0] = 256;
        p.in_strides[1] = p.out_strides[1] = 1;
        failures += row(csv, "SCATTER_ND", tuples ? "rows-1KiB-2d" : "rows-1KiB", &p, tuples ? FILL_TUPLES : FILL_ROWS,
            sm_count);
    }
    { /* SCATTER_ELEMENTS along axis 0 of [R, 256]: an index per element, equal along the row */
        dml_plan p = base(DML_PLAN_SCATTER, 4);
        p.rank = 2;
        p.sizes[1] = ROWWISE_ELEMENTS;
        p.sizes[0] = elements / ROWWISE_ELEMENTS;
        p.index_sizes[0] = p.sizes[0];
        p.index_strides[0] = ROWWISE_ELEMENTS;
        p.in_strides[0] = p.len_strides[0] = ROWWISE_ELEMENTS;
        p.in_strides[1] = p.out_strides[1] = p.len_strides[1] = 1;
        failures += row(csv, "SCATTER_ELEMENTS", "axis0-rowwise", &p, FILL_ROWWISE, sm_count);
    }
    return failures;
}
