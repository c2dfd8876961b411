/*
 * emulator.h — runs a CUDA launch on the CPU: the per-thread code of
 * gather_thread.h over the exact grid and block the launcher computed, thread
 * by thread, warp by warp, checking that every access stays inside the
 * dispatch's bound ranges. Optionally measures coalescing: per warp and per
 * memory instruction (static site and its n-th execution in each thread), the
 * distinct 32-byte sectors touched against the bytes requested.
 */
#ifndef DML_CUDA_EMULATOR_H
#define DML_CUDA_EMULATOR_H

#include "launch.h"
#include "group.h"

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
    /* Loads in flight: the loads a thread issues before its first store
     * (every site), the minimum over the threads whose first pass had all
     * DML_CUDA_ITEMS items and stored something (full_threads of them); the
     * 16-byte loads before the first store, the minimum over the threads
     * whose first pass stored the most 16-byte vectors any first pass
     * stored (vector_items_per_pass; vector_threads of them); the minima are
     * 0 when there are no such threads. And the most loads any thread issued
     * after the first store of the same pass, over its passes (0: every pass
     * issues all its loads first; scalar and vector launches; a pass is what
     * gather_thread.h marks with DML_TRACE_PASS). */
    uint64_t full_threads, vector_threads, vector_items_per_pass;
    uint64_t min_loads_before_store, min_vector_loads_before_store;
    uint64_t max_loads_after_store;
    /* Shared memory (TILED): warp-level instructions, and the wavefronts
     * they take with 32 banks of 4 bytes (the most distinct words any bank
     * holds) against the fewest their words could take (distinct words / 32,
     * rounded up): the difference is the bank conflicts' cost. */
    uint64_t shared_requests, shared_wavefronts, shared_ideal_wavefronts;
} dml_coalescing;

/* Extra wavefronts per shared-memory instruction from bank conflicts; 0
 * when there were none. */
double dml_coalescing_bank_conflicts(const dml_coalescing* c);

/* bytes used / bytes of sectors touched; 1.0 when nothing was accessed. */
double dml_coalescing_load_efficiency(const dml_coalescing* c);
double dml_coalescing_store_efficiency(const dml_coalescing* c);

#define DML_EMULATE_OUT_OF_MEMORY (-1)
#define DML_EMULATE_VIOLATION (-2)

/* Executes the launch (a copy launch is a memcpy). Every load and store is
 * first checked against the launch's bound ranges (launch->bound, bound_bytes:
 * loads in the input, sequence-length loads in the lengths, stores in the
 * output) and against the natural alignment of its width; the first access
 * that breaks either rule is not made, the launch is abandoned and
 * DML_EMULATE_VIOLATION returned, with dml_cuda_emulator_violation() naming
 * the site, block, thread and address. TILED launches run a block's threads
 * phase by phase (every thread up to a barrier, then every thread up to the
 * next) over one shared buffer per block of exactly the launch's
 * shared_bytes (the kernel's dynamic shared memory); a shared access outside
 * it or misaligned, a read of a word no thread of the block wrote in an earlier
 * phase (a missing barrier), or two threads writing one word in one phase
 * (a race) is a violation too. stats may be NULL; when given it is
 * filled (kernel launches only). Returns 0, DML_EMULATE_VIOLATION, or
 * DML_EMULATE_OUT_OF_MEMORY (tracing ran out of memory: the launch was
 * still executed and checked; or, for a TILED launch, the shared-memory
 * model could not be allocated: nothing was executed). */
int dml_cuda_emulate(const dml_cuda_launch* launch, dml_coalescing* stats);

/* Executes a grouped launch (group.h) as dml_cuda_emulate does a launch:
 * block by block, each block as its part's, every access checked against
 * that part's own bound ranges; stats (may be NULL) summed over the parts. */
int dml_cuda_emulate_group(const dml_cuda_group_launch* group, dml_coalescing* stats);

/* Runs `phases` phases of one block of `threads` threads (at most
 * DML_CUDA_BLOCK) over the shared-memory model TILED launches use, of
 * shared_bytes bytes, calling
 * fn for every thread of a phase, then the barrier; shared accesses made
 * through tile_thread.h are checked and counted as in a launch (global
 * memory accesses are not allowed). For the model's own tests. Returns 0 or
 * DML_EMULATE_VIOLATION. */
typedef void (*dml_shared_phase_fn)(uint32_t thread, int phase, unsigned char* shared, void* context);
int dml_cuda_emulate_block(uint32_t threads, uint32_t shared_bytes, int phases, dml_shared_phase_fn fn, void* context,
    dml_coalescing* stats);

/* The last violation this thread's emulation found ("" if none). */
const char* dml_cuda_emulator_violation(void);

#endif /* DML_CUDA_EMULATOR_H */
