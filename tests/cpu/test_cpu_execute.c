/*
 * test_cpu_execute.c — the CPU plan executor against a naive reference:
 * every kind, rank 1-8, element sizes 1/2/4/8, all stride patterns, ranges
 * split anywhere, the thread pool, concurrent dispatches. Whole output
 * buffers are compared, so bytes between and around the addressed elements
 * (sentinels) must come back untouched.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_execute.h"
#include "cpu_pool.h"
#include "cpu_reverse_block.h"
#include "cpu_reverse_select.h"
#include "cpu_simd.h"
#include "cpu_test_util.h"
#include "cpu_transpose_avx512.h"

static const uint32_t element_sizes[] = { 1, 2, 4, 8 };
static const layout out_layouts[] = { LAYOUT_PACKED, LAYOUT_PADDED, LAYOUT_PERMUTED, LAYOUT_NEGATIVE };
static const layout in_layouts[] = { LAYOUT_PACKED, LAYOUT_PADDED, LAYOUT_PERMUTED, LAYOUT_NEGATIVE, LAYOUT_RANDOM,
    LAYOUT_REVERSED, LAYOUT_BROADCAST };
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A cost model under which splitting always pays: every plan given a pool
 * takes the parallel paths. */
static const dml_cpu_cost_model split_always = { .wake_ns = 0.0, .bytes_per_ns = 1.0 };

/* DML_TEST_QUICK=1 (the valgrind runs, and the sanitizer runs of the capped
 * instruction-set levels): every 4th random combination and every 4th
 * two-part cut; the normal build runs them all at every level. */
static int quick_run(void)
{
    static int quick = -1;
    if (quick < 0) {
        const char* value = getenv("DML_TEST_QUICK");
        quick = value && value[0] && strcmp(value, "0") != 0;
    }
    return quick;
}

static int skip_combination(void)
{
    static unsigned counter;
    return quick_run() && (counter++ % 4) != 0;
}

/* Runs the case whole, split at random points (partial rows, executed out of
 * order) and through dml_cpu_execute, comparing every byte each time. */
/* The plan run as [a, count) then [0, a) for cuts a = 0, then steps of
 * 1 + (a % modulus) * scale: every split a thread boundary can make, tail first. */
static void check_two_part_cuts(test_case* t, uint64_t modulus, uint64_t scale)
{
    dml_plan_args args = case_args(t);
    const uint64_t count = t->plan.element_count;
    unsigned cut = 0;
    for (uint64_t a = 0; a <= count; a += 1 + (a % modulus) * scale) {
        if (quick_run() && cut++ % 4 != 0)
            continue;
        case_reset_output(t);
        dml_cpu_execute_range(&t->plan, &args, a, count);
        dml_cpu_execute_range(&t->plan, &args, 0, a);
        const char* diff = case_compare(t);
        ck_assert_msg(diff[0] == 0, "cut %llu: %s", (unsigned long long)a, diff);
    }
}

static void check_case(test_case* t, rng* r, cpu_pool* pool)
{
    dml_plan_args args = case_args(t);
    const uint64_t count = t->plan.element_count;

    case_reset_output(t);
    dml_cpu_execute_range(&t->plan, &args, 0, count);
    const char* diff = case_compare(t);
    ck_assert_msg(diff[0] == 0, "whole range: %s", diff);

    uint64_t cuts[8];
    int n = (int)rng_range(r, 1, 6);
    for (int i = 0; i < n; i++)
        cuts[i] = (uint64_t)rng_range(r, 0, (int64_t)count);
    cuts[n++] = count;
    case_reset_output(t);
    for (int i = n - 1; i >= 0; i--) { /* backwards, overlapping cuts make empty ranges */
        uint64_t begin = 0;
        for (int k = 0; k < n; k++)
            if (cuts[k] < cuts[i] && cuts[k] > begin)
                begin = cuts[k];
        dml_cpu_execute_range(&t->plan, &args, begin, cuts[i]);
    }
    diff = case_compare(t);
    ck_assert_msg(diff[0] == 0, "split range: %s", diff);

    case_reset_output(t);
    dml_cpu_execute(pool, &split_always, 16, &t->plan, &args);
    diff = case_compare(t);
    ck_assert_msg(diff[0] == 0, "dml_cpu_execute: %s", diff);
}

START_TEST(test_gather_layouts)
{
    rng r = { 1000u + (uint64_t)_i };
    const uint32_t esize = element_sizes[_i];
    for (uint32_t rank = 1; rank <= 8; rank++)
        for (size_t o = 0; o < COUNT(out_layouts); o++)
            for (size_t in = 0; in < COUNT(in_layouts); in++)
                for (int seed = 0; seed < 2; seed++) {
                    if (skip_combination())
                        continue;
                    case_spec spec = { .kind = DML_PLAN_GATHER, .rank = rank, .element_size = esize,
                        .max_elements = 2048, .in_layout = in_layouts[in], .out_layout = out_layouts[o] };
                    test_case t;
                    case_make(&t, &r, &spec);
                    check_case(&t, &r, NULL);
                    case_free(&t);
                }
}
END_TEST

/* REVERSE_SUBSEQUENCES; _i picks the axis placement and the lengths layout. */
static void reverse_cases(int where, uint64_t seed)
{
    rng r = { seed };
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (uint32_t rank = where == 0 ? 1 : 2; rank <= 8; rank++)
            for (uint32_t lsize = 4; lsize <= 8; lsize += 4)
                for (size_t o = 0; o < COUNT(out_layouts); o++)
                    for (size_t in = 0; in < COUNT(in_layouts); in++) {
                        if (skip_combination())
                            continue;
                        case_spec spec = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = rank,
                            .element_size = element_sizes[e], .max_elements = 2048, .in_layout = in_layouts[in],
                            .out_layout = out_layouts[o], .lengths_element_size = lsize };
                        if (where == 0) { /* axis innermost */
                            spec.axis = (int32_t)rank - 1;
                            spec.len_inner = 2;
                        } else { /* outer axis, length constant (1) or varying (2) along rows */
                            spec.axis = (int32_t)rng_range(&r, 0, rank - 2);
                            spec.len_inner = where == 1 ? 0 : 1;
                        }
                        test_case t;
                        case_make(&t, &r, &spec);
                        check_case(&t, &r, NULL);
                        case_free(&t);
                    }
}

START_TEST(test_reverse_inner_axis) { reverse_cases(0, 2000); }
END_TEST
START_TEST(test_reverse_outer_axis_row_length) { reverse_cases(1, 3000); }
END_TEST
START_TEST(test_reverse_outer_axis_element_length) { reverse_cases(2, 4000); }
END_TEST

/* Each special length everywhere: 0 and 1 copy, >= axis size reverses all,
 * UINT64_MAX and 2^32+1 must not wrap or truncate. */
START_TEST(test_reverse_edge_lengths)
{
    rng r = { 5000 };
    const uint64_t sizes[3] = { 3, 7, 5 };
    for (uint32_t lsize = 4; lsize <= 8; lsize += 4)
        for (int32_t axis = 0; axis < 3; axis++)
            for (int variant = 0; variant < 8; variant++) {
                uint64_t axis_size = sizes[axis];
                uint64_t values[] = { 0, 1, axis_size - 1, axis_size, axis_size + 1,
                    lsize == 8 ? UINT64_MAX : UINT32_MAX, lsize == 8 ? ((uint64_t)1 << 32) + 1 : 2,
                    lsize == 8 ? ((uint64_t)1 << 63) : ((uint64_t)1 << 31) };
                case_spec spec = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 3, .element_size = 4,
                    .sizes = sizes, .in_layout = LAYOUT_PACKED, .out_layout = LAYOUT_PACKED, .axis = axis,
                    .lengths_element_size = lsize, .len_inner = axis == 2 ? 0 : (int)(variant & 1),
                    .length_values = &values[variant], .length_value_count = 1 };
                test_case t;
                case_make(&t, &r, &spec);
                check_case(&t, &r, NULL);
                case_free(&t);
            }
}
END_TEST

/* The vector length clamps of the column blocks against dml_plan_read_length
 * (core/plan.h), value by value: lengths around the clamp, the 32-bit edges,
 * and for 8-byte lengths values whose low 32 bits are small or whose sign
 * bit is set (no truncation, no signed compare). Each level this CPU has,
 * up to the one under test. */
