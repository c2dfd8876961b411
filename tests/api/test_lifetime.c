/*
 * test_lifetime.c — reference counting and ownership (docs/contract.md):
 * objects keep their device (and a compiled operator its operator) alive,
 * CreateOperator copies its desc, AddRef/Release counts, names in messages.
 * Meant to be run under valgrind too: every test releases everything.
 */
#include "harness.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SLICE1 example of operators.md: Input {1,1,4,4} = 1..16, Offsets {0,0,0,1},
 * Sizes {1,1,4,3}, Strides {1,1,-2,2} -> {1,1,2,2} = [[14,16],[6,8]]. */
static const float INPUT[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const float EXPECTED[4] = { 14, 16, 6, 8 };
static const uint32_t IN_SIZES[4] = { 1, 1, 4, 4 }, OUT_SIZES[4] = { 1, 1, 2, 2 };
static const uint32_t OFFSETS[4] = { 0, 0, 0, 1 }, WINDOW[4] = { 1, 1, 4, 3 };
static const int32_t STRIDES[4] = { 1, 1, -2, 2 };

static DMLDevice new_device(void)
{
    DML_DEVICE_DESC d = h_device_desc();
    DMLDevice dev = NULL;
    h_assert_ok(dmlCreateDevice(&d, &dev));
    ck_assert_ptr_nonnull(dev);
    return dev;
}

static DMLCompiledOperator compile_example(DMLDevice dev, DMLOperator* op_out)
{
    h_tensor in, out;
    h_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, IN_SIZES, NULL);
    h_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, OUT_SIZES, NULL);
    DML_SLICE1_OPERATOR_DESC s = { &in.desc, &out.desc, 4, OFFSETS, WINDOW, STRIDES };
    DML_OPERATOR_DESC od = { DML_OPERATOR_SLICE1, &s };
    DMLOperator op = NULL;
    DMLCompiledOperator c = NULL;
    h_assert_ok(dmlDeviceCreateOperator(dev, &od, &op));
    h_assert_ok(dmlDeviceCompileOperator(dev, op, DML_EXECUTION_FLAG_NONE, &c));
    if (op_out)
        *op_out = op;
    else
        dmlRelease(op);
    return c;
}

static void bind_buffer(DMLBindingTable t, int output, DMLBuffer b, uint64_t size)
{
    DML_BUFFER_BINDING bb = { b, 0, size };
    DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER, &bb };
    if (output)
        h_assert_ok(dmlBindingTableBindOutputs(t, 1, &bd));
    else
        h_assert_ok(dmlBindingTableBindInputs(t, 1, &bd));
}

static void check_output(DMLCommandQueue q, DMLBuffer out)
{
    float got[4];
    h_assert_ok(dmlCommandQueueReadBuffer(q, out, 0, got, sizeof got));
    for (int i = 0; i < 4; ++i)
        ck_assert_msg(got[i] == EXPECTED[i], "output[%d] = %g, expected %g", i, (double)got[i],
                      (double)EXPECTED[i]);
}

