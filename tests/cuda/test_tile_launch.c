/*
 * The tiled launch's geometry (cuda/launch.c): the tile shape, a block's
 * shared memory and the blocks per SM the launcher picks from the plan and
 * the GPU's limits.
 *
 * Invariants, over transposes of many shapes (batched or not, rows of every
 * length and alignment, up to 1 GiB), element sizes, SM counts and GPUs (an
 * H100's shared memory, an A100's, a 100 KiB-per-SM part's):
 *   - a block's shared memory holds its tile, and no more than a block may
 *     have: staged tiles, tile_inner rows of stage_pitch words (odd, so that
 *     rows start in different banks), each holding a row's bytes from its
 *     4-byte aligned start; square tiles, 32 rows of 33 words;
 *   - blocks_per_sm blocks fit an SM's shared memory (with the system's
 *     reserve per block) and the tiled kernels' register bound;
 *   - tile rows are as long as shared memory allows at most, and at least
 *     DML_TILE_MIN_ROW_BYTES of input or half that longest (whichever is
 *     shorter), unless the whole dimension is one tile;
 *   - every resident block gets a tile, unless no even cut of the input rows
 *     into more tiles (its length rounded up to whole 32-byte sectors where
 *     that fits, as the launcher cuts) keeps them at that minimum;
 *   - grid = min(tiles, SMs x blocks per SM).
 * Then emulated launches (cuda/emulator.c, results against reference.c)
 * where the launcher cuts tile rows short to fill the GPU or its waves, and
 * the emulator's shared memory, exactly the launch's shared_bytes: a launch
 * that gives its tiles 4 bytes too few is caught touching beyond them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator.h"
#include "gather_cases.h"
#include "launch.h"
#include "reference.h"

static const uint32_t element_sizes[] = { 1, 2, 4, 8 };

/* A transpose of `batches` matrices: output [batch][across][inner] packed
 * (out_inner elements apart along the inner dimension: 1 gives staged
 * tiles, 2 square ones), input [batch][inner][across] packed. */
static dml_plan transpose_plan(uint32_t e, uint64_t batches, uint64_t across, uint64_t inner, int64_t out_inner)
{
    dml_plan p;
    memset(&p, 0, sizeof p);
    p.kind = DML_PLAN_GATHER;
    p.element_size = e;
    p.axis = -1;
    const uint64_t sizes[3] = { batches, across, inner };
    const int64_t in_strides[3] = { (int64_t)(across * inner), 1, (int64_t)across };
    const int64_t out_strides[3] = { (int64_t)(across * inner) * out_inner, (int64_t)inner * out_inner, out_inner };
    const uint32_t first = batches > 1 ? 0 : 1;
    p.rank = 3 - first;
    for (uint32_t d = first; d < 3; ++d) {
        p.sizes[d - first] = sizes[d];
        p.in_strides[d - first] = in_strides[d];
        p.out_strides[d - first] = out_strides[d];
    }
    p.element_count = batches * across * inner;
    p.index32 = p.element_count * (uint64_t)out_inner < (1ull << 31);
    return p;
}

/* The shared memory a staged tile row needs: an odd number of words
 * holding `elements` elements from a 4-byte aligned start (up to 3 bytes
 * before the first). */
