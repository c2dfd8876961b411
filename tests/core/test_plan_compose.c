/*
 * Plan composition (core/plan_compose.c) against a naive reference: random
 * producer and consumer operators (IDENTITY with permuted layouts, SLICE1,
 * REVERSE_SUBSEQUENCES, GATHER_ELEMENTS with hostile indices), the consumer reading the producer's output through
 * a random view of the same elements (a reshape, a transpose, a window).
 * The reference interprets plan.h's semantics element by element: it runs the
 * producer into an intermediate (unwritten positions hold a sentinel), then
 * the consumer. Whenever dml_plan_compose says yes, the composed plan run
 * alone must write the same output, reading only inside the producer's input
 * and the lengths; it must say yes for the chains fusion exists for, and
 * for every pair of gathers whose reads are affine in the producer's
 * coordinates (an oracle worked out element by element), including issue
 * 20's: a transpose then steps of 2, -1, -2, 3 across its rows.
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

/* One operator: in -> out, kind 0 IDENTITY, 1 SLICE1, 2 REVERSE_SUBSEQUENCES
 * (-1: one of them at random), 3 SLICE1 with steps of 1, 2 and 3 alike. */
typedef struct op_case {
    tensor_spec in, out, len;
    uint32_t offsets[8], window[8];
    int32_t strides[8];
    DML_OPERATOR_TYPE type;
    uint32_t axis; /* REVERSE_SUBSEQUENCES, GATHER_ELEMENTS */
    dml_plan plan;
} op_case;

static void make_op(op_case* c, const tensor_spec* in, int output_padding, int kind)
{
    c->in = *in;
    c->in.buffer.Sizes = c->in.sizes;
    c->in.buffer.Strides = in->buffer.Strides ? c->in.strides : NULL;
    c->in.desc.Desc = &c->in.buffer;
    uint32_t rank = in->buffer.DimensionCount, out_sizes[8], out_strides[8];
    memcpy(out_sizes, in->sizes, sizeof out_sizes);
    if (kind < 0) {
        kind = (int)rnd(4);
        kind = kind == 3 ? 4 : kind;
    }
    DML_SLICE1_OPERATOR_DESC s1;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs;
    DML_GATHER_ELEMENTS_OPERATOR_DESC ge;
    DML_OPERATOR_DESC od;
    if (kind == 1 || kind == 3)
        for (uint32_t i = 0; i < rank; ++i) {
            c->window[i] = 1 + rnd(in->sizes[i]);
            c->offsets[i] = rnd(in->sizes[i] - c->window[i] + 1);
            int32_t step = (int32_t)(1 + rnd(kind == 3 || !rnd(3) ? 3 : 1));
            c->strides[i] = rnd(3) ? step : -step;
            out_sizes[i] = 1 + (c->window[i] - 1) / (uint32_t)step;
        }
    random_layout(rank, out_sizes, out_strides, output_padding);
    make_tensor(&c->out, rank, out_sizes, out_strides, in->buffer.DataType);
    if (kind == 0) {
        id = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){ &c->in.desc, &c->out.desc, NULL };
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
    } else if (kind == 1 || kind == 3) {
        s1 = (DML_SLICE1_OPERATOR_DESC){ &c->in.desc, &c->out.desc, rank, c->offsets, c->window, c->strides };
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &s1 };
    } else if (kind == 4) {
        static const DML_TENSOR_DATA_TYPE index_types[] = { DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64,
            DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64 };
        c->axis = rnd(rank);
        make_tensor(&c->len, rank, in->sizes, NULL, index_types[rnd(4)]);
        ge = (DML_GATHER_ELEMENTS_OPERATOR_DESC){ &c->in.desc, &c->len.desc, &c->out.desc, c->axis };
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ELEMENTS, &ge };
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

/* An indexed gather's component k at `index`, by plan.h's rule written out
 * here: negatives (signed types) count from the end once, then clamped. */
static uint64_t read_index(const dml_plan* p, const void* indices, uint64_t count, int64_t index, uint32_t k)
{
    uint64_t element_count = count * 8 / p->lengths_element_size;
    if (index < 0 || (uint64_t)index >= element_count)
        ck_abort_msg("index element %lld outside [0, %llu)", (long long)index, (unsigned long long)element_count);
    int64_t n = (int64_t)p->index_sizes[k], v;
    if (p->lengths_element_size == 8) {
        uint64_t u = ((const uint64_t*)indices)[index];
        if (!p->index_signed && u >= (uint64_t)n)
            return (uint64_t)n - 1;
        v = (int64_t)u;
    } else {
        uint32_t u = ((const uint32_t*)indices)[index];
        v = p->index_signed ? (int64_t)(int32_t)u : (int64_t)u;
    }
    if (v < 0 && v >= -n)
        v += n;
    return v < 0 ? 0 : v >= n ? (uint64_t)n - 1 : (uint64_t)v;
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
        for (uint32_t k = 0; p->kind == DML_PLAN_INDEXED && k < p->index_count; ++k)
            src += (int64_t)read_index(p, lengths, lengths_count, len + (int64_t)k * p->index_step, k) *
                p->index_strides[k];
        if (src < 0 || (uint64_t)src >= in.count)
            ck_abort_msg("read %lld outside [0, %llu)", (long long)src, (unsigned long long)in.count);
        if (dst < 0 || (uint64_t)dst >= out_count)
            ck_abort_msg("write %lld outside [0, %llu)", (long long)dst, (unsigned long long)out_count);
        out[dst] = in.data[src];
    }
}

/* Random indices for GATHER_ELEMENTS, hostile ones among them; *count in
 * 8-byte units. */
