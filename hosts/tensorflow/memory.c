/*
 * memory.c — device memory: runtime buffers found again from TensorFlow's
 * pointers, and the copies and fills between them and the host.
 *
 * TensorFlow's BFC allocator carves tensors out of the few large regions it
 * asks us for, and hands kernels and copies raw pointers into them. Each
 * region is one DMLBuffer; a sorted map turns a pointer back into (buffer,
 * offset), which is what the runtime binds and copies.
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

/* Index of the last allocation whose base is <= p, or -1. Map lock held. */
static ptrdiff_t find_index(const dmltf_device* d, uintptr_t p)
{
    size_t lo = 0, hi = d->allocation_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->allocations[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (ptrdiff_t)lo - 1;
}

DML_RESULT dmltf_memory_allocate(dmltf_device* d, uint64_t size, void** pointer)
{
    *pointer = NULL;
    DMLBuffer buffer;
    DML_RESULT r = dmlDeviceCreateBuffer(d->device, size, &buffer);
    if (DML_FAILED(r))
        return r;
    dmltf_allocation entry = { (uintptr_t)dmlBufferGetNativePointer(buffer), size, buffer };
    pthread_rwlock_wrlock(&d->map_lock);
    if (d->allocation_count == d->allocation_capacity) {
        size_t capacity = d->allocation_capacity ? d->allocation_capacity * 2 : 16;
        dmltf_allocation* grown = realloc(d->allocations, capacity * sizeof *grown);
        if (!grown) {
            pthread_rwlock_unlock(&d->map_lock);
            dmlRelease(buffer);
            return DML_E_OUTOFMEMORY;
        }
        d->allocations = grown;
        d->allocation_capacity = capacity;
    }
    size_t at = (size_t)(find_index(d, entry.base) + 1);
    memmove(d->allocations + at + 1, d->allocations + at, (d->allocation_count - at) * sizeof entry);
    d->allocations[at] = entry;
    d->allocation_count++;
    d->bytes_in_use += size;
    pthread_rwlock_unlock(&d->map_lock);
    *pointer = (void*)entry.base;
    return DML_S_OK;
}

void dmltf_memory_free(dmltf_device* d, void* pointer)
{
    DMLBuffer buffer = NULL;
    pthread_rwlock_wrlock(&d->map_lock);
    ptrdiff_t i = find_index(d, (uintptr_t)pointer);
    if (i >= 0 && d->allocations[i].base == (uintptr_t)pointer) {
        buffer = d->allocations[i].buffer;
        d->bytes_in_use -= d->allocations[i].size;
        memmove(d->allocations + i, d->allocations + i + 1, (d->allocation_count - (size_t)i - 1) * sizeof *d->allocations);
        d->allocation_count--;
    }
    pthread_rwlock_unlock(&d->map_lock);
    if (!buffer)
        return;
    /* The runtime frees a buffer without waiting for queued work (a CUDA
     * buffer is cudaFreeAsync'd on the device's own stream): finish every
     * queue's work first. TensorFlow frees regions rarely (they grow). */
    pthread_mutex_lock(&d->lock);
    for (SP_Stream s = d->streams; s; s = s->next)
        dmlCommandQueueSynchronize(s->queue);
    dmlCommandQueueSynchronize(d->copy_queue);
    pthread_mutex_unlock(&d->lock);
    dmlRelease(buffer);
}

bool dmltf_memory_find(dmltf_device* d, const void* pointer, uint64_t size, DMLBuffer* buffer, uint64_t* offset)
{
    uintptr_t p = (uintptr_t)pointer;
    bool found = false;
    pthread_rwlock_rdlock(&d->map_lock);
    ptrdiff_t i = find_index(d, p);
    if (i >= 0) {
        const dmltf_allocation* a = &d->allocations[i];
        uint64_t at = p - a->base;
        if (at <= a->size && size <= a->size - at) {
            *buffer = a->buffer;
            *offset = at;
            found = true;
        }
    }
    pthread_rwlock_unlock(&d->map_lock);
    return found;
}

void dmltf_memory_destroy(dmltf_device* d)
{
    for (size_t i = 0; i < d->allocation_count; i++)
        dmlRelease(d->allocations[i].buffer);
    free(d->allocations);
    d->allocations = NULL;
    d->allocation_count = d->allocation_capacity = 0;
}

static bool find_or_fail(dmltf_device* d, const void* pointer, uint64_t size, DMLBuffer* buffer, uint64_t* offset,
    TF_Status* status)
{
    if (dmltf_memory_find(d, pointer, size, buffer, offset))
        return true;
    TF_SetStatus(status, TF_INTERNAL, "DML plugin: a device pointer outside every allocation of this device");
    return false;
}

void dmltf_copy_to_device(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* src, uint64_t size,
    TF_Status* status)
{
    TF_SetStatus(status, TF_OK, "");
    DMLBuffer buffer;
    uint64_t offset;
    if (size == 0 || !find_or_fail(d, dst, size, &buffer, &offset, status))
        return;
    pthread_mutex_lock(&d->lock);
    DML_RESULT r = dmlCommandQueueWriteBuffer(queue, buffer, offset, src, size);
    pthread_mutex_unlock(&d->lock);
    if (DML_FAILED(r))
        dmltf_status_from_result(status, r, "DML plugin: copy to the device");
}

void dmltf_copy_to_host(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* src, uint64_t size,
    TF_Status* status)
{
    TF_SetStatus(status, TF_OK, "");
    DMLBuffer buffer;
    uint64_t offset;
    if (size == 0 || !find_or_fail(d, src, size, &buffer, &offset, status))
        return;
    pthread_mutex_lock(&d->lock);
    DML_RESULT r = dmlCommandQueueReadBuffer(queue, buffer, offset, dst, size);
    pthread_mutex_unlock(&d->lock);
    if (DML_FAILED(r))
        dmltf_status_from_result(status, r, "DML plugin: copy to the host");
}

/* A byte copy as the runtime's identity operator (one contiguous copy on
 * every backend); the key is its length. */
typedef struct copy_key {
    uint32_t bytes;
} copy_key;

static DML_RESULT create_copy(DMLDevice device, const void* key_bytes, DMLOperator* op)
{
    const copy_key* key = key_bytes;
    dmltf_shape shape = { 1, { key->bytes } };
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC tensor;
    dmltf_tensor_desc(&buffer, &tensor, DML_TENSOR_DATA_TYPE_UINT8, &shape, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity = { &tensor, &tensor, NULL };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity };
    return dmlDeviceCreateOperator(device, &desc, op);
}

/* Through the host: for ranges the runtime cannot bind (not 16-byte aligned). */
static void copy_through_host(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* src, uint64_t size,
    TF_Status* status)
{
    const uint64_t chunk = 1u << 20;
    void* bounce = malloc(size < chunk ? size : chunk);
    if (!bounce) {
        TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "DML plugin: out of host memory for a copy");
        return;
    }
    for (uint64_t done = 0; done < size && TF_GetCode(status) == TF_OK; done += chunk) {
        uint64_t n = size - done < chunk ? size - done : chunk;
        dmltf_copy_to_host(d, queue, bounce, (const char*)src + done, n, status);
        if (TF_GetCode(status) == TF_OK)
            dmltf_copy_to_device(d, queue, (char*)dst + done, bounce, n, status);
    }
    free(bounce);
}

