/*
 * test_cpu_pad_rows.c — cpu_pad.c's narrow rows (an innermost dimension
 * contiguous in both tensors, at most NARROW_BORDER = 8 elements of border
 * on each side, folded once per range) against tests/api's ref_padding:
 *
 *   - borders of 0, 1 and 8 elements and, straddling that limit, 9 (the
 *     general per-element loop), on either side, in every mode, with 1-, 2-,
 *     4- and 8-byte elements and inner sizes from 1 to past a line;
 *   - outputs written directly and streamed (dml_cpu_run_split's pieces cut
 *     rows at lines), on one thread and on three (ranges cut mid-row), into
 *     exact-size buffers that end at a guard page, the bytes before them
 *     checked too;
 *   - at every instruction-set level the tests can force.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/ops/op.h"
#include "cpu_execute.h"
#include "cpu_pad.h"
#include "cpu_pool.h"
#include "cpu_simd.h"
#include "reference.h"

static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT64 };
static const dml_cpu_isa_level levels[] = { DML_CPU_ISA_PORTABLE, DML_CPU_ISA_AVX2, DML_CPU_ISA_AVX512_VBMI };

/* An output of `bytes` that ends where a PROT_NONE page starts, the 64
 * bytes before it a pattern checked afterwards. */
typedef struct guarded {
    unsigned char *map, *data;
    size_t map_bytes, before;
} guarded;

static void guarded_make(guarded* g, size_t bytes)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (bytes + 64 + page - 1) / page;
    g->map_bytes = (pages + 1) * page;
    g->map = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(g->map != MAP_FAILED);
    ck_assert_int_eq(mprotect(g->map + pages * page, page, PROT_NONE), 0);
    g->data = g->map + pages * page - bytes;
    g->before = 64;
    for (size_t i = 0; i < g->before + bytes; ++i)
        g->data[(ptrdiff_t)i - 64] = (unsigned char)(i * 29 + 3);
}

static void guarded_check_and_free(guarded* g)
{
    for (size_t i = 0; i < g->before; ++i)
        ck_assert_uint_eq(g->data[(ptrdiff_t)i - 64], (unsigned char)(i * 29 + 3));
    munmap(g->map, g->map_bytes);
}

/* PADDING of [rows, n] by (1, 2) rows and (left, right) columns, checked. */
static void check_pad(cpu_pool* pool, DML_TENSOR_DATA_TYPE type, DML_PADDING_MODE mode, uint32_t rows, uint32_t n,
    uint32_t left, uint32_t right)
{
    const uint32_t e = dml_data_type_size(type);
    const uint32_t in_sizes[2] = { rows, n }, starts[2] = { 1, left }, ends[2] = { 2, right };
    uint32_t out_sizes[2] = { rows + 3, n + left + right };
    uint64_t in_bytes, out_bytes;
    ck_assert(dml_calc_buffer_tensor_size(type, 2, in_sizes, NULL, &in_bytes));
    ck_assert(dml_calc_buffer_tensor_size(type, 2, out_sizes, NULL, &out_bytes));
    DML_BUFFER_TENSOR_DESC bi = { type, DML_TENSOR_FLAG_NONE, 2, in_sizes, NULL, in_bytes, 0 };
    DML_BUFFER_TENSOR_DESC bo = { type, DML_TENSOR_FLAG_NONE, 2, out_sizes, NULL, out_bytes, 0 };
    DML_TENSOR_DESC ti = { DML_TENSOR_TYPE_BUFFER, &bi }, to = { DML_TENSOR_TYPE_BUFFER, &bo };
    DML_PADDING_OPERATOR_DESC pd = { &ti, &to, mode, 3.0f, 2, starts, ends };
    DML_OPERATOR_DESC od = { DML_OPERATOR_PADDING, &pd };
    dml_plan plan;
    ck_assert_int_ge(dml_plan_from_desc(&od, &plan), 0);
    const size_t out_exact = (size_t)out_sizes[0] * out_sizes[1] * e;
    unsigned char* in = malloc(in_bytes);
    unsigned char* want = malloc(out_exact);
    ck_assert(in && want);
    for (uint64_t i = 0; i < in_bytes; ++i)
        in[i] = (unsigned char)(i * 131 + 7);
    guarded g;
    guarded_make(&g, out_exact);
    memcpy(want, g.data, out_exact);
    dml_plan_args args = { in, NULL, g.data, in_bytes, 0, out_exact, NULL, 0 };
    dml_cpu_pad(pool, NULL, 3, &plan, &args);
    ref_view vi = { e, 2, in_sizes, NULL, in, in_bytes }, vo = { e, 2, out_sizes, NULL, want, out_exact };
    ref_padding(&vi, &vo, (uint32_t)mode, plan.fill_start.bytes, starts);
    ck_assert_msg(memcmp(g.data, want, out_exact) == 0, "pad type %d mode %d [%u, %u] by %u, %u", (int)type,
        (int)mode, rows, n, left, right);
    guarded_check_and_free(&g);
    free(in);
    free(want);
}

/* _i: the level, then bit 0 of _i / 3 a pool of 3 threads, bit 1 streamed. */
START_TEST(narrow_rows_match_the_reference)
{
    const dml_cpu_isa_level saved_level = dml_cpu_isa_cap(levels[_i % 3]);
    const int variant = _i / 3;
    cpu_pool* pool = variant & 1 ? cpu_pool_create(3) : NULL;
    const uint64_t saved = dml_cpu_stream_min_bytes(variant & 2 ? 0 : UINT64_MAX);
    static const uint32_t borders[][2] = { { 0, 0 }, { 1, 1 }, { 8, 8 }, { 9, 1 }, { 1, 9 }, { 0, 8 }, { 8, 0 } };
    static const uint32_t inner[] = { 1, 2, 7, 70, 130 };
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
        for (DML_PADDING_MODE mode = DML_PADDING_MODE_CONSTANT; mode <= DML_PADDING_MODE_SYMMETRIC; ++mode)
            for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b)
                for (size_t k = 0; k < sizeof inner / sizeof inner[0]; ++k)
                    check_pad(pool, types[t], mode, 5 + (uint32_t)(k + b) % 4, inner[k], borders[b][0],
                        borders[b][1]);
    dml_cpu_stream_min_bytes(saved);
    cpu_pool_destroy(pool);
    dml_cpu_isa_cap(saved_level);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cpu_pad_rows");
    TCase* tc = tcase_create("rows");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, narrow_rows_match_the_reference, 0, 12);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
