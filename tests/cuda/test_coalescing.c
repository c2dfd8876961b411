/*
 * The coalescing acceptance rule, measured by the emulator (per warp and per
 * memory instruction: bytes requested / bytes of the 32-byte sectors touched):
 *
 *   - stores reach >= 0.9 for every output of 4 KiB or more;
 *   - loads reach >= 0.9 whenever the input's innermost stride is +1 or -1,
 *     "innermost" meaning the plan's innermost dimension (the one the plan put
 *     innermost because it is contiguous in the output), its stride in input
 *     elements (a SLICE1 window stride of 2 makes it 2: exempt).
 *     A tiled launch (a transpose through shared memory) reads along the
 *     input's contiguous dimension: its loads are held to the rule when a
 *     tile row along it is at least a sector.
 *
 * Over SLICE1, SLICE and REVERSE_SUBSEQUENCES x element sizes 1, 2, 4, 8 x the
 * patterns of profiling/gather_cases.h x output sizes x rows of 1 KiB (pitches
 * multiples of 16 bytes) and of 1000 bytes (they are not). Every case's result
 * is also compared with the reference, and for 1 KiB rows the launch mode is
 * asserted, so a regression in the launcher's choices shows as such.
 *
 * Known shortfalls: a row whose byte length is not a multiple of 16 starts
 * at a different 16-byte alignment in every row, so its head and tail
 * elements (before the first and after the last aligned output vector) are
 * copied one by one, in instructions that touch a sector for a few bytes.
 * Even an ideal kernel cannot reach 0.9 on such rows when they are short (a
 * 250-byte row at an odd address spans 9 sectors: 0.87 at best), so those
 * cases are printed and held to a floor of 0.6; DML_COALESCING_STRICT=1
 * holds them to the rule too. See profiling/README.md.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "emulator.h"
/* dml_loads_in_flight_floor; compiled as the emulator
 * compiles it (see test_divisor.c). */
#define DML_CUDA_EMULATION 1
#include "gather_thread.h"
#include "fill_cases.h"
#include "gather_cases.h"
#include "launch.h"
#include "reference.h"

#define RULE 0.9
#define SHORTFALL_FLOOR 0.6
/* Transposes through tiles on rows of every alignment: >= 0.8 loads and
 * stores at dmlcoalesce's size (256 KiB, asserted in
 * transposed_through_tiles); the 64 KiB cases read input rows of 65 bytes
 * (1-byte elements), whose partial first and last words are read element by
 * element, touching their sectors twice: 0.47 (the scalar path: 0.031). */
#define TILED_SHORTFALL_FLOOR 0.45
#define TILED_ODD_ROWS_GOAL 0.8

