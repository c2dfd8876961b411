/*
 * plan_compose.h — fusion: one plan doing the work of two gathers in a row.
 *
 * The producer P writes an intermediate; the consumer Q reads it as its input.
 * Both are canonical plans (plan.h). Their composition reads P's input (and
 * the lengths of whichever of the two is a REVERSE_SUBSEQUENCES) and writes
 * Q's output, element for element what running P then Q writes.
 *
 * How: P's output strides, decreasing, are the place values of a
 * mixed-radix number whose digits are P's coordinates (radix: P's sizes); P
 * writes no two coordinates at one offset, so every offset P wrote has one
 * such number. Every element Q reads is at Q's input offset plus a sum of its
 * input strides; written in P's digits, it is P's coordinate of the element
 * P wrote there. Each dimension of Q gets its stride in digits from the
 * first two elements it reads (the digits of the second minus those of the
 * first: -1 walking back across a row may be "-1 row, +3 columns"). When all
 * of Q's box stays inside P's radices (no carry), P's coordinates are an
 * affine function of Q's, and pushing them through P's input map gives one
 * affine gather. A dimension of Q that leaves the box after k steps (it
 * carries: a flat view of a transpose read with step 1, -1, 2 or -2, a
 * window of Q's that its plan merged into one dimension, ...) is split into
 * (size / k, k) when k divides its size, the outer part walked in turn; no
 * other split can be affine, since the first carry is at step k. What
 * stays out of the box after that does not compose: digits that carry at
 * different steps (step 3 across rows of 4), elements P did not write.
 * The digits of an offset are found digit by digit, outermost first: one
 * candidate each for nested layouts (each stride beyond what the smaller
 * ones reach), a bounded search for interleaved ones (small by validation),
 * which may give up.
 *
 * A reversal composes when the result can still say "reverse this axis by
 * lengths indexed by the output coordinates": Q's reversal always does (its
 * axis and lengths stay Q's; its axis is never split, so it must not carry);
 * P's only when exactly one dimension of Q (after splitting) walks P's axis
 * from 0 with step 1 and nothing else, so the lengths P reads are
 * indexed by coordinates of Q, and the clamp stays P's axis size. Two
 * reversals, or element sizes that differ (a reinterpreting edge), do not
 * compose: the intermediate is materialised instead. A gather reading a
 * fill (DML_PLAN_FILL) composes into a fill: the fill's sequence positions
 * play the part of its input offsets. A consumer reading only
 * position 0 of P's axis composes too: the result reverses an axis of size 1
 * (it reads position L - 1) with P's clamp.
 *
 * An indexed gather (DML_PLAN_INDEXED) composes with a plain gather on
 * either side. As the producer, its index terms are kept and the indices
 * are read at its coordinates of what Q reads (as a producer's reversal
 * lengths are). As the consumer, each index component k is walked as one
 * more dimension of Q (range index_sizes[k], stride index_strides[k]): it
 * must map to a single stride of P's input over its whole range (it may not
 * carry), which becomes the result's index_strides[k]; Q's indices stay
 * Q's. Two indexed gathers, or one with any other kind, do not compose.
 *
 * A select (DML_PLAN_SELECT) composes with a plain gather on either side.
 * As the consumer, the gather feeds its first input (the one the plan walks
 * by in_strides); its condition and second input stay its own. As the
 * producer, its condition and both inputs are read at its coordinates of
 * what Q reads. A scatter composes as the consumer of the gather producing
 * its updates: its output side (offsets and index terms) stays its own, and
 * its dimensions keep their order (the order its updates are applied in,
 * which decides between duplicate targets): a split dimension's outer part
 * is walked right before its inner part.
 *
 * A CAST composes with a plain gather on either side: the result is a CAST
 * (its types and element sizes) over the composed positions, each element
 * still converted once. The intermediate's element size is P's output's and
 * Q's input's (a cast's in_element_size). Two casts never compose (a
 * rounding in between is not one conversion), nor a cast with a reversal
 * or a scale-bias.
 */
#ifndef DML_CORE_PLAN_COMPOSE_H
#define DML_CORE_PLAN_COMPOSE_H

#include <stdbool.h>

#include "plan.h"

typedef enum dml_lengths_from {
    DML_LENGTHS_NONE = 0,     /* the result is a gather */
    DML_LENGTHS_CONSUMER = 1, /* the result reads the consumer's lengths */
    DML_LENGTHS_PRODUCER = 2, /* the result reads the producer's lengths (and second input) */
} dml_lengths_from;

/* The plan reading what `producer` reads and writing what `consumer` writes,
 * or false (result untouched) when that composition is not exact. */
bool dml_plan_compose(const dml_plan* consumer, const dml_plan* producer, dml_plan* result,
    dml_lengths_from* lengths_from);

#endif /* DML_CORE_PLAN_COMPOSE_H */
