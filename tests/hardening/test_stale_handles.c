/*
 * test_stale_handles.c — released handles on a DML_CREATE_DEVICE_FLAG_DEBUG
 * device. Such a device quarantines what its objects leave (never reused while
 * it lives), so every use of a stale handle, at every entry point that takes
 * one, must give DML_E_INVALIDARG with a message naming the call, the object's
 * type and its name, pass that message once to the message callback (as every
 * message of a debug device), and change nothing: the live objects used alongside still
 * compute the right result afterwards. Without the flag a stale handle is
 * undefined behaviour (README); only releasing more references than the host
 * holds is checked there.
 * Backend: DML_TEST_BACKEND (default "cpu"); CMake also runs it on "cudaemu".
 */
#include "api/harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BYTES = 64, PERSISTENT = 256 };

static DMLDevice D;
static DMLCommandQueue Q;
static DMLCommandRecorder R;
static unsigned messages; /* the debug device's messages, kept off stderr */
static unsigned errors;   /* those of severity ERROR */
static char last_message[1024];

static void count_message(DML_MESSAGE_SEVERITY severity, const char* message, void* context)
{
    (void)context;
    ++messages;
    if (severity == DML_MESSAGE_SEVERITY_ERROR) {
        ++errors;
        snprintf(last_message, sizeof last_message, "%s", message);
    }
}

static DMLDevice debug_device(void)
{
    DML_DEVICE_DESC desc = h_device_desc();
    desc.Flags = DML_CREATE_DEVICE_FLAG_DEBUG;
    DMLDevice device = NULL;
    h_assert_ok(dmlCreateDevice(&desc, &device));
    return device;
}

static void setup(void)
{
    dmlSetMessageCallback(count_message, NULL);
    D = debug_device();
    h_assert_ok(dmlDeviceCreateCommandQueue(D, NULL, &Q));
    h_assert_ok(dmlDeviceCreateCommandRecorder(D, &R));
}

static void teardown(void)
{
    dmlRelease(R);
    dmlRelease(Q);
    dmlRelease(D);
    dmlSetMessageCallback(NULL, NULL);
}

/* One object of every type but the device: a SLICE1 copy of BYTES bytes whose
 * input is OWNED_BY_DML (so the initializer has a BUFFER_ARRAY to bind and
 * the compiled operator a persistent resource), its initializer, a binding
 * table for each, a recorder, a queue and a buffer. */
typedef struct family {
    DMLOperator op;
    DMLCompiledOperator co;
    DMLOperatorInitializer init;
    DMLBindingTable table, init_table;
    DMLCommandRecorder recorder;
    DMLCommandQueue queue;
    DMLBuffer buffer;
    char names[8][32];
} family;

#define FAMILY_OBJECTS 8
static const char* const type_names[FAMILY_OBJECTS] = { "DMLOperator", "DMLCompiledOperator",
    "DMLOperatorInitializer", "DMLBindingTable", "DMLBindingTable", "DMLCommandRecorder", "DMLCommandQueue",
    "DMLBuffer" };

static void** member(family* f, int k)
{
    void** members[FAMILY_OBJECTS] = { (void**)&f->op, (void**)&f->co, (void**)&f->init, (void**)&f->table,
        (void**)&f->init_table, (void**)&f->recorder, (void**)&f->queue, (void**)&f->buffer };
    return members[k];
}

static void make_family(family* f, unsigned id)
{
    memset(f, 0, sizeof *f);
    uint32_t size = BYTES;
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_UINT8, 1, &size, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT8, 1, &size, NULL);
    in.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    uint32_t offsets[1] = { 0 }, window[1] = { BYTES };
    int32_t strides[1] = { 1 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 1, offsets, window, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    h_assert_ok(dmlDeviceCreateOperator(D, &desc, &f->op));
    h_assert_ok(dmlDeviceCompileOperator(D, f->op, DML_EXECUTION_FLAG_NONE, &f->co));
    h_assert_ok(dmlDeviceCreateOperatorInitializer(D, 1, &f->co, &f->init));
    DML_BINDING_TABLE_DESC td = { f->co }, itd = { f->init };
    h_assert_ok(dmlDeviceCreateBindingTable(D, &td, &f->table));
    h_assert_ok(dmlDeviceCreateBindingTable(D, &itd, &f->init_table));
    h_assert_ok(dmlDeviceCreateCommandRecorder(D, &f->recorder));
    h_assert_ok(dmlDeviceCreateCommandQueue(D, NULL, &f->queue));
    h_assert_ok(dmlDeviceCreateBuffer(D, 4 * PERSISTENT, &f->buffer));
    for (int k = 0; k < FAMILY_OBJECTS; ++k) {
        snprintf(f->names[k], sizeof f->names[k], "%.14s-%u", type_names[k] + 3, id);
        h_assert_ok(dmlSetName(*member(f, k), f->names[k]));
    }
}

