/*
 * The emulator's shared-memory model (TILED launches): a block's threads run
 * phase by phase; a read of a word no thread wrote in an earlier phase (a
 * missing barrier), two threads writing one word in one phase (a race) and
 * accesses outside the tile are violations; bank conflicts are counted per
 * warp instruction. Each case is a small hand-written block program whose
 * expected outcome and counts are worked out here by hand.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#define DML_CUDA_EMULATION 1
#include "emulator.h"
#include "tile_thread.h"

/* Word size 4: element_size 4 in the tile accessors. */
#define WORD 4
/* The blocks' shared memory (the programs use up to 33 * 32 words). */
#define SHARED_BYTES (8 * 1024)

typedef struct program {
    int kind;
    uint32_t stride; /* words between consecutive threads' words */
    uint64_t seen[DML_CUDA_BLOCK];
} program;

enum { WRITE_THEN_READ_NEXT, READ_IN_SAME_PHASE, READ_PREVIOUS_IN_SAME_PHASE, TWO_WRITERS, REWRITE_OWN, STRIDED,
    OUTSIDE, BROADCAST, SKIPPED_INSTRUCTION, NAMED_INSTRUCTIONS, AT_WORD };

static void run(uint32_t thread, int phase, unsigned char* shared, void* context)
{
    program* p = context;
    switch (p->kind) {
    case WRITE_THEN_READ_NEXT:
        if (phase == 0)
            dml_shared_store(shared, thread, thread * 7u, WORD);
        else
            p->seen[thread] = dml_shared_load(shared, (thread + 1) % DML_CUDA_BLOCK, WORD);
        break;
    case READ_IN_SAME_PHASE:
        dml_shared_store(shared, thread, thread, WORD);
        p->seen[thread] = dml_shared_load(shared, (thread + 1) % DML_CUDA_BLOCK, WORD);
        break;
    case READ_PREVIOUS_IN_SAME_PHASE: /* thread t-1 has run already, but without a barrier between */
        dml_shared_store(shared, thread, thread, WORD);
        if (thread > 0)
            p->seen[thread] = dml_shared_load(shared, thread - 1, WORD);
        break;
    case TWO_WRITERS: dml_shared_store(shared, thread / 2, thread, WORD); break;
    case REWRITE_OWN:
        dml_shared_store(shared, thread, 1, WORD);
        dml_shared_store(shared, thread, 2, WORD);
        break;
    case STRIDED:
        if (phase == 0)
            dml_shared_store(shared, thread * p->stride, thread, WORD);
        else
            p->seen[thread] = dml_shared_load(shared, thread * p->stride, WORD);
        break;
    case OUTSIDE: dml_shared_store(shared, SHARED_BYTES / WORD + thread, 0, WORD); break;
    case AT_WORD: /* thread 0 writes word `stride` */
        if (thread == 0)
            dml_shared_store(shared, p->stride, 1, WORD);
        break;
    case SKIPPED_INSTRUCTION: /* odd lanes skip instruction 1 */
    case NAMED_INSTRUCTIONS: {
        const int named = p->kind == NAMED_INSTRUCTIONS;
        if (named)
            DML_INSTRUCTION(0);
        dml_shared_store(shared, thread, 0, WORD); /* bank: the lane */
        if (named)
            DML_INSTRUCTION(1);
        if (thread % 2 == 0)
            dml_shared_store(shared, 64 + thread, 1, WORD); /* bank: the (even) lane */
        if (named)
            DML_INSTRUCTION(2);
        dml_shared_store(shared, 128 + (thread ^ 1u), 2, WORD); /* bank: the lane's neighbour */
        break;
    }
    case BROADCAST:
        if (phase == 0 && thread == 0)
            dml_shared_store(shared, 0, 42, WORD);
        if (phase == 1)
            p->seen[thread] = dml_shared_load(shared, 0, WORD);
        break;
    }
}

static int emulate(program* p, uint32_t threads, int phases, dml_coalescing* stats)
{
    return dml_cuda_emulate_block(threads, SHARED_BYTES, phases, run, p, stats);
}

START_TEST(barrier_separates_writes_from_reads)
{
    program p = { .kind = WRITE_THEN_READ_NEXT };
    dml_coalescing stats;
    ck_assert_msg(emulate(&p, DML_CUDA_BLOCK, 2, &stats) == 0, "%s", dml_cuda_emulator_violation());
    for (uint32_t t = 0; t < DML_CUDA_BLOCK; ++t)
        ck_assert_uint_eq(p.seen[t], ((t + 1) % DML_CUDA_BLOCK) * 7u);
    /* 8 warps x (one store + one load), consecutive words: no conflict */
    ck_assert_uint_eq(stats.shared_requests, 16);
    ck_assert_uint_eq(stats.shared_wavefronts, 16);
    ck_assert_uint_eq(stats.shared_ideal_wavefronts, 16);
}
END_TEST

START_TEST(missing_barrier_is_a_violation)
{
    program p = { .kind = READ_IN_SAME_PHASE };
    ck_assert_int_eq(emulate(&p, DML_CUDA_BLOCK, 1, NULL), DML_EMULATE_VIOLATION);
    ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "missing barrier"));
    program q = { .kind = READ_PREVIOUS_IN_SAME_PHASE };
    ck_assert_int_eq(emulate(&q, DML_CUDA_BLOCK, 1, NULL), DML_EMULATE_VIOLATION);
    ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "thread 1,"));
}
END_TEST

