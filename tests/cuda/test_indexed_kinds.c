/*
 * test_indexed_kinds.c — the data-dependent kinds' CUDA thread code
 * (indexed_thread.h, scatter_thread.h, select_thread.h)
 * in the emulator, every access checked against exact-size bound ranges
 * (the index or condition tensor against the lengths range, the second
 * input against input2's):
 *
 *   - against indexed_cases.c's naive reference, byte for byte: random plans
 *     of ranks 1-8, 1-, 2-, 4- and 8-byte elements, 4- and 8-byte indices,
 *     signed and unsigned, in-range, negative, out-of-range and hostile
 *     indices (INT64_MIN, UINT64_MAX, 2^63, ...), 32- and 64-bit indexing,
 *     grids of 1-3 SMs (grid-stride loops); gathers of rows at every
 *     relative alignment (16-byte lines or elements);
 *   - indices that are all hostile: gathers read only the clamped ends,
 *     scatters write nothing, ONE_HOT is all "off";
 *   - a scatter of many updates to one element: it holds one of them;
 *   - the launcher's paths (rows where the innermost dimension is a
 *     contiguous row with one index, flat otherwise);
 *   - coalescing: gathers of rows (by 1- and 2-tuples), GATHER_ELEMENTS,
 *     SELECT, ONE_HOT, scatters of rows (1- and 2-tuples) and a
 *     SCATTER_ELEMENTS along the outer axis store (and, where contiguous,
 *     load) >= 0.9 of the sectors they touch.
 *
 * DML_TEST_QUICK=1 (valgrind) runs a quarter of the random cases.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator.h"
#include "indexed_cases.h"
#include "launch.h"

static int quick(void)
{
    const char* v = getenv("DML_TEST_QUICK");
    return v && *v && strcmp(v, "0") != 0;
}

/* Emulates the case's launch on `sms` SMs; the launch is returned. */
static void emulate(indexed_case* c, uint32_t sms, dml_cuda_launch* launch, dml_coalescing* stats)
{
    const dml_plan_args args = indexed_case_args(c);
    dml_cuda_prepare(&c->plan, &args, sms, launch);
    ck_assert_msg(launch->indexed, "%s: not an indexed launch", c->name);
    const int result = dml_cuda_emulate(launch, stats);
    ck_assert_msg(result == 0, "%s (e %u, index %u bytes %s, index32 %u, rows %u): emulation failed: %s", c->name,
        c->plan.element_size, c->plan.lengths_element_size, c->plan.index_signed ? "signed" : "unsigned",
        c->plan.index32, launch->indexed_params.rows, dml_cuda_emulator_violation());
}

static void check_against_reference(indexed_case* c, uint32_t sms)
{
    dml_cuda_launch launch;
    indexed_case_reference(c);
    emulate(c, sms, &launch, NULL);
    for (size_t i = 0; i < c->output_bytes; ++i)
        if (c->output[i] != c->expected[i])
            ck_abort_msg("%s (e %u, index %u bytes %s, index32 %u, rows %u, sms %u): output byte %zu is %#x, the "
                         "reference %#x",
                c->name, c->plan.element_size, c->plan.lengths_element_size,
                c->plan.index_signed ? "signed" : "unsigned", c->plan.index32, launch.indexed_params.rows, sms, i,
                c->output[i], c->expected[i]);
}

static void random_cases(indexed_shape shape, uint64_t seed, int count)
{
    static const uint32_t sizes[4] = { 1, 2, 4, 8 };
    indexed_rng r = { seed };
    if (quick())
        count /= 4;
    for (int n = 0; n < count; ++n) {
        indexed_case c;
        ck_assert(indexed_case_make(&c, shape, sizes[n % 4], (n / 4) % 2, 1500, &r) == 0);
        check_against_reference(&c, 1 + (uint32_t)(indexed_next(&r) % 3));
        indexed_case_free(&c);
    }
}

START_TEST(gathers_match_the_reference) { random_cases(SHAPE_GATHER, 11, 64); }
END_TEST
START_TEST(gathers_of_rows_match_the_reference) { random_cases(SHAPE_GATHER_ROWS, 12, 64); }
END_TEST
START_TEST(scatters_nd_match_the_reference) { random_cases(SHAPE_SCATTER_ND, 13, 64); }
END_TEST
START_TEST(scatters_elements_match_the_reference) { random_cases(SHAPE_SCATTER_ELEMENTS, 14, 64); }
END_TEST
START_TEST(selects_match_the_reference) { random_cases(SHAPE_SELECT, 15, 64); }
END_TEST
START_TEST(one_hots_match_the_reference) { random_cases(SHAPE_ONE_HOT, 16, 64); }
END_TEST

