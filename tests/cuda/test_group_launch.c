/*
 * Grouped gather launches (cuda/group.h): JOIN's and SPLIT's parts, lowered
 * as CompileOperator does, go through dml_cuda_run_group as the CUDA and
 * emulated backends dispatch them. Checked: how many launches a group takes
 * (one for up to DML_GROUP_PARTS parts, copies folded in; 64 parts as two),
 * the grid's partition among the parts (group_params.h), and the result
 * against a naive per-element JOIN/SPLIT, every part's accesses checked by
 * the emulator against that part's own buffers, each allocated to its exact
 * size (and a part whose bound range is one element short is caught). Parts
 * of very different sizes, 64 parts, a transposed (tiled) part among vector
 * ones, parts of both index widths in one group, JOINs whose warps walk
 * whole output rows (group_join.h) and SPLITs whose parts' warps walk
 * their packed outputs as flat rows (group_split.h).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/data_type.h"
#include "core/ops/op.h"
#include "core/tensor.h"
#include "emulator.h"
#include "group.h"
#include "group_thread.h"
#include "launch.h"

#define MAX_PARTS 64
#define RANK 3

typedef struct tensor_spec {
    uint32_t sizes[RANK], strides[RANK];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tensor_spec;

static void tensor_init(tensor_spec* t, DML_TENSOR_DATA_TYPE type, const uint32_t* sizes, const uint32_t* strides)
{
    memcpy(t->sizes, sizes, sizeof t->sizes);
    if (strides)
        memcpy(t->strides, strides, sizeof t->strides);
    uint64_t bytes = 0;
    ck_assert(dml_calc_buffer_tensor_size(type, RANK, t->sizes, strides ? t->strides : NULL, &bytes));
    t->buffer = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, RANK, t->sizes, strides ? t->strides : NULL,
        bytes, 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

/* What the run launched. */
typedef struct run_log {
    const dml_cuda_launch* compiled[MAX_PARTS];
    dml_plan_args args[MAX_PARTS];
    uint32_t singles, launches, parts, row_joins, row_splits;
    int wide, tiled;
    int shrink_last_input; /* make the last part's input range one element short */
} run_log;

static int on_single(void* context, uint32_t index)
{
    run_log* log = context;
    dml_cuda_launch launch = *log->compiled[index];
    dml_cuda_bind_launch(&launch, &log->args[index]);
    ck_assert_msg(dml_cuda_emulate(&launch, NULL) == 0, "%s", dml_cuda_emulator_violation());
    log->singles++;
    return 0;
}

/* The partition invariants, then the launch run by the emulator. */
static int on_grouped(void* context, const dml_cuda_group_launch* g)
{
    run_log* log = context;
    const dml_group_params* p = &g->params;
    ck_assert_uint_ge(p->parts, 1);
    ck_assert_uint_le(p->parts, DML_GROUP_PARTS);
    ck_assert(g->block == 64 || g->block == 128 || g->block == 256);
    ck_assert(!g->shared_bytes || g->block == DML_CUDA_BLOCK);
    uint32_t first = 0;
    log->row_joins += p->row_join;
    log->row_splits += p->row_split;
    ck_assert(!(p->row_join && p->row_split));
    if (p->row_join) { /* one partition: the joined rows, part[parts] */
        ck_assert_uint_lt(p->parts, DML_GROUP_PARTS);
        ck_assert_uint_eq(p->part[p->parts].blocks, g->grid);
    }
    for (uint32_t n = 0; n < p->parts && !p->row_join; ++n) {
        ck_assert_uint_eq(p->part[n].first_block, first);
        ck_assert_uint_ge(p->part[n].blocks, 1);
        first += p->part[n].blocks;
        for (uint32_t b = p->part[n].first_block; b < first; b += (first - b + 1) / 2)
            if (dml_group_find_part(p->part, p->parts, b) != n)
                ck_abort_msg("block %u is not found in part %u", b, n);
        log->tiled |= p->part[n].mode == DML_CUDA_MODE_TILED;
    }
    ck_assert(p->row_join || g->grid == first);
    log->launches++;
    log->parts += p->parts;
    log->wide |= g->wide;
    if (log->shrink_last_input) {
        dml_cuda_group_launch* shrunk = malloc(sizeof *shrunk);
        ck_assert_ptr_nonnull(shrunk);
        *shrunk = *g;
        shrunk->bound_bytes[p->parts - 1][0] -= g->element_size;
        ck_assert_int_eq(dml_cuda_emulate_group(shrunk, NULL), DML_EMULATE_VIOLATION);
        ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "outside the bound range"));
        free(shrunk);
        return 0;
    }
    ck_assert_msg(dml_cuda_emulate_group(g, NULL) == 0, "%s", dml_cuda_emulator_violation());
    return 0;
}

