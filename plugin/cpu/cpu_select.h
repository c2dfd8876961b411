/*
 * cpu_select.h — the CPU executors of the plans that choose each element
 * from one of two inputs (core/plan.h):
 *
 *   DML_PLAN_SELECT (ELEMENT_WISE_IF): out = cond ? input : input2, cond the
 *   byte at lengths[len_offset + sum(c[i] * len_strides[i])] (non-zero: input);
 *
 *   DML_PLAN_ONE_HOT: out = hit ? input : input2 ("on", "off"), hit when the
 *   index at that lengths position resolves (dml_index_resolve) into
 *   [0, index_sizes[0]) at c[axis] (axis -1: the depth was 1, c[axis] is 0).
 *
 * Each runs over output elements on the pool as the gathers do, row by row:
 * contiguous rows in loops the compiler vectorises (a blend of both inputs,
 * each loaded whatever the condition), a row whose condition or index does
 * not change as one copy.
 */
#ifndef DML_CPU_SELECT_H
#define DML_CPU_SELECT_H

#include <stdint.h>

#include "core/plan.h"
#include "cpu_cost.h"
#include "cpu_pool.h"

/* Flat output indices [begin, end) of a SELECT plan. */
void dml_cpu_select_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end);

/* Flat output indices [begin, end) of a ONE_HOT plan. */
void dml_cpu_one_hot_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end);

/* Whether a ONE_HOT plan's fields are ones the executor handles: indices of
 * 4 or 8 bytes, one component with a bound >= 1, axis -1 or a dimension. */
int dml_cpu_one_hot_supports(const dml_plan* plan);

/* The whole plan (SELECT or ONE_HOT) on the threads the cost model chooses
 * among min(threads of pool, max_threads) (pool may be NULL: one), as
 * dml_cpu_execute does. Returns that count. */
unsigned dml_cpu_select(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads, const dml_plan* plan,
    const dml_plan_args* args);

#endif /* DML_CPU_SELECT_H */
