/*
 * Plan composition (core/plan_compose.c) against a naive reference: random
 * producer and consumer operators (IDENTITY with permuted layouts, SLICE1,
 * REVERSE_SUBSEQUENCES), the consumer reading the producer's output through
 * a random view of the same elements (a reshape, a transpose, a window).
 * The reference interprets plan.h's semantics element by element: it runs the
 * producer into an intermediate (unwritten positions hold a sentinel), then
 * the consumer. Whenever dml_plan_compose says yes, the composed plan run
 * alone must write the same output, reading only inside the producer's input
 * and the lengths; it must say yes for the chains fusion exists for.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/ops/op.h"
#include "core/plan_compose.h"

uint64_t DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides)
{
    uint64_t size;
    return dml_calc_buffer_tensor_size(type, rank, sizes, strides, &size) ? size : 0;
}

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng_state >> 33) % n);
}

typedef struct tensor_spec {
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
    uint32_t sizes[8];
    uint32_t strides[8];
} tensor_spec;

static void make_tensor(tensor_spec* t, uint32_t rank, const uint32_t* sizes, const uint32_t* strides,
    DML_TENSOR_DATA_TYPE type)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides)
        memcpy(t->strides, strides, rank * sizeof *strides);
    t->buffer.DataType = type;
    t->buffer.DimensionCount = rank;
    t->buffer.Sizes = t->sizes;
    t->buffer.Strides = strides ? t->strides : NULL;
    t->buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, rank, t->sizes, t->buffer.Strides);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

/* Packed strides of the sizes in a random order (dense, maybe transposed),
 * sometimes with padding between dimensions. */
static void random_layout(uint32_t rank, const uint32_t* sizes, uint32_t* strides, int allow_padding)
{
    uint32_t order[8];
    for (uint32_t i = 0; i < rank; ++i)
        order[i] = i;
    for (uint32_t i = rank; i > 1; --i) {
        uint32_t j = rnd(i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    uint32_t stride = 1;
    for (uint32_t k = rank; k-- > 0;) {
        strides[order[k]] = stride;
        stride *= sizes[order[k]] + (allow_padding && rnd(4) == 0 ? 1 : 0);
    }
}

static uint32_t factor(uint64_t n, uint32_t* sizes)
{
    uint32_t rank = 1 + rnd(4);
    for (uint32_t i = 0; i + 1 < rank; ++i) {
        uint32_t f = 1;
        for (int tries = 0; tries < 8; ++tries) {
            uint32_t c = 1 + rnd(5);
            if (n % c == 0) {
                f = c;
                break;
            }
        }
        sizes[i] = f;
        n /= f;
    }
    sizes[rank - 1] = (uint32_t)n;
    return rank;
}

/* One operator: in -> out, kind 0 IDENTITY, 1 SLICE1, 2 REVERSE_SUBSEQUENCES. */
typedef struct op_case {
    tensor_spec in, out, len;
    uint32_t offsets[8], window[8];
    int32_t strides[8];
    DML_OPERATOR_TYPE type;
    uint32_t axis; /* REVERSE_SUBSEQUENCES */
    dml_plan plan;
} op_case;

static void make_op(op_case* c, const tensor_spec* in, int output_padding)
{
    c->in = *in;
    c->in.buffer.Sizes = c->in.sizes;
    c->in.buffer.Strides = in->buffer.Strides ? c->in.strides : NULL;
    c->in.desc.Desc = &c->in.buffer;
    uint32_t rank = in->buffer.DimensionCount, out_sizes[8], out_strides[8];
    memcpy(out_sizes, in->sizes, sizeof out_sizes);
    int kind = (int)rnd(3);
    DML_SLICE1_OPERATOR_DESC s1;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs;
    DML_OPERATOR_DESC od;
    if (kind == 1)
        for (uint32_t i = 0; i < rank; ++i) {
            c->window[i] = 1 + rnd(in->sizes[i]);
            c->offsets[i] = rnd(in->sizes[i] - c->window[i] + 1);
            int32_t step = (int32_t)(1 + rnd(rnd(3) ? 1 : 3));
            c->strides[i] = rnd(3) ? step : -step;
            out_sizes[i] = 1 + (c->window[i] - 1) / (uint32_t)step;
        }
    random_layout(rank, out_sizes, out_strides, output_padding);
    make_tensor(&c->out, rank, out_sizes, out_strides, in->buffer.DataType);
    if (kind == 0) {
        id = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &c->in.desc, &c->out.desc, NULL };
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
    } else if (kind == 1) {
        s1 = (DML_SLICE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, rank, c->offsets, c->window, c->strides };
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &s1 };
    } else {
        uint32_t axis = c->axis = rnd(rank), len_sizes[8];
        memcpy(len_sizes, in->sizes, sizeof len_sizes);
        len_sizes[axis] = 1;
        make_tensor(&c->len, rank, len_sizes, NULL, rnd(2) ? DML_TENSOR_DATA_TYPE_UINT32 : DML_TENSOR_DATA_TYPE_UINT64);
        rs = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &c->in.desc, &c->len.desc, &c->out.desc, axis };
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };
    }
    c->type = od.Type;
    DML_RESULT r = dml_plan_from_desc(&od, &c->plan);
    ck_assert_msg(r == DML_S_OK, "random op rejected: %s", dml_error_last());
}

