/* conf_runner.c — see conf_runner.h. */
#include "conf_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP(name, call)                                                                   \
    do {                                                                                   \
        r = (call);                                                                        \
        if (DML_FAILED(r)) {                                                               \
            snprintf(d->message, sizeof d->message, "%s: %s", (name), dmlGetLastErrorMessage()); \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

DML_RESULT conf_device_open(conf_device* d, const char* backend)
{
    DML_RESULT r = DML_S_OK;
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "%s", backend);
    DML_DEVICE_DESC desc;
    memset(&desc, 0, sizeof desc);
    desc.Size = sizeof desc;
    desc.Backend = backend;
    desc.Flags = DML_CREATE_DEVICE_FLAG_NONE;
    desc.MinimumFeatureLevel = DML_FEATURE_LEVEL_5_0;
    STEP("dmlCreateDevice", dmlCreateDevice(&desc, &d->device));
    STEP("dmlDeviceCreateCommandQueue", dmlDeviceCreateCommandQueue(d->device, NULL, &d->queue));
    STEP("dmlDeviceCreateCommandRecorder", dmlDeviceCreateCommandRecorder(d->device, &d->recorder));
    return DML_S_OK;
done:
    dmlRelease(d->recorder);
    dmlRelease(d->queue);
    dmlRelease(d->device);
    d->recorder = NULL;
    d->queue = NULL;
    d->device = NULL;
    return r;
}

void conf_device_close(conf_device* d)
{
    dmlRelease(d->recorder);
    dmlRelease(d->queue);
    dmlRelease(d->device);
    d->recorder = NULL;
    d->queue = NULL;
    d->device = NULL;
}

uint32_t conf_elem_size(DML_TENSOR_DATA_TYPE type)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT8: case DML_TENSOR_DATA_TYPE_INT8: return 1;
    case DML_TENSOR_DATA_TYPE_FLOAT16: case DML_TENSOR_DATA_TYPE_UINT16:
    case DML_TENSOR_DATA_TYPE_INT16: return 2;
    case DML_TENSOR_DATA_TYPE_FLOAT32: case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_INT32: return 4;
    case DML_TENSOR_DATA_TYPE_FLOAT64: case DML_TENSOR_DATA_TYPE_UINT64:
    case DML_TENSOR_DATA_TYPE_INT64: return 8;
    default: return 0;
    }
}

static DML_BINDING_DESC buffer_binding(DML_BUFFER_BINDING* bb, DMLBuffer b, uint64_t size)
{
    bb->Buffer = b;
    bb->Offset = 0;
    bb->SizeInBytes = size;
    DML_BINDING_DESC bd;
    bd.Type = DML_BINDING_TYPE_BUFFER;
    bd.Desc = bb;
    return bd;
}

#define MAX_IN OTD_MAX_PARTS
#define MAX_OUT OTD_MAX_PARTS

DML_RESULT conf_run(conf_device* d, const DML_OPERATOR_DESC* desc, uint32_t input_count,
                    const void* const* inputs, const uint64_t* input_bytes,
                    const uint64_t* input_total, uint64_t output_total, void* output,
                    uint64_t output_bytes)
{
    return conf_run_outputs(d, desc, input_count, inputs, input_bytes, input_total, 1, &output_total, &output,
                            &output_bytes);
}

DML_RESULT conf_run_outputs(conf_device* d, const DML_OPERATOR_DESC* desc, uint32_t input_count,
                            const void* const* inputs, const uint64_t* input_bytes,
                            const uint64_t* input_total, uint32_t output_count, const uint64_t* output_total,
                            void* const* outputs, const uint64_t* output_bytes)
{
    return conf_run_prefilled(d, desc, input_count, inputs, input_bytes, input_total, output_count, output_total,
                            outputs, output_bytes, 0);
}

