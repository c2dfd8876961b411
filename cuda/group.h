/*
 * group.h — grouped gather launches: the independent gathers of one node
 * (JOIN's and SPLIT's parts, dml_backend.queue_execute_group) as one kernel
 * launch (group.cu) instead of one per part. Pure host C, used by the CUDA
 * plugin and the emulated one alike, so both launch the same groups with
 * the same geometry.
 *
 * Each part keeps what the launcher planned for it alone (launch.c): its
 * params, its path (scalar, vector, reversed vector or tiled), its thread
 * count; a plain copy (which alone is a cudaMemcpyAsync) is planned as a
 * kernel instead, so that the group stays one launch. The group's block is
 * the largest of its parts' (256 with a tiled part, whose tiles need whole
 * blocks); a part planned with smaller blocks gets as many threads in
 * blocks of that size (its grid-stride loops run on any geometry). The
 * grid is the parts' blocks one after the other (group_params.h). What a
 * group changes against separate launches: 64-bit indexing for every part
 * when one needs it (narrow parts are valid wide, and one kernel holds one
 * index width), and the register budget of the kernel's hungriest path
 * (DML_GROUP_BLOCKS_PER_SM); a part's grid is still sized to its own.
 * Two layouts walk differently (group_params.h): a JOIN of parts side by
 * side in the output rows walks the joined rows (group_join.h), a SPLIT of
 * parts side by side in the input rows walks each part's packed output as
 * one flat row (group_split.h).
 */
#ifndef DML_CUDA_GROUP_H
#define DML_CUDA_GROUP_H

#include "launch.h"
#include "group_params.h"

typedef struct dml_cuda_group_launch {
    uint32_t element_size; /* every part's */
    int wide;              /* 64-bit indexing */
    uint32_t grid, block;
    uint32_t shared_bytes; /* the largest tiled part's tile; 0 without one */
    dml_group_params params;
    /* Host side only: each part's bound ranges (input, lengths, output),
     * against which the emulator checks that part's accesses. */
    const unsigned char* bound[DML_GROUP_PARTS][3];
    uint64_t bound_bytes[DML_GROUP_PARTS][3];
} dml_cuda_group_launch;

/* Whether a plan may be a part of a grouped launch: a GATHER (a kernel or
 * a copy; the other kinds, and REVERSE_SUBSEQUENCES, launch alone). */
int dml_cuda_groupable(const dml_plan* plan);

/* How a dispatch group's plans are launched (dml_cuda_run_group): alone
 * (index into the group) or as a grouped launch; nonzero stops the run and
 * is returned. */
typedef int (*dml_cuda_single_fn)(void* context, uint32_t index);
typedef int (*dml_cuda_grouped_fn)(void* context, const dml_cuda_group_launch* group);

/* Launches count plans (compiled: their launches as dml_cuda_plan_launch_on
 * planned them for this GPU; args: their bound buffers): each run of
 * consecutive groupable plans of one element size as grouped launches,
 * split evenly into launches of at most DML_GROUP_PARTS parts; every other
 * plan, and a run of one, alone. scratch holds each grouped launch while
 * it is handed to `grouped` (it is large: 32 KiB of params). Returns 0 or
 * the first nonzero value a callback returned. */
int dml_cuda_run_group(const dml_plan* const* plans, const dml_cuda_launch* const* compiled, const dml_plan_args* args,
    uint32_t count, const dml_cuda_limits* limits, dml_cuda_group_launch* scratch, dml_cuda_single_fn single,
    dml_cuda_grouped_fn grouped, void* context);

/* Builds one grouped launch from count (1 .. DML_GROUP_PARTS) groupable
 * plans of one element size; parts without work take no block (grid 0 when
 * none has any). For tests and tools; dml_cuda_run_group uses it. */
void dml_cuda_plan_group(const dml_plan* const* plans, const dml_cuda_launch* const* compiled,
    const dml_plan_args* args, uint32_t count, const dml_cuda_limits* limits, dml_cuda_group_launch* group);

#endif /* DML_CUDA_GROUP_H */