/* Sets every index element of the case to `value` (in its element size). */
static void set_all_indices(indexed_case* c, uint64_t value)
{
    const uint32_t s = c->plan.lengths_element_size;
    for (size_t i = 0; i < c->indices_bytes; i += s)
        if (s == 8)
            memcpy(c->indices + i, &value, 8);
        else {
            const uint32_t v = (uint32_t)value;
            memcpy(c->indices + i, &v, 4);
        }
}

/* Hostile index values only: INT64_MIN (2^63 unsigned), UINT64_MAX (-1
 * signed: in range), INT64_MAX, INT32_MIN, UINT32_MAX, each read at 4 and 8
 * bytes, signed and unsigned. The reference says what each rule makes of
 * them; the emulator proves nothing outside the ranges is touched. */
START_TEST(hostile_indices_stay_inside)
{
    static const uint64_t hostile[] = { 0x8000000000000000ull, UINT64_MAX, 0x7FFFFFFFFFFFFFFFull,
        0xFFFFFFFF80000000ull, 0xFFFFFFFFull, 0x80000000ull };
    static const indexed_shape shapes[] = { SHAPE_GATHER, SHAPE_GATHER_ROWS, SHAPE_SCATTER_ND, SHAPE_SCATTER_ELEMENTS,
        SHAPE_ONE_HOT };
    indexed_rng r = { 77 };
    int scatter_wrote_nothing = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (size_t h = 0; h < sizeof hostile / sizeof hostile[0]; ++h)
            for (int variant = 0; variant < 4; ++variant) {
                indexed_case c; /* index sizes and signedness vary from case to case */
                ck_assert(indexed_case_make(&c, shapes[s], 1u << variant, variant % 2, 600, &r) == 0);
                set_all_indices(&c, hostile[h]);
                check_against_reference(&c, 2);
                const uint64_t read = c.plan.lengths_element_size == 8 ? hostile[h] : (uint32_t)hostile[h];
                const int in_range = read == 0 || (c.plan.index_signed && /* 0 or -1 as read */
                    read == (c.plan.lengths_element_size == 8 ? UINT64_MAX : 0xFFFFFFFFull));
                if (c.plan.kind == DML_PLAN_SCATTER && !in_range) {
                    ck_assert_msg(memcmp(c.output, c.initial, c.output_bytes) == 0,
                        "%s: a scatter of out-of-range indices wrote", c.name);
                    scatter_wrote_nothing++;
                }
                indexed_case_free(&c);
            }
    ck_assert(scatter_wrote_nothing > 0);
}
END_TEST

/* Every update aimed at one element: it holds one of them, whole. */
START_TEST(duplicate_targets_hold_one_update)
{
    indexed_rng r = { 5 };
    for (int n = 0; n < 8; ++n) {
        indexed_case c;
        ck_assert(indexed_case_make(&c, SHAPE_SCATTER_ELEMENTS, 1u << (n % 4), n % 2, 800, &r) == 0);
        set_all_indices(&c, 0);
        dml_cuda_launch launch;
        emulate(&c, 2, &launch, NULL);
        const dml_plan* p = &c.plan;
        const uint32_t e = p->element_size;
        /* each line's updates all go to its element at position 0 of the axis:
         * it holds one of the updates whose affine target is its own */
        uint64_t co[DML_PLAN_MAX_RANK] = { 0 };
        for (uint64_t item = 0; item < p->element_count; ++item) {
            int64_t out = p->out_offset;
            for (uint32_t d = 0; d < p->rank; ++d)
                out += (int64_t)co[d] * p->out_strides[d];
            int found = 0;
            uint64_t cu[DML_PLAN_MAX_RANK] = { 0 };
            for (uint64_t u = 0; u < p->element_count && !found; ++u) {
                int64_t o = p->out_offset, in = p->in_offset;
                for (uint32_t d = 0; d < p->rank; ++d) {
                    o += (int64_t)cu[d] * p->out_strides[d];
                    in += (int64_t)cu[d] * p->in_strides[d];
                }
                found = o == out && memcmp(c.output + out * (int64_t)e, c.input + in * (int64_t)e, e) == 0;
                for (uint32_t d = p->rank; d-- > 0;) {
                    if (++cu[d] < p->sizes[d])
                        break;
                    cu[d] = 0;
                }
            }
            ck_assert_msg(found, "%s: element at %lld holds none of its updates", c.name, (long long)out);
            for (uint32_t d = p->rank; d-- > 0;) {
                if (++co[d] < p->sizes[d])
                    break;
                co[d] = 0;
            }
        }
        indexed_case_free(&c);
    }
}
END_TEST