DML_RESULT conf_run_prefilled(conf_device* d, const DML_OPERATOR_DESC* desc, uint32_t input_count,
                            const void* const* inputs, const uint64_t* input_bytes,
                            const uint64_t* input_total, uint32_t output_count, const uint64_t* output_total,
                            void* const* outputs, const uint64_t* output_bytes, int prefill)
{
    DML_RESULT r = DML_S_OK;
    DMLOperator op = NULL;
    DMLCompiledOperator compiled = NULL;
    DMLOperatorInitializer init = NULL;
    DMLBindingTable init_table = NULL, table = NULL;
    DMLBuffer in_buf[MAX_IN] = { NULL }, out_buf[MAX_OUT] = { NULL }, persistent = NULL, temp = NULL,
              init_temp = NULL;
    DML_BUFFER_BINDING bb[MAX_IN + MAX_OUT];
    DML_BINDING_DESC bd[MAX_IN + MAX_OUT];
    uint64_t out_total[MAX_OUT];
    d->message[0] = '\0';
    if (input_count > MAX_IN || output_count > MAX_OUT)
        return DML_E_INVALIDARG;

    STEP("dmlDeviceCreateOperator", dmlDeviceCreateOperator(d->device, desc, &op));
    STEP("dmlDeviceCompileOperator",
         dmlDeviceCompileOperator(d->device, op, DML_EXECUTION_FLAG_NONE, &compiled));
    STEP("dmlDeviceCreateOperatorInitializer",
         dmlDeviceCreateOperatorInitializer(d->device, 1, &compiled, &init));
    DML_BINDING_PROPERTIES ip = dmlDispatchableGetBindingProperties(init);
    DML_BINDING_PROPERTIES ep = dmlDispatchableGetBindingProperties(compiled);

    for (uint32_t i = 0; i < input_count; ++i) {
        uint64_t total = input_total[i] > input_bytes[i] ? input_total[i] : input_bytes[i];
        STEP("dmlDeviceCreateBuffer(input)", dmlDeviceCreateBuffer(d->device, total, &in_buf[i]));
        if (total > input_bytes[i]) { /* deterministic padding */
            uint8_t* pad = calloc(1, total);
            if (!pad) {
                r = DML_E_OUTOFMEMORY;
                goto done;
            }
            memcpy(pad, inputs[i], input_bytes[i]);
            STEP("dmlCommandQueueWriteBuffer(input)",
                 dmlCommandQueueWriteBuffer(d->queue, in_buf[i], 0, pad, total));
            free(pad);
        } else {
            STEP("dmlCommandQueueWriteBuffer(input)",
                 dmlCommandQueueWriteBuffer(d->queue, in_buf[i], 0, inputs[i], total));
        }
    }
    for (uint32_t i = 0; i < output_count; ++i) {
        out_total[i] = output_total[i] > output_bytes[i] ? output_total[i] : output_bytes[i];
        STEP("dmlDeviceCreateBuffer(output)", dmlDeviceCreateBuffer(d->device, out_total[i], &out_buf[i]));
        if (i == 0 && prefill && input_count) /* what the operator does not write keeps input 0's data */
            STEP("dmlCommandQueueWriteBuffer(output)",
                 dmlCommandQueueWriteBuffer(d->queue, out_buf[0], 0, inputs[0], input_bytes[0]));
    }
    if (ep.PersistentResourceSize)
        STEP("dmlDeviceCreateBuffer(persistent)",
             dmlDeviceCreateBuffer(d->device, ep.PersistentResourceSize, &persistent));
    if (ep.TemporaryResourceSize)
        STEP("dmlDeviceCreateBuffer(temporary)",
             dmlDeviceCreateBuffer(d->device, ep.TemporaryResourceSize, &temp));
    if (ip.TemporaryResourceSize)
        STEP("dmlDeviceCreateBuffer(init temporary)",
             dmlDeviceCreateBuffer(d->device, ip.TemporaryResourceSize, &init_temp));

    DML_BINDING_TABLE_DESC td;
    td.Dispatchable = init;
    STEP("dmlDeviceCreateBindingTable(initializer)", dmlDeviceCreateBindingTable(d->device, &td, &init_table));
    if (persistent) {
        bd[0] = buffer_binding(&bb[0], persistent, ep.PersistentResourceSize);
        STEP("dmlBindingTableBindOutputs(initializer)", dmlBindingTableBindOutputs(init_table, 1, bd));
    }
    if (init_temp) {
        bd[0] = buffer_binding(&bb[0], init_temp, ip.TemporaryResourceSize);
        STEP("dmlBindingTableBindTemporaryResource(initializer)",
             dmlBindingTableBindTemporaryResource(init_table, bd));
    }
    STEP("RecordDispatch(initializer)",
         dmlCommandRecorderRecordDispatch(d->recorder, d->queue, init, init_table));

    td.Dispatchable = compiled;
    STEP("dmlDeviceCreateBindingTable", dmlDeviceCreateBindingTable(d->device, &td, &table));
    for (uint32_t i = 0; i < input_count; ++i) {
        uint64_t total = input_total[i] > input_bytes[i] ? input_total[i] : input_bytes[i];
        bd[i] = buffer_binding(&bb[i], in_buf[i], total);
    }
    STEP("dmlBindingTableBindInputs", dmlBindingTableBindInputs(table, input_count, bd));
    for (uint32_t i = 0; i < output_count; ++i)
        bd[MAX_IN + i] = buffer_binding(&bb[MAX_IN + i], out_buf[i], out_total[i]);
    STEP("dmlBindingTableBindOutputs", dmlBindingTableBindOutputs(table, output_count, &bd[MAX_IN]));
    if (persistent) {
        bd[0] = buffer_binding(&bb[0], persistent, ep.PersistentResourceSize);
        STEP("dmlBindingTableBindPersistentResource", dmlBindingTableBindPersistentResource(table, bd));
    }
    if (temp) {
        bd[0] = buffer_binding(&bb[0], temp, ep.TemporaryResourceSize);
        STEP("dmlBindingTableBindTemporaryResource", dmlBindingTableBindTemporaryResource(table, bd));
    }
    STEP("RecordDispatch", dmlCommandRecorderRecordDispatch(d->recorder, d->queue, compiled, table));
    for (uint32_t i = 0; i < output_count; ++i)
        STEP("dmlCommandQueueReadBuffer",
             dmlCommandQueueReadBuffer(d->queue, out_buf[i], 0, outputs[i], output_bytes[i]));
done:
    dmlRelease(table);
    dmlRelease(init_table);
    dmlRelease(init);
    dmlRelease(compiled);
    dmlRelease(op);
    for (uint32_t i = 0; i < MAX_IN; ++i)
        dmlRelease(in_buf[i]);
    for (uint32_t i = 0; i < MAX_OUT; ++i)
        dmlRelease(out_buf[i]);
    dmlRelease(persistent);
    dmlRelease(temp);
    dmlRelease(init_temp);
    return r;
}