static void* random_indices(const op_case* op, uint64_t* count)
{
    const tensor_spec* len = &op->len;
    DML_TENSOR_DATA_TYPE type = len->buffer.DataType;
    bool wide = type == DML_TENSOR_DATA_TYPE_INT64 || type == DML_TENSOR_DATA_TYPE_UINT64;
    bool is_signed = type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
    uint64_t elements_count = len->buffer.TotalTensorSizeInBytes / (wide ? 8 : 4);
    *count = (elements_count * (wide ? 8 : 4) + 7) / 8;
    uint64_t* v = calloc(*count, 8);
    int64_t n = op->in.sizes[op->axis];
    static const uint64_t hostile[] = { 0x8000000000000000ull, UINT64_MAX, 0x7fffffffffffffffull, 0x100000000ull,
        0xffffffffull, 0x80000000ull };
    for (uint64_t i = 0; i < elements_count; ++i) {
        uint64_t x = rnd(8) == 0 ? hostile[rnd(6)] : (uint64_t)((int64_t)rnd((uint32_t)(2 * n + 4)) - (is_signed ? n + 2 : 0));
        if (wide)
            v[i] = x;
        else
            ((uint32_t*)v)[i] = (uint32_t)x;
    }
    return v;
}

/* Random lengths for an operator (one entry when it reads none). */
static void* random_lengths(const op_case* op, uint64_t* count)
{
    const tensor_spec* len = &op->len;
    if (op->type == DML_OPERATOR_GATHER_ELEMENTS)
        return random_indices(op, count);
    bool reverses = op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES;
    bool wide = reverses && len->buffer.DataType == DML_TENSOR_DATA_TYPE_UINT64;
    *count = reverses ? len->buffer.TotalTensorSizeInBytes / (wide ? 8 : 4) : 1;
    uint64_t* v = calloc(*count, 8);
    uint32_t axis_size = reverses ? op->in.sizes[op->axis] : 1;
    for (uint64_t i = 0; i < *count; ++i) {
        uint64_t x = rnd(axis_size + 3);
        if (wide)
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

/* A producer and a consumer as the harness runs them: the producer reads
 * in_count elements and writes inside mid_count; the consumer reads inside
 * mid_span (its view may be larger) and writes inside out_count. */
typedef struct pair {
    const op_case *p_op, *q_op;
    const dml_plan *p_plan, *q_plan;
    uint64_t in_count, mid_count, mid_span, out_count;
} pair;

/* Runs the producer then the consumer over the reference, and, when they
 * compose, the composed plan alone; aborts when the two write different
 * bytes. Returns whether they composed (the composed plan in *composed). */
static int run_pair(const pair* c, dml_plan* composed_out)
{
    uint64_t* input = malloc(c->in_count * 8);
    for (uint64_t i = 0; i < c->in_count; ++i)
        input[i] = 1000 + i;
    uint64_t p_len_count, q_len_count;
    void* p_len = random_lengths(c->p_op, &p_len_count);
    void* q_len = random_lengths(c->q_op, &q_len_count);
    uint64_t* mid = malloc(c->mid_span * 8);
    uint64_t* expect = malloc(c->out_count * 8);
    uint64_t* got = malloc(c->out_count * 8);
    for (uint64_t i = 0; i < c->mid_span; ++i)
        mid[i] = SENTINEL;
    for (uint64_t i = 0; i < c->out_count; ++i)
        expect[i] = got[i] = SENTINEL - 1;
    interpret(c->p_plan, (span){ input, c->in_count }, p_len, p_len_count, mid, c->mid_count);
    interpret(c->q_plan, (span){ mid, c->mid_span }, q_len, q_len_count, expect, c->out_count);

    dml_plan composed;
    dml_lengths_from from;
    int composes = dml_plan_compose(c->q_plan, c->p_plan, &composed, &from);
    if (composes) {
        const void* len = from == DML_LENGTHS_PRODUCER ? p_len : q_len;
        uint64_t len_count = from == DML_LENGTHS_PRODUCER ? p_len_count : q_len_count;
        ck_assert(from != DML_LENGTHS_NONE || composed.kind == DML_PLAN_GATHER);
        ck_assert(from == DML_LENGTHS_NONE || composed.kind == DML_PLAN_REVERSE_SUBSEQUENCES ||
            composed.kind == DML_PLAN_INDEXED);
        ck_assert_uint_ge(composed.rank, 1);
        ck_assert_uint_le(composed.rank, DML_PLAN_MAX_RANK);
        ck_assert_uint_eq(composed.element_count, c->q_plan->element_count);
        interpret(&composed, (span){ input, c->in_count }, len, len_count, got, c->out_count);
        for (uint64_t i = 0; i < c->out_count; ++i)
            if (got[i] != expect[i])
                ck_abort_msg("element %llu: composed %llu, two plans %llu (producer %s, consumer %s)",
                    (unsigned long long)i, (unsigned long long)got[i], (unsigned long long)expect[i],
                    dml_operator_type_name(c->p_op->type), dml_operator_type_name(c->q_op->type));
        if (composed_out)
            *composed_out = composed;
    }
    free(input);
    free(p_len);
    free(q_len);
    free(mid);
    free(expect);
    free(got);
    return composes;
}

/* The view of the intermediate a random consumer reads: P's output, or a
 * reshape of its elements (packed, or a transposed packed layout). */
static void random_view(const op_case* p, tensor_spec* view)
{
    *view = p->out;
    view->buffer.Sizes = view->sizes;
    view->buffer.Strides = view->strides;
    view->desc.Desc = &view->buffer;
    uint64_t count = 1;
    for (uint32_t i = 0; i < p->out.buffer.DimensionCount; ++i)
        count *= p->out.sizes[i];
    if (rnd(2)) {
        uint32_t vsizes[8], vstrides[8];
        uint32_t vrank = factor(count, vsizes);
        random_layout(vrank, vsizes, vstrides, 0);
        make_tensor(view, vrank, vsizes, rnd(2) ? vstrides : NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    }
}

static pair pair_of(const op_case* p, const op_case* q, const tensor_spec* view)
{
    uint64_t mid_count = elements(&p->out), view_count = elements(view);
    return (pair){ p, q, &p->plan, &q->plan, elements(&p->in), mid_count,
        mid_count > view_count ? mid_count : view_count, elements(&q->out) };
}

/* One random producer -> consumer pair; returns whether it composed. */
static int check_pair(int padding)
{
    uint32_t sizes[8], strides[8];
    uint32_t rank = factor(4 * (1 + rnd(30)), sizes);
    random_layout(rank, sizes, strides, 1);
    tensor_spec in, view;
    make_tensor(&in, rank, sizes, strides, DML_TENSOR_DATA_TYPE_FLOAT32);
    op_case* p = calloc(1, sizeof *p);
    op_case* q = calloc(1, sizeof *q);
    make_op(p, &in, padding, -1);
    random_view(p, &view);
    make_op(q, &view, padding, -1);
    pair c = pair_of(p, q, &view);
    int composes = run_pair(&c, NULL);
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

/* Whether the producer's coordinates of the elements a gather consumer reads
 * are an affine function of the consumer's output coordinates (its operator's
 * dimensions, before its plan merged any), every one of them written: then
 * composition is exact and dml_plan_compose must find it. Worked out
 * element by element from the operators, independently of plan_compose.c. */
static bool reads_affinely(const op_case* p, const op_case* q, uint64_t mid_span)
{
    const dml_plan* pp = &p->plan;
    int64_t* writer = malloc(mid_span * sizeof *writer); /* P's flat coordinate that wrote there, or -1 */
    for (uint64_t i = 0; i < mid_span; ++i)
        writer[i] = -1;
    for (uint64_t flat = 0; flat < pp->element_count; ++flat) {
        uint64_t rest = flat;
        int64_t dst = pp->out_offset;
        for (uint32_t i = pp->rank; i-- > 0;) {
            dst += (int64_t)(rest % pp->sizes[i]) * pp->out_strides[i];
            rest /= pp->sizes[i];
        }
        writer[dst] = (int64_t)flat;
    }
    /* The consumer is a SLICE1 of q->in (its view of the intermediate). */
    ck_assert_int_eq(q->type, DML_OPERATOR_SLICE1);
    uint32_t rank = q->out.buffer.DimensionCount;
    uint64_t count = 1, view_strides[8], packed = 1;
    for (uint32_t k = rank; k-- > 0;) {
        view_strides[k] = q->in.buffer.Strides ? q->in.strides[k] : packed;
        packed *= q->in.sizes[k];
    }
    for (uint32_t k = 0; k < rank; ++k)
        count *= q->out.sizes[k];
    /* g(c): P's coordinates of what the consumer reads at its coordinate c. */
    int64_t origin[DML_PLAN_MAX_RANK], step[DML_PLAN_MAX_RANK][DML_PLAN_MAX_RANK];
    bool affine = true;
    for (uint64_t flat = 0; flat < count && affine; ++flat) {
        uint32_t c[DML_PLAN_MAX_RANK];
        uint64_t rest = flat;
        for (uint32_t k = rank; k-- > 0;) {
            c[k] = (uint32_t)(rest % q->out.sizes[k]);
            rest /= q->out.sizes[k];
        }
        int64_t pos = 0;
        for (uint32_t k = 0; k < rank; ++k) {
            int64_t ws = q->strides[k];
            int64_t start = (int64_t)q->offsets[k] + (ws < 0 ? (int64_t)q->window[k] - 1 : 0);
            pos += (start + (int64_t)c[k] * ws) * (int64_t)view_strides[k];
        }
        if (pos < 0 || (uint64_t)pos >= mid_span || writer[pos] < 0) {
            affine = false;
            break;
        }
        int64_t g[DML_PLAN_MAX_RANK];
        uint64_t w = (uint64_t)writer[pos];
        for (uint32_t i = pp->rank; i-- > 0;) {
            g[i] = (int64_t)(w % pp->sizes[i]);
            w /= pp->sizes[i];
        }
        /* Row-major order visits 0 first, then each unit coordinate before any
         * coordinate that needs it. */
        uint32_t nonzero = 0, last = 0;
        for (uint32_t k = 0; k < rank; ++k)
            if (c[k]) {
                ++nonzero;
                last = k;
            }
        if (nonzero == 0) {
            memcpy(origin, g, sizeof g);
            continue;
        }
        if (nonzero == 1 && c[last] == 1) {
            for (uint32_t i = 0; i < pp->rank; ++i)
                step[last][i] = g[i] - origin[i];
            continue;
        }
        for (uint32_t i = 0; i < pp->rank && affine; ++i) {
            int64_t expect = origin[i];
            for (uint32_t k = 0; k < rank; ++k)
                if (c[k])
                    expect += (int64_t)c[k] * step[k][i];
            affine = expect == g[i];
        }
    }
    free(writer);
    return affine;
}

/* Random gathers of small shapes (transposes, windows with steps of +-1..3,
 * reinterpretations of the intermediate as another shape): composition is
 * exact whenever it happens, and happens whenever the consumer's reads are
 * affine in the producer's coordinates. */
START_TEST(random_gathers_compose_when_affine)
{
    rng_state = 0xFACADE + (uint64_t)_i * 104729;
    const char* quick = getenv("DML_TEST_QUICK");
    uint32_t n = quick && *quick == '1' ? 500 : 4000, composed = 0, affine = 0;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t sizes[8], strides[8];
        uint32_t rank = factor(2 * (1 + rnd(12)), sizes);
        random_layout(rank, sizes, strides, 0);
        tensor_spec in, view;
        make_tensor(&in, rank, sizes, strides, DML_TENSOR_DATA_TYPE_FLOAT32);
        op_case* p = calloc(1, sizeof *p);
        op_case* q = calloc(1, sizeof *q);
        make_op(p, &in, _i & 1, (int)rnd(2));
        random_view(p, &view);
        make_op(q, &view, 0, 3);
        pair c = pair_of(p, q, &view);
        int composes = run_pair(&c, NULL);
        bool must = reads_affinely(p, q, c.mid_span);
        if (must && !composes)
            ck_abort_msg("pair %u reads affinely but did not compose", k);
        composed += (uint32_t)composes;
        affine += must;
        free(p);
        free(q);
    }
    /* Reshapes compose beyond what is affine in the consumer's own dimensions. */
    ck_assert_msg(composed >= affine && affine > n / 4, "%u of %u pairs composed, %u affine", composed, n, affine);
}
END_TEST

static void build_op(op_case* c, int kind, uint32_t rank, const uint32_t* sizes, const uint32_t* strides,
    const uint32_t* offsets, const uint32_t* window, const int32_t* steps, uint32_t axis);

/* Producers writing through random strides of 1 to 6 (interleaved layouts,
 * where a stride does not step over what the smaller ones reach, included:
 * validation enumerates them), read flat by random windows: exact, and
 * composed whenever the reads are affine. */
START_TEST(interleaved_outputs_compose_exactly)
{
    rng_state = 0x1EAF + (uint64_t)_i * 31337;
    const char* quick = getenv("DML_TEST_QUICK");
    uint32_t n = quick && *quick == '1' ? 300 : 2000, composed = 0, interleaved = 0;
    for (uint32_t k = 0; k < n; ++k) {
        op_case* p = calloc(1, sizeof *p);
        op_case* q = calloc(1, sizeof *q);
        uint32_t rank = 2 + rnd(2), sizes[8], strides[8];
        DML_RESULT r;
        do {
            for (uint32_t i = 0; i < rank; ++i) {
                sizes[i] = 2 + rnd(3);
                strides[i] = 1 + rnd(6);
            }
            make_tensor(&p->in, rank, sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
            make_tensor(&p->out, rank, sizes, strides, DML_TENSOR_DATA_TYPE_FLOAT32);
            DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &p->in.desc, &p->out.desc, NULL };
            DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
            p->type = od.Type;
            r = dml_plan_from_desc(&od, &p->plan); /* rejects layouts writing one address twice */
        } while (r != DML_S_OK);
        for (uint32_t i = 1; i < p->plan.rank; ++i)
            if ((uint64_t)p->plan.out_strides[i - 1] <= (p->plan.sizes[i] - 1) * (uint64_t)p->plan.out_strides[i]) {
                ++interleaved;
                break;
            }
        uint32_t count = (uint32_t)elements(&p->out);
        uint32_t offset = rnd(count), window = 1 + rnd(count - offset);
        int32_t step = (int32_t)(1 + rnd(3)) * (rnd(2) ? 1 : -1);
        build_op(q, 1, 1, &count, NULL, &offset, &window, &step, 0);
        pair c = pair_of(p, q, &q->in);
        int composes = run_pair(&c, NULL);
        if (reads_affinely(p, q, c.mid_span) && !composes)
            ck_abort_msg("pair %u reads affinely but did not compose", k);
        composed += (uint32_t)composes;
        free(p);
        free(q);
    }
    ck_assert_msg(composed > n / 4 && interleaved > n / 8, "%u of %u composed, %u interleaved", composed, n, interleaved);
}
END_TEST

/* ---- chains written out ---------------------------------------------------- */

/* An operator built from explicit sizes: input sizes and strides (NULL:
 * packed); the output packed. */
static void build_op(op_case* c, int kind, uint32_t rank, const uint32_t* sizes, const uint32_t* strides,
    const uint32_t* offsets, const uint32_t* window, const int32_t* steps, uint32_t axis)
{
    memset(c, 0, sizeof *c);
    make_tensor(&c->in, rank, sizes, strides, DML_TENSOR_DATA_TYPE_FLOAT32);
    uint32_t out_sizes[8];
    memcpy(out_sizes, sizes, rank * sizeof *sizes);
    if (kind == 1)
        for (uint32_t i = 0; i < rank; ++i) {
            c->offsets[i] = offsets[i];
            c->window[i] = window[i];
            c->strides[i] = steps[i];
            out_sizes[i] = 1 + (window[i] - 1) / (uint32_t)abs(steps[i]);
        }
    make_tensor(&c->out, rank, out_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    DML_SLICE1_OPERATOR_DESC s1 = { &c->in.desc, &c->out.desc, rank, c->offsets, c->window, c->strides };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &c->in.desc, &c->out.desc, NULL };
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs;
    DML_GATHER_ELEMENTS_OPERATOR_DESC ge;
    DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
    if (kind == 4) { /* GATHER_ELEMENTS along axis, INT32 indices of the input's sizes */
        make_tensor(&c->len, rank, sizes, NULL, DML_TENSOR_DATA_TYPE_INT32);
        ge = (DML_GATHER_ELEMENTS_OPERATOR_DESC){ &c->in.desc, &c->len.desc, &c->out.desc, axis };
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ELEMENTS, &ge };
    }
    if (kind == 1)
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &s1 };
    if (kind == 2) {
        uint32_t len_sizes[8];
        memcpy(len_sizes, sizes, rank * sizeof *sizes);
        len_sizes[axis] = 1;
        make_tensor(&c->len, rank, len_sizes, NULL, DML_TENSOR_DATA_TYPE_UINT32);
        rs = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &c->in.desc, &c->len.desc, &c->out.desc, axis };
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };
    }
    c->type = od.Type;
    c->axis = axis;
    DML_RESULT r = dml_plan_from_desc(&od, &c->plan);
    ck_assert_msg(r == DML_S_OK, "op rejected: %s", dml_error_last());
}