START_TEST(device_released_first)
{
    DMLDevice dev = new_device();
    DMLCommandQueue q = NULL;
    DMLCommandRecorder rec = NULL;
    h_assert_ok(dmlDeviceCreateCommandQueue(dev, NULL, &q));
    h_assert_ok(dmlDeviceCreateCommandRecorder(dev, &rec));
    DMLOperator op = NULL;
    DMLCompiledOperator c = compile_example(dev, &op);
    DMLOperatorInitializer init = NULL;
    h_assert_ok(dmlDeviceCreateOperatorInitializer(dev, 1, &c, &init));
    DML_BINDING_TABLE_DESC td = { c };
    DMLBindingTable t = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(dev, &td, &t));
    DMLBuffer in = NULL, out = NULL;
    h_assert_ok(dmlDeviceCreateBuffer(dev, sizeof INPUT, &in));
    h_assert_ok(dmlDeviceCreateBuffer(dev, 16, &out));

    /* The caller's reference to the device goes first. */
    dmlRelease(dev);

    /* Everything made from it still works, and can still make things. */
    DMLBindingTable ti = NULL;
    td.Dispatchable = init;
    h_assert_ok(dmlDeviceCreateBindingTable(dev, &td, &ti));
    h_assert_ok(dmlCommandRecorderRecordDispatch(rec, q, init, ti));
    h_assert_ok(dmlCommandQueueWriteBuffer(q, in, 0, INPUT, sizeof INPUT));
    bind_buffer(t, 0, in, sizeof INPUT);
    bind_buffer(t, 1, out, 16);
    h_assert_ok(dmlCommandRecorderRecordDispatch(rec, q, c, t));
    check_output(q, out);
    h_assert_ok(dmlCommandQueueSynchronize(q));

    /* A second compile of the kept operator works too. */
    DMLCompiledOperator c2 = NULL;
    h_assert_ok(dmlDeviceCompileOperator(dev, op, DML_EXECUTION_FLAG_NONE, &c2));

    dmlRelease(c2);
    dmlRelease(ti);
    dmlRelease(t);
    dmlRelease(init);
    dmlRelease(c);
    dmlRelease(op);
    dmlRelease(in);
    dmlRelease(out);
    dmlRelease(rec);
    dmlRelease(q); /* the last object: the device goes with it */
}
END_TEST

START_TEST(operator_released_after_compile)
{
    DMLDevice dev = new_device();
    DMLCommandQueue q = NULL;
    DMLCommandRecorder rec = NULL;
    h_assert_ok(dmlDeviceCreateCommandQueue(dev, NULL, &q));
    h_assert_ok(dmlDeviceCreateCommandRecorder(dev, &rec));
    DMLOperator op = NULL;
    DMLCompiledOperator c = compile_example(dev, &op);
    dmlRelease(op); /* the caller's last reference; the compiled operator keeps it */

    DMLBuffer in = NULL, out = NULL;
    h_assert_ok(dmlDeviceCreateBuffer(dev, sizeof INPUT, &in));
    h_assert_ok(dmlCommandQueueWriteBuffer(q, in, 0, INPUT, sizeof INPUT));
    h_assert_ok(dmlDeviceCreateBuffer(dev, 16, &out));
    DML_BINDING_TABLE_DESC td = { c };
    DMLBindingTable t = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(dev, &td, &t));
    bind_buffer(t, 0, in, sizeof INPUT);
    bind_buffer(t, 1, out, 16);
    h_assert_ok(dmlCommandRecorderRecordDispatch(rec, q, c, t));
    check_output(q, out);

    dmlRelease(t);
    dmlRelease(c);
    dmlRelease(in);
    dmlRelease(out);
    dmlRelease(rec);
    dmlRelease(q);
    dmlRelease(dev);
}
END_TEST

static harness H;
static void setup(void) { h_init(&H); }
static void teardown(void) { h_fini(&H); }

