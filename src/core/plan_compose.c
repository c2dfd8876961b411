#include "plan_compose.h"

#include <string.h>

#include "plan_build.h"

/* Splitting may add dimensions beyond the plan's before they merge back.
 * Every piece of a split has at least 2 elements and their sizes multiply to
 * the consumer's element count (below 2^64), so there are fewer than 64 and
 * this bound is never what stops a composition. */
#define WORK_RANK 64

/* Candidate digits a decode may try before giving up (only layouts whose
 * dimensions interleave have more than one candidate per digit). */
#define DECODE_BUDGET (1u << 16)

/* One dimension of the consumer, with its input stride in the producer's digits. */
typedef struct wdim {
    uint64_t size;
    uint64_t range; /* coordinates it reaches: size, or the reversal's axis_size on the consumer's axis */
    int64_t in, out, len, in2;
    bool is_axis;
    int64_t digit[DML_PLAN_MAX_RANK];
    int32_t index_k; /* an INDEXED consumer's index component k as a dimension (its values' range); else -1 */
} wdim;

/* The producer's output as a mixed-radix number: digit i has place value
 * out_strides[i] and radix sizes[i]; reach[i] is the largest offset digits
 * i.. reach together. */
typedef struct layout {
    const dml_plan* p;
    int64_t reach[DML_PLAN_MAX_RANK + 1];
} layout;

/* acc += a * b, false on overflow. */
static bool mul_add(int64_t* acc, int64_t a, int64_t b)
{
    int64_t t;
    return !__builtin_mul_overflow(a, b, &t) && !__builtin_add_overflow(*acc, t, acc);
}

static bool layout_init(layout* l, const dml_plan* p)
{
    l->p = p;
    l->reach[p->rank] = 0;
    for (uint32_t i = p->rank; i-- > 0;) {
        l->reach[i] = l->reach[i + 1];
        if (p->sizes[i] == 1)
            continue;
        if (p->out_strides[i] <= 0 || !mul_add(&l->reach[i], (int64_t)(p->sizes[i] - 1), p->out_strides[i]))
            return false;
    }
    return true;
}

/* Digits i.. of offset x, each inside its radix. The producer's output has no
 * two coordinates at one offset, so there is at most one answer; nested
 * layouts (each place value beyond what the smaller ones reach) have one
 * candidate per digit, interleaved ones are searched. */
static bool find_digits(const layout* l, uint32_t i, int64_t x, int64_t* digit, uint32_t* budget)
{
    const dml_plan* p = l->p;
    if (i == p->rank)
        return x == 0;
    digit[i] = 0;
    if (p->sizes[i] == 1)
        return find_digits(l, i + 1, x, digit, budget);
    int64_t s = p->out_strides[i], hi = x / s, lo = x > l->reach[i + 1] ? (x - l->reach[i + 1] + s - 1) / s : 0;
    if (hi > (int64_t)p->sizes[i] - 1)
        hi = (int64_t)p->sizes[i] - 1;
    for (int64_t d = hi; d >= lo; --d) {
        if (*budget == 0)
            return false;
        --*budget;
        digit[i] = d;
        if (find_digits(l, i + 1, x - d * s, digit, budget))
            return true;
    }
    return false;
}

/* The producer's coordinate of the element it wrote at offset x (relative to
 * its out_offset), or false when it wrote none there. */
static bool decode(const layout* l, int64_t x, int64_t* digit)
{
    uint32_t budget = DECODE_BUDGET;
    return x >= 0 && x <= l->reach[0] && find_digits(l, 0, x, digit, &budget);
}

/* Producer digit i stays in [0, sizes[i]) over the consumer's whole box. */
static bool digit_in_range(const dml_plan* p, const int64_t* base, const wdim* w, uint32_t n, uint32_t i)
{
    int64_t lo = base[i], hi = base[i];
    for (uint32_t j = 0; j < n; ++j) {
        int64_t d = w[j].digit[i];
        if (!mul_add(d < 0 ? &lo : &hi, d, (int64_t)(w[j].range - 1)))
            return false;
    }
    return lo >= 0 && hi < (int64_t)p->sizes[i];
}

