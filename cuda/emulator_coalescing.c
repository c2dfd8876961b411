/*
 * emulator_coalescing.c — the emulator's statistics (dml_coalescing): the
 * accesses emulator.c traces, grouped into warp-level memory instructions
 * and counted as 32-byte sectors touched against bytes requested; the
 * shared-memory accesses of TILED launches as wavefronts against the fewest
 * their words allow (bank conflicts); and the loads each thread has in
 * flight before its first store.
 */
#include "emulator_internal.h"

#include <stdlib.h>
#include <string.h>

void emu_trace_access(warp_trace* w, int site, int is_store, uint64_t address, unsigned bytes)
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

void emu_log_shared_access(shared_model* m, uint32_t instruction, uint32_t first_word, uint32_t words)
{
    const int lane = m->lane;
    if (m->log_count[lane] < SHARED_LOG) {
        shared_log* entry = &m->log[lane * SHARED_LOG + m->log_count[lane]];
        entry->instruction = instruction != NO_INSTRUCTION ? instruction : 0x80000000u | m->log_count[lane];
        entry->first_word = first_word;
        entry->words = words;
        m->log_count[lane]++;
    } else {
        m->overflow = 1;
    }
}

static int compare_log(const void* a, const void* b)
{
    const shared_log *x = a, *y = b;
    return (x->instruction > y->instruction) - (x->instruction < y->instruction);
}

/* The warp's shared accesses of one phase, grouped by instruction; an
 * instruction's wavefronts are the most distinct words in one bank. */
void emu_account_shared_warp(shared_model* m, dml_coalescing* stats)
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

/* Appends the sectors an access touches, up to `capacity` in all. */
static void add_sectors(uint64_t* sectors, size_t* count, size_t capacity, const access* a)
{
    const uint64_t first = a->address / DML_SECTOR_BYTES, last = (a->address + a->bytes - 1) / DML_SECTOR_BYTES;
    for (uint64_t sector = first; sector <= last && *count < capacity; ++sector)
        sectors[(*count)++] = sector;
}

/* Counts one warp-level memory instruction: the bytes its lanes requested
 * and the distinct sectors among those they touched (sorted here). */
static void count_instruction(dml_coalescing* stats, int site, int is_store, uint64_t bytes, uint64_t* sectors,
    size_t sector_count)
{
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

/* Groups the warp's accesses into memory instructions: the n-th access from
 * site s in each lane belongs to the same instruction. Counts each one's
 * distinct sectors. */
void emu_account_warp(warp_trace* w, dml_coalescing* stats)
{
    size_t cursor[DML_WARP_SIZE][DML_SITE_COUNT];
    memset(cursor, 0, sizeof cursor);
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
                add_sectors(sectors, &sector_count, DML_WARP_SIZE * 2, a);
            }
            if (!any)
                break;
            count_instruction(stats, site, is_store, bytes, sectors, sector_count);
        }
    }
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
void emu_account_tiled_warp(warp_trace* w, dml_coalescing* stats)
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
            add_sectors(sectors, &sector_count, DML_WARP_SIZE * 8, &all[k]);
        }
        count_instruction(stats, all[begin].site, all[begin].is_store, bytes, sectors, sector_count);
        begin = end;
    }
    free(all);
}

/* A thread whose first pass had all DML_CUDA_ITEMS items and stored
 * something, with the loads it issued before its first store. */
static void account_full_thread(dml_coalescing* stats, uint64_t loads)
{
    if (!stats->full_threads || loads < stats->min_loads_before_store)
        stats->min_loads_before_store = loads;
    stats->full_threads++;
}

void emu_account_thread(const emulation* e, int full_first_pass)
{
    dml_coalescing* stats = e->stats;
    if (!stats)
        return;
    if (e->pass_loads_after_store > stats->max_loads_after_store)
        stats->max_loads_after_store = e->pass_loads_after_store;
    if (e->stored && full_first_pass)
        account_full_thread(stats, e->loads);
    const uint64_t stored = e->first_pass_vector_stores;
    if (stored && stored >= stats->vector_items_per_pass) {
        if (stored > stats->vector_items_per_pass) { /* a fuller first pass: the minimum starts over */
            stats->vector_items_per_pass = stored;
            stats->vector_threads = 0;
        }
        if (!stats->vector_threads || e->vector_loads < stats->min_vector_loads_before_store)
            stats->min_vector_loads_before_store = e->vector_loads;
        stats->vector_threads++;
    }
}

/* TILED launches move no 16-byte vectors through registers. */
void emu_account_tiled_thread(dml_coalescing* stats, uint64_t loads_before_shared)
{
    account_full_thread(stats, loads_before_shared);
    stats->min_vector_loads_before_store = 0;
}

double dml_coalescing_load_efficiency(const dml_coalescing* c)
{
    return c->load_sectors ? (double)c->load_bytes / (double)(c->load_sectors * DML_SECTOR_BYTES) : 1.0;
}

double dml_coalescing_store_efficiency(const dml_coalescing* c)
{
    return c->store_sectors ? (double)c->store_bytes / (double)(c->store_sectors * DML_SECTOR_BYTES) : 1.0;
}
