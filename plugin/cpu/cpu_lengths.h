/*
 * cpu_lengths.h — the clamped sequence length for the CPU executors' loops:
 * core/plan.h's dml_plan_read_length itself (the one definition every
 * executor shares), called on a local copy of the two fields it reads, so
 * that the length size is a constant of each instantiated loop and the
 * clamp stays in a register across the loop's stores.
 */
#ifndef DML_CPU_LENGTHS_H
#define DML_CPU_LENGTHS_H

#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"

/* min(lengths[index], axis_size) for lengths of LS (4 or 8) bytes. */
static inline __attribute__((always_inline)) uint64_t dml_cpu_read_length(const void* lengths, int64_t index,
    size_t LS, uint64_t axis_size)
{
    dml_plan rule;
    rule.lengths_element_size = (uint32_t)LS;
    rule.axis_size = axis_size;
    return dml_plan_read_length(&rule, lengths, index);
}

#endif /* DML_CPU_LENGTHS_H */