START_TEST(two_writers_in_one_phase_is_a_race)
{
    program p = { .kind = TWO_WRITERS };
    ck_assert_int_eq(emulate(&p, 64, 1, NULL), DML_EMULATE_VIOLATION);
    ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "race"));
    ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "thread 1,"));
    program q = { .kind = REWRITE_OWN }; /* one thread writing its word twice is no race */
    ck_assert_msg(emulate(&q, 64, 1, NULL) == 0, "%s", dml_cuda_emulator_violation());
}
END_TEST

START_TEST(accesses_outside_the_tile_are_violations)
{
    program p = { .kind = OUTSIDE };
    ck_assert_int_eq(emulate(&p, 32, 1, NULL), DML_EMULATE_VIOLATION);
    ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "outside the tile"));
}
END_TEST

/* A block's shared memory is exactly the bytes it is given (a launch's
 * shared_bytes): in a block of 1000 bytes, word 249 is its last, word 250
 * is outside. */
START_TEST(shared_memory_ends_at_the_blocks_bytes)
{
    program last = { .kind = AT_WORD, .stride = 1000 / WORD - 1 };
    ck_assert_msg(dml_cuda_emulate_block(32, 1000, 1, run, &last, NULL) == 0, "%s", dml_cuda_emulator_violation());
    program past = { .kind = AT_WORD, .stride = 1000 / WORD };
    ck_assert_int_eq(dml_cuda_emulate_block(32, 1000, 1, run, &past, NULL), DML_EMULATE_VIOLATION);
    ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "outside the tile"));
    ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "the tile is 1000 bytes"));
}
END_TEST

START_TEST(bank_conflicts_are_counted)
{
    dml_coalescing stats;
    /* stride 32: one warp's 32 words all in bank 0: 32 wavefronts for 1 */
    program p = { .kind = STRIDED, .stride = 32 };
    ck_assert_msg(emulate(&p, 32, 2, &stats) == 0, "%s", dml_cuda_emulator_violation());
    ck_assert_uint_eq(stats.shared_requests, 2);
    ck_assert_uint_eq(stats.shared_wavefronts, 64);
    ck_assert_uint_eq(stats.shared_ideal_wavefronts, 2);
    ck_assert_double_eq_tol(dml_coalescing_bank_conflicts(&stats), 31.0, 1e-9);
    for (uint32_t t = 0; t < 32; ++t)
        ck_assert_uint_eq(p.seen[t], t);
    /* stride 2: two words in each even bank */
    program q = { .kind = STRIDED, .stride = 2 };
    ck_assert_msg(emulate(&q, 32, 2, &stats) == 0, "%s", dml_cuda_emulator_violation());
    ck_assert_double_eq_tol(dml_coalescing_bank_conflicts(&stats), 1.0, 1e-9);
    /* stride 33 (the tile's padding): every bank once */
    program r = { .kind = STRIDED, .stride = 33 };
    ck_assert_msg(emulate(&r, 32, 2, &stats) == 0, "%s", dml_cuda_emulator_violation());
    ck_assert_double_eq_tol(dml_coalescing_bank_conflicts(&stats), 0.0, 1e-9);
    /* one word read by every lane: a broadcast, one wavefront */
    program b = { .kind = BROADCAST };
    ck_assert_msg(emulate(&b, 32, 2, &stats) == 0, "%s", dml_cuda_emulator_violation());
    ck_assert_uint_eq(stats.shared_requests, 2);
    ck_assert_uint_eq(stats.shared_wavefronts, 2);
    for (uint32_t t = 0; t < 32; ++t)
        ck_assert_uint_eq(b.seen[t], 42);
}
END_TEST

/* Lanes that have nothing to move skip an instruction: the emulator groups
 * a warp's accesses by the instruction the code names (DML_INSTRUCTION), so
 * each lane's accesses meet those of the same instruction; unnamed, a lane's
 * n-th access is taken for the n-th instruction, which pairs odd lanes'
 * instruction 2 with even lanes' instruction 1 here (two words in each even
 * bank: one extra wavefront). */
START_TEST(named_instructions_group_accesses)
{
    dml_coalescing stats;
    program named = { .kind = NAMED_INSTRUCTIONS };
    ck_assert_msg(emulate(&named, 32, 1, &stats) == 0, "%s", dml_cuda_emulator_violation());
    ck_assert_uint_eq(stats.shared_requests, 3);
    ck_assert_uint_eq(stats.shared_wavefronts, 3);
    ck_assert_uint_eq(stats.shared_ideal_wavefronts, 3);
    program unnamed = { .kind = SKIPPED_INSTRUCTION };
    ck_assert_msg(emulate(&unnamed, 32, 1, &stats) == 0, "%s", dml_cuda_emulator_violation());
    ck_assert_uint_eq(stats.shared_requests, 3);
    ck_assert_uint_eq(stats.shared_wavefronts, 4);
}
END_TEST

static Suite* suite(void)
{
    Suite* s = suite_create("cuda_shared_model");
    TCase* tc = tcase_create("shared");
    tcase_add_test(tc, barrier_separates_writes_from_reads);
    tcase_add_test(tc, missing_barrier_is_a_violation);
    tcase_add_test(tc, two_writers_in_one_phase_is_a_race);
    tcase_add_test(tc, accesses_outside_the_tile_are_violations);
    tcase_add_test(tc, shared_memory_ends_at_the_blocks_bytes);
    tcase_add_test(tc, bank_conflicts_are_counted);
    tcase_add_test(tc, named_instructions_group_accesses);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner* runner = srunner_create(suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
