/*
 * test_cpu_fill.c — the CPU executor of DML_PLAN_FILL (cpu_fill.c) on its
 * own, against tests/api's reference (reference.c, written from the spec):
 * every data type, constants and sequences, contiguous, padded and
 * permuted outputs, on 1 and 4 threads, with and without non-temporal
 * stores, at every instruction-set level the tests can force, rows
 * starting at every alignment in a 64-byte line, and a row
 * whose position 0 is its last element (a fill read backwards).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops/op.h"
#include "cpu_execute.h"
#include "cpu_fill.h"
#include "cpu_pool.h"
#include "cpu_simd.h"
#include "reference.h"

static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT64,
    DML_TENSOR_DATA_TYPE_INT64 };

static uint64_t next(uint64_t* s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 27);
}

/* One fill of `type` with output sizes/strides at byte `shift` of a buffer. */
static void check_fill(cpu_pool* pool, DML_TENSOR_DATA_TYPE type, int sequence, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides, uint32_t shift, uint64_t start, uint64_t delta)
{
    const uint32_t e = dml_data_type_size(type);
    uint64_t bytes;
    ck_assert(dml_calc_buffer_tensor_size(type, rank, sizes, strides, &bytes));
    DML_BUFFER_TENSOR_DESC b = { type, DML_TENSOR_FLAG_NONE, rank, sizes, strides, bytes, 0 };
    DML_TENSOR_DESC t = { DML_TENSOR_TYPE_BUFFER, &b };
    DML_SCALAR_UNION s, d;
    memcpy(s.Bytes, &start, 8);
    memcpy(d.Bytes, &delta, 8);
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC cd = { &t, type, s };
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sd = { &t, type, s, d };
    DML_OPERATOR_DESC od = { sequence ? DML_OPERATOR_FILL_VALUE_SEQUENCE : DML_OPERATOR_FILL_VALUE_CONSTANT,
        sequence ? (const void*)&sd : (const void*)&cd };
    dml_plan plan;
    ck_assert_int_ge(dml_plan_from_desc(&od, &plan), 0);
    void* block = NULL;
    ck_assert_int_eq(posix_memalign(&block, 64, bytes + 112), 0);
    unsigned char* got = block;
    unsigned char* want = malloc(bytes + 112);
    ck_assert(got && want);
    for (uint64_t i = 0; i < bytes + 112; ++i)
        got[i] = want[i] = (unsigned char)(i * 29 + 3);
    dml_plan_args args = { NULL, NULL, got + shift, 0, 0, bytes, NULL, 0 };
    dml_cpu_fill(pool, NULL, 4, &plan, &args);
    uint64_t mask = e == 8 ? ~0ull : (1ull << (8 * e)) - 1;
    ref_view v = { e, rank, sizes, strides, want + shift, bytes };
    ref_fill(&v, (uint32_t)type, start & mask, delta & mask, sequence);
    ck_assert_msg(memcmp(got, want, bytes + 112) == 0, "type %d sequence %d rank %u shift %u", (int)type, sequence,
        rank, shift);
    free(got);
    free(want);
}

static const dml_cpu_isa_level levels[] = { DML_CPU_ISA_AVX512_VBMI, DML_CPU_ISA_PORTABLE, DML_CPU_ISA_AVX2 };

/* _i < 4: the widest level, bit 0 a pool, bit 1 streamed; 4 and 5: the
 * narrower levels on one thread (valgrind's time: each a quarter of one). */
START_TEST(fills_against_reference)
{
    const dml_cpu_isa_level saved_level = dml_cpu_isa_cap(levels[_i < 4 ? 0 : _i - 3]);
    cpu_pool* pool = _i < 4 && (_i & 1) ? cpu_pool_create(4) : NULL;
    uint64_t saved = dml_cpu_stream_min_bytes(_i < 4 && (_i & 2) ? 0 : ~0ull); /* non-temporal stores for every size, or none */
    uint64_t seed = 0xF111 + (uint64_t)_i;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
        for (int sequence = 0; sequence < 2; ++sequence) {
            const uint32_t e = dml_data_type_size(types[t]);
            for (uint32_t shift = 0; shift < (_i < 4 ? 64u : 16u); shift += _i < 4 ? e : 4 * e) {
                uint64_t start = next(&seed), delta = next(&seed);
                if (next(&seed) & 1) { /* ordinary numbers too */
                    float f = (float)(next(&seed) % 1000) / 8;
                    double x = f;
                    start = next(&seed) % 1000;
                    if (types[t] == DML_TENSOR_DATA_TYPE_FLOAT32) {
                        uint32_t bits;
                        memcpy(&bits, &f, 4);
                        start = bits;
                    } else if (types[t] == DML_TENSOR_DATA_TYPE_FLOAT64) {
                        memcpy(&start, &x, 8);
                    }
                }
                uint32_t row[1] = { 1000 + shift }, packed[1] = { 1 };
                check_fill(pool, types[t], sequence, 1, row, packed, shift, start, delta);
                if (shift >= 16) /* the line stores' alignments: contiguous rows are enough */
                    continue;
                uint32_t rows[2] = { 7, 37 }, padded[2] = { 41, 1 }, permuted[2] = { 1, 7 };
                check_fill(pool, types[t], sequence, 2, rows, padded, shift, start, delta);
                check_fill(pool, types[t], sequence, 2, rows, permuted, shift, start, delta);
            }
        }
    dml_cpu_stream_min_bytes(saved);
    cpu_pool_destroy(pool);
    dml_cpu_isa_cap(saved_level);
}
END_TEST

/* A plan read backwards (a fill composed with a reversing gather): position
 * 0 is each row's last element, which keeps the start's bits (-0.0 here). */
START_TEST(position_zero_at_a_row_end)
{
    dml_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.kind = DML_PLAN_FILL;
    plan.rank = 1;
    plan.element_size = 4;
    plan.data_type = DML_TENSOR_DATA_TYPE_FLOAT32;
    plan.sizes[0] = plan.element_count = 100;
    plan.in_offset = 99;
    plan.in_strides[0] = -1;
    plan.out_strides[0] = 1;
    plan.fill_start.u32 = 0x80000000u; /* -0.0 */
    plan.fill_delta.f32 = 0.0f;        /* every other element: -0.0 + 0.0 = +0.0 */
    uint32_t out[100];
    dml_plan_args args = { NULL, NULL, out, 0, 0, sizeof out, NULL, 0 };
    dml_cpu_fill(NULL, NULL, 1, &plan, &args);
    for (int i = 0; i < 99; ++i)
        ck_assert_uint_eq(out[i], 0);
    ck_assert_uint_eq(out[99], 0x80000000u);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cpu_fill");
    TCase* tc = tcase_create("fill");
    tcase_add_loop_test(tc, fills_against_reference, 0, 6);
    tcase_add_test(tc, position_zero_at_a_row_end);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