static int env_flag(const char* name)
{
    const char* v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

static const uint32_t element_sizes[] = { 1, 2, 4, 8 };

/* Why a case may fall short of the rule ("" when it must not). */
static const char* known_shortfall(const gather_case* c, int pattern, uint32_t row_bytes,
    const dml_cuda_launch* launch, int is_store)
{
    (void)c;
    (void)is_store;
    if (launch->is_copy)
        return "";
    if (launch->mode == DML_CUDA_MODE_TILED && row_bytes % 32)
        return "tiles on rows of different sector alignments: a row's piece in a tile starts and ends inside "
               "sectors";
    if (row_bytes % 16 || pattern == PATTERN_PAD_OUT_ODD)
        return "rows of different 16-byte alignments: heads and tails copied element by element";
    return "";
}

/* The launch mode the launcher must pick for 1 KiB rows (-1: copy). */
static int expected_mode(const gather_case* c, int pattern)
{
    const int rs = c->type == DML_OPERATOR_REVERSE_SUBSEQUENCES;
    switch (pattern) {
    case PATTERN_COPY: return rs ? DML_CUDA_MODE_VECTOR : -1;
    case PATTERN_REVERSE_INNER: return rs ? DML_CUDA_MODE_VECTOR : DML_CUDA_MODE_VECTOR_REVERSED;
    case PATTERN_REVERSE_OUTER:
    case PATTERN_BROADCAST:
    case PATTERN_PAD_OUT_64:
    case PATTERN_PAD_OUT_ODD:
    case PATTERN_WINDOW_PLUS_1:
    case PATTERN_TIME_MAJOR:
    case PATTERN_RS_INNER_VARYING:
    case PATTERN_BATCH_MAJOR: return DML_CUDA_MODE_VECTOR;
    case PATTERN_TRANSPOSED: return DML_CUDA_MODE_TILED;
    default: return DML_CUDA_MODE_SCALAR;
    }
}

static const char* mode_name(const dml_cuda_launch* l)
{
    return l->is_copy ? "copy" : l->mode == DML_CUDA_MODE_VECTOR ? "vector"
        : l->mode == DML_CUDA_MODE_VECTOR_REVERSED                ? "vector-reversed"
        : l->mode == DML_CUDA_MODE_TILED                          ? "tiled"
                                                                  : "scalar";
}

typedef struct tally {
    int cases, rule_checks, violations, shortfalls;
} tally;

/* Builds, runs, checks one case; returns the number of rule violations. */
static void run_case(DML_OPERATOR_TYPE type, uint32_t e, int pattern, uint64_t bytes, uint32_t row_bytes, int strict,
    tally* t)
{
    gather_case c;
    if (!gather_pattern_case(type, e, pattern, bytes, row_bytes, &c))
        return;
    char name[160];
    snprintf(name, sizeof name, "%s e=%u %s %llu bytes, rows of %u", gather_operator_name(type), e,
        gather_pattern_name(pattern), (unsigned long long)bytes, row_bytes);
    dml_plan plan;
    DML_RESULT r = gather_case_compile(&c, &plan);
    ck_assert_msg(r >= 0, "%s: %s", name, dml_error_last());
    gather_buffers b;
    const uint32_t offsets[3] = { 0, 0, 0 };
    ck_assert_int_eq(gather_buffers_alloc(&c, offsets, bytes + (uint64_t)pattern * 31 + e, &b), 0);
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&plan, &args, 132, &launch);
    dml_coalescing stats;
    ck_assert_msg(dml_cuda_emulate(&launch, &stats) == 0, "%s", dml_cuda_emulator_violation());

    reference_gather(&c, &b);
    uint64_t first = 0, wrong = reference_mismatches(&b, &first);
    ck_assert_msg(wrong == 0, "%s: %llu bytes differ from the reference, first at %llu", name,
        (unsigned long long)wrong, (unsigned long long)first);

    if (row_bytes == 1024) {
        int want = expected_mode(&c, pattern);
        int got = launch.is_copy ? -1 : launch.mode;
        ck_assert_msg(got == want, "%s: launch mode %s, expected %d", name, mode_name(&launch), want);
    }

    t->cases++;
    uint64_t out_bytes = plan.element_count * plan.element_size;
    int64_t inner = plan.in_strides[plan.rank - 1];
    double efficiency[2] = { dml_coalescing_load_efficiency(&stats), dml_coalescing_store_efficiency(&stats) };
    /* A tiled launch reads along the input's contiguous dimension, a tile
     * row of min(32, across_size) elements per warp instruction: held to
     * the rule when that is a sector or more. */
    const int tiled_loads = !launch.is_copy && launch.mode == DML_CUDA_MODE_TILED &&
        launch.params.across_size * c.element_size >= DML_SECTOR_BYTES;
    int applies[2] = { inner == 1 || inner == -1 || tiled_loads, out_bytes >= 4096 };
    for (int is_store = 0; is_store < 2; ++is_store) {
        if (!applies[is_store])
            continue;
        t->rule_checks++;
        if (efficiency[is_store] >= RULE)
            continue;
        const char* why = known_shortfall(&c, pattern, row_bytes, &launch, is_store);
        if (why[0] && !strict) {
            t->shortfalls++;
            printf("known shortfall: %s: %s efficiency %.3f (%s launch): %s\n", name, is_store ? "store" : "load",
                efficiency[is_store], mode_name(&launch), why);
            const double floor = launch.mode == DML_CUDA_MODE_TILED ? TILED_SHORTFALL_FLOOR : SHORTFALL_FLOOR;
            ck_assert_msg(efficiency[is_store] >= floor, "%s: %s efficiency %.3f below even %.2f", name,
                is_store ? "store" : "load", efficiency[is_store], floor);
        } else {
            t->violations++;
            fprintf(stderr, "RULE VIOLATED: %s: %s efficiency %.3f < %.1f (%s launch)%s%s\n", name,
                is_store ? "store" : "load", efficiency[is_store], RULE, mode_name(&launch), why[0] ? ": " : "", why);
        }
    }
    gather_buffers_free(&b);
}