/* Runs p then q both ways (many random lengths or indices when either reads them) and
 * checks whether they composed as expected; returns the composed plan. */
static dml_plan chain_at(const op_case* p, const op_case* q, int expect, int line)
{
    dml_plan composed;
    memset(&composed, 0, sizeof composed);
    rng_state = 0x5EED;
    for (int round = 0; round < 20; ++round) {
        pair c = pair_of(p, q, &q->in);
        int composes = run_pair(&c, &composed);
        ck_assert_msg(composes == expect, "line %d: composed: %d, expected %d", line, composes, expect);
    }
    return composed;
}
#define chain(p, q, expect) chain_at(p, q, expect, __LINE__)

/* The transpose the testers start from: in {4, 6} read as {6, 4} through
 * strides {1, 6}, written packed. */
static void transpose_4x6(op_case* p)
{
    build_op(p, 0, 2, (const uint32_t[]){ 6, 4 }, (const uint32_t[]){ 1, 6 }, NULL, NULL, NULL, 0);
}

/* SLICE1 over an intermediate of `count` elements read flat: offset, window, step. */
static void flat_slice(op_case* q, uint32_t count, uint32_t offset, uint32_t window, int32_t step)
{
    build_op(q, 1, 1, &count, NULL, &offset, &window, &step, 0);
}

