/*
 * copy_baseline.c — the copy that dmlbench's throughput ratios are relative
 * to: on the CPU memcpy, split over a pool of threads as the CPU backend
 * splits its work; on CUDA cudaMemcpyAsync device to device, timed with CUDA
 * events (libcudart loaded at run time, so that a machine without it still
 * runs the CPU tables).
 */
#include "dmlbench.h"

#include <dlfcn.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- on the CPU: memcpy split over a pool of threads ---- */

void* copy_buffer_alloc(uint64_t bytes)
{
    const uint64_t huge = (uint64_t)2 << 20;
    if (bytes < huge)
        return malloc(bytes ? bytes : 1);
    const uint64_t rounded = (bytes + huge - 1) / huge * huge;
    void* p = rounded >= bytes ? aligned_alloc(huge, rounded) : NULL;
    if (p)
        madvise(p, rounded, MADV_HUGEPAGE); /* a hint: ordinary pages without it */
    return p;
}

#define FILL_BYTE 0x5a

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* vector_fill with 64-byte stores, one per line, as the CPU backend's
 * streamed outputs are written where the CPU has AVX-512: on the Intel Xeon
 * VM 16-byte non-temporal stores wrote 64 MiB at about two thirds of their
 * rate, so a FILL ran at 1.4-1.7 of a write-only baseline without them. */
__attribute__((target("avx512f"))) static void vector_fill_avx512(unsigned char* dst, uint64_t bytes, int streamed)
{
    const uint64_t head = (64 - ((uintptr_t)dst & 63)) & 63;
    if (head >= bytes) {
        memset(dst, FILL_BYTE, bytes);
        return;
    }
    memset(dst, FILL_BYTE, head);
    const __m512i v = _mm512_set1_epi8((char)FILL_BYTE);
    const uint64_t lines = (bytes - head) / 64;
    unsigned char* at = dst + head;
    if (streamed) {
        for (uint64_t k = 0; k < lines; ++k)
            _mm512_stream_si512((void*)(at + 64 * k), v);
        _mm_sfence();
    } else {
        for (uint64_t k = 0; k < lines; ++k)
            _mm512_store_si512((void*)(at + 64 * k), v);
    }
    memset(at + 64 * lines, FILL_BYTE, bytes - head - 64 * lines);
}
#endif

/* 16-byte stores from dst's first 16-byte boundary (memset around), or
 * 64-byte ones with AVX-512, non-temporal or ordinary: glibc's memset of
 * large sizes is `rep stosb`, which need not write as either store loop does. */
static void vector_fill(unsigned char* dst, uint64_t bytes, int streamed)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512f")) {
        vector_fill_avx512(dst, bytes, streamed);
        return;
    }
#endif
#if defined(__SSE2__)
    const uint64_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (head >= bytes) {
        memset(dst, FILL_BYTE, bytes);
        return;
    }
    memset(dst, FILL_BYTE, head);
    const __m128i v = _mm_set1_epi8((char)FILL_BYTE);
    const uint64_t vectors = (bytes - head) / 16;
    __m128i* at = (__m128i*)(void*)(dst + head);
    if (streamed) {
        for (uint64_t k = 0; k < vectors; ++k)
            _mm_stream_si128(at + k, v);
        _mm_sfence();
    } else {
        for (uint64_t k = 0; k < vectors; ++k)
            _mm_store_si128(at + k, v);
    }
    memset(dst + head + 16 * vectors, FILL_BYTE, bytes - head - 16 * vectors);
#else
    (void)streamed;
    memset(dst, FILL_BYTE, bytes);
#endif
}

static void share_run(copy_pool* p, uint64_t begin, uint64_t end)
{
    if (p->src)
        memcpy(p->dst + begin, p->src + begin, end - begin);
    else if (p->fill != COPY_FILL_MEMSET)
        vector_fill(p->dst + begin, end - begin, p->fill == COPY_FILL_STREAM);
    else
        memset(p->dst + begin, FILL_BYTE, end - begin);
}

static void copy_share(copy_pool* p, unsigned index)
{
    if (index >= p->active)
        return;
    uint64_t share = (p->bytes / p->active + 63) & ~(uint64_t)63;
    uint64_t begin = share * index;
    if (begin >= p->bytes)
        return;
    uint64_t end = begin + share < p->bytes ? begin + share : p->bytes;
    share_run(p, begin, end);
}

typedef struct worker_arg {
    copy_pool* pool;
    unsigned index;
} worker_arg;

static worker_arg worker_args[MAX_COPY_THREADS];

static void* copy_worker(void* arg)
{
    worker_arg* w = arg;
    for (;;) {
        pthread_barrier_wait(&w->pool->start);
        if (w->pool->stop)
            return NULL;
        copy_share(w->pool, w->index);
        pthread_barrier_wait(&w->pool->finish);
    }
}

