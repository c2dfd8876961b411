/*
 * test_cpu_indexed.c — the CPU executors of the data-dependent plan kinds
 * (cpu_indexed.c: INDEXED, SCATTER; cpu_select.c: SELECT, ONE_HOT) on
 * hand-built plans against a naive reference written here from plan.h's
 * text: an odometer over every coordinate, each element's offsets summed
 * afresh, indices through plan.h's dml_index_resolve / dml_index_clamp
 * (the one definition of the index rules).
 *
 * Random ranks 1-8, element sizes 1, 2, 4, 8, indices of 4 and 8 bytes,
 * signed and unsigned, hostile index values (INT64_MIN, UINT64_MAX, 2^63,
 * -size-1, size, ...), any strides (negative, and 0: broadcast inputs,
 * scatters onto one element), every tensor in an exact-size buffer that
 * ends at a guard page (and whose bytes before it must stay as they were).
 * Each plan runs whole, in pieces executed out of order, on a pool of 1 to
 * 4 threads and (where the output is dense) with streamed stores; a
 * scatter's duplicates must resolve to the last update whatever the
 * threads. DML_TEST_QUICK=1 (valgrind) runs a quarter of the cases.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "cpu_execute.h"
#include "cpu_indexed.h"
#include "cpu_pool.h"
#include "cpu_select.h"
#include "guarded.h"

typedef unsigned char byte;

/* A cost model under which splitting always pays. */
static const dml_cpu_cost_model split_always = { .wake_ns = 0.0, .bytes_per_ns = 1.0 };

static uint64_t next(uint64_t* s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 27);
}

/* Uniform in [lo, hi]. */
static int64_t range(uint64_t* s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next(s) % (uint64_t)(hi - lo + 1));
}

static int cases(int full)
{
    const char* quick = getenv("DML_TEST_QUICK");
    return quick && quick[0] && strcmp(quick, "0") != 0 ? (full + 3) / 4 : full;
}

/* ---- the reference ------------------------------------------------------- */

/* An element of the lengths tensor as plan.h reads it (dml_index_load). */
static uint64_t ref_index(const dml_plan* p, const void* lengths, int64_t at)
{
    return dml_index_load(lengths, at, p->lengths_element_size, p->index_signed);
}

/* Every coordinate of the plan in row-major order: fn(c). */
typedef struct coords {
    uint64_t c[DML_PLAN_MAX_RANK];
} coords;

static int64_t dot(const dml_plan* p, const coords* c, int64_t base, const int64_t* strides)
{
    for (uint32_t d = 0; d < p->rank; ++d)
        base += (int64_t)c->c[d] * strides[d];
    return base;
}

static int coords_next(const dml_plan* p, coords* c)
{
    for (uint32_t d = p->rank; d-- > 0;) {
        if (++c->c[d] < p->sizes[d])
            return 1;
        c->c[d] = 0;
    }
    return 0;
}

