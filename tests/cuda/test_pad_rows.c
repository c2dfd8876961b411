/*
 * test_pad_rows.c — the PAD kernel's row path (cuda/pad_rows_thread.h) in the
 * emulator, every access checked against exact-size bound ranges:
 *
 *   - against a naive reference written here (a fold one bounce at a time)
 *     and byte for byte against the flat path (the same launch with
 *     pad_params.rows = 0): every mode, 1-, 2-, 4- and 8-byte elements, 32-
 *     and 64-bit indexing (each in half the cases); input and output rows starting at every
 *     alignment in a 16-byte line and in a window (row gaps, pointers off a
 *     line), interiors shorter than a window (1-7 elements), pads several
 *     times the input (folds upon folds), borders out of the windows' reach,
 *     CONSTANT rows outside the input, rows longer than a segment, rows only
 *     padded outside (no innermost fold); the input allocated to its last
 *     byte, so a load past it is also a heap overflow for the sanitizers;
 *   - the launcher's choice (the row path wherever rows are contiguous and
 *     DML_PAD_ROW_MIN_WIDTH wide, the flat one otherwise);
 *   - the coalescing goal: NCHW padded by 1 and 2 on H and W, each mode and
 *     element size, loads and stores >= 0.9 sector efficiency.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dml/dml.h>

#include "emulator.h"
#include "launch.h"

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng* r)
{
    r->s += 0x9E3779B97F4A7C15ull;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* j folded into [0, n) one bounce at a time; -1: CONSTANT, outside. */
static int64_t naive_fold(int64_t j, int64_t n, uint32_t mode)
{
    if (mode == DML_PADDING_MODE_CONSTANT)
        return j >= 0 && j < n ? j : -1;
    while (j < 0 || j >= n) {
        if (mode == DML_PADDING_MODE_EDGE)
            j = j < 0 ? 0 : n - 1;
        else if (mode == DML_PADDING_MODE_REFLECTION)
            j = n == 1 ? 0 : j < 0 ? -j : 2 * (n - 1) - j;
        else
            j = j < 0 ? -1 - j : 2 * n - 1 - j;
    }
    return j;
}

/* A rank-2 PAD: `rows` input rows of n elements `in_pitch` apart, padded by
 * top/bottom rows and left/right elements, output rows `out_pitch` apart. */
typedef struct shape {
    uint64_t rows, n;
    uint64_t top, bottom, left, right;
    uint64_t in_gap, out_gap; /* elements between rows beyond their width */
    uint32_t in_shift, out_shift; /* elements the ranges start past a 64-byte line */
} shape;

typedef struct buffers {
    unsigned char *in_block, *out_block, *flat_block;
    unsigned char *in, *out, *flat;
    uint64_t in_bytes, out_bytes;
} buffers;

static void make_plan(const shape* s, uint32_t e, uint32_t mode, int index32, dml_plan* p)
{
    memset(p, 0, sizeof *p);
    p->kind = DML_PLAN_PAD;
    p->axis = -1;
    p->rank = 2;
    p->element_size = e;
    p->index32 = (uint32_t)index32;
    p->pad_mode = mode;
    p->sizes[0] = s->rows + s->top + s->bottom;
    p->sizes[1] = s->n + s->left + s->right;
    p->element_count = p->sizes[0] * p->sizes[1];
    p->in_strides[0] = (int64_t)(s->n + s->in_gap);
    p->in_strides[1] = 1;
    p->out_strides[0] = (int64_t)(p->sizes[1] + s->out_gap);
    p->out_strides[1] = 1;
    if (s->top || s->bottom) {
        p->pad_origin[0] = -(int64_t)s->top;
        p->pad_extent[0] = s->rows;
    }
    if (s->left || s->right) {
        p->pad_origin[1] = -(int64_t)s->left;
        p->pad_extent[1] = s->n;
    }
    for (uint32_t b = 0; b < e; b++)
        p->fill_start.bytes[b] = (unsigned char)(0xC0 + b);
}

