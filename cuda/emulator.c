/*
 * emulator.c — runs a launch on the CPU (emulator.h): the kernels' own
 * thread code over the launcher's exact grid and block, every global and
 * shared access checked before it is made. The statistics of what it
 * traces are emulator_coalescing.c's.
 */
#include "emulator_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pad_thread.h"
#include "cast_thread.h"
#include "fill_thread.h"
#include "indexed_thread.h"
#include "scatter_thread.h"
#include "select_thread.h"
#include "scale_bias_thread.h"
#include "tile_staged.h"
#include "group_join.h"
#include "group_split.h"
#include "group_thread.h"

/* Per emulating thread, so that several host threads may emulate at once. */
static _Thread_local emulation* t_emulation;
static _Thread_local char t_violation[512];

static const char* const site_names[DML_SITE_COUNT] = { "LENGTH", "LOAD", "STORE", "EDGE_LOAD", "EDGE_STORE",
    "LOAD_HIGH", "PART_LOAD", "LOAD2" };
static const char* const range_names[4] = { "input", "lengths", "output", "input2" };

const char* dml_cuda_emulator_violation(void)
{
    return t_violation;
}

/* The range an access from `site` may touch: lengths for the sequence
 * lengths (indices, a condition), the output for stores, input2 for the
 * second input's loads, else the input. */
static int range_of(int site, int is_store)
{
    return is_store ? 2 : site == DML_SITE_LENGTH ? 1 : site == DML_SITE_LOAD2 ? 3 : 0;
}

/* Records the violation and abandons the launch before the access is made. */
static void violate(emulation* e, int site, int is_store, uint64_t address, unsigned bytes, const char* rule)
{
    const int range = range_of(site, is_store);
    const uint64_t base = (uint64_t)(uintptr_t)e->launch->bound[range];
    snprintf(t_violation, sizeof t_violation,
        "emulated %s of %u bytes at site %s (block %" PRIu64 ", thread %u) at address 0x%" PRIx64
        " (%s range + %" PRId64 "; the range is %" PRIu64 " bytes at 0x%" PRIx64 "): %s",
        is_store ? "store" : "load", bytes, site >= 0 && site < DML_SITE_COUNT ? site_names[site] : "?", e->block,
        e->thread, address, range_names[range], (int64_t)(address - base), e->launch->bound_bytes[range], base, rule);
    longjmp(e->violation, 1);
}

/* Every access of the emulated kernel comes here before it is made. */
static void check_access(emulation* e, int site, int is_store, uint64_t address, unsigned bytes)
{
    if (bytes == 0 || bytes > DML_CUDA_VECTOR_BYTES || (bytes & (bytes - 1)) || address % bytes)
        violate(e, site, is_store, address, bytes, "not naturally aligned to its width");
    const int range = range_of(site, is_store);
    const uint64_t base = (uint64_t)(uintptr_t)e->launch->bound[range], size = e->launch->bound_bytes[range];
    if (!e->launch->bound[range] || address < base || address - base > size || size - (address - base) < bytes)
        violate(e, site, is_store, address, bytes, "outside the bound range");
}

void dml_emulator_access(int site, int is_store, const void* address, unsigned bytes)
{
    emulation* e = t_emulation;
    if (!e)
        return;
    if (!e->launch) { /* dml_cuda_emulate_block: shared memory only */
        snprintf(t_violation, sizeof t_violation, "emulated global %s in a shared-memory-only block",
            is_store ? "store" : "load");
        longjmp(e->violation, 1);
    }
    check_access(e, site, is_store, (uint64_t)(uintptr_t)address, bytes);
    if (is_store) {
        e->stored = 1;
        e->pass_stored = 1;
        e->first_pass_vector_stores += e->pass == 1 && bytes == DML_CUDA_VECTOR_BYTES;
    } else {
        if (!e->stored) {
            e->loads++;
            e->vector_loads += bytes == DML_CUDA_VECTOR_BYTES;
        }
        e->pass_loads_after_store += e->pass_stored;
    }
    if (e->trace)
        emu_trace_access(e->trace, site, is_store, (uint64_t)(uintptr_t)address, bytes);
}

/* A value a lane received by a shuffle from the lane that loaded it (the
 * PAD row path): checked as that load was, not counted (a register move). */
void dml_emulator_shuffled_load(const void* address, unsigned bytes)
{
    emulation* e = t_emulation;
    if (e && e->launch)
        check_access(e, DML_SITE_LOAD, 0, (uint64_t)(uintptr_t)address, bytes);
}

