/*
 * test_fuzz_graph_replay.c — runs the graph fuzzer's entry point
 * (fuzz_graph.c) without libFuzzer on a fixed set of pseudo-random inputs, so
 * every build (normal, ASan+UBSan, valgrind) exercises it. The fuzzer aborts
 * on any violation, which fails the case.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
unsigned long fuzz_graph_accepted(void);

START_TEST(random_inputs)
{
    const char* quick = getenv("DML_TEST_QUICK");
    uint32_t count = quick && *quick == '1' ? 100 : 1500;
    uint64_t state = 0x9A4F00D + (uint64_t)_i;
    uint8_t bytes[256];
    for (uint32_t n = 0; n < count; ++n) {
        size_t size = (size_t)(n % 200) + 1;
        for (size_t i = 0; i < size; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            bytes[i] = (uint8_t)(state >> 56);
        }
        LLVMFuzzerTestOneInput(bytes, size);
    }
    fprintf(stderr, "accepted %lu of %u\n", fuzz_graph_accepted(), count);
    /* Most inputs must decode to graphs that run, or the replay tests little. */
    ck_assert_msg(fuzz_graph_accepted() > count / 3, "only %lu of %u inputs were valid graphs", fuzz_graph_accepted(),
        count);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("fuzz_graph_replay");
    TCase* tc = tcase_create("replay");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, random_inputs);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
