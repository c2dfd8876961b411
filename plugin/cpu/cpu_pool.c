/*
 * cpu_pool.c — see cpu_pool.h. Everything shared is guarded by `lock`;
 * `busy` is held by the one caller whose job owns the pool.
 */
#include "cpu_pool.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define CPU_POOL_MAX_THREADS 16u

struct cpu_pool {
    pthread_mutex_t busy; /* trylock'd by cpu_pool_run: one job at a time */
    pthread_mutex_t lock;
    pthread_cond_t wake;  /* workers: a new job or stop */
    pthread_cond_t done;  /* caller: unfinished reached 0 */
    cpu_pool_fn fn;
    void* context;
    unsigned next;        /* next task to hand out */
    unsigned count;       /* tasks in the current job */
    unsigned unfinished;  /* tasks handed out or pending, not yet finished */
    uint64_t generation;  /* bumped per job so sleeping workers notice it */
    int stop;
    unsigned workers;     /* immutable after creation */
    pthread_t threads[];
};

unsigned cpu_pool_default_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    /* A container or taskset may allow fewer CPUs than are online. */
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        long allowed = CPU_COUNT(&set);
        if (allowed > 0 && (cpus < 1 || allowed < cpus))
            cpus = allowed;
    }
    if (cpus < 1)
        cpus = 1;
    return cpus > (long)CPU_POOL_MAX_THREADS ? CPU_POOL_MAX_THREADS : (unsigned)cpus;
}

/* Runs the current job's tasks until none is left. Called and returns with
 * lock held; a worker may pick up tasks of a job newer than the one that woke
 * it, which is harmless because fn/context are read under the same lock. */
static void drain(cpu_pool* pool)
{
    while (pool->next < pool->count) {
        unsigned task = pool->next++;
        cpu_pool_fn fn = pool->fn;
        void* context = pool->context;
        pthread_mutex_unlock(&pool->lock);
        fn(context, task);
        pthread_mutex_lock(&pool->lock);
        if (--pool->unfinished == 0)
            pthread_cond_signal(&pool->done);
    }
}

static void* worker_main(void* arg)
{
    cpu_pool* pool = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->stop && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->stop)
            break;
        seen = pool->generation;
        drain(pool);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

static void stop_and_join(cpu_pool* pool)
{
    pthread_mutex_lock(&pool->lock);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->workers; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    pthread_mutex_destroy(&pool->busy);
    free(pool);
}

cpu_pool* cpu_pool_create(unsigned threads)
{
    if (threads < 2)
        return NULL;
    if (threads > CPU_POOL_MAX_THREADS)
        threads = CPU_POOL_MAX_THREADS;
    cpu_pool* pool = calloc(1, sizeof(*pool) + (threads - 1) * sizeof(pthread_t));
    if (!pool)
        return NULL;
    pthread_mutex_init(&pool->busy, NULL);
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);

    /* Workers inherit the creator's signal mask: block everything so the
     * host's signal handlers never run on a library thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned i = 0; i < threads - 1; i++) {
        if (pthread_create(&pool->threads[i], NULL, worker_main, pool) != 0)
            break; /* keep the workers we have */
        pool->workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    if (pool->workers == 0) {
        stop_and_join(pool);
        return NULL;
    }
    return pool;
}

void cpu_pool_destroy(cpu_pool* pool)
{
    if (pool)
        stop_and_join(pool);
}

unsigned cpu_pool_threads(const cpu_pool* pool)
{
    return pool ? pool->workers + 1 : 1;
}

void cpu_pool_run(cpu_pool* pool, cpu_pool_fn fn, void* context, unsigned count)
{
    if (!pool || count < 2 || pthread_mutex_trylock(&pool->busy) != 0) {
        for (unsigned i = 0; i < count; i++)
            fn(context, i);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->context = context;
    pool->next = 0;
    pool->count = count;
    pool->unfinished = count;
    pool->generation++;
    /* Wake only as many workers as there are tasks beyond the caller's: a
     * job capped to fewer threads leaves the others asleep. */
    for (unsigned i = 1; i < count && i <= pool->workers; i++)
        pthread_cond_signal(&pool->wake);
    drain(pool);
    while (pool->unfinished != 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    pthread_mutex_unlock(&pool->busy);
}
