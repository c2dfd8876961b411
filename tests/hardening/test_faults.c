/*
 * test_faults.c — failures injected into a test-only build of the CPU plugin
 * (plugin/cpu/cpu_backend.c compiled with DML_FAULT_INJECTION, loaded from
 * DML_FAULT_PLUGIN_DIR ahead of the real one):
 *   - a failed allocation gives DML_E_OUTOFMEMORY from dmlDeviceCreateBuffer,
 *     leaves the out-parameter alone, leaks nothing, and the device works on;
 *   - a failed execution gives DML_E_DEVICE_REMOVED from RecordDispatch; from
 *     then on every call on that device and its objects returns it,
 *     dmlDeviceGetDeviceRemovedReason reports it with the backend's message,
 *     other devices are unaffected, and everything still releases cleanly
 *     (ASan and valgrind runs check for leaks).
 */
#include <check.h>
#include <dlfcn.h>
#include <dml/dml_plugin.h>
#include <stdlib.h>
#include <string.h>

typedef void (*inject_fn)(int alloc_countdown, int execute_countdown);
static inject_fn inject;

static DMLDevice new_device(void)
{
    DML_DEVICE_DESC desc = { sizeof(DML_DEVICE_DESC), "cpu", 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    ck_assert_int_eq(dmlCreateDevice(&desc, &device), DML_S_OK);
    if (!inject) {
        void* handle = dlopen(DML_FAULT_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
        ck_assert_msg(handle != NULL, "the fault-injecting plugin was not the one loaded");
        inject = (inject_fn)(uintptr_t)dlsym(handle, "dml_cpu_fault_inject");
        ck_assert_ptr_nonnull(inject);
        dlclose(handle);
    }
    inject(0, 0);
    return device;
}

START_TEST(allocation_failure_is_out_of_memory)
{
    DMLDevice device = new_device();
    DMLBuffer a = NULL, b = (DMLBuffer)(uintptr_t)0x1234;
    ck_assert_int_eq(dmlDeviceCreateBuffer(device, 4096, &a), DML_S_OK);
    inject(1, 0);
    ck_assert_int_eq(dmlDeviceCreateBuffer(device, 4096, &b), DML_E_OUTOFMEMORY);
    ck_assert_ptr_eq(b, (DMLBuffer)(uintptr_t)0x1234);
    ck_assert_ptr_nonnull(strstr(dmlGetLastErrorMessage(), "injected allocation failure"));
    ck_assert_int_eq(dmlDeviceGetDeviceRemovedReason(device), DML_S_OK);
    /* The third allocation from now fails; the two before it work. */
    DMLBuffer c[3] = { NULL, NULL, NULL };
    inject(3, 0);
    ck_assert_int_eq(dmlDeviceCreateBuffer(device, 1 << 21, &c[0]), DML_S_OK); /* mmap path */
    ck_assert_int_eq(dmlDeviceCreateBuffer(device, 16, &c[1]), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCreateBuffer(device, 1 << 21, &c[2]), DML_E_OUTOFMEMORY);
    ck_assert_ptr_null(c[2]);
    for (int i = 0; i < 3; i++)
        dmlRelease(c[i]);
    dmlRelease(a);
    dmlRelease(device);
}
END_TEST

typedef struct rig {
    DMLDevice device;
    DMLOperator op;
    DMLCompiledOperator compiled;
    DMLBindingTable table;
    DMLBuffer buffer;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
} rig;

static const UINT g_sizes[1] = { 16 }, g_offsets[1] = { 0 }, g_window[1] = { 16 };
static const INT g_strides[1] = { -1 };
static DML_BUFFER_TENSOR_DESC g_tensor = { DML_TENSOR_DATA_TYPE_FLOAT32, 0, 1, g_sizes, NULL, 64, 0 };
static DML_TENSOR_DESC g_td = { DML_TENSOR_TYPE_BUFFER, &g_tensor };
static DML_SLICE1_OPERATOR_DESC g_slice = { &g_td, &g_td, 1, g_offsets, g_window, g_strides };
static DML_OPERATOR_DESC g_desc = { DML_OPERATOR_SLICE1, &g_slice };

static void rig_init(rig* r)
{
    memset(r, 0, sizeof *r);
    r->device = new_device();
    ck_assert_int_eq(dmlDeviceCreateOperator(r->device, &g_desc, &r->op), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCompileOperator(r->device, r->op, 0, &r->compiled), DML_S_OK);
    DML_BINDING_TABLE_DESC td = { r->compiled };
    ck_assert_int_eq(dmlDeviceCreateBindingTable(r->device, &td, &r->table), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCreateBuffer(r->device, 256, &r->buffer), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCreateCommandQueue(r->device, NULL, &r->queue), DML_S_OK);
    ck_assert_int_eq(dmlDeviceCreateCommandRecorder(r->device, &r->recorder), DML_S_OK);
    DML_BUFFER_BINDING in = { r->buffer, 0, 64 }, out = { r->buffer, 128, 64 };
    DML_BINDING_DESC bi = { DML_BINDING_TYPE_BUFFER, &in }, bo = { DML_BINDING_TYPE_BUFFER, &out };
    ck_assert_int_eq(dmlBindingTableBindInputs(r->table, 1, &bi), DML_S_OK);
    ck_assert_int_eq(dmlBindingTableBindOutputs(r->table, 1, &bo), DML_S_OK);
    float x[16];
    for (int i = 0; i < 16; i++)
        x[i] = (float)i;
    ck_assert_int_eq(dmlCommandQueueWriteBuffer(r->queue, r->buffer, 0, x, sizeof x), DML_S_OK);
}

static void rig_fini(rig* r)
{
    dmlRelease(r->recorder);
    dmlRelease(r->queue);
    dmlRelease(r->table);
    dmlRelease(r->buffer);
    dmlRelease(r->compiled);
    dmlRelease(r->op);
    dmlRelease(r->device);
}

#define expect_removed(call)                                                                              \
    do {                                                                                                  \
        DML_RESULT r_ = (call);                                                                           \
        ck_assert_msg(r_ == DML_E_DEVICE_REMOVED, "%s returned 0x%08x, not DML_E_DEVICE_REMOVED (%s)", #call, \
            (unsigned)r_, dmlGetLastErrorMessage());                                                      \
        ck_assert_msg(strstr(dmlGetLastErrorMessage(), "injected execution failure") != NULL,            \
            "%s: message '%s' lacks the reason", #call, dmlGetLastErrorMessage());                       \
    } while (0)

START_TEST(execution_failure_removes_the_device)
{
    rig r, other;
    rig_init(&r);
    rig_init(&other);
    /* Works once, then the next execution fails. */
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(r.recorder, r.queue, r.compiled, r.table), DML_S_OK);
    float y[16];
    ck_assert_int_eq(dmlCommandQueueReadBuffer(r.queue, r.buffer, 128, y, sizeof y), DML_S_OK);
    ck_assert(y[0] == 15.0f && y[15] == 0.0f);
    inject(0, 1);
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(r.recorder, r.queue, r.compiled, r.table),
        DML_E_DEVICE_REMOVED);
    expect_removed(dmlDeviceGetDeviceRemovedReason(r.device));

    /* Every later call on the device or its objects. */
    DMLOperator op = NULL;
    DMLCompiledOperator co = NULL;
    DMLOperatorInitializer init = NULL;
    DMLBindingTable table = NULL;
    DMLBuffer buffer = NULL;
    DMLCommandQueue queue = NULL;
    DMLCommandRecorder recorder = NULL;
    expect_removed(dmlDeviceCreateOperator(r.device, &g_desc, &op));
    expect_removed(dmlDeviceCompileOperator(r.device, r.op, 0, &co));
    expect_removed(dmlDeviceCreateOperatorInitializer(r.device, 1, &r.compiled, &init));
    DML_BINDING_TABLE_DESC td = { r.compiled };
    expect_removed(dmlDeviceCreateBindingTable(r.device, &td, &table));
    expect_removed(dmlDeviceCreateBuffer(r.device, 256, &buffer));
    float x[4] = { 0 };
    expect_removed(dmlDeviceWrapBuffer(r.device, x, sizeof x, &buffer));
    expect_removed(dmlDeviceCreateCommandQueue(r.device, NULL, &queue));
    expect_removed(dmlDeviceCreateCommandRecorder(r.device, &recorder));
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT q = { DML_TENSOR_DATA_TYPE_FLOAT32 };
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT s;
    expect_removed(dmlDeviceCheckFeatureSupport(r.device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof q, &q,
        sizeof s, &s));
    expect_removed(dmlCommandRecorderRecordDispatch(r.recorder, r.queue, r.compiled, r.table));
    expect_removed(dmlCommandQueueSynchronize(r.queue));
    expect_removed(dmlCommandQueueWriteBuffer(r.queue, r.buffer, 0, x, sizeof x));
    expect_removed(dmlCommandQueueReadBuffer(r.queue, r.buffer, 0, x, sizeof x));
    DML_BUFFER_BINDING in = { r.buffer, 0, 64 };
    DML_BINDING_DESC bi = { DML_BINDING_TYPE_BUFFER, &in };
    expect_removed(dmlBindingTableBindInputs(r.table, 1, &bi));
    expect_removed(dmlBindingTableBindOutputs(r.table, 1, &bi));
    expect_removed(dmlBindingTableReset(r.table, NULL));
    ck_assert_ptr_null(op);
    ck_assert_ptr_null(co);
    ck_assert_ptr_null(init);
    ck_assert_ptr_null(table);
    ck_assert_ptr_null(buffer);
    ck_assert_ptr_null(queue);
    ck_assert_ptr_null(recorder);
    /* Still removed after more calls; the reason does not change. */
    expect_removed(dmlDeviceGetDeviceRemovedReason(r.device));

    /* Another device of the same plugin is unaffected. */
    ck_assert_int_eq(dmlDeviceGetDeviceRemovedReason(other.device), DML_S_OK);
    ck_assert_int_eq(dmlCommandRecorderRecordDispatch(other.recorder, other.queue, other.compiled, other.table),
        DML_S_OK);
    ck_assert_int_eq(dmlCommandQueueReadBuffer(other.queue, other.buffer, 128, y, sizeof y), DML_S_OK);
    ck_assert(y[0] == 15.0f && y[15] == 0.0f);

    /* Release in an awkward order: the device first. */
    dmlRelease(r.device);
    r.device = NULL;
    rig_fini(&r);
    rig_fini(&other);
}
END_TEST

int main(void)
{
    /* Before the first dml call: discovery runs once per process. */
    setenv("DML_PLUGIN_PATH", DML_FAULT_PLUGIN_DIR, 1);
    unsetenv("DML_BACKEND");
    Suite* s = suite_create("faults");
    TCase* tc = tcase_create("faults");
    tcase_add_test(tc, allocation_failure_is_out_of_memory);
    tcase_add_test(tc, execution_failure_removes_the_device);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
