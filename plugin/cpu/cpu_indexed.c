#include "cpu_indexed.h"

#include <string.h>

#include "cpu_execute.h"
#include "cpu_row_walk.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef unsigned char byte;

int dml_cpu_indexed_supports(const dml_plan* p)
{
    if ((p->lengths_element_size != 4 && p->lengths_element_size != 8) || p->index_count > DML_PLAN_MAX_RANK)
        return 0;
    for (uint32_t k = 0; k < p->index_count; ++k)
        if (p->index_sizes[k] == 0)
            return 0;
    return 1;
}

/* ---- index tuples ------------------------------------------------------ */

/* INDEXED: what the tuple at index element `at` adds to the input offset,
 * each component clamped into its bound. */
static int64_t clamped_tuple(const dml_plan* p, const void* indices, int64_t at)
{
    int64_t offset = 0;
    for (uint32_t k = 0; k < p->index_count; ++k, at += p->index_step) {
        const uint64_t v = dml_index_load(indices, at, p->lengths_element_size, p->index_signed);
        offset += (int64_t)dml_index_clamp(v, p->index_signed, p->index_sizes[k]) * p->index_strides[k];
    }
    return offset;
}

/* SCATTER: whether every component of the tuple at `at` resolves into its
 * bound, and what the tuple then adds to the output offset. */
int dml_cpu_scatter_tuple(const dml_plan* p, const void* indices, int64_t at, int64_t* offset)
{
    int64_t sum = 0;
    for (uint32_t k = 0; k < p->index_count; ++k, at += p->index_step) {
        const uint64_t v = dml_index_load(indices, at, p->lengths_element_size, p->index_signed);
        uint64_t position;
        if (!dml_index_resolve(v, p->index_signed, p->index_sizes[k], &position))
            return 0;
        sum += (int64_t)position * p->index_strides[k];
    }
    *offset = sum;
    return 1;
}

/* ---- INDEXED ------------------------------------------------------------- */

/* One index per element (GATHER_ELEMENTS, a GATHER along the innermost
 * dimension): element size E, index size LS and signedness SG constants. */
ALWAYS_INLINE void gather_each(byte* out, int64_t os, const byte* in, int64_t is, const void* indices, int64_t at,
    int64_t ls, uint64_t n, uint64_t bound, int64_t index_stride, int64_t E, uint32_t LS, uint32_t SG)
{
    for (uint64_t j = 0; j < n; ++j) {
        const uint64_t v = dml_index_load(indices, at + (int64_t)j * ls, LS, SG);
        const int64_t position = (int64_t)dml_index_clamp(v, SG, bound);
        memcpy(out + (int64_t)j * os * E, in + ((int64_t)j * is + position * index_stride) * E, (size_t)E);
    }
}

typedef void (*gather_each_fn)(byte* out, int64_t os, const byte* in, int64_t is, const void* indices, int64_t at,
    int64_t ls, uint64_t n, uint64_t bound, int64_t index_stride);

#define GATHER_EACH(E, LS, SG)                                                                                  \
    static void gather_each_##E##_##LS##_##SG(byte* out, int64_t os, const byte* in, int64_t is,                  \
        const void* indices, int64_t at, int64_t ls, uint64_t n, uint64_t bound, int64_t index_stride)            \
    {                                                                                                             \
        if (os == 1 && is == 0 && ls == 1) /* GATHER_ELEMENTS along the row */                                    \
            gather_each(out, 1, in, 0, indices, at, 1, n, bound, index_stride, E, LS, SG);                        \
        else if (os == 1)                                                                                         \
            gather_each(out, 1, in, is, indices, at, ls, n, bound, index_stride, E, LS, SG);                      \
        else                                                                                                      \
            gather_each(out, os, in, is, indices, at, ls, n, bound, index_stride, E, LS, SG);                     \
    }
#define GATHER_EACH_E(E) GATHER_EACH(E, 4, 0) GATHER_EACH(E, 4, 1) GATHER_EACH(E, 8, 0) GATHER_EACH(E, 8, 1)
GATHER_EACH_E(1)
GATHER_EACH_E(2)
GATHER_EACH_E(4)
GATHER_EACH_E(8)
#undef GATHER_EACH_E
#undef GATHER_EACH