static uint64_t element_offset(const dml_tensor* t, const uint32_t* c)
{
    uint64_t offset = 0;
    for (uint32_t d = 0; d < t->rank; ++d)
        offset += c[d] * t->strides[d];
    return offset;
}

/* Every element of the joined tensor against its part's, from the spec:
 * the parts follow each other along the axis. */
static void check_result(const dml_op* op, int split, uint32_t axis, unsigned char** in, unsigned char** out)
{
    const dml_tensor* whole = split ? &op->inputs[0] : &op->outputs[0];
    const uint32_t count = split ? op->output_count : op->input_count;
    const uint32_t e = whole->element_size;
    uint32_t c[RANK];
    for (c[0] = 0; c[0] < whole->sizes[0]; ++c[0])
        for (c[1] = 0; c[1] < whole->sizes[1]; ++c[1])
            for (c[2] = 0; c[2] < whole->sizes[2]; ++c[2]) {
                uint32_t k = 0, pc[RANK] = { c[0], c[1], c[2] };
                const dml_tensor* part = split ? &op->outputs[0] : &op->inputs[0];
                while (pc[axis] >= part->sizes[axis] && k + 1 < count) {
                    pc[axis] -= part->sizes[axis];
                    k++;
                    part = split ? &op->outputs[k] : &op->inputs[k];
                }
                const unsigned char* joined = (split ? in[0] : out[0]) + element_offset(whole, c) * e;
                const unsigned char* alone = (split ? out[k] : in[k]) + element_offset(part, pc) * e;
                /* no ck_assert per element: each one is a write to the test runner */
                if (memcmp(joined, alone, e) != 0)
                    ck_abort_msg("element (%u, %u, %u), part %u", c[0], c[1], c[2], k);
            }
}

/* Lowers the JOIN or SPLIT, plans every part for an H100 of sms SMs (odd
 * parts with 64-bit indexing when wide_odd), runs them as the backends
 * do, and checks the result. */
static void run_op(const DML_OPERATOR_DESC* desc, int split, uint32_t axis, uint32_t sms, int wide_odd, run_log* log)
{
    dml_op* op = NULL;
    dml_lowering lowering;
    memset(&lowering, 0, sizeof lowering);
    ck_assert_int_ge(dml_op_create(desc, &op), 0);
    ck_assert_int_ge(dml_op_lower(op, "test_group_launch", &lowering), 0);
    ck_assert_uint_le(lowering.count, MAX_PARTS);
    unsigned char* in[MAX_PARTS] = { NULL };
    unsigned char* out[MAX_PARTS] = { NULL };
    for (uint32_t i = 0; i < op->input_count; ++i) { /* exact sizes: nothing may be read past them */
        in[i] = malloc(op->inputs[i].total_bytes);
        ck_assert_ptr_nonnull(in[i]);
        for (uint64_t b = 0; b < op->inputs[i].total_bytes; ++b)
            in[i][b] = (unsigned char)(b * 131 + i * 17 + 1);
    }
    for (uint32_t o = 0; o < op->output_count; ++o) {
        out[o] = malloc(op->outputs[o].total_bytes);
        ck_assert_ptr_nonnull(out[o]);
        memset(out[o], 0xA5, op->outputs[o].total_bytes);
    }
    const dml_cuda_limits limits = dml_cuda_h100_limits(sms);
    const dml_plan* plans[MAX_PARTS];
    dml_cuda_launch* launches = calloc(MAX_PARTS, sizeof *launches);
    ck_assert_ptr_nonnull(launches);
    for (uint32_t s = 0; s < lowering.count; ++s) {
        dml_op_step* step = &lowering.steps[s];
        if (wide_odd && s % 2)
            step->plan.index32 = 0; /* valid with either width */
        plans[s] = &step->plan;
        dml_cuda_plan_launch_on(&step->plan, &limits, &launches[s]);
        log->compiled[s] = &launches[s];
        const uint32_t i = step->input.index, o = step->output.index;
        log->args[s] = (dml_plan_args){ in[i], NULL, out[o], op->inputs[i].total_bytes, 0, op->outputs[o].total_bytes, NULL, 0 };
    }
    dml_cuda_group_launch* scratch = malloc(sizeof *scratch);
    ck_assert_ptr_nonnull(scratch);
    ck_assert_int_eq(dml_cuda_run_group(plans, log->compiled, log->args, lowering.count, &limits, scratch, on_single,
                         on_grouped, log),
        0);
    if (!log->shrink_last_input)
        check_result(op, split, axis, in, out);
    free(scratch);
    free(launches);
    for (uint32_t k = 0; k < MAX_PARTS; ++k) {
        free(in[k]);
        free(out[k]);
    }
    dml_lowering_free(&lowering);
    dml_op_destroy(op);
}