/* Issue 20: transpose then SLICE1 strides {1, 2} (the consumer's plan merges
 * into one dimension of step 2 across the producer's rows). */
START_TEST(transpose_then_slice_step_2_composes)
{
    op_case* p = calloc(2, sizeof *p);
    transpose_4x6(&p[0]);
    build_op(&p[1], 1, 2, (const uint32_t[]){ 6, 4 }, NULL, (const uint32_t[]){ 0, 0 }, (const uint32_t[]){ 6, 4 },
        (const int32_t[]){ 1, 2 }, 0);
    ck_assert_uint_eq(p[1].plan.rank, 1); /* the split has to undo the merge */
    dml_plan r = chain(&p[0], &p[1], 1);
    ck_assert_int_eq(r.kind, DML_PLAN_GATHER);
    ck_assert_uint_eq(r.rank, 2);
    /* columns 0 and 2 of the transposed rows: in[0][j], in[2][j] */
    ck_assert_int_eq(r.in_offset, 0);
    ck_assert_int_eq(r.sizes[0], 6);
    ck_assert_int_eq(r.in_strides[0], 1);
    ck_assert_int_eq(r.sizes[1], 2);
    ck_assert_int_eq(r.in_strides[1], 12);
    /* and the odd columns, from offset 1 */
    build_op(&p[1], 1, 2, (const uint32_t[]){ 6, 4 }, NULL, (const uint32_t[]){ 0, 1 }, (const uint32_t[]){ 6, 3 },
        (const int32_t[]){ 1, 2 }, 0);
    chain(&p[0], &p[1], 1);
    free(p);
}
END_TEST

