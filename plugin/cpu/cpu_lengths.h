/*
 * cpu_lengths.h — the clamped sequence length for the CPU executors' loops:
 * the length read at a size that is a constant of each instantiated loop,
 * clamped by core/plan.h's dml_clamp_sequence_length (the one definition
 * every executor shares).
 */
#ifndef DML_CPU_LENGTHS_H
#define DML_CPU_LENGTHS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/plan.h"

/* min(lengths[index], axis_size) for lengths of LS (4 or 8) bytes. */
static inline __attribute__((always_inline)) uint64_t dml_cpu_read_length(const void* lengths, int64_t index,
    size_t LS, uint64_t axis_size)
{
    uint64_t length;
    if (LS == 8) {
        memcpy(&length, (const unsigned char*)lengths + index * 8, 8);
    } else {
        uint32_t length32;
        memcpy(&length32, (const unsigned char*)lengths + index * 4, 4);
        length = length32;
    }
    return dml_clamp_sequence_length(length, axis_size);
}

#endif /* DML_CPU_LENGTHS_H */
