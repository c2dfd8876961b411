/*
 * test_threads.c — threads sharing one device, on "cpu" (whose large plans run
 * on the device's thread pool) and "cudaemu":
 *   - shared_device: THREADS threads create and compile operators on one
 *     device, dispatch them (and one compiled operator shared by all) on their
 *     own queues, recorders, tables and buffers, and check every result;
 *   - release_while_siblings_work: one thread creates, dispatches and releases
 *     operators, compiled operators and tables in a loop while others dispatch
 *     sibling compiled operators of the same device; the creating thread drops
 *     its device reference while all of that runs;
 *   - rename_while_dispatching: dmlSetName on objects other threads dispatch
 *     (their names go into error messages) on a debug device.
 * tests/run-tsan.sh runs this under ThreadSanitizer; valgrind and ASan runs
 * check for leaks. DML_TEST_QUICK=1 (valgrind) runs fewer iterations.
 */
#include <check.h>
#include <dml/dml.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 6

static const char* const g_backends[] = { "cpu", "cudaemu" };

static int iterations(void)
{
    const char* quick = getenv("DML_TEST_QUICK");
    return quick && *quick && *quick != '0' ? 2 : 6;
}

/* Rows x cols UINT32; big enough on cpu that dispatches use the pool (256 KiB). */
static uint32_t g_rows, g_cols;

static void shape_for(const char* backend)
{
    g_rows = strcmp(backend, "cpu") == 0 ? 256 : 16;
    g_cols = strcmp(backend, "cpu") == 0 ? 512 : 64;
}

#define OK(call)                                                                                          \
    do {                                                                                                  \
        DML_RESULT r_ = (call);                                                                           \
        ck_assert_msg(r_ == DML_S_OK, "%s returned 0x%08x: %s", #call, (unsigned)r_, dmlGetLastErrorMessage()); \
    } while (0)

/* SLICE1 reversing the columns (stride -1) or a column window with stride 2. */
typedef struct opdesc {
    UINT sizes[2], out_sizes[2], offsets[2], window[2];
    INT strides[2];
    DML_BUFFER_TENSOR_DESC in_b, out_b;
    DML_TENSOR_DESC in, out;
    DML_SLICE1_OPERATOR_DESC s;
    DML_OPERATOR_DESC d;
} opdesc;

static void opdesc_init(opdesc* o, int variant)
{
    memset(o, 0, sizeof *o);
    o->sizes[0] = g_rows;
    o->sizes[1] = g_cols;
    o->window[0] = g_rows;
    o->window[1] = g_cols;
    o->strides[0] = 1;
    o->strides[1] = variant ? 2 : -1;
    o->out_sizes[0] = g_rows;
    o->out_sizes[1] = variant ? g_cols / 2 : g_cols;
    o->in_b = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_UINT32, 0, 2, o->sizes, NULL,
        (UINT64)g_rows * g_cols * 4, 0 };
    o->out_b = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_UINT32, 0, 2, o->out_sizes, NULL,
        (UINT64)o->out_sizes[0] * o->out_sizes[1] * 4, 0 };
    o->in = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &o->in_b };
    o->out = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &o->out_b };
    o->s = (DML_SLICE1_OPERATOR_DESC){ &o->in, &o->out, 2, o->offsets, o->window, o->strides };
    o->d = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, &o->s };
}

static DMLCompiledOperator make_compiled(DMLDevice device, int variant)
{
    opdesc o;
    opdesc_init(&o, variant);
    DMLOperator op = NULL;
    DMLCompiledOperator co = NULL;
    OK(dmlDeviceCreateOperator(device, &o.d, &op));
    OK(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &co));
    dmlRelease(op); /* the compiled operator keeps it alive */
    return co;
}

/* One thread's own queue, recorder, buffer and input pattern. */
typedef struct worker {
    DMLDevice device; /* a reference of this worker's own */
    DMLCompiledOperator shared;
    int id;
    DMLCommandQueue queue;
    DMLCommandRecorder recorder;
    DMLBuffer buffer;
    uint32_t* input;
    uint32_t* output;
    int failures;
    char why[256];
} worker;