/* Issue 20: transpose then a flat reinterpretation read with step -1 (and -2, 2). */
START_TEST(transpose_then_flat_reversed_composes)
{
    op_case* p = calloc(2, sizeof *p);
    transpose_4x6(&p[0]);
    flat_slice(&p[1], 24, 0, 24, -1);
    dml_plan r = chain(&p[0], &p[1], 1);
    ck_assert_uint_eq(r.rank, 2);
    ck_assert_int_eq(r.in_offset, 23);
    ck_assert_int_eq(r.in_strides[0], -1);
    ck_assert_int_eq(r.in_strides[1], -6);
    flat_slice(&p[1], 24, 0, 24, -2); /* 23, 21, ...: the odd positions of each row, backwards */
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 24, 0, 23, -2); /* 22, 20, ...: the even ones */
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 24, 1, 23, 2);
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 24, 4, 16, -1); /* rows 1..4 backwards: a box inside */
    chain(&p[0], &p[1], 1);
    free(p);
}
END_TEST

/* Steps of 3, and steps that are multiples of a digit's place value. */
START_TEST(larger_steps_compose_when_they_carry_cleanly)
{
    op_case* p = calloc(2, sizeof *p);
    /* in {6, 4} transposed to {4, 6}: step 3 walks a row of 6 in 2 steps. */
    build_op(&p[0], 0, 2, (const uint32_t[]){ 4, 6 }, (const uint32_t[]){ 1, 4 }, NULL, NULL, NULL, 0);
    flat_slice(&p[1], 24, 0, 24, 3);
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 24, 2, 22, 3);
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 24, 0, 24, -3);
    chain(&p[0], &p[1], 1);
    /* Step 3 over rows of 4 carries after 2, 1, 1 steps: not affine. */
    transpose_4x6(&p[0]);
    flat_slice(&p[1], 24, 0, 24, 3);
    chain(&p[0], &p[1], 0);
    /* Step 2 over rows of 3 (in {3, 6} transposed to {6, 3}): 0, 2, then 4 = (1, 1). */
    build_op(&p[0], 0, 2, (const uint32_t[]){ 6, 3 }, (const uint32_t[]){ 1, 6 }, NULL, NULL, NULL, 0);
    flat_slice(&p[1], 18, 0, 18, 2);
    chain(&p[0], &p[1], 0);
    /* A three-digit producer {2, 3, 4} (in {4, 3, 2} reversed in order): step 4 walks
     * the middle digit, carrying into the outer one every 3 steps; step 12 the outer. */
    build_op(&p[0], 0, 3, (const uint32_t[]){ 2, 3, 4 }, (const uint32_t[]){ 1, 2, 6 }, NULL, NULL, NULL, 0);
    flat_slice(&p[1], 24, 0, 24, 4);
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 24, 0, 24, -4); /* from the last element */
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 24, 1, 23, 12);
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 24, 0, 24, 8); /* 0, 8, 16: (0, 0, 0), (0, 2, 0), (1, 1, 0) */
    chain(&p[0], &p[1], 0);
    flat_slice(&p[1], 24, 0, 24, 5); /* (0, 0, 0), (0, 1, 1), (0, 2, 2), then 15 = (1, 0, 3) */
    chain(&p[0], &p[1], 0);
    flat_slice(&p[1], 24, 0, 11, 5); /* only 3 steps: a diagonal */
    chain(&p[0], &p[1], 1);
    free(p);
}
END_TEST

