/*
 * cpu_reverse_block.h — REVERSE_SUBSEQUENCES whose axis is the dimension just
 * outside the row and whose length varies along the row (a length per
 * column), executed in column blocks that stay in cache (see the .c file).
 */
#ifndef DML_CPU_REVERSE_BLOCK_H
#define DML_CPU_REVERSE_BLOCK_H

#include <stdint.h>

#include "core/plan.h"

/* Offsets (in elements of each tensor) of axis row 0, column 0 of one group:
 * one coordinate of the dimensions outside the axis. */
typedef struct dml_cpu_block_origin {
    int64_t in, out, len;
} dml_cpu_block_origin;

/* Whether the plan has this shape: kind REVERSE_SUBSEQUENCES, axis ==
 * rank - 2, len_strides[rank - 1] != 0. */
int dml_cpu_reverse_block_applies(const dml_plan* plan);

/* Writes output rows [a_begin, a_end) of the axis, columns [j_begin, j_end),
 * of the group at `origin`. The plan must be one that applies. stream: the
 * output is written with non-temporal stores where the kernels can (the
 * caller's dml_cpu_plan_streams of the whole plan). */
void dml_cpu_reverse_block(const dml_plan* plan, const dml_plan_args* args, const dml_cpu_block_origin* origin,
    uint64_t a_begin, uint64_t a_end, uint64_t j_begin, uint64_t j_end, int stream);

#endif /* DML_CPU_REVERSE_BLOCK_H */