START_TEST(test_clamp_lengths_vectors)
{
#ifdef DML_CPU_AVX2
    enum { N = 67 }; /* whole vectors of either width and a tail */
    static const uint64_t edges[] = { 0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, (uint64_t)1 << 32,
        ((uint64_t)1 << 32) + 1, ((uint64_t)1 << 32) + 5, (uint64_t)1 << 63, ((uint64_t)1 << 63) + 3, UINT64_MAX,
        INT64_MAX };
    static const uint32_t axis_sizes[] = { 1, 5, 64, 65, 0x7FFFFFFE };
    rng r = { 7100 };
    for (size_t a = 0; a < COUNT(axis_sizes); a++)
        for (uint32_t LS = 4; LS <= 8; LS += 4) {
            const uint32_t T = axis_sizes[a];
            uint64_t wide[N];
            uint32_t narrow[N];
            for (int k = 0; k < N; k++) {
                const int64_t pick = rng_range(&r, 0, (int64_t)COUNT(edges) + 3);
                const uint64_t v = pick < (int64_t)COUNT(edges) ? edges[pick]
                    : (uint64_t)((int64_t)T + rng_range(&r, -2, 2)); /* T - 2 .. T + 2 */
                wide[k] = v;
                narrow[k] = (uint32_t)v;
            }
            const void* lengths = LS == 8 ? (const void*)wide : (const void*)narrow;
            dml_plan rule = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .lengths_element_size = LS, .axis_size = T };
            for (int level = DML_CPU_ISA_AVX2; level <= DML_CPU_ISA_AVX512; level++) {
                if (dml_cpu_isa() < (dml_cpu_isa_level)level)
                    continue;
                uint32_t L[N];
                memset(L, 0xAB, sizeof L);
                const uint64_t done = level == DML_CPU_ISA_AVX2 ? dml_cpu_clamp_lengths_avx2(L, lengths, N, T, LS)
                                                                : dml_cpu_clamp_lengths_avx512(L, lengths, N, T, LS);
                ck_assert_uint_ge(done, N - 16);
                ck_assert_uint_le(done, N);
                for (uint64_t k = 0; k < done; k++)
                    ck_assert_msg(L[k] == dml_plan_read_length(&rule, lengths, (int64_t)k),
                        "level %d LS %u T %u: length %llu clamped to %u", level, LS, T,
                        (unsigned long long)(LS == 8 ? wide[k] : narrow[k]), L[k]);
                for (uint64_t k = done; k < N; k++)
                    ck_assert_uint_eq(L[k], 0xABABABABu); /* nothing past the lengths done */
            }
        }
#endif
}
END_TEST

/* The examples of operators.md, with literal results (checks the reference too). */
/* Rows gathered at stride +-2 whose lengths straddle the vector width and
 * the one-page switch between the executor's two backward loops. */
START_TEST(test_stride2_rows)
{
    rng r = { 4242 };
    static const uint64_t lengths[] = { 1, 2, 5, 8, 9, 15, 16, 17, 31, 32, 33, 34, 65, 100, 255, 256, 257, 511, 512,
        513, 1023, 1024, 1025, 2047, 2048, 2049 };
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (int64_t stride = -2; stride <= 2; stride += 4)
            for (size_t l = 0; l < COUNT(lengths); l++) {
                const uint64_t sizes[2] = { 3, lengths[l] };
                const int64_t in_strides[2] = { (int64_t)(2 * lengths[l] + 5), stride };
                case_spec spec = { .kind = DML_PLAN_GATHER, .rank = 2, .element_size = element_sizes[e],
                    .sizes = sizes, .max_elements = 3 * 2049, .in_strides = in_strides,
                    .in_layout = LAYOUT_PACKED, .out_layout = LAYOUT_PACKED };
                test_case t;
                case_make(&t, &r, &spec);
                check_case(&t, &r, NULL);
                case_free(&t);
            }
}
END_TEST

/* Output rows that interleave n input rows (a DEPTH_TO_SPACE's block of
 * n: out[r * n + j] = in[j * S + r]), n = 2, 3, 4, 8 and 9 (past the zipped
 * path's 8), written and streamed (_i), the run lengths straddling the
 * vector widths, input rows apart by more than a run, in either order. */
START_TEST(test_zipped_rows)
{
    rng r = { 2929 };
    const uint64_t saved = dml_cpu_stream_min_bytes(_i ? 0 : UINT64_MAX); /* _i: streamed */
    static const uint64_t runs[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 513 },
                          blocks[] = { 2, 3, 4, 8, 9 };
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (size_t b = 0; b < COUNT(blocks); b++)
            for (size_t l = 0; l < COUNT(runs); l++) {
                const uint64_t n = blocks[b];
                const uint64_t sizes[3] = { 2, runs[l], n };
                const int64_t row = (int64_t)(runs[l] + 3), across = (int64_t)(l % 2 ? -row : row);
                const int64_t in_strides[3] = { (int64_t)n * row, 1, across };
                case_spec spec = { .kind = DML_PLAN_GATHER, .rank = 3, .element_size = element_sizes[e],
                    .sizes = sizes, .max_elements = 2 * 513 * 9, .in_strides = in_strides,
                    .in_layout = LAYOUT_PACKED, .out_layout = LAYOUT_PACKED };
                test_case t;
                case_make(&t, &r, &spec);
                check_case(&t, &r, NULL);
                case_free(&t);
            }
    dml_cpu_stream_min_bytes(saved);
}
END_TEST

/* The inverse: n output rows from every n-th element of one input run (a
 * SPACE_TO_DEPTH's block of n), which dml_cpu_execute walks group by
 * group (blocks of 2 always, larger ones for streamed outputs), with the
 * outer dimension i just outside the group where its runs follow each
 * other (walk_runs_together: l % 3 == 0): [i, j, rows, w] with j's input
 * stride 1 and w's n. _i: streamed (the threshold lowered to 0, restored
 * after) or not. */
START_TEST(test_unzipped_rows)
{
    rng r = { 3131 + (uint64_t)_i };
    const uint64_t saved = dml_cpu_stream_min_bytes(_i ? 0 : UINT64_MAX);
    cpu_pool* pool = cpu_pool_create(3);
    static const uint64_t widths[] = { 1, 16, 33, 130 }, blocks[] = { 2, 3, 4, 8, 9 };
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (size_t b = 0; b < COUNT(blocks); b++)
            for (size_t l = 0; l < COUNT(widths); l++) {
                const uint64_t n = blocks[b];
                const uint64_t w = widths[l], rows = 3 + l;
                const uint64_t sizes[4] = { 2, n, rows, w };
                const int64_t run = (int64_t)(n * w + l % 3);
                const int64_t in_strides[4] = { run, 1, 2 * run, (int64_t)n };
                case_spec spec = { .kind = DML_PLAN_GATHER, .rank = 4, .element_size = element_sizes[e],
                    .sizes = sizes, .max_elements = 2 * 9 * 6 * 130, .in_strides = in_strides,
                    .in_layout = LAYOUT_PACKED, .out_layout = l % 2 ? LAYOUT_PADDED : LAYOUT_PACKED };
                test_case t;
                case_make(&t, &r, &spec);
                check_case(&t, &r, pool);
                case_free(&t);
            }
    cpu_pool_destroy(pool);
    dml_cpu_stream_min_bytes(saved);
}
END_TEST

/* Rows of every pattern whose output is streamed (the threshold lowered
 * to 0): reversed, stride +-2, broadcast and plain rows, lengths around the
 * vector widths, the smallest staged row and the stage buffer; outputs at
 * every offset the layouts give; whole, split anywhere and on a pool (each
 * task fences its own stores). The threshold is restored after. */