static void tensor_desc(DML_BUFFER_TENSOR_DESC* b, DML_TENSOR_DESC* t, DML_TENSOR_DATA_TYPE type,
                        uint32_t rank, const uint32_t* sizes, const uint32_t* strides)
{
    memset(b, 0, sizeof *b);
    b->DataType = type;
    b->Flags = DML_TENSOR_FLAG_NONE;
    b->DimensionCount = rank;
    b->Sizes = sizes;
    b->Strides = strides;
    b->TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, rank, sizes, strides);
    t->Type = DML_TENSOR_TYPE_BUFFER;
    t->Desc = b;
}

static uint64_t count_of(uint32_t rank, const uint32_t* sizes)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; ++i)
        n *= sizes[i];
    return n;
}

DML_RESULT conf_reverse_sequence(conf_device* d, DML_TENSOR_DATA_TYPE type,
                                 const otd_reverse_sequence* m, const void* input,
                                 const void* lengths, void* output)
{
    DML_BUFFER_TENSOR_DESC bi, bl, bo;
    DML_TENSOR_DESC ti, tl, to;
    tensor_desc(&bi, &ti, type, m->rank, m->sizes, NULL);
    tensor_desc(&bl, &tl, m->lengths_type, m->rank, m->lengths_sizes, m->lengths_strides);
    tensor_desc(&bo, &to, type, m->rank, m->sizes, NULL);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rs = { &ti, &tl, &to, m->axis };
    DML_OPERATOR_DESC od = { DML_OPERATOR_REVERSE_SUBSEQUENCES, &rs };
    uint64_t bytes = count_of(m->rank, m->sizes) * conf_elem_size(type);
    uint64_t batch = 1; /* the lengths tensor's only non-broadcast dimension */
    for (uint32_t i = 0; i < m->rank; ++i)
        if (m->lengths_strides[i] == 1)
            batch = m->lengths_sizes[i];
    const void* ins[2] = { input, lengths };
    uint64_t in_bytes[2] = { bytes, batch * conf_elem_size(m->lengths_type) };
    uint64_t in_total[2] = { bi.TotalTensorSizeInBytes, bl.TotalTensorSizeInBytes };
    return conf_run(d, &od, 2, ins, in_bytes, in_total, bo.TotalTensorSizeInBytes, output, bytes);
}

