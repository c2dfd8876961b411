#include "cpu_pad.h"

#include <stdbool.h>
#include <string.h>

#include "core/pad_fold.h"
#include "cpu_execute.h"
#include "cpu_rows_avx512.h"
#include "cpu_simd.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* The input coordinate of output coordinate c on dimension d: folded where
 * the plan folds, -1 when CONSTANT puts it outside the input. */
static int64_t input_coordinate(const dml_plan* p, uint32_t d, uint64_t c)
{
    int64_t j = (int64_t)c + p->pad_origin[d];
    return p->pad_extent[d] ? dml_pad_fold(j, p->pad_extent[d], p->pad_mode) : j;
}

/* Constant sizes, so that each copy is one move. */
ALWAYS_INLINE void copy_element(unsigned char* to, const unsigned char* from, uint32_t e)
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

/* Rows whose innermost dimension is contiguous in both tensors and whose
 * borders are narrow (an image padded by a few elements, the common case):
 * every border element's input coordinate is the same in every row, so it
 * is folded once per range, and each row is written with moves of a
 * constant size around one memcpy (rows of 1 KiB of bytes, padded by 1:
 * about half the time of the general loop above in cache). */
#define NARROW_BORDER 8

/* Where the output streams (dml_cpu_plan_streams: too large for the
 * cache), narrow rows go out through a line writer with AVX-512
 * (cpu_rows_avx512.h): borders and interiors collect into whole lines, each
 * stored once, non-temporally, so the lines where a row meets the next are
 * not read first. With ordinary stores for those two lines of each row
 * (dml_cpu_stream_copy's ends, the borders), 1 KiB rows of bytes took
 * 1.16-1.29x the time at 64 MiB (2-core Intel Xeon VM; `dmlbench --case
 * pad_constant,pad_edge,pad_reflect --size 64M --threads 2`, two runs
 * alternated with the build before). Without AVX-512, the interiors stream
 * (dml_cpu_stream_copy) and the borders are ordinary stores. Staged through
 * the L1 buffer as the other executors' outputs are, the loads stopped while
 * each piece went out and the hardware prefetchers fell behind: 64 MiB, 4-byte elements,
 * 3.1-3.3 ms staged (its input prefetched a piece ahead), 2.4-2.5 ms
 * straight; 1-byte 2.5-2.6 against 2.4-2.6 ms (`dmlbench --case
 * pad_edge,pad_constant,pad_reflect,pad_symmetric --size 16M,64M`, three
 * runs, best thread count, 2-core AMD EPYC VM; the same at 16 MiB). */

typedef struct narrow_rows {
    uint64_t lo, hi; /* the interior: x in [lo, hi) reads input x + pad_origin */
    int64_t origin;
    bool stream;
    int64_t fold[2 * NARROW_BORDER]; /* left x: fold[x]; right x: fold[lo + x - hi]; -1: the constant */
} narrow_rows;

/* Whether the plan's rows are narrow_rows, and if so their folds. */
static bool narrow_rows_of(const dml_plan* p, narrow_rows* k)
{
    const uint32_t d = p->rank - 1;
    if (p->in_strides[d] != 1 || p->out_strides[d] != 1)
        return false;
    const uint64_t n = p->sizes[d];
    k->lo = 0, k->hi = n, k->origin = p->pad_origin[d];
    if (p->pad_extent[d]) {
        k->lo = clamp_u64(-p->pad_origin[d], 0, n);
        k->hi = clamp_u64((int64_t)p->pad_extent[d] - p->pad_origin[d], k->lo, n);
    }
    if (k->lo > NARROW_BORDER || n - k->hi > NARROW_BORDER)
        return false;
    for (uint64_t x = 0; x < k->lo; ++x)
        k->fold[x] = input_coordinate(p, d, x);
    for (uint64_t x = k->hi; x < n; ++x)
        k->fold[k->lo + x - k->hi] = input_coordinate(p, d, x);
    return true;
}

/* Elements [x0, x1) of one narrow row of E-byte elements, through the line
 * writer w where there is one. */
