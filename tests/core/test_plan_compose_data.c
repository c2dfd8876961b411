/*
 * Composition of the kinds that read more than one tensor (core/plan_compose.c):
 * a select (ELEMENT_WISE_IF) after or before a plain gather, and a scatter
 * (SCATTER_ELEMENTS, SCATTER_ND) reading its updates from one. The reference
 * is plan.h's semantics interpreted element by element, written out here:
 * the producer runs into an intermediate (unwritten positions hold a
 * sentinel), then the consumer; whenever dml_plan_compose says yes, the
 * composed plan alone must write the same output (a scatter's duplicate
 * targets included: its updates keep their order), reading only inside the
 * bound tensors. Conditions are random bytes, scatter indices hostile
 * (negative, past the end, INT64_MIN, UINT64_MAX).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/ops/op.h"
#include "core/plan_compose.h"
#include "core/tensor.h"

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (uint32_t)((rng_state >> 33) % n) : 0;
}

/* ---- tensors and plans -------------------------------------------------- */

typedef struct tensor {
    uint32_t sizes[8], strides[8];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tensor;

/* strides NULL: packed. */
static void tensor_init(tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t* sizes,
    const uint32_t* strides)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides)
        memcpy(t->strides, strides, rank * sizeof *strides);
    uint64_t bytes;
    ck_assert(dml_calc_buffer_tensor_size(type, rank, sizes, strides, &bytes));
    t->buffer = (DML_BUFFER_TENSOR_DESC){ type, DML_TENSOR_FLAG_NONE, rank, t->sizes, strides ? t->strides : NULL,
        (bytes + 3) & ~3ull, 0 };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

static uint64_t elements(const tensor* t, uint32_t element_size)
{
    return t->buffer.TotalTensorSizeInBytes / element_size;
}

/* Step `step` of the operator's lowering (a scatter's updates are step 1). */
static dml_plan plan_of(const DML_OPERATOR_DESC* desc, uint32_t step)
{
    dml_op* op;
    ck_assert_msg(dml_op_create(desc, &op) == DML_S_OK, "rejected: %s", dml_error_last());
    dml_lowering lowering;
    ck_assert(dml_op_lower(op, "test", &lowering) == DML_S_OK);
    ck_assert_uint_gt(lowering.count, step);
    dml_plan plan = lowering.steps[step].plan;
    dml_lowering_free(&lowering);
    dml_op_destroy(op);
    return plan;
}

/* ---- the naive interpreter of plan.h (GATHER, SELECT, SCATTER) ------------ */

typedef struct sources {
    const uint64_t* in; /* one value per element */
    uint64_t in_count;
    const uint64_t* in2;
    uint64_t in2_count;
    const void* lengths; /* condition bytes, or index elements */
    uint64_t lengths_count;
} sources;

static int64_t at(int64_t offset, const int64_t* strides, const uint64_t* c, uint32_t rank)
{
    for (uint32_t i = 0; i < rank; ++i)
        offset += (int64_t)c[i] * strides[i];
    return offset;
}

static void check_inside(const char* what, int64_t x, uint64_t count)
{
    if (x < 0 || (uint64_t)x >= count)
        ck_abort_msg("%s %lld outside [0, %llu)", what, (long long)x, (unsigned long long)count);
}

/* Component k of a scatter's index tuple resolved against its bound, or -1
 * when the update is dropped (plan.h: negatives count from the end once). */
static int64_t scatter_index(const dml_plan* p, const sources* s, int64_t x, uint32_t k)
{
    check_inside("index element", x, s->lengths_count);
    int64_t n = (int64_t)p->index_sizes[k], v;
    if (p->lengths_element_size == 8) {
        uint64_t u = ((const uint64_t*)s->lengths)[x];
        if (!p->index_signed && u >= (uint64_t)n)
            return -1;
        v = (int64_t)u;
    } else {
        uint32_t u = ((const uint32_t*)s->lengths)[x];
        v = p->index_signed ? (int64_t)(int32_t)u : (int64_t)u;
    }
    if (v < 0 && v >= -n)
        v += n;
    return v >= 0 && v < n ? v : -1;
}

