/*
 * stream_executor.c — the StreamExecutor TensorFlow drives the device with.
 *
 * A stream is a runtime command queue (its own CUDA stream on the CUDA
 * backend). The runtime's public API has no events, so ordering between
 * streams and with the host is by synchronising a queue: recording an event
 * waits for the queue's work, after which the event is complete and waiting
 * for it costs nothing. On the CPU backend a queue's work is done when it is
 * recorded, so this costs nothing either; on the CUDA backend it is a host
 * round trip per event (docs/tensorflow.md, limits).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dml_tf.h"

struct SP_Event_st {
    SE_EventStatus status;
};

struct SP_Timer_st {
    uint64_t start_ns, stop_ns;
};

static dmltf_device* device_of(const SP_Device* device)
{
    return device->device_handle;
}

static void set_ok(TF_Status* status)
{
    TF_SetStatus(status, TF_OK, "");
}

static void set_sync_status(DML_RESULT r, TF_Status* status)
{
    if (DML_FAILED(r))
        dmltf_status_from_result(status, r, "DML plugin: synchronizing a stream");
    else
        set_ok(status);
}

/* The device lock: a queue is used by one thread at a time. */
static void synchronize(SP_Stream stream, TF_Status* status)
{
    pthread_mutex_lock(&stream->device->lock);
    DML_RESULT r = dmlCommandQueueSynchronize(stream->queue);
    pthread_mutex_unlock(&stream->device->lock);
    set_sync_status(r, status);
}

/* ---- memory ---- */

static void allocate(const SP_Device* device, uint64_t size, int64_t memory_space, SP_DeviceMemoryBase* mem)
{
    (void)memory_space;
    mem->struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
    mem->opaque = NULL;
    mem->size = 0;
    void* pointer;
    if (size && DML_SUCCEEDED(dmltf_memory_allocate(device_of(device), size, &pointer))) {
        mem->opaque = pointer;
        mem->size = size;
    }
}

static void deallocate(const SP_Device* device, SP_DeviceMemoryBase* mem)
{
    if (mem->opaque)
        dmltf_memory_free(device_of(device), mem->opaque);
    mem->opaque = NULL;
    mem->size = 0;
}

static void* host_memory_allocate(const SP_Device* device, uint64_t size)
{
    (void)device;
    void* p = NULL;
    /* 64 bytes: what TensorFlow's own host allocator aligns to. */
    return posix_memalign(&p, 64, size ? size : 1) == 0 ? p : NULL;
}

static void host_memory_deallocate(const SP_Device* device, void* mem)
{
    (void)device;
    free(mem);
}

static TF_Bool get_allocator_stats(const SP_Device* device, SP_AllocatorStats* stats)
{
    dmltf_device* d = device_of(device);
    stats->struct_size = SP_ALLOCATORSTATS_STRUCT_SIZE;
    pthread_rwlock_rdlock(&d->map_lock);
    stats->bytes_in_use = (int64_t)d->bytes_in_use;
    stats->num_allocs = (int64_t)d->allocation_count;
    pthread_rwlock_unlock(&d->map_lock);
    return 1;
}

static TF_Bool device_memory_usage(const SP_Device* device, int64_t* free_bytes, int64_t* total)
{
    dmltf_device* d = device_of(device);
    int64_t size = (int64_t)d->adapter.MemorySizeInBytes;
    int64_t available = size;
    if (d->adapter.IsSoftware) {
        /* Host memory: what the host has free now. */
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0 && (int64_t)pages < size / page)
            available = (int64_t)pages * page;
    } else {
        pthread_rwlock_rdlock(&d->map_lock);
        available = size - (int64_t)d->bytes_in_use;
        pthread_rwlock_unlock(&d->map_lock);
    }
    *total = size;
    *free_bytes = available > 0 ? available : 0;
    return 1;
}

/* ---- streams ---- */

static void create_stream(const SP_Device* device, SP_Stream* stream, TF_Status* status)
{
    dmltf_device* d = device_of(device);
    *stream = NULL;
    SP_Stream s = calloc(1, sizeof *s);
    if (!s) {
        TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "DML plugin: out of memory");
        return;
    }
    DML_RESULT r = dmlDeviceCreateCommandQueue(d->device, NULL, &s->queue);
    if (DML_FAILED(r)) {
        free(s);
        dmltf_status_from_result(status, r, "DML plugin: creating a stream");
        return;
    }
    s->device = d;
    pthread_mutex_lock(&d->lock);
    s->next = d->streams;
    d->streams = s;
    pthread_mutex_unlock(&d->lock);
    *stream = s;
    set_ok(status);
}