DML_RESULT conf_slice1(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_slice* m,
                       const void* input, void* output)
{
    DML_BUFFER_TENSOR_DESC bi, bo;
    DML_TENSOR_DESC ti, to;
    tensor_desc(&bi, &ti, type, m->rank, m->input_sizes, NULL);
    tensor_desc(&bo, &to, type, m->rank, m->output_sizes, NULL);
    DML_SLICE1_OPERATOR_DESC sd = { &ti, &to, m->rank, m->offsets, m->window_sizes, m->strides };
    DML_OPERATOR_DESC od = { DML_OPERATOR_SLICE1, &sd };
    uint64_t in_bytes = count_of(m->rank, m->input_sizes) * conf_elem_size(type);
    uint64_t out_bytes = count_of(m->rank, m->output_sizes) * conf_elem_size(type);
    const void* ins[1] = { input };
    uint64_t in_total[1] = { bi.TotalTensorSizeInBytes };
    return conf_run(d, &od, 1, ins, &in_bytes, in_total, bo.TotalTensorSizeInBytes, output, out_bytes);
}

DML_RESULT conf_tile(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_tile* m, const void* input,
                     void* output)
{
    DML_BUFFER_TENSOR_DESC bi, bo;
    DML_TENSOR_DESC ti, to;
    tensor_desc(&bi, &ti, type, m->rank, m->input_sizes, NULL);
    tensor_desc(&bo, &to, type, m->rank, m->output_sizes, NULL);
    DML_TILE_OPERATOR_DESC td = { &ti, &to, m->rank, m->repeats };
    DML_OPERATOR_DESC od = { DML_OPERATOR_TILE, &td };
    uint64_t in_bytes = count_of(m->rank, m->input_sizes) * conf_elem_size(type);
    uint64_t out_bytes = count_of(m->rank, m->output_sizes) * conf_elem_size(type);
    const void* ins[1] = { input };
    uint64_t in_total[1] = { bi.TotalTensorSizeInBytes };
    return conf_run(d, &od, 1, ins, &in_bytes, in_total, bo.TotalTensorSizeInBytes, output, out_bytes);
}

