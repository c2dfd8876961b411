#include "emulator.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DML_CUDA_EMULATION 1
#include "gather_thread.h"
#include "scale_bias_thread.h"
#include "tile_staged.h"

#define SHARED_LOG 512 /* shared accesses of one lane in one phase, at most */
#define NO_INSTRUCTION 0xFFFFFFFFu

/* The shared memory of the block being emulated (TILED): exactly the
 * launch's shared_bytes (the kernel's dynamic shared memory), with per
 * 4-byte word the phase that last wrote it and the thread that did, and each
 * lane's shared accesses in the current phase with the instruction each
 * belongs to (named by the code, else the lane's n-th access), for the
 * bank-conflict count. Allocated per launch. */
typedef struct shared_log {
    uint32_t instruction, first_word, words;
} shared_log;

typedef struct shared_model {
    unsigned char* bytes;     /* size bytes, 16-byte aligned */
    uint32_t size;
    uint64_t* written_phase;  /* per word: 0, not written in this block */
    uint32_t* writer;         /* per word */
    uint64_t phase; /* from 1, per block */
    shared_log log[DML_WARP_SIZE * SHARED_LOG]; /* lane L's from L * SHARED_LOG */
    uint32_t log_count[DML_WARP_SIZE];
    int lane;
    int overflow; /* a lane made more than SHARED_LOG accesses in a phase */
} shared_model;

/* One traced access of one thread. */
typedef struct access {
    uint64_t address;
    uint32_t bytes;
    uint8_t site;
    uint8_t is_store;
    uint32_t instruction; /* TILED: the instruction the code named */
} access;

/* Accesses of the warp being emulated, per lane, in program order. */
typedef struct warp_trace {
    access* lanes[DML_WARP_SIZE];
    size_t count[DML_WARP_SIZE];
    size_t capacity[DML_WARP_SIZE];
    int lane;
    int failed;
    uint32_t instruction; /* TILED: the running lane's current instruction */
} warp_trace;

/* The launch being emulated by this host thread: where its accesses may go,
 * which GPU thread runs, and where to go when one of them breaks the rule. */
typedef struct emulation {
    const dml_cuda_launch* launch;
    uint64_t block;
    uint32_t thread;
    warp_trace* trace; /* NULL: no statistics */
    dml_coalescing* stats;
    shared_model* shared; /* TILED only */
    uint64_t loads, vector_loads; /* of the running thread, before its first store */
    int stored;
    /* Of the running thread's grid-stride loop (scalar and vector launches):
     * its pass (from 1), whether the pass has stored, the loads of the pass
     * after its first store, the 16-byte stores of the first pass. */
    uint64_t pass, pass_loads_after_store, first_pass_vector_stores;
    int pass_stored;
    uint64_t loads_before_shared; /* TILED: the running thread's loads before its first shared store */
    int shared_stored;
    uint32_t instruction; /* TILED: named by the code (NO_INSTRUCTION: none yet in this phase) */
    int result;
    jmp_buf violation;
} emulation;

/* Per emulating thread, so that several host threads may emulate at once. */
static _Thread_local emulation* t_emulation;
static _Thread_local char t_violation[512];

static const char* const site_names[DML_SITE_COUNT] = { "LENGTH", "LOAD", "STORE", "EDGE_LOAD", "EDGE_STORE",
    "LOAD_HIGH", "PART_LOAD" };
static const char* const range_names[3] = { "input", "lengths", "output" };

const char* dml_cuda_emulator_violation(void)
{
    return t_violation;
}

/* The range an access from `site` may touch: lengths for the sequence
 * lengths, the output for stores, else the input. */
