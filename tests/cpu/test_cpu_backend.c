/*
 * test_cpu_backend.c — the dml_backend functions of the CPU plugin, called
 * the way the core calls them: adapter, device, memory, queues, execution
 * (small plans inline, large ones on the lazily started pool, concurrently).
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu_backend.h"
#include "cpu_execute.h"
#include "cpu_test_util.h"

static const dml_backend* B = &dml_cpu_backend;

START_TEST(test_probe_and_adapter)
{
    ck_assert_str_eq(B->name, "cpu");
    DML_PLUGIN_PROBE probe;
    memset(&probe, 0x5A, sizeof(probe));
    ck_assert_int_eq(B->probe(&probe), DML_S_OK);
    ck_assert_int_eq(probe.Available, 1);
    ck_assert_uint_eq(probe.AdapterCount, 1);
    ck_assert_int_eq(probe.Score, 100);
    ck_assert_str_eq(probe.Reason, "");

    DML_ADAPTER_INFO info;
    ck_assert_int_eq(B->get_adapter_info(0, &info), DML_S_OK);
    ck_assert_str_eq(info.Backend, "cpu");
    ck_assert_uint_eq(info.AdapterIndex, 0);
    ck_assert(strlen(info.Description) > 0 && strstr(info.Description, "thread"));
    ck_assert(info.MemorySizeInBytes > ((UINT64)64 << 20));
    ck_assert_int_eq(info.IsSoftware, 1);
    ck_assert_int_eq(info.MaxFeatureLevel, DML_FEATURE_LEVEL_5_0);

    DML_ADAPTER_INFO untouched;
    memset(&untouched, 0x33, sizeof(untouched));
    DML_ADAPTER_INFO copy = untouched;
    ck_assert_int_eq(B->get_adapter_info(1, &copy), DML_E_INVALIDARG);
    ck_assert_mem_eq(&copy, &untouched, sizeof(copy));
    ck_assert(strstr(dml_error_last(), "AdapterIndex") != NULL);

    void* device = (void*)&copy;
    ck_assert_int_eq(B->device_create(1, &device), DML_E_INVALIDARG);
    ck_assert_ptr_eq(device, (void*)&copy);
}
END_TEST

START_TEST(test_buffers)
{
    void* device = NULL;
    ck_assert_int_eq(B->device_create(0, &device), DML_S_OK);
    const uint64_t sizes[] = { 0, 1, 255, 256, 4096, 100000, (uint64_t)1 << 20, ((uint64_t)3 << 20) + 5 };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        void* memory = NULL;
        ck_assert_int_eq(B->buffer_alloc(device, sizes[i], &memory), DML_S_OK);
        ck_assert_ptr_nonnull(memory);
        ck_assert_uint_eq((uintptr_t)memory % 256, 0);
        const unsigned char* bytes = memory;
        uint64_t nonzero = 0; /* zeroed, as D3D12 resources are (no ck_assert per byte: each one is a write) */
        for (uint64_t k = 0; k < sizes[i]; k++)
            nonzero += bytes[k] != 0;
        ck_assert_uint_eq(nonzero, 0);
        memset(memory, 0x7F, (size_t)sizes[i]);
        B->buffer_free(device, memory);
    }
    B->buffer_free(device, NULL);
    void* memory = (void*)&device;
    ck_assert_int_eq(B->buffer_alloc(device, UINT64_MAX - 8, &memory), DML_E_OUTOFMEMORY);
    ck_assert_ptr_eq(memory, (void*)&device);
    B->device_destroy(device);
}
END_TEST