/* The row path exactly where the innermost dimension is a contiguous row
 * read at one index, DML_INDEXED_ROW_MIN_BYTES wide. */
START_TEST(launcher_paths)
{
    indexed_rng r = { 9 };
    for (int n = 0; n < 16; ++n) {
        indexed_case c;
        ck_assert(indexed_case_make(&c, n % 2 ? SHAPE_GATHER_ROWS : SHAPE_GATHER, 1u << (n / 2 % 4), 1, 600, &r) == 0);
        const dml_plan* p = &c.plan;
        const uint32_t inner = p->rank - 1;
        const int rows = p->in_strides[inner] == 1 && p->out_strides[inner] == 1 && p->len_strides[inner] == 0 &&
            p->sizes[inner] * p->element_size >= DML_INDEXED_ROW_MIN_BYTES;
        dml_cuda_launch launch;
        const dml_plan_args args = indexed_case_args(&c);
        dml_cuda_prepare(p, &args, 4, &launch);
        ck_assert_msg(launch.indexed && (int)launch.indexed_params.rows == rows, "%s: rows %u, expected %d", c.name,
            launch.indexed_params.rows, rows);
        ck_assert_int_eq(launch.wide, 0);
        indexed_case_free(&c);
    }
}
END_TEST

/* ---- coalescing ----------------------------------------------------------------- */

static void* zeroed(size_t bytes)
{
    void* p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert(p != NULL);
    memset(p, 0, bytes);
    return p;
}

/* A plan's efficiencies over zeroed buffers of the given sizes, 64-byte
 * aligned, indices from fill (may be NULL: zeros). */
static void measure(const dml_plan* p, uint64_t in_bytes, uint64_t index_bytes, uint64_t in2_bytes,
    uint64_t out_bytes, void (*fill)(unsigned char*, uint64_t), double* load, double* store)
{
    unsigned char *in = zeroed(in_bytes), *idx = zeroed(index_bytes), *in2 = zeroed(in2_bytes),
                  *out = zeroed(out_bytes);
    if (fill)
        fill(idx, index_bytes);
    const dml_plan_args args = { in, idx, out, in_bytes, index_bytes, out_bytes, in2_bytes ? in2 : NULL, in2_bytes };
    dml_cuda_launch launch;
    dml_cuda_prepare(p, &args, 132, &launch);
    dml_coalescing stats;
    ck_assert_msg(dml_cuda_emulate(&launch, &stats) == 0, "%s", dml_cuda_emulator_violation());
    *load = dml_coalescing_load_efficiency(&stats);
    *store = dml_coalescing_store_efficiency(&stats);
    free(in);
    free(idx);
    free(in2);
    free(out);
}

/* Indices 0, 7, 14, ... (mod 64) as INT32: rows of the table out of order. */
static void spread_indices(unsigned char* idx, uint64_t bytes)
{
    for (uint64_t i = 0; i < bytes / 4; ++i) {
        const int32_t v = (int32_t)((i * 7) % 64);
        memcpy(idx + i * 4, &v, 4);
    }
}

/* Positions along an axis of 64: a permutation per line, as INT32. */
static void permuted_indices(unsigned char* idx, uint64_t bytes)
{
    for (uint64_t i = 0; i < bytes / 4; ++i) {
        const int32_t v = (int32_t)((i % 64) * 5 % 64);
        memcpy(idx + i * 4, &v, 4);
    }
}

/* Positions along an axis of 64, each swapped within its group of 8 (a
 * local permutation: a warp's elements come from its own 32). */