/* The last call failed on a stale handle: the message names call, type, name,
 * and the debug device also sent it, once, to the message callback (dml.h),
 * whichever library found the stale handle: the dispatcher (the handle that
 * selects the plugin: dmlSetName's object, RecordDispatch's recorder, ...) or
 * the plugin (the other handles). */
static void expect_stale_message(const char* call, const char* type, const char* name, unsigned errors_before)
{
    const char* message = dmlGetLastErrorMessage();
    char released[128];
    snprintf(released, sizeof released, "is a released %s '%s'", type, name);
    ck_assert_msg(strncmp(message, call, strlen(call)) == 0 && strstr(message, released),
        "%s on a stale %s '%s': message \"%s\"", call, type, name, message);
    ck_assert_msg(errors == errors_before + 1 && strcmp(last_message, message) == 0,
        "%s on a stale %s '%s': %u error message(s) reached the callback (1 expected), the last \"%s\"", call,
        type, name, errors - errors_before, last_message);
}

#define EXPECT_STALE(expression, call, type, name)                                                    \
    do {                                                                                             \
        unsigned errors_before_ = errors;                                                            \
        h_assert_result((expression), DML_E_INVALIDARG);                                            \
        expect_stale_message(call, type, name, errors_before_);                                      \
    } while (0)

/* The same for the calls that return no DML_RESULT: value is what they return. */
#define EXPECT_STALE_VALUE(expression, value, call, type, name)                                       \
    do {                                                                                             \
        unsigned errors_before_ = errors;                                                            \
        ck_assert_msg((expression) == (value), "%s on a stale handle: unexpected return", call);     \
        expect_stale_message(call, type, name, errors_before_);                                      \
    } while (0)

/* Every entry point that takes handle k of the stale family s, the other
 * arguments valid (from the live family l). */