START_TEST(create_operator_copies_desc)
{
    /* Everything the desc points to lives on the heap; it is overwritten with
     * nonsense and freed right after CreateOperator, before Compile. */
    uint32_t* in_sizes = malloc(sizeof IN_SIZES);
    uint32_t* out_sizes = malloc(sizeof OUT_SIZES);
    uint32_t* out_strides = malloc(4 * sizeof(uint32_t));
    uint32_t* offsets = malloc(sizeof OFFSETS);
    uint32_t* window = malloc(sizeof WINDOW);
    int32_t* strides = malloc(sizeof STRIDES);
    DML_BUFFER_TENSOR_DESC* bin = malloc(sizeof *bin);
    DML_BUFFER_TENSOR_DESC* bout = malloc(sizeof *bout);
    DML_TENSOR_DESC* tin = malloc(sizeof *tin);
    DML_TENSOR_DESC* tout = malloc(sizeof *tout);
    DML_SLICE1_OPERATOR_DESC* s = malloc(sizeof *s);
    DML_OPERATOR_DESC* od = malloc(sizeof *od);
    ck_assert(in_sizes && out_sizes && out_strides && offsets && window && strides && bin && bout && tin && tout &&
              s && od);
    memcpy(in_sizes, IN_SIZES, sizeof IN_SIZES);
    memcpy(out_sizes, OUT_SIZES, sizeof OUT_SIZES);
    /* output written transposed: {1,1,2,2} with strides {4,4,1,2} */
    out_strides[0] = 4; out_strides[1] = 4; out_strides[2] = 1; out_strides[3] = 2;
    memcpy(offsets, OFFSETS, sizeof OFFSETS);
    memcpy(window, WINDOW, sizeof WINDOW);
    memcpy(strides, STRIDES, sizeof STRIDES);
    *bin = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL, 64, 0 };
    *bout = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, out_sizes, out_strides,
                                      16, 0 };
    *tin = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, bin };
    *tout = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, bout };
    *s = (DML_SLICE1_OPERATOR_DESC){ tin, tout, 4, offsets, window, strides };
    *od = (DML_OPERATOR_DESC){ DML_OPERATOR_SLICE1, s };

    DMLOperator op = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, od, &op));

    /* overwrite (so a stale pointer reads garbage, not the old values), then free */
    memset(in_sizes, 0xFF, sizeof IN_SIZES);
    memset(out_sizes, 0xFF, sizeof OUT_SIZES);
    memset(out_strides, 0, 4 * sizeof(uint32_t));
    memset(offsets, 0xFF, sizeof OFFSETS);
    memset(window, 0, sizeof WINDOW);
    memset(strides, 0, sizeof STRIDES);
    memset(bin, 0, sizeof *bin);
    memset(bout, 0, sizeof *bout);
    memset(tin, 0, sizeof *tin);
    memset(tout, 0, sizeof *tout);
    memset(s, 0, sizeof *s);
    memset(od, 0, sizeof *od);
    free(in_sizes); free(out_sizes); free(out_strides); free(offsets); free(window); free(strides);
    free(bin); free(bout); free(tin); free(tout); free(s); free(od);

    DMLCompiledOperator c = NULL;
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &c));
    dmlRelease(op);
    DMLBuffer in = h_buffer(&H, sizeof INPUT, INPUT), out = h_buffer(&H, 16, NULL);
    DML_BINDING_TABLE_DESC td = { c };
    DMLBindingTable t = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &t));
    bind_buffer(t, 0, in, sizeof INPUT);
    bind_buffer(t, 1, out, 16);
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t));
    float got[4];
    h_read(&H, out, 0, got, sizeof got);
    static const float transposed[4] = { 14, 6, 16, 8 };
    for (int i = 0; i < 4; ++i)
        ck_assert_msg(got[i] == transposed[i], "output[%d] = %g, expected %g", i, (double)got[i],
                      (double)transposed[i]);
    dmlRelease(t); dmlRelease(c); dmlRelease(in); dmlRelease(out);
}
END_TEST