/* [log2 E][index size 8][signed] */
static const gather_each_fn gather_each_fns[4][2][2] = {
    { { gather_each_1_4_0, gather_each_1_4_1 }, { gather_each_1_8_0, gather_each_1_8_1 } },
    { { gather_each_2_4_0, gather_each_2_4_1 }, { gather_each_2_8_0, gather_each_2_8_1 } },
    { { gather_each_4_4_0, gather_each_4_4_1 }, { gather_each_4_8_0, gather_each_4_8_1 } },
    { { gather_each_8_4_0, gather_each_8_4_1 }, { gather_each_8_8_0, gather_each_8_8_1 } },
};

static unsigned log2_size(uint32_t e)
{
    return e == 1 ? 0 : e == 2 ? 1 : e == 4 ? 2 : 3;
}

static void indexed_row(const dml_plan* p, const dml_plan_args* a, const dml_cpu_row_walk* w, uint64_t j0,
    uint64_t j1)
{
    const uint32_t r = p->rank - 1, e = p->element_size;
    const int64_t is = p->in_strides[r], os = p->out_strides[r], ls = p->len_strides[r], n = (int64_t)(j1 - j0);
    const int64_t j = (int64_t)j0;
    byte* out = (byte*)a->output + (w->out + j * os) * (int64_t)e;
    const byte* in = a->input;
    if (ls == 0 || p->index_count == 0) { /* one tuple for the row */
        const int64_t src = w->in + j * is + clamped_tuple(p, a->lengths, w->len);
        dml_cpu_copy_row(out, os, in + src * (int64_t)e, is, (uint64_t)n, e);
    } else if (p->index_count == 1) {
        gather_each_fns[log2_size(e)][p->lengths_element_size == 8][p->index_signed != 0](out, os,
            in + (w->in + j * is) * (int64_t)e, is, a->lengths, w->len + j * ls, ls, (uint64_t)n, p->index_sizes[0],
            p->index_strides[0]);
    } else {
        for (int64_t i = 0; i < n; ++i) {
            const int64_t src = w->in + (j + i) * is + clamped_tuple(p, a->lengths, w->len + (j + i) * ls);
            memcpy(out + i * os * (int64_t)e, in + src * (int64_t)e, e);
        }
    }
}

/* Rows whose source a random index picks (an embedding lookup) miss the
 * hardware prefetchers: each row's lines are requested PREFETCH_ROWS rows
 * ahead, into L2 (prefetcht1): L1 tracks too few misses to keep 16 random
 * rows in flight, L2 tracks enough. 256-byte rows, 64 MiB, 2-core AMD EPYC
 * VM, `dmlbench --case gather_rows_256`: 0.40-0.62x memcpy into L1 at 8
 * rows, 0.59-0.82x into L2 at 16-32. */
#define PREFETCH_ROWS 32u
#define PREFETCH_BYTES 2048
#define PREFETCH_MIN_INPUT ((uint64_t)1 << 20) /* below, the table is likely in cache: prefetching only costs */
#define STREAM_ROW_MIN_BYTES 256u

static void prefetch_row(const byte* src, uint64_t row_bytes)
{
    for (uint64_t b = 0; b < row_bytes && b < PREFETCH_BYTES; b += 64)
        __builtin_prefetch(src + b, 0, 2);
}

/* Contiguous rows, one tuple each: a copy per row. The rows' tuples are
 * read and clamped PREFETCH_ROWS rows ahead of the copy (once each, kept in
 * a ring) and their sources prefetched then. Outputs that stream take each
 * row's whole lines with non-temporal stores straight from the source (not
 * through cpu_execute.c's L1 staging, which costs a copy): the output is
 * only written, so reading its lines first would be wasted. */
