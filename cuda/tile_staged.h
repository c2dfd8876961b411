/*
 * tile_staged.h — staged tiles, the TILED mode's path when the output rows
 * are contiguous (out_inner == 1): per-thread code shared by the kernels and
 * the emulator, like tile_thread.h.
 *
 * A staged tile is tile_inner x tile_across elements, as wide along each
 * contiguous side as shared memory allows (launch.c), so that rows starting
 * at any alignment cost little. Every warp instruction moves 4-byte words
 * (or 8-byte elements), so 1- and 2-byte elements go 4 and 2 to a lane:
 *
 *   dml_staged_load: tile row r (inner coordinate i0 + r) copies its input
 *     bytes as they lie in memory, in aligned 4-byte words, into shared row r
 *     (stage_pitch words, odd, so that rows start in different banks). A
 *     row's instructions cover 32-byte sector-aligned windows, so a row
 *     touches the fewest sectors its bytes allow. A word is read whole when
 *     it lies inside the input row (every byte of which the gather reads, so
 *     it is bound), else only its needed elements (at a row's two ends).
 *   barrier
 *   dml_staged_store: output row c of the tile (across coordinate j0 + c)
 *     takes its elements i0.. from shared rows 0.. (byte (input address of
 *     (i, j)) - (shared row's base)), assembled into aligned 4-byte words
 *     (units of max(4, element size) bytes) and stored whole; a unit holding
 *     elements of another tile or none (at a tile's edges of an output row
 *     that is not 4-byte aligned, and a row's ends) is stored element by
 *     element. A lane reads its unit's elements in an order rotated by its
 *     lane group, so a warp's reads fall in different banks.
 *   barrier
 *
 * Flat phases (launch.c decides; never when something reverses): when
 * the tile's rows read adjacent pieces of input (stage_flat_load), phase 1
 * loads the tile's one input range as one row, and an element's shared
 * byte is its offset from that row's base; when the tile's output rows
 * are whole and adjacent (stage_flat_store), phase 2 assembles its units
 * over the tile's one output range, element k of it being (k % row_length,
 * j0 + k / row_length). Rows of a few elements (DEPTH_TO_SPACE's and
 * SPACE_TO_DEPTH's blocks) then move whole sectors.
 *
 * Each warp takes (row, instruction) pairs in turn, every row's first
 * instruction before any row's second (those are often empty: rows end
 * early); phase 1 DML_CUDA_ITEMS of them per pass, all loads of a pass
 * before its shared stores. REVERSE_SUBSEQUENCES
 * takes staged tiles when each tile row reads one input row (a reversed
 * inner or batch axis whose lengths do not change along across) and each
 * output row of the tile is one output row (a reversed across axis whose
 * lengths do not change along the inner dimension): launch.c decides.
 */
#ifndef DML_CUDA_TILE_STAGED_H
#define DML_CUDA_TILE_STAGED_H

#include "tile_thread.h"

#define DML_STAGE_WARPS (DML_CUDA_BLOCK / DML_TILE) /* warps per block (DML_TILE is the warp width) */
#define DML_STAGE_SECTOR 32                         /* bytes: loads cover sector-aligned windows */

DML_HD uint64_t dml_min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Where tile row i's input lies: the elements the tile reads [lo, hi), the
 * whole input row [span_lo, span_hi), the 4-byte aligned base of its shared
 * row, and its element offset of across coordinate 0. */
typedef struct dml_stage_row {
    uintptr_t lo, hi, span_lo, span_hi, base;
    int64_t row;
} dml_stage_row;

DML_HD dml_stage_row dml_staged_row(const dml_gather_params* p, const dml_tile_origin* o, uint64_t i,
    uint32_t element_size)
{
    const uint64_t length = dml_tile_load_reverses(p) ? dml_tile_length(p, o, i, 0) : 0;
    const int64_t row = dml_tile_source(p, o, i, 0, length);
    const uint64_t j1 = dml_min64(o->j0 + p->tile_across, p->across_size);
    const uintptr_t in = (uintptr_t)p->in;
    const uintptr_t first = in + (uintptr_t)((row + (int64_t)o->j0 * p->in_across) * element_size);
    const uintptr_t last = in + (uintptr_t)((row + (int64_t)(j1 - 1) * p->in_across) * element_size);
    const uintptr_t span_first = in + (uintptr_t)(row * element_size);
    const uintptr_t span_last = in + (uintptr_t)((row + (int64_t)(p->across_size - 1) * p->in_across) * element_size);
    dml_stage_row r;
    r.lo = first < last ? first : last;
    r.hi = (first < last ? last : first) + element_size;
    r.span_lo = span_first < span_last ? span_first : span_last;
    r.span_hi = (span_first < span_last ? span_last : span_first) + element_size;
    r.base = r.lo - r.lo % 4;
    r.row = row;
    return r;
}

