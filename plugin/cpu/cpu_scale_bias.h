/*
 * cpu_scale_bias.h — the CPU executor of DML_PLAN_SCALE_BIAS plans
 * (ELEMENT_WISE_IDENTITY with ScaleBias): the plan's gather with each element
 * transformed by core/scale_bias.h.
 */
#ifndef DML_CPU_SCALE_BIAS_H
#define DML_CPU_SCALE_BIAS_H

#include "core/plan.h"
#include "cpu_cost.h"
#include "cpu_pool.h"

/* Executes the whole plan on the threads the cost model chooses among
 * min(threads of pool, max_threads) (pool may be NULL: one), as
 * dml_cpu_execute does, and returns that count. */
unsigned dml_cpu_scale_bias(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args);

#endif /* DML_CPU_SCALE_BIAS_H */
