/*
 * Flat staged tiles (cuda/tile_staged.h, decided in cuda/launch.c): the
 * permutations of DEPTH_TO_SPACE (output rows of `block` elements, adjacent:
 * a flat store) and SPACE_TO_DEPTH (tile rows reading `block` adjacent
 * elements each: a flat load), each written as SLICE1 of the input viewed in
 * the output's order, [N, C, H, block, W, block] or [N, block, block, C, H,
 * W] (DCR) and their CRD orders, so that the tests' reference
 * (reference.c) gives every output element.
 *
 * Emulated (bounds-checked, buffers exactly the tensors' sizes with guard
 * bytes after, at aligned and odd byte offsets) at every element size,
 * blocks 2, 3 and 4, both orders, widths 1 to 67, rows read forward and
 * backward (strides -1: mirrored) and two SM counts: every
 * byte against the reference, the flat phase taken where the launcher must
 * take it, and on aligned buffers at 1 KiB rows the flat side's sector
 * efficiency at least 0.9 (issue 21's goal).
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

typedef struct depth_space {
    int to_space; /* DEPTH_TO_SPACE, else SPACE_TO_DEPTH */
    int crd;      /* column-row-depth order, else depth-column-row */
    uint32_t e, n, c, h, w, block;
    int mirrored; /* x and bx read backward (window strides -1) */
} depth_space;

/* The case as SLICE1 of the input viewed in the output's dimension order
 * (sizes), the view's strides those of the packed input. */
static gather_case depth_space_case(const depth_space* d)
{
    gather_case g;
    memset(&g, 0, sizeof g);
    g.type = DML_OPERATOR_SLICE1;
    g.element_size = d->e;
    g.rank = 6;
    const uint32_t b = d->block, hw = d->h * d->w;
    const uint32_t depth_n = d->c * b * b * hw, space_w = d->w * b, space_n = d->c * d->h * b * space_w;
    if (d->to_space) {
        /* input [N, C*b*b, H, W]; output [N, C, H, by, W, bx] */
        const uint32_t sizes[6] = { d->n, d->c, d->h, b, d->w, b };
        /* channel (by * b + bx) * C + c (DCR) or c * b * b + by * b + bx (CRD) */
        const uint32_t strides[6] = { depth_n, d->crd ? b * b * hw : hw, d->w, d->crd ? b * hw : b * d->c * hw, 1,
            d->crd ? hw : d->c * hw };
        memcpy(g.in_sizes, sizes, sizeof sizes);
        memcpy(g.in_strides, strides, sizeof strides);
    } else {
        /* input [N, C, H*b, W*b]; output [N, by, bx, C, H, W] (DCR) or [N, C, by, bx, H, W] (CRD) */
        const uint32_t c_stride = d->h * b * space_w;
        const uint32_t dcr_sizes[6] = { d->n, b, b, d->c, d->h, d->w };
        const uint32_t dcr_strides[6] = { space_n, space_w, 1, c_stride, b * space_w, b };
        const uint32_t crd_sizes[6] = { d->n, d->c, b, b, d->h, d->w };
        const uint32_t crd_strides[6] = { space_n, c_stride, space_w, 1, b * space_w, b };
        memcpy(g.in_sizes, d->crd ? crd_sizes : dcr_sizes, sizeof dcr_sizes);
        memcpy(g.in_strides, d->crd ? crd_strides : dcr_strides, sizeof dcr_strides);
    }
    memcpy(g.out_sizes, g.in_sizes, sizeof g.in_sizes);
    memcpy(g.window_sizes, g.in_sizes, sizeof g.in_sizes);
    for (uint32_t k = 0; k < g.rank; ++k)
        g.window_strides[k] = 1;
    if (d->mirrored) {
        /* x and bx: the last two dimensions of DEPTH_TO_SPACE's output, the
         * last and bx (2 in DCR, 3 in CRD) of SPACE_TO_DEPTH's */
        g.window_strides[5] = -1;
        g.window_strides[d->to_space ? 4 : d->crd ? 3 : 2] = -1;
    }
    g.out_packed = 1;
    gather_packed_strides(g.rank, g.out_sizes, g.out_strides);
    return g;
}

