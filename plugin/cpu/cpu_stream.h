/*
 * cpu_stream.h — when a dispatch writes its output with non-temporal stores.
 *
 * Outputs too large to stay in the cache are written with non-temporal
 * stores, as large memcpys are: a write that first reads its cache line back
 * costs a third more memory traffic, and lines the cache cannot keep until
 * they are read again gain nothing from it. Every executor (rows, transposes,
 * column blocks, fills, casts, paddings, gathers of rows) asks the same rule.
 */
#ifndef DML_CPU_STREAM_H
#define DML_CPU_STREAM_H

#include <stdint.h>

#include "core/plan.h"

/* The rule, for a threshold T: a dispatch streams when it writes T bytes or
 * more, or T/4 and, with what it reads, 3T/4: the traffic decides, not the
 * output alone (a JOIN of 16 MiB reads as much as it writes; a FILL of 16 MiB
 * reads nothing, and the cache may keep it).
 *
 * T is the CPU's, chosen at first use (dml_cpu_stream_threshold_for):
 * - 32 MiB by default. 2-core AMD EPYC VM (32 MiB L3, which takes writes at
 *   several times memory's rate), `dmlbench --size 8M,16M` of every case,
 *   streamed from 8 MiB of output against 32: copies of 16 MiB (JOIN, SPLIT,
 *   SLICE, depth/space, reversals) 0.52-0.89x the time streamed, fills and
 *   broadcasts of 8-16 MiB 1.7-3.4x.
 * - four L2 caches on Intel CPUs (8 MiB with 2 MiB of L2), whose server
 *   parts' shared L3 takes a core's writes no faster than non-temporal stores
 *   reach memory. 2-core Intel Xeon VM (Emerald Rapids: 2 MiB L2, 260 MiB L3),
 *   `dmlbench --size 2M,3M,4M,8M,16M --type-size 1,4` of 18 cases, T = 8 MiB
 *   against 32, best of two alternated runs: 3-8 MiB copies (JOIN, SPLIT,
 *   SLICE, PADDING, depth/space, reversals, transposes, casts) 0.53-0.94x the
 *   time, fills, TILE and broadcasts of 16 MiB 0.52-0.75x, 2 MiB unchanged;
 *   8 MiB FILL_VALUE_SEQUENCE and uint8 -> float32 1.1-1.3x, then staged
 *   through the L1 buffer (both stream their own rows since). The A/B
 *   switch was a test build's, since removed. */
#define DML_CPU_STREAM_DEFAULT_BYTES ((uint64_t)32 << 20)
#define DML_CPU_STREAM_MIN_L2S 4u

/* T for a CPU: `intel` whether its vendor is Intel, `l2_bytes` one core's L2
 * (0 when unknown: the default). */
uint64_t dml_cpu_stream_threshold_for(int intel, uint64_t l2_bytes);

/* Sets T for the whole process (tests reach the streaming paths with small
 * plans: 0 streams everything, UINT64_MAX nothing) and returns the previous
 * one (the CPU's, if none was set). Not for use while dispatches run. */
uint64_t dml_cpu_stream_min_bytes(uint64_t bytes);

/* Whether a dispatch that writes and reads these many bytes streams. */
int dml_cpu_streams(uint64_t written, uint64_t read);

/* A plan's bytes written (returned) and, at most, read (*read) with these
 * bindings; and whether it streams on its own (not in a group). */
uint64_t dml_cpu_plan_traffic(const dml_plan* p, const dml_plan_args* a, uint64_t* read);
int dml_cpu_plan_streams(const dml_plan* p, const dml_plan_args* a);

/* a + b, or UINT64_MAX where that overflows (traffic sums). */
static inline uint64_t dml_cpu_add_saturated(uint64_t a, uint64_t b)
{
    uint64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

#endif