/* ---- the naive interpreter of plan.h ------------------------------------- */

#define SENTINEL UINT64_MAX

typedef struct span {
    const uint64_t* data;
    uint64_t count;
} span;

static uint64_t read_len(const dml_plan* p, const void* lengths, uint64_t count, int64_t index)
{
    if (index < 0 || (uint64_t)index >= count)
        ck_abort_msg("lengths index %lld outside [0, %llu)", (long long)index, (unsigned long long)count);
    uint64_t v = p->lengths_element_size == 8 ? ((const uint64_t*)lengths)[index] : ((const uint32_t*)lengths)[index];
    return v < p->axis_size ? v : p->axis_size;
}

static void interpret(const dml_plan* p, span in, const void* lengths, uint64_t lengths_count, uint64_t* out,
    uint64_t out_count)
{
    for (uint64_t flat = 0; flat < p->element_count; ++flat) {
        uint64_t c[DML_PLAN_MAX_RANK], rest = flat;
        for (uint32_t i = p->rank; i-- > 0;) {
            c[i] = rest % p->sizes[i];
            rest /= p->sizes[i];
        }
        int64_t src = p->in_offset, dst = p->out_offset, len = p->len_offset;
        for (uint32_t i = 0; i < p->rank; ++i) {
            dst += (int64_t)c[i] * p->out_strides[i];
            len += (int64_t)c[i] * p->len_strides[i];
        }
        for (uint32_t i = 0; i < p->rank; ++i) {
            uint64_t coordinate = c[i];
            if (p->kind == DML_PLAN_REVERSE_SUBSEQUENCES && (int32_t)i == p->axis) {
                uint64_t L = read_len(p, lengths, lengths_count, len);
                coordinate = coordinate < L ? L - 1 - coordinate : coordinate;
            }
            src += (int64_t)coordinate * p->in_strides[i];
        }
        if (src < 0 || (uint64_t)src >= in.count)
            ck_abort_msg("read %lld outside [0, %llu)", (long long)src, (unsigned long long)in.count);
        if (dst < 0 || (uint64_t)dst >= out_count)
            ck_abort_msg("write %lld outside [0, %llu)", (long long)dst, (unsigned long long)out_count);
        out[dst] = in.data[src];
    }
}

static void* random_lengths(const op_case* c, uint64_t* count)
{
    *count = c->type == DML_OPERATOR_REVERSE_SUBSEQUENCES ? c->len.buffer.TotalTensorSizeInBytes /
            (c->len.buffer.DataType == DML_TENSOR_DATA_TYPE_UINT64 ? 8 : 4)
                                                              : 1;
    uint64_t* v = calloc(*count, 8);
    uint32_t axis_size = c->type == DML_OPERATOR_REVERSE_SUBSEQUENCES ? c->in.sizes[c->axis] : 1;
    for (uint64_t i = 0; i < *count; ++i) {
        uint64_t x = rnd(axis_size + 3);
        if (c->len.buffer.DataType == DML_TENSOR_DATA_TYPE_UINT64)
            v[i] = x;
        else
            ((uint32_t*)v)[i] = (uint32_t)x;
    }
    return v;
}

