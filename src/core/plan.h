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
 * DML_PLAN_CAST is the gather converting each element from in_data_type
 * (in_element_size bytes) to data_type (element_size bytes) by
 * core/cast.h's rules, identical on every backend. Input offsets count
 * input elements.
 *
 * DML_PLAN_FILL has no input: the element at output coordinate c is
 *   fill_start + k * fill_delta, k = in_offset + sum(c[i] * in_strides[i])
 * in data_type (the element's position in a sequence; all in_strides 0 and
 * k = 0 for a constant). The builder normalises it as any gather.
 *
 * DML_PLAN_PAD is the gather whose input coordinate on each dimension i is
 * folded: j = c[i] + pad_origin[i] is brought into [0, pad_extent[i]) by
 * pad_mode (DML_PADDING_MODE: EDGE clamps, REFLECTION and SYMMETRIC mirror
 * with periods 2(n-1) and 2n); pad_extent[i] = 0 means no fold (j itself).
 * Under CONSTANT an element whose j leaves [0, pad_extent[i]) on any folded
 * dimension is fill_start instead. Dimensions are not merged across folds.
 *
 * Data-dependent kinds read an index tensor through the lengths pointer: the
 * element at  x = len_offset + sum(c[i] * len_strides[i])  of
 * lengths_element_size (4 or 8) bytes, signed when index_signed. Component k
 * of an index tuple (k < index_count) is the element at x + k * index_step.
 * An index is resolved against its bound n = index_sizes[k] by
 * dml_index_resolve: a signed negative value counts from the end (v + n)
 * once; what is still outside [0, n) is out of range. Indices live in device
 * memory and are never trusted: out-of-range values are clamped or dropped
 * (per kind, below) before they scale a stride, so no address overflows.
 *
 * DML_PLAN_INDEXED is the gather whose input offset adds, for each k,
 *   dml_index_clamp(index_k) * index_strides[k]
 * (out of range: the nearest end of [0, n)). GATHER, GATHER_ELEMENTS
 * (index_count 1) and GATHER_ND (index_count = the tuple's length).
 * len_strides are 0 on dimensions the index does not vary along, so a gather
 * of rows reads its index once per row.
 *
 * DML_PLAN_SCATTER is the mirror: for every coordinate c of the updates
 * (the input), the output offset is
 *   out_offset + sum(c[i] * out_strides[i]) + sum_k(index_k * index_strides[k])
 * and an update with any component out of range is dropped. Dimensions keep
 * the updates' row-major order (never sorted by output stride): when several
 * updates hit one element, an executor that applies them in that order
 * leaves the last (the CPU backend does; DirectML and ONNX leave it
 * unspecified). It follows the step copying the operator's input to its
 * output (dml_op_step.ordered).
 *
 * DML_PLAN_SELECT reads two inputs and a condition byte (UINT8):
 *   cond = lengths[len_offset + sum(c[i] * len_strides[i])]
 *   out  = cond != 0 ? input[in_offset + sum(c[i] * in_strides[i])]
 *                    : input2[in2_offset + sum(c[i] * in2_strides[i])]
 *
 * DML_PLAN_ONE_HOT is SELECT with the condition computed: one index
 * (index_count 1, index_sizes[0] the depth), resolved against the depth, is
 * compared with the coordinate on dimension `axis` (0 when axis is -1: the
 * depth was 1); an out-of-range index matches nothing. A match writes
 * input[in_offset + ...] (the "on" value), else input2[in2_offset + ...]
 * (the "off" value): ONE_HOT binds its ValuesTensor to both, at the two
 * values' offsets.
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
    DML_PLAN_CAST = 3,
    DML_PLAN_FILL = 4,
    DML_PLAN_PAD = 5,
    DML_PLAN_INDEXED = 6,
    DML_PLAN_SCATTER = 7,
    DML_PLAN_SELECT = 8,
    DML_PLAN_ONE_HOT = 9,
    DML_PLAN_KIND_COUNT
} dml_plan_kind;

#define DML_PLAN_KIND_BIT(kind) (1u << (kind))

/* One element's value, in the bytes of its data type (DML_SCALAR_UNION's
 * layout: a FLOAT16 is its bit pattern in bytes[0..1]). */
typedef union dml_scalar {
    unsigned char bytes[8];
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
} dml_scalar;

