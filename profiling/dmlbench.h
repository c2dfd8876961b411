/*
 * dmlbench.h — what dmlbench's modes share, internal to dmlbench.
 * dmlbench.c parses the options and runs one mode: the throughput table
 * (bench_throughput.c, over the cases of throughput_cases.c against the
 * baselines of copy_baseline.c and plain_baseline.c), --overhead
 * (bench_overhead.c), --graph (bench_graph.h) or --gpu-table (bench_cuda.h).
 */
#ifndef DML_PROFILING_DMLBENCH_H
#define DML_PROFILING_DMLBENCH_H

#include <dml/dml.h>

#include <pthread.h>
#include <stdint.h>

#include "plain_gather.h"

/* ---- bench_common.c: timing, errors, sizes ---- */

double now_ns(void);

typedef struct timing {
    double median, p90;
} timing;

/* Sorts the samples. */
timing summarize(double* samples, int n);

/* Exits with status 2, naming the call, when r is a failure. */
void check(DML_RESULT r, const char* what);

/* BYTES with an optional K, M or G suffix (powers of 1024). */
uint64_t parse_size(const char* text);

/* ---- the modes ---- */

typedef struct bench_options {
    const char* backend;
    int repetitions, warmup, csv;
    unsigned threads; /* the CPU backend's thread cap for this row (dmlDeviceSetThreadLimit); 0: not set */
} bench_options;

/* bench_throughput.c: the default mode (and --cpu-table). The lists are the
 * options' comma-separated values, NULL for the defaults. Returns the exit
 * status. */
int bench_throughput(bench_options* o, const char* case_list, const char* size_list, const char* type_list,
    const char* thread_list);

/* bench_overhead.c: --overhead. Returns the exit status. */
int bench_overhead(const char* backend, int repetitions);

/* ---- throughput_cases.c: the throughput table's cases ---- */

/* A tensor of rank <= 4 with explicit strides (NULL strides when packed). */
typedef struct btensor {
    UINT sizes[4], strides[4];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} btensor;

/* One built case: the desc and everything it points to. JOIN's second input
 * is `lengths` (of the case's type), SPLIT's second output `out2`; a third
 * input (a scatter's updates, ELEMENT_WISE_IF's B) is `in3`, filled like `in`. */
typedef struct built_case {
    btensor in, lengths, out, out2, in3;
    UINT offsets[4], window[4];
    INT slice_strides[4];
    DML_SLICE1_OPERATOR_DESC slice;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
    UINT start_padding[4], end_padding[4];
    DML_PADDING_OPERATOR_DESC padding;
    DML_JOIN_OPERATOR_DESC join;
    DML_SPLIT_OPERATOR_DESC split;
    DML_CAST_OPERATOR_DESC cast;
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill_constant;
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC fill_sequence;
    DML_GATHER_OPERATOR_DESC gather;
    DML_GATHER_ELEMENTS_OPERATOR_DESC gather_elements;
    DML_SCATTER_OPERATOR_DESC scatter;
    DML_SCATTER_ND_OPERATOR_DESC scatter_nd;
    DML_ELEMENT_WISE_IF_OPERATOR_DESC element_wise_if;
    UINT repeats[4];
    DML_TILE_OPERATOR_DESC tile;
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC depth_to_space;
    DML_SPACE_TO_DEPTH1_OPERATOR_DESC space_to_depth;
    int lengths_first; /* the operator's input 0 is `lengths` (ELEMENT_WISE_IF's condition), then `in` */
    DML_TENSOR_DESC parts[2];
    DML_OPERATOR_DESC desc;
    uint32_t inputs, outputs;
    uint64_t bytes_read, bytes_written;
    uint32_t* lengths_data; /* REVERSE_SUBSEQUENCES' lengths, JOIN's second input, the gathers' INT64 indices:
                             * lengths.TotalTensorSizeInBytes bytes */
} built_case;

typedef int (*case_builder)(built_case* c, DML_TENSOR_DATA_TYPE type, uint64_t n);

