/*
 * guarded.h — exact-size test buffers for the CPU executor tests: `bytes`
 * that end where a PROT_NONE page starts, so a read or write past the end
 * faults (a vector load included), and up to 64 bytes before them holding a
 * pattern that guarded_check_before checks, so a write before the start is
 * seen. Where the data starts in a cache line is set by its size.
 */
#ifndef DML_TEST_GUARDED_H
#define DML_TEST_GUARDED_H

#include <stddef.h>

typedef struct guarded {
    unsigned char* map;
    size_t map_bytes;
    unsigned char* data;  /* the buffer */
    size_t bytes, before; /* its size; the pattern bytes just before it */
} guarded;

/* A buffer of `bytes` (0 allowed), the pattern over it and the bytes before. */
void guarded_make(guarded* g, size_t bytes);

/* Fails the test (naming `what`) if a byte before the buffer changed. */
void guarded_check_before(const guarded* g, const char* what);

void guarded_free(guarded* g);

#endif /* DML_TEST_GUARDED_H */