ALWAYS_INLINE void narrow_segment(const dml_plan* p, const narrow_rows* k, const pad_row* r, uint64_t x0,
    uint64_t x1, uint32_t E, dml_cpu_line_writer* w)
{
    unsigned char* out = r->out + r->dst * (int64_t)E;
    const unsigned char* fill = p->fill_start.bytes;
    if (!r->row_in) {
        for (uint64_t x = x0; x < x1; ++x)
            copy_element(out + x * E, fill, E); /* other bytes than the writer's: its lines stay right */
        return;
    }
    const unsigned char* in = r->in + r->src * (int64_t)E;
    uint64_t x = x0;
    for (; x < x1 && x < k->lo; ++x) {
        const unsigned char* from = k->fold[x] < 0 ? fill : in + k->fold[x] * (int64_t)E;
        if (w)
            dml_cpu_line_writer_put(w, out + x * E, from, E);
        else
            copy_element(out + x * E, from, E);
    }
    const uint64_t b = x1 < k->hi ? x1 : k->hi;
    if (x < b) {
        const unsigned char* from = in + ((int64_t)x + k->origin) * (int64_t)E;
        const size_t bytes = (size_t)(b - x) * E;
        if (w)
            dml_cpu_line_writer_put(w, out + x * E, from, bytes);
        else if (k->stream)
            dml_cpu_stream_copy(out + x * E, from, bytes);
        else
            memcpy(out + x * E, from, bytes);
        x = b;
    }
    for (; x < x1; ++x) {
        const int64_t j = k->fold[k->lo + x - k->hi];
        const unsigned char* from = j < 0 ? fill : in + j * (int64_t)E;
        if (w)
            dml_cpu_line_writer_put(w, out + x * E, from, E);
        else
            copy_element(out + x * E, from, E);
    }
}

/* The outer coordinates c of flat index begin's row, and its x. */
static uint64_t row_start(const dml_plan* p, uint64_t begin, uint64_t* c)
{
    const uint32_t inner = p->rank - 1;
    uint64_t row = begin / p->sizes[inner];
    for (uint32_t d = inner; d-- > 0;) {
        c[d] = row % p->sizes[d];
        row /= p->sizes[d];
    }
    return begin % p->sizes[inner];
}

static void next_row(const dml_plan* p, uint64_t* c)
{
    for (uint32_t d = p->rank - 1; d-- > 0;) {
        if (++c[d] < p->sizes[d])
            return;
        c[d] = 0;
    }
}

/* run_range's loop over narrow rows of E-byte elements. */
ALWAYS_INLINE void run_narrow(const dml_plan* p, const dml_plan_args* args, const narrow_rows* k, uint64_t begin,
    uint64_t end, uint32_t E)
{
    const uint64_t n = p->sizes[p->rank - 1];
    uint64_t c[DML_PLAN_MAX_RANK], x = row_start(p, begin, c);
    pad_row r = { args->input, args->output, true, 0, 0 };
    dml_cpu_line_writer writer = { .line = NULL, .have = 0 };
    dml_cpu_line_writer* w = k->stream && have_avx512() ? &writer : NULL;
    for (uint64_t at = begin; at < end; x = 0) {
        locate_row(p, c, &r);
        const uint64_t stop = end - at < n - x ? x + (end - at) : n;
        narrow_segment(p, k, &r, x, stop, E, w);
        at += stop - x;
        next_row(p, c);
    }
    if (w)
        dml_cpu_line_writer_flush(w);
}

/* Flat output indices [begin, end) of rows that are not narrow, row
 * segment by row segment. */
static void run_rows(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    const uint64_t n = p->sizes[p->rank - 1];
    uint64_t c[DML_PLAN_MAX_RANK], x = row_start(p, begin, c);
    pad_row r = { args->input, args->output, true, 0, 0 };
    for (uint64_t at = begin; at < end; x = 0) {
        locate_row(p, c, &r);
        const uint64_t stop = end - at < n - x ? x + (end - at) : n;
        write_segment(p, &r, x, stop);
        at += stop - x;
        next_row(p, c);
    }
}

/* Flat output indices [begin, end). Streamed outputs (dml_cpu_run_split_streaming):
 * narrow rows stream their own interiors, others go through the L1 buffer. */
static void run_range(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    const bool stream = dml_cpu_plan_streams(p, args);
    narrow_rows k;
    if (narrow_rows_of(p, &k)) {
        k.stream = stream;
        switch (p->element_size) {
        case 1: run_narrow(p, args, &k, begin, end, 1); return;
        case 2: run_narrow(p, args, &k, begin, end, 2); return;
        case 4: run_narrow(p, args, &k, begin, end, 4); return;
        default: run_narrow(p, args, &k, begin, end, 8); return;
        }
    }
    if (stream)
        dml_cpu_run_range_staged(p, args, begin, end, run_rows);
    else
        run_rows(p, args, begin, end);
}

unsigned dml_cpu_pad(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    return dml_cpu_run_split_streaming(pool, model, max_threads, plan, args,
        plan->element_count * plan->element_size, run_range);
}