/* Reversals: the consumer's (a reversed SLICE1, REVERSE_SUBSEQUENCES) and the producer's. */
START_TEST(reversals_compose_where_they_stay_one)
{
    op_case* p = calloc(2, sizeof *p);
    const uint32_t zero[2] = { 0, 0 }, whole[2] = { 6, 4 };
    transpose_4x6(&p[0]);
    /* transpose then SLICE1 strides {-1, -1}: one step of -1 over 24 after the merge */
    build_op(&p[1], 1, 2, whole, NULL, zero, whole, (const int32_t[]){ -1, -1 }, 0);
    chain(&p[0], &p[1], 1);
    build_op(&p[1], 1, 2, whole, NULL, zero, whole, (const int32_t[]){ -1, 2 }, 0);
    chain(&p[0], &p[1], 1);
    build_op(&p[1], 1, 2, whole, NULL, zero, whole, (const int32_t[]){ 1, -2 }, 0);
    chain(&p[0], &p[1], 1);
    /* transpose then REVERSE_SUBSEQUENCES on either axis */
    build_op(&p[1], 2, 2, whole, NULL, NULL, NULL, NULL, 1);
    ck_assert_int_eq(chain(&p[0], &p[1], 1).kind, DML_PLAN_REVERSE_SUBSEQUENCES);
    build_op(&p[1], 2, 2, whole, NULL, NULL, NULL, NULL, 0);
    chain(&p[0], &p[1], 1);
    /* ... on a view {3, 8}: the reversed axis spans two of the producer's rows */
    build_op(&p[1], 2, 2, (const uint32_t[]){ 3, 8 }, NULL, NULL, NULL, NULL, 1);
    chain(&p[0], &p[1], 0);
    /* ... on a view {12, 2}: the reversed axis is half a row */
    build_op(&p[1], 2, 2, (const uint32_t[]){ 12, 2 }, NULL, NULL, NULL, NULL, 1);
    chain(&p[0], &p[1], 1);

    /* REVERSE_SUBSEQUENCES producer on axis 1 of {6, 4}, read flat: splits into rows */
    build_op(&p[0], 2, 2, whole, NULL, NULL, NULL, NULL, 1);
    flat_slice(&p[1], 24, 0, 24, 1);
    ck_assert_int_eq(chain(&p[0], &p[1], 1).kind, DML_PLAN_REVERSE_SUBSEQUENCES);
    flat_slice(&p[1], 24, 0, 24, -1); /* walks the reversed axis backwards */
    chain(&p[0], &p[1], 0);
    flat_slice(&p[1], 24, 0, 24, 4); /* column 0 only: the axis reads one position */
    ck_assert_int_eq(chain(&p[0], &p[1], 1).kind, DML_PLAN_REVERSE_SUBSEQUENCES);
    flat_slice(&p[1], 24, 1, 23, 4); /* column 1 only: the reversal does not start there */
    chain(&p[0], &p[1], 0);
    flat_slice(&p[1], 24, 0, 24, 2); /* columns 0, 2: step 2 on the reversed axis */
    chain(&p[0], &p[1], 0);
    /* REVERSE_SUBSEQUENCES producer on axis 0, read flat: the outer digit walks it */
    build_op(&p[0], 2, 2, whole, NULL, NULL, NULL, NULL, 0);
    flat_slice(&p[1], 24, 0, 24, 1);
    chain(&p[0], &p[1], 1);
    /* two reversals */
    build_op(&p[1], 2, 2, whole, NULL, NULL, NULL, NULL, 1);
    chain(&p[0], &p[1], 0);
    free(p);
}
END_TEST

/* A consumer reading an element the producer did not write (a padded
 * intermediate) never composes. */
