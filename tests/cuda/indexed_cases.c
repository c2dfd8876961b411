/*
 * indexed_cases.c — random cases of the data-dependent plan kinds and their
 * naive reference (indexed_cases.h).
 */
#include "indexed_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t indexed_next(indexed_rng* r)
{
    r->s += 0x9E3779B97F4A7C15ull;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t below(indexed_rng* r, uint64_t n)
{
    return n ? indexed_next(r) % n : 0;
}

/* ---- index values ------------------------------------------------------------ */

static void put_index(unsigned char* indices, uint64_t at, uint32_t size, uint64_t value)
{
    if (size == 8)
        memcpy(indices + at * 8, &value, 8);
    else {
        const uint32_t v = (uint32_t)value;
        memcpy(indices + at * 4, &v, 4);
    }
}

/* Position p of [0, n) as an index: itself, or p - n when signed. */
static uint64_t encode(indexed_rng* r, uint64_t p, uint64_t n, uint32_t is_signed)
{
    return is_signed && below(r, 2) ? p - n : p;
}

/* A value no rule brings into [0, n): past the end, before -n, or hostile. */
static uint64_t outside(indexed_rng* r, uint64_t n, uint32_t size, uint32_t is_signed)
{
    static const uint64_t hostile64[] = { 0x8000000000000000ull, UINT64_MAX - 0, 0x7FFFFFFFFFFFFFFFull,
        0xFFFFFFFF80000000ull };
    static const uint64_t hostile32[] = { 0x80000000u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000001u };
    switch (below(r, 3)) {
    case 0: return n + below(r, 3);
    case 1:
        if (is_signed)
            return (uint64_t)0 - n - 1 - below(r, 3);
        return n + 7;
    default: {
        uint64_t v = size == 8 ? hostile64[below(r, 4)] : hostile32[below(r, 4)];
        /* UINT64_MAX and 0xFFFFFFFF are -1 when signed: in range; keep them for unsigned */
        if (is_signed && (v == UINT64_MAX || (size == 4 && v == 0xFFFFFFFFu)))
            v = size == 8 ? 0x8000000000000000ull : 0x80000000u;
        return v;
    }
    }
}

/* Any value: mostly in range (either sign), sometimes outside or hostile
 * (a gather clamps, ONE_HOT turns a sequence off). */
static uint64_t any_index(indexed_rng* r, uint64_t n, uint32_t size, uint32_t is_signed)
{
    if (below(r, 4))
        return encode(r, below(r, n), n, is_signed);
    return outside(r, n, size, is_signed);
}

/* ---- buffers ----------------------------------------------------------------- */

static unsigned char* random_bytes(indexed_rng* r, size_t bytes)
{
    unsigned char* p = malloc(bytes ? bytes : 1);
    if (p)
        for (size_t i = 0; i < bytes; ++i)
            p[i] = (unsigned char)indexed_next(r);
    return p;
}

/* One past the farthest element a set of strides reaches (non-negative strides). */
static uint64_t reach(const dml_plan* p, int64_t offset, const int64_t* strides)
{
    int64_t last = offset;
    for (uint32_t d = 0; d < p->rank; ++d)
        last += (int64_t)(p->sizes[d] - 1) * strides[d];
    return (uint64_t)last + 1;
}

static uint64_t index_reach(const dml_plan* p)
{
    uint64_t extra = 0;
    for (uint32_t k = 0; k < p->index_count; ++k)
        extra += (p->index_sizes[k] - 1) * (uint64_t)p->index_strides[k];
    return extra;
}

/* Packed strides of the output (row-major), a gap of `gap` elements after each row. */
static void packed_out(dml_plan* p, uint64_t gap)
{
    int64_t stride = 1;
    for (uint32_t d = p->rank; d-- > 0;) {
        p->out_strides[d] = stride;
        stride *= (int64_t)(p->sizes[d] + (d == p->rank - 1 ? gap : 0));
    }
}

/* Random sizes of `rank` dimensions, at most about max elements. */
static void random_sizes(dml_plan* p, uint32_t rank, uint64_t max, indexed_rng* r)
{
    p->rank = rank;
    p->element_count = 1;
    for (uint32_t d = 0; d < rank; ++d) {
        uint64_t size = d + 1 == rank ? 1 + below(r, 40) : 1 + below(r, 4);
        while (size > 1 && p->element_count * size > max)
            size--;
        p->sizes[d] = size;
        p->element_count *= size;
    }
}

static void finish_counts(dml_plan* p)
{
    p->element_count = 1;
    for (uint32_t d = 0; d < p->rank; ++d)
        p->element_count *= p->sizes[d];
}

/* ---- shapes ------------------------------------------------------------------ */

static void init_plan(dml_plan* p, uint32_t kind, uint32_t e, int index32, indexed_rng* r)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->element_size = e;
    p->axis = -1;
    p->index32 = (uint32_t)index32;
    p->lengths_element_size = kind == DML_PLAN_SELECT ? 1 : below(r, 2) ? 8 : 4;
    p->index_signed = kind != DML_PLAN_SELECT && below(r, 3) != 0;
}