static void gather_rows_range(const dml_plan* p, const dml_plan_args* a, uint64_t begin, uint64_t end)
{
    if (begin >= end)
        return;
    const uint64_t n = p->sizes[p->rank - 1], e = p->element_size, row_bytes = n * e;
    const uint64_t first = begin / n, count = (end - 1) / n - first + 1;
    const int prefetch = a->input_bytes >= PREFETCH_MIN_INPUT;
    const int stream = row_bytes >= STREAM_ROW_MIN_BYTES && dml_cpu_plan_streams(p, a);
    const byte* in = a->input;
    int64_t source[PREFETCH_ROWS]; /* the input offset of row r's first element, at source[r % PREFETCH_ROWS] */
    dml_cpu_row_walk w, ahead;
    dml_cpu_row_walk_init(&w, p, first);
    ahead = w;
    const uint64_t lead = count < PREFETCH_ROWS ? count : PREFETCH_ROWS;
    for (uint64_t r = 0; r < lead; ++r) {
        source[r] = ahead.in + clamped_tuple(p, a->lengths, ahead.len);
        if (prefetch)
            prefetch_row(in + source[r] * (int64_t)e, row_bytes);
        dml_cpu_row_walk_next(&ahead, p);
    }
    for (uint64_t r = 0; r < count; ++r) {
        const uint64_t j = r == 0 ? begin % n : 0, j1 = r + 1 == count ? end - (first + r) * n : n;
        const byte* src = in + (source[r % PREFETCH_ROWS] + (int64_t)j) * (int64_t)e;
        if (r + lead < count) { /* the slot just read: row r + PREFETCH_ROWS */
            const int64_t next = ahead.in + clamped_tuple(p, a->lengths, ahead.len);
            source[r % PREFETCH_ROWS] = next;
            if (prefetch)
                prefetch_row(in + next * (int64_t)e, row_bytes);
            dml_cpu_row_walk_next(&ahead, p);
        }
        byte* dst = (byte*)a->output + (w.out + (int64_t)j) * (int64_t)e;
        if (stream)
            dml_cpu_stream_copy(dst, src, (j1 - j) * e);
        else
            memcpy(dst, src, (j1 - j) * e);
        dml_cpu_row_walk_next(&w, p);
    }
    if (stream) /* non-temporal stores are visible to other threads after the fence */
        dml_cpu_stream_fence();
}

void dml_cpu_indexed_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    const uint32_t r = plan->rank - 1;
    if (plan->len_strides[r] == 0 && plan->index_count > 0 && plan->in_strides[r] == 1 && plan->out_strides[r] == 1)
        gather_rows_range(plan, args, begin, end);
    else
        dml_cpu_row_walk_range(plan, args, begin, end, indexed_row);
}

unsigned dml_cpu_indexed(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    /* Per-element indices cost about their own bytes again. */
    const uint64_t index_bytes = plan->len_strides[plan->rank - 1] ? plan->lengths_element_size : 0;
    return dml_cpu_run_split(pool, model, max_threads, plan, args,
        plan->element_count * (plan->element_size + index_bytes), dml_cpu_indexed_range);
}

/* ---- SCATTER ------------------------------------------------------------- */

/* One index per update, targets kept inside [lo, hi): the scatter's
 * per-element loop with E, LS, SG constants. In order, so the last update
 * to an element wins. */
ALWAYS_INLINE void scatter_each(byte* out, int64_t dst, int64_t os, const byte* in, int64_t is, const void* indices,
    int64_t at, int64_t ls, uint64_t n, uint64_t bound, int64_t index_stride, int64_t lo, int64_t hi, int64_t E,
    uint32_t LS, uint32_t SG)
{
    for (uint64_t j = 0; j < n; ++j) {
        const uint64_t v = dml_index_load(indices, at + (int64_t)j * ls, LS, SG);
        uint64_t position;
        if (!dml_index_resolve(v, SG, bound, &position))
            continue;
        const int64_t target = dst + (int64_t)j * os + (int64_t)position * index_stride;
        if (target >= lo && target < hi)
            memcpy(out + target * E, in + (int64_t)j * is * E, (size_t)E);
    }
}

typedef void (*scatter_each_fn)(byte* out, int64_t dst, int64_t os, const byte* in, int64_t is, const void* indices,
    int64_t at, int64_t ls, uint64_t n, uint64_t bound, int64_t index_stride, int64_t lo, int64_t hi);