static void local_indices(unsigned char* idx, uint64_t bytes)
{
    for (uint64_t i = 0; i < bytes / 4; ++i) {
        const int32_t v = (int32_t)((i % 64) ^ 5);
        memcpy(idx + i * 4, &v, 4);
    }
}

/* 2-tuples (r / 8, r % 8) of the rows r = 0, 7, 14, ... (mod 64), as INT32. */
static void spread_tuples(unsigned char* idx, uint64_t bytes)
{
    for (uint64_t i = 0; i < bytes / 4; ++i) {
        const uint32_t r = (uint32_t)(i / 2 * 7 % 64);
        const int32_t v = (int32_t)(i % 2 ? r % 8 : r / 8);
        memcpy(idx + i * 4, &v, 4);
    }
}

/* One INT32 position per element of rows of 256, equal along each row:
 * row k's elements go to row k * 5 % 64. */
static void rowwise_indices(unsigned char* idx, uint64_t bytes)
{
    for (uint64_t i = 0; i < bytes / 4; ++i) {
        const int32_t v = (int32_t)(i / 256 * 5 % 64);
        memcpy(idx + i * 4, &v, 4);
    }
}

static void halves(unsigned char* idx, uint64_t bytes)
{
    for (uint64_t i = 0; i < bytes; ++i)
        idx[i] = (unsigned char)((i * 2654435761u >> 7) & 1);
}

