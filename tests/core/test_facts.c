/*
 * The facts the core keeps once and everything else includes: the data type
 * table (core/data_type.h), the result names (core/result.h) and the float16
 * conversions (core/half.h), checked against their definitions:
 *
 *   - float16 -> float32 is exact for every pattern, against ldexp;
 *   - float32 -> float16 gives back every non-NaN pattern, rounds every tie
 *     between two neighbours to the even one, and anything past one to the
 *     nearer; overflows to infinity from 65520 on;
 *   - NaNs keep their sign and the top bits of their payload and come out
 *     quiet, both ways (what IEEE 754 conversions and F16C's vcvtps2ph do).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/data_type.h"
#include "core/half.h"
#include "core/result.h"

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static float float_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static int half_is_nan(uint16_t h)
{
    return (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
}

/* The value of a non-NaN float16, from the format's definition. */
static double half_value(uint16_t h)
{
    int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    double v = exponent == 0 ? ldexp(mantissa, -24) : exponent == 31 ? INFINITY : ldexp(1024 + mantissa, exponent - 25);
    return (h & 0x8000) ? -v : v;
}

/* ---- float16 -> float32 ------------------------------------------------- */

START_TEST(half_to_float_is_exact)
{
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if (half_is_nan((uint16_t)h))
            continue;
        float f = dml_half_to_float((uint16_t)h);
        ck_assert_msg((double)f == half_value((uint16_t)h), "0x%04x -> %a, expected %a", h, (double)f,
            half_value((uint16_t)h));
        ck_assert_msg(!!signbit(f) == !!(h & 0x8000), "0x%04x: sign", h);
    }
}
END_TEST

START_TEST(half_nan_to_float_keeps_its_payload)
{
    /* The 10-bit payload lands in the top bits of float32's 23; a signalling
     * NaN stays signalling (widening is exact: nothing to quiet). */
    for (uint32_t payload = 1; payload < 0x400; ++payload)
        for (uint32_t sign = 0; sign < 2; ++sign) {
            uint16_t h = (uint16_t)(sign << 15 | 0x7C00 | payload);
            uint32_t got = bits_of(dml_half_to_float(h));
            ck_assert_msg(got == (sign << 31 | 0x7F800000u | payload << 13), "0x%04x -> 0x%08x", h, got);
        }
    ck_assert_uint_eq(bits_of(dml_half_to_float(0x7E00)), 0x7FC00000u); /* the default quiet NaN */
    ck_assert_uint_eq(bits_of(dml_half_to_float(0xFE01)), 0xFFC02000u);
    ck_assert_uint_eq(bits_of(dml_half_to_float(0x7C01)), 0x7F802000u); /* signalling, payload 1 */
}
END_TEST

/* ---- float32 -> float16 ------------------------------------------------- */

START_TEST(float_to_half_gives_back_every_half)
{
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if (half_is_nan((uint16_t)h))
            continue;
        uint16_t back = dml_float_to_half(dml_half_to_float((uint16_t)h));
        ck_assert_msg(back == h, "0x%04x -> 0x%04x", h, back);
    }
}
END_TEST

/* Between each pair of neighbouring finite halves (the same sign; zero and
 * the subnormals included): the midpoint goes to the even pattern, anything
 * one float32 step off it to the nearer. Every midpoint is a float32 (halves
 * have 11 significant bits). */
START_TEST(float_to_half_rounds_to_nearest_even)
{
    for (uint32_t sign = 0; sign < 2; ++sign)
        for (uint32_t low = 0; low < 0x7BFF; ++low) {
            uint16_t a = (uint16_t)(sign << 15 | low), b = (uint16_t)(a + 1);
            float mid = (float)((half_value(a) + half_value(b)) / 2);
            ck_assert_msg((double)mid == (half_value(a) + half_value(b)) / 2, "midpoint of 0x%04x not exact", a);
            uint16_t even = (a & 1) ? b : a;
            ck_assert_msg(dml_float_to_half(mid) == even, "tie %a -> 0x%04x, expected 0x%04x", (double)mid,
                dml_float_to_half(mid), even);
            float toward_a = nextafterf(mid, 0.0f), toward_b = nextafterf(mid, sign ? -INFINITY : INFINITY);
            ck_assert_msg(dml_float_to_half(toward_a) == a, "%a -> 0x%04x, expected 0x%04x", (double)toward_a,
                dml_float_to_half(toward_a), a);
            ck_assert_msg(dml_float_to_half(toward_b) == b, "%a -> 0x%04x, expected 0x%04x", (double)toward_b,
                dml_float_to_half(toward_b), b);
        }
}
END_TEST