START_TEST(unwritten_reads_do_not_compose)
{
    op_case* p = calloc(2, sizeof *p);
    /* {6, 4} written with rows 5 apart: 30 elements, 6 of them never written */
    memset(&p[0], 0, sizeof p[0]);
    make_tensor(&p[0].in, 2, (const uint32_t[]){ 6, 4 }, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&p[0].out, 2, (const uint32_t[]){ 6, 4 }, (const uint32_t[]){ 5, 1 }, DML_TENSOR_DATA_TYPE_FLOAT32);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &p[0].in.desc, &p[0].out.desc, NULL };
    DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
    p[0].type = od.Type;
    ck_assert_int_eq(dml_plan_from_desc(&od, &p[0].plan), DML_S_OK);
    flat_slice(&p[1], 30, 0, 30, 1);
    chain(&p[0], &p[1], 0);
    flat_slice(&p[1], 30, 0, 29, 5); /* column 0: written */
    chain(&p[0], &p[1], 1);
    flat_slice(&p[1], 30, 4, 26, 5); /* the padding column */
    chain(&p[0], &p[1], 0);
    free(p);
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

/* PADDING's plan (DML_PLAN_PAD): its fold is not affine, so it composes
 * with nothing, on either side; a padding that folds nothing is a plain
 * gather and composes as one. Its plan: one fold per padded dimension,
 * unpadded neighbours merged, index32 decided over the folds. */
START_TEST(pad_plans_do_not_compose)
{
    uint32_t in_sizes[3] = { 2, 3, 4 }, out_sizes[3] = { 2, 5, 4 }, t_strides[3] = { 12, 1, 3 };
    uint32_t start[3] = { 0, 1, 0 }, end[3] = { 0, 1, 0 }, zero[3] = { 0, 0, 0 };
    tensor_spec a, b, c, d;
    make_tensor(&a, 3, in_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&b, 3, in_sizes, t_strides, DML_TENSOR_DATA_TYPE_FLOAT32); /* a transpose's output */
    make_tensor(&c, 3, out_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&d, 3, in_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC transpose = { &a.desc, &b.desc, NULL };
    DML_PADDING_OPERATOR_DESC pad = { &d.desc, &c.desc, DML_PADDING_MODE_REFLECTION, 0.0f, 3, start, end };
    DML_OPERATOR_DESC ot = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &transpose }, op = { DML_OPERATOR_PADDING, &pad };
    dml_plan pt, pp, r;
    ck_assert_int_eq(dml_plan_from_desc(&ot, &pt), DML_S_OK);
    ck_assert_int_eq(dml_plan_from_desc(&op, &pp), DML_S_OK);
    ck_assert_uint_eq(pp.kind, DML_PLAN_PAD);
    ck_assert_uint_eq(pp.rank, 3); /* {2, 5 folded, 4}: nothing merges across the fold */
    ck_assert_uint_eq(pp.pad_extent[1], 3);
    ck_assert_int_eq(pp.pad_origin[1], -1);
    ck_assert_uint_eq(pp.pad_extent[0] + pp.pad_extent[2], 0);
    ck_assert(pp.index32);
    dml_lengths_from from;
    ck_assert(!dml_plan_compose(&pp, &pt, &r, &from)); /* a PAD reading a transpose */
    ck_assert(!dml_plan_compose(&pt, &pp, &r, &from)); /* a gather reading a PAD */
    /* No padding: a gather, merged to one dimension, composing as any gather. */
    DML_PADDING_OPERATOR_DESC none = { &d.desc, &d.desc, DML_PADDING_MODE_SYMMETRIC, 0.0f, 3, zero, zero };
    DML_OPERATOR_DESC on = { DML_OPERATOR_PADDING, &none };
    ck_assert_int_eq(dml_plan_from_desc(&on, &pp), DML_S_OK);
    ck_assert_uint_eq(pp.kind, DML_PLAN_GATHER);
    ck_assert_uint_eq(pp.rank, 1);
    ck_assert(dml_plan_compose(&pp, &pt, &r, &from));
    /* Pads of 2^31 on a 3-element row: 64-bit indexing; the fold keeps the input's reach. */
    uint32_t big_sizes[1] = { 3u + 0x80000000u + 5u }, small[1] = { 3 }, big_start[1] = { 0x80000000u },
             big_end[1] = { 5 };
    tensor_spec e, f;
    make_tensor(&e, 1, small, NULL, DML_TENSOR_DATA_TYPE_UINT8);
    make_tensor(&f, 1, big_sizes, NULL, DML_TENSOR_DATA_TYPE_UINT8);
    DML_PADDING_OPERATOR_DESC big = { &e.desc, &f.desc, DML_PADDING_MODE_EDGE, 0.0f, 1, big_start, big_end };
    DML_OPERATOR_DESC ob = { DML_OPERATOR_PADDING, &big };
    ck_assert_int_eq(dml_plan_from_desc(&ob, &pp), DML_S_OK);
    ck_assert_uint_eq(pp.kind, DML_PLAN_PAD);
    ck_assert(!pp.index32);
    ck_assert_int_eq(pp.pad_origin[0], -(int64_t)0x80000000u);
}
END_TEST

/* A CAST composes with a plain gather on either side into one CAST whose
 * types are the cast's; two casts, or a cast whose input element size is
 * not what the producer wrote, do not. */
/* An indexed gather composes with a plain gather on either side when each
 * index component stays one stride of the other's input; never two indexed
 * gathers, nor an index walking across the producer's rows. */