static void interpret(const dml_plan* p, const sources* s, uint64_t* out, uint64_t out_count)
{
    for (uint64_t flat = 0; flat < p->element_count; ++flat) {
        uint64_t c[DML_PLAN_MAX_RANK], rest = flat; /* row-major: a scatter's order */
        for (uint32_t i = p->rank; i-- > 0;) {
            c[i] = rest % p->sizes[i];
            rest /= p->sizes[i];
        }
        int64_t src = at(p->in_offset, p->in_strides, c, p->rank), dst = at(p->out_offset, p->out_strides, c, p->rank);
        int64_t len = at(p->len_offset, p->len_strides, c, p->rank);
        const uint64_t* from = s->in;
        uint64_t from_count = s->in_count;
        if (p->kind == DML_PLAN_SELECT) {
            check_inside("condition", len, s->lengths_count);
            if (!((const uint8_t*)s->lengths)[len]) {
                src = at(p->in2_offset, p->in2_strides, c, p->rank);
                from = s->in2;
                from_count = s->in2_count;
            }
        }
        if (p->kind == DML_PLAN_SCATTER) {
            bool dropped = false;
            for (uint32_t k = 0; k < p->index_count; ++k) {
                int64_t v = scatter_index(p, s, len + (int64_t)k * p->index_step, k);
                dropped |= v < 0;
                dst += v * p->index_strides[k];
            }
            if (dropped)
                continue;
        }
        check_inside("read", src, from_count);
        check_inside("write", dst, out_count);
        out[dst] = from[src];
    }
}

#define SENTINEL UINT64_MAX

static uint64_t* values(uint64_t count, uint64_t first)
{
    uint64_t* v = malloc((count ? count : 1) * 8);
    for (uint64_t i = 0; i < count; ++i)
        v[i] = first + i;
    return v;
}

static uint8_t* random_bytes(uint64_t count)
{
    uint8_t* v = malloc(count ? count : 1);
    for (uint64_t i = 0; i < count; ++i)
        v[i] = rnd(3) ? (uint8_t)rnd(2) : (uint8_t)(1 + rnd(255));
    return v;
}

/* Index elements of `type` in [-n - 2, n + 2), hostile values among them. */
static void* random_indices(DML_TENSOR_DATA_TYPE type, uint64_t count, uint32_t n)
{
    bool wide = type == DML_TENSOR_DATA_TYPE_INT64 || type == DML_TENSOR_DATA_TYPE_UINT64;
    bool is_signed = type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
    static const uint64_t hostile[] = { 0x8000000000000000ull, UINT64_MAX, 0x7fffffffffffffffull, 0xffffffffull,
        0x80000000ull };
    void* v = calloc(count ? count : 1, 8);
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t x = rnd(10) == 0 ? hostile[rnd(5)] : (uint64_t)((int64_t)rnd(2 * n + 4) - (is_signed ? n + 2 : 0));
        if (wide)
            ((uint64_t*)v)[i] = x;
        else
            ((uint32_t*)v)[i] = (uint32_t)x;
    }
    return v;
}

/* Runs p then q (q's first input is p's output), then their composition;
 * aborts where the two differ. Returns whether they composed. */
