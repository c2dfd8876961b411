/*
 * The CUDA launcher (cuda/launch.c) and the kernels' per-thread code
 * (cuda/gather_thread.h), executed on the CPU by the emulator over the exact
 * launch geometry, against a naive reference written from the spec
 * (reference.c). Operators go through validation and plan building as
 * CreateOperator and CompileOperator do them. Every output byte is compared,
 * including the sentinel bytes before, after and between the output elements.
 *
 *  - random operators: SLICE1 (signed strides), SLICE, REVERSE_SUBSEQUENCES
 *    (UINT32/UINT64 lengths including 0, 1, above the axis, UINT*_MAX), ranks
 *    1-8, element sizes 1/2/4/8, packed, padded, permuted and broadcast input
 *    layouts, packed, padded and permuted outputs, buffer offsets multiples of
 *    16 (not always of 32/64) and sometimes only of the element size, SM
 *    counts 1, 2, 132, with and without coalescing statistics;
 *  - targeted launches that must pick each mode: copy, vector, reversed
 *    vector, scalar fallback, vector heads and tails, and 64-bit indexing on
 *    inputs spanning gigabytes of address space of which only the reachable
 *    pages exist.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "emulator.h"
#include "gather_cases.h"
#include "launch.h"
#include "reference.h"

static const uint32_t sm_counts[] = { 1, 2, 132 };

static int quick(void)
{
    const char* v = getenv("DML_TEST_QUICK");
    return v && v[0] && strcmp(v, "0") != 0;
}

/* ---- random numbers ----------------------------------------------------- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) /* [0, n) */
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (uint32_t)((rng_state >> 33) % n) : 0;
}

/* ---- running a case ----------------------------------------------------- */

typedef struct outcome {
    dml_cuda_launch launch;
    dml_coalescing stats;
    dml_plan plan;
} outcome;

/* Compiles, prepares for sm_count, emulates (with statistics when asked) and
 * compares with the reference; buffer offsets in bytes. */
static void run_case(const gather_case* c, const uint32_t offsets[3], uint32_t sm_count, int with_stats,
    uint64_t seed, const char* what, outcome* o)
{
    DML_RESULT r = gather_case_compile(c, &o->plan);
    ck_assert_msg(r >= 0, "%s: the case does not validate: %s", what, dml_error_last());
    gather_buffers b;
    ck_assert_int_eq(gather_buffers_alloc(c, offsets, seed, &b), 0);
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_prepare(&o->plan, &args, sm_count, &o->launch);
    ck_assert_msg(dml_cuda_emulate(&o->launch, with_stats ? &o->stats : NULL) == 0, "%s: %s", what,
        dml_cuda_emulator_violation());
    reference_gather(c, &b);
    uint64_t first = 0, wrong = reference_mismatches(&b, &first);
    ck_assert_msg(wrong == 0,
        "%s: %llu output bytes differ from the reference, first at byte %llu of the block (output at %u; %s launch, "
        "mode %d, wide %d)",
        what, (unsigned long long)wrong, (unsigned long long)first, offsets[2],
        o->launch.is_copy ? "copy" : "kernel", o->launch.mode, o->launch.wide);
    if (with_stats && !o->launch.is_copy)
        ck_assert_uint_eq(o->stats.store_bytes, o->plan.element_count * o->plan.element_size);
    gather_buffers_free(&b);
}

/* ---- random cases ------------------------------------------------------- */

typedef enum layout { PACKED, PADDED, ALIGNED, PERMUTED, BROADCAST, LAYOUT_COUNT } layout;

/* Strides for sizes in a layout: PADDED adds 0-3 elements per dimension,
 * ALIGNED pads rows to 16-byte multiples (what vector launches need), PERMUTED
 * lays the dimensions out in a random order (padded), BROADCAST sets some
 * strides to 0 (inputs only). Returns 0 for packed (NULL strides). */