START_TEST(indexed_gathers_compose_with_gathers)
{
    op_case* p = calloc(1, sizeof *p);
    op_case* q = calloc(1, sizeof *q);
    transpose_4x6(p); /* then GATHER_ELEMENTS along the transposed rows */
    build_op(q, 4, 2, (const uint32_t[]){ 6, 4 }, NULL, NULL, NULL, NULL, 1);
    ck_assert_int_eq(chain(p, q, 1).kind, DML_PLAN_INDEXED);
    build_op(q, 4, 2, (const uint32_t[]){ 6, 4 }, NULL, NULL, NULL, NULL, 0);
    ck_assert_int_eq(chain(p, q, 1).kind, DML_PLAN_INDEXED);
    /* GATHER_ELEMENTS, then a transpose of its output. */
    build_op(p, 4, 2, (const uint32_t[]){ 4, 6 }, NULL, NULL, NULL, NULL, 0);
    build_op(q, 0, 2, (const uint32_t[]){ 6, 4 }, (const uint32_t[]){ 1, 6 }, NULL, NULL, NULL, 0);
    ck_assert_int_eq(chain(p, q, 1).kind, DML_PLAN_INDEXED);
    /* ... then a reversed window of it, read flat. */
    flat_slice(q, 24, 1, 23, -2);
    ck_assert_int_eq(chain(p, q, 1).kind, DML_PLAN_INDEXED);
    /* Two indexed gathers: materialised. */
    build_op(q, 4, 2, (const uint32_t[]){ 4, 6 }, NULL, NULL, NULL, NULL, 1);
    chain(p, q, 0);
    /* An index over the transpose's 24 elements read flat carries across its rows. */
    transpose_4x6(p);
    build_op(q, 4, 1, (const uint32_t[]){ 24 }, NULL, NULL, NULL, NULL, 0);
    chain(p, q, 0);
    free(p);
    free(q);
}
END_TEST

START_TEST(casts_compose_with_gathers)
{
    uint32_t sizes[2] = { 4, 6 }, t_sizes[2] = { 6, 4 }, t_strides[2] = { 1, 6 };
    tensor_spec x, t, f32, f16, f16b, f64;
    make_tensor(&x, 2, t_sizes, t_strides, DML_TENSOR_DATA_TYPE_FLOAT32); /* x read transposed */
    make_tensor(&t, 2, t_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&f32, 2, t_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT32);
    make_tensor(&f16, 2, t_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT16);
    make_tensor(&f16b, 2, t_sizes, t_strides, DML_TENSOR_DATA_TYPE_FLOAT16);
    make_tensor(&f64, 2, t_sizes, NULL, DML_TENSOR_DATA_TYPE_FLOAT64);
    (void)sizes;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC transpose = { &x.desc, &t.desc, NULL };
    DML_CAST_OPERATOR_DESC to_half = { &f32.desc, &f16.desc }, to_double = { &f16.desc, &f64.desc };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC half_transpose = { &f16b.desc, &f16.desc, NULL };
    DML_OPERATOR_DESC o_t = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &transpose }, o_h = { DML_OPERATOR_CAST, &to_half },
                      o_d = { DML_OPERATOR_CAST, &to_double }, o_ht = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &half_transpose };
    dml_plan pt, ph, pd, pht, r;
    ck_assert_int_eq(dml_plan_from_desc(&o_t, &pt), DML_S_OK);
    ck_assert_int_eq(dml_plan_from_desc(&o_h, &ph), DML_S_OK);
    ck_assert_int_eq(dml_plan_from_desc(&o_d, &pd), DML_S_OK);
    ck_assert_int_eq(dml_plan_from_desc(&o_ht, &pht), DML_S_OK);
    ck_assert_uint_eq(ph.kind, DML_PLAN_CAST);
    dml_lengths_from from;
    /* gather -> cast: reads x transposed, converts */
    ck_assert(dml_plan_compose(&ph, &pt, &r, &from));
    ck_assert_uint_eq(r.kind, DML_PLAN_CAST);
    ck_assert_uint_eq(r.data_type, DML_TENSOR_DATA_TYPE_FLOAT16);
    ck_assert_uint_eq(r.in_data_type, DML_TENSOR_DATA_TYPE_FLOAT32);
    ck_assert_uint_eq(r.element_size, 2);
    ck_assert_uint_eq(r.in_element_size, 4);
    ck_assert_int_eq(r.rank, 2);
    ck_assert_int_eq(r.in_strides[0] + r.in_strides[1], 7); /* {1, 6} in some order */
    /* cast -> gather: converts, then the float16 transpose */
    ck_assert(dml_plan_compose(&pht, &ph, &r, &from));
    ck_assert_uint_eq(r.kind, DML_PLAN_CAST);
    ck_assert_uint_eq(r.element_size, 2);
    ck_assert_uint_eq(r.in_element_size, 4);
    /* two casts never; a float32 gather feeding a float16 cast's input is a size mismatch */
    ck_assert(!dml_plan_compose(&pd, &ph, &r, &from));
    ck_assert(!dml_plan_compose(&pd, &pt, &r, &from));
}
END_TEST

static Suite* compose_suite(void)
{
    Suite* s = suite_create("plan_compose");
    TCase* tc = tcase_create("compose");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, random_pairs_compose_exactly, 0, 4);
    tcase_add_loop_test(tc, random_gathers_compose_when_affine, 0, 4);
    tcase_add_loop_test(tc, interleaved_outputs_compose_exactly, 0, 2);
    tcase_add_test(tc, transpose_then_slice_step_2_composes);
    tcase_add_test(tc, transpose_then_flat_reversed_composes);
    tcase_add_test(tc, larger_steps_compose_when_they_carry_cleanly);
    tcase_add_test(tc, reversals_compose_where_they_stay_one);
    tcase_add_test(tc, unwritten_reads_do_not_compose);
    tcase_add_test(tc, transpose_slice_reverse_composes);
    tcase_add_test(tc, pad_plans_do_not_compose);
    tcase_add_test(tc, casts_compose_with_gathers);
    tcase_add_test(tc, indexed_gathers_compose_with_gathers);
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
