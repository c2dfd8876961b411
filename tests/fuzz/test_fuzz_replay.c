/*
 * test_fuzz_replay.c — replays every file of tests/fuzz/corpus/ through the
 * fuzz target's entry point, without libFuzzer, so the regression corpus runs
 * in the normal, ASan+UBSan and valgrind builds. One Check case per file (the
 * target aborts on a violation: that case fails, the others still run).
 * Extra files or directories can be given on the command line instead.
 */
#include <check.h>
#include <dml/dml.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
void fuzz_operators_cleanup(void);
unsigned long fuzz_operators_executed(void);

static char** g_files;
static int g_count;

static void add_path(const char* path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        struct dirent** names = NULL;
        int n = scandir(path, &names, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            if (names[i]->d_name[0] != '.') {
                char full[4096];
                snprintf(full, sizeof full, "%s/%s", path, names[i]->d_name);
                add_path(full);
            }
            free(names[i]);
        }
        free(names);
        return;
    }
    g_files = realloc(g_files, (size_t)(g_count + 1) * sizeof *g_files);
    g_files[g_count++] = strdup(path);
}

START_TEST(replay_file)
{
    const char* path = g_files[_i];
    FILE* f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    uint8_t* data = malloc(1 << 20);
    ck_assert_ptr_nonnull(data);
    size_t n = fread(data, 1, 1 << 20, f);
    fclose(f);
    unsigned long before = fuzz_operators_executed();
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    /* The documented examples are valid: they must run on both backends. */
    const char* base = strrchr(path, '/');
    if (strncmp(base ? base + 1 : path, "seed_", 5) == 0)
        ck_assert_msg(fuzz_operators_executed() - before == 2, "%s was not executed on both backends: %s", path,
            dmlGetLastErrorMessage());
    fuzz_operators_cleanup();
}
END_TEST

/* Pseudo-random inputs in repair mode (the first byte odd: every desc valid),
 * one operator kind per loop index: every kind the decoder knows executes on
 * both backends against the reference, not only those the corpus holds. */
START_TEST(random_valid_inputs)
{
    const char* quick = getenv("DML_TEST_QUICK");
    const uint32_t count = quick && *quick == '1' ? 20 : 150;
    uint64_t state = 0x5EED0F + (uint64_t)_i;
    uint8_t bytes[160];
    unsigned long before = fuzz_operators_executed();
    for (uint32_t n = 0; n < count; ++n) {
        for (size_t i = 0; i < sizeof bytes; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            bytes[i] = (uint8_t)(state >> 56);
        }
        /* kinds 7-14 (the data-dependent operators) have "other type" heads below 224 */
        bytes[0] = (uint8_t)(_i < 7 ? ((uint32_t)_i << 1) | 1 : 2 * (7 * ((uint32_t)_i - 7) + 3) + 1);
        LLVMFuzzerTestOneInput(bytes, sizeof bytes);
        fuzz_operators_cleanup();
    }
    unsigned long executed = fuzz_operators_executed() - before;
    fprintf(stderr, "kind %d: executed %lu of %u on both backends\n", _i, executed / 2, count);
    ck_assert_msg(executed >= count / 4, "kind %d: only %lu of %u valid inputs executed", _i, executed / 2, count);
}
END_TEST

START_TEST(corpus_is_not_empty)
{
    ck_assert_int_gt(g_count, 0);
}
END_TEST

int main(int argc, char** argv)
{
    if (argc > 1)
        for (int i = 1; i < argc; i++)
            add_path(argv[i]);
    else
        add_path(DML_FUZZ_CORPUS);
    Suite* s = suite_create("fuzz_replay");
    TCase* tc = tcase_create("corpus");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, corpus_is_not_empty);
    tcase_add_loop_test(tc, replay_file, 0, g_count);
    /* kinds 0-2, 4-6 and the data-dependent 7-14 (3, another operator type, is never repaired) */
    tcase_add_loop_test(tc, random_valid_inputs, 0, 3);
    tcase_add_loop_test(tc, random_valid_inputs, 4, 15);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int i = 0; i < g_count; i++)
        free(g_files[i]);
    free(g_files);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