/* Exact-size ranges: the input's last byte is its allocation's last. */
static void make_buffers(const shape* s, const dml_plan* p, rng* r, buffers* b)
{
    const uint32_t e = p->element_size;
    b->in_bytes = ((s->rows - 1) * (uint64_t)p->in_strides[0] + s->n) * e;
    b->out_bytes = ((p->sizes[0] - 1) * (uint64_t)p->out_strides[0] + p->sizes[1]) * e;
    const uint64_t in_lead = s->in_shift * (uint64_t)e, out_lead = s->out_shift * (uint64_t)e;
    /* malloc's end is the input range's end: a read past it is a heap overflow too */
    b->in_block = malloc(in_lead + b->in_bytes);
    b->out_block = aligned_alloc(64, (out_lead + b->out_bytes + 63) / 64 * 64);
    b->flat_block = aligned_alloc(64, (out_lead + b->out_bytes + 63) / 64 * 64);
    if (!b->in_block || !b->out_block || !b->flat_block)
        ck_abort_msg("out of memory");
    b->in = b->in_block + in_lead;
    b->out = b->out_block + out_lead;
    b->flat = b->flat_block + out_lead;
    for (uint64_t i = 0; i < b->in_bytes; i++)
        b->in[i] = (unsigned char)next(r);
    memset(b->out, 0x5A, b->out_bytes);
    memset(b->flat, 0x5A, b->out_bytes);
}

static void free_buffers(buffers* b)
{
    free(b->in_block);
    free(b->out_block);
    free(b->flat_block);
}

static void run(const dml_cuda_launch* launch, dml_coalescing* stats)
{
    const int result = dml_cuda_emulate(launch, stats);
    if (result != 0)
        ck_abort_msg("emulation failed (%d): %s", result, dml_cuda_emulator_violation());
}

/* Every output byte against the naive reference (gaps untouched). Plain
 * comparisons, one assertion: check's assertions each write to a pipe. */
static void check_reference(const shape* s, const dml_plan* p, const buffers* b, const char* text)
{
    const uint32_t e = p->element_size;
    for (uint64_t row = 0; row < p->sizes[0]; row++) {
        const unsigned char* out_row = b->out + row * (uint64_t)p->out_strides[0] * e;
        const int64_t i = naive_fold((int64_t)row - (int64_t)s->top, (int64_t)s->rows, p->pad_mode);
        for (uint64_t c = 0; c < p->sizes[1]; c++) {
            const int64_t j = naive_fold((int64_t)c - (int64_t)s->left, (int64_t)s->n, p->pad_mode);
            const unsigned char* want = i < 0 || j < 0 ? p->fill_start.bytes
                                                       : b->in + ((uint64_t)i * (uint64_t)p->in_strides[0] + (uint64_t)j) * e;
            if (memcmp(out_row + c * e, want, e))
                ck_abort_msg("%s: element [%llu, %llu] differs from the reference", text, (unsigned long long)row,
                    (unsigned long long)c);
        }
        for (uint64_t g = 0; row + 1 < p->sizes[0] && g < s->out_gap * e; g++)
            if (out_row[p->sizes[1] * e + g] != 0x5A)
                ck_abort_msg("%s: a gap byte after row %llu was written", text, (unsigned long long)row);
    }
}

/* One plan: the row path against the reference and the flat path. */
static void check_plan(const shape* s, rng* r, uint32_t e, uint32_t mode, int index32)
{
    dml_plan p;
    make_plan(s, e, mode, index32, &p);
    buffers b;
    make_buffers(s, &p, r, &b);
    char text[256];
    snprintf(text, sizeof text,
        "rows %llu n %llu pads %llu/%llu %llu/%llu gaps %llu/%llu shifts %u/%u, e %u, mode %u, index32 %d",
        (unsigned long long)s->rows, (unsigned long long)s->n, (unsigned long long)s->top,
        (unsigned long long)s->bottom, (unsigned long long)s->left, (unsigned long long)s->right,
        (unsigned long long)s->in_gap, (unsigned long long)s->out_gap, s->in_shift, s->out_shift, e,
        mode, index32);
    dml_plan_args args = { b.in, NULL, b.out, b.in_bytes, 0, b.out_bytes, NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&p, &args, 2, &launch);
    if (!launch.pad || launch.pad_params.rows != (p.sizes[1] >= DML_PAD_ROW_MIN_WIDTH))
        ck_abort_msg("%s: the launcher's path", text);
    run(&launch, NULL);
    check_reference(s, &p, &b, text);
    dml_cuda_launch flat = launch;
    flat.pad_params.rows = 0;
    flat.pad_params.out = b.flat;
    flat.bound[2] = b.flat;
    run(&flat, NULL);
    if (memcmp(b.out, b.flat, b.out_bytes))
        ck_abort_msg("%s: the row path differs from the flat one", text);
    free_buffers(&b);
}