/* The CPU backend's thread count: min(usable CPUs, 16). */
static unsigned cpu_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 && CPU_COUNT(&set) < cpus)
        cpus = CPU_COUNT(&set);
    if (cpus < 1)
        cpus = 1;
    return cpus > MAX_COPY_THREADS ? MAX_COPY_THREADS : (unsigned)cpus;
}

void copy_pool_start(copy_pool* p)
{
    memset(p, 0, sizeof *p);
    p->threads = cpu_threads();
    pthread_barrier_init(&p->start, NULL, p->threads);
    pthread_barrier_init(&p->finish, NULL, p->threads);
    for (unsigned i = 1; i < p->threads; ++i) {
        worker_args[i] = (worker_arg){ p, i };
        pthread_create(&p->workers[i], NULL, copy_worker, &worker_args[i]);
    }
}

void copy_pool_stop(copy_pool* p)
{
    p->stop = 1;
    pthread_barrier_wait(&p->start);
    for (unsigned i = 1; i < p->threads; ++i)
        pthread_join(p->workers[i], NULL);
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->finish);
}

static void pool_run(copy_pool* p, void* dst, const void* src, uint64_t bytes, unsigned threads, copy_fill fill)
{
    p->dst = dst;
    p->src = src;
    p->bytes = bytes;
    p->fill = fill;
    if (threads < 2 || p->threads < 2) {
        share_run(p, 0, bytes);
        return;
    }
    p->active = threads < p->threads ? threads : p->threads;
    pthread_barrier_wait(&p->start);
    copy_share(p, 0);
    pthread_barrier_wait(&p->finish);
}

void copy_pool_copy(copy_pool* p, void* dst, const void* src, uint64_t bytes, unsigned threads)
{
    pool_run(p, dst, src, bytes, threads, COPY_FILL_MEMSET);
}

void copy_pool_fill(copy_pool* p, void* dst, uint64_t bytes, unsigned threads, copy_fill fill)
{
    pool_run(p, dst, NULL, bytes, threads, fill);
}

/* ---- on CUDA: cudaMemcpyAsync device to device ---- */

#ifdef DML_BENCH_CUDA
typedef int (*cuda_malloc_fn)(void**, size_t);
typedef int (*cuda_free_fn)(void*);
typedef int (*cuda_memcpy_async_fn)(void*, const void*, size_t, int, void*);
typedef int (*cuda_event_create_fn)(void**);
typedef int (*cuda_event_destroy_fn)(void*);
typedef int (*cuda_event_record_fn)(void*, void*);
typedef int (*cuda_event_synchronize_fn)(void*);
typedef int (*cuda_event_elapsed_fn)(float*, void*, void*);

double cuda_copy_ms(uint64_t bytes, int warmup, int repetitions)
{
    static void* lib;
    if (!lib)
        lib = dlopen("libcudart.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libcudart.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return -1;
    cuda_malloc_fn cmalloc = (cuda_malloc_fn)dlsym(lib, "cudaMalloc");
    cuda_free_fn cfree = (cuda_free_fn)dlsym(lib, "cudaFree");
    cuda_memcpy_async_fn ccopy = (cuda_memcpy_async_fn)dlsym(lib, "cudaMemcpyAsync");
    cuda_event_create_fn ecreate = (cuda_event_create_fn)dlsym(lib, "cudaEventCreate");
    cuda_event_destroy_fn edestroy = (cuda_event_destroy_fn)dlsym(lib, "cudaEventDestroy");
    cuda_event_record_fn erecord = (cuda_event_record_fn)dlsym(lib, "cudaEventRecord");
    cuda_event_synchronize_fn esync = (cuda_event_synchronize_fn)dlsym(lib, "cudaEventSynchronize");
    cuda_event_elapsed_fn elapsed = (cuda_event_elapsed_fn)dlsym(lib, "cudaEventElapsedTime");
    if (!cmalloc || !cfree || !ccopy || !ecreate || !edestroy || !erecord || !esync || !elapsed)
        return -1;
    void *src = NULL, *dst = NULL, *e0 = NULL, *e1 = NULL;
    if (cmalloc(&src, bytes) || cmalloc(&dst, bytes) || ecreate(&e0) || ecreate(&e1)) {
        if (src)
            cfree(src);
        if (dst)
            cfree(dst);
        return -1;
    }
    enum { DEVICE_TO_DEVICE = 3 };
    double* samples = calloc((size_t)repetitions, sizeof(double));
    for (int i = 0; i < warmup + repetitions; ++i) {
        float ms = 0;
        erecord(e0, NULL);
        ccopy(dst, src, bytes, DEVICE_TO_DEVICE, NULL);
        erecord(e1, NULL);
        esync(e1);
        elapsed(&ms, e0, e1);
        if (i >= warmup)
            samples[i - warmup] = ms;
    }
    double median = summarize(samples, repetitions).median;
    free(samples);
    edestroy(e0);
    edestroy(e1);
    cfree(src);
    cfree(dst);
    return median;
}
#endif