START_TEST(create_operator_copies_reverse_desc)
{
    /* Example 1 of REVERSE_SUBSEQUENCES, desc on the heap, freed before compile. */
    static const uint32_t sizes[4] = { 1, 1, 3, 4 }, lsizes[4] = { 1, 1, 3, 1 };
    uint32_t* s_in = malloc(sizeof sizes);
    uint32_t* s_len = malloc(sizeof lsizes);
    uint32_t* s_out = malloc(sizeof sizes);
    DML_BUFFER_TENSOR_DESC* b = malloc(3 * sizeof *b);
    DML_TENSOR_DESC* t3 = malloc(3 * sizeof *t3);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC* rs = malloc(sizeof *rs);
    ck_assert(s_in && s_len && s_out && b && t3 && rs);
    memcpy(s_in, sizes, sizeof sizes);
    memcpy(s_len, lsizes, sizeof lsizes);
    memcpy(s_out, sizes, sizeof sizes);
    b[0] = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, s_in, NULL, 48, 0 };
    b[1] = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 4, s_len, NULL, 12, 0 };
    b[2] = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, s_out, NULL, 48, 0 };
    for (int i = 0; i < 3; ++i)
        t3[i] = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &b[i] };
    *rs = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){ &t3[0], &t3[1], &t3[2], 3 };
    DML_OPERATOR_DESC od = { DML_OPERATOR_REVERSE_SUBSEQUENCES, rs };
    DMLOperator op = NULL;
    h_assert_ok(dmlDeviceCreateOperator(H.device, &od, &op));
    memset(s_in, 0, sizeof sizes); memset(s_len, 0, sizeof lsizes); memset(s_out, 0, sizeof sizes);
    memset(b, 0, 3 * sizeof *b); memset(t3, 0, 3 * sizeof *t3); memset(rs, 0xFF, sizeof *rs);
    od.Desc = NULL;
    free(s_in); free(s_len); free(s_out); free(b); free(t3); free(rs);

    DMLCompiledOperator c = NULL;
    h_assert_ok(dmlDeviceCompileOperator(H.device, op, DML_EXECUTION_FLAG_NONE, &c));
    dmlRelease(op);
    static const float input[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
    static const uint32_t lengths[3] = { 2, 4, 3 };
    static const float expected[12] = { 2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12 };
    DMLBuffer bi = h_buffer(&H, sizeof input, input), bl = h_buffer(&H, sizeof lengths, lengths);
    DMLBuffer bo = h_buffer(&H, sizeof input, NULL);
    DML_BINDING_TABLE_DESC td = { c };
    DMLBindingTable t = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &t));
    DML_BUFFER_BINDING bb[2] = { { bi, 0, sizeof input }, { bl, 0, sizeof lengths } };
    DML_BINDING_DESC bd[2] = { { DML_BINDING_TYPE_BUFFER, &bb[0] }, { DML_BINDING_TYPE_BUFFER, &bb[1] } };
    h_assert_ok(dmlBindingTableBindInputs(t, 2, bd));
    bind_buffer(t, 1, bo, sizeof input);
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t));
    float got[12];
    h_read(&H, bo, 0, got, sizeof got);
    for (int i = 0; i < 12; ++i)
        ck_assert_msg(got[i] == expected[i], "output[%d] = %g, expected %g", i, (double)got[i], (double)expected[i]);
    dmlRelease(t); dmlRelease(c); dmlRelease(bi); dmlRelease(bl); dmlRelease(bo);
}
END_TEST

START_TEST(addref_release_counts)
{
    ck_assert_uint_eq(dmlRelease(NULL), 0);

    DMLDevice dev = new_device();
    ck_assert_uint_eq(dmlAddRef(dev), 2);
    ck_assert_uint_eq(dmlAddRef(dev), 3);
    ck_assert_uint_eq(dmlRelease(dev), 2);
    ck_assert_uint_eq(dmlRelease(dev), 1);

    DMLBuffer b = NULL;
    h_assert_ok(dmlDeviceCreateBuffer(dev, 64, &b));
    ck_assert_uint_eq(dmlAddRef(b), 2);
    ck_assert_uint_eq(dmlRelease(b), 1);

    DMLOperator op = NULL;
    DMLCompiledOperator c = compile_example(dev, &op);
    ck_assert_uint_eq(dmlAddRef(c), 2);
    ck_assert_uint_eq(dmlRelease(c), 1);

    ck_assert_uint_eq(dmlRelease(c), 0);
    dmlRelease(op);
    ck_assert_uint_eq(dmlRelease(b), 0);
    ck_assert_uint_eq(dmlRelease(dev), 0); /* nothing else holds it now */
}
END_TEST

START_TEST(operator_addref_release)
{
    DMLOperator op = NULL;
    DMLCompiledOperator c = compile_example(H.device, &op);
    dmlRelease(c); /* the compiled operator is gone: the caller's reference is the only one */
    ck_assert_uint_eq(dmlAddRef(op), 2);
    ck_assert_uint_eq(dmlRelease(op), 1);
    ck_assert_uint_eq(dmlRelease(op), 0);
}
END_TEST

