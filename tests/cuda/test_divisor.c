/*
 * The launcher's fast 32-bit division (dml_divisor32_make in launch.c) with
 * the kernels' own division code (dml_divide32 in gather_thread.h): exact for
 * every divisor 1..65536 against many dividends, for random divisors up to
 * 2^31 - 1 against random dividends below 2^31, and at the edges.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compiled as the emulator compiles it: without DML_CUDA_EMULATION the no-op
 * DML_TRACE leaves dml_load_element's `site` unused, which -Wextra -Werror
 * rejects in host C (reported). */
#define DML_CUDA_EMULATION 1
#include "gather_thread.h"
#include "launch.h"

#define N_MAX 0x7FFFFFFFu /* dividends are below 2^31 */

static uint64_t rng_state;
static uint32_t rnd32(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 32);
}

static int quick(void)
{
    const char* v = getenv("DML_TEST_QUICK");
    return v && v[0] && strcmp(v, "0") != 0;
}

/* Counts wrong quotients (one ck_assert per division would dominate the run
 * under valgrind); remembers the first. */
typedef struct result {
    uint64_t checked, wrong;
    uint32_t d, n, got;
} result;

static inline void check(const dml_divisor32* dv, uint32_t n, result* r)
{
    if (n > N_MAX)
        return;
    uint32_t q = dml_divide32(*dv, n);
    r->checked++;
    if (q != n / dv->divisor && !r->wrong++) {
        r->d = dv->divisor;
        r->n = n;
        r->got = q;
    }
}

/* Dividends around every interesting point of d: 0..3, d-1, d, d+1, the
 * largest multiple below 2^31 and its neighbours, 2^31 - 1, and k*d +- 1 for
 * k spread over the range, plus random ones. */
static void check_divisor(uint32_t d, int randoms, result* r)
{
    dml_divisor32 dv = dml_divisor32_make(d);
    ck_assert_uint_eq(dv.divisor, d);
    for (uint32_t n = 0; n < 4; ++n)
        check(&dv, n, r);
    check(&dv, d - 1, r);
    check(&dv, d, r);
    check(&dv, d + 1, r);
    uint32_t top = N_MAX / d * d;
    check(&dv, top - 1, r);
    check(&dv, top, r);
    check(&dv, top + (d > 1 ? d - 1 : 0), r);
    check(&dv, N_MAX, r);
    check(&dv, N_MAX - 1, r);
    for (uint32_t shift = 0; shift < 31; ++shift) {
        uint64_t k = (1ull << shift);
        uint64_t m = k * d;
        if (m > N_MAX)
            break;
        check(&dv, (uint32_t)m - 1, r);
        check(&dv, (uint32_t)m, r);
        check(&dv, (uint32_t)m + 1, r);
    }
    for (int i = 0; i < randoms; ++i) {
        uint32_t n = rnd32() & N_MAX;
        check(&dv, n, r);
        check(&dv, n / d * d + d - 1, r); /* the last dividend with this quotient */
    }
}

static void report(const result* r)
{
    ck_assert_msg(r->wrong == 0, "%llu of %llu quotients wrong; first: %u / %u gave %u, expected %u",
        (unsigned long long)r->wrong, (unsigned long long)r->checked, r->n, r->d, r->got, r->d ? r->n / r->d : 0);
    ck_assert_uint_gt(r->checked, 0);
}

START_TEST(every_divisor_up_to_65536)
{
    rng_state = 1;
    result r = { 0, 0, 0, 0, 0 };
    int randoms = quick() ? 4 : 48;
    for (uint32_t d = 1; d <= 65536; ++d)
        check_divisor(d, randoms, &r);
    report(&r);
}
END_TEST

/* All dividends below 2^16 for the small divisors the kernels meet most. */
START_TEST(small_divisors_every_small_dividend)
{
    result r = { 0, 0, 0, 0, 0 };
    uint32_t last = quick() ? 64 : 600;
    for (uint32_t d = 1; d <= last; ++d) {
        dml_divisor32 dv = dml_divisor32_make(d);
        for (uint32_t n = 0; n < 65536; ++n)
            check(&dv, n, &r);
    }
    report(&r);
}
END_TEST

START_TEST(random_large_divisors)
{
    rng_state = 99;
    result r = { 0, 0, 0, 0, 0 };
    int count = quick() ? 20000 : 400000;
    for (int i = 0; i < count; ++i) {
        uint32_t d = 65537 + rnd32() % (N_MAX - 65536); /* 65537 .. 2^31 - 1 */
        check_divisor(d, 2, &r);
    }
    report(&r);
}
END_TEST

START_TEST(edge_divisors)
{
    rng_state = 7;
    result r = { 0, 0, 0, 0, 0 };
    for (uint32_t shift = 0; shift <= 31; ++shift) {
        uint32_t p = 1u << shift;
        uint32_t candidates[3] = { p - 1, p, p + 1 };
        for (int i = 0; i < 3; ++i)
            if (candidates[i] >= 1 && candidates[i] <= N_MAX)
                check_divisor(candidates[i], 2000, &r);
    }
    check_divisor(N_MAX, 2000, &r);
    check_divisor(N_MAX - 1, 2000, &r);
    check_divisor(46341, 2000, &r); /* ceil(sqrt(2^31)) */
    report(&r);
    /* d = 2^31, which the launcher may meet as a dimension size: n / 2^31 = 0 */
    dml_divisor32 big = dml_divisor32_make(0x80000000u);
    ck_assert_uint_eq(dml_divide32(big, 0), 0);
    ck_assert_uint_eq(dml_divide32(big, N_MAX), 0);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cuda_divisor");
    TCase* tc = tcase_create("divisor");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_divisor_up_to_65536);
    tcase_add_test(tc, small_divisors_every_small_dividend);
    tcase_add_test(tc, random_large_divisors);
    tcase_add_test(tc, edge_divisors);
    suite_add_tcase(s, tc);
    SRunner* runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
