/*
 * cpu_cost.h — when splitting a dispatch over threads pays.
 *
 * Waking the pool and waiting for it costs about the same whatever the plan;
 * copying costs about bytes / bandwidth per thread. Both are measured once per
 * device, when it is created, on the machine itself:
 *
 *   time(bytes, 1)      = bytes / bandwidth
 *   time(bytes, k >= 2) = wake + bytes / (k * bandwidth)
 *
 * and a dispatch runs on the thread count with the least predicted time.
 * Each time(., k) grows with bytes, so their minimum does too: no size is
 * predicted to run slower than a smaller one (a fixed byte threshold jumps
 * up by the wake-up cost where it switches). tests/cpu checks the executor's
 * choice against this model; profiling/ measures it.
 */
#ifndef DML_CPU_COST_H
#define DML_CPU_COST_H

#include <stdint.h>

#include "cpu_pool.h"

typedef struct dml_cpu_cost_model {
    double wake_ns;      /* one pool job of empty tasks on every thread: wake-up and join */
    double bytes_per_ns; /* one thread's memcpy of cache-resident data */
} dml_cpu_cost_model;

/* A model for when none was measured: 20 us wake-up, 10 GB/s. */
dml_cpu_cost_model dml_cpu_cost_default(void);

/* Measures the model on this machine with this pool (about a millisecond).
 * Falls back to the default for what it cannot measure. Never fails. */
dml_cpu_cost_model dml_cpu_cost_measure(cpu_pool* pool);

/* Predicted nanoseconds to move `bytes` on `threads` threads. */
double dml_cpu_cost_predict(const dml_cpu_cost_model* model, uint64_t bytes, unsigned threads);

/* The thread count in [1, max_threads] with the least predicted time (the
 * fewest threads among equals). */
unsigned dml_cpu_cost_threads(const dml_cpu_cost_model* model, uint64_t bytes, unsigned max_threads);

#endif /* DML_CPU_COST_H */