static void run_all(DML_OPERATOR_TYPE type, uint32_t row_bytes)
{
    const int quick = env_flag("DML_TEST_QUICK"), strict = env_flag("DML_COALESCING_STRICT");
    static const uint64_t full_sizes[] = { 4096, 64 * 1024, 256 * 1024 };
    static const uint64_t quick_sizes[] = { 4096, 16 * 1024 };
    const uint64_t* sizes = quick ? quick_sizes : full_sizes;
    size_t n = quick ? 2 : 3;
    tally t = { 0, 0, 0, 0 };
    for (size_t s = 0; s < sizeof element_sizes / sizeof element_sizes[0]; ++s)
        for (int pattern = 0; pattern < PATTERN_COUNT; ++pattern)
            for (size_t k = 0; k < n; ++k)
                run_case(type, element_sizes[s], pattern, sizes[k], row_bytes, strict, &t);
    printf("%s, rows of %u bytes: %d cases, %d rule checks, %d known shortfalls, %d violations\n",
        gather_operator_name(type), row_bytes, t.cases, t.rule_checks, t.shortfalls, t.violations);
    ck_assert_int_gt(t.cases, 0);
    ck_assert_msg(t.violations == 0, "%d cases break the coalescing rule (see stderr)", t.violations);
}

START_TEST(rule_slice1_aligned_rows) { run_all(DML_OPERATOR_SLICE1, 1024); }
END_TEST
START_TEST(rule_slice_aligned_rows) { run_all(DML_OPERATOR_SLICE, 1024); }
END_TEST
START_TEST(rule_reverse_subsequences_aligned_rows) { run_all(DML_OPERATOR_REVERSE_SUBSEQUENCES, 1024); }
END_TEST
START_TEST(rule_slice1_odd_rows) { run_all(DML_OPERATOR_SLICE1, 1000); }
END_TEST
START_TEST(rule_slice_odd_rows) { run_all(DML_OPERATOR_SLICE, 1000); }
END_TEST
START_TEST(rule_reverse_subsequences_odd_rows) { run_all(DML_OPERATOR_REVERSE_SUBSEQUENCES, 1000); }
END_TEST

