/*
 * test_scatter.c — DML_OPERATOR_SCATTER_ELEMENTS (alias SCATTER) and
 * SCATTER_ND through the public API, on the backend DML_TEST_BACKEND names:
 *
 *   - random cases against reference.c's ref_scatter_elements / ref_scatter_nd:
 *     ranks 1-8, every data type, every index type, packed / padded /
 *     permuted / broadcast inputs, indices and updates, padded / permuted
 *     outputs, exact-size ranges, updates whose meaningful shape is shorter
 *     (leading 1s) or longer (leading 1s cropped) than DimensionCount,
 *     hostile indices (dropped); the whole output buffer compared;
 *   - duplicates: on the cpu backend the last update in row-major order of
 *     the updates wins, exactly; elsewhere the element is one of its
 *     candidates (data-movement.md: unspecified);
 *   - in place: input and output bound to one range (as if copied first);
 *   - SCATTER_ND of rows of 1 KiB and more, packed: the CPU's one pass;
 *   - examples stated by hand; a SCATTER feeding a transpose in a graph;
 *   - one failing case per validation rule.
 *
 * A backend that does not execute the SCATTER plan kind yet makes the
 * execution cases skip (never pass): the suite then exits 77.
 */
#include "indexing.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_ELEMENTS, K_ND, K_COUNT };
static const char* const KIND_NAMES[K_COUNT] = { "SCATTER_ELEMENTS", "SCATTER_ND" };

static const uint32_t MAX_DIM[9] = { 0, 24, 9, 6, 4, 3, 3, 2, 2 };
#define MAX_UPDATES 1200

typedef struct scase {
    uint32_t kind, rank, axis, input_dims, indices_dims;
    uint32_t in_sizes[8], idx_sizes[8], upd_sizes[8];
    DML_TENSOR_DATA_TYPE type, index_type;
} scase;

static uint64_t g_ran, g_skipped, g_duplicates, g_refused;

static int cpu_backend(void) { return strcmp(h_backend(), "cpu") == 0; }

static uint32_t random_size(rng* r, uint32_t rank)
{
    return ix_chance(r, 15) ? 1 : 1 + (uint32_t)ix_below(r, MAX_DIM[rank]);
}

/* SCATTER_ND's meaningful updates shape, with where each size comes from. */
static uint32_t nd_shape(scase* c, uint32_t* shape, uint32_t** source)
{
    const uint32_t R = c->rank, q = c->idx_sizes[R - 1];
    uint32_t m = 0;
    for (uint32_t j = R - c->indices_dims; j + 1 < R; ++j)
        source[m++] = &c->idx_sizes[j];
    for (uint32_t i = R - c->input_dims + q; i < R; ++i)
        source[m++] = &c->in_sizes[i];
    for (uint32_t i = 0; i < m; ++i)
        shape[i] = *source[i];
    return m;
}

static void gen_case(rng* r, scase* c, uint32_t kind, DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE index_type)
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
    if (kind == K_ELEMENTS) {
        c->axis = (uint32_t)ix_below(r, R);
        memcpy(c->idx_sizes, c->in_sizes, sizeof c->idx_sizes);
        c->idx_sizes[c->axis] = 1 + (uint32_t)ix_below(r, 6);
        while (ix_elements(R, c->idx_sizes) > MAX_UPDATES) {
            uint32_t i = (uint32_t)ix_below(r, R);
            c->idx_sizes[i] = 1;
            if (i != c->axis)
                c->in_sizes[i] = 1;
        }
        memcpy(c->upd_sizes, c->idx_sizes, sizeof c->upd_sizes);
        return;
    }
    c->input_dims = 1 + (uint32_t)ix_below(r, R);
    c->indices_dims = 1 + (uint32_t)ix_below(r, R);
    for (uint32_t i = 0; i < R - c->input_dims; ++i)
        c->in_sizes[i] = 1;
    for (uint32_t j = R - c->indices_dims; j + 1 < R; ++j)
        c->idx_sizes[j] = 1 + (uint32_t)ix_below(r, 4);
    c->idx_sizes[R - 1] = 1 + (uint32_t)ix_below(r, c->input_dims);
    uint32_t shape[16], *source[16];
    uint32_t m = nd_shape(c, shape, source);
    for (uint32_t i = 0; i + R < m; ++i)
        *source[i] = 1; /* cropped: must be 1 */
    for (;;) {
        m = nd_shape(c, shape, source);
        uint64_t n = 1;
        for (uint32_t i = 0; i < m; ++i)
            n *= shape[i];
        if (n <= MAX_UPDATES)
            break;
        *source[ix_below(r, m)] = 1;
    }
    for (uint32_t i = 0; i < R; ++i) {
        int64_t s = (int64_t)i + (int64_t)m - (int64_t)R;
        c->upd_sizes[i] = s >= 0 ? shape[s] : 1;
    }
}

static void dump_case(const scase* c, ix_operand* const* ops)
{
    static const char* const names[4] = { "input", "indices", "updates", "output" };
    fprintf(stderr, "%s %s, indices %s, rank %u, axis %u, InputDimensionCount %u, IndicesDimensionCount %u\n",
        KIND_NAMES[c->kind], h_type_name(c->type), h_type_name(c->index_type), c->rank, c->axis, c->input_dims,
        c->indices_dims);
    for (int i = 0; i < 4; ++i)
        ix_dump(names[i], ops[i]);
}

