/*
 * plan.h — the execution plan every backend executes.
 *
 * Operators lower to steps (ops/op.h), each one plan of a kind the backend
 * declares. Every kind so far is a canonical strided gather, built once at
 * compile time (plan_build.h):
 *
 *   for every output coordinate c (rank <= 8, outermost first):
 *     out[out_offset + sum(c[i] * out_strides[i])] = in[in_offset + sum(c[i] * in_strides[i])]
 *
 * with reversal folded into negative input strides, dimensions of size 1
 * dropped, dimensions reordered so output strides decrease (the innermost
 * dimension is the one a warp should walk), and adjacent dimensions merged
 * wherever every tensor stays affine across them.
 *
 * DML_PLAN_REVERSE_SUBSEQUENCES adds one twist on dimension `axis`: with
 *   L = min(lengths[len_offset + sum(c[i] * len_strides[i])], axis_size)
 * the input coordinate on `axis` is (j < L ? L - 1 - j : j) for j = c[axis].
 * len_strides[axis] is 0. Lengths are read at execution time. A single
 * operator's plan walks the whole axis (sizes[axis] == axis_size); a plan
 * composed from a graph (plan_compose.c) may walk only its first
 * sizes[axis] < axis_size positions, reading source positions up to
 * axis_size - 1: executors must not assume the two are equal.
 *
 * DML_PLAN_SCALE_BIAS is the gather with each element transformed on the way
 * (ELEMENT_WISE_IDENTITY with ScaleBias): out = in * scale + bias for the
 * floating-point data_type, as core/scale_bias.h computes it. It is never
 * fused.
 *
 * The struct is plain data (no pointers), so a GPU kernel can take it by value.
 * Offsets and strides are in elements of the tensor they index, relative to the
 * start of the bound buffer range.
 */
#ifndef DML_CORE_PLAN_H
#define DML_CORE_PLAN_H

#include <stdint.h>

#include "hd.h"

#define DML_PLAN_MAX_RANK 8

/* Append only: backends declare the kinds they execute as a bit set
 * (dml_backend.plan_kinds, DML_PLAN_KIND_BIT), and the core refuses a compile
 * needing a kind the device's backend lacks. */
typedef enum dml_plan_kind {
    DML_PLAN_GATHER = 0,
    DML_PLAN_REVERSE_SUBSEQUENCES = 1,
    DML_PLAN_SCALE_BIAS = 2,
    DML_PLAN_KIND_COUNT
} dml_plan_kind;

#define DML_PLAN_KIND_BIT(kind) (1u << (kind))

typedef struct dml_plan {
    uint32_t kind;                 /* dml_plan_kind */
    uint32_t rank;                 /* 1..8 after normalisation */
    uint32_t element_size;         /* 1, 2, 4 or 8 bytes */
    int32_t axis;                  /* REVERSE_SUBSEQUENCES: dimension of the reversal; else -1 */
    uint32_t lengths_element_size; /* REVERSE_SUBSEQUENCES: 4 (UINT32) or 8 (UINT64); else 0 */
    uint32_t index32;              /* the element count and every element offset of every tensor fit in int32 */
    uint64_t element_count;        /* product of sizes */
    uint64_t axis_size;            /* REVERSE_SUBSEQUENCES: the clamp for lengths, >= sizes[axis] */
    int64_t in_offset;
    int64_t out_offset;
    int64_t len_offset;
    uint64_t sizes[DML_PLAN_MAX_RANK];
    int64_t in_strides[DML_PLAN_MAX_RANK];
    int64_t out_strides[DML_PLAN_MAX_RANK];
    int64_t len_strides[DML_PLAN_MAX_RANK];
    uint32_t data_type;            /* SCALE_BIAS: DML_TENSOR_DATA_TYPE (FLOAT32, FLOAT16, FLOAT64); else 0 */
    float scale, bias;             /* SCALE_BIAS */
} dml_plan;

/* The pointers a dispatch binds to a plan: the starts of the bound ranges,
 * and their sizes in bytes (the emulated CUDA backend checks every access
 * against them; 0 where nothing is bound). */
typedef struct dml_plan_args {
    const void* input;
    const void* lengths; /* REVERSE_SUBSEQUENCES only */
    void* output;
    uint64_t input_bytes, lengths_bytes, output_bytes;
} dml_plan_args;

/* A sequence length read from device memory, clamped to its axis as the
 * spec says: the one definition every executor (CPU, CUDA, the emulator)
 * applies to what it reads. */
DML_HD uint64_t dml_clamp_sequence_length(uint64_t length, uint64_t axis_size)
{
    return length < axis_size ? length : axis_size;
}

/* The clamped length at element `index` of the lengths tensor. */
static inline uint64_t dml_plan_read_length(const dml_plan* plan, const void* lengths, int64_t index)
{
    uint64_t length = plan->lengths_element_size == 8 ? ((const uint64_t*)lengths)[index]
                                                      : ((const uint32_t*)lengths)[index];
    return dml_clamp_sequence_length(length, plan->axis_size);
}

#endif /* DML_CORE_PLAN_H */