void dmltf_copy_on_device(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* src, uint64_t size,
    TF_Status* status)
{
    TF_SetStatus(status, TF_OK, "");
    if (size == 0 || dst == src)
        return;
    if (((uintptr_t)dst | (uintptr_t)src) % DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) {
        copy_through_host(d, queue, dst, src, size, status);
        return;
    }
    const uint64_t chunk = 1u << 30; /* a multiple of 16: every piece stays aligned */
    for (uint64_t done = 0; done < size && TF_GetCode(status) == TF_OK; done += chunk) {
        copy_key key = { (uint32_t)(size - done < chunk ? size - done : chunk) };
        dmltf_binding in = { (const char*)src + done, key.bytes }, out = { (char*)dst + done, key.bytes };
        dmltf_dispatch(d, queue, &key, sizeof key, create_copy, &in, 1, &out, 1, status);
    }
}

void dmltf_fill_pattern(dmltf_device* d, DMLCommandQueue queue, void* dst, const void* pattern, size_t pattern_size,
    uint64_t size, TF_Status* status)
{
    TF_SetStatus(status, TF_OK, "");
    const uint64_t chunk = 1u << 20; /* a multiple of every pattern size */
    uint64_t n = size < chunk ? size : chunk;
    unsigned char* host = malloc(n ? n : 1);
    if (!host) {
        TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "DML plugin: out of host memory for a memset");
        return;
    }
    for (uint64_t i = 0; i < n; i++)
        host[i] = ((const unsigned char*)pattern)[i % pattern_size];
    for (uint64_t done = 0; done < size && TF_GetCode(status) == TF_OK; done += chunk)
        dmltf_copy_to_device(d, queue, (char*)dst + done, host, size - done < chunk ? size - done : chunk, status);
    free(host);
}
