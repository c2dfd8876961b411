/*
 * reference.h — a naive reference for the three operators, written from
 * docs/operators.md alone (no plan, no launcher): an odometer over the
 * output coordinates, each element's input coordinate computed by the spec's
 * pseudocode on the operator as the case describes it.
 */
#ifndef DML_TESTS_CUDA_REFERENCE_H
#define DML_TESTS_CUDA_REFERENCE_H

#include "gather_cases.h"

/* Writes what the output range must hold into b->expected (the sentinel copy
 * of the output block), reading b->base[0] (input) and b->base[1] (lengths). */
void reference_gather(const gather_case* c, gather_buffers* b);

/* Number of bytes where the output block differs from b->expected; the first
 * one in *first (when any). */
uint64_t reference_mismatches(const gather_buffers* b, uint64_t* first);

#endif
