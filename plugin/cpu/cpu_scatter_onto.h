/*
 * cpu_scatter_onto.h — a scatter's two steps (core/ops/scatter.c: the copy
 * of its input to its output, then its updates) in one pass over the output,
 * for their common shape: a dense copy, and updates whose rows each cover one
 * whole cell of the output (its elements cut into runs of the updates' row
 * length: SCATTER_ND of rows, a cache update).
 *
 * Each thread owns a range of cells and takes it in blocks of
 * DML_CPU_ONTO_BLOCK_CELLS: a walk of the updates from the last marks each
 * cell's winner, the last update in the updates' row-major order whose index
 * resolves (the one the two steps leave there), and writes it; the cells no
 * update reaches are then copied from the input. Every output element is
 * written once, and neither updates that lose nor the input under the cells
 * updates cover are read. Outputs that stream (dml_cpu_plan_streams) are
 * written with non-temporal stores.
 */
#ifndef DML_CPU_SCATTER_ONTO_H
#define DML_CPU_SCATTER_ONTO_H

#include <stdint.h>

#include "core/plan.h"
#include "cpu_cost.h"
#include "cpu_pool.h"

/* Cells one block marks (a 16 KiB bitmap on the thread's stack). */
#define DML_CPU_ONTO_BLOCK_CELLS ((uint64_t)128 << 10)

/* Cells of fewer bytes keep the two steps: at 256-byte rows the walk's
 * descending, skipping reads of the updates cost more than the one pass
 * saves (64 MiB on the 2-core VM: 24-41 ms against 19-35 ms for the two
 * steps; 1 KiB rows 17-26 ms against 29-34 ms). */
#define DML_CPU_ONTO_MIN_CELL_BYTES 1024u

/* Sets that threshold for the whole process (tests reach the one pass with
 * small cells) and returns the previous one. Not for use while dispatches run. */
uint64_t dml_cpu_onto_min_cell_bytes(uint64_t bytes);

/* Whether copy (a GATHER) then scatter (a SCATTER onto its output), each
 * with its arguments, take the one pass: the copy writes a dense range of
 * the output from the same layout of its input; the updates' rows are
 * contiguous, read one index tuple each and land on the cells of that range;
 * nothing either reads overlaps what they write; cells have at least
 * dml_cpu_onto_min_cell_bytes; and walking the updates once per block costs
 * less than writing the losing ones would. */
int dml_cpu_scatter_onto_applies(const dml_plan* copy, const dml_plan_args* copy_args, const dml_plan* scatter,
    const dml_plan_args* scatter_args);

/* Runs both on the threads the cost model chooses among min(threads of pool,
 * max_threads) (pool may be NULL: one). Returns that count. Never allocates. */
unsigned dml_cpu_scatter_onto(cpu_pool* pool, const dml_cpu_cost_model* model, unsigned max_threads,
    const dml_plan* copy, const dml_plan_args* copy_args, const dml_plan* scatter, const dml_plan_args* scatter_args);

#endif /* DML_CPU_SCATTER_ONTO_H */
