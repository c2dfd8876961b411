/*
 * op_cache.c — compiled operators per device, keyed by what the kernel
 * depends on (its key struct: kernel, types, shapes, attributes), and the
 * dispatch that binds TensorFlow's pointers and records on a stream.
 *
 * Bounded (CACHE_CAPACITY entries, least recently used evicted): a model
 * with many shapes keeps compiling but never grows without bound.
 */
#include <stdlib.h>
#include <string.h>

#include "dml_tf.h"

#define CACHE_CAPACITY 256

typedef struct cache_entry {
    void* key;
    size_t key_size;
    uint64_t hash; /* of key: a lookup compares keys only where hashes agree */
    uint64_t last_use;
    DMLCompiledOperator compiled;
    DMLBindingTable table;
    DMLBuffer temporary;
    uint64_t temporary_size;
} cache_entry;

struct dmltf_cache {
    cache_entry entries[CACHE_CAPACITY];
    size_t count;
    uint64_t clock;
};

dmltf_cache* dmltf_cache_create(void)
{
    return calloc(1, sizeof(dmltf_cache));
}

static void release_entry(cache_entry* e)
{
    dmlRelease(e->table);
    dmlRelease(e->temporary);
    dmlRelease(e->compiled);
    free(e->key);
    memset(e, 0, sizeof *e);
}

void dmltf_cache_destroy(dmltf_cache* cache)
{
    if (!cache)
        return;
    for (size_t i = 0; i < cache->count; i++)
        release_entry(&cache->entries[i]);
    free(cache);
}