static uint64_t staged_pitch_for(uint64_t elements, uint32_t e)
{
    uint64_t words = (elements * e + 3 + 3) / 4;
    return words + (words % 2 == 0);
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

typedef struct gpu {
    const char* name;
    uint32_t shared_per_sm, shared_per_block, reserved;
} gpu;

static const gpu gpus[] = {
    { "H100", 228 * 1024, 48 * 1024, 1024 },
    { "A100", 164 * 1024, 48 * 1024, 1024 },
    { "100 KiB per SM", 100 * 1024, 48 * 1024, 1024 },
};

static int checked_staged, checked_square, checked_flat, short_of_slots, cut_short;

/* A flat load's tile (rows reading adjacent pieces of across, a few
 * elements each): across whole; along the output rows whole warps' 128
 * (256) bytes (or the row), within DML_TILE_FLAT_LOAD_BYTES of input,
 * that warp's width alone when more would leave resident blocks without a
 * tile; one shared row holding the range from a 4-byte aligned start. */
static void check_flat_load(const dml_cuda_launch* l, uint64_t tiles, uint64_t slots, const char* what)
{
    const dml_gather_params* p = &l->params;
    const uint32_t e = l->element_size;
    const uint64_t warp = (e == 8 ? 256 : 128) / e, narrow = warp < p->row_length ? warp : p->row_length;
    ck_assert_msg(p->tile_across == p->across_size, "%s: flat tile %ux%u", what, p->tile_inner, p->tile_across);
    ck_assert_msg(p->tile_inner == p->row_length || p->tile_inner % narrow == 0, "%s: flat tile %u tall", what,
        p->tile_inner);
    const uint64_t bytes = (uint64_t)p->tile_inner * p->across_size * e;
    ck_assert_msg(narrow * p->across_size * e <= DML_TILE_FLAT_LOAD_BYTES &&
            (bytes <= DML_TILE_FLAT_LOAD_BYTES || p->tile_inner == narrow),
        "%s: flat tile of %llu bytes", what, (unsigned long long)bytes);
    ck_assert_msg(tiles >= slots || p->tile_inner == narrow, "%s: %llu flat tiles %u tall for %llu slots", what,
        (unsigned long long)tiles, p->tile_inner, (unsigned long long)slots);
    ck_assert_uint_eq(l->shared_bytes, (uint64_t)p->stage_pitch * 4);
    ck_assert_uint_ge((uint64_t)p->stage_pitch * 4, bytes + 3);
    checked_flat++;
}

static void check_geometry(const dml_plan* plan, const dml_cuda_limits* limits, const char* what)
{
    dml_cuda_launch l;
    dml_cuda_plan_launch_on(plan, limits, &l);
    ck_assert_msg(!l.is_copy && l.mode == DML_CUDA_MODE_TILED, "%s: not tiled", what);
    const dml_gather_params* p = &l.params;
    const uint32_t e = plan->element_size;
    const uint64_t tiles = p->count;

    ck_assert_msg(l.shared_bytes > 0 && l.shared_bytes <= limits->shared_per_block &&
            l.shared_bytes <= DML_TILE_MAX_SHARED_BYTES,
        "%s: %u bytes of shared memory", what, l.shared_bytes);
    ck_assert_msg(l.blocks_per_sm >= 1 && l.blocks_per_sm <= DML_TILE_BLOCKS_PER_SM, "%s: %u blocks per SM", what,
        l.blocks_per_sm);
    ck_assert_msg((uint64_t)l.blocks_per_sm * (l.shared_bytes + limits->shared_reserved_per_block) <=
            limits->shared_per_sm,
        "%s: %u blocks of %u bytes (+%u) on %u bytes per SM", what, l.blocks_per_sm, l.shared_bytes,
        limits->shared_reserved_per_block, limits->shared_per_sm);
    /* as many as fit, up to the register bound */
    ck_assert_msg(l.blocks_per_sm == DML_TILE_BLOCKS_PER_SM ||
            (uint64_t)(l.blocks_per_sm + 1) * (l.shared_bytes + limits->shared_reserved_per_block) >
                limits->shared_per_sm,
        "%s: %u blocks per SM, one more fits", what, l.blocks_per_sm);
    const uint64_t slots = (uint64_t)limits->sm_count * l.blocks_per_sm;
    ck_assert_msg(l.grid == (tiles < slots ? tiles : slots), "%s: grid %u for %llu tiles, %llu slots", what, l.grid,
        (unsigned long long)tiles, (unsigned long long)slots);
    ck_assert_uint_eq(l.block, DML_CUDA_BLOCK);

    const uint64_t n = p->across_size, length = p->tile_across;
    const uint64_t batches = plan->element_count / (p->row_length * n);
    ck_assert_uint_eq(tiles, batches * ceil_div(p->row_length, p->tile_inner) * ceil_div(n, length));
    if (!p->tile_staged) {
        ck_assert_uint_eq(p->tile_inner, DML_TILE);
        ck_assert_uint_eq(p->tile_across, DML_TILE);
        ck_assert_uint_eq(l.shared_bytes, DML_TILE * DML_TILE_PITCH * (e == 8 ? 8 : 4));
        checked_square++;
        return;
    }
    if (p->stage_flat_load) {
        check_flat_load(&l, tiles, slots, what);
        return;
    }
    ck_assert_msg(length >= 1 && length <= n && p->tile_inner >= 1 && p->tile_inner <= p->row_length, "%s: tile %ux%u",
        what, p->tile_inner, p->tile_across);
    /* a warp's 128 bytes of output row (256 for 8-byte elements) */
    const uint64_t inner = (e == 8 ? 256 : 128) / e;
    ck_assert_uint_eq(p->tile_inner, inner < p->row_length ? inner : p->row_length);
    ck_assert_msg(p->stage_pitch % 2 == 1 && p->stage_pitch >= staged_pitch_for(length, e), "%s: pitch %u", what,
        p->stage_pitch);
    ck_assert_uint_eq(l.shared_bytes, (uint64_t)p->tile_inner * p->stage_pitch * 4);

    /* the longest tile row a block's shared memory holds */
    uint64_t fit_lo = 1, fit_hi = 1u << 20;
    while (fit_hi - fit_lo > 1) {
        const uint64_t mid = (fit_lo + fit_hi) / 2;
        if (p->tile_inner * staged_pitch_for(mid, e) * 4 <= DML_TILE_MAX_SHARED_BYTES)
            fit_lo = mid;
        else
            fit_hi = mid;
    }
    /* the minimum: 1 KiB of input row, or half the longest if shorter */
    const uint64_t shortest = ceil_div(DML_TILE_MIN_ROW_BYTES, e) < ceil_div(fit_lo, 2)
        ? ceil_div(DML_TILE_MIN_ROW_BYTES, e) : ceil_div(fit_lo, 2);
    const uint64_t pieces = ceil_div(n, length);
    ck_assert_msg(length <= fit_lo, "%s: tile rows of %llu elements, %llu fit", what, (unsigned long long)length,
        (unsigned long long)fit_lo);
    ck_assert_msg(length >= shortest || length == n, "%s: tile rows of %llu bytes, below the minimum %llu", what,
        (unsigned long long)(length * e), (unsigned long long)(shortest * e));
    if (tiles < slots) {
        /* no even cut into more pieces keeps the minimum */
        short_of_slots++;
        for (uint64_t q = pieces + 1; q <= n && q <= pieces + slots; ++q) {
            /* an even cut, its length in whole sectors where that fits */
            uint64_t cut = ceil_div(n, q);
            if (cut < shortest)
                break;
            const uint64_t sectors = ceil_div(cut * e, 32) * 32 / e;
            cut = sectors <= fit_lo ? sectors : cut;
            ck_assert_msg(ceil_div(n, cut) <= pieces, "%s: %llu tiles for %llu slots; rows of %llu elements give more",
                what, (unsigned long long)tiles, (unsigned long long)slots, (unsigned long long)cut);
        }
    }
    /* tiles the launcher cut shorter than shared memory allows */
    cut_short += pieces > 1 &&
        p->tile_inner * staged_pitch_for(ceil_div(n, pieces - 1), e) * 4 <= DML_TILE_MAX_SHARED_BYTES;
    checked_staged++;
}

START_TEST(geometry_invariants)
{
    static const uint64_t totals[] = { 4096, 256 * 1024, 4u << 20, 64u << 20, 1u << 30 };
    static const uint64_t row_bytes[] = { 64, 1000, 1024, 4096, 65536 };
    static const uint32_t sms[] = { 1, 7, 108, 132, 1000, 65536 };
    for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; ++g)
        for (size_t s = 0; s < sizeof sms / sizeof sms[0]; ++s) {
            const dml_cuda_limits limits = { sms[s], gpus[g].shared_per_sm, gpus[g].shared_per_block,
                gpus[g].reserved };
            for (size_t k = 0; k < sizeof element_sizes / sizeof element_sizes[0]; ++k) {
                const uint32_t e = element_sizes[k];
                for (size_t t = 0; t < sizeof totals / sizeof totals[0]; ++t)
                    for (size_t r = 0; r < sizeof row_bytes / sizeof row_bytes[0]; ++r) {
                        const uint64_t inner = row_bytes[r] / e, across = totals[t] / row_bytes[r];
                        if (inner < 2 || across < 6)
                            continue;
                        for (int64_t out_inner = 1; out_inner <= 2; ++out_inner)
                            for (uint64_t batches = 1; batches <= 3; batches += 2) {
                                char what[160];
                                snprintf(what, sizeof what, "%s, %u SMs: e=%u, %llu x %llu x %llu, output stride %lld",
                                    gpus[g].name, sms[s], e, (unsigned long long)batches,
                                    (unsigned long long)across, (unsigned long long)inner, (long long)out_inner);
                                const dml_plan plan = transpose_plan(e, batches, across / batches, inner, out_inner);
                                check_geometry(&plan, &limits, what);
                            }
                    }
                /* odd shapes: long thin, short wide, prime sizes */
                static const uint64_t odd[][2] = { { 100003, 3 }, { 3, 100003 }, { 257, 1031 }, { 1031, 257 },
                    { 2, 2 }, { 65537, 33 } };
                for (size_t o = 0; o < sizeof odd / sizeof odd[0]; ++o) {
                    char what[160];
                    snprintf(what, sizeof what, "%s, %u SMs: e=%u, %llu x %llu", gpus[g].name, sms[s], e,
                        (unsigned long long)odd[o][0], (unsigned long long)odd[o][1]);
                    const dml_plan plan = transpose_plan(e, 1, odd[o][0], odd[o][1], 1);
                    check_geometry(&plan, &limits, what);
                }
            }
        }
    printf("tile geometry: %d staged (%d of them flat loads) and %d square launches checked; %d staged short of "
           "resident blocks, %d with tile rows cut shorter than shared memory allows\n",
        checked_staged + checked_flat, checked_flat, checked_square, short_of_slots, cut_short);
    ck_assert_int_gt(checked_square, 0);
    ck_assert_int_gt(checked_flat, 0);
    ck_assert_int_gt(short_of_slots, 0);
    ck_assert_int_gt(cut_short, 0);
}
END_TEST

