/*
 * group_params.h — what a grouped gather launch (group.cu) carries by value:
 * up to DML_GROUP_PARTS gathers (a JOIN's or SPLIT's parts), each with its
 * own params and path as the launcher planned it alone (launch.c), and the
 * blocks of the one grid partitioned among them: part k owns the blocks
 * first_block .. first_block + blocks - 1, in order, so a block finds its
 * part by a binary search over first_block (group_thread.h) and runs that
 * part's code as block (blockIdx.x - first_block) of a grid of `blocks`.
 *
 * Size: a kernel's parameters may take 32764 bytes on Volta and later with
 * CUDA 12.1+ (the kernels are built for sm_80 and later, toolkit 13), so
 * DML_GROUP_PARTS is the most parts that fit (static_assert in group.cu); a
 * dispatch group of more (the core passes up to 64) is split into several
 * launches (group.c). Small groups launch a kernel whose parameter is only
 * the first DML_GROUP_SMALL_PARTS parts of the same layout, so that they do
 * not copy 32 KiB of parameters per launch.
 *
 * Plain C, shared by the launcher, the kernels (nvcc) and the emulator.
 */
#ifndef DML_CUDA_GROUP_PARAMS_H
#define DML_CUDA_GROUP_PARAMS_H

#include "gather_params.h"

#define DML_GROUP_PARAM_BYTES 32764u
#define DML_GROUP_PARTS 45u
#define DML_GROUP_SMALL_PARTS 4u

typedef struct dml_group_part {
    dml_gather_params params;
    uint32_t first_block; /* the part's first block in the grid */
    uint32_t blocks;      /* its blocks: the grid its grid-stride loops see */
    uint32_t mode;        /* dml_cuda_mode: SCALAR, VECTOR, VECTOR_REVERSED or TILED */
    uint32_t reserved;
    /* The lowest and highest input element offsets the part reads: every
     * byte between them is inside its bound input range (a tensor's
     * elements lie inside its binding), so the joined-row path
     * (group_join.h) may load any aligned vector within them whole. */
    int64_t in_lowest, in_highest;
} dml_group_part;

/* row_join (group_join.h): the parts are side by side in the rows of one
 * output and every block walks the joined rows, whose geometry (a vector
 * gather's, output side) is part[parts]; first_block and blocks unused.
 * row_split (group_split.h): the parts are side by side in the rows of one
 * input, each output packed, and each part's blocks walk its output as one
 * flat row (its params rewritten as that header says). */
typedef struct dml_group_params {
    uint32_t parts; /* 1 .. DML_GROUP_PARTS, each with blocks >= 1; row_join: 2 .. DML_GROUP_PARTS - 1 */
    uint32_t row_join;
    uint32_t row_split;
    uint32_t reserved;
    dml_group_part part[DML_GROUP_PARTS];
} dml_group_params;

/* The resident blocks per SM the grouped kernels are compiled for (their
 * __launch_bounds__): every path of a part is in one kernel, which gets the
 * registers of its hungriest path: 85 with 32-bit indexing (the tiled
 * paths'; the other narrow paths were built for 64 and may take more, see
 * group.cu), 128 with 64-bit indexing (the wide 8-byte vector path's) and
 * with 8-byte elements (the joined-row path's, group_join.h: ptxas spilled
 * at 85 on sm_80 and sm_90). */
#define DML_GROUP_BLOCKS_PER_SM(element_size, wide) ((wide) || (element_size) == 8 ? 2 : DML_TILE_BLOCKS_PER_SM)

#endif /* DML_CUDA_GROUP_PARAMS_H */
