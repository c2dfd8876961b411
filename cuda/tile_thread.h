/*
 * tile_thread.h — the per-thread code of the TILED mode's square tiles (a
 * 2-D transpose inside a plan), shared by the kernels (nvcc) and the
 * emulator, like gather_thread.h. Transposes into contiguous output rows
 * take staged tiles instead (tile_staged.h), which build on these helpers.
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

/* The emulator measures a tiled warp's accesses per instruction: the code
 * names the instruction each access belongs to (DML_INSTRUCTION), since
 * lanes that have nothing to move in one skip it. */
#if defined(DML_CUDA_EMULATION) && !defined(__CUDA_ARCH__)
void dml_emulator_shared_access(int is_store, const void* address, unsigned bytes);
void dml_emulator_instruction(uint32_t id);
#define DML_SHARED_TRACE(is_store, address, bytes) dml_emulator_shared_access(is_store, address, bytes)
#define DML_INSTRUCTION(id) dml_emulator_instruction(id)
#else
#define DML_SHARED_TRACE(is_store, address, bytes) ((void)(is_store), (void)(address), (void)(bytes))
#define DML_INSTRUCTION(id) ((void)(id))
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

/* Where tile `tile` lies: its batch's element offsets (the input's without
 * a reversal axis among the batch dimensions), that axis' coordinate, and
 * its first coordinates along the inner dimension (i0) and across (j0). */
typedef struct dml_tile_origin {
    int64_t in, out, len;
    uint64_t axis_coordinate;
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
    dml_tile_origin o = { r.in, r.out, r.len, r.axis_coordinate, inner_tile * p->tile_inner,
        across_tile * p->tile_across };
    return o;
}

/* REVERSE_SUBSEQUENCES in a tile (p->axis >= 0) reverses the first
 * `length` coordinates of its axis, wherever that changes which row an
 * instruction walks rather than where along it, so both phases stay
 * coalesced:
 *   - a batch dimension or the inner one (DML_TILE_AXIS_INNER): in phase 1,
 *     which reads the source element of every output element of the tile;
 *   - across (DML_TILE_AXIS_ACROSS_STORED): in phase 2. The tile holds input
 *     coordinates j along across; phase 2 stores the element of input
 *     coordinate j at output coordinate reversed(j), the same map (it is its
 *     own inverse on an axis walked whole);
 *   - across on a plan that walks part of its axis (DML_TILE_AXIS_ACROSS): in
 *     phase 1, as for the inner one (reads misaligned by the length).
 * The clamped length of the element at (i, j): */
DML_HD uint64_t dml_tile_length(const dml_gather_params* p, const dml_tile_origin* o, uint64_t i, uint64_t j)
{
    return dml_sequence_length(p, p->lengths, o->len + (int64_t)i * p->len_inner + (int64_t)j * p->len_across);
}

/* Whether phase 1 applies the reversal (it reads lengths). */
DML_HD int dml_tile_load_reverses(const dml_gather_params* p)
{
    return p->axis >= 0 && p->axis != DML_TILE_AXIS_ACROSS_STORED(p);
}

/* Input element offset of the tile element at (i, j), the reversal applied
 * when phase 1 applies it (with the element's length). */
DML_HD int64_t dml_tile_source(const dml_gather_params* p, const dml_tile_origin* o, uint64_t i, uint64_t j,
    uint64_t length)
{
    int64_t in = o->in;
    if (dml_tile_load_reverses(p)) {
        if (p->axis == DML_TILE_AXIS_INNER(p))
            i = (uint64_t)dml_reversed_coordinate(i, length);
        else if (p->axis == DML_TILE_AXIS_ACROSS(p))
            j = (uint64_t)dml_reversed_coordinate(j, length);
        else
            in += dml_reversed_coordinate(o->axis_coordinate, length) * p->in_strides[p->axis];
    }
    return in + (int64_t)i * p->in_inner + (int64_t)j * p->in_across;
}

/* The elements thread `thread` loads in phase 1 of the tile (the
 * emulator's loads-in-flight count takes threads that load all
 * DML_CUDA_ITEMS). */