START_TEST(test_streamed_rows)
{
    rng r = { 4343 };
    cpu_pool* pool = cpu_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    const uint64_t saved = dml_cpu_stream_min_bytes(0);
    static const int64_t strides[] = { -1, 2, -2, 0, 1 };
    static const uint64_t byte_lengths[] = { 64, 128, 255, 256, 257, 1024, 4095, 4096, 4097, 8192 + 3 * 64 + 8 };
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (size_t k = 0; k < COUNT(strides); k++)
            for (size_t l = 0; l < COUNT(byte_lengths) + 3; l++) {
                const uint32_t E = element_sizes[e];
                /* The byte lengths, and one element either side of the first. */
                const uint64_t n = l < COUNT(byte_lengths) ? (byte_lengths[l] + E - 1) / E
                                                           : 64 / E - 1 + (l - COUNT(byte_lengths));
                const int64_t a = strides[k] < 0 ? -strides[k] : strides[k];
                const uint64_t sizes[2] = { 3, n };
                const int64_t in_strides[2] = { (int64_t)((uint64_t)(a ? a : 1) * n + 5), strides[k] };
                case_spec spec = { .kind = DML_PLAN_GATHER, .rank = 2, .element_size = E, .sizes = sizes,
                    .in_strides = in_strides, .out_layout = l & 1 ? LAYOUT_PADDED : LAYOUT_PACKED };
                test_case t;
                case_make(&t, &r, &spec);
                check_case(&t, &r, pool);
                case_free(&t);
            }
    /* Reversal along the row with random lengths: reversed and straight parts. */
    for (size_t e = 0; e < COUNT(element_sizes); e++) {
        const uint64_t sizes[2] = { 5, 5000 / element_sizes[e] };
        case_spec spec = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 2, .element_size = element_sizes[e],
            .sizes = sizes, .in_layout = LAYOUT_PACKED, .out_layout = LAYOUT_PACKED, .axis = 1,
            .lengths_element_size = 4, .len_inner = 0 };
        test_case t;
        case_make(&t, &r, &spec);
        check_case(&t, &r, pool);
        case_free(&t);
    }
    dml_cpu_stream_min_bytes(saved);
    cpu_pool_destroy(pool);
}
END_TEST

START_TEST(test_spec_examples)
{
    float input[12], output[12];
    for (int i = 0; i < 12; i++)
        input[i] = (float)(i + 1);
    dml_plan p = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 2, .element_size = 4, .axis = 1,
        .lengths_element_size = 4, .element_count = 12, .axis_size = 4, .sizes = { 3, 4 }, .in_strides = { 4, 1 },
        .out_strides = { 4, 1 }, .len_strides = { 1, 0 } };
    uint32_t lengths1[3] = { 2, 4, 3 };
    dml_plan_args args = { input, lengths1, output, sizeof input, sizeof lengths1, sizeof output, NULL, 0 };
    dml_cpu_execute_range(&p, &args, 0, 12);
    const float want1[12] = { 2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12 };
    ck_assert_mem_eq(output, want1, sizeof(want1));

    p.axis = 0;
    p.axis_size = 3;
    p.len_strides[0] = 0;
    p.len_strides[1] = 1;
    uint32_t lengths2[4] = { 2, 3, 1, 0 };
    args.lengths = lengths2;
    dml_cpu_execute_range(&p, &args, 0, 12);
    const float want2[12] = { 5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12 };
    ck_assert_mem_eq(output, want2, sizeof(want2));

    /* SLICE1 example 2 as a plan: Strides {-2, 2} from start (3, 1) of a 4x4. */
    float input16[16], out4[4];
    for (int i = 0; i < 16; i++)
        input16[i] = (float)(i + 1);
    dml_plan s = { .kind = DML_PLAN_GATHER, .rank = 2, .element_size = 4, .axis = -1, .element_count = 4,
        .in_offset = 13, .sizes = { 2, 2 }, .in_strides = { -8, 2 }, .out_strides = { 2, 1 } };
    dml_plan_args sargs = { input16, NULL, out4, sizeof input16, 0, sizeof out4, NULL, 0 };
    dml_cpu_execute_range(&s, &sargs, 0, 4);
    const float want3[4] = { 14, 16, 6, 8 };
    ck_assert_mem_eq(out4, want3, sizeof(want3));
}
END_TEST

/* Two and three pieces cut at every point of a small plan of short rows. */
START_TEST(test_every_split_point)
{
    rng r = { 6000 };
    const uint64_t sizes[3] = { 3, 4, 5 };
    for (int kind = 0; kind < 4; kind++) {
        case_spec spec = { .kind = kind ? DML_PLAN_REVERSE_SUBSEQUENCES : DML_PLAN_GATHER, .rank = 3,
            .element_size = 2, .sizes = sizes, .in_layout = kind == 0 ? LAYOUT_REVERSED : LAYOUT_PACKED,
            .out_layout = LAYOUT_PADDED, .axis = kind == 1 ? 2 : 1, .lengths_element_size = 4,
            .len_inner = kind == 3 ? 1 : 0 };
        test_case t;
        case_make(&t, &r, &spec);
        dml_plan_args args = case_args(&t);
        const uint64_t count = t.plan.element_count;
        for (uint64_t a = 0; a <= count; a++)
            for (uint64_t b = a; b <= count; b++) {
                case_reset_output(&t);
                dml_cpu_execute_range(&t.plan, &args, b, count);
                dml_cpu_execute_range(&t.plan, &args, 0, a);
                dml_cpu_execute_range(&t.plan, &args, a, b);
                const char* diff = case_compare(&t);
                ck_assert_msg(diff[0] == 0, "cuts %llu %llu: %s", (unsigned long long)a, (unsigned long long)b, diff);
            }
        case_free(&t);
    }
}
END_TEST

/* Independent gathers run as one job (JOIN's parts): each plan's output must
 * match its reference whatever the thread count and wherever the chunks cut
 * across plans, sentinels included. */
