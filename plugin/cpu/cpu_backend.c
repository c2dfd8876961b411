/*
 * cpu_backend.c — the CPU backend: host memory, synchronous in-order queues
 * and the plan executor, with one thread pool per device.
 */
#include "cpu_backend.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/data_type.h"
#include "core/error.h"
#include "cpu_cast.h"
#include "cpu_execute.h"
#include "cpu_pad.h"
#include "cpu_fill.h"
#include "cpu_indexed.h"
#include "cpu_scatter_onto.h"
#include "cpu_select.h"
#include "cpu_scale_bias.h"
#include "cpu_pool.h"

/* ---- test-only fault injection -------------------------------------------- */

/* Compiled in only when DML_FAULT_INJECTION is defined, which only the
 * test-only copy of this plugin built by tests/hardening is (the shipped
 * libdml_cpu.so has no hook, no extra symbol and reads no environment). The
 * test reaches the switch with dlsym: dml_cpu_fault_inject(a, e) makes the
 * a-th next buffer allocation fail with DML_E_OUTOFMEMORY and the e-th next
 * plan execution fail with DML_E_DEVICE_REMOVED (0: never). */
#ifdef DML_FAULT_INJECTION
static atomic_int g_fault_alloc, g_fault_execute;

__attribute__((visibility("default"))) void dml_cpu_fault_inject(int alloc_countdown, int execute_countdown);
__attribute__((visibility("default"))) void dml_cpu_fault_inject(int alloc_countdown, int execute_countdown)
{
    atomic_store(&g_fault_alloc, alloc_countdown);
    atomic_store(&g_fault_execute, execute_countdown);
}

static int fault_hit(atomic_int* countdown)
{
    int v = atomic_load(countdown);
    while (v > 0 && !atomic_compare_exchange_weak(countdown, &v, v - 1)) {
    }
    return v == 1;
}
#define DML_FAULT(which) fault_hit(&g_fault_##which)
#else
#define DML_FAULT(which) 0
#endif

/* ---- threads ------------------------------------------------------------ */

#define CPU_THREADS_ENV "DML_CPU_THREADS"
#define CPU_THREADS_MAX 16u

/* Threads a new device starts with: DML_CPU_THREADS when set (for tools:
 * benchmarks over thread counts, a host that pins its own threads), else
 * min(usable CPUs, 16). A value that is not a count from 1 to 16 fails device
 * creation, saying why, rather than silently running on some other count. */
static DML_RESULT cpu_thread_count(unsigned* threads)
{
    const char* text = secure_getenv(CPU_THREADS_ENV);
    if (!text || !text[0]) {
        *threads = cpu_pool_default_threads();
        return DML_S_OK;
    }
    char* end = NULL;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno || *end || text[0] < '0' || text[0] > '9' || value < 1 || value > CPU_THREADS_MAX)
        return dml_set_error(DML_E_INVALIDARG,
            "dmlCreateDevice: environment variable %s='%.32s' is not a thread count from 1 to %u", CPU_THREADS_ENV,
            text, CPU_THREADS_MAX);
    *threads = (unsigned)value;
    return DML_S_OK;
}

/* ---- adapter ------------------------------------------------------------ */

static DML_RESULT cpu_probe(DML_PLUGIN_PROBE* probe)
{
    memset(probe, 0, sizeof(*probe));
    probe->Available = 1;
    probe->AdapterCount = 1;
    probe->Score = 100;
    return DML_S_OK;
}

/* "model name" from /proc/cpuinfo (x86; absent on most ARM kernels). */
static void cpu_model_name(char* name, size_t size)
{
    snprintf(name, size, "CPU");
    FILE* file = fopen("/proc/cpuinfo", "r");
    if (!file)
        return;
    char line[512];
    while (fgets(line, sizeof(line), file)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char* value = strchr(line, ':');
        if (!value)
            continue;
        value++;
        while (*value == ' ' || *value == '\t')
            value++;
        size_t length = strcspn(value, "\n");
        if (length > 0)
            snprintf(name, size, "%.*s", (int)length, value);
        break;
    }
    fclose(file);
}

static DML_RESULT cpu_get_adapter_info(uint32_t adapter_index, DML_ADAPTER_INFO* info)
{
    if (adapter_index != 0)
        return dml_set_error(DML_E_INVALIDARG, "cpu: AdapterIndex %u is out of range (the CPU backend has 1 adapter)",
            adapter_index);
    char model[192];
    cpu_model_name(model, sizeof(model));
    memset(info, 0, sizeof(*info));
    snprintf(info->Backend, sizeof(info->Backend), "cpu");
    info->AdapterIndex = 0;
    unsigned threads;
    if (cpu_thread_count(&threads) < 0)
        threads = cpu_pool_default_threads(); /* device creation will say why */
    snprintf(info->Description, sizeof(info->Description), "%s (%u thread%s)", model, threads,
        threads == 1 ? "" : "s");
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    info->MemorySizeInBytes = pages > 0 && page_size > 0 ? (UINT64)pages * (UINT64)page_size : 0;
    info->IsSoftware = 1;
    info->MaxFeatureLevel = DML_FEATURE_LEVEL_5_0;
    return DML_S_OK;
}

