/*
 * cpu_row_walk.h — the outer odometer the data-dependent executors
 * (cpu_indexed.c, cpu_select.c) share: a plan's rows (its innermost
 * dimension) one after another, with every tensor's element offset at the
 * row's first element, so each executor writes only its row loops; and
 * the row copy they all fall back on.
 */
#ifndef DML_CPU_ROW_WALK_H
#define DML_CPU_ROW_WALK_H

#include <stdint.h>
#include <string.h>

#include "core/plan.h"

typedef struct dml_cpu_row_walk {
    uint64_t c[DML_PLAN_MAX_RANK]; /* the row's coordinates on the outer dimensions (c[rank - 1] stays 0) */
    int64_t in, out, len, in2;     /* element offsets of the row's first element */
} dml_cpu_row_walk;

/* The walk at row `row` (row-major over sizes[0 .. rank - 2]). */
static inline void dml_cpu_row_walk_init(dml_cpu_row_walk* w, const dml_plan* p, uint64_t row)
{
    w->in = p->in_offset;
    w->out = p->out_offset;
    w->len = p->len_offset;
    w->in2 = p->in2_offset;
    w->c[p->rank - 1] = 0;
    for (uint32_t d = p->rank - 1; d-- > 0;) {
        const uint64_t c = row % p->sizes[d];
        row /= p->sizes[d];
        w->c[d] = c;
        w->in += (int64_t)c * p->in_strides[d];
        w->out += (int64_t)c * p->out_strides[d];
        w->len += (int64_t)c * p->len_strides[d];
        w->in2 += (int64_t)c * p->in2_strides[d];
    }
}

/* The next row (wrapping to row 0 after the last). */
static inline void dml_cpu_row_walk_next(dml_cpu_row_walk* w, const dml_plan* p)
{
    for (uint32_t d = p->rank - 1; d-- > 0;) {
        w->in += p->in_strides[d];
        w->out += p->out_strides[d];
        w->len += p->len_strides[d];
        w->in2 += p->in2_strides[d];
        if (++w->c[d] < p->sizes[d])
            return;
        const int64_t n = (int64_t)p->sizes[d];
        w->in -= n * p->in_strides[d];
        w->out -= n * p->out_strides[d];
        w->len -= n * p->len_strides[d];
        w->in2 -= n * p->in2_strides[d];
        w->c[d] = 0;
    }
}

/* The previous row (the inverse of dml_cpu_row_walk_next). */
static inline void dml_cpu_row_walk_prev(dml_cpu_row_walk* w, const dml_plan* p)
{
    for (uint32_t d = p->rank - 1; d-- > 0;) {
        if (w->c[d] > 0) {
            --w->c[d];
            w->in -= p->in_strides[d];
            w->out -= p->out_strides[d];
            w->len -= p->len_strides[d];
            w->in2 -= p->in2_strides[d];
            return;
        }
        const int64_t last = (int64_t)p->sizes[d] - 1;
        w->in += last * p->in_strides[d];
        w->out += last * p->out_strides[d];
        w->len += last * p->len_strides[d];
        w->in2 += last * p->in2_strides[d];
        w->c[d] = (uint64_t)last;
    }
}

/* A row executor: elements [j0, j1) of the walk's row. */
typedef void (*dml_cpu_row_fn)(const dml_plan* p, const dml_plan_args* args, const dml_cpu_row_walk* w, uint64_t j0,
    uint64_t j1);

/* Flat output indices [begin, end) of the plan, row piece by row piece. */
static inline void dml_cpu_row_walk_range(const dml_plan* p, const dml_plan_args* args, uint64_t begin, uint64_t end,
    dml_cpu_row_fn row_fn)
{
    if (begin >= end)
        return;
    const uint64_t n = p->sizes[p->rank - 1];
    dml_cpu_row_walk w;
    dml_cpu_row_walk_init(&w, p, begin / n);
    uint64_t j = begin % n;
    while (begin < end) {
        const uint64_t j1 = n - j < end - begin ? n : j + (end - begin);
        row_fn(p, args, &w, j, j1);
        begin += j1 - j;
        j = 0;
        dml_cpu_row_walk_next(&w, p);
    }
}

static inline __attribute__((always_inline)) void dml_cpu_copy_elements(unsigned char* out, int64_t os,
    const unsigned char* in, int64_t is, uint64_t n, int64_t E)
{
    for (uint64_t j = 0; j < n; ++j)
        memcpy(out + (int64_t)j * os * E, in + (int64_t)j * is * E, (size_t)E);
}

/* n copies of the value at in: 16 bytes of it at a time (every 16 bytes
 * from the row's start begin an element), held while stored (the output
 * may overlap it). */
static inline __attribute__((always_inline)) void dml_cpu_fill_elements(unsigned char* out, const unsigned char* in,
    uint64_t n, int64_t E)
{
    unsigned char line[16];
    for (int64_t b = 0; b < 16; b += E)
        memcpy(line + b, in, (size_t)E);
    const uint64_t bytes = n * (uint64_t)E;
    uint64_t at = 0;
    for (; at + 16 <= bytes; at += 16)
        memcpy(out + at, line, 16);
    for (; at < bytes; at += (uint64_t)E) /* the last elements of a row not a multiple of 16 bytes */
        memcpy(out + at, line, (size_t)E);
}

/* n elements of e bytes from in (stride is) to out (stride os): memcpy when
 * both are contiguous, else a loop the element size (and a contiguous
 * output's broadcast input) is a constant of. */
static inline void dml_cpu_copy_row(unsigned char* out, int64_t os, const unsigned char* in, int64_t is, uint64_t n,
    uint32_t e)
{
    if (os == 1 && is == 1) {
        memcpy(out, in, (size_t)(n * e));
        return;
    }
#define DML_CPU_COPY_CASE(E)                                  \
    case E:                                                   \
        if (os == 1 && is == 0) /* one value: a fill */      \
            dml_cpu_fill_elements(out, in, n, E);             \
        else if (os == 1)                                     \
            dml_cpu_copy_elements(out, 1, in, is, n, E);      \
        else                                                  \
            dml_cpu_copy_elements(out, os, in, is, n, E);     \
        return;
    switch (e) {
        DML_CPU_COPY_CASE(1)
        DML_CPU_COPY_CASE(2)
        DML_CPU_COPY_CASE(4)
        DML_CPU_COPY_CASE(8)
    }
#undef DML_CPU_COPY_CASE
}

#endif /* DML_CPU_ROW_WALK_H */
