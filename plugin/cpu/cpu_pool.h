/*
 * cpu_pool.h — a small persistent thread pool for the CPU backend.
 *
 * One pool per device, created once and joined when the device goes away;
 * dispatches never create threads. A job is a number of independent tasks
 * numbered 0..count-1; the calling thread works on them too. Only one job
 * runs on a pool at a time: a caller that finds the pool busy (another thread
 * dispatching on the same device) runs its tasks inline instead of waiting.
 * Idle workers sleep on a condition variable (no spinning).
 */
#ifndef DML_CPU_POOL_H
#define DML_CPU_POOL_H

typedef struct cpu_pool cpu_pool;
typedef void (*cpu_pool_fn)(void* context, unsigned task);

/* Threads the backend uses, the caller included: min(usable CPUs, 16). */
unsigned cpu_pool_default_threads(void);

/* A pool of `threads` threads including the caller (threads - 1 workers).
 * NULL when threads < 2 or no worker could be started. */
cpu_pool* cpu_pool_create(unsigned threads);

/* Joins the workers. No job may be running. NULL is a no-op. */
void cpu_pool_destroy(cpu_pool* pool);

/* Threads including the caller; 1 for NULL. */
unsigned cpu_pool_threads(const cpu_pool* pool);

/* Runs fn(context, i) for i in [0, count) and returns when all are done.
 * pool NULL, count < 2 or a busy pool: runs them on the calling thread. */
void cpu_pool_run(cpu_pool* pool, cpu_pool_fn fn, void* context, unsigned count);

#endif /* DML_CPU_POOL_H */
