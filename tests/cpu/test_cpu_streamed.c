/*
 * test_cpu_streamed.c — the paths that cpu_fill.c's vectorised sequences
 * and streamed outputs (dml_cpu_run_split's L1 buffer, and the rows that
 * stream themselves under dml_cpu_run_split_streaming: PADDING's narrow
 * rows, CAST's AVX-512 float32 rows) added to the CAST, FILL, PAD (and
 * scale-bias) executors, against tests/api's reference (reference.c):
 *
 *   - sequence rows of every data type at positions up to and past 2^31
 *     (float32 rounds k from 2^24 on), forwards and backwards, at every
 *     instruction-set level, element by element against ref_fill_value;
 *   - streamed outputs (the threshold at 0, and straddled: outputs just
 *     below and above it) written into exact-size buffers that end at a
 *     guard page, starting at every alignment in a 64-byte line, on 1 and 3
 *     threads: nothing outside the output is touched;
 *   - the line writer that PADDING's streamed narrow rows go out through,
 *     against memcpy, pieces in and out of order, some never put.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops/op.h"
#include "cpu_cast.h"
#include "cpu_execute.h"
#include "cpu_fill.h"
#include "cpu_pad.h"
#include "cpu_pool.h"
#include "cpu_rows_avx512.h"
#include "cpu_scale_bias.h"
#include "cpu_simd.h"
#include "guarded.h"
#include "pad_check.h"
#include "reference.h"

static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT64,
    DML_TENSOR_DATA_TYPE_INT64 };
#define TYPE_COUNT (sizeof types / sizeof types[0])

static uint64_t next(uint64_t* s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 27);
}

/* A start or delta: random bits, or (half the time) a small number of the
 * type, so that sums stay finite and rounding is exercised. */
static uint64_t some_value(uint64_t* seed, DML_TENSOR_DATA_TYPE type)
{
    uint64_t bits = next(seed);
    if (bits & 1)
        return bits >> 1;
    const float f = (float)((int64_t)(bits % 20001) - 10000) / 64.0f;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        const double d = f / 3.0;
        memcpy(&bits, &d, 8);
        return bits;
    }
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) /* 0x3C00 is 1.0: a few units around it */
        return 0x3000u + bits % 0x1800u + (bits & 2 ? 0x8000u : 0);
    return bits >> 40;
}

/* A rank-1 sequence plan of n elements whose positions are k0 + j * ks (a
 * fill composed with a window or a reversal), checked element by element. */
static void check_positions(DML_TENSOR_DATA_TYPE type, uint64_t start, uint64_t delta, int64_t k0, int64_t ks,
    uint32_t n)
{
    const uint32_t e = dml_data_type_size(type);
    dml_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.kind = DML_PLAN_FILL;
    plan.rank = 1;
    plan.element_size = e;
    plan.data_type = type;
    plan.sizes[0] = plan.element_count = n;
    plan.in_offset = k0;
    plan.in_strides[0] = ks;
    plan.out_strides[0] = 1;
    const uint64_t mask = e == 8 ? ~0ull : (1ull << (8 * e)) - 1;
    plan.fill_start.u64 = start & mask;
    plan.fill_delta.u64 = delta & mask;
    unsigned char out[300 * 8];
    dml_plan_args args = { NULL, NULL, out, 0, 0, (uint64_t)n * e, NULL, 0 };
    dml_cpu_fill(NULL, NULL, 1, &plan, &args);
    for (uint32_t j = 0; j < n; ++j) {
        const uint64_t want = ref_fill_value((uint32_t)type, start & mask, delta & mask, (uint64_t)(k0 + (int64_t)j * ks));
        uint64_t got = 0;
        memcpy(&got, out + (size_t)j * e, e);
        ck_assert_msg(got == (want & mask), "type %d start %llx delta %llx k %lld: %llx, want %llx", (int)type,
            (unsigned long long)start, (unsigned long long)delta, (long long)(k0 + (int64_t)j * ks),
            (unsigned long long)got, (unsigned long long)(want & mask));
    }
}

static const dml_cpu_isa_level levels[] = { DML_CPU_ISA_PORTABLE, DML_CPU_ISA_AVX2, DML_CPU_ISA_AVX512_VBMI };