static void destroy_stream(const SP_Device* device, SP_Stream stream)
{
    dmltf_device* d = device_of(device);
    if (!stream)
        return;
    pthread_mutex_lock(&d->lock);
    for (SP_Stream* link = &d->streams; *link; link = &(*link)->next)
        if (*link == stream) {
            *link = stream->next;
            break;
        }
    DML_RESULT r = dmlCommandQueueSynchronize(stream->queue);
    pthread_mutex_unlock(&d->lock);
    (void)r; /* nothing to report to: TensorFlow is done with the stream */
    dmlRelease(stream->queue);
    free(stream);
}

static void create_stream_dependency(const SP_Device* device, SP_Stream dependent, SP_Stream other,
    TF_Status* status)
{
    (void)device;
    (void)dependent;
    synchronize(other, status);
}

static void get_stream_status(const SP_Device* device, SP_Stream stream, TF_Status* status)
{
    (void)stream;
    DML_RESULT r = dmlDeviceGetDeviceRemovedReason(device_of(device)->device);
    if (DML_FAILED(r))
        dmltf_status_from_result(status, r, "DML plugin: the device was removed");
    else
        set_ok(status);
}

/* ---- events ---- */

static void create_event(const SP_Device* device, SP_Event* event, TF_Status* status)
{
    (void)device;
    *event = calloc(1, sizeof **event);
    if (!*event) {
        TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "DML plugin: out of memory");
        return;
    }
    (*event)->status = SE_EVENT_PENDING;
    set_ok(status);
}

static void destroy_event(const SP_Device* device, SP_Event event)
{
    (void)device;
    free(event);
}

static SE_EventStatus get_event_status(const SP_Device* device, SP_Event event)
{
    (void)device;
    return __atomic_load_n(&event->status, __ATOMIC_ACQUIRE);
}

static void record_event(const SP_Device* device, SP_Stream stream, SP_Event event, TF_Status* status)
{
    (void)device;
    synchronize(stream, status);
    __atomic_store_n(&event->status, TF_GetCode(status) == TF_OK ? SE_EVENT_COMPLETE : SE_EVENT_ERROR,
        __ATOMIC_RELEASE);
}

static void wait_for_event(const SP_Device* const device, SP_Stream stream, SP_Event event, TF_Status* const status)
{
    (void)device;
    (void)stream;
    /* Complete once recorded (record_event waited for it). */
    if (__atomic_load_n(&event->status, __ATOMIC_ACQUIRE) == SE_EVENT_ERROR)
        TF_SetStatus(status, TF_INTERNAL, "DML plugin: waiting for an event whose stream failed");
    else
        set_ok(status);
}

static void block_host_for_event(const SP_Device* device, SP_Event event, TF_Status* status)
{
    wait_for_event(device, NULL, event, status);
}

/* ---- timers: host time around a synchronised stream ---- */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void create_timer(const SP_Device* device, SP_Timer* timer, TF_Status* status)
{
    (void)device;
    *timer = calloc(1, sizeof **timer);
    if (!*timer)
        TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "DML plugin: out of memory");
    else
        set_ok(status);
}

static void destroy_timer(const SP_Device* device, SP_Timer timer)
{
    (void)device;
    free(timer);
}

static void start_timer(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status)
{
    (void)device;
    synchronize(stream, status);
    timer->start_ns = now_ns();
}

static void stop_timer(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status)
{
    (void)device;
    synchronize(stream, status);
    timer->stop_ns = now_ns();
}

static uint64_t timer_nanoseconds(SP_Timer timer)
{
    return timer->stop_ns - timer->start_ns;
}

/* ---- copies: the runtime's transfers are complete on return ---- */

static void memcpy_dtoh(const SP_Device* device, SP_Stream stream, void* host_dst,
    const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status)
{
    dmltf_copy_to_host(device_of(device), stream->queue, host_dst, device_src->opaque, size, status);
}

static void memcpy_htod(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
    const void* host_src, uint64_t size, TF_Status* status)
{
    dmltf_copy_to_device(device_of(device), stream->queue, device_dst->opaque, host_src, size, status);
}

static void memcpy_dtod(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
    const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status)
{
    dmltf_copy_on_device(device_of(device), stream->queue, device_dst->opaque, device_src->opaque, size, status);
}

static void synchronize_all_activity(const SP_Device* device, TF_Status* status)
{
    dmltf_device* d = device_of(device);
    set_ok(status);
    pthread_mutex_lock(&d->lock);
    DML_RESULT r = DML_S_OK;
    for (SP_Stream s = d->streams; s && DML_SUCCEEDED(r); s = s->next)
        r = dmlCommandQueueSynchronize(s->queue);
    if (DML_SUCCEEDED(r))
        r = dmlCommandQueueSynchronize(d->copy_queue);
    pthread_mutex_unlock(&d->lock);
    set_sync_status(r, status);
}