typedef struct dml_plan {
    uint32_t kind;                 /* dml_plan_kind */
    uint32_t rank;                 /* 1..8 after normalisation */
    uint32_t element_size;         /* 1, 2, 4 or 8 bytes */
    int32_t axis;                  /* REVERSE_SUBSEQUENCES: dimension of the reversal; ONE_HOT: of the depth; else -1 */
    uint32_t lengths_element_size; /* bytes of a lengths element (dml_plan_reads_lengths), else 0: 4 or 8 (an
                                    * index or length), 1 (SELECT's condition) */
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
    uint32_t in_data_type;         /* CAST: the input's DML_TENSOR_DATA_TYPE; else 0 */
    uint32_t in_element_size;      /* CAST: the input's element size; else 0 (element_size for both) */
    dml_scalar fill_start;         /* FILL; PAD under CONSTANT: the value (in data_type) */
    dml_scalar fill_delta;         /* FILL: the sequence's step (in data_type) */
    uint32_t pad_mode;             /* PAD: DML_PADDING_MODE */
    uint32_t pad_reserved;
    int64_t pad_origin[DML_PLAN_MAX_RANK];   /* PAD: c[i] + pad_origin[i] is the unfolded input coordinate */
    uint64_t pad_extent[DML_PLAN_MAX_RANK];  /* PAD: the input's size on dimension i; 0: not folded */
    uint32_t index_signed;                   /* INDEXED, SCATTER, ONE_HOT: index elements are signed */
    uint32_t index_count;                    /* INDEXED, SCATTER: components of an index tuple; ONE_HOT: 1 */
    int64_t index_step;                      /* index elements from one tuple component to the next */
    uint64_t index_sizes[DML_PLAN_MAX_RANK];  /* bound of component k: >= 1 */
    int64_t index_strides[DML_PLAN_MAX_RANK]; /* INDEXED: input, SCATTER: output elements per unit of component k */
    int64_t in2_offset;                      /* SELECT, ONE_HOT: the second input */
    int64_t in2_strides[DML_PLAN_MAX_RANK];
} dml_plan;

/* The pointers a dispatch binds to a plan: the starts of the bound ranges,
 * and their sizes in bytes (the emulated CUDA backend checks every access
 * against them; 0 where nothing is bound). */
typedef struct dml_plan_args {
    const void* input;
    const void* lengths; /* kinds that read one (dml_plan_reads_lengths): lengths, indices, condition */
    void* output;
    uint64_t input_bytes, lengths_bytes, output_bytes;
    const void* input2; /* SELECT, ONE_HOT */
    uint64_t input2_bytes;
} dml_plan_args;

/* Whether a kind reads the lengths pointer (an index or condition tensor). */
DML_HD int dml_plan_reads_lengths(uint32_t kind)
{
    return kind == DML_PLAN_REVERSE_SUBSEQUENCES || kind == DML_PLAN_INDEXED || kind == DML_PLAN_SCATTER ||
        kind == DML_PLAN_SELECT || kind == DML_PLAN_ONE_HOT;
}

/* Whether a kind reads the input2 pointer. */
DML_HD int dml_plan_reads_input2(uint32_t kind)
{
    return kind == DML_PLAN_SELECT || kind == DML_PLAN_ONE_HOT;
}

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

/* ---- indices read from device memory (INDEXED, SCATTER, ONE_HOT) -------- */

/* An index element as 64 bits: sign-extended when signed, else zero-extended. */
DML_HD uint64_t dml_index_load(const void* indices, int64_t index, uint32_t element_size, uint32_t is_signed)
{
    if (element_size == 8)
        return ((const uint64_t*)indices)[index];
    uint32_t v = ((const uint32_t*)indices)[index];
    return is_signed ? (uint64_t)(int64_t)(int32_t)v : (uint64_t)v;
}

/* Whether index value v (dml_index_load) lies in [0, n) once a signed
 * negative counts from the end (v + n); *position is that coordinate. The
 * one definition of the negative-index rule every executor applies. */
DML_HD int dml_index_resolve(uint64_t v, uint32_t is_signed, uint64_t n, uint64_t* position)
{
    if (is_signed && (int64_t)v < 0) {
        uint64_t magnitude = (uint64_t)0 - v; /* |v|, exact even for INT64_MIN */
        if (magnitude > n)
            return 0;
        *position = n - magnitude;
        return *position < n;
    }
    *position = v;
    return v < n;
}

/* A gather's index: resolved, and when out of range the nearest end of
 * [0, n) (n >= 1), so nothing outside the input is ever read. */
DML_HD uint64_t dml_index_clamp(uint64_t v, uint32_t is_signed, uint64_t n)
{
    uint64_t position;
    if (dml_index_resolve(v, is_signed, n, &position))
        return position;
    return is_signed && (int64_t)v < 0 ? 0 : n - 1;
}

#endif /* DML_CORE_PLAN_H */
