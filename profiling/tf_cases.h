/*
 * tf_cases.h — the TensorFlow plugin's ops as runtime operators: the cases
 * of profiling/compare_tensorflow.py (float32, the same shapes at the same
 * input size), each built with the descs the plugin's kernel builds for it
 * (hosts/tensorflow/kernels_*.c: elements moved as their bits, UINT32 for
 * float32). dmlbench --gpu-table tensorflow times them against
 * cudaMemcpyAsync (bench_cuda.c); tests/api/test_tf_cases.c runs them
 * small against a naive reference.
 */
#ifndef DML_PROFILING_TF_CASES_H
#define DML_PROFILING_TF_CASES_H

#include <dml/dml.h>
#include <stdint.h>

#define TF_CASE_RANK 4
#define TF_CASE_INPUTS 3
#define TF_CASE_OUTPUTS 4

/* What an input holds: values (any bits), or data the op checks. */
typedef enum tf_fill {
    TF_FILL_VALUES = 0, /* float32 values */
    TF_FILL_INDICES,    /* int64 in [0, limit) */
    TF_FILL_LENGTHS,    /* uint32 in [0, limit] */
    TF_FILL_BOOLS,      /* uint8 0 or 1 */
    TF_FILL_ON_OFF      /* float32 {0, 1}: ONE_HOT's off and on values */
} tf_fill;

typedef struct tf_tensor {
    UINT sizes[TF_CASE_RANK], strides[TF_CASE_RANK];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} tf_tensor;

/* One case; its descs point into it, so it is built in place and not moved. */
typedef struct tf_case {
    const char* name;     /* compare_tensorflow.py's */
    const char* operator_name; /* the runtime operator the plugin makes of it */
    uint32_t inputs, outputs;
    tf_tensor in[TF_CASE_INPUTS], out[TF_CASE_OUTPUTS];
    tf_fill fill[TF_CASE_INPUTS];
    uint64_t limit[TF_CASE_INPUTS];
    /* Bytes the op must move: read, the input elements it needs (a
     * window's, a gather's rows, a broadcast row once) and its indices or
     * lengths; written, its outputs. */
    uint64_t read, written;
    DML_TENSOR_DESC parts[TF_CASE_OUTPUTS]; /* JOIN's inputs, SPLIT's outputs */
    UINT offsets[TF_CASE_RANK], windows[TF_CASE_RANK], ends[TF_CASE_RANK];
    INT steps[TF_CASE_RANK];
    union {
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
        DML_SLICE1_OPERATOR_DESC slice;
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
        DML_JOIN_OPERATOR_DESC join;
        DML_SPLIT_OPERATOR_DESC split;
        DML_PADDING1_OPERATOR_DESC pad;
        DML_TILE_OPERATOR_DESC tile;
        DML_GATHER_OPERATOR_DESC gather;
        DML_ELEMENT_WISE_IF_OPERATOR_DESC select;
        DML_DEPTH_TO_SPACE_OPERATOR_DESC depth;
        DML_CAST_OPERATOR_DESC cast;
        DML_ONE_HOT_OPERATOR_DESC one_hot;
    } op;
    DML_OPERATOR_DESC desc;
} tf_case;

/* The number of cases (compare_tensorflow.py's order). */
int tf_case_count(void);

/* Builds case `index` for about `bytes` of float32 input (compare_tensorflow.py's
 * n: 64 MiB in its table); returns 0, or -1 for an index out of range. */
int tf_case_build(tf_case* c, int index, uint64_t bytes);

/* Fills input `input`'s bound bytes (its TotalTensorSizeInBytes) per its
 * tf_fill, pseudo-randomly from seed. */
void tf_case_fill(const tf_case* c, uint32_t input, unsigned char* host, uint64_t seed);

#endif /* DML_PROFILING_TF_CASES_H */
