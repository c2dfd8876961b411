#include "cpu_select.h"

#include <string.h>

#include "cpu_execute.h"
#include "cpu_row_walk.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef unsigned char byte;

/* ---- SELECT ---------------------------------------------------------------- */

/* out[j] = c[j] ? x[j] : y[j] over n elements of E bytes at the given
 * strides: both inputs loaded and blended through a mask, so a contiguous
 * row vectorises (the elements move as bits: no float compare). Typed
 * unaligned pointers indexed by a signed counter keep the addresses affine
 * for the vectoriser (byte offsets through memcpy did not, past 1 byte). */
#define BLEND(T)                                                                                              \
    typedef T T##_unaligned __attribute__((aligned(1), may_alias));                                             \
    ALWAYS_INLINE void blend_##T(byte* restrict o, int64_t os, const byte* restrict c, int64_t cs,             \
        const byte* restrict x, int64_t xs, const byte* restrict y, int64_t ys, uint64_t n)                     \
    {                                                                                                           \
        T##_unaligned* out = (T##_unaligned*)(void*)o;                                                         \
        const T##_unaligned* a = (const T##_unaligned*)(const void*)x;                                         \
        const T##_unaligned* b = (const T##_unaligned*)(const void*)y;                                         \
        for (int64_t j = 0; j < (int64_t)n; ++j) {                                                              \
            const T mask = (T)((T)0 - (T)(c[j * cs] != 0));                                                     \
            out[j * os] = (T)((a[j * xs] & mask) | (b[j * ys] & (T)~mask));                                     \
        }                                                                                                       \
    }                                                                                                           \
    static void select_##T(byte* o, int64_t os, const byte* c, int64_t cs, const byte* x, int64_t xs,           \
        const byte* y, int64_t ys, uint64_t n)                                                                  \
    {                                                                                                           \
        if (os == 1 && cs == 1 && xs == 1 && ys == 1)                                                           \
            blend_##T(o, 1, c, 1, x, 1, y, 1, n);                                                               \
        else if (os == 1 && cs == 1 && xs == 0 && ys == 1)                                                      \
            blend_##T(o, 1, c, 1, x, 0, y, 1, n);                                                               \
        else if (os == 1 && cs == 1 && xs == 1 && ys == 0)                                                      \
            blend_##T(o, 1, c, 1, x, 1, y, 0, n);                                                               \
        else if (os == 1 && cs == 1 && xs == 0 && ys == 0)                                                      \
            blend_##T(o, 1, c, 1, x, 0, y, 0, n);                                                               \
        else                                                                                                    \
            blend_##T(o, os, c, cs, x, xs, y, ys, n);                                                           \
    }
BLEND(uint8_t)
BLEND(uint16_t)
BLEND(uint32_t)
BLEND(uint64_t)
#undef BLEND

static void select_row(const dml_plan* p, const dml_plan_args* a, const dml_cpu_row_walk* w, uint64_t j0,
    uint64_t j1)
{
    const uint32_t r = p->rank - 1, e = p->element_size;
    const int64_t os = p->out_strides[r], cs = p->len_strides[r], xs = p->in_strides[r], ys = p->in2_strides[r];
    const int64_t j = (int64_t)j0, E = e;
    const uint64_t n = j1 - j0;
    byte* out = (byte*)a->output + (w->out + j * os) * E;
    const byte* cond = (const byte*)a->lengths + w->len + j * cs;
    const byte* x = (const byte*)a->input + (w->in + j * xs) * E;
    const byte* y = (const byte*)a->input2 + (w->in2 + j * ys) * E;
    if (cs == 0) { /* one condition for the row: a copy of one side */
        if (*cond)
            dml_cpu_copy_row(out, os, x, xs, n, e);
        else
            dml_cpu_copy_row(out, os, y, ys, n, e);
        return;
    }
    switch (e) {
    case 1: select_uint8_t(out, os, cond, cs, x, xs, y, ys, n); break;
    case 2: select_uint16_t(out, os, cond, cs, x, xs, y, ys, n); break;
    case 4: select_uint32_t(out, os, cond, cs, x, xs, y, ys, n); break;
    case 8: select_uint64_t(out, os, cond, cs, x, xs, y, ys, n); break;
    }
}

void dml_cpu_select_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    dml_cpu_row_walk_range(plan, args, begin, end, select_row);
}

/* ---- ONE_HOT --------------------------------------------------------------- */

int dml_cpu_one_hot_supports(const dml_plan* p)
{
    return (p->lengths_element_size == 4 || p->lengths_element_size == 8) && p->index_count == 1 &&
        p->index_sizes[0] >= 1 && p->axis >= -1 && p->axis < (int32_t)p->rank;
}

/* Whether the index at `at` resolves to position `at_axis` of the depth. */
static int one_hot_hit(const dml_plan* p, const void* indices, int64_t at, uint64_t at_axis)
{
    uint64_t position;
    const uint64_t v = dml_index_load(indices, at, p->lengths_element_size, p->index_signed);
    return dml_index_resolve(v, p->index_signed, p->index_sizes[0], &position) && position == at_axis;
}