static uint64_t in_bytes(void)
{
    return (uint64_t)g_rows * g_cols * 4;
}

static void worker_init(worker* w, DMLDevice device, int id)
{
    memset(w, 0, sizeof *w);
    w->id = id;
    dmlAddRef(device);
    w->device = device;
    OK(dmlDeviceCreateCommandQueue(device, NULL, &w->queue));
    OK(dmlDeviceCreateCommandRecorder(device, &w->recorder));
    OK(dmlDeviceCreateBuffer(device, 2 * in_bytes(), &w->buffer));
    w->input = malloc(in_bytes());
    w->output = malloc(in_bytes());
    ck_assert_ptr_nonnull(w->input);
    ck_assert_ptr_nonnull(w->output);
    for (uint64_t i = 0; i < (uint64_t)g_rows * g_cols; i++)
        w->input[i] = (uint32_t)(id * 10000000u + i);
    OK(dmlCommandQueueWriteBuffer(w->queue, w->buffer, 0, w->input, in_bytes()));
}

static void worker_fini(worker* w)
{
    dmlRelease(w->buffer);
    dmlRelease(w->recorder);
    dmlRelease(w->queue);
    dmlRelease(w->shared);
    dmlRelease(w->device);
    free(w->input);
    free(w->output);
}

static void note_failure(worker* w, const char* what, DML_RESULT r)
{
    if (!w->failures++)
        snprintf(w->why, sizeof w->why, "thread %d: %s (0x%08x): %s", w->id, what, (unsigned)r,
            dmlGetLastErrorMessage());
}

/* Binds, dispatches, reads back and checks one compiled operator. No Check
 * asserts here: they are not thread-safe; failures are counted. */
static void run_one(worker* w, DMLCompiledOperator co, int variant)
{
    DMLBindingTable table = NULL;
    DML_BINDING_TABLE_DESC td = { co };
    DML_RESULT r = dmlDeviceCreateBindingTable(w->device, &td, &table);
    if (r < 0) {
        note_failure(w, "CreateBindingTable", r);
        return;
    }
    const uint64_t out_cols = variant ? g_cols / 2 : g_cols;
    DML_BUFFER_BINDING in = { w->buffer, 0, in_bytes() }, out = { w->buffer, in_bytes(), g_rows * out_cols * 4 };
    DML_BINDING_DESC bi = { DML_BINDING_TYPE_BUFFER, &in }, bo = { DML_BINDING_TYPE_BUFFER, &out };
    if ((r = dmlBindingTableBindInputs(table, 1, &bi)) < 0 || (r = dmlBindingTableBindOutputs(table, 1, &bo)) < 0)
        note_failure(w, "Bind", r);
    else if ((r = dmlCommandRecorderRecordDispatch(w->recorder, w->queue, co, table)) < 0)
        note_failure(w, "RecordDispatch", r);
    else if ((r = dmlCommandQueueReadBuffer(w->queue, w->buffer, in_bytes(), w->output, out.SizeInBytes)) < 0)
        note_failure(w, "ReadBuffer", r);
    else
        for (uint32_t i = 0; i < g_rows; i++)
            for (uint32_t j = 0; j < out_cols; j++) {
                uint32_t want = w->input[i * g_cols + (variant ? 2 * j : g_cols - 1 - j)];
                if (w->output[i * out_cols + j] != want) {
                    note_failure(w, "wrong result", 0);
                    i = g_rows;
                    break;
                }
            }
    dmlRelease(table);
}

/* ---- shared_device ------------------------------------------------------------- */

static void* shared_device_thread(void* arg)
{
    worker* w = arg;
    const int n = iterations();
    for (int k = 0; k < n && !w->failures; k++) {
        int variant = (w->id + k) & 1;
        DMLCompiledOperator co = make_compiled(w->device, variant);
        run_one(w, co, variant);
        dmlRelease(co);
        run_one(w, w->shared, 0); /* the same compiled operator in every thread */
    }
    return NULL;
}

