/* harness.c — see harness.h. */
#include "harness.h"

#include "core/data_type.h"
#include "core/result.h"
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char* h_backend(void)
{
    const char* b = getenv("DML_TEST_BACKEND");
    return (b && *b) ? b : "cpu";
}

DML_DEVICE_DESC h_device_desc(void)
{
    DML_DEVICE_DESC d;
    memset(&d, 0, sizeof d);
    d.Size = sizeof d;
    d.Backend = h_backend();
    d.AdapterIndex = 0;
    d.Flags = DML_CREATE_DEVICE_FLAG_NONE;
    d.MinimumFeatureLevel = DML_FEATURE_LEVEL_5_0;
    return d;
}

uint32_t h_elem_size(DML_TENSOR_DATA_TYPE type)
{
    return dml_data_type_size(type);
}

const char* h_type_name(DML_TENSOR_DATA_TYPE type)
{
    return dml_data_type_name(type);
}

const char* h_result_name(DML_RESULT r)
{
    return dml_result_name(r);
}

void h_init(harness* h)
{
    memset(h, 0, sizeof *h);
    h->stage = "";
    DML_DEVICE_DESC d = h_device_desc();
    h_assert_ok(dmlCreateDevice(&d, &h->device));
    ck_assert_ptr_nonnull(h->device);
    h_assert_ok(dmlDeviceCreateCommandQueue(h->device, NULL, &h->queue));
    ck_assert_ptr_nonnull(h->queue);
    h_assert_ok(dmlDeviceCreateCommandRecorder(h->device, &h->recorder));
    ck_assert_ptr_nonnull(h->recorder);
}

void h_fini(harness* h)
{
    dmlRelease(h->recorder);
    dmlRelease(h->queue);
    dmlRelease(h->device);
    memset(h, 0, sizeof *h);
}

void h_tensor_init(h_tensor* t, DML_TENSOR_DATA_TYPE type, uint32_t rank,
                   const uint32_t* sizes, const uint32_t* strides)
{
    uint32_t sz[8] = { 0 }, st[8] = { 0 }; /* sizes/strides may point into *t */
    ck_assert_uint_le(rank, 8);
    memcpy(sz, sizes, rank * sizeof *sizes);
    if (strides)
        memcpy(st, strides, rank * sizeof *strides);
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sz, sizeof sz);
    memcpy(t->strides, st, sizeof st);
    t->buf.DataType = type;
    t->buf.Flags = DML_TENSOR_FLAG_NONE;
    t->buf.DimensionCount = rank;
    t->buf.Sizes = t->sizes;
    t->buf.Strides = strides ? t->strides : NULL;
    t->buf.TotalTensorSizeInBytes =
        ref_calc_buffer_tensor_size(h_elem_size(type), rank, t->sizes, strides ? t->strides : NULL);
    t->buf.GuaranteedBaseOffsetAlignment = 0;
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buf;
}

void h_write(harness* h, DMLBuffer b, uint64_t offset, const void* src, uint64_t size)
{
    h_assert_ok(dmlCommandQueueWriteBuffer(h->queue, b, offset, src, size));
}

void h_read(harness* h, DMLBuffer b, uint64_t offset, void* dst, uint64_t size)
{
    h_assert_ok(dmlCommandQueueReadBuffer(h->queue, b, offset, dst, size));
}

DMLBuffer h_buffer(harness* h, uint64_t size, const void* init)
{
    DMLBuffer b = NULL;
    h_assert_ok(dmlDeviceCreateBuffer(h->device, size, &b));
    ck_assert_ptr_nonnull(b);
    if (init) {
        h_write(h, b, 0, init, size);
    } else {
        void* zeros = calloc(1, size ? size : 1);
        ck_assert_ptr_nonnull(zeros);
        h_write(h, b, 0, zeros, size);
        free(zeros);
    }
    return b;
}

static DML_BUFFER_BINDING h_buffer_binding(DMLBuffer b, uint64_t offset, uint64_t size)
{
    DML_BUFFER_BINDING bb;
    bb.Buffer = b;
    bb.Offset = offset;
    bb.SizeInBytes = size;
    return bb;
}

#define H_STEP(name, call)                                                              \
    do {                                                                                \
        r = (call);                                                                     \
        if (DML_FAILED(r)) {                                                            \
            h->stage = (name);                                                          \
            snprintf(h->message, sizeof h->message, "%s", dmlGetLastErrorMessage());   \
            goto done;                                                                  \
        }                                                                               \
    } while (0)