/* The geometry of dmlcoalesce's transposed case (rows of 1 KiB) at 256 KiB,
 * 4 MiB and 64 MiB on an H100 (132 SMs), printed for the notes; at 64 MiB
 * the tiles fill their waves to within DML_TILE_WAVE_SLACK percent (before
 * this rule, 4-byte elements: 1648 tiles for 396 blocks, 4.16 waves). */
START_TEST(transposed_geometry_on_h100)
{
    static const uint64_t totals[] = { 256 * 1024, 4u << 20, 64u << 20 };
    const dml_cuda_limits h100 = dml_cuda_h100_limits(132);
    for (size_t k = 0; k < sizeof element_sizes / sizeof element_sizes[0]; ++k)
        for (size_t t = 0; t < sizeof totals / sizeof totals[0]; ++t) {
            const uint32_t e = element_sizes[k];
            const dml_plan plan = transpose_plan(e, 1, totals[t] / 1024, 1024 / e, 1);
            dml_cuda_launch l;
            dml_cuda_plan_launch_on(&plan, &h100, &l);
            const uint64_t slots = 132ull * l.blocks_per_sm, tiles = l.params.count;
            const double waves = (double)tiles / (double)slots;
            printf("transposed e=%u %llu KiB: tile %ux%u, %llu tiles, grid %u, %u bytes shared, %u blocks/SM, %.2f "
                   "waves\n",
                e, (unsigned long long)(totals[t] >> 10), l.params.tile_inner, l.params.tile_across,
                (unsigned long long)tiles, l.grid, l.shared_bytes, l.blocks_per_sm, waves);
            if (totals[t] == (64u << 20)) {
                const uint64_t whole = ceil_div(tiles, slots) * slots;
                ck_assert_msg(100 * tiles >= (100 - DML_TILE_WAVE_SLACK) * whole, "e=%u: %llu tiles for %llu slots", e,
                    (unsigned long long)tiles, (unsigned long long)slots);
            }
        }
}
END_TEST