/* The plan, element by element in row-major order, into out (out_bytes). */
static void reference(const dml_plan* p, const dml_plan_args* a, byte* out)
{
    const int64_t E = p->element_size;
    const byte* in = a->input;
    const byte* in2 = a->input2;
    const int64_t out_elements = (int64_t)(a->output_bytes / (uint64_t)E);
    coords c;
    memset(&c, 0, sizeof c);
    do {
        const int64_t len = dot(p, &c, p->len_offset, p->len_strides);
        int64_t src = dot(p, &c, p->in_offset, p->in_strides), dst = dot(p, &c, p->out_offset, p->out_strides);
        const byte* from = NULL;
        switch (p->kind) {
        case DML_PLAN_INDEXED:
            for (uint32_t k = 0; k < p->index_count; ++k)
                src += (int64_t)dml_index_clamp(ref_index(p, a->lengths, len + (int64_t)k * p->index_step),
                           p->index_signed, p->index_sizes[k]) * p->index_strides[k];
            from = in + src * E;
            break;
        case DML_PLAN_SCATTER: {
            int valid = 1;
            for (uint32_t k = 0; k < p->index_count && valid; ++k) {
                uint64_t position = 0;
                valid = dml_index_resolve(ref_index(p, a->lengths, len + (int64_t)k * p->index_step),
                    p->index_signed, p->index_sizes[k], &position);
                if (valid)
                    dst += (int64_t)position * p->index_strides[k];
            }
            /* A target beyond the bound output is dropped too: never written. */
            from = valid && dst >= 0 && dst < out_elements ? in + src * E : NULL;
            break;
        }
        case DML_PLAN_SELECT:
            from = ((const byte*)a->lengths)[len] ? in + src * E
                                                  : in2 + dot(p, &c, p->in2_offset, p->in2_strides) * E;
            break;
        case DML_PLAN_ONE_HOT: {
            uint64_t position;
            const uint64_t at_axis = p->axis < 0 ? 0 : c.c[p->axis];
            const int hit = dml_index_resolve(ref_index(p, a->lengths, len), p->index_signed, p->index_sizes[0],
                                &position) && position == at_axis;
            from = hit ? in + src * E : in2 + dot(p, &c, p->in2_offset, p->in2_strides) * E;
            break;
        }
        }
        if (from)
            memcpy(out + dst * E, from, (size_t)E);
    } while (coords_next(p, &c));
}

/* ---- random plans -------------------------------------------------------- */

/* The element offsets a walk with these strides (and index terms) reaches:
 * [*lo, *hi]. */
static void reach(const dml_plan* p, int64_t base, const int64_t* strides, const uint64_t* extra_sizes,
    const int64_t* extra_strides, uint32_t extra_count, int64_t* lo, int64_t* hi)
{
    *lo = *hi = base;
    for (uint32_t d = 0; d < p->rank; ++d) {
        const int64_t span = (int64_t)(p->sizes[d] - 1) * strides[d];
        *(span < 0 ? lo : hi) += span;
    }
    for (uint32_t k = 0; k < extra_count; ++k) {
        const int64_t span = (int64_t)(extra_sizes[k] - 1) * extra_strides[k];
        *(span < 0 ? lo : hi) += span;
    }
}

/* Output strides that never alias: row-major over a random order of the
 * dimensions, with gaps, some walking backwards. */
static void distinct_strides(uint64_t* s, const dml_plan* p, int64_t* strides, int packed)
{
    uint32_t order[DML_PLAN_MAX_RANK];
    for (uint32_t d = 0; d < p->rank; ++d)
        order[d] = d;
    if (!packed)
        for (uint32_t d = p->rank; d-- > 1;) {
            const uint32_t k = (uint32_t)range(s, 0, d), t = order[d];
            order[d] = order[k];
            order[k] = t;
        }
    int64_t stride = packed ? 1 : range(s, 1, 2);
    for (uint32_t i = p->rank; i-- > 0;) {
        const uint32_t d = order[i];
        strides[d] = !packed && range(s, 0, 4) == 0 ? -stride : stride;
        stride *= (int64_t)p->sizes[d] + (packed ? 0 : range(s, 0, 1));
    }
}

static int64_t some_stride(uint64_t* s)
{
    static const int64_t pick[] = { 0, 1, 1, 1, 2, 3, -1, -2, 5 };
    return pick[range(s, 0, (int64_t)(sizeof pick / sizeof pick[0]) - 1)];
}

/* An index value for a bound n: in range, negative in range, or hostile. */
static uint64_t some_index(uint64_t* s, uint64_t n, uint32_t index_bytes)
{
    uint64_t v;
    switch (range(s, 0, 11)) {
    case 0: v = (uint64_t)INT64_MIN; break;
    case 1: v = UINT64_MAX; break;
    case 2: v = (uint64_t)1 << 63; break;
    case 3: v = (uint64_t)0 - n - 1; break; /* -n - 1 */
    case 4: v = n; break;
    case 5: v = (uint64_t)0 - n; break; /* -n: position 0 when signed */
    case 6: v = (uint64_t)INT32_MIN; break;
    case 7: v = 0x80000000u; break;
    case 8:
    case 9: v = (uint64_t)range(s, 0, (int64_t)n - 1); break;
    default: v = (uint64_t)0 - (uint64_t)range(s, 1, (int64_t)n); break;
    }
    return index_bytes == 4 ? (uint64_t)(uint32_t)v : v;
}