START_TEST(float_to_half_overflows_and_underflows)
{
    ck_assert_uint_eq(dml_float_to_half(65504.0f), 0x7BFF);
    ck_assert_uint_eq(dml_float_to_half(nextafterf(65520.0f, 0.0f)), 0x7BFF);
    ck_assert_uint_eq(dml_float_to_half(65520.0f), 0x7C00); /* the tie past the largest half: to "even" infinity */
    ck_assert_uint_eq(dml_float_to_half(-65520.0f), 0xFC00);
    ck_assert_uint_eq(dml_float_to_half(1e30f), 0x7C00);
    ck_assert_uint_eq(dml_float_to_half(INFINITY), 0x7C00);
    ck_assert_uint_eq(dml_float_to_half(-INFINITY), 0xFC00);
    ck_assert_uint_eq(dml_float_to_half(ldexpf(1.0f, -25)), 0x0000); /* half the smallest subnormal: a tie, to 0 */
    ck_assert_uint_eq(dml_float_to_half(nextafterf(ldexpf(1.0f, -25), 1.0f)), 0x0001);
    ck_assert_uint_eq(dml_float_to_half(ldexpf(3.0f, -25)), 0x0002); /* 1.5 subnormal steps: a tie, to 2 */
    ck_assert_uint_eq(dml_float_to_half(-ldexpf(1.0f, -26)), 0x8000);
    ck_assert_uint_eq(dml_float_to_half(-0.0f), 0x8000);
    ck_assert_uint_eq(dml_float_to_half(1e-30f), 0x0000);
}
END_TEST

START_TEST(float_nan_to_half_keeps_the_top_of_its_payload)
{
    /* Quiet NaNs: the payload's top 10 bits (float32 bits 22..13) are kept. */
    ck_assert_uint_eq(dml_float_to_half(float_of(0x7FC00000u)), 0x7E00);
    ck_assert_uint_eq(dml_float_to_half(float_of(0xFFC00000u)), 0xFE00);
    ck_assert_uint_eq(dml_float_to_half(float_of(0x7FC12345u)), 0x7E09);
    ck_assert_uint_eq(dml_float_to_half(float_of(0x7FFFFFFFu)), 0x7FFF);
    ck_assert_uint_eq(dml_float_to_half(float_of(0xFFD00000u)), 0xFE80);
    /* Only low payload bits: the top ones are 0, the quiet bit keeps it a NaN. */
    ck_assert_uint_eq(dml_float_to_half(float_of(0x7FC01FFFu)), 0x7E00);
    /* Signalling NaNs come out quiet, their top payload bits kept. */
    ck_assert_uint_eq(dml_float_to_half(float_of(0x7F800001u)), 0x7E00);
    ck_assert_uint_eq(dml_float_to_half(float_of(0x7FA00000u)), 0x7F00);
    ck_assert_uint_eq(dml_float_to_half(float_of(0xFF802000u)), 0xFE01);
    /* Round trips: a quiet half NaN comes back as it was; a signalling one, quieted. */
    for (uint32_t payload = 1; payload < 0x400; ++payload) {
        uint16_t h = (uint16_t)(0x7C00 | payload);
        uint16_t back = dml_float_to_half(dml_half_to_float(h));
        ck_assert_msg(back == (h | 0x200), "0x%04x -> 0x%04x", h, back);
    }
}
END_TEST

/* ---- data types ---------------------------------------------------------- */