static int run_pair(const dml_plan* p, const sources* p_src, uint64_t mid_count, const dml_plan* q,
    const sources* q_src, uint64_t out_count, dml_plan* composed_out)
{
    uint64_t* mid = malloc(mid_count * 8);
    uint64_t* expect = malloc(out_count * 8);
    uint64_t* got = malloc(out_count * 8);
    for (uint64_t i = 0; i < mid_count; ++i)
        mid[i] = SENTINEL;
    for (uint64_t i = 0; i < out_count; ++i)
        expect[i] = got[i] = SENTINEL - 1 - i;
    interpret(p, p_src, mid, mid_count);
    sources q_reads = *q_src;
    q_reads.in = mid;
    q_reads.in_count = mid_count;
    interpret(q, &q_reads, expect, out_count);

    dml_plan composed;
    dml_lengths_from from;
    int composes = dml_plan_compose(q, p, &composed, &from);
    if (composes) {
        sources fused = from == DML_LENGTHS_PRODUCER ? *p_src : *q_src;
        fused.in = p_src->in;
        fused.in_count = p_src->in_count;
        ck_assert_int_eq(from, q->kind == DML_PLAN_GATHER ? DML_LENGTHS_PRODUCER : DML_LENGTHS_CONSUMER);
        ck_assert_uint_eq(composed.kind, q->kind == DML_PLAN_GATHER ? p->kind : q->kind);
        ck_assert_uint_eq(composed.element_count, q->element_count);
        ck_assert_uint_le(composed.rank, DML_PLAN_MAX_RANK);
        interpret(&composed, &fused, got, out_count);
        for (uint64_t i = 0; i < out_count; ++i)
            if (got[i] != expect[i])
                ck_abort_msg("element %llu: composed %llu, two plans %llu", (unsigned long long)i,
                    (unsigned long long)got[i], (unsigned long long)expect[i]);
        if (composed_out)
            *composed_out = composed;
    }
    free(mid);
    free(expect);
    free(got);
    return composes;
}

/* ---- random operators --------------------------------------------------------- */

/* A random shape of rank 1..4, sizes 1..5. */
static uint32_t random_shape(uint32_t* sizes)
{
    uint32_t rank = 1 + rnd(4);
    for (uint32_t i = 0; i < rank; ++i)
        sizes[i] = 1 + rnd(5);
    return rank;
}

/* A plain gather writing `sizes` packed: a transpose (its input read through
 * a permuted packed layout), or a window of a larger input walked by steps
 * of +-1 or +-2. *in receives its input tensor. */
static dml_plan random_gather(tensor* in, uint32_t rank, const uint32_t* sizes, uint32_t type_of_elements)
{
    DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)type_of_elements;
    tensor out;
    tensor_init(&out, type, rank, sizes, NULL);
    if (rnd(2)) {
        uint32_t perm[8], strides[8], t_sizes[8];
        for (uint32_t i = 0; i < rank; ++i)
            perm[i] = i;
        for (uint32_t i = rank; i-- > 1;) {
            uint32_t j = rnd(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (uint32_t i = 0; i < rank; ++i)
            t_sizes[i] = sizes[perm[i]];
        uint32_t stride = 1, packed[8];
        for (uint32_t i = rank; i-- > 0;) {
            packed[i] = stride;
            stride *= t_sizes[i];
        }
        for (uint32_t i = 0; i < rank; ++i)
            strides[perm[i]] = packed[i];
        tensor_init(in, type, rank, sizes, strides);
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &in->desc, &out.desc, NULL };
        return plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, 0);
    }
    uint32_t in_sizes[8], offsets[8], window[8];
    int32_t steps[8];
    for (uint32_t i = 0; i < rank; ++i) {
        uint32_t step = 1 + rnd(2);
        window[i] = (sizes[i] - 1) * step + 1;
        offsets[i] = rnd(3);
        in_sizes[i] = offsets[i] + window[i] + rnd(2);
        steps[i] = rnd(2) ? (int32_t)step : -(int32_t)step;
    }
    tensor_init(in, type, rank, in_sizes, NULL);
    DML_SLICE1_OPERATOR_DESC s1 = { &in->desc, &out.desc, rank, offsets, window, steps };
    return plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &s1 }, 0);
}

