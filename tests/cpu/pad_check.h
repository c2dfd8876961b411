/*
 * pad_check.h — one PADDING of a 2-D tensor through the CPU executor
 * (dml_cpu_pad on 3 threads at most, the plan lowered by the core) into an
 * exact-size guarded output, checked against tests/api's reference
 * (ref_padding); shared by test_cpu_streamed and test_cpu_pad_rows.
 */
#ifndef DML_TEST_PAD_CHECK_H
#define DML_TEST_PAD_CHECK_H

#include <stdint.h>

#include "cpu_pool.h"
#include "dml/dml.h"

/* PADDING of in_sizes[2] by starts[2] / ends[2] in `mode` (`value`: CONSTANT's). */
void check_padding(cpu_pool* pool, DML_TENSOR_DATA_TYPE type, DML_PADDING_MODE mode, float value,
    const uint32_t* in_sizes, const uint32_t* starts, const uint32_t* ends);

#endif /* DML_TEST_PAD_CHECK_H */