typedef struct case_entry {
    const char* name;
    case_builder build;
    int contiguous_inner; /* innermost run contiguous (target >= 0.8x copy) */
} case_entry;

/* In the order of the table; --case names them. A constant count, for
 * arrays of a flag per case (throughput_cases.c asserts it). */
#define BENCH_CASE_COUNT 34
extern const case_entry bench_cases[];

/* Builds the case for `bytes` of output elements of element_size bytes,
 * with the bytes it reads and writes. Returns -1 (nothing to free) when the
 * case has no such size, else 0 (free lengths_data). */
int build_case(built_case* c, const case_entry* entry, unsigned element_size, uint64_t bytes);

/* ---- copy_baseline.c: a copy of the same traffic ---- */

#define MAX_COPY_THREADS 16

/* How copy_pool_fill writes. */
typedef enum copy_fill { COPY_FILL_MEMSET, COPY_FILL_STREAM, COPY_FILL_STORES } copy_fill;

/* Threads that split a memcpy, as many as the CPU backend uses. */
typedef struct copy_pool {
    unsigned threads, active; /* started; copying (the rest pass the barriers) */
    pthread_t workers[MAX_COPY_THREADS];
    pthread_barrier_t start, finish;
    unsigned char* dst;
    const unsigned char* src; /* NULL: a fill, written as `fill` says */
    uint64_t bytes;
    copy_fill fill;
    int stop;
} copy_pool;

void copy_pool_start(copy_pool* p);
void copy_pool_stop(copy_pool* p);

/* memcpy of `bytes` split over `threads` of the pool's threads. */
void copy_pool_copy(copy_pool* p, void* dst, const void* src, uint64_t bytes, unsigned threads);

/* For the write-only baseline: `bytes` of dst set to a non-zero byte (this
 * VM writes zeros with non-temporal stores at about 2.5x any other value),
 * with memset, 16-byte non-temporal stores or 16-byte ordinary stores,
 * split likewise. */
void copy_pool_fill(copy_pool* p, void* dst, uint64_t bytes, unsigned threads, copy_fill fill);

/* Memory for the copy baseline, on huge pages where the kernel gives them
 * (the CPU backend asks the same for its buffers, cpu_backend.c): the copy
 * and the operator then pay the same for their pages. Freed with free(). */
void* copy_buffer_alloc(uint64_t bytes);

#ifdef DML_BENCH_CUDA
/* Median milliseconds of a device-to-device copy of `bytes`, or -1 when
 * libcudart or a GPU is missing. */
double cuda_copy_ms(uint64_t bytes, int warmup, int repetitions);
#endif

/* ---- plain_baseline.c: the plain-C loops a host would write ---- */

/* Sizes up to which the plain-C baseline runs. */
#define PLAIN_MAX_BYTES ((uint64_t)4 << 20)

/* The plain-C baselines of a case (plain_gather.h): a naive per-element
 * loop and, where it applies, a per-row memcpy loop, over buffers of their
 * own. Their runs are timed inside the operator's repetition loop, like the
 * copy baseline's, so that all three see the same machine state (timed one
 * after the other, a busy spell of the VM fell on one and not the others). */
typedef struct plain_bench {
    plain_gather g;
    unsigned char *in, *out, *expected;
    uint64_t out_bytes;
    int has_rows;
    double *naive_samples, *rows_samples;
} plain_bench;

/* Allocates and fills the baselines' buffers; 0 when memory is short (the
 * case is then reported without vs_C). */
int plain_prepare(plain_bench* b, const built_case* c, unsigned element_size, int repetitions);

/* One repetition of the baselines (sample i when i >= 0). */
void plain_repeat(plain_bench* b, int i);

/* The best plain-C loop's median seconds, after checking that both loops
 * and the operator (its output read from `buffer` at out_at) wrote the same
 * bytes: a wrong baseline, or a wrong operator, would make the ratio
 * meaningless. */
double plain_seconds(plain_bench* b, DMLCommandQueue queue, DMLBuffer buffer, uint64_t out_at, int repetitions);

void plain_free(plain_bench* b);

#endif /* DML_PROFILING_DMLBENCH_H */