/* Strides over `sizes` (packed), with a random dimension broadcast (0). */
static void broadcast_strides(uint32_t rank, const uint32_t* sizes, uint32_t* strides)
{
    uint32_t stride = 1, zero = rnd(rank + 1);
    for (uint32_t i = rank; i-- > 0;) {
        strides[i] = i == zero ? 0 : stride;
        stride *= i == zero ? 1 : sizes[i];
    }
}

/* ELEMENT_WISE_IF over `sizes`: condition and B broadcast at random, A packed. */
typedef struct select_case {
    tensor cond, a, b, out;
    dml_plan plan;
} select_case;

static void random_select(select_case* s, uint32_t rank, const uint32_t* sizes)
{
    uint32_t cond_strides[8], b_strides[8];
    broadcast_strides(rank, sizes, cond_strides);
    broadcast_strides(rank, sizes, b_strides);
    tensor_init(&s->cond, DML_TENSOR_DATA_TYPE_UINT8, rank, sizes, cond_strides);
    tensor_init(&s->a, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, NULL);
    tensor_init(&s->b, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, b_strides);
    tensor_init(&s->out, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, NULL);
    DML_ELEMENT_WISE_IF_OPERATOR_DESC d = { &s->cond.desc, &s->a.desc, &s->b.desc, &s->out.desc };
    s->plan = plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IF, &d }, 0);
    ck_assert_uint_eq(s->plan.kind, DML_PLAN_SELECT);
}

/* ---- tests ---------------------------------------------------------------- */

/* A gather (transpose, strided window) feeding a select's A input composes
 * into one select reading the gather's input; its condition and B stay. */
START_TEST(gathers_feeding_a_select_compose)
{
    rng_state = 0xC0FFEEu + (uint64_t)_i;
    uint32_t composed = 0, n = 200;
    for (uint32_t round = 0; round < n; ++round) {
        uint32_t sizes[8], rank = random_shape(sizes);
        tensor g_in;
        dml_plan g = random_gather(&g_in, rank, sizes, DML_TENSOR_DATA_TYPE_FLOAT32);
        select_case* s = malloc(sizeof *s);
        random_select(s, rank, sizes);
        uint64_t in_count = elements(&g_in, 4), mid = elements(&s->a, 4), out = elements(&s->out, 4);
        uint64_t cond_count = elements(&s->cond, 1), b_count = elements(&s->b, 4);
        uint64_t *in = values(in_count, 1000), *b = values(b_count, 500000);
        uint8_t* cond = random_bytes(cond_count);
        sources g_src = { in, in_count, NULL, 0, NULL, 0 }, s_src = { NULL, 0, b, b_count, cond, cond_count };
        dml_plan r;
        int composes = run_pair(&g, &g_src, mid, &s->plan, &s_src, out, &r);
        ck_assert_msg(composes, "round %u: a gather writing every element of A must compose", round);
        composed += (uint32_t)composes;
        free(in);
        free(b);
        free(cond);
        free(s);
    }
    ck_assert_uint_eq(composed, n);
}
END_TEST

/* A select feeding a gather composes into one select: condition, A and B
 * read where the select read them for each element the gather takes. A
 * window of its output always composes; a reinterpreting view of it (its
 * elements read through a permuted layout) when the walk stays affine. */