START_TEST(sequences_at_far_positions)
{
    const dml_cpu_isa_level saved = dml_cpu_isa_cap(levels[_i]);
    uint64_t seed = 0x5E9 + (uint64_t)_i;
    /* Windows ending at 0, around 2^24 (float32 rounds k from there),
     * below 2^31 (the vector loops' limit) and past it (the scalar loop). */
    static const int64_t origins[] = { 0, 299, (1 << 24) - 150, 1 << 24, 12345677, 2147483647 - 300, 2147483647,
        2147483647 + 200ll, 5000000000ll };
    static const int64_t steps[] = { 1, -1, 3, -7, 64 };
    for (size_t t = 0; t < TYPE_COUNT; ++t)
        for (size_t o = 0; o < sizeof origins / sizeof origins[0]; ++o)
            for (size_t s = 0; s < sizeof steps / sizeof steps[0]; ++s) {
                const uint32_t n = 1 + (uint32_t)(next(&seed) % 300);
                const int64_t ks = steps[s], last = origins[o] + (int64_t)(n - 1) * ks;
                if (origins[o] < 0 || last < 0)
                    continue;
                check_positions(types[t], some_value(&seed, types[t]), some_value(&seed, types[t]), origins[o], ks,
                    n);
            }
    dml_cpu_isa_cap(saved);
}
END_TEST

static void run_cast(cpu_pool* pool, DML_TENSOR_DATA_TYPE from, DML_TENSOR_DATA_TYPE to_type, uint32_t n)
{
    const uint32_t ie = dml_data_type_size(from), oe = dml_data_type_size(to_type);
    uint32_t sizes[1] = { n };
    uint64_t in_bytes, out_bytes;
    ck_assert(dml_calc_buffer_tensor_size(from, 1, sizes, NULL, &in_bytes));
    ck_assert(dml_calc_buffer_tensor_size(to_type, 1, sizes, NULL, &out_bytes));
    DML_BUFFER_TENSOR_DESC bi = { from, DML_TENSOR_FLAG_NONE, 1, sizes, NULL, in_bytes, 0 };
    DML_BUFFER_TENSOR_DESC bo = { to_type, DML_TENSOR_FLAG_NONE, 1, sizes, NULL, out_bytes, 0 };
    DML_TENSOR_DESC ti = { DML_TENSOR_TYPE_BUFFER, &bi }, to = { DML_TENSOR_TYPE_BUFFER, &bo };
    DML_CAST_OPERATOR_DESC cd = { &ti, &to };
    DML_OPERATOR_DESC od = { DML_OPERATOR_CAST, &cd };
    dml_plan plan;
    ck_assert_int_ge(dml_plan_from_desc(&od, &plan), 0);
    const size_t out_exact = (size_t)n * oe;
    unsigned char* in = malloc(in_bytes);
    unsigned char* want = malloc(out_exact);
    ck_assert(in && want);
    for (uint64_t i = 0; i < in_bytes; ++i)
        in[i] = (unsigned char)(i * 131 + 7);
    guarded g;
    guarded_make(&g, out_exact);
    dml_plan_args args = { in, NULL, g.data, in_bytes, 0, out_exact, NULL, 0 };
    dml_cpu_cast(pool, NULL, 3, &plan, &args);
    ref_view vi = { ie, 1, sizes, NULL, in, in_bytes }, vo = { oe, 1, sizes, NULL, want, out_exact };
    ref_cast(&vi, (uint32_t)from, &vo, (uint32_t)to_type);
    ck_assert_msg(memcmp(g.data, want, out_exact) == 0, "cast %d -> %d, %u elements", (int)from, (int)to_type, n);
    guarded_check_before(&g, "run_cast");
    guarded_free(&g);
    free(in);
    free(want);
}

static void run_fill(cpu_pool* pool, DML_TENSOR_DATA_TYPE type, int sequence, uint32_t n, uint64_t start,
    uint64_t delta)
{
    const uint32_t e = dml_data_type_size(type);
    uint32_t sizes[1] = { n };
    uint64_t bytes;
    ck_assert(dml_calc_buffer_tensor_size(type, 1, sizes, NULL, &bytes));
    DML_BUFFER_TENSOR_DESC b = { type, DML_TENSOR_FLAG_NONE, 1, sizes, NULL, bytes, 0 };
    DML_TENSOR_DESC t = { DML_TENSOR_TYPE_BUFFER, &b };
    const uint64_t mask = e == 8 ? ~0ull : (1ull << (8 * e)) - 1;
    DML_SCALAR_UNION s, d;
    memset(&s, 0, sizeof s);
    memset(&d, 0, sizeof d);
    start &= mask;
    delta &= mask;
    memcpy(s.Bytes, &start, 8);
    memcpy(d.Bytes, &delta, 8);
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC cd = { &t, type, s };
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sd = { &t, type, s, d };
    DML_OPERATOR_DESC od = { sequence ? DML_OPERATOR_FILL_VALUE_SEQUENCE : DML_OPERATOR_FILL_VALUE_CONSTANT,
        sequence ? (const void*)&sd : (const void*)&cd };
    dml_plan plan;
    ck_assert_int_ge(dml_plan_from_desc(&od, &plan), 0);
    const size_t out_exact = (size_t)n * e;
    unsigned char* want = malloc(out_exact);
    ck_assert(want);
    guarded g;
    guarded_make(&g, out_exact);
    dml_plan_args args = { NULL, NULL, g.data, 0, 0, out_exact, NULL, 0 };
    dml_cpu_fill(pool, NULL, 3, &plan, &args);
    ref_view v = { e, 1, sizes, NULL, want, out_exact };
    ref_fill(&v, (uint32_t)type, start, delta, sequence);
    ck_assert_msg(memcmp(g.data, want, out_exact) == 0, "fill type %d sequence %d, %u elements", (int)type, sequence,
        n);
    guarded_check_before(&g, "run_fill");
    guarded_free(&g);
    free(want);
}