typedef union sdesc {
    DML_SCATTER_ELEMENTS_OPERATOR_DESC e;
    DML_SCATTER_ND_OPERATOR_DESC nd;
} sdesc;

static DML_OPERATOR_DESC make_desc(const scase* c, sdesc* d, const DML_TENSOR_DESC* in,
                                   const DML_TENSOR_DESC* idx, const DML_TENSOR_DESC* upd,
                                   const DML_TENSOR_DESC* out)
{
    if (c->kind == K_ELEMENTS) {
        d->e = (DML_SCATTER_ELEMENTS_OPERATOR_DESC){ in, idx, upd, out, c->axis };
        return (DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ELEMENTS, d };
    }
    d->nd = (DML_SCATTER_ND_OPERATOR_DESC){ in, idx, upd, out, c->input_dims, c->indices_dims };
    return (DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ND, d };
}

/* want: the output buffer's image after the reference (output's bytes before
 * it in out_init); targets: one per update. */
static void reference(const scase* c, ix_operand* in, ix_operand* idx, ix_operand* upd, ix_operand* out,
                      const uint8_t* out_init, uint8_t* want, uint64_t* targets)
{
    memcpy(want, out_init, out->total);
    ref_view vi = ix_view(in), vx = ix_view(idx), vu = ix_view(upd), vo = ix_view(out);
    vo.base = want + out->offset;
    const int s = ix_index_signed(c->index_type);
    if (c->kind == K_ELEMENTS)
        ref_scatter_elements(&vi, &vx, &vu, &vo, c->axis, s, targets);
    else
        ref_scatter_nd(&vi, &vx, &vu, &vo, c->input_dims, c->indices_dims, s, targets);
}

/* The byte offset (from the tensor's start) of update number k in row-major order. */
static uint64_t update_offset(const ix_operand* upd, uint64_t k)
{
    uint32_t packed[8];
    ref_packed_strides(upd->rank, upd->t.sizes, packed);
    const uint32_t* s = upd->has_strides ? upd->t.strides : packed;
    uint64_t at = 0;
    for (uint32_t i = upd->rank; i-- > 0;) {
        at += (k % upd->t.sizes[i]) * s[i];
        k /= upd->t.sizes[i];
    }
    return at * h_elem_size(upd->type);
}

/* Checks got against want. On cpu exactly (the last update wins); elsewhere
 * an element several updates target may hold any one of them. */
static int check_scatter(const uint8_t* got, const uint8_t* want, const ix_operand* upd, const ix_operand* out,
                         const uint64_t* targets, const char* what)
{
    const uint64_t n = ix_elements(upd->rank, upd->t.sizes);
    const uint32_t es = h_elem_size(out->type);
    uint8_t* adjusted = malloc(out->total);
    uint32_t* hits = calloc(out->bytes / es + 1, sizeof *hits);
    ck_assert(adjusted && hits);
    memcpy(adjusted, got, out->total);
    for (uint64_t k = 0; k < n; ++k)
        if (targets[k] != UINT64_MAX)
            ++hits[targets[k] / es];
    for (uint64_t k = 0; k < n; ++k) {
        if (targets[k] == UINT64_MAX || hits[targets[k] / es] < 2)
            continue;
        ++g_duplicates;
        const uint64_t at = out->offset + targets[k];
        if (!cpu_backend() && memcmp(got + at, upd->host + upd->offset + update_offset(upd, k), es) == 0)
            memcpy(adjusted + at, want + at, es); /* one of the candidates: accepted */
    }
    int same = ix_same_bytes(adjusted, want, out->total, what);
    free(adjusted);
    free(hits);
    return same;
}

/* layouts: IX_STRIDED | IX_BROADCAST (random), or IX_PACKED | IX_EXACT. */
static void run_case_in(rng* r, const scase* c, unsigned hostile, unsigned layouts)
{
    ix_operand in, idx, upd, out;
    ix_operand_make(r, &in, c->type, c->rank, c->in_sizes, layouts);
    ix_operand_make(r, &idx, c->index_type, c->rank, c->idx_sizes, layouts);
    ix_operand_make(r, &upd, c->type, c->rank, c->upd_sizes, layouts);
    ix_operand_make(r, &out, c->type, c->rank, c->in_sizes, layouts & ~(unsigned)IX_BROADCAST);
    uint64_t n_by_last[8] = { 0 }, n = 0;
    if (c->kind == K_ELEMENTS)
        n = c->in_sizes[c->axis];
    else
        for (uint32_t k = 0; k < c->idx_sizes[c->rank - 1]; ++k)
            n_by_last[k] = c->in_sizes[c->rank - c->input_dims + k];
    ix_operand_fill_indices(r, &idx, n ? NULL : n_by_last, n, hostile);
    sdesc d;
    DML_OPERATOR_DESC od = make_desc(c, &d, &in.t.desc, &idx.t.desc, &upd.t.desc, &out.t.desc);
    uint8_t* got = malloc(out.total);
    uint8_t* want = malloc(out.total);
    uint64_t* targets = malloc(ix_elements(c->rank, c->upd_sizes) * sizeof *targets);
    ck_assert(got && want && targets);
    ix_operand* inputs[3] = { &in, &idx, &upd };
    if (ix_run(&od, inputs, 3, &out, got)) {
        reference(c, &in, &idx, &upd, &out, out.host, want, targets);
        if (!check_scatter(got, want, &upd, &out, targets, KIND_NAMES[c->kind])) {
            ix_operand* all[4] = { &in, &idx, &upd, &out };
            dump_case(c, all);
            ck_abort_msg("%s: the output buffer differs from the reference", KIND_NAMES[c->kind]);
        }
        ++g_ran;
    } else {
        ++g_skipped;
    }
    free(got);
    free(want);
    free(targets);
    ix_operand_free(&in);
    ix_operand_free(&idx);
    ix_operand_free(&upd);
    ix_operand_free(&out);
}

