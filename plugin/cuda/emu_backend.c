/*
 * emu_backend.c — the emulated CUDA backend ("cudaemu"): the CUDA plugin's
 * launch path with the GPU replaced by the host emulator. Plans go through
 * the same dml_cuda_prepare (cuda/launch.c) and the same per-thread code
 * (cuda/gather_thread.h), run by cuda/emulator.c over the exact grid and
 * block, so CI exercises the kernels' logic without a GPU.
 *
 * Memory is host memory (256-byte aligned, zeroed, like cudaMalloc'd buffers
 * here), queues are synchronous and copies are memcpy. The emulated GPU is
 * an H100 SXM (dml_cuda_h100_limits: 228 KiB of shared memory per SM, 48 KiB
 * per block without opting in, 227 KiB with, 1 KiB reserved per block),
 * with as many virtual SMs, which size the grid, as DML_CUDAEMU_SMS says
 * (default 132, the H100 SXM's); DML_CUDAEMU_SMS=1 gives the smallest grid,
 * so every thread walks the grid-stride loop many times.
 *
 * Always available, with a score of 10: chosen only when forced
 * (Backend "cudaemu" or DML_BACKEND=cudaemu).
 */
#include "cuda_backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "emulator.h"
#include "group.h"
#include "launch.h"

#define EMU_DEFAULT_SMS 132u
#define EMU_MAX_SMS 65536u
#define EMU_ALIGNMENT 256u

/* DML_CUDAEMU_SMS when it is a number from 1 to EMU_MAX_SMS, else the default. */
static uint32_t emu_sm_count(void)
{
    const char* value = secure_getenv("DML_CUDAEMU_SMS");
    if (!value || !*value)
        return EMU_DEFAULT_SMS;
    char* end = NULL;
    errno = 0;
    unsigned long sms = strtoul(value, &end, 10);
    if (errno || *end || value[0] == '-' || sms < 1 || sms > EMU_MAX_SMS)
        return EMU_DEFAULT_SMS;
    return (uint32_t)sms;
}

static DML_RESULT emu_probe(DML_PLUGIN_PROBE* probe)
{
    memset(probe, 0, sizeof(*probe));
    probe->Available = 1;
    probe->AdapterCount = 1;
    probe->Score = 10; /* below the CPU's 100: never chosen unless forced */
    return DML_S_OK;
}

/* The emulated GPU's memory is the host's: a buffer larger than it fails as
 * cudaMalloc would, before any allocator is asked. */
static uint64_t emu_memory_size(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
}

static DML_RESULT emu_get_adapter_info(uint32_t adapter_index, DML_ADAPTER_INFO* info)
{
    if (adapter_index != 0)
        return dml_set_error(DML_E_INVALIDARG,
            "cudaemu: AdapterIndex %u is out of range (the emulated CUDA backend has 1 adapter)", adapter_index);
    memset(info, 0, sizeof(*info));
    snprintf(info->Backend, sizeof(info->Backend), "cudaemu");
    info->AdapterIndex = 0;
    snprintf(info->Description, sizeof(info->Description), "CUDA emulator on the host (%u virtual SMs)",
        emu_sm_count());
    info->MemorySizeInBytes = emu_memory_size();
    info->IsSoftware = 1;
    info->MaxFeatureLevel = DML_FEATURE_LEVEL_5_0;
    return DML_S_OK;
}

typedef struct emu_device {
    dml_cuda_limits limits; /* the SM count read once, when the device is created */
} emu_device;

static DML_RESULT emu_device_create(uint32_t adapter_index, void** device_state)
{
    if (adapter_index != 0)
        return dml_set_error(DML_E_INVALIDARG,
            "cudaemu: AdapterIndex %u is out of range (the emulated CUDA backend has 1 adapter)", adapter_index);
    emu_device* device = calloc(1, sizeof(*device));
    if (!device)
        return dml_set_error(DML_E_OUTOFMEMORY, "cudaemu: out of memory creating a device");
    device->limits = dml_cuda_h100_limits(emu_sm_count());
    *device_state = device;
    return DML_S_OK;
}

static void emu_device_destroy(void* device_state)
{
    free(device_state);
}

static DML_RESULT emu_buffer_alloc(void* device_state, uint64_t size, void** memory)
{
    (void)device_state;
    if (size > (uint64_t)SIZE_MAX - EMU_ALIGNMENT || size > emu_memory_size())
        return dml_set_error(DML_E_OUTOFMEMORY,
            "cudaemu: cannot allocate a buffer of %llu bytes (the emulated device has the host's %llu bytes)",
            (unsigned long long)size, (unsigned long long)emu_memory_size());
    size_t rounded = ((size_t)size + EMU_ALIGNMENT - 1) / EMU_ALIGNMENT * EMU_ALIGNMENT;
    void* pointer = aligned_alloc(EMU_ALIGNMENT, rounded ? rounded : EMU_ALIGNMENT);
    if (!pointer)
        return dml_set_error(DML_E_OUTOFMEMORY, "cudaemu: out of host memory allocating a buffer of %llu bytes",
            (unsigned long long)size);
    memset(pointer, 0, rounded ? rounded : EMU_ALIGNMENT);
    *memory = pointer;
    return DML_S_OK;
}