static void one_hot_row(const dml_plan* p, const dml_plan_args* a, const dml_cpu_row_walk* w, uint64_t j0,
    uint64_t j1)
{
    const uint32_t r = p->rank - 1, e = p->element_size;
    const int64_t os = p->out_strides[r], ls = p->len_strides[r], xs = p->in_strides[r], ys = p->in2_strides[r];
    const int64_t E = e;
    byte* out = a->output;
    const byte* on = a->input;
    const byte* off = a->input2;
    const uint64_t n = j1 - j0;
    if (p->axis == (int32_t)r && ls == 0) { /* the depth along the row, one index: "off" but at most one "on" */
        dml_cpu_copy_row(out + (w->out + (int64_t)j0 * os) * E, os, off + (w->in2 + (int64_t)j0 * ys) * E, ys, n, e);
        uint64_t position;
        const uint64_t v = dml_index_load(a->lengths, w->len, p->lengths_element_size, p->index_signed);
        if (dml_index_resolve(v, p->index_signed, p->index_sizes[0], &position) && position >= j0 && position < j1)
            memcpy(out + (w->out + (int64_t)position * os) * E, on + (w->in + (int64_t)position * xs) * E, e);
        return;
    }
    const uint64_t at_axis = p->axis < 0 ? 0 : w->c[p->axis]; /* for an axis other than the row's */
    if (ls == 0) { /* one index for the row, the axis not along it: one side */
        const int64_t j = (int64_t)j0;
        if (one_hot_hit(p, a->lengths, w->len, at_axis))
            dml_cpu_copy_row(out + (w->out + j * os) * E, os, on + (w->in + j * xs) * E, xs, n, e);
        else
            dml_cpu_copy_row(out + (w->out + j * os) * E, os, off + (w->in2 + j * ys) * E, ys, n, e);
        return;
    }
    for (uint64_t u = j0; u < j1; ++u) {
        const int64_t j = (int64_t)u;
        const int hit = one_hot_hit(p, a->lengths, w->len + j * ls, p->axis == (int32_t)r ? u : at_axis);
        memcpy(out + (w->out + j * os) * E, hit ? on + (w->in + j * xs) * E : off + (w->in2 + j * ys) * E, e);
    }
}

/* The common one-hot (ONNX's OneHot, TensorFlow's one_hot with axis -1): an
 * output [rows, depth], packed, depth along the row, one index per row, "on"
 * and "off" single values. Rows of a small depth are too short to walk one
 * at a time: the range is filled with "off" a cache-sized chunk at a time,
 * then each row's "on" written into the chunk while it is still cached. */
static int packed_one_hot(const dml_plan* p)
{
    return p->rank == 2 && p->axis == 1 && p->index_sizes[0] == p->sizes[1] && p->out_strides[1] == 1 && p->out_strides[0] == (int64_t)p->sizes[1] &&
        p->len_strides[1] == 0 && p->in_strides[0] == 0 && p->in_strides[1] == 0 && p->in2_strides[0] == 0 &&
        p->in2_strides[1] == 0;
}

static void fill_value(byte* out, const byte* value, uint64_t n, uint32_t e)
{
    switch (e) {
    case 1: dml_cpu_fill_elements(out, value, n, 1); break;
    case 2: dml_cpu_fill_elements(out, value, n, 2); break;
    case 4: dml_cpu_fill_elements(out, value, n, 4); break;
    default: dml_cpu_fill_elements(out, value, n, 8); break;
    }
}

static void packed_one_hot_range(const dml_plan* p, const dml_plan_args* a, uint64_t begin, uint64_t end)
{
    enum { CHUNK_BYTES = 16384 };
    const uint64_t depth = p->sizes[1], e = p->element_size, chunk = CHUNK_BYTES / e;
    byte* out = a->output + p->out_offset * (int64_t)e;
    const byte* on = a->input + p->in_offset * (int64_t)e;
    const byte* off = a->input2 + p->in2_offset * (int64_t)e;
    for (uint64_t lo = begin; lo < end; lo += chunk) {
        const uint64_t hi = end - lo < chunk ? end : lo + chunk;
        fill_value(out + lo * e, off, hi - lo, (uint32_t)e);
        for (uint64_t row = lo / depth; row * depth < hi; ++row) {
            uint64_t position;
            const int64_t at = p->len_offset + (int64_t)row * p->len_strides[0];
            const uint64_t v = dml_index_load(a->lengths, at, p->lengths_element_size, p->index_signed);
            if (!dml_index_resolve(v, p->index_signed, p->index_sizes[0], &position))
                continue;
            const uint64_t x = row * depth + position;
            if (x >= lo && x < hi)
                memcpy(out + x * e, on, e);
        }
    }
}

void dml_cpu_one_hot_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end)
{
    if (packed_one_hot(plan))
        packed_one_hot_range(plan, args, begin, end);
    else
        dml_cpu_row_walk_range(plan, args, begin, end, one_hot_row);
}

unsigned dml_cpu_select(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args)
{
    const int one_hot = plan->kind == DML_PLAN_ONE_HOT;
    return dml_cpu_run_split(pool, model, max_threads, plan, args, plan->element_count * plan->element_size,
        one_hot ? dml_cpu_one_hot_range : dml_cpu_select_range);
}
