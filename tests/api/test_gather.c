/*
 * test_gather.c — DML_OPERATOR_GATHER, GATHER_ELEMENTS, GATHER_ND and
 * GATHER_ND1 through the public API, on the backend DML_TEST_BACKEND names
 * (cpu; cudaemu through tests/cuda_plugin):
 *
 *   - random cases against reference.c's ref_gather* (written from
 *     data-movement.md and DirectML's pages): ranks 1-8, every data type,
 *     every index type, packed / padded / permuted / broadcast inputs and
 *     indices, padded / permuted outputs, exact-size bound ranges, meaningful
 *     shapes shorter than DimensionCount (leading 1s) and longer (leading 1s
 *     cropped), ND1 batch dimensions, hostile indices (clamped); the whole
 *     output buffer compared;
 *   - every hostile index value in every index type;
 *   - DirectML's and ONNX's examples, stated by hand;
 *   - a GATHER fed by a transpose, in a graph;
 *   - one failing case per validation rule.
 *
 * A backend that does not execute the INDEXED plan kind yet makes the
 * execution cases skip (never pass): the suite then exits 77.
 * DML_TEST_SEED=<n> replays another seed.
 */
#include "indexing.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_GATHER, K_ELEMENTS, K_ND, K_ND1, K_COUNT };
static const char* const KIND_NAMES[K_COUNT] = { "GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1" };
static const DML_OPERATOR_TYPE KIND_TYPES[K_COUNT] = { DML_OPERATOR_GATHER, DML_OPERATOR_GATHER_ELEMENTS,
    DML_OPERATOR_GATHER_ND, DML_OPERATOR_GATHER_ND1 };

static const uint32_t MAX_DIM[9] = { 0, 24, 9, 6, 4, 3, 3, 2, 2 };
#define MAX_OUTPUT_ELEMENTS 1500

typedef struct gcase {
    uint32_t kind, rank, axis, index_dims; /* GATHER, GATHER_ELEMENTS */
    uint32_t input_dims, indices_dims, batch; /* ND */
    uint32_t in_sizes[8], idx_sizes[8], out_sizes[8];
    DML_TENSOR_DATA_TYPE type, index_type;
} gcase;

static uint64_t g_ran, g_skipped, g_elements;

/* The meaningful output shape (the spec's concatenation), with a pointer to
 * the size each dimension comes from (to force it to 1). */
static uint32_t meaningful_shape(gcase* c, uint32_t* shape, uint32_t** source)
{
    const uint32_t R = c->rank;
    uint32_t m = 0;
    if (c->kind == K_GATHER) {
        for (uint32_t i = 0; i < c->axis; ++i)
            source[m++] = &c->in_sizes[i];
        for (uint32_t j = R - c->index_dims; j < R; ++j)
            source[m++] = &c->idx_sizes[j];
        for (uint32_t i = c->axis + 1; i < R; ++i)
            source[m++] = &c->in_sizes[i];
    } else {
        for (uint32_t j = R - c->indices_dims; j + 1 < R; ++j)
            source[m++] = &c->idx_sizes[j];
        for (uint32_t i = R - c->input_dims + c->batch + c->idx_sizes[R - 1]; i < R; ++i)
            source[m++] = &c->in_sizes[i];
    }
    for (uint32_t i = 0; i < m; ++i)
        shape[i] = *source[i];
    return m;
}

/* Sets a meaningful dimension to 1 (a batch dimension on both tensors). */
static void force_one(gcase* c, uint32_t* size)
{
    *size = 1;
    if (c->kind == K_ND || c->kind == K_ND1)
        for (uint32_t b = 0; b < c->batch; ++b) {
            uint32_t ii = c->rank - c->indices_dims + b, di = c->rank - c->input_dims + b;
            if (size == &c->idx_sizes[ii] || size == &c->in_sizes[di])
                c->idx_sizes[ii] = c->in_sizes[di] = 1;
        }
}

/* Output sizes: the meaningful shape right-aligned to the rank, its extra
 * leading dimensions forced to 1 (cropped) and the case kept small. */
static void finish_shape(rng* r, gcase* c)
{
    uint32_t shape[16], *source[16];
    uint32_t m = meaningful_shape(c, shape, source);
    for (uint32_t i = 0; i + c->rank < m; ++i)
        force_one(c, source[i]);
    for (;;) {
        m = meaningful_shape(c, shape, source);
        uint64_t n = 1;
        for (uint32_t i = 0; i < m; ++i)
            n *= shape[i];
        if (n <= MAX_OUTPUT_ELEMENTS)
            break;
        uint32_t i = (uint32_t)ix_below(r, m);
        if (shape[i] > 1)
            force_one(c, source[i]);
    }
    for (uint32_t i = 0; i < c->rank; ++i) {
        int64_t s = (int64_t)i + (int64_t)m - (int64_t)c->rank;
        c->out_sizes[i] = s >= 0 ? shape[s] : 1;
    }
}

static uint32_t random_size(rng* r, uint32_t rank)
{
    return ix_chance(r, 15) ? 1 : 1 + (uint32_t)ix_below(r, MAX_DIM[rank]);
}