static void describe(const depth_space* d, uint32_t sms, uint32_t offset, char* what, size_t size)
{
    snprintf(what, size, "%s %s e=%u [%u, %u, %u, %u] block %u%s, %u SMs, offset %u",
        d->to_space ? "DEPTH_TO_SPACE" : "SPACE_TO_DEPTH", d->crd ? "CRD" : "DCR", d->e, d->n, d->c, d->h, d->w,
        d->block, d->mirrored ? " mirrored" : "", sms, offset);
}

/* Emulates the case against the reference; returns the launch (with the
 * coalescing figures in *stats). With `shrink`, the launch's shared memory
 * is that many bytes short and the emulator must catch the tile beyond it. */
static dml_cuda_launch emulate_shrunk(const depth_space* d, uint32_t sms, uint32_t offset, uint32_t shrink,
    dml_coalescing* stats)
{
    char what[160];
    describe(d, sms, offset, what, sizeof what);
    const gather_case c = depth_space_case(d);
    dml_plan plan;
    ck_assert_msg(gather_case_compile(&c, &plan) >= 0, "%s: does not compile", what);
    gather_buffers b;
    const uint32_t offsets[3] = { offset, 0, offset * 3 % 64 };
    ck_assert_int_eq(gather_buffers_alloc(&c, offsets, sms + offset, &b), 0);
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&plan, &args, sms, &launch);
    memset(stats, 0, sizeof *stats);
    if (shrink) {
        launch.shared_bytes -= shrink;
        ck_assert_msg(dml_cuda_emulate(&launch, stats) == DML_EMULATE_VIOLATION, "%s: no violation", what);
        ck_assert_msg(strstr(dml_cuda_emulator_violation(), "outside the tile") != NULL, "%s: %s", what,
            dml_cuda_emulator_violation());
        launch.shared_bytes += shrink;
        gather_buffers_free(&b);
        return launch;
    }
    ck_assert_msg(dml_cuda_emulate(&launch, stats) == 0, "%s: %s", what, dml_cuda_emulator_violation());
    reference_gather(&c, &b);
    uint64_t first = 0;
    const uint64_t wrong = reference_mismatches(&b, &first);
    ck_assert_msg(wrong == 0, "%s: %llu bytes differ from the reference, first at %llu", what,
        (unsigned long long)wrong, (unsigned long long)first);
    gather_buffers_free(&b);
    return launch;
}

static dml_cuda_launch emulate_depth_space(const depth_space* d, uint32_t sms, uint32_t offset, dml_coalescing* stats)
{
    return emulate_shrunk(d, sms, offset, 0, stats);
}

/* Whether the launch took the flat phase the case's shape calls for: with
 * W > 1, DEPTH_TO_SPACE's output rows (bx) are whole and adjacent, and
 * SPACE_TO_DEPTH's tile rows read bx's adjacent elements. */
static void check_flat(const depth_space* d, const dml_cuda_launch* l, uint32_t sms, uint32_t offset)
{
    char what[160];
    describe(d, sms, offset, what, sizeof what);
    if (d->w < 2)
        return;
    ck_assert_msg(l->mode == DML_CUDA_MODE_TILED && l->params.tile_staged, "%s: not staged", what);
    if (d->to_space)
        ck_assert_msg(l->params.stage_flat_store && !l->params.stage_flat_load, "%s: no flat store", what);
    else
        ck_assert_msg(l->params.stage_flat_load && l->params.tile_across == d->block, "%s: no flat load", what);
}

