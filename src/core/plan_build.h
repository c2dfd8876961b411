/*
 * plan_build.h — CompileOperator's step: a validated operator to its plan.
 */
#ifndef DML_CORE_PLAN_BUILD_H
#define DML_CORE_PLAN_BUILD_H

#include "operator.h"
#include "plan.h"

/* Never fails: every op reaching it was validated by dml_operator_from_desc. */
void dml_plan_build(const dml_op_desc* op, dml_plan* plan);

/* Brings a plan whose first `rank` dimensions hold any order of sizes and
 * strides (a composition's) to the canonical form plan.h describes: unit
 * dimensions dropped, output strides decreasing, affine neighbours merged,
 * element_count and index32 recomputed. The reversal axis keeps axis_size. */
void dml_plan_normalize(dml_plan* plan);

#endif /* DML_CORE_PLAN_BUILD_H */