static void gen_case(rng* r, gcase* c, uint32_t kind, DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE index_type)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->type = type;
    c->index_type = index_type;
    const uint32_t R = c->rank = 1 + (uint32_t)ix_below(r, 8);
    for (uint32_t i = 0; i < R; ++i) {
        c->in_sizes[i] = random_size(r, R);
        c->idx_sizes[i] = 1;
    }
    switch (kind) {
    case K_GATHER:
        c->axis = (uint32_t)ix_below(r, R);
        c->index_dims = (uint32_t)ix_below(r, R + 1);
        for (uint32_t j = R - c->index_dims; j < R; ++j)
            c->idx_sizes[j] = 1 + (uint32_t)ix_below(r, 4);
        break;
    case K_ELEMENTS:
        c->axis = (uint32_t)ix_below(r, R);
        memcpy(c->idx_sizes, c->in_sizes, sizeof c->idx_sizes);
        c->idx_sizes[c->axis] = 1 + (uint32_t)ix_below(r, 5);
        while (ix_elements(R, c->idx_sizes) > MAX_OUTPUT_ELEMENTS) {
            uint32_t i = (uint32_t)ix_below(r, R);
            c->idx_sizes[i] = 1;
            if (i != c->axis)
                c->in_sizes[i] = 1;
        }
        memcpy(c->out_sizes, c->idx_sizes, sizeof c->out_sizes);
        return; /* the output is the indices' shape */
    default: {
        c->input_dims = 1 + (uint32_t)ix_below(r, R);
        c->indices_dims = 1 + (uint32_t)ix_below(r, R);
        uint32_t most = c->input_dims < c->indices_dims ? c->input_dims : c->indices_dims;
        c->batch = kind == K_ND1 ? (uint32_t)ix_below(r, most) : 0;
        for (uint32_t i = 0; i < R - c->input_dims; ++i)
            c->in_sizes[i] = 1;
        const uint32_t data_first = R - c->input_dims, idx_first = R - c->indices_dims;
        for (uint32_t j = idx_first; j + 1 < R; ++j)
            c->idx_sizes[j] = j - idx_first < c->batch ? c->in_sizes[data_first + (j - idx_first)]
                                                      : 1 + (uint32_t)ix_below(r, 4);
        c->idx_sizes[R - 1] = 1 + (uint32_t)ix_below(r, c->input_dims - c->batch);
        break;
    }
    }
    finish_shape(r, c);
}

static void dump_case(const gcase* c, ix_operand* in, ix_operand* idx, ix_operand* out)
{
    fprintf(stderr, "%s %s, indices %s, rank %u, axis %u, IndexDimensions %u, InputDimensionCount %u, "
        "IndicesDimensionCount %u, BatchDimensionCount %u\n", KIND_NAMES[c->kind], h_type_name(c->type),
        h_type_name(c->index_type), c->rank, c->axis, c->index_dims, c->input_dims, c->indices_dims, c->batch);
    ix_dump("input", in);
    ix_dump("indices", idx);
    ix_dump("output", out);
}

/* The operator desc of a case (d points at storage for it). */
typedef union gdesc {
    DML_GATHER_OPERATOR_DESC g;
    DML_GATHER_ELEMENTS_OPERATOR_DESC e;
    DML_GATHER_ND_OPERATOR_DESC nd;
    DML_GATHER_ND1_OPERATOR_DESC nd1;
} gdesc;

static DML_OPERATOR_DESC make_desc(const gcase* c, gdesc* d, const DML_TENSOR_DESC* in, const DML_TENSOR_DESC* idx,
                                   const DML_TENSOR_DESC* out)
{
    switch (c->kind) {
    case K_GATHER: d->g = (DML_GATHER_OPERATOR_DESC){ in, idx, out, c->axis, c->index_dims }; break;
    case K_ELEMENTS: d->e = (DML_GATHER_ELEMENTS_OPERATOR_DESC){ in, idx, out, c->axis }; break;
    case K_ND: d->nd = (DML_GATHER_ND_OPERATOR_DESC){ in, idx, out, c->input_dims, c->indices_dims }; break;
    default:
        d->nd1 = (DML_GATHER_ND1_OPERATOR_DESC){ in, idx, out, c->input_dims, c->indices_dims, c->batch };
        break;
    }
    return (DML_OPERATOR_DESC){ KIND_TYPES[c->kind], d };
}

static void reference(const gcase* c, ix_operand* in, ix_operand* idx, ix_operand* out, uint8_t* want)
{
    memcpy(want, out->host, out->total);
    ref_view vi = ix_view(in), vx = ix_view(idx), vo = ix_view(out);
    vo.base = want + out->offset;
    const int s = ix_index_signed(c->index_type);
    switch (c->kind) {
    case K_GATHER: ref_gather(&vi, &vx, &vo, c->axis, c->index_dims, s); break;
    case K_ELEMENTS: ref_gather_elements(&vi, &vx, &vo, c->axis, s); break;
    default: ref_gather_nd(&vi, &vx, &vo, c->input_dims, c->indices_dims, c->batch, s); break;
    }
}

/* The n of each tuple component (ND) or of the one index. */
static void index_bounds(const gcase* c, uint64_t* n_by_last, uint64_t* n)
{
    if (c->kind == K_GATHER || c->kind == K_ELEMENTS) {
        *n = c->in_sizes[c->axis];
        return;
    }
    const uint32_t first = c->rank - c->input_dims + c->batch;
    for (uint32_t k = 0; k < c->idx_sizes[c->rank - 1]; ++k)
        n_by_last[k] = c->in_sizes[first + k];
    *n = 0;
}

static void run_case(rng* r, const gcase* c, unsigned hostile)
{
    ix_operand in, idx, out;
    ix_operand_make(r, &in, c->type, c->rank, c->in_sizes, IX_STRIDED | IX_BROADCAST);
    ix_operand_make(r, &idx, c->index_type, c->rank, c->idx_sizes, IX_STRIDED | IX_BROADCAST);
    ix_operand_make(r, &out, c->type, c->rank, c->out_sizes, IX_STRIDED);
    uint64_t n_by_last[8], n;
    index_bounds(c, n_by_last, &n);
    ix_operand_fill_indices(r, &idx, n ? NULL : n_by_last, n, hostile);
    gdesc d;
    DML_OPERATOR_DESC od = make_desc(c, &d, &in.t.desc, &idx.t.desc, &out.t.desc);
    uint8_t* got = malloc(out.total);
    uint8_t* want = malloc(out.total);
    ck_assert(got && want);
    ix_operand* inputs[2] = { &in, &idx };
    if (ix_run(&od, inputs, 2, &out, got)) {
        reference(c, &in, &idx, &out, want);
        int same = ix_same_bytes(got, want, out.total, KIND_NAMES[c->kind]);
        if (!same)
            dump_case(c, &in, &idx, &out);
        ck_assert_msg(same, "%s: the output buffer differs from the reference", KIND_NAMES[c->kind]);
        ++g_ran;
        g_elements += ix_elements(c->rank, c->out_sizes);
    } else {
        ++g_skipped;
    }
    free(got);
    free(want);
    ix_operand_free(&in);
    ix_operand_free(&idx);
    ix_operand_free(&out);
}

