/*
 * cpu_stream.c — the streaming rule and the CPU's threshold (cpu_stream.h).
 */
#include "cpu_stream.h"

#include <unistd.h>

static uint64_t threshold; /* T once `threshold_known`: the CPU's, or what a test set */
static int threshold_known;

uint64_t dml_cpu_stream_threshold_for(int intel, uint64_t l2_bytes)
{
    if (!intel || l2_bytes == 0 || l2_bytes > DML_CPU_STREAM_DEFAULT_BYTES / DML_CPU_STREAM_MIN_L2S)
        return DML_CPU_STREAM_DEFAULT_BYTES;
    const uint64_t t = l2_bytes * DML_CPU_STREAM_MIN_L2S;
    const uint64_t floor = (uint64_t)4 << 20; /* a dispatch of a few MiB is its L2's and L3's */
    return t < floor ? floor : t;
}

static uint64_t cpu_threshold(void)
{
    int intel = 0;
    uint64_t l2 = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    intel = __builtin_cpu_is("intel");
#endif
#if defined(_SC_LEVEL2_CACHE_SIZE)
    const long size = sysconf(_SC_LEVEL2_CACHE_SIZE);
    l2 = size > 0 ? (uint64_t)size : 0;
#endif
    return dml_cpu_stream_threshold_for(intel, l2);
}

static uint64_t stream_threshold(void)
{
    if (__atomic_load_n(&threshold_known, __ATOMIC_ACQUIRE))
        return __atomic_load_n(&threshold, __ATOMIC_RELAXED);
    const uint64_t t = cpu_threshold(); /* racing threads compute the same value */
    __atomic_store_n(&threshold, t, __ATOMIC_RELAXED);
    __atomic_store_n(&threshold_known, 1, __ATOMIC_RELEASE);
    return t;
}

uint64_t dml_cpu_stream_min_bytes(uint64_t bytes)
{
    const uint64_t previous = stream_threshold();
    __atomic_store_n(&threshold, bytes, __ATOMIC_RELAXED);
    return previous;
}

int dml_cpu_streams(uint64_t written, uint64_t read)
{
    const uint64_t t = stream_threshold();
    return written >= t || (written >= t / 4 && dml_cpu_add_saturated(written, read) >= t - t / 4);
}

/* What a plan reads, at most: an element of each bound input per output
 * element (a broadcast or a TILE reads less: its whole input). */
static uint64_t read_bound(uint64_t count, uint64_t element_size, uint64_t bound_bytes)
{
    uint64_t most;
    if (__builtin_mul_overflow(count, element_size, &most))
        most = UINT64_MAX;
    return most < bound_bytes ? most : bound_bytes;
}

uint64_t dml_cpu_plan_traffic(const dml_plan* p, const dml_plan_args* a, uint64_t* read)
{
    const uint64_t count = p->element_count;
    const uint64_t in_size = p->kind == DML_PLAN_CAST ? p->in_element_size : p->element_size;
    *read = read_bound(count, in_size, a->input_bytes);
    if (dml_plan_reads_lengths(p->kind))
        *read = dml_cpu_add_saturated(*read, read_bound(count, 8, a->lengths_bytes));
    if (dml_plan_reads_input2(p->kind))
        *read = dml_cpu_add_saturated(*read, read_bound(count, p->element_size, a->input2_bytes));
    return read_bound(count, p->element_size, UINT64_MAX); /* the output's bytes: they fit its binding */
}

int dml_cpu_plan_streams(const dml_plan* p, const dml_plan_args* a)
{
    uint64_t read;
    const uint64_t written = dml_cpu_plan_traffic(p, a, &read);
    return dml_cpu_streams(written, read);
}