static void run_case(rng* r, const scase* c, unsigned hostile)
{
    run_case_in(r, c, hostile, IX_STRIDED | IX_BROADCAST);
}

static void report(const char* test)
{
    printf("%s: %" PRIu64 " cases run (%" PRIu64 " updates landing on a shared element), %" PRIu64
        " skipped (plan kind not executed by '%s')\n", test, g_ran, g_duplicates, g_skipped, h_backend());
}

/* _i: the kind; every data type x every index type. */
START_TEST(scatter_random)
{
    rng r = { ix_seed(0x5CA77Eull) ^ ((uint64_t)_i << 40) };
    const int per = ix_quick() ? 1 : 3;
    g_ran = g_skipped = g_duplicates = 0;
    for (uint32_t type = 1; type <= 11; ++type)
        for (int k = 0; k < per; ++k) {
            scase c;
            gen_case(&r, &c, (uint32_t)_i, (DML_TENSOR_DATA_TYPE)type, IX_INDEX_TYPES[(type + (uint32_t)k) % 4]);
            run_case(&r, &c, 10);
        }
    report(KIND_NAMES[_i]);
}
END_TEST

/* Many updates on few elements: {64} updates into {3} along the axis
 * (SCATTER_ELEMENTS) and 64 one-component tuples into 3 rows (SCATTER_ND),
 * every index type, some dropped. */
START_TEST(scatter_duplicates)
{
    rng r = { ix_seed(0x5CA77Full) };
    g_ran = g_skipped = g_duplicates = 0;
    for (uint32_t kind = 0; kind < K_COUNT; ++kind)
        for (uint32_t t = 0; t < 4; ++t) {
            scase c;
            memset(&c, 0, sizeof c);
            c.kind = kind;
            c.rank = 2;
            c.type = t % 2 ? DML_TENSOR_DATA_TYPE_UINT8 : DML_TENSOR_DATA_TYPE_FLOAT64;
            c.index_type = IX_INDEX_TYPES[t];
            c.input_dims = c.indices_dims = 2;
            if (kind == K_ELEMENTS) {
                c.in_sizes[0] = 2, c.in_sizes[1] = 3; /* axis 1 */
                c.idx_sizes[0] = c.upd_sizes[0] = 2, c.idx_sizes[1] = c.upd_sizes[1] = 64;
                c.axis = 1;
            } else {
                c.in_sizes[0] = 3, c.in_sizes[1] = 2;
                c.idx_sizes[0] = 64, c.idx_sizes[1] = 1;
                c.upd_sizes[0] = 64, c.upd_sizes[1] = 2;
            }
            run_case(&r, &c, 5);
        }
    report("scatter_duplicates");
}
END_TEST

/* SCATTER_ND of rows of 1 KiB and more, packed tensors in exact-size
 * ranges: the CPU backend's one pass over the output (cpu_scatter_onto.c),
 * up to three times as many updates as rows (the last wins), some dropped. */
START_TEST(scatter_nd_rows_one_pass)
{
    rng r = { ix_seed(0x5CA781ull) };
    g_ran = g_skipped = g_duplicates = 0;
    static const DML_TENSOR_DATA_TYPE types[] = { DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
        DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT64 };
    for (uint32_t k = 0; k < (ix_quick() ? 4u : 8u); ++k) {
        scase c;
        memset(&c, 0, sizeof c);
        c.kind = K_ND;
        c.rank = 2;
        c.type = types[k % 4];
        c.index_type = IX_INDEX_TYPES[(k + k / 4) % 4];
        c.input_dims = c.indices_dims = 2;
        const uint32_t width = (1024 + (uint32_t)ix_below(&r, 3) * 1024) / (1u << (k % 4));
        c.in_sizes[0] = 1 + (uint32_t)ix_below(&r, 24), c.in_sizes[1] = width;
        c.idx_sizes[0] = c.upd_sizes[0] = 1 + (uint32_t)ix_below(&r, 3 * c.in_sizes[0]);
        c.idx_sizes[1] = 1;
        c.upd_sizes[1] = width;
        run_case_in(&r, &c, 8, IX_PACKED | IX_EXACT);
    }
    report("scatter_nd_rows_one_pass");
}
END_TEST

/* Input and output bound to one range with one layout: either the result
 * is as if the input had been copied to the output first, or the binding
 * refuses the overlap as docs/contract.md says (nothing else). */