static void report(const char* test)
{
    printf("%s: %" PRIu64 " cases run (%" PRIu64 " output elements compared), %" PRIu64 " skipped (plan kind "
        "not executed by '%s')\n", test, g_ran, g_elements, g_skipped, h_backend());
}

/* _i: the kind; every data type x every index type. */
START_TEST(gather_random)
{
    rng r = { ix_seed(0x6A7E4ull) ^ ((uint64_t)_i << 40) };
    const int per = ix_quick() ? 1 : 3;
    g_ran = g_skipped = g_elements = 0;
    for (uint32_t type = 1; type <= 11; ++type)
        for (int k = 0; k < per; ++k) {
            gcase c;
            gen_case(&r, &c, (uint32_t)_i, (DML_TENSOR_DATA_TYPE)type, IX_INDEX_TYPES[(type + (uint32_t)k) % 4]);
            run_case(&r, &c, 15);
        }
    report(KIND_NAMES[_i]);
}
END_TEST

/* Each hostile value in each index type, for each kind: the clamp, the
 * negative rule once, 32-bit truncation of what is stored. */
START_TEST(gather_hostile_indices)
{
    static const uint32_t in_sizes[2] = { 5, 3 };
    g_ran = g_skipped = g_elements = 0;
    rng r = { ix_seed(0x6A7E5ull) };
    for (uint32_t kind = 0; kind < K_COUNT; ++kind)
        for (uint32_t t = 0; t < 4; ++t) {
            gcase c;
            memset(&c, 0, sizeof c);
            c.kind = kind;
            c.rank = 2;
            c.type = DML_TENSOR_DATA_TYPE_INT16;
            c.index_type = IX_INDEX_TYPES[t];
            memcpy(c.in_sizes, in_sizes, sizeof in_sizes);
            /* GATHER: axis 0, 10 indices {1,10} -> {10,3}; ELEMENTS: axis 0, {10,3}; ND: {10,1} tuples -> {10,3}. */
            uint32_t count;
            const uint64_t* hostile = ix_hostile_values(5, &count);
            c.idx_sizes[0] = count;
            c.idx_sizes[1] = kind == K_ELEMENTS ? 3 : 1;
            c.index_dims = 1;
            c.input_dims = c.indices_dims = 2;
            if (kind == K_GATHER) {
                c.idx_sizes[0] = 1;
                c.idx_sizes[1] = count;
            }
            c.out_sizes[0] = count;
            c.out_sizes[1] = 3;
            ix_operand in, idx, out;
            ix_operand_make(&r, &in, c.type, 2, c.in_sizes, IX_EXACT);
            ix_operand_fixed(&idx, c.index_type, 2, c.idx_sizes, NULL, NULL);
            ix_operand_make(&r, &out, c.type, 2, c.out_sizes, IX_EXACT);
            const uint32_t es = h_elem_size(c.index_type);
            for (uint32_t k = 0; k < count * (kind == K_ELEMENTS ? 3 : 1); ++k)
                memcpy(idx.host + k * es, &hostile[kind == K_ELEMENTS ? k / 3 : k], es);
            gdesc d;
            DML_OPERATOR_DESC od = make_desc(&c, &d, &in.t.desc, &idx.t.desc, &out.t.desc);
            uint8_t got[64], want[64];
            ck_assert_uint_le(out.total, sizeof got);
            reference(&c, &in, &idx, &out, want);
            {
                /* By hand, for INT16 data in[i][j] (5 rows): the row each hostile value reads once
                 * stored in the index type (truncated to 32 bits), counted from the end when negative
                 * and clamped. */
                const int sg = ix_index_signed(c.index_type), wide = es == 8;
                const uint32_t rows[10] = {
                    sg ? 0 : 4,                /* -6: -1 after the rule -> 0; unsigned: huge */
                    4,                         /* 5 */
                    wide ? (sg ? 0 : 4) : 0,   /* INT64_MIN / 2^63; 32 bits: 0 */
                    4,                         /* UINT64_MAX: -1 or huge */
                    wide ? 4 : 0,              /* 2^32; 32 bits: 0 */
                    sg ? 0 : 4,                /* -2^31 */
                    sg && !wide ? 0 : 4,       /* 0x80000000: INT32_MIN only in INT32 */
                    4,                         /* INT64_MAX; 32 bits: -1 or huge */
                    4,                         /* 0xFFFFFFFF: -1 in INT32, else huge */
                    sg ? 0 : 4 };              /* -5: the first row from the end */
                for (uint32_t k = 0; k < count; ++k)
                    for (uint32_t j = 0; j < 3; ++j) {
                        int16_t g, w;
                        memcpy(&g, want + (k * 3 + j) * 2, 2);
                        memcpy(&w, in.host + (rows[k] * 3 + j) * 2, 2);
                        ck_assert_msg(g == w, "%s, %s index %" PRIx64 ": the reference's output[%u][%u] = %d, "
                            "expected input[%u][%u] = %d", KIND_NAMES[kind], h_type_name(c.index_type), hostile[k], k, j, g, rows[k], j, w);
                    }
            }
            ix_operand* inputs[2] = { &in, &idx };
            if (ix_run(&od, inputs, 2, &out, got)) {
                ck_assert_msg(ix_same_bytes(got, want, out.total, "hostile"), "%s, %s indices: the output differs "
                    "from the reference", KIND_NAMES[kind], h_type_name(c.index_type));
                ++g_ran;
            } else {
                ++g_skipped;
            }
            ix_operand_free(&in);
            ix_operand_free(&idx);
            ix_operand_free(&out);
        }
    report("gather_hostile_indices");
}
END_TEST

/* ---- examples, stated by hand -------------------------------------------- */

/* Checks the reference (whatever the backend), then runs the case's
 * operator: FLOAT32 data given packed, the packed output against `expected`.
 * Returns 0 if skipped. */