typedef struct tcase {
    dml_plan plan;
    guarded in, in2, len, out;
    byte* sentinel; /* the output's initial bytes */
    byte* expected;
} tcase;

/* A random plan of `kind` with tensors in guarded buffers. `rows`: an
 * innermost dimension that reads no index, contiguous in and out. */
static void tcase_make(tcase* t, uint64_t* s, uint32_t kind, uint32_t element_size, int rows)
{
    memset(t, 0, sizeof *t);
    dml_plan* p = &t->plan;
    p->kind = kind;
    p->element_size = element_size;
    p->axis = -1;
    p->rank = (uint32_t)range(s, 1, 8);
    uint64_t count = 1;
    for (uint32_t d = 0; d < p->rank; ++d) {
        const uint64_t cap = count < 600 ? 600 / count : 1;
        uint64_t size = (uint64_t)range(s, 1, d + 1 == p->rank && rows ? 70 : 5);
        p->sizes[d] = size < cap ? size : cap > 0 ? cap : 1;
        count *= p->sizes[d];
    }
    p->element_count = count;
    const uint32_t r = p->rank - 1;
    const int scatter = kind == DML_PLAN_SCATTER, indexed = kind == DML_PLAN_INDEXED || scatter;
    p->lengths_element_size = kind == DML_PLAN_SELECT ? 1 : range(s, 0, 1) ? 8 : 4;
    p->index_signed = (uint32_t)range(s, 0, 1);
    if (indexed) {
        p->index_count = (uint32_t)range(s, 0, 6) == 0 ? 0 : (uint32_t)range(s, 1, 3);
        p->index_step = range(s, 0, 3) == 0 ? -1 : range(s, 1, 2);
        for (uint32_t k = 0; k < p->index_count; ++k) {
            p->index_sizes[k] = (uint64_t)range(s, 1, 6);
            p->index_strides[k] = range(s, -3, 9);
        }
    } else if (kind == DML_PLAN_ONE_HOT) {
        p->axis = (int32_t)range(s, -1, (int64_t)r);
        p->index_count = 1;
        p->index_sizes[0] = p->axis >= 0 && range(s, 0, 3) ? p->sizes[p->axis] : (uint64_t)range(s, 1, 6);
    }
    /* Strides: the output distinct (a scatter's anything: duplicates), the rest anything. */
    const int packed = range(s, 0, 2) == 0;
    if (scatter) {
        for (uint32_t d = 0; d < p->rank; ++d)
            p->out_strides[d] = range(s, 0, 3) ? some_stride(s) : 0;
    } else {
        distinct_strides(s, p, p->out_strides, packed);
    }
    for (uint32_t d = 0; d < p->rank; ++d) {
        p->in_strides[d] = some_stride(s);
        p->in2_strides[d] = range(s, 0, 2) ? 0 : some_stride(s);
        p->len_strides[d] = range(s, 0, 3) ? some_stride(s) : 0;
    }
    if (kind == DML_PLAN_ONE_HOT && p->axis >= 0 && range(s, 0, 3))
        p->len_strides[p->axis] = 0; /* as the operator builds it */
    if (kind == DML_PLAN_ONE_HOT && range(s, 0, 1))
        memset(p->in_strides, 0, sizeof p->in_strides); /* the usual broadcast on / off values */
    if (rows) {
        p->len_strides[r] = 0;
        p->in_strides[r] = 1;
        if (scatter)
            p->out_strides[r] = 1;
    }
    /* Offsets and exact buffers from each tensor's reach. */
    const int64_t E = element_size;
    int64_t lo, hi;
    const uint32_t extra = indexed ? p->index_count : 0;
    reach(p, 0, p->in_strides, p->index_sizes, p->index_strides, kind == DML_PLAN_INDEXED ? extra : 0, &lo, &hi);
    p->in_offset = -lo + range(s, 0, 2);
    guarded_make(&t->in, (size_t)((hi - lo + 1 + range(s, 0, 2)) * E + (p->in_offset + lo) * E));
    reach(p, 0, p->out_strides, p->index_sizes, p->index_strides, scatter ? extra : 0, &lo, &hi);
    p->out_offset = -lo + range(s, 0, 1);
    int64_t out_elements = p->out_offset + hi + 1 + range(s, 0, 1);
    if (scatter && range(s, 0, 4) == 0 && out_elements > 1) /* a bound output smaller than the reach */
        out_elements = range(s, 1, out_elements - 1);
    guarded_make(&t->out, (size_t)(out_elements * E));
    if (kind == DML_PLAN_SELECT || kind == DML_PLAN_ONE_HOT) {
        reach(p, 0, p->in2_strides, NULL, NULL, 0, &lo, &hi);
        p->in2_offset = -lo;
        guarded_make(&t->in2, (size_t)((hi - lo + 1) * E));
    }
    const int64_t step[1] = { p->index_step };
    const uint64_t components[1] = { p->index_count ? p->index_count : 1 };
    reach(p, 0, p->len_strides, components, step, indexed ? 1 : 0, &lo, &hi);
    p->len_offset = -lo;
    const uint32_t LS = p->lengths_element_size;
    guarded_make(&t->len, (size_t)((hi - lo + 1) * LS));
    /* Contents: data bytes, conditions, index values for the bound each reads. */
    for (size_t i = 0; i < t->in.bytes; ++i)
        t->in.data[i] = (byte)next(s);
    for (size_t i = 0; i < t->in2.bytes; ++i)
        t->in2.data[i] = (byte)next(s);
    const uint64_t elements = (uint64_t)(hi - lo + 1);
    for (uint64_t i = 0; i < elements; ++i) {
        if (kind == DML_PLAN_SELECT) {
            static const byte conditions[] = { 0, 1, 255, 0x80, 0 };
            t->len.data[i] = conditions[range(s, 0, 4)];
            continue;
        }
        const uint64_t bound = p->index_count ? p->index_sizes[range(s, 0, p->index_count - 1)] : 3;
        const uint64_t v = some_index(s, bound, LS);
        memcpy(t->len.data + i * LS, &v, LS); /* little-endian: the low bytes */
    }
    t->sentinel = malloc(t->out.bytes);
    t->expected = malloc(t->out.bytes);
    ck_assert(t->sentinel && t->expected);
    for (size_t i = 0; i < t->out.bytes; ++i)
        t->sentinel[i] = t->out.data[i] = (byte)next(s);
    memcpy(t->expected, t->sentinel, t->out.bytes);
    dml_plan_args a = { t->in.data, t->len.data, t->expected, t->in.bytes, t->len.bytes, t->out.bytes, t->in2.data,
        t->in2.bytes };
    reference(p, &a, t->expected);
}