START_TEST(shared_device)
{
    const char* backend = g_backends[_i];
    shape_for(backend);
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    OK(dmlCreateDevice(&dd, &device));
    DMLCompiledOperator shared = make_compiled(device, 0);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        worker_init(&w[i], device, i);
        dmlAddRef(shared);
        w[i].shared = shared;
    }
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, shared_device_thread, &w[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        ck_assert_msg(w[i].failures == 0, "[%s] %s", backend, w[i].why);
        worker_fini(&w[i]);
    }
    dmlRelease(shared);
    dmlRelease(device);
}
END_TEST

/* ---- release_while_siblings_work ---------------------------------------------------- */

static void* churn_thread(void* arg)
{
    worker* w = arg;
    const int n = iterations() * 3;
    for (int k = 0; k < n && !w->failures; k++) {
        opdesc o;
        opdesc_init(&o, k & 1);
        DMLOperator op = NULL;
        DMLCompiledOperator co = NULL;
        DMLBindingTable table = NULL;
        DML_RESULT r = dmlDeviceCreateOperator(w->device, &o.d, &op);
        if (r < 0) {
            note_failure(w, "CreateOperator", r);
            break;
        }
        if ((r = dmlDeviceCompileOperator(w->device, op, DML_EXECUTION_FLAG_NONE, &co)) < 0) {
            note_failure(w, "CompileOperator", r);
            dmlRelease(op);
            break;
        }
        /* Release in a different order each time: op first, then the rest. */
        if (k % 3 == 0)
            dmlRelease(op);
        run_one(w, co, k & 1);
        DML_BINDING_TABLE_DESC td = { co };
        if (dmlDeviceCreateBindingTable(w->device, &td, &table) == DML_S_OK) {
            if (k % 3 == 1) {
                dmlRelease(co); /* the table keeps it alive */
                co = NULL;
            }
            dmlRelease(table);
        }
        dmlRelease(co);
        if (k % 3 != 0)
            dmlRelease(op);
    }
    return NULL;
}

static void* sibling_thread(void* arg)
{
    worker* w = arg;
    const int n = iterations() * 3;
    for (int k = 0; k < n && !w->failures; k++)
        run_one(w, w->shared, 0);
    return NULL;
}

START_TEST(release_while_siblings_work)
{
    const char* backend = g_backends[_i];
    shape_for(backend);
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    OK(dmlCreateDevice(&dd, &device));
    enum { N = 4 };
    worker w[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        worker_init(&w[i], device, i);
        if (i > 0)
            w[i].shared = make_compiled(device, 0); /* siblings: own compiled ops, same device */
    }
    ck_assert_int_eq(pthread_create(&t[0], NULL, churn_thread, &w[0]), 0);
    for (int i = 1; i < N; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, sibling_thread, &w[i]), 0);
    /* The host's own device reference goes while everything runs: the
     * workers' references and objects keep it alive. */
    dmlRelease(device);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    /* Release one worker's objects on another thread than the one that used them. */
    for (int i = 0; i < N; i++) {
        ck_assert_msg(w[i].failures == 0, "[%s] %s", backend, w[i].why);
        worker_fini(&w[i]);
    }
}
END_TEST

/* ---- rename_while_dispatching ------------------------------------------------------ */

/* Names of different lengths: a message quoting a torn copy matches none. */
static const char* const g_names[] = { "a", "rename-two", "a-much-longer-third-name-0123456789",
    "the-fourth-name-is-the-longest-of-them-all-0123456789abcdefghij" };
#define NAMES (sizeof g_names / sizeof g_names[0])

static atomic_int g_renaming;
static atomic_uint g_debug_messages;

static void count_debug_message(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    (void)severity, (void)message, (void)context;
    atomic_fetch_add_explicit(&g_debug_messages, 1, memory_order_relaxed);
}

static int quotes_a_whole_name(const char* message)
{
    for (size_t i = 0; i < NAMES; i++) {
        char quoted[80];
        snprintf(quoted, sizeof quoted, "'%s'", g_names[i]);
        if (strstr(message, quoted))
            return 1;
    }
    return 0;
}

typedef struct renamer {
    void* objects[3];
} renamer;