START_TEST(test_group_of_plans)
{
    rng r = { 6100 };
    cpu_pool* pool = cpu_pool_create(4);
    for (int round = 0; round < 40; round++) {
        enum { MAX_GROUP = 7 };
        test_case t[MAX_GROUP];
        const dml_plan* plans[MAX_GROUP];
        dml_plan_args args[MAX_GROUP];
        const uint32_t count = (uint32_t)rng_range(&r, 1, MAX_GROUP);
        for (uint32_t i = 0; i < count; i++) {
            case_spec spec = { .kind = DML_PLAN_GATHER, .rank = (uint32_t)rng_range(&r, 1, 4),
                .element_size = element_sizes[rng_range(&r, 0, 3)], .max_elements = (uint64_t)rng_range(&r, 1, 3000),
                .in_layout = in_layouts[rng_range(&r, 0, COUNT(in_layouts) - 1)],
                .out_layout = out_layouts[rng_range(&r, 0, COUNT(out_layouts) - 1)], .axis = -1 };
            case_make(&t[i], &r, &spec);
            case_reset_output(&t[i]);
            plans[i] = &t[i].plan;
            args[i] = case_args(&t[i]);
        }
        const unsigned threads = (unsigned)rng_range(&r, 1, 16);
        dml_cpu_execute_group(pool, &split_always, threads, plans, args, count);
        for (uint32_t i = 0; i < count; i++) {
            const char* diff = case_compare(&t[i]);
            ck_assert_msg(diff[0] == 0, "round %d, plan %u of %u, %u threads: %s", round, i, count, threads, diff);
            case_free(&t[i]);
        }
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* Transposing gathers (rows far apart in the input, neighbour rows close)
 * take the tiled path: row groups, runs that wrap, cuts at every point. */
START_TEST(test_transpose_tiles)
{
    rng r = { 6500 };
    static const uint64_t sizes[3] = { 3, 70, 37 };
    static const int64_t strides[][3] = { { 2590, 1, 70 }, { -2590, -1, 70 }, { 1, 3, -210 }, { 37 * 70, 2, 140 } };
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (size_t k = 0; k < COUNT(strides); k++)
            for (uint32_t rank = 2; rank <= 3; rank++) {
                case_spec spec = { .kind = DML_PLAN_GATHER, .rank = rank, .element_size = element_sizes[e],
                    .sizes = sizes + 3 - rank, .in_strides = strides[k] + 3 - rank,
                    .out_layout = k & 1 ? LAYOUT_PADDED : LAYOUT_PACKED };
                test_case t;
                case_make(&t, &r, &spec);
                check_case(&t, &r, NULL);
                check_two_part_cuts(&t, 7, 1);
                case_free(&t);
            }
}
END_TEST

/* Transposed inputs whose elements are 16 to 63 bytes apart (few rows) also
 * take the register tiles: row counts at, below and above the tile width,
 * columns not a multiple of it, cuts anywhere. */
START_TEST(test_transpose_short_columns)
{
    rng r = { 6600 };
    static const uint64_t row_counts[] = { 2, 7, 8, 16, 17, 20, 33, 63 };
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (size_t k = 0; k < COUNT(row_counts); k++) {
            const uint64_t rows = row_counts[k];
            if (rows * element_sizes[e] < 16 || rows * element_sizes[e] >= 64)
                continue; /* input elements 16 to 63 bytes apart */
            const uint64_t sizes[3] = { 2, rows, 45 };
            const int64_t strides[3] = { (int64_t)(rows * 45), 1, (int64_t)rows };
            case_spec spec = { .kind = DML_PLAN_GATHER, .rank = 3, .element_size = element_sizes[e], .sizes = sizes,
                .in_strides = strides, .out_layout = LAYOUT_PACKED };
            test_case t;
            case_make(&t, &r, &spec);
            check_case(&t, &r, NULL);
            check_two_part_cuts(&t, 11, 1);
            case_free(&t);
        }
}
END_TEST

/* Transposed inputs whose columns are a multiple of 32 KiB apart (one cache
 * set) go through the packed buffer: rows and columns not multiples of the
 * tile or block, cuts anywhere. */
START_TEST(test_transpose_packed_columns)
{
    rng r = { 6700 };
    for (size_t e = 0; e < 2; e++) { /* 1- and 2-byte elements */
        const uint64_t sizes[2] = { 83, 37 };
        const int64_t strides[2] = { 1, (int64_t)(32768 / element_sizes[e]) };
        case_spec spec = { .kind = DML_PLAN_GATHER, .rank = 2, .element_size = element_sizes[e], .sizes = sizes,
            .in_strides = strides, .out_layout = LAYOUT_PACKED };
        test_case t;
        case_make(&t, &r, &spec);
        check_case(&t, &r, NULL);
        check_two_part_cuts(&t, 13, 7);
        case_free(&t);
    }
}
END_TEST

/* Moves the case's output to offset 0 of its (64-byte aligned) buffer and
 * recomputes the expected bytes: the line-aligned output the non-temporal
 * transposes need. Offset 0 never needs more buffer than the case had. */
static void case_align_output(test_case* t)
{
    t->plan.out_offset = 0;
    memcpy(t->expected, t->sentinel, t->output_bytes);
    dml_plan_args args = case_args(t);
    args.output = t->expected;
    reference_execute(&t->plan, &args, t->output_bytes, t->input_bytes);
}

/* Transposed inputs through the AVX-512 tiles (16/E rows by one 64-byte
 * output line): row counts below, at and above a tile and above one
 * call's run of rows; column counts around the tile's columns; input
 * columns packed, padded and 4 KiB apart, walked forwards and backwards;
 * single transposes and batches of two (a rank-3 permutation);
 * output rows whole lines apart or not, at offset 0 (line-aligned) and
 * elsewhere; streamed (threshold 0, non-temporal stores where aligned) or
 * not; whole, split anywhere and on a pool. */
START_TEST(test_transpose_line_tiles)
{
    rng r = { 6900 };
    cpu_pool* pool = cpu_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    for (int stream = 0; stream < 2; stream++) {
        const uint64_t saved = dml_cpu_stream_min_bytes(stream ? 0 : UINT64_MAX);
        for (size_t e = 0; e < COUNT(element_sizes); e++) {
            const uint64_t E = element_sizes[e], V = 16 / E, G = 64 / E;
            /* ... and past a run: the AVX-512 transposer's, the SSE2 tiles' (512 bytes) */
            const uint64_t row_counts[] = { V - 1 + (E == 8), V, 3 * V + 1, DML_CPU_TRANSPOSE_RUN_BYTES(E) / E + V + 1,
                512 / E + V + 1 };
            const uint64_t col_counts[] = { G - 1, G, 2 * G, 2 * G + 3 };
            for (size_t ri = 0; ri < COUNT(row_counts); ri++)
                for (size_t ci = 0; ci < COUNT(col_counts); ci++) {
                    const uint64_t rows = row_counts[ri], cols = col_counts[ci];
                    /* Input pitch: packed, padded, a multiple of 4 KiB; one walked backwards. */
                    const int64_t pitches[] = { (int64_t)rows, (int64_t)rows + 5, (int64_t)(4096 / E) * (rows * E > 4096 ? 2 : 1),
                        -(int64_t)rows - 1 };
                    const int64_t pitch = pitches[(ri + ci + (size_t)stream) % COUNT(pitches)];
                    /* Rank 3 on odd passes: a batch of two transposes (a permuted input),
                     * the row groups stopping at each batch's end. */
                    const uint32_t rank = 2 + (uint32_t)((ri + ci) & 1);
                    const int64_t batch = (int64_t)cols * (pitch < 0 ? -pitch : pitch) + (int64_t)rows;
                    const uint64_t sizes3[3] = { 2, rows, cols };
                    const int64_t in_strides3[3] = { batch, 1, pitch };
                    case_spec spec = { .kind = DML_PLAN_GATHER, .rank = rank, .element_size = (uint32_t)E,
                        .sizes = sizes3 + 3 - rank, .in_strides = in_strides3 + 3 - rank,
                        .out_layout = (ri + ci) % 3 == 2 ? LAYOUT_PADDED : LAYOUT_PACKED };
                    test_case t;
                    case_make(&t, &r, &spec);
                    check_case(&t, &r, pool);
                    check_two_part_cuts(&t, 17, 13);
                    case_align_output(&t);
                    check_case(&t, &r, pool);
                    case_free(&t);
                }
        }
        dml_cpu_stream_min_bytes(saved);
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* A case that must take the column blocks (cpu_reverse_block.c), checked as
 * check_case does. */
static void check_column_block_case(const case_spec* spec, rng* r, cpu_pool* pool)
{
    test_case t;
    case_make(&t, r, spec);
    ck_assert(dml_cpu_reverse_block_applies(&t.plan));
    check_case(&t, r, pool);
    case_free(&t);
}

/* REVERSE_SUBSEQUENCES with the axis just outside the row and a length per
 * column (cpu_reverse_block.c): rows shorter than a vector, longer than a
 * column block, uniform lengths (the vector-load paths) and mixed ones (the
 * gather), 4- and 8-byte lengths, negative and padded strides; whole, split
 * at random points, and split over columns by a pool. */
START_TEST(test_reverse_column_blocks)
{
    rng r = { 6800 };
    cpu_pool* pool = cpu_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    static const uint64_t shapes[][2] = { { 2, 1 }, { 2, 9 }, { 3, 2100 }, { 17, 63 }, { 17, 300 }, { 5, 8 } };
    static const layout in_kinds[] = { LAYOUT_PACKED, LAYOUT_NEGATIVE, LAYOUT_PADDED, LAYOUT_PERMUTED };
    int count = 0;
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (uint32_t lsize = 4; lsize <= 8; lsize += 4)
            for (size_t sh = 0; sh < COUNT(shapes); sh++)
                for (uint64_t groups = 1; groups <= 2; groups++)
                    for (int pattern = 0; pattern < 6; pattern++) {
                        if (skip_combination())
                            continue;
                        const uint64_t T = shapes[sh][0], n = shapes[sh][1];
                        const uint64_t sizes[3] = { groups, T, n };
                        /* random; every column full; one shorter length for all; none; mostly
                         * full; a run of full columns longer than a block, then one of 1 */
                        static uint64_t run[1500];
                        for (size_t k = 0; k < COUNT(run); k++)
                            run[k] = k + 1 < COUNT(run) ? T : 1;
                        const uint64_t values[][9] = { { 0 }, { T }, { T - 1 }, { 0 }, { T, T, T, T, T, T, T, T, 1 } };
                        const size_t value_counts[] = { 0, 1, 1, 1, 9, COUNT(run) };
                        case_spec spec = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = groups > 1 ? 3 : 2,
                            .element_size = element_sizes[e], .in_layout = in_kinds[count % COUNT(in_kinds)],
                            .out_layout = count % 3 ? LAYOUT_PACKED : LAYOUT_PADDED, .lengths_element_size = lsize,
                            .len_inner = 1, .length_values = pattern < 5 ? values[pattern] : run,
                            .length_value_count = value_counts[pattern] };
                        spec.sizes = sizes + (groups > 1 ? 0 : 1);
                        spec.axis = (int32_t)spec.rank - 2;
                        check_column_block_case(&spec, &r, pool);
                        count++;
                    }
    ck_assert_int_gt(count, 0);
    cpu_pool_destroy(pool);
}
END_TEST

/* The vector selects of short axes (cpu_reverse_select.c): axis sizes on
 * both sides of each power of two the kernels round up to (1 .. 65, the cap
 * 64 and past it), columns short of one vector, whole vectors, a tail after
 * them, more than one packed chunk and more than one block; lengths random
 * (0, 1, T - 1, T, past T, 2^32 - 1, 2^32 + 1) or cycling through 0, 1, T - 1,
 * T, T + 5; 4- and 8-byte lengths; axis strides forwards and backwards. */
START_TEST(test_reverse_column_selects)
{
    rng r = { 7100 };
    cpu_pool* pool = cpu_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    static const uint64_t axis_sizes[] = { 1, 2, 3, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65 };
    static const uint64_t columns[] = { 7, 64, 130, 1100 }; /* 1100: two blocks of 1-byte columns at T <= 16 */
    static const layout in_kinds[] = { LAYOUT_PACKED, LAYOUT_NEGATIVE };
    int count = 0;
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (size_t ti = 0; ti < COUNT(axis_sizes); ti++)
            for (size_t ci = 0; ci < COUNT(columns); ci++)
                for (int cycled = 0; cycled <= 1; cycled++) {
                    if (skip_combination())
                        continue;
                    const uint64_t T = axis_sizes[ti], n = columns[ci];
                    /* Keep the case small: fewer columns for the longest axes. */
                    if (T > 32 && n > 130 && element_sizes[e] < 8)
                        continue;
                    const uint64_t sizes[2] = { T, n }, values[] = { 0, 1, T - 1, T, T + 5 };
                    case_spec spec = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 2, .sizes = sizes,
                        .element_size = element_sizes[e], .in_layout = in_kinds[count % COUNT(in_kinds)],
                        .out_layout = count % 3 == 2 ? LAYOUT_NEGATIVE : LAYOUT_PACKED,
                        .lengths_element_size = (count / 2) % 2 ? 8 : 4, .len_inner = 1, .axis = 0,
                        .length_values = cycled ? values : NULL, .length_value_count = cycled ? COUNT(values) : 0 };
                    check_column_block_case(&spec, &r, pool);
                    count++;
                }
    ck_assert_int_gt(count, 0);
    cpu_pool_destroy(pool);
}
END_TEST

/* Outputs of 32 MiB and more are written by the AVX-512 selects with
 * non-temporal stores when the rows are 64-byte aligned ([16, C] 1-byte, C a
 * multiple of 64, buffers aligned): whole, and split over columns by a pool.
 * Skipped in the quick runs: 32 M elements through the reference. */
START_TEST(test_reverse_column_selects_streamed)
{
    if (quick_run())
        return;
    rng r = { 7200 };
    const uint64_t T = 16, n = ((uint64_t)2 << 20) + 64, count = T * n;
    for (uint32_t lsize = 4; lsize <= 8; lsize += 4) {
        dml_plan p = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 2, .element_size = 1, .axis = 0,
            .lengths_element_size = lsize, .element_count = count, .axis_size = T, .sizes = { T, n },
            .in_strides = { (int64_t)n, 1 }, .out_strides = { (int64_t)n, 1 }, .len_strides = { 0, 1 } };
        uint8_t* input = aligned_alloc(64, count);
        uint8_t* output = aligned_alloc(64, count);
        uint8_t* expected = aligned_alloc(64, count);
        uint8_t* lengths = aligned_alloc(64, n * lsize);
        ck_assert(input && output && expected && lengths);
        for (uint64_t i = 0; i < count; i++)
            input[i] = (uint8_t)rng_next(&r);
        for (uint64_t k = 0; k < n; k++) {
            const uint64_t length = (uint64_t)rng_range(&r, 0, (int64_t)T + 2);
            if (lsize == 8)
                memcpy(lengths + k * 8, &length, 8);
            else
                memcpy(lengths + k * 4, &(uint32_t){ (uint32_t)length }, 4);
        }
        const dml_plan_args args = { input, lengths, output, count, n * lsize, count, NULL, 0 };
        dml_plan_args reference = args;
        reference.output = expected;
        reference_execute(&p, &reference, count, count);
        cpu_pool* pool = cpu_pool_create(3);
        ck_assert_ptr_nonnull(pool);
        for (int split = 0; split <= 1; split++) {
            memset(output, 0xA5, count);
            if (split)
                ck_assert_uint_gt(dml_cpu_execute(pool, &split_always, 3, &p, &args), 1);
            else
                dml_cpu_execute_range(&p, &args, 0, count);
            ck_assert_msg(memcmp(output, expected, count) == 0, "lengths of %u bytes, split %d", lsize, split);
        }
        cpu_pool_destroy(pool);
        free(input);
        free(output);
        free(expected);
        free(lengths);
    }
}
END_TEST

/* The executor's stack buffers (transpose packs, column blocks, staging for
 * streamed rows) on a thread with a small stack: each plan below runs whole
 * on a thread of SMALL_STACK_BYTES, below which its guard page would end
 * the test. docs/contract.md promises hosts 64 KiB for a whole dispatch of
 * an optimized build; this leaves 16 KiB of it to the API's own frames.
 * Unoptimized and sanitized builds keep every inlined copy of a buffer in
 * one frame, with redzones (ASan: 296 KiB for the transposes): they run on
 * a default-sized 8 MiB stack. */
#if defined(DML_SANITIZED) || !defined(__OPTIMIZE__)
#define SMALL_STACK_BYTES ((size_t)8 << 20)
#else
#define SMALL_STACK_BYTES ((size_t)48 * 1024)
#endif

static void* execute_whole(void* context)
{
    test_case* t = context;
    dml_plan_args args = case_args(t);
    dml_cpu_execute_range(&t->plan, &args, 0, t->plan.element_count);
    return NULL;
}

START_TEST(test_small_stack)
{
    rng r = { 7300 };
    static const uint64_t square[2] = { 256, 256 }, columns[2] = { 16, 4096 }, long_axis[2] = { 100, 300 };
    static const int64_t transposed[2] = { 1, 256 }, stride2[2] = { 600, -2 };
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (int which = 0; which < 5; which++) {
            case_spec spec = { .kind = DML_PLAN_GATHER, .rank = 2, .element_size = element_sizes[e],
                .sizes = square, .in_strides = transposed };
            if (which == 1 || which == 2) { /* column blocks: vector selects, packed blocks */
                spec = (case_spec){ .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 2,
                    .element_size = element_sizes[e], .sizes = which == 1 ? columns : long_axis,
                    .lengths_element_size = 4, .len_inner = 1, .axis = 0 };
            } else if (which >= 3) { /* stride -2 rows, staged when streamed */
                spec.in_strides = stride2;
            }
            test_case t;
            case_make(&t, &r, &spec);
            case_reset_output(&t);
            const uint64_t saved = which == 4 ? dml_cpu_stream_min_bytes(0) : 0;
            pthread_attr_t attr;
            pthread_t thread;
            ck_assert_int_eq(pthread_attr_init(&attr), 0);
            ck_assert_int_eq(pthread_attr_setstacksize(&attr, SMALL_STACK_BYTES), 0);
            ck_assert_int_eq(pthread_create(&thread, &attr, execute_whole, &t), 0);
            ck_assert_int_eq(pthread_join(thread, NULL), 0);
            pthread_attr_destroy(&attr);
            if (which == 4)
                dml_cpu_stream_min_bytes(saved);
            const char* diff = case_compare(&t);
            ck_assert_msg(diff[0] == 0, "plan %d, %u-byte elements: %s", which, element_sizes[e], diff);
            case_free(&t);
        }
}
END_TEST

/* A composed plan (core/plan_compose.c) may walk part of the reversal axis:
 * sizes[axis] < axis_size, lengths clamped to the whole axis, source rows
 * beyond the walked part. Found by the graph fuzzer: the column-block path
 * assumed the whole axis and left rows unwritten. */
START_TEST(test_reverse_partial_axis)
{
    rng r = { 6900 };
    cpu_pool* pool = cpu_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    static const uint64_t shapes[][2] = { { 3, 2 }, { 5, 9 }, { 17, 300 } };
    int count = 0;
    for (size_t e = 0; e < COUNT(element_sizes); e++)
        for (uint32_t lsize = 4; lsize <= 8; lsize += 4)
            for (size_t sh = 0; sh < COUNT(shapes); sh++)
                for (uint32_t len_inner = 0; len_inner <= 1; len_inner++) {
                    const uint64_t T = shapes[sh][0], n = shapes[sh][1];
                    const uint64_t sizes[3] = { 2, T, n };
                    case_spec spec = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 3, .sizes = sizes,
                        .element_size = element_sizes[e], .in_layout = LAYOUT_PACKED, .out_layout = LAYOUT_PACKED,
                        .lengths_element_size = lsize, .len_inner = len_inner, .axis = 1 };
                    test_case t;
                    case_make(&t, &r, &spec);
                    /* Walk the first T - 1 rows of the T-row axis. */
                    t.plan.sizes[1] = T - 1;
                    t.plan.element_count = 2 * (T - 1) * n;
                    ck_assert(!dml_cpu_reverse_block_applies(&t.plan));
                    dml_plan_args expected = case_args(&t);
                    expected.output = t.expected;
                    memcpy(t.expected, t.sentinel, t.output_bytes);
                    reference_execute(&t.plan, &expected, t.output_bytes, t.input_bytes);
                    check_case(&t, &r, pool);
                    case_free(&t);
                    count++;
                }
    ck_assert_int_gt(count, 0);
    cpu_pool_destroy(pool);
}
END_TEST