START_TEST(scatter_in_place)
{
    rng r = { ix_seed(0x5CA780ull) };
    g_ran = g_skipped = g_duplicates = g_refused = 0;
    for (uint32_t k = 0; k < (ix_quick() ? 4u : 16u); ++k) {
        scase c;
        gen_case(&r, &c, k % K_COUNT, (DML_TENSOR_DATA_TYPE)(1 + k % 11), IX_INDEX_TYPES[k % 4]);
        ix_operand data, idx, upd;
        ix_operand_make(&r, &data, c.type, c.rank, c.in_sizes, IX_STRIDED);
        ix_operand_make(&r, &idx, c.index_type, c.rank, c.idx_sizes, IX_STRIDED | IX_BROADCAST);
        ix_operand_make(&r, &upd, c.type, c.rank, c.upd_sizes, IX_STRIDED | IX_BROADCAST);
        uint64_t n_by_last[8] = { 0 }, n = 0;
        if (c.kind == K_ELEMENTS)
            n = c.in_sizes[c.axis];
        else
            for (uint32_t j = 0; j < c.idx_sizes[c.rank - 1]; ++j)
                n_by_last[j] = c.in_sizes[c.rank - c.input_dims + j];
        ix_operand_fill_indices(&r, &idx, n ? NULL : n_by_last, n, 10);
        sdesc d;
        DML_OPERATOR_DESC od = make_desc(&c, &d, &data.t.desc, &idx.t.desc, &upd.t.desc, &data.t.desc);
        DMLBuffer shared = h_buffer(&H, data.total, data.host);
        h_bind in[3] = { { shared, data.offset, data.bytes, 0 },
            { h_buffer(&H, idx.total, idx.host), idx.offset, idx.bytes, 0 },
            { h_buffer(&H, upd.total, upd.host), upd.offset, upd.bytes, 0 } };
        h_bind out = { shared, data.offset, data.bytes, 0 };
        uint8_t* got = malloc(data.total);
        uint8_t* want = malloc(data.total);
        uint64_t* targets = malloc(ix_elements(c.rank, c.upd_sizes) * sizeof *targets);
        ck_assert(got && want && targets);
        DML_RESULT res = run_operator(&H, &od, DML_EXECUTION_FLAG_NONE, 3, in, &out, got, data.total);
        if (ix_is_kind_refusal(res, H.message)) {
            ++g_skipped;
        } else if (res == DML_E_INVALIDARG && strcmp(H.stage, "dmlBindingTableBindOutputs") == 0) {
            /* docs/contract.md: an output range may intersect no input range. */
            ck_assert_msg(strstr(H.message, "output 0's range intersects input 0's range") != NULL,
                "in place refused with: %s", H.message);
            ++g_refused;
        } else {
            ck_assert_msg(res == DML_S_OK, "%s failed: %s: %s", H.stage, h_result_name(res), H.message);
            reference(&c, &data, &idx, &upd, &data, data.host, want, targets);
            if (!check_scatter(got, want, &upd, &data, targets, "in place")) {
                ix_operand* all[4] = { &data, &idx, &upd, &data };
                dump_case(&c, all);
                ck_abort_msg("%s in place: the buffer differs from the reference", KIND_NAMES[c.kind]);
            }
            ++g_ran;
        }
        dmlRelease(shared);
        dmlRelease(in[1].buffer);
        dmlRelease(in[2].buffer);
        free(got);
        free(want);
        free(targets);
        ix_operand_free(&data);
        ix_operand_free(&idx);
        ix_operand_free(&upd);
    }
    report("scatter_in_place");
    printf("scatter_in_place: %" PRIu64 " bindings refused (an output range intersecting an input's)\n", g_refused);
}
END_TEST

/* ---- examples, stated by hand -------------------------------------------- */

/* Checks the reference (whatever the backend), then runs od. */
static int run_example(const scase* c, const DML_OPERATOR_DESC* od, ix_operand* in, ix_operand* idx,
                       ix_operand* upd, ix_operand* out, const float* expected, uint32_t count, const char* what)
{
    float got[32], want[32];
    uint64_t targets[8];
    ck_assert_uint_le(out->total, sizeof got);
    reference(c, in, idx, upd, out, out->host, (uint8_t*)want, targets);
    for (uint32_t i = 0; i < count; ++i)
        ck_assert_msg(want[i] == expected[i], "%s: the reference gives output[%u] = %g, expected %g", what, i,
            (double)want[i], (double)expected[i]);
    ix_operand* inputs[3] = { in, idx, upd };
    if (!ix_run(od, inputs, 3, out, got))
        return 0;
    for (uint32_t i = 0; i < count; ++i)
        ck_assert_msg(got[i] == expected[i], "%s: output[%u] = %g, expected %g", what, i, (double)got[i],
            (double)expected[i]);
    return 1;
}