/* How many steps of `digit` from `base` stay inside every radix (at least
 * 1, since base is inside; UINT64_MAX when the step is zero). */
static uint64_t run_length(const dml_plan* p, const int64_t* base, const int64_t* digit)
{
    uint64_t run = UINT64_MAX;
    for (uint32_t i = 0; i < p->rank; ++i) {
        int64_t v = digit[i];
        if (v == 0)
            continue;
        uint64_t room = v > 0 ? (uint64_t)((int64_t)p->sizes[i] - 1 - base[i]) / (uint64_t)v
                              : (uint64_t)base[i] / ((uint64_t)0 - (uint64_t)v);
        if (room + 1 < run)
            run = room + 1;
    }
    return run;
}

/* Writes dimension w[j]'s input stride in the producer's digits: the
 * difference between the producer's coordinates of the second element it
 * reads and of the first. If walking it leaves the producer's box after
 * `run` steps, it is split into (size / run, run): a walk that carries into
 * another digit can stay affine only when every carry happens at the same
 * step, and the first carry is at `run`. The outer part is appended at
 * w[*n], to be walked in turn, or, keeping the order of the walk (a
 * scatter's), inserted at w[j] with the rest moved up (walked next). */
static bool walk(const layout* l, int64_t start, const int64_t* base, wdim* w, uint32_t* n, uint32_t j,
    bool keep_order)
{
    wdim* d = &w[j];
    memset(d->digit, 0, sizeof d->digit);
    if (d->range < 2)
        return true;
    int64_t x = start, next[DML_PLAN_MAX_RANK];
    if (__builtin_add_overflow(x, d->in, &x) || !decode(l, x, next))
        return false; /* the consumer reads an element the producer did not write */
    for (uint32_t i = 0; i < l->p->rank; ++i)
        d->digit[i] = next[i] - base[i];
    uint64_t run = run_length(l->p, base, d->digit);
    if (run >= d->range)
        return true;
    if (d->is_axis || d->index_k >= 0 || d->size % run || *n == WORK_RANK)
        return false; /* an index component is one stride: it may not carry */
    wdim outer = *d;
    outer.size = outer.range = d->size / run;
    if (__builtin_mul_overflow(d->in, (int64_t)run, &outer.in) ||
        __builtin_mul_overflow(d->out, (int64_t)run, &outer.out) ||
        __builtin_mul_overflow(d->len, (int64_t)run, &outer.len) ||
        __builtin_mul_overflow(d->in2, (int64_t)run, &outer.in2))
        return false;
    d->size = d->range = run;
    if (keep_order) { /* a scatter's walk keeps its order: the outer part goes right before */
        memmove(&w[j + 1], &w[j], (*n - j) * sizeof *w);
        w[j] = outer;
        ++*n;
    } else {
        w[(*n)++] = outer;
    }
    return true;
}

/* One dimension of the composed gather. */
typedef struct rdim {
    uint64_t size;
    int64_t in, out, len, in2;
    bool is_axis;
} rdim;

static bool continues(int64_t outer, int64_t inner, uint64_t size)
{
    int64_t product;
    return !__builtin_mul_overflow(inner, (int64_t)size, &product) && product == outer;
}

/* Drops unit dimensions (not the axis), orders by decreasing output stride
 * (unless the order is a scatter's) and merges affine neighbours, as
 * dml_plan_normalize does, so that more than DML_PLAN_MAX_RANK split
 * dimensions can still fit a plan. */