void dml_emulator_pass(void)
{
    emulation* e = t_emulation;
    if (!e)
        return;
    e->pass++;
    e->pass_stored = 0;
}

static void shared_violate(emulation* e, int is_store, uint64_t offset, unsigned bytes, const char* rule)
{
    snprintf(t_violation, sizeof t_violation,
        "emulated shared-memory %s of %u bytes (block %" PRIu64 ", thread %u, phase %" PRIu64
        ") at tile offset %" PRId64 " (the tile is %u bytes): %s",
        is_store ? "store" : "load", bytes, e->block, e->thread, e->shared->phase, (int64_t)offset,
        (unsigned)e->shared->size, rule);
    longjmp(e->violation, 1);
}

void dml_emulator_shared_access(int is_store, const void* address, unsigned bytes)
{
    emulation* e = t_emulation;
    if (!e || !e->shared)
        return;
    shared_model* m = e->shared;
    const uint64_t offset = (uint64_t)((uintptr_t)address - (uintptr_t)m->bytes);
    if (bytes != 4 && bytes != 8)
        shared_violate(e, is_store, offset, bytes, "not a 4- or 8-byte word");
    if ((uintptr_t)address < (uintptr_t)m->bytes || offset > m->size || m->size - offset < bytes)
        shared_violate(e, is_store, offset, bytes, "outside the tile");
    if (offset % bytes)
        shared_violate(e, is_store, offset, bytes, "not naturally aligned to its width");
    const uint32_t first = (uint32_t)(offset / 4), words = bytes / 4;
    for (uint32_t w = first; w < first + words; ++w) {
        if (is_store) {
            if (m->written_phase[w] == m->phase && m->writer[w] != e->thread)
                shared_violate(e, is_store, offset, bytes, "another thread wrote this word in the same phase (a race)");
            m->written_phase[w] = m->phase;
            m->writer[w] = e->thread;
        } else if (m->written_phase[w] == 0 || m->written_phase[w] >= m->phase) {
            shared_violate(e, is_store, offset, bytes,
                "no thread of the block wrote this word in an earlier phase (a missing barrier)");
        }
    }
    if (is_store && !e->shared_stored) {
        e->shared_stored = 1;
        e->loads_before_shared = e->loads;
    }
    emu_log_shared_access(m, e->instruction, first, words);
}

void dml_emulator_instruction(uint32_t id)
{
    emulation* e = t_emulation;
    if (!e)
        return;
    e->instruction = id;
    if (e->trace)
        e->trace->instruction = id;
}

void dml_emulator_part(uint32_t part)
{
    emulation* e = t_emulation;
    if (!e || !e->group || part >= e->group->params.parts)
        return;
    e->group_view->bound[0] = e->group->bound[part][0];
    e->group_view->bound_bytes[0] = e->group->bound_bytes[part][0];
}

static void run_thread(emulation* e, uint64_t block, uint32_t thread)
{
    const dml_cuda_launch* l = e->launch;
    e->block = block;
    e->thread = thread;
    e->loads = e->vector_loads = 0;
    e->stored = 0;
    e->pass = e->pass_loads_after_store = e->first_pass_vector_stores = 0;
    e->pass_stored = 0;
    if (e->group && e->group->params.row_join)
        dml_join_thread(e->group->params.part, e->group->params.parts, &l->params, block, thread, l->grid, l->block,
            l->element_size, l->wide);
    else if (e->group && e->group->params.row_split)
        dml_split_thread(e->group_part, block, thread, l->grid, l->block, l->element_size, l->wide);
    else
        dml_gather_thread(&l->params, block, thread, l->grid, l->block, l->element_size, l->mode, l->wide,
            l->reverse, l->outer_rank);
    const uint64_t last_item = block * l->block * DML_CUDA_ITEMS + thread + (uint64_t)(DML_CUDA_ITEMS - 1) * l->block;
    emu_account_thread(e, last_item < l->params.count);
}

/* A copy launch is one memcpy: its two ranges are checked as a kernel's
 * accesses would be. */
