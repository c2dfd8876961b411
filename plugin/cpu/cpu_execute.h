/*
 * cpu_execute.h — the CPU plan executor (core/plan.h semantics).
 *
 * The flat output index space is row-major over plan->sizes; a range of it can
 * be executed on its own, so a plan splits across threads at any point.
 */
#ifndef DML_CPU_EXECUTE_H
#define DML_CPU_EXECUTE_H

#include <stdint.h>

#include "core/plan.h"
#include "cpu_pool.h"

/* Below this many output bytes a plan runs inline on the caller: waking
 * workers costs more than it saves. */
#define DML_CPU_PARALLEL_MIN_BYTES ((uint64_t)256 * 1024)
/* Smallest share of a parallel plan given to one task. */
#define DML_CPU_TASK_MIN_BYTES ((uint64_t)64 * 1024)

/* Executes flat output indices [begin, end) of the plan (end <= element_count).
 * Does nothing for an element size other than 1, 2, 4 or 8. */
void dml_cpu_execute_range(const dml_plan* plan, const dml_plan_args* args, uint64_t begin, uint64_t end);

/* Executes the whole plan, split across pool when it is large (pool may be
 * NULL). Returns when every element is written. Never allocates. */
void dml_cpu_execute(cpu_pool* pool, const dml_plan* plan, const dml_plan_args* args);

#endif /* DML_CPU_EXECUTE_H */