START_TEST(scatter_examples)
{
    const DML_TENSOR_DATA_TYPE F = DML_TENSOR_DATA_TYPE_FLOAT32;
    ix_operand in, idx, upd, out;
    int ran = 0;
    /* ONNX's ScatterElements examples: data [[1,2,3,4,5]], indices [[1,3]] and [[1,-3]], updates [[1.1,2.1]],
     * axis 1 (through the alias DML_OPERATOR_SCATTER). */
    static const uint32_t ds[2] = { 1, 5 }, xs[2] = { 1, 2 };
    static const float x[5] = { 1, 2, 3, 4, 5 }, u[2] = { 1.1f, 2.1f };
    static const int64_t ind[2][2] = { { 1, 3 }, { 1, -3 } };
    static const float want[2][5] = { { 1, 1.1f, 3, 2.1f, 5 }, { 1, 1.1f, 2.1f, 4, 5 } };
    for (int e = 0; e < 2; ++e) {
        ix_operand_fixed(&in, F, 2, ds, NULL, x);
        ix_operand_fixed(&idx, DML_TENSOR_DATA_TYPE_INT64, 2, xs, NULL, ind[e]);
        ix_operand_fixed(&upd, F, 2, xs, NULL, u);
        ix_operand_fixed(&out, F, 2, ds, NULL, NULL);
        DML_SCATTER_OPERATOR_DESC d = { &in.t.desc, &idx.t.desc, &upd.t.desc, &out.t.desc, 1 };
        DML_OPERATOR_DESC od = { DML_OPERATOR_SCATTER, &d };
        const scase c = { .kind = K_ELEMENTS, .rank = 2, .axis = 1, .index_type = DML_TENSOR_DATA_TYPE_INT64 };
        ran += run_example(&c, &od, &in, &idx, &upd, &out, want[e], 5, "ONNX ScatterElements example");
        ix_operand_free(&in), ix_operand_free(&idx), ix_operand_free(&upd), ix_operand_free(&out);
    }
    /* DirectML's SCATTER_ND example, as rank 2: input {1,8} (InputDimensionCount 1), indices {4,1},
     * updates {4} right-aligned to {1,4}. */
    {
        static const uint32_t is[2] = { 1, 8 }, ks[2] = { 4, 1 }, us[2] = { 1, 4 };
        static const float xd[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, ud[4] = { 9, 10, 11, 12 };
        static const uint32_t id[4] = { 4, 3, 1, 7 };
        static const float wd[8] = { 1, 11, 3, 10, 9, 6, 7, 12 };
        ix_operand_fixed(&in, F, 2, is, NULL, xd);
        ix_operand_fixed(&idx, DML_TENSOR_DATA_TYPE_UINT32, 2, ks, NULL, id);
        ix_operand_fixed(&upd, F, 2, us, NULL, ud);
        ix_operand_fixed(&out, F, 2, is, NULL, NULL);
        DML_SCATTER_ND_OPERATOR_DESC d = { &in.t.desc, &idx.t.desc, &upd.t.desc, &out.t.desc, 1, 2 };
        DML_OPERATOR_DESC od = { DML_OPERATOR_SCATTER_ND, &d };
        const scase c = { .kind = K_ND, .rank = 2, .input_dims = 1, .indices_dims = 2,
            .index_type = DML_TENSOR_DATA_TYPE_UINT32 };
        ran += run_example(&c, &od, &in, &idx, &upd, &out, wd, 8, "DirectML's SCATTER_ND example");
        ix_operand_free(&in), ix_operand_free(&idx), ix_operand_free(&upd), ix_operand_free(&out);
    }
    printf("scatter_examples: %d of 3 ran\n", ran);
}
END_TEST

/* ---- a graph: SCATTER_ELEMENTS -> transpose ------------------------------ */

/* x {4,5} INT32, indices {4,2} (Axis 1) and updates {4,2} as graph inputs -> SCATTER_ELEMENTS -> IDENTITY
 * reading it transposed -> y {5,4}: equal to the reference scatter, transposed. */
START_TEST(scatter_feeding_a_transpose_in_a_graph)
{
    const DML_TENSOR_DATA_TYPE I = DML_TENSOR_DATA_TYPE_INT32;
    static const uint32_t xs[2] = { 4, 5 }, ks[2] = { 4, 2 }, ys[2] = { 5, 4 }, tstr[2] = { 1, 5 };
    int32_t x[20], u[8];
    static const int32_t ind[8] = { 0, 4, -1, 1, 7, 2, 3, 0 };
    for (int i = 0; i < 20; ++i)
        x[i] = 100 + i;
    for (int i = 0; i < 8; ++i)
        u[i] = -1 - i;
    ix_operand gx, gk, gu, gy, s_out, t_in;
    ix_operand_fixed(&gx, I, 2, xs, NULL, x);
    ix_operand_fixed(&gk, I, 2, ks, NULL, ind);
    ix_operand_fixed(&gu, I, 2, ks, NULL, u);
    ix_operand_fixed(&gy, I, 2, ys, NULL, NULL);
    ix_operand_fixed(&s_out, I, 2, xs, NULL, NULL);
    ix_operand_fixed(&t_in, I, 2, ys, tstr, NULL);
    DML_SCATTER_ELEMENTS_OPERATOR_DESC s = { &gx.t.desc, &gk.t.desc, &gu.t.desc, &s_out.t.desc, 1 };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &t_in.t.desc, &gy.t.desc, NULL };
    DML_OPERATOR_DESC od_s = { DML_OPERATOR_SCATTER_ELEMENTS, &s }, od_id = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
    DMLOperator ops[2];
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od_s, &ops[0]));
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od_id, &ops[1]));
    DML_OPERATOR_GRAPH_NODE_DESC on[2] = { { ops[0], "scatter" }, { ops[1], "transpose" } };
    DML_GRAPH_NODE_DESC nodes[2] = { { DML_GRAPH_NODE_TYPE_OPERATOR, &on[0] }, { DML_GRAPH_NODE_TYPE_OPERATOR, &on[1] } };
    DML_INPUT_GRAPH_EDGE_DESC i0 = { 0, 0, 0, NULL }, i1 = { 1, 0, 1, NULL }, i2 = { 2, 0, 2, NULL };
    DML_INTERMEDIATE_GRAPH_EDGE_DESC m0 = { 0, 0, 1, 0, NULL };
    DML_OUTPUT_GRAPH_EDGE_DESC o0 = { 1, 0, 0, NULL };
    DML_GRAPH_EDGE_DESC ie[3] = { { DML_GRAPH_EDGE_TYPE_INPUT, &i0 }, { DML_GRAPH_EDGE_TYPE_INPUT, &i1 },
        { DML_GRAPH_EDGE_TYPE_INPUT, &i2 } };
    DML_GRAPH_EDGE_DESC me = { DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &m0 }, oe = { DML_GRAPH_EDGE_TYPE_OUTPUT, &o0 };
    DML_GRAPH_DESC gd = { 3, 1, 2, nodes, 3, ie, 1, &oe, 1, &me };
    int32_t got[20], scattered[20];
    ix_operand* inputs[3] = { &gx, &gk, &gu };
    int ran = ix_run_graph(&gd, inputs, 3, &gy, got);
    dmlRelease(ops[0]);
    dmlRelease(ops[1]);
    if (ran) {
        ref_view vx = ix_view(&gx), vk = ix_view(&gk), vu = ix_view(&gu);
        ref_view vs = { 4, 2, xs, NULL, (uint8_t*)scattered, sizeof scattered };
        ref_scatter_elements(&vx, &vk, &vu, &vs, 1, 1, NULL);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 4; ++j)
                ck_assert_msg(got[i * 4 + j] == scattered[j * 5 + i], "y[%d][%d] = %d, expected %d", i, j,
                    got[i * 4 + j], scattered[j * 5 + i]);
        /* By hand: row 1's -1 counts from the end (4); row 2's 7 is dropped. */
        ck_assert_int_eq(scattered[0 * 5 + 0], -1);
        ck_assert_int_eq(scattered[0 * 5 + 4], -2);
        ck_assert_int_eq(scattered[1 * 5 + 4], -3);
        ck_assert_int_eq(scattered[1 * 5 + 1], -4);
        ck_assert_int_eq(scattered[2 * 5 + 2], -6);
        ck_assert_int_eq(scattered[2 * 5 + 4], 114);
        ck_assert_int_eq(scattered[3 * 5 + 3], -7);
        ck_assert_int_eq(scattered[3 * 5 + 0], -8);
    }
    printf("scatter_feeding_a_transpose_in_a_graph: %s\n", ran ? "ran" : "skipped");
    ix_operand_free(&gx), ix_operand_free(&gk), ix_operand_free(&gu), ix_operand_free(&gy);
    ix_operand_free(&s_out), ix_operand_free(&t_in);
}
END_TEST