/* ELEMENT_WISE_IDENTITY with ScaleBias (float32): streamed against the
 * same executor writing directly (its per-element results are tests/api's
 * concern; this checks the pieces land where they belong, and nowhere else). */
static void run_scale_bias(cpu_pool* pool, uint32_t n)
{
    uint32_t sizes[1] = { n };
    uint64_t bytes;
    ck_assert(dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL, &bytes));
    DML_BUFFER_TENSOR_DESC b = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, sizes, NULL, bytes, 0 };
    DML_TENSOR_DESC t = { DML_TENSOR_TYPE_BUFFER, &b };
    DML_SCALE_BIAS sb = { 1.5f, -2.0f };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &t, &t, &sb };
    DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
    dml_plan plan;
    ck_assert_int_ge(dml_plan_from_desc(&od, &plan), 0);
    ck_assert_uint_eq(plan.kind, DML_PLAN_SCALE_BIAS);
    const size_t out_exact = (size_t)n * 4;
    unsigned char* in = malloc(bytes);
    unsigned char* want = malloc(out_exact);
    ck_assert(in && want);
    for (uint64_t i = 0; i < bytes; ++i)
        in[i] = (unsigned char)(i * 131 + 7);
    const uint64_t saved = dml_cpu_stream_min_bytes(UINT64_MAX);
    dml_plan_args direct = { in, NULL, want, bytes, 0, out_exact, NULL, 0 };
    dml_cpu_scale_bias(NULL, NULL, 1, &plan, &direct);
    dml_cpu_stream_min_bytes(saved);
    guarded g;
    guarded_make(&g, out_exact);
    dml_plan_args args = { in, NULL, g.data, bytes, 0, out_exact, NULL, 0 };
    dml_cpu_scale_bias(pool, NULL, 3, &plan, &args);
    ck_assert_msg(memcmp(g.data, want, out_exact) == 0, "scale-bias, %u elements", n);
    guarded_check_before(&g, "run_scale_bias");
    guarded_free(&g);
    free(in);
    free(want);
}

/* _i: bit 0 a pool of 3 threads; bit 1 the threshold straddled (an output
 * of 4000 bytes streams, one below does not) instead of 0. */
START_TEST(streamed_outputs_stay_in_range)
{
    cpu_pool* pool = _i & 1 ? cpu_pool_create(3) : NULL;
    const uint64_t saved = dml_cpu_stream_min_bytes(_i & 2 ? 4000 : 0);
    uint64_t seed = 0x57 + (uint64_t)_i;
    /* Element counts that put the output's first byte at every alignment in
     * a line (its end is at the guard page), around the threshold. */
    const char* quick = getenv("DML_TEST_QUICK"); /* valgrind: the first 16 alignments (the rest natively) */
    const uint32_t extras = quick && *quick == '1' ? 16 : 64;
    for (uint32_t extra = 0; extra < extras; ++extra) {
        for (size_t t = 0; t < TYPE_COUNT; ++t) {
            const uint32_t e = dml_data_type_size(types[t]);
            if (extra % e)
                continue;
            const uint32_t n = 4000 / e + extra / e - 8;
            run_fill(pool, types[t], (int)(extra / e) & 1, n, some_value(&seed, types[t]),
                some_value(&seed, types[t]));
            if (extra % 8 == 0) /* several buffer-sized pieces: a constant's buffer is reused */
                run_fill(pool, types[t], (int)(extra / 8) & 1, 40000 / e + extra / e, some_value(&seed, types[t]),
                    some_value(&seed, types[t]));
        }
        const uint32_t in_sizes[2] = { 9 + extra % 5, 300 + extra }, starts[2] = { 1, 1 + extra % 3 },
                       ends[2] = { 2, 1 };
        for (DML_PADDING_MODE mode = DML_PADDING_MODE_CONSTANT; mode <= DML_PADDING_MODE_SYMMETRIC; ++mode)
            check_padding(pool, (extra & 3) == 0 ? DML_TENSOR_DATA_TYPE_FLOAT32 : DML_TENSOR_DATA_TYPE_UINT8, mode,
                2.5f, in_sizes, starts, ends);
        run_cast(pool, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT32, 1000 + extra);
        run_cast(pool, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, 2000 + extra);
        run_cast(pool, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32, 1000 + extra);
        run_cast(pool, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_UINT8, 4000 + extra);
        run_scale_bias(pool, 1000 + extra);
    }
    dml_cpu_stream_min_bytes(saved);
    cpu_pool_destroy(pool);
}
END_TEST