static void tcase_free(tcase* t)
{
    guarded_free(&t->in);
    guarded_free(&t->out);
    guarded_free(&t->len);
    if (t->in2.map)
        guarded_free(&t->in2);
    free(t->sentinel);
    free(t->expected);
}

static dml_plan_args tcase_args(const tcase* t)
{
    return (dml_plan_args){ t->in.data, t->len.data, t->out.data, t->in.bytes, t->len.bytes, t->out.bytes,
        t->in2.map ? t->in2.data : NULL, t->in2.bytes };
}

static void reset(tcase* t)
{
    memcpy(t->out.data, t->sentinel, t->out.bytes);
}

static void compare(const tcase* t, const char* how, int seed)
{
    guarded_check_before(&t->out, how);
    if (memcmp(t->out.data, t->expected, t->out.bytes) == 0)
        return;
    size_t i = 0;
    while (t->out.data[i] == t->expected[i])
        ++i;
    ck_abort_msg("%s (seed %d, kind %u, rank %u, e %u, index %u%s, count %u): byte %zu is %02x, want %02x", how, seed,
        t->plan.kind, t->plan.rank, t->plan.element_size, t->plan.lengths_element_size,
        t->plan.index_signed ? " signed" : "", t->plan.index_count, i, t->out.data[i], t->expected[i]);
}