/* ---- validation ---------------------------------------------------------- */

typedef struct vfix {
    h_tensor in, idx, upd, out;
    sdesc d;
    DML_OPERATOR_DESC od;
} vfix;

static void vfix_tensors(vfix* f, uint32_t rank, const uint32_t* is, const uint32_t* xs, const uint32_t* us)
{
    h_tensor_init(&f->in, DML_TENSOR_DATA_TYPE_FLOAT16, rank, is, NULL);
    h_tensor_init(&f->idx, DML_TENSOR_DATA_TYPE_UINT64, rank, xs, NULL);
    h_tensor_init(&f->upd, DML_TENSOR_DATA_TYPE_FLOAT16, rank, us, NULL);
    h_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT16, rank, is, NULL);
}

/* SCATTER_ELEMENTS: input {3,4,5}, indices = updates {3,7,5}, Axis 1. */
static vfix* elements_fix(vfix* f)
{
    static const uint32_t is[3] = { 3, 4, 5 }, xs[3] = { 3, 7, 5 };
    vfix_tensors(f, 3, is, xs, xs);
    f->d.e = (DML_SCATTER_ELEMENTS_OPERATOR_DESC){ &f->in.desc, &f->idx.desc, &f->upd.desc, &f->out.desc, 1 };
    f->od = (DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ELEMENTS, &f->d };
    return f;
}

/* SCATTER_ND: input {1,4,5,6} (InputDimensionCount 3), indices {1,1,7,2} (IndicesDimensionCount 2) ->
 * updates meaningful {7,6}, right-aligned {1,1,7,6}. */
static vfix* nd_fix(vfix* f)
{
    static const uint32_t is[4] = { 1, 4, 5, 6 }, xs[4] = { 1, 1, 7, 2 }, us[4] = { 1, 1, 7, 6 };
    vfix_tensors(f, 4, is, xs, us);
    f->d.nd = (DML_SCATTER_ND_OPERATOR_DESC){ &f->in.desc, &f->idx.desc, &f->upd.desc, &f->out.desc, 3, 2 };
    f->od = (DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ND, &f->d };
    return f;
}