/* Vector launches coalesce perfectly whatever the SM count (grid-stride loop). */
START_TEST(vector_launches_independent_of_sm_count)
{
    static const uint32_t sms[] = { 1, 2, 7, 132 };
    for (size_t s = 0; s < sizeof element_sizes / sizeof element_sizes[0]; ++s) {
        gather_case c;
        ck_assert(gather_pattern_case(DML_OPERATOR_SLICE1, element_sizes[s], PATTERN_REVERSE_INNER, 64 * 1024, 1024,
            &c));
        dml_plan plan;
        ck_assert_int_ge(gather_case_compile(&c, &plan), 0);
        for (size_t k = 0; k < sizeof sms / sizeof sms[0]; ++k) {
            gather_buffers b;
            const uint32_t offsets[3] = { 0, 0, 0 };
            ck_assert_int_eq(gather_buffers_alloc(&c, offsets, k, &b), 0);
            dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
            dml_cuda_launch launch;
            dml_cuda_prepare(&plan, &args, sms[k], &launch);
            ck_assert_int_eq(launch.mode, DML_CUDA_MODE_VECTOR_REVERSED);
            ck_assert_uint_le(launch.grid, sms[k] * 8);
            dml_coalescing stats;
            ck_assert_msg(dml_cuda_emulate(&launch, &stats) == 0, "%s", dml_cuda_emulator_violation());
            ck_assert_double_ge(dml_coalescing_load_efficiency(&stats), 0.999);
            ck_assert_double_ge(dml_coalescing_store_efficiency(&stats), 0.999);
            ck_assert_uint_eq(stats.store_bytes, plan.element_count * plan.element_size);
            reference_gather(&c, &b);
            uint64_t first = 0;
            ck_assert_uint_eq(reference_mismatches(&b, &first), 0);
            gather_buffers_free(&b);
        }
    }
}
END_TEST

/* Fills store in 16-byte windows: contiguous outputs at >= 0.9 of their
 * sectors (every store but a row's ends is a whole line's quarter), at any
 * SM count, at any start in a 16-byte line; padded rows of 1000 bytes at
 * >= 0.85 (a row's ends take up to four aligned pieces each); every byte of
 * the output written, once, and nothing else (the emulator checks the
 * bounds). */
START_TEST(fill_stores_coalesce)
{
    static const uint32_t sms[] = { 1, 7, 132 };
    for (int sequence = 0; sequence < 2; ++sequence)
        for (size_t s = 0; s < sizeof element_sizes / sizeof element_sizes[0]; ++s)
            for (int pattern = 0; pattern < FILL_PATTERN_COUNT; ++pattern)
                for (size_t k = 0; k < sizeof sms / sizeof sms[0]; ++k) {
                    const uint32_t e = element_sizes[s], shift = (uint32_t)(k * e) % 16;
                    dml_plan plan;
                    uint64_t bytes;
                    ck_assert_int_eq(fill_case_plan(sequence, e, pattern, 64 * 1024, 1000, &plan, &bytes), 0);
                    void* allocation = NULL;
                    ck_assert_int_eq(posix_memalign(&allocation, 64, bytes + 64), 0);
                    unsigned char* block = allocation;
                    dml_plan_args args = { NULL, NULL, block + shift, 0, 0, bytes, NULL, 0 };
                    dml_cuda_launch launch;
                    dml_cuda_prepare(&plan, &args, sms[k], &launch);
                    ck_assert(launch.fill && launch.fill_params.vector);
                    dml_coalescing stats;
                    ck_assert_msg(dml_cuda_emulate(&launch, &stats) == 0, "%s", dml_cuda_emulator_violation());
                    ck_assert_uint_eq(stats.store_bytes, plan.element_count * e);
                    ck_assert_uint_eq(stats.load_requests, 0);
                    double efficiency = dml_coalescing_store_efficiency(&stats);
                    ck_assert_msg(efficiency >= (pattern == FILL_CONTIGUOUS ? 0.9 : 0.85), "%s e=%u %s sm=%u: store efficiency %.3f",
                        sequence ? "sequence" : "constant", e, fill_pattern_name(pattern), sms[k], efficiency);
                    free(block);
                }
}
END_TEST

/* Loads in flight, as the emulator counts them per thread, on rows of 1 KiB
 * and of 1000 bytes (heads and tails at every alignment): every pass of a
 * scalar or vector thread issues all its loads before its first store (none
 * after it), and the fewest loads a thread issues before its first store
 * reach the floor of its path (dml_loads_in_flight_floor, the floor
 * test_sass_loads.c asserts in the compiled kernels): a scalar thread with a
 * full pass its 4 elements (and their 4 sequence lengths), a vector thread
 * the 16-byte vectors of its 4 items, all loaded together on every vector
 * path (more when misaligned, each read as two). A tiled thread
 * loads its 4 tile rows before the barrier. */