#define SCATTER_EACH(E, LS, SG)                                                                                 \
    static void scatter_each_##E##_##LS##_##SG(byte* out, int64_t dst, int64_t os, const byte* in, int64_t is,    \
        const void* indices, int64_t at, int64_t ls, uint64_t n, uint64_t bound, int64_t index_stride, int64_t lo, \
        int64_t hi)                                                                                               \
    {                                                                                                             \
        if (is == 1 && ls == 1)                                                                                   \
            scatter_each(out, dst, os, in, 1, indices, at, 1, n, bound, index_stride, lo, hi, E, LS, SG);          \
        else                                                                                                      \
            scatter_each(out, dst, os, in, is, indices, at, ls, n, bound, index_stride, lo, hi, E, LS, SG);        \
    }
#define SCATTER_EACH_E(E) SCATTER_EACH(E, 4, 0) SCATTER_EACH(E, 4, 1) SCATTER_EACH(E, 8, 0) SCATTER_EACH(E, 8, 1)
SCATTER_EACH_E(1)
SCATTER_EACH_E(2)
SCATTER_EACH_E(4)
SCATTER_EACH_E(8)
#undef SCATTER_EACH_E
#undef SCATTER_EACH

static const scatter_each_fn scatter_each_fns[4][2][2] = {
    { { scatter_each_1_4_0, scatter_each_1_4_1 }, { scatter_each_1_8_0, scatter_each_1_8_1 } },
    { { scatter_each_2_4_0, scatter_each_2_4_1 }, { scatter_each_2_8_0, scatter_each_2_8_1 } },
    { { scatter_each_4_4_0, scatter_each_4_4_1 }, { scatter_each_4_8_0, scatter_each_4_8_1 } },
    { { scatter_each_8_4_0, scatter_each_8_4_1 }, { scatter_each_8_8_0, scatter_each_8_8_1 } },
};

/* One row of updates, the targets kept inside [lo, hi). */
static void scatter_row(const dml_plan* p, const dml_plan_args* a, const dml_cpu_row_walk* w, int64_t lo, int64_t hi)
{
    const uint32_t r = p->rank - 1, e = p->element_size;
    const int64_t is = p->in_strides[r], os = p->out_strides[r], ls = p->len_strides[r], n = (int64_t)p->sizes[r];
    byte* out = a->output;
    const byte* in = (const byte*)a->input + w->in * (int64_t)e;
    if (ls == 0 || p->index_count == 0) { /* one tuple for the row */
        int64_t extra;
        if (!dml_cpu_scatter_tuple(p, a->lengths, w->len, &extra))
            return;
        const int64_t dst = w->out + extra;
        if (os == 1) { /* the row's part inside [lo, hi) */
            const int64_t first = lo - dst > 0 ? lo - dst : 0, last = hi - dst < n ? hi - dst : n;
            if (first < last)
                dml_cpu_copy_row(out + (dst + first) * (int64_t)e, 1, in + first * is * (int64_t)e, is, (uint64_t)(last - first),
                    e);
            return;
        }
        for (int64_t j = 0; j < n; ++j) {
            const int64_t target = dst + j * os;
            if (target >= lo && target < hi)
                memcpy(out + target * (int64_t)e, in + j * is * (int64_t)e, e);
        }
    } else if (p->index_count == 1) {
        scatter_each_fns[log2_size(e)][p->lengths_element_size == 8][p->index_signed != 0](out, w->out, os, in, is,
            a->lengths, w->len, ls, (uint64_t)n, p->index_sizes[0], p->index_strides[0], lo, hi);
    } else {
        for (int64_t j = 0; j < n; ++j) {
            int64_t extra;
            if (!dml_cpu_scatter_tuple(p, a->lengths, w->len + j * ls, &extra))
                continue;
            const int64_t target = w->out + j * os + extra;
            if (target >= lo && target < hi)
                memcpy(out + target * (int64_t)e, in + j * is * (int64_t)e, e);
        }
    }
}

/* How far a row's targets reach from its first output offset, whatever
 * its indices: [*first, *last] (inside the output for a plan the core
 * checked, so no sum overflows). */
