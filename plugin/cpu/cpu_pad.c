#include "cpu_pad.h"

#include <stdbool.h>
#include <string.h>

#include "core/pad_fold.h"
#include "cpu_execute.h"


/* The input coordinate of output coordinate c on dimension d: folded where
 * the plan folds, -1 when CONSTANT puts it outside the input. */
static int64_t input_coordinate(const dml_plan* p, uint32_t d, uint64_t c)
{
    int64_t j = (int64_t)c + p->pad_origin[d];
    return p->pad_extent[d] ? dml_pad_fold(j, p->pad_extent[d], p->pad_mode) : j;
}

/* Constant sizes, so that each copy is one move. */
static inline void copy_element(unsigned char* to, const unsigned char* from, uint32_t e)
{
    switch (e) {
    case 1: memcpy(to, from, 1); break;
    case 2: memcpy(to, from, 2); break;
    case 4: memcpy(to, from, 4); break;
    default: memcpy(to, from, 8); break;
    }
}

/* One output row being written: where its x = 0 lands, and where its input
 * row starts (row_in false: a CONSTANT fold put the whole row outside). */
typedef struct pad_row {
    const unsigned char* in;
    unsigned char* out;
    bool row_in;
    int64_t src, dst;
} pad_row;

/* Elements [from, to) of the row, each folded on its own (the borders). */
static void write_border(const dml_plan* p, const pad_row* r, uint64_t from, uint64_t to)
{
    const uint32_t d = p->rank - 1, e = p->element_size;
    for (uint64_t x = from; x < to; ++x) {
        unsigned char* at = r->out + (r->dst + (int64_t)x * p->out_strides[d]) * e;
        int64_t j = input_coordinate(p, d, x);
        copy_element(at, j < 0 ? p->fill_start.bytes : r->in + (r->src + j * p->in_strides[d]) * e, e);
    }
}

/* Elements [from, to) of the row whose coordinate lies inside the input:
 * one memcpy when both rows are contiguous. */
static void write_interior(const dml_plan* p, const pad_row* r, uint64_t from, uint64_t to)
{
    const uint32_t d = p->rank - 1, e = p->element_size;
    const int64_t is = p->in_strides[d], os = p->out_strides[d];
    const unsigned char* src = r->in + (r->src + ((int64_t)from + p->pad_origin[d]) * is) * e;
    unsigned char* dst = r->out + (r->dst + (int64_t)from * os) * e;
    if (is == 1 && os == 1) {
        memcpy(dst, src, (size_t)(to - from) * e);
        return;
    }
    for (uint64_t x = from; x < to; ++x, src += is * e, dst += os * e)
        copy_element(dst, src, e);
}

static uint64_t clamp_u64(int64_t v, uint64_t lo, uint64_t hi)
{
    return v < (int64_t)lo ? lo : (uint64_t)v > hi ? hi : (uint64_t)v;
}

/* Elements [x0, x1) of one row: left border, interior, right border. */
static void write_segment(const dml_plan* p, const pad_row* r, uint64_t x0, uint64_t x1)
{
    const uint32_t d = p->rank - 1;
    if (!r->row_in) {
        const uint32_t e = p->element_size;
        for (uint64_t x = x0; x < x1; ++x)
            copy_element(r->out + (r->dst + (int64_t)x * p->out_strides[d]) * e, p->fill_start.bytes, e);
        return;
    }
    uint64_t lo = 0, hi = p->sizes[d]; /* x + pad_origin inside [0, pad_extent) */
    if (p->pad_extent[d]) {
        lo = clamp_u64(-p->pad_origin[d], 0, p->sizes[d]);
        hi = clamp_u64((int64_t)p->pad_extent[d] - p->pad_origin[d], lo, p->sizes[d]);
    }
    uint64_t a = x0 > lo ? x0 : lo, b = x1 < hi ? x1 : hi;
    write_border(p, r, x0, x1 < lo ? x1 : lo);
    if (a < b)
        write_interior(p, r, a, b);
    write_border(p, r, x0 > hi ? x0 : hi, x1);
}

/* The row of outer coordinates c[0..rank-2]: its offsets. */
static void locate_row(const dml_plan* p, const uint64_t* c, pad_row* r)
{
    r->src = p->in_offset;
    r->dst = p->out_offset;
    r->row_in = true;
    for (uint32_t d = 0; d + 1 < p->rank; ++d) {
        int64_t j = input_coordinate(p, d, c[d]);
        r->row_in = r->row_in && j >= 0;
        r->src += j * p->in_strides[d];
        r->dst += (int64_t)c[d] * p->out_strides[d];
    }
}

/* Flat output indices [begin, end), row segment by row segment. */
static void run_range(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    const uint32_t inner = p->rank - 1;
    const uint64_t n = p->sizes[inner];
    uint64_t c[DML_PLAN_MAX_RANK], row = begin / n, x = begin % n;
    for (uint32_t d = inner; d-- > 0;) {
        c[d] = row % p->sizes[d];
        row /= p->sizes[d];
    }
    pad_row r = { args->input, args->output, true, 0, 0 };
    for (uint64_t at = begin; at < end;) {
        locate_row(p, c, &r);
        uint64_t stop = end - at < n - x ? x + (end - at) : n;
        write_segment(p, &r, x, stop);
        at += stop - x;
        x = 0;
        for (uint32_t d = inner; d-- > 0;) { /* next row */
            if (++c[d] < p->sizes[d])
                break;
            c[d] = 0;
        }
    }
}

unsigned dml_cpu_pad(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    return dml_cpu_run_split(pool, model, max_threads, plan, args, plan->element_count * plan->element_size,
        run_range);
}