static void emulate_copy(emulation* e)
{
    const dml_cuda_launch* l = e->launch;
    if (!l->copy_bytes)
        return;
    const uint64_t source = (uint64_t)(uintptr_t)l->copy_source, destination = (uint64_t)(uintptr_t)l->copy_destination;
    const uint64_t in = (uint64_t)(uintptr_t)l->bound[0], out = (uint64_t)(uintptr_t)l->bound[2];
    if (!l->bound[0] || source < in || source - in > l->bound_bytes[0] || l->bound_bytes[0] - (source - in) < l->copy_bytes)
        violate(e, DML_SITE_LOAD, 0, source, 0, "the copy leaves the bound input range");
    if (!l->bound[2] || destination < out || destination - out > l->bound_bytes[2] ||
        l->bound_bytes[2] - (destination - out) < l->copy_bytes)
        violate(e, DML_SITE_STORE, 1, destination, 0, "the copy leaves the bound output range");
    memcpy(l->copy_destination, l->copy_source, l->copy_bytes);
}

/* A SCALE_BIAS launch: its threads one after the other, each access checked. */
static void emulate_scale_bias(emulation* e)
{
    const dml_cuda_launch* l = e->launch;
    for (uint64_t block = 0; block < l->grid; ++block)
        for (uint32_t thread = 0; thread < l->block; ++thread) {
            e->block = block;
            e->thread = thread;
            dml_scale_bias_thread(&l->scale_bias_params, block, thread, l->grid, l->block);
        }
}

/* A PAD launch: its threads one after the other, each access checked; with
 * statistics, warp by warp, a warp's accesses grouped by the pass that made
 * them (pad_thread.h names each). On the row path a lane's shuffles read
 * what their source lane loaded (pad_rows_thread.h). */
static void emulate_pad(emulation* e)
{
    const dml_cuda_launch* l = e->launch;
    warp_trace* w = e->trace;
    for (uint64_t block = 0; block < l->grid; ++block) {
        for (uint32_t warp = 0; warp < l->block; warp += DML_WARP_SIZE) {
            for (uint32_t lane = 0; lane < DML_WARP_SIZE && warp + lane < l->block; ++lane) {
                e->block = block;
                e->thread = warp + lane;
                if (w)
                    w->lane = (int)lane;
                if (l->pad_params.rows)
                    dml_pad_rows_thread(&l->pad_params, block, warp + lane, l->grid, l->block, l->wide);
                else
                    dml_pad_thread(&l->pad_params, block, warp + lane, l->grid, l->block, l->wide);
            }
            if (w && !w->failed)
                emu_account_tiled_warp(w, e->stats);
        }
    }
}

/* A CAST launch: its threads one after the other, each access checked; with
 * statistics, warp by warp, so its loads and stores are counted as the
 * gathers' are (the n-th access of each lane is one instruction). */
static void emulate_cast(emulation* e, dml_coalescing* stats)
{
    const dml_cuda_launch* l = e->launch;
    const dml_plan* plan = &l->cast_params.plan;
    for (uint64_t block = 0; block < l->grid; ++block)
        for (uint32_t warp = 0; warp < l->block; warp += DML_WARP_SIZE) {
            for (uint32_t lane = 0; lane < DML_WARP_SIZE && warp + lane < l->block; ++lane) {
                e->block = block;
                e->thread = warp + lane;
                if (e->trace)
                    e->trace->lane = (int)lane;
                dml_cast_thread(&l->cast_params, plan->in_data_type, plan->in_element_size, plan->data_type,
                    plan->element_size, block, warp + lane, l->grid, l->block);
            }
            if (e->trace && !e->trace->failed)
                emu_account_warp(e->trace, stats);
        }
}

/* A FILL launch: its threads warp by warp, each store checked and, with
 * statistics, counted per warp instruction like the gathers'. */
static void emulate_fill(emulation* e, dml_coalescing* stats)
{
    const dml_cuda_launch* l = e->launch;
    warp_trace* w = e->trace;
    for (uint64_t block = 0; block < l->grid; ++block)
        for (uint32_t warp = 0; warp < l->block; warp += DML_WARP_SIZE) {
            for (uint32_t lane = 0; lane < DML_WARP_SIZE && warp + lane < l->block; ++lane) {
                e->block = block;
                e->thread = warp + lane;
                if (w)
                    w->lane = (int)lane;
                dml_fill_thread(&l->fill_params, block, warp + lane, l->grid, l->block, l->element_size);
            }
            if (w && !w->failed)
                emu_account_warp(w, stats);
        }
}

