/*
 * fill_cases.h — the FILL_VALUE_CONSTANT / FILL_VALUE_SEQUENCE cases of the
 * coalescing report (dmlcoalesce) and the coalescing test (tests/cuda): an
 * output of about `bytes` bytes, contiguous or in rows of `row_bytes` bytes
 * padded by 16, compiled to its plan as CompileOperator does.
 */
#ifndef DML_PROFILING_FILL_CASES_H
#define DML_PROFILING_FILL_CASES_H

#include <stdint.h>

#include "core/plan.h"

typedef enum fill_pattern {
    FILL_CONTIGUOUS = 0, /* one packed tensor {bytes / e} */
    FILL_PADDED_ROWS = 1, /* rows of row_bytes, each followed by 16 bytes of padding */
    FILL_PATTERN_COUNT
} fill_pattern;

const char* fill_pattern_name(int pattern);

/* The plan (0) or -1 with the runtime's error message set; *output_bytes:
 * the bytes the output occupies (what must be bound). */
int fill_case_plan(int sequence, uint32_t element_size, int pattern, uint64_t bytes, uint32_t row_bytes,
    dml_plan* plan, uint64_t* output_bytes);

#endif /* DML_PROFILING_FILL_CASES_H */