static int run_example(const gcase* c, ix_operand* in, ix_operand* idx, ix_operand* out, const float* expected,
                       uint32_t count, const char* what)
{
    float got[64], want[64];
    ck_assert_uint_le(out->total, sizeof got);
    reference(c, in, idx, out, (uint8_t*)want);
    for (uint32_t i = 0; i < count; ++i)
        ck_assert_msg(want[i] == expected[i], "%s: the reference gives output[%u] = %g, expected %g", what, i,
            (double)want[i], (double)expected[i]);
    gdesc d;
    DML_OPERATOR_DESC od_storage = make_desc(c, &d, &in->t.desc, &idx->t.desc, &out->t.desc);
    const DML_OPERATOR_DESC* od = &od_storage;
    ix_operand* inputs[2] = { in, idx };
    if (!ix_run(od, inputs, 2, out, got))
        return 0;
    for (uint32_t i = 0; i < count; ++i)
        ck_assert_msg(got[i] == expected[i], "%s: output[%u] = %g, expected %g", what, i, (double)got[i],
            (double)expected[i]);
    return 1;
}

START_TEST(gather_examples)
{
    const DML_TENSOR_DATA_TYPE F = DML_TENSOR_DATA_TYPE_FLOAT32;
    ix_operand in, idx, out;
    int ran = 0;
    /* ONNX's Gather example as DML: input {1,3,2}, indices {1,2,2} (IndexDimensions 2), Axis 1: the
     * meaningful output {1,2,2,2} has its leading 1 cropped to {2,2,2}. */
    {
        static const uint32_t is[3] = { 1, 3, 2 }, xs[3] = { 1, 2, 2 }, os[3] = { 2, 2, 2 };
        static const float x[6] = { 1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f };
        static const int64_t ind[4] = { 0, 1, 1, 2 };
        static const float want[8] = { 1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f };
        ix_operand_fixed(&in, F, 3, is, NULL, x);
        ix_operand_fixed(&idx, DML_TENSOR_DATA_TYPE_INT64, 3, xs, NULL, ind);
        ix_operand_fixed(&out, F, 3, os, NULL, NULL);
        const gcase c = { .kind = K_GATHER, .rank = 3, .axis = 1, .index_dims = 2,
            .index_type = DML_TENSOR_DATA_TYPE_INT64 };
        ran += run_example(&c, &in, &idx, &out, want, 8, "ONNX Gather example");
        ix_operand_free(&in), ix_operand_free(&idx), ix_operand_free(&out);
    }
    /* GATHER of one index (IndexDimensions 0): input {3,4}, Axis 1, index -1 (INT32): output {1,3}, the
     * meaningful {3} right-aligned with a leading 1. */
    {
        static const uint32_t is[2] = { 3, 4 }, xs[2] = { 1, 1 }, os[2] = { 1, 3 };
        static const float x[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
        static const int32_t ind[1] = { -1 };
        static const float want[3] = { 3, 7, 11 };
        ix_operand_fixed(&in, F, 2, is, NULL, x);
        ix_operand_fixed(&idx, DML_TENSOR_DATA_TYPE_INT32, 2, xs, NULL, ind);
        ix_operand_fixed(&out, F, 2, os, NULL, NULL);
        const gcase c = { .kind = K_GATHER, .rank = 2, .axis = 1, .index_dims = 0,
            .index_type = DML_TENSOR_DATA_TYPE_INT32 };
        ran += run_example(&c, &in, &idx, &out, want, 3, "GATHER of a scalar index");
        ix_operand_free(&in), ix_operand_free(&idx), ix_operand_free(&out);
    }
    /* DirectML's GATHER_ELEMENTS example. */
    {
        static const uint32_t s33[2] = { 3, 3 }, s23[2] = { 2, 3 };
        static const float x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        static const uint32_t ind[6] = { 1, 2, 0, 2, 0, 0 };
        static const float want[6] = { 4, 8, 3, 7, 2, 3 };
        ix_operand_fixed(&in, F, 2, s33, NULL, x);
        ix_operand_fixed(&idx, DML_TENSOR_DATA_TYPE_UINT32, 2, s23, NULL, ind);
        ix_operand_fixed(&out, F, 2, s23, NULL, NULL);
        const gcase c = { .kind = K_ELEMENTS, .rank = 2, .axis = 0, .index_type = DML_TENSOR_DATA_TYPE_UINT32 };
        ran += run_example(&c, &in, &idx, &out, want, 6, "DirectML's GATHER_ELEMENTS example");
        ix_operand_free(&in), ix_operand_free(&idx), ix_operand_free(&out);
    }
    /* DirectML's GATHER_ND examples 1 and 2. */
    {
        static const uint32_t s22[2] = { 2, 2 }, s21[2] = { 2, 1 };
        static const float x[4] = { 0, 1, 2, 3 };
        static const uint32_t ind[2] = { 1, 0 };
        static const float want[4] = { 2, 3, 0, 1 };
        ix_operand_fixed(&in, F, 2, s22, NULL, x);
        ix_operand_fixed(&idx, DML_TENSOR_DATA_TYPE_UINT32, 2, s21, NULL, ind);
        ix_operand_fixed(&out, F, 2, s22, NULL, NULL);
        const gcase c = { .kind = K_ND, .rank = 2, .input_dims = 2, .indices_dims = 2,
            .index_type = DML_TENSOR_DATA_TYPE_UINT32 };
        ran += run_example(&c, &in, &idx, &out, want, 4, "DirectML's GATHER_ND example 1");
        ix_operand_free(&in), ix_operand_free(&idx), ix_operand_free(&out);
    }
    {
        static const uint32_t is[4] = { 1, 2, 2, 2 }, xs[4] = { 1, 1, 2, 2 };
        static const float x[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
        static const uint32_t ind[4] = { 0, 1, 1, 0 };
        static const float want[4] = { 2, 3, 4, 5 };
        ix_operand_fixed(&in, F, 4, is, NULL, x);
        ix_operand_fixed(&idx, DML_TENSOR_DATA_TYPE_UINT32, 4, xs, NULL, ind);
        ix_operand_fixed(&out, F, 4, xs, NULL, NULL);
        const gcase c = { .kind = K_ND, .rank = 4, .input_dims = 3, .indices_dims = 2,
            .index_type = DML_TENSOR_DATA_TYPE_UINT32 };
        ran += run_example(&c, &in, &idx, &out, want, 4, "DirectML's GATHER_ND example 2");
        ix_operand_free(&in), ix_operand_free(&idx), ix_operand_free(&out);
    }
    /* GATHER_ND1 with one batch dimension (ONNX's GatherND batch_dims=1 example): data {2,2,2} =
     * [[[0,1],[2,3]],[[4,5],[6,7]]], indices [[1],[0]] as {1,2,1} (IndicesDimensionCount 2):
     * output[b] = data[b, indices[b]] = [[2,3],[4,5]], {2,2} right-aligned to {1,2,2}. */
    {
        static const uint32_t is[3] = { 2, 2, 2 }, xs[3] = { 1, 2, 1 }, os[3] = { 1, 2, 2 };
        static const float x[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
        static const int64_t ind[2] = { 1, 0 };
        static const float want[4] = { 2, 3, 4, 5 };
        ix_operand_fixed(&in, F, 3, is, NULL, x);
        ix_operand_fixed(&idx, DML_TENSOR_DATA_TYPE_INT64, 3, xs, NULL, ind);
        ix_operand_fixed(&out, F, 3, os, NULL, NULL);
        const gcase c = { .kind = K_ND1, .rank = 3, .input_dims = 3, .indices_dims = 2, .batch = 1,
            .index_type = DML_TENSOR_DATA_TYPE_INT64 };
        ran += run_example(&c, &in, &idx, &out, want, 4, "GATHER_ND1, one batch dimension");
        ix_operand_free(&in), ix_operand_free(&idx), ix_operand_free(&out);
    }
    printf("gather_examples: %d of 6 ran\n", ran);
}
END_TEST

/* ---- a graph: transpose -> GATHER --------------------------------------- */

/* x {4,5} FLOAT32 -> IDENTITY reading it transposed {5,4} -> GATHER (Axis 1, indices {1,3} INT32 with
 * -1 and an out-of-range 9) -> y {5,3}; equal to the reference on the transposed x. */
START_TEST(gather_after_transpose_in_a_graph)
{
    const DML_TENSOR_DATA_TYPE F = DML_TENSOR_DATA_TYPE_FLOAT32;
    static const uint32_t xs[2] = { 4, 5 }, ts[2] = { 5, 4 }, tstr[2] = { 1, 5 }, is[2] = { 1, 3 }, ys[2] = { 5, 3 };
    float x[20];
    for (int i = 0; i < 20; ++i)
        x[i] = (float)(i * 3 - 7);
    static const int32_t ind[3] = { -1, 9, 1 };
    ix_operand gx, gi, gy, t_in, t_out, mid;
    ix_operand_fixed(&gx, F, 2, xs, NULL, x);
    ix_operand_fixed(&gi, DML_TENSOR_DATA_TYPE_INT32, 2, is, NULL, ind);
    ix_operand_fixed(&gy, F, 2, ys, NULL, NULL);
    ix_operand_fixed(&t_in, F, 2, ts, tstr, NULL);
    ix_operand_fixed(&t_out, F, 2, ts, NULL, NULL);
    ix_operand_fixed(&mid, F, 2, ts, NULL, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &t_in.t.desc, &t_out.t.desc, NULL };
    DML_GATHER_OPERATOR_DESC g = { &mid.t.desc, &gi.t.desc, &gy.t.desc, 1, 1 };
    DML_OPERATOR_DESC od_id = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, od_g = { DML_OPERATOR_GATHER, &g };
    DMLOperator ops[2];
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od_id, &ops[0]));
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od_g, &ops[1]));
    DML_OPERATOR_GRAPH_NODE_DESC on[2] = { { ops[0], "transpose" }, { ops[1], "gather" } };
    DML_GRAPH_NODE_DESC nodes[2] = { { DML_GRAPH_NODE_TYPE_OPERATOR, &on[0] }, { DML_GRAPH_NODE_TYPE_OPERATOR, &on[1] } };
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 0, 0, NULL }, i1 = { 1, 1, 1, NULL };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC m0 = { 0, 0, 1, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 1, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie[2] = { { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, { DML_GRAPH_EDGE_TYPE_INPUT, &i1 } };
    DML_GRAPH_EDGE_DESC me = { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m0 }, oe = { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 };
    DML_GRAPH_DESC gd = { 2, 1, 2, nodes, 2, ie, 1, &oe, 1, &me };
    float got[15], want[15], t[20];
    ix_operand* inputs[2] = { &gx, &gi };
    int ran = ix_run_graph(&gd, inputs, 2, &gy, got);
    dmlRelease(ops[0]);
    dmlRelease(ops[1]);
    if (ran) {
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 4; ++j)
                t[i * 4 + j] = x[j * 5 + i];
        ref_view vt = { 4, 2, ts, NULL, (uint8_t*)t, sizeof t }, vi = ix_view(&gi);
        ref_view vy = { 4, 2, ys, NULL, (uint8_t*)want, sizeof want };
        ref_gather(&vt, &vi, &vy, 1, 1, 1);
        ck_assert_mem_eq(got, want, sizeof want);
        /* By hand: row i of t is column i of x: indices -1, 9 (clamped to 3), 1. */
        for (int i = 0; i < 5; ++i) {
            ck_assert(got[i * 3 + 0] == x[3 * 5 + i]);
            ck_assert(got[i * 3 + 1] == x[3 * 5 + i]);
            ck_assert(got[i * 3 + 2] == x[1 * 5 + i]);
        }
    }
    printf("gather_after_transpose_in_a_graph: %s\n", ran ? "ran" : "skipped");
    ix_operand_free(&gx), ix_operand_free(&gi), ix_operand_free(&gy);
    ix_operand_free(&t_in), ix_operand_free(&t_out), ix_operand_free(&mid);
}
END_TEST