static void expect_message_names(const char* name, const char* what)
{
    const char* m = dmlGetLastErrorMessage();
    ck_assert_msg(m && strstr(m, name), "%s: message \"%s\" does not name \"%s\"", what, m ? m : "(null)", name);
}

START_TEST(name_of_operator_in_message)
{
    /* a named operator compiled with bad flags */
    DMLOperator op = NULL;
    DMLCompiledOperator c = compile_example(H.device, &op);
    h_assert_ok(dmlSetName(op, "slice-op-name-7261"));
    DMLCompiledOperator bad = (DMLCompiledOperator)(uintptr_t)0x1234;
    ck_assert_int_eq(dmlDeviceCompileOperator(H.device, op, (DML_EXECUTION_FLAGS)0x100, &bad), DML_E_INVALIDARG);
    expect_message_names("slice-op-name-7261", "compile of a named operator with bad flags");
    dmlRelease(c);
    dmlRelease(op);
}
END_TEST

START_TEST(name_of_table_in_message)
{
    /* a named binding table, bad bind */
    DMLCompiledOperator c = compile_example(H.device, NULL);
    DML_BINDING_TABLE_DESC td = { c };
    DMLBindingTable t = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &t));
    h_assert_ok(dmlSetName(t, "table-name-5517"));
    DML_BUFFER_BINDING bb = { NULL, 0, 64 };
    DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER, &bb };
    ck_assert_int_eq(dmlBindingTableBindInputs(t, 1, &bd), DML_E_INVALIDARG);
    expect_message_names("table-name-5517", "bad bind on a named table");
    dmlRelease(t);
    dmlRelease(c);
}
END_TEST

START_TEST(name_of_compiled_operator_in_message)
{
    /* a named compiled operator, unnamed table, bad bind */
    DMLCompiledOperator c = compile_example(H.device, NULL);
    h_assert_ok(dmlSetName(c, "compiled-name-9043"));
    DML_BINDING_TABLE_DESC td = { c };
    DMLBindingTable t = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &t));
    DML_BUFFER_BINDING bb = { NULL, 0, 64 };
    DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER, &bb };
    ck_assert_int_eq(dmlBindingTableBindInputs(t, 1, &bd), DML_E_INVALIDARG);
    expect_message_names("compiled-name-9043", "bad bind on the table of a named compiled operator");

    /* renaming works; the name is copied */
    char name[32];
    snprintf(name, sizeof name, "renamed-3391");
    h_assert_ok(dmlSetName(c, name));
    memset(name, 'x', sizeof name - 1);
    ck_assert_int_eq(dmlBindingTableBindInputs(t, 1, &bd), DML_E_INVALIDARG);
    expect_message_names("renamed-3391", "after renaming");
    dmlRelease(t);
    dmlRelease(c);
}
END_TEST

START_TEST(queue_and_recorder_outlive_device_handle)
{
    DMLDevice dev = new_device();
    DMLCommandQueue q = NULL;
    DMLCommandRecorder rec = NULL;
    h_assert_ok(dmlDeviceCreateCommandQueue(dev, NULL, &q));
    h_assert_ok(dmlDeviceCreateCommandRecorder(dev, &rec));
    DMLBuffer b = NULL;
    h_assert_ok(dmlDeviceCreateBuffer(dev, 32, &b));
    dmlRelease(dev);
    uint8_t src[32], dst[32];
    for (int i = 0; i < 32; ++i)
        src[i] = (uint8_t)(i * 7 + 1);
    h_assert_ok(dmlCommandQueueWriteBuffer(q, b, 0, src, 32));
    memset(dst, 0, sizeof dst);
    h_assert_ok(dmlCommandQueueReadBuffer(q, b, 0, dst, 32));
    ck_assert_mem_eq(src, dst, 32);
    h_assert_ok(dmlCommandQueueSynchronize(q));
    dmlRelease(b);
    dmlRelease(q);
    dmlRelease(rec);
}
END_TEST

