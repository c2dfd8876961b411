/*
 * scatter_thread.h — one CUDA thread of a DML_PLAN_SCATTER launch (the
 * scatter step of SCATTER_ELEMENTS and SCATTER_ND, after the copy of their
 * input), compiled by nvcc for the kernel (indexed.cu) and by the C
 * compiler for the emulator. A grid-stride loop over the updates in the
 * plan's order (the builder keeps the updates' order for a scatter:
 * core/plan.c), consecutive threads on consecutive updates, so the updates
 * and their indices are read coalesced; the writes go where the indices
 * say. An update any of whose index components is outside its range once
 * the negative rule is applied (dml_index_resolve, core/plan.h) is dropped:
 * neither loaded nor stored, so nothing outside the output is written.
 *
 * Distinct targets never race. Updates aimed at one element are stores of
 * one naturally aligned element each, in no defined order: the element ends
 * up holding one of them, whole (which one is unspecified, as DirectML and
 * ONNX leave it).
 */
#ifndef DML_CUDA_SCATTER_THREAD_H
#define DML_CUDA_SCATTER_THREAD_H

#include "indexed_thread.h" /* dml_indexed_elements: the grid-stride pass a gather's flat path shares */

DML_HD void dml_scatter_thread(const dml_indexed_params* p, uint64_t block_index, uint32_t thread_index,
    uint64_t grid_dim, uint32_t block_dim, int wide)
{
    dml_indexed_elements(p, block_index, thread_index, grid_dim, block_dim, wide, 1);
}

#endif /* DML_CUDA_SCATTER_THREAD_H */