DML_RESULT conf_pad(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_pad* m, const void* input, const void* value,
                    void* output)
{
    DML_BUFFER_TENSOR_DESC bi, bo;
    DML_TENSOR_DESC ti, to;
    tensor_desc(&bi, &ti, type, m->rank, m->input_sizes, NULL);
    tensor_desc(&bo, &to, type, m->rank, m->output_sizes, NULL);
    DML_SCALAR_UNION v;
    memset(&v, 0, sizeof v);
    if (value)
        memcpy(v.Bytes, value, conf_elem_size(type));
    DML_PADDING1_OPERATOR_DESC pd = { &ti, &to, m->mode, type, v, m->rank, m->start, m->end };
    DML_OPERATOR_DESC od = { DML_OPERATOR_PADDING1, &pd };
    uint64_t in_bytes = count_of(m->rank, m->input_sizes) * conf_elem_size(type);
    uint64_t out_bytes = count_of(m->rank, m->output_sizes) * conf_elem_size(type);
    const void* ins[1] = { input };
    uint64_t in_total[1] = { bi.TotalTensorSizeInBytes };
    return conf_run(d, &od, 1, ins, &in_bytes, in_total, bo.TotalTensorSizeInBytes, output, out_bytes);
}

DML_RESULT conf_depth_space(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_depth_space* m,
                            const void* input, void* output)
{
    DML_BUFFER_TENSOR_DESC bi, bo;
    DML_TENSOR_DESC ti, to;
    tensor_desc(&bi, &ti, type, 4, m->input_sizes, NULL);
    tensor_desc(&bo, &to, type, 4, m->output_sizes, NULL);
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d2s = { &ti, &to, m->block, m->order };
    DML_SPACE_TO_DEPTH1_OPERATOR_DESC s2d = { &ti, &to, m->block, m->order };
    DML_OPERATOR_DESC od = { DML_OPERATOR_DEPTH_TO_SPACE1, &d2s };
    if (!m->to_space)
        od = (DML_OPERATOR_DESC){ DML_OPERATOR_SPACE_TO_DEPTH1, &s2d };
    uint64_t in_bytes = count_of(4, m->input_sizes) * conf_elem_size(type);
    uint64_t out_bytes = count_of(4, m->output_sizes) * conf_elem_size(type);
    const void* ins[1] = { input };
    uint64_t in_total[1] = { bi.TotalTensorSizeInBytes };
    return conf_run(d, &od, 1, ins, &in_bytes, in_total, bo.TotalTensorSizeInBytes, output, out_bytes);
}

/* The DML parts of a Concat/Split mapping (those with a non-zero axis size):
 * their descs, and the ONNX part each is. */
typedef struct join_split_parts {
    uint32_t count;
    uint32_t onnx_index[OTD_MAX_PARTS];
    uint32_t sizes[OTD_MAX_PARTS][DML_TENSOR_DIMENSION_COUNT_MAX1];
    DML_BUFFER_TENSOR_DESC buffers[OTD_MAX_PARTS];
    DML_TENSOR_DESC tensors[OTD_MAX_PARTS];
    uint64_t bytes[OTD_MAX_PARTS];
    uint64_t totals[OTD_MAX_PARTS];
} join_split_parts;

static void collect_parts(DML_TENSOR_DATA_TYPE type, const otd_join_split* m, join_split_parts* p)
{
    p->count = 0;
    for (uint32_t k = 0; k < m->part_count; ++k) {
        if (m->part_axis_sizes[k] == 0)
            continue;
        uint32_t j = p->count++;
        p->onnx_index[j] = k;
        memcpy(p->sizes[j], m->whole_sizes, sizeof p->sizes[j]);
        p->sizes[j][m->axis] = m->part_axis_sizes[k];
        tensor_desc(&p->buffers[j], &p->tensors[j], type, m->rank, p->sizes[j], NULL);
        p->bytes[j] = count_of(m->rank, p->sizes[j]) * conf_elem_size(type);
        p->totals[j] = p->buffers[j].TotalTensorSizeInBytes;
    }
}