static void* rename_thread(void* arg)
{
    renamer* r = arg;
    for (unsigned k = 0; atomic_load_explicit(&g_renaming, memory_order_relaxed); k++)
        for (int i = 0; i < 3; i++)
            dmlSetName(r->objects[i], g_names[(k + (unsigned)i) % NAMES]);
    return NULL;
}

/* Dispatches the shared compiled operator with nothing bound (the message
 * formats its name) and binds a bad input to a named table (the message
 * formats both names), then a full dispatch checked against the reference. */
static void* named_dispatch_thread(void* arg)
{
    worker* w = arg;
    DMLBindingTable table = NULL;
    DML_BINDING_TABLE_DESC td = { w->shared };
    DML_RESULT r = dmlDeviceCreateBindingTable(w->device, &td, &table);
    if (r < 0) {
        note_failure(w, "CreateBindingTable", r);
        return NULL;
    }
    dmlSetName(table, g_names[w->id % NAMES]);
    DML_BUFFER_BINDING small = { w->buffer, 0, 4 };
    DML_BINDING_DESC bad = { DML_BINDING_TYPE_BUFFER, &small };
    const int n = iterations() * 50;
    for (int k = 0; k < n && !w->failures; k++) {
        r = dmlCommandRecorderRecordDispatch(w->recorder, w->queue, w->shared, table);
        if (r != DML_E_INVALID_CALL || !quotes_a_whole_name(dmlGetLastErrorMessage()))
            note_failure(w, "unbound dispatch: a message naming the compiled operator", r);
        r = dmlBindingTableBindInputs(table, 1, &bad);
        if (r != DML_E_INVALIDARG || !quotes_a_whole_name(dmlGetLastErrorMessage()))
            note_failure(w, "bad bind: a message naming the compiled operator and the table", r);
        if (k % 10 == 0)
            run_one(w, w->shared, 0);
    }
    dmlRelease(table);
    return NULL;
}

/* dmlSetName on a compiled operator, its operator and a table while other
 * threads dispatch them, on a debug device (whose messages also go to the
 * callback): race-free (run-tsan.sh), and every message quotes a whole name. */
START_TEST(rename_while_dispatching)
{
    const char* backend = g_backends[_i];
    shape_for(backend);
    dmlSetMessageCallback(count_debug_message, NULL);
    DML_DEVICE_DESC dd = { sizeof(DML_DEVICE_DESC), backend, 0, DML_CREATE_DEVICE_FLAG_DEBUG, DML_FEATURE_LEVEL_5_0 };
    DMLDevice device = NULL;
    OK(dmlCreateDevice(&dd, &device));
    opdesc o;
    opdesc_init(&o, 0);
    DMLOperator op = NULL;
    DMLCompiledOperator co = NULL;
    OK(dmlDeviceCreateOperator(device, &o.d, &op));
    OK(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &co));
    OK(dmlSetName(co, g_names[0]));
    OK(dmlSetName(op, g_names[1]));
    enum { N = 3 };
    worker w[N];
    pthread_t t[N], renaming;
    for (int i = 0; i < N; i++) {
        worker_init(&w[i], device, i);
        dmlAddRef(co);
        w[i].shared = co;
    }
    renamer r = { { co, op, w[0].buffer } };
    atomic_store(&g_renaming, 1);
    ck_assert_int_eq(pthread_create(&renaming, NULL, rename_thread, &r), 0);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, named_dispatch_thread, &w[i]), 0);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    atomic_store(&g_renaming, 0);
    pthread_join(renaming, NULL);
    for (int i = 0; i < N; i++) {
        ck_assert_msg(w[i].failures == 0, "[%s] %s", backend, w[i].why);
        worker_fini(&w[i]);
    }
    ck_assert_uint_gt(atomic_load(&g_debug_messages), 0);
    dmlRelease(co);
    dmlRelease(op);
    dmlRelease(device);
    dmlSetMessageCallback(NULL, NULL);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("threads");
    TCase* tc = tcase_create("threads");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, shared_device, 0, 2);
    tcase_add_loop_test(tc, release_while_siblings_work, 0, 2);
    tcase_add_loop_test(tc, rename_while_dispatching, 0, 2);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