/* A JOIN (split 0) or SPLIT of `count` parts of `widths` along `axis` of
 * [rows, *, depth] (axis 1) or [*, rows, depth] (axis 0); a part with
 * transposed[k] has its last two dimensions' strides swapped. */
static void join_split(DML_TENSOR_DATA_TYPE type, int split, uint32_t axis, uint32_t count, const uint32_t* widths,
    uint32_t rows, uint32_t depth, const int* transposed, uint32_t sms, int wide_odd, run_log* log)
{
    static tensor_spec parts[MAX_PARTS];
    tensor_spec whole;
    DML_TENSOR_DESC descs[MAX_PARTS];
    uint32_t total = 0;
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t sizes[RANK] = { rows, rows, depth };
        sizes[axis] = widths[k];
        total += widths[k];
        const uint32_t swapped[RANK] = { sizes[1] * sizes[2], 1, sizes[1] };
        tensor_init(&parts[k], type, sizes, transposed && transposed[k] ? swapped : NULL);
        descs[k] = parts[k].desc;
    }
    uint32_t sizes[RANK] = { rows, rows, depth };
    sizes[axis] = total;
    tensor_init(&whole, type, sizes, NULL);
    DML_JOIN_OPERATOR_DESC join = { count, descs, &whole.desc, axis };
    DML_SPLIT_OPERATOR_DESC cut = { &whole.desc, count, descs, axis };
    DML_OPERATOR_DESC od = { split ? DML_OPERATOR_SPLIT : DML_OPERATOR_JOIN, split ? (const void*)&cut : &join };
    run_op(&od, split, axis, sms, wide_odd, log);
}

static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT64 };

START_TEST(uneven_inner_parts_are_one_launch)
{
    const uint32_t widths[2] = { 49, 51 };
    for (int split = 0; split <= 1; ++split) {
        run_log log = { 0 };
        join_split(types[_i], split, 1, 2, widths, 37, 1, NULL, 132, 0, &log);
        ck_assert_uint_eq(log.launches, 1);
        ck_assert_uint_eq(log.singles, 0);
        ck_assert_uint_eq(log.parts, 2);
        ck_assert_uint_eq(log.row_joins, split ? 0 : 1); /* a JOIN's warps walk whole output rows */
        ck_assert_uint_eq(log.row_splits, split ? 1 : 0); /* a SPLIT's walk each part's output flat */
    }
}
END_TEST

START_TEST(copies_are_folded_into_the_launch)
{
    /* Along the outer axis each part alone is one cudaMemcpyAsync. */
    const uint32_t widths[3] = { 5, 1, 9 };
    for (int split = 0; split <= 1; ++split) {
        run_log log = { 0 };
        join_split(types[_i], split, 0, 3, widths, 33, 3, NULL, 132, 0, &log);
        ck_assert_uint_eq(log.launches, 1);
        ck_assert_uint_eq(log.singles, 0);
        ck_assert_uint_eq(log.parts, 3);
    }
}
END_TEST

/* 64 parts, mostly 1 to 8 elements wide and a few hundreds: two launches
 * of 32 parts; on 1 SM too, where every part's threads loop. */
START_TEST(sixty_four_parts_of_very_different_sizes)
{
    uint32_t widths[MAX_PARTS];
    uint32_t seed = 12345u + (uint32_t)_i;
    for (uint32_t k = 0; k < MAX_PARTS; ++k) {
        seed = seed * 1103515245u + 12345u;
        widths[k] = k % 16 == 5 ? 300 + (seed >> 16) % 200 : 1 + (seed >> 16) % 8;
    }
    for (int split = 0; split <= 1; ++split)
        for (uint32_t sms = 1; sms <= 132; sms += 131) {
            run_log log = { 0 };
            join_split(types[_i], split, 1, MAX_PARTS, widths, 6, 3, NULL, sms, 0, &log);
            ck_assert_uint_eq(log.launches, 2);
            ck_assert_uint_eq(log.singles, 0);
            ck_assert_uint_eq(log.parts, MAX_PARTS);
        }
}
END_TEST

