/*
 * tile_thread.h — the per-thread code of the TILED mode (a 2-D transpose
 * inside a plan), shared by the kernels (nvcc) and the emulator, like
 * gather_thread.h.
 *
 * A tile is DML_TILE x DML_TILE elements: i along the inner dimension (the
 * output-contiguous one), j along `across` (the input-contiguous one). A
 * block moves its tiles in two phases separated by barriers:
 *
 *   dml_tile_load:  lane walks j: coalesced loads from the input, each
 *                   element written to shared word i * PITCH + j;
 *   barrier
 *   dml_tile_store: lane walks i: shared word i * PITCH + j read back,
 *                   coalesced stores to the output;
 *   barrier (before the next tile overwrites the shared words).
 *
 * Thread t = warp * 32 + lane moves the rows warp, warp + DML_TILE_ROWS, ...
 * (DML_CUDA_ITEMS of them) of its phase, all loads before any store. The
 * padding (PITCH = 33) puts the 32 words of a tile column in 32 different
 * banks. Shared words are 4 bytes (1-, 2- and 4-byte elements widened) or
 * 8 bytes (8-byte elements). Elements outside the tensor (partial tiles at
 * the edges) are neither read nor written, in global or shared memory.
 *
 * The callers run the phases for every tile of a block: the kernel with
 * __syncthreads between them, the emulator all threads of the block phase
 * by phase, checking shared-memory use (emulator.h).
 */
#ifndef DML_CUDA_TILE_THREAD_H
#define DML_CUDA_TILE_THREAD_H

#include "gather_thread.h"

#if defined(DML_CUDA_EMULATION) && !defined(__CUDA_ARCH__)
void dml_emulator_shared_access(int is_store, const void* address, unsigned bytes);
#define DML_SHARED_TRACE(is_store, address, bytes) dml_emulator_shared_access(is_store, address, bytes)
#else
#define DML_SHARED_TRACE(is_store, address, bytes) ((void)(is_store), (void)(address), (void)(bytes))
#endif

DML_HD uint32_t dml_tile_word(uint32_t element_size)
{
    return element_size == 8 ? 8 : 4;
}

DML_HD void dml_shared_store(unsigned char* tile, uint32_t index, uint64_t value, uint32_t element_size)
{
    const uint32_t word = dml_tile_word(element_size);
    unsigned char* at = tile + (uint64_t)index * word;
    DML_SHARED_TRACE(1, at, word);
    if (word == 8)
        dml_store64(at, value);
    else
        dml_store32(at, value);
}

DML_HD uint64_t dml_shared_load(const unsigned char* tile, uint32_t index, uint32_t element_size)
{
    const uint32_t word = dml_tile_word(element_size);
    const unsigned char* at = tile + (uint64_t)index * word;
    DML_SHARED_TRACE(0, at, word);
    return word == 8 ? dml_load64(at) : dml_load32(at);
}

/* Where tile `tile` lies: its batch's element offsets and its first
 * coordinates along the inner dimension (i0) and across (j0). */
typedef struct dml_tile_origin {
    int64_t in, out;
    uint64_t i0, j0;
} dml_tile_origin;

DML_HD dml_tile_origin dml_locate_tile(const dml_gather_params* p, uint64_t tile, int wide)
{
    uint64_t batch, t, across_tile, inner_tile;
    dml_split_item(p, tile, wide, &batch, &t);
    if (!wide) {
        across_tile = dml_divide32(p->inner_tiles_divisor, (uint32_t)t);
        inner_tile = t - across_tile * p->inner_tiles;
    } else {
        across_tile = t / p->inner_tiles;
        inner_tile = t - across_tile * p->inner_tiles;
    }
    dml_row r = dml_row_offsets(p, batch, wide, -1);
    dml_tile_origin o = { r.in, r.out, inner_tile * DML_TILE, across_tile * DML_TILE };
    return o;
}

/* Phase 1: input -> shared. Lane walks j (the input-contiguous side). */
DML_HD void dml_tile_load(const dml_gather_params* p, uint64_t tile, uint32_t thread, unsigned char* shared,
    uint32_t element_size, int wide)
{
    const dml_tile_origin o = dml_locate_tile(p, tile, wide);
    const uint32_t lane = thread % DML_TILE, row = thread / DML_TILE;
    const uint64_t j = o.j0 + lane;
    uint64_t values[DML_CUDA_ITEMS];
    DML_UNROLL
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint64_t i = o.i0 + row + (uint64_t)k * DML_TILE_ROWS;
        if (i < p->row_length && j < p->across_size) {
            const int64_t in = o.in + (int64_t)i * p->in_inner + (int64_t)j * p->in_across;
            values[k] = dml_load_element(p->in + in * element_size, element_size, DML_SITE_LOAD);
        }
    }
    DML_UNROLL
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint64_t i = o.i0 + row + (uint64_t)k * DML_TILE_ROWS;
        if (i < p->row_length && j < p->across_size)
            dml_shared_store(shared, (row + (uint32_t)k * DML_TILE_ROWS) * DML_TILE_PITCH + lane, values[k],
                element_size);
    }
}

/* Phase 2: shared -> output. Lane walks i (the output-contiguous side). */
DML_HD void dml_tile_store(const dml_gather_params* p, uint64_t tile, uint32_t thread, const unsigned char* shared,
    uint32_t element_size, int wide)
{
    const dml_tile_origin o = dml_locate_tile(p, tile, wide);
    const uint32_t lane = thread % DML_TILE, row = thread / DML_TILE;
    const uint64_t i = o.i0 + lane;
    uint64_t values[DML_CUDA_ITEMS];
    DML_UNROLL
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint64_t j = o.j0 + row + (uint64_t)k * DML_TILE_ROWS;
        if (i < p->row_length && j < p->across_size)
            values[k] = dml_shared_load(shared, lane * DML_TILE_PITCH + row + (uint32_t)k * DML_TILE_ROWS, element_size);
    }
    DML_UNROLL
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint64_t j = o.j0 + row + (uint64_t)k * DML_TILE_ROWS;
        if (i < p->row_length && j < p->across_size) {
            const int64_t out = o.out + (int64_t)i * p->out_inner + (int64_t)j * p->out_across;
            dml_store_element(p->out + out * element_size, values[k], element_size, DML_SITE_STORE);
        }
    }
}

#endif /* DML_CUDA_TILE_THREAD_H */