START_TEST(data_type_table)
{
    static const struct {
        DML_TENSOR_DATA_TYPE type;
        const char* name;
        uint32_t size;
    } expect[] = {
        { DML_TENSOR_DATA_TYPE_FLOAT32, "FLOAT32", sizeof(float) },
        { DML_TENSOR_DATA_TYPE_FLOAT16, "FLOAT16", sizeof(uint16_t) },
        { DML_TENSOR_DATA_TYPE_UINT32, "UINT32", sizeof(uint32_t) },
        { DML_TENSOR_DATA_TYPE_UINT16, "UINT16", sizeof(uint16_t) },
        { DML_TENSOR_DATA_TYPE_UINT8, "UINT8", sizeof(uint8_t) },
        { DML_TENSOR_DATA_TYPE_INT32, "INT32", sizeof(int32_t) },
        { DML_TENSOR_DATA_TYPE_INT16, "INT16", sizeof(int16_t) },
        { DML_TENSOR_DATA_TYPE_INT8, "INT8", sizeof(int8_t) },
        { DML_TENSOR_DATA_TYPE_FLOAT64, "FLOAT64", sizeof(double) },
        { DML_TENSOR_DATA_TYPE_UINT64, "UINT64", sizeof(uint64_t) },
        { DML_TENSOR_DATA_TYPE_INT64, "INT64", sizeof(int64_t) },
    };
    ck_assert_int_eq(DML_DATA_TYPE_COUNT, sizeof expect / sizeof expect[0]);
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; ++i) {
        DML_TENSOR_DATA_TYPE t = expect[i].type;
        const char* name = expect[i].name;
        ck_assert_str_eq(dml_data_type_name(t), name);
        ck_assert_uint_eq(dml_data_type_size(t), expect[i].size);
        /* The short name is the name in lower case; the kind is in the name. */
        char lower[16];
        size_t n = strlen(name);
        for (size_t c = 0; c <= n; ++c)
            lower[c] = (char)(name[c] >= 'A' && name[c] <= 'Z' ? name[c] - 'A' + 'a' : name[c]);
        ck_assert_str_eq(dml_data_type_short_name(t), lower);
        ck_assert_int_eq(dml_data_type_is_float(t), strncmp(name, "FLOAT", 5) == 0);
        ck_assert_int_eq(dml_data_type_is_signed(t), name[0] != 'U');
    }
    ck_assert_str_eq(dml_data_type_name(DML_TENSOR_DATA_TYPE_UNKNOWN), "UNKNOWN");
    ck_assert_uint_eq(dml_data_type_size(DML_TENSOR_DATA_TYPE_UNKNOWN), 0);
    ck_assert_str_eq(dml_data_type_name((DML_TENSOR_DATA_TYPE)12), "invalid");
    ck_assert_uint_eq(dml_data_type_size((DML_TENSOR_DATA_TYPE)12), 0);
    ck_assert_uint_eq(dml_data_type_size((DML_TENSOR_DATA_TYPE)-1), 0);
    ck_assert(!dml_data_type_is_float((DML_TENSOR_DATA_TYPE)99));
}
END_TEST

START_TEST(result_names)
{
    ck_assert_str_eq(dml_result_name(DML_S_OK), "DML_S_OK");
    ck_assert_str_eq(dml_result_name(DML_E_INVALIDARG), "DML_E_INVALIDARG");
    ck_assert_str_eq(dml_result_name(DML_E_OUTOFMEMORY), "DML_E_OUTOFMEMORY");
    ck_assert_str_eq(dml_result_name(DML_E_NOTIMPL), "DML_E_NOTIMPL");
    ck_assert_str_eq(dml_result_name(DML_E_INVALID_CALL), "DML_E_INVALID_CALL");
    ck_assert_str_eq(dml_result_name(DML_E_UNSUPPORTED), "DML_E_UNSUPPORTED");
    ck_assert_str_eq(dml_result_name(DML_E_DEVICE_REMOVED), "DML_E_DEVICE_REMOVED");
    ck_assert_str_eq(dml_result_name((DML_RESULT)1), "unknown DML_RESULT");
}
END_TEST

int main(void)
{
    Suite* s = suite_create("facts");
    TCase* half = tcase_create("half");
    tcase_add_test(half, half_to_float_is_exact);
    tcase_add_test(half, half_nan_to_float_keeps_its_payload);
    tcase_add_test(half, float_to_half_gives_back_every_half);
    tcase_add_test(half, float_to_half_rounds_to_nearest_even);
    tcase_add_test(half, float_to_half_overflows_and_underflows);
    tcase_add_test(half, float_nan_to_half_keeps_the_top_of_its_payload);
    suite_add_tcase(s, half);
    TCase* tables = tcase_create("tables");
    tcase_add_test(tables, data_type_table);
    tcase_add_test(tables, result_names);
    suite_add_tcase(s, tables);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
