/*
 * emulator_internal.h — what the emulator's two halves share: the state of
 * an emulated launch, which emulator.c executes (the kernels' thread code
 * over the launch's geometry, every access checked), and the hooks through
 * which emulator_coalescing.c turns the accesses it traces into the
 * statistics of dml_coalescing (sectors per warp instruction, shared-memory
 * bank conflicts, loads in flight). Not for use outside cuda/emulator*.c.
 */
#ifndef DML_CUDA_EMULATOR_INTERNAL_H
#define DML_CUDA_EMULATOR_INTERNAL_H

#include "emulator.h"

#include <setjmp.h>
#include <stddef.h>

/* Before the first include of the kernels' thread code: it then calls the
 * emulator's hooks (dml_emulator_access, ...) at every access. */
#define DML_CUDA_EMULATION 1
#include "gather_thread.h"

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
    /* A grouped launch (dml_cuda_emulate_group): the group, and the launch
     * its running block sees (launch), whose input range a joined row's
     * loads switch to the part they read (dml_emulator_part). */
    const dml_cuda_group_launch* group;
    dml_cuda_launch* group_view;
    const dml_group_part* group_part; /* the part whose block runs (row_split: its flat row) */
    int result;
    jmp_buf violation;
} emulation;

/* emulator_coalescing.c. Appends an access to the running lane's trace
 * (w->failed when memory runs out). */
void emu_trace_access(warp_trace* w, int site, int is_store, uint64_t address, unsigned bytes);

/* Logs a checked shared access of the running lane (m->lane) for the bank
 * count (m->overflow past SHARED_LOG in a phase). */
void emu_log_shared_access(shared_model* m, uint32_t instruction, uint32_t first_word, uint32_t words);

/* A warp's traced accesses, counted into stats as memory instructions and
 * the trace emptied for the next warp: scalar and vector launches pair each
 * lane's n-th access of a site, TILED launches the instruction the code
 * named; the shared accesses of one phase by instruction (bank conflicts). */
void emu_account_warp(warp_trace* w, dml_coalescing* stats);
void emu_account_tiled_warp(warp_trace* w, dml_coalescing* stats);
void emu_account_shared_warp(shared_model* m, dml_coalescing* stats);

/* Loads in flight of the thread e just ran (no-op without e->stats):
 * full_first_pass when its first pass had all DML_CUDA_ITEMS items. */
void emu_account_thread(const emulation* e, int full_first_pass);

/* TILED: a thread whose first tile's load phase had all DML_CUDA_ITEMS
 * items, with the loads it issued before its first shared store. */
void emu_account_tiled_thread(dml_coalescing* stats, uint64_t loads_before_shared);

#endif /* DML_CUDA_EMULATOR_INTERNAL_H */
