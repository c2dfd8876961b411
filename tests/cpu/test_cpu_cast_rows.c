/*
 * test_cpu_cast_rows.c — cpu_cast.c's vector rows (float32 -> int32 with
 * AVX-512, float32 -> float16, uint8 -> float32's streamed AVX-512 row, the
 * loops the compiler vectorises) against
 * tests/api's ref_cast, at every instruction-set level the tests can force:
 * the values where the rules turn (NaN of either sign and any payload,
 * infinities, +-2^31 and the floats next to them, +-0, halves) and random
 * bits, in rows of 1 to 70 elements (vector bodies and tails) starting at
 * every element of a 64-byte line, written directly and streamed; and
 * 16 MiB uint8 -> float32 outputs, where a widening CAST starts streaming.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops/op.h"
#include "cpu_cast.h"
#include "cpu_execute.h"
#include "cpu_pool.h"
#include "cpu_simd.h"
#include "guarded.h"
#include "reference.h"

static const dml_cpu_isa_level levels[] = { DML_CPU_ISA_PORTABLE, DML_CPU_ISA_AVX2, DML_CPU_ISA_AVX512_VBMI };

static const uint32_t special[] = { 0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFBFFFFFu, 0x7F800000u, 0xFF800000u,
    0x4F000000u /* 2^31 */, 0x4EFFFFFFu /* 2147483520 */, 0xCF000000u /* -2^31 */, 0xCF000001u /* below */,
    0x00000000u, 0x80000000u, 0x3F000000u /* 0.5 */, 0xBFC00000u /* -1.5 */, 0x00000001u, 0x7F7FFFFFu,
    0xFF7FFFFFu, 0x4B7FFFFFu, 0xC6FFFE00u };
#define SPECIALS (sizeof special / sizeof special[0])

static uint64_t next(uint64_t* s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 27);
}

/* CAST of n elements, the output at element `shift` of a 64-byte-aligned
 * buffer whose other bytes must stay as they were. */
static void check_cast(DML_TENSOR_DATA_TYPE from, DML_TENSOR_DATA_TYPE to_type, const unsigned char* in, uint32_t n,
    uint32_t shift)
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
    enum { SPACE = 64 + 70 * 8 + 64 };
    _Alignas(64) unsigned char got[SPACE];
    unsigned char want[SPACE];
    for (size_t i = 0; i < SPACE; ++i)
        got[i] = want[i] = (unsigned char)(i * 29 + 3);
    const size_t at = (size_t)shift * oe;
    dml_plan_args args = { in, NULL, got + at, in_bytes, 0, (uint64_t)n * oe, NULL, 0 };
    dml_cpu_cast(NULL, NULL, 1, &plan, &args);
    ref_view vi = { ie, 1, sizes, NULL, (void*)(uintptr_t)in, in_bytes };
    ref_view vo = { oe, 1, sizes, NULL, want + at, (uint64_t)n * oe };
    ref_cast(&vi, (uint32_t)from, &vo, (uint32_t)to_type);
    ck_assert_msg(memcmp(got, want, SPACE) == 0, "cast %d -> %d, %u elements at %u, level %s", (int)from,
        (int)to_type, n, shift, dml_cpu_isa_name(dml_cpu_isa()));
}

/* _i: the level, then bit 0 of _i / 3 streamed. */
START_TEST(float_rows_match_the_reference)
{
    const dml_cpu_isa_level saved_level = dml_cpu_isa_cap(levels[_i % 3]);
    const uint64_t saved = dml_cpu_stream_min_bytes(_i / 3 ? 0 : UINT64_MAX);
    uint64_t seed = 0xCA57 + (uint64_t)_i;
    uint32_t values[70];
    for (uint32_t n = 1; n <= 70; ++n)
        for (uint32_t shift = 0; shift < 16; shift += 1 + n % 5) {
            for (uint32_t j = 0; j < n; ++j) {
                const uint64_t r = next(&seed);
                values[j] = r % 3 ? special[(r >> 8) % SPECIALS] : (uint32_t)(r >> 32);
            }
            check_cast(DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32, (const unsigned char*)values, n,
                shift);
            check_cast(DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, (const unsigned char*)values, n,
                shift);
            check_cast(DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT8, (const unsigned char*)values, n,
                shift);
            check_cast(DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT32, (const unsigned char*)values, n,
                shift);
        }
    dml_cpu_stream_min_bytes(saved);
    dml_cpu_isa_cap(saved_level);
}
END_TEST

/* uint8 -> float32 outputs either side of the default traffic from which
 * a dispatch streams (dml_cpu_streams of 4n bytes written and n read: the
 * first multiple of 16 that streams, and 16 elements fewer), exact-size before a guard
 * page, on one thread and on three. Natively only (DML_TEST_QUICK:
 * valgrind, sanitizers). */
START_TEST(widening_threshold_straddled)
{
    const char* quick = getenv("DML_TEST_QUICK");
    if (quick && *quick == '1')
        return;
    cpu_pool* pool = _i ? cpu_pool_create(3) : NULL;
    uint32_t first = 1u << 20;
    while (!dml_cpu_streams(4ull * first, first))
        first += 1u << 20;
    while (dml_cpu_streams(4ull * (first - 1), first - 1))
        --first;
    first = (first + 15) & ~15u; /* whole 4-byte sizes (a tensor's rule); first - 16 does not stream */
    for (uint32_t less = 0; less <= 16; less += 16) {
        const uint32_t n = first - less;
        uint32_t sizes[1] = { n };
        DML_BUFFER_TENSOR_DESC bi = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_FLAG_NONE, 1, sizes, NULL, n, 0 };
        DML_BUFFER_TENSOR_DESC bo = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, sizes, NULL, 4ull * n, 0 };
        DML_TENSOR_DESC ti = { DML_TENSOR_TYPE_BUFFER, &bi }, to = { DML_TENSOR_TYPE_BUFFER, &bo };
        DML_CAST_OPERATOR_DESC cd = { &ti, &to };
        DML_OPERATOR_DESC od = { DML_OPERATOR_CAST, &cd };
        dml_plan plan;
        ck_assert_int_ge(dml_plan_from_desc(&od, &plan), 0);
        const size_t out_bytes = 4ull * n;
        guarded g;
        guarded_make(&g, out_bytes);
        unsigned char* out = g.data;
        unsigned char* in = malloc(n);
        ck_assert(in);
        for (uint32_t i = 0; i < n; ++i)
            in[i] = (unsigned char)(i * 131 + 7);
        dml_plan_args args = { in, NULL, out, n, 0, out_bytes, NULL, 0 };
        dml_cpu_cast(pool, NULL, 3, &plan, &args);
        for (uint32_t i = 0; i < n; ++i) {
            float f;
            memcpy(&f, out + 4ull * i, 4);
            ck_assert_msg(f == (float)in[i], "element %u of %u: %g, want %u", i, n, (double)f, in[i]);
        }
        guarded_check_before(&g, "widening cast");
        free(in);
        guarded_free(&g);
    }
    cpu_pool_destroy(pool);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cpu_cast_rows");
    TCase* tc = tcase_create("rows");
    tcase_add_loop_test(tc, float_rows_match_the_reference, 0, 6);
    tcase_add_loop_test(tc, widening_threshold_straddled, 0, 2);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