static void use_stale(family* s, int k, family* l)
{
    void* h = *member(s, k);
    const char* type = type_names[k];
    const char* name = s->names[k];
    EXPECT_STALE_VALUE(dmlAddRef(h), 0u, "dmlAddRef", type, name);
    EXPECT_STALE_VALUE(dmlRelease(h), 0u, "dmlRelease", type, name);
    EXPECT_STALE(dmlSetName(h, "renamed"), "dmlSetName", type, name);

    uint8_t bytes[BYTES] = { 0 };
    DML_BUFFER_BINDING persistent = { l->buffer, 0, PERSISTENT }, output = { l->buffer, PERSISTENT, BYTES };
    DML_BINDING_DESC persistent_desc = { DML_BINDING_TYPE_BUFFER, &persistent };
    DML_BINDING_DESC output_desc = { DML_BINDING_TYPE_BUFFER, &output };
    void* out = NULL;
    switch (k) {
    case 0: /* operator */
        EXPECT_STALE(dmlDeviceCompileOperator(D, h, DML_EXECUTION_FLAG_NONE, (DMLCompiledOperator*)&out),
            "dmlDeviceCompileOperator", type, name);
        { /* as a graph's node */
            DML_OPERATOR_GRAPH_NODE_DESC node = { h, "node" };
            DML_GRAPH_NODE_DESC nodes[1] = { { DML_GRAPH_NODE_TYPE_OPERATOR, &node } };
            DML_OUTPUT_GRAPH_EDGE_DESC to = { 0, 0, 0, NULL };
            DML_GRAPH_EDGE_DESC edges[1] = { { DML_GRAPH_EDGE_TYPE_OUTPUT, &to } };
            DML_GRAPH_DESC graph = { 0, 1, 1, nodes, 0, NULL, 1, edges, 0, NULL };
            EXPECT_STALE(dmlDeviceCompileGraph(D, &graph, DML_EXECUTION_FLAG_NONE, (DMLCompiledOperator*)&out),
                "dmlDeviceCompileGraph", type, name);
        }
        break;
    case 1: /* compiled operator */
    case 2: { /* initializer */
        if (k == 1) {
            DMLCompiledOperator ops[2] = { l->co, h };
            EXPECT_STALE(dmlDeviceCreateOperatorInitializer(D, 2, ops, (DMLOperatorInitializer*)&out),
                "dmlDeviceCreateOperatorInitializer", type, name);
        }
        EXPECT_STALE_VALUE(dmlDispatchableGetBindingProperties(h).PersistentResourceSize, 0u,
            "dmlDispatchableGetBindingProperties", type, name);
        DML_BINDING_TABLE_DESC td = { h };
        EXPECT_STALE(dmlDeviceCreateBindingTable(D, &td, (DMLBindingTable*)&out), "dmlDeviceCreateBindingTable",
            type, name);
        EXPECT_STALE(dmlBindingTableReset(l->table, &td), "dmlBindingTableReset", type, name);
        EXPECT_STALE(dmlCommandRecorderRecordDispatch(R, Q, h, l->table), "dmlCommandRecorderRecordDispatch", type,
            name);
        break;
    }
    case 3: /* binding tables */
    case 4: {
        DML_BINDING_DESC none = { DML_BINDING_TYPE_NONE, NULL };
        EXPECT_STALE(dmlBindingTableBindInputs(h, 1, &none), "dmlBindingTableBindInputs", type, name);
        EXPECT_STALE(dmlBindingTableBindOutputs(h, 1, &output_desc), "dmlBindingTableBindOutputs", type, name);
        EXPECT_STALE(dmlBindingTableBindTemporaryResource(h, NULL), "dmlBindingTableBindTemporaryResource", type,
            name);
        EXPECT_STALE(dmlBindingTableBindPersistentResource(h, &persistent_desc),
            "dmlBindingTableBindPersistentResource", type, name);
        EXPECT_STALE(dmlBindingTableReset(h, NULL), "dmlBindingTableReset", type, name);
        EXPECT_STALE(dmlCommandRecorderRecordDispatch(R, Q, k == 3 ? l->co : (void*)l->init, h),
            "dmlCommandRecorderRecordDispatch", type, name);
        break;
    }
    case 5: /* recorder */
        EXPECT_STALE(dmlCommandRecorderRecordDispatch(h, Q, l->co, l->table), "dmlCommandRecorderRecordDispatch", type,
            name);
        break;
    case 6: /* queue */
        EXPECT_STALE(dmlCommandRecorderRecordDispatch(R, h, l->co, l->table), "dmlCommandRecorderRecordDispatch", type,
            name);
        EXPECT_STALE(dmlCommandQueueSynchronize(h), "dmlCommandQueueSynchronize", type, name);
        EXPECT_STALE(dmlCommandQueueWriteBuffer(h, l->buffer, 0, bytes, BYTES), "dmlCommandQueueWriteBuffer", type,
            name);
        EXPECT_STALE(dmlCommandQueueReadBuffer(h, l->buffer, 0, bytes, BYTES), "dmlCommandQueueReadBuffer", type,
            name);
        break;
    case 7: { /* buffer */
        EXPECT_STALE_VALUE(dmlBufferGetNativePointer(h), NULL, "dmlBufferGetNativePointer", type, name);
        EXPECT_STALE(dmlCommandQueueWriteBuffer(Q, h, 0, bytes, BYTES), "dmlCommandQueueWriteBuffer", type, name);
        EXPECT_STALE(dmlCommandQueueReadBuffer(Q, h, 0, bytes, BYTES), "dmlCommandQueueReadBuffer", type, name);
        DML_BUFFER_BINDING stale = { h, PERSISTENT, BYTES }, stale_persistent = { h, 0, PERSISTENT };
        DML_BINDING_DESC stale_desc = { DML_BINDING_TYPE_BUFFER, &stale };
        DML_BINDING_DESC stale_persistent_desc = { DML_BINDING_TYPE_BUFFER, &stale_persistent };
        EXPECT_STALE(dmlBindingTableBindOutputs(l->table, 1, &stale_desc), "dmlBindingTableBindOutputs", type, name);
        EXPECT_STALE(dmlBindingTableBindPersistentResource(l->table, &stale_persistent_desc),
            "dmlBindingTableBindPersistentResource", type, name);
        EXPECT_STALE(dmlBindingTableBindOutputs(l->init_table, 1, &stale_persistent_desc),
            "dmlBindingTableBindOutputs", type, name);
        DML_BUFFER_ARRAY_BINDING array = { 1, &stale };
        DML_BINDING_DESC array_desc = { DML_BINDING_TYPE_BUFFER_ARRAY, &array };
        EXPECT_STALE(dmlBindingTableBindInputs(l->init_table, 1, &array_desc), "dmlBindingTableBindInputs", type,
            name);
        break;
    }
    }
    ck_assert_ptr_null(out);
}

