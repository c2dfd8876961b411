/*
 * test_cpu_pad_rows.c — cpu_pad.c's narrow rows (an innermost dimension
 * contiguous in both tensors, at most NARROW_BORDER = 8 elements of border
 * on each side, folded once per range) against tests/api's ref_padding:
 *
 *   - borders of 0, 1 and 8 elements and, straddling that limit, 9 (the
 *     general per-element loop), on either side, in every mode, with 1-, 2-,
 *     4- and 8-byte elements and inner sizes from 1 to past a line;
 *   - outputs written with ordinary stores and streamed (narrow rows'
 *     interiors with non-temporal stores, the 9-element borders' rows in
 *     dml_cpu_run_range_staged's pieces, which cut rows at lines), on one
 *     thread and on three (ranges cut mid-row), into
 *     exact-size buffers that end at a guard page, the bytes before them
 *     checked too;
 *   - at every instruction-set level the tests can force.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops/op.h"
#include "cpu_execute.h"
#include "cpu_pad.h"
#include "cpu_pool.h"
#include "cpu_simd.h"
#include "pad_check.h"
#include "reference.h"

static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT64 };
static const dml_cpu_isa_level levels[] = { DML_CPU_ISA_PORTABLE, DML_CPU_ISA_AVX2, DML_CPU_ISA_AVX512_VBMI };

/* PADDING of [rows, n] by (1, 2) rows and (left, right) columns, checked. */
static void check_pad(cpu_pool* pool, DML_TENSOR_DATA_TYPE type, DML_PADDING_MODE mode, uint32_t rows, uint32_t n,
    uint32_t left, uint32_t right)
{
    const uint32_t in_sizes[2] = { rows, n }, starts[2] = { 1, left }, ends[2] = { 2, right };
    check_padding(pool, type, mode, 3.0f, in_sizes, starts, ends);
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