static int make_layout(layout l, uint32_t rank, const uint32_t* sizes, uint32_t e, uint32_t* strides)
{
    if (l == PACKED)
        return 0;
    uint32_t order[GATHER_MAX_RANK];
    for (uint32_t i = 0; i < rank; ++i)
        order[i] = i;
    if (l == PERMUTED)
        for (uint32_t i = rank; i-- > 1;) {
            uint32_t j = rnd(i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    uint64_t pitch = 1;
    for (uint32_t k = rank; k-- > 0;) { /* innermost in memory first */
        uint32_t d = order[k];
        strides[d] = (uint32_t)pitch;
        uint64_t extent = sizes[d];
        if (l == PADDED || l == PERMUTED)
            extent += rnd(4);
        pitch *= extent;
        if (l == ALIGNED && k == rank - 1) {
            uint32_t lanes = 16 / e;
            pitch = (pitch + lanes - 1) / lanes * lanes + lanes * rnd(2);
        }
    }
    if (l == BROADCAST)
        for (uint32_t i = 0; i < rank; ++i)
            if (rnd(3) == 0)
                strides[i] = 0;
    return 1;
}

/* Output sizes with a product of at most budget; the innermost often long. */
static void random_sizes(uint32_t rank, uint32_t budget, uint32_t* sizes)
{
    uint64_t product = 1;
    for (uint32_t i = rank; i-- > 0;) {
        uint32_t cap = i == rank - 1 ? (rnd(2) ? 200 : 40) : (rnd(3) ? 4 : 9);
        uint64_t room = budget / product;
        if (room < 1)
            room = 1;
        if (cap > room)
            cap = (uint32_t)room;
        sizes[i] = 1 + rnd(cap);
        product *= sizes[i];
    }
}

static void random_case(gather_case* c, uint32_t budget)
{
    static const DML_OPERATOR_TYPE types[] = { DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE,
        DML_OPERATOR_REVERSE_SUBSEQUENCES };
    memset(c, 0, sizeof *c);
    c->type = types[rnd(3)];
    c->element_size = 1u << rnd(4);
    c->rank = 1 + rnd(8);
    const uint32_t rank = c->rank, e = c->element_size;
    random_sizes(rank, budget, c->out_sizes);
    if (c->type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
        memcpy(c->in_sizes, c->out_sizes, sizeof c->in_sizes);
        c->axis = rnd(rank);
        c->lengths_size = rnd(2) ? 8 : 4;
        c->length_kind = rnd(6) == 0 ? (gather_length_kind)(1 + rnd(2)) : GATHER_LENGTHS_RANDOM;
        uint32_t len_sizes[GATHER_MAX_RANK];
        gather_lengths_sizes(c, len_sizes);
        /* lengths packed, padded, or broadcast along the innermost dimensions
         * (the layout vector launches of REVERSE_SUBSEQUENCES need) */
        int kind = rnd(3);
        c->len_packed = !make_layout(kind == 0 ? PACKED : kind == 1 ? PADDED : BROADCAST, rank, len_sizes,
            c->lengths_size, c->len_strides);
        if (kind == 2)
            for (uint32_t i = rank; i-- > 0 && rnd(3);)
                c->len_strides[i] = 0;
    } else {
        for (uint32_t i = 0; i < rank; ++i) {
            uint32_t o = c->out_sizes[i];
            uint32_t s = rnd(3) ? 1 : 2 + rnd(2);
            uint32_t offset = rnd(3) == 0 ? rnd(5) : 0;
            uint32_t window = (o - 1) * s + 1 + rnd(s);
            if (rnd(5) == 0)
                window += rnd(3) * s; /* more reachable than the output takes */
            c->offsets[i] = offset;
            c->window_sizes[i] = window;
            c->in_sizes[i] = offset + window + (rnd(3) == 0 ? rnd(4) : 0);
            if (c->type == DML_OPERATOR_SLICE1) {
                int32_t stride = (int32_t)s;
                if (o == 1 && rnd(4) == 0)
                    stride = rnd(2) ? INT32_MAX : INT32_MIN; /* any stride reaches one element */
                c->window_strides[i] = rnd(3) == 0 && stride != INT32_MIN ? -stride : stride;
            } else {
                c->slice_strides[i] = o == 1 && rnd(4) == 0 ? UINT32_MAX : s;
            }
        }
    }
    static const layout in_layouts[] = { PACKED, PADDED, ALIGNED, ALIGNED, PERMUTED, BROADCAST };
    static const layout out_layouts[] = { PACKED, PADDED, ALIGNED, ALIGNED, PERMUTED };
    c->in_packed = !make_layout(in_layouts[rnd(6)], rank, c->in_sizes, e, c->in_strides);
    c->out_packed = !make_layout(out_layouts[rnd(5)], rank, c->out_sizes, e, c->out_strides);
}

static void random_offsets(uint32_t e, uint32_t* offsets)
{
    for (int i = 0; i < 3; ++i)
        offsets[i] = rnd(4) ? 16 * rnd(4) : e * rnd(16); /* mostly 0/16/32/48; else any multiple of e */
    offsets[1] = offsets[1] / 8 * 8; /* lengths: UINT64-aligned */
}

static void random_cases(uint64_t seed, int count)
{
    rng_state = seed;
    int modes[6] = { 0, 0, 0, 0, 0, 0 }; /* scalar, vector, reversed, copy, heads, tiled */
    for (int i = 0; i < count; ++i) {
        gather_case c;
        random_case(&c, rnd(4) ? 600 : 5000);
        uint32_t offsets[3];
        random_offsets(c.element_size, offsets);
        char what[96];
        snprintf(what, sizeof what, "random case %d (seed %llu, %s, rank %u, e %u)", i, (unsigned long long)seed,
            gather_operator_name(c.type), c.rank, c.element_size);
        outcome o;
        run_case(&c, offsets, sm_counts[rnd(3)], rnd(4) == 0, seed * 1000 + (uint64_t)i, what, &o);
        if (o.launch.is_copy)
            modes[3]++;
        else if (o.launch.mode == DML_CUDA_MODE_TILED)
            modes[5]++;
        else
            modes[o.launch.mode]++;
        if (!o.launch.is_copy && (o.launch.mode == DML_CUDA_MODE_VECTOR || o.launch.mode == DML_CUDA_MODE_VECTOR_REVERSED) &&
            o.launch.params.row_length % o.launch.params.lanes)
            modes[4]++;
    }
    printf("seed %llu: %d cases: scalar %d, vector %d, reversed vector %d (%d with heads or tails), tiled %d, copy %d\n",
        (unsigned long long)seed, count, modes[0], modes[1], modes[2], modes[4], modes[5], modes[3]);
    if (count >= 400) { /* the generator must reach every mode */
        ck_assert_int_gt(modes[0], 0);
        ck_assert_int_gt(modes[1], 0);
        ck_assert_int_gt(modes[2], 0);
        ck_assert_int_gt(modes[3], 0);
        ck_assert_int_gt(modes[4], 0);
        ck_assert_int_gt(modes[5], 0);
    }
}

START_TEST(random_operators)
{
    random_cases(1000 + (uint64_t)_i, quick() ? 150 : 1500);
}
END_TEST

/* ---- targeted launches -------------------------------------------------- */

/* SLICE1 of rows: input {R, W}, window {R, n} at inner offset `offset` with
 * inner stride `stride` (+1/-1), output {R, n} with row pitch out_pitch. */
static void rows_case(gather_case* c, uint32_t e, uint32_t R, uint32_t W, uint32_t n, uint32_t offset, int32_t stride,
    uint32_t out_pitch)
{
    memset(c, 0, sizeof *c);
    c->type = DML_OPERATOR_SLICE1;
    c->element_size = e;
    c->rank = 2;
    c->in_sizes[0] = R;
    c->in_sizes[1] = W;
    c->in_packed = 1;
    c->out_sizes[0] = R;
    c->out_sizes[1] = n;
    c->out_packed = out_pitch == n;
    c->out_strides[0] = out_pitch;
    c->out_strides[1] = 1;
    c->window_sizes[0] = R;
    c->window_sizes[1] = n;
    c->window_strides[0] = 1;
    c->window_strides[1] = stride;
    c->offsets[1] = offset;
}

static const char* mode_text(int mode)
{
    return mode == DML_CUDA_MODE_VECTOR ? "vector"
        : mode == DML_CUDA_MODE_VECTOR_REVERSED ? "reversed"
        : mode == DML_CUDA_MODE_TILED ? "tiled"
                                      : "scalar";
}

static void expect_mode(const gather_case* c, const uint32_t offsets[3], int mode, const char* what)
{
    for (size_t s = 0; s < sizeof sm_counts / sizeof sm_counts[0]; ++s) {
        outcome o;
        run_case(c, offsets, sm_counts[s], 1, 77 + s, what, &o);
        ck_assert_msg(!o.launch.is_copy, "%s: a copy launch", what);
        ck_assert_msg(o.launch.mode == mode, "%s: mode %s, expected %s", what, mode_text(o.launch.mode),
            mode_text(mode));
        ck_assert_msg(!o.launch.wide, "%s: 64-bit indexing", what);
        if (mode == DML_CUDA_MODE_VECTOR || mode == DML_CUDA_MODE_VECTOR_REVERSED) {
            /* heads and tails are decided per row at run time */
            ck_assert_msg(o.launch.params.lanes == 16 / c->element_size, "%s: lanes %u", what, o.launch.params.lanes);
            /* (coalescing is test_coalescing's: these rows are short, and
             * their heads and tails are stored element by element) */
        }
    }
}

/* Transposes inside a plan take shared-memory tiles: SLICE1 of a batch of
 * column-major matrices {B, 40, 47} (dimension 1 contiguous) to a packed
 * {B, 37, 45} output, windows reversed along either side or both, at
 * offsets, so tiles are partial at both edges and strides are negative. */
START_TEST(tiled_transposes)
{
    static const int32_t flips[4][2] = { { 1, 1 }, { -1, 1 }, { 1, -1 }, { -1, -1 } };
    for (uint32_t e = 1; e <= 8; e *= 2)
        for (int f = 0; f < 4; ++f)
            for (uint32_t batch = 1; batch <= 3; batch += 2) {
                gather_case c;
                memset(&c, 0, sizeof c);
                c.type = DML_OPERATOR_SLICE1;
                c.element_size = e;
                c.rank = 3;
                c.in_sizes[0] = batch;
                c.in_sizes[1] = 40;
                c.in_sizes[2] = 47;
                c.in_strides[0] = 40 * 47;
                c.in_strides[1] = 1;
                c.in_strides[2] = 40;
                c.out_sizes[0] = batch;
                c.out_sizes[1] = 37;
                c.out_sizes[2] = 45;
                c.out_packed = 1;
                c.window_sizes[0] = batch;
                c.window_sizes[1] = 37;
                c.window_sizes[2] = 45;
                c.window_strides[0] = 1;
                c.window_strides[1] = flips[f][0];
                c.window_strides[2] = flips[f][1];
                c.offsets[1] = 2;
                c.offsets[2] = 1;
                const uint32_t offsets[3] = { e * 3, 0, 16 };
                char what[96];
                snprintf(what, sizeof what, "tiled e=%u flips %d,%d batch %u", e, flips[f][0], flips[f][1], batch);
                expect_mode(&c, offsets, DML_CUDA_MODE_TILED, what);
            }
}
END_TEST

/* REVERSE_SUBSEQUENCES through tiles: an input whose dimension `across`
 * (rank - 2 or 0) is contiguous, the innermost next, the others outside in
 * reverse order (none merge), so the plan's inner dimension reads at a
 * stride and `across` at +1: a transpose. The reversal axis is every
 * dimension in turn (the tile's inner side, its across side, a batch
 * dimension), lengths random (0, 1, partial, the axis, above it, UINT*_MAX),
 * all full or all 0, UINT32 and UINT64, packed (a length per element of the
 * other dimensions) or broadcast along some; sides of 33 and 35 elements
 * (partial tiles), ranks 2 to 8, every element size, 32- and 64-bit
 * indexing, at 1, 2 and 132 SMs. */
static int tiled_rs_staged, tiled_rs_square;

static void run_tiled_rs(const gather_case* c, int index32, uint32_t sm_count, uint64_t seed, const char* what)
{
    dml_plan plan;
    ck_assert_msg(gather_case_compile(c, &plan) >= 0, "%s: %s", what, dml_error_last());
    ck_assert_msg(plan.index32, "%s: a small case indexes in 32 bits", what);
    plan.index32 = (uint32_t)index32; /* 64-bit indexing is right for any plan */
    const uint32_t offsets[3] = { c->element_size * 3, 8, 16 };
    gather_buffers b;
    ck_assert_int_eq(gather_buffers_alloc(c, offsets, seed, &b), 0);
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&plan, &args, sm_count, &launch);
    ck_assert_msg(!launch.is_copy && launch.mode == DML_CUDA_MODE_TILED, "%s: mode %s", what,
        mode_text(launch.mode));
    ck_assert_int_eq(launch.wide, !index32);
    if (launch.params.tile_staged)
        tiled_rs_staged++;
    else
        tiled_rs_square++;
    dml_coalescing stats;
    ck_assert_msg(dml_cuda_emulate(&launch, seed % 2 ? &stats : NULL) == 0, "%s: %s", what,
        dml_cuda_emulator_violation());
    reference_gather(c, &b);
    uint64_t first = 0, wrong = reference_mismatches(&b, &first);
    ck_assert_msg(wrong == 0, "%s: %llu output bytes differ from the reference, first at %llu", what,
        (unsigned long long)wrong, (unsigned long long)first);
    gather_buffers_free(&b);
}

static void tiled_rs_case(gather_case* c, uint32_t e, uint32_t rank, uint32_t across, uint32_t axis, int lengths)
{
    memset(c, 0, sizeof *c);
    c->type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
    c->element_size = e;
    c->rank = rank;
    for (uint32_t d = 0; d < rank; ++d)
        c->in_sizes[d] = d == across ? 33 : d == rank - 1 ? 35 : 2;
    memcpy(c->out_sizes, c->in_sizes, sizeof c->in_sizes);
    uint64_t pitch = 1;
    c->in_strides[across] = 1;
    pitch *= c->in_sizes[across];
    c->in_strides[rank - 1] = (uint32_t)pitch;
    pitch *= c->in_sizes[rank - 1];
    for (uint32_t d = 0; d < rank - 1; ++d)
        if (d != across) {
            c->in_strides[d] = (uint32_t)pitch;
            pitch *= c->in_sizes[d];
        }
    c->out_packed = 1;
    c->axis = axis;
    /* lengths 0..11: kind (random, full, zero) x UINT32/UINT64 x packed/broadcast */
    static const gather_length_kind kinds[3] = { GATHER_LENGTHS_RANDOM, GATHER_LENGTHS_FULL, GATHER_LENGTHS_ZERO };
    c->length_kind = kinds[lengths % 3];
    c->lengths_size = (lengths / 3) % 2 ? 8 : 4;
    c->len_packed = (lengths / 6) % 2 == 0;
    if (!c->len_packed) { /* broadcast along across and the inner dimension, packed over the rest */
        uint32_t len_sizes[GATHER_MAX_RANK];
        gather_lengths_sizes(c, len_sizes);
        gather_packed_strides(rank, len_sizes, c->len_strides);
        c->len_strides[across] = 0;
        c->len_strides[rank - 1] = 0;
    }
}

START_TEST(tiled_reverse_subsequences)
{
    int cases = 0;
    for (uint32_t e = 1; e <= 8; e *= 2)
        for (uint32_t rank = 2; rank <= 8; ++rank)
            for (int which = 0; which < 2; ++which) {
                const uint32_t across = which ? 0 : rank - 2;
                if (which && across == rank - 2)
                    continue;
                /* quick (valgrind): ranks 6 to 8 (most of the elements) with one
                 * element size each, 4, 8 and 1 */
                if (quick() && rank >= 6 && e != 1u << (rank % 4))
                    continue;
                for (uint32_t axis = 0; axis < rank; ++axis) {
                    /* every lengths variant on the small ranks, one each beyond */
                    const int variants = rank <= 3 ? 12 : 1;
                    for (int v = 0; v < variants; ++v) {
                        const int lengths = rank <= 3 ? v : (int)(axis + rank + e);
                        gather_case c;
                        tiled_rs_case(&c, e, rank, across, axis, lengths);
                        char what[128];
                        snprintf(what, sizeof what, "tiled RS e=%u rank %u across %u axis %u lengths %d", e, rank,
                            across, axis, lengths);
                        const int index32 = (cases & 1) == 0;
                        run_tiled_rs(&c, index32, sm_counts[cases % 3], (uint64_t)cases, what);
                        cases++;
                    }
                }
            }
    printf("tiled REVERSE_SUBSEQUENCES: %d cases (%d staged tiles, %d square)\n", cases, tiled_rs_staged,
        tiled_rs_square);
    /* lengths broadcast along both sides take staged tiles, packed ones
     * (changing along the side a staged tile keeps whole) square ones */
    ck_assert_int_gt(tiled_rs_staged, 0);
    ck_assert_int_gt(tiled_rs_square, 0);
}
END_TEST

/* A plan composed from a graph may walk only the first positions of its
 * reversal axis (core/plan.h): with that axis along across, the tile
 * reverses in its load phase (square tiles), reading positions beyond those
 * walked. The plan of a tiled RS with axis `across`, cut to its first 20 of
 * 33 positions there, against the reference of the whole operator with the
 * positions not walked left as they were. */
START_TEST(tiled_reversal_of_part_of_the_axis)
{
    for (uint32_t e = 1; e <= 8; e *= 2)
        for (int lengths = 0; lengths < 12; ++lengths) {
            gather_case c;
            tiled_rs_case(&c, e, 3, 1, 1, lengths);
            dml_plan plan;
            ck_assert_int_ge(gather_case_compile(&c, &plan), 0);
            ck_assert_int_ge(plan.axis, 0);
            ck_assert_uint_eq(plan.sizes[plan.axis], 33);
            const uint64_t walked = 20;
            plan.sizes[plan.axis] = walked;
            plan.element_count = plan.element_count / 33 * walked;
            const uint32_t offsets[3] = { e, 8, 16 };
            gather_buffers b;
            ck_assert_int_eq(gather_buffers_alloc(&c, offsets, (uint64_t)lengths, &b), 0);
            dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
            dml_cuda_launch launch;
            dml_cuda_prepare(&plan, &args, 2, &launch);
            ck_assert_int_eq(launch.mode, DML_CUDA_MODE_TILED);
            ck_assert_int_eq(launch.params.axis, DML_TILE_AXIS_ACROSS(&launch.params));
            ck_assert_int_eq(launch.params.tile_staged, 0);
            ck_assert_msg(dml_cuda_emulate(&launch, NULL) == 0, "%s", dml_cuda_emulator_violation());
            reference_gather(&c, &b);
            /* output {2, 33, 35} packed: positions 20.. of dimension 1 keep their sentinels */
            const uint64_t start = (uint64_t)(b.base[2] - b.block[2]);
            for (uint64_t d0 = 0; d0 < 2; ++d0)
                for (uint64_t d1 = walked; d1 < 33; ++d1)
                    for (uint64_t k = 0; k < 35 * (uint64_t)e; ++k) {
                        const uint64_t at = start + ((d0 * 33 + d1) * 35) * e + k;
                        b.expected[at] = gather_sentinel(at);
                    }
            uint64_t first = 0, wrong = reference_mismatches(&b, &first);
            ck_assert_msg(wrong == 0, "e=%u lengths %d: %llu output bytes differ, first at %llu", e, lengths,
                (unsigned long long)wrong, (unsigned long long)first);
            gather_buffers_free(&b);
        }
}
END_TEST

/* Staged tiles (tile_staged.h): SLICE1 of a column-major {across, inner}
 * matrix to a packed {across, inner} output (batch 1 or 2), the window
 * flipped along either side (negative strides), the inner side a tile and a
 * few elements (128 bytes of them, 256 for 8-byte elements), across 330
 * elements (more than a tile row holds, so split in pieces), the input and
 * output at offsets that are not multiples of 4 bytes (partial words and
 * units at every edge), every buffer its exact size (words leaving the
 * input rows are read element by element). Outputs whose rows are not
 * contiguous take square tiles. */
static void staged_case(gather_case* c, uint32_t e, uint32_t batch, uint32_t across, uint32_t inner,
    const int32_t flips[2], uint32_t out_pitch)
{
    memset(c, 0, sizeof *c);
    c->type = DML_OPERATOR_SLICE1;
    c->element_size = e;
    c->rank = 3;
    const uint32_t in_across = across + 2, in_inner = inner + 1;
    c->in_sizes[0] = batch;
    c->in_sizes[1] = in_across;
    c->in_sizes[2] = in_inner;
    c->in_strides[0] = in_across * in_inner;
    c->in_strides[1] = 1;
    c->in_strides[2] = in_across;
    c->out_sizes[0] = batch;
    c->out_sizes[1] = across;
    c->out_sizes[2] = inner;
    c->out_packed = out_pitch == 1;
    c->out_strides[0] = across * inner * out_pitch;
    c->out_strides[1] = inner * out_pitch;
    c->out_strides[2] = out_pitch;
    c->window_sizes[0] = batch;
    c->window_sizes[1] = across;
    c->window_sizes[2] = inner;
    c->window_strides[0] = 1;
    c->window_strides[1] = flips[0];
    c->window_strides[2] = flips[1];
    c->offsets[1] = 1;
    c->offsets[2] = 1;
}

static void run_staged(const gather_case* c, const uint32_t offsets[3], int staged, const char* what)
{
    dml_plan plan;
    ck_assert_msg(gather_case_compile(c, &plan) >= 0, "%s: %s", what, dml_error_last());
    for (int index32 = 0; index32 < 2; ++index32) {
        plan.index32 = (uint32_t)index32;
        gather_buffers b;
        ck_assert_int_eq(gather_buffers_alloc(c, offsets, 17 + (uint64_t)index32, &b), 0);
        dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
        dml_cuda_launch launch;
        dml_cuda_prepare(&plan, &args, index32 ? 132 : 2, &launch);
        ck_assert_msg(!launch.is_copy && launch.mode == DML_CUDA_MODE_TILED, "%s: mode %s", what,
            mode_text(launch.mode));
        ck_assert_msg((int)launch.params.tile_staged == staged, "%s: %s tiles", what,
            launch.params.tile_staged ? "staged" : "square");
        dml_coalescing stats;
        ck_assert_msg(dml_cuda_emulate(&launch, index32 ? &stats : NULL) == 0, "%s: %s", what,
            dml_cuda_emulator_violation());
        reference_gather(c, &b);
        uint64_t first = 0, wrong = reference_mismatches(&b, &first);
        ck_assert_msg(wrong == 0, "%s: %llu output bytes differ from the reference, first at %llu", what,
            (unsigned long long)wrong, (unsigned long long)first);
        if (index32)
            ck_assert_uint_eq(stats.store_bytes, plan.element_count * plan.element_size);
        gather_buffers_free(&b);
    }
}

START_TEST(staged_tiles)
{
    static const int32_t flips[4][2] = { { 1, 1 }, { -1, 1 }, { 1, -1 }, { -1, -1 } };
    for (uint32_t e = 1; e <= 8; e *= 2) {
        const uint32_t inner = (e < 8 ? 128 : 256) / e + 3;
        const uint32_t placements[3][3] = { { 0, 0, 0 }, { e, 0, 3 * e }, { 3 * e, 0, e } };
        for (int f = 0; f < 4; ++f)
            for (int at = 0; at < 3; ++at) {
                if (quick() && at != f % 3) /* quick (valgrind): one placement per flip, each placement met */
                    continue;
                gather_case c;
                staged_case(&c, e, 1 + (uint32_t)(at == 1), 330, inner, flips[f], 1);
                char what[128];
                snprintf(what, sizeof what, "staged e=%u flips %d,%d input at %u output at %u", e, flips[f][0],
                    flips[f][1], placements[at][0], placements[at][2]);
                run_staged(&c, placements[at], 1, what);
            }
        /* short sides: one tile holds the whole matrix */
        gather_case c;
        staged_case(&c, e, 2, 5, 3, flips[0], 1);
        const uint32_t odd[3] = { e, 0, e };
        run_staged(&c, odd, 1, "staged, a 5 x 3 matrix");
        /* output rows not contiguous: square tiles */
        staged_case(&c, e, 1, 40, 37, flips[1], 2);
        run_staged(&c, odd, 0, "square, output elements 2 apart");
    }
}
END_TEST

START_TEST(vector_on_aligned_rows)
{
    for (uint32_t e = 1; e <= 8; e *= 2) {
        uint32_t lanes = 16 / e;
        gather_case c;
        const uint32_t zero[3] = { 0, 0, 0 }, sixteen[3] = { 16, 0, 48 };
        rows_case(&c, e, 8, 8 * lanes + lanes, 8 * lanes, 0, 1, 8 * lanes); /* input rows padded */
        expect_mode(&c, zero, DML_CUDA_MODE_VECTOR, "vector");
        expect_mode(&c, sixteen, DML_CUDA_MODE_VECTOR, "vector, buffers at 16 and 48");
        rows_case(&c, e, 8, 21 * lanes, 20 * lanes - 1, 0, 1, 21 * lanes); /* one element short: a tail */
        expect_mode(&c, zero, DML_CUDA_MODE_VECTOR, "vector with a tail");
        /* the window one vector in */
        rows_case(&c, e, 5, 10 * lanes, 8 * lanes, lanes, 1, 8 * lanes);
        expect_mode(&c, zero, DML_CUDA_MODE_VECTOR, "vector, window a vector in");
    }
}
END_TEST

START_TEST(reversed_vector_on_aligned_rows)
{
    for (uint32_t e = 1; e <= 8; e *= 2) {
        uint32_t lanes = 16 / e;
        gather_case c;
        const uint32_t zero[3] = { 0, 0, 0 }, mixed[3] = { 48, 0, 16 };
        rows_case(&c, e, 6, 8 * lanes, 8 * lanes, 0, -1, 8 * lanes);
        expect_mode(&c, zero, DML_CUDA_MODE_VECTOR_REVERSED, "reversed vector");
        expect_mode(&c, mixed, DML_CUDA_MODE_VECTOR_REVERSED, "reversed vector, buffers at 48 and 16");
        /* a window of 20*lanes - 1: the reversed rows start at element
         * 20*lanes - 2; with the output one element past a 16-byte boundary
         * (a head of lanes - 1) the first vector reads from 18*lanes: aligned */
        rows_case(&c, e, 6, 20 * lanes, 20 * lanes - 1, 0, -1, 20 * lanes);
        const uint32_t out_off[3] = { 0, 0, 16 + e };
        expect_mode(&c, out_off, DML_CUDA_MODE_VECTOR_REVERSED, "reversed vector with a head");
    }
}
END_TEST

START_TEST(vector_or_scalar_when_misaligned)
{
    for (uint32_t e = 1; e <= 8; e *= 2) {
        uint32_t lanes = 16 / e;
        gather_case c;
        const uint32_t zero[3] = { 0, 0, 0 };
        /* the window starts one element into aligned rows; the output is
         * aligned: misaligned input vectors are read as two aligned ones */
        rows_case(&c, e, 4, 9 * lanes, 8 * lanes, 1, 1, 8 * lanes);
        expect_mode(&c, zero, DML_CUDA_MODE_VECTOR, "vector: input misaligned relative to the output");
        rows_case(&c, e, 4, 9 * lanes, 8 * lanes, 1, -1, 8 * lanes);
        expect_mode(&c, zero, DML_CUDA_MODE_VECTOR_REVERSED, "reversed vector: input misaligned");
        /* output rows whose pitch is not a multiple of 16 bytes: every row
         * finds its own head */
        rows_case(&c, e, 4, 8 * lanes, 8 * lanes, 0, 1, 8 * lanes + 1);
        expect_mode(&c, zero, DML_CUDA_MODE_VECTOR, "vector: output pitch not a multiple of 16 bytes");
        /* rows too short to carry a vector */
        if (lanes > 2) {
            rows_case(&c, e, 64, 2 * lanes, lanes - 1, 0, 1, lanes);
            expect_mode(&c, zero, DML_CUDA_MODE_SCALAR, "scalar: rows shorter than a vector");
        }
        /* inner window stride 2 */
        rows_case(&c, e, 4, 16 * lanes, 8 * lanes, 0, 2, 8 * lanes);
        c.window_sizes[1] = 16 * lanes - 1;
        expect_mode(&c, zero, DML_CUDA_MODE_SCALAR, "scalar: stride 2");
    }
}
END_TEST

START_TEST(vector_heads_and_tails)
{
    for (uint32_t e = 1; e <= 4; e *= 2) {
        uint32_t lanes = 16 / e;
        for (uint32_t shift = 1; shift < lanes; ++shift) {
            /* the output starts shift elements past a 16-byte boundary, the
             * window as many elements into its aligned rows: same alignment */
            gather_case c;
            uint32_t n = 20 * lanes + (shift % 3);
            rows_case(&c, e, 3, 22 * lanes, n, shift, 1, 21 * lanes);
            const uint32_t offsets[3] = { 16, 0, 32 + shift * e };
            uint32_t head = lanes - shift;
            char what[80];
            snprintf(what, sizeof what, "head/tail e=%u shift %u", e, shift);
            expect_mode(&c, offsets, DML_CUDA_MODE_VECTOR, what);
            /* reversed: the window's last element is read first */
            rows_case(&c, e, 3, 22 * lanes, n, 0, -1, 21 * lanes);
            /* input row r starts (reversed) at element n - 1: vectors end on
             * boundaries when (n - 1 - head - (lanes - 1)) is a multiple of lanes */
            uint32_t offsets_r[3] = { 0, 0, 0 };
            uint32_t misalign = (n - head) % lanes; /* elements the input must move by */
            offsets_r[0] = (lanes - misalign) % lanes * e;
            offsets_r[2] = 32 + shift * e;
            snprintf(what, sizeof what, "reversed head/tail e=%u shift %u", e, shift);
            expect_mode(&c, offsets_r, DML_CUDA_MODE_VECTOR_REVERSED, what);
        }
    }
}
END_TEST

START_TEST(copy_launches)
{
    for (uint32_t e = 1; e <= 8; e *= 2) {
        gather_case c;
        /* whole rows 2..5 of a packed {8, 37}: one contiguous block */
        rows_case(&c, e, 8, 37, 37, 0, 1, 37);
        c.out_sizes[0] = 4;
        c.offsets[0] = 2;
        c.window_sizes[0] = 4;
        const uint32_t offsets[3] = { 16, 0, e };
        outcome o;
        run_case(&c, offsets, 132, 1, 5, "copy", &o);
        ck_assert(o.launch.is_copy);
        ck_assert_uint_eq(o.launch.copy_bytes, 4 * 37 * e);
        /* a REVERSE_SUBSEQUENCES is never a copy, even with lengths 0 */
        gather_case r;
        ck_assert(gather_pattern_case(DML_OPERATOR_REVERSE_SUBSEQUENCES, e, PATTERN_COPY, 4096, 1024, &r));
        run_case(&r, offsets, 2, 1, 6, "RS lengths 0", &o);
        ck_assert(!o.launch.is_copy);
    }
}
END_TEST

/* The spec's REVERSE_SUBSEQUENCES examples, through the launcher. */
START_TEST(spec_examples)
{
    for (int example = 0; example < 2; ++example) {
        gather_case c;
        memset(&c, 0, sizeof c);
        c.type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
        c.element_size = 4;
        c.rank = 4;
        uint32_t sizes[4] = { 1, 1, 3, 4 };
        memcpy(c.in_sizes, sizes, sizeof sizes);
        memcpy(c.out_sizes, sizes, sizeof sizes);
        c.in_packed = c.out_packed = c.len_packed = 1;
        c.lengths_size = 4;
        c.axis = example == 0 ? 3 : 2;
        dml_plan plan;
        ck_assert_int_ge(gather_case_compile(&c, &plan), 0);
        const uint32_t offsets[3] = { 0, 0, 0 };
        gather_buffers b;
        ck_assert_int_eq(gather_buffers_alloc(&c, offsets, 1, &b), 0);
        float in[12];
        for (int i = 0; i < 12; ++i)
            in[i] = (float)(i + 1);
        memcpy(b.base[0], in, sizeof in);
        const uint32_t l1[3] = { 2, 4, 3 }, l2[4] = { 2, 3, 1, 0 };
        memcpy(b.base[1], example == 0 ? l1 : l2, example == 0 ? sizeof l1 : sizeof l2);
        static const float want[2][12] = { { 2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12 },
            { 5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12 } };
        for (size_t s = 0; s < sizeof sm_counts / sizeof sm_counts[0]; ++s) {
            dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
            dml_cuda_launch launch;
            dml_cuda_prepare(&plan, &args, sm_counts[s], &launch);
            memset(b.base[2], 0, 48);
            ck_assert_msg(dml_cuda_emulate(&launch, NULL) == 0, "%s", dml_cuda_emulator_violation());
            ck_assert_mem_eq(b.base[2], want[example], sizeof want[example]);
        }
        gather_buffers_free(&b);
    }
}
END_TEST

/* ---- bound ranges ------------------------------------------------------- */

/* Misaligned vector rows whose input row begins and ends where the input's
 * bound range does: a 16-byte read assembled from the two aligned vectors
 * around it would reach up to 15 bytes before the range or after it. The
 * emulator refuses any such access, so these pass only when every load
 * stays inside the range (issue 10, item 2). */
START_TEST(loads_stay_inside_bound_ranges)
{
    for (uint32_t e = 1; e <= 8; e *= 2) {
        const uint32_t lanes = 16 / e;
        for (uint32_t start = 0; start < 16; start += e) {
            for (int32_t stride = -1; stride <= 1; stride += 2) {
                for (uint32_t extra = 0; extra < 3; ++extra) {
                    /* the window is the whole input, so the first and last
                     * input bytes read are the range's */
                    gather_case c;
                    uint32_t n = 4 * lanes + extra;
                    rows_case(&c, e, 2, n, n, 0, stride, n + lanes); /* output rows padded: no copy */
                    const uint32_t offsets[3] = { start, 0, 16 + (start + 3 * e) % 16 };
                    char what[96];
                    snprintf(what, sizeof what, "one row e=%u input at %u stride %d extra %u", e, start, stride,
                        extra);
                    outcome o;
                    run_case(&c, offsets, 1, 1, 9, what, &o);
                    ck_assert_msg(!o.launch.is_copy && o.launch.mode != DML_CUDA_MODE_SCALAR, "%s: not a vector launch",
                        what);
                    /* RS along the row, the prefix ending inside a vector */
                    gather_case r;
                    memset(&r, 0, sizeof r);
                    r.type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
                    r.element_size = e;
                    r.rank = 2;
                    r.in_sizes[0] = r.out_sizes[0] = 3;
                    r.in_sizes[1] = r.out_sizes[1] = n;
                    r.in_packed = r.out_packed = r.len_packed = 1;
                    r.axis = 1;
                    r.lengths_size = 4;
                    r.length_kind = GATHER_LENGTHS_RANDOM;
                    snprintf(what, sizeof what, "RS along rows e=%u input at %u extra %u", e, start, extra);
                    run_case(&r, offsets, 1, 1, 10 + start, what, &o);
                }
            }
        }
    }
}
END_TEST

/* The emulator's own rule: an access outside a bound range, or not aligned
 * to its width, abandons the launch with a message naming the site, block,
 * thread and address. */
START_TEST(emulator_refuses_accesses_outside_bound_ranges)
{
    gather_case c; /* stride 2: one element load per item (a scalar launch) */
    rows_case(&c, 4, 8, 128, 64, 0, 2, 64);
    c.window_sizes[1] = 127;
    dml_plan plan;
    ck_assert_int_ge(gather_case_compile(&c, &plan), 0);
    const uint32_t offsets[3] = { 16, 0, 16 };
    gather_buffers b;
    ck_assert_int_eq(gather_buffers_alloc(&c, offsets, 4, &b), 0);
    for (int which = 0; which < 4; ++which) {
        dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
        if (which == 0)
            args.input_bytes -= 8; /* the last element read leaves the range */
        else if (which == 1)
            args.output_bytes -= 4; /* the last element written */
        else if (which == 3)
            args.input = b.base[0] + 1; /* every element load misaligned */
        dml_cuda_launch launch;
        dml_cuda_prepare(&plan, &args, 2, &launch);
        ck_assert_int_eq(launch.mode, DML_CUDA_MODE_SCALAR);
        if (which == 2) { /* the range starts one element after the first element read */
            launch.bound[0] += 4;
            launch.bound_bytes[0] -= 4;
        }
        for (int with_stats = 0; with_stats < 2; ++with_stats) {
            dml_coalescing stats;
            ck_assert_int_eq(dml_cuda_emulate(&launch, with_stats ? &stats : NULL), DML_EMULATE_VIOLATION);
            const char* message = dml_cuda_emulator_violation();
            ck_assert_msg(strstr(message, "block ") && strstr(message, "thread ") && strstr(message, "site ") &&
                    strstr(message, "address 0x"),
                "case %d: %s", which, message);
            ck_assert_msg(strstr(message, which == 3 ? "not naturally aligned" : "outside the bound range"),
                "case %d: %s", which, message);
            ck_assert_msg(strstr(message, which == 1 ? "output range" : "input range"), "case %d: %s", which, message);
        }
    }
    /* a copy launch: the copy's ranges */
    gather_case whole;
    rows_case(&whole, 4, 8, 64, 64, 0, 1, 64);
    ck_assert_int_ge(gather_case_compile(&whole, &plan), 0);
    const uint64_t copied = 8 * 64 * 4;
    dml_plan_args args = { b.base[0], b.base[1], b.base[2], copied - 4, b.bytes[1], b.bytes[2], NULL, 0 };
    dml_cuda_launch launch;
    dml_cuda_prepare(&plan, &args, 2, &launch);
    ck_assert(launch.is_copy);
    ck_assert_int_eq(dml_cuda_emulate(&launch, NULL), DML_EMULATE_VIOLATION);
    ck_assert_ptr_nonnull(strstr(dml_cuda_emulator_violation(), "bound input range"));
    args.input_bytes = copied;
    dml_cuda_prepare(&plan, &args, 2, &launch);
    ck_assert_int_eq(dml_cuda_emulate(&launch, NULL), 0);
    ck_assert_str_eq(dml_cuda_emulator_violation(), "");
    gather_buffers_free(&b);
}
END_TEST

/* ---- 64-bit indexing ---------------------------------------------------- */

/* An input reserved in address space but backed only where read: the pages
 * of each reachable element range are made readable and filled; any other
 * access faults (and fails the case). */
typedef struct sparse {
    unsigned char* base;
    size_t span;
} sparse;

/* More than the largest input of huge_inputs (its first and last rows are
 * 3 * (2^30 + 64) eight-byte elements apart): main probes for it, and skips
 * the case without it. */
#define HUGE_INPUT_SPAN (1ull << 35)

static int sparse_reserve(sparse* s, uint64_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    s->span = (bytes + page - 1) / page * page;
    void* p = mmap(NULL, s->span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    s->base = p;
    return 0;
}

static void sparse_touch(sparse* s, uint64_t from, uint64_t bytes, uint64_t seed)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t first = from / page * page, last = (from + bytes + page - 1) / page * page;
    ck_assert_int_eq(mprotect(s->base + first, last - first, PROT_READ | PROT_WRITE), 0);
    for (uint64_t k = from; k < from + bytes; ++k)
        s->base[k] = (unsigned char)((k * 2654435761u + seed) >> 7);
}

/* Runs c (whose input is huge: more than 2^31 bytes) against the reference;
 * rows[] are the element ranges of the input that are read: [start, start +
 * count) in elements. index32: whether the plan must index in 32 bits (element
 * offsets below 2^31, byte offsets above). */
static void run_wide(const gather_case* c, const uint64_t (*ranges)[2], int range_count, int mode, int index32,
    const char* what)
{
    dml_plan plan;
    ck_assert_msg(gather_case_compile(c, &plan) >= 0, "%s: %s", what, dml_error_last());
    ck_assert_msg(plan.index32 == (uint32_t)index32, "%s: index32 = %u", what, plan.index32);
    uint64_t in_bytes = gather_tensor_bytes(c, 0);
    ck_assert_uint_gt(in_bytes, (uint64_t)INT32_MAX);
    sparse s;
    ck_assert_uint_le(in_bytes + 64, HUGE_INPUT_SPAN);
    ck_assert_msg(sparse_reserve(&s, in_bytes + 64) == 0, "%s: cannot reserve %llu bytes of address space", what,
        (unsigned long long)in_bytes + 64);
    for (int i = 0; i < range_count; ++i)
        sparse_touch(&s, 16 + ranges[i][0] * c->element_size, ranges[i][1] * c->element_size, (uint64_t)i);

    /* lengths and output: ordinary buffers (the input's block stands in empty) */
    gather_case small = *c;
    small.in_packed = 1;
    for (uint32_t i = 0; i < small.rank; ++i)
        small.in_sizes[i] = small.out_sizes[i];
    if (small.type != DML_OPERATOR_REVERSE_SUBSEQUENCES)
        for (uint32_t i = 0; i < small.rank; ++i) {
            small.offsets[i] = 0;
            small.window_sizes[i] = small.out_sizes[i];
            small.window_strides[i] = 1;
        }
    const uint32_t offsets[3] = { 0, 0, 16 };
    gather_buffers b;
    ck_assert_int_eq(gather_buffers_alloc(&small, offsets, 3, &b), 0);
    free(b.block[0]);
    b.block[0] = NULL;
    b.base[0] = s.base + 16;
    b.bytes[0] = in_bytes; /* the bound input range: the whole huge tensor */
    for (size_t k = 0; k < sizeof sm_counts / sizeof sm_counts[0]; ++k) {
        for (uint64_t i = 0; i < b.block_bytes[2]; ++i) /* sentinels again */
            b.block[2][i] = gather_sentinel(i);
        dml_plan_args args = { b.base[0], b.base[1], b.base[2], b.bytes[0], b.bytes[1], b.bytes[2], NULL, 0 };
        dml_cuda_launch launch;
        dml_cuda_prepare(&plan, &args, sm_counts[k], &launch);
        ck_assert_msg(launch.wide == !index32 && !launch.is_copy, "%s: not a %s-bit kernel launch", what,
            index32 ? "32" : "64");
        ck_assert_msg(launch.mode == mode, "%s: mode %s, expected %s", what, mode_text(launch.mode),
            mode_text(mode));
        dml_coalescing stats;
        ck_assert_msg(dml_cuda_emulate(&launch, k == 0 ? &stats : NULL) == 0, "%s", dml_cuda_emulator_violation());
        if (k == 0) {
            reference_gather(c, &b); /* into expected, once */
        }
        uint64_t first = 0, wrong = reference_mismatches(&b, &first);
        ck_assert_msg(wrong == 0, "%s: %llu bytes differ, first at %llu", what, (unsigned long long)wrong,
            (unsigned long long)first);
    }
    munmap(s.base, s.span);
    gather_buffers_free(&b);
}

/* Huge inputs: rows 2^30 + 64 elements apart, more than 2^31 elements in
 * all (64-bit indexing), and for 4- and 8-byte elements rows 2^29 + 64
 * elements apart: element offsets below 2^31 but byte offsets above (32-bit
 * indexing, each offset scaled to bytes in 64 bits). */
static void huge_inputs(int index32)
{
    uint32_t first_e = index32 ? 4 : 1;
    uint64_t pitch_base = index32 ? (1ull << 29) : (1ull << 30);
    for (uint32_t e = first_e; e <= 8; e *= 2) {
        uint64_t pitch = pitch_base + 64;
        uint32_t R = 3, n = 64;
        gather_case c;
        char what[64];
        /* vector: window starting at 2^29 (or 2^30) + 16 */
        rows_case(&c, e, R, (uint32_t)pitch, n, (uint32_t)(pitch - 64) - 64 / e, 1, n);
        uint64_t start = c.offsets[1];
        uint64_t ranges[3][2];
        for (uint32_t r = 0; r < R; ++r) {
            ranges[r][0] = r * pitch + start;
            ranges[r][1] = n;
        }
        snprintf(what, sizeof what, "%s vector e=%u", index32 ? "narrow" : "wide", e);
        run_wide(&c, (const uint64_t(*)[2])ranges, (int)R, DML_CUDA_MODE_VECTOR, index32, what);
        /* reversed */
        c.window_strides[1] = -1;
        snprintf(what, sizeof what, "%s reversed e=%u", index32 ? "narrow" : "wide", e);
        run_wide(&c, (const uint64_t(*)[2])ranges, (int)R, DML_CUDA_MODE_VECTOR_REVERSED, index32, what);
        /* vector: window one element further (misaligned relative to the
         * output: each vector read as the two aligned vectors holding it) */
        c.window_strides[1] = 1;
        c.offsets[1] += 1;
        for (uint32_t r = 0; r < R; ++r)
            ranges[r][0] += 1;
        snprintf(what, sizeof what, "%s misaligned e=%u", index32 ? "narrow" : "wide", e);
        run_wide(&c, (const uint64_t(*)[2])ranges, (int)R, DML_CUDA_MODE_VECTOR, index32, what);
    }
    /* REVERSE_SUBSEQUENCES over rows far apart (input strides {pitch, 1}),
     * axis 0, lengths broadcast along the row, and axis 1, the reversal along
     * the row: both vector */
    for (uint32_t e = first_e; e <= 8; e *= 2) {
        for (uint32_t axis = 0; axis < 2; ++axis) {
            uint64_t pitch = pitch_base + 64;
            gather_case c;
            memset(&c, 0, sizeof c);
            c.type = DML_OPERATOR_REVERSE_SUBSEQUENCES;
            c.element_size = e;
            c.rank = 2;
            c.in_sizes[0] = c.out_sizes[0] = 4;
            c.in_sizes[1] = c.out_sizes[1] = 48;
            c.in_strides[0] = (uint32_t)pitch;
            c.in_strides[1] = 1;
            c.out_packed = 1;
            c.axis = axis;
            c.lengths_size = axis ? 8 : 4;
            c.len_packed = axis == 1;
            c.length_kind = GATHER_LENGTHS_RANDOM;
            uint64_t ranges[4][2];
            for (uint32_t r = 0; r < 4; ++r) {
                ranges[r][0] = r * pitch;
                ranges[r][1] = 48;
            }
            char what[64];
            snprintf(what, sizeof what, "%s RS e=%u axis %u", index32 ? "narrow" : "wide", e, axis);
            run_wide(&c, (const uint64_t(*)[2])ranges, 4, DML_CUDA_MODE_VECTOR, index32, what);
        }
    }
}

START_TEST(wide_indexing)
{
    huge_inputs(0);
}
END_TEST

START_TEST(narrow_indexing_of_byte_offsets_past_2GiB)
{
    huge_inputs(1);
}
END_TEST

static Suite* suite(void)
{
    Suite* s = suite_create("cuda_emulation");
    TCase* tc = tcase_create("emulation");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, random_operators, 0, 4);
    tcase_add_test(tc, vector_on_aligned_rows);
    tcase_add_test(tc, tiled_transposes);
    tcase_add_test(tc, tiled_reverse_subsequences);
    tcase_add_test(tc, staged_tiles);
    tcase_add_test(tc, tiled_reversal_of_part_of_the_axis);
    tcase_add_test(tc, reversed_vector_on_aligned_rows);
    tcase_add_test(tc, vector_or_scalar_when_misaligned);
    tcase_add_test(tc, vector_heads_and_tails);
    tcase_add_test(tc, copy_launches);
    tcase_add_test(tc, spec_examples);
    tcase_add_test(tc, loads_stay_inside_bound_ranges);
    tcase_add_test(tc, emulator_refuses_accesses_outside_bound_ranges);
    suite_add_tcase(s, tc);
    /* Inputs past 2 GiB, in address space reserved but never touched. */
    TCase* huge = tcase_create("huge_inputs");
    tcase_set_timeout(huge, 600);
    tcase_add_test(huge, wide_indexing);
    tcase_add_test(huge, narrow_indexing_of_byte_offsets_past_2GiB);
    suite_add_tcase(s, huge);
    return s;
}

int main(void)
{
    /* CTest runs each case alone (CK_RUN_CASE): huge_inputs is skipped where
     * the address space it needs cannot be reserved (a ulimit -v, a tool). */
    const char* only = getenv("CK_RUN_CASE");
    sparse probe;
    if (only && strcmp(only, "huge_inputs") == 0) {
        if (sparse_reserve(&probe, HUGE_INPUT_SPAN) < 0) {
            printf("SKIPPED: huge_inputs: cannot reserve %llu bytes of address space\n",
                (unsigned long long)HUGE_INPUT_SPAN);
            return 77;
        }
        munmap(probe.base, probe.span);
    }
    SRunner* runner = srunner_create(suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