/* The live family still computes: the initializer copies the owned input
 * (bytes [2*PERSISTENT, +BYTES) of its buffer) into the persistent resource
 * [0, PERSISTENT), the dispatch copies it to [PERSISTENT, +BYTES). */
static void check_live(family* l, unsigned seed)
{
    uint8_t input[BYTES], result[BYTES];
    for (int i = 0; i < BYTES; ++i)
        input[i] = (uint8_t)(seed * 31u + (unsigned)i * 7u);
    h_assert_ok(dmlCommandQueueWriteBuffer(Q, l->buffer, 2 * PERSISTENT, input, BYTES));
    DML_BUFFER_BINDING source = { l->buffer, 2 * PERSISTENT, BYTES }, persistent = { l->buffer, 0, PERSISTENT },
                       output = { l->buffer, PERSISTENT, BYTES };
    DML_BUFFER_ARRAY_BINDING array = { 1, &source };
    DML_BINDING_DESC array_desc = { DML_BINDING_TYPE_BUFFER_ARRAY, &array };
    DML_BINDING_DESC persistent_desc = { DML_BINDING_TYPE_BUFFER, &persistent };
    DML_BINDING_DESC output_desc = { DML_BINDING_TYPE_BUFFER, &output };
    DML_BINDING_DESC none = { DML_BINDING_TYPE_NONE, NULL };
    h_assert_ok(dmlBindingTableBindInputs(l->init_table, 1, &array_desc));
    h_assert_ok(dmlBindingTableBindOutputs(l->init_table, 1, &persistent_desc));
    h_assert_ok(dmlCommandRecorderRecordDispatch(R, Q, l->init, l->init_table));
    h_assert_ok(dmlBindingTableBindInputs(l->table, 1, &none));
    h_assert_ok(dmlBindingTableBindPersistentResource(l->table, &persistent_desc));
    h_assert_ok(dmlBindingTableBindOutputs(l->table, 1, &output_desc));
    h_assert_ok(dmlCommandRecorderRecordDispatch(R, Q, l->co, l->table));
    h_assert_ok(dmlCommandQueueReadBuffer(Q, l->buffer, PERSISTENT, result, BYTES));
    ck_assert_msg(memcmp(result, input, BYTES) == 0, "the live operator's output differs from its input");
}

static void release_family(family* f, unsigned rotation)
{
    for (int i = 0; i < FAMILY_OBJECTS; ++i) {
        void** m = member(f, (int)((rotation + (unsigned)i) % FAMILY_OBJECTS));
        dmlRelease(*m);
    }
}

static int cycles(void)
{
    return getenv("DML_TEST_QUICK") ? 8 : 64;
}

/* Create a family, release it (every order of types over the cycles), use
 * every stale handle everywhere; addresses of stale handles are never those
 * of new objects while the device lives. */
START_TEST(every_stale_handle_at_every_entry_point)
{
    family live;
    make_family(&live, 1000000);
    int n = cycles();
    void** stale = calloc((size_t)n * FAMILY_OBJECTS, sizeof *stale);
    ck_assert_ptr_nonnull(stale);
    size_t stale_count = 0;
    for (int cycle = 0; cycle < n; ++cycle) {
        family f;
        make_family(&f, (unsigned)cycle);
        for (int k = 0; k < FAMILY_OBJECTS; ++k)
            for (size_t j = 0; j < stale_count; ++j)
                ck_assert_msg(*member(&f, k) != stale[j], "cycle %d: a new %s reuses a released object's memory",
                    cycle, type_names[k]);
        release_family(&f, (unsigned)cycle);
        for (int k = 0; k < FAMILY_OBJECTS; ++k) {
            stale[stale_count++] = *member(&f, k);
            use_stale(&f, k, &live);
        }
        check_live(&live, (unsigned)cycle);
    }
    ck_assert_uint_gt(messages, 0); /* the debug device reported them too (each checked in expect_stale_message) */
    free(stale);
    release_family(&live, 0);
}
END_TEST