/* INDEXED, any rank: affine input strides (some 0), a tuple of 1-3
 * components, indices per element or broadcast along some dimensions. */
static void make_gather(indexed_case* c, uint64_t max, indexed_rng* r)
{
    dml_plan* p = &c->plan;
    random_sizes(p, 1 + (uint32_t)below(r, 8), max, r);
    packed_out(p, below(r, 3));
    p->out_offset = (int64_t)below(r, 3);
    p->in_offset = (int64_t)below(r, 4);
    for (uint32_t d = 0; d < p->rank; ++d)
        p->in_strides[d] = (int64_t)below(r, 6);
    p->index_count = 1 + (uint32_t)below(r, 3);
    for (uint32_t k = 0; k < p->index_count; ++k) {
        p->index_sizes[k] = 1 + below(r, 6);
        p->index_strides[k] = 1 + (int64_t)below(r, 40);
    }
    /* tuples innermost (step 1) or components apart (step = tuples' span) */
    int64_t stride = p->index_count;
    for (uint32_t d = p->rank; d-- > 0;) {
        p->len_strides[d] = below(r, 4) ? stride : 0;
        stride *= (int64_t)p->sizes[d];
    }
    p->len_offset = (int64_t)below(r, 3);
    p->index_step = 1;
    snprintf(c->name, sizeof c->name, "gather rank %u tuple %u", p->rank, p->index_count);
}

/* INDEXED of rows: a table of rows `pitch` apart, each output row one
 * index tuple (1 or 2 components), the row path's shape at any alignment. */
static void make_gather_rows(indexed_case* c, uint64_t max, indexed_rng* r)
{
    dml_plan* p = &c->plan;
    const uint32_t e = p->element_size;
    const uint64_t width = (64 + below(r, 600)) / e + below(r, 3);
    const uint64_t batches = 1 + below(r, 3), rows = max / width / batches > 1 ? 1 + below(r, max / width / batches) : 1;
    p->rank = 3;
    p->sizes[0] = batches;
    p->sizes[1] = rows;
    p->sizes[2] = width;
    packed_out(p, below(r, 2) ? 0 : below(r, 5));
    p->out_offset = (int64_t)below(r, 5);
    const uint64_t pitch = width + (below(r, 2) ? 0 : below(r, 5));
    p->index_count = 1 + (uint32_t)below(r, 2);
    p->index_sizes[0] = 1 + below(r, 7);
    p->index_strides[0] = (int64_t)pitch;
    if (p->index_count == 2) {
        p->index_sizes[1] = 1 + below(r, 3);
        p->index_strides[0] = (int64_t)(pitch * p->index_sizes[1]);
        p->index_strides[1] = (int64_t)pitch;
    }
    p->in_offset = (int64_t)below(r, 5);
    p->in_strides[0] = (int64_t)(below(r, 2) ? 0 : pitch * 9); /* batches: the same table or another */
    p->len_strides[0] = (int64_t)(rows * p->index_count);
    p->len_strides[1] = (int64_t)p->index_count;
    p->index_step = 1;
    p->in_strides[2] = 1;
    if (below(r, 4) == 0) { /* GATHER of one row: rank 1 */
        p->rank = 1;
        p->sizes[0] = width;
        p->in_strides[0] = 1;
        p->len_strides[0] = 0;
        p->out_strides[0] = 1;
    }
    snprintf(c->name, sizeof c->name, "gather rows of %llu x %u bytes, tuple %u", (unsigned long long)width, e,
        p->index_count);
}

