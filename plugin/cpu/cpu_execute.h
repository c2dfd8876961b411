/*
 * cpu_execute.h — the CPU plan executor (core/plan.h semantics).
 *
 * The flat output index space is row-major over plan->sizes; a range of it can
 * be executed on its own, so a plan splits across threads at any point.
 */
#ifndef DML_CPU_EXECUTE_H
#define DML_CPU_EXECUTE_H

#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"
#include "cpu_cost.h"
#include "cpu_pool.h"
#include "cpu_stream.h"

/* memcpy with non-temporal stores for outputs that stream (64-byte ones on
 * dst's whole lines with AVX-512, else 16-byte ones from its first 16-byte
 * boundary: a gather's random rows of 256 bytes streamed 16 bytes at a time
 * ran slower than with memcpy, 64 at a time faster): what other threads
 * read only after dml_cpu_stream_fence on the writing thread. */
void dml_cpu_stream_copy(unsigned char* dst, const unsigned char* src, size_t bytes);
void dml_cpu_stream_fence(void);

/* Executes flat output indices [begin, end) of the plan (end <= element_count).
 * Does nothing for an element size other than 1, 2, 4 or 8. */
void dml_cpu_execute_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end);

/* The threads dml_cpu_execute gives the plan: the cost model's choice for its
 * output bytes among max_threads (model NULL: dml_cpu_cost_default()). */
unsigned dml_cpu_execute_threads(const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan);

/* Executes the whole plan on dml_cpu_execute_threads(model, min(threads of
 * pool, max_threads), plan) threads (pool may be NULL: one) and returns that
 * count. Returns when every element is written. Never allocates. */
unsigned dml_cpu_execute(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args);

/* Executes flat output indices [begin, end) of one plan: each kind's executor. */
typedef void (*dml_cpu_range_fn)(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end);

/* Runs fn over the whole plan on the threads the cost model gives `bytes`
 * (the bytes the plan moves), at most max_threads and the pool's (pool may
 * be NULL: one): chunks cut at whole rows where that costs little balance,
 * else at whole 64-byte lines, so no two threads write one line. A dense
 * output that streams (dml_cpu_plan_streams) is written through an L1
 * buffer and non-temporal stores, fenced before this returns: fn keeps its
 * ordinary stores. Returns the threads used. Never allocates. */
unsigned dml_cpu_run_split(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* plan, const dml_plan_args* args, uint64_t bytes, dml_cpu_range_fn fn);

/* The same for an executor that streams its own output: fn writes the
 * plan's own output, and where dml_cpu_plan_streams(plan, args) says so,
 * with non-temporal stores (dml_cpu_stream_copy) or through
 * dml_cpu_run_range_staged; each thread's stores are fenced before this
 * returns. */
unsigned dml_cpu_run_split_streaming(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* plan, const dml_plan_args* args, uint64_t bytes, dml_cpu_range_fn fn);

/* fn over flat output indices [begin, end) written through the L1 buffer
 * and non-temporal stores as dml_cpu_run_split does for a streamed output
 * (fenced before this returns); straight through fn where the output is not
 * dense. */
void dml_cpu_run_range_staged(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end,
    dml_cpu_range_fn fn);

/* Executes count independent GATHER plans (args[i] for plans[i]) as one
 * job on the threads the cost model gives their total bytes: in slices,
 * each the same fraction of every plan (rows the plans share stay in cache
 * between them), so many small plans (JOIN's parts) share one parallel
 * region. Returns the threads used. Never allocates. */
unsigned dml_cpu_execute_group(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* const* plans, const dml_plan_args* args, uint32_t count);

#endif /* DML_CPU_EXECUTE_H */