DML_RESULT conf_join(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_join_split* m,
                     const void* const* inputs, void* output)
{
    static join_split_parts p; /* large: not on the stack; the suites are single-threaded */
    collect_parts(type, m, &p);
    DML_BUFFER_TENSOR_DESC bo;
    DML_TENSOR_DESC to;
    tensor_desc(&bo, &to, type, m->rank, m->whole_sizes, NULL);
    DML_JOIN_OPERATOR_DESC jd = { p.count, p.tensors, &to, m->axis };
    DML_OPERATOR_DESC od = { DML_OPERATOR_JOIN, &jd };
    const void* ins[OTD_MAX_PARTS];
    for (uint32_t j = 0; j < p.count; ++j)
        ins[j] = inputs[p.onnx_index[j]];
    uint64_t out_bytes = count_of(m->rank, m->whole_sizes) * conf_elem_size(type);
    return conf_run(d, &od, p.count, ins, p.bytes, p.totals, bo.TotalTensorSizeInBytes, output, out_bytes);
}

DML_RESULT conf_split(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_join_split* m, const void* input,
                      void* const* outputs)
{
    static join_split_parts p;
    collect_parts(type, m, &p);
    DML_BUFFER_TENSOR_DESC bi;
    DML_TENSOR_DESC ti;
    tensor_desc(&bi, &ti, type, m->rank, m->whole_sizes, NULL);
    DML_SPLIT_OPERATOR_DESC sd = { &ti, p.count, p.tensors, m->axis };
    DML_OPERATOR_DESC od = { DML_OPERATOR_SPLIT, &sd };
    void* outs[OTD_MAX_PARTS];
    for (uint32_t j = 0; j < p.count; ++j)
        outs[j] = outputs[p.onnx_index[j]];
    uint64_t in_bytes = count_of(m->rank, m->whole_sizes) * conf_elem_size(type);
    uint64_t in_total = bi.TotalTensorSizeInBytes;
    return conf_run_outputs(d, &od, 1, &input, &in_bytes, &in_total, p.count, p.totals, outs, p.bytes);
}

DML_RESULT conf_fill(conf_device* d, const otd_fill* m, void* output)
{
    DML_BUFFER_TENSOR_DESC bo;
    DML_TENSOR_DESC to;
    tensor_desc(&bo, &to, m->type, m->rank, m->output_sizes, NULL);
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant = { &to, m->type, m->start };
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sequence = { &to, m->type, m->start, m->delta };
    DML_OPERATOR_DESC od = { m->sequence ? DML_OPERATOR_FILL_VALUE_SEQUENCE : DML_OPERATOR_FILL_VALUE_CONSTANT,
        m->sequence ? (const void*)&sequence : (const void*)&constant };
    uint64_t out_bytes = count_of(m->rank, m->output_sizes) * conf_elem_size(m->type);
    return conf_run(d, &od, 0, NULL, NULL, NULL, bo.TotalTensorSizeInBytes, output, out_bytes);
}

DML_RESULT conf_expand(conf_device* d, DML_TENSOR_DATA_TYPE type, const otd_expand* m, const void* input,
                       void* output)
{
    DML_BUFFER_TENSOR_DESC bi, bo;
    DML_TENSOR_DESC ti, to;
    tensor_desc(&bi, &ti, type, m->rank, m->output_sizes, m->input_strides);
    tensor_desc(&bo, &to, type, m->rank, m->output_sizes, NULL);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id = { &ti, &to, NULL };
    DML_OPERATOR_DESC od = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id };
    uint64_t in_bytes = m->input_elements * conf_elem_size(type);
    uint64_t out_bytes = count_of(m->rank, m->output_sizes) * conf_elem_size(type);
    const void* ins[1] = { input };
    uint64_t in_total[1] = { bi.TotalTensorSizeInBytes };
    return conf_run(d, &od, 1, ins, &in_bytes, in_total, bo.TotalTensorSizeInBytes, output, out_bytes);
}