/* SCATTER of tuples into the leading k dimensions of a packed data tensor,
 * rows of the rest: distinct targets, some updates dropped. */
static void make_scatter_nd(indexed_case* c, uint64_t max, indexed_rng* r, uint64_t* data_elements)
{
    dml_plan* p = &c->plan;
    uint64_t data[4];
    const uint32_t m = 1 + (uint32_t)below(r, 4);
    uint64_t total = 1;
    for (uint32_t d = 0; d < m; ++d) {
        data[d] = d + 1 == m ? 1 + below(r, 40) : 1 + below(r, 5);
        while (data[d] > 1 && total * data[d] > max)
            data[d]--;
        total *= data[d];
    }
    const uint32_t k = 1 + (uint32_t)below(r, m < 3 ? m : 3);
    int64_t strides[4];
    int64_t stride = 1;
    for (uint32_t d = m; d-- > 0;) {
        strides[d] = stride;
        stride *= (int64_t)data[d];
    }
    uint64_t tuples = 1, row = 1;
    for (uint32_t d = 0; d < k; ++d)
        tuples *= data[d];
    for (uint32_t d = k; d < m; ++d)
        row *= data[d];
    const uint64_t kept = 1 + below(r, tuples), dropped = below(r, 4);
    p->rank = 1 + m - k;
    p->sizes[0] = kept + dropped;
    p->in_strides[0] = (int64_t)row;
    p->len_strides[0] = (int64_t)k;
    for (uint32_t d = k; d < m; ++d) {
        p->sizes[1 + d - k] = data[d];
        p->in_strides[1 + d - k] = strides[d];
        p->out_strides[1 + d - k] = strides[d];
    }
    p->index_count = k;
    p->index_step = 1;
    for (uint32_t j = 0; j < k; ++j) {
        p->index_sizes[j] = data[j];
        p->index_strides[j] = strides[j];
    }
    p->out_offset = (int64_t)below(r, 3);
    finish_counts(p);
    *data_elements = (uint64_t)p->out_offset + total + below(r, 3);
    snprintf(c->name, sizeof c->name, "scatter_nd data rank %u tuple %u, %llu kept %llu dropped", m, k,
        (unsigned long long)kept, (unsigned long long)dropped);
}

/* SCATTER along one axis (SCATTER_ELEMENTS): updates no larger than the
 * data, each line's indices distinct positions of the axis (some dropped). */