/* The thread code of a data-dependent plan's launch, by kind and path. */
static void run_indexed_thread(const dml_cuda_launch* l, uint64_t block, uint32_t thread)
{
    const dml_indexed_params* p = &l->indexed_params;
    switch (p->plan.kind) {
    case DML_PLAN_INDEXED:
        if (p->rows)
            dml_indexed_rows_thread(p, block, thread, l->grid, l->block, l->wide);
        else
            dml_indexed_thread(p, block, thread, l->grid, l->block, l->wide);
        break;
    case DML_PLAN_SCATTER: dml_scatter_thread(p, block, thread, l->grid, l->block, l->wide); break;
    case DML_PLAN_SELECT: dml_select_thread(p, block, thread, l->grid, l->block, l->wide, 0); break;
    default: dml_select_thread(p, block, thread, l->grid, l->block, l->wide, 1); break;
    }
}

/* An INDEXED, SCATTER, SELECT or ONE_HOT launch: its threads warp by warp,
 * each access checked (the index or condition tensor against the lengths
 * range, the second input against input2's); with statistics, a warp's
 * accesses grouped by the instruction the code names. */
static void emulate_indexed(emulation* e)
{
    const dml_cuda_launch* l = e->launch;
    warp_trace* w = e->trace;
    for (uint64_t block = 0; block < l->grid; ++block)
        for (uint32_t warp = 0; warp < l->block; warp += DML_WARP_SIZE) {
            for (uint32_t lane = 0; lane < DML_WARP_SIZE && warp + lane < l->block; ++lane) {
                e->block = block;
                e->thread = warp + lane;
                if (w)
                    w->lane = (int)lane;
                run_indexed_thread(l, block, warp + lane);
            }
            if (w && !w->failed)
                emu_account_tiled_warp(w, e->stats);
        }
}

/* The shared-memory model of a block of `size` bytes (NULL: out of memory).
 * The bytes are allocated to the byte, so that an access past them that
 * the model's check missed would still be caught by the sanitizers. */
static shared_model* shared_model_new(uint32_t size)
{
    shared_model* m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->size = size;
    void* bytes = NULL;
    m->bytes = posix_memalign(&bytes, 16, size ? size : 1) == 0 ? bytes : NULL;
    m->written_phase = calloc(size / 4 + 1, sizeof *m->written_phase);
    m->writer = calloc(size / 4 + 1, sizeof *m->writer);
    if (!m->bytes || !m->written_phase || !m->writer) {
        free(m->bytes);
        free(m->written_phase);
        free(m->writer);
        free(m);
        return NULL;
    }
    memset(m->bytes, 0, size);
    return m;
}

static void shared_model_free(shared_model* m)
{
    if (!m)
        return;
    free(m->bytes);
    free(m->written_phase);
    free(m->writer);
    free(m);
}

/* One phase of a block: every thread, warp by warp, then the barrier. */
static void run_block_phase(emulation* e, uint32_t threads, dml_shared_phase_fn fn, int phase, void* context)
{
    shared_model* m = e->shared;
    for (uint32_t warp = 0; warp < threads; warp += DML_WARP_SIZE) {
        for (uint32_t lane = 0; lane < DML_WARP_SIZE && warp + lane < threads; ++lane) {
            e->thread = warp + lane;
            m->lane = (int)lane;
            e->instruction = NO_INSTRUCTION;
            if (e->trace) {
                e->trace->lane = (int)lane;
                e->trace->instruction = NO_INSTRUCTION;
            }
            fn(e->thread, phase, m->bytes, context);
        }
        if (e->trace && !e->trace->failed)
            emu_account_tiled_warp(e->trace, e->stats);
        if (e->stats)
            emu_account_shared_warp(m, e->stats);
        else
            memset(m->log_count, 0, sizeof m->log_count);
    }
    m->phase++;
}

static void begin_block(emulation* e, uint64_t block)
{
    e->block = block;
    memset(e->shared->written_phase, 0, (e->shared->size / 4) * sizeof *e->shared->written_phase);
    memset(e->shared->log_count, 0, sizeof e->shared->log_count);
    e->shared->phase = 1;
}

/* TILED: a thread's two phases of one tile (kernels.cu's loop body). */
typedef struct tile_step {
    emulation* e;
    uint64_t tile;
} tile_step;

