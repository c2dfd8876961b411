#include "emulator.h"

#include <stdlib.h>
#include <string.h>

#define DML_CUDA_EMULATION 1
#include "gather_thread.h"
#include "scale_bias.h"

/* One traced access of one thread. */
typedef struct access {
    uint64_t address;
    uint32_t bytes;
    uint8_t site;
    uint8_t is_store;
} access;

/* Accesses of the warp being emulated, per lane, in program order. */
typedef struct warp_trace {
    access* lanes[DML_WARP_SIZE];
    size_t count[DML_WARP_SIZE];
    size_t capacity[DML_WARP_SIZE];
    int lane;
    int failed;
} warp_trace;

/* Per emulating thread, so that several host threads may emulate at once. */
static _Thread_local warp_trace* t_trace;

void dml_emulator_access(int site, int is_store, const void* address, unsigned bytes)
{
    warp_trace* w = t_trace;
    if (!w || w->failed)
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
    access a = { (uint64_t)(uintptr_t)address, bytes, (uint8_t)site, (uint8_t)is_store };
    w->lanes[lane][w->count[lane]++] = a;
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

static void run_thread(const dml_cuda_launch* l, uint64_t block, uint32_t thread)
{
    dml_gather_thread(&l->params, block, thread, l->grid, l->block, l->element_size, l->mode, l->wide, l->reverse,
        l->outer_rank);
}

double dml_coalescing_load_efficiency(const dml_coalescing* c)
{
    return c->load_sectors ? (double)c->load_bytes / (double)(c->load_sectors * DML_SECTOR_BYTES) : 1.0;
}

double dml_coalescing_store_efficiency(const dml_coalescing* c)
{
    return c->store_sectors ? (double)c->store_bytes / (double)(c->store_sectors * DML_SECTOR_BYTES) : 1.0;
}

int dml_cuda_emulate(const dml_cuda_launch* l, dml_coalescing* stats)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (l->is_copy) {
        memcpy(l->copy_destination, l->copy_source, l->copy_bytes);
        return 0;
    }
    if (l->scale_bias) {
        dml_cuda_emulate_scale_bias(l);
        return 0;
    }
    if (!stats) {
        for (uint64_t block = 0; block < l->grid; ++block)
            for (uint32_t thread = 0; thread < l->block; ++thread)
                run_thread(l, block, thread);
        return 0;
    }
    warp_trace* w = calloc(1, sizeof *w);
    if (!w) {
        dml_cuda_emulate(l, NULL);
        return -1;
    }
    t_trace = w;
    for (uint64_t block = 0; block < l->grid; ++block) {
        for (uint32_t warp = 0; warp < l->block; warp += DML_WARP_SIZE) {
            for (uint32_t lane = 0; lane < DML_WARP_SIZE && warp + lane < l->block; ++lane) {
                w->lane = (int)lane;
                run_thread(l, block, warp + lane);
            }
            if (!w->failed)
                account_warp(w, stats);
        }
    }
    t_trace = NULL;
    int failed = w->failed;
    for (int lane = 0; lane < DML_WARP_SIZE; ++lane)
        free(w->lanes[lane]);
    free(w);
    return failed ? -1 : 0;
}