static void make_scatter_elements(indexed_case* c, uint64_t max, indexed_rng* r, uint64_t* data_elements)
{
    dml_plan* p = &c->plan;
    const uint32_t m = 1 + (uint32_t)below(r, 4), axis = (uint32_t)below(r, m);
    uint64_t data[4], total = 1;
    for (uint32_t d = 0; d < m; ++d) {
        data[d] = d + 1 == m ? 1 + below(r, 40) : 1 + below(r, 5);
        while (data[d] > 1 && total * data[d] > max)
            data[d]--;
        total *= data[d];
    }
    int64_t stride = 1, in_stride = 1;
    p->rank = m;
    for (uint32_t d = m; d-- > 0;) {
        p->sizes[d] = 1 + below(r, data[d]);
        p->out_strides[d] = d == axis ? 0 : stride;
        if (d == axis) {
            p->index_sizes[0] = data[d];
            p->index_strides[0] = stride;
        }
        p->in_strides[d] = in_stride;
        p->len_strides[d] = in_stride;
        stride *= (int64_t)data[d];
        in_stride *= (int64_t)p->sizes[d];
    }
    p->axis = -1;
    p->index_count = 1;
    p->index_step = 1;
    p->out_offset = (int64_t)below(r, 3);
    finish_counts(p);
    *data_elements = (uint64_t)p->out_offset + total;
    snprintf(c->name, sizeof c->name, "scatter_elements rank %u axis %u", m, axis);
    c->plan.pad_reserved = axis; /* the generator's note for the indices (not read by any executor) */
}

/* SELECT: each of condition, A and B packed or broadcast per dimension. */
static void make_select(indexed_case* c, uint64_t max, indexed_rng* r)
{
    dml_plan* p = &c->plan;
    random_sizes(p, 1 + (uint32_t)below(r, 8), max, r);
    packed_out(p, below(r, 2));
    int64_t sc = 1, sa = 1, sb = 1;
    for (uint32_t d = p->rank; d-- > 0;) {
        p->len_strides[d] = below(r, 4) ? sc : 0;
        p->in_strides[d] = below(r, 4) ? sa : 0;
        p->in2_strides[d] = below(r, 4) ? sb : 0;
        sc *= (int64_t)p->sizes[d];
        sa *= (int64_t)p->sizes[d];
        sb *= (int64_t)p->sizes[d];
    }
    p->len_offset = (int64_t)below(r, 3);
    p->in_offset = (int64_t)below(r, 3);
    p->in2_offset = (int64_t)below(r, 3);
    p->out_offset = (int64_t)below(r, 3);
    snprintf(c->name, sizeof c->name, "select rank %u", p->rank);
}

/* ONE_HOT: the depth on axis a (or dropped: depth 1, axis -1), an index per
 * sequence, off and on the values' elements 0 and 1 (on is the input, off
 * the second input: plan.h). */
static void make_one_hot(indexed_case* c, uint64_t max, indexed_rng* r)
{
    dml_plan* p = &c->plan;
    random_sizes(p, 1 + (uint32_t)below(r, 6), max, r);
    const uint32_t a = (uint32_t)below(r, p->rank);
    p->index_count = 1;
    p->index_sizes[0] = p->sizes[a];
    if (p->sizes[a] == 1 && below(r, 2))
        p->axis = -1; /* the builder dropped the depth */
    else
        p->axis = (int32_t)a;
    packed_out(p, below(r, 2));
    int64_t stride = 1;
    for (uint32_t d = p->rank; d-- > 0;) {
        p->len_strides[d] = d == a ? 0 : stride;
        stride *= d == a ? 1 : (int64_t)p->sizes[d];
    }
    p->len_offset = (int64_t)below(r, 3);
    p->in_offset = 1; /* on: ValuesTensor's second element */
    p->in2_offset = 0; /* off: its first */
    snprintf(c->name, sizeof c->name, "one_hot rank %u axis %d depth %llu", p->rank, p->axis,
        (unsigned long long)p->index_sizes[0]);
}

/* ---- indices of each shape --------------------------------------------------- */

static void fill_any(indexed_case* c, indexed_rng* r)
{
    const dml_plan* p = &c->plan;
    const uint32_t s = p->lengths_element_size;
    const uint64_t count = c->indices_bytes / s;
    for (uint64_t i = 0; i < count; ++i) {
        /* component k of the tuple at i (tuples are contiguous, step 1) */
        const uint64_t k = p->kind == DML_PLAN_INDEXED ? (i - (uint64_t)p->len_offset) % p->index_count : 0;
        const uint64_t n = p->index_sizes[i >= (uint64_t)p->len_offset ? k : 0];
        put_index(c->indices, i, s, any_index(r, n, s, p->index_signed));
    }
}