/* A flat load's one range (stage_flat_load: nothing reverses, the tile
 * spans across whole, rows' pieces adjacent): the tile's input [lo, hi),
 * its batch's whole input [span_lo, span_hi) (every byte of it is read),
 * the 4-byte aligned base of the shared row. */
DML_HD dml_stage_row dml_staged_flat_row(const dml_gather_params* p, const dml_tile_origin* o, uint32_t element_size)
{
    const uint64_t i1 = dml_min64(o->i0 + p->tile_inner, p->row_length);
    const int64_t last_j = (int64_t)(p->across_size - 1) * p->in_across;
    const uintptr_t in = (uintptr_t)p->in;
    const uintptr_t first = in + (uintptr_t)((o->in + (int64_t)o->i0 * p->in_inner) * element_size);
    const uintptr_t last = in + (uintptr_t)((o->in + (int64_t)(i1 - 1) * p->in_inner + last_j) * element_size);
    const uintptr_t span_first = in + (uintptr_t)(o->in * element_size);
    const uintptr_t span_last =
        in + (uintptr_t)((o->in + (int64_t)(p->row_length - 1) * p->in_inner + last_j) * element_size);
    dml_stage_row r;
    r.lo = first < last ? first : last;
    r.hi = (first < last ? last : first) + element_size;
    r.span_lo = span_first < span_last ? span_first : span_last;
    r.span_hi = (span_first < span_last ? span_last : span_first) + element_size;
    r.base = r.lo - r.lo % 4;
    r.row = o->in;
    return r;
}

/* Tile row r's input (a flat load: the tile's one range, r = 0). */
DML_HD dml_stage_row dml_staged_load_row(const dml_gather_params* p, const dml_tile_origin* o, uint32_t r,
    uint32_t element_size)
{
    return p->stage_flat_load ? dml_staged_flat_row(p, o, element_size)
                              : dml_staged_row(p, o, o->i0 + r, element_size);
}

/* The tile rows of phase 1: one for a flat load. */
DML_HD uint32_t dml_staged_load_rows(const dml_gather_params* p, const dml_tile_origin* o)
{
    return p->stage_flat_load ? 1 : (uint32_t)dml_min64(p->tile_inner, p->row_length - o->i0);
}

/* The aligned word at `word`: whole when inside the input row, else its
 * elements inside it one by one (the others 0). */
DML_HD uint32_t dml_staged_read_word(uintptr_t word, const dml_stage_row* r, uint32_t element_size)
{
    if (word >= r->span_lo && word + 4 <= r->span_hi)
        return (uint32_t)dml_load_element((const unsigned char*)word, 4, DML_SITE_LOAD);
    uint32_t value = 0;
    for (uintptr_t a = word; a < word + 4; a += element_size)
        if (a >= r->span_lo && a < r->span_hi)
            value |= (uint32_t)dml_load_element((const unsigned char*)a, element_size, DML_SITE_PART_LOAD)
                << (8 * (a - word));
    return value;
}

/* Phase 1: input -> shared, row by row. Pair q is row q % rows'
 * instruction q / rows (pairs fit 32 bits: a tile's rows times its
 * instructions per row). */