static uint32_t squeeze(rdim* d, uint32_t n, bool keep_order)
{
    uint32_t m = 0;
    for (uint32_t j = 0; j < n; ++j)
        if (d[j].size > 1 || d[j].is_axis)
            d[m++] = d[j];
    for (uint32_t j = 1; j < m && !keep_order; ++j) {
        rdim t = d[j];
        uint32_t k = j;
        for (; k > 0 && d[k - 1].out < t.out; --k)
            d[k] = d[k - 1];
        d[k] = t;
    }
    if (m == 0)
        return 0;
    uint32_t k = 0; /* d[0..k] merged so far, outermost first; merge into the innermost */
    for (uint32_t j = 1; j < m; ++j) {
        rdim* outer = &d[k];
        const rdim* inner = &d[j];
        if (!outer->is_axis && !inner->is_axis && continues(outer->in, inner->in, inner->size) &&
            continues(outer->out, inner->out, inner->size) && continues(outer->len, inner->len, inner->size) &&
            continues(outer->in2, inner->in2, inner->size)) {
            uint64_t size = outer->size * inner->size;
            *outer = *inner;
            outer->size = size;
        } else {
            d[++k] = *inner;
        }
    }
    return k + 1;
}

/* The element size a plan reads: a cast's input has its own. */
static uint32_t input_element_size(const dml_plan* plan)
{
    return plan->kind == DML_PLAN_CAST ? plan->in_element_size : plan->element_size;
}

static bool reads_data(uint32_t kind)
{
    return kind == DML_PLAN_INDEXED || kind == DML_PLAN_SELECT || kind == DML_PLAN_SCATTER || kind == DML_PLAN_ONE_HOT;
}

/* Which kinds compose: gathers and reversals with each other (not two
 * reversals), a cast with a plain gather on either side (the result
 * converts each element once, as the cast alone did), a gather reading
 * a fill (a fill at the positions the gather reads), an indexed gather or
 * a select with a plain gather on either side, and a scatter reading its
 * updates from a plain gather. */
static bool kinds_compose(const dml_plan* q, const dml_plan* p)
{
    if (reads_data(q->kind) || reads_data(p->kind))
        return (p->kind == DML_PLAN_GATHER &&
                   (q->kind == DML_PLAN_INDEXED || q->kind == DML_PLAN_SELECT || q->kind == DML_PLAN_SCATTER)) ||
            (q->kind == DML_PLAN_GATHER && (p->kind == DML_PLAN_INDEXED || p->kind == DML_PLAN_SELECT));
    bool q_plain = q->kind == DML_PLAN_GATHER || q->kind == DML_PLAN_REVERSE_SUBSEQUENCES;
    bool p_plain = p->kind == DML_PLAN_GATHER || p->kind == DML_PLAN_REVERSE_SUBSEQUENCES;
    if (q_plain && p_plain)
        return q->kind == DML_PLAN_GATHER || p->kind == DML_PLAN_GATHER;
    return (q->kind == DML_PLAN_CAST && p->kind == DML_PLAN_GATHER) ||
        (q->kind == DML_PLAN_GATHER && (p->kind == DML_PLAN_CAST || p->kind == DML_PLAN_FILL));
}