START_TEST(test_queues)
{
    void* device = NULL;
    ck_assert_int_eq(B->device_create(0, &device), DML_S_OK);
    void* queue = NULL;
    int native = 0;
    ck_assert_int_eq(B->queue_create(device, &native, &queue), DML_E_INVALIDARG);
    ck_assert_ptr_null(queue);
    ck_assert_int_eq(B->queue_create(device, NULL, &queue), DML_S_OK);

    char a[64], b[64];
    for (int i = 0; i < 64; i++)
        a[i] = (char)i;
    memset(b, 0, sizeof(b));
    ck_assert_int_eq(B->queue_copy(queue, b, a, 64, DML_COPY_HOST_TO_DEVICE), DML_S_OK);
    ck_assert_mem_eq(a, b, 64);
    ck_assert_int_eq(B->queue_copy(queue, b, a + 8, 8, DML_COPY_DEVICE_TO_HOST), DML_S_OK);
    ck_assert_int_eq(b[0], 8);
    ck_assert_int_eq(B->queue_copy(queue, a + 1, a, 16, DML_COPY_DEVICE_TO_DEVICE), DML_S_OK); /* overlapping */
    ck_assert_int_eq(a[1], 0);
    ck_assert_int_eq(a[16], 15);
    ck_assert_int_eq(B->queue_copy(queue, b, a, 0, DML_COPY_DEVICE_TO_DEVICE), DML_S_OK);
    ck_assert_int_eq(B->queue_synchronize(queue), DML_S_OK);
    B->queue_destroy(queue);
    B->device_destroy(device);
}
END_TEST

static int execute_case(void* queue, test_case* t)
{
    case_reset_output(t);
    dml_plan_args args = case_args(t);
    if (B->queue_execute(queue, &t->plan, NULL, &args) != DML_S_OK)
        return 0;
    B->queue_synchronize(queue);
    return case_compare(t)[0] == 0;
}

START_TEST(test_execute_small_and_large)
{
    void *device = NULL, *queue = NULL;
    ck_assert_int_eq(B->device_create(0, &device), DML_S_OK);
    ck_assert_int_eq(B->queue_create(device, NULL, &queue), DML_S_OK);
    rng r = { 9000 };
    static const uint64_t small[2] = { 5, 7 }, large[2] = { 512, 1024 };
    for (int k = 0; k < 2; k++) {
        case_spec spec = { .kind = DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 2, .element_size = 4,
            .sizes = k ? large : small, .in_layout = LAYOUT_PADDED, .out_layout = LAYOUT_PADDED, .axis = 1,
            .lengths_element_size = 4 };
        test_case t;
        case_make(&t, &r, &spec);
        ck_assert(execute_case(queue, &t));
        ck_assert(execute_case(queue, &t)); /* the pool again, now warm */

        /* A malformed plan is refused and writes nothing. */
        case_reset_output(&t);
        dml_plan bad = t.plan;
        bad.axis = 2;
        dml_plan_args args = case_args(&t);
        ck_assert_int_eq(B->queue_execute(queue, &bad, NULL, &args), DML_E_INVALIDARG);
        bad = t.plan;
        bad.element_size = 16;
        ck_assert_int_eq(B->queue_execute(queue, &bad, NULL, &args), DML_E_INVALIDARG);
        bad = t.plan;
        bad.lengths_element_size = 2;
        ck_assert_int_eq(B->queue_execute(queue, &bad, NULL, &args), DML_E_INVALIDARG);
        ck_assert_mem_eq(t.output, t.sentinel, t.output_bytes);
        case_free(&t);
    }
    B->queue_destroy(queue);
    B->device_destroy(device);
}
END_TEST

/* The data-dependent kinds are declared, run through queue_execute, and
 * refused with fields the executors do not handle. */