/* ---- validation ---------------------------------------------------------- */

/* Validation fixtures: FLOAT32 data, INT32 indices. */
typedef struct vfix {
    h_tensor in, idx, out;
    gdesc d;
    DML_OPERATOR_DESC od;
} vfix;

static void vfix_tensors(vfix* f, uint32_t rank, const uint32_t* is, const uint32_t* xs, const uint32_t* os)
{
    h_tensor_init(&f->in, DML_TENSOR_DATA_TYPE_FLOAT32, rank, is, NULL);
    h_tensor_init(&f->idx, DML_TENSOR_DATA_TYPE_INT32, rank, xs, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT32, rank, os, NULL);
}

/* GATHER: input {1,4,5}, indices {1,2,3} (IndexDimensions 2), Axis 2 -> meaningful {1,4,2,3} cropped to {4,2,3}. */
static vfix* gather_fix(vfix* f)
{
    static const uint32_t is[3] = { 1, 4, 5 }, xs[3] = { 1, 2, 3 }, os[3] = { 4, 2, 3 };
    vfix_tensors(f, 3, is, xs, os);
    f->d.g = (DML_GATHER_OPERATOR_DESC){ &f->in.desc, &f->idx.desc, &f->out.desc, 2, 2 };
    f->od = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER, &f->d };
    return f;
}

