/*
 * cpu_pad.h — the CPU executor of DML_PLAN_PAD plans (PADDING, PADDING1):
 * each output row (the plan's innermost dimension) as its left border, its
 * interior (one memcpy where both rows are contiguous) and its right border,
 * folding (core/pad_fold.h) per element only in the borders and per row for
 * the outer dimensions.
 */
#ifndef DML_CPU_PAD_H
#define DML_CPU_PAD_H

#include "core/plan.h"
#include "cpu_cost.h"
#include "cpu_pool.h"

/* Executes the whole plan on the threads the cost model chooses among
 * min(threads of pool, max_threads) (pool may be NULL: one), as
 * dml_cpu_execute does, and returns that count. */
unsigned dml_cpu_pad(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args);

#endif /* DML_CPU_PAD_H */
