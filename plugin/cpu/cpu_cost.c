/* cpu_cost.c — see cpu_cost.h. */
#include "cpu_cost.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

dml_cpu_cost_model dml_cpu_cost_default(void)
{
    return (dml_cpu_cost_model){ .wake_ns = 20000.0, .bytes_per_ns = 10.0 };
}

double dml_cpu_cost_predict(const dml_cpu_cost_model* model, uint64_t bytes, unsigned threads)
{
    const double copy = (double)bytes / model->bytes_per_ns;
    return threads <= 1 ? copy : model->wake_ns + copy / threads;
}

unsigned dml_cpu_cost_threads(const dml_cpu_cost_model* model, uint64_t bytes, unsigned max_threads)
{
    unsigned best = 1;
    double best_ns = dml_cpu_cost_predict(model, bytes, 1);
    for (unsigned k = 2; k <= max_threads; k++) {
        const double ns = dml_cpu_cost_predict(model, bytes, k);
        if (ns < best_ns) {
            best = k;
            best_ns = ns;
        }
    }
    return best;
}

static int compare_double(const void* a, const void* b)
{
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A job whose tasks wait (briefly) until every thread has one: the caller
 * alone could otherwise run them all before a worker wakes. */
typedef struct arrival {
    atomic_uint arrived;
    unsigned threads;
    double deadline_ns;
} arrival;

static void arrive(void* context, unsigned task)
{
    (void)task;
    arrival* a = context;
    atomic_fetch_add(&a->arrived, 1);
    while (atomic_load(&a->arrived) < a->threads && now_ns() < a->deadline_ns)
        sched_yield();
}

#define SAMPLES 15
/* Large enough that the call costs little beside the copy, small enough to
 * stay in L2 as the small dispatches it predicts do. */
#define COPY_BYTES ((size_t)128 * 1024)

dml_cpu_cost_model dml_cpu_cost_measure(cpu_pool* pool)
{
    dml_cpu_cost_model model = dml_cpu_cost_default();
    double samples[SAMPLES];
    const unsigned threads = cpu_pool_threads(pool);
    if (threads >= 2) {
        /* Medians: the machine may be busy with other work. */
        for (int i = 0; i < SAMPLES; i++) {
            const double t0 = now_ns();
            arrival a = { 0, threads, t0 + 1e6 }; /* a worker that never comes costs 1 ms */
            cpu_pool_run(pool, arrive, &a, threads);
            samples[i] = now_ns() - t0;
        }
        qsort(samples, SAMPLES, sizeof samples[0], compare_double);
        if (samples[SAMPLES / 2] > 0)
            model.wake_ns = samples[SAMPLES / 2];
    }
    unsigned char* buffers = malloc(2 * COPY_BYTES);
    if (buffers) {
        memset(buffers, 1, 2 * COPY_BYTES);
        for (int i = 0; i < SAMPLES; i++) {
            const double t0 = now_ns();
            memcpy(buffers + COPY_BYTES, buffers, COPY_BYTES);
            __asm__ volatile("" : : "r"(buffers) : "memory"); /* keep the copy */
            samples[i] = now_ns() - t0;
        }
        free(buffers);
        qsort(samples, SAMPLES, sizeof samples[0], compare_double);
        if (samples[SAMPLES / 2] > 0)
            model.bytes_per_ns = (double)COPY_BYTES / samples[SAMPLES / 2];
    }
    return model;
}