/* FNV-1a: keys are a few hundred bytes; a full cache has 256 of them. */
static uint64_t key_hash(const void* key, size_t key_size)
{
    const unsigned char* p = key;
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < key_size; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

static cache_entry* lookup(dmltf_cache* cache, const void* key, size_t key_size, uint64_t hash)
{
    for (size_t i = 0; i < cache->count; i++) {
        cache_entry* e = &cache->entries[i];
        if (e->hash == hash && e->key_size == key_size && memcmp(e->key, key, key_size) == 0)
            return e;
    }
    return NULL;
}

/* A free slot: a new one, or the least recently used entry released. */
static cache_entry* free_slot(dmltf_cache* cache)
{
    if (cache->count < CACHE_CAPACITY)
        return &cache->entries[cache->count++];
    cache_entry* oldest = &cache->entries[0];
    for (size_t i = 1; i < CACHE_CAPACITY; i++)
        if (cache->entries[i].last_use < oldest->last_use)
            oldest = &cache->entries[i];
    release_entry(oldest);
    return oldest;
}

/* Compiles key's operator into e (all or nothing); a failure sets status. */
static DML_RESULT compile_entry(dmltf_device* d, cache_entry* e, const void* key, size_t key_size, uint64_t hash,
    dmltf_create_op_fn create, TF_Status* status)
{
    DMLOperator op = NULL;
    DML_RESULT r = create(d->device, key, &op);
    if (DML_SUCCEEDED(r))
        r = dmlDeviceCompileOperator(d->device, op, DML_EXECUTION_FLAG_NONE, &e->compiled);
    dmlRelease(op);
    if (DML_FAILED(r)) {
        dmltf_status_from_result(status, r, "DML plugin: creating the operator");
        return r;
    }
    DML_BINDING_PROPERTIES properties = dmlDispatchableGetBindingProperties(e->compiled);
    if (properties.PersistentResourceSize) {
        /* No kernel here uses operators with owned state (no initializer). */
        dmlRelease(e->compiled);
        e->compiled = NULL;
        TF_SetStatus(status, TF_INTERNAL, "DML plugin: the operator needs a persistent resource");
        return DML_E_NOTIMPL;
    }
    e->temporary_size = properties.TemporaryResourceSize;
    if (e->temporary_size)
        r = dmlDeviceCreateBuffer(d->device, e->temporary_size, &e->temporary);
    DML_BINDING_TABLE_DESC table_desc = { e->compiled };
    if (DML_SUCCEEDED(r))
        r = dmlDeviceCreateBindingTable(d->device, &table_desc, &e->table);
    e->key = malloc(key_size);
    if (DML_SUCCEEDED(r) && !e->key)
        r = DML_E_OUTOFMEMORY;
    if (DML_FAILED(r)) {
        release_entry(e);
        dmltf_status_from_result(status, r, "DML plugin: preparing the operator");
        return r;
    }
    memcpy(e->key, key, key_size);
    e->key_size = key_size;
    e->hash = hash;
    return DML_S_OK;
}

/* The runtime binding of one TensorFlow range: its allocation and offset. */
static bool to_binding(dmltf_device* d, const dmltf_binding* b, DML_BUFFER_BINDING* buffer, DML_BINDING_DESC* desc)
{
    if (!b->data) {
        desc->Type = DML_BINDING_TYPE_NONE;
        desc->Desc = NULL;
        return true;
    }
    /* The runtime's tensor sizes are rounded up to 4 bytes (DirectML's
     * rule); TensorFlow's allocations are 256-byte chunks, so the rounded
     * range stays inside the allocation unless the tensor ends it. */
    uint64_t rounded = (b->size + 3) & ~(uint64_t)3;
    if (!dmltf_memory_find(d, b->data, rounded, &buffer->Buffer, &buffer->Offset)) {
        rounded = b->size;
        if (!dmltf_memory_find(d, b->data, rounded, &buffer->Buffer, &buffer->Offset))
            return false;
    }
    buffer->SizeInBytes = rounded;
    desc->Type = DML_BINDING_TYPE_BUFFER;
    desc->Desc = buffer;
    return true;
}

#define MAX_BINDINGS 80

static DML_RESULT bind_and_record(dmltf_device* d, DMLCommandQueue queue, cache_entry* e,
    const dmltf_binding* inputs, uint32_t input_count, const dmltf_binding* outputs, uint32_t output_count,
    TF_Status* status)
{
    DML_BUFFER_BINDING buffers[MAX_BINDINGS];
    DML_BINDING_DESC descs[MAX_BINDINGS];
    if (input_count + output_count > MAX_BINDINGS) {
        TF_SetStatus(status, TF_UNIMPLEMENTED, "DML plugin: more than 80 tensors in one operator");
        return DML_E_INVALIDARG;
    }
    for (uint32_t i = 0; i < input_count + output_count; i++) {
        const dmltf_binding* b = i < input_count ? &inputs[i] : &outputs[i - input_count];
        if (!to_binding(d, b, &buffers[i], &descs[i])) {
            TF_SetStatus(status, TF_INTERNAL, "DML plugin: a tensor outside every allocation of its device");
            return DML_E_INVALIDARG;
        }
        /* TensorFlow's allocations are 256-byte aligned; a view into one
         * (a slice TensorFlow made without copying) may not be. */
        if (descs[i].Type == DML_BINDING_TYPE_BUFFER && buffers[i].Offset % DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) {
            TF_SetStatus(status, TF_UNIMPLEMENTED,
                "DML plugin: a tensor that does not start on a 16-byte boundary (a view into another "
                "tensor); the runtime binds 16-byte aligned ranges only");
            return DML_E_INVALIDARG;
        }
    }
    DML_RESULT r = dmlBindingTableReset(e->table, NULL);
    if (DML_SUCCEEDED(r))
        r = dmlBindingTableBindInputs(e->table, input_count, descs);
    if (DML_SUCCEEDED(r))
        r = dmlBindingTableBindOutputs(e->table, output_count, descs + input_count);
    if (DML_SUCCEEDED(r) && e->temporary) {
        DML_BUFFER_BINDING temporary = { e->temporary, 0, e->temporary_size };
        DML_BINDING_DESC desc = { DML_BINDING_TYPE_BUFFER, &temporary };
        r = dmlBindingTableBindTemporaryResource(e->table, &desc);
    }
    if (DML_SUCCEEDED(r))
        r = dmlCommandRecorderRecordDispatch(d->recorder, queue, e->compiled, e->table);
    if (DML_FAILED(r))
        dmltf_status_from_result(status, r, "DML plugin: dispatching the operator");
    return r;
}

void dmltf_dispatch(dmltf_device* d, DMLCommandQueue queue, const void* key, size_t key_size,
    dmltf_create_op_fn create, const dmltf_binding* inputs, uint32_t input_count, const dmltf_binding* outputs,
    uint32_t output_count, TF_Status* status)
{
    TF_SetStatus(status, TF_OK, "");
    uint64_t hash = key_hash(key, key_size);
    pthread_mutex_lock(&d->lock);
    cache_entry* e = lookup(d->cache, key, key_size, hash);
    if (!e) {
        e = free_slot(d->cache);
        if (DML_FAILED(compile_entry(d, e, key, key_size, hash, create, status))) {
            d->cache->count--; /* the slot is the last one, or an evicted one now empty */
            if (e != &d->cache->entries[d->cache->count])
                *e = d->cache->entries[d->cache->count];
            memset(&d->cache->entries[d->cache->count], 0, sizeof *e);
            pthread_mutex_unlock(&d->lock);
            return;
        }
    }
    e->last_use = ++d->cache->clock;
    bind_and_record(d, queue, e, inputs, input_count, outputs, output_count, status);
    pthread_mutex_unlock(&d->lock);
}
