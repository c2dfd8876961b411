/*
 * gather_cases.h — operator cases for the CUDA launcher and its CPU emulator,
 * shared by the coalescing report (dmlcoalesce) and the emulation tests
 * (tests/cuda).
 *
 * A gather_case is an operator in DirectML's own terms (tensor sizes and
 * strides, window, axis); gather_case_compile turns it into a plan the way
 * CreateOperator and CompileOperator do (dml_plan_from_desc: the operator's
 * table entry validates and lowers it). gather_buffers holds its bound ranges in host memory, each
 * placed at a chosen byte offset from a 64-byte aligned block, with guard
 * bytes after it.
 */
#ifndef DML_PROFILING_GATHER_CASES_H
#define DML_PROFILING_GATHER_CASES_H

#include <stdint.h>

#include "core/ops/op.h"
#include "core/plan.h"

#define GATHER_MAX_RANK 8
#define GATHER_GUARD_BYTES 64

typedef enum gather_length_kind {
    GATHER_LENGTHS_RANDOM = 0, /* 0 .. axis size + 2, and now and then 1, axis size, UINT32/64_MAX */
    GATHER_LENGTHS_FULL = 1,   /* the axis size: the whole axis reversed */
    GATHER_LENGTHS_ZERO = 2,   /* nothing reversed */
} gather_length_kind;

typedef struct gather_case {
    DML_OPERATOR_TYPE type; /* DML_OPERATOR_SLICE, _SLICE1 or _REVERSE_SUBSEQUENCES */
    uint32_t element_size;  /* 1, 2, 4 or 8 */
    uint32_t rank;
    uint32_t in_sizes[GATHER_MAX_RANK];
    uint32_t in_strides[GATHER_MAX_RANK];
    int in_packed; /* the desc's Strides is NULL */
    uint32_t out_sizes[GATHER_MAX_RANK];
    uint32_t out_strides[GATHER_MAX_RANK];
    int out_packed;
    /* SLICE1: offsets, window_sizes, window_strides. SLICE: offsets, slice_strides. */
    uint32_t offsets[GATHER_MAX_RANK];
    uint32_t window_sizes[GATHER_MAX_RANK];
    int32_t window_strides[GATHER_MAX_RANK];
    uint32_t slice_strides[GATHER_MAX_RANK];
    /* REVERSE_SUBSEQUENCES */
    uint32_t axis;
    uint32_t lengths_size; /* 4 (UINT32) or 8 (UINT64) */
    uint32_t len_strides[GATHER_MAX_RANK];
    int len_packed;
    gather_length_kind length_kind;
} gather_case;

/* Packed row-major strides. */
void gather_packed_strides(uint32_t rank, const uint32_t* sizes, uint32_t* strides);

/* The lengths tensor's sizes: the input's, with 1 on the axis. */
void gather_lengths_sizes(const gather_case* c, uint32_t* sizes);

/* DMLCalcBufferTensorSize of the input (0), lengths (1) or output (2). */
uint64_t gather_tensor_bytes(const gather_case* c, int which);

/* The case as DirectML's operator desc, for hosts of the public API
 * (dmlbench --gpu-table). desc points into d and c: valid while both live. */
typedef struct gather_desc {
    DML_BUFFER_TENSOR_DESC buffer[3]; /* input, lengths, output */
    DML_TENSOR_DESC tensor[3];
    uint32_t len_sizes[GATHER_MAX_RANK];
    DML_SLICE1_OPERATOR_DESC slice1;
    DML_SLICE_OPERATOR_DESC slice;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
    DML_OPERATOR_DESC desc;
} gather_desc;
void gather_case_desc(const gather_case* c, gather_desc* d);

/* CreateOperator + CompileOperator on the case. DML_S_OK, or the validation
 * failure (the message is in dml_error_last()). */
DML_RESULT gather_case_compile(const gather_case* c, dml_plan* plan);

typedef struct gather_buffers {
    unsigned char* block[3];   /* allocations: input, lengths, output */
    unsigned char* base[3];    /* the bound ranges: block + offset */
    uint64_t bytes[3];         /* the tensors' sizes */
    uint64_t block_bytes[3];   /* offset + size + GATHER_GUARD_BYTES */
    unsigned char* expected;   /* a copy of the output block, for a reference to fill */
} gather_buffers;

/* Allocates and fills the buffers: input random bytes, lengths per
 * c->length_kind, output (and expected) a sentinel pattern. offsets[i] is the
 * byte offset of tensor i from its 64-byte aligned block. Returns 0, or -1
 * when out of memory. */
int gather_buffers_alloc(const gather_case* c, const uint32_t offsets[3], uint64_t seed, gather_buffers* b);
void gather_buffers_free(gather_buffers* b);

/* The byte every sentinel position holds. */
unsigned char gather_sentinel(uint64_t position);

/* The fixed patterns of the coalescing report and the coalescing test. */
typedef enum gather_pattern {
    PATTERN_COPY = 0,        /* packed rows copied whole (RS: lengths 0) */
    PATTERN_REVERSE_INNER,   /* SLICE1 stride -1 inner; RS axis inner, whole rows */
    PATTERN_REVERSE_OUTER,   /* SLICE1 stride -1 outer; RS axis outer, whole axis */
    PATTERN_STRIDE_2,        /* SLICE/SLICE1 inner window stride +2 */
    PATTERN_STRIDE_MINUS_2,  /* SLICE1 inner window stride -2 */
    PATTERN_WINDOW_PLUS_1,   /* SLICE/SLICE1 window starting one element into aligned rows */
    PATTERN_TRANSPOSED,      /* input strides {1, R}: a transposed (permuted) input */
    PATTERN_BROADCAST,       /* input strides {0, 1}: one row broadcast */
    PATTERN_PAD_OUT_64,      /* output rows padded by 64 bytes */
    PATTERN_PAD_OUT_ODD,     /* output rows padded by one element */
    PATTERN_RS_INNER_VARYING,/* RS axis inner, a random length per row */
    PATTERN_TIME_MAJOR,      /* RS {T, N, F} axis 0, a length per sequence */
    PATTERN_BATCH_MAJOR,     /* RS {N, T, F} axis 1, a length per sequence */
    PATTERN_COUNT
} gather_pattern;

const char* gather_pattern_name(int pattern);
const char* gather_operator_name(DML_OPERATOR_TYPE type);

/* Builds the pattern for an operator and element size: rows of row_bytes
 * (1024 in the report; rounded down to whole elements; sequences of
 * REVERSE_SUBSEQUENCES have row_bytes / 4 of features per step), as many as
 * make an output of about out_bytes (at least one). Returns 0 when the pattern
 * does not apply to the operator. */
int gather_pattern_case(DML_OPERATOR_TYPE type, uint32_t element_size, int pattern, uint64_t out_bytes,
    uint32_t row_bytes, gather_case* c);

#endif /* DML_PROFILING_GATHER_CASES_H */
