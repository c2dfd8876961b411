/*
 * cpu_fill.h — the CPU executor of DML_PLAN_FILL plans (FILL_VALUE_CONSTANT,
 * FILL_VALUE_SEQUENCE, and gathers of them fused by the graph compiler):
 * each element's value by core/fill.h, rows at a time: a row of one value
 * is a pattern fill (memset where the value's bytes are all equal), a
 * sequence row an induction loop the compiler vectorises (for the baseline
 * and AVX2, chosen at run time). Streamed outputs go out through the L1
 * buffer (dml_cpu_run_split), but for sequences along contiguous rows with
 * AVX-512, which compute each line in a register and store it
 * non-temporally.
 */
#ifndef DML_CPU_FILL_H
#define DML_CPU_FILL_H

#include <stdint.h>

#include "core/plan.h"
#include "cpu_cost.h"
#include "cpu_pool.h"

/* Flat output indices [begin, end) of the plan (row-major over its sizes). */
void dml_cpu_fill_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end);

/* Executes the whole plan on the threads the cost model chooses among
 * min(threads of pool, max_threads) (pool may be NULL: one), as
 * dml_cpu_execute does, and returns that count. */
unsigned dml_cpu_fill(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args);

#endif /* DML_CPU_FILL_H */