/* An object the host released while other objects still hold it is stale for
 * the host too: the operator after compiling, the compiled operator inside an
 * initializer and a binding table, the buffer bound in a table. */
START_TEST(released_objects_still_held_by_others)
{
    family f;
    make_family(&f, 7);
    DML_BUFFER_BINDING output = { f.buffer, PERSISTENT, BYTES };
    DML_BINDING_DESC output_desc = { DML_BINDING_TYPE_BUFFER, &output };
    h_assert_ok(dmlBindingTableBindOutputs(f.table, 1, &output_desc));
    ck_assert_uint_gt(dmlRelease(f.op), 0);
    ck_assert_uint_gt(dmlRelease(f.co), 0);
    ck_assert_uint_gt(dmlRelease(f.buffer), 0);
    EXPECT_STALE(dmlDeviceCompileOperator(D, f.op, DML_EXECUTION_FLAG_NONE, &(DMLCompiledOperator){ NULL }),
        "dmlDeviceCompileOperator", "DMLOperator", f.names[0]);
    EXPECT_STALE(dmlCommandRecorderRecordDispatch(R, Q, f.co, f.table), "dmlCommandRecorderRecordDispatch",
        "DMLCompiledOperator", f.names[1]);
    EXPECT_STALE(dmlCommandQueueReadBuffer(Q, f.buffer, 0, (uint8_t[4]){ 0 }, 4), "dmlCommandQueueReadBuffer",
        "DMLBuffer", f.names[7]);
    /* The holders still work and release what they hold. */
    h_assert_ok(dmlBindingTableReset(f.table, NULL));
    dmlRelease(f.table);
    dmlRelease(f.init_table);
    dmlRelease(f.init);
    dmlRelease(f.recorder);
    dmlRelease(f.queue);
}
END_TEST

/* The device itself: after the host's last dmlRelease its handle is stale,
 * while its objects keep it alive and keep working; an object released after
 * that is quarantined like any other until the last one goes. */
START_TEST(released_device_with_live_objects)
{
    DMLDevice device = debug_device();
    h_assert_ok(dmlSetName(device, "the-device"));
    DMLCommandQueue queue = NULL;
    DMLBuffer a = NULL, b = NULL;
    h_assert_ok(dmlDeviceCreateCommandQueue(device, NULL, &queue));
    h_assert_ok(dmlDeviceCreateBuffer(device, BYTES, &a));
    h_assert_ok(dmlDeviceCreateBuffer(device, BYTES, &b));
    h_assert_ok(dmlSetName(a, "buffer-a"));
    ck_assert_uint_gt(dmlRelease(device), 0);

    const char* t = "DMLDevice";
    const char* n = "the-device";
    void* out = NULL;
    EXPECT_STALE(dmlDeviceGetDeviceRemovedReason(device), "dmlDeviceGetDeviceRemovedReason", t, n);
    DML_ADAPTER_INFO info = { .Size = sizeof info };
    EXPECT_STALE(dmlDeviceGetAdapterInfo(device, &info), "dmlDeviceGetAdapterInfo", t, n);
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = { DML_TENSOR_DATA_TYPE_FLOAT32 };
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT support;
    EXPECT_STALE(dmlDeviceCheckFeatureSupport(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof query, &query,
                     sizeof support, &support),
        "dmlDeviceCheckFeatureSupport", t, n);
    uint32_t size = 4;
    h_tensor in, o;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_UINT8, 1, &size, NULL);
    h_tensor_init(&o, DML_TENSOR_DATA_TYPE_UINT8, 1, &size, NULL);
    uint32_t offsets[1] = { 0 };
    int32_t strides[1] = { 1 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &o.desc, 1, offsets, &size, strides };
    DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
    EXPECT_STALE(dmlDeviceCreateOperator(device, &desc, (DMLOperator*)&out), "dmlDeviceCreateOperator", t, n);
    EXPECT_STALE(dmlDeviceCompileOperator(device, NULL, DML_EXECUTION_FLAG_NONE, (DMLCompiledOperator*)&out),
        "dmlDeviceCompileOperator", t, n);
    EXPECT_STALE(dmlDeviceCreateOperatorInitializer(device, 0, NULL, (DMLOperatorInitializer*)&out),
        "dmlDeviceCreateOperatorInitializer", t, n);
    DML_BINDING_TABLE_DESC td = { NULL };
    EXPECT_STALE(dmlDeviceCreateBindingTable(device, &td, (DMLBindingTable*)&out), "dmlDeviceCreateBindingTable", t,
        n);
    EXPECT_STALE(dmlDeviceCreateCommandRecorder(device, (DMLCommandRecorder*)&out), "dmlDeviceCreateCommandRecorder",
        t, n);
    EXPECT_STALE(dmlDeviceCreateCommandQueue(device, NULL, (DMLCommandQueue*)&out), "dmlDeviceCreateCommandQueue", t,
        n);
    EXPECT_STALE(dmlDeviceCreateBuffer(device, 16, (DMLBuffer*)&out), "dmlDeviceCreateBuffer", t, n);
    static _Alignas(256) uint8_t host[256];
    EXPECT_STALE(dmlDeviceWrapBuffer(device, host, sizeof host, (DMLBuffer*)&out), "dmlDeviceWrapBuffer", t, n);
    EXPECT_STALE(dmlSetName(device, "again"), "dmlSetName", t, n);
    EXPECT_STALE_VALUE(dmlAddRef(device), 0u, "dmlAddRef", t, n);
    EXPECT_STALE_VALUE(dmlRelease(device), 0u, "dmlRelease", t, n);
    ck_assert_ptr_null(out);

    /* Its objects work. */
    uint8_t x[BYTES], y[BYTES];
    for (int i = 0; i < BYTES; ++i)
        x[i] = (uint8_t)(i * 13 + 1);
    h_assert_ok(dmlCommandQueueWriteBuffer(queue, a, 0, x, BYTES));
    h_assert_ok(dmlCommandQueueReadBuffer(queue, a, 0, y, BYTES));
    ck_assert(memcmp(x, y, BYTES) == 0);
    /* Released after the device's last host reference: still reported. */
    ck_assert_uint_eq(dmlRelease(a), 0); /* destroyed: quarantined by the device the queue and b keep alive */
    EXPECT_STALE(dmlCommandQueueReadBuffer(queue, a, 0, y, BYTES), "dmlCommandQueueReadBuffer", "DMLBuffer",
        "buffer-a");
    h_assert_ok(dmlCommandQueueWriteBuffer(queue, b, 0, x, BYTES));
    dmlRelease(b);
    dmlRelease(queue); /* the last: the device and its quarantine are freed (valgrind and ASan check) */
}
END_TEST