START_TEST(test_data_dependent_kinds)
{
    const uint32_t kinds[] = { DML_PLAN_INDEXED, DML_PLAN_SCATTER, DML_PLAN_SELECT, DML_PLAN_ONE_HOT };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        ck_assert(B->plan_kinds & DML_PLAN_KIND_BIT(kinds[k]));
    void* device = NULL;
    void* queue = NULL;
    ck_assert_int_eq(B->device_create(0, &device), DML_S_OK);
    ck_assert_int_eq(B->queue_create(device, NULL, &queue), DML_S_OK);
    /* out[j] = table[clamp(idx[j])] over 4 elements of a 3-element table. */
    const uint32_t table[3] = { 10, 20, 30 };
    const int32_t idx[4] = { 2, -1, 7, -9 };
    const uint8_t cond[4] = { 1, 0, 0, 255 };
    uint32_t out[4] = { 0 };
    dml_plan p;
    memset(&p, 0, sizeof p);
    p.kind = DML_PLAN_INDEXED;
    p.rank = 1;
    p.element_size = 4;
    p.axis = -1;
    p.element_count = p.sizes[0] = 4;
    p.out_strides[0] = p.len_strides[0] = 1;
    p.lengths_element_size = 4;
    p.index_signed = 1;
    p.index_count = 1;
    p.index_sizes[0] = 3;
    p.index_strides[0] = 1;
    dml_plan_args args = { table, idx, out, sizeof table, sizeof idx, sizeof out, NULL, 0 };
    ck_assert_int_eq(B->queue_execute(queue, &p, NULL, &args), DML_S_OK);
    ck_assert(out[0] == 30 && out[1] == 30 && out[2] == 30 && out[3] == 10);
    dml_plan bad = p;
    bad.lengths_element_size = 2;
    ck_assert_int_eq(B->queue_execute(queue, &bad, NULL, &args), DML_E_INVALIDARG);
    bad = p;
    bad.index_sizes[0] = 0;
    ck_assert_int_eq(B->queue_execute(queue, &bad, NULL, &args), DML_E_INVALIDARG);
    bad = p;
    bad.index_count = DML_PLAN_MAX_RANK + 1;
    ck_assert_int_eq(B->queue_execute(queue, &bad, NULL, &args), DML_E_INVALIDARG);
    bad = p;
    bad.kind = DML_PLAN_ONE_HOT;
    bad.axis = 1; /* past the rank */
    ck_assert_int_eq(B->queue_execute(queue, &bad, NULL, &args), DML_E_INVALIDARG);
    bad = p;
    bad.kind = DML_PLAN_SELECT; /* its condition is bytes */
    ck_assert_int_eq(B->queue_execute(queue, &bad, NULL, &args), DML_E_INVALIDARG);
    /* SELECT: out = cond ? table : table2. */
    const uint32_t table2[4] = { 1, 2, 3, 4 };
    dml_plan select = p;
    select.kind = DML_PLAN_SELECT;
    select.lengths_element_size = 1;
    select.index_count = 0;
    select.in_strides[0] = 0;
    select.in2_strides[0] = 1;
    dml_plan_args select_args = { table, cond, out, sizeof table, sizeof cond, sizeof out, table2, sizeof table2 };
    ck_assert_int_eq(B->queue_execute(queue, &select, NULL, &select_args), DML_S_OK);
    ck_assert(out[0] == 10 && out[1] == 2 && out[2] == 3 && out[3] == 10);
    B->queue_destroy(queue);
    B->device_destroy(device);
}
END_TEST

typedef struct worker {
    void* device;
    int seed;
    int ok;
} worker;

static void* worker_main(void* arg)
{
    worker* w = arg;
    void* queue = NULL;
    if (B->queue_create(w->device, NULL, &queue) != DML_S_OK)
        return NULL;
    rng r = { 9100u + (uint64_t)w->seed };
    static const uint64_t sizes[3] = { 16, 64, 512 };
    case_spec spec = { .kind = w->seed & 1 ? DML_PLAN_GATHER : DML_PLAN_REVERSE_SUBSEQUENCES, .rank = 3,
        .element_size = 8, .sizes = sizes, .in_layout = LAYOUT_NEGATIVE, .out_layout = LAYOUT_PACKED,
        .axis = 0, .lengths_element_size = 8, .len_inner = 1 };
    test_case t;
    case_make(&t, &r, &spec);
    w->ok = 1;
    for (int i = 0; i < 3; i++)
        w->ok &= execute_case(queue, &t);
    case_free(&t);
    B->queue_destroy(queue);
    return NULL;
}

/* Queues of one device used from several threads at once: the pool is
 * created once (raced for) and shared; busy dispatches run inline. */
START_TEST(test_concurrent_queues)
{
    void* device = NULL;
    ck_assert_int_eq(B->device_create(0, &device), DML_S_OK);
    pthread_t threads[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){ device, i, 0 };
        ck_assert_int_eq(pthread_create(&threads[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_int_eq(w[i].ok, 1);
    }
    B->device_destroy(device);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cpu_backend");
    TCase* tc = tcase_create("backend");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_probe_and_adapter);
    tcase_add_test(tc, test_buffers);
    tcase_add_test(tc, test_queues);
    tcase_add_test(tc, test_execute_small_and_large);
    tcase_add_test(tc, test_concurrent_queues);
    tcase_add_test(tc, test_data_dependent_kinds);
    suite_add_tcase(s, tc);
    SRunner* runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