static void tile_phase(uint32_t thread, int phase, unsigned char* shared, void* context)
{
    tile_step* s = context;
    emulation* e = s->e;
    const dml_cuda_launch* l = e->launch;
    const dml_gather_params* p = &l->params;
    if (phase == 1) {
        if (p->tile_staged)
            dml_staged_store(p, s->tile, thread, shared, l->element_size, l->wide);
        else
            dml_tile_store(p, s->tile, thread, shared, l->element_size, l->wide);
        return;
    }
    e->loads = 0;
    e->stored = 0;
    e->shared_stored = 0;
    e->loads_before_shared = 0;
    if (p->tile_staged)
        dml_staged_load(p, s->tile, thread, shared, l->element_size, l->wide);
    else
        dml_tile_load(p, s->tile, thread, shared, l->element_size, l->wide);
    /* The load phase has no global store: a thread's loads in flight are
     * those it issues before its first shared store in its first tile
     * (sequence lengths included), counted when that pass had all its
     * DML_CUDA_ITEMS items. */
    if (!e->stats || s->tile != e->block)
        return;
    const uint32_t items = p->tile_staged ? dml_staged_thread_loads(p, s->tile, thread, l->element_size, l->wide)
                                          : dml_tile_thread_loads(p, s->tile, thread, l->wide);
    if (items == DML_CUDA_ITEMS)
        emu_account_tiled_thread(e->stats, e->loads_before_shared);
}

static void emulate_tiled_block(emulation* e, uint64_t block)
{
    const dml_cuda_launch* l = e->launch;
    begin_block(e, block);
    for (uint64_t tile = block; tile < l->params.count; tile += l->grid) {
        tile_step step = { e, tile };
        run_block_phase(e, l->block, tile_phase, 0, &step);
        run_block_phase(e, l->block, tile_phase, 1, &step);
    }
}

int dml_cuda_emulate_block(uint32_t threads, uint32_t shared_bytes, int phases, dml_shared_phase_fn fn, void* context,
    dml_coalescing* stats)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    t_violation[0] = 0;
    emulation e;
    memset(&e, 0, sizeof e);
    e.shared = shared_model_new(shared_bytes);
    if (!e.shared)
        return DML_EMULATE_OUT_OF_MEMORY;
    e.stats = stats;
    t_emulation = &e;
    if (setjmp(e.violation) == 0) {
        begin_block(&e, 0);
        for (int phase = 0; phase < phases; ++phase)
            run_block_phase(&e, threads, fn, phase, context);
    } else {
        e.result = DML_EMULATE_VIOLATION;
    }
    t_emulation = NULL;
    shared_model_free(e.shared);
    return e.result;
}

/* One block of a gather launch: a tile loop, or its threads (warp by warp
 * with statistics). */
static void emulate_kernel_block(emulation* e, dml_coalescing* stats, uint64_t block)
{
    const dml_cuda_launch* l = e->launch;
    if (l->mode == DML_CUDA_MODE_TILED) {
        emulate_tiled_block(e, block);
        return;
    }
    warp_trace* w = e->trace;
    if (!w) {
        for (uint32_t thread = 0; thread < l->block; ++thread)
            run_thread(e, block, thread);
        return;
    }
    for (uint32_t warp = 0; warp < l->block; warp += DML_WARP_SIZE) {
        for (uint32_t lane = 0; lane < DML_WARP_SIZE && warp + lane < l->block; ++lane) {
            w->lane = (int)lane;
            run_thread(e, block, warp + lane);
        }
        if (!w->failed)
            emu_account_warp(w, stats);
    }
}

static void emulate_kernel(emulation* e, dml_coalescing* stats)
{
    for (uint64_t block = 0; block < e->launch->grid; ++block)
        emulate_kernel_block(e, stats, block);
}

/* Part n of a grouped launch as the launch its blocks run: the part's
 * params, path and grid, the group's block and shared memory, the part's
 * own bound ranges (so each part's accesses are checked against its own
 * buffers), indexing and specialisation as group.cu's kernel has them. */
static void group_part_view(const dml_cuda_group_launch* g, uint32_t n, dml_cuda_launch* view)
{
    memset(view, 0, sizeof *view);
    const dml_group_part* part = &g->params.part[n];
    view->params = part->params;
    view->element_size = g->element_size;
    view->mode = (int)part->mode;
    view->wide = g->wide;
    view->reverse = DML_CUDA_REVERSE_NONE;
    view->outer_rank = -1;
    view->grid = part->blocks;
    view->block = g->block;
    view->shared_bytes = g->shared_bytes;
    for (int r = 0; r < 3; ++r) {
        view->bound[r] = g->bound[n][r];
        view->bound_bytes[r] = g->bound_bytes[n][r];
    }
}

/* Whether the trace or the shared-memory model ran out of memory while
 * the launch ran (the statistics would be incomplete). */
