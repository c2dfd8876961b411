/*
 * test_cpu_threads_api.c — the CPU backend's thread control through the
 * public API (libdml.so): dmlDeviceSetThreadLimit and the DML_CPU_THREADS
 * environment variable, with their errors; dispatches stay correct under
 * every cap. Each case runs in its own process (Check forks), so setenv
 * affects that case only.
 */
#include <check.h>
#include <dml/dml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static DMLDevice create(const char* backend, DML_RESULT* result)
{
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    *result = dmlCreateDevice(&desc, &device);
    return device;
}

/* SLICE1 reversing the rows of a [rows, 1024] uint8 tensor through the API,
 * checked element by element against the definition. */
static void check_dispatch(DMLDevice device, UINT rows)
{
    UINT sizes[2] = { rows, 1024 }, offsets[2] = { 0, 0 };
    INT strides[2] = { 1, -1 };
    const uint64_t bytes = (uint64_t)rows * 1024;
    DML_BUFFER_TENSOR_DESC b = { DML_TENSOR_DATA_TYPE_UINT8, 0, 2, sizes, NULL, bytes, 0 };
    DML_TENSOR_DESC t = { DML_TENSOR_TYPE_BUFFER, &b };
    DML_SLICE1_OPERATOR_DESC slice = { &t, &t, 2, offsets, sizes, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    DMLOperator op;
    DMLCompiledOperator compiled;
    DMLBindingTable table;
    DMLBuffer buffer;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    ck_assert_int_eq(dmlDeviceCreateOperator(device, &desc, &op), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &compiled), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCreateBuffer(device, 2 * bytes, &buffer), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCreateCommandQueue(device, NULL, &queue), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCreateCommandRecorder(device, &recorder), DML_S_OK);
    unsigned char* host = malloc(bytes);
    unsigned char* result = malloc(bytes);
    ck_assert(host && result);
    for (uint64_t i = 0; i < bytes; i++)
        host[i] = (unsigned char)(i * 31 + i / 1024);
    ck_assert_int_eq(dmlCommandQueueWriteBuffer(queue, buffer, 0, host, bytes), DML_S_OK);
    DML_BINDING_TABLE_DESC td = { compiled };
    ck_assert_int_eq(dmlDeviceCreateBindingTable(device, &td, &table), DML_S_OK);
    DML_BUFFER_BINDING bi = { buffer, 0, bytes }, bo = { buffer, bytes, bytes };
    DML_BINDING_DESC i = { DML_BINDING_TYPE_BUFFER, &bi }, o = { DML_BINDING_TYPE_BUFFER, &bo };
    ck_assert_int_eq(dmlBindingTableBindInputs(table, 1, &i), DML_S_OK);
    ck_assert_int_eq(dmlBindingTableBindOutputs(table, 1, &o), DML_S_OK);
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(recorder, queue, compiled, table), DML_S_OK);
    ck_assert_int_eq(dmlCommandQueueReadBuffer(queue, buffer, bytes, result, bytes), DML_S_OK);
    uint64_t wrong = 0;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < 1024; c++)
            wrong += result[r * 1024 + c] != host[r * 1024 + 1023 - c];
    ck_assert_uint_eq(wrong, 0);
    free(host);
    free(result);
    dmlRelease(table);
    dmlRelease(recorder);
    dmlRelease(queue);
    dmlRelease(buffer);
    dmlRelease(compiled);
    dmlRelease(op);
}

START_TEST(test_limit_and_query)
{
    setenv("DML_CPU_THREADS", "3", 1);
    DML_RESULT r;
    DMLDevice device = create("cpu", &r);
    ck_assert_int_eq(r, DML_S_OK);
    uint32_t in_use = 0;
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 0, &in_use), DML_S_OK); /* asks only */
    ck_assert_uint_eq(in_use, 3);
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 1, &in_use), DML_S_OK);
    ck_assert_uint_eq(in_use, 1);
    check_dispatch(device, 2048); /* 2 MiB: split when allowed, inline now */
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 0, &in_use), DML_S_OK);
    ck_assert_uint_eq(in_use, 1);
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 2, NULL), DML_S_OK);
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 0, &in_use), DML_S_OK);
    ck_assert_uint_eq(in_use, 2);
    check_dispatch(device, 2048);
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 1000, &in_use), DML_S_OK); /* above: the device's own count */
    ck_assert_uint_eq(in_use, 3);
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, UINT32_MAX, &in_use), DML_S_OK);
    ck_assert_uint_eq(in_use, 3);
    check_dispatch(device, 4096);
    check_dispatch(device, 3);
    dmlRelease(device);
}
END_TEST