DML_HD uint32_t dml_tile_thread_loads(const dml_gather_params* p, uint64_t tile, uint32_t thread, int wide)
{
    const dml_tile_origin o = dml_locate_tile(p, tile, wide);
    const uint32_t lane = thread % DML_TILE, row = thread / DML_TILE;
    uint32_t n = 0;
    for (int k = 0; k < DML_CUDA_ITEMS; ++k)
        n += o.i0 + row + (uint64_t)k * DML_TILE_ROWS < p->row_length && o.j0 + lane < p->across_size;
    return n;
}

/* Phase 1: input -> shared. Lane walks j (the input-contiguous side). A
 * lane's elements share j, so their sequence length is read once when it
 * does not change along i. */
DML_HD void dml_tile_load(const dml_gather_params* p, uint64_t tile, uint32_t thread, unsigned char* shared,
    uint32_t element_size, int wide)
{
    const dml_tile_origin o = dml_locate_tile(p, tile, wide);
    const uint32_t lane = thread % DML_TILE, row = thread / DML_TILE;
    const uint64_t j = o.j0 + lane;
    const int reverses = dml_tile_load_reverses(p), per_element = reverses && p->len_inner != 0;
    uint64_t values[DML_CUDA_ITEMS];
    uint64_t length = 0;
    if (reverses && !per_element && j < p->across_size && o.i0 + row < p->row_length)
        length = dml_tile_length(p, &o, o.i0 + row, j);
    DML_UNROLL
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint64_t i = o.i0 + row + (uint64_t)k * DML_TILE_ROWS;
        DML_INSTRUCTION((uint32_t)k);
        if (i < p->row_length && j < p->across_size) {
            if (per_element)
                length = dml_tile_length(p, &o, i, j);
            const int64_t in = dml_tile_source(p, &o, i, j, length);
            values[k] = dml_load_element(p->in + in * element_size, element_size, DML_SITE_LOAD);
        }
    }
    DML_UNROLL
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint64_t i = o.i0 + row + (uint64_t)k * DML_TILE_ROWS;
        DML_INSTRUCTION((uint32_t)(DML_CUDA_ITEMS + k));
        if (i < p->row_length && j < p->across_size)
            dml_shared_store(shared, (row + (uint32_t)k * DML_TILE_ROWS) * DML_TILE_PITCH + lane, values[k],
                element_size);
    }
}

/* Phase 2: shared -> output. Lane walks i (the output-contiguous side); its
 * elements share i, so one sequence length serves them
 * (DML_TILE_AXIS_ACROSS_STORED: the lengths do not change along across). */
DML_HD void dml_tile_store(const dml_gather_params* p, uint64_t tile, uint32_t thread, const unsigned char* shared,
    uint32_t element_size, int wide)
{
    const dml_tile_origin o = dml_locate_tile(p, tile, wide);
    const uint32_t lane = thread % DML_TILE, row = thread / DML_TILE;
    const uint64_t i = o.i0 + lane;
    const int reverses = p->axis >= 0 && p->axis == DML_TILE_AXIS_ACROSS_STORED(p);
    uint64_t length = 0;
    if (reverses && i < p->row_length && o.j0 + row < p->across_size)
        length = dml_tile_length(p, &o, i, o.j0 + row);
    uint64_t values[DML_CUDA_ITEMS];
    DML_UNROLL
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint64_t j = o.j0 + row + (uint64_t)k * DML_TILE_ROWS;
        DML_INSTRUCTION((uint32_t)k);
        if (i < p->row_length && j < p->across_size)
            values[k] = dml_shared_load(shared, lane * DML_TILE_PITCH + row + (uint32_t)k * DML_TILE_ROWS, element_size);
    }
    DML_UNROLL
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint64_t j = o.j0 + row + (uint64_t)k * DML_TILE_ROWS;
        DML_INSTRUCTION((uint32_t)(DML_CUDA_ITEMS + k));
        if (i < p->row_length && j < p->across_size) {
            const int64_t to = reverses ? dml_reversed_coordinate(j, length) : (int64_t)j;
            const int64_t out = o.out + (int64_t)i * p->out_inner + to * p->out_across;
            dml_store_element(p->out + out * element_size, values[k], element_size, DML_SITE_STORE);
        }
    }
}

#endif /* DML_CUDA_TILE_THREAD_H */