/* ---- device ------------------------------------------------------------- */

typedef struct cpu_device {
    cpu_pool* pool; /* NULL on a one-core machine or when threads could not start: run on the caller */
    dml_cpu_cost_model cost; /* measured at creation: when splitting pays */
    atomic_uint thread_limit; /* the host's cap (dmlDeviceSetThreadLimit); at least 1 */
} cpu_device;

static DML_RESULT cpu_device_create(uint32_t adapter_index, void** device_state)
{
    if (adapter_index != 0)
        return dml_set_error(DML_E_INVALIDARG, "cpu: AdapterIndex %u is out of range (the CPU backend has 1 adapter)",
            adapter_index);
    unsigned threads;
    DML_RESULT r = cpu_thread_count(&threads);
    if (r < 0)
        return r;
    cpu_device* device = calloc(1, sizeof(*device));
    if (!device)
        return dml_set_error(DML_E_OUTOFMEMORY, "cpu: out of memory creating a device");
    /* Started here, not on the first large dispatch: RecordDispatch neither
     * allocates nor starts threads. The workers sleep on a condition
     * variable until there is work. */
    device->pool = threads >= 2 ? cpu_pool_create(threads) : NULL;
    device->cost = dml_cpu_cost_measure(device->pool);
    atomic_init(&device->thread_limit, threads);
    *device_state = device;
    return DML_S_OK;
}

static unsigned device_threads(const cpu_device* device)
{
    const unsigned pool = cpu_pool_threads(device->pool), limit = atomic_load(&device->thread_limit);
    return limit < pool ? limit : pool;
}

static DML_RESULT cpu_set_thread_limit(void* device_state, uint32_t max_threads, uint32_t* threads_in_use)
{
    cpu_device* device = device_state;
    if (max_threads != 0)
        atomic_store(&device->thread_limit, max_threads);
    if (threads_in_use)
        *threads_in_use = device_threads(device);
    return DML_S_OK;
}

static void cpu_device_destroy(void* device_state)
{
    cpu_device* device = device_state;
    if (!device)
        return;
    cpu_pool_destroy(device->pool);
    free(device);
}

/* ---- memory ------------------------------------------------------------- */

/* Buffers start zeroed, as D3D12 committed resources do. Large ones are
 * mmap'd (zero pages for free, returned to the OS on free); small ones come
 * from malloc. A 256-byte header before the returned memory keeps what free
 * needs and keeps the memory 256-byte aligned. */
#define CPU_BUFFER_HEADER 256u
#define CPU_BUFFER_MMAP_MIN ((uint64_t)1 << 20)

typedef struct cpu_buffer_header {
    uint64_t mapped_size; /* 0: malloc'd */
} cpu_buffer_header;

static DML_RESULT cpu_buffer_alloc(void* device_state, uint64_t size, void** memory)
{
    (void)device_state;
    if (DML_FAULT(alloc))
        return dml_set_error(DML_E_OUTOFMEMORY, "cpu: injected allocation failure (%llu bytes)",
            (unsigned long long)size);
    if (size > (uint64_t)SIZE_MAX - 2 * CPU_BUFFER_HEADER - 4096)
        return dml_set_error(DML_E_OUTOFMEMORY, "cpu: cannot allocate a buffer of %llu bytes",
            (unsigned long long)size);
    const size_t total = (size_t)(size ? size : 1) + CPU_BUFFER_HEADER; /* size 0: still a unique pointer */
    unsigned char* block;
    uint64_t mapped = 0;
    if (size >= CPU_BUFFER_MMAP_MIN) {
        void* map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        block = map == MAP_FAILED ? NULL : map;
#ifdef MADV_HUGEPAGE
        /* Huge pages where the kernel gives them (a hint, as numpy's arrays
         * ask): a data-dependent gather or scatter touching rows all over a
         * large buffer otherwise misses the TLB on nearly every row. */
        if (block)
            madvise(block, total, MADV_HUGEPAGE);
#endif
        mapped = total;
    } else {
        void* p = NULL;
        block = posix_memalign(&p, CPU_BUFFER_HEADER, total) == 0 ? p : NULL;
        if (block)
            memset(block, 0, total);
    }
    if (!block)
        return dml_set_error(DML_E_OUTOFMEMORY, "cpu: out of host memory allocating a buffer of %llu bytes",
            (unsigned long long)size);
    cpu_buffer_header header = { mapped };
    memcpy(block, &header, sizeof(header));
    *memory = block + CPU_BUFFER_HEADER;
    return DML_S_OK;
}