static int range_of(int site, int is_store)
{
    return is_store ? 2 : site == DML_SITE_LENGTH ? 1 : 0;
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

static void trace_access(warp_trace* w, int site, int is_store, uint64_t address, unsigned bytes)
{
    if (w->failed)
        return;
    int lane = w->lane;
    if (w->count[lane] == w->capacity[lane]) {
        size_t capacity = w->capacity[lane] ? 2 * w->capacity[lane] : 64;
        access* grown = realloc(w->lanes[lane], capacity * sizeof *grown);
        if (!grown) {
            w->failed = 1;
            return;
        }
        w->lanes[lane] = grown;
        w->capacity[lane] = capacity;
    }
    access a = { address, bytes, (uint8_t)site, (uint8_t)is_store, w->instruction };
    w->lanes[lane][w->count[lane]++] = a;
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
        trace_access(e->trace, site, is_store, (uint64_t)(uintptr_t)address, bytes);
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
    const int lane = m->lane;
    if (m->log_count[lane] < SHARED_LOG) {
        shared_log* entry = &m->log[lane * SHARED_LOG + m->log_count[lane]];
        entry->instruction = e->instruction != NO_INSTRUCTION ? e->instruction : 0x80000000u | m->log_count[lane];
        entry->first_word = first;
        entry->words = words;
        m->log_count[lane]++;
    } else {
        m->overflow = 1;
    }
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

static int compare_log(const void* a, const void* b)
{
    const shared_log *x = a, *y = b;
    return (x->instruction > y->instruction) - (x->instruction < y->instruction);
}

/* The warp's shared accesses of one phase, grouped by instruction; an
 * instruction's wavefronts are the most distinct words in one bank. */
static void account_shared_warp(shared_model* m, dml_coalescing* stats)
{
    shared_log* all = m->log; /* compacted in place, then sorted */
    size_t count = 0;
    for (int lane = 0; lane < DML_WARP_SIZE; ++lane)
        for (uint32_t n = 0; n < m->log_count[lane]; ++n)
            all[count++] = m->log[lane * SHARED_LOG + n];
    qsort(all, count, sizeof *all, compare_log);
    for (size_t begin = 0; begin < count;) {
        size_t end = begin;
        while (end < count && all[end].instruction == all[begin].instruction)
            end++;
        uint32_t words[DML_WARP_SIZE * 4];
        uint32_t n = 0;
        for (size_t k = begin; k < end; ++k)
            for (uint32_t w = 0; w < all[k].words && n < DML_WARP_SIZE * 4; ++w)
                words[n++] = all[k].first_word + w;
        uint32_t distinct = 0, per_bank[DML_WARP_SIZE] = { 0 }, most = 0;
        for (uint32_t i = 0; i < n; ++i) {
            int seen = 0;
            for (uint32_t k = 0; k < i && !seen; ++k)
                seen = words[k] == words[i];
            if (seen)
                continue; /* one word read by several lanes is a broadcast */
            distinct++;
            uint32_t bank = words[i] % DML_WARP_SIZE;
            if (++per_bank[bank] > most)
                most = per_bank[bank];
        }
        stats->shared_requests++;
        stats->shared_wavefronts += most;
        stats->shared_ideal_wavefronts += (distinct + DML_WARP_SIZE - 1) / DML_WARP_SIZE;
        begin = end;
    }
    memset(m->log_count, 0, sizeof m->log_count);
}

double dml_coalescing_bank_conflicts(const dml_coalescing* c)
{
    return c->shared_requests ? (double)(c->shared_wavefronts - c->shared_ideal_wavefronts) / (double)c->shared_requests
                              : 0.0;
}

static int compare_u64(const void* a, const void* b)
{
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}

/* Groups the warp's accesses into memory instructions: the n-th access from
 * site s in each lane belongs to the same instruction. Counts each one's
 * distinct sectors. */
static void account_warp(warp_trace* w, dml_coalescing* stats)
{
    size_t cursor[DML_WARP_SIZE][DML_SITE_COUNT];
    size_t next[DML_WARP_SIZE];
    memset(cursor, 0, sizeof cursor);
    memset(next, 0, sizeof next);
    /* Walk each lane's accesses in order; pair the n-th of each site. */
    for (int site = 0; site < DML_SITE_COUNT; ++site) {
        for (size_t n = 0;; ++n) {
            uint64_t sectors[DML_WARP_SIZE * 2];
            size_t sector_count = 0;
            uint64_t bytes = 0;
            int is_store = 0, any = 0;
            for (int lane = 0; lane < DML_WARP_SIZE; ++lane) {
                /* find this lane's n-th access of the site */
                size_t i = cursor[lane][site];
                while (i < w->count[lane] && w->lanes[lane][i].site != site)
                    ++i;
                if (i >= w->count[lane])
                    continue;
                cursor[lane][site] = i + 1;
                const access* a = &w->lanes[lane][i];
                any = 1;
                is_store = a->is_store;
                bytes += a->bytes;
                uint64_t first = a->address / DML_SECTOR_BYTES, last = (a->address + a->bytes - 1) / DML_SECTOR_BYTES;
                for (uint64_t s = first; s <= last && sector_count < DML_WARP_SIZE * 2; ++s)
                    sectors[sector_count++] = s;
            }
            if (!any)
                break;
            qsort(sectors, sector_count, sizeof *sectors, compare_u64);
            uint64_t distinct = 0;
            for (size_t i = 0; i < sector_count; ++i)
                distinct += i == 0 || sectors[i] != sectors[i - 1];
            if (site == DML_SITE_LENGTH) { /* FIX: kept apart from the data loads (see emulator.h) */
                stats->length_bytes += bytes;
                stats->length_sectors += distinct;
                stats->length_requests++;
            } else if (is_store) {
                stats->store_bytes += bytes;
                stats->store_sectors += distinct;
                stats->store_requests++;
            } else {
                stats->load_bytes += bytes;
                stats->load_sectors += distinct;
                stats->load_requests++;
            }
        }
    }
    (void)next;
    for (int lane = 0; lane < DML_WARP_SIZE; ++lane)
        w->count[lane] = 0;
}

static int compare_access_instruction(const void* a, const void* b)
{
    const access *x = a, *y = b;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return (x->instruction > y->instruction) - (x->instruction < y->instruction);
}

/* TILED: the warp's accesses grouped into memory instructions by site and
 * the instruction the code named (lanes with nothing to move skip one, so
 * the n-th access of each lane need not be the same instruction). */
static void account_tiled_warp(warp_trace* w, dml_coalescing* stats)
{
    size_t count = 0;
    for (int lane = 0; lane < DML_WARP_SIZE; ++lane)
        count += w->count[lane];
    access* all = malloc((count ? count : 1) * sizeof *all);
    if (!all) {
        w->failed = 1;
        return;
    }
    count = 0;
    for (int lane = 0; lane < DML_WARP_SIZE; ++lane) {
        if (w->count[lane]) /* a lane that made no access may have no buffer yet */
            memcpy(all + count, w->lanes[lane], w->count[lane] * sizeof *all);
        count += w->count[lane];
        w->count[lane] = 0;
    }
    qsort(all, count, sizeof *all, compare_access_instruction);
    for (size_t begin = 0; begin < count;) {
        size_t end = begin;
        while (end < count && all[end].site == all[begin].site && all[end].instruction == all[begin].instruction)
            end++;
        uint64_t sectors[DML_WARP_SIZE * 8];
        size_t sector_count = 0;
        uint64_t bytes = 0;
        for (size_t k = begin; k < end; ++k) {
            bytes += all[k].bytes;
            uint64_t first = all[k].address / DML_SECTOR_BYTES, last = (all[k].address + all[k].bytes - 1) / DML_SECTOR_BYTES;
            for (uint64_t sector = first; sector <= last && sector_count < DML_WARP_SIZE * 8; ++sector)
                sectors[sector_count++] = sector;
        }
        qsort(sectors, sector_count, sizeof *sectors, compare_u64);
        uint64_t distinct = 0;
        for (size_t i = 0; i < sector_count; ++i)
            distinct += i == 0 || sectors[i] != sectors[i - 1];
        if (all[begin].site == DML_SITE_LENGTH) {
            stats->length_bytes += bytes;
            stats->length_sectors += distinct;
            stats->length_requests++;
        } else if (all[begin].is_store) {
            stats->store_bytes += bytes;
            stats->store_sectors += distinct;
            stats->store_requests++;
        } else {
            stats->load_bytes += bytes;
            stats->load_sectors += distinct;
            stats->load_requests++;
        }
        begin = end;
    }
    free(all);
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
    dml_gather_thread(&l->params, block, thread, l->grid, l->block, l->element_size, l->mode, l->wide, l->reverse,
        l->outer_rank);
    dml_coalescing* stats = e->stats;
    const uint64_t last_item = block * l->block * DML_CUDA_ITEMS + thread + (uint64_t)(DML_CUDA_ITEMS - 1) * l->block;
    if (stats && e->pass_loads_after_store > stats->max_loads_after_store)
        stats->max_loads_after_store = e->pass_loads_after_store;
    if (stats && e->stored && last_item < l->params.count) {
        if (!stats->full_threads || e->loads < stats->min_loads_before_store)
            stats->min_loads_before_store = e->loads;
        stats->full_threads++;
    }
    const uint64_t stored = e->first_pass_vector_stores;
    if (stats && stored && stored >= stats->vector_items_per_pass) {
        if (stored > stats->vector_items_per_pass) { /* a fuller first pass: the minimum starts over */
            stats->vector_items_per_pass = stored;
            stats->vector_threads = 0;
        }
        if (!stats->vector_threads || e->vector_loads < stats->min_vector_loads_before_store)
            stats->min_vector_loads_before_store = e->vector_loads;
        stats->vector_threads++;
    }
}

double dml_coalescing_load_efficiency(const dml_coalescing* c)
{
    return c->load_sectors ? (double)c->load_bytes / (double)(c->load_sectors * DML_SECTOR_BYTES) : 1.0;
}

double dml_coalescing_store_efficiency(const dml_coalescing* c)
{
    return c->store_sectors ? (double)c->store_bytes / (double)(c->store_sectors * DML_SECTOR_BYTES) : 1.0;
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
            account_tiled_warp(e->trace, e->stats);
        if (e->stats)
            account_shared_warp(m, e->stats);
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
    if (items == DML_CUDA_ITEMS) {
        dml_coalescing* stats = e->stats;
        if (!stats->full_threads || e->loads_before_shared < stats->min_loads_before_store)
            stats->min_loads_before_store = e->loads_before_shared;
        stats->min_vector_loads_before_store = 0;
        stats->full_threads++;
    }
}

static void emulate_tiled(emulation* e)
{
    const dml_cuda_launch* l = e->launch;
    for (uint64_t block = 0; block < l->grid; ++block) {
        begin_block(e, block);
        for (uint64_t tile = block; tile < l->params.count; tile += l->grid) {
            tile_step step = { e, tile };
            run_block_phase(e, l->block, tile_phase, 0, &step);
            run_block_phase(e, l->block, tile_phase, 1, &step);
        }
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

static void emulate_kernel(emulation* e, dml_coalescing* stats)
{
    const dml_cuda_launch* l = e->launch;
    if (l->mode == DML_CUDA_MODE_TILED) {
        emulate_tiled(e);
        return;
    }
    if (!e->trace) {
        for (uint64_t block = 0; block < l->grid; ++block)
            for (uint32_t thread = 0; thread < l->block; ++thread)
                run_thread(e, block, thread);
        return;
    }
    warp_trace* w = e->trace;
    for (uint64_t block = 0; block < l->grid; ++block) {
        for (uint32_t warp = 0; warp < l->block; warp += DML_WARP_SIZE) {
            for (uint32_t lane = 0; lane < DML_WARP_SIZE && warp + lane < l->block; ++lane) {
                w->lane = (int)lane;
                run_thread(e, block, warp + lane);
            }
            if (!w->failed)
                account_warp(w, stats);
        }
    }
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
    const int traced = stats && !l->is_copy && !l->scale_bias; /* coalescing: the gather kernels' */
    e.trace = traced ? calloc(1, sizeof *e.trace) : NULL;
    e.stats = e.trace ? stats : NULL;
    e.result = traced && !e.trace ? DML_EMULATE_OUT_OF_MEMORY : 0;
    if (!l->is_copy && !l->scale_bias && l->mode == DML_CUDA_MODE_TILED) {
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
        else
            emulate_kernel(&e, stats);
        if ((e.trace && e.trace->failed) || (e.stats && e.shared && e.shared->overflow))
            e.result = DML_EMULATE_OUT_OF_MEMORY;
    } else {
        e.result = DML_EMULATE_VIOLATION;
    }
    t_emulation = NULL;
    if (e.trace)
        for (int lane = 0; lane < DML_WARP_SIZE; ++lane)
            free(e.trace->lanes[lane]);
    free(e.trace);
    shared_model_free(e.shared);
    return e.result;
}