DML_RESULT conf_cast(conf_device* d, const otd_cast* m, const void* input, void* output)
{
    DML_BUFFER_TENSOR_DESC bi, bo;
    DML_TENSOR_DESC ti, to;
    tensor_desc(&bi, &ti, m->input_type, m->rank, m->sizes, NULL);
    tensor_desc(&bo, &to, m->output_type, m->rank, m->sizes, NULL);
    DML_CAST_OPERATOR_DESC cd = { &ti, &to };
    DML_OPERATOR_DESC od = { DML_OPERATOR_CAST, &cd };
    uint64_t in_bytes = count_of(m->rank, m->sizes) * conf_elem_size(m->input_type);
    uint64_t out_bytes = count_of(m->rank, m->sizes) * conf_elem_size(m->output_type);
    const void* ins[1] = { input };
    uint64_t in_total[1] = { bi.TotalTensorSizeInBytes };
    return conf_run(d, &od, 1, ins, &in_bytes, in_total, bo.TotalTensorSizeInBytes, output, out_bytes);
}

DML_RESULT conf_indexed(conf_device* d, const otd_indexed* m, const void* const* inputs, void* output)
{
    DML_BUFFER_TENSOR_DESC b[OTD_INDEXED_INPUTS + 1];
    DML_TENSOR_DESC t[OTD_INDEXED_INPUTS + 1];
    uint64_t bytes[OTD_INDEXED_INPUTS], totals[OTD_INDEXED_INPUTS];
    for (uint32_t k = 0; k <= m->input_count; ++k) {
        const otd_indexed_tensor* x = k < m->input_count ? &m->inputs[k] : &m->output;
        tensor_desc(&b[k], &t[k], x->type, m->rank, x->sizes, x->strided ? x->strides : NULL);
        if (k < m->input_count) {
            bytes[k] = x->elements * conf_elem_size(x->type);
            totals[k] = b[k].TotalTensorSizeInBytes;
        }
    }
    const DML_TENSOR_DESC* out = &t[m->input_count];
    DML_GATHER_OPERATOR_DESC gather = { &t[0], &t[1], out, m->axis, m->index_dimensions };
    DML_GATHER_ELEMENTS_OPERATOR_DESC gather_elements = { &t[0], &t[1], out, m->axis };
    DML_GATHER_ND1_OPERATOR_DESC gather_nd1 = { &t[0], &t[1], out, m->input_dimension_count,
        m->indices_dimension_count, m->batch_dimension_count };
    DML_SCATTER_ELEMENTS_OPERATOR_DESC scatter = { &t[0], &t[1], &t[2], out, m->axis };
    DML_SCATTER_ND_OPERATOR_DESC scatter_nd = { &t[0], &t[1], &t[2], out, m->input_dimension_count,
        m->indices_dimension_count };
    DML_ONE_HOT_OPERATOR_DESC one_hot = { &t[0], &t[1], out, m->axis };
    DML_ELEMENT_WISE_IF_OPERATOR_DESC select = { &t[0], &t[1], &t[2], out };
    DML_OPERATOR_DESC od = { m->op, NULL };
    switch (m->op) {
    case DML_OPERATOR_GATHER: od.Desc = &gather; break;
    case DML_OPERATOR_GATHER_ELEMENTS: od.Desc = &gather_elements; break;
    case DML_OPERATOR_GATHER_ND1: od.Desc = &gather_nd1; break;
    case DML_OPERATOR_SCATTER_ELEMENTS: od.Desc = &scatter; break;
    case DML_OPERATOR_SCATTER_ND: od.Desc = &scatter_nd; break;
    case DML_OPERATOR_ONE_HOT: od.Desc = &one_hot; break;
    case DML_OPERATOR_ELEMENT_WISE_IF: od.Desc = &select; break;
    default: return DML_E_INVALIDARG;
    }
    uint64_t out_total = b[m->input_count].TotalTensorSizeInBytes;
    uint64_t out_bytes = m->output.elements * conf_elem_size(m->output.type);
    return conf_run_prefilled(d, &od, m->input_count, inputs, bytes, totals, 1, &out_total, &output, &out_bytes,
                            m->prefill_output);
}