/* The shape in every mode and element size, with 64-bit indexing in half
 * of them (by `turn`). */
static void check_shape(const shape* s, rng* r, uint32_t turn)
{
    static const uint32_t sizes[4] = { 1, 2, 4, 8 };
    for (uint32_t k = 0; k < 4; k++)
        for (uint32_t mode = 0; mode < 4; mode++)
            check_plan(s, r, sizes[k], mode, (int)((turn + k + mode) % 2));
}

/* Interiors of 1-300 elements (and one longer than a segment), pads from 0
 * to several times the input, at every start alignment. */
START_TEST(row_path_matches_the_reference_and_the_flat_path)
{
    rng r = { 0x9AD5 };
    static const uint64_t widths[] = { 1, 2, 3, 7, 16, 31, 33, 100, 300 };
    static const uint64_t pads[][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 }, { 2, 2 }, { 5, 17 }, { 31, 1 }, { 40, 70 },
        { 0, 0 } };
    uint32_t turn = 0;
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
        for (size_t k = 0; k < sizeof pads / sizeof pads[0]; k++, turn++) {
            shape s = { 3, widths[w], turn % 3 == 0, turn % 2, pads[k][0], pads[k][1], turn % 17, (turn * 7) % 19,
                turn % 16, (turn * 5) % 16 };
            if (s.n + s.left + s.right < DML_PAD_ROW_MIN_WIDTH && turn % 4) /* mostly row-path shapes */
                s.right += DML_PAD_ROW_MIN_WIDTH;
            check_shape(&s, &r, turn);
        }
    /* one row longer than a segment (64 windows), misaligned both sides */
    const shape longer = { 1, 2100, 0, 0, 3, 5, 0, 0, 5, 11 };
    check_shape(&longer, &r, 0);
    check_shape(&longer, &r, 1);
    /* a single-element input padded far: every border out of the windows' reach */
    const shape far = { 2, 1, 1, 2, 70, 45, 0, 0, 0, 0 };
    check_shape(&far, &r, 0);
    check_shape(&far, &r, 1);
}
END_TEST

/* NCHW [2, 4, H, W] padded by 1 and 2 on H and W, rows of 1 KiB, in each
 * mode: the row path's loads and stores use >= 0.9 of the sectors they touch
 * (issue 21's goal; the flat path's loads were 0.50-0.92). */
START_TEST(natural_layouts_coalesce)
{
    static const uint32_t sizes[4] = { 1, 2, 4, 8 };
    rng r = { 7 };
    for (int k = 0; k < 4; k++)
        for (uint64_t pad = 1; pad <= 2; pad++)
            for (uint32_t mode = 0; mode < 4; mode++) {
                const uint32_t e = sizes[k];
                const shape s = { 8 * 6, 1024 / e, pad, pad, pad, pad, 0, 0, 0, 0 };
                dml_plan p;
                make_plan(&s, e, mode, 1, &p);
                buffers b;
                make_buffers(&s, &p, &r, &b);
                dml_plan_args args = { b.in, NULL, b.out, b.in_bytes, 0, b.out_bytes, NULL, 0 };
                dml_cuda_launch launch;
                dml_cuda_prepare(&p, &args, 132, &launch);
                dml_coalescing stats;
                run(&launch, &stats);
                const double load = dml_coalescing_load_efficiency(&stats);
                const double store = dml_coalescing_store_efficiency(&stats);
                ck_assert_msg(launch.pad_params.rows && load >= 0.9 && store >= 0.9,
                    "e %u, pad %llu, mode %u: row path %u, load %.3f, store %.3f", e, (unsigned long long)pad, mode,
                    launch.pad_params.rows, load, store);
                free_buffers(&b);
            }
}
END_TEST

int main(void)
{
    Suite* s = suite_create("pad_rows");
    TCase* tc = tcase_create("rows");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, row_path_matches_the_reference_and_the_flat_path);
    tcase_add_test(tc, natural_layouts_coalesce);
    suite_add_tcase(s, tc);
    SRunner* runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    const int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