/* ---- running the executors ------------------------------------------------ */

static dml_cpu_range_fn range_fn(uint32_t kind)
{
    return kind == DML_PLAN_INDEXED ? dml_cpu_indexed_range
        : kind == DML_PLAN_SELECT   ? dml_cpu_select_range
                                    : dml_cpu_one_hot_range;
}

static unsigned run_whole(cpu_pool* pool, unsigned threads, const dml_plan* p, const dml_plan_args* a)
{
    switch (p->kind) {
    case DML_PLAN_INDEXED: return dml_cpu_indexed(pool, &split_always, threads, p, a);
    case DML_PLAN_SCATTER: return dml_cpu_scatter(pool, &split_always, threads, p, a);
    default: return dml_cpu_select(pool, &split_always, threads, p, a);
    }
}

/* Whole; in random pieces, last first; on 1..4 threads; streamed. */
static void check_tcase(tcase* t, uint64_t* s, cpu_pool* pool, int seed)
{
    const dml_plan* p = &t->plan;
    dml_plan_args a = tcase_args(t);
    ck_assert(p->kind == DML_PLAN_SCATTER ? dml_cpu_indexed_supports(p)
              : p->kind == DML_PLAN_ONE_HOT ? dml_cpu_one_hot_supports(p) : 1);
    if (p->kind == DML_PLAN_SCATTER) {
        /* Windows of the output in random order: the threads' ranges. */
        const int64_t elements = (int64_t)(t->out.bytes / p->element_size);
        int64_t cut = elements;
        reset(t);
        while (cut > 0) {
            const int64_t from = range(s, 0, 2) ? range(s, 0, cut - 1) : 0;
            dml_cpu_scatter_window(p, &a, from, cut);
            cut = from;
        }
        compare(t, "scatter windows", seed);
    } else {
        const dml_cpu_range_fn fn = range_fn(p->kind);
        reset(t);
        fn(p, &a, 0, p->element_count);
        compare(t, "whole range", seed);
        reset(t);
        uint64_t cut = p->element_count;
        while (cut > 0) {
            const uint64_t from = (uint64_t)range(s, 0, (int64_t)cut - 1);
            fn(p, &a, from, cut);
            cut = from;
        }
        compare(t, "pieces", seed);
    }
    for (unsigned threads = 1; threads <= 4; ++threads) {
        reset(t);
        run_whole(pool, threads, p, &a);
        compare(t, threads == 1 ? "1 thread" : threads == 2 ? "2 threads" : threads == 3 ? "3 threads" : "4 threads",
            seed);
    }
    if (p->kind != DML_PLAN_SCATTER) {
        const uint64_t saved = dml_cpu_stream_min_bytes(0);
        reset(t);
        run_whole(pool, 3, p, &a);
        compare(t, "streamed", seed);
        reset(t); /* pieces starting and ending inside rows, each streamed on its own */
        for (uint64_t cut = p->element_count, from; cut > 0; cut = from) {
            from = (uint64_t)range(s, 0, (int64_t)cut - 1);
            range_fn(p->kind)(p, &a, from, cut);
        }
        dml_cpu_stream_min_bytes(saved);
        compare(t, "streamed pieces", seed);
    }
}

static const uint32_t kinds[] = { DML_PLAN_INDEXED, DML_PLAN_SCATTER, DML_PLAN_SELECT, DML_PLAN_ONE_HOT };