START_TEST(depth_space_flat_tiles_emulate_exactly)
{
    static const uint32_t blocks[] = { 2, 3, 4 };
    static const uint32_t widths[] = { 1, 5, 37, 67 };
    static const uint32_t sms[] = { 1, 132 };
    /* DML_TEST_QUICK (valgrind): every 8th case, all element sizes, blocks and orders still met. */
    const char* quick = getenv("DML_TEST_QUICK");
    const uint32_t every = quick && *quick == '1' ? 8 : 1;
    uint32_t n = 0;
    int flat = 0;
    for (size_t k = 0; k < sizeof element_sizes / sizeof element_sizes[0]; ++k)
        for (size_t bl = 0; bl < sizeof blocks / sizeof blocks[0]; ++bl)
            for (size_t w = 0; w < sizeof widths / sizeof widths[0]; ++w)
                for (int to_space = 0; to_space <= 1; ++to_space)
                    for (int crd = 0; crd <= 1; ++crd)
                        for (size_t s = 0; s < sizeof sms / sizeof sms[0]; ++s) {
                            const uint32_t e = element_sizes[k];
                            /* mirrored (strides -1) on the larger GPU only */
                            const int mirrored = s == 1 && (w + bl) % 2 == 1;
                            const depth_space d = { to_space, crd, e, 2, 3, 3, widths[w], blocks[bl], mirrored };
                            /* aligned, and an odd number of elements in */
                            const uint32_t offsets[2] = { 0, 3 * e };
                            for (int o = 0; o < 2; ++o) {
                                if (n++ % every)
                                    continue;
                                dml_coalescing stats;
                                const dml_cuda_launch l = emulate_depth_space(&d, sms[s], offsets[o], &stats);
                                check_flat(&d, &l, sms[s], offsets[o]);
                                flat += l.params.stage_flat_load || l.params.stage_flat_store;
                            }
                        }
    printf("depth/space flat tiles: %d flat launches emulated exactly\n", flat);
    ck_assert_int_gt(flat, 0);
}
END_TEST

/* Block 2 at 1 KiB rows (the space side's, as dmlcoalesce's rows), aligned:
 * DEPTH_TO_SPACE stores and SPACE_TO_DEPTH loads at >= 0.9 of their
 * sectors, the other side at >= 0.9 too. */
START_TEST(depth_space_flat_tiles_coalesce)
{
    const char* quick = getenv("DML_TEST_QUICK");
    const int orders = quick && *quick == '1' ? 1 : 2; /* valgrind: DCR only */
    for (size_t k = 0; k < sizeof element_sizes / sizeof element_sizes[0]; ++k)
        for (int to_space = 0; to_space <= 1; ++to_space)
            for (int crd = 0; crd < orders; ++crd) {
                const uint32_t e = element_sizes[k];
                const depth_space d = { to_space, crd, e, 1, 4, 8, 1024 / e / 2, 2, 0 };
                dml_coalescing stats;
                const dml_cuda_launch l = emulate_depth_space(&d, 132, 0, &stats);
                char what[160];
                describe(&d, 132, 0, what, sizeof what);
                check_flat(&d, &l, 132, 0);
                const double load = dml_coalescing_load_efficiency(&stats);
                const double store = dml_coalescing_store_efficiency(&stats);
                printf("%s: load %.3f, store %.3f\n", what, load, store);
                ck_assert_msg(load >= 0.9 && store >= 0.9, "%s: load %.3f, store %.3f of their sectors", what, load,
                    store);
            }
}
END_TEST

/* A flat load's shared row is the tile's input range from its 4-byte
 * aligned start, up to 2 bytes of slack: 8 bytes less and the tile
 * reaches beyond the block's shared memory, at any alignment. */
START_TEST(flat_load_shared_memory_is_the_launchs)
{
    for (size_t k = 0; k < sizeof element_sizes / sizeof element_sizes[0]; ++k)
        for (uint32_t offset = 0; offset < 8; offset += element_sizes[k]) {
            const depth_space d = { 0, 0, element_sizes[k], 1, 2, 3, 37, 2, 0 };
            dml_coalescing stats;
            const dml_cuda_launch l = emulate_shrunk(&d, 132, offset, 8, &stats);
            ck_assert(l.params.stage_flat_load);
        }
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cuda_tile_flat");
    TCase* tc = tcase_create("tile_flat");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, depth_space_flat_tiles_emulate_exactly);
    tcase_add_test(tc, depth_space_flat_tiles_coalesce);
    tcase_add_test(tc, flat_load_shared_memory_is_the_launchs);
    suite_add_tcase(s, tc);
    SRunner* runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
