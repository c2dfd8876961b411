#include "cpu_scatter_onto.h"

#include <string.h>

#include "cpu_execute.h"
#include "cpu_indexed.h"
#include "cpu_row_walk.h"

typedef unsigned char byte;

static uint64_t min_cell_bytes = DML_CPU_ONTO_MIN_CELL_BYTES;

uint64_t dml_cpu_onto_min_cell_bytes(uint64_t bytes)
{
    return __atomic_exchange_n(&min_cell_bytes, bytes, __ATOMIC_RELAXED);
}

/* The cells, as the tasks share them. */
typedef struct onto_layout {
    const dml_plan* scatter;
    const dml_plan_args* args; /* the scatter's */
    byte* out;                 /* cell 0: the copy's first output element */
    const byte* in;            /* what the copy puts there */
    int64_t base;              /* that element's offset in the output */
    uint64_t cells, cell_elements, rows; /* rows: the updates' */
    uint64_t cell_bytes;
    int stream;
    uint64_t chunk; /* cells per task */
} onto_layout;

/* Whether the copy reads and writes dense, row-major elements from its offsets. */
static int dense_copy(const dml_plan* p)
{
    uint64_t stride = 1;
    for (uint32_t d = p->rank; d-- > 0; stride *= p->sizes[d])
        if (p->out_strides[d] != (int64_t)stride || p->in_strides[d] != (int64_t)stride)
            return 0;
    return 1;
}

/* Whether elements [offset, offset + count) of E bytes lie inside `bytes`. */
static int inside(int64_t offset, uint64_t count, uint64_t E, uint64_t bytes)
{
    return offset >= 0 && count <= bytes / E && (uint64_t)offset <= bytes / E - count;
}

static int disjoint(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return !a || !b || x + a_bytes <= y || y + b_bytes <= x;
}

/* Whether each update row is contiguous in the updates and the output and
 * reads one index tuple. */
static int rows_form(const dml_plan* s)
{
    const uint32_t r = s->rank - 1;
    return s->sizes[r] == 1 ||
        (s->out_strides[r] == 1 && s->in_strides[r] == 1 && (s->len_strides[r] == 0 || s->index_count == 0));
}

/* Whether every update row starts on a cell of n elements counted from base. */
static int on_grid(const dml_plan* s, int64_t base, uint64_t n)
{
    const int64_t m = (int64_t)n;
    if ((s->out_offset - base) % m != 0)
        return 0;
    for (uint32_t d = 0; d + 1 < s->rank; ++d)
        if (s->out_strides[d] % m != 0)
            return 0;
    for (uint32_t k = 0; k < s->index_count; ++k)
        if (s->index_strides[k] % m != 0)
            return 0;
    return 1;
}

/* Whether every element an update can reach lies in [base, base + count). */
static int reach_inside(const dml_plan* s, int64_t base, uint64_t count)
{
    __int128 first = s->out_offset, last = s->out_offset;
    for (uint32_t d = 0; d < s->rank; ++d) {
        const __int128 span = (__int128)(s->sizes[d] - 1) * s->out_strides[d];
        *(span < 0 ? &first : &last) += span;
    }
    for (uint32_t k = 0; k < s->index_count; ++k) {
        const __int128 span = (__int128)(s->index_sizes[k] - 1) * s->index_strides[k];
        *(span < 0 ? &first : &last) += span;
    }
    return first >= base && last < (__int128)base + count;
}

static int layout_of(const dml_plan* copy, const dml_plan_args* ca, const dml_plan* s, const dml_plan_args* sa,
    onto_layout* o)
{
    const uint64_t E = copy->element_size, count = copy->element_count;
    if (copy->kind != DML_PLAN_GATHER || s->kind != DML_PLAN_SCATTER || s->element_size != E || ca->output != sa->output ||
        !dense_copy(copy) || !rows_form(s) || !inside(copy->out_offset, count, E, ca->output_bytes) ||
        !inside(copy->in_offset, count, E, ca->input_bytes))
        return 0;
    const uint64_t n = s->sizes[s->rank - 1], rows = s->element_count / n;
    if (n * E < __atomic_load_n(&min_cell_bytes, __ATOMIC_RELAXED) || count % n != 0 || !on_grid(s, copy->out_offset, n) || !reach_inside(s, copy->out_offset, count))
        return 0;
    byte* out = (byte*)ca->output + copy->out_offset * (int64_t)E;
    if (!disjoint(out, count * E, ca->input, ca->input_bytes) || !disjoint(out, count * E, sa->input, sa->input_bytes) ||
        !disjoint(out, count * E, sa->lengths, sa->lengths_bytes))
        return 0;
    /* Each block walks every update: worth it while that costs less than
     * the rows the two steps would write. */
    const uint64_t cells = count / n, blocks = (cells + DML_CPU_ONTO_BLOCK_CELLS - 1) / DML_CPU_ONTO_BLOCK_CELLS;
    if ((unsigned __int128)(blocks - 1) * rows > (unsigned __int128)4 * (cells + rows))
        return 0;
    *o = (onto_layout){ s, sa, out, (const byte*)ca->input + copy->in_offset * (int64_t)E, copy->out_offset, cells, n,
        rows, n * E, dml_cpu_plan_streams(copy, ca), cells };
    return 1;
}