static void loads_in_flight_case(DML_OPERATOR_TYPE type, uint32_t e, int pattern, uint32_t row_bytes, int checked[3])
{
    gather_case c;
    if (!gather_pattern_case(type, e, pattern, 64 * 1024, row_bytes, &c))
        return;
    dml_plan plan;
    ck_assert_int_ge(gather_case_compile(&c, &plan), 0);
    gather_buffers b;
    const uint32_t offsets[3] = { 0, 0, 0 };
    ck_assert_int_eq(gather_buffers_alloc(&c, offsets, 3, &b), 0);
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&plan, &args, 132, &launch);
    dml_coalescing stats;
    ck_assert_msg(dml_cuda_emulate(&launch, &stats) == 0, "%s", dml_cuda_emulator_violation());
    reference_gather(&c, &b);
    uint64_t first = 0;
    ck_assert_uint_eq(reference_mismatches(&b, &first), 0);
    gather_buffers_free(&b);
    if (launch.is_copy)
        return;
    char name[128];
    snprintf(name, sizeof name, "%s %s e=%u rows of %u bytes (%s launch)", gather_operator_name(type),
        gather_pattern_name(pattern), e, row_bytes, mode_name(&launch));
    ck_assert_msg(stats.full_threads > 0, "%s: no thread with a full pass", name);
    if (launch.mode == DML_CUDA_MODE_TILED) {
        ck_assert_msg(stats.min_loads_before_store >= DML_CUDA_ITEMS, "%s: %llu loads", name,
            (unsigned long long)stats.min_loads_before_store);
        checked[0]++;
        return;
    }
    const uint64_t floor = dml_loads_in_flight_floor(launch.element_size, launch.mode, launch.wide, launch.reverse);
    ck_assert_msg(stats.max_loads_after_store == 0, "%s: a thread issued %llu loads after a store of the same pass",
        name, (unsigned long long)stats.max_loads_after_store);
    if (launch.mode == DML_CUDA_MODE_SCALAR) {
        ck_assert_msg(stats.min_loads_before_store >= floor, "%s: %llu loads before the first store, floor %llu",
            name, (unsigned long long)stats.min_loads_before_store, (unsigned long long)floor);
        checked[1]++;
        return;
    }
    const uint64_t group = DML_CUDA_ITEMS; /* every vector path loads all its items together */
    ck_assert_msg(stats.vector_items_per_pass == group, "%s: %llu vectors stored in a first pass, expected %llu", name,
        (unsigned long long)stats.vector_items_per_pass, (unsigned long long)group);
    ck_assert_msg(stats.min_vector_loads_before_store >= floor,
        "%s: %llu 16-byte loads before the first store, floor %llu", name,
        (unsigned long long)stats.min_vector_loads_before_store, (unsigned long long)floor);
    checked[2]++;
}

START_TEST(loads_in_flight_floors)
{
    static const DML_OPERATOR_TYPE types[] = { DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE,
        DML_OPERATOR_REVERSE_SUBSEQUENCES };
    static const uint32_t row_bytes[] = { 1024, 1000 };
    int checked[3] = { 0, 0, 0 };
    const int quick = env_flag("DML_TEST_QUICK"); /* valgrind: one row length per case, alternating */
    for (size_t t = 0; t < 3; ++t)
        for (size_t s = 0; s < sizeof element_sizes / sizeof element_sizes[0]; ++s)
            for (int pattern = 0; pattern < PATTERN_COUNT; ++pattern)
                for (size_t r = 0; r < 2; ++r)
                    if (!quick || r == (t + s + (size_t)pattern) % 2)
                        loads_in_flight_case(types[t], element_sizes[s], pattern, row_bytes[r], checked);
    ck_assert_int_gt(checked[0], 0);
    ck_assert_int_gt(checked[1], 0);
    ck_assert_int_gt(checked[2], 0);
}
END_TEST