/* The synchronous copies have no stream: they use the device's copy queue,
 * after every stream's earlier work (TensorFlow's contract for them). */

static void sync_memcpy_dtoh(const SP_Device* device, void* host_dst, const SP_DeviceMemoryBase* device_src,
    uint64_t size, TF_Status* status)
{
    synchronize_all_activity(device, status);
    if (TF_GetCode(status) == TF_OK)
        dmltf_copy_to_host(device_of(device), device_of(device)->copy_queue, host_dst, device_src->opaque, size,
            status);
}

static void sync_memcpy_htod(const SP_Device* device, SP_DeviceMemoryBase* device_dst, const void* host_src,
    uint64_t size, TF_Status* status)
{
    synchronize_all_activity(device, status);
    if (TF_GetCode(status) == TF_OK)
        dmltf_copy_to_device(device_of(device), device_of(device)->copy_queue, device_dst->opaque, host_src, size,
            status);
}

static void sync_memcpy_dtod(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
    const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status)
{
    dmltf_device* d = device_of(device);
    synchronize_all_activity(device, status);
    if (TF_GetCode(status) == TF_OK)
        dmltf_copy_on_device(d, d->copy_queue, device_dst->opaque, device_src->opaque, size, status);
    if (TF_GetCode(status) == TF_OK)
        synchronize_all_activity(device, status);
}

static void block_host_until_done(const SP_Device* device, SP_Stream stream, TF_Status* status)
{
    (void)device;
    synchronize(stream, status);
}

static void mem_zero(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint64_t size,
    TF_Status* status)
{
    const uint8_t zero = 0;
    dmltf_fill_pattern(device_of(device), stream->queue, location->opaque, &zero, 1, size, status);
}

static void memset8(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint8_t pattern,
    uint64_t size, TF_Status* status)
{
    dmltf_fill_pattern(device_of(device), stream->queue, location->opaque, &pattern, 1, size, status);
}

static void memset32(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint32_t pattern,
    uint64_t size, TF_Status* status)
{
    dmltf_fill_pattern(device_of(device), stream->queue, location->opaque, &pattern, sizeof pattern, size, status);
}

/* Runs the callback once the stream's earlier work is done: here, after
 * synchronising it, on the calling thread. */
static TF_Bool host_callback(const SP_Device* device, SP_Stream stream, SE_StatusCallbackFn callback_fn,
    void* callback_arg)
{
    (void)device;
    TF_Status* status = TF_NewStatus();
    synchronize(stream, status);
    callback_fn(callback_arg, status);
    TF_DeleteStatus(status);
    return 1;
}

void dmltf_fill_stream_executor(SP_StreamExecutor* se)
{
    se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
    se->allocate = allocate;
    se->deallocate = deallocate;
    se->host_memory_allocate = host_memory_allocate;
    se->host_memory_deallocate = host_memory_deallocate;
    se->get_allocator_stats = get_allocator_stats;
    se->device_memory_usage = device_memory_usage;
    se->create_stream = create_stream;
    se->destroy_stream = destroy_stream;
    se->create_stream_dependency = create_stream_dependency;
    se->get_stream_status = get_stream_status;
    se->create_event = create_event;
    se->destroy_event = destroy_event;
    se->get_event_status = get_event_status;
    se->record_event = record_event;
    se->wait_for_event = wait_for_event;
    se->create_timer = create_timer;
    se->destroy_timer = destroy_timer;
    se->start_timer = start_timer;
    se->stop_timer = stop_timer;
    se->memcpy_dtoh = memcpy_dtoh;
    se->memcpy_htod = memcpy_htod;
    se->memcpy_dtod = memcpy_dtod;
    se->sync_memcpy_dtoh = sync_memcpy_dtoh;
    se->sync_memcpy_htod = sync_memcpy_htod;
    se->sync_memcpy_dtod = sync_memcpy_dtod;
    se->block_host_for_event = block_host_for_event;
    se->block_host_until_done = block_host_until_done;
    se->synchronize_all_activity = synchronize_all_activity;
    se->mem_zero = mem_zero;
    se->memset = memset8;
    se->memset32 = memset32;
    se->host_callback = host_callback;
}

void dmltf_fill_timer_fns(SP_TimerFns* fns)
{
    fns->struct_size = SP_TIMER_FNS_STRUCT_SIZE;
    fns->nanoseconds = timer_nanoseconds;
}