bool dml_plan_compose(const dml_plan* q, const dml_plan* p, dml_plan* result, dml_lengths_from* lengths_from)
{
    bool q_reverses = q->kind == DML_PLAN_REVERSE_SUBSEQUENCES, p_reverses = p->kind == DML_PLAN_REVERSE_SUBSEQUENCES;
    /* A gather of a fill is a fill: its "input" positions are the sequence
     * positions, composed like any gather's. */
    bool p_fills = p->kind == DML_PLAN_FILL && q->kind == DML_PLAN_GATHER;
    if (!kinds_compose(q, p) || input_element_size(q) != p->element_size || q->rank > DML_PLAN_MAX_RANK ||
        p->rank > DML_PLAN_MAX_RANK)
        return false;

    layout l;
    int64_t base[DML_PLAN_MAX_RANK], start;
    if (!layout_init(&l, p) || __builtin_sub_overflow(q->in_offset, p->out_offset, &start) ||
        !decode(&l, start, base))
        return false;
    wdim w[WORK_RANK];
    uint32_t n = q->rank;
    for (uint32_t j = 0; j < n; ++j) {
        bool is_axis = q_reverses && (int32_t)j == q->axis;
        w[j] = (wdim){ q->sizes[j], is_axis ? q->axis_size : q->sizes[j], q->in_strides[j], q->out_strides[j],
            q->len_strides[j], q->in2_strides[j], is_axis, { 0 }, -1 };
    }
    /* An indexed consumer's index components read positions 0 ..
     * index_sizes[k] - 1 (after the clamp) at stride index_strides[k]: walked
     * as dimensions of that range, each must map to one stride of P's input. */
    const bool q_indexed = q->kind == DML_PLAN_INDEXED, p_indexed = p->kind == DML_PLAN_INDEXED;
    const bool q_selects = q->kind == DML_PLAN_SELECT, p_selects = p->kind == DML_PLAN_SELECT;
    const bool q_scatters = q->kind == DML_PLAN_SCATTER;
    for (uint32_t k = 0; q_indexed && k < q->index_count; ++k)
        w[n++] = (wdim){ q->index_sizes[k], q->index_sizes[k], q->index_strides[k], 0, 0, 0, false, { 0 }, (int32_t)k };
    /* Each dimension alone, split where it carries; then all of them together. */
    for (uint32_t j = 0; j < n;) {
        uint32_t before = n;
        if (!walk(&l, start, base, w, &n, j, q_scatters))
            return false;
        j += q_scatters && n > before ? 0 : 1; /* w[j] is now an outer part, not yet walked */
    }
    for (uint32_t i = 0; i < p->rank; ++i)
        if (!digit_in_range(p, base, w, n, i))
            return false;

    int32_t p_axis_dim = -1;
    if (p_reverses) {
        uint32_t a = (uint32_t)p->axis;
        if (base[a] != 0)
            return false;
        for (uint32_t j = 0; j < n; ++j) {
            if (w[j].digit[a] == 0)
                continue;
            if (p_axis_dim >= 0 || w[j].digit[a] != 1)
                return false;
            for (uint32_t i = 0; i < p->rank; ++i)
                if (i != a && w[j].digit[i] != 0)
                    return false;
            p_axis_dim = (int32_t)j;
        }
        if (p_axis_dim < 0) {
            /* The consumer reads position 0 of the axis only: an axis of size 1
             * reading what the producer wrote there (position L - 1). */
            if (n == WORK_RANK)
                return false;
            w[n] = (wdim){ 1, 1, 0, 0, 0, 0, false, { 0 }, -1 };
            w[n].digit[a] = 1;
            p_axis_dim = (int32_t)n++;
        }
    }

    dml_plan r;
    memset(&r, 0, sizeof r);
    r.kind = DML_PLAN_GATHER;
    r.axis = -1;
    r.element_size = q->element_size;
    const dml_plan* cast = q->kind == DML_PLAN_CAST ? q : p->kind == DML_PLAN_CAST ? p : NULL;
    if (cast) {
        r.kind = DML_PLAN_CAST;
        r.data_type = cast->data_type;
        r.in_data_type = cast->in_data_type;
        r.in_element_size = cast->in_element_size;
    }
    r.out_offset = q->out_offset;
    r.in_offset = p->in_offset;
    if (p_fills) {
        r.kind = DML_PLAN_FILL;
        r.data_type = p->data_type;
        r.fill_start = p->fill_start;
        r.fill_delta = p->fill_delta;
    }
    if (p_reverses) {
        r.kind = DML_PLAN_REVERSE_SUBSEQUENCES;
        r.axis_size = p->axis_size;
        r.lengths_element_size = p->lengths_element_size;
        r.len_offset = p->len_offset;
    } else if (q_reverses) {
        r.kind = DML_PLAN_REVERSE_SUBSEQUENCES;
        r.axis_size = q->axis_size;
        r.lengths_element_size = q->lengths_element_size;
        r.len_offset = q->len_offset;
    }
    /* A scatter's index terms are its output's: they stay as they are. */
    const dml_plan* indexed = p_indexed ? p : q_indexed || q_scatters ? q : NULL;
    if (indexed) { /* the index read and its bounds; an indexed consumer's strides below */
        r.kind = indexed->kind;
        r.lengths_element_size = indexed->lengths_element_size;
        r.index_signed = indexed->index_signed;
        r.index_count = indexed->index_count;
        r.index_step = indexed->index_step;
        memcpy(r.index_sizes, indexed->index_sizes, sizeof r.index_sizes);
        memcpy(r.index_strides, indexed->index_strides, sizeof r.index_strides);
        r.len_offset = indexed->len_offset;
    }
    const dml_plan* select = p_selects ? p : q_selects ? q : NULL;
    if (select) { /* the condition and the second input; P's are moved to its coordinates below */
        r.kind = DML_PLAN_SELECT;
        r.lengths_element_size = select->lengths_element_size;
        r.len_offset = select->len_offset;
        r.in2_offset = select->in2_offset;
    }
    /* P's lengths (a reversal's, an indexed gather's, a select's condition)
     * and a select's second input are read at P's coordinates. */
    const bool p_lengths = p_reverses || p_indexed || p_selects;
    const bool q_lengths = q_reverses || q_indexed || q_selects || q_scatters;
    for (uint32_t i = 0; i < p->rank; ++i) {
        if (!mul_add(&r.in_offset, base[i], p->in_strides[i]) ||
            (p_selects && !mul_add(&r.in2_offset, base[i], p->in2_strides[i])))
            return false;
        if (p_lengths && (int32_t)i != p->axis && !mul_add(&r.len_offset, base[i], p->len_strides[i]))
            return false;
    }
    rdim d[WORK_RANK];
    uint32_t m = 0;
    for (uint32_t j = 0; j < n; ++j) {
        int64_t in = 0, len = 0, in2 = p_selects ? 0 : w[j].in2;
        for (uint32_t i = 0; i < p->rank; ++i) {
            if (!mul_add(&in, w[j].digit[i], p->in_strides[i]) ||
                (p_selects && !mul_add(&in2, w[j].digit[i], p->in2_strides[i])))
                return false;
            if (p_lengths && (int32_t)i != p->axis && !mul_add(&len, w[j].digit[i], p->len_strides[i]))
                return false;
        }
        if (w[j].index_k >= 0) { /* Q's index component: its stride in P's input */
            r.index_strides[w[j].index_k] = in;
            continue;
        }
        d[m] = (rdim){ w[j].size, in, w[j].out, len, in2, w[j].is_axis || (int32_t)j == p_axis_dim };
        if (q_lengths)
            d[m].len = w[j].len;
        if (d[m].is_axis && p_reverses)
            d[m].len = 0;
        ++m;
    }
    n = squeeze(d, m, q_scatters);
    if (n > DML_PLAN_MAX_RANK)
        return false;
    r.rank = n;
    for (uint32_t j = 0; j < n; ++j) {
        r.sizes[j] = d[j].size;
        r.in_strides[j] = d[j].in;
        r.out_strides[j] = d[j].out;
        r.len_strides[j] = d[j].len;
        r.in2_strides[j] = d[j].in2;
        if (d[j].is_axis)
            r.axis = (int32_t)j;
    }
    dml_plan_normalize(&r);
    *result = r;
    *lengths_from = p_lengths ? DML_LENGTHS_PRODUCER : q_lengths ? DML_LENGTHS_CONSUMER : DML_LENGTHS_NONE;
    return true;
}