/* The transposed pattern goes through shared-memory tiles, for SLICE1,
 * SLICE and REVERSE_SUBSEQUENCES (reversed along the tile's across side): at
 * dmlcoalesce's defaults (256 KiB, rows of 1 KiB, 132 SMs) loads and stores
 * reach 0.9 for every element size, with at most one extra wavefront per
 * shared-memory instruction from bank conflicts; and 0.8 with rows of 1000
 * bytes (each input row starts at a different alignment). */
static void transposed_figures(DML_OPERATOR_TYPE type, uint32_t e, uint32_t row_bytes, dml_coalescing* stats)
{
    gather_case c;
    ck_assert(gather_pattern_case(type, e, PATTERN_TRANSPOSED, 256 * 1024, row_bytes, &c));
    dml_plan plan;
    ck_assert_int_ge(gather_case_compile(&c, &plan), 0);
    gather_buffers b;
    const uint32_t offsets[3] = { 0, 0, 0 };
    ck_assert_int_eq(gather_buffers_alloc(&c, offsets, e, &b), 0);
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&plan, &args, 132, &launch);
    ck_assert_int_eq(launch.mode, DML_CUDA_MODE_TILED);
    ck_assert_msg(dml_cuda_emulate(&launch, stats) == 0, "%s", dml_cuda_emulator_violation());
    reference_gather(&c, &b);
    uint64_t first = 0;
    ck_assert_uint_eq(reference_mismatches(&b, &first), 0);
    ck_assert_uint_gt(stats->shared_requests, 0);
    printf("%s transposed e=%u rows of %u bytes: load %.3f store %.3f, %.3f extra wavefronts per shared "
           "instruction\n",
        gather_operator_name(type), e, row_bytes, dml_coalescing_load_efficiency(stats), dml_coalescing_store_efficiency(stats),
        dml_coalescing_bank_conflicts(stats));
    gather_buffers_free(&b);
}

START_TEST(transposed_through_tiles)
{
    static const DML_OPERATOR_TYPE types[] = { DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE,
        DML_OPERATOR_REVERSE_SUBSEQUENCES };
    const int quick = env_flag("DML_TEST_QUICK"); /* valgrind: each element size with one operator */
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
        for (size_t s = 0; s < sizeof element_sizes / sizeof element_sizes[0]; ++s) {
            if (quick && s % 3 != t)
                continue;
            dml_coalescing stats;
            transposed_figures(types[t], element_sizes[s], 1024, &stats);
            ck_assert_double_ge(dml_coalescing_load_efficiency(&stats), RULE);
            ck_assert_double_ge(dml_coalescing_store_efficiency(&stats), RULE);
            ck_assert_double_le(dml_coalescing_bank_conflicts(&stats), 1.0);
            transposed_figures(types[t], element_sizes[s], 1000, &stats);
            ck_assert_double_ge(dml_coalescing_load_efficiency(&stats), TILED_ODD_ROWS_GOAL);
            ck_assert_double_ge(dml_coalescing_store_efficiency(&stats), TILED_ODD_ROWS_GOAL);
            ck_assert_double_le(dml_coalescing_bank_conflicts(&stats), 1.0);
        }
}
END_TEST

static Suite* suite(void)
{
    Suite* s = suite_create("cuda_coalescing");
    TCase* tc = tcase_create("rule");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, rule_slice1_aligned_rows);
    tcase_add_test(tc, rule_slice_aligned_rows);
    tcase_add_test(tc, rule_reverse_subsequences_aligned_rows);
    tcase_add_test(tc, rule_slice1_odd_rows);
    tcase_add_test(tc, rule_slice_odd_rows);
    tcase_add_test(tc, rule_reverse_subsequences_odd_rows);
    tcase_add_test(tc, vector_launches_independent_of_sm_count);
    tcase_add_test(tc, fill_stores_coalesce);
    tcase_add_test(tc, loads_in_flight_floors);
    tcase_add_test(tc, transposed_through_tiles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner* runner = srunner_create(suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