START_TEST(a_select_feeding_gathers_composes)
{
    rng_state = 0xBEEFu + (uint64_t)_i;
    uint32_t n = 200, views = 0, views_composed = 0;
    for (uint32_t round = 0; round < n; ++round) {
        uint32_t sizes[8], rank = random_shape(sizes);
        select_case* s = malloc(sizeof *s);
        random_select(s, rank, sizes);
        /* the consumer reads the select's packed output through a gather of
         * its shape: a transpose of it (strides permuted), or a window */
        tensor g_in;
        uint32_t g_sizes[8];
        dml_plan g;
        bool view = rnd(2);
        if (view) { /* a transpose's input layout over the select's packed output */
            memcpy(g_sizes, sizes, sizeof g_sizes);
            do
                g = random_gather(&g_in, rank, g_sizes, DML_TENSOR_DATA_TYPE_FLOAT32);
            while (g_in.buffer.TotalTensorSizeInBytes != s->out.buffer.TotalTensorSizeInBytes);
        } else {
            uint32_t offsets[8], window[8];
            int32_t steps[8];
            for (uint32_t i = 0; i < rank; ++i) {
                offsets[i] = rnd(sizes[i]);
                window[i] = 1 + rnd(sizes[i] - offsets[i]);
                steps[i] = rnd(2) ? 1 : -1;
                g_sizes[i] = window[i];
            }
            tensor g_out;
            tensor_init(&g_in, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, NULL);
            tensor_init(&g_out, DML_TENSOR_DATA_TYPE_FLOAT32, rank, g_sizes, NULL);
            DML_SLICE1_OPERATOR_DESC s1 = { &g_in.desc, &g_out.desc, rank, offsets, window, steps };
            g = plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &s1 }, 0);
        }
        uint64_t a_count = elements(&s->a, 4), mid = elements(&s->out, 4), b_count = elements(&s->b, 4);
        uint64_t cond_count = elements(&s->cond, 1), out = g.element_count;
        uint64_t *a = values(a_count, 1000), *b = values(b_count, 500000);
        uint8_t* cond = random_bytes(cond_count);
        sources s_src = { a, a_count, b, b_count, cond, cond_count }, g_src = { NULL, 0, NULL, 0, NULL, 0 };
        int composes = run_pair(&s->plan, &s_src, mid, &g, &g_src, out, NULL);
        ck_assert_msg(composes || view, "round %u: a window did not compose", round);
        views += view;
        views_composed += (uint32_t)(composes && view);
        free(a);
        free(b);
        free(cond);
        free(s);
    }
    ck_assert_msg(views_composed > views / 4, "%u of %u views composed", views_composed, views);
}
END_TEST

/* SCATTER_ELEMENTS and SCATTER_ND whose updates come from a gather compose
 * into one scatter reading the gather's input, its updates in their order
 * (a walk split where it carries keeps it): with duplicate targets the last
 * one still wins. */
START_TEST(scatters_read_gathered_updates)
{
    rng_state = 0x5CA7u + (uint64_t)_i;
    static const DML_TENSOR_DATA_TYPE index_types[] = { DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64,
        DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64 };
    uint32_t composed = 0, n = 200;
    for (uint32_t round = 0; round < n; ++round) {
        uint32_t sizes[8], rank = random_shape(sizes); /* the updates' shape */
        tensor data, indices, updates, out, g_in;
        DML_TENSOR_DATA_TYPE index_type = index_types[rnd(4)];
        dml_plan g = random_gather(&g_in, rank, sizes, DML_TENSOR_DATA_TYPE_FLOAT32), q;
        uint32_t data_sizes[8], bound;
        memcpy(data_sizes, sizes, sizeof data_sizes);
        tensor_init(&updates, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, NULL);
        uint64_t index_count;
        if (rank == 1 || rnd(2)) { /* SCATTER_ELEMENTS along a random axis of a longer data tensor */
            uint32_t axis = rnd(rank);
            data_sizes[axis] += rnd(3);
            bound = data_sizes[axis];
            tensor_init(&data, DML_TENSOR_DATA_TYPE_FLOAT32, rank, data_sizes, NULL);
            tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, rank, data_sizes, NULL);
            tensor_init(&indices, index_type, rank, sizes, NULL);
            DML_SCATTER_OPERATOR_DESC d = { &data.desc, &indices.desc, &updates.desc, &out.desc, axis };
            q = plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ELEMENTS, &d }, 1);
            index_count = g.element_count;
        } else { /* SCATTER_ND of rows: data [R, sizes[1..]], indices [sizes[0], 1] (ranks aligned: leading 1s) */
            data_sizes[0] = bound = 1 + rnd(6);
            uint32_t index_sizes[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
            index_sizes[rank - 2] = sizes[0];
            tensor_init(&data, DML_TENSOR_DATA_TYPE_FLOAT32, rank, data_sizes, NULL);
            tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, rank, data_sizes, NULL);
            tensor_init(&indices, index_type, rank, index_sizes, NULL);
            DML_SCATTER_ND_OPERATOR_DESC d = { &data.desc, &indices.desc, &updates.desc, &out.desc, rank, 2 };
            q = plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ND, &d }, 1);
            index_count = sizes[0];
        }
        ck_assert_uint_eq(q.kind, DML_PLAN_SCATTER);
        uint64_t in_count = elements(&g_in, 4), mid = elements(&updates, 4), out_count = elements(&out, 4);
        uint64_t* in = values(in_count, 1000);
        void* idx = random_indices(index_type, index_count, bound);
        sources g_src = { in, in_count, NULL, 0, NULL, 0 }, q_src = { NULL, 0, NULL, 0, idx, index_count };
        composed += (uint32_t)run_pair(&g, &g_src, mid, &q, &q_src, out_count, NULL);
        free(in);
        free(idx);
    }
    ck_assert_msg(composed == n, "%u of %u composed", composed, n);
}
END_TEST