/* Without the debug flag: releasing more references than the host holds is
 * refused while other objects still hold the object (which stays usable for
 * them). */
START_TEST(releasing_more_than_the_host_holds)
{
    DML_DEVICE_DESC desc = h_device_desc();
    DMLDevice device = NULL;
    h_assert_ok(dmlCreateDevice(&desc, &device));
    uint32_t size = BYTES;
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_UINT8, 1, &size, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT8, 1, &size, NULL);
    uint32_t offsets[1] = { 0 };
    int32_t strides[1] = { 1 };
    DML_SLICE1_OPERATOR_DESC slice = { &in.desc, &out.desc, 1, offsets, &size, strides };
    DML_OPERATOR_DESC op_desc = { DML_OPERATOR_SLICE1, &slice };
    DMLOperator op = NULL;
    DMLCompiledOperator co = NULL;
    h_assert_ok(dmlDeviceCreateOperator(device, &op_desc, &op));
    h_assert_ok(dmlDeviceCompileOperator(device, op, DML_EXECUTION_FLAG_NONE, &co));
    ck_assert_uint_eq(dmlRelease(op), 1); /* the compiled operator's reference */
    ck_assert_uint_eq(dmlRelease(op), 0);
    ck_assert_msg(strstr(dmlGetLastErrorMessage(), "dmlRelease: the DMLOperator was released more times"), "%s",
        dmlGetLastErrorMessage());
    DML_BINDING_TABLE_DESC td = { co };
    DMLBindingTable table = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(device, &td, &table)); /* reads the operator it holds */
    dmlRelease(table);
    dmlRelease(co);
    dmlRelease(device);
}
END_TEST

int main(void)
{
    Suite* s = suite_create("stale_handles");
    TCase* tc = tcase_create("stale_handles");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_stale_handle_at_every_entry_point);
    tcase_add_test(tc, released_objects_still_held_by_others);
    tcase_add_test(tc, released_device_with_live_objects);
    tcase_add_test(tc, releasing_more_than_the_host_holds);
    suite_add_tcase(s, tc);
    SRunner* sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