static void emu_buffer_free(void* device_state, void* memory)
{
    (void)device_state;
    free(memory);
}

/* Work runs to completion on the recording thread: queues are in order by
 * construction. */
typedef struct emu_queue {
    emu_device* device;
} emu_queue;

static DML_RESULT emu_queue_create(void* device_state, void* native, void** queue_state)
{
    if (native)
        return dml_set_error(DML_E_INVALIDARG,
            "cudaemu: nativeQueue must be NULL (the emulated CUDA backend has no native queues)");
    emu_queue* queue = calloc(1, sizeof(*queue));
    if (!queue)
        return dml_set_error(DML_E_OUTOFMEMORY, "cudaemu: out of memory creating a queue");
    queue->device = device_state;
    *queue_state = queue;
    return DML_S_OK;
}

static void emu_queue_destroy(void* queue_state)
{
    free(queue_state);
}

static DML_RESULT emu_queue_copy(void* queue_state, void* destination, const void* source, uint64_t size,
    dml_copy_kind kind)
{
    (void)queue_state;
    (void)kind; /* host and "device" memory are the same here */
    if (size)
        memcpy(destination, source, (size_t)size);
    return DML_S_OK;
}

static DML_RESULT emu_queue_synchronize(void* queue_state)
{
    (void)queue_state;
    return DML_S_OK;
}

/* What the CUDA plugin does, with the emulator in place of the GPU. */
static DML_RESULT emu_compile(void* device_state, const dml_plan* plan, void** compiled_state)
{
    const emu_device* device = device_state;
    dml_cuda_launch* launch = malloc(sizeof *launch);
    if (!launch)
        return dml_set_error(DML_E_OUTOFMEMORY, "cudaemu: out of host memory compiling an operator");
    dml_cuda_plan_launch_on(plan, &device->limits, launch);
    *compiled_state = launch;
    return DML_S_OK;
}

/* What an emulation returned, as the dispatch's result. */
static DML_RESULT emulated_result(int emulated)
{
    if (emulated == DML_EMULATE_OUT_OF_MEMORY)
        return dml_set_error(DML_E_OUTOFMEMORY, "cudaemu: out of host memory executing an operator");
    if (emulated == DML_EMULATE_VIOLATION) {
        /* A kernel touched memory outside its bound ranges: a bug in the
         * kernels or the launcher, never the host's. Stop here, so that the
         * test or fuzz run that got here fails, and say where. */
        fprintf(stderr, "cudaemu: %s\n", dml_cuda_emulator_violation());
        abort();
    }
    return DML_S_OK;
}

static DML_RESULT emu_queue_execute(void* queue_state, const dml_plan* plan, const void* compiled_state,
    const dml_plan_args* args)
{
    (void)queue_state;
    (void)plan;
    dml_cuda_launch launch = *(const dml_cuda_launch*)compiled_state;
    dml_cuda_bind_launch(&launch, args);
    return emulated_result(dml_cuda_emulate(&launch, NULL));
}

/* A dispatch group, as the CUDA plugin launches it (dml_cuda_run_group). */
typedef struct emu_group_run {
    const dml_plan* const* plans;
    const void* const* compiled_states;
    const dml_plan_args* args;
    DML_RESULT result;
} emu_group_run;

static int emu_run_single(void* context, uint32_t index)
{
    emu_group_run* run = context;
    run->result = emu_queue_execute(NULL, run->plans[index], run->compiled_states[index], &run->args[index]);
    return run->result < 0;
}

static int emu_run_grouped(void* context, const dml_cuda_group_launch* group)
{
    emu_group_run* run = context;
    run->result = emulated_result(dml_cuda_emulate_group(group, NULL));
    return run->result < 0;
}

static DML_RESULT emu_queue_execute_group(void* queue_state, const dml_plan* const* plans,
    const void* const* compiled_states, const dml_plan_args* args, uint32_t count)
{
    const emu_queue* queue = queue_state;
    dml_cuda_group_launch* group = malloc(sizeof *group); /* the emulator allocates anyway */
    if (!group)
        return dml_set_error(DML_E_OUTOFMEMORY, "cudaemu: out of host memory executing an operator");
    emu_group_run run = { plans, compiled_states, args, DML_S_OK };
    dml_cuda_run_group(plans, (const dml_cuda_launch* const*)compiled_states, args, count, &queue->device->limits,
        group, emu_run_single, emu_run_grouped, &run);
    free(group);
    return run.result;
}

const dml_backend dml_cudaemu_backend = {
    .name = "cudaemu",
    .plan_kinds = DML_CUDA_PLAN_KINDS,
    .probe = emu_probe,
    .get_adapter_info = emu_get_adapter_info,
    .device_create = emu_device_create,
    .device_destroy = emu_device_destroy,
    .buffer_alloc = emu_buffer_alloc,
    .buffer_free = emu_buffer_free,
    .queue_create = emu_queue_create,
    .queue_destroy = emu_queue_destroy,
    .queue_copy = emu_queue_copy,
    .queue_synchronize = emu_queue_synchronize,
    .compile = emu_compile,
    .compiled_destroy = free,
    .queue_execute = emu_queue_execute,
    .queue_execute_group = emu_queue_execute_group,
};
