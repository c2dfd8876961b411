/*
 * indexed_cases.h — random plans of the data-dependent kinds (INDEXED,
 * SCATTER, SELECT, ONE_HOT) with their bound buffers, and a naive reference
 * written from core/plan.h's definitions (not calling its index helpers):
 * shared by the emulator's test (test_indexed_kinds.c) and the kernels
 * against the emulator on a GPU (tests/cuda_plugin/vs_emulator_indexed.c).
 *
 * Every buffer is allocated to its exact size (a byte past it is a heap
 * overflow for the sanitizers, besides the emulator's own checks). Index
 * tensors mix in-range, negative and out-of-range values with hostile ones
 * (INT64_MIN, UINT64_MAX, 2^63, INT32_MIN, UINT32_MAX). Scatters aim their
 * kept updates at distinct elements, so the result is defined.
 */
#ifndef DML_TEST_INDEXED_CASES_H
#define DML_TEST_INDEXED_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"

typedef struct indexed_rng {
    uint64_t s;
} indexed_rng;

uint64_t indexed_next(indexed_rng* r);

/* Shapes a case generator makes. */
typedef enum indexed_shape {
    SHAPE_GATHER,          /* INDEXED: any rank, tuples of 1-3 components, indices per element or broadcast */
    SHAPE_GATHER_ROWS,     /* INDEXED: rows of a table, one index a row (the row path), any alignment */
    SHAPE_SCATTER_ND,      /* SCATTER: tuples into the leading dimensions, rows of the rest */
    SHAPE_SCATTER_ELEMENTS, /* SCATTER: an index per update along one axis */
    SHAPE_SELECT,          /* SELECT: condition, A, B, each packed or broadcast */
    SHAPE_ONE_HOT,         /* ONE_HOT: the depth on any axis (or dropped) */
    SHAPE_COUNT
} indexed_shape;

typedef struct indexed_case {
    dml_plan plan;
    char name[96];
    unsigned char *input, *indices, *input2, *output, *expected, *initial;
    size_t input_bytes, indices_bytes, input2_bytes, output_bytes;
} indexed_case;

/* A random case of `shape` with element size e (1, 2, 4, 8) and at most
 * about max_elements elements; index32 as asked. Returns 0, or -1 when out
 * of memory. */
int indexed_case_make(indexed_case* c, indexed_shape shape, uint32_t e, int index32, uint64_t max_elements,
    indexed_rng* r);

/* The bound ranges of the case's buffers. */
dml_plan_args indexed_case_args(const indexed_case* c);

/* Writes the reference result into c->expected (from the output's initial
 * contents, which the case keeps). */
void indexed_case_reference(indexed_case* c);

/* Restores c->output to its initial contents. */
void indexed_case_reset(indexed_case* c);

void indexed_case_free(indexed_case* c);

#endif /* DML_TEST_INDEXED_CASES_H */