START_TEST(wrapped_buffers_stay_the_hosts)
{
    /* Backends whose memory is host memory (cpu, and cudaemu, the CUDA
     * launch path on the host): dmlDeviceWrapBuffer takes host memory, which
     * the runtime never frees (valgrind would report a double or invalid
     * free). A real GPU's wrapped pointers are device memory: the suite
     * holds this case only for the host backends (lifetime_suite). */
    float* input = malloc(sizeof INPUT);
    float* output = malloc(32);
    ck_assert(input && output);
    memcpy(input, INPUT, sizeof INPUT);
    for (int i = 0; i < 8; ++i)
        output[i] = -7.0f;
    DMLBuffer in = NULL, out = NULL;
    h_assert_ok(dmlDeviceWrapBuffer(H.device, input, sizeof INPUT, &in));
    h_assert_ok(dmlDeviceWrapBuffer(H.device, output, 32, &out));
    ck_assert_ptr_eq(dmlBufferGetNativePointer(in), input);
    ck_assert_ptr_eq(dmlBufferGetNativePointer(out), output);
    DMLCompiledOperator c = compile_example(H.device, NULL);
    DML_BINDING_TABLE_DESC td = { c };
    DMLBindingTable t = NULL;
    h_assert_ok(dmlDeviceCreateBindingTable(H.device, &td, &t));
    bind_buffer(t, 0, in, sizeof INPUT);
    DML_BUFFER_BINDING bb = { out, 16, 16 };
    DML_BINDING_DESC bd = { DML_BINDING_TYPE_BUFFER, &bb };
    h_assert_ok(dmlBindingTableBindOutputs(t, 1, &bd));
    h_assert_ok(dmlCommandRecorderRecordDispatch(H.recorder, H.queue, c, t));
    h_assert_ok(dmlCommandQueueSynchronize(H.queue));
    for (int i = 0; i < 4; ++i) {
        ck_assert_msg(output[i] == -7.0f, "host output[%d] outside the binding changed", i);
        ck_assert_msg(output[4 + i] == EXPECTED[i], "host output[%d] = %g, expected %g", 4 + i,
                      (double)output[4 + i], (double)EXPECTED[i]);
    }
    dmlRelease(t);
    dmlRelease(c);
    ck_assert_uint_eq(dmlRelease(in), 0);
    ck_assert_uint_eq(dmlRelease(out), 0);
    /* still ours */
    input[0] = 42.0f;
    output[0] = 42.0f;
    free(input);
    free(output);
}
END_TEST

static Suite* lifetime_suite(void)
{
    Suite* s = suite_create("lifetime");
    TCase* own = tcase_create("own_device");
    tcase_set_timeout(own, 60);
    tcase_add_test(own, device_released_first);
    tcase_add_test(own, operator_released_after_compile);
    tcase_add_test(own, addref_release_counts);
    tcase_add_test(own, queue_and_recorder_outlive_device_handle);
    suite_add_tcase(s, own);
    TCase* shared = tcase_create("harness_device");
    tcase_add_checked_fixture(shared, setup, teardown);
    tcase_set_timeout(shared, 60);
    tcase_add_test(shared, create_operator_copies_desc);
    tcase_add_test(shared, create_operator_copies_reverse_desc);
    tcase_add_test(shared, operator_addref_release);
    if (strcmp(h_backend(), "cpu") == 0 || strcmp(h_backend(), "cudaemu") == 0)
        tcase_add_test(shared, wrapped_buffers_stay_the_hosts); /* it wraps host memory */
    tcase_add_test(shared, name_of_operator_in_message);
    tcase_add_test(shared, name_of_table_in_message);
    tcase_add_test(shared, name_of_compiled_operator_in_message);
    suite_add_tcase(s, shared);
    return s;
}

int main(void)
{
    SRunner* sr = srunner_create(lifetime_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
