/*
 * core/cast.h's branch-free float32 -> float16 (dml_cast_float_to_half)
 * against half.h's dml_float_to_half, bit for bit: for every sign, exponent
 * and top-10 mantissa bits, the dropped 13 bits at each rounding decision
 * (0, 1, just below, at and just above the tie, all ones); every pattern
 * from 2^-26 to 2^-13 whose low 8 bits are one of a few (the subnormal
 * halves round at every other position; two of a few alternately); the thresholds and their
 * neighbours; and random patterns. Natively well under a second.
 *
 * DML_CAST_HALF_EXHAUSTIVE=1 checks all 2^32 patterns instead (a one-off:
 * about a minute).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cast.h"
#include "core/half.h"

/* Plain comparison first: check's assertions cost a system call each. */
static void check_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    uint16_t want = dml_float_to_half(f), got = dml_cast_float_to_half(f);
    if (got != want)
        ck_abort_msg("0x%08x: 0x%04x, dml_float_to_half gives 0x%04x", bits, got, want);
}

START_TEST(every_rounding_decision)
{
    static const uint32_t dropped[] = { 0, 0xFFF, 0x1000, 0x1001, 0x1FFF };
    for (uint32_t top = 0; top < (1u << 19); ++top) /* sign, exponent, top 10 mantissa bits */
        for (size_t k = 0; k < sizeof dropped / sizeof *dropped; ++k)
            check_bits(top << 13 | dropped[k]);
}
END_TEST

START_TEST(subnormal_halves)
{
    static const uint32_t low[] = { 0x00, 0x7F, 0x80, 0x81 };
    for (uint32_t sign = 0; sign < 2; ++sign)
        for (uint32_t high = 0x32800000u >> 8; high <= 0x39000000u >> 8; ++high) /* 2^-26 .. 2^-13 */
            for (size_t k = high & 1; k < sizeof low / sizeof *low; k += 2)
                check_bits(sign << 31 | high << 8 | low[k]);
}
END_TEST

START_TEST(thresholds_and_random)
{
    static const uint32_t edges[] = { 0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x33000000, 0x38800000,
        0x477FEFFF, 0x477FF000, 0x477FE000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FBFFFFF, 0x7FC00000,
        0x7FFFFFFF };
    for (size_t k = 0; k < sizeof edges / sizeof *edges; ++k)
        for (int32_t d = -64; d <= 64; ++d) {
            check_bits(edges[k] + (uint32_t)d);
            check_bits((edges[k] + (uint32_t)d) ^ 0x80000000u);
        }
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < (1 << 16); ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        check_bits((uint32_t)(state >> 32));
    }
}
END_TEST

static int exhaustive(void)
{
    uint64_t mismatches = 0;
    for (uint64_t bits = 0; bits <= UINT32_MAX; ++bits) {
        float f;
        uint32_t b = (uint32_t)bits;
        memcpy(&f, &b, sizeof f);
        if (dml_cast_float_to_half(f) != dml_float_to_half(f) && mismatches++ < 10)
            printf("0x%08x: 0x%04x, dml_float_to_half gives 0x%04x\n", b, dml_cast_float_to_half(f),
                dml_float_to_half(f));
    }
    printf("exhaustive: %llu of 2^32 float32 patterns differ\n", (unsigned long long)mismatches);
    return mismatches ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(void)
{
    const char* all = getenv("DML_CAST_HALF_EXHAUSTIVE");
    if (all && !strcmp(all, "1"))
        return exhaustive();
    Suite* s = suite_create("cast_half");
    TCase* tc = tcase_create("float_to_half");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_rounding_decision);
    tcase_add_test(tc, subnormal_halves);
    tcase_add_test(tc, thresholds_and_random);
    suite_add_tcase(s, tc);
    SRunner* r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