/* REVERSE_SUBSEQUENCES whose rows run along the axis, one length per batch
 * ([B, T, n], axis 1, lengths [B, 1, 1]: dmlbench --graph's fused plan and
 * batch-major ReverseSequence): a group of rows is a reversed run and a
 * straight run, copied in the order of their input addresses (a run read
 * downwards goes from its last row). Rows read at strides 1, -1 (the fused
 * plan: a reversal composed with SLICE1), 2 and 0; the axis read upwards,
 * downwards or at stride 0; batches upwards and downwards; every kind of
 * length in every batch; the whole axis and a composed plan's first T - 1
 * rows; streamed or not; whole, split anywhere and on a pool. Gathers of
 * the same rows (runs read downwards) too. */
START_TEST(test_reverse_rows_along_axis)
{
    rng r = { 7200 };
    cpu_pool* pool = cpu_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    static const int64_t row_strides[] = { 1, -1, 2, 0 };
    static const uint64_t shapes[][2] = { { 2, 40 }, { 5, 3 }, { 16, 300 } }; /* T, n */
    int cases = 0;
    for (int stream = 0; stream <= 1; stream++) {
        const uint64_t saved = dml_cpu_stream_min_bytes(stream ? 0 : UINT64_MAX);
        for (size_t e = 0; e < COUNT(element_sizes); e++)
            for (size_t sh = 0; sh < COUNT(shapes); sh++)
                for (size_t k = 0; k < COUNT(row_strides); k++)
                    for (int signs = 0; signs < 6; signs++) /* 1: axis downwards, 2: batches, 4: axis stride 0 */
                        for (int partial = 0; partial <= 1; partial++) {
                            if (skip_combination())
                                continue;
                            const uint64_t T = shapes[sh][0], n = shapes[sh][1], B = 7;
                            const uint32_t lsize = (signs + partial) & 1 ? 8 : 4;
                            const int64_t is = row_strides[k], span = (int64_t)n * (is < 0 ? -is : is ? is : 1);
                            const int64_t as = signs >= 4 ? 0 : signs & 1 ? -span - 3 : span + 3; /* 3 apart */
                            const int64_t bs = (signs & 2 ? -1 : 1) * (int64_t)T * (span + 3);
                            const uint64_t sizes[3] = { B, T, n };
                            const int64_t in_strides[3] = { bs, as, is };
                            /* Each batch a different kind of length: none, one row, inside, the whole
                             * axis, past it, and the 32-bit edges. */
                            const uint64_t values[7] = { 0, 1, T / 2 + 1, T - 1, T, T + 5,
                                lsize == 8 ? ((uint64_t)1 << 32) + 1 : UINT32_MAX };
                            case_spec spec = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 3,
                                .element_size = element_sizes[e], .sizes = sizes, .in_strides = in_strides,
                                .out_layout = signs & 2 ? LAYOUT_NEGATIVE : LAYOUT_PADDED, .axis = 1,
                                .lengths_element_size = lsize, .len_inner = 0, .length_values = values,
                                .length_value_count = COUNT(values) };
                            test_case t;
                            case_make(&t, &r, &spec);
                            ck_assert_int_eq(t.plan.len_strides[1], 0);
                            ck_assert_int_eq(t.plan.len_strides[2], 0);
                            if (partial) { /* walk the first T - 1 rows of the T-row axis */
                                t.plan.sizes[1] = T - 1;
                                t.plan.element_count = B * (T - 1) * n;
                                dml_plan_args expected = case_args(&t);
                                expected.output = t.expected;
                                memcpy(t.expected, t.sentinel, t.output_bytes);
                                reference_execute(&t.plan, &expected, t.output_bytes, t.input_bytes);
                            }
                            check_case(&t, &r, pool);
                            check_two_part_cuts(&t, 4, t.plan.element_count / 32 + 1);
                            case_free(&t);
                            cases++;

                            /* The same rows as a gather (no lengths). */
                            case_spec gather = { .kind = DML_PLAN_GATHER, .rank = 3, .element_size = element_sizes[e],
                                .sizes = sizes, .in_strides = in_strides, .out_layout = spec.out_layout };
                            case_make(&t, &r, &gather);
                            check_case(&t, &r, pool);
                            check_two_part_cuts(&t, 4, t.plan.element_count / 32 + 1);
                            case_free(&t);
                        }
        dml_cpu_stream_min_bytes(saved);
    }
    ck_assert_int_gt(cases, 2 * 4 * 3 * 4 * 6 * 2 / 5);
    cpu_pool_destroy(pool);
}
END_TEST