/* The line writer (cpu_rows_avx512.h) against plain memcpy: a buffer
 * of 1 to 700 bytes (ending at a guard page, starting anywhere in a line)
 * cut into pieces of 1 to 200 bytes, put mostly in order, now and then out
 * of order, some pieces never put (their bytes must keep the old ones),
 * the pieces read from a source that also ends at a guard page. Its own
 * case, "line_writer": only where the CPU has AVX-512 (the writer's
 * contract; not under valgrind, whose CPU lacks it), elsewhere main reports
 * it skipped (77). */
START_TEST(line_writer_matches_memcpy)
{
    ck_assert_msg(have_avx512(), "the line writer needs AVX-512");
    uint64_t seed = 0x11E;
    enum { MOST = 700, PIECES = MOST };
    for (int trial = 0; trial < 400; ++trial) {
        const size_t bytes = 1 + next(&seed) % MOST;
        guarded out, in;
        guarded_make(&out, bytes);
        guarded_make(&in, bytes);
        unsigned char want[MOST];
        for (size_t i = 0; i < bytes; ++i) {
            in.data[i] = (unsigned char)next(&seed);
            want[i] = out.data[i];
        }
        size_t starts[PIECES], lengths[PIECES], pieces = 0;
        for (size_t at = 0; at < bytes; ++pieces) {
            const size_t left = bytes - at, cap = next(&seed) % 4 ? 16 : 200;
            lengths[pieces] = 1 + next(&seed) % (left < cap ? left : cap);
            starts[pieces] = at;
            at += lengths[pieces];
        }
        for (size_t k = 0; k + 1 < pieces; ++k)
            if (next(&seed) % 8 == 0) { /* out of order */
                size_t t = starts[k];
                starts[k] = starts[k + 1], starts[k + 1] = t;
                t = lengths[k];
                lengths[k] = lengths[k + 1], lengths[k + 1] = t;
            }
        dml_cpu_line_writer w = { .line = NULL, .have = 0 };
        for (size_t k = 0; k < pieces; ++k) {
            if (next(&seed) % 6 == 0)
                continue; /* never put */
            dml_cpu_line_writer_put(&w, out.data + starts[k], in.data + starts[k], lengths[k]);
            memcpy(want + starts[k], in.data + starts[k], lengths[k]);
        }
        dml_cpu_line_writer_flush(&w);
        dml_cpu_stream_fence();
        ck_assert_msg(memcmp(out.data, want, bytes) == 0, "trial %d: %zu bytes, %zu pieces, level %s", trial, bytes,
            pieces, dml_cpu_isa_name(dml_cpu_isa()));
        guarded_check_before(&out, "line writer");
        guarded_free(&out);
        guarded_free(&in);
    }
}
END_TEST

int main(void)
{
    /* CTest runs each case alone (CK_RUN_CASE): "line_writer" without
     * AVX-512 is skipped, saying why, not passed with nothing run. */
    const char* only = getenv("CK_RUN_CASE");
    if (!have_avx512()) {
        printf("SKIPPED: line_writer: no AVX-512 at this level (%s)\n", dml_cpu_isa_name(dml_cpu_isa()));
        if (only && strcmp(only, "line_writer") == 0)
            return 77;
    }
    Suite* s = suite_create("cpu_streamed");
    TCase* tc = tcase_create("streamed");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, sequences_at_far_positions, 0, (int)(sizeof levels / sizeof levels[0]));
    tcase_add_loop_test(tc, streamed_outputs_stay_in_range, 0, 4);
    suite_add_tcase(s, tc);
    if (have_avx512()) {
        TCase* writer = tcase_create("line_writer");
        tcase_add_test(writer, line_writer_matches_memcpy);
        suite_add_tcase(s, writer);
    }
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