#define H_MAX_TENSORS 16

DML_RESULT run_operator(harness* h, const DML_OPERATOR_DESC* desc, DML_EXECUTION_FLAGS flags,
                        uint32_t input_count, const h_bind* inputs, const h_bind* output,
                        void* dst, uint64_t dst_size)
{
    return run_operator_outputs(h, desc, flags, input_count, inputs, 1, output, &dst, &dst_size);
}

DML_RESULT run_operator_outputs(harness* h, const DML_OPERATOR_DESC* desc, DML_EXECUTION_FLAGS flags,
                                uint32_t input_count, const h_bind* inputs, uint32_t output_count,
                                const h_bind* outputs, void* const* dsts, const uint64_t* dst_sizes)
{
    DML_RESULT r = DML_S_OK;
    DMLOperator op = NULL;
    DMLCompiledOperator compiled = NULL;
    DMLOperatorInitializer init = NULL;
    DMLBindingTable init_table = NULL, exec_table = NULL;
    DMLBuffer persistent = NULL, init_temp = NULL, exec_temp = NULL;
    DML_BUFFER_BINDING bb[H_MAX_TENSORS];
    DML_BINDING_DESC bd[H_MAX_TENSORS];
    uint8_t* clobber = NULL;

    h->stage = "";
    h->message[0] = '\0';
    ck_assert_uint_le(input_count, H_MAX_TENSORS);
    ck_assert_uint_le(output_count, H_MAX_TENSORS);

    H_STEP("dmlDeviceCreateOperator", dmlDeviceCreateOperator(h->device, desc, &op));
    H_STEP("dmlDeviceCompileOperator", dmlDeviceCompileOperator(h->device, op, flags, &compiled));
    H_STEP("dmlDeviceCreateOperatorInitializer",
           dmlDeviceCreateOperatorInitializer(h->device, 1, &compiled, &init));

    DML_BINDING_PROPERTIES ip = dmlDispatchableGetBindingProperties(init);
    DML_BINDING_PROPERTIES ep = dmlDispatchableGetBindingProperties(compiled);
    ck_assert_uint_eq(ip.RequiredDescriptorCount, 0);
    ck_assert_uint_eq(ep.RequiredDescriptorCount, 0);

    int any_owned = 0;
    for (uint32_t i = 0; i < input_count; ++i)
        any_owned |= inputs[i].owned;
    ck_assert_msg(!any_owned || ep.PersistentResourceSize > 0,
                  "an operator with an OWNED_BY_DML input reports PersistentResourceSize 0");

    if (ep.PersistentResourceSize > 0)
        H_STEP("dmlDeviceCreateBuffer(persistent)",
               dmlDeviceCreateBuffer(h->device, ep.PersistentResourceSize, &persistent));
    if (ip.TemporaryResourceSize > 0)
        H_STEP("dmlDeviceCreateBuffer(initializer temporary)",
               dmlDeviceCreateBuffer(h->device, ip.TemporaryResourceSize, &init_temp));
    if (ep.TemporaryResourceSize > 0)
        H_STEP("dmlDeviceCreateBuffer(temporary)",
               dmlDeviceCreateBuffer(h->device, ep.TemporaryResourceSize, &exec_temp));

    /* Initializer. */
    DML_BINDING_TABLE_DESC td;
    td.Dispatchable = init;
    H_STEP("dmlDeviceCreateBindingTable(initializer)",
           dmlDeviceCreateBindingTable(h->device, &td, &init_table));
    if (any_owned) {
        for (uint32_t i = 0; i < input_count; ++i)
            bb[i] = inputs[i].owned
                        ? h_buffer_binding(inputs[i].buffer, inputs[i].offset, inputs[i].size)
                        : h_buffer_binding(NULL, 0, 0);
        DML_BUFFER_ARRAY_BINDING array;
        array.BindingCount = input_count;
        array.Bindings = bb;
        DML_BINDING_DESC one;
        one.Type = DML_BINDING_TYPE_BUFFER_ARRAY;
        one.Desc = &array;
        H_STEP("dmlBindingTableBindInputs(initializer)", dmlBindingTableBindInputs(init_table, 1, &one));
    }
    if (persistent) {
        DML_BUFFER_BINDING p = h_buffer_binding(persistent, 0, ep.PersistentResourceSize);
        DML_BINDING_DESC one;
        one.Type = DML_BINDING_TYPE_BUFFER;
        one.Desc = &p;
        H_STEP("dmlBindingTableBindOutputs(initializer)", dmlBindingTableBindOutputs(init_table, 1, &one));
    }
    if (init_temp) {
        DML_BUFFER_BINDING t = h_buffer_binding(init_temp, 0, ip.TemporaryResourceSize);
        DML_BINDING_DESC one;
        one.Type = DML_BINDING_TYPE_BUFFER;
        one.Desc = &t;
        H_STEP("dmlBindingTableBindTemporaryResource(initializer)",
               dmlBindingTableBindTemporaryResource(init_table, &one));
    }
    H_STEP("dmlCommandRecorderRecordDispatch(initializer)",
           dmlCommandRecorderRecordDispatch(h->recorder, h->queue, init, init_table));

    /* The result may only come from the persistent copy now. WriteBuffer runs
     * after the initializer (queue order). */
    for (uint32_t i = 0; i < input_count; ++i) {
        if (!inputs[i].owned)
            continue;
        clobber = malloc(inputs[i].size ? inputs[i].size : 1);
        ck_assert_ptr_nonnull(clobber);
        memset(clobber, H_CLOBBER_BYTE, inputs[i].size);
        H_STEP("dmlCommandQueueWriteBuffer(clobber owned input)",
               dmlCommandQueueWriteBuffer(h->queue, inputs[i].buffer, inputs[i].offset, clobber,
                                          inputs[i].size));
        free(clobber);
        clobber = NULL;
    }

    /* Execution. */
    td.Dispatchable = compiled;
    H_STEP("dmlDeviceCreateBindingTable", dmlDeviceCreateBindingTable(h->device, &td, &exec_table));
    for (uint32_t i = 0; i < input_count; ++i) {
        bb[i] = h_buffer_binding(inputs[i].buffer, inputs[i].offset, inputs[i].size);
        bd[i].Type = inputs[i].owned ? DML_BINDING_TYPE_NONE : DML_BINDING_TYPE_BUFFER;
        bd[i].Desc = inputs[i].owned ? NULL : &bb[i];
    }
    H_STEP("dmlBindingTableBindInputs", dmlBindingTableBindInputs(exec_table, input_count, bd));
    for (uint32_t i = 0; i < output_count; ++i) {
        bb[i] = h_buffer_binding(outputs[i].buffer, outputs[i].offset, outputs[i].size);
        bd[i].Type = DML_BINDING_TYPE_BUFFER;
        bd[i].Desc = &bb[i];
    }
    H_STEP("dmlBindingTableBindOutputs", dmlBindingTableBindOutputs(exec_table, output_count, bd));
    if (persistent) {
        DML_BUFFER_BINDING p = h_buffer_binding(persistent, 0, ep.PersistentResourceSize);
        DML_BINDING_DESC one;
        one.Type = DML_BINDING_TYPE_BUFFER;
        one.Desc = &p;
        H_STEP("dmlBindingTableBindPersistentResource",
               dmlBindingTableBindPersistentResource(exec_table, &one));
    }
    if (exec_temp) {
        DML_BUFFER_BINDING t = h_buffer_binding(exec_temp, 0, ep.TemporaryResourceSize);
        DML_BINDING_DESC one;
        one.Type = DML_BINDING_TYPE_BUFFER;
        one.Desc = &t;
        H_STEP("dmlBindingTableBindTemporaryResource",
               dmlBindingTableBindTemporaryResource(exec_table, &one));
    }
    H_STEP("dmlCommandRecorderRecordDispatch",
           dmlCommandRecorderRecordDispatch(h->recorder, h->queue, compiled, exec_table));
    for (uint32_t i = 0; i < output_count; ++i)
        if (dsts[i])
            H_STEP("dmlCommandQueueReadBuffer",
                   dmlCommandQueueReadBuffer(h->queue, outputs[i].buffer, 0, dsts[i], dst_sizes[i]));
    H_STEP("dmlCommandQueueSynchronize", dmlCommandQueueSynchronize(h->queue));

done:
    free(clobber);
    dmlRelease(exec_table);
    dmlRelease(init_table);
    dmlRelease(exec_temp);
    dmlRelease(init_temp);
    dmlRelease(persistent);
    dmlRelease(init);
    dmlRelease(compiled);
    dmlRelease(op);
    return r;
}