/* The rules every gather shares: NULL tensors, index and data types, equal DimensionCounts. */
static void common_rules(vfix* (*make)(vfix*), const char* call)
{
    vfix f;
    make(&f)->d.g.InputTensor = NULL;
    ix_expect_invalid(&f.od, call, "InputTensor NULL", "InputTensor", NULL);
    make(&f)->d.g.IndicesTensor = NULL;
    ix_expect_invalid(&f.od, call, "IndicesTensor NULL", "IndicesTensor", NULL);
    make(&f)->d.g.OutputTensor = NULL;
    ix_expect_invalid(&f.od, call, "OutputTensor NULL", "OutputTensor", NULL);
    static const DML_TENSOR_DATA_TYPE bad_index[] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT16,
        DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT16,
        DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT16 };
    for (size_t i = 0; i < sizeof bad_index / sizeof bad_index[0]; ++i) {
        make(&f)->idx.buf.DataType = bad_index[i];
        f.idx.buf.TotalTensorSizeInBytes = 1024;
        ix_expect_invalid(&f.od, call, "a non-index IndicesTensor type", "IndicesTensor.DataType",
            "must be INT32, INT64, UINT32 or UINT64");
    }
    for (uint32_t t = 0; t < 4; ++t) {
        make(&f)->idx.buf.DataType = IX_INDEX_TYPES[t];
        f.idx.buf.TotalTensorSizeInBytes = 1024;
        ix_expect_valid(&f.od, "each index type");
    }
    make(&f)->out.buf.DataType = DML_TENSOR_DATA_TYPE_INT32;
    ix_expect_invalid(&f.od, call, "output INT32", "OutputTensor.DataType", "InputTensor.DataType");
    /* Ranks: indices or output one more than the input. */
    make(&f);
    uint32_t sizes[8] = { 1 }, rank = f.idx.buf.DimensionCount;
    memcpy(sizes + 1, f.idx.sizes, rank * sizeof *sizes);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, rank + 1, sizes, NULL);
    ix_expect_invalid(&f.od, call, "indices rank + 1", "DimensionCount", "IndicesTensor");
    make(&f);
    memcpy(sizes + 1, f.out.sizes, rank * sizeof *sizes);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, rank + 1, sizes, NULL);
    ix_expect_invalid(&f.od, call, "output rank + 1", "DimensionCount", "OutputTensor");
}

START_TEST(validation_gather)
{
    const char* call = "(GATHER)";
    vfix f;
    ix_expect_valid(&gather_fix(&f)->od, "baseline");
    common_rules(gather_fix, call);
    gather_fix(&f)->d.g.Axis = 3;
    ix_expect_invalid(&f.od, call, "Axis 3", "Axis = 3", "InputTensor.DimensionCount 3");
    gather_fix(&f)->d.g.Axis = UINT32_MAX;
    ix_expect_invalid(&f.od, call, "Axis UINT_MAX", "Axis = 4294967295", NULL);
    gather_fix(&f)->d.g.IndexDimensions = 4;
    ix_expect_invalid(&f.od, call, "IndexDimensions 4", "IndexDimensions = 4", NULL);
    /* IndexDimensions 1 leaves indices {1,2,3}'s 2 outside the meaningful dimensions. */
    gather_fix(&f)->d.g.IndexDimensions = 1;
    ix_expect_invalid(&f.od, call, "IndexDimensions 1, indices {1,2,3}", "IndicesTensor.Sizes[1] = 2",
        "IndexDimensions = 1");
    /* Output sizes: one wrong; not right-aligned; a cropped dimension that is not 1. */
    static const uint32_t wrong[3] = { 4, 3, 3 }, left[3] = { 2, 3, 1 };
    gather_fix(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, wrong, NULL);
    ix_expect_invalid(&f.od, call, "output {4,3,3}", "OutputTensor.Sizes = {4,3,3}", "{1,4,2,3}");
    gather_fix(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, left, NULL);
    ix_expect_invalid(&f.od, call, "output {2,3,1}", "OutputTensor.Sizes", "right-aligned");
    static const uint32_t in2[3] = { 2, 4, 5 }, out2[3] = { 4, 2, 3 };
    gather_fix(&f);
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, in2, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, out2, NULL);
    ix_expect_invalid(&f.od, call, "input {2,4,5}: the cropped dimension is 2", "OutputTensor.Sizes", "{2,4,2,3}");
    /* Valid: IndexDimensions 0 (one index) with the output's leading 1; IndexDimensions 3. */
    static const uint32_t one[3] = { 1, 1, 1 }, o0[3] = { 1, 1, 4 }, x3[3] = { 2, 1, 3 }, i3[3] = { 1, 1, 5 },
                          o3[3] = { 2, 1, 3 };
    gather_fix(&f)->d.g.IndexDimensions = 0;
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 3, one, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o0, NULL);
    ix_expect_valid(&f.od, "IndexDimensions 0");
    gather_fix(&f)->d.g.IndexDimensions = 3;
    h_tensor_init(&f.in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, i3, NULL);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 3, x3, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o3, NULL);
    ix_expect_valid(&f.od, "IndexDimensions 3 on input {1,1,5}, Axis 2");
}
END_TEST