/* SCATTER_ND: `kept` distinct tuples then dropped ones, shuffled. */
static void fill_scatter_nd(indexed_case* c, indexed_rng* r)
{
    const dml_plan* p = &c->plan;
    const uint32_t s = p->lengths_element_size, k = p->index_count;
    uint64_t tuples = 1;
    for (uint32_t j = 0; j < k; ++j)
        tuples *= p->index_sizes[j];
    uint64_t* order = malloc(tuples * sizeof *order);
    if (!order)
        abort();
    for (uint64_t t = 0; t < tuples; ++t)
        order[t] = t;
    for (uint64_t t = tuples; t > 1; --t) {
        const uint64_t j = below(r, t), v = order[t - 1];
        order[t - 1] = order[j];
        order[j] = v;
    }
    uint64_t kept = 0;
    for (uint64_t u = 0; u < p->sizes[0]; ++u) {
        const int drop = kept == tuples || (below(r, 5) == 0 && u + 1 < p->sizes[0]);
        uint64_t id = drop ? 0 : order[kept++];
        const uint32_t bad = (uint32_t)below(r, k);
        for (uint32_t j = k; j-- > 0;) {
            const uint64_t n = p->index_sizes[j], position = id % n;
            id /= n;
            const uint64_t v = drop && j == bad ? outside(r, n, s, p->index_signed) : encode(r, position, n, p->index_signed);
            put_index(c->indices, u * k + j, s, v);
        }
    }
    free(order);
}

/* SCATTER_ELEMENTS: each line along the axis takes distinct positions. */
static void fill_scatter_elements(indexed_case* c, indexed_rng* r)
{
    const dml_plan* p = &c->plan;
    const uint32_t s = p->lengths_element_size, axis = p->pad_reserved;
    const uint64_t n = p->index_sizes[0], along = p->sizes[axis];
    uint64_t* perm = malloc(n * sizeof *perm);
    if (!perm)
        abort();
    uint64_t coordinate[DML_PLAN_MAX_RANK] = { 0 };
    for (uint64_t line = 0; line < p->element_count / along; ++line) {
        for (uint64_t t = 0; t < n; ++t)
            perm[t] = t;
        for (uint64_t t = n; t > 1; --t) {
            const uint64_t j = below(r, t), v = perm[t - 1];
            perm[t - 1] = perm[j];
            perm[j] = v;
        }
        int64_t base = 0;
        for (uint32_t d = 0; d < p->rank; ++d)
            base += (int64_t)coordinate[d] * p->len_strides[d];
        for (uint64_t j = 0; j < along; ++j) {
            const uint64_t v = below(r, 6) ? encode(r, perm[j], n, p->index_signed) : outside(r, n, s, p->index_signed);
            put_index(c->indices, (uint64_t)(base + (int64_t)j * p->len_strides[axis]), s, v);
        }
        for (uint32_t d = p->rank; d-- > 0;) { /* the next line: every coordinate but the axis */
            if (d == axis)
                continue;
            if (++coordinate[d] < p->sizes[d])
                break;
            coordinate[d] = 0;
        }
    }
    free(perm);
}

/* ---- the case ------------------------------------------------------------------ */