static int ran_out_of_memory(const emulation* e)
{
    return (e->trace && e->trace->failed) || (e->stats && e->shared && e->shared->overflow);
}

/* Frees what an emulation allocated: its trace and shared-memory model. */
static void emulation_free(emulation* e)
{
    if (e->trace)
        for (int lane = 0; lane < DML_WARP_SIZE; ++lane)
            free(e->trace->lanes[lane]);
    free(e->trace);
    shared_model_free(e->shared);
}

/* A grouped launch: block by block, each finding its part as the kernel
 * does (dml_group_find_part) and running as that part's block. */
static void emulate_group(emulation* e, const dml_cuda_group_launch* g, dml_cuda_launch* view, dml_coalescing* stats)
{
    e->group = g;
    e->group_view = view;
    if (g->params.row_join) { /* every block walks the joined rows: part[parts] */
        group_part_view(g, g->params.parts, view);
        e->launch = view;
        for (uint32_t block = 0; block < g->grid; ++block)
            emulate_kernel_block(e, stats, block);
        return;
    }
    uint32_t current = UINT32_MAX;
    for (uint32_t block = 0; block < g->grid; ++block) {
        const uint32_t n = dml_group_find_part(g->params.part, g->params.parts, block);
        if (n != current) {
            group_part_view(g, n, view);
            e->launch = view;
            e->group_part = &g->params.part[n];
            current = n;
        }
        emulate_kernel_block(e, stats, block - g->params.part[n].first_block);
    }
}

int dml_cuda_emulate_group(const dml_cuda_group_launch* g, dml_coalescing* stats)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    t_violation[0] = 0;
    emulation e;
    memset(&e, 0, sizeof e);
    dml_cuda_launch* volatile view = malloc(sizeof(dml_cuda_launch)); /* volatile: used after a longjmp */
    e.trace = stats ? calloc(1, sizeof *e.trace) : NULL;
    e.stats = e.trace ? stats : NULL;
    e.shared = g->shared_bytes ? shared_model_new(g->shared_bytes) : NULL;
    if (!view || (stats && !e.trace) || (g->shared_bytes && !e.shared)) {
        free(view);
        free(e.trace);
        shared_model_free(e.shared);
        return DML_EMULATE_OUT_OF_MEMORY;
    }
    t_emulation = &e;
    if (setjmp(e.violation) == 0) {
        emulate_group(&e, g, view, e.stats);
        if (ran_out_of_memory(&e))
            e.result = DML_EMULATE_OUT_OF_MEMORY;
    } else {
        e.result = DML_EMULATE_VIOLATION;
    }
    t_emulation = NULL;
    emulation_free(&e);
    free(view);
    return e.result;
}

int dml_cuda_emulate(const dml_cuda_launch* l, dml_coalescing* stats)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    t_violation[0] = 0;
    /* Only e (in memory, its address taken) is used after a longjmp. */
    emulation e;
    memset(&e, 0, sizeof e);
    e.launch = l;
    const int traced = stats && !l->is_copy && !l->scale_bias; /* coalescing: the gather, pad, cast and fill kernels' */
    e.trace = traced ? calloc(1, sizeof *e.trace) : NULL;
    e.stats = e.trace ? stats : NULL;
    e.result = traced && !e.trace ? DML_EMULATE_OUT_OF_MEMORY : 0;
    if (!l->is_copy && !l->scale_bias && !l->pad && !l->cast && !l->fill && !l->indexed &&
        l->mode == DML_CUDA_MODE_TILED) {
        e.shared = shared_model_new(l->shared_bytes);
        if (!e.shared) { /* nothing can run without it */
            free(e.trace);
            return DML_EMULATE_OUT_OF_MEMORY;
        }
    }
    t_emulation = &e;
    if (setjmp(e.violation) == 0) {
        if (l->is_copy)
            emulate_copy(&e);
        else if (l->scale_bias)
            emulate_scale_bias(&e);
        else if (l->pad)
            emulate_pad(&e);
        else if (l->cast)
            emulate_cast(&e, e.stats);
        else if (l->fill)
            emulate_fill(&e, stats);
        else if (l->indexed)
            emulate_indexed(&e);
        else
            emulate_kernel(&e, stats);
        if (ran_out_of_memory(&e))
            e.result = DML_EMULATE_OUT_OF_MEMORY;
    } else {
        e.result = DML_EMULATE_VIOLATION;
    }
    t_emulation = NULL;
    emulation_free(&e);
    return e.result;
}
