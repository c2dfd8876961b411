/* cpu_test_util.c — see cpu_test_util.h. Deliberately naive. */
#include "cpu_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t rng_next(rng* r)
{
    /* splitmix64: good enough and reproducible */
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t rng_range(rng* r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

static void* alloc_bytes(size_t bytes)
{
    size_t rounded = (bytes + 63) / 64 * 64;
    void* p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p)
        abort();
    return p;
}

static void random_sizes(rng* r, uint32_t rank, uint64_t max_elements, uint64_t* sizes)
{
    for (uint32_t d = 0; d < rank; d++) {
        int64_t cap = rank == 1 ? 300 : rank <= 3 ? 40 : 6;
        if (d == rank - 1 && rank > 1)
            cap = rng_range(r, 0, 3) == 0 ? 200 : 24; /* sometimes long rows */
        sizes[d] = (uint64_t)rng_range(r, 1, cap);
    }
    for (;;) {
        uint64_t product = 1;
        uint32_t largest = 0;
        for (uint32_t d = 0; d < rank; d++) {
            product *= sizes[d];
            if (sizes[d] > sizes[largest])
                largest = d;
        }
        if (product <= max_elements)
            return;
        sizes[largest] = (sizes[largest] + 1) / 2;
    }
}

/* Row-major strides over dimensions taken in `order` (outermost first),
 * with optional gaps. */
static void ordered_strides(rng* r, uint32_t rank, const uint64_t* sizes, const uint32_t* order, int gaps,
    int64_t* strides)
{
    int64_t stride = gaps ? rng_range(r, 1, 2) : 1;
    for (int k = (int)rank - 1; k >= 0; k--) {
        uint32_t d = order[k];
        strides[d] = stride;
        stride = stride * (int64_t)sizes[d] + (gaps ? rng_range(r, 0, 3) : 0);
    }
}

static void make_strides(rng* r, layout how, uint32_t rank, const uint64_t* sizes, int64_t* strides)
{
    uint32_t order[DML_PLAN_MAX_RANK];
    for (uint32_t d = 0; d < rank; d++)
        order[d] = d;
    switch (how) {
    case LAYOUT_PACKED:
    case LAYOUT_REVERSED:
    case LAYOUT_BROADCAST:
        ordered_strides(r, rank, sizes, order, 0, strides);
        if (how == LAYOUT_REVERSED)
            strides[rank - 1] = -1;
        if (how == LAYOUT_BROADCAST)
            strides[rank - 1] = 0;
        break;
    case LAYOUT_PADDED:
        ordered_strides(r, rank, sizes, order, 1, strides);
        break;
    case LAYOUT_PERMUTED:
        for (uint32_t d = rank; d > 1; d--) {
            uint32_t k = (uint32_t)rng_range(r, 0, d - 1), tmp = order[d - 1];
            order[d - 1] = order[k];
            order[k] = tmp;
        }
        ordered_strides(r, rank, sizes, order, 1, strides);
        break;
    case LAYOUT_NEGATIVE:
        ordered_strides(r, rank, sizes, order, 0, strides);
        for (uint32_t d = 0; d < rank; d++)
            if (rng_range(r, 0, 1))
                strides[d] = -strides[d];
        break;
    case LAYOUT_RANDOM:
        for (uint32_t d = 0; d < rank; d++)
            strides[d] = rng_range(r, -5, 5);
        break;
    }
}

/* Offset making every address >= pad, and the element count the buffer needs. */
static uint64_t place(rng* r, uint32_t rank, const uint64_t* sizes, const int64_t* strides, int64_t* offset)
{
    int64_t lo = 0, hi = 0;
    for (uint32_t d = 0; d < rank; d++) {
        int64_t span = (int64_t)(sizes[d] - 1) * strides[d];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    *offset = -lo + rng_range(r, 0, 3);
    return (uint64_t)(*offset + hi + 1 + rng_range(r, 0, 3));
}

static uint64_t random_length(rng* r, uint64_t axis_size, uint32_t element_size)
{
    switch (rng_range(r, 0, 9)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return axis_size;
    case 3: return axis_size + (uint64_t)rng_range(r, 1, 5);
    case 4: return element_size == 8 ? UINT64_MAX : UINT32_MAX;
    case 5: return element_size == 8 ? ((uint64_t)1 << 32) + 1 : axis_size - 1; /* high bits count */
    default: return (uint64_t)rng_range(r, 0, (int64_t)axis_size);
    }
}

void case_make(test_case* t, rng* r, const case_spec* spec)
{
    memset(t, 0, sizeof(*t));
    dml_plan* p = &t->plan;
    p->kind = spec->kind;
    p->rank = spec->rank;
    p->element_size = spec->element_size;
    p->axis = -1;
    if (spec->sizes)
        memcpy(p->sizes, spec->sizes, spec->rank * sizeof(uint64_t));
    else
        random_sizes(r, spec->rank, spec->max_elements ? spec->max_elements : 4096, p->sizes);
    p->element_count = 1;
    for (uint32_t d = 0; d < p->rank; d++)
        p->element_count *= p->sizes[d];
    p->index32 = 0;

    make_strides(r, spec->out_layout, p->rank, p->sizes, p->out_strides);
    make_strides(r, spec->in_layout, p->rank, p->sizes, p->in_strides);
    if (spec->in_strides)
        memcpy(p->in_strides, spec->in_strides, spec->rank * sizeof(int64_t));
    uint64_t out_elements = place(r, p->rank, p->sizes, p->out_strides, &p->out_offset);
    uint64_t in_elements = place(r, p->rank, p->sizes, p->in_strides, &p->in_offset);
    t->output_bytes = out_elements * p->element_size;
    t->input_bytes = in_elements * p->element_size;

    if (p->kind == DML_PLAN_REVERSE_SUBSEQUENCES) {
        p->axis = spec->axis >= 0 ? spec->axis : (int32_t)rng_range(r, 0, p->rank - 1);
        p->axis_size = p->sizes[p->axis];
        p->lengths_element_size = spec->lengths_element_size;
        uint64_t len_sizes[DML_PLAN_MAX_RANK];
        memcpy(len_sizes, p->sizes, sizeof(len_sizes));
        len_sizes[p->axis] = 1;
        make_strides(r, rng_range(r, 0, 2) ? LAYOUT_PACKED : LAYOUT_NEGATIVE, p->rank, len_sizes, p->len_strides);
        const uint32_t inner = p->rank - 1;
        for (uint32_t d = 0; d < p->rank; d++)
            if (spec->len_inner == 2 && rng_range(r, 0, 3) == 0)
                p->len_strides[d] = 0; /* broadcast lengths */
        if (spec->len_inner == 0)
            p->len_strides[inner] = 0;
        if (spec->len_inner == 1 && p->len_strides[inner] == 0 && (int32_t)inner != p->axis)
            p->len_strides[inner] = 1;
        p->len_strides[p->axis] = 0;
        uint64_t len_elements = place(r, p->rank, len_sizes, p->len_strides, &p->len_offset);
        t->lengths_bytes = len_elements * p->lengths_element_size;
        t->lengths = alloc_bytes(t->lengths_bytes);
        for (uint64_t i = 0; i < len_elements; i++) {
            uint64_t value = spec->length_value_count ? spec->length_values[i % spec->length_value_count]
                                                      : random_length(r, p->axis_size, p->lengths_element_size);
            if (p->lengths_element_size == 8)
                ((uint64_t*)t->lengths)[i] = value;
            else
                ((uint32_t*)t->lengths)[i] = (uint32_t)value;
        }
    }

    t->input = alloc_bytes(t->input_bytes);
    t->output = alloc_bytes(t->output_bytes);
    t->expected = alloc_bytes(t->output_bytes);
    t->sentinel = alloc_bytes(t->output_bytes);
    for (size_t i = 0; i < t->input_bytes; i++)
        t->input[i] = (uint8_t)rng_next(r);
    for (size_t i = 0; i < t->output_bytes; i++)
        t->sentinel[i] = (uint8_t)(0xA5 ^ (i * 7));
    memcpy(t->expected, t->sentinel, t->output_bytes);
    case_reset_output(t);

    dml_plan_args args = case_args(t);
    args.output = t->expected;
    reference_execute(p, &args, t->output_bytes, t->input_bytes);
}

void case_free(test_case* t)
{
    free(t->input);
    free(t->output);
    free(t->expected);
    free(t->sentinel);
    free(t->lengths);
    memset(t, 0, sizeof(*t));
}

void case_reset_output(test_case* t)
{
    memcpy(t->output, t->sentinel, t->output_bytes);
}

dml_plan_args case_args(const test_case* t)
{
    dml_plan_args args = { t->input, t->lengths, t->output, t->input_bytes, t->lengths_bytes, t->output_bytes, NULL, 0 };
    return args;
}

void reference_execute(const dml_plan* p, const dml_plan_args* args, size_t output_bytes, size_t input_bytes)
{
    const int64_t e = p->element_size;
    for (uint64_t index = 0; index < p->element_count; index++) {
        uint64_t c[DML_PLAN_MAX_RANK], rest = index;
        for (int d = (int)p->rank - 1; d >= 0; d--) {
            c[d] = rest % p->sizes[d];
            rest /= p->sizes[d];
        }
        int64_t in = p->in_offset, out = p->out_offset, len = p->len_offset;
        for (uint32_t d = 0; d < p->rank; d++) {
            in += (int64_t)c[d] * p->in_strides[d];
            out += (int64_t)c[d] * p->out_strides[d];
            len += (int64_t)c[d] * p->len_strides[d];
        }
        if (p->kind == DML_PLAN_REVERSE_SUBSEQUENCES) {
            uint64_t L = dml_plan_read_length(p, args->lengths, len);
            uint64_t j = c[p->axis], source = j < L ? L - 1 - j : j;
            in += ((int64_t)source - (int64_t)j) * p->in_strides[p->axis];
        }
        if (in < 0 || out < 0 || (uint64_t)((in + 1) * e) > input_bytes || (uint64_t)((out + 1) * e) > output_bytes) {
            fprintf(stderr, "test bug: element %llu out of range\n", (unsigned long long)index);
            abort();
        }
        memcpy((uint8_t*)args->output + out * e, (const uint8_t*)args->input + in * e, (size_t)e);
    }
}

const char* case_compare(const test_case* t)
{
    static _Thread_local char message[1024];
    /* memcmp first: a byte loop was most of the suite's time at -O0 (ASan). */
    if (memcmp(t->output, t->expected, t->output_bytes) == 0)
        return "";
    size_t i = 0;
    while (t->output[i] == t->expected[i])
        i++;
    const dml_plan* p = &t->plan;
    int n = snprintf(message, sizeof(message),
        "byte %zu of %zu: got %02x want %02x (sentinel %02x); kind %u rank %u esize %u axis %d lsize %u offsets in %lld "
        "out %lld len %lld; dims (size in out len):",
        i, t->output_bytes, t->output[i], t->expected[i], t->sentinel[i], p->kind, p->rank, p->element_size, p->axis,
        p->lengths_element_size, (long long)p->in_offset, (long long)p->out_offset, (long long)p->len_offset);
    for (uint32_t d = 0; d < p->rank && n > 0 && (size_t)n < sizeof(message); d++)
        n += snprintf(message + n, sizeof(message) - (size_t)n, " [%llu %lld %lld %lld]",
            (unsigned long long)p->sizes[d], (long long)p->in_strides[d], (long long)p->out_strides[d],
            (long long)p->len_strides[d]);
    return message;
}