/* 64 parts each at least a vector wide, of very different widths, side by
 * side: two launches, each walking its 32 parts' share of the rows. */
START_TEST(sixty_four_joined_rows)
{
    uint32_t widths[MAX_PARTS];
    uint32_t seed = 777u + (uint32_t)_i;
    for (uint32_t k = 0; k < MAX_PARTS; ++k) {
        seed = seed * 1103515245u + 12345u;
        widths[k] = 16 + (k % 9 == 2 ? 400 : 0) + (seed >> 16) % 23;
    }
    run_log log = { 0 };
    join_split(types[_i], 0, 1, MAX_PARTS, widths, 5, 1, NULL, 132, 0, &log);
    ck_assert_uint_eq(log.launches, 2);
    ck_assert_uint_eq(log.row_joins, 2);
    run_log wide = { 0 };
    join_split(types[_i], 0, 1, MAX_PARTS, widths, 3, 1, NULL, 1, 1, &wide);
    ck_assert_uint_eq(wide.row_joins, 2);
    ck_assert(wide.wide);
}
END_TEST

/* The SPLIT likewise: 64 parts of rows not whole vectors (for most), each
 * walked as one flat output; rows of 3 elements of depth, and on 1 SM with
 * 64-bit indexing, where every part's threads loop. */
START_TEST(sixty_four_flat_split_parts)
{
    uint32_t widths[MAX_PARTS];
    uint32_t seed = 4242u + (uint32_t)_i;
    for (uint32_t k = 0; k < MAX_PARTS; ++k) {
        seed = seed * 1103515245u + 12345u;
        widths[k] = 16 + (k % 9 == 2 ? 400 : 0) + (seed >> 16) % 23;
    }
    run_log log = { 0 };
    join_split(types[_i], 1, 1, MAX_PARTS, widths, 5, 1, NULL, 132, 0, &log);
    ck_assert_uint_eq(log.launches, 2);
    ck_assert_uint_eq(log.row_splits, 2);
    run_log deep = { 0 };
    join_split(types[_i], 1, 1, MAX_PARTS, widths, 4, 3, NULL, 1, 1, &deep);
    ck_assert_uint_eq(deep.row_splits, 2);
    ck_assert(deep.wide);
}
END_TEST

START_TEST(tiled_part_among_vector_parts)
{
    const uint32_t widths[3] = { 40, 48, 33 };
    const int transposed[3] = { 0, 1, 0 };
    run_log log = { 0 };
    join_split(types[_i], 0, 1, 3, widths, 4, 64, transposed, 132, 0, &log);
    ck_assert_uint_eq(log.launches, 1);
    ck_assert(log.tiled);
}
END_TEST

START_TEST(index_widths_mixed)
{
    const uint32_t widths[4] = { 17, 100, 3, 64 };
    for (int split = 0; split <= 1; ++split) {
        run_log log = { 0 };
        join_split(types[_i], split, 1, 4, widths, 20, 2, NULL, 8, 1, &log);
        ck_assert_uint_eq(log.launches, 1);
        ck_assert(log.wide);
    }
}
END_TEST

START_TEST(each_part_is_bounded_by_its_own_buffers)
{
    const uint32_t widths[2] = { 30, 34 };
    for (int split = 0; split <= 1; ++split) {
        run_log log = { 0 };
        log.shrink_last_input = 1;
        join_split(types[_i], split, 1, 2, widths, 16, 1, NULL, 132, 0, &log);
        ck_assert_uint_eq(log.launches, 1);
    }
}
END_TEST

int main(void)
{
    Suite* s = suite_create("group_launch");
    TCase* tc = tcase_create("group");
    tcase_set_timeout(tc, 60);
    const int n = (int)(sizeof types / sizeof *types);
    tcase_add_loop_test(tc, uneven_inner_parts_are_one_launch, 0, n);
    tcase_add_loop_test(tc, copies_are_folded_into_the_launch, 0, n);
    tcase_add_loop_test(tc, sixty_four_parts_of_very_different_sizes, 0, n);
    tcase_add_loop_test(tc, sixty_four_joined_rows, 0, n);
    tcase_add_loop_test(tc, sixty_four_flat_split_parts, 0, n);
    tcase_add_loop_test(tc, tiled_part_among_vector_parts, 0, n);
    tcase_add_loop_test(tc, index_widths_mixed, 0, n);
    tcase_add_loop_test(tc, each_part_is_bounded_by_its_own_buffers, 0, n);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
