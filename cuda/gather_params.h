/*
 * gather_params.h — what a CUDA gather launch carries by value: the plan,
 * rewritten by the launcher (launch.c) into the shape the kernel walks, with
 * 32-bit fast divisors when every index fits, and the bound pointers.
 *
 * Plain C, shared by the host launcher, the kernels (nvcc) and the host
 * emulator.
 */
#ifndef DML_CUDA_GATHER_PARAMS_H
#define DML_CUDA_GATHER_PARAMS_H

#include <stdint.h>

#define DML_CUDA_MAX_RANK 8
#define DML_CUDA_ITEMS 4        /* independent elements per thread, to keep loads in flight */
#define DML_CUDA_BLOCK 256      /* threads per block, at most */
/* Blocks of DML_CUDA_BLOCK threads resident per SM: the kernels are compiled
 * for it (at most 64 registers), and grids are sized to it; the gather
 * kernels per path, DML_GATHER_BLOCKS_PER_SM below. */
#define DML_CUDA_BLOCKS_PER_SM 4
#define DML_CUDA_VECTOR_BYTES 16

/* n / d for n < 2^31 with a multiply and a shift (Granlund & Montgomery, as
 * in PyTorch's IntDivider): q = (umulhi(n, multiplier) + n) >> shift. */
typedef struct dml_divisor32 {
    uint32_t divisor;
    uint32_t multiplier;
    uint32_t shift;
} dml_divisor32;

typedef enum dml_cuda_mode {
    DML_CUDA_MODE_SCALAR = 0,         /* one element per work item */
    DML_CUDA_MODE_VECTOR = 1,         /* 16-byte vectors along contiguous rows */
    DML_CUDA_MODE_VECTOR_REVERSED = 2, /* 16-byte vectors along reversed rows, lanes swapped */
    DML_CUDA_MODE_TILED = 3            /* 2-D transposes through shared-memory tiles (tile_thread.h) */
} dml_cuda_mode;

/* REVERSE_SUBSEQUENCES, which fixes a launch's path as its mode does. */
typedef enum dml_cuda_reverse {
    DML_CUDA_REVERSE_NONE = 0,  /* a plain gather */
    DML_CUDA_REVERSE_OUTER = 1, /* the axis is an outer dimension (axis < outer_rank) */
    DML_CUDA_REVERSE_ROW = 2    /* the axis is the row, the inner dimension (axis == outer_rank) */
} dml_cuda_reverse;

/* Blocks resident per SM that the gather kernel of a path is compiled for
 * (its __launch_bounds__, kernels.cu) and whose grid the launcher sizes to
 * (launch.c): the register budget of a thread is 65536 / (256 * blocks).
 * Every vector path keeps its DML_CUDA_ITEMS 16-byte loads in flight; those
 * that cannot hold them in 64 registers (ptxas spilled, on sm_80, sm_90 or
 * sm_100: with 64-bit indexing, REVERSE_SUBSEQUENCES, whose 64-bit row
 * arithmetic surrounds the dependent length load, and 8-byte elements, whose
 * offsets and edge elements are 64-bit; REVERSE_SUBSEQUENCES along the row,
 * each vector from two windows, with 8-byte elements) run 2 blocks of 128
 * registers a thread instead. A constant expression: usable in templates. */
#define DML_GATHER_BLOCKS_PER_SM(mode, element_size, wide, reverse)                                             \
    (((mode) == DML_CUDA_MODE_VECTOR || (mode) == DML_CUDA_MODE_VECTOR_REVERSED) &&                            \
            (((wide) && ((reverse) != DML_CUDA_REVERSE_NONE || (element_size) == 8)) ||                        \
                ((reverse) == DML_CUDA_REVERSE_ROW && (element_size) == 8))                                    \
        ? 2                                                                                                    \
        : DML_CUDA_BLOCKS_PER_SM)

/* TILED mode: a block moves square tiles of DML_TILE x DML_TILE elements,
 * DML_TILE_ROWS tile rows per pass of its DML_CUDA_BLOCK threads (so each
 * thread moves DML_CUDA_ITEMS elements per phase). A tile row is padded to
 * DML_TILE_PITCH words so that a column of the tile spans every bank. */
#define DML_TILE 32
#define DML_TILE_ROWS (DML_CUDA_BLOCK / DML_TILE)
#define DML_TILE_PITCH (DML_TILE + 1)
#define DML_TILE_WORDS (DML_TILE * DML_TILE_PITCH) /* words of 4 bytes (8 for 8-byte elements) */
/* Tiled blocks resident per SM as far as registers go: the tiled kernels
 * are compiled for it (at most 85 registers: a staged tile's row arithmetic
 * for its loads in flight). The launcher takes the least of it and what
 * the SM's shared memory holds of the launch's tiles (launch.c). */
#define DML_TILE_BLOCKS_PER_SM 3
/* TILED REVERSE_SUBSEQUENCES: the values of `axis` that name the tile's
 * own sides (batch dimensions are 0 .. outer_rank - 1). */
#define DML_TILE_AXIS_INNER(p) ((int32_t)(p)->outer_rank)
#define DML_TILE_AXIS_ACROSS(p) ((int32_t)(p)->outer_rank + 1)
#define DML_TILE_AXIS_ACROSS_STORED(p) ((int32_t)(p)->outer_rank + 2)

