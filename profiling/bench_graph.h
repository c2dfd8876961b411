/*
 * bench_graph.h — `dmlbench --graph` (bench_graph.c): a fused chain of three
 * gathers against its three separate dispatches, in the same run.
 */
#ifndef DML_PROFILING_BENCH_GRAPH_H
#define DML_PROFILING_BENCH_GRAPH_H

#include <dml/dml.h>

/* Returns the exit status: 0, 1 when fused and separate outputs differ, 2 on errors. */
int bench_graph(const char* backend, uint64_t bytes, int repetitions, int warmup);

#endif /* DML_PROFILING_BENCH_GRAPH_H */
