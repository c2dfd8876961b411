/*
 * plan_build.h — how operators build plans. An operator's lowering
 * (ops/op.h) describes its gather one dimension at a time, in any order and
 * with as many dimensions as it needs (TILE splits every dimension in two,
 * DEPTH_TO_SPACE splits three): the builder brings them to plan.h's
 * canonical form (unit dimensions dropped, output strides decreasing,
 * affine neighbours merged), which is what lets those operators stay one
 * affine gather.
 */
#ifndef DML_CORE_PLAN_BUILD_H
#define DML_CORE_PLAN_BUILD_H

#include <stdbool.h>

#include "plan.h"

/* Dimensions an operator may describe before merging. */
#define DML_PLAN_WORK_RANK (3 * DML_PLAN_MAX_RANK)

/* One dimension of a gather being built (strides in elements). */
typedef struct dml_plan_dim {
    uint64_t size;
    int64_t in_stride, out_stride, len_stride;
    int64_t in2_stride; /* SELECT, ONE_HOT: the second input's */
} dml_plan_dim;

typedef struct dml_plan_builder {
    dml_plan plan; /* every field but the dimensions: kind, element_size, offsets, parameters */
    uint32_t rank;
    int32_t axis;  /* REVERSE_SUBSEQUENCES: the reversal's index in dims; else -1 */
    dml_plan_dim dims[DML_PLAN_WORK_RANK];
    /* PAD: dims[i]'s fold (dml_plan_builder_add_fold); pad_extent 0: none. */
    int64_t pad_origin[DML_PLAN_WORK_RANK];
    uint64_t pad_extent[DML_PLAN_WORK_RANK];
} dml_plan_builder;

/* An empty gather of the given kind (no dimensions: one element). */
void dml_plan_builder_init(dml_plan_builder* builder, dml_plan_kind kind, uint32_t element_size);

/* Appends a dimension, outermost first; false when DML_PLAN_WORK_RANK are
 * already described. */
bool dml_plan_builder_add(dml_plan_builder* builder, dml_plan_dim dim);

/* PAD: appends a dimension whose input coordinate c + origin is folded
 * into [0, extent) by the plan's pad_mode (plan.h), extent >= 1. Folded
 * dimensions are never merged, dropped or peeled (a PAD plan is described
 * with at most DML_PLAN_MAX_RANK dimensions); a PAD plan left with no fold
 * is finished as a plain gather. */
bool dml_plan_builder_add_fold(dml_plan_builder* builder, dml_plan_dim dim, int64_t origin, uint64_t extent);

/* Marks the last dimension added as the plan's axis (never merged): ONE_HOT's depth. */
void dml_plan_builder_mark_axis(dml_plan_builder* builder);

/* Marks the last dimension added as the reversal axis (REVERSE_SUBSEQUENCES). */
void dml_plan_builder_set_axis(dml_plan_builder* builder, uint64_t axis_size, uint32_t lengths_element_size);

/* The canonical plan; false (plan untouched) when more than
 * DML_PLAN_MAX_RANK dimensions remain after merging. */
bool dml_plan_builder_finish(const dml_plan_builder* builder, dml_plan* plan);

/* A gather needing more than DML_PLAN_MAX_RANK dimensions after merging
 * runs as several plans: its smallest outer dimensions (never the innermost,
 * nor the reversal axis) are enumerated into the plans' offsets. How many
 * plans (1 when it fits; UINT64_MAX when the count overflows), and the
 * index-th of them. */
uint64_t dml_plan_builder_plan_count(const dml_plan_builder* builder);
void dml_plan_builder_plan(const dml_plan_builder* builder, uint64_t index, dml_plan* plan);

/* Brings a plan whose first `rank` dimensions hold any order of sizes and
 * strides (a composition's) to the canonical form: unit dimensions dropped,
 * output strides decreasing, affine neighbours merged, element_count and
 * index32 recomputed. The reversal axis keeps axis_size. */
void dml_plan_normalize(dml_plan* plan);

/* "gather", "reverse-gather", ... for messages. */
const char* dml_plan_kind_name(uint32_t kind);

#endif /* DML_CORE_PLAN_BUILD_H */