static void cpu_buffer_free(void* device_state, void* memory)
{
    (void)device_state;
    if (!memory)
        return;
    unsigned char* block = (unsigned char*)memory - CPU_BUFFER_HEADER;
    cpu_buffer_header header;
    memcpy(&header, block, sizeof(header));
    if (header.mapped_size)
        munmap(block, header.mapped_size);
    else
        free(block);
}

/* ---- queues ------------------------------------------------------------- */

/* Work runs to completion on the recording thread, so a queue is in order
 * by construction and needs no state beyond its device. */
typedef struct cpu_queue {
    cpu_device* device;
} cpu_queue;

static DML_RESULT cpu_queue_create(void* device_state, void* native, void** queue_state)
{
    if (native)
        return dml_set_error(DML_E_INVALIDARG,
            "cpu: nativeQueue must be NULL (the CPU backend has no native queues)");
    cpu_queue* queue = calloc(1, sizeof(*queue));
    if (!queue)
        return dml_set_error(DML_E_OUTOFMEMORY, "cpu: out of memory creating a queue");
    queue->device = device_state;
    *queue_state = queue;
    return DML_S_OK;
}

static void cpu_queue_destroy(void* queue_state)
{
    free(queue_state);
}

static DML_RESULT cpu_queue_copy(void* queue_state, void* destination, const void* source, uint64_t size,
    dml_copy_kind kind)
{
    (void)queue_state;
    (void)kind; /* host and device memory are the same here */
    if (size)
        memmove(destination, source, (size_t)size);
    return DML_S_OK;
}

static DML_RESULT cpu_queue_synchronize(void* queue_state)
{
    (void)queue_state;
    return DML_S_OK;
}

/* The core builds valid plans of the kinds declared below; this only keeps
 * a bad one from running wild. */
static int malformed(const dml_plan* plan)
{
    const uint32_t e = plan->element_size;
    return plan->rank < 1 || plan->rank > DML_PLAN_MAX_RANK || (e != 1 && e != 2 && e != 4 && e != 8)
        || (plan->kind == DML_PLAN_SCALE_BIAS && plan->data_type != DML_TENSOR_DATA_TYPE_FLOAT32
            && plan->data_type != DML_TENSOR_DATA_TYPE_FLOAT16 && plan->data_type != DML_TENSOR_DATA_TYPE_FLOAT64)
        || (plan->kind == DML_PLAN_PAD && plan->pad_mode > 3)
        || (plan->kind == DML_PLAN_CAST && (!dml_cpu_cast_supports(plan) || plan->in_element_size
            != dml_data_type_size((DML_TENSOR_DATA_TYPE)plan->in_data_type)
            || plan->element_size != dml_data_type_size((DML_TENSOR_DATA_TYPE)plan->data_type)))
        || (plan->kind == DML_PLAN_REVERSE_SUBSEQUENCES
            && (plan->axis < 0 || (uint32_t)plan->axis >= plan->rank
                || (plan->lengths_element_size != 4 && plan->lengths_element_size != 8)))
        || ((plan->kind == DML_PLAN_INDEXED || plan->kind == DML_PLAN_SCATTER) && !dml_cpu_indexed_supports(plan))
        || (plan->kind == DML_PLAN_ONE_HOT && !dml_cpu_one_hot_supports(plan))
        || (plan->kind == DML_PLAN_SELECT && plan->lengths_element_size != 1);
}

static DML_RESULT cpu_queue_execute(void* queue_state, const dml_plan* plan, const void* compiled_state,
    const dml_plan_args* args)
{
    (void)compiled_state; /* the CPU executor needs nothing beyond the plan */
    cpu_queue* queue = queue_state;
    const uint32_t e = plan->element_size;
    if (malformed(plan))
        return dml_set_error(DML_E_INVALIDARG, "cpu: malformed execution plan (kind %u, rank %u, element size %u)",
            plan->kind, plan->rank, e);
    if (DML_FAULT(execute))
        return dml_set_error(DML_E_DEVICE_REMOVED, "cpu: injected execution failure");
    cpu_device* device = queue->device;
    const unsigned limit = atomic_load(&device->thread_limit);
    /* Small plans run inline on the caller (the cost model's choice). */
    if (plan->kind == DML_PLAN_SCALE_BIAS)
        dml_cpu_scale_bias(device->pool, &device->cost, limit, plan, args);
    else if (plan->kind == DML_PLAN_PAD)
        dml_cpu_pad(device->pool, &device->cost, limit, plan, args);
    else if (plan->kind == DML_PLAN_CAST)
        dml_cpu_cast(device->pool, &device->cost, limit, plan, args);
    else if (plan->kind == DML_PLAN_FILL)
        dml_cpu_fill(device->pool, &device->cost, limit, plan, args);
    else if (plan->kind == DML_PLAN_INDEXED)
        dml_cpu_indexed(device->pool, &device->cost, limit, plan, args);
    else if (plan->kind == DML_PLAN_SCATTER)
        dml_cpu_scatter(device->pool, &device->cost, limit, plan, args);
    else if (plan->kind == DML_PLAN_SELECT || plan->kind == DML_PLAN_ONE_HOT)
        dml_cpu_select(device->pool, &device->cost, limit, plan, args);
    else
        dml_cpu_execute(device->pool, &device->cost, limit, plan, args);
    return DML_S_OK;
}