START_TEST(natural_layouts_coalesce)
{
    double load, store;
    /* GATHER of rows: a table of 64 rows of 256 B and 1 KiB, 256 indices */
    for (uint64_t row_bytes = 256; row_bytes <= 1024; row_bytes *= 4) {
        dml_plan p;
        memset(&p, 0, sizeof p);
        p.kind = DML_PLAN_INDEXED;
        p.axis = -1;
        p.rank = 2;
        p.element_size = 4;
        p.index32 = 1;
        p.lengths_element_size = 4;
        p.index_signed = 1;
        p.index_count = 1;
        p.index_step = 1;
        p.index_sizes[0] = 64;
        p.index_strides[0] = (int64_t)(row_bytes / 4);
        p.sizes[0] = 256;
        p.sizes[1] = row_bytes / 4;
        p.element_count = p.sizes[0] * p.sizes[1];
        p.in_strides[1] = 1;
        p.out_strides[0] = (int64_t)p.sizes[1];
        p.out_strides[1] = 1;
        p.len_strides[0] = 1;
        measure(&p, 64 * row_bytes, 256 * 4, 0, 256 * row_bytes, spread_indices, &load, &store);
        ck_assert_msg(load >= 0.99 && store >= 0.99, "GATHER rows of %llu B: load %.3f store %.3f",
            (unsigned long long)row_bytes, load, store);
    }
    /* GATHER_ELEMENTS along the inner axis of [256, 64] FLOAT32 */
    dml_plan g;
    memset(&g, 0, sizeof g);
    g.kind = DML_PLAN_INDEXED;
    g.axis = -1;
    g.rank = 1;
    g.element_size = 4;
    g.index32 = 1;
    g.lengths_element_size = 4;
    g.index_count = 1;
    g.index_step = 1;
    g.index_sizes[0] = 64;
    g.index_strides[0] = 1;
    g.rank = 2;
    g.sizes[0] = 256;
    g.sizes[1] = 64;
    g.element_count = 256 * 64;
    g.in_strides[0] = 64;
    g.out_strides[0] = 64;
    g.out_strides[1] = 1;
    g.len_strides[0] = 64;
    g.len_strides[1] = 1;
    measure(&g, 256 * 64 * 4, 256 * 64 * 4, 0, 256 * 64 * 4, local_indices, &load, &store);
    ck_assert_msg(load >= 0.99 && store >= 0.99, "GATHER_ELEMENTS: load %.3f store %.3f", load, store);
    /* SCATTER of rows (SCATTER_ND with 1-tuples): 64 updates of 1 KiB into a table of 64 rows */
    dml_plan s = g;
    s.kind = DML_PLAN_SCATTER;
    s.sizes[0] = 64;
    s.sizes[1] = 256;
    s.element_count = 64 * 256;
    s.in_strides[0] = 256;
    s.in_strides[1] = 1;
    s.out_strides[0] = 0;
    s.out_strides[1] = 1;
    s.len_strides[0] = 1;
    s.len_strides[1] = 0;
    s.index_strides[0] = 256;
    measure(&s, 64 * 1024, 64 * 4, 0, 64 * 1024, permuted_indices, &load, &store);
    ck_assert_msg(load >= 0.99 && store >= 0.99, "SCATTER rows: load %.3f store %.3f", load, store);
    /* SCATTER_ELEMENTS along axis 0 of [64, 256]: an index per element, equal along each row */
    dml_plan se = s;
    se.len_strides[0] = 256;
    se.len_strides[1] = 1;
    measure(&se, 64 * 1024, 64 * 1024, 0, 64 * 1024, rowwise_indices, &load, &store);
    ck_assert_msg(load >= 0.99 && store >= 0.99, "SCATTER_ELEMENTS axis 0: load %.3f store %.3f", load, store);
    /* GATHER_ND and SCATTER_ND of 1 KiB rows of an [8, 8, 256] table by 2-tuples */
    dml_plan nd = s;
    nd.index_count = 2;
    nd.index_sizes[0] = nd.index_sizes[1] = 8;
    nd.index_strides[0] = 8 * 256;
    nd.index_strides[1] = 256;
    nd.len_strides[0] = 2;
    measure(&nd, 64 * 1024, 64 * 2 * 4, 0, 64 * 1024, spread_tuples, &load, &store);
    ck_assert_msg(load >= 0.99 && store >= 0.99, "SCATTER_ND 2-tuple rows: load %.3f store %.3f", load, store);
    nd.kind = DML_PLAN_INDEXED;
    nd.sizes[0] = 256;
    nd.element_count = 256 * 256;
    nd.in_strides[0] = 0;
    nd.out_strides[0] = 256;
    measure(&nd, 64 * 1024, 256 * 2 * 4, 0, 256 * 1024, spread_tuples, &load, &store);
    ck_assert_msg(load >= 0.99 && store >= 0.99, "GATHER_ND 2-tuple rows: load %.3f store %.3f", load, store);
    /* SELECT of [1024, 64] FLOAT32, a random condition: stores whole, each input loads what it gives */
    dml_plan c;
    memset(&c, 0, sizeof c);
    c.kind = DML_PLAN_SELECT;
    c.axis = -1;
    c.rank = 1;
    c.element_size = 4;
    c.index32 = 1;
    c.lengths_element_size = 1;
    c.sizes[0] = 65536;
    c.element_count = 65536;
    c.in_strides[0] = c.out_strides[0] = c.len_strides[0] = c.in2_strides[0] = 1;
    measure(&c, 65536 * 4, 65536, 65536 * 4, 65536 * 4, halves, &load, &store);
    ck_assert_msg(store >= 0.99, "SELECT: store %.3f", store);
    /* ONE_HOT: [4096] INT32 indices to [4096, 16] FLOAT32 */
    dml_plan o;
    memset(&o, 0, sizeof o);
    o.kind = DML_PLAN_ONE_HOT;
    o.axis = 1;
    o.rank = 2;
    o.element_size = 4;
    o.index32 = 1;
    o.lengths_element_size = 4;
    o.index_signed = 1;
    o.index_count = 1;
    o.index_sizes[0] = 16;
    o.sizes[0] = 4096;
    o.sizes[1] = 16;
    o.element_count = 4096 * 16;
    o.out_strides[0] = 16;
    o.out_strides[1] = 1;
    o.len_strides[0] = 1;
    o.in_offset = 1; /* on; off at 0 */
    measure(&o, 8, 4096 * 4, 8, 4096 * 16 * 4, spread_indices, &load, &store);
    ck_assert_msg(store >= 0.99, "ONE_HOT: store %.3f", store);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("indexed_kinds");
    TCase* tc = tcase_create("kinds");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gathers_match_the_reference);
    tcase_add_test(tc, gathers_of_rows_match_the_reference);
    tcase_add_test(tc, scatters_nd_match_the_reference);
    tcase_add_test(tc, scatters_elements_match_the_reference);
    tcase_add_test(tc, selects_match_the_reference);
    tcase_add_test(tc, one_hots_match_the_reference);
    tcase_add_test(tc, hostile_indices_stay_inside);
    tcase_add_test(tc, duplicate_targets_hold_one_update);
    tcase_add_test(tc, launcher_paths);
    tcase_add_test(tc, natural_layouts_coalesce);
    suite_add_tcase(s, tc);
    SRunner* runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    const int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
