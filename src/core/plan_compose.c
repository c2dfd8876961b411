#include "plan_compose.h"

#include <string.h>

#include "plan_build.h"

/* Splitting may add dimensions beyond the plan's before they merge back. */
#define WORK_RANK (2 * DML_PLAN_MAX_RANK)

/* One dimension of the consumer, with its input stride in the producer's digits. */
typedef struct wdim {
    uint64_t size;
    uint64_t range; /* coordinates it reaches: size, or the reversal's axis_size on the consumer's axis */
    int64_t in, out, len;
    bool is_axis;
    int64_t digit[DML_PLAN_MAX_RANK];
} wdim;

/* value = sum(digit[i] * producer out_strides[i]), outermost first, truncating. */
static bool decompose(const dml_plan* p, int64_t value, int64_t* digit)
{
    for (uint32_t i = 0; i < p->rank; ++i) {
        digit[i] = 0;
        if (p->sizes[i] == 1 || p->out_strides[i] <= 0)
            continue;
        digit[i] = value / p->out_strides[i];
        value -= digit[i] * p->out_strides[i]; /* |digit * stride| <= |value| */
    }
    return value == 0;
}

/* acc += a * b, false on overflow. */
static bool mul_add(int64_t* acc, int64_t a, int64_t b)
{
    int64_t t;
    return !__builtin_mul_overflow(a, b, &t) && !__builtin_add_overflow(*acc, t, acc);
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

/* Splits a consumer dimension that walks producer digit i with step 1 past
 * its size into (outer, sizes[i]): the outer one then walks the next digit. */
static bool split(const dml_plan* p, wdim* w, uint32_t* n, uint32_t i)
{
    if (*n == WORK_RANK)
        return false;
    uint64_t radix = p->sizes[i];
    for (uint32_t j = 0; j < *n; ++j) {
        wdim* d = &w[j];
        bool only_i = d->digit[i] == 1;
        for (uint32_t k = 0; k < p->rank && only_i; ++k)
            only_i = k == i || d->digit[k] == 0;
        if (!only_i || d->is_axis || d->size <= radix || d->size % radix)
            continue;
        wdim outer = *d;
        outer.size = outer.range = d->size / radix;
        if (__builtin_mul_overflow(d->in, (int64_t)radix, &outer.in) ||
            __builtin_mul_overflow(d->out, (int64_t)radix, &outer.out) ||
            __builtin_mul_overflow(d->len, (int64_t)radix, &outer.len) || !decompose(p, outer.in, outer.digit))
            return false;
        d->size = d->range = radix;
        w[(*n)++] = outer;
        return true;
    }
    return false;
}

bool dml_plan_compose(const dml_plan* q, const dml_plan* p, dml_plan* result, dml_lengths_from* lengths_from)
{
    bool q_reverses = q->kind == DML_PLAN_REVERSE_SUBSEQUENCES, p_reverses = p->kind == DML_PLAN_REVERSE_SUBSEQUENCES;
    if ((q->kind != DML_PLAN_GATHER && !q_reverses) || (p->kind != DML_PLAN_GATHER && !p_reverses) ||
        (q_reverses && p_reverses) || q->element_size != p->element_size)
        return false;

    int64_t base[DML_PLAN_MAX_RANK], start;
    if (__builtin_sub_overflow(q->in_offset, p->out_offset, &start) || !decompose(p, start, base))
        return false;
    wdim w[WORK_RANK];
    uint32_t n = q->rank;
    for (uint32_t j = 0; j < n; ++j) {
        bool is_axis = q_reverses && (int32_t)j == q->axis;
        w[j] = (wdim){ q->sizes[j], is_axis ? q->axis_size : q->sizes[j], q->in_strides[j], q->out_strides[j],
            q->len_strides[j], is_axis, { 0 } };
        if (!decompose(p, w[j].in, w[j].digit))
            return false;
    }
    /* Every digit in range; a split adds a dimension (at most WORK_RANK), then all are checked again. */
    for (uint32_t i = 0; i < p->rank;) {
        if (digit_in_range(p, base, w, n, i))
            ++i;
        else if (split(p, w, &n, i))
            i = 0;
        else
            return false;
    }
    if (n > DML_PLAN_MAX_RANK)
        return false;

    dml_plan r;
    memset(&r, 0, sizeof r);
    r.kind = DML_PLAN_GATHER;
    r.axis = -1;
    r.element_size = q->element_size;
    r.rank = n;
    r.out_offset = q->out_offset;
    r.in_offset = p->in_offset;
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
        if (p_axis_dim < 0) /* the consumer reads one position of the axis: it may be anywhere */
            return false;
        r.kind = DML_PLAN_REVERSE_SUBSEQUENCES;
        r.axis = p_axis_dim;
        r.axis_size = p->axis_size;
        r.lengths_element_size = p->lengths_element_size;
        r.len_offset = p->len_offset;
    } else if (q_reverses) {
        r.kind = DML_PLAN_REVERSE_SUBSEQUENCES;
        r.axis_size = q->axis_size;
        r.lengths_element_size = q->lengths_element_size;
        r.len_offset = q->len_offset;
    }
    for (uint32_t i = 0; i < p->rank; ++i) {
        if (!mul_add(&r.in_offset, base[i], p->in_strides[i]))
            return false;
        if (p_reverses && i != (uint32_t)p->axis && !mul_add(&r.len_offset, base[i], p->len_strides[i]))
            return false;
    }
    for (uint32_t j = 0; j < n; ++j) {
        r.sizes[j] = w[j].size;
        r.out_strides[j] = w[j].out;
        if (w[j].is_axis)
            r.axis = (int32_t)j;
        for (uint32_t i = 0; i < p->rank; ++i) {
            if (!mul_add(&r.in_strides[j], w[j].digit[i], p->in_strides[i]))
                return false;
            if (p_reverses && i != (uint32_t)p->axis && !mul_add(&r.len_strides[j], w[j].digit[i], p->len_strides[i]))
                return false;
        }
        if (q_reverses)
            r.len_strides[j] = w[j].len;
    }
    if (p_reverses)
        r.len_strides[p_axis_dim] = 0;
    dml_plan_normalize(&r);
    *result = r;
    *lengths_from = p_reverses ? DML_LENGTHS_PRODUCER : q_reverses ? DML_LENGTHS_CONSUMER : DML_LENGTHS_NONE;
    return true;
}
