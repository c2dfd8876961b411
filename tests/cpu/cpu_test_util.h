/*
 * cpu_test_util.h — random plans, buffers with sentinels and an independent
 * reference evaluation of the plan semantics (core/plan.h), shared by the
 * CPU executor tests.
 */
#ifndef DML_CPU_TEST_UTIL_H
#define DML_CPU_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"

typedef struct rng {
    uint64_t state;
} rng;

uint64_t rng_next(rng* r);
/* Uniform in [lo, hi]. */
int64_t rng_range(rng* r, int64_t lo, int64_t hi);

/* How a test case lays out a tensor's strides. */
typedef enum layout {
    LAYOUT_PACKED,    /* row-major, innermost stride 1 */
    LAYOUT_PADDED,    /* row-major with gaps between rows and elements */
    LAYOUT_PERMUTED,  /* dimensions in a random order, with gaps */
    LAYOUT_NEGATIVE,  /* packed with some dimensions walking backwards */
    LAYOUT_RANDOM,    /* input only: any signed strides, zeros included */
    LAYOUT_REVERSED,  /* input only: packed, innermost -1 */
    LAYOUT_BROADCAST, /* input only: packed, innermost 0 */
} layout;

typedef struct test_case {
    dml_plan plan;
    uint8_t* input;
    uint8_t* output;   /* what the executor writes into */
    uint8_t* expected; /* the reference result, sentinels included */
    uint8_t* sentinel; /* the output buffer's initial contents */
    void* lengths;
    size_t input_bytes, output_bytes, lengths_bytes;
} test_case;

/* Fills plan sizes/strides for the given layouts and rank, then offsets,
 * buffers and (for REVERSE_SUBSEQUENCES) lengths; computes the reference.
 * sizes may be NULL (random, product kept under max_elements).
 * len_inner: 0 forces len_strides[rank-1] == 0, 1 forces it non-zero, 2 random. */
typedef struct case_spec {
    uint32_t kind, rank, element_size;
    const uint64_t* sizes;
    uint64_t max_elements;
    layout in_layout, out_layout;
    const int64_t* in_strides; /* optional: used instead of in_layout */
    int32_t axis;
    uint32_t lengths_element_size;
    int len_inner;
    const uint64_t* length_values; /* optional: cycled through instead of random values */
    size_t length_value_count;
} case_spec;

void case_make(test_case* t, rng* r, const case_spec* spec);
void case_free(test_case* t);

/* Resets the output to its sentinels. */
void case_reset_output(test_case* t);

/* "" when output == expected, else a description of the first difference. */
const char* case_compare(const test_case* t);

/* Plan semantics, element by element, straight from plan.h's formula. */
void reference_execute(const dml_plan* plan, const dml_plan_args* args, size_t output_bytes, size_t input_bytes);

dml_plan_args case_args(const test_case* t);

#endif /* DML_CPU_TEST_UTIL_H */