START_TEST(random_plans)
{
    cpu_pool* pool = cpu_pool_create(4);
    ck_assert_ptr_nonnull(pool);
    const uint32_t kind = kinds[_i];
    const int n = cases(kind == DML_PLAN_INDEXED || kind == DML_PLAN_SCATTER ? 320 : 160);
    for (int c = 0; c < n; ++c) {
        uint64_t s = 0x1DE7 + (uint64_t)_i * 100003u + (uint64_t)c;
        tcase t;
        const int rows = (kind == DML_PLAN_INDEXED || kind == DML_PLAN_SCATTER) && c % 3 == 0;
        tcase_make(&t, &s, kind, 1u << (c % 4), rows);
        check_tcase(&t, &s, pool, c);
        tcase_free(&t);
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* Many updates onto few elements, every thread count: the last in
 * row-major order wins (rows and single elements). */
START_TEST(scatter_last_wins)
{
    cpu_pool* pool = cpu_pool_create(4);
    ck_assert_ptr_nonnull(pool);
    for (int c = 0; c < cases(40); ++c) {
        uint64_t s = 0x5CA7 + (uint64_t)c;
        const uint32_t e = 1u << (c % 4), row = c % 2 ? (uint32_t)range(&s, 2, 40) : 1;
        const uint32_t updates = (uint32_t)range(&s, 50, 400), targets = (uint32_t)range(&s, 1, 6);
        tcase t;
        memset(&t, 0, sizeof t);
        dml_plan* p = &t.plan;
        p->kind = DML_PLAN_SCATTER;
        p->element_size = e;
        p->axis = -1;
        p->rank = row > 1 ? 2 : 1; /* rank 1: one index per element (the per-element loop) */
        p->sizes[0] = updates;
        p->sizes[1] = row;
        p->element_count = (uint64_t)updates * row;
        p->in_strides[0] = row;
        p->in_strides[1] = 1;
        p->out_strides[1] = 1;
        p->len_strides[0] = 1;
        p->lengths_element_size = c % 3 ? 8 : 4;
        p->index_signed = (uint32_t)(c % 2);
        p->index_count = 1;
        p->index_sizes[0] = targets;
        p->index_strides[0] = row;
        guarded_make(&t.in, (size_t)p->element_count * e);
        guarded_make(&t.len, (size_t)updates * p->lengths_element_size);
        guarded_make(&t.out, (size_t)targets * row * e);
        for (size_t i = 0; i < t.in.bytes; ++i)
            t.in.data[i] = (byte)next(&s);
        for (uint32_t i = 0; i < updates; ++i) {
            const uint64_t v = range(&s, 0, 9) ? (uint64_t)range(&s, 0, targets - 1) : some_index(&s, targets, 8);
            memcpy(t.len.data + (size_t)i * p->lengths_element_size, &v, p->lengths_element_size);
        }
        t.sentinel = malloc(t.out.bytes);
        t.expected = malloc(t.out.bytes);
        for (size_t i = 0; i < t.out.bytes; ++i)
            t.sentinel[i] = t.out.data[i] = (byte)next(&s);
        memcpy(t.expected, t.sentinel, t.out.bytes);
        dml_plan_args a = tcase_args(&t);
        a.output = t.expected;
        reference(p, &a, t.expected);
        check_tcase(&t, &s, pool, c);
        tcase_free(&t);
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* Rows long enough for the memcpy paths, with indices at every hostile
 * value: a GATHER of rows (one index per row) and its scatter. */
START_TEST(rows_of_every_index)
{
    cpu_pool* pool = cpu_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    for (int c = 0; c < cases(32); ++c) {
        uint64_t s = 0x20E5 + (uint64_t)c;
        const uint32_t e = 1u << (c % 4), row = (uint32_t)range(&s, 100, 700);
        /* Every eighth table (a gather's) past 1 MiB, its rows prefetched; up to 80
         * lookups, more than the executor looks ahead. */
        const uint32_t table = c % 8 == 3 ? (1u << 20) / (row * e) + 1 : (uint32_t)range(&s, 1, 9);
        const uint32_t lookups = (uint32_t)range(&s, 1, 80);
        tcase t;
        memset(&t, 0, sizeof t);
        dml_plan* p = &t.plan;
        p->kind = c % 8 < 4 ? DML_PLAN_INDEXED : DML_PLAN_SCATTER;
        p->element_size = e;
        p->axis = -1;
        p->rank = 2;
        p->sizes[0] = lookups;
        p->sizes[1] = row;
        p->element_count = (uint64_t)lookups * row;
        p->len_strides[0] = 1;
        p->lengths_element_size = c % 3 ? 8 : 4;
        p->index_signed = (uint32_t)((c / 2) % 2);
        p->index_count = 1;
        p->index_sizes[0] = table;
        p->index_strides[0] = row;
        const int gather = p->kind == DML_PLAN_INDEXED;
        p->in_strides[0] = gather ? 0 : row;
        p->in_strides[1] = 1;
        p->out_strides[0] = gather ? row : 0;
        p->out_strides[1] = 1;
        guarded_make(&t.in, (size_t)(gather ? table : lookups) * row * e);
        guarded_make(&t.len, (size_t)lookups * p->lengths_element_size);
        guarded_make(&t.out, (size_t)(gather ? lookups : table) * row * e);
        for (size_t i = 0; i < t.in.bytes; ++i)
            t.in.data[i] = (byte)next(&s);
        for (uint32_t i = 0; i < lookups; ++i) {
            const uint64_t v = some_index(&s, table, p->lengths_element_size);
            memcpy(t.len.data + (size_t)i * p->lengths_element_size, &v, p->lengths_element_size);
        }
        t.sentinel = malloc(t.out.bytes);
        t.expected = malloc(t.out.bytes);
        for (size_t i = 0; i < t.out.bytes; ++i)
            t.sentinel[i] = t.out.data[i] = (byte)next(&s);
        memcpy(t.expected, t.sentinel, t.out.bytes);
        dml_plan_args a = tcase_args(&t);
        a.output = t.expected;
        reference(p, &a, t.expected);
        check_tcase(&t, &s, pool, c);
        tcase_free(&t);
    }
    cpu_pool_destroy(pool);
}
END_TEST

/* The index rules at their edges, value by value (the executors call
 * plan.h's helpers; this pins what those helpers say). */
START_TEST(index_rules)
{
    uint64_t position = 99;
    ck_assert(!dml_index_resolve((uint64_t)INT64_MIN, 1, 5, &position));
    ck_assert_uint_eq(dml_index_clamp((uint64_t)INT64_MIN, 1, 5), 0);
    ck_assert_uint_eq(dml_index_clamp((uint64_t)INT64_MIN, 0, 5), 4); /* 2^63 unsigned: past the end */
    ck_assert_uint_eq(dml_index_clamp(UINT64_MAX, 0, 5), 4);
    ck_assert_uint_eq(dml_index_clamp(UINT64_MAX, 1, 5), 4); /* -1 */
    ck_assert(dml_index_resolve((uint64_t)-5, 1, 5, &position) && position == 0);
    ck_assert(!dml_index_resolve((uint64_t)-6, 1, 5, &position));
    ck_assert(!dml_index_resolve(5, 1, 5, &position));
    ck_assert_uint_eq(dml_index_load((const uint32_t[]){ 0xFFFFFFFFu }, 0, 4, 1), UINT64_MAX);
    ck_assert_uint_eq(dml_index_load((const uint32_t[]){ 0xFFFFFFFFu }, 0, 4, 0), 0xFFFFFFFFull);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cpu_indexed");
    TCase* tc = tcase_create("indexed");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, random_plans, 0, (int)(sizeof kinds / sizeof kinds[0]));
    tcase_add_test(tc, scatter_last_wins);
    tcase_add_test(tc, rows_of_every_index);
    tcase_add_test(tc, index_rules);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