/* Emulates the case's launch for sm_count SMs against the reference. */
static void emulate_case(const gather_case* c, uint32_t sm_count, int shrink_shared, const char* what)
{
    dml_plan plan;
    ck_assert_int_ge(gather_case_compile(c, &plan), 0);
    gather_buffers b;
    const uint32_t offsets[3] = { 0, 0, 0 };
    ck_assert_int_eq(gather_buffers_alloc(c, offsets, sm_count, &b), 0);
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&plan, &args, sm_count, &launch);
    ck_assert_msg(launch.mode == DML_CUDA_MODE_TILED, "%s: not tiled", what);
    if (shrink_shared) {
        /* a shared row: the last one's padding may go untouched */
        launch.shared_bytes -= launch.params.tile_staged ? launch.params.stage_pitch * 4
                                                         : DML_TILE_PITCH * (launch.element_size == 8 ? 8 : 4);
        ck_assert_msg(dml_cuda_emulate(&launch, NULL) == DML_EMULATE_VIOLATION, "%s (tile %ux%u, %s): no violation",
            what, launch.params.tile_inner, launch.params.tile_across, launch.params.tile_staged ? "staged" : "square");
        ck_assert_msg(strstr(dml_cuda_emulator_violation(), "outside the tile") != NULL, "%s: %s", what,
            dml_cuda_emulator_violation());
    } else {
        ck_assert_msg(dml_cuda_emulate(&launch, NULL) == 0, "%s: %s", what, dml_cuda_emulator_violation());
        reference_gather(c, &b);
        uint64_t first = 0;
        const uint64_t wrong = reference_mismatches(&b, &first);
        ck_assert_msg(wrong == 0, "%s: %llu bytes differ from the reference, first at %llu", what,
            (unsigned long long)wrong, (unsigned long long)first);
    }
    gather_buffers_free(&b);
}