/* GATHER groups (JOIN's and SPLIT's parts) run as one parallel region;
 * anything else plan by plan. */
static DML_RESULT cpu_queue_execute_group(void* queue_state, const dml_plan* const* plans,
    const void* const* compiled_states, const dml_plan_args* args, uint32_t count)
{
    int gathers = 1;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t e = plans[i]->element_size;
        gathers = gathers && plans[i]->kind == DML_PLAN_GATHER && plans[i]->rank >= 1 &&
            plans[i]->rank <= DML_PLAN_MAX_RANK && (e == 1 || e == 2 || e == 4 || e == 8);
    }
#ifdef DML_FAULT_INJECTION
    gathers = 0; /* every plan stays one injection point */
#endif
    if (!gathers) {
        for (uint32_t i = 0; i < count; ++i) {
            DML_RESULT r = cpu_queue_execute(queue_state, plans[i], compiled_states[i], &args[i]);
            if (r < 0)
                return r;
        }
        return DML_S_OK;
    }
    cpu_device* device = ((cpu_queue*)queue_state)->device;
    dml_cpu_execute_group(device->pool, &device->cost, atomic_load(&device->thread_limit), plans, args, count);
    return DML_S_OK;
}

/* A scatter's copy and updates in one pass over the output where
 * cpu_scatter_onto.h applies; else one after the other. */
static DML_RESULT cpu_queue_execute_ordered_pair(void* queue_state, const dml_plan* const* plans,
    const void* const* compiled_states, const dml_plan_args* args)
{
    int onto = !malformed(plans[0]) && !malformed(plans[1]) &&
        dml_cpu_scatter_onto_applies(plans[0], &args[0], plans[1], &args[1]);
#ifdef DML_FAULT_INJECTION
    onto = 0; /* every plan stays one injection point */
#endif
    if (!onto) {
        DML_RESULT r = cpu_queue_execute(queue_state, plans[0], compiled_states[0], &args[0]);
        return r < 0 ? r : cpu_queue_execute(queue_state, plans[1], compiled_states[1], &args[1]);
    }
    cpu_device* device = ((cpu_queue*)queue_state)->device;
    dml_cpu_scatter_onto(device->pool, &device->cost, atomic_load(&device->thread_limit), plans[0], &args[0],
        plans[1], &args[1]);
    return DML_S_OK;
}

const dml_backend dml_cpu_backend = {
    .name = "cpu",
    .plan_kinds = DML_PLAN_KIND_BIT(DML_PLAN_GATHER) | DML_PLAN_KIND_BIT(DML_PLAN_REVERSE_SUBSEQUENCES) |
        DML_PLAN_KIND_BIT(DML_PLAN_SCALE_BIAS) | DML_PLAN_KIND_BIT(DML_PLAN_PAD) |
        DML_PLAN_KIND_BIT(DML_PLAN_CAST) |
        DML_PLAN_KIND_BIT(DML_PLAN_FILL) | DML_PLAN_KIND_BIT(DML_PLAN_INDEXED) | DML_PLAN_KIND_BIT(DML_PLAN_SCATTER) |
        DML_PLAN_KIND_BIT(DML_PLAN_SELECT) | DML_PLAN_KIND_BIT(DML_PLAN_ONE_HOT),
    .probe = cpu_probe,
    .get_adapter_info = cpu_get_adapter_info,
    .device_create = cpu_device_create,
    .device_destroy = cpu_device_destroy,
    .buffer_alloc = cpu_buffer_alloc,
    .buffer_free = cpu_buffer_free,
    .queue_create = cpu_queue_create,
    .queue_destroy = cpu_queue_destroy,
    .queue_copy = cpu_queue_copy,
    .queue_synchronize = cpu_queue_synchronize,
    .queue_execute = cpu_queue_execute,
    .queue_execute_group = cpu_queue_execute_group,
    .queue_execute_ordered_pair = cpu_queue_execute_ordered_pair,
    .set_thread_limit = cpu_set_thread_limit,
};