START_TEST(test_bad_element_size_writes_nothing)
{
    uint8_t input[64] = { 1 }, output[64];
    memset(output, 0xEE, sizeof(output));
    dml_plan p = { .kind = DML_PLAN_GATHER, .rank = 1, .element_size = 3, .axis = -1, .element_count = 4,
        .sizes = { 4 }, .in_strides = { 1 }, .out_strides = { 1 } };
    dml_plan_args args = { input, NULL, output, sizeof input, 0, sizeof output, NULL, 0 };
    dml_cpu_execute_range(&p, &args, 0, 4);
    dml_cpu_execute(NULL, NULL, 16, &p, &args);
    for (size_t i = 0; i < sizeof(output); i++)
        ck_assert_uint_eq(output[i], 0xEE);
}
END_TEST

/* ---- thread pool -------------------------------------------------------- */

typedef struct counting {
    atomic_uint hits[256];
} counting;

static void count_task(void* context, unsigned task)
{
    counting* c = context;
    atomic_fetch_add(&c->hits[task], 1);
}

START_TEST(test_pool_runs_every_task_once)
{
    ck_assert_ptr_null(cpu_pool_create(0));
    ck_assert_ptr_null(cpu_pool_create(1));
    ck_assert_uint_eq(cpu_pool_threads(NULL), 1);
    cpu_pool_destroy(NULL);
    unsigned d = cpu_pool_default_threads();
    ck_assert(d >= 1 && d <= 16);

    cpu_pool* pool = cpu_pool_create(4);
    ck_assert_ptr_nonnull(pool);
    ck_assert_uint_eq(cpu_pool_threads(pool), 4);
    static counting c;
    const unsigned counts[] = { 0, 1, 2, 3, 4, 5, 16, 255 };
    for (int round = 0; round < 300; round++) {
        unsigned n = counts[round % COUNT(counts)];
        for (unsigned i = 0; i < 256; i++)
            atomic_store(&c.hits[i], 0);
        cpu_pool_run(pool, count_task, &c, n);
        unsigned wrong = 0;
        for (unsigned i = 0; i < 256; i++)
            wrong += atomic_load(&c.hits[i]) != (i < n ? 1u : 0u);
        cpu_pool_run(NULL, count_task, &c, n); /* inline */
        for (unsigned i = 0; i < n; i++)
            wrong += atomic_load(&c.hits[i]) != 2u;
        ck_assert_uint_eq(wrong, 0);
    }
    cpu_pool_destroy(pool);

    for (int i = 0; i < 10; i++) { /* create/destroy with and without work */
        pool = cpu_pool_create(2 + (unsigned)i % 3);
        if (i & 1)
            cpu_pool_run(pool, count_task, &c, 7);
        cpu_pool_destroy(pool);
    }
    pool = cpu_pool_create(100); /* clamped */
    ck_assert_uint_eq(cpu_pool_threads(pool), 16);
    cpu_pool_destroy(pool);
}
END_TEST