static void row_reach(const dml_plan* p, int64_t* first, int64_t* last)
{
    const uint32_t r = p->rank - 1;
    int64_t lo = 0, hi = 0;
    const int64_t row = (int64_t)(p->sizes[r] - 1) * p->out_strides[r];
    *(row < 0 ? &lo : &hi) += row;
    for (uint32_t k = 0; k < p->index_count; ++k) {
        const int64_t span = (int64_t)(p->index_sizes[k] - 1) * p->index_strides[k];
        *(span < 0 ? &lo : &hi) += span;
    }
    *first = lo;
    *last = hi;
}

void dml_cpu_scatter_window(const dml_plan* plan, const dml_plan_args* args, int64_t lo, int64_t hi)
{
    if (lo >= hi)
        return;
    const uint64_t rows = plan->element_count / plan->sizes[plan->rank - 1];
    int64_t first, last;
    row_reach(plan, &first, &last);
    dml_cpu_row_walk w;
    dml_cpu_row_walk_init(&w, plan, 0);
    for (uint64_t row = 0; row < rows; ++row, dml_cpu_row_walk_next(&w, plan))
        if (w.out + last >= lo && w.out + first < hi) /* a row that cannot reach the window reads no index */
            scatter_row(plan, args, &w, lo, hi);
}

/* The output elements updates can reach (every coordinate and every
 * in-range index), inside the bound output: [*lo, *hi). */
void dml_cpu_scatter_reach(const dml_plan* p, const dml_plan_args* a, int64_t* lo, int64_t* hi)
{
    __int128 first = p->out_offset, last = p->out_offset;
    for (uint32_t d = 0; d < p->rank; ++d) {
        const __int128 span = (__int128)(p->sizes[d] - 1) * p->out_strides[d];
        *(span < 0 ? &first : &last) += span;
    }
    for (uint32_t k = 0; k < p->index_count; ++k) {
        const __int128 span = (__int128)(p->index_sizes[k] - 1) * p->index_strides[k];
        *(span < 0 ? &first : &last) += span;
    }
    const __int128 elements = (__int128)(a->output_bytes / p->element_size);
    *lo = (int64_t)(first < 0 ? 0 : first > elements ? elements : first);
    *hi = (int64_t)(last + 1 < 0 ? 0 : last + 1 > elements ? elements : last + 1);
}

typedef struct scatter_split {
    const dml_plan* plan;
    const dml_plan_args* args;
    int64_t lo, hi, chunk, line;
    unsigned tasks;
} scatter_split;

/* Where task t's window starts: at a 64-byte line of the buffer, so no two
 * threads write one line. */
static int64_t window_start(const scatter_split* s, unsigned t)
{
    if (t == 0)
        return s->lo;
    if (t >= s->tasks)
        return s->hi;
    const int64_t at = (s->lo + (int64_t)t * s->chunk) / s->line * s->line;
    return at < s->lo ? s->lo : at > s->hi ? s->hi : at;
}

static void scatter_task(void* context, unsigned t)
{
    const scatter_split* s = context;
    dml_cpu_scatter_window(s->plan, s->args, window_start(s, t), window_start(s, t + 1));
}

unsigned dml_cpu_scatter(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    scatter_split s = { plan, args, 0, 0, 0, 64 / plan->element_size, 1 };
    dml_cpu_scatter_reach(plan, args, &s.lo, &s.hi);
    if (s.lo >= s.hi)
        return 1;
    const unsigned available = cpu_pool_threads(pool) < max_threads ? cpu_pool_threads(pool) : max_threads;
    const dml_cpu_cost_model fallback = dml_cpu_cost_default();
    const uint64_t bytes = plan->element_count * plan->element_size;
    unsigned threads = dml_cpu_cost_threads(model ? model : &fallback, bytes, available ? available : 1);
    if ((uint64_t)(s.hi - s.lo) < (uint64_t)threads * (uint64_t)s.line) /* too few lines to share */
        threads = 1;
    if (threads < 2) {
        dml_cpu_scatter_window(plan, args, s.lo, s.hi);
        return 1;
    }
    s.tasks = threads;
    s.chunk = (s.hi - s.lo + (int64_t)threads - 1) / (int64_t)threads;
    cpu_pool_run(pool, scatter_task, &s, threads);
    return threads;
}