DML_HD void dml_staged_load(const dml_gather_params* p, uint64_t tile, uint32_t thread, unsigned char* shared,
    uint32_t element_size, int wide)
{
    const dml_tile_origin o = dml_locate_tile(p, tile, wide);
    const uint32_t lane = thread % DML_TILE, warp = thread / DML_TILE;
    const uint32_t rows = dml_staged_load_rows(p, &o);
    const uint32_t pairs = rows * p->stage_loads;
    for (uint32_t first = warp; first < pairs; first += DML_STAGE_WARPS * DML_CUDA_ITEMS) {
        uint32_t values[DML_CUDA_ITEMS];
        int32_t at[DML_CUDA_ITEMS];
        DML_UNROLL
        for (int n = 0; n < DML_CUDA_ITEMS; ++n) {
            const uint32_t q = first + (uint32_t)n * DML_STAGE_WARPS;
            at[n] = -1;
            values[n] = 0;
            DML_INSTRUCTION(2 * q);
            if (q < pairs) {
                const uint32_t r = q % rows, k = q / rows;
                const dml_stage_row row = dml_staged_load_row(p, &o, r, element_size);
                const uintptr_t word = row.lo - row.lo % DML_STAGE_SECTOR + 4 * (DML_TILE * k + lane);
                if (word + 4 > row.lo && word < row.hi) {
                    values[n] = dml_staged_read_word(word, &row, element_size);
                    at[n] = (int32_t)(r * p->stage_pitch + (uint32_t)(word - row.base) / 4);
                }
            }
        }
        DML_UNROLL
        for (int n = 0; n < DML_CUDA_ITEMS; ++n) {
            DML_INSTRUCTION(2 * (first + (uint32_t)n * DML_STAGE_WARPS) + 1);
            if (at[n] >= 0)
                dml_shared_store(shared, (uint32_t)at[n], values[n], 4);
        }
    }
}

/* The pairs of its first pass that thread `thread` loads a word for in
 * phase 1 of the tile (the emulator's loads-in-flight count takes threads
 * with DML_CUDA_ITEMS). */
DML_HD uint32_t dml_staged_thread_loads(const dml_gather_params* p, uint64_t tile, uint32_t thread,
    uint32_t element_size, int wide)
{
    const dml_tile_origin o = dml_locate_tile(p, tile, wide);
    const uint32_t lane = thread % DML_TILE, warp = thread / DML_TILE;
    const uint32_t rows = dml_staged_load_rows(p, &o), pairs = rows * p->stage_loads;
    uint32_t n = 0;
    for (int k = 0; k < DML_CUDA_ITEMS; ++k) {
        const uint32_t q = warp + (uint32_t)k * DML_STAGE_WARPS;
        if (q >= pairs)
            continue;
        const dml_stage_row row = dml_staged_load_row(p, &o, q % rows, element_size);
        const uintptr_t word = row.lo - row.lo % DML_STAGE_SECTOR + 4 * (DML_TILE * (q / rows) + lane);
        n += word + 4 > row.lo && word < row.hi;
    }
    return n;
}

/* The element (i, j) of the tile, from its shared row (a flat load's one
 * row). */
DML_HD uint64_t dml_staged_element(const dml_gather_params* p, const dml_tile_origin* o, const unsigned char* shared,
    uint64_t i, uint64_t j, uint32_t element_size)
{
    const int flat = p->stage_flat_load != 0;
    const dml_stage_row row = flat ? dml_staged_flat_row(p, o, element_size) : dml_staged_row(p, o, i, element_size);
    const int64_t source = flat ? row.row + (int64_t)i * p->in_inner : row.row;
    const uintptr_t at = (uintptr_t)p->in + (uintptr_t)((source + (int64_t)j * p->in_across) * element_size);
    const uint32_t byte = (uint32_t)(at - row.base);
    const uint32_t word = (flat ? 0 : (uint32_t)(i - o->i0) * p->stage_pitch) + byte / 4;
    if (element_size == 8)
        return dml_shared_load(shared, word, 4) | dml_shared_load(shared, word + 1, 4) << 32;
    const uint64_t value = dml_shared_load(shared, word, 4) >> (8 * (byte % 4));
    return element_size == 4 ? value : value & ((1u << (8 * element_size)) - 1);
}

/* Phase 2's pair q: output row q % columns of the tile, its instruction
 * q / columns. The elements i0.. of the row's piece lie at [lo, hi) (the
 * output row is contiguous); the lane's unit at `at`. A flat store's pair
 * q is its instruction q over the tile's output [lo, hi), its rows j0..
 * whole and adjacent. */
typedef struct dml_stage_unit {
    uintptr_t lo, hi, at;
    uint64_t j;
} dml_stage_unit;