/* Plans of several MB: the parallel path, chunks cut inside and between rows. */
static void make_large(test_case* t, rng* r, int which)
{
    static const uint64_t flat[1] = { (uint64_t)6 << 20 }, wide[2] = { 96, 16384 }, narrow[2] = { 400000, 3 },
                          cube[3] = { 64, 96, 128 },
                          long_rows[2] = { 2, 1 << 20 };
    case_spec spec = { .kind = DML_PLAN_GATHER, .in_layout = LAYOUT_PACKED, .out_layout = LAYOUT_PACKED,
        .lengths_element_size = 4 };
    switch (which) {
    case 0: spec.rank = 1; spec.element_size = 1; spec.sizes = flat; break;                   /* memcpy */
    case 1: spec.rank = 2; spec.element_size = 4; spec.sizes = wide; spec.in_layout = LAYOUT_REVERSED; break;
    case 2: spec.rank = 2; spec.element_size = 2; spec.sizes = narrow; spec.out_layout = LAYOUT_PADDED; break;
    case 3: spec.rank = 3; spec.element_size = 8; spec.sizes = cube; spec.in_layout = LAYOUT_PERMUTED; break;
    case 4: spec.kind = DML_PLAN_REVERSE_SUBSEQUENCES; spec.rank = 2; spec.element_size = 4; spec.sizes = wide;
        spec.axis = 1; break;
    case 5: spec.kind = DML_PLAN_REVERSE_SUBSEQUENCES; spec.rank = 3; spec.element_size = 2; spec.sizes = cube;
        spec.axis = 1; spec.len_inner = 0; spec.lengths_element_size = 8; break;
    case 6: spec.kind = DML_PLAN_REVERSE_SUBSEQUENCES; spec.rank = 3; spec.element_size = 2; spec.sizes = cube;
        spec.axis = 0; spec.len_inner = 1; spec.in_layout = LAYOUT_NEGATIVE; break;
    default: /* rows longer than a chunk: cuts inside reversed runs */
        spec.kind = DML_PLAN_REVERSE_SUBSEQUENCES; spec.rank = 2; spec.element_size = 4; spec.sizes = long_rows;
        spec.axis = 1; spec.lengths_element_size = 8; break;
    }
    case_make(t, r, &spec);
}
#define LARGE_CASES 8