int dml_cpu_scatter_onto_applies(const dml_plan* copy, const dml_plan_args* copy_args, const dml_plan* scatter,
    const dml_plan_args* scatter_args)
{
    onto_layout o;
    return layout_of(copy, copy_args, scatter, scatter_args, &o);
}

static void copy_bytes(const onto_layout* o, byte* dst, const byte* src, uint64_t bytes)
{
    if (o->stream)
        dml_cpu_stream_copy(dst, src, bytes);
    else
        memcpy(dst, src, bytes);
}

static int is_marked(const uint64_t* marked, uint64_t k)
{
    return (int)(marked[k / 64] >> (k % 64) & 1);
}

/* Cells [c0, c0 + count) (count <= DML_CPU_ONTO_BLOCK_CELLS): each one's
 * winning update, found walking from the last; then the input under the
 * cells none reached, a run of them at a time. */
static void onto_block(const onto_layout* o, uint64_t c0, uint64_t count)
{
    uint64_t marked[DML_CPU_ONTO_BLOCK_CELLS / 64];
    memset(marked, 0, (count + 63) / 64 * sizeof *marked);
    const dml_plan* s = o->scatter;
    const byte* updates = o->args->input;
    const int64_t E = s->element_size;
    uint64_t left = count;
    dml_cpu_row_walk w;
    dml_cpu_row_walk_init(&w, s, o->rows - 1);
    for (uint64_t u = o->rows; u-- > 0 && left > 0; dml_cpu_row_walk_prev(&w, s)) {
        int64_t extra;
        if (!dml_cpu_scatter_tuple(s, o->args->lengths, w.len, &extra))
            continue; /* dropped */
        const uint64_t k = (uint64_t)(w.out + extra - o->base) / o->cell_elements - c0;
        if (k >= count || is_marked(marked, k))
            continue; /* another block's, or a later update won */
        marked[k / 64] |= (uint64_t)1 << (k % 64);
        --left;
        copy_bytes(o, o->out + (c0 + k) * o->cell_bytes, updates + w.in * E, o->cell_bytes);
    }
    for (uint64_t k = 0; k < count;) {
        if (is_marked(marked, k)) {
            ++k;
            continue;
        }
        uint64_t end = k + 1;
        while (end < count && !is_marked(marked, end))
            ++end;
        copy_bytes(o, o->out + (c0 + k) * o->cell_bytes, o->in + (c0 + k) * o->cell_bytes, (end - k) * o->cell_bytes);
        k = end;
    }
}

static void onto_task(void* context, unsigned t)
{
    const onto_layout* o = context;
    const uint64_t begin = (uint64_t)t * o->chunk, end = o->cells - begin < o->chunk ? o->cells : begin + o->chunk;
    for (uint64_t b = begin; b < end; b += DML_CPU_ONTO_BLOCK_CELLS)
        onto_block(o, b, end - b < DML_CPU_ONTO_BLOCK_CELLS ? end - b : DML_CPU_ONTO_BLOCK_CELLS);
    if (o->stream) /* non-temporal stores are visible to other threads after the fence */
        dml_cpu_stream_fence();
}

unsigned dml_cpu_scatter_onto(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* copy, const dml_plan_args* copy_args, const dml_plan* scatter, const dml_plan_args* scatter_args)
{
    onto_layout o;
    if (!layout_of(copy, copy_args, scatter, scatter_args, &o)) { /* the two steps, one after the other */
        const unsigned a = dml_cpu_execute(pool, model, max_threads, copy, copy_args);
        const unsigned b = dml_cpu_scatter(pool, model, max_threads, scatter, scatter_args);
        return a > b ? a : b;
    }
    const unsigned available = cpu_pool_threads(pool) < max_threads ? cpu_pool_threads(pool) : max_threads;
    const dml_cpu_cost_model fallback = dml_cpu_cost_default();
    const unsigned threads =
        dml_cpu_cost_threads(model ? model : &fallback, o.cells * o.cell_bytes, available ? available : 1);
    /* Tasks own whole 64-byte lines where cells are shorter. */
    const uint64_t line = o.cell_bytes >= 64 ? 1 : (64 + o.cell_bytes - 1) / o.cell_bytes;
    o.chunk = ((o.cells + threads - 1) / threads + line - 1) / line * line;
    const unsigned tasks = (unsigned)((o.cells + o.chunk - 1) / o.chunk);
    if (tasks < 2) {
        onto_task(&o, 0);
        return 1;
    }
    cpu_pool_run(pool, onto_task, &o, tasks);
    return tasks;
}
