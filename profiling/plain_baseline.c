/*
 * plain_baseline.c — dmlbench's plain-C baseline for small gathers: the
 * loops of plain_gather.c run on the case's own shapes, timed beside the
 * operator, and checked against its output.
 */
#include "dmlbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tensor's strides in elements, packed ones when it has none. */
static void strides_of(const btensor* t, int64_t* strides)
{
    int64_t packed = 1;
    for (int d = (int)t->buffer.DimensionCount - 1; d >= 0; --d) {
        strides[d] = t->buffer.Strides ? (int64_t)t->strides[d] : packed;
        packed *= t->sizes[d];
    }
}

/* The case as the plain-C loops see it (plain_gather.h), from its desc. */
static void plain_of(const built_case* c, unsigned element_size, plain_gather* g)
{
    memset(g, 0, sizeof *g);
    g->rank = c->out.buffer.DimensionCount;
    g->element_size = element_size;
    g->reverse_axis = -1;
    int64_t in_strides[4];
    strides_of(&c->in, in_strides);
    for (unsigned d = 0; d < g->rank; ++d) {
        g->sizes[d] = c->out.sizes[d];
        g->in_strides[d] = in_strides[d];
    }
    if (c->desc.Type == DML_OPERATOR_SLICE1) {
        /* Output[c] = Input[start + stride * c], start at the window's far
         * end for a negative stride. */
        for (unsigned d = 0; d < g->rank; ++d) {
            const int64_t step = c->slice_strides[d];
            const int64_t start = (int64_t)c->offsets[d] + (step < 0 ? (int64_t)c->window[d] - 1 : 0);
            g->in_offset += start * in_strides[d];
            g->in_strides[d] = step * in_strides[d];
        }
    } else {
        g->reverse_axis = (int)c->reverse.Axis;
        strides_of(&c->lengths, g->len_strides);
        g->lengths = c->lengths_data;
    }
}

static int naive_loop(const plain_gather* g, void* out, const void* in)
{
    plain_gather_naive(g, out, in);
    return 1;
}

/* Nanoseconds of one run of the loop after an untimed one (as the operator
 * is timed). */
static double time_loop(int (*loop)(const plain_gather*, void*, const void*), const plain_bench* b)
{
    loop(&b->g, b->out, b->in);
    const double t0 = now_ns();
    loop(&b->g, b->out, b->in);
    return now_ns() - t0;
}

void plain_free(plain_bench* b)
{
    free(b->in);
    free(b->out);
    free(b->expected);
    free(b->naive_samples);
    free(b->rows_samples);
    memset(b, 0, sizeof *b);
}

int plain_prepare(plain_bench* b, const built_case* c, unsigned element_size, int repetitions)
{
    memset(b, 0, sizeof *b);
    if (c->desc.Type != DML_OPERATOR_SLICE1 && c->desc.Type != DML_OPERATOR_REVERSE_SUBSEQUENCES)
        return 0; /* JOIN and SPLIT: several tensors, no single plain loop to compare with */
    const uint64_t in_bytes = c->in.buffer.TotalTensorSizeInBytes;
    b->out_bytes = c->out.buffer.TotalTensorSizeInBytes;
    b->in = malloc(in_bytes ? in_bytes : 1);
    b->out = calloc(b->out_bytes ? b->out_bytes : 1, 1);
    b->expected = malloc(b->out_bytes ? b->out_bytes : 1);
    b->naive_samples = calloc((size_t)repetitions, sizeof(double));
    b->rows_samples = calloc((size_t)repetitions, sizeof(double));
    if (!b->in || !b->out || !b->expected || !b->naive_samples || !b->rows_samples) {
        plain_free(b);
        return 0;
    }
    for (uint64_t i = 0; i < in_bytes; ++i) /* run_case's input pattern */
        b->in[i] = (unsigned char)((i % (16u << 20)) * 131u + 7u);
    plain_of(c, element_size, &b->g);
    b->has_rows = plain_gather_rows(&b->g, b->out, b->in);
    return 1;
}

void plain_repeat(plain_bench* b, int i)
{
    const double naive = time_loop(naive_loop, b);
    const double rows = b->has_rows ? time_loop(plain_gather_rows, b) : 0;
    if (i >= 0) {
        b->naive_samples[i] = naive;
        b->rows_samples[i] = rows;
    }
}

double plain_seconds(plain_bench* b, DMLCommandQueue queue, DMLBuffer buffer, uint64_t out_at, int repetitions)
{
    check(dmlCommandQueueReadBuffer(queue, buffer, out_at, b->expected, b->out_bytes), "ReadBuffer");
    if (b->has_rows) {
        if (memcmp(b->out, b->expected, b->out_bytes) != 0) {
            fprintf(stderr, "dmlbench: the operator's output differs from the per-row memcpy loop's\n");
            exit(1);
        }
        memset(b->out, 0, b->out_bytes);
    }
    plain_gather_naive(&b->g, b->out, b->in);
    if (memcmp(b->out, b->expected, b->out_bytes) != 0) {
        fprintf(stderr, "dmlbench: the operator's output differs from the plain-C loop's\n");
        exit(1);
    }
    const double naive = summarize(b->naive_samples, repetitions).median;
    const double rows = b->has_rows ? summarize(b->rows_samples, repetitions).median : 0;
    return (rows > 0 && rows < naive ? rows : naive) * 1e-9;
}