static void rank_plus_one(h_tensor* t)
{
    uint32_t sizes[8] = { 1 }, rank = t->buf.DimensionCount;
    memcpy(sizes + 1, t->sizes, rank * sizeof *sizes);
    h_tensor_init(t, t->buf.DataType, rank + 1, sizes, NULL);
}

static void common_rules(vfix* (*make)(vfix*), const char* call)
{
    vfix f;
    make(&f)->d.e.InputTensor = NULL;
    ix_expect_invalid(&f.od, call, "InputTensor NULL", "InputTensor", NULL);
    make(&f)->d.e.IndicesTensor = NULL;
    ix_expect_invalid(&f.od, call, "IndicesTensor NULL", "IndicesTensor", NULL);
    make(&f)->d.e.UpdatesTensor = NULL;
    ix_expect_invalid(&f.od, call, "UpdatesTensor NULL", "UpdatesTensor", NULL);
    make(&f)->d.e.OutputTensor = NULL;
    ix_expect_invalid(&f.od, call, "OutputTensor NULL", "OutputTensor", NULL);
    static const DML_TENSOR_DATA_TYPE bad_index[] = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT16,
        DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT64 };
    for (size_t i = 0; i < sizeof bad_index / sizeof bad_index[0]; ++i) {
        make(&f)->idx.buf.DataType = bad_index[i];
        ix_expect_invalid(&f.od, call, "a non-index IndicesTensor type", "IndicesTensor.DataType",
            "must be INT32, INT64, UINT32 or UINT64");
    }
    for (uint32_t t = 0; t < 4; ++t) {
        make(&f)->idx.buf.DataType = IX_INDEX_TYPES[t];
        ix_expect_valid(&f.od, "each index type");
    }
    make(&f)->upd.buf.DataType = DML_TENSOR_DATA_TYPE_INT16;
    ix_expect_invalid(&f.od, call, "updates INT16", "UpdatesTensor.DataType INT16", "InputTensor.DataType");
    make(&f)->out.buf.DataType = DML_TENSOR_DATA_TYPE_UINT16;
    ix_expect_invalid(&f.od, call, "output UINT16", "OutputTensor.DataType UINT16", "InputTensor.DataType");
    rank_plus_one(&make(&f)->idx);
    ix_expect_invalid(&f.od, call, "indices rank + 1", "DimensionCount", "IndicesTensor");
    rank_plus_one(&make(&f)->upd);
    ix_expect_invalid(&f.od, call, "updates rank + 1", "DimensionCount", "UpdatesTensor");
    rank_plus_one(&make(&f)->out);
    ix_expect_invalid(&f.od, call, "output rank + 1", "DimensionCount", "OutputTensor");
    /* Output sizes must be the input's. */
    make(&f)->out.sizes[1] += 1;
    f.out.buf.TotalTensorSizeInBytes *= 2;
    ix_expect_invalid(&f.od, call, "output larger", "OutputTensor.Sizes[1]", "InputTensor.Sizes[1]");
}

START_TEST(validation_scatter_elements)
{
    const char* call = "(SCATTER_ELEMENTS)";
    vfix f;
    ix_expect_valid(&elements_fix(&f)->od, "baseline");
    elements_fix(&f)->od.Type = DML_OPERATOR_SCATTER;
    ix_expect_valid(&f.od, "the alias SCATTER");
    common_rules(elements_fix, call);
    elements_fix(&f)->d.e.Axis = 3;
    ix_expect_invalid(&f.od, call, "Axis 3", "Axis = 3", "InputTensor.DimensionCount 3");
    static const uint32_t x2[3] = { 3, 7, 4 }, u2[3] = { 3, 6, 5 };
    elements_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_UINT64, 3, x2, NULL);
    h_tensor_init(&f.upd, DML_TENSOR_DATA_TYPE_FLOAT16, 3, x2, NULL);
    ix_expect_invalid(&f.od, call, "indices {3,7,4}", "IndicesTensor.Sizes[2] = 4", "InputTensor.Sizes[2] = 5");
    elements_fix(&f);
    h_tensor_init(&f.upd, DML_TENSOR_DATA_TYPE_FLOAT16, 3, u2, NULL);
    ix_expect_invalid(&f.od, call, "updates {3,6,5}", "UpdatesTensor.Sizes[1] = 6", "IndicesTensor.Sizes[1] = 7");
}
END_TEST

