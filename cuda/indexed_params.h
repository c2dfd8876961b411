/*
 * indexed_params.h — what a launch of a data-dependent plan (INDEXED,
 * SCATTER, SELECT, ONE_HOT: core/plan.h) carries by value: the plan itself
 * (the kernels walk it directly), the bound pointers, and INDEXED's row
 * path geometry (indexed.c decides it; the kernel and the emulator only
 * read it). Plain C, shared by the launcher, the kernels and the emulator.
 */
#ifndef DML_CUDA_INDEXED_PARAMS_H
#define DML_CUDA_INDEXED_PARAMS_H

#include "core/plan.h"

/* Lanes of a warp: a row segment's pass takes one unit per lane. */
#define DML_INDEXED_WARP 32
/* Units (16-byte output lines, or elements) a lane loads before it stores. */
#define DML_INDEXED_GROUP 4
/* A segment is at most this many passes of DML_INDEXED_GROUP units a lane:
 * 16 KiB of output lines, so a long row still spreads over several warps. */
#define DML_INDEXED_SEGMENT_PASSES 8
/* The narrowest rows the row path takes (bytes): below, a warp's lanes would
 * mostly idle in a row's one or two lines, and the flat path's per-element
 * index loads are broadcasts of a few rows anyway. */
#define DML_INDEXED_ROW_MIN_BYTES 64

/* Blocks of DML_CUDA_BLOCK threads resident per SM the kernels are compiled
 * for (their __launch_bounds__) and the grid is sized to: 64-bit indexing
 * holds a group's offsets in 128 registers a thread (ptxas spilled the flat
 * INDEXED path at 64), 32-bit in 64. */
#define DML_INDEXED_BLOCKS_PER_SM(wide) ((wide) ? 2 : 4)

typedef struct dml_indexed_params {
    dml_plan plan;
    const void* in;
    const void* indices; /* the plan's lengths: indices, or SELECT's condition */
    const void* in2;     /* SELECT, ONE_HOT */
    void* out;
    /* INDEXED's row path (indexed_thread.h): rows of `width` elements (the
     * plan's innermost dimension, contiguous in input and output, its index
     * the same along the row); a warp takes a segment of at most
     * segment_lines 16-byte output lines of a row, segments_per_row per row,
     * tasks = rows * segments_per_row. rows = 0: the flat path, a thread per
     * element (every kind). */
    uint32_t rows;
    uint32_t segment_lines;
    uint64_t width, segments_per_row, tasks;
} dml_indexed_params;

#endif /* DML_CUDA_INDEXED_PARAMS_H */