int indexed_case_make(indexed_case* c, indexed_shape shape, uint32_t e, int index32, uint64_t max_elements,
    indexed_rng* r)
{
    static const uint32_t kinds[SHAPE_COUNT] = { DML_PLAN_INDEXED, DML_PLAN_INDEXED, DML_PLAN_SCATTER,
        DML_PLAN_SCATTER, DML_PLAN_SELECT, DML_PLAN_ONE_HOT };
    memset(c, 0, sizeof *c);
    dml_plan* p = &c->plan;
    init_plan(p, kinds[shape], e, index32, r);
    uint64_t in_elements = 0, in2_elements = 0, index_elements = 0, out_elements = 0;
    switch (shape) {
    case SHAPE_GATHER:
    case SHAPE_GATHER_ROWS:
        if (shape == SHAPE_GATHER)
            make_gather(c, max_elements, r);
        else
            make_gather_rows(c, max_elements, r);
        finish_counts(p);
        in_elements = reach(p, p->in_offset, p->in_strides) + index_reach(p);
        index_elements = reach(p, p->len_offset, p->len_strides) + (p->index_count - 1) * (uint64_t)p->index_step;
        out_elements = reach(p, p->out_offset, p->out_strides);
        break;
    case SHAPE_SCATTER_ND:
    case SHAPE_SCATTER_ELEMENTS:
        if (shape == SHAPE_SCATTER_ND)
            make_scatter_nd(c, max_elements, r, &out_elements);
        else
            make_scatter_elements(c, max_elements, r, &out_elements);
        in_elements = reach(p, p->in_offset, p->in_strides);
        index_elements = reach(p, p->len_offset, p->len_strides) + (p->index_count - 1) * (uint64_t)p->index_step;
        break;
    case SHAPE_SELECT:
        make_select(c, max_elements, r);
        in_elements = reach(p, p->in_offset, p->in_strides);
        in2_elements = reach(p, p->in2_offset, p->in2_strides);
        index_elements = reach(p, p->len_offset, p->len_strides);
        out_elements = reach(p, p->out_offset, p->out_strides);
        break;
    default:
        make_one_hot(c, max_elements, r);
        in_elements = in2_elements = 2;
        index_elements = reach(p, p->len_offset, p->len_strides);
        out_elements = reach(p, p->out_offset, p->out_strides);
        break;
    }
    c->input_bytes = in_elements * e;
    c->input2_bytes = in2_elements * e;
    c->indices_bytes = index_elements * p->lengths_element_size;
    c->output_bytes = out_elements * e;
    c->input = random_bytes(r, c->input_bytes);
    c->indices = random_bytes(r, c->indices_bytes);
    c->initial = random_bytes(r, c->output_bytes);
    c->output = malloc(c->output_bytes ? c->output_bytes : 1);
    c->expected = malloc(c->output_bytes ? c->output_bytes : 1);
    if (shape == SHAPE_ONE_HOT)
        c->input2 = c->input; /* ValuesTensor: off, on */
    else if (in2_elements)
        c->input2 = random_bytes(r, c->input2_bytes);
    if (!c->input || !c->indices || !c->initial || !c->output || !c->expected || (in2_elements && !c->input2)) {
        indexed_case_free(c);
        return -1;
    }
    if (shape == SHAPE_SCATTER_ND)
        fill_scatter_nd(c, r);
    else if (shape == SHAPE_SCATTER_ELEMENTS)
        fill_scatter_elements(c, r);
    else if (shape == SHAPE_SELECT) {
        for (size_t i = 0; i < c->indices_bytes; ++i) /* zero and various non-zero bytes */
            c->indices[i] = below(r, 2) ? 0 : (unsigned char)(1u << below(r, 8));
    } else
        fill_any(c, r);
    c->plan.pad_reserved = 0;
    indexed_case_reset(c);
    return 0;
}

dml_plan_args indexed_case_args(const indexed_case* c)
{
    dml_plan_args a;
    memset(&a, 0, sizeof a);
    a.input = c->input;
    a.input_bytes = c->input_bytes;
    a.lengths = c->indices;
    a.lengths_bytes = c->indices_bytes;
    a.output = c->output;
    a.output_bytes = c->output_bytes;
    a.input2 = c->input2;
    a.input2_bytes = c->input2 ? c->input2_bytes : 0;
    return a;
}