/*
 * The iteration space is rows of `row_items` work items:
 *   item i -> row = i / row_items, k = i % row_items;
 *   row -> coordinates over the outer dimensions (outer_rank of them), which
 *   give the row's element offsets in, out and lengths.
 * SCALAR: k is the coordinate along the inner dimension (strides in_inner,
 *   out_inner, len_inner). REVERSE_SUBSEQUENCES whose axis is the inner
 *   dimension has axis == outer_rank.
 * VECTOR*: k is the k-th 16-byte vector of the row's body. Each row decides
 *   its own head (elements before the first 16-byte aligned output address),
 *   body and tail at run time, so rows of any pitch and alignment vectorise;
 *   row_length / lanes bounds the body, and the items of a row also copy its
 *   head and tail elements one by one, item k the k-th: row_items is at least
 *   the most edge elements a row can have (2 * lanes - 2, or the row), so
 *   that every item carries at most one from its loads to its stores.
 *   Output rows are contiguous; input rows
 *   run forward (VECTOR) or backward (VECTOR_REVERSED) from the row's input
 *   offset, at any relative alignment: a misaligned 16 bytes are read as the
 *   two aligned vectors holding them and shifted into place, so every chunk
 *   read holds an element needed (an aligned vector reaching outside the
 *   input row is read in its needed bytes only: nothing outside the bound
 *   ranges is ever read). REVERSE_SUBSEQUENCES along the row (axis ==
 *   outer_rank) reverses the first L elements: a body vector inside them is
 *   read as a reversed vector, one past them forward, one straddling L
 *   spliced from two loads.
 * TILED: see the fields below and tile_thread.h.
 */
typedef struct dml_gather_params {
    const unsigned char* in;
    unsigned char* out;
    const unsigned char* lengths; /* REVERSE_SUBSEQUENCES */

    uint64_t count;     /* work items */
    uint64_t row_items; /* work items per row */
    uint32_t outer_rank;
    uint32_t element_size;
    int32_t axis;       /* REVERSE_SUBSEQUENCES: outer dimension index, outer_rank for the inner one; else -1 */
    uint32_t lengths_size; /* 4 or 8 */
    uint64_t axis_size;

    /* VECTOR modes */
    uint32_t lanes;      /* elements per vector */
    uint32_t reserved;
    uint64_t row_length; /* elements per row */

    int64_t in_offset, out_offset, len_offset; /* element offsets of item 0 */
    int64_t in_inner, out_inner, len_inner;    /* SCALAR, TILED: strides along the inner dimension */

    /* TILED: the inner dimension (row_length elements, strides in_inner,
     * out_inner) is the tile's output-contiguous side; `across` is the
     * dimension contiguous (+-1) in the input, its other side. count is the
     * number of tiles, row_items the tiles per batch (the outer dimensions,
     * which exclude `across`); a batch's tiles run inner-fastest.
     * REVERSE_SUBSEQUENCES: axis is a batch dimension's index or one of
     * the DML_TILE_AXIS_* below (which phase reverses: tile_thread.h); the
     * lengths' strides are len_inner and len_across (0 on the axis). The
     * tiled kernels are not specialised for it: they read axis at run time. */
    uint64_t across_size;
    int64_t in_across, out_across, len_across;
    uint64_t inner_tiles;                /* tiles along the inner dimension */
    dml_divisor32 inner_tiles_divisor;
    /* Tile shape: tile_inner x tile_across elements (DML_TILE x DML_TILE
     * for square tiles). Staged tiles (tile_staged != 0, tile_staged.h):
     * stage_pitch words of shared memory per tile row; stage_loads and
     * stage_stores warp instructions per tile row in each phase. A block's
     * shared memory is the tile's: the launch's shared_bytes (launch.h).
     * Flat phases, when nothing reverses and the tile's input (or output)
     * is one contiguous range, so that rows of a few elements still move
     * whole sectors: stage_flat_load, the tile spans across whole and its
     * rows' input pieces are adjacent (in_inner == across_size *
     * in_across): shared memory holds that range's bytes, one row of
     * stage_pitch words, and stage_loads counts the range's instructions;
     * stage_flat_store, the tile spans the output rows whole and they are
     * adjacent (out_across == row_length): stage_stores counts the
     * instructions over the tile's output range. */
    uint32_t tile_inner, tile_across;
    uint32_t tile_staged, stage_pitch, stage_loads, stage_stores;
    uint32_t stage_flat_load, stage_flat_store;

    /* Outer dimensions, outermost first. index32 launches use the 32-bit
     * copies; others the 64-bit ones. */
    uint64_t outer_sizes[DML_CUDA_MAX_RANK];
    int64_t in_strides[DML_CUDA_MAX_RANK];
    int64_t out_strides[DML_CUDA_MAX_RANK];
    int64_t len_strides[DML_CUDA_MAX_RANK];
    dml_divisor32 row_divisor;                  /* row_items */
    dml_divisor32 outer_divisors[DML_CUDA_MAX_RANK];
    int32_t in_strides32[DML_CUDA_MAX_RANK];
    int32_t out_strides32[DML_CUDA_MAX_RANK];
    int32_t len_strides32[DML_CUDA_MAX_RANK];
} dml_gather_params;

#endif /* DML_CUDA_GATHER_PARAMS_H */