/* GATHER_ELEMENTS: input {3,4,5}, indices {3,2,5}, Axis 1, output {3,2,5}. */
static vfix* elements_fix(vfix* f)
{
    static const uint32_t is[3] = { 3, 4, 5 }, xs[3] = { 3, 2, 5 };
    vfix_tensors(f, 3, is, xs, xs);
    f->d.e = (DML_GATHER_ELEMENTS_OPERATOR_DESC){ &f->in.desc, &f->idx.desc, &f->out.desc, 1 };
    f->od = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ELEMENTS, &f->d };
    return f;
}

START_TEST(validation_gather_elements)
{
    const char* call = "(GATHER_ELEMENTS)";
    vfix f;
    ix_expect_valid(&elements_fix(&f)->od, "baseline");
    common_rules(elements_fix, call);
    elements_fix(&f)->d.e.Axis = 3;
    ix_expect_invalid(&f.od, call, "Axis 3", "Axis = 3", NULL);
    static const uint32_t x2[3] = { 3, 2, 4 }, o2[3] = { 3, 3, 5 };
    elements_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 3, x2, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, x2, NULL);
    ix_expect_invalid(&f.od, call, "indices {3,2,4}", "IndicesTensor.Sizes[2] = 4", "InputTensor.Sizes[2] = 5");
    elements_fix(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o2, NULL);
    ix_expect_invalid(&f.od, call, "output {3,3,5}", "OutputTensor.Sizes[1] = 3", "IndicesTensor.Sizes[1] = 2");
    /* A larger axis than the input's is valid (indices repeat positions). */
    static const uint32_t x9[3] = { 3, 9, 5 };
    elements_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 3, x9, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, x9, NULL);
    ix_expect_valid(&f.od, "indices longer than the input on Axis");
}
END_TEST

/* GATHER_ND: input {1,2,3,4} (InputDimensionCount 3), indices {1,1,5,2} (IndicesDimensionCount 2: 5
 * tuples of 2) -> the meaningful output {5,4}, right-aligned {1,1,5,4}. */
static vfix* nd_fix(vfix* f)
{
    static const uint32_t is[4] = { 1, 2, 3, 4 }, xs[4] = { 1, 1, 5, 2 }, os[4] = { 1, 1, 5, 4 };
    vfix_tensors(f, 4, is, xs, os);
    f->d.nd = (DML_GATHER_ND_OPERATOR_DESC){ &f->in.desc, &f->idx.desc, &f->out.desc, 3, 2 };
    f->od = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ND, &f->d };
    return f;
}

/* GATHER_ND1: input {2,3,4} (3), indices {2,5,1} (3), batch 1 -> output meaningful {2,5,4}. */
static vfix* nd1_fix(vfix* f)
{
    static const uint32_t is[3] = { 2, 3, 4 }, xs[3] = { 2, 5, 1 }, os[3] = { 2, 5, 4 };
    vfix_tensors(f, 3, is, xs, os);
    f->d.nd1 = (DML_GATHER_ND1_OPERATOR_DESC){ &f->in.desc, &f->idx.desc, &f->out.desc, 3, 3, 1 };
    f->od = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ND1, &f->d };
    return f;
}

/* InputDimensionCount and IndicesDimensionCount in [1, DimensionCount]. */
static void nd_count_rules(vfix* (*make)(vfix*), const char* call, UINT* (*input_dims)(vfix*),
                           UINT* (*indices_dims)(vfix*), uint32_t rank)
{
    vfix f;
    char word[64];
    *input_dims(make(&f)) = 0;
    ix_expect_invalid(&f.od, call, "InputDimensionCount 0", "InputDimensionCount = 0", NULL);
    *input_dims(make(&f)) = rank + 1;
    snprintf(word, sizeof word, "InputDimensionCount = %u", rank + 1);
    ix_expect_invalid(&f.od, call, "InputDimensionCount rank + 1", word, NULL);
    *indices_dims(make(&f)) = 0;
    ix_expect_invalid(&f.od, call, "IndicesDimensionCount 0", "IndicesDimensionCount = 0", NULL);
    *indices_dims(make(&f)) = rank + 1;
    snprintf(word, sizeof word, "IndicesDimensionCount = %u", rank + 1);
    ix_expect_invalid(&f.od, call, "IndicesDimensionCount rank + 1", word, NULL);
}

static UINT* nd_input_dims(vfix* f) { return &f->d.nd.InputDimensionCount; }
static UINT* nd_indices_dims(vfix* f) { return &f->d.nd.IndicesDimensionCount; }
static UINT* nd1_input_dims(vfix* f) { return &f->d.nd1.InputDimensionCount; }
static UINT* nd1_indices_dims(vfix* f) { return &f->d.nd1.IndicesDimensionCount; }