START_TEST(test_default_count)
{
    unsetenv("DML_CPU_THREADS");
    DML_RESULT r;
    DMLDevice device = create("cpu", &r);
    ck_assert_int_eq(r, DML_S_OK);
    uint32_t in_use = 0;
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 0, &in_use), DML_S_OK);
    ck_assert(in_use >= 1 && in_use <= 16);
    /* The adapter's description names the same count. */
    DML_ADAPTER_INFO info = { .Size = sizeof info };
    ck_assert_int_eq(dmlDeviceGetAdapterInfo(device, &info), DML_S_OK);
    char want[32];
    snprintf(want, sizeof want, "(%u thread", in_use);
    ck_assert_msg(strstr(info.Description, want) != NULL, "%s lacks %s", info.Description, want);
    dmlRelease(device);
}
END_TEST

START_TEST(test_bad_environment)
{
    static const char* const bad[] = { "0", "17", "abc", "2x", "-1", " 2", "99999999999999999999", "+3" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("DML_CPU_THREADS", bad[i], 1);
        DML_RESULT r;
        DMLDevice device = create("cpu", &r);
        ck_assert_msg(r == DML_E_INVALIDARG, "DML_CPU_THREADS='%s' gave %d", bad[i], (int)r);
        ck_assert_ptr_null(device);
        ck_assert_msg(strstr(dmlGetLastErrorMessage(), "DML_CPU_THREADS") != NULL, "%s", dmlGetLastErrorMessage());
        ck_assert_msg(strstr(dmlGetLastErrorMessage(), "from 1 to 16") != NULL, "%s", dmlGetLastErrorMessage());
    }
    setenv("DML_CPU_THREADS", "", 1); /* empty: the default */
    DML_RESULT r;
    DMLDevice device = create("cpu", &r);
    ck_assert_int_eq(r, DML_S_OK);
    dmlRelease(device);
    setenv("DML_CPU_THREADS", "16", 1); /* more threads than CPUs: allowed, for tools */
    device = create("cpu", &r);
    ck_assert_int_eq(r, DML_S_OK);
    uint32_t in_use = 0;
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 0, &in_use), DML_S_OK);
    ck_assert_uint_eq(in_use, 16);
    check_dispatch(device, 1024);
    dmlRelease(device);
}
END_TEST

START_TEST(test_bad_handles)
{
    uint32_t in_use = 77;
    ck_assert_int_eq(dmlDeviceSetThreadLimit(NULL, 1, &in_use), DML_E_INVALIDARG);
    ck_assert_msg(strstr(dmlGetLastErrorMessage(), "dmlDeviceSetThreadLimit") != NULL, "%s", dmlGetLastErrorMessage());
    ck_assert_uint_eq(in_use, 77);
    DML_RESULT r;
    DMLDevice device = create("cpu", &r);
    ck_assert_int_eq(r, DML_S_OK);
    DMLBuffer buffer;
    ck_assert_int_eq(dmlDeviceCreateBuffer(device, 16, &buffer), DML_S_OK);
    ck_assert_int_eq(dmlDeviceSetThreadLimit((DMLDevice)(void*)buffer, 1, &in_use), DML_E_INVALIDARG);
    ck_assert_uint_eq(in_use, 77);
    dmlRelease(buffer);
    dmlRelease(device);
}
END_TEST

/* Backends without host threads for dispatches say so. */
START_TEST(test_backend_without_threads)
{
    DML_RESULT r;
    DMLDevice device = create("cudaemu", &r);
    if (r < 0)
        return; /* no emulated CUDA plugin in this build */
    uint32_t in_use = 77;
    ck_assert_int_eq(dmlDeviceSetThreadLimit(device, 1, &in_use), DML_E_NOTIMPL);
    ck_assert_uint_eq(in_use, 77);
    ck_assert_msg(strstr(dmlGetLastErrorMessage(), "no host threads") != NULL, "%s", dmlGetLastErrorMessage());
    dmlRelease(device);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("cpu_threads_api");
    TCase* tc = tcase_create("threads");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_limit_and_query);
    tcase_add_test(tc, test_default_count);
    tcase_add_test(tc, test_bad_environment);
    tcase_add_test(tc, test_bad_handles);
    tcase_add_test(tc, test_backend_without_threads);
    suite_add_tcase(s, tc);
    SRunner* runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
