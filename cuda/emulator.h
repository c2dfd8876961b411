/*
 * emulator.h — runs a CUDA launch on the CPU: the per-thread code of
 * gather_thread.h over the exact grid and block the launcher computed, thread
 * by thread, warp by warp. Optionally measures coalescing: per warp and per
 * memory instruction (static site and its n-th execution in each thread), the
 * distinct 32-byte sectors touched against the bytes requested.
 */
#ifndef DML_CUDA_EMULATOR_H
#define DML_CUDA_EMULATOR_H

#include "launch.h"

#define DML_SECTOR_BYTES 32
#define DML_WARP_SIZE 32

typedef struct dml_coalescing {
    uint64_t load_bytes, load_sectors;   /* requested bytes; sectors touched */
    uint64_t store_bytes, store_sectors;
    uint64_t load_requests, store_requests; /* warp-level memory instructions */
    /* FIX (tests/cuda, coalescing report): REVERSE_SUBSEQUENCES' sequence-length
     * loads (DML_SITE_LENGTH) are counted here, not in load_*. They are mostly
     * warp-wide broadcasts of one length (128 bytes "requested" from one
     * sector), which pushed load efficiency above 1 and hid how the data loads
     * coalesce. */
    uint64_t length_bytes, length_sectors, length_requests;
} dml_coalescing;

/* bytes used / bytes of sectors touched; 1.0 when nothing was accessed. */
double dml_coalescing_load_efficiency(const dml_coalescing* c);
double dml_coalescing_store_efficiency(const dml_coalescing* c);

/* Executes the launch (a copy launch is a memmove-free memcpy). stats may be
 * NULL; when given it is filled (kernel launches only). Returns 0, or -1 when
 * tracing ran out of memory (the launch still executed). */
int dml_cuda_emulate(const dml_cuda_launch* launch, dml_coalescing* stats);

#endif /* DML_CUDA_EMULATOR_H */