static uint64_t elements(const tensor_spec* t)
{
    return t->buffer.TotalTensorSizeInBytes / 4;
}

/* One random producer -> consumer pair; returns whether it composed. */
static int check_pair(int padding)
{
    uint32_t sizes[8], strides[8];
    uint32_t rank = factor(4 * (1 + rnd(30)), sizes);
    random_layout(rank, sizes, strides, 1);
    tensor_spec in;
    make_tensor(&in, rank, sizes, strides, DML_TENSOR_DATA_TYPE_FLOAT32);
    op_case* p = calloc(1, sizeof *p);
    op_case* q = calloc(1, sizeof *q);
    make_op(p, &in, padding);
    /* The consumer's view of the intermediate: P's output, or a reshape of its elements. */
    tensor_spec view = p->out;
    view.buffer.Sizes = view.sizes;
    view.buffer.Strides = view.strides;
    view.desc.Desc = &view.buffer;
    uint64_t count = 1;
    for (uint32_t i = 0; i < p->out.buffer.DimensionCount; ++i)
        count *= p->out.sizes[i];
    if (rnd(2)) {
        uint32_t vsizes[8], vstrides[8];
        uint32_t vrank = factor(count, vsizes);
        random_layout(vrank, vsizes, vstrides, 0);
        make_tensor(&view, vrank, vsizes, rnd(2) ? vstrides : NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    }
    make_op(q, &view, padding);

    uint64_t in_count = elements(&in), mid_count = elements(&p->out), view_count = elements(&view);
    uint64_t mid_span = mid_count > view_count ? mid_count : view_count, out_count = elements(&q->out);
    uint64_t* input = malloc(in_count * 8);
    for (uint64_t i = 0; i < in_count; ++i)
        input[i] = 1000 + i;
    uint64_t p_len_count, q_len_count;
    void* p_len = random_lengths(p, &p_len_count);
    void* q_len = random_lengths(q, &q_len_count);
    uint64_t* mid = malloc(mid_span * 8);
    uint64_t* expect = malloc(out_count * 8);
    uint64_t* got = malloc(out_count * 8);
    for (uint64_t i = 0; i < mid_span; ++i)
        mid[i] = SENTINEL;
    for (uint64_t i = 0; i < out_count; ++i)
        expect[i] = got[i] = SENTINEL - 1;
    interpret(&p->plan, (span){ input, in_count }, p_len, p_len_count, mid, mid_count);
    interpret(&q->plan, (span){ mid, mid_span }, q_len, q_len_count, expect, out_count);

    dml_plan composed;
    dml_lengths_from from;
    int composes = dml_plan_compose(&q->plan, &p->plan, &composed, &from);
    if (composes) {
        const void* len = from == DML_LENGTHS_PRODUCER ? p_len : q_len;
        uint64_t len_count = from == DML_LENGTHS_PRODUCER ? p_len_count : q_len_count;
        ck_assert(from != DML_LENGTHS_NONE || composed.kind == DML_PLAN_GATHER);
        interpret(&composed, (span){ input, in_count }, len, len_count, got, out_count);
        for (uint64_t i = 0; i < out_count; ++i)
            if (got[i] != expect[i])
                ck_abort_msg("element %llu: composed %llu, two plans %llu (producer %s, consumer %s)",
                (unsigned long long)i, (unsigned long long)got[i], (unsigned long long)expect[i],
                dml_operator_type_name(p->type), dml_operator_type_name(q->type));
    }
    free(input);
    free(p_len);
    free(q_len);
    free(mid);
    free(expect);
    free(got);
    free(p);
    free(q);
    return composes;
}

START_TEST(random_pairs_compose_exactly)
{
    rng_state = 0xC0FFEE + (uint64_t)_i * 7919;
    const char* quick = getenv("DML_TEST_QUICK");
    uint32_t composed = 0, n = quick && *quick == '1' ? 300 : 2000;
    for (uint32_t k = 0; k < n; ++k)
        composed += (uint32_t)check_pair(_i & 1);
    /* Dense intermediates must compose often; it is the point of fusion. */
    ck_assert_msg(composed > n / 4, "only %u of %u pairs composed", composed, n);
}
END_TEST

/* The chains fusion exists for compose: transpose -> slice -> reverse. */
START_TEST(transpose_slice_reverse_composes)
{
    uint32_t sizes[2] = { 4, 6 }, t_sizes[2] = { 6, 4 }, t_strides[2] = { 1, 6 }, s_sizes[2] = { 3, 4 }, l_sizes[2] = { 3, 1 };
    tensor_spec tin, tout, sin, sout, rin, rlen, rout;

    make_tensor(&tin, 2, t_sizes, t_strides, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&tout, 2, t_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&sin, 2, t_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&sout, 2, s_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&rin, 2, s_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&rlen, 2, l_sizes, NULL, DML_TENSOR_DATA_TYPE_UINT32);
    make_tensor(&rout, 2, s_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    (void)sizes;
    uint32_t offsets[2] = { 1, 0 }, window[2] = { 5, 4 };
    int32_t strides[2] = { 2, 1 };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &tin.desc, &tout.desc, NULL };
    DML_SLICE1_OPERATOR_DESC s1 = { &sin.desc, &sout.desc, 2, offsets, window, strides };
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &rin.desc, &rlen.desc, &rout.desc, 1 };
    DML_OPERATOR_DESC ods[3] = { { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, { DML_OPERATOR_SLICE1, &s1 },
        { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs } };
    dml_plan plans[3], ab, abc;
    for (int k = 0; k < 3; ++k)
        ck_assert_int_eq(dml_plan_from_desc(&ods[k], &plans[k]), DML_S_OK);
    dml_lengths_from from;
    ck_assert(dml_plan_compose(&plans[1], &plans[0], &ab, &from));
    ck_assert_int_eq(from, DML_LENGTHS_NONE);
    ck_assert(dml_plan_compose(&plans[2], &ab, &abc, &from));
    ck_assert_int_eq(from, DML_LENGTHS_CONSUMER);
    ck_assert_int_eq(abc.kind, DML_PLAN_REVERSE_SUBSEQUENCES);
    ck_assert_uint_eq(abc.element_count, 12);
    /* in[j][i] at transposed (i, j); rows 1, 3, 5: in_offset 1, strides {2, 6} after the reversal axis. */
    ck_assert_int_eq(abc.in_offset, 1);
}
END_TEST

/* Element sizes differ (a reinterpreting edge to another element size): never composed. */
START_TEST(different_element_sizes_do_not_compose)
{
    uint32_t sizes[1] = { 8 };
    tensor_spec a, b, c, d;
    make_tensor(&a, 1, sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&b, 1, sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    uint32_t bytes[1] = { 32 };
    make_tensor(&c, 1, bytes, NULL, DML_TENSOR_DATA_TYPE_UINT8);
    make_tensor(&d, 1, bytes, NULL, DML_TENSOR_DATA_TYPE_UINT8);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id0 = { &a.desc, &b.desc, NULL }, id1 = { &c.desc, &d.desc, NULL };
    DML_OPERATOR_DESC o0 = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id0 }, o1 = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id1 };
    dml_plan p0, p1, r;
    ck_assert_int_eq(dml_plan_from_desc(&o0, &p0), DML_S_OK);
    ck_assert_int_eq(dml_plan_from_desc(&o1, &p1), DML_S_OK);
    dml_lengths_from from;
    ck_assert(!dml_plan_compose(&p1, &p0, &r, &from));
}
END_TEST

static Suite* compose_suite(void)
{
    Suite* s = suite_create("plan_compose");
    TCase* tc = tcase_create("compose");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, random_pairs_compose_exactly, 0, 4);
    tcase_add_test(tc, transpose_slice_reverse_composes);
    tcase_add_test(tc, different_element_sizes_do_not_compose);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner* sr = srunner_create(compose_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