/* 1 MiB transposes of 4096 input rows (rows of 256 and 250 output bytes):
 * with 4- and 8-byte elements the launcher cuts the input rows shorter than
 * shared memory allows, to fill 132 SMs (tiles < resident blocks) or the
 * waves of 1 and 7; every element lands where the reference says. */
START_TEST(cut_tiles_emulate_exactly)
{
    static const DML_OPERATOR_TYPE types[] = { DML_OPERATOR_SLICE1, DML_OPERATOR_REVERSE_SUBSEQUENCES };
    static const uint32_t rows[] = { 256, 250 };
    static const uint32_t sms[] = { 1, 7, 132 };
    const char* quick = getenv("DML_TEST_QUICK"); /* valgrind: one SM count per case, in turn */
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
        for (size_t k = 0; k < sizeof element_sizes / sizeof element_sizes[0]; ++k)
            for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
                for (size_t s = 0; s < sizeof sms / sizeof sms[0]; ++s) {
                    if (quick && quick[0] && strcmp(quick, "0") != 0 && s != (t + k + r) % 3)
                        continue;
                    gather_case c;
                    ck_assert(gather_pattern_case(types[t], element_sizes[k], PATTERN_TRANSPOSED, 1u << 20, rows[r],
                        &c));
                    char what[128];
                    snprintf(what, sizeof what, "%s transposed e=%u rows of %u bytes, %u SMs",
                        gather_operator_name(types[t]), element_sizes[k], rows[r], sms[s]);
                    emulate_case(&c, sms[s], 0, what);
                }
}
END_TEST

/* The emulator gives a block exactly the launch's shared_bytes: a launch
 * whose tiles are given a shared row less than they use (the last row's
 * padding may go untouched) fails, staged tiles and square ones (output
 * rows not contiguous), every element size. */
START_TEST(shared_memory_is_the_launchs)
{
    for (size_t k = 0; k < sizeof element_sizes / sizeof element_sizes[0]; ++k) {
        const uint32_t e = element_sizes[k];
        gather_case c;
        ck_assert(gather_pattern_case(DML_OPERATOR_SLICE1, e, PATTERN_TRANSPOSED, 64 * 1024, 1024, &c));
        emulate_case(&c, 132, 0, "staged");
        emulate_case(&c, 132, 1, "staged, a shared row short");
        /* output rows 2 elements apart: square tiles */
        c.out_packed = 0;
        c.out_strides[1] = 2;
        c.out_strides[0] = 2 * c.out_sizes[1];
        emulate_case(&c, 132, 0, "square");
        emulate_case(&c, 132, 1, "square, a shared row short");
    }
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cuda_tile_launch");
    TCase* tc = tcase_create("tile_launch");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, geometry_invariants);
    tcase_add_test(tc, transposed_geometry_on_h100);
    tcase_add_test(tc, cut_tiles_emulate_exactly);
    tcase_add_test(tc, shared_memory_is_the_launchs);
    suite_add_tcase(s, tc);
    SRunner* runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