DML_HD dml_stage_unit dml_staged_unit(const dml_gather_params* p, const dml_tile_origin* o, uint32_t q,
    uint32_t columns, uint32_t lane, uint64_t i1, int reverses, uint64_t length, uint32_t element_size)
{
    const uint32_t unit = element_size < 4 ? 4 : element_size;
    dml_stage_unit u;
    const int flat = p->stage_flat_store != 0;
    u.j = flat ? o->j0 : o->j0 + q % columns;
    const int64_t jo = reverses ? dml_reversed_coordinate(u.j, length) : (int64_t)u.j;
    const int64_t out_row = o->out + jo * p->out_across;
    const int64_t end = flat ? (int64_t)columns * p->out_across : (int64_t)i1;
    u.lo = (uintptr_t)p->out + (uintptr_t)((out_row + (int64_t)o->i0) * element_size);
    u.hi = (uintptr_t)p->out + (uintptr_t)((out_row + end) * element_size);
    u.at = u.lo - u.lo % unit + (uintptr_t)unit * (DML_TILE * (flat ? q : q / columns) + lane);
    return u;
}

/* Phase 2: shared -> output, output row by output row. */
DML_HD void dml_staged_store(const dml_gather_params* p, uint64_t tile, uint32_t thread, const unsigned char* shared,
    uint32_t element_size, int wide)
{
    const dml_tile_origin o = dml_locate_tile(p, tile, wide);
    const uint32_t lane = thread % DML_TILE, warp = thread / DML_TILE;
    const uint32_t unit = element_size < 4 ? 4 : element_size, slots = unit / element_size;
    const uint32_t rotation = lane * slots / DML_TILE;
    const uint32_t ids = 2 * slots + 1; /* instruction ids per pair: reads, the unit store, element stores */
    const uint32_t columns = (uint32_t)dml_min64(p->tile_across, p->across_size - o.j0);
    const uint64_t i1 = dml_min64(o.i0 + p->tile_inner, p->row_length);
    const uint32_t pairs = p->stage_flat_store ? p->stage_stores : columns * p->stage_stores;
    /* a reversed across axis: one length for the tile (launch.c) */
    const int reverses = p->axis >= 0 && p->axis == DML_TILE_AXIS_ACROSS_STORED(p);
    DML_INSTRUCTION(0xFFFFFFFEu);
    const uint64_t length = reverses && pairs ? dml_tile_length(p, &o, o.i0, o.j0) : 0;
    /* Pair by pair: its reads come from shared memory, and its stores need
     * no loads in flight behind them. */
    for (uint32_t q = warp; q < pairs; q += DML_STAGE_WARPS) {
        const dml_stage_unit u = dml_staged_unit(p, &o, q, columns, lane, i1, reverses, length, element_size);
        if (u.at >= u.hi || u.at + unit <= u.lo)
            continue;
        uint64_t value = 0;
        for (uint32_t s = 0; s < slots; ++s) {
            const uint32_t slot = (s + rotation) % slots;
            const uintptr_t a = u.at + slot * element_size;
            DML_INSTRUCTION(ids * q + s);
            if (a >= u.lo && a < u.hi) {
                const uint32_t k = (uint32_t)((a - u.lo) / element_size);
                /* a flat store's k-th element: row k / row_length (i0 = 0) */
                const uint32_t row_length = (uint32_t)p->row_length;
                const uint64_t i = p->stage_flat_store ? k % row_length : o.i0 + k;
                const uint64_t j = p->stage_flat_store ? u.j + k / row_length : u.j;
                value |= dml_staged_element(p, &o, shared, i, j, element_size) << (8 * slot * element_size);
            }
        }
        DML_INSTRUCTION(ids * q + slots);
        if (u.at >= u.lo && u.at + unit <= u.hi) {
            dml_store_element((unsigned char*)u.at, value, unit, DML_SITE_STORE);
            continue;
        }
        for (uint32_t slot = 0; slot < slots; ++slot) {
            const uintptr_t a = u.at + slot * element_size;
            DML_INSTRUCTION(ids * q + slots + 1 + slot);
            if (a >= u.lo && a < u.hi)
                dml_store_element((unsigned char*)a, value >> (8 * slot * element_size), element_size,
                    DML_SITE_EDGE_STORE);
        }
    }
}

#endif /* DML_CUDA_TILE_STAGED_H */
