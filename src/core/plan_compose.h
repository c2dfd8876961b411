/*
 * plan_compose.h — fusion: one plan doing the work of two gathers in a row.
 *
 * The producer P writes an intermediate; the consumer Q reads it as its input.
 * Both are canonical plans (plan.h). Their composition reads P's input (and
 * the lengths of whichever of the two is a REVERSE_SUBSEQUENCES) and writes
 * Q's output, element for element what running P then Q writes.
 *
 * How: P's output strides, decreasing, are the digits of a mixed-radix
 * number. Every element position Q reads is Q's input offset plus a sum of
 * its input strides; written in P's digits, each is P's coordinate of the
 * element that P wrote there. When every digit stays inside P's sizes over
 * all of Q's coordinates (no carry), P's coordinates are an affine function
 * of Q's, and pushing them through P's input map gives one affine gather.
 * A dimension of Q that carries across a digit of P (a reshape of a
 * contiguous run) is split at the digit boundary first.
 *
 * A reversal composes when the result can still say "reverse this axis by
 * lengths indexed by the output coordinates": Q's reversal always does (its
 * axis and lengths stay Q's); P's only when exactly one dimension of Q walks
 * P's axis from 0 with step 1 and nothing else, so the lengths P reads are
 * indexed by coordinates of Q, and the clamp stays P's axis size. Two
 * reversals, or element sizes that differ (a reinterpreting edge), do not
 * compose: the intermediate is materialised instead.
 */
#ifndef DML_CORE_PLAN_COMPOSE_H
#define DML_CORE_PLAN_COMPOSE_H

#include <stdbool.h>

#include "plan.h"

typedef enum dml_lengths_from {
    DML_LENGTHS_NONE = 0,     /* the result is a gather */
    DML_LENGTHS_CONSUMER = 1, /* the result reads the consumer's lengths */
    DML_LENGTHS_PRODUCER = 2, /* the result reads the producer's lengths */
} dml_lengths_from;

/* The plan reading what `producer` reads and writing what `consumer` writes,
 * or false (result untouched) when that composition is not exact. */
bool dml_plan_compose(const dml_plan* consumer, const dml_plan* producer, dml_plan* result,
    dml_lengths_from* lengths_from);

#endif /* DML_CORE_PLAN_COMPOSE_H */