/* A scatter never composes as a producer (its writes are data-dependent),
 * and a select never with another select, an indexed gather or a cast. */
START_TEST(data_kinds_compose_only_with_plain_gathers)
{
    rng_state = 7;
    uint32_t sizes[2] = { 3, 4 };
    select_case* s = malloc(sizeof *s);
    select_case* t = malloc(sizeof *t);
    random_select(s, 2, sizes);
    random_select(t, 2, sizes);
    dml_plan r;
    dml_lengths_from from;
    ck_assert(!dml_plan_compose(&t->plan, &s->plan, &r, &from));
    tensor data, indices, updates, out, ge_out;
    tensor_init(&data, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    tensor_init(&indices, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL);
    tensor_init(&updates, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    tensor_init(&ge_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    DML_SCATTER_OPERATOR_DESC sc = { &data.desc, &indices.desc, &updates.desc, &out.desc, 1 };
    dml_plan scatter = plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_SCATTER_ELEMENTS, &sc }, 1);
    DML_GATHER_ELEMENTS_OPERATOR_DESC ge = { &data.desc, &indices.desc, &ge_out.desc, 1 };
    dml_plan gather_elements = plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_GATHER_ELEMENTS, &ge }, 0);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &data.desc, &ge_out.desc, NULL };
    dml_plan copy = plan_of(&(DML_OPERATOR_DESC){ DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id }, 0);
    ck_assert(!dml_plan_compose(&copy, &scatter, &r, &from));
    ck_assert(!dml_plan_compose(&s->plan, &scatter, &r, &from));
    ck_assert(!dml_plan_compose(&s->plan, &gather_elements, &r, &from));
    ck_assert(!dml_plan_compose(&gather_elements, &s->plan, &r, &from));
    ck_assert(!dml_plan_compose(&scatter, &s->plan, &r, &from));
    ck_assert(dml_plan_compose(&s->plan, &copy, &r, &from));
    ck_assert(dml_plan_compose(&copy, &s->plan, &r, &from));
    ck_assert(dml_plan_compose(&scatter, &copy, &r, &from));
    free(s);
    free(t);
}
END_TEST

static Suite* compose_data_suite(void)
{
    Suite* s = suite_create("plan_compose_data");
    TCase* tc = tcase_create("compose");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, gathers_feeding_a_select_compose, 0, 2);
    tcase_add_loop_test(tc, a_select_feeding_gathers_composes, 0, 2);
    tcase_add_loop_test(tc, scatters_read_gathered_updates, 0, 2);
    tcase_add_test(tc, data_kinds_compose_only_with_plain_gathers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner* sr = srunner_create(compose_data_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