START_TEST(validation_gather_nd)
{
    const char* call = "(GATHER_ND)";
    vfix f;
    ix_expect_valid(&nd_fix(&f)->od, "baseline");
    common_rules(nd_fix, call);
    nd_count_rules(nd_fix, call, nd_input_dims, nd_indices_dims, 4);
    /* InputDimensionCount 2 leaves the input's 2 among the leading 1s. */
    nd_fix(&f)->d.nd.InputDimensionCount = 2;
    ix_expect_invalid(&f.od, call, "InputDimensionCount 2", "InputTensor.Sizes[1] = 2", "InputDimensionCount = 2");
    nd_fix(&f)->d.nd.IndicesDimensionCount = 1;
    ix_expect_invalid(&f.od, call, "IndicesDimensionCount 1", "IndicesTensor.Sizes[2] = 5",
        "IndicesDimensionCount = 1");
    /* Tuples of 4 into 3 meaningful input dimensions. */
    static const uint32_t x4[4] = { 1, 1, 5, 4 }, o4[4] = { 1, 1, 1, 5 };
    nd_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 4, x4, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, o4, NULL);
    ix_expect_invalid(&f.od, call, "tuples of 4", "IndicesTensor.Sizes[3] = 4", "index tuple");
    /* Output: wrong, and not right-aligned. */
    static const uint32_t bad[4] = { 1, 1, 5, 3 }, left[4] = { 5, 4, 1, 1 };
    nd_fix(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, bad, NULL);
    ix_expect_invalid(&f.od, call, "output {1,1,5,3}", "OutputTensor.Sizes = {1,1,5,3}", "{5,4}");
    nd_fix(&f);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, left, NULL);
    ix_expect_invalid(&f.od, call, "output {5,4,1,1}", "OutputTensor.Sizes", "right-aligned");
    /* Valid: tuples of 3 (single elements: {1,1,1,5}); tuples of 1 ({5,3,4} -> {1,5,3,4}). */
    static const uint32_t x3[4] = { 1, 1, 5, 3 }, o3[4] = { 1, 1, 1, 5 }, x1[4] = { 1, 1, 5, 1 },
                          o1[4] = { 1, 5, 3, 4 };
    nd_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 4, x3, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, o3, NULL);
    ix_expect_valid(&f.od, "tuples of 3");
    nd_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 4, x1, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, o1, NULL);
    ix_expect_valid(&f.od, "tuples of 1");
}
END_TEST

START_TEST(validation_gather_nd1)
{
    const char* call = "(GATHER_ND1)";
    vfix f;
    ix_expect_valid(&nd1_fix(&f)->od, "baseline");
    common_rules(nd1_fix, call);
    nd_count_rules(nd1_fix, call, nd1_input_dims, nd1_indices_dims, 3);
    nd1_fix(&f)->d.nd1.BatchDimensionCount = 3;
    ix_expect_invalid(&f.od, call, "BatchDimensionCount 3", "BatchDimensionCount = 3", "less than");
    /* BatchDimensionCount 2 = IndicesDimensionCount 2 (indices {1,2,1}). */
    static const uint32_t x2[3] = { 1, 2, 1 }, o2[3] = { 1, 2, 4 };
    nd1_fix(&f)->d.nd1.BatchDimensionCount = 2;
    f.d.nd1.IndicesDimensionCount = 2;
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 3, x2, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o2, NULL);
    ix_expect_invalid(&f.od, call, "BatchDimensionCount = IndicesDimensionCount", "BatchDimensionCount = 2",
        "IndicesDimensionCount 2");
    /* Batch sizes differ: indices {3,5,1} against input {2,...}. */
    static const uint32_t x3[3] = { 3, 5, 1 }, o3[3] = { 3, 5, 4 };
    nd1_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 3, x3, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o3, NULL);
    ix_expect_invalid(&f.od, call, "batch sizes differ", "batch dimension 0", "IndicesTensor.Sizes[0] = 3");
    /* Tuple of 3 with one batch dimension: at most 3 - 1 = 2. */
    static const uint32_t x4[3] = { 2, 5, 3 }, o4[3] = { 1, 2, 5 };
    nd1_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 3, x4, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o4, NULL);
    ix_expect_invalid(&f.od, call, "tuple of 3 after a batch dimension", "IndicesTensor.Sizes[2] = 3",
        "BatchDimensionCount 1");
    /* Valid: tuple of 2 after the batch: output {1,2,5}. */
    static const uint32_t x5[3] = { 2, 5, 2 };
    nd1_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_INT32, 3, x5, NULL);
    h_tensor_init(&f.out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, o4, NULL);
    ix_expect_valid(&f.od, "tuple of 2 after a batch dimension");
}
END_TEST

static Suite* gather_suite(void)
{
    Suite* s = suite_create("gather");
    TCase* t = tcase_create("gather");
    tcase_add_checked_fixture(t, ix_setup, ix_teardown);
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, gather_random, 0, K_COUNT);
    tcase_add_test(t, gather_hostile_indices);
    tcase_add_test(t, gather_examples);
    tcase_add_test(t, gather_after_transpose_in_a_graph);
    tcase_add_test(t, validation_gather);
    tcase_add_test(t, validation_gather_elements);
    tcase_add_test(t, validation_gather_nd);
    tcase_add_test(t, validation_gather_nd1);
    suite_add_tcase(s, t);
    return s;
}

/* Whether the backend executes each kind: one small instance of each. */
static uint32_t probe(void)
{
    h_tensor a, b, c;
    ix_plain_tensor(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 1);
    ix_plain_tensor(&b, DML_TENSOR_DATA_TYPE_INT32, 1);
    ix_plain_tensor(&c, DML_TENSOR_DATA_TYPE_FLOAT32, 1);
    DML_GATHER_OPERATOR_DESC g = { &a.desc, &b.desc, &c.desc, 0, 1 };
    DML_GATHER_ELEMENTS_OPERATOR_DESC e = { &a.desc, &b.desc, &c.desc, 0 };
    DML_GATHER_ND_OPERATOR_DESC nd = { &a.desc, &b.desc, &c.desc, 1, 1 };
    DML_GATHER_ND1_OPERATOR_DESC nd1 = { &a.desc, &b.desc, &c.desc, 1, 1, 0 };
    const DML_OPERATOR_DESC ods[K_COUNT] = { { DML_OPERATOR_GATHER, &g }, { DML_OPERATOR_GATHER_ELEMENTS, &e },
        { DML_OPERATOR_GATHER_ND, &nd }, { DML_OPERATOR_GATHER_ND1, &nd1 } };
    const DML_OPERATOR_DESC* p[K_COUNT] = { &ods[0], &ods[1], &ods[2], &ods[3] };
    return ix_probe(p, KIND_NAMES, K_COUNT);
}

int main(void)
{
    printf("test_api_gather: backend %s, seed 0x%" PRIx64 " (DML_TEST_SEED replays another)\n", h_backend(),
        ix_seed(0x6A7E4ull));
    uint32_t refused = probe();
    SRunner* sr = srunner_create(gather_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return ix_exit_code(failed, refused, "test_api_gather");
}
