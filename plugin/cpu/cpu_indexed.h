/*
 * cpu_indexed.h — the CPU executors of the plans whose positions come from
 * an index tensor (core/plan.h): DML_PLAN_INDEXED (GATHER, GATHER_ELEMENTS,
 * GATHER_ND, GATHER_ND1) and DML_PLAN_SCATTER (SCATTER_ELEMENTS, SCATTER_ND's
 * updates).
 *
 * Both read an index tuple of index_count components at index element
 *   t = len_offset + sum(c[i] * len_strides[i]), component k at t + k * index_step,
 * and add sum(position_k * index_strides[k]) to the input offset (INDEXED)
 * or the output offset (SCATTER) of the plain gather; position_k comes from
 * plan.h's dml_index_clamp (INDEXED: never outside the input) or
 * dml_index_resolve (SCATTER: an update with any component out of range is
 * dropped).
 *
 * INDEXED runs over output elements on the pool as the gathers do; a plan
 * whose innermost dimension reads no index (a GATHER of rows) reads the
 * tuple once per row and copies the row with memcpy.
 *
 * SCATTER is deterministic: when several updates land on one element, the
 * last in the plan's row-major order wins, whatever the thread count. Each
 * thread owns a contiguous range of the output's elements and walks every
 * update in order, writing only the targets inside its range, so nothing
 * outside [output, output + output_bytes) is ever written either.
 */
#ifndef DML_CPU_INDEXED_H
#define DML_CPU_INDEXED_H

#include <stdint.h>

#include "core/plan.h"
#include "cpu_cost.h"
#include "cpu_pool.h"

/* Whether the plan's index fields are ones the executors handle: indices
 * of 4 or 8 bytes, at most DML_PLAN_MAX_RANK components, each bound >= 1. */
int dml_cpu_indexed_supports(const dml_plan* plan);

/* INDEXED: flat output indices [begin, end) (row-major over the sizes). */
void dml_cpu_indexed_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end);

/* INDEXED: the whole plan on the threads the cost model chooses among
 * min(threads of pool, max_threads) (pool may be NULL: one), as
 * dml_cpu_execute does. Returns that count. */
unsigned dml_cpu_indexed(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args);

/* SCATTER: whether every component of the tuple at index element `at`
 * resolves into its bound, and what the tuple then adds to the output offset. */
int dml_cpu_scatter_tuple(const dml_plan* plan, const void* indices, int64_t at, int64_t* offset);

/* SCATTER: the output elements the updates can reach (every coordinate and
 * every in-range index), inside the bound output: [*lo, *hi). */
void dml_cpu_scatter_reach(const dml_plan* plan, const dml_plan_args* args, int64_t* lo, int64_t* hi);

/* SCATTER: the updates whose targets lie in output elements [lo, hi), in order. */
void dml_cpu_scatter_window(const dml_plan* plan, const dml_plan_args* args, int64_t lo, int64_t hi);

/* SCATTER: the whole plan, the output split among the threads as above.
 * Returns the threads used. */
unsigned dml_cpu_scatter(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args);

#endif /* DML_CPU_INDEXED_H */