START_TEST(validation_scatter_nd)
{
    const char* call = "(SCATTER_ND)";
    vfix f;
    ix_expect_valid(&nd_fix(&f)->od, "baseline");
    common_rules(nd_fix, call);
    nd_fix(&f)->d.nd.InputDimensionCount = 0;
    ix_expect_invalid(&f.od, call, "InputDimensionCount 0", "InputDimensionCount = 0", NULL);
    nd_fix(&f)->d.nd.InputDimensionCount = 5;
    ix_expect_invalid(&f.od, call, "InputDimensionCount 5", "InputDimensionCount = 5", NULL);
    nd_fix(&f)->d.nd.IndicesDimensionCount = 0;
    ix_expect_invalid(&f.od, call, "IndicesDimensionCount 0", "IndicesDimensionCount = 0", NULL);
    nd_fix(&f)->d.nd.IndicesDimensionCount = 5;
    ix_expect_invalid(&f.od, call, "IndicesDimensionCount 5", "IndicesDimensionCount = 5", NULL);
    nd_fix(&f)->d.nd.InputDimensionCount = 2;
    ix_expect_invalid(&f.od, call, "InputDimensionCount 2", "InputTensor.Sizes[1] = 4", "InputDimensionCount = 2");
    nd_fix(&f)->d.nd.IndicesDimensionCount = 1;
    ix_expect_invalid(&f.od, call, "IndicesDimensionCount 1", "IndicesTensor.Sizes[2] = 7",
        "IndicesDimensionCount = 1");
    static const uint32_t x4[4] = { 1, 1, 7, 4 };
    nd_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_UINT64, 4, x4, NULL);
    ix_expect_invalid(&f.od, call, "tuples of 4", "IndicesTensor.Sizes[3] = 4", "index tuple");
    static const uint32_t bad[4] = { 1, 1, 7, 5 }, left[4] = { 7, 6, 1, 1 }, longer[4] = { 1, 7, 5, 6 };
    nd_fix(&f);
    h_tensor_init(&f.upd, DML_TENSOR_DATA_TYPE_FLOAT16, 4, bad, NULL);
    ix_expect_invalid(&f.od, call, "updates {1,1,7,5}", "UpdatesTensor.Sizes = {1,1,7,5}", "{7,6}");
    nd_fix(&f);
    h_tensor_init(&f.upd, DML_TENSOR_DATA_TYPE_FLOAT16, 4, left, NULL);
    ix_expect_invalid(&f.od, call, "updates {7,6,1,1}", "UpdatesTensor.Sizes", "right-aligned");
    nd_fix(&f);
    h_tensor_init(&f.upd, DML_TENSOR_DATA_TYPE_FLOAT16, 4, longer, NULL);
    ix_expect_invalid(&f.od, call, "updates {1,7,5,6} (a tuple of 1's shape)", "UpdatesTensor.Sizes", NULL);
    /* Valid: tuples of 1 (updates {1,7,5,6}); tuples of 3 (updates {1,1,1,7}). */
    static const uint32_t x1[4] = { 1, 1, 7, 1 }, x3[4] = { 1, 1, 7, 3 }, u3[4] = { 1, 1, 1, 7 };
    nd_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_UINT64, 4, x1, NULL);
    h_tensor_init(&f.upd, DML_TENSOR_DATA_TYPE_FLOAT16, 4, longer, NULL);
    ix_expect_valid(&f.od, "tuples of 1");
    nd_fix(&f);
    h_tensor_init(&f.idx, DML_TENSOR_DATA_TYPE_UINT64, 4, x3, NULL);
    h_tensor_init(&f.upd, DML_TENSOR_DATA_TYPE_FLOAT16, 4, u3, NULL);
    ix_expect_valid(&f.od, "tuples of 3");
}
END_TEST

static Suite* scatter_suite(void)
{
    Suite* s = suite_create("scatter");
    TCase* t = tcase_create("scatter");
    tcase_add_checked_fixture(t, ix_setup, ix_teardown);
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, scatter_random, 0, K_COUNT);
    tcase_add_test(t, scatter_duplicates);
    tcase_add_test(t, scatter_nd_rows_one_pass);
    tcase_add_test(t, scatter_in_place);
    tcase_add_test(t, scatter_examples);
    tcase_add_test(t, scatter_feeding_a_transpose_in_a_graph);
    tcase_add_test(t, validation_scatter_elements);
    tcase_add_test(t, validation_scatter_nd);
    suite_add_tcase(s, t);
    return s;
}

static uint32_t probe(void)
{
    h_tensor a, b, c, d;
    ix_plain_tensor(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 1);
    ix_plain_tensor(&b, DML_TENSOR_DATA_TYPE_INT32, 1);
    ix_plain_tensor(&c, DML_TENSOR_DATA_TYPE_FLOAT32, 1);
    ix_plain_tensor(&d, DML_TENSOR_DATA_TYPE_FLOAT32, 1);
    DML_SCATTER_ELEMENTS_OPERATOR_DESC e = { &a.desc, &b.desc, &c.desc, &d.desc, 0 };
    DML_SCATTER_ND_OPERATOR_DESC nd = { &a.desc, &b.desc, &c.desc, &d.desc, 1, 1 };
    const DML_OPERATOR_DESC ods[K_COUNT] = { { DML_OPERATOR_SCATTER_ELEMENTS, &e }, { DML_OPERATOR_SCATTER_ND, &nd } };
    const DML_OPERATOR_DESC* p[K_COUNT] = { &ods[0], &ods[1] };
    return ix_probe(p, KIND_NAMES, K_COUNT);
}

int main(void)
{
    printf("test_api_scatter: backend %s, seed 0x%" PRIx64 " (DML_TEST_SEED replays another)\n", h_backend(),
        ix_seed(0x5CA77Eull));
    uint32_t refused = probe();
    SRunner* sr = srunner_create(scatter_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return ix_exit_code(failed, refused, "test_api_scatter");
}