START_TEST(test_threaded_large_plans)
{
    rng r = { 7000 };
    cpu_pool* pool = cpu_pool_create(4);
    ck_assert_ptr_nonnull(pool);
    for (int which = 0; which < LARGE_CASES; which++) {
        test_case t;
        make_large(&t, &r, which);
                dml_plan_args args = case_args(&t);
        ck_assert_uint_eq(dml_cpu_execute(pool, &split_always, 16, &t.plan, &args), 4);
        const char* diff = case_compare(&t);
        ck_assert_msg(diff[0] == 0, "large case %d: %s", which, diff);
        case_free(&t);
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* Dispatches of growing size: the executor runs each on the thread count
 * the cost model predicts fastest, so the predicted time never falls as the
 * size grows (a fixed threshold would jump up by the wake-up cost where it
 * switches). Checked for a fixed model, for the one measured here, and
 * under thread caps; by the executor's reported choice, not by timing. */
START_TEST(test_split_follows_cost_model)
{
    cpu_pool* pool = cpu_pool_create(4);
    ck_assert_ptr_nonnull(pool);
    const dml_cpu_cost_model fixed = { .wake_ns = 15000.0, .bytes_per_ns = 8.0 };
    const dml_cpu_cost_model measured = dml_cpu_cost_measure(pool);
    ck_assert(measured.wake_ns > 0 && measured.wake_ns < 1e9);
    ck_assert(measured.bytes_per_ns > 0 && measured.bytes_per_ns < 1e6);
    const dml_cpu_cost_model* models[] = { &fixed, &measured };
    const uint64_t largest = (uint64_t)4 << 20;
    uint8_t* input = malloc(largest);
    uint8_t* output = malloc(largest);
    ck_assert(input && output);
    memset(input, 7, largest);
    for (size_t m = 0; m < COUNT(models); m++)
        for (unsigned cap = 1; cap <= 5; cap += 2) {
            double previous = 0;
            unsigned seen_threads = 0;
            for (uint64_t bytes = 1024; bytes <= largest; bytes += bytes / 8) {
                /* A 1-D copy of `bytes` (the executor's choice depends on the output bytes only). */
                dml_plan p = { .kind = DML_PLAN_GATHER, .rank = 1, .element_size = 1, .axis = -1,
                    .element_count = bytes, .sizes = { bytes }, .in_strides = { 1 }, .out_strides = { 1 } };
                dml_plan_args args = { input, NULL, output, bytes, 0, bytes, NULL, 0 };
                const unsigned want = dml_cpu_cost_threads(models[m], bytes, cap < 4 ? cap : 4);
                const unsigned used = dml_cpu_execute(pool, models[m], cap, &p, &args);
                ck_assert_uint_eq(used, want);
                ck_assert_uint_eq(used, dml_cpu_execute_threads(models[m], cap < 4 ? cap : 4, &p));
                ck_assert_uint_le(used, cap);
                ck_assert_int_eq(memcmp(output, input, bytes), 0);
                const double predicted = dml_cpu_cost_predict(models[m], bytes, used);
                ck_assert_msg(predicted >= previous, "model %zu cap %u: %llu bytes predicted %.0f ns < %.0f ns",
                    m, cap, (unsigned long long)bytes, predicted, previous);
                for (unsigned k = 1; k <= (cap < 4 ? cap : 4); k++) /* the choice is the model's best */
                    ck_assert(predicted <= dml_cpu_cost_predict(models[m], bytes, k));
                previous = predicted;
                seen_threads |= 1u << used;
            }
            if (m == 0) /* the fixed model switches inside the sweep when allowed to */
                ck_assert_uint_eq(seen_threads, cap == 1 ? 2u : (1u << 1) | (1u << (cap < 4 ? cap : 4)));
        }
    free(input);
    free(output);
    cpu_pool_destroy(pool);
}
END_TEST

typedef struct dispatcher {
    cpu_pool* pool;
    int which;
    int failures;
} dispatcher;

static void* dispatch_loop(void* arg)
{
    dispatcher* d = arg;
    rng r = { 8000u + (uint64_t)d->which };
    test_case t;
    make_large(&t, &r, d->which);
    dml_plan_args args = case_args(&t);
    for (int i = 0; i < 4; i++) {
        case_reset_output(&t);
        dml_cpu_execute(d->pool, &split_always, 16, &t.plan, &args);
        if (case_compare(&t)[0] != 0)
            d->failures++;
    }
    case_free(&t);
    return NULL;
}

/* Several threads dispatch on one pool: losers of the trylock run inline. */
START_TEST(test_concurrent_dispatch)
{
    cpu_pool* pool = cpu_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    pthread_t threads[4];
    dispatcher d[4];
    for (int i = 0; i < 4; i++) {
        d[i] = (dispatcher){ pool, i + 1, 0 };
        ck_assert_int_eq(pthread_create(&threads[i], NULL, dispatch_loop, &d[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_int_eq(d[i].failures, 0);
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* The plan tests run once per instruction-set level up to this CPU's, so
 * the portable and AVX2 paths are tested on a CPU that would take AVX-512. */
static dml_cpu_isa_level isa_under_test;
static void cap_isa(void)
{
    dml_cpu_isa_cap(isa_under_test);
    ck_assert_int_le(dml_cpu_isa(), isa_under_test);
}

static TCase* plan_tests(const char* name, void (*setup)(void))
{
    TCase* plans = tcase_create(name);
    tcase_set_timeout(plans, 300);
    tcase_add_checked_fixture(plans, setup, NULL);
    tcase_add_loop_test(plans, test_gather_layouts, 0, 4);
    tcase_add_test(plans, test_reverse_inner_axis);
    tcase_add_test(plans, test_reverse_outer_axis_row_length);
    tcase_add_test(plans, test_reverse_outer_axis_element_length);
    tcase_add_test(plans, test_reverse_edge_lengths);
    tcase_add_test(plans, test_clamp_lengths_vectors);
    tcase_add_test(plans, test_spec_examples);
    tcase_add_test(plans, test_stride2_rows);
    tcase_add_loop_test(plans, test_zipped_rows, 0, 2);
    tcase_add_loop_test(plans, test_unzipped_rows, 0, 2);
    tcase_add_test(plans, test_streamed_rows);
    tcase_add_test(plans, test_every_split_point);
    tcase_add_test(plans, test_transpose_tiles);
    tcase_add_test(plans, test_transpose_short_columns);
    tcase_add_test(plans, test_transpose_packed_columns);
    tcase_add_test(plans, test_transpose_line_tiles);
    tcase_add_test(plans, test_reverse_column_blocks);
    tcase_add_test(plans, test_reverse_column_selects);
    tcase_add_test(plans, test_reverse_column_selects_streamed);
    tcase_add_test(plans, test_small_stack);
    tcase_add_test(plans, test_reverse_partial_axis);
    tcase_add_test(plans, test_reverse_rows_along_axis);
    tcase_add_test(plans, test_bad_element_size_writes_nothing);
    return plans;
}

static void cap_portable(void) { isa_under_test = DML_CPU_ISA_PORTABLE; cap_isa(); }
static void cap_avx2(void) { isa_under_test = DML_CPU_ISA_AVX2; cap_isa(); }
static void cap_avx512(void) { isa_under_test = DML_CPU_ISA_AVX512; cap_isa(); }
static void cap_none(void) { isa_under_test = DML_CPU_ISA_AVX512_VBMI; cap_isa(); }

/* The capped plan cases, each created when the CPU's own level is above it
 * (at its own level "plans" runs them). */
static const struct {
    const char* name;
    dml_cpu_isa_level level;
    void (*setup)(void);
} capped_cases[] = {
    { "plans-avx512", DML_CPU_ISA_AVX512, cap_avx512 },
    { "plans-avx2", DML_CPU_ISA_AVX2, cap_avx2 },
    { "plans-portable", DML_CPU_ISA_PORTABLE, cap_portable },
};

/* When a dispatch streams its output, as cpu_stream.h states the rule, at a
 * threshold of 32 MiB: an output of 32 MiB, or of 8 MiB whose traffic
 * (written + read) reaches 24 MiB; what a plan reads is bounded by its
 * bindings and by one element of each input per output element. */
START_TEST(test_stream_rule)
{
    const uint64_t MiB = (uint64_t)1 << 20;
    const uint64_t saved = dml_cpu_stream_min_bytes(32 * MiB);
    ck_assert_int_eq(dml_cpu_streams(32 * MiB, 0), 1);
    ck_assert_int_eq(dml_cpu_streams(24 * MiB, 0), 1);
    ck_assert_int_eq(dml_cpu_streams(24 * MiB - 1, 0), 0); /* a fill that the cache holds */
    ck_assert_int_eq(dml_cpu_streams(16 * MiB, 8 * MiB), 1);
    ck_assert_int_eq(dml_cpu_streams(16 * MiB, 8 * MiB - 1), 0);
    ck_assert_int_eq(dml_cpu_streams(8 * MiB, 16 * MiB), 1);
    ck_assert_int_eq(dml_cpu_streams(8 * MiB - 1, 64 * MiB), 0); /* a small output stays in the cache */
    ck_assert_int_eq(dml_cpu_streams(UINT64_MAX - 1, UINT64_MAX), 1); /* the sum saturates */

    dml_plan p;
    memset(&p, 0, sizeof p);
    p.kind = DML_PLAN_GATHER;
    p.rank = 1;
    p.sizes[0] = 4 * MiB;
    p.element_count = 4 * MiB;
    p.element_size = 4;
    dml_plan_args a;
    memset(&a, 0, sizeof a);
    a.input_bytes = 256; /* a broadcast: its whole input is read */
    uint64_t read = 1;
    ck_assert_uint_eq(dml_cpu_plan_traffic(&p, &a, &read), 16 * MiB);
    ck_assert_uint_eq(read, 256);
    ck_assert_int_eq(dml_cpu_plan_streams(&p, &a), 0);
    a.input_bytes = 64 * MiB; /* a slice of a larger input: one element per output element */
    dml_cpu_plan_traffic(&p, &a, &read);
    ck_assert_uint_eq(read, 16 * MiB);
    ck_assert_int_eq(dml_cpu_plan_streams(&p, &a), 1);
    p.kind = DML_PLAN_CAST; /* u8 -> f32: a byte read per element */
    p.in_element_size = 1;
    dml_cpu_plan_traffic(&p, &a, &read);
    ck_assert_uint_eq(read, 4 * MiB);
    ck_assert_int_eq(dml_cpu_plan_streams(&p, &a), 0);
    p.kind = DML_PLAN_INDEXED; /* indices count: at most 8 bytes per element */
    p.in_element_size = 0;
    a.lengths_bytes = 1024;
    dml_cpu_plan_traffic(&p, &a, &read);
    ck_assert_uint_eq(read, 16 * MiB + 1024);
    ck_assert_uint_eq(dml_cpu_stream_min_bytes(saved), 32 * MiB);
}
END_TEST

/* The threshold each CPU gets (cpu_stream.h): 32 MiB, or on Intel CPUs four
 * times one core's L2, at least 4 MiB, the default when the L2 is unknown or
 * so large that four of it pass 32 MiB; and the process starts at its own
 * CPU's. */
START_TEST(test_stream_threshold_per_cpu)
{
    const uint64_t MiB = (uint64_t)1 << 20;
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(0, 2 * MiB), 32 * MiB); /* AMD, Arm, ... */
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(0, 0), 32 * MiB);
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(1, 2 * MiB), 8 * MiB); /* Sapphire / Emerald Rapids */
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(1, 1280 * 1024), 5 * MiB); /* Ice Lake-SP */
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(1, MiB / 4), 4 * MiB); /* the floor */
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(1, 0), 32 * MiB); /* unknown */
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(1, 8 * MiB), 32 * MiB);
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(1, 8 * MiB + 1), 32 * MiB);
    ck_assert_uint_eq(dml_cpu_stream_threshold_for(1, UINT64_MAX), 32 * MiB);

    /* This process's, read back by setting one: its CPU's, the vendor as
     * /proc/cpuinfo names it (x86 Linux) and the L2 as sysconf does. */
    const uint64_t own = dml_cpu_stream_min_bytes(0);
    FILE* cpuinfo = fopen("/proc/cpuinfo", "r");
    char line[256];
    int intel = 0;
    while (cpuinfo && fgets(line, sizeof line, cpuinfo))
        if (strncmp(line, "vendor_id", 9) == 0) {
            intel = strstr(line, "GenuineIntel") != NULL;
            break;
        }
    if (cpuinfo)
        fclose(cpuinfo);
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    ck_assert_uint_eq(own, dml_cpu_stream_threshold_for(intel, l2 > 0 ? (uint64_t)l2 : 0));
    ck_assert_uint_eq(dml_cpu_stream_min_bytes(own), 0);
    ck_assert_int_eq(dml_cpu_streams(own, 0), 1);
    ck_assert_int_eq(dml_cpu_streams(own - own / 4 - 1, 0), 0);
    ck_assert_int_eq(dml_cpu_streams(own / 4 - 1, own), 0);
}
END_TEST

static Suite* cpu_execute_suite(void)
{
    Suite* s = suite_create("cpu_execute");
    /* The CPU's own level, then each lower one it has. */
    const dml_cpu_isa_level own = dml_cpu_isa();
    suite_add_tcase(s, plan_tests("plans", cap_none));
    for (size_t i = 0; i < sizeof capped_cases / sizeof capped_cases[0]; ++i)
        if (own > capped_cases[i].level)
            suite_add_tcase(s, plan_tests(capped_cases[i].name, capped_cases[i].setup));

    TCase* threads = tcase_create("threads");
    tcase_set_timeout(threads, 300);
    tcase_add_test(threads, test_pool_runs_every_task_once);
    tcase_add_test(threads, test_group_of_plans);
    tcase_add_test(threads, test_stream_rule);
    tcase_add_test(threads, test_stream_threshold_per_cpu);
    tcase_add_test(threads, test_threaded_large_plans);
    tcase_add_test(threads, test_split_follows_cost_model);
    tcase_add_test(threads, test_concurrent_dispatch);
    suite_add_tcase(s, threads);
    return s;
}

int main(void)
{
    /* CTest runs each case alone (CK_RUN_CASE): one this CPU does not create
     * is skipped, saying why, not passed with nothing run. */
    const char* only = getenv("CK_RUN_CASE");
    for (size_t i = 0; only && i < sizeof capped_cases / sizeof capped_cases[0]; ++i)
        if (strcmp(only, capped_cases[i].name) == 0 && dml_cpu_isa() <= capped_cases[i].level) {
            printf("SKIPPED: %s: capping at %s changes nothing on this CPU (level %s): \"plans\" runs it\n", only,
                dml_cpu_isa_name(capped_cases[i].level), dml_cpu_isa_name(dml_cpu_isa()));
            return 77;
        }
    SRunner* runner = srunner_create(cpu_execute_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
