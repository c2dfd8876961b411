/*
 * bench_cuda.h — dmlbench's fair GPU table (bench_cuda.c).
 */
#ifndef DML_PROFILING_BENCH_CUDA_H
#define DML_PROFILING_BENCH_CUDA_H

typedef struct bench_cuda_options {
    const char* only;      /* "OPERATOR:ELEMENT_SIZE:PATTERN" (dmlcoalesce's names), or NULL for every case */
    const char* sizes;     /* output sizes, e.g. "64M,1G" (NULL: 64M,1G) */
    const char* types;     /* element sizes, e.g. "1,2,4,8" (NULL: all) */
    int repetitions, warmup, csv;
} bench_cuda_options;

/* Runs the table on the "cuda" backend; returns the exit status. */
int bench_cuda_table(const bench_cuda_options* o);

/* --gpu-table tensorflow: the TensorFlow plugin's ops (tf_cases.h) at
 * o->sizes (default 64M) of input, only = one case's name; the exit status. */
int bench_cuda_tensorflow(const bench_cuda_options* o);

#endif /* DML_PROFILING_BENCH_CUDA_H */