void indexed_case_reset(indexed_case* c)
{
    memcpy(c->output, c->initial, c->output_bytes);
}

void indexed_case_free(indexed_case* c)
{
    if (c->input2 != c->input)
        free(c->input2);
    free(c->input);
    free(c->indices);
    free(c->initial);
    free(c->output);
    free(c->expected);
    memset(c, 0, sizeof *c);
}

/* ---- the reference ------------------------------------------------------------- */

/* An index element as a mathematical integer (__int128: no wrap). */
static __int128 index_value(const indexed_case* c, int64_t at)
{
    const dml_plan* p = &c->plan;
    if (p->lengths_element_size == 8) {
        uint64_t v;
        memcpy(&v, c->indices + at * 8, 8);
        return p->index_signed ? (__int128)(int64_t)v : (__int128)v;
    }
    uint32_t v;
    memcpy(&v, c->indices + at * 4, 4);
    return p->index_signed ? (__int128)(int32_t)v : (__int128)v;
}

/* The spec's negative rule: a negative index counts from the end. */
static __int128 from_end(__int128 v, uint64_t n)
{
    return v < 0 ? v + (__int128)n : v;
}

void indexed_case_reference(indexed_case* c)
{
    const dml_plan* p = &c->plan;
    const uint32_t e = p->element_size;
    memcpy(c->expected, c->initial, c->output_bytes);
    uint64_t co[DML_PLAN_MAX_RANK] = { 0 };
    for (uint64_t item = 0; item < p->element_count; ++item) {
        int64_t in = p->in_offset, out = p->out_offset, len = p->len_offset, in2 = p->in2_offset;
        for (uint32_t d = 0; d < p->rank; ++d) {
            in += (int64_t)co[d] * p->in_strides[d];
            out += (int64_t)co[d] * p->out_strides[d];
            len += (int64_t)co[d] * p->len_strides[d];
            in2 += (int64_t)co[d] * p->in2_strides[d];
        }
        const unsigned char* from = NULL;
        int keep = 1;
        switch (p->kind) {
        case DML_PLAN_INDEXED: /* out of range: clamped to the nearest end */
            for (uint32_t k = 0; k < p->index_count; ++k) {
                __int128 v = from_end(index_value(c, len + (int64_t)k * p->index_step), p->index_sizes[k]);
                if (v < 0)
                    v = 0;
                if (v >= (__int128)p->index_sizes[k])
                    v = (__int128)p->index_sizes[k] - 1;
                in += (int64_t)v * p->index_strides[k];
            }
            from = c->input + in * (int64_t)e;
            break;
        case DML_PLAN_SCATTER: /* out of range: dropped */
            for (uint32_t k = 0; k < p->index_count; ++k) {
                const __int128 v = from_end(index_value(c, len + (int64_t)k * p->index_step), p->index_sizes[k]);
                if (v < 0 || v >= (__int128)p->index_sizes[k])
                    keep = 0;
                else
                    out += (int64_t)v * p->index_strides[k];
            }
            from = c->input + in * (int64_t)e;
            break;
        case DML_PLAN_SELECT: from = c->indices[len] ? c->input + in * (int64_t)e : c->input2 + in2 * (int64_t)e; break;
        default: {
            const __int128 v = from_end(index_value(c, len), p->index_sizes[0]);
            const uint64_t j = p->axis >= 0 ? co[p->axis] : 0;
            const int hot = v >= 0 && v < (__int128)p->index_sizes[0] && v == (__int128)j;
            from = hot ? c->input + in * (int64_t)e : c->input2 + in2 * (int64_t)e; /* on : off */
        }
        }
        if (keep)
            memcpy(c->expected + out * (int64_t)e, from, e);
        for (uint32_t d = p->rank; d-- > 0;) { /* the odometer */
            if (++co[d] < p->sizes[d])
                break;
            co[d] = 0;
        }
    }
}
