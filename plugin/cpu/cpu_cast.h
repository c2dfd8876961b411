/*
 * cpu_cast.h — the CPU executor of DML_PLAN_CAST plans: the plan's gather,
 * each element converted by core/cast.h. Rows (the innermost dimension) run
 * a loop specialised for the (input type, output type) pair, so the
 * conversion's switches fold and contiguous rows vectorise; the rows split
 * over the pool's threads as the gather executor's do.
 */
#ifndef DML_CPU_CAST_H
#define DML_CPU_CAST_H

#include "core/plan.h"
#include "cpu_cost.h"
#include "cpu_pool.h"

/* Whether the executor has a loop for the plan's pair of types. */
int dml_cpu_cast_supports(const dml_plan* plan);

/* Executes the whole plan on the threads the cost model chooses among
 * min(threads of pool, max_threads) (pool may be NULL: one) and returns
 * that count. */
unsigned dml_cpu_cast(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args);

#endif /* DML_CPU_CAST_H */
